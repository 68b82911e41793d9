//! Structs replaced by their members, before lowering: every object of a struct type becomes
//! one object per *leaf* member (a member of arithmetic or array type, reached through nested
//! structs), named by the path to it (`p.pos.x`). So
//! * a struct variable `s` becomes variables and arrays `s.a`, `s.b`;
//! * an array of structs `a[N]` becomes one array per leaf, `a.a[N]`, `a.b[N][4]` (a member
//!   array's dimensions after the struct array's): one memory per member, the layout HLS tools
//!   call disaggregation;
//! * a pointer to a struct becomes one pointer per leaf, each into its member's array;
//! * member accesses become accesses of those objects (`a[i].b[j]` is `a.b[i][j]`, `p->x` is
//!   `*p.x`), struct assignments and copies one assignment per leaf, struct arguments one
//!   argument per leaf (parameters likewise), initializers distributed over the leaves with C's
//!   brace elision.
//!
//! What is left has no struct type; pointers to arithmetic types (and to a member's rows) are
//! the lowering's.

use super::ast::*;
use super::error::{CResult, RawError};
use super::span::Span;
use super::types::{CType, IntTy, Scalar, StructId};
use std::collections::BTreeMap;

/// A leaf member of a struct: the path to it (`.pos.x`), its element type and its own
/// dimensions (those of member arrays along the path, outermost first).
#[derive(Clone, Debug)]
struct Leaf {
    suffix: String,
    elem: Scalar,
    dims: Vec<u64>,
}

impl Leaf {
    fn len(&self) -> u64 {
        self.dims.iter().product()
    }
}

/// A struct-valued type: the only types this pass rewrites.
#[derive(Clone, Debug, PartialEq)]
enum SType {
    /// A struct object.
    Struct(StructId),
    /// An array of structs.
    Array(StructId, Vec<Option<u64>>),
    /// A pointer to a struct.
    Ptr(StructId),
}

impl SType {
    fn of(t: &CType) -> Option<SType> {
        match t {
            CType::Struct(id) => Some(SType::Struct(*id)),
            CType::StructArray(id, d) => Some(SType::Array(*id, d.clone())),
            CType::Pointer(p) => match p.as_ref() {
                CType::Struct(id) => Some(SType::Ptr(*id)),
                _ => None,
            },
            _ => None,
        }
    }

    fn id(&self) -> StructId {
        match self {
            SType::Struct(i) | SType::Array(i, _) | SType::Ptr(i) => *i,
        }
    }

    /// The type of the object for leaf `l` of an object of this type.
    fn leaf_type(&self, l: &Leaf) -> CType {
        let inner: Vec<Option<u64>> = l.dims.iter().copied().map(Some).collect();
        match self {
            SType::Struct(_) if inner.is_empty() => CType::Scalar(l.elem),
            SType::Struct(_) => CType::Array(l.elem, inner),
            SType::Array(_, d) => {
                let mut dims = d.clone();
                dims.extend(inner);
                CType::Array(l.elem, dims)
            }
            SType::Ptr(_) if inner.is_empty() => CType::Pointer(Box::new(CType::Scalar(l.elem))),
            SType::Ptr(_) => CType::Pointer(Box::new(CType::Array(l.elem, inner))),
        }
    }
}

/// Replaces the structs of `tu` by their members (see the module documentation).
pub fn flatten(mut tu: TranslationUnit) -> CResult<TranslationUnit> {
    if tu.structs.is_empty() {
        return Ok(tu);
    }
    let mut leaves = Vec::with_capacity(tu.structs.len());
    for i in 0..tu.structs.len() {
        leaves.push(leaves_of(&tu.structs, StructId(i as u32)));
    }
    let mut fx = Flattener {
        structs: &tu.structs,
        leaves,
        scopes: vec![BTreeMap::new()],
        sigs: BTreeMap::new(),
    };
    for f in &tu.functions {
        fx.sigs.insert(
            f.name.clone(),
            f.params.iter().map(|p| p.ty.clone()).collect(),
        );
    }
    let mut globals = Vec::new();
    for g in &tu.globals {
        fx.declare(&g.name, &g.ty);
        globals.extend(fx.decl(g)?);
    }
    let mut functions = Vec::new();
    let mut deferred = BTreeMap::new();
    for f in &tu.functions {
        fx.scopes.push(BTreeMap::new());
        let r = fx.function(f);
        // Back to the file scope (an error may leave inner scopes behind).
        fx.scopes.truncate(1);
        match r {
            Ok(flat) => functions.push(flat),
            Err(e) => {
                // Kept as written; the error stands if the function is used.
                deferred.insert(f.name.clone(), e);
                functions.push(f.clone());
            }
        }
    }
    tu.functions = functions;
    tu.globals = globals;
    tu.deferred = deferred;
    Ok(tu)
}

impl Flattener<'_> {
    /// A function without struct types (its scope pushed by the caller).
    fn function(&mut self, f: &Function) -> CResult<Function> {
        if SType::of(&f.ret).is_some() {
            return Err(RawError::new(
                f.span,
                "functions returning structs or pointers to structs are not supported",
            )
            .with_help("pass a pointer to the result instead"));
        }
        let mut params = Vec::new();
        for p in &f.params {
            self.declare(&p.name, &p.ty);
            match SType::of(&p.ty) {
                None => params.push(p.clone()),
                Some(st) => {
                    self.check_union(&st, p.span)?;
                    let ls = self.leaves[st.id().0 as usize].clone();
                    if matches!(st, SType::Struct(_)) && ls.iter().any(|l| !l.dims.is_empty()) {
                        return Err(RawError::new(
                            p.span,
                            format!(
                                "'{}': a struct with an array member passed by value is not supported",
                                p.name
                            ),
                        )
                        .with_help("pass a pointer to the struct"));
                    }
                    for l in &ls {
                        params.push(Param {
                            name: format!("{}{}", p.name, l.suffix),
                            ty: st.leaf_type(l),
                            is_const: p.is_const,
                            span: p.span,
                        });
                    }
                }
            }
        }
        let body = match &f.body {
            Some(b) => Some(self.stmt(b)?),
            None => None,
        };
        Ok(Function {
            name: f.name.clone(),
            ret: f.ret.clone(),
            params,
            body,
            span: f.span,
        })
    }

    /// Refuses an object of a union type.
    fn check_union(&self, st: &SType, at: Span) -> CResult<()> {
        let def = &self.structs[st.id().0 as usize];
        if def.is_union {
            return Err(RawError::new(
                at,
                format!("'union {}': union types are not supported", def.name),
            )
            .with_help("structs are supported: each member is its own object"));
        }
        Ok(())
    }
}

/// The leaves of struct `id`, in member order.
fn leaves_of(structs: &[StructDef], id: StructId) -> Vec<Leaf> {
    let mut out = Vec::new();
    for f in &structs[id.0 as usize].fields {
        let dims = |d: &[Option<u64>]| d.iter().map(|x| x.unwrap_or(1)).collect::<Vec<u64>>();
        match &f.ty {
            CType::Scalar(s) => out.push(Leaf {
                suffix: format!(".{}", f.name),
                elem: *s,
                dims: Vec::new(),
            }),
            CType::Array(s, d) => out.push(Leaf {
                suffix: format!(".{}", f.name),
                elem: *s,
                dims: dims(d),
            }),
            CType::Struct(t) | CType::StructArray(t, _) => {
                let outer = match &f.ty {
                    CType::StructArray(_, d) => dims(d),
                    _ => Vec::new(),
                };
                for l in leaves_of(structs, *t) {
                    let mut d = outer.clone();
                    d.extend(l.dims);
                    out.push(Leaf {
                        suffix: format!(".{}{}", f.name, l.suffix),
                        elem: l.elem,
                        dims: d,
                    });
                }
            }
            CType::Void | CType::Pointer(_) => {}
        }
    }
    out
}

struct Flattener<'a> {
    structs: &'a [StructDef],
    leaves: Vec<Vec<Leaf>>,
    /// Every name in scope with its struct-valued type (`None`: any other type).
    scopes: Vec<BTreeMap<String, Option<SType>>>,
    /// Parameter types of every function, for expanding struct arguments.
    sigs: BTreeMap<String, Vec<CType>>,
}

fn mk(kind: ExprKind, span: Span) -> Expr {
    Expr { kind, span }
}

fn int_lit(v: u64, span: Span) -> Expr {
    mk(ExprKind::IntLit(v, IntTy::INT), span)
}

/// Does evaluating `e` change anything (so it must not be repeated once per leaf)?
fn has_effects(e: &Expr) -> bool {
    let mut work = vec![e];
    while let Some(e) = work.pop() {
        if matches!(
            e.kind,
            ExprKind::Assign(..) | ExprKind::IncDec { .. } | ExprKind::Call(..)
        ) {
            return true;
        }
        work.extend(e.evaluated_children());
    }
    false
}

impl Flattener<'_> {
    fn declare(&mut self, name: &str, ty: &CType) {
        if let Some(s) = self.scopes.last_mut() {
            s.insert(name.to_string(), SType::of(ty));
        }
    }

    fn lookup(&self, name: &str) -> Option<SType> {
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.get(name))
            .cloned()
            .flatten()
    }

    fn name(&self, id: StructId) -> &str {
        &self.structs[id.0 as usize].name
    }

    /// The struct-valued type of `e`, if it has one (`None` for every other type).
    fn stype(&self, e: &Expr) -> CResult<Option<SType>> {
        Ok(match &e.kind {
            ExprKind::Ident(n) => self.lookup(n),
            ExprKind::Index(b, _) => match self.stype(b)? {
                Some(SType::Array(id, d)) if d.len() > 1 => Some(SType::Array(id, d[1..].to_vec())),
                Some(SType::Array(id, _) | SType::Ptr(id)) => Some(SType::Struct(id)),
                Some(SType::Struct(id)) => {
                    return Err(RawError::new(
                        e.span,
                        format!(
                            "subscripted value is a 'struct {}', not an array",
                            self.name(id)
                        ),
                    ));
                }
                None => None,
            },
            ExprKind::Member {
                base,
                member,
                arrow,
            } => {
                let id = self.member_base(base, *arrow, e.span)?;
                let def = &self.structs[id.0 as usize];
                let Some((_, f)) = def.field(member) else {
                    return Err(RawError::new(
                        e.span,
                        format!("'struct {}' has no member named '{member}'", def.name),
                    ));
                };
                SType::of(&f.ty)
            }
            ExprKind::Unary(UnOp::Deref, b) => match self.stype(b)? {
                Some(SType::Ptr(id) | SType::Array(id, _)) => Some(SType::Struct(id)),
                _ => None,
            },
            ExprKind::Unary(UnOp::AddrOf, b) => match self.stype(b)? {
                Some(SType::Struct(id)) => Some(SType::Ptr(id)),
                Some(_) => {
                    return Err(RawError::new(
                        e.span,
                        "the address of an array of structs or of a pointer is not supported",
                    ));
                }
                None => None,
            },
            ExprKind::Binary(..) => {
                // Along the left spine, bottom up (no recursion per operator).
                let spine = e.left_spine(|k| matches!(k, ExprKind::Binary(..)));
                let Some(bottom) = spine.last().and_then(|n| n.left()) else {
                    return Ok(None);
                };
                let mut acc = self.stype(bottom)?;
                for node in spine.iter().rev() {
                    let ExprKind::Binary(op, _, b) = &node.kind else {
                        continue;
                    };
                    let rb = self.stype(b)?;
                    acc = match (op, acc, rb) {
                        (BinOp::Add | BinOp::Sub, Some(SType::Ptr(_)), Some(SType::Ptr(_))) => None,
                        (
                            BinOp::Add | BinOp::Sub,
                            Some(SType::Ptr(id) | SType::Array(id, _)),
                            None,
                        )
                        | (BinOp::Add, None, Some(SType::Ptr(id) | SType::Array(id, _))) => {
                            Some(SType::Ptr(id))
                        }
                        _ => None,
                    };
                }
                acc
            }
            ExprKind::IncDec { expr, .. } => self.stype(expr)?,
            ExprKind::Assign(_, a, _) => self.stype(a)?,
            ExprKind::Cond(_, a, _) => self.stype(a)?,
            ExprKind::Comma(_, b) => self.stype(b)?,
            ExprKind::Cast(t, _) => SType::of(t),
            _ => None,
        })
    }

    /// The struct whose member `base.m` (`base->m` when `arrow`) names.
    fn member_base(&self, base: &Expr, arrow: bool, at: Span) -> CResult<StructId> {
        match (self.stype(base)?, arrow) {
            (Some(SType::Struct(id)), false) => Ok(id),
            (Some(SType::Ptr(id) | SType::Array(id, _)), true) => Ok(id),
            (Some(SType::Ptr(_)), false) => Err(RawError::new(
                at,
                "member access with '.' on a pointer to a struct",
            )
            .with_help("use '->'")),
            (Some(SType::Struct(_)), true) => Err(RawError::new(
                at,
                "member access with '->' on a struct that is not a pointer",
            )
            .with_help("use '.'")),
            _ => Err(RawError::new(
                at,
                "member access on a value that is not a struct",
            )),
        }
    }

    /// The expression for leaf path `suffix` of `e`, a struct-valued expression.
    fn leaf_expr(&mut self, e: &Expr, suffix: &str) -> CResult<Expr> {
        let sp = e.span;
        let b = |x: Expr| Box::new(x);
        Ok(match &e.kind {
            ExprKind::Ident(n) => mk(ExprKind::Ident(format!("{n}{suffix}")), sp),
            ExprKind::Index(a, i) => {
                let a = self.leaf_expr(a, suffix)?;
                let i = self.expr(i)?;
                mk(ExprKind::Index(b(a), b(i)), sp)
            }
            ExprKind::Member {
                base,
                member,
                arrow,
            } => {
                let path = format!(".{member}{suffix}");
                let inner = self.leaf_expr(base, &path)?;
                if *arrow {
                    mk(ExprKind::Unary(UnOp::Deref, b(inner)), sp)
                } else {
                    inner
                }
            }
            ExprKind::Unary(UnOp::Deref, a) => {
                let a = self.leaf_expr(a, suffix)?;
                mk(ExprKind::Unary(UnOp::Deref, b(a)), sp)
            }
            ExprKind::Unary(UnOp::AddrOf, a) => {
                let a = self.leaf_expr(a, suffix)?;
                mk(ExprKind::Unary(UnOp::AddrOf, b(a)), sp)
            }
            ExprKind::Binary(op, x, y) => {
                let (x, y) = if self.stype(x)?.is_some() {
                    (self.leaf_expr(x, suffix)?, self.expr(y)?)
                } else {
                    (self.expr(x)?, self.leaf_expr(y, suffix)?)
                };
                mk(ExprKind::Binary(*op, b(x), b(y)), sp)
            }
            ExprKind::IncDec { pre, inc, expr } => {
                let x = self.leaf_expr(expr, suffix)?;
                mk(
                    ExprKind::IncDec {
                        pre: *pre,
                        inc: *inc,
                        expr: b(x),
                    },
                    sp,
                )
            }
            ExprKind::Assign(op, x, y) => {
                let x = self.leaf_expr(x, suffix)?;
                let y = if self.stype(y)?.is_some() {
                    self.leaf_expr(y, suffix)?
                } else {
                    self.expr(y)?
                };
                mk(ExprKind::Assign(*op, b(x), b(y)), sp)
            }
            ExprKind::Cond(c, x, y) => {
                let c = self.expr(c)?;
                let x = self.leaf_expr(x, suffix)?;
                let y = self.leaf_expr(y, suffix)?;
                mk(ExprKind::Cond(b(c), b(x), b(y)), sp)
            }
            ExprKind::Comma(x, y) => {
                let x = self.expr(x)?;
                let y = self.leaf_expr(y, suffix)?;
                mk(ExprKind::Comma(b(x), b(y)), sp)
            }
            ExprKind::Cast(_, x) => self.leaf_expr(x, suffix)?,
            _ => {
                return Err(RawError::new(
                    sp,
                    "this struct value is not supported here (structs are variables, array \
                     elements and pointers to them)",
                ));
            }
        })
    }

    /// One expression per leaf of the struct-valued `e` (of type `st`). Evaluated once per
    /// leaf, so `e` must not have side effects when there are several leaves (pointer
    /// increments and assignments are the exception: each leaf's pointer moves).
    fn per_leaf(&mut self, e: &Expr, st: &SType) -> CResult<Vec<Expr>> {
        let ls = self.leaves[st.id().0 as usize].clone();
        if ls.len() > 1 && !Self::repeatable(e) {
            return Err(RawError::new(
                e.span,
                format!(
                    "this struct expression has side effects, and 'struct {}' has {} members \
                     (each would repeat them)",
                    self.name(st.id()),
                    ls.len()
                ),
            )
            .with_help("compute the index or the pointer into a variable first"));
        }
        ls.iter().map(|l| self.leaf_expr(e, &l.suffix)).collect()
    }

    /// True when evaluating `e` once per leaf does what evaluating it once does for the whole
    /// struct: its only side effects are the struct assignments and pointer moves themselves
    /// (each leaf's object is assigned, each leaf's pointer moved, once).
    fn repeatable(e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Assign(_, a, b) => !has_effects(a) && Self::repeatable(b),
            ExprKind::IncDec { expr, .. } => !has_effects(expr),
            ExprKind::Binary(_, a, b) => Self::repeatable(a) && Self::repeatable(b),
            ExprKind::Unary(_, a) | ExprKind::Cast(_, a) | ExprKind::Member { base: a, .. } => {
                Self::repeatable(a)
            }
            ExprKind::Index(a, i) => Self::repeatable(a) && !has_effects(i),
            ExprKind::Cond(c, a, b) => {
                !has_effects(c) && Self::repeatable(a) && Self::repeatable(b)
            }
            ExprKind::Comma(a, b) => !has_effects(a) && Self::repeatable(b),
            _ => !has_effects(e),
        }
    }

    /// `e` rewritten without struct types, as a value.
    fn expr(&mut self, e: &Expr) -> CResult<Expr> {
        let sp = e.span;
        let b = |x: Expr| Box::new(x);
        if let Some(st) = self.stype(e)? {
            if let ExprKind::Comma(x, y) = &e.kind {
                let x = self.expr(x)?;
                let y = self.expr(y)?;
                return Ok(mk(ExprKind::Comma(b(x), b(y)), sp));
            }
            return match (&e.kind, &st) {
                // A struct assignment or pointer move, as a statement or a value: one per
                // leaf, the first leaf's last (its value is the expression's).
                (ExprKind::Assign(..) | ExprKind::IncDec { .. }, _) | (_, SType::Ptr(_)) => {
                    let mut ls = self.per_leaf(e, &st)?;
                    let first = ls.remove(0);
                    Ok(ls.into_iter().rev().fold(first, |acc, x| {
                        let span = x.span;
                        mk(ExprKind::Comma(b(x), b(acc)), span)
                    }))
                }
                (_, SType::Array(..)) => {
                    // An array of structs as a value only decays to a pointer (a call
                    // argument is expanded before this).
                    let mut ls = self.per_leaf(e, &st)?;
                    Ok(ls.remove(0))
                }
                _ => Err(RawError::new(
                    sp,
                    format!(
                        "a 'struct {}' used as a value here (structs can be assigned, passed \
                         and their members read)",
                        self.name(st.id())
                    ),
                )),
            };
        }
        Ok(match &e.kind {
            ExprKind::IntLit(..) | ExprKind::FloatLit(..) | ExprKind::Ident(_) => e.clone(),
            ExprKind::SizeOf(x) => match self.stype(x)? {
                // A struct's size is its C layout's; other operands keep their types.
                Some(st) => {
                    let ty = match st {
                        SType::Struct(id) => CType::Struct(id),
                        SType::Array(id, d) => CType::StructArray(id, d),
                        SType::Ptr(id) => CType::Pointer(Box::new(CType::Struct(id))),
                    };
                    let (n, _) = super::parser::layout(self.structs, &ty, sp)?;
                    mk(ExprKind::IntLit(n, IntTy::ULONG), sp)
                }
                None => {
                    let x = self.expr(x)?;
                    mk(ExprKind::SizeOf(b(x)), sp)
                }
            },
            // A member that is no struct: the leaf itself.
            ExprKind::Member { .. } => self.leaf_expr(e, "")?,
            ExprKind::Unary(op, a) => {
                let a = self.expr(a)?;
                mk(ExprKind::Unary(*op, b(a)), sp)
            }
            ExprKind::IncDec { pre, inc, expr } => {
                let x = self.expr(expr)?;
                mk(
                    ExprKind::IncDec {
                        pre: *pre,
                        inc: *inc,
                        expr: b(x),
                    },
                    sp,
                )
            }
            ExprKind::Binary(..) => self.binary_chain(e)?,
            ExprKind::Assign(op, x, y) => {
                let x = self.expr(x)?;
                let y = self.expr(y)?;
                mk(ExprKind::Assign(*op, b(x), b(y)), sp)
            }
            ExprKind::Cond(c, x, y) => {
                let c = self.expr(c)?;
                let x = self.expr(x)?;
                let y = self.expr(y)?;
                mk(ExprKind::Cond(b(c), b(x), b(y)), sp)
            }
            ExprKind::Cast(t, x) => {
                let x = self.expr(x)?;
                mk(ExprKind::Cast(t.clone(), b(x)), sp)
            }
            ExprKind::Index(x, i) => {
                let x = self.expr(x)?;
                let i = self.expr(i)?;
                mk(ExprKind::Index(b(x), b(i)), sp)
            }
            ExprKind::Comma(..) => {
                // `a, b, c, ...` nests to the left: along its spine, no recursion per comma.
                let spine = e.left_spine(|k| matches!(k, ExprKind::Comma(..)));
                let Some(bottom) = spine.last().and_then(|n| n.left()) else {
                    return Err(RawError::new(sp, "expected a comma expression"));
                };
                let mut acc = self.expr(bottom)?;
                for node in spine.iter().rev() {
                    if let ExprKind::Comma(_, y) = &node.kind {
                        let y = self.expr(y)?;
                        acc = mk(ExprKind::Comma(b(acc), b(y)), node.span);
                    }
                }
                acc
            }
            ExprKind::Call(name, args) => {
                let sig = self.sigs.get(name).cloned();
                let mut out = Vec::with_capacity(args.len());
                for (k, a) in args.iter().enumerate() {
                    let pt = sig.as_ref().and_then(|s| s.get(k)).and_then(SType::of);
                    match (pt, self.stype(a)?) {
                        (Some(p), Some(at)) => {
                            if p.id() != at.id() {
                                return Err(RawError::new(
                                    a.span,
                                    format!(
                                        "incompatible argument: 'struct {}' passed where \
                                         'struct {}' is expected",
                                        self.name(at.id()),
                                        self.name(p.id())
                                    ),
                                ));
                            }
                            out.extend(self.per_leaf(a, &at)?);
                        }
                        (Some(p), None) => {
                            return Err(RawError::new(
                                a.span,
                                format!(
                                    "a 'struct {}' (or a pointer to one) is expected here",
                                    self.name(p.id())
                                ),
                            ));
                        }
                        (None, _) => out.push(self.expr(a)?),
                    }
                }
                mk(ExprKind::Call(name.clone(), out), sp)
            }
        })
    }

    /// A chain of binary operators, along its left spine (no recursion per operator).
    fn binary_chain(&mut self, e: &Expr) -> CResult<Expr> {
        let spine = e.left_spine(|k| matches!(k, ExprKind::Binary(..)));
        let Some(bottom) = spine.last().and_then(|n| n.left()) else {
            return Err(RawError::new(e.span, "expected a binary expression"));
        };
        let mut acc = self.operand(bottom)?;
        for node in spine.iter().rev() {
            let ExprKind::Binary(op, _, r) = &node.kind else {
                continue;
            };
            let r = self.operand(r)?;
            acc = mk(ExprKind::Binary(*op, Box::new(acc), Box::new(r)), node.span);
        }
        Ok(acc)
    }

    /// An operand of a binary operator: a struct pointer compares and subtracts as the
    /// pointer of its first leaf.
    fn operand(&mut self, e: &Expr) -> CResult<Expr> {
        match self.stype(e)? {
            Some(st @ (SType::Ptr(_) | SType::Array(..))) => {
                let l = self.leaves[st.id().0 as usize][0].suffix.clone();
                if has_effects(e) {
                    return self.expr(e);
                }
                self.leaf_expr(e, &l)
            }
            _ => self.expr(e),
        }
    }

    fn stmt(&mut self, s: &Stmt) -> CResult<Stmt> {
        let sp = s.span;
        let bx = |x: Stmt| Box::new(x);
        let kind = match &s.kind {
            StmtKind::Expr(e) => StmtKind::Expr(self.expr(e)?),
            StmtKind::Decl(ds) => {
                let mut out = Vec::new();
                for d in ds {
                    let flat = self.decl(d)?;
                    self.declare(&d.name, &d.ty);
                    out.extend(flat);
                }
                StmtKind::Decl(out)
            }
            StmtKind::Block(items) => {
                self.scopes.push(BTreeMap::new());
                let r: CResult<Vec<Stmt>> = items.iter().map(|x| self.stmt(x)).collect();
                self.scopes.pop();
                StmtKind::Block(r?)
            }
            StmtKind::If(c, t, e) => StmtKind::If(
                self.expr(c)?,
                bx(self.stmt(t)?),
                match e {
                    Some(e) => Some(bx(self.stmt(e)?)),
                    None => None,
                },
            ),
            StmtKind::While(c, body) => StmtKind::While(self.expr(c)?, bx(self.stmt(body)?)),
            StmtKind::DoWhile(body, c) => StmtKind::DoWhile(bx(self.stmt(body)?), self.expr(c)?),
            StmtKind::For(init, c, step, body) => {
                self.scopes.push(BTreeMap::new());
                let init = match init {
                    Some(i) => Some(bx(self.stmt(i)?)),
                    None => None,
                };
                let c = match c {
                    Some(c) => Some(self.expr(c)?),
                    None => None,
                };
                let step = match step {
                    Some(x) => Some(self.expr(x)?),
                    None => None,
                };
                let body = bx(self.stmt(body)?);
                self.scopes.pop();
                StmtKind::For(init, c, step, body)
            }
            StmtKind::Switch(c, body) => StmtKind::Switch(self.expr(c)?, bx(self.stmt(body)?)),
            StmtKind::Case(v, body) => StmtKind::Case(v.clone(), bx(self.stmt(body)?)),
            StmtKind::Default(body) => StmtKind::Default(bx(self.stmt(body)?)),
            StmtKind::Label(l, body) => StmtKind::Label(l.clone(), bx(self.stmt(body)?)),
            StmtKind::Return(Some(e)) => {
                if self.stype(e)?.is_some() {
                    return Err(RawError::new(
                        e.span,
                        "returning a struct or a pointer to one is not supported",
                    ));
                }
                StmtKind::Return(Some(self.expr(e)?))
            }
            k @ (StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Return(None)
            | StmtKind::Empty
            | StmtKind::Goto(_)) => k.clone(),
        };
        Ok(Stmt { kind, span: sp })
    }

    /// A declaration, as one declaration per leaf for a struct-valued type.
    fn decl(&mut self, d: &Decl) -> CResult<Vec<Decl>> {
        if let Some(st) = SType::of(&d.ty) {
            self.check_union(&st, d.span)?;
        }
        let Some(st) = SType::of(&d.ty) else {
            let init = match &d.init {
                Some(i) => Some(self.init(i)?),
                None => None,
            };
            return Ok(vec![Decl { init, ..d.clone() }]);
        };
        let ls = self.leaves[st.id().0 as usize].clone();
        let inits: Vec<Option<Init>> = match (&d.init, &st) {
            (None, _) => vec![None; ls.len()],
            (Some(Init::Expr(e)), SType::Ptr(_)) => {
                if self.stype(e)? != Some(st.clone())
                    && !matches!(self.stype(e)?, Some(SType::Array(..)))
                {
                    return Err(RawError::new(
                        e.span,
                        format!(
                            "'{}' must be initialized with a pointer to a 'struct {}'",
                            d.name,
                            self.name(st.id())
                        ),
                    ));
                }
                self.per_leaf(e, &st)?
                    .into_iter()
                    .map(|x| Some(Init::Expr(x)))
                    .collect()
            }
            (Some(Init::Expr(e)), SType::Struct(_)) => {
                let Some(SType::Struct(src)) = self.stype(e)? else {
                    return Err(RawError::new(
                        e.span,
                        format!(
                            "'{}' must be initialized with a 'struct {}'",
                            d.name,
                            self.name(st.id())
                        ),
                    ));
                };
                if src != st.id() || ls.iter().any(|l| !l.dims.is_empty()) {
                    return Err(RawError::new(
                        e.span,
                        "copying a struct with an array member, or of another struct type, is not supported",
                    ));
                }
                self.per_leaf(e, &st)?
                    .into_iter()
                    .map(|x| Some(Init::Expr(x)))
                    .collect()
            }
            (Some(Init::List(items, lsp)), SType::Struct(_) | SType::Array(..)) => {
                self.distribute(&d.ty, items, *lsp, &st, &ls)?
            }
            (Some(i), _) => {
                return Err(RawError::new(i.span(), "invalid initializer for a struct"));
            }
        };
        Ok(ls
            .iter()
            .zip(inits)
            .map(|(l, init)| Decl {
                name: format!("{}{}", d.name, l.suffix),
                ty: st.leaf_type(l),
                init,
                is_const: d.is_const,
                is_static: d.is_static,
                span: d.span,
            })
            .collect())
    }

    fn init(&mut self, i: &Init) -> CResult<Init> {
        Ok(match i {
            Init::Expr(e) => Init::Expr(self.expr(e)?),
            Init::List(items, sp) => Init::List(
                items.iter().map(|x| self.init(x)).collect::<CResult<_>>()?,
                *sp,
            ),
        })
    }

    /// An initializer list of a struct or array of structs, distributed over the leaves
    /// (C's order and brace elision): one flat list per leaf, zeros where nothing is given.
    fn distribute(
        &mut self,
        ty: &CType,
        items: &[Init],
        span: Span,
        st: &SType,
        ls: &[Leaf],
    ) -> CResult<Vec<Option<Init>>> {
        let n = self.slots(ty);
        let mut slots: Vec<Option<Expr>> = vec![None; n as usize];
        let mut pos = 0;
        let mut at = 0;
        self.fill(ty, items, &mut pos, &mut at, &mut slots)?;
        if pos < items.len() {
            return Err(RawError::new(
                items[pos].span(),
                "excess elements in struct initializer",
            ));
        }
        // C order -> (leaf, element of the leaf's array).
        let mut order = Vec::with_capacity(n as usize);
        let per = self.c_order(st.id());
        let count = match st {
            SType::Array(_, d) => d.iter().map(|x| x.unwrap_or(1)).product(),
            _ => 1,
        };
        for o in 0..count {
            for &(l, j) in &per {
                order.push((l, o * ls[l].len() + j));
            }
        }
        let mut per_leaf: Vec<Vec<Option<Expr>>> = ls
            .iter()
            .map(|l| vec![None; (count * l.len()) as usize])
            .collect();
        for (k, s) in slots.into_iter().enumerate() {
            if let Some(e) = s {
                let (l, j) = order[k];
                per_leaf[l][j as usize] = Some(e);
            }
        }
        Ok(per_leaf
            .into_iter()
            .zip(ls)
            .map(|(vals, l)| {
                let zero = |x: Option<Expr>| x.unwrap_or_else(|| int_lit(0, span));
                if matches!(st, SType::Struct(_)) && l.dims.is_empty() {
                    vals.into_iter().next().map(|x| Init::Expr(zero(x)))
                } else {
                    Some(Init::List(
                        vals.into_iter().map(|x| Init::Expr(zero(x))).collect(),
                        span,
                    ))
                }
            })
            .collect())
    }

    /// Number of scalars in an object of type `ty`.
    fn slots(&self, ty: &CType) -> u64 {
        let count = |d: &[Option<u64>]| d.iter().map(|x| x.unwrap_or(1)).product::<u64>();
        match ty {
            CType::Scalar(_) | CType::Pointer(_) | CType::Void => 1,
            CType::Array(_, d) => count(d),
            CType::Struct(id) => self.structs[id.0 as usize]
                .fields
                .iter()
                .map(|f| self.slots(&f.ty))
                .sum(),
            CType::StructArray(id, d) => count(d) * self.slots(&CType::Struct(*id)),
        }
    }

    /// The scalars of one struct `id` in C order, each as (leaf, element of the leaf).
    fn c_order(&self, id: StructId) -> Vec<(usize, u64)> {
        let mut out = Vec::new();
        let mut lb = 0;
        for f in &self.structs[id.0 as usize].fields {
            match &f.ty {
                CType::Scalar(_) => {
                    out.push((lb, 0));
                    lb += 1;
                }
                CType::Array(_, d) => {
                    let n: u64 = d.iter().map(|x| x.unwrap_or(1)).product();
                    out.extend((0..n).map(|j| (lb, j)));
                    lb += 1;
                }
                CType::Struct(t) | CType::StructArray(t, _) => {
                    let n: u64 = match &f.ty {
                        CType::StructArray(_, d) => d.iter().map(|x| x.unwrap_or(1)).product(),
                        _ => 1,
                    };
                    let inner = self.c_order(*t);
                    let tl = &self.leaves[t.0 as usize];
                    for e in 0..n {
                        for &(l, j) in &inner {
                            out.push((lb + l, e * tl[l].len() + j));
                        }
                    }
                    lb += tl.len();
                }
                CType::Void | CType::Pointer(_) => {}
            }
        }
        out
    }

    /// The subobjects of an aggregate, in order.
    fn subobjects(&self, ty: &CType) -> Vec<CType> {
        match ty {
            CType::Array(s, d) => {
                let elem = if d.len() > 1 {
                    CType::Array(*s, d[1..].to_vec())
                } else {
                    CType::Scalar(*s)
                };
                vec![elem; d[0].unwrap_or(1) as usize]
            }
            CType::StructArray(id, d) => {
                let elem = if d.len() > 1 {
                    CType::StructArray(*id, d[1..].to_vec())
                } else {
                    CType::Struct(*id)
                };
                vec![elem; d[0].unwrap_or(1) as usize]
            }
            CType::Struct(id) => self.structs[id.0 as usize]
                .fields
                .iter()
                .map(|f| f.ty.clone())
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Fills `slots` (C order, from `*at`) with the scalars of `items[*pos..]` for an object
    /// of type `ty`: a braced item initializes one subobject, others are taken one scalar at
    /// a time (brace elision).
    fn fill(
        &mut self,
        ty: &CType,
        items: &[Init],
        pos: &mut usize,
        at: &mut u64,
        slots: &mut Vec<Option<Expr>>,
    ) -> CResult<()> {
        if matches!(ty, CType::Scalar(_) | CType::Pointer(_)) {
            if let Some(item) = items.get(*pos) {
                let e = match item {
                    Init::Expr(e) => e,
                    Init::List(inner, sp) => match inner.as_slice() {
                        [Init::Expr(e)] => e,
                        _ => return Err(RawError::new(*sp, "invalid initializer for a scalar")),
                    },
                };
                slots[*at as usize] = Some(self.expr(e)?);
                *pos += 1;
            }
            *at += 1;
            return Ok(());
        }
        for sub in self.subobjects(ty) {
            // A struct member initialized by a struct value: one slot per scalar of it.
            if let (CType::Struct(id), Some(Init::Expr(e))) = (&sub, items.get(*pos))
                && self.stype(e)? == Some(SType::Struct(*id))
            {
                let ls = self.leaves[id.0 as usize].clone();
                if ls.iter().any(|l| !l.dims.is_empty()) {
                    return Err(RawError::new(
                        e.span,
                        "initializing from a struct with an array member is not supported",
                    ));
                }
                let vals = self.per_leaf(e, &SType::Struct(*id))?;
                for (k, (l, _)) in self.c_order(*id).into_iter().enumerate() {
                    slots[*at as usize + k] = Some(vals[l].clone());
                }
                *pos += 1;
                *at += self.slots(&sub);
                continue;
            }
            match items.get(*pos) {
                None => *at += self.slots(&sub),
                Some(Init::List(inner, sp))
                    if !matches!(sub, CType::Scalar(_) | CType::Pointer(_)) =>
                {
                    let (mut p2, mut at2) = (0, *at);
                    self.fill(&sub, inner, &mut p2, &mut at2, slots)?;
                    if p2 < inner.len() {
                        return Err(RawError::new(*sp, "excess elements in initializer"));
                    }
                    *pos += 1;
                    *at += self.slots(&sub);
                }
                Some(_) => self.fill(&sub, items, pos, at, slots)?,
            }
        }
        Ok(())
    }
}
