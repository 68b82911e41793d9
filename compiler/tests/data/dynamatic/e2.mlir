module {
  handshake.func @k2(%arg0: memref<10xi32>, %arg1: !handshake.channel<i32>, %arg2: !handshake.control<>, %arg3: !handshake.control<>, ...) -> (!handshake.channel<i32>, !handshake.control<>, !handshake.control<>) attributes {argNames = ["b", "y", "b_start", "start"], resNames = ["out0", "b_end", "end"]} {
    %0:5 = fork [5] %arg3 {handshake.bb = 0 : ui32, handshake.name = "fork0"} : <>
    %1 = buffer %arg1 {handshake.bb = 0 : ui32, handshake.name = "buffer0", hw.parameters = {NUM_SLOTS = 1 : ui32, TIMING = #handshake<timing {D: 1, V: 1, R: 0}>}} : <i32>
    %2 = buffer %1 {handshake.name = "buffer1", hw.parameters = {NUM_SLOTS = 1 : ui32, TIMING = #handshake<timing {R: 1}>}} : <i32>
    %3 = buffer %2 {handshake.name = "buffer2", hw.parameters = {NUM_SLOTS = 3 : ui32, TIMING = #handshake<timing {R: 1}>}} : <i32>
    %4 = buffer %3 {handshake.name = "buffer3", hw.parameters = {NUM_SLOTS = 2 : ui32, TIMING = #handshake<timing {D: 1, V: 1, R: 0}>}} : <i32>
    %5 = buffer %4 {handshake.name = "buffer4", hw.parameters = {NUM_SLOTS = 4 : ui32, TIMING = #handshake<timing {D: 0, V: 0, R: 0}>}} : <i32>
    %6 = br %5 {handshake.bb = 0 : ui32, handshake.name = "br0"} : <i32>
    %result, %index = control_merge %0#0, %trueResult  {handshake.bb = 1 : ui32, handshake.name = "control_merge0"} : <>, <i1>
    %7 = mux %index [%6, %9] {handshake.bb = 1 : ui32, handshake.name = "mux0"} : <i1>, <i32>
    %8 = constant %0#1 {handshake.bb = 1 : ui32, handshake.name = "constant0", value = true} : <>, <i1>
    %trueResult, %falseResult = cond_br %8, %result {handshake.bb = 1 : ui32, handshake.name = "cond_br0"} : <i1>, <>
    sink %falseResult {handshake.name = "sink0"} : <>
    %10 = trunci %7 {handshake.bb = 1 : ui32, handshake.name = "trunci0"} : <i32> to <i4>
    %addressResult, %dataResult = load[%10] %outputs {handshake.bb = 1 : ui32, handshake.mem_interface = #handshake.mem_interface<MC>, handshake.name = "load0"} : <i4>, <i32>
    %outputs, %memEnd = mem_controller[%arg0 : memref<10xi32>] %arg2 (%addressResult) %0#2 {connectedBlocks = [1 : i32], handshake.name = "mem_controller0"} :    (!handshake.channel<i4>) -> !handshake.channel<i32>
    %11:2 = fork [2] %dataResult {handshake.bb = 1 : ui32, handshake.name = "fork1"} : <i32>
    %9 = shli %11#0, %12 {handshake.bb = 1 : ui32, handshake.name = "shli0"} : <i32>
    %12 = constant %0#3 {handshake.bb = 1 : ui32, handshake.name = "constant1", value = 2 : i32} : <>, <i32>
    end {handshake.bb = 2 : ui32, handshake.name = "end0"} %11#1, %memEnd, %0#4 : <i32>, <>, <>
  }
}
