//! Exact semantics of the IR operations (shared by the interpreter and constant folding):
//! fixed-width integers here, IEEE-754 floats through the engine's own computations
//! (`handscope_sim::engine::float_arith`), so the interpreter, constant folding and the
//! simulated circuit agree bit for bit, NaNs included. Values are carried as `u64` *words*:
//! the bit pattern masked to its width for at most 64 bits, a wide word
//! ([`handscope_sim::wide`]) for wider integers, whose operations go to the engine's own
//! `wide_arith` (so they too agree with the circuit).

use super::ir::{BinaryOp, CastOp, CmpPred};
use handscope_sim::engine::arith::{BinOp as WBin, CastKind};
use handscope_sim::engine::float_arith::{FBinOp, FConv, fbin, fcmp, fconv};
use handscope_sim::engine::wide_arith;
use handscope_sim::{FloatKind, wide};

/// True when values of `bits` bits are wide words.
#[inline]
pub fn is_wide(bits: u32) -> bool {
    bits > 64
}

/// The word of the integer `v` at `bits` bits (two's complement modulo 2^bits).
pub fn word_of_i128(v: i128, bits: u32) -> u64 {
    if !is_wide(bits) {
        return (v as u64) & mask(bits);
    }
    if (0..1i128 << 63).contains(&v) {
        return v as u64;
    }
    let fill = if v < 0 { u64::MAX } else { 0 };
    let mut limbs = vec![fill; wide::limb_count(bits)];
    limbs[0] = v as u64;
    if limbs.len() > 1 {
        limbs[1] = (v >> 64) as u64;
    }
    wide::from_limbs(&limbs, bits)
}

/// The word of the integer `v` at `bits` bits (two's complement modulo 2^bits).
pub fn word_of_i64(v: i64, bits: u32) -> u64 {
    word_of_i128(i128::from(v), bits)
}

/// The word of a constant as the IR's [`super::ir::InstKind::Const`] and the constant
/// evaluator hold it: the value's low bits for at most 64 bits, the wide word reinterpreted
/// as `i64` for wider values.
#[inline]
pub fn const_word(value: i64, bits: u32) -> u64 {
    if is_wide(bits) {
        value as u64
    } else {
        value as u64 & mask(bits)
    }
}

/// The inverse of [`const_word`]: a narrow word sign-extended, a wide word as it is.
#[inline]
pub fn word_const(word: u64, bits: u32) -> i64 {
    if is_wide(bits) {
        word as i64
    } else {
        sext(word, bits)
    }
}

/// The low 64 bits of the value of a word of `bits` bits.
pub fn low_u64(word: u64, bits: u32) -> u64 {
    if is_wide(bits) {
        wide::to_limbs(word, bits)[0]
    } else {
        word
    }
}

/// The word with every one of the `bits` bits set (`-1`).
pub fn all_ones(bits: u32) -> u64 {
    word_of_i64(-1, bits)
}

/// `-w` at `bits` bits (wrapping).
pub fn negate(w: u64, bits: u32) -> u64 {
    binary(BinaryOp::SubI, bits, 0, w).unwrap_or(0)
}

/// `~w` at `bits` bits.
pub fn bit_not(w: u64, bits: u32) -> u64 {
    binary(BinaryOp::XOrI, bits, w, all_ones(bits)).unwrap_or(0)
}

/// The engine operation of an integer IR operation.
fn wide_op(op: BinaryOp) -> Option<WBin> {
    Some(match op {
        BinaryOp::AddI => WBin::Add,
        BinaryOp::SubI => WBin::Sub,
        BinaryOp::MulI => WBin::Mul,
        BinaryOp::DivSI => WBin::DivS,
        BinaryOp::DivUI => WBin::DivU,
        BinaryOp::RemSI => WBin::RemS,
        BinaryOp::RemUI => WBin::RemU,
        BinaryOp::AndI => WBin::And,
        BinaryOp::OrI => WBin::Or,
        BinaryOp::XOrI => WBin::Xor,
        BinaryOp::ShLI => WBin::Shl,
        BinaryOp::ShRSI => WBin::ShrS,
        BinaryOp::ShRUI => WBin::ShrU,
        _ => return None,
    })
}

/// [`binary`] on wide words (`bits > 64`; only integer operations exist at such widths).
fn binary_wide(op: BinaryOp, bits: u32, a: u64, b: u64) -> Result<u64, ArithError> {
    let Some(w) = wide_op(op) else {
        return Ok(0);
    };
    match op {
        BinaryOp::DivUI | BinaryOp::RemUI | BinaryOp::DivSI | BinaryOp::RemSI if b == 0 => {
            return Err(ArithError::DivByZero);
        }
        BinaryOp::DivSI | BinaryOp::RemSI => {
            let mut min = vec![0u64; wide::limb_count(bits)];
            min[(bits as usize - 1) / 64] = 1 << ((bits - 1) % 64);
            if a == wide::from_limbs(&min, bits) && b == all_ones(bits) {
                return Err(ArithError::Overflow);
            }
        }
        // A word with the handle flag is a value of at least 2^63, beyond any width.
        BinaryOp::ShLI | BinaryOp::ShRSI | BinaryOp::ShRUI
            if b >= 1 << 63 || b >= u64::from(bits) =>
        {
            return Err(ArithError::ShiftTooLarge);
        }
        _ => {}
    }
    Ok(wide_arith::bin(w, a, b, bits))
}

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
    if is_wide(bits) {
        return binary_wide(op, bits, a, b);
    }
    let m = mask(bits);
    let (sa, sb) = (sext(a, bits), sext(b, bits));
    let float = |f: FBinOp| Ok(fbin(f, a, b, kind(bits)) & m);
    let r = match op {
        BinaryOp::AddF => return float(FBinOp::Add),
        BinaryOp::SubF => return float(FBinOp::Sub),
        BinaryOp::MulF => return float(FBinOp::Mul),
        BinaryOp::DivF => return float(FBinOp::Div),
        BinaryOp::RemF => return float(FBinOp::Rem),
        BinaryOp::MaxNumF => return float(FBinOp::MaxNum),
        BinaryOp::MinNumF => return float(FBinOp::MinNum),
        BinaryOp::CopySign => return float(FBinOp::CopySign),
        BinaryOp::Math(f) => {
            use handscope_sim::engine::float_arith::fmath;
            return Ok(fmath(f, a, b, kind(bits)) & m);
        }
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
    if is_wide(bits) {
        // No float is wider than 64 bits.
        return pred
            .predicate()
            .is_ok_and(|p| wide_arith::cmp(p, a, b, bits) != 0);
    }
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
/// float side's width names its format). Conversions between floats and integers wider
/// than 64 bits are not in the IR (the front end rejects them); they give 0.
pub fn cast(op: CastOp, from: u32, to: u32, v: u64) -> u64 {
    if is_wide(from) || is_wide(to) {
        let kind = match op {
            CastOp::ExtSI => CastKind::Sext,
            CastOp::ExtUI => CastKind::Zext,
            CastOp::TruncI => CastKind::Trunc,
            _ => return 0,
        };
        return wide_arith::cast(kind, v, from, to);
    }
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
    if let super::ir::UnaryOp::Math(f) = op {
        let a = v & mask(bits);
        return handscope_sim::engine::float_arith::fmath(f, a, a, kind(bits)) & mask(bits);
    }
    let f = match op {
        super::ir::UnaryOp::NegF => FUnOp::Neg,
        super::ir::UnaryOp::AbsF => FUnOp::Abs,
        super::ir::UnaryOp::Sqrt => FUnOp::Sqrt,
        super::ir::UnaryOp::Math(_) => unreachable!("returned above"),
    };
    fun(f, v & mask(bits), kind(bits)) & mask(bits)
}
