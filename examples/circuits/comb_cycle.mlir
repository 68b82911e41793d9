// A deliberate combinational cycle (check must reject it): the running sum goes from the
// adder straight back into the merge without a buffer, so valid and ready form a loop of
// wires with no register on it. The fix is a `buffer` on the back edge (see counter_loop).
// check: error combinational cycle
// oracle: skip (not a valid circuit)
handshake.func @comb_cycle(%a: i32, %start: none, ...) -> (i32, none) attributes {argNames = ["a", "start"], resNames = ["sum", "done"]} {
  %m = merge %a, %fb : i32
  %src = source
  %c1 = constant %src {value = 1 : i32} : i32
  %s = arith.addi %m, %c1 : i32
  %sf:2 = fork [2] %s : i32
  %fb, %out = cond_br %cond, %sf#0 : i32
  %src2 = source
  %cond = constant %src2 {value = true} : i1
  sink %out : i32
  return %sf#1, %start : i32, none
}
