//! Pointers into arrays. A pointer is resolved at compile time to the array it points into
//! (its *target*: one memory, or one scalar variable for `&x`) and carries its position in
//! that array as an `int` offset in elements, an SSA variable like any other. So `&a[k]`,
//! `a + k`, `p++`, `*p`, `p[i]`, `p - q` and `p < q` are integer arithmetic on offsets and
//! loads and stores at them; a pointer whose target is not the same array on every path (two
//! assignments into different arrays) is a located error.
//!
//! A pointer to a row of a multi-dimensional array (`&a[i]` of `int a[N][M]`, or a struct
//! member's row) points to `M` elements at a time: arithmetic moves it by rows.

use super::*;

/// What a pointer points to: elements of `elem` (`inner` empty), or rows of `inner`
/// elements (a pointer to an array).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Pointee {
    pub elem: Scalar,
    pub inner: Vec<u64>,
}

impl Pointee {
    /// Elements per step of the pointer.
    fn stride(&self) -> u64 {
        self.inner.iter().product()
    }

    /// The C type of a pointer to this.
    pub fn pointer_type(&self) -> CType {
        CType::Pointer(Box::new(self.object_type()))
    }

    /// The C type of what the pointer points to.
    fn object_type(&self) -> CType {
        if self.inner.is_empty() {
            CType::Scalar(self.elem)
        } else {
            CType::Array(self.elem, self.inner.iter().copied().map(Some).collect())
        }
    }

    /// The pointee of a pointer of type `t` (`int *`, pointer to a row).
    pub fn of(t: &CType) -> Option<Pointee> {
        match t {
            CType::Pointer(p) => match p.as_ref() {
                CType::Scalar(s) => Some(Pointee {
                    elem: *s,
                    inner: Vec::new(),
                }),
                CType::Array(s, d) => Some(Pointee {
                    elem: *s,
                    inner: d.iter().map(|x| x.unwrap_or(1)).collect(),
                }),
                _ => None,
            },
            _ => None,
        }
    }
}

/// The object a pointer points into.
#[derive(Clone, Debug)]
pub(super) enum Target {
    /// A memory (an array), seen whole (`base` none, one dimension of its length).
    Mem(ArrayRef),
    /// A scalar variable (`&x`): only its own address, no arithmetic.
    Var(Var, Scalar, String),
}

impl Target {
    fn same(&self, other: &Target) -> bool {
        match (self, other) {
            (Target::Mem(a), Target::Mem(b)) => a.mem == b.mem,
            (Target::Var(a, ..), Target::Var(b, ..)) => a == b,
            _ => false,
        }
    }

    fn name(&self) -> &str {
        match self {
            Target::Mem(a) => &a.name,
            Target::Var(_, _, n) => n,
        }
    }
}

/// A pointer variable (parameter or local).
#[derive(Clone, Debug)]
pub(super) struct PtrSym {
    /// What it points into, once assigned.
    pub target: Option<Target>,
    /// Where it was first made to point into its target.
    pub bound_at: Option<Span>,
    /// Its offset in elements from the start of the target.
    pub off: Var,
    pub pointee: Pointee,
    /// Declared `const T *`: the elements are read-only through it.
    pub is_const: bool,
}

/// A pointer value: target, offset (an `int` value) and pointee.
#[derive(Clone, Debug)]
pub(super) struct PtrVal {
    pub target: Target,
    pub off: ValueId,
    pub pointee: Pointee,
}

impl Lowerer<'_> {
    /// Is `e` of pointer type (arrays decay to pointers in the contexts that ask)?
    pub(super) fn is_pointer_expr(&mut self, e: &Expr) -> bool {
        let mut last = e;
        while let ExprKind::Comma(_, b) = &last.kind {
            last = b;
        }
        if !matches!(
            last.kind,
            ExprKind::Ident(_)
                | ExprKind::Index(..)
                | ExprKind::Unary(UnOp::AddrOf | UnOp::Deref, _)
                | ExprKind::IncDec { .. }
                | ExprKind::Assign(..)
                | ExprKind::Cast(..)
                | ExprKind::Cond(..)
                | ExprKind::Binary(BinOp::Add | BinOp::Sub, ..)
        ) {
            return false;
        }
        matches!(
            self.expr_type(last),
            Ok(CType::Pointer(_) | CType::Array(..))
        )
    }

    /// A pointer to the whole memory of `arr` (whatever view of it `arr` is).
    fn whole(&self, arr: &ArrayRef) -> ArrayRef {
        let len = self.mems[arr.mem.0 as usize].mem.len;
        ArrayRef {
            base: None,
            dims: vec![Some(len)],
            param: false,
            ..arr.clone()
        }
    }

    /// An array (or a view of one) decayed to a pointer to its first element (row).
    fn decay(&mut self, arr: &ArrayRef, sp: Span) -> PtrVal {
        let off = match arr.base {
            Some(b) => b,
            None => self.constant(0, Type::Int(32), sp),
        };
        PtrVal {
            target: Target::Mem(self.whole(arr)),
            off,
            pointee: Pointee {
                elem: arr.elem,
                inner: arr.dims[1..].iter().map(|d| d.unwrap_or(1)).collect(),
            },
        }
    }

    /// The array view a pointer value designates: its target from its offset on, with an
    /// open first dimension.
    pub(super) fn ptr_view(&self, p: &PtrVal, sp: Span) -> CResult<ArrayRef> {
        match &p.target {
            Target::Mem(a) => {
                let mut dims = vec![None];
                dims.extend(p.pointee.inner.iter().copied().map(Some));
                Ok(ArrayRef {
                    base: Some(p.off),
                    dims,
                    elem: p.pointee.elem,
                    param: false,
                    ..a.clone()
                })
            }
            Target::Var(_, _, n) => Err(RawError::new(
                sp,
                format!(
                    "a pointer to the variable '{n}' cannot be indexed: it points to one object"
                ),
            )
            .with_help("write '*p' instead of 'p[0]'")),
        }
    }

    /// The pointer variable `name`, if it is one.
    fn ptr_sym(&self, name: &str) -> Option<PtrSym> {
        match self.lookup(name) {
            Some(Sym::Pointer(p)) => Some(p.clone()),
            _ => None,
        }
    }

    /// The value of the pointer expression `e`.
    pub(super) fn ptr_value(&mut self, e: &Expr) -> CResult<PtrVal> {
        let sp = e.span;
        match &e.kind {
            ExprKind::Ident(n) => {
                if let Some(p) = self.ptr_sym(n) {
                    let Some(target) = p.target.clone() else {
                        return Err(RawError::new(
                            sp,
                            format!("the pointer '{n}' is used before it points into an array"),
                        ));
                    };
                    let off = self.b.read_var(p.off);
                    return Ok(PtrVal {
                        target,
                        off,
                        pointee: p.pointee,
                    });
                }
                match self.array_sym(n)? {
                    Some(arr) => Ok(self.decay(&arr, sp)),
                    None => Err(self.not_a_pointer(e)),
                }
            }
            ExprKind::Index(..) => match self.subscript(e)? {
                Err(view) => Ok(self.decay(&view, sp)),
                Ok(_) => Err(self.not_a_pointer(e)),
            },
            ExprKind::Unary(UnOp::AddrOf, x) => self.address_of(x),
            ExprKind::Unary(UnOp::Deref, x) => {
                let p = self.ptr_value(x)?;
                if p.pointee.inner.is_empty() {
                    return Err(self.not_a_pointer(e));
                }
                // `*p` of a pointer to rows is a row: it decays to its first element.
                Ok(PtrVal {
                    pointee: Pointee {
                        elem: p.pointee.elem,
                        inner: p.pointee.inner[1..].to_vec(),
                    },
                    ..p
                })
            }
            ExprKind::Binary(..) => match self.binary_chain_any(e)? {
                (_, _, Some(p)) => Ok(p),
                _ => Err(self.not_a_pointer(e)),
            },
            ExprKind::IncDec { pre, inc, expr } => {
                let (name, p) = self.ptr_lvalue(expr)?;
                let old = self.ptr_value(expr)?;
                let one = self.constant(1, Type::Int(32), sp);
                let op = if *inc { BinOp::Add } else { BinOp::Sub };
                let new = self.ptr_offset(&old, op, one, sp)?;
                self.b.write_var(p.off, new.off);
                let _ = name;
                Ok(if *pre { new } else { old })
            }
            ExprKind::Assign(op, a, b) => {
                let (name, p) = self.ptr_lvalue(a)?;
                let new = match op {
                    None => {
                        let v = self.ptr_value(b)?;
                        self.bind(&name, &p, &v, sp)?;
                        v
                    }
                    Some(o @ (BinOp::Add | BinOp::Sub)) => {
                        let old = self.ptr_value(a)?;
                        let k = self.rvalue(b)?;
                        require_int(k.ty, b.span, "a pointer increment")?;
                        let k = self.convert(k, Scalar::INT, b.span)?;
                        self.ptr_offset(&old, *o, k, sp)?
                    }
                    Some(_) => {
                        return Err(RawError::new(
                            sp,
                            "only '=', '+=' and '-=' apply to a pointer",
                        ));
                    }
                };
                self.b.write_var(p.off, new.off);
                Ok(new)
            }
            ExprKind::Cond(c, a, b) => {
                let cv = self.cond(c)?;
                if speculatable(a) && speculatable(b) {
                    let pa = self.ptr_value(a)?;
                    let pb = self.ptr_value(b)?;
                    self.same_target(&pa, &pb, sp)?;
                    let off = self.b.inst(
                        InstKind::Select {
                            cond: cv,
                            t: pa.off,
                            f: pb.off,
                        },
                        &[Type::Int(32)],
                        sp,
                    )[0];
                    return Ok(PtrVal { off, ..pa });
                }
                // An arm with a memory access or side effects: branches, the offset merged.
                let tmp = self.b.new_var("ptr.cond", Type::Int(32));
                let (tb, fb, mb) = (self.b.new_block(), self.b.new_block(), self.b.new_block());
                self.b.cond_br(cv, tb, fb, c.span);
                let mut arms: Vec<PtrVal> = Vec::with_capacity(2);
                for (blk, arm) in [(tb, a), (fb, b)] {
                    self.b.seal(blk);
                    self.b.switch_to(blk);
                    let p = self.ptr_value(arm)?;
                    self.b.write_var(tmp, p.off);
                    self.b.br(mb, arm.span);
                    arms.push(p);
                }
                self.same_target(&arms[0], &arms[1], sp)?;
                if arms[0].pointee != arms[1].pointee {
                    return Err(RawError::new(sp, "the arms point to different types"));
                }
                self.b.seal(mb);
                self.b.switch_to(mb);
                let off = self.b.read_var(tmp);
                Ok(PtrVal {
                    off,
                    ..arms.swap_remove(0)
                })
            }
            ExprKind::Comma(a, b) => {
                self.effect(a)?;
                self.ptr_value(b)
            }
            ExprKind::Cast(t, x) => {
                let p = self.ptr_value(x)?;
                match Pointee::of(t) {
                    Some(want) if want == p.pointee => Ok(p),
                    Some(_) => Err(RawError::new(
                        sp,
                        "a pointer cast to another element type is not supported",
                    )),
                    None => Err(RawError::new(sp, "a pointer converted to a number")),
                }
            }
            _ => Err(self.not_a_pointer(e)),
        }
    }

    fn not_a_pointer(&mut self, e: &Expr) -> RawError {
        match self.expr_type(e) {
            Err(err) => err,
            Ok(t) => RawError::new(
                e.span,
                format!("expected a pointer into an array, found a value of type '{t}'"),
            ),
        }
    }

    /// `e` as an assignable pointer variable: its name and symbol.
    fn ptr_lvalue(&mut self, e: &Expr) -> CResult<(String, PtrSym)> {
        if let ExprKind::Ident(n) = &e.kind
            && let Some(p) = self.ptr_sym(n)
        {
            return Ok((n.clone(), p));
        }
        Err(RawError::new(
            e.span,
            "only a pointer variable can be assigned or incremented as a pointer",
        ))
    }

    /// Makes the pointer variable `name` point into `v`'s target (its first assignment), or
    /// checks it is the target it already has.
    fn bind(&mut self, name: &str, p: &PtrSym, v: &PtrVal, sp: Span) -> CResult<()> {
        if v.pointee != p.pointee {
            return Err(RawError::new(
                sp,
                format!(
                    "incompatible pointer: '{name}' is '{}', the value is '{}'",
                    p.pointee.pointer_type(),
                    v.pointee.pointer_type()
                ),
            ));
        }
        match (&p.target, p.bound_at) {
            (Some(t), Some(at)) if !t.same(&v.target) => {
                return Err(RawError::new(
                    sp,
                    format!(
                        "'{name}' points into '{}' (line {}) and here into '{}': a pointer must \
                         stay within one array for Handscope to resolve it",
                        t.name(),
                        at.line,
                        v.target.name()
                    ),
                )
                .with_help("use one pointer per array, or an index into each array"));
            }
            (Some(_), _) => {}
            (None, _) => {
                let target = v.target.clone();
                let sym = self
                    .scopes
                    .iter_mut()
                    .rev()
                    .find_map(|scope| scope.get_mut(name))
                    .or_else(|| self.global_ptrs.get_mut(name));
                if let Some(Sym::Pointer(s)) = sym {
                    s.target = Some(target);
                    s.bound_at = Some(sp);
                }
            }
        }
        Ok(())
    }

    fn same_target(&self, a: &PtrVal, b: &PtrVal, sp: Span) -> CResult<()> {
        if a.target.same(&b.target) {
            Ok(())
        } else {
            Err(RawError::new(
                sp,
                format!(
                    "pointers into different arrays ('{}' and '{}') compared or subtracted",
                    a.target.name(),
                    b.target.name()
                ),
            ))
        }
    }

    /// `p + k` or `p - k` (`k` an `int` value), in steps of the pointee.
    pub(super) fn ptr_offset(
        &mut self,
        p: &PtrVal,
        op: BinOp,
        k: ValueId,
        sp: Span,
    ) -> CResult<PtrVal> {
        if let Target::Var(_, _, n) = &p.target {
            return Err(RawError::new(
                sp,
                format!("arithmetic on a pointer to the variable '{n}' (it points to one object)"),
            ));
        }
        let stride = p.pointee.stride();
        let step = if stride == 1 {
            k
        } else {
            let s = self.constant(stride as i64, Type::Int(32), sp);
            self.binary(BinaryOp::MulI, k, s, sp)?
        };
        let irop = if op == BinOp::Add {
            BinaryOp::AddI
        } else {
            BinaryOp::SubI
        };
        let off = self.binary(irop, p.off, step, sp)?;
        Ok(PtrVal { off, ..p.clone() })
    }

    /// `&x`: the address of an element, a row, an array or a scalar variable.
    fn address_of(&mut self, x: &Expr) -> CResult<PtrVal> {
        let sp = x.span;
        match &x.kind {
            ExprKind::Index(..) => match self.subscript(x)? {
                Ok((_, idx, elem, arr)) => Ok(PtrVal {
                    target: Target::Mem(self.whole(&arr)),
                    off: idx,
                    pointee: Pointee {
                        elem,
                        inner: Vec::new(),
                    },
                }),
                Err(view) => {
                    let off = match view.base {
                        Some(b) => b,
                        None => self.constant(0, Type::Int(32), sp),
                    };
                    Ok(PtrVal {
                        target: Target::Mem(self.whole(&view)),
                        off,
                        pointee: Pointee {
                            elem: view.elem,
                            inner: view.dims.iter().map(|d| d.unwrap_or(1)).collect(),
                        },
                    })
                }
            },
            ExprKind::Ident(n) => match self.lookup(n).cloned() {
                Some(Sym::Scalar(var, t, _)) => {
                    let off = self.constant(0, Type::Int(32), sp);
                    Ok(PtrVal {
                        target: Target::Var(var, t, n.clone()),
                        off,
                        pointee: Pointee {
                            elem: t,
                            inner: Vec::new(),
                        },
                    })
                }
                Some(Sym::Pointer(_)) => Err(RawError::new(
                    sp,
                    "the address of a pointer (pointers to pointers are not supported)",
                )),
                _ => match self.array_sym(n)? {
                    Some(arr) => {
                        let mut p = self.decay(&arr, sp);
                        p.pointee.inner = arr.dims.iter().map(|d| d.unwrap_or(1)).collect();
                        Ok(p)
                    }
                    None => Err(RawError::new(
                        sp,
                        format!(
                            "the address of '{n}': pointers must point into arrays or local \
                             variables"
                        ),
                    )),
                },
            },
            ExprKind::Unary(UnOp::Deref, y) => self.ptr_value(y),
            _ => Err(RawError::new(
                sp,
                "cannot take the address of this expression",
            )),
        }
    }

    /// `*p` as an assignable location (`write`: it will be written).
    pub(super) fn deref_lv(&mut self, p: &Expr, at: Span, write: bool) -> CResult<Lv> {
        if !self.is_pointer_expr(p) {
            let t = self.expr_type(p)?;
            return Err(RawError::new(
                at,
                format!("the operand of '*' is not a pointer: it is '{t}'"),
            ));
        }
        let v = self.ptr_value(p)?;
        if !v.pointee.inner.is_empty() {
            return Err(RawError::new(
                at,
                "this is a row of an array (the pointer points to rows), not a number",
            ));
        }
        match v.target {
            Target::Mem(arr) => {
                if write && let Some(c) = &arr.const_name {
                    return Err(RawError::new(
                        at,
                        format!("cannot write through this pointer: '{c}' is declared const"),
                    ));
                }
                if write && self.ptr_is_const(p) {
                    return Err(RawError::new(
                        at,
                        "cannot write through a pointer to const elements",
                    ));
                }
                Ok(Lv::Elem(arr.mem, v.off, v.pointee.elem))
            }
            Target::Var(var, t, _) => Ok(Lv::Var(var, t)),
        }
    }

    /// True when `e` is a pointer variable declared `const T *`.
    pub(super) fn ptr_is_const(&self, e: &Expr) -> bool {
        let mut cur = e;
        loop {
            match &cur.kind {
                ExprKind::Ident(n) => return self.ptr_sym(n).is_some_and(|p| p.is_const),
                ExprKind::IncDec { expr, .. } => cur = expr,
                ExprKind::Binary(_, a, _) => cur = a,
                _ => return false,
            }
        }
    }

    /// A pointer declared with `pointee` (a parameter or local), pointing into `init`'s
    /// target if given.
    pub(super) fn declare_pointer(
        &mut self,
        name: &str,
        pointee: Pointee,
        is_const: bool,
        init: Option<&Expr>,
        span: Span,
    ) -> CResult<()> {
        let off = self.b.new_var(name, Type::Int(32));
        let mut sym = PtrSym {
            target: None,
            bound_at: None,
            off,
            pointee,
            is_const,
        };
        if let Some(e) = init {
            let v = self.ptr_value(e)?;
            self.bind(name, &sym, &v, e.span)?;
            sym.target = Some(v.target.clone());
            sym.bound_at = Some(e.span);
            if let Target::Mem(a) = &v.target
                && a.const_name.is_some()
                && !is_const
            {
                sym.is_const = true;
            }
            self.b.write_var(off, v.off);
        }
        self.declare(name, Sym::Pointer(sym), span)
    }

    /// One step of a binary chain where a pointer is involved: `acc` (a pointer when
    /// `left` is) `op` the operand `r`. Returns the number or condition, or the pointer.
    pub(super) fn pointer_step(
        &mut self,
        op: BinOp,
        left: Option<PtrVal>,
        acc: (Val, Span),
        r: &Expr,
        sp: Span,
    ) -> CResult<(Val, Option<PtrVal>)> {
        let right_ptr = self.is_pointer_expr(r);
        match (left, right_ptr) {
            (Some(l), true) => {
                let rp = self.ptr_value(r)?;
                self.same_target(&l, &rp, sp)?;
                if op.is_comparison() {
                    let pred =
                        ir_pred(op, true).ok_or_else(|| RawError::new(sp, "bad comparison"))?;
                    return Ok((Val::Bool(self.cmp(pred, l.off, rp.off, sp)), None));
                }
                if op != BinOp::Sub {
                    return Err(RawError::new(sp, "invalid operation on two pointers"));
                }
                let mut d = self.binary(BinaryOp::SubI, l.off, rp.off, sp)?;
                let stride = l.pointee.stride();
                if stride > 1 {
                    let s = self.constant(stride as i64, Type::Int(32), sp);
                    d = self.binary(BinaryOp::DivSI, d, s, sp)?;
                }
                let v = self.cast(CastOp::ExtSI, d, Type::Int(64), sp);
                Ok((
                    Val::Int(Rv {
                        v,
                        ty: Scalar::Int(IntTy::LONG),
                    }),
                    None,
                ))
            }
            (Some(l), false) => {
                if !matches!(op, BinOp::Add | BinOp::Sub) {
                    return Err(RawError::new(
                        sp,
                        format!("invalid operand of a pointer: '{}'", op.spelling()),
                    ));
                }
                let k = self.rvalue(r)?;
                require_int(k.ty, r.span, "a pointer offset")?;
                let k = self.convert(k, Scalar::INT, r.span)?;
                let p = self.ptr_offset(&l, op, k, sp)?;
                Ok((acc.0, Some(p)))
            }
            (None, true) => {
                if op != BinOp::Add {
                    return Err(RawError::new(
                        sp,
                        "a number and a pointer: only 'n + p' is a pointer",
                    ));
                }
                let k = self.int_of(acc);
                require_int(k.ty, sp, "a pointer offset")?;
                let k = self.convert(k, Scalar::INT, sp)?;
                let rp = self.ptr_value(r)?;
                let p = self.ptr_offset(&rp, BinOp::Add, k, sp)?;
                let zero = self.constant(0, Type::Int(32), sp);
                Ok((
                    Val::Int(Rv {
                        v: zero,
                        ty: Scalar::INT,
                    }),
                    Some(p),
                ))
            }
            (None, false) => Err(RawError::new(sp, "no pointer here")),
        }
    }

    /// The type of `acc op r` where a pointer is involved (`left`: the left operand's type,
    /// when it is a pointer); `None` when no pointer is.
    pub(super) fn pointer_step_type(
        &mut self,
        op: BinOp,
        left: Option<&CType>,
        r: &Expr,
        sp: Span,
    ) -> CResult<Option<CType>> {
        let rt = self.expr_type(r)?;
        let decayed = |t: &CType| match t {
            CType::Array(s, d) => Some(CType::Pointer(Box::new(if d.len() > 1 {
                CType::Array(*s, d[1..].to_vec())
            } else {
                CType::Scalar(*s)
            }))),
            CType::Pointer(_) => Some(t.clone()),
            _ => None,
        };
        let (lp, rp) = (left.and_then(decayed), decayed(&rt));
        Ok(match (lp, rp) {
            (None, None) => None,
            (Some(_), Some(_)) if op.is_comparison() => Some(CType::Scalar(Scalar::INT)),
            (Some(_), Some(_)) if op == BinOp::Sub => Some(CType::Scalar(Scalar::Int(IntTy::LONG))),
            (Some(p), None) if matches!(op, BinOp::Add | BinOp::Sub) => Some(p),
            (None, Some(p)) if op == BinOp::Add => Some(p),
            _ => {
                return Err(RawError::new(
                    sp,
                    format!(
                        "invalid operands to '{}' (a pointer and a value)",
                        op.spelling()
                    ),
                ));
            }
        })
    }
}
