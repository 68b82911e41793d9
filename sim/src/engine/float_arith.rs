//! IEEE-754 binary32/binary64 arithmetic on bit patterns, bit for bit what native C computes on
//! x86-64 (SSE, round to nearest even, no flush to zero, no fused multiply-add; see
//! `docs/semantics.md`, "Floating point").
//!
//! Finite and infinite results come from Rust's native `f32`/`f64` operations, which IEEE-754
//! defines exactly. NaN results are not left to the host (Rust guarantees no NaN bits): every
//! operation decides them explicitly, by the rules x86-64 SSE and glibc follow:
//! * an operation with a NaN operand returns the **first NaN operand, quieted** (quiet bit set,
//!   sign and payload kept): `add`, `sub`, `mul`, `div`, `rem` (glibc's `fmod`), `sqrt`,
//!   `maximum`, `minimum` (glibc's C23 `fmaximum`/`fminimum`), `extf`/`truncf` (the payload
//!   keeps its top bits);
//! * an invalid operation on non-NaN operands (`inf - inf`, `0 * inf`, `0 / 0`, `sqrt(-1)`,
//!   `fmod(x, 0)`, `fmod(inf, y)`) returns the **default NaN**, `-nan` (`0xffc00000`,
//!   `0xfff8000000000000`, x86's "real indefinite");
//! * `maxnum`/`minnum` are glibc's `fmax`/`fmin`: a quiet NaN operand is ignored; a signaling
//!   one makes the result that NaN quieted; two NaNs give the second quieted; equal operands
//!   (`+0` and `-0`) give the first;
//! * `neg`, `abs` and `copysign` only touch the sign bit, NaNs included;
//! * float to integer truncates toward zero; NaN, infinities and values outside the integer
//!   type give the pattern with only its top bit set (x86's "integer indefinite", what
//!   `cvttss2si` gives for `(int)` and `(long)` casts).

use crate::float::{is_nan, quiet_bit, sign_bit};
use crate::math_fn::MathFn;
use crate::ops::FloatPredicate;
use crate::types::{FloatKind, width_mask};

use super::arith::sext;

/// Binary float operations with a result of the operand format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FBinOp {
    /// `addf`
    Add,
    /// `subf`
    Sub,
    /// `mulf`
    Mul,
    /// `divf`
    Div,
    /// `remf` (C's `fmod`)
    Rem,
    /// `maximumf` (NaN-propagating)
    Maximum,
    /// `minimumf` (NaN-propagating)
    Minimum,
    /// `maxnumf` (C's `fmax`)
    MaxNum,
    /// `minnumf` (C's `fmin`)
    MinNum,
    /// `math.copysign`
    CopySign,
}

/// Unary float operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FUnOp {
    /// `negf`
    Neg,
    /// `math.absf`
    Abs,
    /// `math.sqrt`
    Sqrt,
}

/// Conversions between integers and floats and between the float formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FConv {
    /// `sitofp`: signed integer of `from` bits to a float.
    SiToFp,
    /// `uitofp`: unsigned integer of `from` bits to a float.
    UiToFp,
    /// `fptosi`: float to a signed integer of `to` bits.
    FpToSi,
    /// `fptoui`: float to an unsigned integer of `to` bits.
    FpToUi,
    /// `extf`: `f32` to `f64`.
    Ext,
    /// `truncf`: `f64` to `f32`.
    Trunc,
}

/// What a float `arith`/`math` op computes, for back ends that implement the same rules
/// elsewhere (the SystemVerilog simulation model).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatOp {
    /// A binary operation.
    Bin(FBinOp),
    /// A unary operation.
    Un(FUnOp),
    /// A comparison.
    Cmp(FloatPredicate),
    /// A conversion.
    Conv(FConv),
    /// A `<math.h>` function ([`fmath`]).
    Math(MathFn),
}

impl FloatOp {
    /// The float computation of `op`; `None` for the integer operations.
    pub fn of(op: crate::ops::ArithOp) -> Option<FloatOp> {
        use crate::ops::ArithOp as A;
        Some(match op {
            A::Addf => FloatOp::Bin(FBinOp::Add),
            A::Subf => FloatOp::Bin(FBinOp::Sub),
            A::Mulf => FloatOp::Bin(FBinOp::Mul),
            A::Divf => FloatOp::Bin(FBinOp::Div),
            A::Remf => FloatOp::Bin(FBinOp::Rem),
            A::Maximumf => FloatOp::Bin(FBinOp::Maximum),
            A::Minimumf => FloatOp::Bin(FBinOp::Minimum),
            A::Maxnumf => FloatOp::Bin(FBinOp::MaxNum),
            A::Minnumf => FloatOp::Bin(FBinOp::MinNum),
            A::Copysign => FloatOp::Bin(FBinOp::CopySign),
            A::Negf => FloatOp::Un(FUnOp::Neg),
            A::Absf => FloatOp::Un(FUnOp::Abs),
            A::Sqrt => FloatOp::Un(FUnOp::Sqrt),
            A::Math(f) => FloatOp::Math(f),
            A::Cmpf(p) => FloatOp::Cmp(p),
            A::Sitofp => FloatOp::Conv(FConv::SiToFp),
            A::Uitofp => FloatOp::Conv(FConv::UiToFp),
            A::Fptosi => FloatOp::Conv(FConv::FpToSi),
            A::Fptoui => FloatOp::Conv(FConv::FpToUi),
            A::Extf => FloatOp::Conv(FConv::Ext),
            A::Truncf => FloatOp::Conv(FConv::Trunc),
            A::Addi
            | A::Subi
            | A::Muli
            | A::Divsi
            | A::Divui
            | A::Remsi
            | A::Remui
            | A::Andi
            | A::Ori
            | A::Xori
            | A::Noti
            | A::Shli
            | A::Shrsi
            | A::Shrui
            | A::Maxsi
            | A::Minsi
            | A::Maxui
            | A::Minui
            | A::Select
            | A::Extsi
            | A::Extui
            | A::Trunci
            | A::IndexCast
            | A::Cmpi(_) => return None,
        })
    }
}

/// The default NaN of an invalid operation: `-nan`, `0xffc00000` / `0xfff8000000000000`.
pub fn default_nan(kind: FloatKind) -> u64 {
    crate::float::positive_nan(kind) | sign_bit(kind)
}

/// `a` with its quiet bit set (a NaN stays the same NaN, quieted).
#[inline(always)]
pub fn quiet(a: u64, kind: FloatKind) -> u64 {
    a | quiet_bit(kind)
}

/// True when `a` is a signaling NaN (a NaN with the quiet bit clear).
pub fn is_signaling(a: u64, kind: FloatKind) -> bool {
    is_nan(a, kind) && a & quiet_bit(kind) == 0
}

/// True when `a` is `+0` or `-0` (a divisor that raises a division-by-zero event).
pub fn is_zero(a: u64, kind: FloatKind) -> bool {
    a & !sign_bit(kind) & width_mask(kind.bits()) == 0
}

/// The native operations, once per format.
trait Native: Copy + PartialOrd {
    fn of(bits: u64) -> Self;
    fn bits(self) -> u64;
    fn is_nan_value(self) -> bool;
    fn arith(op: FBinOp, x: Self, y: Self) -> Self;
    fn sqrt_value(self) -> Self;
    fn trunc_value(self) -> f64;
}

macro_rules! native {
    ($t:ty, $of:expr) => {
        impl Native for $t {
            #[inline(always)]
            fn of(bits: u64) -> Self {
                $of(bits)
            }
            #[inline(always)]
            fn bits(self) -> u64 {
                u64::from(self.to_bits())
            }
            #[inline(always)]
            fn is_nan_value(self) -> bool {
                self.is_nan()
            }
            #[inline(always)]
            fn arith(op: FBinOp, x: Self, y: Self) -> Self {
                match op {
                    FBinOp::Add => x + y,
                    FBinOp::Sub => x - y,
                    FBinOp::Mul => x * y,
                    FBinOp::Div => x / y,
                    // Exact (no rounding): the same value as C's fmod.
                    FBinOp::Rem => x % y,
                    FBinOp::Maximum
                    | FBinOp::Minimum
                    | FBinOp::MaxNum
                    | FBinOp::MinNum
                    | FBinOp::CopySign => unreachable!("not a native arithmetic operation"),
                }
            }
            #[inline(always)]
            fn sqrt_value(self) -> Self {
                self.sqrt()
            }
            #[inline(always)]
            fn trunc_value(self) -> f64 {
                f64::from(self.trunc())
            }
        }
    };
}

native!(f32, |b: u64| f32::from_bits(b as u32));
native!(f64, f64::from_bits);

#[inline(always)]
fn bin_in<F: Native>(op: FBinOp, a: u64, b: u64, kind: FloatKind) -> u64 {
    let sign = sign_bit(kind);
    let (an, bn) = (is_nan(a, kind), is_nan(b, kind));
    match op {
        FBinOp::CopySign => return (a & !sign) | (b & sign),
        FBinOp::MaxNum | FBinOp::MinNum => {
            return match (an, bn) {
                (true, true) => quiet(b, kind),
                (true, false) if is_signaling(a, kind) => quiet(a, kind),
                (true, false) => b,
                (false, true) if is_signaling(b, kind) => quiet(b, kind),
                (false, true) => a,
                (false, false) => {
                    let (x, y) = (F::of(a), F::of(b));
                    let second = if op == FBinOp::MaxNum { y > x } else { y < x };
                    if second { b } else { a }
                }
            };
        }
        _ => {}
    }
    if an {
        return quiet(a, kind);
    }
    if bn {
        return quiet(b, kind);
    }
    let (x, y) = (F::of(a), F::of(b));
    match op {
        FBinOp::Maximum | FBinOp::Minimum => {
            let max = op == FBinOp::Maximum;
            if x == y {
                // Equal: only +0 and -0 differ; -0 is the smaller.
                if max { a & b } else { a | b }
            } else if (x > y) == max {
                a
            } else {
                b
            }
        }
        _ => {
            let r = F::arith(op, x, y);
            if r.is_nan_value() {
                default_nan(kind)
            } else {
                r.bits()
            }
        }
    }
}

/// Computes `a op b` on bit patterns of format `kind` (see the module documentation).
#[inline(always)]
pub fn fbin(op: FBinOp, a: u64, b: u64, kind: FloatKind) -> u64 {
    match kind {
        FloatKind::F32 => bin_in::<f32>(op, a, b, kind),
        FloatKind::F64 => bin_in::<f64>(op, a, b, kind),
    }
}

#[inline(always)]
fn un_in<F: Native>(op: FUnOp, a: u64, kind: FloatKind) -> u64 {
    let sign = sign_bit(kind);
    match op {
        FUnOp::Neg => a ^ sign,
        FUnOp::Abs => a & !sign,
        FUnOp::Sqrt if is_nan(a, kind) => quiet(a, kind),
        FUnOp::Sqrt => {
            let r = F::of(a).sqrt_value();
            if r.is_nan_value() {
                default_nan(kind)
            } else {
                r.bits()
            }
        }
    }
}

/// Computes `op a` on a bit pattern of format `kind`.
#[inline(always)]
pub fn fun(op: FUnOp, a: u64, kind: FloatKind) -> u64 {
    match kind {
        FloatKind::F32 => un_in::<f32>(op, a, kind),
        FloatKind::F64 => un_in::<f64>(op, a, kind),
    }
}

/// The host C library's functions, once per format (`f32` calls the `float` forms, `expf`).
trait Libm: Sized {
    fn lib(f: MathFn, x: Self, y: Self) -> Self;
}

// `cbrt` by another of glibc's names: the Rust runtime brings its own `cbrt`, which a plain
// declaration binds to, and which differs from glibc's in the last bit.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
unsafe extern "C" {
    #[link_name = "cbrtf64"]
    safe fn cbrt(x: f64) -> f64;
    #[link_name = "cbrtf32"]
    safe fn cbrtf(x: f32) -> f32;
}
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
unsafe extern "C" {
    safe fn cbrt(x: f64) -> f64;
    safe fn cbrtf(x: f32) -> f32;
}

unsafe extern "C" {
    // The C library's functions themselves: Rust's own `f64::acosh` and friends are computed
    // in Rust and differ from the C library in the last bit and in NaN signs.
    safe fn floor(x: f64) -> f64;
    safe fn floorf(x: f32) -> f32;
    safe fn ceil(x: f64) -> f64;
    safe fn ceilf(x: f32) -> f32;
    safe fn round(x: f64) -> f64;
    safe fn roundf(x: f32) -> f32;
    safe fn rint(x: f64) -> f64;
    safe fn rintf(x: f32) -> f32;
    safe fn trunc(x: f64) -> f64;
    safe fn truncf(x: f32) -> f32;
    safe fn exp(x: f64) -> f64;
    safe fn expf(x: f32) -> f32;
    safe fn exp2(x: f64) -> f64;
    safe fn exp2f(x: f32) -> f32;
    safe fn expm1(x: f64) -> f64;
    safe fn expm1f(x: f32) -> f32;
    safe fn log(x: f64) -> f64;
    safe fn logf(x: f32) -> f32;
    safe fn log2(x: f64) -> f64;
    safe fn log2f(x: f32) -> f32;
    safe fn log10(x: f64) -> f64;
    safe fn log10f(x: f32) -> f32;
    safe fn log1p(x: f64) -> f64;
    safe fn log1pf(x: f32) -> f32;
    safe fn sin(x: f64) -> f64;
    safe fn sinf(x: f32) -> f32;
    safe fn cos(x: f64) -> f64;
    safe fn cosf(x: f32) -> f32;
    safe fn tan(x: f64) -> f64;
    safe fn tanf(x: f32) -> f32;
    safe fn asin(x: f64) -> f64;
    safe fn asinf(x: f32) -> f32;
    safe fn acos(x: f64) -> f64;
    safe fn acosf(x: f32) -> f32;
    safe fn atan(x: f64) -> f64;
    safe fn atanf(x: f32) -> f32;
    safe fn sinh(x: f64) -> f64;
    safe fn sinhf(x: f32) -> f32;
    safe fn cosh(x: f64) -> f64;
    safe fn coshf(x: f32) -> f32;
    safe fn tanh(x: f64) -> f64;
    safe fn tanhf(x: f32) -> f32;
    safe fn asinh(x: f64) -> f64;
    safe fn asinhf(x: f32) -> f32;
    safe fn acosh(x: f64) -> f64;
    safe fn acoshf(x: f32) -> f32;
    safe fn atanh(x: f64) -> f64;
    safe fn atanhf(x: f32) -> f32;
    safe fn erf(x: f64) -> f64;
    safe fn erff(x: f32) -> f32;
    safe fn erfc(x: f64) -> f64;
    safe fn erfcf(x: f32) -> f32;
    safe fn pow(x: f64, y: f64) -> f64;
    safe fn powf(x: f32, y: f32) -> f32;
    safe fn atan2(x: f64, y: f64) -> f64;
    safe fn atan2f(x: f32, y: f32) -> f32;
}

impl Libm for f32 {
    fn lib(f: MathFn, x: Self, y: Self) -> Self {
        match f {
            MathFn::Floor => floorf(x),
            MathFn::Ceil => ceilf(x),
            MathFn::Round => roundf(x),
            MathFn::RoundEven => rintf(x),
            MathFn::Trunc => truncf(x),
            MathFn::Exp => expf(x),
            MathFn::Exp2 => exp2f(x),
            MathFn::Expm1 => expm1f(x),
            MathFn::Log => logf(x),
            MathFn::Log2 => log2f(x),
            MathFn::Log10 => log10f(x),
            MathFn::Log1p => log1pf(x),
            MathFn::Sin => sinf(x),
            MathFn::Cos => cosf(x),
            MathFn::Tan => tanf(x),
            MathFn::Asin => asinf(x),
            MathFn::Acos => acosf(x),
            MathFn::Atan => atanf(x),
            MathFn::Sinh => sinhf(x),
            MathFn::Cosh => coshf(x),
            MathFn::Tanh => tanhf(x),
            MathFn::Asinh => asinhf(x),
            MathFn::Acosh => acoshf(x),
            MathFn::Atanh => atanhf(x),
            MathFn::Cbrt => cbrtf(x),
            MathFn::Erf => erff(x),
            MathFn::Erfc => erfcf(x),
            MathFn::Pow => powf(x, y),
            MathFn::Atan2 => atan2f(x, y),
        }
    }
}

impl Libm for f64 {
    fn lib(f: MathFn, x: Self, y: Self) -> Self {
        match f {
            MathFn::Floor => floor(x),
            MathFn::Ceil => ceil(x),
            MathFn::Round => round(x),
            MathFn::RoundEven => rint(x),
            MathFn::Trunc => trunc(x),
            MathFn::Exp => exp(x),
            MathFn::Exp2 => exp2(x),
            MathFn::Expm1 => expm1(x),
            MathFn::Log => log(x),
            MathFn::Log2 => log2(x),
            MathFn::Log10 => log10(x),
            MathFn::Log1p => log1p(x),
            MathFn::Sin => sin(x),
            MathFn::Cos => cos(x),
            MathFn::Tan => tan(x),
            MathFn::Asin => asin(x),
            MathFn::Acos => acos(x),
            MathFn::Atan => atan(x),
            MathFn::Sinh => sinh(x),
            MathFn::Cosh => cosh(x),
            MathFn::Tanh => tanh(x),
            MathFn::Asinh => asinh(x),
            MathFn::Acosh => acosh(x),
            MathFn::Atanh => atanh(x),
            MathFn::Cbrt => cbrt(x),
            MathFn::Erf => erf(x),
            MathFn::Erfc => erfc(x),
            MathFn::Pow => pow(x, y),
            MathFn::Atan2 => atan2(x, y),
        }
    }
}

#[inline(always)]
fn math_in<F: Native + Libm>(f: MathFn, a: u64, b: u64, kind: FloatKind) -> u64 {
    if f.exact() && is_nan(a, kind) {
        // The compiler turns `floor` and its kin into a rounding instruction that keeps a
        // signaling NaN as it is; the C library quiets it.
        return quiet(a, kind);
    }
    F::lib(f, F::of(a), F::of(b)).bits()
}

/// Computes the `<math.h>` function `f` of `a` (and `b` for the two-operand ones; ignored
/// otherwise) on bit patterns of format `kind`: the host C library's result as it is, NaN
/// results included (which NaN an invalid operation gives differs between the library's
/// functions: glibc's `asinf(inf)` is `+nan`, its `log(-1)` is `-nan`), so bit for bit what
/// native C gives on the same host.
pub fn fmath(f: MathFn, a: u64, b: u64, kind: FloatKind) -> u64 {
    match kind {
        FloatKind::F32 => math_in::<f32>(f, a, b, kind),
        FloatKind::F64 => math_in::<f64>(f, a, b, kind),
    }
}

#[inline(always)]
fn cmp_in<F: Native>(pred: FloatPredicate, a: u64, b: u64) -> bool {
    let (x, y) = (F::of(a), F::of(b));
    let uno = x.is_nan_value() || y.is_nan_value();
    match pred {
        FloatPredicate::False => false,
        FloatPredicate::Oeq => x == y,
        FloatPredicate::Ogt => x > y,
        FloatPredicate::Oge => x >= y,
        FloatPredicate::Olt => x < y,
        FloatPredicate::Ole => x <= y,
        FloatPredicate::One => !uno && x != y,
        FloatPredicate::Ord => !uno,
        FloatPredicate::Ueq => uno || x == y,
        FloatPredicate::Ugt => uno || x > y,
        FloatPredicate::Uge => uno || x >= y,
        FloatPredicate::Ult => uno || x < y,
        FloatPredicate::Ule => uno || x <= y,
        FloatPredicate::Une => uno || x != y,
        FloatPredicate::Uno => uno,
        FloatPredicate::True => true,
    }
}

/// Evaluates an `arith.cmpf` predicate; returns 0 or 1.
#[inline(always)]
pub fn fcmp(pred: FloatPredicate, a: u64, b: u64, kind: FloatKind) -> u64 {
    u64::from(match kind {
        FloatKind::F32 => cmp_in::<f32>(pred, a, b),
        FloatKind::F64 => cmp_in::<f64>(pred, a, b),
    })
}

/// Float to integer of `to` bits: `x` truncated if it fits, else the pattern with only the top
/// bit set.
fn to_int<F: Native>(a: u64, to: u32, signed: bool) -> u64 {
    let x = F::of(a);
    let indefinite = if to == 0 { 0 } else { 1u64 << (to - 1) };
    if x.is_nan_value() {
        return indefinite;
    }
    let t = x.trunc_value();
    // 2^to and 2^(to-1) are exact in f64 for every width up to 64.
    let (lo, hi) = if signed {
        let h = if to == 0 {
            0.0
        } else {
            (2f64).powi(to as i32 - 1)
        };
        (-h, h)
    } else {
        (0.0, (2f64).powi(to as i32))
    };
    if !(t >= lo && t < hi) {
        return indefinite;
    }
    let v = if signed { t as i64 as u64 } else { t as u64 };
    v & width_mask(to)
}

/// Integer of `from` bits to a float, rounded to nearest even.
fn from_int(a: u64, from: u32, signed: bool, kind: FloatKind) -> u64 {
    match (kind, signed) {
        (FloatKind::F32, true) => u64::from((sext(a, from) as f32).to_bits()),
        (FloatKind::F32, false) => u64::from(((a & width_mask(from)) as f32).to_bits()),
        (FloatKind::F64, true) => (sext(a, from) as f64).to_bits(),
        (FloatKind::F64, false) => ((a & width_mask(from)) as f64).to_bits(),
    }
}

/// `f32` to `f64`: exact; a NaN keeps its sign and payload (shifted to the top), quieted.
fn extend(a: u64) -> u64 {
    if is_nan(a, FloatKind::F32) {
        let sign = (a >> 31) << 63;
        sign | 0x7ff0_0000_0000_0000 | ((a & 0x007f_ffff) << 29) | quiet_bit(FloatKind::F64)
    } else {
        f64::from(f32::from_bits(a as u32)).to_bits()
    }
}

/// `f64` to `f32`, rounded to nearest even; a NaN keeps its sign and the top 22 payload bits,
/// quieted.
fn truncate(a: u64) -> u64 {
    if is_nan(a, FloatKind::F64) {
        let sign = (a >> 63) << 31;
        sign | 0x7f80_0000 | ((a & 0x000f_ffff_ffff_ffff) >> 29) | quiet_bit(FloatKind::F32)
    } else {
        u64::from((f64::from_bits(a) as f32).to_bits())
    }
}

/// Converts `a` of `from` bits to `to` bits. For the int/float conversions the float side's
/// width (32 or 64) names its format; `Ext` is `f32` to `f64`, `Trunc` `f64` to `f32`.
pub fn fconv(conv: FConv, a: u64, from: u32, to: u32) -> u64 {
    let kind = |w: u32| FloatKind::from_bits(w).unwrap_or(FloatKind::F64);
    match conv {
        FConv::SiToFp => from_int(a, from, true, kind(to)),
        FConv::UiToFp => from_int(a, from, false, kind(to)),
        FConv::FpToSi | FConv::FpToUi => {
            let signed = conv == FConv::FpToSi;
            match kind(from) {
                FloatKind::F32 => to_int::<f32>(a, to, signed),
                FloatKind::F64 => to_int::<f64>(a, to, signed),
            }
        }
        FConv::Ext => extend(a),
        FConv::Trunc => truncate(a),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const F32: FloatKind = FloatKind::F32;
    const F64: FloatKind = FloatKind::F64;

    fn s(x: f32) -> u64 {
        u64::from(x.to_bits())
    }

    #[test]
    fn nan_rules() {
        let (qa, qb, sa) = (0x7fc0_0001, 0xffc0_0002, 0x7f80_0003);
        assert_eq!(fbin(FBinOp::Add, qa, qb, F32), qa);
        assert_eq!(fbin(FBinOp::Add, qb, qa, F32), qb);
        assert_eq!(fbin(FBinOp::Mul, s(1.0), sa, F32), 0x7fc0_0003);
        assert_eq!(
            fbin(FBinOp::Sub, s(f32::INFINITY), s(f32::INFINITY), F32),
            0xffc0_0000
        );
        assert_eq!(fbin(FBinOp::Div, s(0.0), s(0.0), F32), 0xffc0_0000);
        assert_eq!(fbin(FBinOp::Rem, s(1.0), s(0.0), F32), 0xffc0_0000);
        assert_eq!(fun(FUnOp::Sqrt, s(-1.0), F32), 0xffc0_0000);
        assert_eq!(fun(FUnOp::Sqrt, s(-0.0), F32), s(-0.0));
        assert_eq!(fun(FUnOp::Neg, qa, F32), 0xffc0_0001);
        assert_eq!(fbin(FBinOp::CopySign, qa, s(-1.0), F32), 0xffc0_0001);
        // fmin/fmax (glibc).
        assert_eq!(fbin(FBinOp::MinNum, qa, s(1.0), F32), s(1.0));
        assert_eq!(fbin(FBinOp::MinNum, sa, s(1.0), F32), 0x7fc0_0003);
        assert_eq!(fbin(FBinOp::MinNum, qa, qb, F32), qb);
        assert_eq!(fbin(FBinOp::MinNum, s(0.0), s(-0.0), F32), s(0.0));
        assert_eq!(fbin(FBinOp::MaxNum, s(-0.0), s(0.0), F32), s(-0.0));
        // maximum/minimum.
        assert_eq!(fbin(FBinOp::Maximum, s(-0.0), s(0.0), F32), s(0.0));
        assert_eq!(fbin(FBinOp::Minimum, s(0.0), s(-0.0), F32), s(-0.0));
        assert_eq!(fbin(FBinOp::Maximum, s(1.0), sa, F32), 0x7fc0_0003);
        // Division by zero gives the IEEE infinity.
        assert_eq!(
            fbin(FBinOp::Div, s(-1.0), s(0.0), F32),
            s(f32::NEG_INFINITY)
        );
        assert!(is_zero(s(-0.0), F32) && !is_zero(1, F32));
    }

    #[test]
    fn float_op_matches_the_class() {
        for &(op, _) in crate::ops::ArithOp::SIMPLE {
            assert_eq!(FloatOp::of(op).is_some(), op.class().is_float(), "{op:?}");
        }
    }

    #[test]
    fn conversions() {
        assert_eq!(
            fconv(FConv::Ext, 0x7f80_0003, 32, 64),
            0x7ff8_0000_6000_0000
        );
        assert_eq!(
            fconv(FConv::Ext, 0xffc0_0002, 32, 64),
            0xfff8_0000_4000_0000
        );
        assert_eq!(
            fconv(FConv::Trunc, 0x7ff0_0000_0000_0005, 64, 32),
            0x7fc0_0000
        );
        assert_eq!(fconv(FConv::Trunc, 1.1f64.to_bits(), 64, 32), s(1.1));
        assert_eq!(fconv(FConv::FpToSi, s(3e9), 32, 32), 0x8000_0000);
        assert_eq!(
            fconv(FConv::FpToSi, s(-2.7), 32, 32),
            (-2i64 as u64) & 0xffff_ffff
        );
        assert_eq!(fconv(FConv::FpToSi, 0x7fc0_0000, 32, 64), 1 << 63);
        assert_eq!(fconv(FConv::FpToSi, s(-2147483648.0), 32, 32), 0x8000_0000);
        assert_eq!(fconv(FConv::FpToUi, s(3e9), 32, 32), 3_000_000_000);
        assert_eq!(fconv(FConv::FpToUi, s(-0.9), 32, 32), 0);
        assert_eq!(fconv(FConv::FpToUi, s(-1.0), 32, 32), 0x8000_0000);
        assert_eq!(fconv(FConv::FpToSi, s(1.5), 32, 1), 0x1);
        assert_eq!(fconv(FConv::FpToSi, s(-1.5), 32, 1), 0x1);
        assert_eq!(fconv(FConv::SiToFp, 0xff, 8, 32), s(-1.0));
        assert_eq!(fconv(FConv::UiToFp, 0xff, 8, 32), s(255.0));
        assert_eq!(
            fconv(FConv::UiToFp, u64::MAX, 64, 32),
            s(18446744073709551616.0)
        );
        assert_eq!(
            fconv(FConv::SiToFp, 1 << 63, 64, 64),
            (-9223372036854775808.0f64).to_bits()
        );
        assert_eq!(fcmp(FloatPredicate::Ult, 0x7fc0_0000, s(1.0), F32), 1);
        assert_eq!(fcmp(FloatPredicate::Olt, 0x7fc0_0000, s(1.0), F32), 0);
        assert_eq!(fcmp(FloatPredicate::Oeq, s(0.0), s(-0.0), F32), 1);
        assert_eq!(
            fcmp(FloatPredicate::One, 1.0f64.to_bits(), 2.0f64.to_bits(), F64),
            1
        );
    }
}
