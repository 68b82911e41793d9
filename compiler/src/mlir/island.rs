//! Reads `handshake.island` (`docs/static-islands.md` "In MLIR"), Handscope's static
//! island: operands, attributes (`memories`, `pipelines`), its type, then its region.
//!
//! ```text
//! %c, %r = handshake.island %ctrl, %n {memories = ["a"], pipelines = [..]} : (none, i32) -> (none, i32) {
//!     ^bb0(%s0: i32):
//!       %s1 = handshake.island.load "a"[%s0] : i32 -> i32
//!       cf.cond_br %s2, ^bb0(%s3 : i32), ^exit(%s1 : i32) {cycles = [1, 4]}
//!     }
//! ```
//!
//! Values are slots by their names (`%s<k>` is slot `k`); block `^bb<k>` is block `k`;
//! `^exit` leaves the island with its arguments as the results; each terminator's
//! `cycles` are its edges' costs in the static schedule.

use std::collections::BTreeMap;

use handscope_sim::island::{
    EdgeTarget, Island, IslandBlock, IslandEdge, IslandExit, IslandPipeline, IslandStep,
    ScheduledOp, StepOp,
};
use handscope_sim::{Op, Type};

use super::ast::{Attr, AttrValue, PType, SType, ValueUse};
use super::diag::Span;
use super::lexer::Tok;
use super::parser::{PResult, Parser, take_attr};

/// An island op as read: the op, its typed operands, its result types, its other
/// attributes.
pub(crate) type IslandParts = (Op, Vec<(ValueUse, SType)>, Vec<Type>, Vec<Attr>);

/// What the region's text gives, before the island is assembled.
#[derive(Default)]
pub(crate) struct Region {
    /// Slot types, as annotations give them.
    types: BTreeMap<u32, Type>,
    /// Blocks by index.
    blocks: BTreeMap<u32, IslandBlock>,
    /// The memories the loads and stores name, in order of first use (their steps hold
    /// these indices until [`Parser::finish_island`] maps them onto `memories`), with where
    /// each is first named.
    refs: Vec<(String, Span)>,
}

impl Parser<'_> {
    /// `%s<k>` as slot `k`.
    fn slot_of(&self, u: &ValueUse) -> PResult<u32> {
        u.name
            .strip_prefix('s')
            .and_then(|k| k.parse().ok())
            .filter(|_| u.index == 0)
            .ok_or_else(|| {
                self.err(
                    u.span,
                    format!("an island's values are named `%s<slot>`, not `%{}`", u.name),
                )
            })
    }

    fn typed_slot(&self, r: &mut Region, s: u32, t: Type, at: Span) -> PResult<()> {
        match r.types.get(&s) {
            Some(old) if *old != t => {
                Err(self.err(at, format!("`%s{s}` has type {old} elsewhere, not {t}")))
            }
            _ => {
                r.types.insert(s, t);
                Ok(())
            }
        }
    }

    fn memory_ref(r: &mut Region, name: &str, at: Span) -> u32 {
        match r.refs.iter().position(|(m, _)| m == name) {
            Some(k) => k as u32,
            None => {
                r.refs.push((name.to_string(), at));
                r.refs.len() as u32 - 1
            }
        }
    }

    /// After `handshake.island` in custom form: operands, attributes, type, region.
    pub(crate) fn parse_island(&mut self, sp: Span) -> PResult<IslandParts> {
        let uses = self.parse_operand_list()?;
        let attrs = self.parse_opt_attr_dict()?;
        self.expect(&Tok::Colon)?;
        let t = self.parse_type()?;
        let r = self.island_region()?;
        self.finish_island(uses, attrs, t, r, sp)
    }

    /// After `"handshake.island"` in generic form: `(operands) ({region}) {attrs} : type`.
    pub(crate) fn parse_generic_island(&mut self, sp: Span) -> PResult<IslandParts> {
        self.expect(&Tok::LParen)?;
        let uses = self.parse_operand_list()?;
        self.expect(&Tok::RParen)?;
        self.expect(&Tok::LParen)?;
        let r = self.island_region()?;
        self.expect(&Tok::RParen)?;
        let attrs = self.parse_opt_attr_dict()?;
        self.expect(&Tok::Colon)?;
        let t = self.parse_type()?;
        self.finish_island(uses, attrs, t, r, sp)
    }

    /// `{ ^bb0(..): .. }`.
    fn island_region(&mut self) -> PResult<Region> {
        let mut r = Region::default();
        self.expect(&Tok::LBrace)?;
        while !self.eat(&Tok::RBrace)? {
            self.island_block(&mut r)?;
        }
        Ok(r)
    }

    /// The island from its parts: operand types, `memories` and `pipelines`, the region.
    fn finish_island(
        &self,
        uses: Vec<ValueUse>,
        mut attrs: Vec<Attr>,
        t: SType,
        mut r: Region,
        sp: Span,
    ) -> PResult<IslandParts> {
        let (ins, outs) = match t.ty {
            PType::Func(i, o) => (i, o),
            _ => return Err(self.err(t.span, "expected the island's type `(...) -> (...)`")),
        };
        if uses.len() != ins.len() {
            return Err(self.err(
                t.span,
                format!("{} operands but {} types", uses.len(), ins.len()),
            ));
        }
        let operands: Vec<(ValueUse, SType)> = uses.into_iter().zip(ins).collect();
        let results: Vec<Type> = outs
            .iter()
            .map(|s| self.chan_type(s))
            .collect::<PResult<_>>()?;
        let mut memories = Vec::new();
        if let Some(a) = take_attr(&mut attrs, "memories") {
            let AttrValue::Array(items) = &a.value else {
                return Err(self.err(a.value_span, "`memories` is a list of names"));
            };
            for (v, vsp) in items {
                match v {
                    AttrValue::Str(s) => memories.push(s.clone()),
                    _ => return Err(self.err(*vsp, "a memory is named by a string")),
                }
            }
        }
        let pipelines = match take_attr(&mut attrs, "pipelines") {
            Some(a) => self.island_pipelines(&a)?,
            None => Vec::new(),
        };
        // The loads' and stores' memories, by position in `memories`.
        let mut map = Vec::new();
        for (name, at) in &r.refs {
            let k = memories.iter().position(|m| m == name).ok_or_else(|| {
                self.err(
                    *at,
                    format!("memory `{name}` is not in the island's `memories`"),
                )
            })?;
            map.push(k as u32);
        }
        for b in r.blocks.values_mut() {
            for st in &mut b.steps {
                if let StepOp::Load(k) | StepOp::Store(k) = &mut st.op {
                    *k = map[*k as usize];
                }
            }
        }
        let params = r.blocks.get(&0).map_or(0, |b| b.params.len() as u32);
        let n_slots = r.types.keys().next_back().map_or(0, |&k| k + 1);
        // A slot no annotation names is never read: `none` will do.
        let slots = (0..n_slots)
            .map(|k| r.types.get(&k).cloned().unwrap_or(Type::None))
            .collect();
        let n_blocks = r.blocks.len() as u32;
        if r.blocks.keys().copied().ne(0..n_blocks) {
            return Err(self.err(sp, "an island's blocks are `^bb0`, `^bb1`, ... in order"));
        }
        let island = Island {
            slots,
            params,
            memories,
            blocks: r.blocks.into_values().collect(),
            pipelines,
        };
        island.validate().map_err(|e| self.err(sp, e.to_string()))?;
        Ok((Op::Island(Box::new(island)), operands, results, attrs))
    }

    /// `pipelines = [{blocks = [0, 1], header = 0, ii = 1, latency = 5, line = 8,
    /// ops = [["muli", 9, 1, 4]]}]`.
    fn island_pipelines(&self, a: &Attr) -> PResult<Vec<IslandPipeline>> {
        let bad = |at: Span| {
            self.err(
                at,
                "`pipelines` is a list of `{blocks, header, ii, latency, line, ops = [[name, line, start, latency], ..]}`",
            )
        };
        let int = |v: &AttrValue, at: Span| -> PResult<u32> {
            match v {
                AttrValue::Int { value, .. } => u32::try_from(*value).map_err(|_| bad(at)),
                _ => Err(bad(at)),
            }
        };
        let AttrValue::Array(items) = &a.value else {
            return Err(bad(a.value_span));
        };
        let mut out = Vec::new();
        for (v, vsp) in items {
            let AttrValue::Dict(fields) = v else {
                return Err(bad(*vsp));
            };
            let get = |k: &str| fields.iter().find(|f| f.name == k);
            let num = |k: &str| -> PResult<u32> {
                let f = get(k).ok_or_else(|| bad(*vsp))?;
                int(&f.value, f.value_span)
            };
            let mut ops = Vec::new();
            if let Some(f) = get("ops") {
                let AttrValue::Array(list) = &f.value else {
                    return Err(bad(f.value_span));
                };
                for (o, osp) in list {
                    match o {
                        AttrValue::Array(parts) if parts.len() == 4 => {
                            let AttrValue::Str(name) = &parts[0].0 else {
                                return Err(bad(*osp));
                            };
                            ops.push(ScheduledOp {
                                name: name.clone(),
                                line: int(&parts[1].0, parts[1].1)?,
                                start: int(&parts[2].0, parts[2].1)?,
                                latency: int(&parts[3].0, parts[3].1)?,
                            });
                        }
                        _ => return Err(bad(*osp)),
                    }
                }
            }
            let mut blocks = Vec::new();
            if let Some(f) = get("blocks") {
                let AttrValue::Array(list) = &f.value else {
                    return Err(bad(f.value_span));
                };
                for (b, bsp) in list {
                    blocks.push(int(b, *bsp)?);
                }
            }
            out.push(IslandPipeline {
                blocks,
                header: num("header")?,
                line: num("line")?,
                ii: num("ii")?,
                latency: num("latency")?,
                ops,
            });
        }
        Ok(out)
    }

    /// `^bb<k>(%s0: T, ..):` and its statements, up to the next block or the region's end.
    fn island_block(&mut self, r: &mut Region) -> PResult<()> {
        let lsp = self.peek_span()?;
        let k = match self.peek()? {
            Tok::Caret(l) => {
                self.bump()?;
                l.strip_prefix("bb")
                    .and_then(|k| k.parse::<u32>().ok())
                    .ok_or_else(|| {
                        self.err(lsp, format!("an island's blocks are `^bb<k>`, not `^{l}`"))
                    })?
            }
            _ => return Err(self.expected("an island block (`^bb0`)")),
        };
        if r.blocks.contains_key(&k) {
            return Err(self.err(lsp, format!("block `^bb{k}` is defined twice")));
        }
        let mut params = Vec::new();
        if self.eat(&Tok::LParen)? && !self.eat(&Tok::RParen)? {
            loop {
                let u = self.parse_value_use()?;
                let s = self.slot_of(&u)?;
                self.expect(&Tok::Colon)?;
                let (t, _) = self.parse_chan_type()?;
                self.typed_slot(r, s, t, u.span)?;
                params.push(s);
                if !self.eat(&Tok::Comma)? {
                    break;
                }
            }
            self.expect(&Tok::RParen)?;
        }
        self.expect(&Tok::Colon)?;
        let mut steps = Vec::new();
        loop {
            let at = self.peek_span()?;
            match self.peek()? {
                Tok::Value { .. } => steps.push(self.island_step(r)?),
                Tok::Ident(w) if w == "cf.br" || w == "cf.cond_br" => {
                    self.bump()?;
                    let exit = self.island_exit(r, w == "cf.cond_br", at)?;
                    r.blocks.insert(
                        k,
                        IslandBlock {
                            params,
                            steps,
                            exit,
                        },
                    );
                    return Ok(());
                }
                _ => {
                    return Err(self.expected(
                        "an island operation (`%s1 = arith.addi ...`) or its block's `cf.br`/`cf.cond_br`",
                    ));
                }
            }
        }
    }

    /// `%s<k> = <op> ...`.
    fn island_step(&mut self, r: &mut Region) -> PResult<IslandStep> {
        let u = self.parse_value_use()?;
        let result = self.slot_of(&u)?;
        self.expect(&Tok::Equal)?;
        let (name, nsp) = match self.bump()? {
            (Tok::Ident(w), s) => (w, s),
            (_, s) => return Err(self.err(s, "expected an operation name")),
        };
        let mem_ref = |p: &mut Self, r: &mut Region| -> PResult<(u32, ValueUse)> {
            let msp = p.peek_span()?;
            let name = match p.bump()? {
                (Tok::Str(s), _) => s,
                _ => return Err(p.err(msp, "expected the memory's name (`\"a\"`)")),
            };
            let m = Self::memory_ref(r, &name, msp);
            p.expect(&Tok::LBracket)?;
            let idx = p.parse_value_use()?;
            p.expect(&Tok::RBracket)?;
            Ok((m, idx))
        };
        match name.as_str() {
            "handshake.island.load" => {
                let (m, idx) = mem_ref(self, r)?;
                self.expect(&Tok::Colon)?;
                let (it, _) = self.parse_chan_type()?;
                self.expect(&Tok::Arrow)?;
                let (rt, _) = self.parse_chan_type()?;
                let i = self.slot_of(&idx)?;
                self.typed_slot(r, i, it, idx.span)?;
                self.typed_slot(r, result, rt, u.span)?;
                Ok(IslandStep {
                    op: StepOp::Load(m),
                    args: vec![i],
                    result,
                })
            }
            "handshake.island.store" => {
                let val = self.parse_value_use()?;
                self.expect(&Tok::Comma)?;
                let (m, idx) = mem_ref(self, r)?;
                self.expect(&Tok::Colon)?;
                let (vt, _) = self.parse_chan_type()?;
                self.expect(&Tok::Comma)?;
                let (it, _) = self.parse_chan_type()?;
                let (v, i) = (self.slot_of(&val)?, self.slot_of(&idx)?);
                self.typed_slot(r, v, vt, val.span)?;
                self.typed_slot(r, i, it, idx.span)?;
                self.typed_slot(r, result, Type::None, u.span)?;
                Ok(IslandStep {
                    op: StepOp::Store(m),
                    args: vec![i, v],
                    result,
                })
            }
            n if n.starts_with("arith.") || n.starts_with("math.") => {
                let spec = self.parse_custom_op(name.clone(), nsp)?;
                let op = match spec.op {
                    Op::Constant { value } => StepOp::Const(value),
                    Op::Arith(a) => StepOp::Arith(a),
                    _ => return Err(self.err(nsp, format!("`{name}` is not an island operation"))),
                };
                let mut args = Vec::new();
                for (use_, st) in &spec.operands {
                    let s = self.slot_of(use_)?;
                    let t = self.chan_type(st)?;
                    self.typed_slot(r, s, t, use_.span)?;
                    args.push(s);
                }
                let rt = spec
                    .results
                    .first()
                    .cloned()
                    .ok_or_else(|| self.err(nsp, format!("`{name}` has no result")))?;
                self.typed_slot(r, result, rt, u.span)?;
                Ok(IslandStep { op, args, result })
            }
            _ => Err(self.err(
                nsp,
                format!("`{name}` is not an island operation: `arith`/`math` ops, `handshake.island.load` and `handshake.island.store`"),
            )),
        }
    }

    /// A successor: `^bb<k>`, `^exit`, with `(%s1, %s2 : T, T)`.
    fn island_edge(&mut self, r: &mut Region) -> PResult<IslandEdge> {
        let lsp = self.peek_span()?;
        let to = match self.bump()? {
            (Tok::Caret(l), _) if l == "exit" => EdgeTarget::Leave,
            (Tok::Caret(l), _) => EdgeTarget::Block(
                l.strip_prefix("bb")
                    .and_then(|k| k.parse().ok())
                    .ok_or_else(|| self.err(lsp, format!("`^{l}` is not an island block")))?,
            ),
            _ => return Err(self.err(lsp, "expected a successor (`^bb1`, `^exit`)")),
        };
        let mut args = Vec::new();
        if self.eat(&Tok::LParen)? {
            let uses = self.parse_operand_list()?;
            if !uses.is_empty() {
                self.expect(&Tok::Colon)?;
            }
            for (k, u) in uses.iter().enumerate() {
                if k > 0 {
                    self.expect(&Tok::Comma)?;
                }
                let (t, _) = self.parse_chan_type()?;
                let s = self.slot_of(u)?;
                self.typed_slot(r, s, t, u.span)?;
                args.push(s);
            }
            self.expect(&Tok::RParen)?;
        }
        Ok(IslandEdge {
            to,
            args,
            cycles: 0,
        })
    }

    /// A block's `cf.br` or `cf.cond_br` (after the name) and its `{cycles = [..]}`.
    fn island_exit(&mut self, r: &mut Region, cond: bool, at: Span) -> PResult<IslandExit> {
        let mut exit = if cond {
            let c = self.parse_value_use()?;
            let cs = self.slot_of(&c)?;
            self.typed_slot(r, cs, Type::Int(1), c.span)?;
            self.expect(&Tok::Comma)?;
            let t = self.island_edge(r)?;
            self.expect(&Tok::Comma)?;
            let f = self.island_edge(r)?;
            IslandExit::Branch { cond: cs, t, f }
        } else {
            IslandExit::Goto(self.island_edge(r)?)
        };
        let mut attrs = self.parse_opt_attr_dict()?;
        let n = if cond { 2 } else { 1 };
        let cycles: Vec<u32> = match take_attr(&mut attrs, "cycles") {
            Some(a) => match &a.value {
                AttrValue::Array(items) if items.len() == n => items
                    .iter()
                    .map(|(v, vsp)| match v {
                        AttrValue::Int { value, .. } => {
                            u32::try_from(*value).map_err(|_| self.err(*vsp, "cycles are counts"))
                        }
                        _ => Err(self.err(*vsp, "cycles are counts")),
                    })
                    .collect::<PResult<_>>()?,
                _ => {
                    return Err(self.err(
                        a.value_span,
                        format!("`cycles` lists one count per successor ({n})"),
                    ));
                }
            },
            None => {
                return Err(self.err(at, "an island's branch says its edges' `{cycles = [..]}`"));
            }
        };
        match &mut exit {
            IslandExit::Goto(e) => e.cycles = cycles[0],
            IslandExit::Branch { t, f, .. } => {
                t.cycles = cycles[0];
                f.cycles = cycles[1];
            }
        }
        Ok(exit)
    }
}
