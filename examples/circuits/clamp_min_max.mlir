// Clamping with arith.maxsi/minsi and maxui/minui: s = min(max(x, -10), 20) compares signed,
// u = min(max(x, 10), 200) compares the same bits unsigned. A negative x such as -3 is
// 0xFD = 253 unsigned: the signed pair keeps -3, the unsigned pair clamps it to 200, which
// an i8 prints as -56; -128 is 128 unsigned and passes the unsigned clamp unchanged.
// sim: --in x=-128,-11,-10,-3,0,5,20,21,127,100 --in start=10
// expect: s=-10,-10,-10,-3,0,5,20,20,20,20
// expect: u=-128,-56,-56,-56,10,10,20,21,127,100
// oracle: skip (CIRCT 1.62 does not lower maxsi/minsi/maxui/minui; the Verilator round trip checks them against our SystemVerilog)
handshake.func @clamp(%x: i8, %start: none, ...) -> (i8, i8, none) attributes {argNames = ["x", "start"], resNames = ["s", "u", "done"]} {
  %xf:2 = fork [2] %x : i8
  %sf:5 = fork [5] %start : none
  %lo = constant %sf#0 {value = -10 : i8} : i8
  %hi = constant %sf#1 {value = 20 : i8} : i8
  %ulo = constant %sf#2 {value = 10 : i8} : i8
  %uhi = constant %sf#3 {value = -56 : i8} : i8
  %a = arith.maxsi %xf#0, %lo : i8
  %s = arith.minsi %a, %hi : i8
  %b = arith.maxui %xf#1, %ulo : i8
  %u = arith.minui %b, %uhi : i8
  return %s, %u, %sf#4 : i8, i8, none
}
