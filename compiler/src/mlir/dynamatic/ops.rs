//! The per-op assembly forms: results, mnemonic, operands (in each form's own layout),
//! attribute dictionary and printed types, into a [`DynOp`].

use handscope_sim::{CmpPredicate, FloatPredicate};

use super::ast::{
    BufferForm, BufferParams, BufferType, DynOp, DynResult, DynType, DynValue, LsqMode, LsqParams,
    MemOperand, OpParams, Predicate, RawAttr,
};
use super::attrs::kind_help;
use super::era::Era;
use super::kinds::{DynOpKind, Form};
use super::reader::Reader;
use super::types::TypeSig;
use crate::mlir::Span;
use crate::mlir::ast::Attr;
use crate::mlir::diag::ErrExt;
use crate::mlir::lexer::Tok;
use crate::mlir::parser::{PResult, take_attr};

/// Most results and fork outputs a file may declare in total (`%x:N`, `fork [N]`), 4,194,304.
pub(crate) const MAX_FILE_PORTS: u64 = 1 << 22;

/// What the syntax of one op gave, before typing.
#[derive(Default)]
pub(super) struct Parts {
    pub(super) operands: Vec<DynValue>,
    pub(super) memref: Option<MemOperand>,
    pub(super) attrs: Vec<Attr>,
    pub(super) sig: TypeSig,
    pub(super) fork_size: Option<(u32, Span)>,
    pub(super) predicate: Option<(String, Span)>,
    pub(super) keywords: Vec<(String, Span, KwValue, Span)>,
    pub(super) lsq_mode: Option<LsqMode>,
    /// Where the data operands of a mux/control_merge/select are bracketed.
    pub(super) bracketed: bool,
}

/// The value of a buffer keyword.
pub(super) enum KwValue {
    Word(String),
    Int(u128),
}

impl Reader<'_> {
    /// Parses one op of a function body.
    pub(crate) fn parse_op(&mut self) -> PResult<DynOp> {
        let start = self.p.next_start()?;
        let results = self.parse_results()?;
        let name_span = self.p.peek_span()?;
        let mnemonic = match self.p.peek()? {
            Tok::Ident(m) => {
                self.p.bump()?;
                m
            }
            _ => return Err(self.p.expected("an operation name")),
        };
        let kind = DynOpKind::from_mnemonic(&mnemonic);
        if mnemonic.starts_with("arith.")
            || matches!(mnemonic.as_str(), "oehb" | "tehb" | "mc_load" | "return")
        {
            return Err(self
                .p
                .err(name_span, format!("`{mnemonic}` is Dynamatic's 2024 syntax, which this reader does not accept"))
                .with_help("re-export the circuit with a Dynamatic from after 2024-07 (typed channels `<i32>`)"));
        }
        let form = kind.form();
        let parts = self.parse_parts(form, name_span)?;
        self.build_op(kind, mnemonic, results, parts, name_span, start)
    }

    /// `%a, %b:2, ... =` (nothing for ops without results).
    fn parse_results(&mut self) -> PResult<Vec<DynResult>> {
        let mut v = Vec::new();
        if !matches!(self.p.peek()?, Tok::Value { .. }) {
            return Ok(v);
        }
        loop {
            let s0 = self.p.next_start()?;
            let name = match self.p.peek()? {
                Tok::Value { name, index: None } => {
                    self.p.bump()?;
                    name
                }
                Tok::Value { .. } => {
                    let s = self.p.peek_span()?;
                    return Err(self.p.err(
                        s,
                        "a result is defined as `%name` or `%name:N`, not `%name#k`",
                    ));
                }
                _ => return Err(self.p.expected("a result name")),
            };
            let mut count = 1;
            if self.p.eat(&Tok::Colon)? {
                let (n, s) = self.p.expect_u32("a result count")?;
                self.p.within_limit(
                    u64::from(n),
                    handscope_sim::limits::MAX_PORTS as u64,
                    ("an op with", "results"),
                    s,
                )?;
                self.count_ports(n, s)?;
                if n == 0 {
                    return Err(self.p.err(s, "a result group needs at least one result"));
                }
                count = n;
            }
            v.push(DynResult {
                name,
                count,
                span: self.p.span_from(s0),
            });
            if !self.p.eat(&Tok::Comma)? {
                break;
            }
        }
        self.p.expect(&Tok::Equal)?;
        Ok(v)
    }

    /// Adds `n` to the file's count of declared ports (result groups `%x:N` and fork
    /// sizes), which costs memory without costing text: at most [`MAX_FILE_PORTS`].
    fn count_ports(&mut self, n: u32, at: Span) -> PResult<()> {
        self.ports_declared = self.ports_declared.saturating_add(u64::from(n));
        self.p.within_limit(
            self.ports_declared,
            MAX_FILE_PORTS,
            ("the file declares more than", "results and fork outputs"),
            at,
        )
    }

    fn value(&mut self) -> PResult<DynValue> {
        let v = self.p.parse_value_use()?;
        Ok(DynValue {
            name: v.name,
            index: v.index,
            span: v.span,
        })
    }

    fn values(&mut self) -> PResult<Vec<DynValue>> {
        Ok(self
            .p
            .parse_operand_list()?
            .into_iter()
            .map(|v| DynValue {
                name: v.name,
                index: v.index,
                span: v.span,
            })
            .collect())
    }

    /// `[%a, %b]` (possibly empty).
    fn bracketed_values(&mut self, open: Tok, close: Tok) -> PResult<Vec<DynValue>> {
        self.p.expect(&open)?;
        let v = self.values()?;
        self.p.expect(&close)?;
        Ok(v)
    }

    /// `[%mem : memref<...>]`.
    fn memref_operand(&mut self) -> PResult<MemOperand> {
        let value = self.value()?;
        self.p.expect(&Tok::Colon)?;
        let (ty, span) = self.parse_dyn_type()?;
        match ty {
            DynType::MemRef(ty) => Ok(MemOperand { value, ty }),
            _ => Err(self.p.err(
                span,
                "a memory interface's memory must have a `memref<...>` type",
            )),
        }
    }

    /// The optional attribute dict, then `:` and the type signature (when a type follows).
    fn tail(&mut self, parts: &mut Parts) -> PResult<()> {
        if parts.attrs.is_empty() {
            parts.attrs = self.p.parse_opt_attr_dict()?;
        }
        if self.p.eat(&Tok::Colon)? {
            parts.sig = self.parse_type_sig()?;
        }
        self.p.parse_opt_loc()?;
        Ok(())
    }

    fn parse_parts(&mut self, form: Form, name_span: Span) -> PResult<Parts> {
        let mut parts = Parts::default();
        match form {
            Form::Fork => {
                self.p.expect(&Tok::LBracket)?;
                let (n, s) = self.p.expect_u32("the fork size")?;
                self.p.within_limit(
                    u64::from(n),
                    handscope_sim::limits::MAX_PORTS as u64,
                    ("a fork with", "outputs"),
                    s,
                )?;
                self.count_ports(n, s)?;
                self.p.expect(&Tok::RBracket)?;
                parts.fork_size = Some((n, s));
                parts.operands = self.values()?;
            }
            Form::Buffer => {
                parts.operands = vec![self.value()?];
                // `, bufferType = K, numSlots = N, dvLatency = L` (the comma after the
                // operand list was not consumed because a word follows it).
                while self.p.eat(&Tok::Comma)? {
                    let ks = self.p.peek_span()?;
                    let Tok::Ident(key) = self.p.peek()? else {
                        return Err(self.p.expected(
                            "a buffer parameter (`bufferType`, `numSlots`, `dvLatency`)",
                        ));
                    };
                    self.p.bump()?;
                    self.p.expect(&Tok::Equal)?;
                    let vs = self.p.peek_span()?;
                    let v = match self.p.peek()? {
                        Tok::Ident(w) => KwValue::Word(w),
                        Tok::Int(n) => KwValue::Int(n),
                        _ => {
                            let found = self.p.peek()?.describe();
                            return Err(self.p.err(
                                vs,
                                format!("malformed buffer parameters: expected a value for `{key}`, found {found}"),
                            ));
                        }
                    };
                    self.p.bump()?;
                    parts.keywords.push((key, ks, v, vs));
                }
            }
            Form::Mux => {
                parts.operands = self.values()?;
                if self.p.at(&Tok::LBracket)? {
                    parts
                        .operands
                        .extend(self.bracketed_values(Tok::LBracket, Tok::RBracket)?);
                    parts.bracketed = true;
                }
            }
            Form::ControlMerge | Form::Select => {
                if self.p.at(&Tok::LBracket)? {
                    parts.operands = self.bracketed_values(Tok::LBracket, Tok::RBracket)?;
                    parts.bracketed = true;
                } else {
                    parts.operands = self.values()?;
                    if form == Form::Select && self.p.at(&Tok::LBracket)? {
                        parts
                            .operands
                            .extend(self.bracketed_values(Tok::LBracket, Tok::RBracket)?);
                        parts.bracketed = true;
                    }
                }
            }
            Form::Compare => {
                let s = self.p.peek_span()?;
                let Tok::Ident(pred) = self.p.peek()? else {
                    return Err(self.p.expected("a comparison predicate (`ult`, `eq`, ...)"));
                };
                self.p.bump()?;
                self.p.expect(&Tok::Comma)?;
                parts.predicate = Some((pred, s));
                parts.operands = self.values()?;
            }
            Form::Load | Form::Store => {
                parts.operands = self.bracketed_values(Tok::LBracket, Tok::RBracket)?;
                parts.operands.extend(self.values()?);
                // Branch-only stores take a third operand after a space.
                while matches!(self.p.peek()?, Tok::Value { .. }) {
                    parts.operands.push(self.value()?);
                }
            }
            Form::MemController => {
                self.p.expect(&Tok::LBracket)?;
                parts.memref = Some(self.memref_operand()?);
                self.p.expect(&Tok::RBracket)?;
                parts.operands.push(self.value()?);
                parts
                    .operands
                    .extend(self.bracketed_values(Tok::LParen, Tok::RParen)?);
                parts.operands.push(self.value()?);
            }
            Form::Lsq => {
                self.p.expect(&Tok::LBracket)?;
                if self.p.eat_word("MC")? {
                    parts.lsq_mode = Some(LsqMode::Slave);
                } else {
                    parts.memref = Some(self.memref_operand()?);
                    parts.lsq_mode = Some(LsqMode::Master);
                }
                self.p.expect(&Tok::RBracket)?;
                parts.operands = self.bracketed_values(Tok::LParen, Tok::RParen)?;
            }
            Form::End => {
                parts.attrs = self.p.parse_opt_attr_dict()?;
                parts.operands = self.values()?;
            }
            Form::Source => {}
            Form::Generic => self.generic_operands(&mut parts)?,
            Form::CondBr
            | Form::Constant
            | Form::Sink
            | Form::Binary
            | Form::Unary
            | Form::Cast
            | Form::Variadic
            | Form::Join => parts.operands = self.values()?,
        }
        let _ = name_span;
        self.tail(&mut parts)?;
        Ok(parts)
    }

    /// Operands of an op the reader does not model: values, alone or in `[...]`/`(...)`
    /// groups, a `%mem : memref<...>` binding, bare words and numbers inside groups.
    fn generic_operands(&mut self, parts: &mut Parts) -> PResult<()> {
        loop {
            match self.p.peek()? {
                Tok::Value { .. } => parts.operands.push(self.value()?),
                Tok::Comma => {
                    self.p.bump()?;
                }
                Tok::LBracket | Tok::LParen => {
                    let open = self.p.bump()?;
                    self.p.enter(open.1)?;
                    let close = if open.0 == Tok::LBracket {
                        Tok::RBracket
                    } else {
                        Tok::RParen
                    };
                    loop {
                        match self.p.peek()? {
                            Tok::Value { .. } => {
                                let v = self.value()?;
                                if self.p.eat(&Tok::Colon)? {
                                    let (ty, span) = self.parse_dyn_type()?;
                                    match ty {
                                        DynType::MemRef(ty) if parts.memref.is_none() => {
                                            parts.memref = Some(MemOperand { value: v, ty });
                                        }
                                        _ => {
                                            return Err(self.p.err(span, "expected a memref type"));
                                        }
                                    }
                                } else {
                                    parts.operands.push(v);
                                }
                            }
                            Tok::Comma | Tok::Int(_) | Tok::Ident(_) => {
                                self.p.bump()?;
                            }
                            t if t == close => break,
                            _ => {
                                return Err(self
                                    .p
                                    .expected(&format!("an operand or {}", close.describe())));
                            }
                        }
                    }
                    self.p.expect(&close)?;
                    self.p.leave();
                }
                _ => return Ok(()),
            }
        }
    }

    fn build_op(
        &mut self,
        kind: DynOpKind,
        mnemonic: String,
        results: Vec<DynResult>,
        mut parts: Parts,
        name_span: Span,
        start: usize,
    ) -> PResult<DynOp> {
        let form = kind.form();
        let name = self.take_str(&mut parts.attrs, "handshake.name")?;
        let bb = self.take_u32(&mut parts.attrs, "handshake.bb")?;
        let latency = self.take_latency(&mut parts.attrs)?;
        let internal_delay = self.take_str(&mut parts.attrs, "internal_delay")?;
        let mem_interface = self.take_mem_interface(&mut parts.attrs)?;
        let (in_types, out_types) = self.shape_types(form, &mnemonic, &parts, name_span)?;
        let mut params = OpParams::None;
        match form {
            Form::Fork => {
                if let Some((size, _)) = parts.fork_size {
                    params = OpParams::Fork { size };
                }
            }
            Form::Buffer => params = OpParams::Buffer(self.buffer_params(&mut parts, name_span)?),
            Form::Constant => {
                let a = take_attr(&mut parts.attrs, "value").ok_or_else(|| {
                    self.p
                        .err(name_span, "a `constant` needs a `value` attribute")
                })?;
                params = OpParams::Constant(self.const_value(&a, out_types.first())?);
            }
            Form::Compare => {
                if let Some((pred, s)) = &parts.predicate {
                    let p = if kind == DynOpKind::CmpF {
                        FloatPredicate::from_keyword(pred).map(Predicate::Float)
                    } else {
                        CmpPredicate::from_keyword(pred).map(Predicate::Int)
                    };
                    let p = p.ok_or_else(|| {
                        self.p
                            .err(*s, format!("unknown `{mnemonic}` predicate `{pred}`"))
                    })?;
                    params = OpParams::Compare(p);
                }
            }
            Form::MemController => {
                let connected_blocks = match take_attr(&mut parts.attrs, "connectedBlocks") {
                    Some(a) => self.attr_u32_array(&a)?,
                    None => Vec::new(),
                };
                params = OpParams::MemController { connected_blocks };
            }
            Form::Lsq => {
                let group_sizes = match take_attr(&mut parts.attrs, "groupSizes") {
                    Some(a) => self.attr_u32_array(&a)?,
                    None => Vec::new(),
                };
                let depth = self.take_lsq_depth(&mut parts.attrs)?;
                params = OpParams::Lsq(LsqParams {
                    mode: parts.lsq_mode.unwrap_or(LsqMode::Master),
                    group_sizes,
                    depth,
                });
            }
            _ if kind == DynOpKind::Init => {
                let init_token = match take_attr(&mut parts.attrs, "initToken") {
                    Some(a) => Some(u64::from(self.attr_u32(&a)?)),
                    None => None,
                };
                params = OpParams::Init { init_token };
            }
            _ => {}
        }
        if mnemonic == "noti" {
            self.mark(Era::E5, Era::E5, "`noti`", name_span);
        }
        let attrs = parts
            .attrs
            .into_iter()
            .map(|a| RawAttr {
                name: a.name,
                value: a.raw,
                span: a.name_span,
            })
            .collect();
        Ok(DynOp {
            kind,
            mnemonic,
            results,
            operands: parts.operands,
            memref: parts.memref,
            in_types,
            out_types,
            name,
            bb,
            params,
            latency,
            internal_delay,
            mem_interface,
            attrs,
            name_span,
            span: self.p.span_from(start),
        })
    }

    /// A buffer's parameters from the keyword form or `hw.parameters`.
    fn buffer_params(&mut self, parts: &mut Parts, name_span: Span) -> PResult<BufferParams> {
        let hw = take_attr(&mut parts.attrs, "hw.parameters");
        if parts.keywords.is_empty() {
            let Some(hw) = hw else {
                return Err(self
                    .p
                    .err(
                        name_span,
                        "malformed buffer parameters: the buffer has no kind and no slot count",
                    )
                    .with_help(
                        "write `buffer %x, bufferType = ONE_SLOT_BREAK_DV, numSlots = 1 : <i32>`",
                    ));
            };
            return self.hw_buffer_params(&hw);
        }
        if let Some(hw) = hw {
            return Err(self.p.err(
                hw.name_span,
                "malformed buffer parameters: both `bufferType = ...` keywords and `hw.parameters`",
            ));
        }
        let (mut kind, mut slots, mut dv) = (None, None, None);
        let first = parts.keywords.first().map_or(name_span, |k| k.1);
        for (key, ks, v, vs) in &parts.keywords {
            let slot = match key.as_str() {
                "bufferType" => &mut kind,
                "numSlots" => &mut slots,
                "dvLatency" => &mut dv,
                _ => {
                    return Err(self
                        .p
                        .err(
                            *ks,
                            format!("malformed buffer parameters: unknown parameter `{key}`"),
                        )
                        .with_help(
                            "buffer parameters are `bufferType`, `numSlots` and `dvLatency`",
                        ));
                }
            };
            if slot.is_some() {
                return Err(self.p.err(
                    *ks,
                    format!("malformed buffer parameters: `{key}` is given twice"),
                ));
            }
            *slot = Some((v, *vs));
        }
        let kind = match kind {
            Some((KwValue::Word(w), s)) => BufferType::from_keyword(w).ok_or_else(|| {
                self.p
                    .err(
                        s,
                        format!("malformed buffer parameters: unknown buffer type `{w}`"),
                    )
                    .with_help(kind_help())
            })?,
            Some((KwValue::Int(_), s)) => {
                return Err(self
                    .p
                    .err(
                        s,
                        "malformed buffer parameters: `bufferType` must be a buffer type name",
                    )
                    .with_help(kind_help()));
            }
            None => {
                return Err(self.p.err(
                    first,
                    "malformed buffer parameters: `bufferType` is missing",
                ));
            }
        };
        let num =
            |this: &Self, v: Option<(&KwValue, Span)>, key: &str| -> PResult<Option<(u32, Span)>> {
                match v {
                    None => Ok(None),
                    Some((KwValue::Int(n), s)) => {
                        u32::try_from(*n).map(|n| Some((n, s))).map_err(|_| {
                            this.p.err(
                                s,
                                format!("malformed buffer parameters: `{key}` is too large"),
                            )
                        })
                    }
                    Some((KwValue::Word(_), s)) => Err(this.p.err(
                        s,
                        format!("malformed buffer parameters: `{key}` must be a number"),
                    )),
                }
            };
        let Some((slots, ss)) = num(self, slots, "numSlots")? else {
            return Err(self
                .p
                .err(first, "malformed buffer parameters: `numSlots` is missing"));
        };
        self.check_slots(slots, ss)?;
        let dv_latency = num(self, dv, "dvLatency")?.map(|(n, _)| n);
        if dv_latency.is_some() {
            self.mark(Era::E5, Era::E5, "a buffer's `dvLatency = L`", first);
        } else {
            self.mark(
                Era::E4,
                Era::E5,
                "`buffer %x, bufferType = K, numSlots = N`",
                first,
            );
        }
        Ok(BufferParams {
            kind,
            slots,
            dv_latency,
            form: BufferForm::Keywords,
        })
    }
}
