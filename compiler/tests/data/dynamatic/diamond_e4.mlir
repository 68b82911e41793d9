// Handscope's own test circuit (era E4): out0 = 3 * x + x, the product through a 4-cycle
// `muli`, the sum's other operand straight from the fork: the short side has no slot, so
// each x waits for the one before it to leave the multiplier.
module {
  handshake.func @diamond(%arg0: !handshake.channel<i32>, %arg1: !handshake.control<>, ...) -> (!handshake.channel<i32>, !handshake.control<>) attributes {argNames = ["x", "start"], resNames = ["out0", "end"]} {
    %0:2 = fork [2] %arg0 {handshake.bb = 0 : ui32, handshake.name = "fork0"} : <i32>
    %1 = source {handshake.bb = 0 : ui32, handshake.name = "source0"} : <>
    %2 = constant %1 {handshake.bb = 0 : ui32, handshake.name = "constant0", value = 3 : i32} : <>, <i32>
    %3 = muli %0#0, %2 {handshake.bb = 0 : ui32, handshake.name = "muli0"} : <i32>
    %4 = addi %3, %0#1 {handshake.bb = 0 : ui32, handshake.name = "addi0"} : <i32>
    end {handshake.bb = 0 : ui32, handshake.name = "end0"} %4, %arg1 : <i32>, <>
  }
}
