//! Exact semantics of the IR operations (shared by the interpreter and constant folding):
//! fixed-width integers here, IEEE-754 floats through the engine's own computations
//! (`handscope_sim::engine::float_arith`), so the interpreter, constant folding and the
//! simulated circuit agree bit for bit, NaNs included. Values are carried as `u64` bit
//! patterns masked to their width.

use super::ir::{BinaryOp, CastOp, CmpPred};
use handscope_sim::FloatKind;
use handscope_sim::engine::float_arith::{FBinOp, FConv, fbin, fcmp, fconv};

/// The float format `bits` wide (the IR only has `f32` and `f64`).
fn kind(bits: u32) -> FloatKind {
    FloatKind::from_bits(bits).unwrap_or(FloatKind::F64)
}

/// Mask with the low `bits` bits set.
pub fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Sign-extends the low `bits` bits of `v`.
pub fn sext(v: u64, bits: u32) -> i64 {
    if bits == 0 || bits >= 64 {
        return v as i64;
    }
    let sh = 64 - bits;
    ((v << sh) as i64) >> sh
}

/// Why an operation has no defined result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArithError {
    /// Division or remainder by zero.
    DivByZero,
    /// Signed division overflow (`MIN / -1`).
    Overflow,
    /// Shift amount not smaller than the width.
    ShiftTooLarge,
}

impl std::fmt::Display for ArithError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ArithError::DivByZero => "division by zero",
            ArithError::Overflow => "signed division overflow",
            ArithError::ShiftTooLarge => "shift amount too large",
        })
    }
}

/// Evaluates a binary op at width `bits` on masked operands; result is masked. A float
/// operation never fails (a float division by zero has its IEEE result).
pub fn binary(op: BinaryOp, bits: u32, a: u64, b: u64) -> Result<u64, ArithError> {
    let m = mask(bits);
    let (sa, sb) = (sext(a, bits), sext(b, bits));
    let float = |f: FBinOp| Ok(fbin(f, a, b, kind(bits)) & m);
    let r = match op {
        BinaryOp::AddF => return float(FBinOp::Add),
        BinaryOp::SubF => return float(FBinOp::Sub),
        BinaryOp::MulF => return float(FBinOp::Mul),
        BinaryOp::DivF => return float(FBinOp::Div),
        BinaryOp::MaxNumF => return float(FBinOp::MaxNum),
        BinaryOp::MinNumF => return float(FBinOp::MinNum),
        BinaryOp::CopySign => return float(FBinOp::CopySign),
        BinaryOp::AddI => a.wrapping_add(b),
        BinaryOp::SubI => a.wrapping_sub(b),
        BinaryOp::MulI => a.wrapping_mul(b),
        BinaryOp::AndI => a & b,
        BinaryOp::OrI => a | b,
        BinaryOp::XOrI => a ^ b,
        BinaryOp::DivUI | BinaryOp::RemUI if b == 0 => return Err(ArithError::DivByZero),
        BinaryOp::DivSI | BinaryOp::RemSI if b == 0 => return Err(ArithError::DivByZero),
        BinaryOp::DivUI => a / b,
        BinaryOp::RemUI => a % b,
        BinaryOp::DivSI | BinaryOp::RemSI => {
            let min = sext(1u64 << (bits - 1), bits);
            if sa == min && sb == -1 {
                return Err(ArithError::Overflow);
            }
            if op == BinaryOp::DivSI {
                (sa / sb) as u64
            } else {
                (sa % sb) as u64
            }
        }
        BinaryOp::ShLI | BinaryOp::ShRSI | BinaryOp::ShRUI => {
            if b >= bits as u64 {
                return Err(ArithError::ShiftTooLarge);
            }
            match op {
                BinaryOp::ShLI => a << b,
                BinaryOp::ShRUI => a >> b,
                _ => (sa >> b) as u64,
            }
        }
    };
    Ok(r & m)
}

/// Evaluates a comparison at width `bits`.
pub fn compare(pred: CmpPred, bits: u32, a: u64, b: u64) -> bool {
    let (sa, sb) = (sext(a, bits), sext(b, bits));
    match pred {
        CmpPred::Eq => a == b,
        CmpPred::Ne => a != b,
        CmpPred::Slt => sa < sb,
        CmpPred::Sle => sa <= sb,
        CmpPred::Sgt => sa > sb,
        CmpPred::Sge => sa >= sb,
        CmpPred::Ult => a < b,
        CmpPred::Ule => a <= b,
        CmpPred::Ugt => a > b,
        CmpPred::Uge => a >= b,
        CmpPred::Float(p) => fcmp(p, a, b, kind(bits)) != 0,
    }
}

/// Evaluates a conversion from `from` bits to `to` bits (for the float conversions the
/// float side's width names its format).
pub fn cast(op: CastOp, from: u32, to: u32, v: u64) -> u64 {
    let conv = |c: FConv| fconv(c, v & mask(from), from, to) & mask(to);
    match op {
        CastOp::ExtSI => (sext(v, from) as u64) & mask(to),
        CastOp::ExtUI | CastOp::TruncI => v & mask(to),
        CastOp::SIToFP => conv(FConv::SiToFp),
        CastOp::UIToFP => conv(FConv::UiToFp),
        CastOp::FPToSI => conv(FConv::FpToSi),
        CastOp::FPToUI => conv(FConv::FpToUi),
        CastOp::ExtF => conv(FConv::Ext),
        CastOp::TruncF => conv(FConv::Trunc),
    }
}

/// Evaluates a one-operand float operation on a value of `bits` bits.
pub fn unary(op: super::ir::UnaryOp, bits: u32, v: u64) -> u64 {
    use handscope_sim::engine::float_arith::{FUnOp, fun};
    let f = match op {
        super::ir::UnaryOp::NegF => FUnOp::Neg,
        super::ir::UnaryOp::AbsF => FUnOp::Abs,
        super::ir::UnaryOp::Sqrt => FUnOp::Sqrt,
    };
    fun(f, v & mask(bits), kind(bits)) & mask(bits)
}
