// A circuit in Dynamatic's dialect (syntax era E4), written for Handscope's gallery: out0 =
// 3 * x + x for eight values of x. The product comes through `muli0`, a 4-stage pipeline, and
// a ONE_SLOT_BREAK_DV register (`buffer0`); the other copy of x waits in a single
// ONE_SLOT_BREAK_R skid slot (`buffer1`). `handscope tune` finds the slots that short arm
// needs: examples/dynamatic/dynamatic_diamond_tuned.mlir is its output.
// sim: --in x=1..9 --in start=8
module {
  handshake.func @diamond(%arg0: !handshake.channel<i32>, %arg1: !handshake.control<>, ...) -> (!handshake.channel<i32>, !handshake.control<>) attributes {argNames = ["x", "start"], resNames = ["out0", "end"]} {
    %0:2 = fork [2] %arg0 {handshake.bb = 0 : ui32, handshake.name = "fork0"} : <i32>
    %1 = source {handshake.bb = 0 : ui32, handshake.name = "source0"} : <>
    %2 = constant %1 {handshake.bb = 0 : ui32, handshake.name = "constant0", value = 3 : i32} : <>, <i32>
    %3 = muli %0#0, %2 {handshake.bb = 0 : ui32, handshake.name = "muli0"} : <i32>
    %4 = buffer %3, bufferType = ONE_SLOT_BREAK_DV, numSlots = 1 {handshake.bb = 0 : ui32, handshake.name = "buffer0"} : <i32>
    %5 = buffer %0#1, bufferType = ONE_SLOT_BREAK_R, numSlots = 1 {handshake.bb = 0 : ui32, handshake.name = "buffer1"} : <i32>
    %6 = addi %4, %5 {handshake.bb = 0 : ui32, handshake.name = "addi0"} : <i32>
    end {handshake.bb = 0 : ui32, handshake.name = "end0"} %6, %arg1 : <i32>, <>
  }
}
