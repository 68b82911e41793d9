module {
  handshake.func @k5(%arg0: memref<32xi32>, %arg1: !handshake.channel<i32>, %arg2: !handshake.control<>, %arg3: !handshake.control<>, ...) -> (!handshake.channel<i32>, !handshake.control<>, !handshake.control<>) attributes {argNames = ["a", "x", "a_start", "start"], resNames = ["out0", "a_end", "end"]} {
    %0:7 = fork [7] %arg3 {handshake.bb = 0 : ui32, handshake.name = "fork0"} : <>
    %1 = buffer %arg1, bufferType = COUNTER_BUFFER, numSlots = 1, dvLatency = 4 {handshake.bb = 0 : ui32, handshake.name = "buffer0"} : <i32>
    %2 = buffer %1, bufferType = SHIFT_REG_BREAK_DV, numSlots = 2, dvLatency = 2 {handshake.bb = 0 : ui32, handshake.name = "buffer1"} : <i32>
    %3:3 = fork [3] %2 {handshake.bb = 1 : ui32, handshake.name = "fork1"} : <i32>
    %4 = muli %3#0, %3#1 {handshake.bb = 1 : ui32, handshake.name = "muli0", internal_delay = "1_000000", latency = 4 : i64} : <i32>
    %5 = trunci %3#2 {handshake.bb = 1 : ui32, handshake.name = "trunci0"} : <i32> to <i5>
    %6 = trunci %4 {handshake.bb = 1 : ui32, handshake.name = "trunci1"} : <i32> to <i1>
    %7 = noti %6 {handshake.bb = 1 : ui32, handshake.name = "noti0"} : <i1>
    %8 = init %7 {handshake.bb = 1 : ui32, handshake.name = "init0", initToken = 1 : ui1} : <i1>
    sink %8 {handshake.name = "sink0"} : <i1>
    %9 = join %0#0, %0#1 {handshake.bb = 1 : ui32, handshake.name = "join0"} : <>
    %10 = merge %9, %0#2 {handshake.bb = 1 : ui32, handshake.name = "merge0"} : <>
    %11 = constant %10 {handshake.bb = 1 : ui32, handshake.name = "constant0", value = 0.1 : f64} : <>, <f64>
    sink %11 {handshake.name = "sink1"} : <f64>
    %addressResult, %dataResult = load[%5] %12#0 {handshake.bb = 1 : ui32, handshake.mem_interface = #handshake.mem_interface<LSQ: 0>, handshake.name = "load0"} : <i5>, <i32>, <i5>, <i32>
    %12:4 = lsq[MC] (%0#3, %addressResult, %outputs)  {groupSizes = [1 : i32], handshake.name = "lsq0"} : (!handshake.control<>, !handshake.channel<i5>, !handshake.channel<i32>) -> (!handshake.channel<i32>, !handshake.channel<i5>, !handshake.channel<i5>, !handshake.channel<i32>)
    %outputs, %memEnd = mem_controller[%arg0 : memref<32xi32>] %arg2 (%12#1, %12#2, %12#3) %0#4 {connectedBlocks = [1 : i32], handshake.name = "mem_controller0"} :    (!handshake.channel<i5>, !handshake.channel<i5>, !handshake.channel<i32>) -> !handshake.channel<i32>
    sink %0#5 {handshake.name = "sink2"} : <>
    end {handshake.bb = 2 : ui32, handshake.name = "end0"} %dataResult, %memEnd, %0#6 : <i32>, <>, <>
  }
}
