// Pack/unpack: two values travel together as one tuple token through a buffer, are
// unpacked (unpack behaves like an eager fork over the tuple fields) and multiplied.
// sim: --in x=2,3 --in y=5,7 --in start=2
// expect: prod=10,21
handshake.func @pack_unpack(%x: i16, %y: i16, %start: none, ...) -> (i16, none) attributes {argNames = ["x", "y", "start"], resNames = ["prod", "done"]} {
  %t = pack %x, %y : tuple<i16, i16>
  %tb = buffer [1] seq %t : tuple<i16, i16>
  %u:2 = unpack %tb : tuple<i16, i16>
  %p = arith.muli %u#0, %u#1 : i16
  %pf:2 = fork [2] %p : i16
  %done = join %start, %pf#1 : none, i16
  return %pf#0, %done : i16, none
}
