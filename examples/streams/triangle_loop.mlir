// A loop inside a map: the body is several blocks joined by `cf.br` and `cf.cond_br`, here
// counting up to each element n and summing 0 + 1 + ... + n. Handscope lowers such a body
// with the C front end's dataflow construction (merges and muxes where blocks join, a
// `cond_br` per live value where they branch), so one element is in the loop at a time and
// an element n takes about n + 2 trips around it.
// sim: --in in=3,0,5;2
func.func @triangle(%in: !stream.stream<i32>) -> !stream.stream<i32> {
  %out = stream.map(%in) : (!stream.stream<i32>) -> !stream.stream<i32> {
  ^bb0(%n: i32):
    %c0 = arith.constant 0 : i32
    cf.br ^loop(%c0, %c0 : i32, i32)
  ^loop(%i: i32, %acc: i32):
    %end = arith.cmpi sgt, %i, %n : i32
    cf.cond_br %end, ^done(%acc : i32), ^step
  ^step:
    %c1 = arith.constant 1 : i32
    %next = arith.addi %i, %c1 : i32
    %sum = arith.addi %acc, %i : i32
    cf.br ^loop(%next, %sum : i32, i32)
  ^done(%r: i32):
    stream.yield %r : i32
  }
  return %out : !stream.stream<i32>
}
