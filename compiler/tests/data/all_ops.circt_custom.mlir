module {
  handshake.func @f(%arg0: i32, %arg1: i32, %arg2: tuple<i8, i16>, %arg3: memref<8xi32>, %arg4: none, ...) -> (i32, none) attributes {argNames = ["a", "b", "t", "mem", "ctrl"], resNames = ["out0", "done"]} {
    %0:3 = fork [3] %arg4 : none
    %1:2 = lazy_fork [2] %arg0 : i32
    %2 = merge %1#0, %1#1 : i32
    %3 = constant %0#0 {value = -5 : i32} : i32
    %4 = constant %0#1 {value = true} : i1
    %5 = mux %4 [%2, %3] : i1, i32
    %result, %index = control_merge %trueResult_0, %6 : none, index
    %trueResult, %falseResult = cond_br %7, %5 : i32
    %trueResult_0, %falseResult_1 = cond_br %7, %0#2 : none
    %6 = br %falseResult_1 : none
    %7 = constant %result {handshake.bb = "bb1", handshake.name = "kk", value = false} : i1
    %8 = join %arg1, %arg2 : i32, tuple<i8, i16>
    %9:2 = sync %arg1, %8 : i32, none
    %10:2 = unpack %arg2 : tuple<i8, i16>
    %11 = pack %10#0, %10#1 : tuple<i8, i16>
    %12 = buffer [2] seq %trueResult {initValues = [1, 2]} : i32
    %13 = buffer [1] fifo %12 : i32
    sink %11 : tuple<i8, i16>
    sink %24 : index
    sink %18#2 : none
    sink %19#1 : none
    sink %9#0 : i32
    %14 = source
    %15 = never : i32
    sink %15 : i32
    sink %falseResult : i32
    %dataResult, %addressResults = load [%16] %18#0, %14 : index, i32
    %dataResult_2, %addressResult = store [%25] %13, %9#1 : index, i32
    %16 = constant %17 {value = 0 : index} : index
    %17 = source
    %18:3 = extmemory[ld = 1, st = 1] (%arg3 : memref<8xi32>) (%dataResult_2, %addressResult, %addressResults) {id = 0 : i32} : (i32, index, index) -> (i32, none, none)
    %19:2 = memory[ld = 1, st = 0] (%16) {id = 1 : i32, lsq = false} : memref<4xi32>, (index) -> (i32, none)
    %20 = arith.addi %dataResult, %arg1 : i32
    %21 = arith.cmpi slt, %20, %19#0 : i32
    %22 = arith.select %21, %20, %20 : i32
    %23 = arith.extsi %10#0 : i8 to i32
    %24 = arith.index_cast %23 : i32 to index
    %25 = arith.index_cast %20 : i32 to index
    %26:2 = instance @g(%22, %18#1) : (i32, none) -> (i32, none)
    return %26#0, %26#1 : i32, none
  }
  handshake.func @g(i32, none, ...) -> (i32, none) attributes {argNames = ["a", "c"], resNames = ["out0", "out1"]}
}

