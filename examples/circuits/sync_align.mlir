// Sync: two streams that arrive at different times (b goes through two buffers) are
// released together: sync waits until both inputs are valid, then passes each token on
// through its eager fork outputs. The two outputs are subtracted.
// sim: --in a=10,20,30 --in b=1,2,3 --in start=3
// expect: diff=9,18,27
handshake.func @sync_align(%a: i32, %b: i32, %start: none, ...) -> (i32, none) attributes {argNames = ["a", "b", "start"], resNames = ["diff", "done"]} {
  %b1 = buffer [1] seq %b : i32
  %b2 = buffer [1] fifo %b1 : i32
  %s:2 = sync %a, %b2 : i32, i32
  %diff = arith.subi %s#0, %s#1 : i32
  %df:2 = fork [2] %diff : i32
  %done = join %start, %df#1 : none, i32
  return %df#0, %done : i32, none
}
