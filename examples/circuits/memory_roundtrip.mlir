// Memory load/store: stores val at addr in an internal 8-word memory, then loads the same
// address back. The load's control input is the store's done token, so the load is issued
// only after the write has happened; the done result joins both done tokens.
// sim: --in addr=3,5 --in val=42,-7 --in start=2
// expect: loaded=42,-7
handshake.func @memrt(%addr: index, %val: i32, %start: none, ...) -> (i32, none) attributes {argNames = ["addr", "val", "start"], resNames = ["loaded", "done"]} {
  %ldData, %stDone, %ldDone = memory [ld = 1, st = 1] (%stData, %stAddr, %ldAddr) {id = 0 : i32, lsq = false} : memref<8xi32>, (i32, index, index) -> (i32, none, none)
  %af:2 = fork [2] %addr : index
  %stData, %stAddr = store [%af#0] %val, %start : index, i32
  %sd:2 = fork [2] %stDone : none
  %loaded, %ldAddr = load [%af#1] %ldData, %sd#0 : index, i32
  %done = join %sd#1, %ldDone : none, none
  return %loaded, %done : i32, none
}
