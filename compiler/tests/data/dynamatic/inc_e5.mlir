// Handscope's own test circuit (syntax era E5: `dvLatency`, `latency` on the unit): out0 =
// 3 * x through a 2-cycle `muli`, a ONE_SLOT_BREAK_DV and a FIFO_BREAK_NONE of two slots.
module {
  handshake.func @inc5(%arg0: !handshake.channel<i32>, %arg1: !handshake.control<>, ...) -> (!handshake.channel<i32>, !handshake.control<>) attributes {argNames = ["x", "start"], resNames = ["out0", "end"]} {
    %0:2 = fork [2] %arg1 {handshake.bb = 0 : ui32, handshake.name = "fork0"} : <>
    %1 = constant %0#0 {handshake.bb = 0 : ui32, handshake.name = "constant0", value = 3 : i32} : <>, <i32>
    %2 = muli %arg0, %1 {handshake.bb = 0 : ui32, handshake.name = "muli0", internal_delay = "0_000000", latency = 2 : i64} : <i32>
    %3 = buffer %2, bufferType = ONE_SLOT_BREAK_DV, numSlots = 1, dvLatency = 1 {handshake.bb = 0 : ui32, handshake.name = "buffer0"} : <i32>
    %4 = buffer %3, bufferType = FIFO_BREAK_NONE, numSlots = 2, dvLatency = 0 {handshake.bb = 0 : ui32, handshake.name = "buffer1"} : <i32>
    end {handshake.bb = 0 : ui32, handshake.name = "end0"} %4, %0#1 : <i32>, <>
  }
}
