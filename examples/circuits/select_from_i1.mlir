// A mux whose select is an i1 condition cast to index, as CIRCT's `lower-cf-to-handshake`
// produces it: `arith.index_cast` sign-extends, so true becomes -1, which is out of range for a
// two-input mux. CIRCT's RTL reads only the low ceil(log2 2) = 1 bit of the select, so -1 takes
// in1 exactly as 1 would, and Handscope does the same (with a `select-out-of-range` runtime
// event the first time, and a `select-range` warning from `check`). A mux takes a token only
// from the input it selects, so the others wait: a=10 goes out second, b=-2 third.
// sim: --in c=1,0,1 --in a=10,20,30 --in b=-1,-2,-3 --in start=3
// expect: r=-1,10,-2
handshake.func @pick(%c: i1, %a: i32, %b: i32, %start: none, ...) -> (i32, none) attributes {argNames = ["c", "a", "b", "start"], resNames = ["r", "done"]} {
  %s = arith.index_cast %c : i1 to index
  %r = mux %s [%a, %b] : index, i32
  return %r, %start : i32, none
}
