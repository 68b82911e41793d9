//! Operation syntax: every op's custom form (as CIRCT prints it) and the generic form, both
//! normalized into an [`OpSpec`].

use handscope_sim::{
    ArithClass, ArithOp, BufferKind, CmpPredicate, Dialect, DynBufferKind, FloatKind,
    FloatPredicate, MemRefType, Op, OpKind, Type,
};

use super::ast::{Attr, AttrValue, OpSpec, PType, SType, ValueUse};
use super::diag::{ErrExt, Span};
use super::lexer::Tok;
use super::opcheck::validate;
use super::parser::{PResult, Parser, take_attr};

/// True when `v` is a value of a `w`-bit integer, read as signed or as unsigned.
fn fits(v: i128, w: u32) -> bool {
    match w {
        0 => v == 0,
        w if w >= 64 => v >= i128::from(i64::MIN) && v <= i128::from(u64::MAX),
        w => v >= -(1i128 << (w - 1)) && v < (1i128 << w),
    }
}

/// MLIR's `arith` rounding modes, in the enum's order.
const ROUNDING_MODES: [&str; 5] = [
    "to_nearest_even",
    "downward",
    "upward",
    "toward_zero",
    "to_nearest_away",
];

fn st(ty: Type, span: Span) -> SType {
    SType {
        ty: PType::Chan(ty),
        span,
    }
}

fn all_typed(uses: Vec<ValueUse>, ty: &SType) -> Vec<(ValueUse, SType)> {
    uses.into_iter().map(|u| (u, ty.clone())).collect()
}

fn spec(
    op: Op,
    operands: Vec<(ValueUse, SType)>,
    results: Vec<Type>,
    attrs: Vec<Attr>,
    name_span: Span,
) -> OpSpec {
    OpSpec {
        op,
        operands,
        results,
        result_groups: Vec::new(),
        results_span: name_span,
        attrs,
        loc: None,
        name_span,
        span: name_span,
    }
}

impl<'a> Parser<'a> {
    fn zip_types(
        &self,
        uses: Vec<ValueUse>,
        types: Vec<SType>,
        at: Span,
    ) -> PResult<Vec<(ValueUse, SType)>> {
        if uses.len() != types.len() {
            return Err(self.err(
                at,
                format!("{} operands but {} types", uses.len(), types.len()),
            ));
        }
        Ok(uses.into_iter().zip(types).collect())
    }

    fn want_operands(&self, uses: &[ValueUse], n: usize, name: &str, at: Span) -> PResult<()> {
        if uses.len() != n {
            let sp = uses.get(n).map_or(at, |u| u.span);
            return Err(self.err(
                sp,
                format!("`{name}` takes {n} operand(s), found {}", uses.len()),
            ));
        }
        Ok(())
    }

    fn bracket_u32(&mut self, what: &str) -> PResult<(u32, Span)> {
        self.expect(&Tok::LBracket)?;
        let r = self.expect_u32(what)?;
        self.expect(&Tok::RBracket)?;
        Ok(r)
    }

    /// Parses the types of an op's annotation `: (ins) -> (outs)`, requiring channel types.
    fn functional_type(&mut self) -> PResult<(Vec<SType>, Vec<SType>, Span)> {
        let t = self.parse_type()?;
        match t.ty {
            PType::Func(i, o) => Ok((i, o, t.span)),
            _ => Err(self.err(t.span, "expected a function type `(...) -> (...)`")),
        }
    }

    fn chan_types(&self, ts: &[SType]) -> PResult<Vec<Type>> {
        ts.iter().map(|t| self.chan_type(t)).collect()
    }

    fn check(&self, op: &Op, ins: &[Type], outs: &[Type], at: Span) -> PResult<()> {
        validate(op, ins, outs).map_err(|m| self.err(at, m))
    }

    /// Parses an op in custom form after its name.
    pub(crate) fn parse_custom_op(&mut self, name: String, sp: Span) -> PResult<OpSpec> {
        if let Some((d, m)) = name.split_once('.')
            && let Some(dialect) = Dialect::from_name(d)
        {
            return self.parse_arith_custom(dialect, m, sp);
        }
        if name == "hw.struct_create" {
            // `hw.struct_create (%a, %b) : !hw.struct<...>`: a `pack`.
            self.expect(&Tok::LParen)?;
            let uses = self.parse_operand_list()?;
            self.expect(&Tok::RParen)?;
            let attrs = self.parse_opt_attr_dict()?;
            self.expect(&Tok::Colon)?;
            let (t, tst) = self.parse_chan_type()?;
            let Type::Tuple(members) = t.clone() else {
                return Err(self.err(tst.span, format!("`{name}` needs a struct type, found {t}")));
            };
            let types = members.iter().map(|m| st(m.clone(), tst.span)).collect();
            let ops = self.zip_types(uses, types, tst.span)?;
            return Ok(spec(Op::Pack, ops, vec![t], attrs, sp));
        }
        let short = name.strip_prefix("handshake.").unwrap_or(&name);
        let s = match short {
            "island" => {
                let (op, operands, results, attrs) = self.parse_island(sp)?;
                spec(op, operands, results, attrs, sp)
            }
            "fork" | "lazy_fork" => {
                let (n, nsp) = self.bracket_u32("the number of outputs")?;
                if n == 0 {
                    return Err(self.err(nsp, format!("`{short}` needs at least one output")));
                }
                let max = handscope_sim::limits::MAX_PORTS as u64;
                self.within_limit(
                    u64::from(n),
                    max,
                    (&format!("a `{short}` of"), "outputs"),
                    nsp,
                )?;
                let uses = self.parse_operand_list()?;
                let attrs = self.parse_opt_attr_dict()?;
                self.expect(&Tok::Colon)?;
                let (t, stt) = self.parse_chan_type()?;
                self.want_operands(&uses, 1, short, sp)?;
                let op = if short == "fork" {
                    Op::Fork
                } else {
                    Op::LazyFork
                };
                spec(op, all_typed(uses, &stt), vec![t; n as usize], attrs, sp)
            }
            "merge" | "br" | "sink" => {
                let uses = self.parse_operand_list()?;
                let attrs = self.parse_opt_attr_dict()?;
                self.expect(&Tok::Colon)?;
                let (t, stt) = self.parse_chan_type()?;
                let (op, results) = match short {
                    "merge" => (Op::Merge, vec![t]),
                    "br" => (Op::Br, vec![t]),
                    _ => (Op::Sink, vec![]),
                };
                if short == "merge" {
                    if uses.is_empty() {
                        return Err(self.err(sp, "`merge` needs at least one operand"));
                    }
                } else {
                    self.want_operands(&uses, 1, short, sp)?;
                }
                spec(op, all_typed(uses, &stt), results, attrs, sp)
            }
            "mux" => {
                let sel = self.parse_value_use()?;
                self.expect(&Tok::LBracket)?;
                let data = self.parse_operand_list()?;
                self.expect(&Tok::RBracket)?;
                let attrs = self.parse_opt_attr_dict()?;
                self.expect(&Tok::Colon)?;
                let (s, sst) = self.parse_chan_type()?;
                self.expect(&Tok::Comma)?;
                let (t, tst) = self.parse_chan_type()?;
                if data.is_empty() {
                    return Err(self.err(sp, "`mux` needs at least one data operand"));
                }
                let mut ops = vec![(sel, sst)];
                ops.extend(all_typed(data, &tst));
                let ins: Vec<Type> = std::iter::once(s)
                    .chain(std::iter::repeat_n(t.clone(), ops.len() - 1))
                    .collect();
                self.check(&Op::Mux, &ins, std::slice::from_ref(&t), sp)?;
                spec(Op::Mux, ops, vec![t], attrs, sp)
            }
            "control_merge" | "dyn_control_merge" => {
                let uses = self.parse_operand_list()?;
                let attrs = self.parse_opt_attr_dict()?;
                self.expect(&Tok::Colon)?;
                let (t, tst) = self.parse_chan_type()?;
                self.expect(&Tok::Comma)?;
                let (i, ist) = self.parse_chan_type()?;
                if uses.is_empty() {
                    return Err(self.err(sp, format!("`{short}` needs at least one operand")));
                }
                if !i.is_integer() {
                    return Err(self.err(
                        ist.span,
                        format!(
                            "the index type of `{short}` must be an integer or index, found {i}"
                        ),
                    ));
                }
                let op = if short == "control_merge" {
                    Op::ControlMerge
                } else {
                    Op::DynControlMerge
                };
                spec(op, all_typed(uses, &tst), vec![t, i], attrs, sp)
            }
            "cond_br" => {
                let uses = self.parse_operand_list()?;
                let attrs = self.parse_opt_attr_dict()?;
                self.expect(&Tok::Colon)?;
                let (t, tst) = self.parse_chan_type()?;
                self.want_operands(&uses, 2, short, sp)?;
                let mut it = uses.into_iter();
                let (c, d) = (
                    it.next().expect("2 operands"),
                    it.next().expect("2 operands"),
                );
                let csp = c.span;
                spec(
                    Op::CondBr,
                    vec![(c, st(Type::Int(1), csp)), (d, tst)],
                    vec![t.clone(), t],
                    attrs,
                    sp,
                )
            }
            "join" | "sync" => {
                let uses = self.parse_operand_list()?;
                let attrs = self.parse_opt_attr_dict()?;
                self.expect(&Tok::Colon)?;
                let tsp = self.peek_span()?;
                let types = self.parse_type_list()?;
                let tys = self.chan_types(&types)?;
                if uses.is_empty() {
                    return Err(self.err(sp, format!("`{short}` needs at least one operand")));
                }
                let ops = self.zip_types(uses, types, tsp)?;
                if short == "join" {
                    spec(Op::Join, ops, vec![Type::None], attrs, sp)
                } else {
                    spec(Op::Sync, ops, tys, attrs, sp)
                }
            }
            "pack" | "unpack" => {
                let uses = self.parse_operand_list()?;
                let attrs = self.parse_opt_attr_dict()?;
                self.expect(&Tok::Colon)?;
                let (t, tst) = self.parse_chan_type()?;
                let Type::Tuple(members) = t.clone() else {
                    return Err(
                        self.err(tst.span, format!("`{short}` needs a tuple type, found {t}"))
                    );
                };
                if short == "pack" {
                    let types = members.iter().map(|m| st(m.clone(), tst.span)).collect();
                    let ops = self.zip_types(uses, types, tst.span)?;
                    spec(Op::Pack, ops, vec![t], attrs, sp)
                } else {
                    self.want_operands(&uses, 1, short, sp)?;
                    spec(Op::Unpack, all_typed(uses, &tst), members, attrs, sp)
                }
            }
            "dyn_pipeline" | "dyn_counter_buffer" => {
                let (latency, lsp) = self.bracket_u32("the latency")?;
                let uses = self.parse_operand_list()?;
                let attrs = self.parse_opt_attr_dict()?;
                self.expect(&Tok::Colon)?;
                let (t, tst) = self.parse_chan_type()?;
                self.want_operands(&uses, 1, short, sp)?;
                let op = match self.dyn_pipeline_op(latency, lsp)? {
                    Op::DynPipeline { latency } if short == "dyn_counter_buffer" => {
                        Op::DynCounterBuffer { latency }
                    }
                    op => op,
                };
                spec(op, all_typed(uses, &tst), vec![t], attrs, sp)
            }
            "dyn_buffer" => {
                let (slots, ssp) = self.bracket_u32("the number of slots")?;
                let kind = match self.peek()? {
                    Tok::Ident(w) => DynBufferKind::from_name(&w),
                    _ => None,
                };
                let Some(kind) = kind else {
                    return Err(
                        self.expected(&format!("a Dynamatic buffer kind ({})", kind_names(", ")))
                    );
                };
                self.bump()?;
                let uses = self.parse_operand_list()?;
                let attrs = self.parse_opt_attr_dict()?;
                self.expect(&Tok::Colon)?;
                let (t, tst) = self.parse_chan_type()?;
                self.want_operands(&uses, 1, short, sp)?;
                let op = self.dyn_buffer_op(kind, slots, ssp)?;
                spec(op, all_typed(uses, &tst), vec![t], attrs, sp)
            }
            "dyn_select" => {
                let uses = self.parse_operand_list()?;
                let attrs = self.parse_opt_attr_dict()?;
                self.expect(&Tok::Colon)?;
                let (t, tst) = self.parse_chan_type()?;
                self.want_operands(&uses, 3, short, sp)?;
                let mut it = uses.into_iter();
                let c = it.next().expect("3 operands");
                let csp = c.span;
                let mut ops = vec![(c, st(Type::Int(1), csp))];
                ops.extend(all_typed(it.collect(), &tst));
                spec(Op::DynSelect, ops, vec![t], attrs, sp)
            }
            "pipeline" => {
                let (latency, lsp) = self.bracket_u32("the latency")?;
                let uses = self.parse_operand_list()?;
                let mut attrs = self.parse_opt_attr_dict()?;
                self.expect(&Tok::Colon)?;
                let (t, tst) = self.parse_chan_type()?;
                self.want_operands(&uses, 1, short, sp)?;
                let ii = self.u32_attr(&mut attrs, "ii")?.unwrap_or(1);
                let op = self.pipeline_op(latency, ii, lsp)?;
                spec(op, all_typed(uses, &tst), vec![t], attrs, sp)
            }
            "buffer" => {
                let (slots, ssp) = self.bracket_u32("the number of slots")?;
                let kind = match self.peek()? {
                    Tok::Ident(w) if w == "seq" => BufferKind::Seq,
                    Tok::Ident(w) if w == "fifo" => BufferKind::Fifo,
                    _ => return Err(self.expected("`seq` or `fifo`")),
                };
                self.bump()?;
                let uses = self.parse_operand_list()?;
                let mut attrs = self.parse_opt_attr_dict()?;
                self.expect(&Tok::Colon)?;
                let (t, tst) = self.parse_chan_type()?;
                self.want_operands(&uses, 1, short, sp)?;
                let op = self.buffer_op(slots, ssp, kind, &t, &mut attrs)?;
                spec(op, all_typed(uses, &tst), vec![t], attrs, sp)
            }
            "constant" => {
                let uses = self.parse_operand_list()?;
                let mut attrs = self.parse_opt_attr_dict()?;
                self.expect(&Tok::Colon)?;
                let (t, tst) = self.parse_chan_type()?;
                self.want_operands(&uses, 1, short, sp)?;
                let op = self.constant_op(&mut attrs, &t, tst.span, sp)?;
                let csp = uses[0].span;
                spec(
                    op,
                    all_typed(uses, &st(Type::None, csp)),
                    vec![t],
                    attrs,
                    sp,
                )
            }
            "source" => {
                let attrs = self.parse_opt_attr_dict()?;
                if self.eat(&Tok::Colon)? {
                    let (t, tst) = self.parse_chan_type()?;
                    if t != Type::None {
                        return Err(self.err(tst.span, "`source` produces `none`"));
                    }
                }
                spec(Op::Source, vec![], vec![Type::None], attrs, sp)
            }
            "never" => {
                let attrs = self.parse_opt_attr_dict()?;
                self.expect(&Tok::Colon)?;
                let (t, _) = self.parse_chan_type()?;
                spec(Op::Never, vec![], vec![t], attrs, sp)
            }
            "load" | "store" => {
                self.expect(&Tok::LBracket)?;
                let addrs = self.parse_operand_list()?;
                self.expect(&Tok::RBracket)?;
                let rest = self.parse_operand_list()?;
                let attrs = self.parse_opt_attr_dict()?;
                self.expect(&Tok::Colon)?;
                let tsp = self.peek_span()?;
                let types = self.parse_type_list()?;
                if addrs.len() != 1 {
                    let at = addrs.get(1).map_or(sp, |u| u.span);
                    return Err(self
                        .err(
                            at,
                            format!("`{short}` with {} addresses is not supported", addrs.len()),
                        )
                        .with_help(
                            "Handscope supports one-dimensional memories: use exactly one address",
                        ));
                }
                self.want_operands(&rest, 2, &format!("{short} (after the address)"), sp)?;
                if types.len() != 2 {
                    return Err(self.err(
                        tsp,
                        format!("expected 2 types (address, data), found {}", types.len()),
                    ));
                }
                let a = self.chan_type(&types[0])?;
                let d = self.chan_type(&types[1])?;
                let mut ops = vec![(
                    addrs.into_iter().next().expect("one address"),
                    types[0].clone(),
                )];
                let mut it = rest.into_iter();
                let data = it.next().expect("2 operands");
                let ctrl = it.next().expect("2 operands");
                let csp = ctrl.span;
                ops.push((data, types[1].clone()));
                ops.push((ctrl, st(Type::None, csp)));
                let op = if short == "load" { Op::Load } else { Op::Store };
                self.check(
                    &op,
                    &[a.clone(), d.clone(), Type::None],
                    &[d.clone(), a.clone()],
                    tsp,
                )?;
                spec(op, ops, vec![d, a], attrs, sp)
            }
            "memory" => {
                let (ld, st_) = self.ld_st()?;
                self.expect(&Tok::LParen)?;
                let uses = self.parse_operand_list()?;
                self.expect(&Tok::RParen)?;
                let mut attrs = self.parse_opt_attr_dict()?;
                self.expect(&Tok::Colon)?;
                let mt = self.parse_type()?;
                let memref = self.memref_type(&mt)?;
                self.expect(&Tok::Comma)?;
                let (ins, outs, fsp) = self.functional_type()?;
                let id = self.u32_attr(&mut attrs, "id")?.unwrap_or(0);
                let lsq = self.required_lsq(&mut attrs, sp)?;
                self.one_dimension(&memref, mt.span)?;
                let op = Op::Memory {
                    ld,
                    st: st_,
                    id,
                    memref,
                    lsq,
                };
                self.finish_functional(op, uses, ins, outs, fsp, attrs, sp)?
            }
            "dyn_mem_controller" => {
                self.expect(&Tok::LBracket)?;
                self.expect_word("ctrl")?;
                self.expect(&Tok::Equal)?;
                let (ctrl, _) = self.expect_u32("the number of block controls")?;
                self.expect(&Tok::Comma)?;
                let (ld, st_) = self.ld_st_rest()?;
                self.memory_form(sp, |_, memref| {
                    Ok(Op::DynMemController {
                        ctrl,
                        ld,
                        st: st_,
                        memref_arg: usize::MAX,
                        memref,
                    })
                })?
            }
            "dyn_lsq" => {
                self.expect(&Tok::LBracket)?;
                let slave = self.at_word("slave")?;
                if slave {
                    self.bump()?;
                    self.expect(&Tok::Comma)?;
                }
                self.expect_word("groups")?;
                self.expect(&Tok::Equal)?;
                let groups = self.lsq_groups()?;
                self.expect(&Tok::Comma)?;
                self.expect_word("ldq")?;
                self.expect(&Tok::Equal)?;
                let (load_depth, _) = self.expect_u32("the load queue's entries")?;
                self.expect(&Tok::Comma)?;
                self.expect_word("stq")?;
                self.expect(&Tok::Equal)?;
                let (store_depth, _) = self.expect_u32("the store queue's entries")?;
                let end_once = self.at(&Tok::Comma)?;
                if end_once {
                    self.bump()?;
                    self.expect_word("end_once")?;
                }
                self.expect(&Tok::RBracket)?;
                let shape = handscope_sim::LsqShape {
                    groups,
                    load_depth,
                    store_depth,
                    end_once,
                };
                if slave {
                    self.expect(&Tok::LParen)?;
                    let uses = self.parse_operand_list()?;
                    self.expect(&Tok::RParen)?;
                    let attrs = self.parse_opt_attr_dict()?;
                    self.expect(&Tok::Colon)?;
                    let (ins, outs, fsp) = self.functional_type()?;
                    let op = Op::DynLsq {
                        shape,
                        memref_arg: None,
                        memref: None,
                    };
                    self.finish_functional(op, uses, ins, outs, fsp, attrs, sp)?
                } else {
                    self.memory_form(sp, |_, memref| {
                        Ok(Op::DynLsq {
                            shape,
                            memref_arg: Some(usize::MAX),
                            memref: Some(memref),
                        })
                    })?
                }
            }
            "addr_queue" => {
                self.expect(&Tok::LBracket)?;
                self.expect_word("ld")?;
                self.expect(&Tok::Equal)?;
                let (ld, _) = self.expect_u32("the number of load ports")?;
                self.expect(&Tok::Comma)?;
                self.expect_word("st")?;
                self.expect(&Tok::Equal)?;
                let (st_, _) = self.expect_u32("the number of store ports")?;
                self.expect(&Tok::Comma)?;
                self.expect_word("depth")?;
                self.expect(&Tok::Equal)?;
                let (depth, dsp) = self.expect_u32("the queue's entries")?;
                let depth = self.addr_queue_depth(depth, dsp)?;
                self.expect(&Tok::RBracket)?;
                self.expect(&Tok::LParen)?;
                let uses = self.parse_operand_list()?;
                self.expect(&Tok::RParen)?;
                let attrs = self.parse_opt_attr_dict()?;
                self.expect(&Tok::Colon)?;
                let (ins, outs, fsp) = self.functional_type()?;
                let op = Op::AddrQueue { ld, st: st_, depth };
                self.finish_functional(op, uses, ins, outs, fsp, attrs, sp)?
            }
            "dyn_load" | "dyn_store" => {
                let uses = self.parse_operand_list()?;
                let attrs = self.parse_opt_attr_dict()?;
                self.expect(&Tok::Colon)?;
                let tsp = self.peek_span()?;
                let types = self.parse_type_list()?;
                let tys = self.chan_types(&types)?;
                self.want_operands(&uses, 2, short, sp)?;
                let ops = self.zip_types(uses, types, tsp)?;
                let op = if short == "dyn_load" {
                    Op::DynLoad
                } else {
                    Op::DynStore
                };
                spec(op, ops, tys, attrs, sp)
            }
            "extmemory" => {
                let (ld, st_) = self.ld_st()?;
                self.memory_form(sp, |this, memref| {
                    Ok(Op::ExtMemory {
                        ld,
                        st: st_,
                        id: this.0.u32_attr(this.1, "id")?.unwrap_or(0),
                        memref_arg: usize::MAX,
                        memref,
                    })
                })?
            }
            "instance" => {
                let callee = match self.peek()? {
                    Tok::At(c) => {
                        self.bump()?;
                        c
                    }
                    _ => return Err(self.expected("a callee (`@name`)")),
                };
                self.expect(&Tok::LParen)?;
                let uses = self.parse_operand_list()?;
                self.expect(&Tok::RParen)?;
                let attrs = self.parse_opt_attr_dict()?;
                self.expect(&Tok::Colon)?;
                let (ins, outs, fsp) = self.functional_type()?;
                self.finish_functional(Op::Instance { callee }, uses, ins, outs, fsp, attrs, sp)?
            }
            "return" => {
                let attrs = self.parse_opt_attr_dict()?;
                let uses = self.parse_operand_list()?;
                let mut ops = Vec::new();
                if !uses.is_empty() {
                    self.expect(&Tok::Colon)?;
                    let tsp = self.peek_span()?;
                    let types = self.parse_type_list()?;
                    self.chan_types(&types)?;
                    ops = self.zip_types(uses, types, tsp)?;
                }
                spec(Op::Return, ops, vec![], attrs, sp)
            }
            "func" => {
                return Err(self.err(sp, "nested functions are not supported"));
            }
            _ => return Err(self.unknown_op(&name, sp)),
        };
        Ok(s)
    }

    fn unknown_op(&self, name: &str, sp: Span) -> Box<super::diag::ParseError> {
        let short = name.strip_prefix("handshake.").unwrap_or(name);
        let e = self.err(sp, format!("unknown operation `{name}`"));
        if short == "constant" || name == "arith.constant" {
            return e;
        }
        let known = ArithOp::named()
            .find(|(_, m)| *m == short)
            .map(|(op, _)| op.qualified_name())
            .or_else(|| {
                ["cmpi", "cmpf"]
                    .contains(&short)
                    .then(|| format!("arith.{short}"))
            });
        if let Some(q) = known {
            return e.with_help(format!(
                "arith and math operations need their dialect prefix: `{q}`"
            ));
        }
        // Dynamatic's components (`dyn_*`), which Handscope writes for circuits read from
        // Dynamatic's dialect, are left out: nobody writes them by hand.
        let handshake: Vec<&str> = OpKind::handshake_ops()
            .map(OpKind::mnemonic)
            .filter(|m| !m.starts_with("dyn_"))
            .collect();
        let of = |d: Dialect| -> Vec<&str> {
            ArithOp::named()
                .filter(|(op, _)| op.dialect() == d)
                .map(|(_, m)| m)
                .collect()
        };
        let mut arith = of(Dialect::Arith);
        arith.extend(["cmpi", "cmpf"]);
        e.with_help(format!(
            "supported: {}, func, arith.{{{}}} and math.{{{}}}",
            handshake.join(", "),
            arith.join(", "),
            of(Dialect::Math).join(", ")
        ))
    }

    #[allow(clippy::too_many_arguments)]
    fn finish_functional(
        &self,
        op: Op,
        uses: Vec<ValueUse>,
        ins: Vec<SType>,
        outs: Vec<SType>,
        fsp: Span,
        attrs: Vec<Attr>,
        sp: Span,
    ) -> PResult<OpSpec> {
        let in_t = self.chan_types(&ins)?;
        let out_t = self.chan_types(&outs)?;
        let ops = self.zip_types(uses, ins, fsp)?;
        self.check(&op, &in_t, &out_t, fsp)?;
        Ok(spec(op, ops, out_t, attrs, sp))
    }

    /// `memory`'s `lsq` attribute, which CIRCT requires.
    fn required_lsq(&self, attrs: &mut Vec<Attr>, sp: Span) -> PResult<bool> {
        self.bool_attr(attrs, "lsq")?.ok_or_else(|| {
            self.err(sp, "`memory` needs an `lsq` attribute")
                .with_help("write `lsq = false` among its attributes")
        })
    }

    /// CIRCT's `memory` takes one-dimensional memrefs only.
    fn one_dimension(&self, m: &MemRefType, at: Span) -> PResult<()> {
        if m.dims.len() == 1 {
            Ok(())
        } else {
            Err(self.err(
                at,
                format!("the memref of `memory` must have one dimension, found {m}"),
            ))
        }
    }

    /// The rest of an external memory's custom form after its bracketed counts:
    /// `(%mem : memref<..>) (%operands) {attrs} : (types) -> (types)`, the memref first among
    /// the operands; `op` makes the op from the attributes and the memref.
    fn memory_form(
        &mut self,
        sp: Span,
        op: impl FnOnce((&Self, &mut Vec<Attr>), MemRefType) -> PResult<Op>,
    ) -> PResult<OpSpec> {
        self.expect(&Tok::LParen)?;
        let mem = self.parse_value_use()?;
        self.expect(&Tok::Colon)?;
        let mt = self.parse_type()?;
        let memref = self.memref_type(&mt)?;
        self.expect(&Tok::RParen)?;
        self.expect(&Tok::LParen)?;
        let uses = self.parse_operand_list()?;
        self.expect(&Tok::RParen)?;
        let mut attrs = self.parse_opt_attr_dict()?;
        self.expect(&Tok::Colon)?;
        let (ins, outs, fsp) = self.functional_type()?;
        let op = op((self, &mut attrs), memref)?;
        let mut s = self.finish_functional(op, uses, ins, outs, fsp, attrs, sp)?;
        s.operands.insert(0, (mem, mt));
        Ok(s)
    }

    /// A load-store queue's groups: a string like `"ls,l"` (a group per comma, `l` a load,
    /// `s` a store, in program order).
    fn lsq_groups(&mut self) -> PResult<Vec<Vec<handscope_sim::LsqAccess>>> {
        match self.peek()? {
            Tok::Str(text) => {
                let sp = self.bump()?.1;
                self.groups_text(&text, sp)
            }
            _ => Err(self.expected("the groups as a string (`\"ls,l\"`)")),
        }
    }

    fn groups_text(&self, text: &str, sp: Span) -> PResult<Vec<Vec<handscope_sim::LsqAccess>>> {
        handscope_sim::LsqShape::parse_groups(text).ok_or_else(|| {
            self.err(
                sp,
                format!(
                    "`{text}` is not a list of groups: each group is `l` (load) and `s` (store) \
                     letters in program order, groups separated by commas"
                ),
            )
        })
    }

    fn ld_st(&mut self) -> PResult<(u32, u32)> {
        self.expect(&Tok::LBracket)?;
        self.ld_st_rest()
    }

    /// `ld = N, st = M]`: the port counts of a memory's custom form, after its `[` (and a
    /// Dynamatic memory controller's `ctrl = K,`).
    fn ld_st_rest(&mut self) -> PResult<(u32, u32)> {
        self.expect_word("ld")?;
        self.expect(&Tok::Equal)?;
        let (ld, _) = self.expect_u32("the number of load ports")?;
        self.expect(&Tok::Comma)?;
        self.expect_word("st")?;
        self.expect(&Tok::Equal)?;
        let (st_, _) = self.expect_u32("the number of store ports")?;
        self.expect(&Tok::RBracket)?;
        Ok((ld, st_))
    }

    fn memref_type(&self, t: &SType) -> PResult<MemRefType> {
        match &t.ty {
            PType::MemRef(m) => Ok(m.clone()),
            PType::Other(why) => Err(self.err(t.span, format!("unsupported type: {why}"))),
            _ => Err(self.err(t.span, "expected a memref type")),
        }
    }

    fn int_attr(&self, a: &Attr) -> PResult<i128> {
        match &a.value {
            AttrValue::Int { value, .. } => Ok(*value),
            _ => Err(self.err(
                a.value_span,
                format!("attribute `{}` must be an integer", a.name),
            )),
        }
    }

    /// A `pipeline` (Handscope's latency stages, `docs/semantics.md`): latency and interval
    /// between 1 and [`handscope_sim::limits::MAX_LATENCY`].
    fn pipeline_op(&self, latency: u32, ii: u32, at: Span) -> PResult<Op> {
        let max = handscope_sim::limits::MAX_LATENCY;
        if latency == 0 || ii == 0 || latency > max || ii > max {
            return Err(self.err(
                at,
                format!(
                    "a pipeline needs a latency and an interval between 1 and {max} (found {latency} and {ii})"
                ),
            ));
        }
        Ok(Op::Pipeline { latency, ii })
    }

    /// A Dynamatic multi-cycle unit's pipeline: latency between 1 and
    /// [`handscope_sim::limits::MAX_LATENCY`].
    fn dyn_pipeline_op(&self, latency: u32, at: Span) -> PResult<Op> {
        let max = handscope_sim::limits::MAX_LATENCY;
        if latency == 0 || latency > max {
            return Err(self.err(
                at,
                format!("a pipeline needs a latency between 1 and {max} (found {latency})"),
            ));
        }
        Ok(Op::DynPipeline { latency })
    }

    /// A Dynamatic buffer: one slot for the one-slot kinds, 1 to
    /// [`handscope_sim::limits::MAX_BUFFER_SLOTS`] for the FIFOs.
    fn dyn_buffer_op(&self, kind: DynBufferKind, slots: u32, at: Span) -> PResult<Op> {
        let max = handscope_sim::limits::MAX_BUFFER_SLOTS;
        let one = kind.one_slot();
        if slots == 0 || u64::from(slots) > max || (one && slots != 1) {
            return Err(self.err(
                at,
                if one {
                    format!("{} holds exactly one slot (found {slots})", kind.name())
                } else {
                    format!("a buffer needs between 1 and {max} slots (found {slots})")
                },
            ));
        }
        Ok(Op::DynBuffer { kind, slots })
    }

    /// The `u32` attribute `name` that the generic form of `handshake.<op>` requires.
    fn required_u32(&self, attrs: &mut Vec<Attr>, op: &str, name: &str, sp: Span) -> PResult<u32> {
        self.u32_attr(attrs, name)?
            .ok_or_else(|| self.err(sp, format!("`handshake.{op}` needs `{name}`")))
    }

    /// An address queue's depth, refused past [`handscope_sim::limits::MAX_ADDR_QUEUE_DEPTH`]
    /// at `sp`.
    fn addr_queue_depth(&self, depth: u32, sp: Span) -> PResult<u32> {
        if depth > handscope_sim::limits::MAX_ADDR_QUEUE_DEPTH {
            return Err(self.err(
                sp,
                format!(
                    "an address queue holds at most {} entries",
                    handscope_sim::limits::MAX_ADDR_QUEUE_DEPTH
                ),
            ));
        }
        Ok(depth)
    }

    fn u32_attr(&self, attrs: &mut Vec<Attr>, name: &str) -> PResult<Option<u32>> {
        let Some(a) = take_attr(attrs, name) else {
            return Ok(None);
        };
        let v = self.int_attr(&a)?;
        u32::try_from(v)
            .map(Some)
            .map_err(|_| self.err(a.value_span, format!("attribute `{name}` is out of range")))
    }

    fn bool_attr(&self, attrs: &mut Vec<Attr>, name: &str) -> PResult<Option<bool>> {
        let Some(a) = take_attr(attrs, name) else {
            return Ok(None);
        };
        match a.value {
            AttrValue::Bool(b) => Ok(Some(b)),
            AttrValue::Int {
                value: v @ (0 | 1), ..
            } => Ok(Some(v == 1)),
            _ => Err(self.err(
                a.value_span,
                format!("attribute `{name}` must be `true` or `false`"),
            )),
        }
    }

    fn buffer_op(
        &self,
        slots: u32,
        ssp: Span,
        kind: BufferKind,
        ty: &Type,
        attrs: &mut Vec<Attr>,
    ) -> PResult<Op> {
        if slots == 0 {
            return Err(self.err(ssp, "a buffer needs at least one slot"));
        }
        let max = handscope_sim::limits::MAX_BUFFER_SLOTS;
        self.within_limit(u64::from(slots), max, ("a buffer of", "slots"), ssp)?;
        let mut init = None;
        if let Some(a) = take_attr(attrs, "initValues") {
            let AttrValue::Array(items) = &a.value else {
                return Err(self.err(a.value_span, "`initValues` must be an array of integers"));
            };
            let mut v = Vec::new();
            for (item, isp) in items {
                let text = match item {
                    AttrValue::Int { value, .. } => value.to_string(),
                    AttrValue::BigInt { text, .. } => text.clone(),
                    _ => {
                        return Err(self.err(*isp, "`initValues` must be an array of integers"));
                    }
                };
                // Stored as the word of the channel type, like constants.
                let word = self.int_word(&text, ty).ok_or_else(|| {
                    self.err(*isp, format!("initial value {text} does not fit in {ty}"))
                })?;
                v.push(word);
            }
            if v.len() != slots as usize {
                return Err(self.err(
                    a.value_span,
                    format!("expected {slots} init values but got {}", v.len()),
                ));
            }
            if kind != BufferKind::Seq {
                return Err(self.err(a.name_span, "only `seq` buffers may have initial values"));
            }
            init = Some(v);
        }
        Ok(Op::Buffer { slots, kind, init })
    }

    fn constant_op(&self, attrs: &mut Vec<Attr>, t: &Type, tsp: Span, sp: Span) -> PResult<Op> {
        let Some(a) = take_attr(attrs, "value") else {
            return Err(self
                .err(sp, "`constant` needs a `value` attribute")
                .with_help("write `{value = 42 : i32}`"));
        };
        if let Type::Float(kind) = t {
            let value = self.float_value(&a, *kind)?;
            return Ok(Op::Constant { value });
        }
        if !t.is_integer() {
            return Err(self.err(
                tsp,
                format!("`constant` must produce an integer, index or float, found {t}"),
            ));
        }
        let (v, vty) = match &a.value {
            AttrValue::Bool(b) => (u8::from(*b).to_string(), Some(Type::Int(1))),
            AttrValue::Int { value: _, ty } | AttrValue::BigInt { text: _, ty } => {
                let vt = match ty {
                    Some(s) => Some(self.chan_type(s)?),
                    None => None,
                };
                let text = match &a.value {
                    AttrValue::Int { value, .. } => value.to_string(),
                    AttrValue::BigInt { text, .. } => text.clone(),
                    _ => unreachable!("matched above"),
                };
                (text, vt)
            }
            _ => return Err(self.err(a.value_span, "`value` must be an integer or `true`/`false`")),
        };
        if let Some(vt) = vty
            && vt != *t
        {
            return Err(self.err(
                a.value_span,
                format!("constant value type {vt} differs from the result type {t}"),
            ));
        }
        let Some(value) = self.int_word(&v, t) else {
            return Err(self.err(
                a.value_span,
                format!("constant value {v} does not fit in {t}"),
            ));
        };
        Ok(Op::Constant { value })
    }

    /// The word (see `handscope_sim::wide`) of the integer literal `text` (decimal with an
    /// optional sign, or `0x` hex) on a channel of integer type `t`, `None` when it does not
    /// fit (MLIR accepts a value that fits signed or unsigned).
    fn int_word(&self, text: &str, t: &Type) -> Option<u64> {
        let w = t.bit_width();
        if !handscope_sim::wide::is_wide(w) {
            let v: i128 = if let Some(h) = text.strip_prefix("0x") {
                i128::from_str_radix(h, 16).ok()?
            } else if let Some(h) = text.strip_prefix("-0x") {
                -i128::from_str_radix(h, 16).ok()?
            } else {
                text.parse().ok()?
            };
            return fits(v, w).then_some((v as u64) & t.mask());
        }
        handscope_sim::wide::parse(text, w).ok()
    }

    /// The bit pattern of a float attribute value of format `kind`: a float literal (rounded
    /// correctly to the format, as MLIR does) or a hexadecimal bit pattern (`0x7FC00000`, what
    /// MLIR prints for NaNs, infinities and values whose decimal form would not round-trip).
    pub(crate) fn float_value(&self, a: &Attr, kind: FloatKind) -> PResult<u64> {
        let t = Type::Float(kind);
        let typed = |ty: &Option<SType>| -> PResult<()> {
            if let Some(s) = ty {
                let vt = self.chan_type(s)?;
                if vt != t {
                    return Err(self.err(
                        a.value_span,
                        format!("constant value type {vt} differs from the result type {t}"),
                    ));
                }
            }
            Ok(())
        };
        match &a.value {
            AttrValue::Float { text, ty } => {
                typed(ty)?;
                handscope_sim::float::parse_float(text, kind)
                    .map_err(|e| self.err(a.value_span, e.to_string()))
            }
            AttrValue::Int { value, ty } if a.raw.trim_start().starts_with("0x") => {
                typed(ty)?;
                match u64::try_from(*value) {
                    Ok(v) if v & !t.mask() == 0 => Ok(v),
                    _ => Err(self.err(
                        a.value_span,
                        format!("bit pattern does not fit in {t} ({} bits)", t.bit_width()),
                    )),
                }
            }
            AttrValue::Int { value, .. } => Err(self
                .err(
                    a.value_span,
                    format!("`{value}` is an integer literal, but the constant is {t}"),
                )
                .with_help(format!(
                    "write a float literal (`{value}.0 : {t}`) or a bit pattern (`0x3F800000 : {t}`)"
                ))),
            _ => Err(self.err(
                a.value_span,
                format!("`value` must be a float literal or a bit pattern for {t}"),
            )),
        }
    }

    /// Skips `overflow<...>` and `fastmath<...>` (with a warning: Handscope computes exact
    /// results) and, for `truncf`, a rounding mode (only `to_nearest_even` is supported).
    fn arith_modifiers(&mut self, op: ArithOp) -> PResult<()> {
        loop {
            if self.at_word("overflow")? {
                let s = self.bump()?.1;
                self.skip_balanced()?;
                self.warn(s, "overflow flags are ignored");
            } else if self.at_word("fastmath")? {
                let s = self.bump()?.1;
                let body = self.skip_balanced()?;
                let text = &self.src()[body.start..body.end];
                if text
                    .split(|c: char| !c.is_ascii_alphanumeric())
                    .any(|w| !w.is_empty() && w != "none")
                {
                    self.warn(
                        Span::new(s.start, body.end),
                        "fastmath flags are ignored: Handscope computes exact IEEE-754 results (docs/semantics.md)",
                    );
                }
            } else if op == ArithOp::Truncf
                && let Tok::Ident(w) = self.peek()?
                && ROUNDING_MODES.contains(&w.as_str())
            {
                let s = self.bump()?.1;
                self.rounding_mode(&w, s)?;
            } else {
                return Ok(());
            }
        }
    }

    /// `arith.constant VALUE [: TYPE]` (`true`/`false` are `i1`) as written by newer CIRCT
    /// inside a handshake function: a constant with no control input, valid in every cycle.
    /// The result has no operands; [`super::structure`] gives it a `source` to trigger it.
    fn custom_arith_constant(&mut self, sp: Span) -> PResult<OpSpec> {
        let mut attrs = self.parse_opt_attr_dict()?;
        let first = self.peek_span()?;
        let value = self.parse_attr_value()?;
        let value_span = self.span_from(first.start);
        let (t, tsp) = match &value {
            AttrValue::Bool(_) => (Type::Int(1), first),
            AttrValue::Int { ty: Some(ty), .. } | AttrValue::Float { ty: Some(ty), .. } => {
                (self.chan_type(ty)?, ty.span)
            }
            _ => {
                return Err(self
                    .err(first, "expected a typed constant value")
                    .with_help("write `arith.constant 42 : i32`, `arith.constant 1.5 : f32` or `arith.constant true`"));
            }
        };
        attrs.push(Attr {
            name: "value".into(),
            name_span: value_span,
            value,
            value_span,
            raw: self.src()[value_span.start..value_span.end].to_string(),
        });
        let op = self.constant_op(&mut attrs, &t, tsp, sp)?;
        Ok(spec(op, vec![], vec![t], attrs, sp))
    }

    fn rounding_mode(&self, mode: &str, at: Span) -> PResult<()> {
        if mode == "to_nearest_even" {
            Ok(())
        } else {
            Err(self
                .err(at, format!("rounding mode `{mode}` is not supported"))
                .with_help("Handscope rounds to nearest even (`to_nearest_even`), as C does"))
        }
    }

    fn parse_arith_custom(&mut self, dialect: Dialect, m: &str, sp: Span) -> PResult<OpSpec> {
        let name = format!("{}.{m}", dialect.name());
        let op = match (dialect, m) {
            (Dialect::Arith, "cmpi") => {
                let pred = match self.peek()? {
                    Tok::Ident(p) | Tok::Str(p) => {
                        let psp = self.bump()?.1;
                        CmpPredicate::from_keyword(&p).ok_or_else(|| {
                            self.err(psp, format!("unknown cmpi predicate `{p}`"))
                                .with_help("one of eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge")
                        })?
                    }
                    _ => return Err(self.expected("a cmpi predicate")),
                };
                self.expect(&Tok::Comma)?;
                ArithOp::Cmpi(pred)
            }
            (Dialect::Arith, "cmpf") => {
                let pred = match self.peek()? {
                    Tok::Ident(p) | Tok::Str(p) => {
                        let psp = self.bump()?.1;
                        FloatPredicate::from_keyword(&p).ok_or_else(|| {
                            let all: Vec<&str> =
                                FloatPredicate::ALL.iter().map(|p| p.keyword()).collect();
                            self.err(psp, format!("unknown cmpf predicate `{p}`"))
                                .with_help(format!("one of {}", all.join(", ")))
                        })?
                    }
                    _ => return Err(self.expected("a cmpf predicate")),
                };
                self.expect(&Tok::Comma)?;
                ArithOp::Cmpf(pred)
            }
            (Dialect::Arith, "constant") => return self.custom_arith_constant(sp),
            _ => match ArithOp::from_name(dialect, m) {
                Some(a) => a,
                None => return Err(self.unknown_op(&name, sp)),
            },
        };
        let uses = self.parse_operand_list()?;
        self.arith_modifiers(op)?;
        let attrs = self.parse_opt_attr_dict()?;
        self.expect(&Tok::Colon)?;
        let (t1, st1) = self.parse_chan_type()?;
        let (ops, result, ins) = match op.class() {
            ArithClass::Extend
            | ArithClass::Truncate
            | ArithClass::IndexCast
            | ArithClass::IntToFloat
            | ArithClass::FloatToInt
            | ArithClass::FloatExtend
            | ArithClass::FloatTruncate => {
                self.expect_word("to")?;
                let (t2, _) = self.parse_chan_type()?;
                self.want_operands(&uses, 1, &name, sp)?;
                (all_typed(uses, &st1), t2, vec![t1])
            }
            ArithClass::Select => {
                let (cond, data, dst) = if self.eat(&Tok::Comma)? {
                    let (t2, st2) = self.parse_chan_type()?;
                    (st1.clone(), t2, st2)
                } else {
                    (st(Type::Int(1), sp), t1, st1.clone())
                };
                self.want_operands(&uses, 3, &name, sp)?;
                let ct = self.chan_type(&cond)?;
                let mut it = uses.into_iter();
                let c = it.next().expect("3 operands");
                let rest: Vec<ValueUse> = it.collect();
                let mut ops = vec![(c, cond)];
                ops.extend(all_typed(rest, &dst));
                (ops, data.clone(), vec![ct, data.clone(), data])
            }
            ArithClass::Compare | ArithClass::FloatCompare => {
                self.want_operands(&uses, 2, &name, sp)?;
                (all_typed(uses, &st1), Type::Int(1), vec![t1.clone(), t1])
            }
            ArithClass::Binary | ArithClass::FloatBinary => {
                self.want_operands(&uses, 2, &name, sp)?;
                (all_typed(uses, &st1), t1.clone(), vec![t1.clone(), t1])
            }
            ArithClass::FloatUnary | ArithClass::IntUnary => {
                self.want_operands(&uses, 1, &name, sp)?;
                (all_typed(uses, &st1), t1.clone(), vec![t1])
            }
        };
        let o = Op::Arith(op);
        self.check(&o, &ins, std::slice::from_ref(&result), st1.span)?;
        Ok(spec(o, ops, vec![result], attrs, sp))
    }

    /// The generic form's `fastmath` and `roundingmode` properties: a warning for fastmath flags
    /// other than `none`, an error for a rounding mode other than to-nearest-even.
    fn generic_float_attrs(&mut self, attrs: &mut Vec<Attr>) -> PResult<()> {
        if let Some(f) = take_attr(attrs, "fastmath") {
            let flagged = match &f.value {
                AttrValue::DialectAttr { words, .. } => words.iter().any(|w| w != "none"),
                _ => true,
            };
            if flagged {
                self.warn(
                    f.name_span,
                    "fastmath flags are ignored: Handscope computes exact IEEE-754 results (docs/semantics.md)",
                );
            }
        }
        if let Some(r) = take_attr(attrs, "roundingmode") {
            let mode = match &r.value {
                AttrValue::Int { value, .. } => usize::try_from(*value)
                    .ok()
                    .and_then(|i| ROUNDING_MODES.get(i).copied()),
                AttrValue::DialectAttr { words, .. } => words
                    .last()
                    .and_then(|w| ROUNDING_MODES.iter().copied().find(|m| m == w)),
                _ => None,
            };
            match mode {
                Some(m) => self.rounding_mode(m, r.value_span)?,
                None => return Err(self.err(r.value_span, "invalid rounding mode")),
            }
        }
        Ok(())
    }

    /// Parses an op in generic form after its quoted name.
    pub(crate) fn parse_generic_op(&mut self, name: String, sp: Span) -> PResult<OpSpec> {
        if name == "handshake.island" {
            let (op, operands, results, attrs) = self.parse_generic_island(sp)?;
            return Ok(spec(op, operands, results, attrs, sp));
        }
        self.expect(&Tok::LParen)?;
        let uses = self.parse_operand_list()?;
        self.expect(&Tok::RParen)?;
        if self.at(&Tok::LBracket)? {
            let s = self.peek_span()?;
            return Err(self.err(s, "successors are not supported in a handshake function"));
        }
        let mut attrs = self.parse_opt_props()?;
        if self.at(&Tok::LParen)? {
            let s = self.peek_span()?;
            return Err(self.err(s, format!("`{name}` cannot have regions here")));
        }
        let more = self.parse_opt_attr_dict()?;
        for a in more {
            if attrs.iter().any(|b| b.name == a.name) {
                return Err(self.err(a.name_span, format!("duplicate attribute `{}`", a.name)));
            }
            attrs.push(a);
        }
        self.expect(&Tok::Colon)?;
        let (ins, outs, fsp) = self.functional_type()?;
        if ins.len() != uses.len() {
            return Err(self.err(
                fsp,
                format!("{} operands but {} operand types", uses.len(), ins.len()),
            ));
        }
        let (dialect, m) = name.split_once('.').unwrap_or(("", name.as_str()));
        let op = match dialect {
            "handshake" => self.generic_handshake_op(m, &mut attrs, &ins, &outs, sp)?,
            "arith" => match m {
                "cmpi" => {
                    let Some(a) = take_attr(&mut attrs, "predicate") else {
                        return Err(self.err(sp, "`arith.cmpi` needs a `predicate` attribute"));
                    };
                    let p = match &a.value {
                        AttrValue::Int { value, .. } => usize::try_from(*value)
                            .ok()
                            .and_then(|i| CmpPredicate::ALL.get(i).copied()),
                        AttrValue::DialectAttr { words, .. } => {
                            words.last().and_then(|w| CmpPredicate::from_keyword(w))
                        }
                        AttrValue::Str(s) => CmpPredicate::from_keyword(s),
                        _ => None,
                    };
                    let p = p.ok_or_else(|| {
                        self.err(a.value_span, "invalid cmpi predicate (expected 0..9)")
                    })?;
                    Op::Arith(ArithOp::Cmpi(p))
                }
                "cmpf" => {
                    let Some(a) = take_attr(&mut attrs, "predicate") else {
                        return Err(self.err(sp, "`arith.cmpf` needs a `predicate` attribute"));
                    };
                    let p = match &a.value {
                        AttrValue::Int { value, .. } => usize::try_from(*value)
                            .ok()
                            .and_then(|i| FloatPredicate::ALL.get(i).copied()),
                        AttrValue::DialectAttr { words, .. } => {
                            words.last().and_then(|w| FloatPredicate::from_keyword(w))
                        }
                        AttrValue::Str(s) => FloatPredicate::from_keyword(s),
                        _ => None,
                    };
                    let p = p.ok_or_else(|| {
                        self.err(a.value_span, "invalid cmpf predicate (expected 0..15)")
                    })?;
                    self.generic_float_attrs(&mut attrs)?;
                    Op::Arith(ArithOp::Cmpf(p))
                }
                "constant" => {
                    if let Some(u) = uses.first() {
                        return Err(self.err(u.span, "`arith.constant` takes no operands"));
                    }
                    let [t] = &outs[..] else {
                        return Err(self.err(fsp, "`arith.constant` has exactly one result"));
                    };
                    let (t, tsp) = (self.chan_type(t)?, t.span);
                    let op = self.constant_op(&mut attrs, &t, tsp, sp)?;
                    return Ok(spec(op, vec![], vec![t], attrs, sp));
                }
                _ => match ArithOp::from_mnemonic(m) {
                    Some(a) => {
                        if let Some(f) = take_attr(&mut attrs, "overflowFlags") {
                            self.warn(f.name_span, "overflow flags are ignored");
                        }
                        self.generic_float_attrs(&mut attrs)?;
                        Op::Arith(a)
                    }
                    None => return Err(self.unknown_op(&name, sp)),
                },
            },
            "math" => match ArithOp::from_name(Dialect::Math, m) {
                Some(a) => {
                    self.generic_float_attrs(&mut attrs)?;
                    Op::Arith(a)
                }
                None => return Err(self.unknown_op(&name, sp)),
            },
            _ => return Err(self.unknown_op(&name, sp)),
        };
        let mut operands: Vec<(ValueUse, SType)> = uses.into_iter().zip(ins).collect();
        let memref_operand = if matches!(
            op,
            Op::ExtMemory { .. }
                | Op::DynMemController { .. }
                | Op::DynLsq {
                    memref: Some(_),
                    ..
                }
        ) {
            Some(operands.remove(0))
        } else {
            None
        };
        let in_t = self.chan_types(&operands.iter().map(|o| o.1.clone()).collect::<Vec<_>>())?;
        let out_t = self.chan_types(&outs)?;
        let mut op = op;
        if let Op::Constant { .. } = op {
            let t = out_t.first().cloned().unwrap_or(Type::None);
            op = self.constant_op(&mut attrs, &t, fsp, sp)?;
        }
        self.check(&op, &in_t, &out_t, fsp)?;
        if let Some(m) = memref_operand {
            operands.insert(0, m);
        }
        Ok(spec(op, operands, out_t, attrs, sp))
    }

    fn generic_handshake_op(
        &mut self,
        m: &str,
        attrs: &mut Vec<Attr>,
        ins: &[SType],
        _outs: &[SType],
        sp: Span,
    ) -> PResult<Op> {
        let Some(kind) = OpKind::from_handshake_mnemonic(m) else {
            return Err(self.unknown_op(&format!("handshake.{m}"), sp));
        };
        Ok(match kind {
            OpKind::Island => {
                return Err(self.err(sp, "`handshake.island` has a region: read by its own form"));
            }
            OpKind::Fork => Op::Fork,
            OpKind::LazyFork => Op::LazyFork,
            OpKind::Merge => Op::Merge,
            OpKind::Mux => Op::Mux,
            OpKind::ControlMerge => Op::ControlMerge,
            OpKind::DynControlMerge => Op::DynControlMerge,
            OpKind::DynSelect => Op::DynSelect,
            OpKind::DynLoad => Op::DynLoad,
            OpKind::DynStore => Op::DynStore,
            OpKind::AddrQueue => {
                let ld = self.required_u32(attrs, "addr_queue", "ld", sp)?;
                let st_ = self.required_u32(attrs, "addr_queue", "st", sp)?;
                let depth = self.required_u32(attrs, "addr_queue", "depth", sp)?;
                let depth = self.addr_queue_depth(depth, sp)?;
                Op::AddrQueue { ld, st: st_, depth }
            }
            OpKind::DynMemController => {
                let need = |this: &Self, attrs: &mut Vec<Attr>, name: &str| {
                    this.required_u32(attrs, "dyn_mem_controller", name, sp)
                };
                let ctrl = need(self, attrs, "ctrlCount")?;
                let ld = need(self, attrs, "ldCount")?;
                let st_ = need(self, attrs, "stCount")?;
                let Some(first) = ins.first() else {
                    return Err(
                        self.err(sp, "`handshake.dyn_mem_controller` needs a memref operand")
                    );
                };
                Op::DynMemController {
                    ctrl,
                    ld,
                    st: st_,
                    memref_arg: usize::MAX,
                    memref: self.memref_type(first)?,
                }
            }
            OpKind::DynLsq => {
                let Some(g) = take_attr(attrs, "groups") else {
                    return Err(self.err(sp, "`handshake.dyn_lsq` needs `groups`"));
                };
                let groups = match &g.value {
                    AttrValue::Str(t) => self.groups_text(t, g.value_span)?,
                    _ => return Err(self.err(g.value_span, "`groups` must be a string")),
                };
                let need = |this: &Self, attrs: &mut Vec<Attr>, name: &str| {
                    this.required_u32(attrs, "dyn_lsq", name, sp)
                };
                let load_depth = need(self, attrs, "ldq")?;
                let store_depth = need(self, attrs, "stq")?;
                let end_once = self.bool_attr(attrs, "endOnce")?.unwrap_or(false);
                let memref = match ins.first() {
                    Some(t) if matches!(t.ty, PType::MemRef(_)) => Some(self.memref_type(t)?),
                    _ => None,
                };
                Op::DynLsq {
                    shape: handscope_sim::LsqShape {
                        groups,
                        load_depth,
                        store_depth,
                        end_once,
                    },
                    memref_arg: memref.as_ref().map(|_| usize::MAX),
                    memref,
                }
            }
            OpKind::DynPipeline | OpKind::DynCounterBuffer => {
                let Some(la) = take_attr(attrs, "latency") else {
                    return Err(
                        self.err(sp, format!("`handshake.{}` needs a `latency` attribute", m))
                    );
                };
                let latency = u32::try_from(self.int_attr(&la)?)
                    .map_err(|_| self.err(la.value_span, "`latency` is out of range"))?;
                match self.dyn_pipeline_op(latency, la.value_span)? {
                    Op::DynPipeline { latency } if kind == OpKind::DynCounterBuffer => {
                        Op::DynCounterBuffer { latency }
                    }
                    op => op,
                }
            }
            OpKind::DynBuffer => {
                let Some(sa) = take_attr(attrs, "slots") else {
                    return Err(self.err(sp, "`handshake.dyn_buffer` needs a `slots` attribute"));
                };
                let slots = u32::try_from(self.int_attr(&sa)?)
                    .map_err(|_| self.err(sa.value_span, "`slots` is out of range"))?;
                let Some(ka) = take_attr(attrs, "bufferType") else {
                    return Err(
                        self.err(sp, "`handshake.dyn_buffer` needs a `bufferType` attribute")
                    );
                };
                let kind = match &ka.value {
                    AttrValue::Str(s) => DynBufferKind::from_name(s),
                    _ => None,
                }
                .ok_or_else(|| {
                    self.err(
                        ka.value_span,
                        format!(
                            "`bufferType` must name a Dynamatic buffer kind (\"{}\")",
                            kind_names("\", \"")
                        ),
                    )
                })?;
                self.dyn_buffer_op(kind, slots, sa.value_span)?
            }
            OpKind::CondBr => Op::CondBr,
            OpKind::Br => Op::Br,
            OpKind::Join => Op::Join,
            OpKind::Sync => Op::Sync,
            OpKind::Pack => Op::Pack,
            OpKind::Unpack => Op::Unpack,
            OpKind::Source => Op::Source,
            OpKind::Sink => Op::Sink,
            OpKind::Never => Op::Never,
            OpKind::Load => Op::Load,
            OpKind::Store => Op::Store,
            OpKind::Return => Op::Return,
            OpKind::Constant => Op::Constant { value: 0 },
            OpKind::Buffer => {
                let Some(sa) = take_attr(attrs, "slots") else {
                    return Err(self.err(sp, "`handshake.buffer` needs a `slots` attribute"));
                };
                let slots = u32::try_from(self.int_attr(&sa)?)
                    .map_err(|_| self.err(sa.value_span, "`slots` is out of range"))?;
                let kind = match take_attr(attrs, "bufferType") {
                    Some(a) => {
                        let word = match &a.value {
                            AttrValue::DialectAttr { words, .. } => words.last().cloned(),
                            AttrValue::Int { value, .. } => Some(if *value == 0 {
                                "seq".into()
                            } else {
                                "fifo".into()
                            }),
                            _ => None,
                        };
                        match word.as_deref() {
                            Some("seq") => BufferKind::Seq,
                            Some("fifo") => BufferKind::Fifo,
                            _ => return Err(self.err(a.value_span, "`bufferType` must be `#handshake<buffer_type_enum seq>` or `... fifo>`")),
                        }
                    }
                    None => {
                        return Err(
                            self.err(sp, "`handshake.buffer` needs a `bufferType` attribute")
                        );
                    }
                };
                let ty = match ins.first() {
                    Some(t) => self.chan_type(t)?,
                    None => return Err(self.err(sp, "`handshake.buffer` needs an operand")),
                };
                self.buffer_op(slots, sa.value_span, kind, &ty, attrs)?
            }
            OpKind::Pipeline => {
                let Some(la) = take_attr(attrs, "latency") else {
                    return Err(self.err(sp, "`handshake.pipeline` needs a `latency` attribute"));
                };
                let latency = u32::try_from(self.int_attr(&la)?)
                    .map_err(|_| self.err(la.value_span, "`latency` is out of range"))?;
                let ii = self.u32_attr(attrs, "ii")?.unwrap_or(1);
                self.pipeline_op(latency, ii, la.value_span)?
            }
            OpKind::Memory | OpKind::ExtMemory => {
                let ld = self
                    .u32_attr(attrs, "ldCount")?
                    .ok_or_else(|| self.err(sp, format!("`{m}` needs `ldCount`")))?;
                let st_ = self
                    .u32_attr(attrs, "stCount")?
                    .ok_or_else(|| self.err(sp, format!("`{m}` needs `stCount`")))?;
                let id = self.u32_attr(attrs, "id")?.unwrap_or(0);
                if kind == OpKind::Memory {
                    let lsq = self.required_lsq(attrs, sp)?;
                    let memref = match take_attr(attrs, "memRefType") {
                        Some(Attr {
                            value: AttrValue::Type(t),
                            ..
                        }) => {
                            let m = self.memref_type(&t)?;
                            self.one_dimension(&m, t.span)?;
                            m
                        }
                        Some(a) => {
                            return Err(
                                self.err(a.value_span, "`memRefType` must be a memref type")
                            );
                        }
                        None => {
                            return Err(
                                self.err(sp, "`handshake.memory` needs a `memRefType` attribute")
                            );
                        }
                    };
                    Op::Memory {
                        ld,
                        st: st_,
                        id,
                        memref,
                        lsq,
                    }
                } else {
                    let Some(first) = ins.first() else {
                        return Err(self.err(sp, "`handshake.extmemory` needs a memref operand"));
                    };
                    let memref = self.memref_type(first)?;
                    Op::ExtMemory {
                        ld,
                        st: st_,
                        id,
                        memref_arg: usize::MAX,
                        memref,
                    }
                }
            }
            OpKind::Instance => match take_attr(attrs, "module") {
                Some(Attr {
                    value: AttrValue::Symbol(c),
                    ..
                }) => Op::Instance { callee: c },
                Some(a) => {
                    return Err(self.err(a.value_span, "`module` must be a symbol (`@name`)"));
                }
                None => return Err(self.err(sp, "`handshake.instance` needs a `module` attribute")),
            },
            OpKind::Argument | OpKind::Arith => {
                return Err(self.unknown_op(&format!("handshake.{m}"), sp));
            }
        })
    }
}

/// The names of the simulated Dynamatic buffer kinds, joined by `sep`.
fn kind_names(sep: &str) -> String {
    DynBufferKind::ALL
        .iter()
        .map(|k| k.name())
        .collect::<Vec<_>>()
        .join(sep)
}
