//! From the syntax tree of a Dynamatic file to the simulator's graph.
//!
//! Each of Dynamatic's components becomes the node that behaves as its RTL does
//! (`docs/semantics.md` "Dynamatic's components"), named by its `handshake.name`, in the
//! basic block its `handshake.bb` gives: `buffer` a [`Op::DynBuffer`], `control_merge` a
//! [`Op::DynControlMerge`], `mux`, `merge`, `fork`, `cond_br` and the arithmetic the nodes of
//! the same behaviour, `end` the return. A unit of latency `L > 0` is its combinational node
//! followed by a [`Op::DynPipeline`] of `L` stages named `<name>_pipe`. What the engine does not
//! simulate yet (memory interfaces, `select`, research-branch ops, extra signals) is refused
//! with the op's position.

use std::collections::HashMap;

use handscope_sim::{
    ArgType, ArithOp, ChannelId, DynBufferKind, FuncResult, Function, Module, NameHint, NodeId, Op,
    Type,
};

use super::ast::LsqMode;
use super::ast::{
    BufferType, ConstValue, DynFunc, DynModule, DynOp, DynType, DynValue, MemOperand, OpParams,
    Predicate,
};
use super::kinds::DynOpKind;
use super::lsq::{LsqAccess, LsqDepths, lsq_config};
use super::timing::DynTiming;
use crate::mlir::diag::ErrExt;
use crate::mlir::{ParseError, Span};

/// The graph of every function of `m` (read from `source`, named `file` in messages), with
/// multi-cycle units' latencies from `timing` where the file does not give them.
// The error carries the whole source for rendering; it is returned once per file.
#[allow(clippy::result_large_err)]
pub fn lower(
    m: &DynModule,
    source: &str,
    file: &str,
    timing: &DynTiming,
) -> Result<Module, ParseError> {
    lower_with_names(m, source, file, timing, &LsqDepths::new()).map(|(module, _)| module)
}

/// [`lower`], the load-store queues named in `depths` given those queue depths.
#[allow(clippy::result_large_err)]
pub fn lower_with_depths(
    m: &DynModule,
    source: &str,
    file: &str,
    timing: &DynTiming,
    depths: &LsqDepths,
) -> Result<Module, ParseError> {
    lower_with_names(m, source, file, timing, depths).map(|(module, _)| module)
}

/// How the names of a lowered function relate to its file: which SSA value each channel
/// carries and which op each node was made from. The writer of Dynamatic's dialect
/// (`super::edit`) uses it to put graph changes back into the file's text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceNames {
    /// Channel name → the SSA value it carries (name without `%`, result number); the
    /// channel inside a multi-cycle unit carries none.
    pub values: HashMap<String, (String, u32)>,
    /// Node ID → the index in [`DynFunc::ops`] of the op it was made from (a unit's
    /// combinational node and its `<name>_pipe` both map to the unit).
    pub ops: HashMap<String, usize>,
}

/// [`lower_with_depths`], with each function's [`SourceNames`] (in function order).
#[allow(clippy::result_large_err)]
pub fn lower_with_names(
    m: &DynModule,
    source: &str,
    file: &str,
    timing: &DynTiming,
    depths: &LsqDepths,
) -> Result<(Module, Vec<SourceNames>), ParseError> {
    // Every depth given must name a queue of the file.
    let queues: Vec<&str> = m
        .funcs
        .iter()
        .flat_map(|f| &f.ops)
        .filter(|o| o.kind == DynOpKind::Lsq)
        .filter_map(|o| o.name.as_deref())
        .collect();
    if let Some(name) = depths.keys().find(|n| !queues.contains(&n.as_str())) {
        // The flag is not in the file: point at the function's first character.
        let at = m
            .funcs
            .first()
            .map_or(Span::new(0, 0), |f| Span::new(f.span.start, f.span.start));
        return Err(ParseError::new(
            source,
            file,
            at,
            format!(
                "`--lsq-depth {name}=...` names no load-store queue of this file (it has {})",
                if queues.is_empty() {
                    "none".to_string()
                } else {
                    queues
                        .iter()
                        .map(|q| format!("`{q}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            ),
        ));
    }
    let mut functions = Vec::new();
    let mut names = Vec::new();
    for f in &m.funcs {
        let mut l = Lowering {
            source,
            file,
            timing,
            depths,
            f: Function::new(f.name.clone()),
            values: HashMap::new(),
            op_nodes: Vec::new(),
        };
        l.func(f).map_err(|e| *e)?;
        let mut n = SourceNames::default();
        for ((name, k), &c) in &l.values {
            n.values
                .insert(l.f.channels[c].name.clone(), (name.clone(), *k));
        }
        for &(node, op) in &l.op_nodes {
            n.ops.insert(l.f.nodes[node].id.clone(), op);
        }
        functions.push(l.f);
        names.push(n);
    }
    Ok((Module { functions }, names))
}

struct Lowering<'a> {
    source: &'a str,
    file: &'a str,
    timing: &'a DynTiming,
    depths: &'a LsqDepths,
    f: Function,
    /// SSA value (name, result number) → the channel that carries it.
    values: HashMap<(String, u32), ChannelId>,
    /// Each node made for an op, with the op's index in the function body.
    op_nodes: Vec<(NodeId, usize)>,
}

/// A node made for an op, waiting for its operands (in the node's port order).
struct Pending {
    operands: Vec<DynValue>,
    node: NodeId,
    /// The op and its mnemonic, for errors.
    span: Span,
    mnemonic: String,
}

/// What produces each value: the op's kind and the value's result number among the op's
/// results.
type Producers<'o> = HashMap<(String, u32), (&'o DynOpKind, usize)>;

impl Lowering<'_> {
    fn err(&self, span: Span, msg: impl Into<String>) -> Box<ParseError> {
        Box::new(ParseError::new(self.source, self.file, span, msg))
    }

    fn func(&mut self, f: &DynFunc) -> Result<(), Box<ParseError>> {
        for a in &f.args {
            let ty = match &a.ty {
                DynType::MemRef(m) => ArgType::MemRef(m.clone()),
                t => ArgType::Channel(self.data_type(t, a.span)?),
            };
            // Dynamatic's testbench offers `start` and the memories' start controls from the
            // first cycle, the data arguments (one register each) from the next.
            let data = matches!(a.ty, DynType::Channel { .. });
            if let Some(c) = self.f.add_arg(a.name.clone(), ty) {
                self.values.insert((a.ssa.clone(), 0), c);
            }
            if let Some(arg) = self.f.args.last_mut() {
                if data {
                    arg.offered_from = 1;
                } else if a.ty.is_control() {
                    arg.one_token_by_default = true;
                }
            }
        }
        for r in &f.results {
            let ty = self.data_type(&r.ty, r.span)?;
            self.f.results.push(FuncResult {
                name: r.name.clone(),
                ty,
            });
        }
        // Nodes and their outputs first (operands may name values defined further down:
        // loops), then every node's inputs.
        let mut producers: Producers = HashMap::new();
        for op in &f.ops {
            let mut k = 0;
            for g in &op.results {
                for i in 0..g.count {
                    producers.insert((g.name.clone(), i), (&op.kind, k));
                    k += 1;
                }
            }
        }
        let mut pending = Vec::new();
        for (i, op) in f.ops.iter().enumerate() {
            let before = self.f.nodes.len();
            pending.push(self.node(op, f, &producers)?);
            let made: Vec<NodeId> = self.f.nodes.keys().skip(before).collect();
            self.op_nodes.extend(made.into_iter().map(|n| (n, i)));
        }
        for p in pending {
            let mut ins = Vec::with_capacity(p.operands.len());
            for v in &p.operands {
                let c = self
                    .values
                    .get(&(v.name.clone(), v.index))
                    .copied()
                    .ok_or_else(|| self.err(v.span, format!("`%{}` is not defined", v.name)))?;
                ins.push(c);
            }
            // The types as the values are defined must fit the component (the printed
            // operand types are only checked against them by the reader).
            let in_t: Vec<Type> = ins.iter().map(|&c| self.f.channels[c].ty.clone()).collect();
            let node = &self.f.nodes[p.node];
            let out_t: Vec<Type> = node
                .outputs
                .iter()
                .map(|&c| self.f.channels[c].ty.clone())
                .collect();
            let results = if node.op == Op::Return {
                self.f.results.len()
            } else {
                0
            };
            if let Some(v) =
                handscope_sim::spec::check_node(&node.op, &in_t, &out_t, results).first()
            {
                return Err(self.err(p.span, format!("`{}`: {}", p.mnemonic, v.message)));
            }
            // `end`'s operands are the function's results: the signature must say their types.
            if node.op == Op::Return {
                for (k, (t, r)) in in_t.iter().zip(&self.f.results).enumerate() {
                    if *t != r.ty {
                        return Err(self.err(
                            p.operands[k].span,
                            format!(
                                "`end` gives result `{}` a value of type {t}, but the function \
                                 declares {}",
                                r.name, r.ty
                            ),
                        ));
                    }
                }
            }
            self.f.set_inputs(p.node, ins);
        }
        self.f
            .assign_ids()
            .map_err(|e| self.err(f.span, format!("two components share the name `{}`", e.id)))?;
        Ok(())
    }

    /// The simulator's type of a channel or control type.
    fn data_type(&self, t: &DynType, at: Span) -> Result<Type, Box<ParseError>> {
        if t.has_extra_signals() {
            return Err(self
                .err(at, "a channel with extra signals (speculation or tagging)")
                .with_help(
                    "Handscope simulates Dynamatic's mainline components; circuits that carry \
                     extra signals need the speculation or out-of-order semantics, which it does \
                     not have yet",
                ));
        }
        match t {
            DynType::Channel { data, .. } => Ok(data.clone()),
            DynType::Control { .. } => Ok(Type::None),
            DynType::MemRef(_) => Err(self.err(at, "a memref where a channel is expected")),
        }
    }

    /// The node of `op` (and its latency stages), its outputs registered as the op's result
    /// values.
    fn node(
        &mut self,
        op: &DynOp,
        f: &DynFunc,
        producers: &Producers<'_>,
    ) -> Result<Pending, Box<ParseError>> {
        let mut outs = Vec::with_capacity(op.out_types.len());
        for t in &op.out_types {
            outs.push(self.data_type(t, op.span)?);
        }
        let mut operands = op.operands.clone();
        for t in &op.in_types {
            self.data_type(t, op.span)
                .map(|_| ())
                .or_else(|e| match t {
                    DynType::MemRef(_) => Ok(()),
                    _ => Err(e),
                })?;
        }
        let not_yet = |what: &str| {
            self.err(
                op.name_span,
                format!("`{}`: {what} is not simulated yet", op.mnemonic),
            )
            .with_help(
                "Handscope reads the whole circuit (`handscope check`); this component's \
                     semantics are still being built (issue #31)",
            )
        };
        let sim_op = match &op.kind {
            DynOpKind::Fork => Op::Fork,
            DynOpKind::LazyFork => Op::LazyFork,
            DynOpKind::Merge => Op::Merge,
            DynOpKind::Mux => Op::Mux,
            DynOpKind::ControlMerge => Op::DynControlMerge,
            DynOpKind::Br => Op::Br,
            DynOpKind::CondBr => Op::CondBr,
            DynOpKind::Sink => Op::Sink,
            DynOpKind::Source => Op::Source,
            DynOpKind::Join => Op::Join,
            DynOpKind::End => Op::Return,
            DynOpKind::Buffer => self.buffer(op)?,
            DynOpKind::Constant => match op.params {
                OpParams::Constant(c) => Op::Constant {
                    value: match c {
                        ConstValue::Int { bits, .. } => bits,
                        ConstValue::Bool(b) => u64::from(b),
                        ConstValue::Float { bits, .. } => bits,
                    },
                },
                _ => return Err(self.err(op.span, "a constant without a value")),
            },
            DynOpKind::Select => Op::DynSelect,
            DynOpKind::Load | DynOpKind::Store => {
                if op.kind == DynOpKind::Load {
                    Op::DynLoad
                } else {
                    Op::DynStore
                }
            }
            DynOpKind::MemController => {
                let (o, mc) = self.mem_controller(op, f, producers)?;
                operands = o;
                // `memEnd`, which the printed type leaves out.
                outs.push(Type::None);
                mc
            }
            DynOpKind::Lsq => {
                let (o, lsq) = self.lsq(op, f)?;
                operands = o;
                // A master's `memEnd`, when the printed types leave it out.
                if let Op::DynLsq { shape, memref, .. } = &lsq
                    && memref.is_some()
                    && outs.len() == shape.load_ports() as usize
                {
                    outs.push(Type::None);
                }
                lsq
            }
            DynOpKind::AbsI => return Err(not_yet("`absi`")),
            DynOpKind::Init | DynOpKind::Blocker => {
                return Err(not_yet("a research-branch component"));
            }
            DynOpKind::Unsupported(m) => {
                return Err(self
                    .err(
                        op.name_span,
                        format!("`{m}` is not one of Dynamatic's mainline components"),
                    )
                    .with_help(
                        "it comes from one of Dynamatic's research branches (speculation, \
                         out-of-order execution, LSQ replacement); Handscope simulates the \
                         mainline components",
                    ));
            }
            k => Op::Arith(self.arith(op, k)?),
        };
        let hint = match &op.name {
            Some(n) => NameHint::Name(n.clone()),
            None => NameHint::Counter,
        };
        let block = op.bb.map(|b| format!("bb{b}"));
        let latency = match &sim_op {
            Op::Arith(_) => self.latency(op, &outs)?,
            _ => 0,
        };
        let node = self.f.add_node(sim_op, outs.clone());
        self.f.nodes[node].name_hint = hint;
        self.f.nodes[node].block = block.clone();
        let mut produced: Vec<ChannelId> = self.f.nodes[node].outputs.clone();
        if latency > 0 {
            let pipe = self
                .f
                .add_node(Op::DynPipeline { latency }, vec![outs[0].clone()]);
            if let Some(n) = &op.name {
                self.f.nodes[pipe].name_hint = NameHint::Name(format!("{n}_pipe"));
            }
            self.f.nodes[pipe].block = block;
            self.f.set_inputs(pipe, vec![produced[0]]);
            produced = self.f.nodes[pipe].outputs.clone();
        }
        let mut k = 0;
        for group in &op.results {
            for i in 0..group.count {
                let Some(&c) = produced.get(k) else {
                    return Err(self.err(
                        group.span,
                        format!("`{}` defines more results than its type lists", op.mnemonic),
                    ));
                };
                self.values.insert((group.name.clone(), i), c);
                k += 1;
            }
        }
        Ok(Pending {
            operands,
            node,
            span: op.span,
            mnemonic: op.mnemonic.clone(),
        })
    }

    /// A memory controller: its operands in the simulator's port order (`memStart`, the
    /// block controls, the load addresses, each store's address and data, `ctrlEnd`) and its
    /// op. Which printed operand is which follows from what produces it: a `load`'s address,
    /// a `store`'s address or data, else a block's store count.
    fn mem_controller(
        &self,
        op: &DynOp,
        f: &DynFunc,
        producers: &Producers<'_>,
    ) -> Result<(Vec<DynValue>, Op), Box<ParseError>> {
        let Some(mem) = &op.memref else {
            return Err(self.err(op.span, "a memory controller without its memref"));
        };
        let memref_arg = self.memref_arg(f, mem)?;
        let n = op.operands.len();
        if n < 2 {
            return Err(self.err(
                op.span,
                "a memory controller needs its start and end controls",
            ));
        }
        let (start, end) = (op.operands[0].clone(), op.operands[n - 1].clone());
        // What an operand comes from, through any buffers on the way (a buffer between a
        // port and the controller, as `tune` may write, does not change what the port is).
        let origin = |v: &DynValue| -> Option<(&DynOpKind, usize, (String, u32))> {
            let mut key = (v.name.clone(), v.index);
            for _ in 0..=f.ops.len() {
                let &(kind, k) = producers.get(&key)?;
                if *kind != DynOpKind::Buffer {
                    return Some((kind, k, key));
                }
                let buffer = f
                    .ops
                    .iter()
                    .find(|o| result_value(o, 0) == Some(key.clone()))?;
                let input = buffer.operands.first()?;
                key = (input.name.clone(), input.index);
            }
            None
        };
        let (mut ctrl, mut lds, mut sts) = (Vec::new(), Vec::new(), Vec::new());
        let mut lsq_st: Vec<(DynValue, (String, u32))> = Vec::new();
        let mut st_data: HashMap<(String, u32), DynValue> = HashMap::new();
        for v in &op.operands[1..n - 1] {
            match origin(v) {
                Some((DynOpKind::Load, 0, _)) => lds.push(v.clone()),
                Some((DynOpKind::Store, 0, key)) => sts.push((v.clone(), key)),
                Some((DynOpKind::Store, _, key)) => {
                    st_data.insert(key, v.clone());
                }
                // A slave queue's requests: its read address, then its write's address and
                // data (its last three results).
                Some((DynOpKind::Lsq, k, key)) => {
                    let results = f
                        .ops
                        .iter()
                        .find(|o| o.results.iter().any(|g| g.name == key.0))
                        .map_or(0, |o| o.results.iter().map(|g| g.count as usize).sum());
                    match (k + 3).checked_sub(results) {
                        Some(0) => lds.push(v.clone()),
                        Some(1) => lsq_st.push((v.clone(), key)),
                        Some(2) => {
                            st_data.insert(key, v.clone());
                        }
                        _ => {
                            return Err(self.err(
                                v.span,
                                "a load-store queue's load data given to a memory controller",
                            ));
                        }
                    }
                }
                _ => ctrl.push(v.clone()),
            }
        }
        let mut ordered = vec![start];
        ordered.extend(ctrl.iter().cloned());
        ordered.extend(lds.iter().cloned());
        let n_own = sts.len();
        sts.extend(lsq_st);
        for (k, (a, key)) in sts.iter().enumerate() {
            // The data result of the store whose address `a` is (a queue's write data is the
            // result after its write address).
            let data = if k < n_own {
                f.ops
                    .iter()
                    .find(|o| {
                        o.kind == DynOpKind::Store && result_value(o, 0).as_ref() == Some(key)
                    })
                    .and_then(|o| result_value(o, 1))
            } else {
                Some((key.0.clone(), key.1 + 1))
            }
            .and_then(|key| st_data.get(&key).cloned());
            let Some(d) = data else {
                return Err(self.err(
                    a.span,
                    "a store address whose data does not go to the same memory controller",
                ));
            };
            ordered.push(a.clone());
            ordered.push(d);
        }
        ordered.push(end);
        if ordered.len() != n {
            return Err(self.err(
                op.span,
                "a memory controller whose store data does not pair with its store addresses",
            ));
        }
        Ok((
            ordered,
            Op::DynMemController {
                ctrl: ctrl.len() as u32,
                ld: lds.len() as u32,
                st: sts.len() as u32,
                memref_arg,
                memref: mem.ty.clone(),
            },
        ))
    }

    /// A load-store queue: its operands in the simulator's port order (master: `memStart`,
    /// the group controls, the load addresses, each store's address and data, `ctrlEnd`;
    /// slave: the same without `memStart` and `ctrlEnd`, then the controller's load data)
    /// and its op, its groups from the operands and its depths from `--lsq-depth`, the file's
    /// `handshake.lsqDepth` or Dynamatic's default.
    fn lsq(&self, op: &DynOp, f: &DynFunc) -> Result<(Vec<DynValue>, Op), Box<ParseError>> {
        let mut config = lsq_config(f, op).map_err(|e| {
            let at = e.at.as_ref().map_or(op.span, |v| v.span);
            self.err(at, format!("load-store queue: {}", e.message))
        })?;
        if let Some(&(l, s)) = op.name.as_ref().and_then(|n| self.depths.get(n)) {
            config = config.with_depths(l, s);
        }
        // A queue too shallow for a group simulates: the group is never allocated, which the
        // deadlock report names.
        for (what, depth) in [("load", config.load_depth), ("store", config.store_depth)] {
            if depth == 0 || depth > handscope_sim::limits::MAX_LSQ_DEPTH {
                return Err(self.err(
                    op.span,
                    format!(
                        "the {what} queue needs between 1 and {} entries (found {depth})",
                        handscope_sim::limits::MAX_LSQ_DEPTH
                    ),
                ));
            }
        }
        let master = config.mode == LsqMode::Master;
        let ops = &op.operands;
        let mut at = usize::from(master);
        let (mut ctrl, mut lds, mut sts) = (Vec::new(), Vec::new(), Vec::new());
        for g in &config.groups {
            ctrl.push(ops[at].clone());
            at += 1;
            for a in g {
                match a {
                    LsqAccess::Load => {
                        lds.push(ops[at].clone());
                        at += 1;
                    }
                    LsqAccess::Store => {
                        sts.push(ops[at].clone());
                        sts.push(ops[at + 1].clone());
                        at += 2;
                    }
                }
            }
        }
        let mut ordered = Vec::with_capacity(ops.len());
        if master {
            ordered.push(ops[0].clone());
        }
        ordered.extend(ctrl);
        ordered.extend(lds);
        ordered.extend(sts);
        ordered.extend(ops[at..].iter().cloned());
        let (memref_arg, memref) = match (&op.memref, master) {
            (Some(mem), true) => (Some(self.memref_arg(f, mem)?), Some(mem.ty.clone())),
            (None, true) => {
                return Err(self.err(op.span, "a master load-store queue without its memref"));
            }
            _ => (None, None),
        };
        Ok((
            ordered,
            Op::DynLsq {
                shape: config.shape(),
                memref_arg,
                memref,
            },
        ))
    }

    /// The argument a memory interface's memref names; its declared type must be the
    /// argument's.
    fn memref_arg(&self, f: &DynFunc, mem: &MemOperand) -> Result<usize, Box<ParseError>> {
        let Some(arg) = f.args.iter().position(|a| a.ssa == mem.value.name) else {
            return Err(self.err(
                mem.value.span,
                format!("`%{}` is not a memref argument", mem.value.name),
            ));
        };
        match &f.args[arg].ty {
            DynType::MemRef(m) if *m == mem.ty => Ok(arg),
            DynType::MemRef(m) => Err(self.err(
                mem.value.span,
                format!(
                    "`%{}` is a {m}, but the memory interface declares it as {}",
                    mem.value.name, mem.ty
                ),
            )),
            _ => Err(self.err(
                mem.value.span,
                format!("`%{}` is not a memref argument", mem.value.name),
            )),
        }
    }

    fn buffer(&self, op: &DynOp) -> Result<Op, Box<ParseError>> {
        let OpParams::Buffer(p) = &op.params else {
            return Err(self.err(op.span, "a buffer without its kind"));
        };
        let kind = match p.kind {
            BufferType::OneSlotBreakDv => DynBufferKind::OneSlotBreakDv,
            BufferType::OneSlotBreakR => DynBufferKind::OneSlotBreakR,
            BufferType::FifoBreakNone => DynBufferKind::FifoBreakNone,
            BufferType::FifoBreakDv => DynBufferKind::FifoBreakDv,
            BufferType::OneSlotBreakDvr => {
                if p.slots != 1 {
                    return Err(self.err(
                        op.span,
                        format!("ONE_SLOT_BREAK_DVR holds one slot, not {}", p.slots),
                    ));
                }
                DynBufferKind::OneSlotBreakDvr
            }
            // N stages that advance together: the circuit of a unit's pipeline.
            BufferType::ShiftRegBreakDv => {
                self.check_slots(op, p.slots)?;
                return Ok(Op::DynPipeline { latency: p.slots });
            }
            // One token at a time, offered `dvLatency` cycles after it was taken (the RTL
            // has no slot count: it holds one token whatever `numSlots` says).
            BufferType::CounterBuffer => {
                let latency = match p.dv_latency {
                    Some(l) if l > 0 => l,
                    _ => {
                        return Err(self.err(
                            op.span,
                            "a COUNTER_BUFFER needs `dvLatency` of at least 1 (the cycles it \
                             holds each token)",
                        ));
                    }
                };
                if latency > handscope_sim::limits::MAX_LATENCY {
                    return Err(self.err(
                        op.span,
                        format!(
                            "a COUNTER_BUFFER's `dvLatency` is at most {} (found {latency})",
                            handscope_sim::limits::MAX_LATENCY
                        ),
                    ));
                }
                return Ok(Op::DynCounterBuffer { latency });
            }
        };
        // A one-slot kind with more slots is Dynamatic's FIFO of the same cuts.
        let kind = match (kind, p.slots) {
            (DynBufferKind::OneSlotBreakDv, n) if n > 1 => DynBufferKind::FifoBreakDv,
            (DynBufferKind::OneSlotBreakR, n) if n > 1 => DynBufferKind::FifoBreakNone,
            (k, _) => k,
        };
        self.check_slots(op, p.slots)?;
        Ok(Op::DynBuffer {
            kind,
            slots: p.slots,
        })
    }

    fn check_slots(&self, op: &DynOp, slots: u32) -> Result<(), Box<ParseError>> {
        if slots == 0 || u64::from(slots) > handscope_sim::limits::MAX_BUFFER_SLOTS {
            return Err(self.err(
                op.span,
                format!(
                    "a buffer needs between 1 and {} slots (found {})",
                    handscope_sim::limits::MAX_BUFFER_SLOTS,
                    slots
                ),
            ));
        }
        Ok(())
    }

    fn arith(&self, op: &DynOp, k: &DynOpKind) -> Result<ArithOp, Box<ParseError>> {
        use DynOpKind as K;
        let pred = || match op.params {
            OpParams::Compare(p) => Some(p),
            _ => None,
        };
        Ok(match k {
            K::AddF => ArithOp::Addf,
            K::AddI => ArithOp::Addi,
            K::AndI => ArithOp::Andi,
            K::DivF => ArithOp::Divf,
            K::DivSI => ArithOp::Divsi,
            K::DivUI => ArithOp::Divui,
            K::RemSI => ArithOp::Remsi,
            K::MaxSI => ArithOp::Maxsi,
            K::MaxUI => ArithOp::Maxui,
            K::MinSI => ArithOp::Minsi,
            K::MinUI => ArithOp::Minui,
            K::MaximumF => ArithOp::Maximumf,
            K::MinimumF => ArithOp::Minimumf,
            K::MulF => ArithOp::Mulf,
            K::MulI => ArithOp::Muli,
            K::OrI => ArithOp::Ori,
            K::ShLI => ArithOp::Shli,
            K::ShRSI => ArithOp::Shrsi,
            K::ShRUI => ArithOp::Shrui,
            K::SubF => ArithOp::Subf,
            K::SubI => ArithOp::Subi,
            K::XorI => ArithOp::Xori,
            K::Not => ArithOp::Noti,
            K::NegF => ArithOp::Negf,
            K::AbsF => ArithOp::Absf,
            K::ExtSI => ArithOp::Extsi,
            K::ExtUI => ArithOp::Extui,
            K::TruncI => ArithOp::Trunci,
            K::ExtF => ArithOp::Extf,
            K::TruncF => ArithOp::Truncf,
            K::SIToFP => ArithOp::Sitofp,
            K::UIToFP => ArithOp::Uitofp,
            K::FPToSI => ArithOp::Fptosi,
            K::CmpI => match pred() {
                Some(Predicate::Int(p)) => ArithOp::Cmpi(p),
                _ => return Err(self.err(op.span, "`cmpi` without an integer predicate")),
            },
            K::CmpF => match pred() {
                Some(Predicate::Float(p)) => ArithOp::Cmpf(p),
                _ => return Err(self.err(op.span, "`cmpf` without a float predicate")),
            },
            other => {
                return Err(self.err(
                    op.name_span,
                    format!("`{}` is not an arithmetic operation", other.mnemonic()),
                ));
            }
        })
    }

    /// The pipeline depth of arithmetic `op` with result types `outs`: its `latency`
    /// attribute, else the timing table's entry for its `internal_delay`.
    fn latency(&self, op: &DynOp, outs: &[Type]) -> Result<u32, Box<ParseError>> {
        if let Some(l) = op.latency {
            return Ok(l);
        }
        // The unit's width: its widest operand or result.
        let width = op
            .in_types
            .iter()
            .filter_map(|t| t.data())
            .chain(outs)
            .map(Type::bit_width)
            .max()
            .unwrap_or(32);
        let unit = op.kind.mnemonic();
        let l = self
            .timing
            .latency(unit, width, op.internal_delay.as_deref())
            .map_err(|e| {
                self.err(op.span, e.to_string()).with_help(
                    "give the latencies of the Dynamatic that generated the file with \
                     `--timing dynamatic=PATH/components.json`",
                )
            })?;
        if l > handscope_sim::limits::MAX_LATENCY {
            return Err(self.err(
                op.span,
                format!(
                    "a latency of {l} cycles; the limit is {}",
                    handscope_sim::limits::MAX_LATENCY
                ),
            ));
        }
        Ok(l)
    }
}

/// The value that is result `k` of `op`, as (name, result number within its group).
fn result_value(op: &DynOp, k: usize) -> Option<(String, u32)> {
    let mut left = k as u32;
    for g in &op.results {
        if left < g.count {
            return Some((g.name.clone(), left));
        }
        left -= g.count;
    }
    None
}
