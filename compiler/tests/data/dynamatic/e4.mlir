module {
  handshake.func @k4(%arg0: memref<16xi32>, %arg1: memref<8xf32>, %arg2: !handshake.channel<i32>, %arg3: !handshake.control<>, %arg4: !handshake.control<>, %arg5: !handshake.control<>, ...) -> (!handshake.channel<i32>, !handshake.control<>, !handshake.control<>, !handshake.control<>) attributes {argNames = ["mem", "fm", "n", "mem_start", "fm_start", "start"], resNames = ["out0", "mem_end", "fm_end", "end"]} {
    %0:9 = fork [9] %arg5 {handshake.bb = 0 : ui32, handshake.name = "fork0"} : <>
    %1 = buffer %arg2, bufferType = FIFO_BREAK_NONE, numSlots = 3 {handshake.bb = 0 : ui32, handshake.name = "buffer0"} : <i32>
    %2 = buffer %1, bufferType = ONE_SLOT_BREAK_DV, numSlots = 1 {handshake.name = "buffer1"} : <i32>
    %3 = source {handshake.bb = 1 : ui32, handshake.name = "source0"} : <>
    %4 = constant %3 {handshake.bb = 1 : ui32, handshake.name = "constant0", value = -3 : i8} : <>, <i8>
    %5 = extsi %4 {handshake.bb = 1 : ui32, handshake.name = "extsi0"} : <i8> to <i32>
    %6:2 = fork [2] %2 {handshake.bb = 1 : ui32, handshake.name = "fork1"} : <i32>
    %7 = cmpi slt, %6#0, %5 {handshake.bb = 1 : ui32, handshake.name = "cmpi0"} : <i32>
    %8:3 = lazy_fork [3] %7 {handshake.bb = 1 : ui32, handshake.name = "lazy_fork0"} : <i1>
    %result, %index = control_merge [%0#0, %trueResult]  {handshake.bb = 1 : ui32, handshake.name = "control_merge0"} : [<>, <>] to <>, <i1>
    %trueResult, %falseResult = cond_br %8#0, %result {handshake.bb = 1 : ui32, handshake.name = "cond_br0"} : <i1>, <>
    %9 = mux %index [%0#1, %falseResult] {handshake.bb = 1 : ui32, handshake.name = "mux0"} : <i1>, [<>, <>] to <>
    sink %9 {handshake.name = "sink0"} : <>
    sink %8#2 {handshake.name = "sink1"} : <i1>
    %10 = select %8#1[%6#1, %dataResult] {handshake.bb = 2 : ui32, handshake.name = "select0"} : <i1>, <i32>
    %11 = addi %10, %12 {handshake.bb = 2 : ui32, handshake.name = "addi0"} : <i32>
    %12 = constant %0#2 {handshake.bb = 2 : ui32, handshake.name = "constant1", value = 4294967295 : i32} : <>, <i32>
    %13 = constant %0#3 {handshake.bb = 1 : ui32, handshake.name = "constant2", value = 5 : i4} : <>, <i4>
    %addressResult, %dataResult = load[%13] %outputs {handshake.bb = 1 : ui32, handshake.bufProps = #handshake<bufProps{"1": [0,0], [0,inf], 0, 0.000000e+00}>, handshake.mem_interface = #handshake.mem_interface<MC>, handshake.name = "load0"} : <i4>, <i32>, <i4>, <i32>
    %outputs, %memEnd = mem_controller[%arg0 : memref<16xi32>] %arg3 (%addressResult) %0#4 {connectedBlocks = [1 : i32], handshake.name = "mem_controller0"} :    (!handshake.channel<i4>) -> !handshake.channel<i32>
    %14 = constant %0#5 {handshake.bb = 2 : ui32, handshake.name = "constant3", value = 1.500000e+00 : f32} : <>, <f32>
    %15:2 = fork [2] %14 {handshake.bb = 2 : ui32, handshake.name = "fork2"} : <f32>
    %16 = mulf %15#0, %15#1 {fastmath = #arith.fastmath<none>, fpu_impl = #handshake<fpu_impl flopoco>, handshake.bb = 2 : ui32, handshake.name = "mulf0", internal_delay = "2_875333"} : <f32>
    %17 = source {handshake.bb = 2 : ui32, handshake.name = "source1"} : <>
    %18 = constant %17 {handshake.bb = 2 : ui32, handshake.name = "constant4", value = 2 : i3} : <>, <i3>
    %addressResult_0, %dataResult_1 = store[%18] %16 {handshake.bb = 2 : ui32, handshake.deps = #handshake<deps[["store0", 1]]>, handshake.mem_interface = #handshake.mem_interface<LSQ: 0>, handshake.name = "store0"} : <i3>, <f32>, <i3>, <f32>
    %19 = lsq[%arg1 : memref<8xf32>] (%arg4, %0#6, %addressResult_0, %dataResult_1, %0#7)  {groupSizes = [1 : i32], handshake.lsqDepth = #handshake<lsqDepth[4, 6]>, handshake.name = "lsq0"} : (!handshake.control<>, !handshake.control<>, !handshake.channel<i3>, !handshake.channel<f32>, !handshake.control<>) -> (!handshake.control<>)
    end {handshake.bb = 3 : ui32, handshake.name = "end0"} %11, %memEnd, %19, %0#8 : <i32>, <>, <>, <>
  }
}
