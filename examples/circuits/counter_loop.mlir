// Counter loop: counts i from 0 while i < n and returns the final i (= n for n >= 0).
// Shows the classic loop structure of dataflow HLS: a control_merge in the loop header
// whose index drives one mux per loop-carried value, a cmpi feeding cond_br's that either
// send the values around the loop (through buffers on the back edges, which break the
// combinational cycle) or out of it.
// sim: --in n=5 --in start=1
// expect: count=5
handshake.func @counter(%n: i32, %start: none, ...) -> (i32, none) attributes {argNames = ["n", "start"], resNames = ["count", "done"]} {
  %sf:2 = fork [2] %start : none
  %c0 = constant %sf#0 {value = 0 : i32} : i32
  %hctrl, %hidx = control_merge %sf#1, %back_ctrl : none, index
  %idx:2 = fork [2] %hidx : index
  %i = mux %idx#0 [%c0, %back_i] : index, i32
  %nv = mux %idx#1 [%n, %back_n] : index, i32
  %ifk:2 = fork [2] %i : i32
  %nfk:2 = fork [2] %nv : i32
  %lt = arith.cmpi slt, %ifk#0, %nfk#0 : i32
  %cond:3 = fork [3] %lt : i1
  %i_body, %i_exit = cond_br %cond#0, %ifk#1 : i32
  %n_body, %n_exit = cond_br %cond#1, %nfk#1 : i32
  %c_body, %c_exit = cond_br %cond#2, %hctrl : none
  %bf:2 = fork [2] %c_body : none
  %c1 = constant %bf#0 {value = 1 : i32} : i32
  %i_next = arith.addi %i_body, %c1 : i32
  %back_i = buffer [2] seq %i_next : i32
  %back_n = buffer [2] seq %n_body : i32
  %back_ctrl = buffer [2] seq %bf#1 : none
  sink %n_exit : i32
  return %i_exit, %c_exit : i32, none
}
