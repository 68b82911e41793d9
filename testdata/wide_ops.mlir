// A circuit with data wider than 64 bits in every form the SystemVerilog writer and the
// Verilator testbench handle: i128 arithmetic, a buffer with wide initValues, a wide constant,
// a 160-bit tuple unpacked and repacked, an i96 memory. Shared by the verilog unit tests and
// oracle/tests/wide.rs.
handshake.func @wide(%a: i128, %b: i128, %t: tuple<i32, i64, i64>, %start: none, ...) -> (i128, i1, i128, tuple<i32, i64, i64>, i96, none) attributes {argNames = ["a", "b", "t", "start"], resNames = ["sum", "lt", "k", "t2", "ld", "done"]} {
  %af:3 = fork [3] %a : i128
  %bf:3 = fork [3] %b : i128
  %s = arith.addi %af#0, %bf#0 : i128
  %sb = buffer [2] seq %s {initValues = [18446744073709551617, -1]} : i128
  %lt = arith.cmpi slt, %af#1, %bf#1 : i128
  %m = arith.muli %af#2, %bf#2 : i128
  %mt = arith.trunci %m : i128 to i96
  %sf:4 = fork [4] %start : none
  %k = constant %sf#0 {value = 1267650600228229401496703205381 : i128} : i128
  %u:3 = unpack %t : tuple<i32, i64, i64>
  %p = pack %u#0, %u#1, %u#2 : tuple<i32, i64, i64>
  %ldData, %stDone, %ldDone = memory [ld = 1, st = 1] (%stData, %stAddr, %ldAddr) {id = 0 : i32, lsq = false} : memref<4xi96>, (i96, index, index) -> (i96, none, none)
  %c1 = constant %sf#1 {value = 1 : index} : index
  %c1f:2 = fork [2] %c1 : index
  %stData, %stAddr = store [%c1f#0] %mt, %sf#2 : index, i96
  %sd:2 = fork [2] %stDone : none
  %ld, %ldAddr = load [%c1f#1] %ldData, %sd#0 : index, i96
  %done = join %sd#1, %ldDone, %sf#3 : none, none, none
  return %sb, %lt, %k, %p, %ld, %done : i128, i1, i128, tuple<i32, i64, i64>, i96, none
}
