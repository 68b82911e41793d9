// Handscope's own test circuit (era E4): a master LSQ of three groups, (store), (load, store)
// and (load), with queues of 4 loads and 2 stores.
module {
  handshake.func @q(%arg0: memref<8xi32>, %arg1: !handshake.control<>, %arg2: !handshake.control<>, ...) -> (!handshake.channel<i32>, !handshake.control<>, !handshake.control<>) attributes {argNames = ["a", "a_start", "start"], resNames = ["out0", "a_end", "end"]} {
    %0:10 = fork [10] %arg2 {handshake.bb = 0 : ui32, handshake.name = "fork0"} : <>
    %1 = constant %0#0 {handshake.bb = 0 : ui32, handshake.name = "constant0", value = 1 : i3} : <>, <i3>
    %2 = constant %0#1 {handshake.bb = 0 : ui32, handshake.name = "constant1", value = 5 : i32} : <>, <i32>
    %addressResult, %dataResult = store[%1] %2 {handshake.bb = 0 : ui32, handshake.mem_interface = #handshake.mem_interface<LSQ: 0>, handshake.name = "store0"} : <i3>, <i32>, <i3>, <i32>
    %3 = constant %0#2 {handshake.bb = 1 : ui32, handshake.name = "constant2", value = 1 : i3} : <>, <i3>
    %addressResult_0, %dataResult_1 = load[%3] %9#0 {handshake.bb = 1 : ui32, handshake.mem_interface = #handshake.mem_interface<LSQ: 1>, handshake.name = "load0"} : <i3>, <i32>, <i3>, <i32>
    %4 = constant %0#3 {handshake.bb = 1 : ui32, handshake.name = "constant3", value = 2 : i3} : <>, <i3>
    %addressResult_2, %dataResult_3 = store[%4] %dataResult_1 {handshake.bb = 1 : ui32, handshake.mem_interface = #handshake.mem_interface<LSQ: 1>, handshake.name = "store1"} : <i3>, <i32>, <i3>, <i32>
    %5 = constant %0#4 {handshake.bb = 2 : ui32, handshake.name = "constant4", value = 2 : i3} : <>, <i3>
    %addressResult_4, %dataResult_5 = load[%5] %9#1 {handshake.bb = 2 : ui32, handshake.mem_interface = #handshake.mem_interface<LSQ: 2>, handshake.name = "load1"} : <i3>, <i32>, <i3>, <i32>
    %9:3 = lsq[%arg0 : memref<8xi32>] (%arg1, %0#5, %addressResult, %dataResult, %0#6, %addressResult_0, %addressResult_2, %dataResult_3, %0#7, %addressResult_4, %0#8)  {groupSizes = [1 : i32, 2 : i32, 1 : i32], handshake.lsqDepth = #handshake<lsqDepth[4, 2]>, handshake.name = "lsq0"} : (!handshake.control<>, !handshake.control<>, !handshake.channel<i3>, !handshake.channel<i32>, !handshake.control<>, !handshake.channel<i3>, !handshake.channel<i3>, !handshake.channel<i32>, !handshake.control<>, !handshake.channel<i3>, !handshake.control<>) -> (!handshake.channel<i32>, !handshake.channel<i32>, !handshake.control<>)
    end {handshake.bb = 3 : ui32, handshake.name = "end0"} %dataResult_5, %9#2, %0#9 : <i32>, <>, <>
  }
}
