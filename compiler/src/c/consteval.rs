//! Evaluation of constant expressions (array sizes, `case` labels, initializers), with C's
//! conversion rules: integer constant expressions, and arithmetic constant expressions with
//! `float`/`double` operands for initializers ([`eval_as`]), folded with the IR's own
//! operations so a folded constant equals what the circuit would compute. Also the one table
//! of C conversions between arithmetic types ([`conversion`]), shared with the lowering.

use super::arith::{self, mask};
use super::ast::{BinOp, Expr, ExprKind, UnOp};
use super::error::{CResult, RawError};
use super::ir::{BinaryOp, CastOp, CmpPred, Type};
use super::types::{CType, FloatTy, IntKind, IntTy, Scalar};
use handscope_sim::FloatPredicate;

/// Canonical constant: the value converted to its type (bit pattern sign/zero-extended to i64
/// for at most 64 bits; for a wider `_BitInt`, its wide word reinterpreted as `i64`, see
/// [`arith::const_word`]).
pub type ConstVal = (i64, IntTy);

/// Converts a canonical constant to type `to`.
pub fn convert(v: i64, from: IntTy, to: IntTy) -> i64 {
    if arith::is_wide(from.bits()) || arith::is_wide(to.bits()) {
        let w = bits_of(v, from);
        if to.kind == IntKind::Bool {
            return i64::from(w != 0);
        }
        let op = match (to.bits() > from.bits(), from.signed) {
            (true, true) => CastOp::ExtSI,
            (true, false) => CastOp::ExtUI,
            (false, _) => CastOp::TruncI,
        };
        return from_bits(arith::cast(op, from.bits(), to.bits(), w), to);
    }
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
    arith::const_word(v, t.bits())
}

fn from_bits(b: u64, t: IntTy) -> i64 {
    if arith::is_wide(t.bits()) {
        b as i64
    } else if t.signed {
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
        ExprKind::Cast(CType::Scalar(Scalar::Int(to)), inner) => {
            let (v, t) = eval_with(inner, lookup)?;
            Ok((convert(v, t, *to), *to))
        }
        ExprKind::Unary(op, inner) => {
            let (v, t) = eval_with(inner, lookup)?;
            let p = t.promote();
            let v = convert(v, t, p);
            match op {
                UnOp::Plus => Ok((v, p)),
                UnOp::Neg => Ok((from_bits(arith::negate(bits_of(v, p), p.bits()), p), p)),
                UnOp::BitNot => Ok((from_bits(arith::bit_not(bits_of(v, p), p.bits()), p), p)),
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

/// One step of a C conversion between arithmetic types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// A conversion instruction to the given type.
    Cast(CastOp, Type),
    /// Conversion to `_Bool`: compare with zero (`!= 0`; for floats `une 0.0`, so NaN is true).
    NeZero,
}

/// The steps converting a value of type `from` to type `to` (C11 6.3.1), as x86-64 GCC and
/// Clang compute them at `-O0`:
/// * integers narrower than `int` go to a float through `int` (their promotion); unsigned
///   `int` and `long` use `uitofp`, everything else `sitofp`;
/// * a float goes to an integer by truncation toward zero into 32 bits (`int` and the narrower
///   types, then `trunci`) or 64 bits (`long`, and `unsigned int` as the compilers do:
///   converted as a 64-bit signed value, then truncated); `unsigned long` uses `fptoui`. Only
///   values the target type can hold have a result C defines; for the others these steps give
///   what the compiled code gives;
/// * `float` ↔ `double` with `extf`/`truncf`; to `_Bool` a comparison with zero.
pub fn conversion(from: Scalar, to: Scalar) -> Vec<Step> {
    let int_steps = |f: IntTy, t: IntTy| -> Vec<Step> {
        let (fb, tb) = (f.bits(), t.bits());
        if tb == 1 && fb != 1 {
            vec![Step::NeZero]
        } else if tb < fb {
            vec![Step::Cast(CastOp::TruncI, Type::Int(tb))]
        } else if tb > fb {
            let op = if f.signed {
                CastOp::ExtSI
            } else {
                CastOp::ExtUI
            };
            vec![Step::Cast(op, Type::Int(tb))]
        } else {
            vec![]
        }
    };
    match (from, to) {
        (Scalar::Int(f), Scalar::Int(t)) => int_steps(f, t),
        (Scalar::Int(f), Scalar::Float(t)) => {
            let ft = Type::Float(t.kind());
            let p = f.promote();
            let mut steps = int_steps(f, p);
            let op = if p.signed {
                CastOp::SIToFP
            } else {
                CastOp::UIToFP
            };
            steps.push(Step::Cast(op, ft));
            steps
        }
        (Scalar::Float(_), Scalar::Int(t)) if t.kind == IntKind::Bool => vec![Step::NeZero],
        (Scalar::Float(_), Scalar::Int(t)) => {
            let (op, w) = match (t.kind, t.signed) {
                (IntKind::Long | IntKind::LongLong, false) => (CastOp::FPToUI, 64),
                (IntKind::Long | IntKind::LongLong, true) | (IntKind::Int, false) => {
                    (CastOp::FPToSI, 64)
                }
                _ => (CastOp::FPToSI, 32),
            };
            let mut steps = vec![Step::Cast(op, Type::Int(w))];
            if t.bits() < w {
                steps.push(Step::Cast(CastOp::TruncI, Type::Int(t.bits())));
            }
            steps
        }
        (Scalar::Float(f), Scalar::Float(t)) => match (f, t) {
            (FloatTy::Float, FloatTy::Double) => {
                vec![Step::Cast(CastOp::ExtF, Type::Float(t.kind()))]
            }
            (FloatTy::Double, FloatTy::Float) => {
                vec![Step::Cast(CastOp::TruncF, Type::Float(t.kind()))]
            }
            _ => vec![],
        },
    }
}

/// The predicate that compares a value of type `t` with zero for `!= 0`.
pub fn ne_zero(t: Type) -> CmpPred {
    match t {
        Type::Float(_) => CmpPred::Float(FloatPredicate::Une),
        Type::Int(_) | Type::Token => CmpPred::Ne,
    }
}

/// True when a conversion between `a` and `b` would go between a floating type and an
/// integer wider than 64 bits, which the subset does not support.
pub fn float_wide_mix(a: Scalar, b: Scalar) -> bool {
    let wide_int = |t: Scalar| matches!(t, Scalar::Int(i) if arith::is_wide(i.bits()));
    let float = |t: Scalar| matches!(t, Scalar::Float(_));
    (wide_int(a) && float(b)) || (float(a) && wide_int(b))
}

/// The error for a conversion that [`float_wide_mix`] rejects.
pub fn float_wide_error(span: super::span::Span, from: Scalar, to: Scalar) -> RawError {
    RawError::new(
        span,
        format!("conversion from '{from}' to '{to}' is not supported"),
    )
    .with_help("conversions between floating types and _BitInt wider than 64 bits are not supported; convert through long long")
}

/// A constant of an arithmetic type: its bit pattern (masked to its width) and its type.
pub type ScalarConst = (u64, Scalar);

/// Converts a constant to type `to` with the steps of [`conversion`].
pub fn convert_scalar((bits, from): ScalarConst, to: Scalar) -> u64 {
    let mut cur = (bits, Type::of(from));
    for step in conversion(from, to) {
        cur = match step {
            Step::Cast(op, t) => (arith::cast(op, cur.1.bits(), t.bits(), cur.0), t),
            Step::NeZero => (
                u64::from(arith::compare(ne_zero(cur.1), cur.1.bits(), cur.0, 0)),
                Type::Int(1),
            ),
        };
    }
    cur.0 & mask(to.bits())
}

/// The value of the constant initializer `e` converted to type `to`, in the form memories
/// and constants hold: an integer sign- or zero-extended by its type's signedness, a float's
/// bit pattern.
pub fn eval_as(e: &Expr, to: Scalar) -> CResult<i64> {
    let c = eval_scalar(e)?;
    if float_wide_mix(c.1, to) {
        return Err(float_wide_error(e.span, c.1, to));
    }
    let bits = convert_scalar(c, to);
    Ok(match to {
        Scalar::Int(t) => from_bits(bits, t),
        Scalar::Float(_) => bits as i64,
    })
}

/// Evaluates an arithmetic constant expression: an integer constant expression, or floating
/// and integer constants combined with casts, unary `+`/`-` and `+ - * /`.
pub fn eval_scalar(e: &Expr) -> CResult<ScalarConst> {
    if let Ok((v, t)) = eval_const(e) {
        return Ok((bits_of(v, t), Scalar::Int(t)));
    }
    let err = |m: &str| RawError::new(e.span, m.to_string());
    match &e.kind {
        ExprKind::FloatLit(bits, t) => Ok((*bits, Scalar::Float(*t))),
        ExprKind::Cast(CType::Scalar(to), inner) => {
            let c = eval_scalar(inner)?;
            if float_wide_mix(c.1, *to) {
                return Err(float_wide_error(e.span, c.1, *to));
            }
            Ok((convert_scalar(c, *to), *to))
        }
        ExprKind::Unary(UnOp::Plus, inner) => {
            let (b, t) = eval_scalar(inner)?;
            let p = t.promote();
            Ok((convert_scalar((b, t), p), p))
        }
        ExprKind::Unary(UnOp::Neg, inner) => {
            let (b, t) = eval_scalar(inner)?;
            let p = t.promote();
            let b = convert_scalar((b, t), p);
            Ok(match p {
                Scalar::Float(_) => (arith::unary(super::ir::UnaryOp::NegF, p.bits(), b), p),
                Scalar::Int(_) => (arith::negate(b, p.bits()), p),
            })
        }
        ExprKind::Binary(..) => {
            let spine = e.left_spine(|k| matches!(k, ExprKind::Binary(..)));
            let Some(bottom) = spine.last().and_then(|n| n.left()) else {
                return Err(err("not a constant expression"));
            };
            let mut acc = eval_scalar(bottom)?;
            for node in spine.iter().rev() {
                let ExprKind::Binary(op, _, r) = &node.kind else {
                    continue;
                };
                let b = eval_scalar(r)?;
                if float_wide_mix(acc.1, b.1) {
                    return Err(float_wide_error(node.span, acc.1, b.1));
                }
                let t = Scalar::usual(acc.1, b.1);
                let op = match (op, t) {
                    (BinOp::Add, Scalar::Float(_)) => BinaryOp::AddF,
                    (BinOp::Sub, Scalar::Float(_)) => BinaryOp::SubF,
                    (BinOp::Mul, Scalar::Float(_)) => BinaryOp::MulF,
                    (BinOp::Div, Scalar::Float(_)) => BinaryOp::DivF,
                    // Integer operands here come from casts of floats (`(int)2.5 * 3`); the
                    // other integer operators are integer constant expressions' business.
                    (
                        op @ (BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem),
                        Scalar::Int(i),
                    ) => ir_binop(*op, i.signed)
                        .ok_or_else(|| RawError::new(node.span, "not a constant expression"))?,
                    _ => return Err(RawError::new(node.span, "not a constant expression")),
                };
                let res = arith::binary(op, t.bits(), convert_scalar(acc, t), convert_scalar(b, t))
                    .map_err(|e| RawError::new(node.span, format!("{e} in constant expression")))?;
                acc = (res, t);
            }
            Ok(acc)
        }
        _ => Err(err("not an arithmetic constant expression")),
    }
}
