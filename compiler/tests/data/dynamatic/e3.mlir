// Two functions, lit-test style, no module wrapper.
handshake.func @k3(%arg0: !handshake.channel<i8, [spec: i1, tag: i4 (U)]>, %arg1: !handshake.channel<i1>, %arg2: !handshake.control<>, ...) -> (!handshake.channel<i8, [spec: i1, tag: i4 (U)]>, !handshake.control<>) attributes {argNames = ["v", "c", "start"], resNames = ["out0", "end"]} {
  %0 = buffer %arg0 {handshake.bb = 1 : ui32, handshake.name = "buffer0", hw.parameters = {BUFFER_TYPE = "FIFO_BREAK_DV", NUM_SLOTS = 2 : ui32, TIMING = #handshake<timing {D: 1, V: 1, R: 0}>}} : <i8, [spec: i1, tag: i4 (U)]>
  %1:3 = fork [3] %arg1 {ftd.imerge, handshake.bb = 1 : ui32, handshake.name = "fork0"} : <i1>
  %2 = not %1#0 {handshake.bb = 1 : ui32, handshake.name = "not0"} : <i1>
  %3 = mux %2 [%0, %4] {handshake.bb = 1 : ui32, handshake.name = "mux0"} : <i1>, [<i8, [spec: i1, tag: i4 (U)]>, <i8, [spec: i1, tag: i4 (U)]>] to <i8, [spec: i1, tag: i4 (U)]>
  %5:2 = fork [2] %3 {handshake.bb = 1 : ui32, handshake.name = "fork1"} : <i8, [spec: i1, tag: i4 (U)]>
  %4 = passer %5#0[%1#1] {handshake.bb = 1 : ui32, handshake.name = "passer0"} : <i8, [spec: i1, tag: i4 (U)]>, <i1>
  %6 = buffer %arg2 {handshake.name = "buffer1", hw.parameters = {BUFFER_TYPE = "ONE_SLOT_BREAK_R", NUM_SLOTS = 1 : ui32, TIMING = #handshake<timing {D: 0, V: 0, R: 1}>}} : <>
  sink %1#2 {handshake.name = "sink0"} : <i1>
  end {handshake.bb = 2 : ui32, handshake.name = "end0"} %5#1, %6 : <i8, [spec: i1, tag: i4 (U)]>, <>
}
// -----
// CHECK-LABEL: k3mem
handshake.func @k3mem(%arg0: memref<4xf32>, %arg1: !handshake.control<>, %arg2: !handshake.control<>, ...) -> (!handshake.control<>, !handshake.control<>) attributes {argNames = ["m", "m_start", "start"], resNames = ["m_end", "end"]} {
  %0:6 = fork [6] %arg2 {handshake.bb = 0 : ui32, handshake.name = "fork0"} : <>
  %result, %index = control_merge [%0#0, %0#1]  {handshake.bb = 1 : ui32, handshake.name = "control_merge0"} : [<>, <>] to <>, <i1>
  sink %index {handshake.name = "sink0"} : <i1>
  %1 = constant %result {handshake.bb = 1 : ui32, handshake.name = "constant0", value = 3 : i2} : <>, <i2>
  %2 = constant %0#2 {handshake.bb = 1 : ui32, handshake.name = "constant1", value = -0.25 : f32} : <>, <f32>
  %3 = constant %0#3 {handshake.bb = 1 : ui32, handshake.name = "constant2", value = 1 : i32} : <>, <i32>
  %addressResult, %dataResult = store[%1] %2 {handshake.bb = 1 : ui32, handshake.mem_interface = #handshake.mem_interface<MC>, handshake.name = "store0"} : <i2>, <f32>, <i2>, <f32>
  %memEnd = mem_controller[%arg0 : memref<4xf32>] %arg1 (%3, %addressResult, %dataResult) %0#4 {connectedBlocks = [1 : i32], handshake.name = "mem_controller0"} : (!handshake.channel<i32>, !handshake.channel<i2>, !handshake.channel<f32>) -> ()
  end {handshake.bb = 1 : ui32, handshake.name = "end0"} %memEnd, %0#5 : <>, <>
}
