// A split and combine pipeline. `split` sends every element down two branches: one keeps
// a running sum in a register, the other squares the element. `combine` takes one element
// of each branch together and packs the pair into a tuple, so the output is a stream of
// (running sum, square). Both branches see the same ends, so the combined stream ends
// when the input does.
// sim: --in x=1,2,3,4;10,20
func.func @pipeline(%x: !stream.stream<i32>) -> !stream.stream<tuple<i32, i32>> {
  %left, %right = stream.split(%x) : (!stream.stream<i32>) -> (!stream.stream<i32>, !stream.stream<i32>) {
  ^bb0(%v: i32):
    stream.yield %v, %v : i32, i32
  }
  %sum = stream.map(%left) {registers = [0 : i32]} : (!stream.stream<i32>) -> !stream.stream<i32> {
  ^bb0(%v: i32, %acc: i32):
    %s = arith.addi %acc, %v : i32
    stream.yield %s, %s : i32, i32
  }
  %sq = stream.map(%right) : (!stream.stream<i32>) -> !stream.stream<i32> {
  ^bb0(%v: i32):
    %p = arith.muli %v, %v : i32
    stream.yield %p : i32
  }
  %pairs = stream.combine(%sum, %sq) : (!stream.stream<i32>, !stream.stream<i32>) -> (!stream.stream<tuple<i32, i32>>) {
  ^bb0(%s: i32, %p: i32):
    %t = stream.pack %s, %p : tuple<i32, i32>
    stream.yield %t : tuple<i32, i32>
  }
  return %pairs : !stream.stream<tuple<i32, i32>>
}
