// Floating point: h = sqrt(x*x + y*y) * 0.5, q = x / y, r = fmod(x, y), c = x < y or unordered,
// m = fmax(x, y) (maxnumf ignores a NaN), mn = minimumf(x, y) (propagates it), i = (int)x,
// s = (double)x + (double)n, cs = copysign(-|(float)s|, y). Division by zero gives the IEEE
// result (inf, or a NaN for fmod) and a division-by-zero event; NaN results print as -nan, the
// default NaN of an invalid operation (inf / inf, fmod(x, 0)), or as the propagated operand.
// Every value equals the same C compiled natively (cc -O0 -ffp-contract=off).
// sim: --in x=1.5,-2,3,0.1,nan,inf,-0 --in y=2,0.5,0,0.2,1,inf,0 --in n=3,-4,7,1,0,100,-1 --in start=7
// expect: h=1.25,1.0307764,1.5,0.111803405,nan,inf,0
// expect: q=0.75,-4,inf,0.5,nan,-nan,-nan
// expect: r=1.5,-0,-nan,0.1,nan,-nan,-nan
// expect: c=1,1,0,1,1,0,0
// expect: m=2,0.5,3,0.2,1,inf,-0
// expect: mn=1.5,-2,0,0.1,nan,inf,-0
// expect: i=1,-2,3,0,-2147483648,-2147483648,0
// expect: s=4.5,-6,10,1.1000000014901161,nan,inf,-1
// expect: cs=4.5,6,10,1.1,nan,inf,1
// oracle: skip (CIRCT 1.62 does not lower floats: lower-handshake-to-hw fails to legalize arith.addf and arith.cmpf, ExportVerilog rejects f32 ports as an unsupported verilog type, and the circt package does not register the math dialect; the Verilator round trip checks this circuit against our SystemVerilog's DPI-C float model)
// circt-print: skip (the circt 1.62 Python package does not register the math dialect: math.sqrt, math.absf and math.copysign do not parse there)
handshake.func @float_ops(%x: f32, %y: f32, %n: i32, %start: none, ...) -> (f32, f32, f32, i1, f32, f32, i32, f64, f32, none) attributes {argNames = ["x", "y", "n", "start"], resNames = ["h", "q", "r", "c", "m", "mn", "i", "s", "cs", "done"]} {
  %xf:10 = fork [10] %x : f32
  %yf:9 = fork [9] %y : f32
  %sf:2 = fork [2] %start : none
  %xx = arith.mulf %xf#0, %xf#1 : f32
  %yy = arith.mulf %yf#0, %yf#1 : f32
  %sum = arith.addf %xx, %yy : f32
  %root = math.sqrt %sum : f32
  %half = constant %sf#0 {value = 5.000000e-01 : f32} : f32
  %h = arith.mulf %root, %half : f32
  %q = arith.divf %xf#2, %yf#2 : f32
  %r = arith.remf %xf#3, %yf#3 : f32
  %c = arith.cmpf ult, %xf#4, %yf#4 : f32
  %m = arith.maxnumf %xf#5, %yf#5 : f32
  %mn = arith.minimumf %xf#6, %yf#6 : f32
  %i = arith.fptosi %xf#7 : f32 to i32
  %d = arith.extf %xf#8 : f32 to f64
  %nd = arith.sitofp %n : i32 to f64
  %s2:2 = fork [2] %sum64 : f64
  %sum64 = arith.addf %d, %nd : f64
  %t = arith.truncf %s2#1 : f64 to f32
  %a = math.absf %t : f32
  %g = arith.negf %a : f32
  %cs = math.copysign %g, %yf#7 : f32
  sink %xf#9 : f32
  sink %yf#8 : f32
  return %h, %q, %r, %c, %m, %mn, %i, %s2#0, %cs, %sf#1 : f32, f32, f32, i1, f32, f32, i32, f64, f32, none
}
