// Fork/join diamond: d = (a + 1) + (a * 3), computed on two parallel branches that a fork
// splits and an adder joins again; a join of the start token and a copy of d signals done.
// One branch is a single adder, the other a multiplier behind a one-slot buffer, so the
// tokens arrive at the final adder in different cycles and the adder waits for both.
// sim: --in a=1,2,10 --in start=3
// expect: d=5,9,41
handshake.func @diamond(%a: i32, %start: none, ...) -> (i32, none) attributes {argNames = ["a", "start"], resNames = ["d", "done"]} {
  %af:2 = fork [2] %a : i32
  %sf:3 = fork [3] %start : none
  %c1 = constant %sf#0 {value = 1 : i32} : i32
  %c3 = constant %sf#1 {value = 3 : i32} : i32
  %left = arith.addi %af#0, %c1 : i32
  %prod = arith.muli %af#1, %c3 : i32
  %right = buffer [1] seq %prod : i32
  %d = arith.addi %left, %right : i32
  %df:2 = fork [2] %d : i32
  %done = join %sf#2, %df#1 : none, i32
  return %df#0, %done : i32, none
}
