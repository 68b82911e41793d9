//! Lowering of the (type-checked on the fly) AST of the top function to the SSA CFG IR.
//! Calls are inlined here (each call site gets its own copy of the callee's CFG), so the
//! result is one function with no calls.
//!
//! Design choices:
//! * `&&`, `||` and `?:` become `andi`/`ori`/`select` when the operands that would not
//!   always be evaluated are *speculatable* (no side effects, no memory access, no division,
//!   no variable shift amount); otherwise they become control flow.
//! * Uninitialized scalars read as 0 (C leaves them indeterminate).
//! * Local arrays whose declaration executes at most once (not inside a loop) get their
//!   initializer as initial memory contents; inside loops the initializer becomes stores.
//! * Array indices are computed in `i32` (`int`) arithmetic.
//! * `float` and `double` follow C's usual arithmetic conversions with x86-64's evaluation
//!   method (`FLT_EVAL_METHOD == 0`: a `float` operation is computed in `float`), without
//!   contraction (no fused multiply-add); the math functions the subset knows map onto MLIR
//!   ops (`fabs` → `math.absf`, `sqrt` → `math.sqrt`, `fmin`/`fmax` → `arith.minnumf` /
//!   `maxnumf`, `copysign` → `math.copysign`, and their `f` variants).

use super::ast::*;
use super::consteval::{
    ConstVal, Step, conversion, convert as const_convert, eval_as, eval_const, ir_binop, ir_pred,
    ne_zero,
};
use super::error::{CResult, RawError};
use super::ir::*;
use super::span::{LineIndex, Span};
use super::ssa::{FnBuilder, Var};
use super::types::{CType, FloatTy, IntTy, Scalar};
use handscope_sim::FloatPredicate;
use std::collections::{BTreeMap, BTreeSet};

mod pointers;
use pointers::{Pointee, PtrSym, PtrVal};

const MAX_INLINE_DEPTH: usize = 64;
const MAX_INLINED_CALLS: usize = 10_000;

/// A view of an array: memory, element offset of the view, element type and dimensions.
#[derive(Clone, Debug)]
struct ArrayRef {
    mem: MemId,
    base: Option<ValueId>,
    elem: Scalar,
    dims: Vec<Option<u64>>,
    name: String,
    /// The name of the `const` declaration that makes the elements read-only through this
    /// view (the array itself, or a `const` parameter it was passed through).
    const_name: Option<String>,
    /// Declared as a function parameter (C adjusts its type to a pointer: `sizeof` is 8).
    param: bool,
}

#[derive(Clone, Debug)]
enum Sym {
    /// A scalar variable; `true` when declared `const`.
    Scalar(Var, Scalar, bool),
    Array(ArrayRef),
    /// A pointer variable ([`pointers`]).
    Pointer(PtrSym),
}

#[derive(Clone, Debug)]
enum Global {
    /// A scalar no function writes: its (constant) value.
    Scalar(i64, Scalar),
    /// A pointer: a pointer variable of the whole kernel ([`Lowerer::global_ptrs`]).
    Pointer { decl_index: usize },
    /// A scalar some function writes: a one-element memory, made when first used.
    Mutable {
        init: i64,
        ty: Scalar,
        decl_index: usize,
        mem: Option<MemId>,
    },
    Array {
        decl_index: usize,
        mem: Option<MemId>,
    },
}

/// A typed SSA value.
#[derive(Clone, Copy, Debug)]
struct Rv {
    v: ValueId,
    ty: Scalar,
}

/// An assignable location.
#[derive(Clone, Copy, Debug)]
enum Lv {
    Var(Var, Scalar),
    Elem(MemId, ValueId, Scalar),
}

impl Lv {
    fn ty(&self) -> Scalar {
        match self {
            Lv::Var(_, t) | Lv::Elem(_, _, t) => *t,
        }
    }
}

struct Frame {
    ret: CType,
    ret_var: Option<Var>,
    exit: BlockId,
    /// The function's `goto` targets by name (labels are function-wide in C).
    labels: BTreeMap<String, LabelSlot>,
}

/// A label's block: created by its first `goto` or its definition, sealed once the whole
/// function is lowered (only then are all the jumps to it known).
struct LabelSlot {
    block: BlockId,
    /// Where the label is defined, once seen.
    defined: Option<Span>,
    /// The first `goto` naming it.
    first_goto: Option<Span>,
}

#[derive(Clone, Copy)]
struct Jump {
    brk: Option<BlockId>,
    cont: Option<BlockId>,
}

struct SwitchCtx {
    ty: IntTy,
    cases: Vec<(i64, BlockId)>,
    default: Option<BlockId>,
}

struct MemInfo {
    mem: Memory,
    token: Var,
}

struct Lowerer<'a> {
    funcs: BTreeMap<&'a str, &'a Function>,
    /// Functions whose errors stand only if they are used ([`TranslationUnit::deferred`]).
    deferred: &'a BTreeMap<String, RawError>,
    protos: BTreeMap<&'a str, &'a Function>,
    global_decls: &'a [Decl],
    globals: BTreeMap<String, Global>,
    b: FnBuilder,
    mems: Vec<MemInfo>,
    scopes: Vec<BTreeMap<String, Sym>>,
    call_stack: Vec<String>,
    jumps: Vec<Jump>,
    switches: Vec<SwitchCtx>,
    frames: Vec<Frame>,
    loop_depth: usize,
    consts: BTreeMap<ValueId, i64>,
    inlined: usize,
    /// Spans of the `goto` statements lowered (to name one in a reducibility error).
    gotos: std::collections::BTreeSet<(u32, u32)>,
    /// `<math.h>` was included.
    math_h: bool,
    /// The operand of every `negf` lowered from a unary `-` (for [`Lowerer::gcc_fold`]).
    negs: BTreeMap<ValueId, ValueId>,
    /// Math functions called without a declaration (warned about once each).
    implicit: BTreeSet<String>,
    /// Warnings, in the order found.
    warnings: Vec<RawError>,
    /// The file-scope pointers (each a [`Sym::Pointer`]), visible in every inlined function
    /// unless a local of the same name hides it.
    global_ptrs: BTreeMap<String, Sym>,
}

fn ity(t: Scalar) -> Type {
    Type::of(t)
}

/// A math library function the subset implements, by its C name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MathFn {
    /// `fabs`: one operand.
    Unary(UnaryOp),
    /// `fmin`, `fmax`, `copysign`: two operands.
    Binary(BinaryOp),
}

/// The `<math.h>` functions the subset knows: each name with its type (`float` for the `f`
/// variants) and operation.
fn math_fn(name: &str) -> Option<(MathFn, FloatTy)> {
    if let Some((f, single)) = handscope_sim::math_fn::MathFn::from_c_name(name) {
        let ty = if single {
            FloatTy::Float
        } else {
            FloatTy::Double
        };
        let op = if f.arity() == 2 {
            MathFn::Binary(BinaryOp::Math(f))
        } else {
            MathFn::Unary(UnaryOp::Math(f))
        };
        return Some((op, ty));
    }
    let (base, ty) = match name.strip_suffix('f') {
        Some(b) if matches!(b, "fabs" | "sqrt" | "fmin" | "fmax" | "copysign" | "fmod") => {
            (b, FloatTy::Float)
        }
        _ => (name, FloatTy::Double),
    };
    let f = match base {
        "fabs" => MathFn::Unary(UnaryOp::AbsF),
        "sqrt" => MathFn::Unary(UnaryOp::Sqrt),
        "fmin" => MathFn::Binary(BinaryOp::MinNumF),
        "fmax" => MathFn::Binary(BinaryOp::MaxNumF),
        "copysign" => MathFn::Binary(BinaryOp::CopySign),
        "fmod" => MathFn::Binary(BinaryOp::RemF),
        _ => return None,
    };
    Some((f, ty))
}

/// The classification macros of `<math.h>` the subset implements, by name: `isnan`, `isinf`,
/// `isfinite`, `signbit` (each an `int`, from comparisons or the sign bit).
fn classify_fn(name: &str) -> bool {
    matches!(name, "isnan" | "isinf" | "isfinite" | "signbit")
}

/// Other `<math.h>` functions (C11 7.12), which get a diagnostic naming them rather than
/// "undeclared function".
const OTHER_MATH: &[&str] = &[
    "acos",
    "asin",
    "atan",
    "atan2",
    "cos",
    "sin",
    "tan",
    "acosh",
    "asinh",
    "atanh",
    "cosh",
    "sinh",
    "tanh",
    "exp",
    "exp2",
    "expm1",
    "frexp",
    "ilogb",
    "ldexp",
    "log",
    "log10",
    "log1p",
    "log2",
    "logb",
    "modf",
    "scalbn",
    "scalbln",
    "cbrt",
    "hypot",
    "pow",
    "erf",
    "erfc",
    "lgamma",
    "tgamma",
    "ceil",
    "floor",
    "nearbyint",
    "rint",
    "lrint",
    "llrint",
    "round",
    "lround",
    "llround",
    "trunc",
    "fmod",
    "remainder",
    "remquo",
    "nan",
    "nextafter",
    "nexttoward",
    "fdim",
    "fma",
    "isnan",
    "isinf",
    "isfinite",
    "signbit",
    "fpclassify",
    "isnormal",
];

/// Is `name` a `<math.h>` function the subset does not implement?
fn unsupported_math(name: &str) -> bool {
    OTHER_MATH.contains(&name)
        || name
            .strip_suffix(['f', 'l'])
            .is_some_and(|b| OTHER_MATH.contains(&b) || math_fn(b).is_some())
}

/// Lowers the function `top` (or the unique uncalled function) of `tu` to IR, with the
/// warnings found on the way.
pub fn lower(
    tu: &TranslationUnit,
    top: Option<&str>,
    lines: &[LineIndex],
) -> CResult<(IrFunction, Vec<RawError>)> {
    let file_start = lines[0].span(0, 0);
    let mut funcs: BTreeMap<&str, &Function> = BTreeMap::new();
    let mut protos: BTreeMap<&str, &Function> = BTreeMap::new();
    for f in &tu.functions {
        if f.body.is_some() {
            if funcs.insert(&f.name, f).is_some() {
                return Err(RawError::new(
                    f.span,
                    format!("redefinition of function '{}'", f.name),
                ));
            }
        } else {
            protos.entry(&f.name).or_insert(f);
        }
    }
    let top_fn = match top {
        Some(name) => *funcs.get(name).ok_or_else(|| {
            RawError::new(
                file_start,
                format!("top function '{name}' is not defined in this file"),
            )
        })?,
        None => {
            let mut calls: BTreeMap<&str, Vec<(String, Span)>> = BTreeMap::new();
            for f in funcs.values() {
                if let Some(b) = &f.body {
                    collect_calls_stmt(b, calls.entry(f.name.as_str()).or_default());
                }
            }
            let called: BTreeSet<&str> = calls
                .values()
                .flat_map(|v| v.iter().map(|(n, _)| n.as_str()))
                .collect();
            let cands: Vec<&Function> = tu
                .functions
                .iter()
                .filter(|f| f.body.is_some() && !called.contains(f.name.as_str()))
                .collect();
            match cands.as_slice() {
                [one] => *one,
                [] if funcs.is_empty() => {
                    return Err(RawError::new(
                        file_start,
                        "the file defines no function: there is nothing to compile",
                    )
                    .with_help("a kernel is a C function with a body, such as 'int f(int x) { return x; }'"));
                }
                [] => {
                    let order: Vec<&str> = tu
                        .functions
                        .iter()
                        .filter(|f| f.body.is_some())
                        .map(|f| f.name.as_str())
                        .collect();
                    if let Some((cycle, at)) = find_recursion(&order, &calls) {
                        return Err(RawError::new(
                            at,
                            format!("recursion is not supported: {}", cycle.join(" -> ")),
                        )
                        .with_help(
                            "hardware kernels need a static call graph (and every function here \
                             is called by another, so none can be the top function)",
                        ));
                    }
                    return Err(RawError::new(
                        file_start,
                        "no top function: the file defines no uncalled function",
                    ));
                }
                many => {
                    let names: Vec<&str> = many.iter().map(|f| f.name.as_str()).collect();
                    return Err(RawError::new(
                        many[1].span,
                        format!("cannot choose the top function among: {}", names.join(", ")),
                    )
                    .with_help("name the top function explicitly"));
                }
            }
        }
    };
    let mut globals = BTreeMap::new();
    let written = written_names(tu);
    for (i, g) in tu.globals.iter().enumerate() {
        let entry = match &g.ty {
            CType::Pointer(_) => Global::Pointer { decl_index: i },
            CType::Scalar(t) => {
                let v = match &g.init {
                    None => 0,
                    Some(Init::Expr(e)) => eval_as(e, *t)?,
                    Some(Init::List(items, sp)) => match items.as_slice() {
                        [Init::Expr(e)] => eval_as(e, *t)?,
                        _ => return Err(RawError::new(*sp, "invalid scalar initializer")),
                    },
                };
                if written.contains(&g.name) {
                    if g.is_const {
                        return Err(RawError::new(
                            g.span,
                            format!("'{}' is declared const but assigned", g.name),
                        ));
                    }
                    Global::Mutable {
                        init: v,
                        ty: *t,
                        decl_index: i,
                        mem: None,
                    }
                } else {
                    Global::Scalar(v, *t)
                }
            }
            _ => Global::Array {
                decl_index: i,
                mem: None,
            },
        };
        globals.insert(g.name.clone(), entry);
    }
    if let Some(e) = tu.deferred.get(&top_fn.name) {
        return Err(e.clone());
    }
    let l = Lowerer {
        deferred: &tu.deferred,
        funcs,
        protos,
        global_decls: &tu.globals,
        globals,
        b: FnBuilder::new(),
        mems: Vec::new(),
        scopes: vec![BTreeMap::new()],
        call_stack: vec![top_fn.name.clone()],
        jumps: Vec::new(),
        switches: Vec::new(),
        frames: Vec::new(),
        loop_depth: 0,
        consts: BTreeMap::new(),
        inlined: 0,
        gotos: std::collections::BTreeSet::new(),
        math_h: tu.math_h,
        negs: BTreeMap::new(),
        implicit: BTreeSet::new(),
        warnings: Vec::new(),
        global_ptrs: BTreeMap::new(),
    };
    l.top(top_fn, lines)
}

/// The names assigned or incremented anywhere in the file (whatever they name there): the
/// globals among them become memories, the others are constants.
fn written_names(tu: &TranslationUnit) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut visit = |e: &Expr| {
        let mut work = vec![e];
        while let Some(e) = work.pop() {
            if let ExprKind::Assign(_, a, _) | ExprKind::IncDec { expr: a, .. } = &e.kind
                && let ExprKind::Ident(n) = &a.kind
            {
                out.insert(n.clone());
            }
            work.extend(e.evaluated_children());
        }
    };
    for f in &tu.functions {
        if let Some(b) = &f.body {
            b.for_each_expr(&mut visit);
        }
    }
    out
}

/// The first call cycle found by a depth-first search over `order` (function names in source
/// order) and `calls` (each function's calls in source order): the functions along the cycle,
/// starting and ending with the same one, and the span of the call that closes it.
fn find_recursion(
    order: &[&str],
    calls: &BTreeMap<&str, Vec<(String, Span)>>,
) -> Option<(Vec<String>, Span)> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        OnStack,
        Done,
    }
    let mut mark: BTreeMap<&str, Mark> = order.iter().map(|n| (*n, Mark::New)).collect();
    for &root in order {
        if mark.get(root) != Some(&Mark::New) {
            continue;
        }
        // (function, index of its next call to follow); iterative, so a long call chain
        // takes no stack.
        let mut stack: Vec<(&str, usize)> = vec![(root, 0)];
        mark.insert(root, Mark::OnStack);
        while let Some(&mut (f, ref mut next)) = stack.last_mut() {
            let callees = calls.get(f).map(Vec::as_slice).unwrap_or(&[]);
            let Some((callee, span)) = callees.get(*next) else {
                mark.insert(f, Mark::Done);
                stack.pop();
                continue;
            };
            *next += 1;
            match mark.get(callee.as_str()) {
                Some(Mark::New) => {
                    let callee = mark.get_key_value(callee.as_str()).map(|(k, _)| *k)?;
                    mark.insert(callee, Mark::OnStack);
                    stack.push((callee, 0));
                }
                Some(Mark::OnStack) => {
                    let from = stack.iter().position(|(g, _)| *g == callee.as_str())?;
                    let mut cycle: Vec<String> =
                        stack[from..].iter().map(|(g, _)| g.to_string()).collect();
                    cycle.push(callee.clone());
                    return Some((cycle, *span));
                }
                // Done, or not defined in this file (reported where it is called).
                _ => {}
            }
        }
    }
    None
}

fn const_convert_val((v, from): ConstVal, to: IntTy) -> i64 {
    const_convert(v, from, to)
}

/// Appends every call in `s` (callee name and call span), in source order.
fn collect_calls_stmt(s: &Stmt, out: &mut Vec<(String, Span)>) {
    s.for_each_expr(&mut |e| collect_calls_expr(e, out));
}

fn collect_calls_expr(e: &Expr, out: &mut Vec<(String, Span)>) {
    let mut work = vec![e];
    while let Some(e) = work.pop() {
        if let ExprKind::Call(n, _) = &e.kind {
            out.push((n.clone(), e.span));
        }
        // Pushed right to left, so calls come out in source order.
        work.extend(e.evaluated_children().into_iter().rev());
    }
}

/// Flattens an initializer for an array with dims `dims` into `out` (element slots).
fn flatten_init<'e>(
    items: &'e [Init],
    dims: &[u64],
    base: usize,
    out: &mut Vec<Option<&'e Expr>>,
    span: Span,
) -> CResult<()> {
    let sub: u64 = dims[1..].iter().product();
    let total = dims[0] * sub;
    let mut cur: u64 = 0;
    for item in items {
        if cur >= total {
            return Err(RawError::new(
                item.span(),
                "excess elements in array initializer",
            ));
        }
        match item {
            Init::List(inner, sp) if dims.len() > 1 => {
                cur = cur.div_ceil(sub) * sub;
                if cur >= total {
                    return Err(RawError::new(*sp, "excess elements in array initializer"));
                }
                flatten_init(inner, &dims[1..], base + cur as usize, out, *sp)?;
                cur += sub;
            }
            Init::List(inner, sp) => match inner.as_slice() {
                [Init::Expr(e)] => {
                    out[base + cur as usize] = Some(e);
                    cur += 1;
                }
                _ => {
                    return Err(RawError::new(
                        *sp,
                        "invalid initializer for an array element",
                    ));
                }
            },
            Init::Expr(e) => {
                out[base + cur as usize] = Some(e);
                cur += 1;
            }
        }
    }
    let _ = span;
    Ok(())
}

/// Is evaluating `e` free of side effects, memory accesses and traps (so it may be speculated)?
/// Every node of the tree must be harmless on its own, so the tree is walked with a work list
/// (no recursion on long operator chains).
fn speculatable(e: &Expr) -> bool {
    let mut work = vec![e];
    while let Some(e) = work.pop() {
        match &e.kind {
            ExprKind::IntLit(..) | ExprKind::Ident(_) => {}
            ExprKind::Unary(op, a) => {
                if matches!(op, UnOp::Deref | UnOp::AddrOf) {
                    return false;
                }
                work.push(a);
            }
            ExprKind::Binary(op, a, b) => match op {
                BinOp::Div | BinOp::Rem => return false,
                BinOp::Shl | BinOp::Shr => {
                    if !matches!(b.kind, ExprKind::IntLit(v, _) if v < 32) {
                        return false;
                    }
                    work.push(a);
                }
                _ => {
                    work.push(a);
                    work.push(b);
                }
            },
            ExprKind::Cond(a, b, c) => work.extend([&**a, &**b, &**c]),
            ExprKind::FloatLit(..) => {}
            ExprKind::Cast(CType::Scalar(_), a) => work.push(a),
            _ => return false,
        }
    }
    true
}

/// A lowered value on the way up a chain of binary operators: an integer of its C type, or
/// an `i1` condition (comparisons and `&&`/`||` produce one; C turns it into an `int` only
/// when it is used as a number). The span is that of the expression that produced it.
#[derive(Clone, Copy)]
enum Val {
    Int(Rv),
    Bool(ValueId),
}

/// A member access that the struct pass left (so its base is no struct).
fn not_a_struct(span: Span) -> RawError {
    RawError::new(span, "member access on a value that is not a struct")
}

/// The arithmetic type of an operand of type `t` at `span`, or why it cannot be a number.
fn scalar_type(t: CType, span: Span) -> CResult<Scalar> {
    match t {
        CType::Scalar(t) => Ok(t),
        CType::Void => Err(RawError::new(span, "void value used in an expression")),
        CType::Array(..) => Err(RawError::new(
            span,
            "an array used as a number (it is a pointer to its first element here)",
        )),
        CType::Pointer(_) => Err(RawError::new(
            span,
            "a pointer used as a number (pointers are compared, subtracted and dereferenced)",
        )),
        CType::Struct(_) | CType::StructArray(..) => {
            Err(RawError::new(span, "a struct used as a number"))
        }
    }
}

/// The error for a floating operand `what` requires an integer for (an array index, the
/// operand of `%`, a shift, a bitwise operator, `~` or a `switch`).
fn float_not_allowed(span: Span, t: FloatTy, what: &str) -> RawError {
    RawError::new(
        span,
        format!(
            "{what} must have an integer type, but this operand is '{}'",
            t.c_name()
        ),
    )
    .with_help("convert it explicitly, as in (int)x, which truncates toward zero")
}

/// `t` as an integer type, or the located error for a float where `what` needs an integer.
fn require_int(t: Scalar, span: Span, what: &str) -> CResult<IntTy> {
    match t {
        Scalar::Int(i) => Ok(i),
        Scalar::Float(f) => Err(float_not_allowed(span, f, what)),
    }
}

/// What a binary operator that needs integer operands calls them in a diagnostic.
fn int_only(op: BinOp) -> Option<&'static str> {
    match op {
        BinOp::Rem => Some("the operand of '%'"),
        BinOp::Shl => Some("the operand of '<<'"),
        BinOp::Shr => Some("the operand of '>>'"),
        BinOp::And => Some("the operand of '&'"),
        BinOp::Or => Some("the operand of '|'"),
        BinOp::Xor => Some("the operand of '^'"),
        BinOp::Add
        | BinOp::Sub
        | BinOp::Mul
        | BinOp::Div
        | BinOp::Lt
        | BinOp::Gt
        | BinOp::Le
        | BinOp::Ge
        | BinOp::Eq
        | BinOp::Ne
        | BinOp::LogAnd
        | BinOp::LogOr => None,
    }
}

/// The IR operation of C's `+ - * /` on floats.
fn float_binop(op: BinOp) -> Option<BinaryOp> {
    Some(match op {
        BinOp::Add => BinaryOp::AddF,
        BinOp::Sub => BinaryOp::SubF,
        BinOp::Mul => BinaryOp::MulF,
        BinOp::Div => BinaryOp::DivF,
        _ => return None,
    })
}

/// The `cmpf` predicate of a C comparison: ordered for `< <= > >= ==` (false on NaN),
/// unordered for `!=` (true on NaN), as C requires.
fn float_pred(op: BinOp) -> Option<CmpPred> {
    Some(CmpPred::Float(match op {
        BinOp::Lt => FloatPredicate::Olt,
        BinOp::Le => FloatPredicate::Ole,
        BinOp::Gt => FloatPredicate::Ogt,
        BinOp::Ge => FloatPredicate::Oge,
        BinOp::Eq => FloatPredicate::Oeq,
        BinOp::Ne => FloatPredicate::Une,
        _ => return None,
    }))
}

impl<'a> Lowerer<'a> {
    // ---------- helpers ----------

    /// A constant of type `ty`: `value` is reduced modulo 2^width for types of at most 64
    /// bits; for a wider type it is the wide word as `i64` (see [`super::arith::const_word`]),
    /// so only values in `0..2^63` may be given directly (others through
    /// [`Lowerer::constant_word`]).
    fn constant(&mut self, value: i64, ty: Type, span: Span) -> ValueId {
        let value = if super::arith::is_wide(ty.bits()) {
            value
        } else {
            super::arith::sext(value as u64, ty.bits())
        };
        let v = self.b.inst(InstKind::Const { value }, &[ty], span)[0];
        self.consts.insert(v, value);
        v
    }

    /// A constant of type `ty` given as its word.
    fn constant_word(&mut self, word: u64, ty: Type, span: Span) -> ValueId {
        self.constant(super::arith::word_const(word, ty.bits()), ty, span)
    }

    fn binary(&mut self, op: BinaryOp, l: ValueId, r: ValueId, span: Span) -> CResult<ValueId> {
        let ty = self.b.ty(l);
        if let (Some(&a), Some(&c)) = (self.consts.get(&l), self.consts.get(&r)) {
            let m = super::arith::mask(ty.bits());
            // A float division by a constant zero stays in the circuit, so that it raises its
            // division-by-zero event when it runs (integer ones are not folded either).
            let zero_divisor = op == BinaryOp::DivF && (c as u64 & (m >> 1)) == 0;
            if let (Ok(res), false) = (
                super::arith::binary(op, ty.bits(), a as u64 & m, c as u64 & m),
                zero_divisor,
            ) {
                return Ok(self.constant_word(res, ty, span));
            }
        }
        Ok(self
            .b
            .inst(InstKind::Binary { op, lhs: l, rhs: r }, &[ty], span)[0])
    }

    fn cmp(&mut self, pred: CmpPred, l: ValueId, r: ValueId, span: Span) -> ValueId {
        let ty = self.b.ty(l);
        if let (Some(&a), Some(&c)) = (self.consts.get(&l), self.consts.get(&r)) {
            let m = super::arith::mask(ty.bits());
            let res = super::arith::compare(pred, ty.bits(), a as u64 & m, c as u64 & m);
            return self.constant(res as i64, Type::Int(1), span);
        }
        self.b.inst(
            InstKind::Cmp {
                pred,
                lhs: l,
                rhs: r,
            },
            &[Type::Int(1)],
            span,
        )[0]
    }

    fn cast(&mut self, op: CastOp, v: ValueId, to: Type, span: Span) -> ValueId {
        if let Some(&c) = self.consts.get(&v) {
            let from = self.b.ty(v).bits();
            let res = super::arith::cast(op, from, to.bits(), c as u64 & super::arith::mask(from));
            return self.constant_word(res, to, span);
        }
        self.b.inst(InstKind::Cast { op, value: v }, &[to], span)[0]
    }

    fn unary(&mut self, op: UnaryOp, v: ValueId, span: Span) -> ValueId {
        let ty = self.b.ty(v);
        if let Some(&c) = self.consts.get(&v) {
            let m = super::arith::mask(ty.bits());
            let res = super::arith::unary(op, ty.bits(), c as u64 & m);
            return self.constant_word(res, ty, span);
        }
        self.b.inst(InstKind::Unary { op, value: v }, &[ty], span)[0]
    }

    /// C conversion of `rv` to type `to` (the steps of [`conversion`]); a conversion between
    /// a floating type and an integer wider than 64 bits is an error.
    fn convert(&mut self, rv: Rv, to: Scalar, span: Span) -> CResult<ValueId> {
        if super::consteval::float_wide_mix(rv.ty, to) {
            return Err(super::consteval::float_wide_error(span, rv.ty, to));
        }
        let mut v = rv.v;
        for step in conversion(rv.ty, to) {
            v = match step {
                Step::Cast(op, t) => self.cast(op, v, t, span),
                Step::NeZero => {
                    let t = self.b.ty(v);
                    let z = self.constant(0, t, span);
                    self.cmp(ne_zero(t), v, z, span)
                }
            };
        }
        Ok(v)
    }

    fn promote(&mut self, rv: Rv, span: Span) -> CResult<Rv> {
        let t = rv.ty.promote();
        Ok(Rv {
            v: self.convert(rv, t, span)?,
            ty: t,
        })
    }

    /// The block of label `name` in the current function, created on first mention.
    fn label_block(&mut self, name: &str, at: Span) -> CResult<&mut LabelSlot> {
        let Some(frame) = self.frames.last_mut() else {
            return Err(RawError::new(at, "label outside a function"));
        };
        if !frame.labels.contains_key(name) {
            let block = self.b.new_block();
            frame.labels.insert(
                name.to_string(),
                LabelSlot {
                    block,
                    defined: None,
                    first_goto: None,
                },
            );
        }
        Ok(frame.labels.get_mut(name).expect("inserted above"))
    }

    /// At the end of a function: every `goto` target must be defined; the label blocks get
    /// sealed now that all their predecessors are known.
    fn finish_labels(&mut self) -> CResult<()> {
        let Some(frame) = self.frames.last_mut() else {
            return Ok(());
        };
        let labels = std::mem::take(&mut frame.labels);
        for (name, slot) in &labels {
            if slot.defined.is_none()
                && let Some(at) = slot.first_goto
            {
                return Err(RawError::new(
                    at,
                    format!("label '{name}' used but not defined"),
                ));
            }
        }
        for slot in labels.values() {
            self.b.seal(slot.block);
        }
        Ok(())
    }

    fn dead_block(&mut self) {
        let d = self.b.new_block();
        self.b.seal(d);
        self.b.switch_to(d);
    }

    fn lookup(&self, name: &str) -> Option<&Sym> {
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.get(name))
            .or_else(|| self.global_ptrs.get(name))
    }

    fn new_memory(
        &mut self,
        name: &str,
        elem: Scalar,
        dims: Vec<u64>,
        kind: MemoryKind,
        span: Span,
    ) -> MemId {
        let len = dims.iter().product();
        let token = self.b.new_var(&format!("{name}.token"), Type::Token);
        self.mems.push(MemInfo {
            mem: Memory {
                name: name.to_string(),
                elem,
                dims,
                len,
                kind,
                read_only: false,
                span,
            },
            token,
        });
        MemId(self.mems.len() as u32 - 1)
    }

    fn global_array(&mut self, name: &str) -> CResult<Option<ArrayRef>> {
        let Some(Global::Array { decl_index, mem }) = self.globals.get(name).cloned() else {
            return Ok(None);
        };
        let d = &self.global_decls[decl_index];
        let CType::Array(elem, dims) = &d.ty else {
            return Ok(None);
        };
        let dims: Vec<u64> = dims.iter().map(|d| d.unwrap_or(1)).collect();
        let mem = match mem {
            Some(m) => m,
            None => {
                let len: u64 = dims.iter().product();
                let mut slots = vec![None; len as usize];
                if let Some(init) = &d.init {
                    match init {
                        Init::List(items, sp) => flatten_init(items, &dims, 0, &mut slots, *sp)?,
                        Init::Expr(e) => {
                            return Err(RawError::new(e.span, "invalid array initializer"));
                        }
                    }
                }
                let mut vals = Vec::with_capacity(slots.len());
                for s in slots {
                    vals.push(match s {
                        Some(e) => eval_as(e, *elem)?,
                        None => 0,
                    });
                }
                let m = self.new_memory(
                    name,
                    *elem,
                    dims.clone(),
                    MemoryKind::Local { init: Some(vals) },
                    d.span,
                );
                self.globals.insert(
                    name.to_string(),
                    Global::Array {
                        decl_index,
                        mem: Some(m),
                    },
                );
                m
            }
        };
        Ok(Some(ArrayRef {
            mem,
            base: None,
            elem: *elem,
            dims: dims.into_iter().map(Some).collect(),
            name: name.to_string(),
            const_name: None,
            param: false,
        }))
    }

    /// The file-scope pointers, each pointing where its initializer says (a constant address
    /// such as `buf` or `&buf[4]`, taken at the kernel's start) or nowhere yet.
    fn declare_global_pointers(&mut self) -> CResult<()> {
        let ptrs: Vec<usize> = self
            .globals
            .values()
            .filter_map(|g| match g {
                Global::Pointer { decl_index } => Some(*decl_index),
                _ => None,
            })
            .collect();
        for i in ptrs {
            let d = &self.global_decls[i];
            let pointee =
                Pointee::of(&d.ty).ok_or_else(|| RawError::new(d.span, "invalid pointer type"))?;
            let init = match &d.init {
                None => None,
                Some(Init::Expr(e)) => Some(e),
                Some(Init::List(items, sp)) => match items.as_slice() {
                    [Init::Expr(e)] => Some(e),
                    _ => return Err(RawError::new(*sp, "invalid pointer initializer")),
                },
            };
            // Declared into a scope of its own, then moved to the file-scope table.
            self.scopes.push(BTreeMap::new());
            let r = self.declare_pointer(&d.name, pointee, d.is_const, init, d.span);
            let scope = self.scopes.pop().unwrap_or_default();
            r?;
            self.global_ptrs.extend(scope);
        }
        Ok(())
    }

    /// The location of the written global scalar `name` (its memory, made on first use).
    fn global_lvalue(&mut self, name: &str, sp: Span) -> CResult<Lv> {
        let Some(Global::Mutable {
            init,
            ty,
            decl_index,
            mem,
        }) = self.globals.get(name).cloned()
        else {
            return Err(RawError::new(
                sp,
                format!("'{name}' is not an assignable global variable"),
            ));
        };
        let mem = match mem {
            Some(m) => m,
            None => {
                let span = self.global_decls[decl_index].span;
                let m = self.new_memory(
                    name,
                    ty,
                    vec![1],
                    MemoryKind::Local {
                        init: Some(vec![init]),
                    },
                    span,
                );
                self.globals.insert(
                    name.to_string(),
                    Global::Mutable {
                        init,
                        ty,
                        decl_index,
                        mem: Some(m),
                    },
                );
                m
            }
        };
        let zero = self.constant(0, Type::Int(32), sp);
        Ok(Lv::Elem(mem, zero, ty))
    }

    fn array_sym(&mut self, name: &str) -> CResult<Option<ArrayRef>> {
        match self.lookup(name) {
            Some(Sym::Array(a)) => Ok(Some(a.clone())),
            Some(Sym::Scalar(..) | Sym::Pointer(_)) => Ok(None),
            None => self.global_array(name),
        }
    }

    // ---------- top level ----------

    fn top(mut self, f: &'a Function, lines: &[LineIndex]) -> CResult<(IrFunction, Vec<RawError>)> {
        let mut params = Vec::new();
        let entry = self.b.cur;
        for (i, p) in f.params.iter().enumerate() {
            match &p.ty {
                CType::Scalar(t) => {
                    let v = self.b.add_param(entry, ity(*t), Some(p.name.clone()));
                    let var = self.b.new_var(&p.name, ity(*t));
                    self.b.write_var(var, v);
                    self.declare(&p.name, Sym::Scalar(var, *t, p.is_const), p.span)?;
                    params.push(IrParam::Scalar {
                        name: p.name.clone(),
                        ty: *t,
                        value: v,
                    });
                }
                CType::Array(elem, dims) => {
                    let Some(dims) = dims.iter().copied().collect::<Option<Vec<u64>>>() else {
                        return Err(RawError::new(
                            p.span,
                            "array parameters of the top function need constant sizes in every dimension",
                        ));
                    };
                    let mem =
                        self.new_memory(&p.name, *elem, dims.clone(), MemoryKind::Param(i), p.span);
                    self.declare(
                        &p.name,
                        Sym::Array(ArrayRef {
                            mem,
                            base: None,
                            elem: *elem,
                            dims: dims.into_iter().map(Some).collect(),
                            name: p.name.clone(),
                            const_name: p.is_const.then(|| p.name.clone()),
                            param: true,
                        }),
                        p.span,
                    )?;
                    params.push(IrParam::Array {
                        name: p.name.clone(),
                        mem,
                    });
                }
                CType::Pointer(_) => {
                    // A pointer parameter of the top function points to one object: a
                    // memory of one element (or one row).
                    let pointee = Pointee::of(&p.ty)
                        .ok_or_else(|| RawError::new(p.span, "invalid pointer parameter"))?;
                    let mut dims = vec![1];
                    dims.extend(pointee.inner.iter().copied());
                    let mem = self.new_memory(
                        &p.name,
                        pointee.elem,
                        dims.clone(),
                        MemoryKind::Param(i),
                        p.span,
                    );
                    let arr = ArrayRef {
                        mem,
                        base: None,
                        elem: pointee.elem,
                        dims: vec![Some(dims.iter().product())],
                        name: p.name.clone(),
                        const_name: p.is_const.then(|| p.name.clone()),
                        param: false,
                    };
                    let off = self.b.new_var(&p.name, Type::Int(32));
                    let zero = self.constant(0, Type::Int(32), p.span);
                    self.b.write_var(off, zero);
                    self.declare(
                        &p.name,
                        Sym::Pointer(PtrSym {
                            target: Some(pointers::Target::Mem(arr)),
                            bound_at: Some(p.span),
                            off,
                            pointee,
                            is_const: p.is_const,
                        }),
                        p.span,
                    )?;
                    params.push(IrParam::Array {
                        name: p.name.clone(),
                        mem,
                    });
                }
                CType::Void | CType::Struct(_) | CType::StructArray(..) => {
                    return Err(RawError::new(p.span, "invalid parameter type"));
                }
            }
        }
        let start = self.b.add_param(entry, Type::Token, Some("start".into()));
        self.b.undef_token = Some(start);
        self.declare_global_pointers()?;
        let ret = match &f.ret {
            CType::Void => None,
            CType::Scalar(t) => Some(*t),
            CType::Array(..) | CType::Pointer(_) | CType::Struct(_) | CType::StructArray(..) => {
                return Err(RawError::new(
                    f.span,
                    "functions returning arrays, pointers or structs are not supported",
                ));
            }
        };
        let exit = self.b.new_block();
        let ret_var = ret.map(|t| self.b.new_var("retval", ity(t)));
        self.frames.push(Frame {
            ret: f.ret.clone(),
            ret_var,
            exit,
            labels: BTreeMap::new(),
        });
        let body = f
            .body
            .as_ref()
            .ok_or_else(|| RawError::new(f.span, "function has no body"))?;
        self.stmt(body)?;
        self.finish_labels()?;
        let end = body.span.end as usize;
        let file_lines = &lines[usize::from(body.span.file).min(lines.len() - 1)];
        let end_span = file_lines.span(end.saturating_sub(1), end);
        if !self.b.terminated() {
            self.b.br(exit, end_span);
        }
        self.b.seal(exit);
        self.b.switch_to(exit);
        let value = ret_var.map(|v| self.b.read_var(v));
        let toks: Vec<ValueId> = (0..self.mems.len())
            .map(|i| {
                let t = self.mems[i].token;
                self.b.read_var(t)
            })
            .collect();
        self.b.ret(value, toks, end_span);
        let fin = self.b.finish().map_err(|m| RawError::new(f.span, m))?;
        super::reducible::check_reducible(&fin.blocks, &self.gotos)?;
        let map = |v: ValueId| fin.remap.get(&v).copied().unwrap_or(v);
        let params = params
            .into_iter()
            .map(|p| match p {
                IrParam::Scalar { name, ty, value } => IrParam::Scalar {
                    name,
                    ty,
                    value: map(value),
                },
                a => a,
            })
            .collect();
        let warnings = std::mem::take(&mut self.warnings);
        let mut memories: Vec<Memory> = self.mems.into_iter().map(|m| m.mem).collect();
        let mut func = IrFunction {
            name: f.name.clone(),
            params,
            ret,
            memories: Vec::new(),
            blocks: fin.blocks,
            value_types: fin.value_types,
            value_names: fin.value_names,
            start_token: map(start),
            span: f.span,
        };
        super::opt::fold_constant_branches(&mut func);
        super::opt::dce(&mut func);
        super::opt::merge_blocks(&mut func);
        for (i, m) in memories.iter_mut().enumerate() {
            m.read_only = !func.blocks.iter().any(|b| {
                b.insts.iter().any(
                    |inst| matches!(inst.kind, InstKind::Store { mem, .. } if mem.0 as usize == i),
                )
            });
        }
        func.memories = memories;
        Ok((func, warnings))
    }

    fn declare(&mut self, name: &str, sym: Sym, span: Span) -> CResult<()> {
        let scope = self
            .scopes
            .last_mut()
            .ok_or_else(|| RawError::new(span, "no scope"))?;
        if scope.contains_key(name) {
            return Err(RawError::new(span, format!("redefinition of '{name}'")));
        }
        scope.insert(name.to_string(), sym);
        Ok(())
    }

    // ---------- statements ----------

    fn stmt(&mut self, s: &Stmt) -> CResult<()> {
        match &s.kind {
            StmtKind::Expr(e) => self.effect(e),
            StmtKind::Decl(ds) => {
                for d in ds {
                    self.local_decl(d)?;
                }
                Ok(())
            }
            StmtKind::Block(items) => {
                self.scopes.push(BTreeMap::new());
                let r = items.iter().try_for_each(|s| self.stmt(s));
                self.scopes.pop();
                r
            }
            StmtKind::Empty => Ok(()),
            StmtKind::If(c, t, e) => {
                let cv = self.cond(c)?;
                let tb = self.b.new_block();
                let mb = self.b.new_block();
                let eb = if e.is_some() { self.b.new_block() } else { mb };
                self.b.cond_br(cv, tb, eb, c.span);
                self.b.seal(tb);
                self.b.switch_to(tb);
                self.stmt(t)?;
                if !self.b.terminated() {
                    self.b.br(mb, s.span);
                }
                if let Some(e) = e {
                    self.b.seal(eb);
                    self.b.switch_to(eb);
                    self.stmt(e)?;
                    if !self.b.terminated() {
                        self.b.br(mb, s.span);
                    }
                }
                self.b.seal(mb);
                self.b.switch_to(mb);
                Ok(())
            }
            StmtKind::While(c, body) => {
                // Rotated: a guard, then the body with the test at its end, so each
                // iteration evaluates the condition once and the loop is left in the
                // same cycle as its last iteration (`for` likewise).
                let bb = self.b.new_block();
                let lb = self.b.new_block();
                let xb = self.b.new_block();
                let cv = self.cond(c)?;
                self.b.cond_br(cv, bb, xb, c.span);
                self.b.switch_to(bb);
                self.loop_depth += 1;
                self.loop_body(body, xb, lb, s.span)?;
                self.b.seal(lb);
                self.b.switch_to(lb);
                let cv = self.cond(c)?;
                self.b.cond_br(cv, bb, xb, c.span);
                self.loop_depth -= 1;
                self.b.seal(bb);
                self.b.seal(xb);
                self.b.switch_to(xb);
                Ok(())
            }
            StmtKind::DoWhile(body, c) => {
                let bb = self.b.new_block();
                let cb = self.b.new_block();
                let xb = self.b.new_block();
                self.b.br(bb, s.span);
                self.b.switch_to(bb);
                self.loop_depth += 1;
                self.loop_body(body, xb, cb, s.span)?;
                self.b.seal(cb);
                self.b.switch_to(cb);
                let cv = self.cond(c)?;
                self.loop_depth -= 1;
                self.b.cond_br(cv, bb, xb, c.span);
                self.b.seal(bb);
                self.b.seal(xb);
                self.b.switch_to(xb);
                Ok(())
            }
            StmtKind::For(init, c, step, body) => {
                // Rotated like `while`: guard, body, step, test.
                self.scopes.push(BTreeMap::new());
                if let Some(i) = init {
                    self.stmt(i)?;
                }
                let bb = self.b.new_block();
                let xb = self.b.new_block();
                match c {
                    Some(c) => {
                        let cv = self.cond(c)?;
                        self.b.cond_br(cv, bb, xb, c.span);
                    }
                    None => self.b.br(bb, s.span),
                }
                self.b.switch_to(bb);
                self.loop_depth += 1;
                let sb = self.b.new_block();
                self.loop_body(body, xb, sb, s.span)?;
                self.b.seal(sb);
                self.b.switch_to(sb);
                if let Some(st) = step {
                    self.effect(st)?;
                }
                match c {
                    Some(c) => {
                        let cv = self.cond(c)?;
                        self.b.cond_br(cv, bb, xb, c.span);
                    }
                    None => self.b.br(bb, step.as_ref().map_or(s.span, |e| e.span)),
                }
                self.loop_depth -= 1;
                self.b.seal(bb);
                self.b.seal(xb);
                self.b.switch_to(xb);
                self.scopes.pop();
                Ok(())
            }
            StmtKind::Switch(c, body) => self.switch(c, body, s.span),
            StmtKind::Case(e, body) => {
                let val = eval_const(e)?;
                let Some(sw) = self.switches.last() else {
                    return Err(RawError::new(
                        s.span,
                        "'case' label not within a switch statement",
                    ));
                };
                let v = const_convert_val(val, sw.ty);
                if sw.cases.iter().any(|(c, _)| *c == v) {
                    let bits = sw.ty.bits();
                    // A constant wider than 64 bits is held as its word: print its value.
                    let shown = if handscope_sim::wide::is_wide(bits) {
                        handscope_sim::wide::to_decimal(v as u64, bits, sw.ty.signed)
                    } else {
                        v.to_string()
                    };
                    return Err(RawError::new(
                        e.span,
                        format!("duplicate case value {shown}"),
                    ));
                }
                let blk = self.b.new_block();
                if !self.b.terminated() {
                    self.b.br(blk, s.span);
                }
                self.b.switch_to(blk);
                if let Some(sw) = self.switches.last_mut() {
                    sw.cases.push((v, blk));
                }
                self.stmt(body)
            }
            StmtKind::Default(body) => {
                let Some(sw) = self.switches.last() else {
                    return Err(RawError::new(
                        s.span,
                        "'default' label not within a switch statement",
                    ));
                };
                if sw.default.is_some() {
                    return Err(RawError::new(
                        s.span,
                        "multiple default labels in one switch",
                    ));
                }
                let blk = self.b.new_block();
                if !self.b.terminated() {
                    self.b.br(blk, s.span);
                }
                self.b.switch_to(blk);
                if let Some(sw) = self.switches.last_mut() {
                    sw.default = Some(blk);
                }
                self.stmt(body)
            }
            StmtKind::Label(name, body) => {
                let slot = self.label_block(name, s.span)?;
                if let Some(first) = slot.defined {
                    let line = first.line;
                    return Err(RawError::new(
                        s.span,
                        format!("redefinition of label '{name}' (first defined on line {line})"),
                    ));
                }
                slot.defined = Some(s.span);
                let blk = slot.block;
                if !self.b.terminated() {
                    self.b.br(blk, s.span);
                }
                self.b.switch_to(blk);
                self.stmt(body)
            }
            StmtKind::Goto(name) => {
                let slot = self.label_block(name, s.span)?;
                slot.first_goto.get_or_insert(s.span);
                let blk = slot.block;
                self.gotos.insert((s.span.start, s.span.end));
                self.b.br(blk, s.span);
                self.dead_block();
                Ok(())
            }
            StmtKind::Break => {
                let Some(t) = self.jumps.iter().rev().find_map(|j| j.brk) else {
                    return Err(RawError::new(
                        s.span,
                        "'break' statement not in a loop or switch",
                    ));
                };
                self.b.br(t, s.span);
                self.dead_block();
                Ok(())
            }
            StmtKind::Continue => {
                let Some(t) = self.jumps.iter().rev().find_map(|j| j.cont) else {
                    return Err(RawError::new(s.span, "'continue' statement not in a loop"));
                };
                self.b.br(t, s.span);
                self.dead_block();
                Ok(())
            }
            StmtKind::Return(e) => {
                let (ret, ret_var, exit) = match self.frames.last() {
                    Some(f) => (f.ret.clone(), f.ret_var, f.exit),
                    None => return Err(RawError::new(s.span, "return outside a function")),
                };
                match (e, &ret, ret_var) {
                    (Some(e), CType::Scalar(t), Some(var)) => {
                        let rv = self.rvalue(e)?;
                        let v = self.convert(rv, *t, e.span)?;
                        self.b.write_var(var, v);
                    }
                    (Some(e), CType::Void, _) => {
                        if self.expr_type(e)? != CType::Void {
                            return Err(RawError::new(
                                e.span,
                                "void function should not return a value",
                            ));
                        }
                        self.effect(e)?;
                    }
                    // C99 6.8.6.4: a `return` without a value only in a `void` function (the
                    // value would otherwise be whatever the return variable held).
                    (None, CType::Scalar(t), _) => {
                        return Err(RawError::new(
                            s.span,
                            format!("`return` without a value in a function returning `{t}`"),
                        ));
                    }
                    _ => {}
                }
                self.b.br(exit, s.span);
                self.dead_block();
                Ok(())
            }
        }
    }

    fn loop_body(&mut self, body: &Stmt, brk: BlockId, cont: BlockId, span: Span) -> CResult<()> {
        self.jumps.push(Jump {
            brk: Some(brk),
            cont: Some(cont),
        });
        let r = self.stmt(body);
        self.jumps.pop();
        r?;
        if !self.b.terminated() {
            self.b.br(cont, span);
        }
        Ok(())
    }

    fn switch(&mut self, c: &Expr, body: &Stmt, span: Span) -> CResult<()> {
        let rv = self.rvalue(c)?;
        let rv = self.promote(rv, c.span)?;
        let ty = require_int(rv.ty, c.span, "the controlling expression of 'switch'")?;
        let head = self.b.cur;
        let xb = self.b.new_block();
        self.switches.push(SwitchCtx {
            ty,
            cases: Vec::new(),
            default: None,
        });
        self.jumps.push(Jump {
            brk: Some(xb),
            cont: None,
        });
        self.dead_block();
        let r = self.stmt(body);
        self.jumps.pop();
        let sw = self.switches.pop();
        r?;
        let Some(sw) = sw else { return Ok(()) };
        if !self.b.terminated() {
            self.b.br(xb, span);
        }
        self.b.switch_to(head);
        for (v, blk) in &sw.cases {
            let k = self.constant(*v, ity(rv.ty), c.span);
            let eq = self.cmp(CmpPred::Eq, rv.v, k, c.span);
            let next = self.b.new_block();
            self.b.cond_br(eq, *blk, next, c.span);
            self.b.seal(next);
            self.b.switch_to(next);
        }
        self.b.br(sw.default.unwrap_or(xb), c.span);
        for (_, blk) in &sw.cases {
            self.b.seal(*blk);
        }
        if let Some(d) = sw.default {
            self.b.seal(d);
        }
        self.b.seal(xb);
        self.b.switch_to(xb);
        Ok(())
    }

    fn local_decl(&mut self, d: &Decl) -> CResult<()> {
        if d.is_static && !d.is_const {
            return Err(RawError::new(
                d.span,
                "static local variables are not supported (they would be state across calls)",
            ));
        }
        match &d.ty {
            CType::Scalar(t) => {
                let var = self.b.new_var(&d.name, ity(*t));
                if let Some(init) = &d.init {
                    let e = match init {
                        Init::Expr(e) => e,
                        Init::List(items, sp) => match items.as_slice() {
                            [Init::Expr(e)] => e,
                            _ => return Err(RawError::new(*sp, "invalid scalar initializer")),
                        },
                    };
                    let rv = self.rvalue(e)?;
                    let v = self.convert(rv, *t, e.span)?;
                    self.b.write_var(var, v);
                }
                self.declare(&d.name, Sym::Scalar(var, *t, d.is_const), d.span)
            }
            CType::Array(elem, dims) => {
                let dims: Vec<u64> = dims.iter().map(|d| d.unwrap_or(1)).collect();
                let len: u64 = dims.iter().product();
                let mut slots: Vec<Option<&Expr>> = vec![None; len as usize];
                match &d.init {
                    Some(Init::List(items, sp)) => flatten_init(items, &dims, 0, &mut slots, *sp)?,
                    Some(Init::Expr(e)) => {
                        return Err(RawError::new(e.span, "array initializer must be a list"));
                    }
                    None => {}
                }
                let once = self.loop_depth == 0 || d.is_static;
                let consts: Option<Vec<i64>> = slots
                    .iter()
                    .map(|s| match s {
                        None => Some(0),
                        Some(e) => eval_as(e, *elem).ok(),
                    })
                    .collect();
                let (init_contents, needs_stores) = match (&d.init, once, consts) {
                    (None, _, _) => (None, false),
                    (Some(_), true, Some(vals)) => (Some(vals), false),
                    _ => (None, true),
                };
                let mem = self.new_memory(
                    &d.name,
                    *elem,
                    dims.clone(),
                    MemoryKind::Local {
                        init: init_contents,
                    },
                    d.span,
                );
                if needs_stores {
                    for (i, s) in slots.iter().enumerate() {
                        let (v, sp) = match s {
                            Some(e) => {
                                let rv = self.rvalue(e)?;
                                (self.convert(rv, *elem, e.span)?, e.span)
                            }
                            None => (self.constant(0, ity(*elem), d.span), d.span),
                        };
                        let idx = self.constant(i as i64, Type::Int(32), sp);
                        self.store(mem, idx, v, sp);
                    }
                }
                self.declare(
                    &d.name,
                    Sym::Array(ArrayRef {
                        mem,
                        base: None,
                        elem: *elem,
                        dims: dims.into_iter().map(Some).collect(),
                        name: d.name.clone(),
                        const_name: d.is_const.then(|| d.name.clone()),
                        param: false,
                    }),
                    d.span,
                )
            }
            CType::Pointer(_) => {
                let pointee = Pointee::of(&d.ty)
                    .ok_or_else(|| RawError::new(d.span, "invalid pointer type"))?;
                let init = match &d.init {
                    None => None,
                    Some(Init::Expr(e)) => Some(e),
                    Some(Init::List(items, sp)) => match items.as_slice() {
                        [Init::Expr(e)] => Some(e),
                        _ => return Err(RawError::new(*sp, "invalid pointer initializer")),
                    },
                };
                self.declare_pointer(&d.name, pointee, d.is_const, init, d.span)
            }
            CType::Void | CType::Struct(_) | CType::StructArray(..) => {
                Err(RawError::new(d.span, "variable declared void"))
            }
        }
    }

    // ---------- memory ----------

    fn load(&mut self, mem: MemId, index: ValueId, span: Span) -> ValueId {
        let info = &self.mems[mem.0 as usize];
        let (tv, ty) = (info.token, ity(info.mem.elem));
        let tok = self.b.read_var(tv);
        let r = self.b.inst(
            InstKind::Load {
                mem,
                index,
                token: tok,
            },
            &[ty, Type::Token],
            span,
        );
        self.b.write_var(tv, r[1]);
        r[0]
    }

    fn store(&mut self, mem: MemId, index: ValueId, value: ValueId, span: Span) {
        let tv = self.mems[mem.0 as usize].token;
        let tok = self.b.read_var(tv);
        let r = self.b.inst(
            InstKind::Store {
                mem,
                index,
                value,
                token: tok,
            },
            &[Type::Token],
            span,
        );
        self.b.write_var(tv, r[0]);
    }

    /// Resolves `a[i][j]...`: either an element (`Ok(Ok(..))`) or a sub-array view.
    fn subscript(
        &mut self,
        e: &Expr,
    ) -> CResult<Result<(MemId, ValueId, Scalar, ArrayRef), ArrayRef>> {
        let mut idx_exprs = Vec::new();
        let mut cur = e;
        while let ExprKind::Index(b, i) = &cur.kind {
            idx_exprs.push(i.as_ref());
            cur = b;
        }
        idx_exprs.reverse();
        let pointer_base = match &cur.kind {
            ExprKind::Ident(n) => matches!(self.lookup(n), Some(Sym::Pointer(_))),
            _ => true,
        };
        let arr_from_ptr = if pointer_base {
            if !matches!(self.expr_type(cur)?, CType::Pointer(_) | CType::Array(..)) {
                return Err(RawError::new(
                    cur.span,
                    "subscripted value is not an array or a pointer",
                ));
            }
            let p = self.ptr_value(cur)?;
            Some(self.ptr_view(&p, cur.span)?)
        } else {
            None
        };
        let name = match &cur.kind {
            ExprKind::Ident(n) => n.clone(),
            _ => arr_from_ptr
                .as_ref()
                .map(|a| a.name.clone())
                .unwrap_or_default(),
        };
        let name = &name;
        let found = match arr_from_ptr {
            Some(a) => Some(a),
            None => self.array_sym(name)?,
        };
        let Some(arr) = found else {
            if self.lookup(name).is_some() || self.globals.contains_key(name) {
                return Err(RawError::new(
                    cur.span,
                    format!("subscripted value '{name}' is not an array"),
                ));
            }
            return Err(RawError::new(
                cur.span,
                format!("use of undeclared identifier '{name}'"),
            ));
        };
        if idx_exprs.len() > arr.dims.len() {
            return Err(RawError::new(
                e.span,
                format!("too many subscripts for array '{name}'"),
            ));
        }
        let mut linear = arr.base;
        for (k, ie) in idx_exprs.iter().enumerate() {
            self.check_constant_index(ie, arr.dims[k], name, k, arr.dims.len())?;
            let rv = self.rvalue(ie)?;
            require_int(rv.ty, ie.span, "an array index")?;
            let iv = self.convert(rv, Scalar::INT, ie.span)?;
            let stride: u64 = arr.dims[k + 1..].iter().map(|d| d.unwrap_or(1)).product();
            let term = if stride == 1 {
                iv
            } else {
                let s = self.constant(stride as i64, Type::Int(32), ie.span);
                self.binary(BinaryOp::MulI, iv, s, ie.span)?
            };
            linear = Some(match linear {
                None => term,
                Some(l) => self.binary(BinaryOp::AddI, l, term, ie.span)?,
            });
        }
        let linear = match linear {
            Some(l) => l,
            None => self.constant(0, Type::Int(32), e.span),
        };
        if idx_exprs.len() == arr.dims.len() {
            Ok(Ok((arr.mem, linear, arr.elem, arr)))
        } else {
            Ok(Err(ArrayRef {
                base: Some(linear),
                dims: arr.dims[idx_exprs.len()..].to_vec(),
                param: false,
                ..arr
            }))
        }
    }

    /// Rejects an index that is an integer constant expression outside `0..dim` (C leaves
    /// such an access undefined; the hardware would read or write a wrong address).
    fn check_constant_index(
        &self,
        ie: &Expr,
        dim: Option<u64>,
        name: &str,
        k: usize,
        rank: usize,
    ) -> CResult<()> {
        let Some(dim) = dim else { return Ok(()) };
        let lookup = |n: &str| match (self.lookup(n), self.globals.get(n)) {
            (None, Some(Global::Scalar(v, Scalar::Int(t)))) => Some((*v, *t)),
            _ => None,
        };
        let Ok((v, t)) = super::consteval::eval_with(ie, &lookup) else {
            return Ok(());
        };
        if super::arith::is_wide(t.bits()) && v < 0 {
            // A wide word of 2^63 or more: out of range whatever its sign.
            let text = handscope_sim::wide::to_decimal(v as u64, t.bits(), t.signed);
            return Err(RawError::new(
                ie.span,
                format!("array index {text} is out of the bounds of '{name}'"),
            )
            .with_help(format!("valid indices are 0 to {}", dim - 1)));
        }
        let v = i128::from(v);
        let v = if t.signed {
            v
        } else {
            v & ((1i128 << t.bits()) - 1)
        };
        if v >= 0 && v < i128::from(dim) {
            return Ok(());
        }
        let of = if rank > 1 {
            format!("dimension {} of '{name}'", k + 1)
        } else {
            format!("'{name}'")
        };
        let msg = if v < 0 {
            format!("array index {v} is before the start of {of}")
        } else {
            format!("array index {v} is past the end of {of} ({dim} elements)")
        };
        Err(RawError::new(ie.span, msg).with_help(format!("valid indices are 0 to {}", dim - 1)))
    }

    fn lvalue(&mut self, e: &Expr) -> CResult<Lv> {
        match &e.kind {
            ExprKind::Ident(n) => match self.lookup(n) {
                Some(Sym::Scalar(_, _, true)) => Err(RawError::new(
                    e.span,
                    format!("cannot assign to '{n}': it is declared const"),
                )),
                Some(Sym::Scalar(v, t, false)) => Ok(Lv::Var(*v, *t)),
                Some(Sym::Array(_)) => Err(RawError::new(
                    e.span,
                    format!("array '{n}' is not assignable"),
                )),
                Some(Sym::Pointer(_)) => Err(RawError::new(
                    e.span,
                    format!("the pointer '{n}' is assigned where a number is expected"),
                )),
                None if self.globals.contains_key(n) => self.global_lvalue(n, e.span),
                None => Err(RawError::new(
                    e.span,
                    format!("use of undeclared identifier '{n}'"),
                )),
            },
            ExprKind::Index(..) => match self.subscript(e)? {
                Ok((mem, idx, elem, arr)) => {
                    let mut root = e;
                    while let ExprKind::Index(b, _) = &root.kind {
                        root = b;
                    }
                    if self.ptr_is_const(root) {
                        return Err(RawError::new(
                            e.span,
                            "cannot write through a pointer to const elements",
                        ));
                    }
                    if let Some(c) = &arr.const_name {
                        let mut base = e;
                        while let ExprKind::Index(b, _) = &base.kind {
                            base = b;
                        }
                        let n = match &base.kind {
                            ExprKind::Ident(n) => n.as_str(),
                            _ => arr.name.as_str(),
                        };
                        let why = if c == n {
                            format!("'{n}' is declared const")
                        } else {
                            format!("'{n}' refers to '{c}', which is declared const")
                        };
                        return Err(RawError::new(
                            e.span,
                            format!("cannot write to an element of '{n}': {why}"),
                        ));
                    }
                    Ok(Lv::Elem(mem, idx, elem))
                }
                Err(_) => Err(RawError::new(e.span, "array is not assignable")),
            },
            ExprKind::Unary(UnOp::Deref, p) => self.deref_lv(p, e.span, true),
            _ => Err(RawError::new(e.span, "expression is not assignable")),
        }
    }

    fn read_lv(&mut self, lv: Lv, span: Span) -> Rv {
        match lv {
            Lv::Var(v, t) => Rv {
                v: self.b.read_var(v),
                ty: t,
            },
            Lv::Elem(m, i, t) => Rv {
                v: self.load(m, i, span),
                ty: t,
            },
        }
    }

    fn write_lv(&mut self, lv: Lv, v: ValueId, span: Span) {
        match lv {
            Lv::Var(var, _) => self.b.write_var(var, v),
            Lv::Elem(m, i, _) => self.store(m, i, v, span),
        }
    }

    // ---------- expressions ----------

    fn is_array_expr(&mut self, e: &Expr) -> bool {
        // Only a name or a subscript (possibly after commas) can have an array type; looking
        // no further keeps operator chains linear.
        let mut last = e;
        while let ExprKind::Comma(_, b) = &last.kind {
            last = b;
        }
        matches!(last.kind, ExprKind::Ident(_) | ExprKind::Index(..))
            && matches!(self.expr_type(last), Ok(CType::Array(..)))
    }

    /// Static type of an expression (without lowering it).
    fn expr_type(&mut self, e: &Expr) -> CResult<CType> {
        let num =
            |s: &mut Self, x: &Expr| -> CResult<Scalar> { scalar_type(s.expr_type(x)?, x.span) };
        Ok(match &e.kind {
            ExprKind::IntLit(_, t) => CType::int(*t),
            ExprKind::FloatLit(_, t) => CType::Scalar(Scalar::Float(*t)),
            ExprKind::Ident(n) => match self.lookup(n) {
                Some(Sym::Scalar(_, t, _)) => CType::Scalar(*t),
                Some(Sym::Array(a)) => CType::Array(a.elem, a.dims.clone()),
                Some(Sym::Pointer(p)) => p.pointee.pointer_type(),
                None => match self.globals.get(n) {
                    Some(Global::Scalar(_, t)) => CType::Scalar(*t),
                    Some(Global::Mutable { ty, .. }) => CType::Scalar(*ty),
                    Some(Global::Pointer { decl_index }) => {
                        self.global_decls[*decl_index].ty.clone()
                    }
                    Some(Global::Array { decl_index, .. }) => {
                        self.global_decls[*decl_index].ty.clone()
                    }
                    None => {
                        if self.funcs.contains_key(n.as_str())
                            || self.protos.contains_key(n.as_str())
                        {
                            return Err(RawError::new(
                                e.span,
                                format!(
                                    "function '{n}' used as a value (function pointers are not supported)"
                                ),
                            ));
                        }
                        return Err(RawError::new(
                            e.span,
                            format!("use of undeclared identifier '{n}'"),
                        ));
                    }
                },
            },
            ExprKind::Unary(UnOp::Not, a) => {
                num(self, a)?;
                CType::Scalar(Scalar::INT)
            }
            ExprKind::Unary(UnOp::Deref, a) => match self.expr_type(a)? {
                CType::Pointer(t) => *t,
                CType::Array(t, d) if d.len() == 1 => CType::Scalar(t),
                CType::Array(t, d) => CType::Array(t, d[1..].to_vec()),
                _ => {
                    return Err(RawError::new(e.span, "the operand of '*' is not a pointer"));
                }
            },
            ExprKind::Unary(UnOp::AddrOf, a) => match self.expr_type(a)? {
                t @ (CType::Scalar(_) | CType::Array(..)) => CType::Pointer(Box::new(t)),
                _ => {
                    return Err(RawError::new(
                        e.span,
                        "cannot take the address of this expression",
                    ));
                }
            },
            ExprKind::Unary(UnOp::BitNot, a) => {
                let t = num(self, a)?;
                CType::int(require_int(t, a.span, "the operand of '~'")?.promote())
            }
            ExprKind::Unary(_, a) => CType::Scalar(num(self, a)?.promote()),
            ExprKind::IncDec { expr, .. } => match self.expr_type(expr)? {
                t @ CType::Pointer(_) => t,
                t => CType::Scalar(scalar_type(t, expr.span)?),
            },
            ExprKind::Binary(..) => self.binary_chain_type(e)?,
            ExprKind::Assign(_, a, _) if matches!(self.expr_type(a)?, CType::Pointer(_)) => {
                self.expr_type(a)?
            }
            ExprKind::Assign(op, a, b) => {
                let t = num(self, a)?;
                if let Some(what) = op.and_then(int_only) {
                    require_int(t, a.span, what)?;
                    require_int(num(self, b)?, b.span, what)?;
                }
                CType::Scalar(t)
            }
            ExprKind::Cond(c, a, b) => {
                num(self, c)?;
                match (self.expr_type(a)?, self.expr_type(b)?) {
                    (CType::Void, CType::Void) => CType::Void,
                    (CType::Scalar(x), CType::Scalar(y)) => CType::Scalar(Scalar::usual(x, y)),
                    (p @ CType::Pointer(_), q @ CType::Pointer(_)) if p == q => p,
                    _ => {
                        return Err(RawError::new(
                            e.span,
                            "incompatible operand types in conditional expression",
                        ));
                    }
                }
            }
            ExprKind::Cast(t, a) => {
                match t {
                    CType::Scalar(_) => {
                        num(self, a)?;
                    }
                    CType::Void => {
                        self.expr_type(a)?;
                    }
                    CType::Array(..) => {
                        return Err(RawError::new(e.span, "cast to an array type"));
                    }
                    CType::Pointer(_) => {
                        if !matches!(self.expr_type(a)?, CType::Pointer(_) | CType::Array(..)) {
                            return Err(RawError::new(
                                e.span,
                                "a number cast to a pointer (pointers must point into arrays)",
                            ));
                        }
                    }
                    CType::Struct(_) | CType::StructArray(..) => {
                        return Err(RawError::new(e.span, "cast to a struct type"));
                    }
                }
                t.clone()
            }
            ExprKind::Index(..) => {
                let mut n = 0;
                let mut cur = e;
                while let ExprKind::Index(b, i) = &cur.kind {
                    require_int(num(self, i)?, i.span, "an array index")?;
                    n += 1;
                    cur = b;
                }
                let base = match self.expr_type(cur)? {
                    CType::Pointer(t) => match *t {
                        CType::Scalar(s) => CType::Array(s, vec![None]),
                        CType::Array(s, d) => {
                            let mut dims = vec![None];
                            dims.extend(d);
                            CType::Array(s, dims)
                        }
                        other => other,
                    },
                    t => t,
                };
                match base {
                    CType::Array(t, dims) if n == dims.len() => CType::Scalar(t),
                    CType::Array(t, dims) if n < dims.len() => CType::Array(t, dims[n..].to_vec()),
                    _ => {
                        return Err(RawError::new(
                            e.span,
                            "subscripted value is not an array or a pointer",
                        ));
                    }
                }
            }
            ExprKind::Call(n, _)
                if !self.funcs.contains_key(n.as_str()) && abs_builtin(n).is_some() =>
            {
                CType::Scalar(Scalar::Int(abs_builtin(n).unwrap_or(IntTy::INT)))
            }
            ExprKind::Call(n, _) if !self.funcs.contains_key(n.as_str()) && classify_fn(n) => {
                CType::Scalar(Scalar::INT)
            }
            ExprKind::Call(n, _) if self.math_call(n) => {
                let (_, t) = math_fn(n).ok_or_else(|| self.unsupported_call(n, e.span))?;
                CType::Scalar(Scalar::Float(t))
            }
            ExprKind::Call(n, _) => {
                let f = self
                    .funcs
                    .get(n.as_str())
                    .or_else(|| self.protos.get(n.as_str()))
                    .ok_or_else(|| {
                        RawError::new(e.span, format!("call to undeclared function '{n}'"))
                    })?;
                f.ret.clone()
            }
            ExprKind::Comma(_, b) => self.expr_type(b)?,
            ExprKind::Member { .. } => return Err(not_a_struct(e.span)),
            ExprKind::SizeOf(_) => CType::int(IntTy::ULONG),
        })
    }

    /// Static type of a chain of binary operators, computed bottom-up along its left spine:
    /// every operand is typed once, and a chain of any length takes no stack per operator.
    fn binary_chain_type(&mut self, e: &Expr) -> CResult<CType> {
        let spine = e.left_spine(|k| matches!(k, ExprKind::Binary(..)));
        let Some(bottom) = spine.last().and_then(|n| n.left()) else {
            return Err(RawError::new(e.span, "expected a binary expression"));
        };
        let mut acc = self.expr_type(bottom);
        let mut acc_span = bottom.span;
        for node in spine.iter().rev() {
            let ExprKind::Binary(op, _, b) = &node.kind else {
                continue;
            };
            let left_ptr = match &acc {
                Ok(t @ (CType::Pointer(_) | CType::Array(..))) => Some(t.clone()),
                _ => None,
            };
            if !matches!(op, BinOp::LogAnd | BinOp::LogOr)
                && let Some(t) = self.pointer_step_type(*op, left_ptr.as_ref(), b, node.span)?
            {
                acc = Ok(t);
                acc_span = node.span;
                continue;
            }
            let tb = self.expr_type(b);
            let ta = scalar_type(acc?, acc_span)?;
            let tb = scalar_type(tb?, b.span)?;
            if let Some(what) = int_only(*op) {
                require_int(ta, acc_span, what)?;
                require_int(tb, b.span, what)?;
            }
            acc = Ok(CType::Scalar(
                if op.is_comparison() || matches!(op, BinOp::LogAnd | BinOp::LogOr) {
                    Scalar::INT
                } else if matches!(op, BinOp::Shl | BinOp::Shr) {
                    ta.promote()
                } else {
                    Scalar::usual(ta, tb)
                },
            ));
            acc_span = node.span;
        }
        acc
    }

    /// Evaluates `e` for its side effects only.
    fn effect(&mut self, e: &Expr) -> CResult<()> {
        match &e.kind {
            ExprKind::Call(..) => self.call(e).map(|_| ()),
            ExprKind::Cast(CType::Void, a) => self.effect(a),
            ExprKind::Comma(..) => {
                // `a, b, c, ...` nests to the left: walk the chain instead of recursing.
                let spine = e.left_spine(|k| matches!(k, ExprKind::Comma(..)));
                if let Some(bottom) = spine.last().and_then(|n| n.left()) {
                    self.effect(bottom)?;
                }
                for node in spine.iter().rev() {
                    if let ExprKind::Comma(_, b) = &node.kind {
                        self.effect(b)?;
                    }
                }
                Ok(())
            }
            ExprKind::Cond(c, a, b) if self.expr_type(e)? == CType::Void => {
                let cv = self.cond(c)?;
                let (tb, fb, mb) = (self.b.new_block(), self.b.new_block(), self.b.new_block());
                self.b.cond_br(cv, tb, fb, c.span);
                for (blk, arm) in [(tb, a), (fb, b)] {
                    self.b.seal(blk);
                    self.b.switch_to(blk);
                    self.effect(arm)?;
                    self.b.br(mb, arm.span);
                }
                self.b.seal(mb);
                self.b.switch_to(mb);
                Ok(())
            }
            ExprKind::Assign(..) | ExprKind::IncDec { .. } | ExprKind::Binary(..)
                if self.is_pointer_expr(e) =>
            {
                self.ptr_value(e).map(|_| ())
            }
            _ => self.rvalue(e).map(|_| ()),
        }
    }

    fn rvalue(&mut self, e: &Expr) -> CResult<Rv> {
        let sp = e.span;
        match &e.kind {
            ExprKind::IncDec { expr: a, .. } | ExprKind::Assign(_, a, _)
                if matches!(self.expr_type(a)?, CType::Pointer(_)) =>
            {
                Err(RawError::new(
                    sp,
                    "a pointer used as a number (pointers are compared, subtracted and \
                     dereferenced)",
                ))
            }
            ExprKind::IntLit(v, t) => {
                let val = const_convert_val((*v as i64, IntTy::ULLONG), *t);
                let ty = Scalar::Int(*t);
                Ok(Rv {
                    v: self.constant(val, ity(ty), sp),
                    ty,
                })
            }
            ExprKind::FloatLit(bits, t) => {
                let ty = Scalar::Float(*t);
                Ok(Rv {
                    v: self.constant(*bits as i64, ity(ty), sp),
                    ty,
                })
            }
            ExprKind::Ident(n) => match self.lookup(n).cloned() {
                Some(Sym::Scalar(var, t, _)) => Ok(Rv {
                    v: self.b.read_var(var),
                    ty: t,
                }),
                Some(Sym::Array(_)) => Err(RawError::new(
                    sp,
                    format!("the array '{n}' used as a number"),
                )),
                Some(Sym::Pointer(_)) => Err(RawError::new(
                    sp,
                    format!(
                        "the pointer '{n}' used as a number (pointers are compared, \
                         subtracted and dereferenced)"
                    ),
                )),
                None => match self.globals.get(n).cloned() {
                    Some(Global::Scalar(v, t)) => Ok(Rv {
                        v: self.constant(v, ity(t), sp),
                        ty: t,
                    }),
                    Some(Global::Mutable { .. }) => {
                        let lv = self.global_lvalue(n, sp)?;
                        Ok(self.read_lv(lv, sp))
                    }
                    Some(Global::Pointer { .. }) => Err(RawError::new(
                        sp,
                        format!("the pointer '{n}' used as a number"),
                    )),
                    Some(Global::Array { .. }) => Err(RawError::new(
                        sp,
                        format!("the array '{n}' used as a number"),
                    )),
                    None => {
                        self.expr_type(e)?;
                        Err(RawError::new(
                            sp,
                            format!("use of undeclared identifier '{n}'"),
                        ))
                    }
                },
            },
            ExprKind::Unary(op, a) => match op {
                UnOp::Deref => {
                    let lv = self.deref_lv(a, sp, false)?;
                    Ok(self.read_lv(lv, sp))
                }
                UnOp::AddrOf => Err(RawError::new(
                    sp,
                    "an address used as a number (pointers are compared, subtracted and \
                     dereferenced)",
                )),
                UnOp::Not => {
                    let c = self.cond(a)?;
                    let one = self.constant(1, Type::Int(1), sp);
                    let n = self.binary(BinaryOp::XOrI, c, one, sp)?;
                    Ok(self.bool_to_int(n, sp))
                }
                UnOp::Plus | UnOp::Neg | UnOp::BitNot => {
                    let rv = self.rvalue(a)?;
                    let rv = self.promote(rv, sp)?;
                    let ty = ity(rv.ty);
                    if let Scalar::Float(f) = rv.ty {
                        let v = match op {
                            UnOp::Plus => rv.v,
                            UnOp::Neg => {
                                let v = self.unary(UnaryOp::NegF, rv.v, sp);
                                if !self.consts.contains_key(&v) {
                                    self.negs.insert(v, rv.v);
                                }
                                v
                            }
                            _ => return Err(float_not_allowed(a.span, f, "the operand of '~'")),
                        };
                        return Ok(Rv { v, ty: rv.ty });
                    }
                    let v = match op {
                        UnOp::Plus => rv.v,
                        UnOp::Neg => {
                            let z = self.constant(0, ty, sp);
                            self.binary(BinaryOp::SubI, z, rv.v, sp)?
                        }
                        _ => {
                            let m = self.constant_word(super::arith::all_ones(ty.bits()), ty, sp);
                            self.binary(BinaryOp::XOrI, rv.v, m, sp)?
                        }
                    };
                    Ok(Rv { v, ty: rv.ty })
                }
            },
            ExprKind::IncDec { pre, inc, expr } => {
                let lv = self.lvalue(expr)?;
                let old = self.read_lv(lv, sp);
                let one = Rv {
                    v: self.constant(1, Type::Int(32), sp),
                    ty: Scalar::INT,
                };
                let op = if *inc { BinOp::Add } else { BinOp::Sub };
                let res = self.arith(op, old, one, sp)?;
                let nv = self.convert(res, lv.ty(), sp)?;
                self.write_lv(lv, nv, sp);
                Ok(if *pre { Rv { v: nv, ty: lv.ty() } } else { old })
            }
            ExprKind::Binary(..) => {
                let v = self.binary_chain(e)?;
                Ok(self.int_of(v))
            }
            ExprKind::Assign(op, a, b) => {
                let lv = self.lvalue(a)?;
                let res = match op {
                    None => self.rvalue(b)?,
                    Some(op) => {
                        if let Some(what) = int_only(*op) {
                            require_int(lv.ty(), a.span, what)?;
                        }
                        let old = self.read_lv(lv, sp);
                        let r = self.rvalue(b)?;
                        if let Some(what) = int_only(*op) {
                            require_int(r.ty, b.span, what)?;
                        }
                        match self.gcc_fold(*op, None, b, old, r, sp)? {
                            Some(v) => v,
                            None => self.arith(*op, old, r, sp)?,
                        }
                    }
                };
                let v = self.convert(res, lv.ty(), sp)?;
                self.write_lv(lv, v, sp);
                Ok(Rv { v, ty: lv.ty() })
            }
            ExprKind::Cond(c, a, b) => {
                let CType::Scalar(t) = self.expr_type(e)? else {
                    return Err(RawError::new(sp, "void value used in an expression"));
                };
                if speculatable(a) && speculatable(b) {
                    let cv = self.cond(c)?;
                    let av = self.rvalue(a)?;
                    let av = self.convert(av, t, a.span)?;
                    let bv = self.rvalue(b)?;
                    let bv = self.convert(bv, t, b.span)?;
                    let v = self.b.inst(
                        InstKind::Select {
                            cond: cv,
                            t: av,
                            f: bv,
                        },
                        &[ity(t)],
                        sp,
                    )[0];
                    return Ok(Rv { v, ty: t });
                }
                let cv = self.cond(c)?;
                let tmp = self.b.new_var("cond.tmp", ity(t));
                let (tb, fb, mb) = (self.b.new_block(), self.b.new_block(), self.b.new_block());
                self.b.cond_br(cv, tb, fb, c.span);
                for (blk, arm) in [(tb, a), (fb, b)] {
                    self.b.seal(blk);
                    self.b.switch_to(blk);
                    let rv = self.rvalue(arm)?;
                    let v = self.convert(rv, t, arm.span)?;
                    self.b.write_var(tmp, v);
                    self.b.br(mb, arm.span);
                }
                self.b.seal(mb);
                self.b.switch_to(mb);
                Ok(Rv {
                    v: self.b.read_var(tmp),
                    ty: t,
                })
            }
            ExprKind::Cast(t, a) => match t {
                CType::Scalar(t) => {
                    let rv = self.rvalue(a)?;
                    Ok(Rv {
                        v: self.convert(rv, *t, sp)?,
                        ty: *t,
                    })
                }
                _ => Err(RawError::new(sp, "void value used in an expression")),
            },
            ExprKind::Index(..) => match self.subscript(e)? {
                Ok((mem, idx, elem, _)) => Ok(Rv {
                    v: self.load(mem, idx, sp),
                    ty: elem,
                }),
                Err(_) => Err(RawError::new(sp, "a row of an array used as a number")),
            },
            ExprKind::Call(..) => self
                .call(e)?
                .ok_or_else(|| RawError::new(sp, "void value used in an expression")),
            ExprKind::Comma(a, b) => {
                self.effect(a)?;
                self.rvalue(b)
            }
            ExprKind::Member { .. } => Err(not_a_struct(sp)),
            ExprKind::SizeOf(x) => {
                // An array parameter is a pointer in C (`sizeof` gives 8; compilers warn).
                let param_array = matches!(&x.kind, ExprKind::Ident(n)
                    if matches!(self.lookup(n), Some(Sym::Array(a)) if a.param));
                let t = if param_array {
                    CType::Pointer(Box::new(CType::Void))
                } else {
                    self.expr_type(x)?
                };
                let (n, _) = super::parser::layout(&[], &t, sp)?;
                let ty = Scalar::Int(IntTy::ULONG);
                Ok(Rv {
                    v: self.constant(n as i64, ity(ty), sp),
                    ty,
                })
            }
        }
    }

    fn bool_to_int(&mut self, c: ValueId, sp: Span) -> Rv {
        Rv {
            v: self.cast(CastOp::ExtUI, c, Type::Int(32), sp),
            ty: Scalar::INT,
        }
    }

    /// C binary arithmetic operator (not comparisons/logical) with the usual conversions.
    fn arith(&mut self, op: BinOp, l: Rv, r: Rv, sp: Span) -> CResult<Rv> {
        if let Some(what) = int_only(op) {
            require_int(l.ty, sp, what)?;
            require_int(r.ty, sp, what)?;
        }
        if matches!(op, BinOp::Shl | BinOp::Shr) {
            let l = self.promote(l, sp)?;
            let r = self.promote(r, sp)?;
            let (Scalar::Int(lt), Scalar::Int(rt)) = (l.ty, r.ty) else {
                return Err(RawError::new(sp, "shift of a floating value"));
            };
            let amt = self.convert(
                Rv {
                    v: r.v,
                    ty: Scalar::Int(IntTy::new(rt.kind, false)),
                },
                Scalar::Int(IntTy::new(lt.kind, false)),
                sp,
            )?;
            let irop = ir_binop(op, lt.signed).ok_or_else(|| RawError::new(sp, "bad operator"))?;
            return Ok(Rv {
                v: self.binary(irop, l.v, amt, sp)?,
                ty: l.ty,
            });
        }
        let t = Scalar::usual(l.ty, r.ty);
        let lv = self.convert(l, t, sp)?;
        let rv = self.convert(r, t, sp)?;
        let irop = match t {
            Scalar::Int(i) => ir_binop(op, i.signed),
            Scalar::Float(_) => float_binop(op),
        }
        .ok_or_else(|| RawError::new(sp, "bad operator"))?;
        Ok(Rv {
            v: self.binary(irop, lv, rv, sp)?,
            ty: t,
        })
    }

    /// The algebraic identities GCC applies to float expressions even at `-O0` (its
    /// `fold`), which change nothing but the sign or quietness of a NaN result, so that float
    /// kernels equal native C bit for bit: within one expression (`l_ast`/`r_ast` are the
    /// operands as written; `l_ast` is `None` for a compound assignment's target),
    /// `a - (-b)` is `a + b`, `a + (-b)` is `a - b`, `(-a) + b` is `b - a`, `(-a) * (-b)` and
    /// `(-a) / (-b)` drop both signs, `a / (-b)` is `-(a / b)`, `x * 1`, `1 * x`, `x / 1`,
    /// `x - 0.0`, `x + (-0.0)` and
    /// `(-0.0) + x` are `x`, and `x * -1`, `-1 * x`, `x / -1` are `-x`. `None` when none
    /// applies (or the operation is not a float one).
    fn gcc_fold(
        &mut self,
        op: BinOp,
        l_ast: Option<&Expr>,
        r_ast: &Expr,
        l: Rv,
        r: Rv,
        sp: Span,
    ) -> CResult<Option<Rv>> {
        let t = Scalar::usual(l.ty, r.ty);
        let Scalar::Float(ft) = t else {
            return Ok(None);
        };
        // The operand of a float negation written as such in this expression.
        let neg = |s: &Self, e: Option<&Expr>, v: Rv| -> Option<Rv> {
            match e.map(|e| &e.kind) {
                Some(ExprKind::Unary(UnOp::Neg, _)) if v.ty.float().is_some() => {
                    s.negs.get(&v.v).map(|x| Rv { v: *x, ty: v.ty })
                }
                _ => None,
            }
        };
        // Is the operand as written a constant (a literal, possibly negated or cast) equal to
        // `want` in the operation's type? Operator chains are not evaluated: the left operand
        // of every level of `x0 * x1 * ... * xn` is the whole chain below it.
        let is = |e: Option<&Expr>, want: f64| -> bool {
            let Some(e) = e else { return false };
            if !matches!(
                e.kind,
                ExprKind::FloatLit(..)
                    | ExprKind::IntLit(..)
                    | ExprKind::Unary(UnOp::Neg | UnOp::Plus, _)
                    | ExprKind::Cast(..)
            ) {
                return false;
            }
            let Ok(c) = super::consteval::eval_scalar(e) else {
                return false;
            };
            if super::consteval::float_wide_mix(c.1, t) {
                return false;
            }
            let bits = super::consteval::convert_scalar(c, t);
            bits == match ft {
                FloatTy::Float => u64::from((want as f32).to_bits()),
                FloatTy::Double => want.to_bits(),
            }
        };
        let (nl, nr) = (neg(self, l_ast, l), neg(self, Some(r_ast), r));
        let same = |s: &mut Self, x: Rv| -> CResult<Rv> {
            Ok(Rv {
                v: s.convert(x, t, sp)?,
                ty: t,
            })
        };
        let negated = |s: &mut Self, x: Rv| -> CResult<Rv> {
            let v = s.convert(x, t, sp)?;
            let n = s.unary(UnaryOp::NegF, v, sp);
            s.negs.insert(n, v);
            Ok(Rv { v: n, ty: t })
        };
        let r_some = Some(r_ast);
        Ok(Some(match op {
            BinOp::Sub if nr.is_some() => self.arith(BinOp::Add, l, nr.unwrap_or(r), sp)?,
            BinOp::Sub if is(r_some, 0.0) => same(self, l)?,
            BinOp::Add if nr.is_some() => self.arith(BinOp::Sub, l, nr.unwrap_or(r), sp)?,
            BinOp::Add if nl.is_some() => self.arith(BinOp::Sub, r, nl.unwrap_or(l), sp)?,
            BinOp::Add if is(r_some, -0.0) => same(self, l)?,
            BinOp::Add if is(l_ast, -0.0) => same(self, r)?,
            BinOp::Mul | BinOp::Div if nl.is_some() && nr.is_some() => {
                self.arith(op, nl.unwrap_or(l), nr.unwrap_or(r), sp)?
            }
            BinOp::Div if nr.is_some() => {
                let q = self.arith(BinOp::Div, l, nr.unwrap_or(r), sp)?;
                negated(self, q)?
            }
            BinOp::Mul | BinOp::Div if is(r_some, 1.0) => same(self, l)?,
            BinOp::Mul | BinOp::Div if is(r_some, -1.0) => negated(self, l)?,
            BinOp::Mul if is(l_ast, 1.0) => same(self, r)?,
            BinOp::Mul if is(l_ast, -1.0) => negated(self, r)?,
            _ => return Ok(None),
        }))
    }

    /// Lowers `e` as a condition, producing an `i1`.
    fn cond(&mut self, e: &Expr) -> CResult<ValueId> {
        let sp = e.span;
        match &e.kind {
            ExprKind::Binary(..) => {
                let v = self.binary_chain(e)?;
                Ok(self.bool_of(v))
            }
            ExprKind::Unary(UnOp::Not, a) => {
                let c = self.cond(a)?;
                let one = self.constant(1, Type::Int(1), sp);
                self.binary(BinaryOp::XOrI, c, one, sp)
            }
            _ => {
                let rv = self.rvalue(e)?;
                Ok(self.bool_of((Val::Int(rv), sp)))
            }
        }
    }

    /// `v` as a C number: a condition becomes the `int` 0 or 1.
    fn int_of(&mut self, (v, sp): (Val, Span)) -> Rv {
        match v {
            Val::Int(rv) => rv,
            Val::Bool(c) => self.bool_to_int(c, sp),
        }
    }

    /// `v` as a condition: a number is compared with 0.
    fn bool_of(&mut self, (v, sp): (Val, Span)) -> ValueId {
        match v {
            Val::Bool(c) => c,
            Val::Int(rv) if rv.ty.bits() == 1 => rv.v,
            Val::Int(rv) => {
                let t = ity(rv.ty);
                let z = self.constant(0, t, sp);
                self.cmp(ne_zero(t), rv.v, z, sp)
            }
        }
    }

    /// Lowers a chain of binary operators (arithmetic, comparisons, `&&`, `||`) bottom-up
    /// along its left spine, so `a[0] + a[1] + ... + a[99999]` takes no stack per operator.
    /// Each level keeps what it produced (a number or a condition) and converts it only when
    /// the level above needs the other form; the IR is what one recursive descent per
    /// operator would emit.
    fn binary_chain(&mut self, e: &Expr) -> CResult<(Val, Span)> {
        match self.binary_chain_any(e)? {
            (v, sp, None) => Ok((v, sp)),
            (_, sp, Some(_)) => Err(RawError::new(
                sp,
                "a pointer used as a number (pointers are compared, subtracted and dereferenced)",
            )),
        }
    }

    /// [`Lowerer::binary_chain`], whose result may be a pointer (`p + 1`, `a + i`).
    fn binary_chain_any(&mut self, e: &Expr) -> CResult<(Val, Span, Option<PtrVal>)> {
        let spine = e.left_spine(|k| matches!(k, ExprKind::Binary(..)));
        let (Some(ExprKind::Binary(op0, _, _)), Some(bottom)) = (
            spine.last().map(|n| &n.kind),
            spine.last().and_then(|n| n.left()),
        ) else {
            return Err(RawError::new(e.span, "expected a binary expression"));
        };
        let logical = |op: BinOp| matches!(op, BinOp::LogAnd | BinOp::LogOr);
        let mut ptr: Option<PtrVal> = None;
        let mut acc = if logical(*op0) {
            (Val::Bool(self.cond(bottom)?), bottom.span)
        } else if self.is_pointer_expr(bottom) {
            ptr = Some(self.ptr_value(bottom)?);
            let zero = self.constant(0, Type::Int(32), bottom.span);
            (
                Val::Int(Rv {
                    v: zero,
                    ty: Scalar::INT,
                }),
                bottom.span,
            )
        } else {
            (Val::Int(self.rvalue(bottom)?), bottom.span)
        };
        for node in spine.iter().rev() {
            let ExprKind::Binary(op, _, b) = &node.kind else {
                continue;
            };
            let sp = node.span;
            if !logical(*op) && (ptr.is_some() || self.is_pointer_expr(b)) {
                let (v, p) = self.pointer_step(*op, ptr.take(), acc, b, sp)?;
                acc = (v, sp);
                ptr = p;
                continue;
            }
            if ptr.is_some() {
                return Err(RawError::new(
                    sp,
                    "a pointer used as a condition (pointers into arrays are never null)",
                ));
            }
            let v = if logical(*op) {
                let is_and = *op == BinOp::LogAnd;
                let a_span = acc.1;
                let av = self.bool_of(acc);
                if speculatable(b) {
                    let bv = self.cond(b)?;
                    let irop = if is_and {
                        BinaryOp::AndI
                    } else {
                        BinaryOp::OrI
                    };
                    Val::Bool(self.binary(irop, av, bv, sp)?)
                } else {
                    let tmp = self
                        .b
                        .new_var(if is_and { "and.tmp" } else { "or.tmp" }, Type::Int(1));
                    let short = self.constant(i64::from(!is_and), Type::Int(1), sp);
                    self.b.write_var(tmp, short);
                    let rb = self.b.new_block();
                    let mb = self.b.new_block();
                    if is_and {
                        self.b.cond_br(av, rb, mb, a_span);
                    } else {
                        self.b.cond_br(av, mb, rb, a_span);
                    }
                    self.b.seal(rb);
                    self.b.switch_to(rb);
                    let bv = self.cond(b)?;
                    self.b.write_var(tmp, bv);
                    self.b.br(mb, b.span);
                    self.b.seal(mb);
                    self.b.switch_to(mb);
                    Val::Bool(self.b.read_var(tmp))
                }
            } else if op.is_comparison() {
                let l = self.int_of(acc);
                let r = self.rvalue(b)?;
                let t = Scalar::usual(l.ty, r.ty);
                let lv = self.convert(l, t, sp)?;
                let rv = self.convert(r, t, sp)?;
                let pred = match t {
                    Scalar::Int(i) => ir_pred(*op, i.signed),
                    Scalar::Float(_) => float_pred(*op),
                }
                .ok_or_else(|| RawError::new(sp, "bad comparison"))?;
                Val::Bool(self.cmp(pred, lv, rv, sp))
            } else {
                let l_span = acc.1;
                let l = self.int_of(acc);
                let r = self.rvalue(b)?;
                if let Some(what) = int_only(*op) {
                    require_int(l.ty, l_span, what)?;
                    require_int(r.ty, b.span, what)?;
                }
                match self.gcc_fold(*op, node.left(), b, l, r, sp)? {
                    Some(v) => Val::Int(v),
                    None => Val::Int(self.arith(*op, l, r, sp)?),
                }
            };
            acc = (v, sp);
        }
        Ok((acc.0, acc.1, ptr))
    }

    /// `abs`, `labs`, `llabs` (`<stdlib.h>`): the argument converted to `ty`, negated when
    /// negative. Like C, the most negative value stays itself (two's complement wraps).
    fn abs(&mut self, name: &str, ty: IntTy, args: &[Expr], sp: Span) -> CResult<Rv> {
        let ty = Scalar::Int(ty);
        let [a] = args else {
            return Err(RawError::new(
                sp,
                format!("'{name}' takes 1 argument but {} were given", args.len()),
            ));
        };
        if self.is_array_expr(a) {
            return Err(RawError::new(
                a.span,
                "array passed where an integer is expected",
            ));
        }
        let rv = self.rvalue(a)?;
        let v = self.convert(rv, ty, a.span)?;
        let t = ity(ty);
        let zero = self.constant(0, t, sp);
        let neg = self.binary(BinaryOp::SubI, zero, v, sp)?;
        let is_neg = self.cmp(CmpPred::Slt, v, zero, sp);
        let out = self.b.inst(
            InstKind::Select {
                cond: is_neg,
                t: neg,
                f: v,
            },
            &[t],
            sp,
        )[0];
        Ok(Rv { v: out, ty })
    }

    /// Inlines a call; returns the result (None for void functions).
    fn call(&mut self, e: &Expr) -> CResult<Option<Rv>> {
        let ExprKind::Call(name, args) = &e.kind else {
            return Err(RawError::new(e.span, "not a call"));
        };
        let sp = e.span;
        if !self.funcs.contains_key(name.as_str())
            && let Some(ty) = abs_builtin(name)
        {
            return self.abs(name, ty, args, sp).map(Some);
        }
        if !self.funcs.contains_key(name.as_str()) && classify_fn(name) {
            return self.classify(name, args, sp).map(Some);
        }
        if self.math_call(name) {
            return self.math(name, args, sp).map(Some);
        }
        let Some(f) = self.funcs.get(name.as_str()).copied() else {
            if self.protos.contains_key(name.as_str()) {
                return Err(RawError::new(
                    sp,
                    format!("function '{name}' is declared but not defined in this file"),
                ));
            }
            if matches!(name.as_str(), "exit" | "abort" | "_Exit" | "quick_exit") {
                return Err(RawError::new(
                    sp,
                    format!(
                        "'{name}' cannot be called in a kernel: a circuit cannot end the program"
                    ),
                )
                .with_help("return from the kernel (with an error code) instead"));
            }
            if IO_FUNCTIONS.contains(&name.as_str()) {
                return Err(RawError::new(
                    sp,
                    format!("'{name}' cannot be called in a kernel: a circuit has no I/O"),
                )
                .with_help("keep printing in the test bench, outside the kernel function"));
            }
            return Err(RawError::new(
                sp,
                format!("call to undeclared function '{name}'"),
            ));
        };
        if let Some(e) = self.deferred.get(name.as_str()) {
            return Err(e.clone());
        }
        if self.call_stack.iter().any(|n| n == name) {
            return Err(RawError::new(
                sp,
                format!("recursion is not supported (call to '{name}')"),
            )
            .with_help("hardware kernels need a static call graph"));
        }
        if self.call_stack.len() > MAX_INLINE_DEPTH || self.inlined > MAX_INLINED_CALLS {
            return Err(RawError::new(sp, "too many nested or inlined calls"));
        }
        self.inlined += 1;
        if args.len() != f.params.len() {
            return Err(RawError::new(
                sp,
                format!(
                    "function '{name}' takes {} argument(s) but {} were given",
                    f.params.len(),
                    args.len()
                ),
            ));
        }
        let mut scope = BTreeMap::new();
        for (p, a) in f.params.iter().zip(args) {
            match &p.ty {
                CType::Scalar(t) => {
                    if self.is_array_expr(a) {
                        return Err(RawError::new(
                            a.span,
                            format!("array passed where {} is expected", t.c_name()),
                        ));
                    }
                    let rv = self.rvalue(a)?;
                    let v = self.convert(rv, *t, a.span)?;
                    let var = self.b.new_var(&p.name, ity(*t));
                    self.b.write_var(var, v);
                    scope.insert(p.name.clone(), Sym::Scalar(var, *t, p.is_const));
                }
                CType::Array(elem, dims) => {
                    let mut arr = self.array_arg(a)?;
                    if p.is_const && arr.const_name.is_none() {
                        arr.const_name = Some(p.name.clone());
                    }
                    if arr.elem != *elem
                        || arr.dims.len() != dims.len()
                        || arr.dims[1..] != dims[1..]
                    {
                        return Err(RawError::new(
                            a.span,
                            format!(
                                "incompatible array argument: expected {}, found {}",
                                CType::Array(*elem, dims.clone()),
                                CType::Array(arr.elem, arr.dims.clone())
                            ),
                        ));
                    }
                    arr.param = true;
                    scope.insert(p.name.clone(), Sym::Array(arr));
                }
                CType::Pointer(_) => {
                    let pointee = Pointee::of(&p.ty)
                        .ok_or_else(|| RawError::new(p.span, "invalid pointer parameter"))?;
                    if !self.is_pointer_expr(a) {
                        let t = self.expr_type(a)?;
                        return Err(RawError::new(
                            a.span,
                            format!(
                                "a value of type '{t}' passed where the pointer '{}' is expected",
                                pointee.pointer_type()
                            ),
                        ));
                    }
                    let v = self.ptr_value(a)?;
                    if v.pointee != pointee {
                        return Err(RawError::new(
                            a.span,
                            format!(
                                "incompatible pointer argument: expected '{}', found '{}'",
                                pointee.pointer_type(),
                                v.pointee.pointer_type()
                            ),
                        ));
                    }
                    let off = self.b.new_var(&p.name, Type::Int(32));
                    self.b.write_var(off, v.off);
                    let const_target =
                        matches!(&v.target, pointers::Target::Mem(a) if a.const_name.is_some());
                    scope.insert(
                        p.name.clone(),
                        Sym::Pointer(PtrSym {
                            target: Some(v.target),
                            bound_at: Some(a.span),
                            off,
                            pointee,
                            is_const: p.is_const || const_target,
                        }),
                    );
                }
                CType::Void | CType::Struct(_) | CType::StructArray(..) => {
                    return Err(RawError::new(p.span, "parameter declared void"));
                }
            }
        }
        let exit = self.b.new_block();
        let ret_var = match &f.ret {
            CType::Scalar(t) => Some(self.b.new_var(&format!("{name}.ret"), ity(*t))),
            _ => None,
        };
        let saved_scopes = std::mem::replace(&mut self.scopes, vec![scope]);
        let saved_jumps = std::mem::take(&mut self.jumps);
        let saved_switches = std::mem::take(&mut self.switches);
        self.frames.push(Frame {
            ret: f.ret.clone(),
            ret_var,
            exit,
            labels: BTreeMap::new(),
        });
        self.call_stack.push(name.clone());
        let body = f
            .body
            .as_ref()
            .ok_or_else(|| RawError::new(f.span, "function has no body"));
        let r = body
            .and_then(|b| self.stmt(b))
            .and_then(|()| self.finish_labels());
        self.call_stack.pop();
        self.frames.pop();
        self.scopes = saved_scopes;
        self.jumps = saved_jumps;
        self.switches = saved_switches;
        r?;
        if !self.b.terminated() {
            self.b.br(exit, sp);
        }
        self.b.seal(exit);
        self.b.switch_to(exit);
        Ok(match (&f.ret, ret_var) {
            (CType::Scalar(t), Some(v)) => Some(Rv {
                v: self.b.read_var(v),
                ty: *t,
            }),
            _ => None,
        })
    }

    /// Is a call of `name` a call of a `<math.h>` function (one the file does not define)?
    fn math_call(&self, name: &str) -> bool {
        !self.funcs.contains_key(name) && (math_fn(name).is_some() || unsupported_math(name))
    }

    /// The diagnostic for a call of a `<math.h>` function the subset does not implement.
    fn unsupported_call(&self, name: &str, sp: Span) -> RawError {
        let mut names: Vec<&str> = vec!["fabs", "sqrt", "fmin", "fmax", "copysign", "fmod"];
        names.extend(
            handscope_sim::math_fn::MathFn::ALL
                .iter()
                .map(|f| f.c_name()),
        );
        names.push("nearbyint");
        RawError::new(sp, format!("the math function '{name}' is not supported")).with_help(
            format!(
                "supported: {} (each also in its float form, with an 'f' suffix), and \
                 isnan, isinf, isfinite, signbit",
                names.join(", ")
            ),
        )
    }

    /// The operands of a `<math.h>` call, each converted to `ty`.
    fn math_args(
        &mut self,
        name: &str,
        args: &[Expr],
        arity: usize,
        ty: Scalar,
        sp: Span,
    ) -> CResult<Vec<ValueId>> {
        if args.len() != arity {
            return Err(RawError::new(
                sp,
                format!(
                    "'{name}' takes {arity} argument(s) but {} were given",
                    args.len()
                ),
            ));
        }
        let mut vals = Vec::with_capacity(arity);
        for a in args {
            if self.is_array_expr(a) {
                return Err(RawError::new(
                    a.span,
                    format!("array passed where {ty} is expected"),
                ));
            }
            let rv = self.rvalue(a)?;
            vals.push(self.convert(rv, ty, a.span)?);
        }
        Ok(vals)
    }

    /// Lowers a call of a `<math.h>` function: its arguments converted to its parameter
    /// type (`double`, or `float` for the `f` variants), then its operation. Without
    /// `#include <math.h>` (and without a prototype of its own), the call is an implicit
    /// declaration: a warning, and the library function's meaning, as C compilers give it.
    fn math(&mut self, name: &str, args: &[Expr], sp: Span) -> CResult<Rv> {
        let Some((f, t)) = math_fn(name) else {
            return Err(self.unsupported_call(name, sp));
        };
        if !self.math_h && !self.protos.contains_key(name) && self.implicit.insert(name.to_string())
        {
            self.warnings.push(
                RawError::new(
                    sp,
                    format!(
                        "implicit declaration of function '{name}': it is read as \
                         the <math.h> function {} {name}({})",
                        t.c_name(),
                        if matches!(f, MathFn::Binary(_)) {
                            format!("{0}, {0}", t.c_name())
                        } else {
                            t.c_name().to_string()
                        }
                    ),
                )
                .with_help(format!("include '<math.h>' or declare '{name}'")),
            );
        }
        let arity = match f {
            MathFn::Unary(_) => 1,
            MathFn::Binary(_) => 2,
        };
        let ty = Scalar::Float(t);
        let vals = self.math_args(name, args, arity, ty, sp)?;
        let v = match (f, vals.as_slice()) {
            (MathFn::Unary(op), [x]) => self.unary(op, *x, sp),
            (MathFn::Binary(op), [x, y]) => self.binary(op, *x, *y, sp)?,
            _ => return Err(RawError::new(sp, "wrong number of arguments")),
        };
        Ok(Rv { v, ty })
    }

    /// `isnan`, `isinf`, `isfinite`, `signbit` (`<math.h>` macros): an `int`, 1 or 0, of a
    /// float operand (an integer operand is converted to `double`, as the macros' generic
    /// selection does for C compilers).
    fn classify(&mut self, name: &str, args: &[Expr], sp: Span) -> CResult<Rv> {
        if !self.math_h {
            return Err(RawError::new(
                sp,
                format!("'{name}' is a <math.h> macro, used without '#include <math.h>'"),
            ));
        }
        let [a] = args else {
            return Err(RawError::new(
                sp,
                format!("'{name}' takes 1 argument but {} were given", args.len()),
            ));
        };
        let ty = match self.expr_type(a)? {
            CType::Scalar(f @ Scalar::Float(_)) => f,
            _ => Scalar::Float(FloatTy::Double),
        };
        let x = self.math_args(name, args, 1, ty, sp)?[0];
        let float = ty.float().unwrap_or(FloatTy::Double);
        let fty = ity(ty);
        let c = match name {
            "isnan" => self.cmp(CmpPred::Float(FloatPredicate::Uno), x, x, sp),
            "signbit" => {
                // copysign(1, x) < 0: the sign bit alone, of zeros and NaNs too.
                let (one, zero) = match float {
                    FloatTy::Float => (u64::from(1f32.to_bits()), 0),
                    FloatTy::Double => (1f64.to_bits(), 0),
                };
                let one = self.constant_word(one, fty, sp);
                let zero = self.constant_word(zero, fty, sp);
                let signed_one = self.binary(BinaryOp::CopySign, one, x, sp)?;
                self.cmp(CmpPred::Float(FloatPredicate::Olt), signed_one, zero, sp)
            }
            _ => {
                let abs = self.unary(UnaryOp::AbsF, x, sp);
                let inf = match float {
                    FloatTy::Float => u64::from(f32::INFINITY.to_bits()),
                    FloatTy::Double => f64::INFINITY.to_bits(),
                };
                let inf = self.constant_word(inf, fty, sp);
                let pred = if name == "isinf" {
                    FloatPredicate::Oeq
                } else {
                    FloatPredicate::Olt
                };
                self.cmp(CmpPred::Float(pred), abs, inf, sp)
            }
        };
        Ok(self.bool_to_int(c, sp))
    }

    fn array_arg(&mut self, a: &Expr) -> CResult<ArrayRef> {
        if matches!(self.expr_type(a)?, CType::Pointer(_)) {
            let p = self.ptr_value(a)?;
            return self.ptr_view(&p, a.span);
        }
        match &a.kind {
            ExprKind::Ident(n) => self
                .array_sym(n)?
                .ok_or_else(|| RawError::new(a.span, format!("'{n}' is not an array"))),
            ExprKind::Index(..) => match self.subscript(a)? {
                Err(view) => Ok(view),
                Ok(_) => Err(RawError::new(
                    a.span,
                    "array element passed where an array is expected",
                )),
            },
            _ => Err(RawError::new(
                a.span,
                "an array argument must be an array, a row of one or a pointer into one",
            )),
        }
    }
}

/// The integer type of a `<stdlib.h>` absolute-value function, unless the file defines its own.
fn abs_builtin(name: &str) -> Option<IntTy> {
    match name {
        "abs" => Some(IntTy::INT),
        "labs" => Some(IntTy::LONG),
        "llabs" => Some(IntTy::LLONG),
        _ => None,
    }
}

/// `<stdio.h>` functions a kernel might call, named in their own error.
const IO_FUNCTIONS: &[&str] = &[
    "printf", "fprintf", "puts", "putchar", "scanf", "fscanf", "fopen", "fclose", "fgets",
    "sprintf", "snprintf",
];
