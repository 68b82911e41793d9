// Reconvergent paths of unequal latency: a fork whose long arm has four one-slot buffers and
// whose short arm has none, joined again by an adder (out = a + a). The fork keeps a token
// until both arms have taken it, and the short arm holds nothing, so the next token enters
// only after the previous one has crossed the long arm: one token every 5 cycles.
// `handscope throughput` predicts II 5 from the cycle of 4 slots forward and 1 step back
// through the fork; `handscope tune` adds slots on the short arm and reaches 1 token a cycle.
// sim: --in a=1..17
// expect: out=2,4,6,8,10,12,14,16,18,20,22,24,26,28,30,32
handshake.func @unbalanced(%a: i32, ...) -> (i32) attributes {argNames = ["a"], resNames = ["out"]} {
  %f:2 = fork [2] %a : i32
  %l1 = buffer [1] seq %f#0 : i32
  %l2 = buffer [1] seq %l1 : i32
  %l3 = buffer [1] seq %l2 : i32
  %l4 = buffer [1] seq %l3 : i32
  %sum = arith.addi %l4, %f#1 : i32
  return %sum : i32
}
