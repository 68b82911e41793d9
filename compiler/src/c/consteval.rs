//! Evaluation of integer constant expressions (array sizes, `case` labels, initializers),
//! with C's conversion rules.

use super::arith::{self, mask};
use super::ast::{BinOp, Expr, ExprKind, UnOp};
use super::error::{CResult, RawError};
use super::ir::{BinaryOp, CmpPred};
use super::types::{CType, IntTy};

/// Canonical constant: the value converted to its type (bit pattern sign/zero-extended to i64).
pub type ConstVal = (i64, IntTy);

/// Converts a canonical constant to type `to`.
pub fn convert(v: i64, from: IntTy, to: IntTy) -> i64 {
    let math: i128 = if from.signed {
        v as i128
    } else {
        (v as u64 & mask(from.bits())) as i128
    };
    to.wrap(math)
}

/// The IR operation implementing C operator `op` at a type with the given signedness.
pub fn ir_binop(op: BinOp, signed: bool) -> Option<BinaryOp> {
    Some(match op {
        BinOp::Add => BinaryOp::AddI,
        BinOp::Sub => BinaryOp::SubI,
        BinOp::Mul => BinaryOp::MulI,
        BinOp::Div if signed => BinaryOp::DivSI,
        BinOp::Div => BinaryOp::DivUI,
        BinOp::Rem if signed => BinaryOp::RemSI,
        BinOp::Rem => BinaryOp::RemUI,
        BinOp::And => BinaryOp::AndI,
        BinOp::Or => BinaryOp::OrI,
        BinOp::Xor => BinaryOp::XOrI,
        BinOp::Shl => BinaryOp::ShLI,
        BinOp::Shr if signed => BinaryOp::ShRSI,
        BinOp::Shr => BinaryOp::ShRUI,
        _ => return None,
    })
}

/// The comparison predicate implementing C comparison `op` at the given signedness.
pub fn ir_pred(op: BinOp, signed: bool) -> Option<CmpPred> {
    Some(match (op, signed) {
        (BinOp::Eq, _) => CmpPred::Eq,
        (BinOp::Ne, _) => CmpPred::Ne,
        (BinOp::Lt, true) => CmpPred::Slt,
        (BinOp::Le, true) => CmpPred::Sle,
        (BinOp::Gt, true) => CmpPred::Sgt,
        (BinOp::Ge, true) => CmpPred::Sge,
        (BinOp::Lt, false) => CmpPred::Ult,
        (BinOp::Le, false) => CmpPred::Ule,
        (BinOp::Gt, false) => CmpPred::Ugt,
        (BinOp::Ge, false) => CmpPred::Uge,
        _ => return None,
    })
}

fn bits_of(v: i64, t: IntTy) -> u64 {
    v as u64 & mask(t.bits())
}

fn from_bits(b: u64, t: IntTy) -> i64 {
    if t.signed {
        arith::sext(b, t.bits())
    } else {
        b as i64
    }
}

/// Evaluates an integer constant expression.
pub fn eval_const(e: &Expr) -> CResult<ConstVal> {
    eval_with(e, &|_| None)
}

/// Evaluates a constant expression; `lookup` resolves identifiers that denote constants.
pub fn eval_with(e: &Expr, lookup: &dyn Fn(&str) -> Option<ConstVal>) -> CResult<ConstVal> {
    let err = |m: &str| RawError::new(e.span, m.to_string());
    match &e.kind {
        ExprKind::IntLit(v, t) => {
            let math = if t.signed {
                *v as i64 as i128
            } else {
                *v as i128
            };
            Ok((t.wrap(math), *t))
        }
        ExprKind::Ident(n) => {
            lookup(n).ok_or_else(|| err(&format!("'{n}' is not an integer constant expression")))
        }
        ExprKind::Cast(CType::Int(to), inner) => {
            let (v, t) = eval_with(inner, lookup)?;
            Ok((convert(v, t, *to), *to))
        }
        ExprKind::Unary(op, inner) => {
            let (v, t) = eval_with(inner, lookup)?;
            let p = t.promote();
            let v = convert(v, t, p);
            match op {
                UnOp::Plus => Ok((v, p)),
                UnOp::Neg => Ok((
                    from_bits(bits_of(v, p).wrapping_neg() & mask(p.bits()), p),
                    p,
                )),
                UnOp::BitNot => Ok((from_bits(!bits_of(v, p) & mask(p.bits()), p), p)),
                UnOp::Not => Ok(((v == 0) as i64, IntTy::INT)),
                UnOp::Deref | UnOp::AddrOf => Err(err("pointers are not supported")),
            }
        }
        ExprKind::Binary(..) => {
            // Left-associative chains are folded bottom-up along their left spine, so a
            // constant of any length takes no stack per operator.
            let spine = e.left_spine(|k| matches!(k, ExprKind::Binary(..)));
            let Some(bottom) = spine.last().and_then(|n| n.left()) else {
                return Err(err("not an integer constant expression"));
            };
            let mut acc = eval_with(bottom, lookup)?;
            for node in spine.iter().rev() {
                if let ExprKind::Binary(op, _, r) = &node.kind {
                    acc = eval_binary(*op, acc, r, node, lookup)?;
                }
            }
            Ok(acc)
        }
        ExprKind::Cond(c, a, b) => {
            let (cv, _) = eval_with(c, lookup)?;
            let (av, ta) = eval_with(a, lookup)?;
            let (bv, tb) = eval_with(b, lookup)?;
            let t = IntTy::usual(ta, tb);
            Ok((
                if cv != 0 {
                    convert(av, ta, t)
                } else {
                    convert(bv, tb, t)
                },
                t,
            ))
        }
        ExprKind::Comma(_, _) => Err(err("comma operator in a constant expression")),
        _ => Err(err("not an integer constant expression")),
    }
}

/// `(a, ta) op r` for one level of a binary chain (`node` is that level, for the location).
fn eval_binary(
    op: BinOp,
    (a, ta): ConstVal,
    r: &Expr,
    node: &Expr,
    lookup: &dyn Fn(&str) -> Option<ConstVal>,
) -> CResult<ConstVal> {
    let err = |m: &str| RawError::new(node.span, m.to_string());
    if op == BinOp::LogAnd || op == BinOp::LogOr {
        let av = a != 0;
        if (op == BinOp::LogAnd && !av) || (op == BinOp::LogOr && av) {
            return Ok(((op == BinOp::LogOr) as i64, IntTy::INT));
        }
        let (b, _) = eval_with(r, lookup)?;
        return Ok(((b != 0) as i64, IntTy::INT));
    }
    let (b, tb) = eval_with(r, lookup)?;
    if op.is_comparison() {
        let t = IntTy::usual(ta, tb);
        let pred = ir_pred(op, t.signed).ok_or_else(|| err("bad comparison"))?;
        let res = arith::compare(
            pred,
            t.bits(),
            bits_of(convert(a, ta, t), t),
            bits_of(convert(b, tb, t), t),
        );
        return Ok((res as i64, IntTy::INT));
    }
    let (t, bt) = if matches!(op, BinOp::Shl | BinOp::Shr) {
        (ta.promote(), tb.promote())
    } else {
        let t = IntTy::usual(ta, tb);
        (t, t)
    };
    let irop = ir_binop(op, t.signed).ok_or_else(|| err("bad operator"))?;
    let bb = convert(b, tb, bt);
    let amount = if matches!(op, BinOp::Shl | BinOp::Shr) {
        if bb < 0 || bb >= i64::from(t.bits()) {
            return Err(err("shift amount out of range in constant expression"));
        }
        bb as u64
    } else {
        bits_of(convert(b, tb, t), t)
    };
    let res = arith::binary(irop, t.bits(), bits_of(convert(a, ta, t), t), amount)
        .map_err(|e| err(&format!("{e} in constant expression")))?;
    Ok((from_bits(res, t), t))
}
