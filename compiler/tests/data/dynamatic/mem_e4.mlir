// Handscope's own test circuit (syntax era E4): a[2] = a[1] + 10 through a load, a store and
// one memory controller whose block announces one store.
module {
  handshake.func @bump(%arg0: memref<4xi32>, %arg1: !handshake.control<>, %arg2: !handshake.control<>, ...) -> (!handshake.control<>, !handshake.control<>) attributes {argNames = ["a", "a_start", "start"], resNames = ["a_end", "end"]} {
    %0:5 = fork [5] %arg2 {handshake.bb = 0 : ui32, handshake.name = "fork0"} : <>
    %1 = constant %0#0 {handshake.bb = 0 : ui32, handshake.name = "constant0", value = 1 : i2} : <>, <i2>
    %2 = constant %0#1 {handshake.bb = 0 : ui32, handshake.name = "constant1", value = -2 : i2} : <>, <i2>
    %3 = constant %0#2 {handshake.bb = 0 : ui32, handshake.name = "constant2", value = 1 : i32} : <>, <i32>
    %addressResult, %dataResult = load[%1] %outputs {handshake.bb = 0 : ui32, handshake.mem_interface = #handshake.mem_interface<MC>, handshake.name = "load0"} : <i2>, <i32>, <i2>, <i32>
    %4 = source {handshake.bb = 0 : ui32, handshake.name = "source0"} : <>
    %5 = constant %4 {handshake.bb = 0 : ui32, handshake.name = "constant3", value = 10 : i32} : <>, <i32>
    %6 = addi %dataResult, %5 {handshake.bb = 0 : ui32, handshake.name = "addi0"} : <i32>
    %addressResult_0, %dataResult_1 = store[%2] %6 {handshake.bb = 0 : ui32, handshake.mem_interface = #handshake.mem_interface<MC>, handshake.name = "store0"} : <i2>, <i32>, <i2>, <i32>
    %outputs, %memEnd = mem_controller[%arg0 : memref<4xi32>] %arg1 (%3, %addressResult, %addressResult_0, %dataResult_1) %0#3 {connectedBlocks = [0 : i32], handshake.name = "mem_controller0"} :    (!handshake.channel<i32>, !handshake.channel<i2>, !handshake.channel<i2>, !handshake.channel<i32>) -> !handshake.channel<i32>
    end {handshake.bb = 0 : ui32, handshake.name = "end0"} %memEnd, %0#4 : <>, <>
  }
}
