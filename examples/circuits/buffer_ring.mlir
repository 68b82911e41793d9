// Buffers with initial values: a three-slot buffer preloaded with [1, 2, 3] forms a ring
// whose tokens circulate forever (they leave from the output end, so 3 comes out first).
// Each input token a is added to the next ring token, which then goes back into the ring
// incremented by 100. The input passes a two-slot fifo first.
// sim: --in a=0,0,0,0,10 --in start=5
// expect: out=3,2,1,103,112
handshake.func @ring(%a: i32, %start: none, ...) -> (i32, none) attributes {argNames = ["a", "start"], resNames = ["out", "done"]} {
  %r = buffer [3] seq %r_next {initValues = [1, 2, 3]} : i32
  %rf:2 = fork [2] %r : i32
  %src = source
  %c100 = constant %src {value = 100 : i32} : i32
  %r_next = arith.addi %rf#1, %c100 : i32
  %aq = buffer [2] fifo %a : i32
  %sum = arith.addi %aq, %rf#0 : i32
  %sumf:2 = fork [2] %sum : i32
  %done = join %start, %sumf#1 : none, i32
  return %sumf#0, %done : i32, none
}
