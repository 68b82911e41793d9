//! Two's-complement integer arithmetic at every width 0..=64, as CIRCT's `comb` lowering
//! computes it.
//!
//! Values are carried as `u64` bit patterns whose bits above the channel width are zero.
//! Conventions (matching the SystemVerilog that `lower-handshake-to-hw` exports):
//! * every result is masked to its width; width 0 always yields 0;
//! * signed operations sign-extend their operands from the operand width;
//! * `shli`/`shrui` by an amount `>= width` give 0 (Verilog `<<`/`>>`), `shrsi` by such an
//!   amount gives the sign fill (Verilog `>>>`); the shift amount is the unsigned operand;
//! * division and remainder by zero give 0 (the engine reports a runtime event);
//!   `INT_MIN / -1` wraps to `INT_MIN`, `INT_MIN % -1` is 0; remainders take the dividend's sign.

use crate::ops::CmpPredicate;
use crate::types::width_mask;

/// Sign-extends the low `width` bits of `x` to 64 bits (width 0 gives 0).
#[inline(always)]
pub fn sext(x: u64, width: u32) -> i64 {
    if width == 0 {
        0
    } else if width >= 64 {
        x as i64
    } else {
        let sh = 64 - width;
        ((x << sh) as i64) >> sh
    }
}

/// Binary integer operations with one result of the operand width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// wrapping add
    Add,
    /// wrapping subtract
    Sub,
    /// wrapping multiply
    Mul,
    /// signed divide
    DivS,
    /// unsigned divide
    DivU,
    /// signed remainder
    RemS,
    /// unsigned remainder
    RemU,
    /// and
    And,
    /// or
    Or,
    /// xor
    Xor,
    /// shift left
    Shl,
    /// arithmetic shift right
    ShrS,
    /// logical shift right
    ShrU,
    /// signed maximum
    MaxS,
    /// signed minimum
    MinS,
    /// unsigned maximum
    MaxU,
    /// unsigned minimum
    MinU,
}

impl BinOp {
    /// The computation of an integer binary `arith` op (class
    /// [`ArithClass::Binary`](crate::ops::ArithClass::Binary)); `None` for every other op.
    pub fn of(op: crate::ops::ArithOp) -> Option<BinOp> {
        use crate::ops::ArithOp as A;
        Some(match op {
            A::Addi => BinOp::Add,
            A::Subi => BinOp::Sub,
            A::Muli => BinOp::Mul,
            A::Divsi => BinOp::DivS,
            A::Divui => BinOp::DivU,
            A::Remsi => BinOp::RemS,
            A::Remui => BinOp::RemU,
            A::Andi => BinOp::And,
            A::Ori => BinOp::Or,
            A::Xori => BinOp::Xor,
            A::Shli => BinOp::Shl,
            A::Shrsi => BinOp::ShrS,
            A::Shrui => BinOp::ShrU,
            A::Maxsi => BinOp::MaxS,
            A::Minsi => BinOp::MinS,
            A::Maxui => BinOp::MaxU,
            A::Minui => BinOp::MinU,
            _ => return None,
        })
    }
}

/// Computes `a op b` at `width` bits. Operands must already be masked to `width`.
#[inline(always)]
pub fn bin(op: BinOp, a: u64, b: u64, width: u32) -> u64 {
    let m = width_mask(width);
    let r = match op {
        BinOp::Add => a.wrapping_add(b),
        BinOp::Sub => a.wrapping_sub(b),
        BinOp::Mul => a.wrapping_mul(b),
        BinOp::And => a & b,
        BinOp::Or => a | b,
        BinOp::Xor => a ^ b,
        BinOp::DivU => a.checked_div(b).unwrap_or(0),
        BinOp::RemU => a.checked_rem(b).unwrap_or(0),
        BinOp::DivS => {
            let (x, y) = (sext(a, width), sext(b, width));
            if y == 0 { 0 } else { x.wrapping_div(y) as u64 }
        }
        BinOp::RemS => {
            let (x, y) = (sext(a, width), sext(b, width));
            if y == 0 { 0 } else { x.wrapping_rem(y) as u64 }
        }
        BinOp::Shl => {
            if b >= u64::from(width) {
                0
            } else {
                a << b
            }
        }
        BinOp::ShrU => {
            if b >= u64::from(width) {
                0
            } else {
                a >> b
            }
        }
        BinOp::ShrS => {
            let x = sext(a, width);
            if b >= u64::from(width) {
                (x >> 63) as u64
            } else {
                (x >> b) as u64
            }
        }
        BinOp::MaxS => sext(a, width).max(sext(b, width)) as u64,
        BinOp::MinS => sext(a, width).min(sext(b, width)) as u64,
        BinOp::MaxU => a.max(b),
        BinOp::MinU => a.min(b),
    };
    r & m
}

/// Evaluates an `arith.cmpi` predicate on operands of `width` bits; returns 0 or 1.
#[inline(always)]
pub fn cmp(pred: CmpPredicate, a: u64, b: u64, width: u32) -> u64 {
    let (x, y) = (sext(a, width), sext(b, width));
    let r = match pred {
        CmpPredicate::Eq => a == b,
        CmpPredicate::Ne => a != b,
        CmpPredicate::Slt => x < y,
        CmpPredicate::Sle => x <= y,
        CmpPredicate::Sgt => x > y,
        CmpPredicate::Sge => x >= y,
        CmpPredicate::Ult => a < b,
        CmpPredicate::Ule => a <= b,
        CmpPredicate::Ugt => a > b,
        CmpPredicate::Uge => a >= b,
    };
    u64::from(r)
}

/// Width-changing casts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CastKind {
    /// Sign extension (`extsi`, widening `index_cast`).
    Sext,
    /// Zero extension (`extui`).
    Zext,
    /// Truncation (`trunci`, narrowing `index_cast`).
    Trunc,
    /// Every bit inverted, same width (Dynamatic's `noti`).
    Not,
}

impl CastKind {
    /// The width cast `op` is, from `from` to `to` bits (`index_cast` extends or truncates
    /// by the widths); `None` for every other op.
    pub fn of(op: crate::ops::ArithOp, from: u32, to: u32) -> Option<CastKind> {
        use crate::ops::ArithOp as A;
        Some(match op {
            A::Extsi => CastKind::Sext,
            A::Extui => CastKind::Zext,
            A::Trunci => CastKind::Trunc,
            A::Noti => CastKind::Not,
            A::IndexCast if to < from => CastKind::Trunc,
            A::IndexCast => CastKind::Sext,
            _ => return None,
        })
    }
}

/// The value `op` computes from `args` (words), the first operand `from` bits wide, the
/// result `to` bits wide: the engine's arithmetic for one operation at a time (words of at
/// most 64 bits), as static islands and the stream interpreter evaluate it.
pub fn apply(op: crate::ops::ArithOp, args: &[u64], from: u32, to: u32) -> u64 {
    use super::float_arith::{self, FloatOp};
    use crate::types::FloatKind;
    let a = args.first().copied().unwrap_or(0);
    let b = args.get(1).copied().unwrap_or(a);
    let kind = |w: u32| FloatKind::from_bits(w).unwrap_or(FloatKind::F32);
    if let Some(o) = BinOp::of(op) {
        return bin(o, a, b, to);
    }
    if let Some(k) = CastKind::of(op, from, to) {
        return cast(k, a, from, to);
    }
    if let Some(f) = FloatOp::of(op) {
        return match f {
            FloatOp::Bin(o) => float_arith::fbin(o, a, b, kind(to)),
            FloatOp::Un(o) => float_arith::fun(o, a, kind(to)),
            FloatOp::Cmp(p) => float_arith::fcmp(p, a, b, kind(from)),
            FloatOp::Math(m) => float_arith::fmath(m, a, b, kind(to)),
            FloatOp::Conv(c) => float_arith::fconv(c, a, from, to),
        };
    }
    match op {
        crate::ops::ArithOp::Select if a & 1 != 0 => b,
        crate::ops::ArithOp::Select => args.get(2).copied().unwrap_or(0),
        crate::ops::ArithOp::Cmpi(p) => cmp(p, a, b, from),
        // Every other op is a binary, cast or float one, answered above.
        _ => 0,
    }
}

/// Casts `a` of `from` bits to `to` bits.
#[inline(always)]
pub fn cast(kind: CastKind, a: u64, from: u32, to: u32) -> u64 {
    let v = match kind {
        CastKind::Sext => sext(a, from) as u64,
        CastKind::Zext | CastKind::Trunc => a,
        CastKind::Not => !a,
    };
    v & width_mask(to)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_ops_at_odd_widths() {
        // width 7: -64 .. 63
        let m7 = width_mask(7);
        let neg1 = m7; // 0x7f
        assert_eq!(sext(neg1, 7), -1);
        assert_eq!(bin(BinOp::DivS, 0x40, neg1, 7), 0x40); // INT_MIN / -1 wraps
        assert_eq!(bin(BinOp::RemS, 0x40, neg1, 7), 0);
        assert_eq!(
            bin(BinOp::DivS, (-7i64 as u64) & m7, 2, 7),
            (-3i64 as u64) & m7
        );
        assert_eq!(
            bin(BinOp::RemS, (-7i64 as u64) & m7, 2, 7),
            (-1i64 as u64) & m7
        );
        assert_eq!(bin(BinOp::ShrS, 0x40, 3, 7), 0x78);
        assert_eq!(bin(BinOp::ShrS, 0x40, 7, 7), 0x7f);
        assert_eq!(bin(BinOp::ShrS, 0x20, 100, 7), 0);
        assert_eq!(bin(BinOp::ShrU, 0x40, 7, 7), 0);
        assert_eq!(bin(BinOp::Shl, 0x41, 1, 7), 0x02);
        assert_eq!(bin(BinOp::Shl, 1, 7, 7), 0);
        assert_eq!(cmp(CmpPredicate::Slt, 0x40, 0x3f, 7), 1);
        assert_eq!(cmp(CmpPredicate::Ult, 0x40, 0x3f, 7), 0);
    }

    #[test]
    fn width_1_33_64() {
        // i1: 1 is -1 signed
        assert_eq!(cmp(CmpPredicate::Slt, 1, 0, 1), 1);
        assert_eq!(cmp(CmpPredicate::Ugt, 1, 0, 1), 1);
        assert_eq!(bin(BinOp::Add, 1, 1, 1), 0);
        assert_eq!(bin(BinOp::ShrS, 1, 0, 1), 1);
        assert_eq!(bin(BinOp::ShrS, 1, 1, 1), 1);
        assert_eq!(bin(BinOp::DivS, 1, 1, 1), 1); // -1 / -1 = 1 wraps to -1 (bit 1)
        // i33
        let m33 = width_mask(33);
        let min33 = 1u64 << 32;
        assert_eq!(cmp(CmpPredicate::Sle, min33, 0, 33), 1);
        assert_eq!(bin(BinOp::ShrS, min33, 32, 33), m33);
        assert_eq!(bin(BinOp::ShrS, min33, 33, 33), m33);
        assert_eq!(bin(BinOp::Shl, 1, 32, 33), min33);
        assert_eq!(bin(BinOp::Shl, 1, 33, 33), 0);
        assert_eq!(bin(BinOp::Mul, m33, m33, 33), 1);
        // i64
        let min = 1u64 << 63;
        assert_eq!(bin(BinOp::DivS, min, u64::MAX, 64), min);
        assert_eq!(bin(BinOp::RemS, min, u64::MAX, 64), 0);
        assert_eq!(bin(BinOp::ShrS, min, 64, 64), u64::MAX);
        assert_eq!(bin(BinOp::ShrS, min, 63, 64), u64::MAX);
        assert_eq!(bin(BinOp::ShrU, min, 64, 64), 0);
        assert_eq!(bin(BinOp::Shl, 1, 64, 64), 0);
        assert_eq!(cmp(CmpPredicate::Sgt, 0, min, 64), 1);
        assert_eq!(cmp(CmpPredicate::Uge, min, 0, 64), 1);
        assert_eq!(bin(BinOp::DivU, 5, 0, 64), 0);
        // width 0
        assert_eq!(bin(BinOp::Add, 0, 0, 0), 0);
        assert_eq!(cmp(CmpPredicate::Eq, 0, 0, 0), 1);
    }

    #[test]
    fn min_max_signed_and_unsigned() {
        let m8 = width_mask(8);
        let neg = |x: i64| (x as u64) & m8;
        assert_eq!(bin(BinOp::MaxS, neg(-3), 5, 8), 5);
        assert_eq!(bin(BinOp::MinS, neg(-3), 5, 8), neg(-3));
        assert_eq!(bin(BinOp::MaxU, neg(-3), 5, 8), neg(-3));
        assert_eq!(bin(BinOp::MinU, neg(-3), 5, 8), 5);
        // i1: 1 is -1 signed.
        assert_eq!(bin(BinOp::MaxS, 1, 0, 1), 0);
        assert_eq!(bin(BinOp::MaxU, 1, 0, 1), 1);
        // i64 extremes.
        let min = 1u64 << 63;
        assert_eq!(bin(BinOp::MinS, min, u64::MAX, 64), min);
        assert_eq!(bin(BinOp::MaxU, min, u64::MAX, 64), u64::MAX);
        assert_eq!(bin(BinOp::MaxS, 0, 0, 0), 0);
    }

    #[test]
    fn casts() {
        assert_eq!(cast(CastKind::Sext, 0x40, 7, 33), width_mask(33) & !0x3f);
        assert_eq!(cast(CastKind::Zext, 0x40, 7, 33), 0x40);
        assert_eq!(cast(CastKind::Trunc, 0x1ff, 33, 7), 0x7f);
        assert_eq!(cast(CastKind::Not, 0b101, 3, 3), 0b010);
        assert_eq!(cast(CastKind::Not, 0, 1, 1), 1);
        assert_eq!(cast(CastKind::Not, 0, 64, 64), u64::MAX);
        assert_eq!(cast(CastKind::Sext, 1, 1, 64), u64::MAX);
        assert_eq!(cast(CastKind::Sext, 0, 0, 8), 0);
    }
}
