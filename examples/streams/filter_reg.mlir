// A filter with a register: pass an element only when it beats every element before it in
// its stream (a new record). The register `%best` holds the largest element so far; the
// body yields the predicate, then the register's next value. After an end the register
// starts again from its initial value, so every stream has its own records.
// sim: --in in=4,2,7,7,1,9,3;5,6
func.func @records(%in: !stream.stream<i16>) -> !stream.stream<i16> {
  %out = stream.filter(%in) {registers = [-32768 : i16]} : (!stream.stream<i16>) -> !stream.stream<i16> {
  ^bb0(%v: i16, %best: i16):
    %new = arith.cmpi sgt, %v, %best : i16
    %next = arith.select %new, %v, %best : i16
    stream.yield %new, %next : i1, i16
  }
  return %out : !stream.stream<i16>
}
