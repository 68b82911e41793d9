// A chain of three unbalanced fork/join diamonds (long arms of 4, 3 and 2 one-slot buffers,
// short arms empty), each doubling its input: out = 8a. The slowest diamond sets the pace
// (one token every 5 cycles); balancing it alone moves the limit to the next one, so
// `handscope tune` has to give every short arm slack.
// sim: --in a=1..17
// expect: out=8,16,24,32,40,48,56,64,72,80,88,96,104,112,120,128
handshake.func @chain(%a: i32, ...) -> (i32) attributes {argNames = ["a"], resNames = ["out"]} {
  %f0:2 = fork [2] %a : i32
  %a1 = buffer [1] seq %f0#0 : i32
  %a2 = buffer [1] seq %a1 : i32
  %a3 = buffer [1] seq %a2 : i32
  %a4 = buffer [1] seq %a3 : i32
  %s0 = arith.addi %a4, %f0#1 : i32
  %f1:2 = fork [2] %s0 : i32
  %b1 = buffer [1] seq %f1#0 : i32
  %b2 = buffer [1] seq %b1 : i32
  %b3 = buffer [1] seq %b2 : i32
  %s1 = arith.addi %b3, %f1#1 : i32
  %f2:2 = fork [2] %s1 : i32
  %c1 = buffer [1] seq %f2#0 : i32
  %c2 = buffer [1] seq %c1 : i32
  %s2 = arith.addi %c2, %f2#1 : i32
  return %s2 : i32
}
