//! The floating-point simulation model: float components call four C functions through
//! SystemVerilog's DPI-C, and this module writes both sides of that interface.
//!
//! **Not synthesizable.** Synthesis tools cannot build `import "DPI-C"` functions; the float
//! components exist so that Verilator simulates a circuit with floats exactly like the engine
//! (`docs/semantics.md`, "Floating point"). A hardware flow needs real floating-point units.
//!
//! The functions take and return bit patterns (`longint`, C `long long`); `bits` is the float
//! format's width (32 or 64):
//! - `hs_fbin(op, bits, a, b)`: a binary operation ([`FBinOp`] code);
//! - `hs_fun(op, bits, a)`: a unary operation ([`FUnOp`] code);
//! - `hs_fcmp(pred, bits, a, b)`: a `cmpf` predicate (MLIR's enum value), 0 or 1;
//! - `hs_fconv(conv, from, to, a)`: a conversion ([`FConv`] code) between widths `from`, `to`;
//! - `hs_fmath(f, bits, a, b)`: a `<math.h>` function ([`MathFn`] code; `b` is ignored by the
//!   one-operand ones), calling the C library's function as the engine does.
//!
//! [`c_source`] implements them in C (compiled into the Verilator testbench): the same rules as
//! `handscope_sim::engine::float_arith`, with NaN results decided explicitly rather than left to
//! the host, so the model gives the engine's bits on any machine.

use handscope_sim::FloatPredicate;
use handscope_sim::engine::float_arith::{FBinOp, FConv, FUnOp, FloatOp};
use handscope_sim::math_fn::MathFn;

/// The SystemVerilog import of the function a float op calls.
pub fn sv_import(op: FloatOp) -> &'static str {
    match op {
        FloatOp::Bin(_) => {
            "import \"DPI-C\" pure function longint hs_fbin(input int op, input int bits, input longint a, input longint b);"
        }
        FloatOp::Un(_) => {
            "import \"DPI-C\" pure function longint hs_fun(input int op, input int bits, input longint a);"
        }
        FloatOp::Cmp(_) => {
            "import \"DPI-C\" pure function int hs_fcmp(input int pred, input int bits, input longint a, input longint b);"
        }
        FloatOp::Conv(_) => {
            "import \"DPI-C\" pure function longint hs_fconv(input int conv, input int from, input int to, input longint a);"
        }
        FloatOp::Math(_) => {
            "import \"DPI-C\" pure function longint hs_fmath(input int f, input int bits, input longint a, input longint b);"
        }
    }
}

/// The SystemVerilog expression of a float op whose inputs `in0`, `in1` have widths `ins` and
/// whose output has width `out`.
pub fn sv_expr(op: FloatOp, ins: &[u32], out: u32) -> String {
    let arg = |i: usize| format!("64'(in{i})");
    let wi = ins.first().copied().unwrap_or(0);
    match op {
        FloatOp::Bin(b) => format!(
            "{out}'(hs_fbin({}, {wi}, {}, {}))",
            b as u32,
            arg(0),
            arg(1)
        ),
        FloatOp::Un(u) => format!("{out}'(hs_fun({}, {wi}, {}))", u as u32, arg(0)),
        FloatOp::Cmp(p) => format!(
            "hs_fcmp({}, {wi}, {}, {}) != 0",
            p.to_index(),
            arg(0),
            arg(1)
        ),
        FloatOp::Conv(c) => format!("{out}'(hs_fconv({}, {wi}, {out}, {}))", c as u32, arg(0)),
        FloatOp::Math(f) => {
            let b = if f.arity() == 2 { arg(1) } else { arg(0) };
            format!("{out}'(hs_fmath({}, {wi}, {}, {b}))", f as u32, arg(0))
        }
    }
}

/// C preprocessor names of the operation codes, from the Rust enums (so both sides agree).
fn codes() -> String {
    let mut s = String::new();
    let bin = [
        ("ADD", FBinOp::Add),
        ("SUB", FBinOp::Sub),
        ("MUL", FBinOp::Mul),
        ("DIV", FBinOp::Div),
        ("REM", FBinOp::Rem),
        ("MAXIMUM", FBinOp::Maximum),
        ("MINIMUM", FBinOp::Minimum),
        ("MAXNUM", FBinOp::MaxNum),
        ("MINNUM", FBinOp::MinNum),
        ("COPYSIGN", FBinOp::CopySign),
    ];
    for (n, op) in bin {
        s.push_str(&format!("#define HSF_{n} {}\n", op as u32));
    }
    for (n, op) in [
        ("NEG", FUnOp::Neg),
        ("ABS", FUnOp::Abs),
        ("SQRT", FUnOp::Sqrt),
    ] {
        s.push_str(&format!("#define HSF_{n} {}\n", op as u32));
    }
    for (n, c) in [
        ("SITOFP", FConv::SiToFp),
        ("UITOFP", FConv::UiToFp),
        ("FPTOSI", FConv::FpToSi),
        ("FPTOUI", FConv::FpToUi),
        ("EXT", FConv::Ext),
        ("TRUNC", FConv::Trunc),
    ] {
        s.push_str(&format!("#define HSF_{n} {}\n", c as u32));
    }
    for &f in MathFn::ALL {
        s.push_str(&format!(
            "#define HSF_M_{} {}\n",
            f.mnemonic().to_ascii_uppercase(),
            f as u32
        ));
    }
    for p in FloatPredicate::ALL {
        s.push_str(&format!(
            "#define HSF_P_{} {}\n",
            p.keyword().to_ascii_uppercase(),
            p.to_index()
        ));
    }
    s
}

/// The C (C++-compatible) implementation of the four DPI functions.
pub fn c_source() -> String {
    let mut s = String::from(
        "// Handscope float simulation model (DPI-C): the engine's IEEE-754 rules, see\n\
         // docs/semantics.md (\"Floating point\"). Simulation only, not synthesizable.\n\
         #include <cmath>\n#include <cstdint>\n#include <cstring>\n",
    );
    s.push_str(&codes());
    s.push_str(C_BODY);
    s.push_str(&math_body());
    s
}

/// `hs_fmath`: one `case` per [`MathFn`], calling its C function (the `f` form in `f32`) and
/// returning its bits as they are, as the engine does
/// (`handscope_sim::engine::float_arith::fmath`).
fn math_body() -> String {
    let mut cases32 = String::new();
    let mut cases64 = String::new();
    for &f in MathFn::ALL {
        let code = format!("HSF_M_{}", f.mnemonic().to_ascii_uppercase());
        let (args32, args64) = if f.arity() == 2 {
            ("x, y", "x, y")
        } else {
            ("x", "x")
        };
        cases32.push_str(&format!(
            "      case {code}: z = {}f({args32}); break;\n",
            f.c_name()
        ));
        cases64.push_str(&format!(
            "    case {code}: z = {}({args64}); break;\n",
            f.c_name()
        ));
    }
    format!(
        r#"
extern "C" long long hs_fmath(int f, int bits, long long sa, long long sb) {{
  uint64_t m = hsf_mask(bits), a = (uint64_t)sa & m, b = (uint64_t)sb & m;
  if (bits == 32) {{
    float x = hsf_f(a), y = hsf_f(b), z = 0.0f;
    switch (f) {{
{cases32}    }}
    return (long long)hsf_bf(z);
  }}
  double x = hsf_d(a), y = hsf_d(b), z = 0.0;
  switch (f) {{
{cases64}  }}
  return (long long)hsf_bd(z);
}}
"#
    )
}

const C_BODY: &str = r#"static inline uint64_t hsf_mask(int bits) { return bits >= 64 ? ~0ULL : ((1ULL << bits) - 1); }
static inline uint64_t hsf_sign(int bits) { return 1ULL << (bits - 1); }
static inline uint64_t hsf_qbit(int bits) { return bits == 32 ? 0x400000ULL : 0x8000000000000ULL; }
static inline uint64_t hsf_expm(int bits) { return bits == 32 ? 0x7f800000ULL : 0x7ff0000000000000ULL; }
static inline int hsf_isnan(uint64_t a, int bits) {
  uint64_t e = hsf_expm(bits);
  return (a & e) == e && (a & (hsf_qbit(bits) * 2 - 1)) != 0;
}
static inline uint64_t hsf_dnan(int bits) { return hsf_expm(bits) | hsf_qbit(bits) | hsf_sign(bits); }
static inline float hsf_f(uint64_t a) { uint32_t u = (uint32_t)a; float f; memcpy(&f, &u, 4); return f; }
static inline double hsf_d(uint64_t a) { double d; memcpy(&d, &a, 8); return d; }
static inline uint64_t hsf_bf(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline uint64_t hsf_bd(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
/* The value as a double: exact for both formats. */
static inline double hsf_val(uint64_t a, int bits) { return bits == 32 ? (double)hsf_f(a) : hsf_d(a); }

extern "C" long long hs_fbin(int op, int bits, long long sa, long long sb) {
  uint64_t m = hsf_mask(bits), a = (uint64_t)sa & m, b = (uint64_t)sb & m, s = hsf_sign(bits);
  uint64_t q = hsf_qbit(bits);
  int an = hsf_isnan(a, bits), bn = hsf_isnan(b, bits);
  if (op == HSF_COPYSIGN) return (long long)((a & ~s) | (b & s));
  if (op == HSF_MAXNUM || op == HSF_MINNUM) {
    if (an && bn) return (long long)(b | q);
    if (an) return (long long)((a & q) == 0 ? (a | q) : b);
    if (bn) return (long long)((b & q) == 0 ? (b | q) : a);
    double x = hsf_val(a, bits), y = hsf_val(b, bits);
    int second = op == HSF_MAXNUM ? (y > x) : (y < x);
    return (long long)(second ? b : a);
  }
  if (an) return (long long)(a | q);
  if (bn) return (long long)(b | q);
  if (op == HSF_MAXIMUM || op == HSF_MINIMUM) {
    double x = hsf_val(a, bits), y = hsf_val(b, bits);
    int max = op == HSF_MAXIMUM;
    if (x == y) return (long long)(max ? (a & b) : (a | b));
    return (long long)(((x > y) == max) ? a : b);
  }
  uint64_t r;
  int nan;
  if (bits == 32) {
    float x = hsf_f(a), y = hsf_f(b), z = 0.0f;
    switch (op) {
      case HSF_ADD: z = x + y; break;
      case HSF_SUB: z = x - y; break;
      case HSF_MUL: z = x * y; break;
      case HSF_DIV: z = x / y; break;
      case HSF_REM: z = fmodf(x, y); break;
    }
    nan = z != z;
    r = hsf_bf(z);
  } else {
    double x = hsf_d(a), y = hsf_d(b), z = 0.0;
    switch (op) {
      case HSF_ADD: z = x + y; break;
      case HSF_SUB: z = x - y; break;
      case HSF_MUL: z = x * y; break;
      case HSF_DIV: z = x / y; break;
      case HSF_REM: z = fmod(x, y); break;
    }
    nan = z != z;
    r = hsf_bd(z);
  }
  return (long long)(nan ? hsf_dnan(bits) : r);
}

extern "C" long long hs_fun(int op, int bits, long long sa) {
  uint64_t a = (uint64_t)sa & hsf_mask(bits), s = hsf_sign(bits);
  if (op == HSF_NEG) return (long long)(a ^ s);
  if (op == HSF_ABS) return (long long)(a & ~s);
  if (hsf_isnan(a, bits)) return (long long)(a | hsf_qbit(bits));
  uint64_t r;
  int nan;
  if (bits == 32) { float z = sqrtf(hsf_f(a)); nan = z != z; r = hsf_bf(z); }
  else { double z = sqrt(hsf_d(a)); nan = z != z; r = hsf_bd(z); }
  return (long long)(nan ? hsf_dnan(bits) : r);
}

extern "C" int hs_fcmp(int pred, int bits, long long sa, long long sb) {
  uint64_t m = hsf_mask(bits);
  double x = hsf_val((uint64_t)sa & m, bits), y = hsf_val((uint64_t)sb & m, bits);
  int uno = x != x || y != y;
  switch (pred) {
    case HSF_P_FALSE: return 0;
    case HSF_P_OEQ: return x == y;
    case HSF_P_OGT: return x > y;
    case HSF_P_OGE: return x >= y;
    case HSF_P_OLT: return x < y;
    case HSF_P_OLE: return x <= y;
    case HSF_P_ONE: return !uno && x != y;
    case HSF_P_ORD: return !uno;
    case HSF_P_UEQ: return uno || x == y;
    case HSF_P_UGT: return uno || x > y;
    case HSF_P_UGE: return uno || x >= y;
    case HSF_P_ULT: return uno || x < y;
    case HSF_P_ULE: return uno || x <= y;
    case HSF_P_UNE: return uno || x != y;
    case HSF_P_UNO: return uno;
    default: return 1;
  }
}

extern "C" long long hs_fconv(int conv, int from, int to, long long sa) {
  uint64_t a = (uint64_t)sa & hsf_mask(from);
  switch (conv) {
    case HSF_SITOFP: {
      int64_t v = from == 0 ? 0 : (int64_t)(a << (64 - from)) >> (64 - from);
      return (long long)(to == 32 ? hsf_bf((float)v) : hsf_bd((double)v));
    }
    case HSF_UITOFP:
      return (long long)(to == 32 ? hsf_bf((float)a) : hsf_bd((double)a));
    case HSF_FPTOSI:
    case HSF_FPTOUI: {
      uint64_t indefinite = to == 0 ? 0 : 1ULL << (to - 1);
      if (hsf_isnan(a, from)) return (long long)indefinite;
      double t = trunc(hsf_val(a, from));
      int sgn = conv == HSF_FPTOSI;
      double h = to == 0 ? 0.0 : ldexp(1.0, to - 1);
      double lo = sgn ? -h : 0.0, hi = sgn ? h : ldexp(1.0, to);
      if (!(t >= lo && t < hi)) return (long long)indefinite;
      uint64_t v = sgn ? (uint64_t)(int64_t)t : (uint64_t)t;
      return (long long)(v & hsf_mask(to));
    }
    case HSF_EXT:
      if (hsf_isnan(a, 32))
        return (long long)(((a >> 31) << 63) | 0x7ff0000000000000ULL | ((a & 0x7fffffULL) << 29) | hsf_qbit(64));
      return (long long)hsf_bd((double)hsf_f(a));
    default: /* HSF_TRUNC */
      if (hsf_isnan(a, 64))
        return (long long)(((a >> 63) << 31) | 0x7f800000ULL | ((a & 0xfffffffffffffULL) >> 29) | hsf_qbit(32));
      return (long long)hsf_bf((float)hsf_d(a));
  }
}
"#;

/// True when `f` has a float component (its testbench needs [`c_source`]).
pub fn uses_floats(f: &handscope_sim::Function) -> bool {
    f.nodes.values().any(|n| match &n.op {
        handscope_sim::Op::Arith(a) => FloatOp::of(*a).is_some(),
        _ => false,
    })
}
