// Sum 0..n-1 with a loop: the merges read values defined further down (back edges).
handshake.func @sum(%n: i32, %ctrl: none, ...) -> (i32, none) attributes {argNames = ["n", "start"], resNames = ["sum", "done"]} {
  %c:3 = fork [3] %ctrl : none loc("sum.c":2:1)
  %zero = constant %c#0 {value = 0 : i32, handshake.bb = "bb0"} : i32
  %zero2 = constant %c#1 {value = 0 : i32, handshake.bb = "bb0"} : i32
  %i = mux %sel#0 [%zero, %inext] : index, i32 loc("sum.c":3:7)
  %acc = mux %sel#1 [%zero2, %accnext] : index, i32
  %lim = mux %sel#2 [%n, %limloop] : index, i32
  %cm, %idx = control_merge %c#2, %ctl_back {handshake.bb = "bb1"} : none, index
  %sel:3 = fork [3] %idx : index
  %if:3 = fork [3] %i : i32
  %lf:2 = fork [2] %lim : i32
  %cond = arith.cmpi slt, %if#0, %lf#0 : i32 loc("sum.c":3:16)
  %cf:4 = fork [4] %cond : i1
  %it, %ie = cond_br %cf#0, %if#1 : i32
  %at, %ae = cond_br %cf#1, %acc : i32
  %lt, %le = cond_br %cf#2, %lf#1 : i32
  %ct, %ce = cond_br %cf#3, %cm : none
  %ctf:2 = fork [2] %ct : none
  %one = constant %ctf#0 {value = 1 : i32} : i32
  %inext = arith.addi %it, %one : i32 loc("sum.c":3:24)
  %accnext = arith.addi %at, %if#2 : i32 loc("sum.c":4:9)
  %limloop = buffer [1] seq %lt : i32
  %ctl_back = buffer [2] fifo %ctf#1 : none
  sink %ie : i32
  sink %le : i32
  return %ae, %ce : i32, none
}
