//! CFG construction with on-the-fly SSA construction (Braun et al., "Simple and Efficient
//! Construction of Static Single Assignment Form", CC 2013), using block parameters as phis.
//! Trivial phis are removed at the end, unreachable blocks dropped and values renumbered.

use super::ir::{Block, BlockId, Inst, InstKind, Terminator, Type, ValueId};
use super::span::Span;
use std::collections::{BTreeMap, BTreeSet};

/// A source-level variable tracked in SSA form (scalar local or memory token chain).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Var(pub u32);

/// An edge: predecessor block and successor position in its terminator.
type Edge = (BlockId, u8);

/// Terminator under construction (arguments are filled in by [`FnBuilder::finish`]).
#[derive(Clone, Debug)]
pub enum PendingTerm {
    /// `br target`
    Br(BlockId),
    /// `cond_br cond, t, f`
    CondBr(ValueId, BlockId, BlockId),
    /// `return value tokens(...)`
    Return(Option<ValueId>, Vec<ValueId>),
}

#[derive(Default)]
struct BBuild {
    params: Vec<ValueId>,
    insts: Vec<Inst>,
    term: Option<(PendingTerm, Span)>,
    preds: Vec<Edge>,
    sealed: bool,
    incomplete: Vec<(Var, ValueId)>,
    defs: BTreeMap<Var, ValueId>,
}

/// Builds a function's CFG in SSA form.
pub struct FnBuilder {
    blocks: Vec<BBuild>,
    value_types: Vec<Type>,
    value_names: Vec<Option<String>>,
    var_types: Vec<Type>,
    var_names: Vec<String>,
    phi_in: BTreeMap<ValueId, Vec<(Edge, ValueId)>>,
    /// Value used when a token variable is read where it has no definition.
    pub undef_token: Option<ValueId>,
    /// The block instructions are currently appended to.
    pub cur: BlockId,
}

/// Output of [`FnBuilder::finish`].
pub struct Finished {
    /// Blocks (entry first).
    pub blocks: Vec<Block>,
    /// Value types.
    pub value_types: Vec<Type>,
    /// Value names.
    pub value_names: Vec<Option<String>>,
    /// Old value id -> new value id.
    pub remap: BTreeMap<ValueId, ValueId>,
}

impl Default for FnBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl FnBuilder {
    /// A builder with one (entry) block, `bb0`, sealed and current.
    pub fn new() -> Self {
        let mut b = FnBuilder {
            blocks: Vec::new(),
            value_types: Vec::new(),
            value_names: Vec::new(),
            var_types: Vec::new(),
            var_names: Vec::new(),
            phi_in: BTreeMap::new(),
            undef_token: None,
            cur: BlockId(0),
        };
        let e = b.new_block();
        b.seal(e);
        b
    }

    /// Creates a new (unsealed, empty) block.
    pub fn new_block(&mut self) -> BlockId {
        self.blocks.push(BBuild::default());
        BlockId(self.blocks.len() as u32 - 1)
    }

    /// Creates a fresh value of type `ty`.
    pub fn new_value(&mut self, ty: Type, name: Option<String>) -> ValueId {
        self.value_types.push(ty);
        self.value_names.push(name);
        ValueId(self.value_types.len() as u32 - 1)
    }

    /// Type of a value.
    pub fn ty(&self, v: ValueId) -> Type {
        self.value_types[v.0 as usize]
    }

    /// Adds a parameter to `block` (used for the entry block's function parameters).
    pub fn add_param(&mut self, block: BlockId, ty: Type, name: Option<String>) -> ValueId {
        let v = self.new_value(ty, name);
        self.blocks[block.0 as usize].params.push(v);
        v
    }

    /// Declares a new SSA variable.
    pub fn new_var(&mut self, name: &str, ty: Type) -> Var {
        self.var_types.push(ty);
        self.var_names.push(name.to_string());
        Var(self.var_types.len() as u32 - 1)
    }

    /// Type of a variable.
    pub fn var_ty(&self, v: Var) -> Type {
        self.var_types[v.0 as usize]
    }

    /// True if the current block already has a terminator.
    pub fn terminated(&self) -> bool {
        self.blocks[self.cur.0 as usize].term.is_some()
    }

    /// Makes `b` the current block.
    pub fn switch_to(&mut self, b: BlockId) {
        self.cur = b;
    }

    /// Appends an instruction with results of the given types to the current block.
    pub fn inst(&mut self, kind: InstKind, result_types: &[Type], span: Span) -> Vec<ValueId> {
        let results: Vec<ValueId> = result_types
            .iter()
            .map(|t| self.new_value(*t, None))
            .collect();
        self.blocks[self.cur.0 as usize].insts.push(Inst {
            kind,
            results: results.clone(),
            span,
        });
        results
    }

    fn set_term(&mut self, t: PendingTerm, span: Span) {
        let cur = self.cur;
        let succs: Vec<BlockId> = match &t {
            PendingTerm::Br(b) => vec![*b],
            PendingTerm::CondBr(_, a, b) => vec![*a, *b],
            PendingTerm::Return(..) => vec![],
        };
        for (i, s) in succs.into_iter().enumerate() {
            self.blocks[s.0 as usize].preds.push((cur, i as u8));
        }
        self.blocks[cur.0 as usize].term = Some((t, span));
    }

    /// Terminates the current block with `br target`.
    pub fn br(&mut self, target: BlockId, span: Span) {
        self.set_term(PendingTerm::Br(target), span);
    }

    /// Terminates the current block with `cond_br cond, t, f`.
    pub fn cond_br(&mut self, cond: ValueId, t: BlockId, f: BlockId, span: Span) {
        self.set_term(PendingTerm::CondBr(cond, t, f), span);
    }

    /// Terminates the current block with a return.
    pub fn ret(&mut self, value: Option<ValueId>, tokens: Vec<ValueId>, span: Span) {
        self.set_term(PendingTerm::Return(value, tokens), span);
    }

    /// Records that all predecessors of `b` are known.
    pub fn seal(&mut self, b: BlockId) {
        let bi = b.0 as usize;
        if self.blocks[bi].sealed {
            return;
        }
        let inc = std::mem::take(&mut self.blocks[bi].incomplete);
        for (var, p) in inc {
            self.complete_phis(var, vec![(p, b)]);
        }
        self.blocks[bi].sealed = true;
    }

    /// Assigns `v` to `var` in the current block.
    pub fn write_var(&mut self, var: Var, v: ValueId) {
        let cur = self.cur;
        self.blocks[cur.0 as usize].defs.insert(var, v);
    }

    /// Current value of `var` in the current block.
    pub fn read_var(&mut self, var: Var) -> ValueId {
        self.read_var_in(var, self.cur)
    }

    fn read_var_in(&mut self, var: Var, block: BlockId) -> ValueId {
        let mut pending = Vec::new();
        let v = self.find_def(var, block, &mut pending);
        self.complete_phis(var, pending);
        v
    }

    /// The value of `var` at the end of `block`: a definition found by walking up through
    /// single-predecessor blocks, or a new phi at the first merge point (pushed on `pending`
    /// to get its operands), or an undefined value.
    fn find_def(
        &mut self,
        var: Var,
        block: BlockId,
        pending: &mut Vec<(ValueId, BlockId)>,
    ) -> ValueId {
        let mut chain = Vec::new();
        let mut b = block;
        let result = loop {
            let bb = &self.blocks[b.0 as usize];
            if let Some(v) = bb.defs.get(&var) {
                break *v;
            }
            if bb.sealed && bb.preds.len() == 1 && chain.len() <= self.blocks.len() {
                chain.push(b);
                b = bb.preds[0].0;
                continue;
            }
            break self.new_def(var, b, pending);
        };
        for c in chain {
            self.blocks[c.0 as usize].defs.insert(var, result);
        }
        result
    }

    fn undef(&mut self, var: Var, b: BlockId) -> ValueId {
        let ty = self.var_ty(var);
        if ty == Type::Token
            && let Some(t) = self.undef_token
        {
            return t;
        }
        // Reading an uninitialized variable: C leaves the value indeterminate; we use 0.
        let v = self.new_value(ty, None);
        self.blocks[b.0 as usize].insts.insert(
            0,
            Inst {
                kind: InstKind::Const { value: 0 },
                results: vec![v],
                span: Span::default(),
            },
        );
        v
    }

    fn new_def(&mut self, var: Var, b: BlockId, pending: &mut Vec<(ValueId, BlockId)>) -> ValueId {
        let bi = b.0 as usize;
        let ty = self.var_ty(var);
        let name = Some(self.var_names[var.0 as usize].clone());
        if !self.blocks[bi].sealed {
            let p = self.add_param(b, ty, name);
            self.blocks[bi].incomplete.push((var, p));
            self.blocks[bi].defs.insert(var, p);
            return p;
        }
        if self.blocks[bi].preds.is_empty() || self.blocks[bi].preds.len() == 1 {
            // No predecessor (entry or dead code), or a cycle of single-predecessor blocks.
            let v = self.undef(var, b);
            self.blocks[bi].defs.insert(var, v);
            return v;
        }
        let p = self.add_param(b, ty, name);
        self.blocks[bi].defs.insert(var, p);
        pending.push((p, b));
        p
    }

    /// Gives every phi of `var` in `pending` its operands, one per predecessor, in
    /// predecessor order. Looking an operand up may create phis further up; they join the
    /// work list instead of being completed by recursion, so a read across a long chain of
    /// merge points (thousands of `if` statements) takes no stack per merge point. Each phi
    /// is a definition as soon as it exists, so loops end the search.
    fn complete_phis(&mut self, var: Var, mut pending: Vec<(ValueId, BlockId)>) {
        while let Some((p, b)) = pending.pop() {
            let preds = self.blocks[b.0 as usize].preds.clone();
            for e in preds {
                let v = self.find_def(var, e.0, &mut pending);
                self.phi_in.entry(p).or_default().push((e, v));
            }
        }
    }

    /// Finalizes: drops unreachable blocks, removes trivial phis, fills terminator arguments,
    /// renumbers blocks and values. Fails (with a message) if a reachable block is unterminated.
    pub fn finish(mut self) -> Result<Finished, String> {
        let n = self.blocks.len();
        // Reachability.
        let mut reach = vec![false; n];
        let mut stack = vec![0usize];
        while let Some(b) = stack.pop() {
            if reach[b] {
                continue;
            }
            reach[b] = true;
            match &self.blocks[b].term {
                Some((PendingTerm::Br(t), _)) => stack.push(t.0 as usize),
                Some((PendingTerm::CondBr(_, t, f), _)) => {
                    stack.push(t.0 as usize);
                    stack.push(f.0 as usize);
                }
                Some((PendingTerm::Return(..), _)) => {}
                None => return Err(format!("internal error: block bb{b} has no terminator")),
            }
        }
        // Trivial phi removal over reachable blocks.
        let mut repl: BTreeMap<ValueId, ValueId> = BTreeMap::new();
        fn resolve(repl: &BTreeMap<ValueId, ValueId>, mut v: ValueId) -> ValueId {
            let mut guard = 0;
            while let Some(&w) = repl.get(&v) {
                if w == v || guard > 1_000_000 {
                    break;
                }
                v = w;
                guard += 1;
            }
            v
        }
        let params: Vec<(usize, ValueId)> = (1..n)
            .filter(|b| reach[*b])
            .flat_map(|b| self.blocks[b].params.iter().map(move |p| (b, *p)))
            .collect();
        loop {
            let mut changed = false;
            for (_, p) in &params {
                if repl.contains_key(p) {
                    continue;
                }
                let mut distinct = BTreeSet::new();
                for (e, v) in self.phi_in.get(p).map(Vec::as_slice).unwrap_or(&[]) {
                    if !reach[e.0.0 as usize] {
                        continue;
                    }
                    let r = resolve(&repl, *v);
                    if r != *p {
                        distinct.insert(r);
                    }
                }
                if distinct.len() == 1 {
                    let only = *distinct.iter().next().unwrap_or(p);
                    repl.insert(*p, only);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        // New block numbering: reverse post-order from the entry (true successors first).
        let mut order = Vec::new();
        let mut visited = vec![false; n];
        let mut dfs: Vec<(usize, usize)> = vec![(0, 0)];
        visited[0] = true;
        while let Some(&mut (b, ref mut k)) = dfs.last_mut() {
            let succs: Vec<usize> = match &self.blocks[b].term {
                Some((PendingTerm::Br(t), _)) => vec![t.0 as usize],
                Some((PendingTerm::CondBr(_, t, f), _)) => vec![f.0 as usize, t.0 as usize],
                _ => vec![],
            };
            if *k < succs.len() {
                let s = succs[*k];
                *k += 1;
                if !visited[s] {
                    visited[s] = true;
                    dfs.push((s, 0));
                }
            } else {
                order.push(b);
                dfs.pop();
            }
        }
        order.reverse();
        let mut bmap = vec![None; n];
        for (k, b) in order.iter().enumerate() {
            bmap[*b] = Some(BlockId(k as u32));
        }
        let live_params: Vec<Vec<ValueId>> = (0..n)
            .map(|b| {
                self.blocks[b]
                    .params
                    .iter()
                    .copied()
                    .filter(|p| b == 0 || !repl.contains_key(p))
                    .collect()
            })
            .collect();
        let mut out_blocks = Vec::new();
        for &b in &order {
            let bb = std::mem::take(&mut self.blocks[b]);
            let Some((term, span)) = bb.term else {
                return Err(format!("internal error: block bb{b} has no terminator"));
            };
            let args_for = |target: BlockId, idx: u8| -> Result<Vec<ValueId>, String> {
                live_params[target.0 as usize]
                    .iter()
                    .map(|p| {
                        self.phi_in
                            .get(p)
                            .and_then(|ins| {
                                ins.iter().find(|(e, _)| *e == (BlockId(b as u32), idx))
                            })
                            .map(|(_, v)| resolve(&repl, *v))
                            .ok_or_else(|| format!("internal error: missing phi operand for {p}"))
                    })
                    .collect()
            };
            let nb = |t: BlockId| bmap[t.0 as usize].unwrap_or(BlockId(0));
            let term = match term {
                PendingTerm::Br(t) => Terminator::Br {
                    target: nb(t),
                    args: args_for(t, 0)?,
                },
                PendingTerm::CondBr(c, t, f) => Terminator::CondBr {
                    cond: resolve(&repl, c),
                    t: nb(t),
                    t_args: args_for(t, 0)?,
                    f: nb(f),
                    f_args: args_for(f, 1)?,
                },
                PendingTerm::Return(v, toks) => Terminator::Return {
                    value: v.map(|v| resolve(&repl, v)),
                    tokens: toks.iter().map(|t| resolve(&repl, *t)).collect(),
                },
            };
            let mut insts = bb.insts;
            for i in &mut insts {
                for o in i.operands_mut() {
                    *o = resolve(&repl, *o);
                }
            }
            out_blocks.push(Block {
                params: live_params[b].clone(),
                insts,
                term,
                term_span: span,
            });
        }
        // Renumber values in order of definition.
        let mut remap: BTreeMap<ValueId, ValueId> = BTreeMap::new();
        let mut types = Vec::new();
        let mut names = Vec::new();
        let mut def = |v: ValueId, remap: &mut BTreeMap<ValueId, ValueId>| {
            remap.insert(v, ValueId(types.len() as u32));
            types.push(self.value_types[v.0 as usize]);
            names.push(self.value_names[v.0 as usize].clone());
        };
        for b in &out_blocks {
            for p in &b.params {
                def(*p, &mut remap);
            }
            for i in &b.insts {
                for r in &i.results {
                    def(*r, &mut remap);
                }
            }
        }
        let map = |v: &mut ValueId, remap: &BTreeMap<ValueId, ValueId>| -> Result<(), String> {
            *v = *remap
                .get(v)
                .ok_or_else(|| format!("internal error: use of undefined value {v}"))?;
            Ok(())
        };
        for b in &mut out_blocks {
            for p in &mut b.params {
                map(p, &remap)?;
            }
            for i in &mut b.insts {
                for r in &mut i.results {
                    map(r, &remap)?;
                }
                for o in i.operands_mut() {
                    map(o, &remap)?;
                }
            }
            for o in b.term.operands_mut() {
                map(o, &remap)?;
            }
        }
        // Parameters replaced by trivial-phi removal map to their replacement's new id.
        let replaced: Vec<(ValueId, ValueId)> = repl
            .keys()
            .filter_map(|k| remap.get(&resolve(&repl, *k)).map(|n| (*k, *n)))
            .collect();
        for (k, nv) in replaced {
            remap.entry(k).or_insert(nv);
        }
        Ok(Finished {
            blocks: out_blocks,
            value_types: types,
            value_names: names,
            remap,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loop_variable_gets_one_block_parameter_and_trivial_phis_vanish() {
        // bb0: x = 1; br h.  h: cond_br x, body, exit.  body: (no write) br h.
        let mut b = FnBuilder::new();
        let x = b.new_var("x", Type::Int(32));
        let y = b.new_var("y", Type::Int(32));
        let one = b.inst(
            InstKind::Const { value: 1 },
            &[Type::Int(32)],
            Span::default(),
        )[0];
        b.write_var(x, one);
        b.write_var(y, one);
        let h = b.new_block();
        b.br(h, Span::default());
        b.switch_to(h);
        let xv = b.read_var(x);
        let c = b.inst(
            InstKind::Cast {
                op: crate::c::ir::CastOp::TruncI,
                value: xv,
            },
            &[Type::Int(1)],
            Span::default(),
        )[0];
        let body = b.new_block();
        let exit = b.new_block();
        b.cond_br(c, body, exit, Span::default());
        b.seal(body);
        b.switch_to(body);
        let yv = b.read_var(y);
        let y2 = b.inst(
            InstKind::Binary {
                op: crate::c::ir::BinaryOp::AddI,
                lhs: yv,
                rhs: one,
            },
            &[Type::Int(32)],
            Span::default(),
        )[0];
        b.write_var(y, y2);
        b.br(h, Span::default());
        b.seal(h);
        b.seal(exit);
        b.switch_to(exit);
        let yr = b.read_var(y);
        b.ret(Some(yr), vec![], Span::default());
        let fin = b.finish().expect("finish");
        // x is never redefined in the loop: its header phi is trivial and removed; y keeps one.
        assert_eq!(fin.blocks[1].params.len(), 1);
        assert_eq!(fin.blocks.len(), 4);
    }
}
