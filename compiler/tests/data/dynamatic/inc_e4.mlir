// Handscope's own test circuit (syntax era E4): out0 = 3 * x through a 4-cycle `muli` and a
// ONE_SLOT_BREAK_DV buffer. `x` arrives a cycle after `start` (Dynamatic's testbench).
module {
  handshake.func @inc(%arg0: !handshake.channel<i32>, %arg1: !handshake.control<>, ...) -> (!handshake.channel<i32>, !handshake.control<>) attributes {argNames = ["x", "start"], resNames = ["out0", "end"]} {
    %0:2 = fork [2] %arg1 {handshake.bb = 0 : ui32, handshake.name = "fork0"} : <>
    %1 = constant %0#0 {handshake.bb = 0 : ui32, handshake.name = "constant0", value = 3 : i32} : <>, <i32>
    %2 = muli %arg0, %1 {handshake.bb = 0 : ui32, handshake.name = "muli0"} : <i32>
    %3 = buffer %2, bufferType = ONE_SLOT_BREAK_DV, numSlots = 1 {handshake.bb = 0 : ui32, handshake.name = "buffer0"} : <i32>
    end {handshake.bb = 0 : ui32, handshake.name = "end0"} %3, %0#1 : <i32>, <>
  }
}
