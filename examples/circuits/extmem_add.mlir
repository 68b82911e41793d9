// External memory: adds mem[i] and mem[j], stores the sum into mem[k] and returns it.
// `extmemory` exports the memory interface; the simulator attaches a memory model holding
// the contents given with --mem. The store waits (join) until both loads are done, and the
// done result is the store's done token.
// sim: --mem mem=5,6,7,8 --in i=0 --in j=3 --in k=1 --in start=1
// expect: sum=13
// expect-mem: mem=5,13,7,8
handshake.func @extmem_add(%mem: memref<4xi32>, %i: index, %j: index, %k: index, %start: none, ...) -> (i32, none) attributes {argNames = ["mem", "i", "j", "k", "start"], resNames = ["sum", "done"]} {
  %ld0, %ld1, %stDone, %ldDone0, %ldDone1 = extmemory [ld = 2, st = 1] (%mem : memref<4xi32>) (%stData, %stAddr, %la0, %la1) {id = 0 : i32} : (i32, index, index, index) -> (i32, i32, none, none, none)
  %sf:3 = fork [3] %start : none
  %v0, %la0 = load [%i] %ld0, %sf#0 : index, i32
  %v1, %la1 = load [%j] %ld1, %sf#1 : index, i32
  %s = arith.addi %v0, %v1 : i32
  %sk:2 = fork [2] %s : i32
  %ctl = join %sf#2, %ldDone0, %ldDone1 : none, none, none
  %stData, %stAddr = store [%k] %sk#1, %ctl : index, i32
  return %sk#0, %stDone : i32, none
}
