// The range of a stream, max - min, with two reductions. `split` copies every element onto
// two streams; one `reduce` keeps the largest element, the other the smallest, each
// starting again from its `initValue` after every end; `combine` takes the two results
// together and subtracts them. A reduction gives its result when its input ends: the
// result as one element, then the end.
// sim: --in in=3,9,-4,7;5
func.func @range(%in: !stream.stream<i32>) -> !stream.stream<i32> {
  %a, %b = stream.split(%in) : (!stream.stream<i32>) -> (!stream.stream<i32>, !stream.stream<i32>) {
  ^bb0(%v: i32):
    stream.yield %v, %v : i32, i32
  }
  %hi = stream.reduce(%a) {initValue = -2147483648 : i32} : (!stream.stream<i32>) -> !stream.stream<i32> {
  ^bb0(%acc: i32, %v: i32):
    %gt = arith.cmpi sgt, %v, %acc : i32
    %m = arith.select %gt, %v, %acc : i32
    stream.yield %m : i32
  }
  %lo = stream.reduce(%b) {initValue = 2147483647 : i32} : (!stream.stream<i32>) -> !stream.stream<i32> {
  ^bb0(%acc: i32, %v: i32):
    %lt = arith.cmpi slt, %v, %acc : i32
    %m = arith.select %lt, %v, %acc : i32
    stream.yield %m : i32
  }
  %range = stream.combine(%hi, %lo) : (!stream.stream<i32>, !stream.stream<i32>) -> (!stream.stream<i32>) {
  ^bb0(%x: i32, %y: i32):
    %d = arith.subi %x, %y : i32
    stream.yield %d : i32
  }
  return %range : !stream.stream<i32>
}
