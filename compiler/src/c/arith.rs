//! Exact fixed-width integer semantics of the IR operations (shared by the interpreter and
//! constant folding). Values are carried as `u64` bit patterns masked to their width.

use super::ir::{BinaryOp, CastOp, CmpPred};

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

/// Evaluates a binary op at width `bits` on masked operands; result is masked.
pub fn binary(op: BinaryOp, bits: u32, a: u64, b: u64) -> Result<u64, ArithError> {
    let m = mask(bits);
    let (sa, sb) = (sext(a, bits), sext(b, bits));
    let r = match op {
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
    }
}

/// Evaluates a width conversion from `from` bits to `to` bits.
pub fn cast(op: CastOp, from: u32, to: u32, v: u64) -> u64 {
    match op {
        CastOp::ExtSI => (sext(v, from) as u64) & mask(to),
        CastOp::ExtUI | CastOp::TruncI => v & mask(to),
    }
}
