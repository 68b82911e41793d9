// The repaired `deadlock_join.mlir`: the join waits for a token from whichever side of the
// cond_br the value went to. Each output of the cond_br becomes a control token (a one-input
// join) and a merge passes on the one that comes (only one side carries a token per input),
// so the final join always gets its second token and the run finishes for a negative x as
// for a non-negative one. The merge carries `none`: only the token matters here.
// sim: --in x=7 --in start=1
// expect: y=5
handshake.func @deadlock_join_fixed(%x: i32, %start: none, ...) -> (i32, none) attributes {argNames = ["x", "start"], resNames = ["y", "done"]} {
  %sf:2 = fork [2] %start : none
  %zero = constant %sf#0 {value = 0 : i32} : i32
  %xf:2 = fork [2] %x : i32
  %is_neg = arith.cmpi slt, %xf#0, %zero : i32
  %t, %f = cond_br %is_neg, %xf#1 : i32
  %tc = join %t : i32
  %fc = join %f : i32
  %either = merge %tc, %fc : none
  %done = join %sf#1, %either : none, none
  %c5 = constant %done {value = 5 : i32} : i32
  %df:2 = fork [2] %c5 : i32
  %ctl = join %df#1 : i32
  return %df#0, %ctl : i32, none
}
