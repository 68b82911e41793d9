"builtin.module"() ({
  "handshake.func"() ({
  ^bb0(%arg0: i32, %arg1: i32, %arg2: tuple<i8, i16>, %arg3: memref<8xi32>, %arg4: none):
    %0:3 = "handshake.fork"(%arg4) : (none) -> (none, none, none)
    %1:2 = "handshake.lazy_fork"(%arg0) : (i32) -> (i32, i32)
    %2 = "handshake.merge"(%1#0, %1#1) : (i32, i32) -> i32
    %3 = "handshake.constant"(%0#0) {value = -5 : i32} : (none) -> i32
    %4 = "handshake.constant"(%0#1) {value = true} : (none) -> i1
    %5 = "handshake.mux"(%4, %2, %3) : (i1, i32, i32) -> i32
    %6:2 = "handshake.control_merge"(%8#0, %9) : (none, none) -> (none, index)
    %7:2 = "handshake.cond_br"(%10, %5) : (i1, i32) -> (i32, i32)
    %8:2 = "handshake.cond_br"(%10, %0#2) : (i1, none) -> (none, none)
    %9 = "handshake.br"(%8#1) : (none) -> none
    %10 = "handshake.constant"(%6#0) {handshake.bb = "bb1", handshake.name = "kk", value = false} : (none) -> i1
    %11 = "handshake.join"(%arg1, %arg2) : (i32, tuple<i8, i16>) -> none
    %12:2 = "handshake.sync"(%arg1, %11) : (i32, none) -> (i32, none)
    %13:2 = "handshake.unpack"(%arg2) : (tuple<i8, i16>) -> (i8, i16)
    %14 = "handshake.pack"(%13#0, %13#1) : (i8, i16) -> tuple<i8, i16>
    %15 = "handshake.buffer"(%7#0) {bufferType = #handshake<buffer_type_enum seq>, initValues = [1, 2], slots = 2 : i32} : (i32) -> i32
    %16 = "handshake.buffer"(%15) {bufferType = #handshake<buffer_type_enum fifo>, slots = 1 : i32} : (i32) -> i32
    "handshake.sink"(%14) : (tuple<i8, i16>) -> ()
    "handshake.sink"(%29) : (index) -> ()
    "handshake.sink"(%23#2) : (none) -> ()
    "handshake.sink"(%24#1) : (none) -> ()
    "handshake.sink"(%12#0) : (i32) -> ()
    %17 = "handshake.source"() : () -> none
    %18 = "handshake.never"() : () -> i32
    "handshake.sink"(%18) : (i32) -> ()
    "handshake.sink"(%7#1) : (i32) -> ()
    %19:2 = "handshake.load"(%21, %23#0, %17) : (index, i32, none) -> (i32, index)
    %20:2 = "handshake.store"(%30, %16, %12#1) : (index, i32, none) -> (i32, index)
    %21 = "handshake.constant"(%22) {value = 0 : index} : (none) -> index
    %22 = "handshake.source"() : () -> none
    %23:3 = "handshake.extmemory"(%arg3, %20#0, %20#1, %19#1) {id = 0 : i32, ldCount = 1 : i32, stCount = 1 : i32} : (memref<8xi32>, i32, index, index) -> (i32, none, none)
    %24:2 = "handshake.memory"(%21) {id = 1 : i32, ldCount = 1 : i32, lsq = false, memRefType = memref<4xi32>, stCount = 0 : i32} : (index) -> (i32, none)
    %25 = "arith.addi"(%19#0, %arg1) : (i32, i32) -> i32
    %26 = "arith.cmpi"(%25, %24#0) <{predicate = 2 : i64}> : (i32, i32) -> i1
    %27 = "arith.select"(%26, %25, %25) : (i1, i32, i32) -> i32
    %28 = "arith.extsi"(%13#0) : (i8) -> i32
    %29 = "arith.index_cast"(%28) : (i32) -> index
    %30 = "arith.index_cast"(%25) : (i32) -> index
    %31:2 = "handshake.instance"(%27, %23#1) {module = @g} : (i32, none) -> (i32, none)
    "handshake.return"(%31#0, %31#1) : (i32, none) -> ()
  }) {argNames = ["a", "b", "t", "mem", "ctrl"], function_type = (i32, i32, tuple<i8, i16>, memref<8xi32>, none) -> (i32, none), resNames = ["out0", "done"], sym_name = "f"} : () -> ()
  "handshake.func"() ({
  }) {argNames = ["a", "c"], function_type = (i32, none) -> (i32, none), resNames = ["out0", "out1"], sym_name = "g"} : () -> ()
}) : () -> ()

