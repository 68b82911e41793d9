// A loop with four tasks in flight: a ring, preloaded with four accumulators (0, 100, 200,
// 300; the last comes out first), adds one input token per trip. Inside the loop each value
// forks into a long arm of four one-slot buffers and an empty short arm that meet again
// (`ori` of two equal values). With four tasks the loop itself could turn every 2.25 cycles,
// but the unbalanced fork/join lets a value in only every 5: the loop speeds up only when the
// short arm gets slack (`handscope tune` adds it). With one task in the ring the loop's own
// latency is the limit and no slot helps.
// sim: --in x=1..13
// expect: out=301,202,103,4,306,208,110,12,315,218,121,24
handshake.func @ring_tasks(%x: i32, ...) -> (i32) attributes {argNames = ["x"], resNames = ["out"]} {
  %r = buffer [4] seq %back {initValues = [0, 100, 200, 300]} : i32
  %f:2 = fork [2] %r : i32
  %l1 = buffer [1] seq %f#0 : i32
  %l2 = buffer [1] seq %l1 : i32
  %l3 = buffer [1] seq %l2 : i32
  %l4 = buffer [1] seq %l3 : i32
  %v = arith.ori %l4, %f#1 : i32
  %next = arith.addi %v, %x : i32
  %nf:2 = fork [2] %next : i32
  %back = buffer [1] seq %nf#1 : i32
  return %nf#0 : i32
}
