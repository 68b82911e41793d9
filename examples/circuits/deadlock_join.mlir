// A circuit that deadlocks: the join needs a token from cond_br's true output, but the
// condition is false, so cond_br sends the value to its false output, which goes to a sink.
// The join holds the start token forever and the result never comes: `sim` reports the
// deadlock and the wait-for chain join0 -> cond_br0.outTrue.
// sim: --in x=7 --in start=1
// expect: deadlock
handshake.func @deadlock_join(%x: i32, %start: none, ...) -> (i32, none) attributes {argNames = ["x", "start"], resNames = ["y", "done"]} {
  %sf:2 = fork [2] %start : none
  %zero = constant %sf#0 {value = 0 : i32} : i32
  %xf:2 = fork [2] %x : i32
  %is_neg = arith.cmpi slt, %xf#0, %zero : i32
  %t, %f = cond_br %is_neg, %xf#1 : i32
  sink %f : i32
  %done = join %sf#1, %t : none, i32
  %c5 = constant %done {value = 5 : i32} : i32
  %df:2 = fork [2] %c5 : i32
  %ctl = join %df#1 : i32
  return %df#0, %ctl : i32, none
}
