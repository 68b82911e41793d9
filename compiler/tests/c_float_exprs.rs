//! Random mixed-type C expressions against native C: generated functions over `float`,
//! `double`, `int`, `unsigned`, `long` and `short` parameters, with the usual arithmetic
//! conversions, casts, comparisons, `?:`, unary minus and the `<math.h>` functions of the
//! subset, each compiled by the front end and run in the IR interpreter and the engine, and
//! compiled natively with `cc -O0 -ffp-contract=off`; every result must be the same bits, or
//! both NaN.
//!
//! Why NaN results only need to be NaN here (the kernels and `sim/tests/float_native.rs`
//! compare NaNs bit for bit): which NaN a compound expression returns depends on choices of
//! the native compiler that C leaves open. When both operands of `+` or `*` are NaN, x86-64
//! returns the first operand of the instruction, and GCC may swap the operands of a
//! commutative operation (`x + f(y)` computes `f(y)` first and adds `x` to it); and GCC folds
//! more sign identities than the front end imitates (`-((-a) * b)` to `a * b`, ...). Both only
//! change the sign or payload of a NaN. Non-NaN results, including signed zeros and
//! infinities, must be identical.
//! Arguments include NaNs, infinities, signed zeros, subnormals and values outside the integer
//! types (whose conversions C leaves undefined; the front end follows x86-64 GCC there).
//!
//! The generator avoids what C leaves undefined: integer division (by zero, `MIN / -1`),
//! shifts, and conversions of NaN, infinite or out-of-range floats to integers. The last ones
//! have no single native answer: x86-64 code gives the "integer indefinite" pattern (what the
//! front end gives), but GCC saturates those it computes at compile time, which includes
//! conversions it moves into the constant arm of a `?:`. Every float-to-integer conversion
//! here (casts and the return of a float to an integer function) converts a value clamped to
//! `[0, 200.5]` with `fmin`/`fmax` (NaN becomes 0), so it is defined for every integer type.

// Test helpers say which checks they skip (missing tools) and what they measured.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use crate::common;

use common::kernels::{Kernel, interpreted, native, simulate};
use handscope_compiler::c::ir::{IrFunction, IrParam};
use handscope_compiler::c::{ArgValue, HsOptions, Scalar, compile_to_handshake, compile_to_ir};

/// splitmix64: the generator's deterministic randomness.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The C types of generated expressions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum T {
    F,
    D,
    I,
    U,
    L,
    S,
}

impl T {
    fn is_float(self) -> bool {
        matches!(self, T::F | T::D)
    }

    /// C's usual arithmetic conversions for the types generated here.
    fn usual(a: T, b: T) -> T {
        use T::*;
        match (a, b) {
            (D, _) | (_, D) => D,
            (F, _) | (_, F) => F,
            (L, _) | (_, L) => L,
            (U, _) | (_, U) => U,
            _ => I,
        }
    }
}

/// The parameters of every generated function.
const PARAMS: [(&str, T, &str); 8] = [
    ("f0", T::F, "float"),
    ("f1", T::F, "float"),
    ("d0", T::D, "double"),
    ("d1", T::D, "double"),
    ("i0", T::I, "int"),
    ("u0", T::U, "unsigned"),
    ("l0", T::L, "long"),
    ("s0", T::S, "short"),
];

/// A random expression of depth at most `depth`: its text and C type.
fn expr(r: &mut Rng, depth: u32) -> (String, T) {
    if depth == 0 || r.below(5) == 0 {
        return match r.below(10) {
            0 => (
                ["1.5f", "0.1f", "-3.0f", "1e-40f", "3e38f"][r.below(5)].into(),
                T::F,
            ),
            1 => (
                ["0.1", "-2.5", "1e308", "4.9e-324", "0.0"][r.below(5)].into(),
                T::D,
            ),
            2 => (["3", "-7", "0", "100000"][r.below(4)].into(), T::I),
            _ => {
                let (n, t, _) = PARAMS[r.below(PARAMS.len())];
                (n.into(), t)
            }
        };
    }
    let d = depth - 1;
    match r.below(9) {
        0..=2 => {
            let (a, ta) = expr(r, d);
            let (b, tb) = expr(r, d);
            let t = T::usual(ta, tb);
            let ops: &[&str] = if t.is_float() {
                &["+", "-", "*", "/"]
            } else {
                &["+", "-", "*"]
            };
            (format!("({a} {} {b})", ops[r.below(ops.len())]), t)
        }
        3 => {
            let (a, ta) = expr(r, d);
            let a = if ta.is_float() { clamped(&a) } else { a };
            let casts: &[(&str, T)] = if ta.is_float() {
                &[
                    ("float", T::F),
                    ("double", T::D),
                    ("int", T::I),
                    ("unsigned", T::U),
                    ("long", T::L),
                    ("short", T::S),
                    ("unsigned char", T::I),
                    ("_Bool", T::I),
                ]
            } else {
                &[
                    ("float", T::F),
                    ("double", T::D),
                    ("unsigned long", T::L),
                    ("signed char", T::I),
                ]
            };
            let (c, t) = casts[r.below(casts.len())];
            (format!("(({c}){a})"), t)
        }
        4 => {
            let (a, _) = expr(r, d);
            let (b, _) = expr(r, d);
            let (x, tx) = expr(r, d);
            let (y, ty) = expr(r, d);
            let op = ["<", "<=", ">", ">=", "==", "!="][r.below(6)];
            (format!("({a} {op} {b} ? {x} : {y})"), T::usual(tx, ty))
        }
        5 => {
            let (a, ta) = expr(r, d);
            (format!("(- {a})"), if ta == T::S { T::I } else { ta })
        }
        6 => {
            let (a, ta) = expr(r, d);
            let (f, t) = if ta == T::F && r.below(2) == 0 {
                (UNARY[r.below(UNARY.len())].to_string() + "f", T::F)
            } else {
                (UNARY[r.below(UNARY.len())].to_string(), T::D)
            };
            (format!("{f}({a})"), t)
        }
        7 => {
            let (a, ta) = expr(r, d);
            let (b, tb) = expr(r, d);
            let (f, t) = if ta == T::F && tb == T::F {
                (BINARY[r.below(BINARY.len())].to_string() + "f", T::F)
            } else {
                (BINARY[r.below(BINARY.len())].to_string(), T::D)
            };
            (format!("{f}({a}, {b})"), t)
        }
        _ => {
            let (a, _) = expr(r, d);
            let (b, _) = expr(r, d);
            let op = ["&&", "||", "<", "!="][r.below(4)];
            (format!("({a} {op} {b})"), T::I)
        }
    }
}

/// The one-operand `<math.h>` functions generated (each also in its `f` form).
const UNARY: &[&str] = &[
    "fabs",
    "sqrt",
    "floor",
    "ceil",
    "round",
    "trunc",
    "rint",
    "nearbyint",
    "exp",
    "exp2",
    "expm1",
    "log",
    "log2",
    "log10",
    "log1p",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "cbrt",
    "erf",
    "erfc",
];

/// The two-operand `<math.h>` functions generated (each also in its `f` form).
const BINARY: &[&str] = &["fmin", "fmax", "copysign", "fmod", "pow", "atan2"];

/// `a` (a float expression) clamped to `[0, 200]`, NaN to 0, in `double`: a value every
/// integer type holds.
fn clamped(a: &str) -> String {
    format!("fmin(fmax({a}, 0.0), 200.5)")
}

/// Argument values: floats as bit patterns, including the special ones.
fn arg(r: &mut Rng, t: T) -> i64 {
    let f32s: [f32; 12] = [
        0.0,
        -0.0,
        1.5,
        -2.25,
        1e10,
        -1e-3,
        3e38,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1e-42,
        65535.9,
    ];
    let f64s: [f64; 12] = [
        0.0,
        -0.0,
        0.1,
        -7.75,
        1e300,
        -3e9,
        5e-324,
        f64::NAN,
        -f64::INFINITY,
        4294967295.5,
        -2147483648.7,
        1e19,
    ];
    let ints: [i64; 8] = [0, 1, -1, 7, -100000, 2147483647, -2147483648, 65536];
    match t {
        T::F => {
            if r.below(4) == 0 {
                i64::from(r.next() as u32)
            } else {
                i64::from(f32s[r.below(f32s.len())].to_bits())
            }
        }
        T::D => {
            if r.below(4) == 0 {
                r.next() as i64
            } else {
                f64s[r.below(f64s.len())].to_bits() as i64
            }
        }
        T::I | T::U | T::L | T::S => {
            if r.below(3) == 0 {
                r.next() as i64
            } else {
                ints[r.below(ints.len())]
            }
        }
    }
}

#[test]
fn random_mixed_expressions_match_native_c() {
    let mut r = Rng(0x5eed_f10a_7000_0001);
    let n_funcs = 60;
    let mut src = String::from("#include <math.h>\n");
    let params: Vec<String> = PARAMS.iter().map(|(n, _, c)| format!("{c} {n}")).collect();
    for k in 0..n_funcs {
        let (e, te) = expr(&mut r, 4);
        let ret = ["double", "float", "int", "long"][k % 4];
        let e = if k % 4 >= 2 && te.is_float() {
            clamped(&e)
        } else {
            e
        };
        src.push_str(&format!(
            "{ret} fx{k}({}) {{\n  return {e};\n}}\n",
            params.join(", ")
        ));
    }
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("c_float_exprs");
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let path = dir.join("exprs.c");
    std::fs::write(&path, &src).expect("write");
    let mut checked = 0;
    let mut nans = 0;
    for k in 0..n_funcs {
        let top = format!("fx{k}");
        let ir: IrFunction = compile_to_ir(&src, "exprs.c", Some(&top))
            .unwrap_or_else(|e| panic!("{top}: {e:?}\n{src}"));
        let invocations: Vec<Vec<ArgValue>> = (0..4)
            .map(|_| {
                ir.params
                    .iter()
                    .map(|p| match p {
                        IrParam::Scalar { ty, .. } => {
                            let t = PARAMS
                                .iter()
                                .find(|(_, _, c)| *c == ty.c_name())
                                .map(|(_, t, _)| *t)
                                .unwrap_or(T::I);
                            let v = arg(&mut r, t);
                            ArgValue::Scalar(match ty {
                                Scalar::Float(_) => v,
                                Scalar::Int(i) => i.wrap(i128::from(v)),
                            })
                        }
                        IrParam::Array { .. } => panic!("no arrays here"),
                    })
                    .collect()
            })
            .collect();
        let k_file = Kernel {
            file: "exprs.c".into(),
            path: path.clone(),
            src: src.clone(),
            top: top.clone(),
            runs: Vec::new(),
        };
        let want = native(&ir, &k_file, &invocations, &format!("exprs_{k}"));
        let hs = compile_to_handshake(&src, "exprs.c", Some(&top), &HsOptions::default())
            .unwrap_or_else(|e| panic!("{top}: {e:?}"));
        let hs = hs.functions.into_iter().next().expect("one function");
        // Both NaN counts as equal (see the module documentation).
        let is_nan = |o: &common::kernels::Outcome| match (ir.ret, o.ret) {
            (Some(Scalar::Float(t)), Some(b)) => handscope_sim::float::is_nan(b as u64, t.kind()),
            _ => false,
        };
        for (args, want) in invocations.iter().zip(&want) {
            let got = interpreted(&ir, args);
            if is_nan(want) && is_nan(&got) {
                nans += 1;
                let sim = simulate(&ir, &hs, std::slice::from_ref(args), 1000, &top);
                assert_eq!(sim.outcome(), got, "{top}: engine vs interpreter");
                checked += 1;
                continue;
            }
            let line = src
                .lines()
                .find(|l| l.contains(&format!(" {top}(")))
                .unwrap_or("");
            let body = src
                .split(line)
                .nth(1)
                .and_then(|b| b.lines().nth(1))
                .unwrap_or("");
            assert_eq!(
                got, *want,
                "{top} interpreter vs native, args {args:?}\n{line}\n{body}"
            );
            let sim = simulate(&ir, &hs, std::slice::from_ref(args), 1000, &top);
            assert_eq!(
                sim.outcome(),
                *want,
                "{top} engine vs native, args {args:?}\n{line}\n{body}"
            );
            checked += 1;
        }
    }
    println!("{checked} random expression results equal native C ({nans} of them NaN)");
    assert!(
        checked >= 200 && nans < checked / 4,
        "{checked} checked, {nans} NaN"
    );
}
