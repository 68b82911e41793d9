// Handscope's own test circuit (syntax era E3, `hw.parameters` with `BUFFER_TYPE`): out0 =
// 3 * x through a skid slot, a 4-cycle `muli` and a two-slot FIFO_BREAK_DV.
module {
  handshake.func @inc3(%arg0: !handshake.channel<i32>, %arg1: !handshake.control<>, ...) -> (!handshake.channel<i32>, !handshake.control<>) attributes {argNames = ["x", "start"], resNames = ["out0", "end"]} {
    %0:2 = fork [2] %arg1 {handshake.bb = 0 : ui32, handshake.name = "fork0"} : <>
    %1 = constant %0#0 {handshake.bb = 0 : ui32, handshake.name = "constant0", value = 3 : i32} : <>, <i32>
    %2 = buffer %arg0 {handshake.bb = 0 : ui32, handshake.name = "buffer0", hw.parameters = {BUFFER_TYPE = "ONE_SLOT_BREAK_R", NUM_SLOTS = 1 : ui32, TIMING = #handshake<timing {D: 0, V: 0, R: 1}>}} : <i32>
    %3 = muli %2, %1 {handshake.bb = 0 : ui32, handshake.name = "muli0"} : <i32>
    %4 = buffer %3 {handshake.bb = 0 : ui32, handshake.name = "buffer1", hw.parameters = {BUFFER_TYPE = "FIFO_BREAK_DV", NUM_SLOTS = 2 : ui32, TIMING = #handshake<timing {D: 1, V: 1, R: 0}>}} : <i32>
    end {handshake.bb = 0 : ui32, handshake.name = "end0"} %4, %0#1 : <i32>, <>
  }
}
