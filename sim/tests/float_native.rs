//! The engine's float arithmetic equals native C bit for bit.
//!
//! A C program is generated, compiled with the system `cc` (`-O0 -ffp-contract=off
//! -fno-fast-math`, `-lm`) and run on a few thousand operand pairs per format: every pair of a
//! list of special values (signed zeros, infinities, quiet and signaling NaNs with payloads and
//! both signs, subnormals, the extreme normals, values around rounding ties and integer
//! boundaries) plus random bit patterns and random pairs with close exponents (so that sums
//! and differences round). For each pair it prints the result bits of `+ - * /`, `fmod`,
//! `sqrt`, `fabs`, unary `-`, `copysign`, `fmin`, `fmax`, `fmaximum`/`fminimum` (glibc 2.35+),
//! the 16 `cmpf` predicates written with C's comparison operators, the conversions between
//! the formats and to and from 8-, 16-, 32- and 64-bit integers. The test computes the same
//! with `handscope_sim::engine::float_arith` and asserts identical bits.
//!
//! The `<math.h>` functions of `handscope_sim::math_fn` (`exp`, `pow`, `sin`, `floor`, ...)
//! are compared the same way, NaN results included: the engine calls the host's C library,
//! so the bits must be the native program's.
//!
//! Float to integer: the engine's rule (NaN and out-of-range values give the pattern with only
//! the top bit set) is compared for every operand for `(int32_t)` and `(int64_t)`, where it is
//! what x86-64 computes; for the other destinations (undefined behaviour in C, and native code
//! gives varied values) only in-range operands are compared.
//!
//! Skipped, with a message, when no C compiler is installed.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use handscope_sim::FloatPredicate;
use handscope_sim::engine::float_arith::{FBinOp, FConv, FUnOp, fbin, fcmp, fconv, fmath, fun};
use handscope_sim::math_fn::MathFn;
use handscope_sim::types::FloatKind;

/// One operation: its label, the C expression (over `x`, `y` of the format and `a`, `b`, the
/// raw 64-bit patterns) and how wide its printed result is.
struct COp {
    label: String,
    c_expr: String,
    /// Result bits in C: "F" (same format), "D"/"S" (double/float), "I<n>" (integer of n bits).
    result: &'static str,
}

fn preds() -> Vec<(FloatPredicate, &'static str)> {
    use FloatPredicate as P;
    vec![
        (P::False, "0"),
        (P::Oeq, "x == y"),
        (P::Ogt, "x > y"),
        (P::Oge, "x >= y"),
        (P::Olt, "x < y"),
        (P::Ole, "x <= y"),
        (P::One, "islessgreater(x, y)"),
        (P::Ord, "!isunordered(x, y)"),
        (P::Ueq, "isunordered(x, y) || x == y"),
        (P::Ugt, "!(x <= y)"),
        (P::Uge, "!(x < y)"),
        (P::Ult, "!(x >= y)"),
        (P::Ule, "!(x > y)"),
        (P::Une, "x != y"),
        (P::Uno, "isunordered(x, y)"),
        (P::True, "1"),
    ]
}

fn ops(kind: FloatKind) -> Vec<COp> {
    let (sfx, other) = match kind {
        FloatKind::F32 => ("f", "D"),
        FloatKind::F64 => ("", "S"),
    };
    let op = |label: &str, c: String, result: &'static str| COp {
        label: label.to_string(),
        c_expr: c,
        result,
    };
    let mut v = vec![
        op("add", "x + y".into(), "F"),
        op("sub", "x - y".into(), "F"),
        op("mul", "x * y".into(), "F"),
        op("div", "x / y".into(), "F"),
        op("rem", format!("fmod{sfx}(x, y)"), "F"),
        op("sqrt", format!("sqrt{sfx}(x)"), "F"),
        op("abs", format!("fabs{sfx}(x)"), "F"),
        op("neg", "-x".into(), "F"),
        op("copysign", format!("copysign{sfx}(x, y)"), "F"),
        op("minnum", format!("fmin{sfx}(x, y)"), "F"),
        op("maxnum", format!("fmax{sfx}(x, y)"), "F"),
        op("minimum", format!("HS_FMINIMUM{sfx}(x, y)"), "F"),
        op("maximum", format!("HS_FMAXIMUM{sfx}(x, y)"), "F"),
    ];
    for (p, c) in preds() {
        v.push(op(&format!("cmpf {}", p.keyword()), c.into(), "I1"));
    }
    for &f in MathFn::ALL {
        let args = if f.arity() == 2 { "x, y" } else { "x" };
        v.push(op(
            &format!("math {}", f.mnemonic()),
            format!("{}{sfx}({args})", f.c_name()),
            "F",
        ));
    }
    v.push(op(
        if kind == FloatKind::F32 {
            "extf"
        } else {
            "truncf"
        },
        if kind == FloatKind::F32 {
            "(double)x".into()
        } else {
            "(float)x".into()
        },
        other,
    ));
    for (w, t) in [
        (8, "int8_t"),
        (16, "int16_t"),
        (32, "int32_t"),
        (64, "int64_t"),
    ] {
        let r = ["I8", "I16", "I32", "I64"][[8, 16, 32, 64].iter().position(|&x| x == w).unwrap()];
        v.push(op(&format!("fptosi i{w}"), format!("({t})x"), r));
        v.push(op(&format!("fptoui i{w}"), format!("(u{t})x"), r));
        let ft = if kind == FloatKind::F32 {
            "float"
        } else {
            "double"
        };
        v.push(op(&format!("sitofp i{w}"), format!("({ft})({t})a"), "F"));
        v.push(op(&format!("uitofp i{w}"), format!("({ft})(u{t})a"), "F"));
    }
    v
}

/// The engine's answer for operation `label` on the bit patterns `a`, `b`; `None` where the
/// comparison does not apply (C undefined behaviour outside the documented x86-64 cases).
fn engine(label: &str, kind: FloatKind, a: u64, b: u64) -> Option<u64> {
    let w = kind.bits();
    let m = handscope_sim::types::width_mask(w);
    let (x, y) = (a & m, b & m);
    let bin = |op| Some(fbin(op, x, y, kind));
    match label {
        "add" => bin(FBinOp::Add),
        "sub" => bin(FBinOp::Sub),
        "mul" => bin(FBinOp::Mul),
        "div" => bin(FBinOp::Div),
        "rem" => bin(FBinOp::Rem),
        "copysign" => bin(FBinOp::CopySign),
        "minnum" => bin(FBinOp::MinNum),
        "maxnum" => bin(FBinOp::MaxNum),
        "minimum" => bin(FBinOp::Minimum),
        "maximum" => bin(FBinOp::Maximum),
        "sqrt" => Some(fun(FUnOp::Sqrt, x, kind)),
        "abs" => Some(fun(FUnOp::Abs, x, kind)),
        "neg" => Some(fun(FUnOp::Neg, x, kind)),
        "extf" => Some(fconv(FConv::Ext, x, 32, 64)),
        "truncf" => Some(fconv(FConv::Trunc, x, 64, 32)),
        _ => {
            if let Some(m) = label.strip_prefix("math ") {
                let f = MathFn::from_mnemonic(m).expect("math function");
                return Some(fmath(f, x, y, kind));
            }
            if let Some(p) = label.strip_prefix("cmpf ") {
                let p = FloatPredicate::from_keyword(p).expect("predicate");
                return Some(fcmp(p, x, y, kind));
            }
            let (conv, iw) = label.split_once(" i").expect("conversion label");
            let iw: u32 = iw.parse().expect("width");
            match conv {
                "fptosi" | "fptoui" => {
                    let signed = conv == "fptosi";
                    let t = match kind {
                        FloatKind::F32 => f64::from(f32::from_bits(x as u32)),
                        FloatKind::F64 => f64::from_bits(x),
                    }
                    .trunc();
                    let (lo, hi) = if signed {
                        (-(2f64.powi(iw as i32 - 1)), 2f64.powi(iw as i32 - 1))
                    } else {
                        (0.0, 2f64.powi(iw as i32))
                    };
                    let in_range = t >= lo && t < hi;
                    let native_rule = signed && (iw == 32 || iw == 64);
                    let c = if signed { FConv::FpToSi } else { FConv::FpToUi };
                    (in_range || native_rule).then(|| fconv(c, x, w, iw))
                }
                "sitofp" => Some(fconv(FConv::SiToFp, a, iw, w)),
                "uitofp" => Some(fconv(FConv::UiToFp, a, iw, w)),
                other => panic!("unknown operation {other}"),
            }
        }
    }
}

fn c_program(kind: FloatKind) -> String {
    let (ft, ut) = match kind {
        FloatKind::F32 => ("float", "uint32_t"),
        FloatKind::F64 => ("double", "uint64_t"),
    };
    let mut s = String::from(
        r#"#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <math.h>
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
#define HS_FMINIMUMf(x, y) fminimumf(x, y)
#define HS_FMAXIMUMf(x, y) fmaximumf(x, y)
#define HS_FMINIMUM(x, y) fminimum(x, y)
#define HS_FMAXIMUM(x, y) fmaximum(x, y)
#define HS_HAVE_FMAXIMUM 1
#else
#define HS_FMINIMUMf(x, y) 0
#define HS_FMAXIMUMf(x, y) 0
#define HS_FMINIMUM(x, y) 0
#define HS_FMAXIMUM(x, y) 0
#define HS_HAVE_FMAXIMUM 0
#endif
static uint64_t bits_f(float v) { uint32_t b; memcpy(&b, &v, 4); return b; }
static uint64_t bits_d(double v) { uint64_t b; memcpy(&b, &v, 8); return b; }
int main(void) {
  unsigned long long a, b;
  printf("fmaximum %d\n", HS_HAVE_FMAXIMUM);
  while (scanf("%llx %llx", &a, &b) == 2) {
"#,
    );
    let _ = writeln!(
        s,
        "    {ut} ua = ({ut})a, ub = ({ut})b; {ft} x, y; memcpy(&x, &ua, sizeof x); memcpy(&y, &ub, sizeof y);"
    );
    for op in ops(kind) {
        let print = match op.result {
            "F" if kind == FloatKind::F32 => format!("bits_f({})", op.c_expr),
            "F" => format!("bits_d({})", op.c_expr),
            "D" => format!("bits_d({})", op.c_expr),
            "S" => format!("bits_f({})", op.c_expr),
            r => {
                let w: u32 = r[1..].parse().unwrap();
                let mask = handscope_sim::types::width_mask(w);
                format!("((uint64_t)({}) & {mask}ULL)", op.c_expr)
            }
        };
        let _ = writeln!(s, "    printf(\"%llx \", (unsigned long long){print});");
    }
    s.push_str("    printf(\"\\n\");\n  }\n  return 0;\n}\n");
    s
}

/// Special values of a format as bit patterns.
fn specials(kind: FloatKind) -> Vec<u64> {
    match kind {
        FloatKind::F32 => {
            let f = |x: f32| u64::from(x.to_bits());
            vec![
                0,
                0x8000_0000,
                0x7f80_0000,
                0xff80_0000,
                0x7fc0_0000,
                0xffc0_0000,
                0x7fc0_0001,
                0xffc1_2345,
                0x7f80_0001,
                0xff80_0003,
                0x7fbf_ffff,
                0x0000_0001,
                0x8000_0001,
                0x007f_ffff,
                0x0080_0000,
                0x7f7f_ffff,
                0xff7f_ffff,
                f(1.0),
                f(-1.0),
                f(0.5),
                f(1.5),
                f(2.5),
                f(-2.5),
                f(3.0),
                f(0.1),
                f(1.0 + f32::EPSILON),
                f(f32::EPSILON / 2.0),
                f(16_777_216.0),
                f(16_777_217.0),
                f(2_147_483_648.0),
                f(-2_147_483_648.0),
                f(2_147_483_520.0),
                f(4_294_967_296.0),
                f(9.223_372e18),
                f(-9.223_372e18),
                f(1.844_674_4e19),
                f(127.5),
                f(-128.9),
                f(65535.9),
                f(-0.75),
            ]
        }
        FloatKind::F64 => {
            let f = |x: f64| x.to_bits();
            vec![
                0,
                1 << 63,
                0x7ff0_0000_0000_0000,
                0xfff0_0000_0000_0000,
                0x7ff8_0000_0000_0000,
                0xfff8_0000_0000_0000,
                0x7ff8_0000_0000_0001,
                0xfff8_dead_beef_0000,
                0x7ff0_0000_0000_0001,
                0x7ff4_0000_0000_0000,
                0xfff0_0000_2000_0000,
                1,
                0x8000_0000_0000_0001,
                0x000f_ffff_ffff_ffff,
                0x0010_0000_0000_0000,
                0x7fef_ffff_ffff_ffff,
                0xffef_ffff_ffff_ffff,
                f(1.0),
                f(-1.0),
                f(0.5),
                f(1.5),
                f(2.5),
                f(-2.5),
                f(3.0),
                f(0.1),
                f(1.0 + f64::EPSILON),
                f(f64::EPSILON / 2.0),
                f(9_007_199_254_740_992.0),
                f(9_007_199_254_740_993.0),
                f(2_147_483_648.0),
                f(-2_147_483_648.5),
                f(2_147_483_647.9),
                f(4_294_967_295.5),
                2f64.powi(63).to_bits() - 1,
                f(-(2f64.powi(63))),
                f(1.844_674_407_370_955_2e19),
                // Doubles that round to float ties and near the float limits.
                f(f64::from(f32::MAX) * (1.0 + 1e-9)),
                f(1.0 + f64::from(f32::EPSILON) / 2.0),
                f(f64::from(f32::MIN_POSITIVE) / 3.0),
                f(-0.75),
            ]
        }
    }
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// Operand pairs: specials crossed, random patterns, and random pairs with close exponents.
fn pairs(kind: FloatKind) -> Vec<(u64, u64)> {
    let sp = specials(kind);
    let mut v: Vec<(u64, u64)> = sp
        .iter()
        .flat_map(|&a| sp.iter().map(move |&b| (a, b)))
        .collect();
    let mut rng = Rng(0x5eed + u64::from(kind.bits()));
    let (w, mant) = (kind.bits(), if kind == FloatKind::F32 { 23 } else { 52 });
    let m = handscope_sim::types::width_mask(w);
    for i in 0..3000 {
        // All 64 bits: the integer conversions read them; the float operand is the low bits.
        let a_full = rng.next();
        let a = a_full & m;
        let b = match i % 3 {
            // Unrelated patterns (also the integer operands of the conversions).
            0 => rng.next() & m,
            // Same sign and exponent within a few dozen binades: sums round.
            1 => {
                let exp_bits = w - 1 - mant;
                let ea = (a >> mant) & ((1 << exp_bits) - 1);
                let shift = rng.next() % (mant as u64 + 4);
                let eb = ea.saturating_sub(shift);
                let sign = if rng.next() & 1 == 1 { a >> (w - 1) } else { 0 } << (w - 1);
                sign | (eb << mant) | (rng.next() & ((1 << mant) - 1))
            }
            // A special value against a random one.
            _ => sp[(rng.next() % sp.len() as u64) as usize],
        };
        v.push((a_full, b));
    }
    v
}

fn have_cc() -> bool {
    Command::new("cc")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn float_ops_equal_native_c_bit_for_bit() {
    if !have_cc() {
        eprintln!("skipped: no C compiler `cc` found");
        return;
    }
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("float_native");
    std::fs::create_dir_all(&dir).unwrap();
    let mut total_pairs = 0;
    let mut total_checks = 0u64;
    for kind in FloatKind::ALL {
        let name = kind.name();
        let src = dir.join(format!("{name}.c"));
        let exe = dir.join(name);
        std::fs::write(&src, c_program(kind)).unwrap();
        let out = Command::new("cc")
            .args([
                "-std=gnu2x",
                "-O0",
                "-ffp-contract=off",
                "-fno-fast-math",
                "-o",
            ])
            .arg(&exe)
            .arg(&src)
            .arg("-lm")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "cc failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let ps = pairs(kind);
        let input: String = ps.iter().map(|(a, b)| format!("{a:x} {b:x}\n")).collect();
        let inp = dir.join(format!("{name}.in"));
        std::fs::write(&inp, input).unwrap();
        let run = Command::new(&exe)
            .stdin(std::fs::File::open(&inp).unwrap())
            .output()
            .unwrap();
        assert!(run.status.success());
        let text = String::from_utf8(run.stdout).unwrap();
        let mut lines = text.lines();
        let have_fmaximum = lines.next() == Some("fmaximum 1");
        let ops = ops(kind);
        let mut mismatches = Vec::new();
        let mut rows = 0;
        for ((a, b), line) in ps.iter().zip(lines) {
            rows += 1;
            let got: Vec<u64> = line
                .split_whitespace()
                .map(|h| u64::from_str_radix(h, 16).unwrap())
                .collect();
            assert_eq!(got.len(), ops.len());
            for (op, &c) in ops.iter().zip(&got) {
                if !have_fmaximum && op.label.starts_with("m") && op.label.ends_with("imum") {
                    continue;
                }
                let Some(e) = engine(&op.label, kind, *a, *b) else {
                    continue;
                };
                total_checks += 1;
                if e != c && mismatches.len() < 20 {
                    mismatches.push(format!(
                        "{name} {} ({a:#x}, {b:#x}) [{}]: engine {e:#x}, C {c:#x}",
                        op.label, op.c_expr
                    ));
                }
            }
        }
        assert_eq!(
            rows,
            ps.len(),
            "C printed {rows} rows for {} pairs",
            ps.len()
        );
        assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
        if !have_fmaximum {
            eprintln!(
                "note: glibc < 2.35 has no fmaximum/fminimum; maximumf/minimumf not compared"
            );
        }
        total_pairs += ps.len();
    }
    println!("{total_pairs} operand pairs, {total_checks} results equal to native C bit for bit");
    assert!(total_pairs > 8000);
}
