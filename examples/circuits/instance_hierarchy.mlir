// Instance hierarchy: @top calls @scale_add twice in series; each call computes x * k + 1
// for a constant k the caller gives (2, then 3): y = (2x + 1) * 3 + 1. Handscope keeps the
// hierarchy for display and flattens it for simulation (child nodes get IDs like scale_add0/muli0).
// sim: --in x=1,4 --in start=2
// expect: y=10,28
handshake.func @scale_add(%x: i32, %k: i32, %ctrl: none, ...) -> (i32, none) attributes {argNames = ["x", "k", "ctrl"], resNames = ["y", "done"]} {
  %cf:2 = fork [2] %ctrl : none
  %m = arith.muli %x, %k : i32
  %c1 = constant %cf#0 {value = 1 : i32} : i32
  %y = arith.addi %m, %c1 : i32
  return %y, %cf#1 : i32, none
}
handshake.func @top(%x: i32, %start: none, ...) -> (i32, none) attributes {argNames = ["x", "start"], resNames = ["y", "done"]} {
  %sf:3 = fork [3] %start : none
  %c2 = constant %sf#0 {value = 2 : i32} : i32
  %c3 = constant %sf#1 {value = 3 : i32} : i32
  %y1, %d1 = instance @scale_add(%x, %c2, %sf#2) : (i32, i32, none) -> (i32, none)
  %y2, %d2 = instance @scale_add(%y1, %c3, %d1) : (i32, i32, none) -> (i32, none)
  return %y2, %d2 : i32, none
}
