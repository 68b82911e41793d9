//! Integer arithmetic on operands or results wider than 64 bits, with the conventions of
//! [`super::arith`] (two's complement modulo 2^width, shifts by the width or more give 0 or
//! the sign fill, division and remainder by zero give 0, `INT_MIN / -1` wraps). Operands and
//! results are words as [`crate::wide`] defines them; widths may be anything up to
//! [`crate::types::MAX_DATA_WIDTH`], so a cast between an `i32` and an `i128` comes here too.
//!
//! Arbitrary-precision arithmetic is `num-bigint`'s; these functions only fix the width.

use num_bigint::{BigInt, BigUint};
use num_traits::{ToPrimitive, Zero};

use super::arith::{BinOp, CastKind};
use crate::ops::CmpPredicate;
use crate::wide;

/// `a op b` at `width` bits.
pub fn bin(op: BinOp, a: u64, b: u64, width: u32) -> u64 {
    let ua = || wide::to_biguint(a, width);
    let ub = || wide::to_biguint(b, width);
    let sa = || wide::to_bigint(a, width);
    let sb = || wide::to_bigint(b, width);
    let u = |v: BigUint| wide::from_biguint(&v, width);
    let s = |v: BigInt| wide::from_bigint(&v, width);
    // The shift amount as a number of bits, `None` when it is the width or more.
    let amount = || ub().to_u32().filter(|&k| k < width);
    match op {
        BinOp::Add => u(ua() + ub()),
        BinOp::Sub => s(sa() - sb()),
        BinOp::Mul => u(ua() * ub()),
        BinOp::And => u(ua() & ub()),
        BinOp::Or => u(ua() | ub()),
        BinOp::Xor => u(ua() ^ ub()),
        BinOp::DivU => {
            let d = ub();
            if d.is_zero() { 0 } else { u(ua() / d) }
        }
        BinOp::RemU => {
            let d = ub();
            if d.is_zero() { 0 } else { u(ua() % d) }
        }
        // BigInt's `/` truncates toward zero and `%` takes the dividend's sign, as Verilog's
        // signed `/` and `%` do; `INT_MIN / -1` = 2^(width-1) wraps back to INT_MIN.
        BinOp::DivS => {
            let d = sb();
            if d.is_zero() { 0 } else { s(sa() / d) }
        }
        BinOp::RemS => {
            let d = sb();
            if d.is_zero() { 0 } else { s(sa() % d) }
        }
        BinOp::Shl => amount().map_or(0, |k| u(ua() << k)),
        BinOp::ShrU => amount().map_or(0, |k| u(ua() >> k)),
        BinOp::ShrS => {
            let x = sa();
            match amount() {
                Some(k) => s(x >> k),
                None if x.sign() == num_bigint::Sign::Minus => s(BigInt::from(-1)),
                None => 0,
            }
        }
        BinOp::MaxS => s(sa().max(sb())),
        BinOp::MinS => s(sa().min(sb())),
        BinOp::MaxU => u(ua().max(ub())),
        BinOp::MinU => u(ua().min(ub())),
    }
}

/// An `arith.cmpi` predicate on operands of `width` bits: 0 or 1.
pub fn cmp(pred: CmpPredicate, a: u64, b: u64, width: u32) -> u64 {
    let r = match pred {
        // Words are canonical: equal values have equal words.
        CmpPredicate::Eq => a == b,
        CmpPredicate::Ne => a != b,
        CmpPredicate::Slt => wide::to_bigint(a, width) < wide::to_bigint(b, width),
        CmpPredicate::Sle => wide::to_bigint(a, width) <= wide::to_bigint(b, width),
        CmpPredicate::Sgt => wide::to_bigint(a, width) > wide::to_bigint(b, width),
        CmpPredicate::Sge => wide::to_bigint(a, width) >= wide::to_bigint(b, width),
        CmpPredicate::Ult => wide::to_biguint(a, width) < wide::to_biguint(b, width),
        CmpPredicate::Ule => wide::to_biguint(a, width) <= wide::to_biguint(b, width),
        CmpPredicate::Ugt => wide::to_biguint(a, width) > wide::to_biguint(b, width),
        CmpPredicate::Uge => wide::to_biguint(a, width) >= wide::to_biguint(b, width),
    };
    u64::from(r)
}

/// Casts `a` of `from` bits to `to` bits.
pub fn cast(kind: CastKind, a: u64, from: u32, to: u32) -> u64 {
    match kind {
        CastKind::Sext => wide::from_bigint(&wide::to_bigint(a, from), to),
        CastKind::Zext | CastKind::Trunc => wide::from_biguint(&wide::to_biguint(a, from), to),
        CastKind::Not => {
            let ones = (BigUint::from(1u8) << from) - BigUint::from(1u8);
            wide::from_biguint(&(ones - wide::to_biguint(a, from)), to)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::arith;

    fn w(text: &str, width: u32) -> u64 {
        wide::parse(text, width).unwrap()
    }

    #[test]
    fn agrees_with_the_narrow_arithmetic_at_64_bits_and_below() {
        // The wide path at a narrow width must give what `arith` gives.
        let ops = [
            BinOp::Add,
            BinOp::Sub,
            BinOp::Mul,
            BinOp::DivS,
            BinOp::DivU,
            BinOp::RemS,
            BinOp::RemU,
            BinOp::And,
            BinOp::Or,
            BinOp::Xor,
            BinOp::Shl,
            BinOp::ShrS,
            BinOp::ShrU,
            BinOp::MaxS,
            BinOp::MinS,
            BinOp::MaxU,
            BinOp::MinU,
        ];
        let vals = [
            0u64,
            1,
            2,
            5,
            7,
            63,
            64,
            0x7f,
            0x80,
            0xff,
            u64::MAX,
            1 << 63,
        ];
        for width in [1u32, 8, 33, 63] {
            let m = crate::types::width_mask(width);
            for &a in &vals {
                for &b in &vals {
                    let (a, b) = (a & m, b & m);
                    for op in ops {
                        assert_eq!(
                            bin(op, a, b, width),
                            arith::bin(op, a, b, width),
                            "{op:?} {a} {b} at {width}"
                        );
                    }
                    for pred in CmpPredicate::ALL {
                        assert_eq!(cmp(pred, a, b, width), arith::cmp(pred, a, b, width));
                    }
                }
            }
        }
    }

    #[test]
    fn wide_arithmetic() {
        let width = 128;
        let max = w("0xffffffffffffffffffffffffffffffff", width);
        assert_eq!(bin(BinOp::Add, max, 1, width), 0);
        assert_eq!(bin(BinOp::Sub, 0, 1, width), max);
        let big = w("0x1_0000_0000_0000_0000", width);
        assert_eq!(bin(BinOp::Mul, 1 << 32, 1 << 32, width), big);
        // 2^63 on a 128-bit channel is an interned word, not the bit pattern.
        assert_eq!(
            bin(BinOp::DivU, big, 2, width),
            w("0x8000_0000_0000_0000", width)
        );
        assert_eq!(bin(BinOp::DivS, max, 0, width), 0);
        let min = w("-0x8000_0000_0000_0000_0000_0000_0000_0000", width);
        assert_eq!(bin(BinOp::DivS, min, max, width), min, "INT_MIN / -1 wraps");
        assert_eq!(bin(BinOp::RemS, w("-7", width), 2, width), w("-1", width));
        assert_eq!(bin(BinOp::Shl, 1, 127, width), min);
        assert_eq!(bin(BinOp::Shl, 1, 128, width), 0);
        assert_eq!(bin(BinOp::ShrS, min, 127, width), max);
        assert_eq!(bin(BinOp::ShrS, min, 500, width), max);
        assert_eq!(bin(BinOp::ShrU, min, 127, width), 1);
        assert_eq!(
            bin(BinOp::ShrU, min, big, width),
            0,
            "a shift amount above 2^64"
        );
        assert_eq!(bin(BinOp::MaxS, min, 3, width), 3);
        assert_eq!(bin(BinOp::MaxU, min, 3, width), min);
        assert_eq!(cmp(CmpPredicate::Slt, min, 0, width), 1);
        assert_eq!(cmp(CmpPredicate::Ult, min, 0, width), 0);
        assert_eq!(
            cmp(
                CmpPredicate::Eq,
                big,
                w("18446744073709551616", width),
                width
            ),
            1
        );
    }

    #[test]
    fn casts_across_64_bits() {
        assert_eq!(cast(CastKind::Sext, 0xff, 8, 128), w("-1", 128));
        assert_eq!(cast(CastKind::Zext, 0xff, 8, 128), 0xff);
        assert_eq!(cast(CastKind::Sext, u64::MAX, 64, 4096), w("-1", 4096));
        assert_eq!(cast(CastKind::Trunc, w("-2", 4096), 4096, 8), 0xfe);
        assert_eq!(cast(CastKind::Not, w("1", 200), 200, 200), w("-2", 200));
        assert_eq!(cast(CastKind::Not, w("-1", 65), 65, 65), w("0", 65));
        assert_eq!(cast(CastKind::Trunc, w("-2", 4096), 4096, 64), u64::MAX - 1);
        assert_eq!(cast(CastKind::Trunc, w("-2", 4096), 4096, 65), w("-2", 65));
    }
}
