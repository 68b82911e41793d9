// Wide data: two 128-bit elements of an external memory multiplied at full precision into a
// 256-bit product; its low 128 bits are stored back, and the product travels on with a
// tag byte as one 264-bit tuple token. Values wider than 64 bits print in decimal in
// reports and in hex in the debugger.
// sim: --mem mem=0xffffffffffffffffffffffffffffffff,0x10000000000000000,5,7 --in i=0 --in j=1 --in k=2 --in start=1
// expect: prod=6277101735386680763835789423207666416083908700390324961280
// expect: tagged=115792089237316195429848086744074588617105774088848230455541492708303454601216
// expect-mem: mem=-1,18446744073709551616,-18446744073709551616,7
handshake.func @wide_product(%mem: memref<4xi128>, %i: index, %j: index, %k: index, %start: none, ...) -> (i256, tuple<i8, i256>, none) attributes {argNames = ["mem", "i", "j", "k", "start"], resNames = ["prod", "tagged", "done"]} {
  %ld0, %ld1, %stDone, %ldDone0, %ldDone1 = extmemory [ld = 2, st = 1] (%mem : memref<4xi128>) (%stData, %stAddr, %la0, %la1) {id = 0 : i32} : (i128, index, index, index) -> (i128, i128, none, none, none)
  %sf:4 = fork [4] %start : none
  %v0, %la0 = load [%i] %ld0, %sf#0 : index, i128
  %v1, %la1 = load [%j] %ld1, %sf#1 : index, i128
  %w0 = arith.extui %v0 : i128 to i256
  %w1 = arith.extui %v1 : i128 to i256
  %p = arith.muli %w0, %w1 : i256
  %pf:3 = fork [3] %p : i256
  %lo = arith.trunci %pf#1 : i256 to i128
  %ctl = join %sf#2, %ldDone0, %ldDone1 : none, none, none
  %stData, %stAddr = store [%k] %lo, %ctl : index, i128
  %tag = constant %sf#3 {value = 1 : i8} : i8
  %t = pack %tag, %pf#2 : tuple<i8, i256>
  return %pf#0, %t, %stDone : i256, tuple<i8, i256>, none
}
