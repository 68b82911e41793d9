#loc3 = loc("f.c":7:2)
module {
  handshake.func @f(%a: i32, %b: i32, %t: tuple<i8, i16>, %mem: memref<8xi32>, %ctrl: none) -> (i32, none) attributes {argNames = ["a", "b", "t", "mem", "ctrl"], resNames = ["out0", "done"]} {
    %0:3 = fork [3] %ctrl : none
    %1:2 = lazy_fork [2] %a : i32
    %2 = merge %1#0, %1#1 : i32
    %c = constant %0#0 {value = -5 : i32} : i32
    %ct = constant %0#1 {value = true} : i1
    %3 = mux %ct [%2, %c] : i1, i32
    %4, %5 = control_merge %cb#0, %7 : none, index
    %6:2 = cond_br %ct2, %3 : i32
    %cb:2 = cond_br %ct2, %0#2 : none
    %7 = br %cb#1 : none loc("f.c":3:5)
    %ct2 = constant %4 {value = false, handshake.bb = "bb1", handshake.name = "kk"} : i1
    %j = join %b, %t : i32, tuple<i8, i16>
    %s:2 = sync %b, %j : i32, none
    %u:2 = unpack %t : tuple<i8, i16>
    %p = pack %u#0, %u#1 : tuple<i8, i16>
    %bf = buffer [2] seq %6#0 {initValues = [1, 2]} : i32
    %bf2 = buffer [1] fifo %bf : i32
    sink %p : tuple<i8, i16>
    sink %ic : index
    sink %ldn : none
    sink %m#1 : none
    sink %s#0 : i32
    %src = source
    %nv = never : i32
    sink %nv : i32
    sink %6#1 : i32
    %ld:2 = load [%addr] %ldd, %src : index, i32
    %st:2 = store [%addr2] %bf2, %s#1 : index, i32
    %addr = constant %src2 {value = 0 : index} : index
    %src2 = source
    %ldd, %sd, %ldn = extmemory [ld = 1, st = 1] (%mem : memref<8xi32>) (%st#0, %st#1, %ld#1) {id = 0 : i32} : (i32, index, index) -> (i32, none, none)
    %m:2 = memory [ld = 1, st = 0] (%addr) {id = 1 : i32, lsq = false} : memref<4xi32>, (index) -> (i32, none)
    %x = arith.addi %ld#0, %b : i32 loc(#loc3)
    %y = arith.cmpi slt, %x, %m#0 : i32
    %z = arith.select %y, %x, %x : i32
    %w = arith.extsi %u#0 : i8 to i32
    %ic = arith.index_cast %w : i32 to index
    %addr2 = arith.index_cast %x : i32 to index
    %r:2 = instance @g(%z, %sd) : (i32, none) -> (i32, none)
    return %r#0, %r#1 : i32, none
  }
  handshake.func @g(%a: i32, %c: none) -> (i32, none)
}
