//! Deadlock analysis: which tokens are stuck, and the chain or cycle of waits that explains
//! why.
//!
//! The wait-for graph has one vertex per node. A node *waits for* the consumer of each of its
//! stalled outputs (`valid & !ready`), and for the producer of each input it needs that is
//! not valid (per kind: all inputs of a join-like node, the selected input or the select of a
//! `mux`, any input of a merge, the input of a fork or an empty buffer, ...). The graph is
//! explored from the producers of stalled channels and from the `return` node when results
//! are missing. Strongly connected parts are reported as wait-for cycles; other paths are
//! followed to a node that can never produce (an argument without tokens, `never`, a
//! `cond_br` that routed its tokens elsewhere, ...).

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::Write as _;

use cranelift_entity::EntityRef;
use petgraph::graph::{DiGraph, NodeIndex};
use serde::Serialize;

use crate::graph::{ChannelId, Function, NodeId};
use crate::ops::Op;
use crate::report::{Value, render_value};
use crate::spec::{WaitRule, mux_input};

/// A token that cannot move.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StuckToken {
    /// Channel name.
    pub channel: String,
    /// Stable ID of the producer.
    pub producer: String,
    /// Consumer port (`mux4.in1`).
    pub consumer: String,
    /// Value (`null` for `none`).
    pub value: Option<Value>,
    /// First cycle in which this token was on the channel.
    pub since: u64,
    /// Source location of the producer, if known.
    pub loc: Option<String>,
}

/// One edge of the wait-for graph.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WaitFor {
    /// The waiting node.
    pub from: String,
    /// The node it waits for.
    pub to: String,
    /// The channel between them.
    pub channel: String,
    /// `stalled` (an output of `from` is not accepted) or `needs` (an input is missing).
    pub kind: &'static str,
}

/// One step of a wait-for cycle or chain: a node and what it waits for.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WaitStep {
    /// The waiting node.
    pub from: String,
    /// The node it waits for.
    pub to: String,
    /// The channel between them.
    pub channel: String,
    /// `stalled` (`from` holds a token `to` does not accept) or `needs` (`from` needs a token
    /// `to` does not provide).
    pub kind: &'static str,
    /// The step in words.
    pub text: String,
    /// Why `to` will never provide the token, when that is known at this step (a `cond_br`
    /// that routed its token to its other output): the usual root cause of a deadlock.
    pub because: Option<String>,
    /// Source location of the waiting node, if known.
    pub loc: Option<String>,
}

/// A wait-for cycle or a wait chain, step by step in wait order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WaitPath {
    /// True for a wait-for cycle (the last step waits for the first node), false for a chain.
    pub cyclic: bool,
    /// The steps.
    pub steps: Vec<WaitStep>,
    /// For a chain: why its last node cannot produce (`None` when it ends on a cycle or
    /// joins an earlier chain).
    pub terminal: Option<String>,
    /// For a chain: the node where it joins a cycle or a chain explained before it (its
    /// steps are not repeated).
    pub joins: Option<String>,
}

/// The result of the analysis.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DeadlockReport {
    /// First cycle without any transfer.
    pub since_cycle: u64,
    /// Every stuck token.
    pub stuck: Vec<StuckToken>,
    /// Explored wait-for edges.
    pub waits: Vec<WaitFor>,
    /// Wait-for cycles, as node IDs in wait order.
    pub cycles: Vec<Vec<String>>,
    /// Wait chains ending at a node that cannot produce, as node IDs.
    pub chains: Vec<Vec<String>>,
    /// The cycles, then the chains, as explained steps (same order as `cycles` and `chains`).
    pub paths: Vec<WaitPath>,
    /// The causes, most likely first, each once: arguments that ran out of tokens before
    /// the other arguments (a C kernel's start token, say), then `cond_br`s that routed the
    /// awaited token elsewhere, then wait-for cycles, then anything else that cannot produce.
    pub causes: Vec<String>,
    /// Loops that simply finished (an empty loop whose `cond_br` sent its last token out):
    /// not wait-for cycles, as node IDs.
    pub finished_loops: Vec<Vec<String>>,
    /// Missing tokens per result.
    pub missing_results: BTreeMap<String, u64>,
    /// Tokens not yet consumed per argument.
    pub pending_inputs: BTreeMap<String, u64>,
    /// The explanation in words, one sentence per line.
    pub explanation: Vec<String>,
}

/// Live engine state handed to [`analyze`].
pub struct LiveView<'a> {
    /// The function.
    pub func: &'a Function,
    /// Settled valid per channel.
    pub valid: &'a [bool],
    /// Settled ready per channel.
    pub ready: &'a [bool],
    /// Settled data per channel.
    pub data: &'a [u64],
    /// Last cycle each `cond_br` output fired (-1 = never or not tracked).
    pub last_fire: &'a [i64],
    /// Data at the last fire of the operands of the comparisons that decide `cond_br`s
    /// ([`deciding_compare`]; other channels: 0).
    pub last_data: &'a [u64],
    /// Tokens given per argument index (`None`: unknown).
    pub given_args: Vec<(usize, Option<u64>)>,
    /// Invocations of the run (the most tokens any argument was given).
    pub invocations: u64,
    /// Last cycle each channel was not holding a waiting token (`!valid | ready`), -1 = never.
    pub last_break: &'a [i64],
    /// Transfers per channel.
    pub fires: &'a [u64],
    /// Tokens not yet consumed, per argument index.
    pub pending_args: Vec<(usize, u64)>,
    /// Tokens still missing, per result index.
    pub missing_results: Vec<(usize, u64)>,
    /// Register words of a node.
    pub registers: &'a dyn Fn(NodeId) -> (&'a [u64], &'a [String]),
    /// First cycle of the idle period.
    pub idle_since: u64,
}

/// The `cmpi` whose result decides `cond_br` node `n` (through forks, buffers and `br`s on
/// its condition input), if there is one.
pub fn deciding_compare(f: &Function, n: NodeId) -> Option<(NodeId, crate::ops::CmpPredicate)> {
    let node = &f.nodes[n];
    if node.op != Op::CondBr {
        return None;
    }
    let mut c = *node.inputs.first()?;
    for _ in 0..16 {
        let p = f.channels[c].producer.node;
        match &f.nodes[p].op {
            Op::Arith(crate::ops::ArithOp::Cmpi(pred)) => return Some((p, *pred)),
            Op::Fork | Op::LazyFork | Op::Buffer { .. } | Op::DynBuffer { .. } | Op::Br => {
                c = *f.nodes[p].inputs.first()?
            }
            _ => return None,
        }
    }
    None
}

/// The channels whose data at their last fire [`LiveView::last_data`] must hold: the
/// operands of every [`deciding_compare`].
pub fn watched_operands(f: &Function) -> Vec<ChannelId> {
    let mut v: Vec<ChannelId> = f
        .nodes
        .keys()
        .filter_map(|n| deciding_compare(f, n))
        .flat_map(|(c, _)| f.nodes[c].inputs.clone())
        .collect();
    v.sort();
    v.dedup();
    v
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Stalled,
    Needs,
}

impl LiveView<'_> {
    fn v(&self, c: ChannelId) -> bool {
        self.valid[c.index()]
    }

    fn stalled(&self, c: ChannelId) -> bool {
        self.valid[c.index()] && !self.ready[c.index()]
    }

    fn since(&self, c: ChannelId) -> u64 {
        (self.last_break[c.index()] + 1) as u64
    }

    fn value(&self, c: ChannelId) -> Option<Value> {
        render_value(self.data[c.index()], &self.func.channels[c].ty)
    }

    fn value_text(&self, c: ChannelId) -> String {
        let p = self.func.channels[c].producer.node;
        let port = match self.func.nodes[p].op {
            Op::Argument { .. } => self.func.nodes[p].id.clone(),
            _ => self.port_of_producer(c),
        };
        match self.value(c) {
            Some(v) => format!("{port}={v}"),
            None => format!("a token on {port}"),
        }
    }

    /// True when `n` is a `cond_br` without input tokens whose other output took the tokens
    /// that `asked` is waiting for.
    fn routed_elsewhere(&self, n: NodeId, asked: Option<ChannelId>) -> bool {
        let node = &self.func.nodes[n];
        let Some(c) = asked else { return false };
        if node.op != Op::CondBr || node.inputs.iter().all(|&i| self.v(i)) {
            return false;
        }
        let other = if c == node.outputs[0] {
            node.outputs[1]
        } else {
            node.outputs[0]
        };
        self.last_fire[other.index()] > self.last_fire[c.index()]
    }

    fn port_of_producer(&self, c: ChannelId) -> String {
        let p = self.func.channels[c].producer;
        self.func.nodes[p.node].op.output_port_name(p.port as usize)
    }

    fn consumer(&self, c: ChannelId) -> Option<NodeId> {
        self.func.channels[c].consumers.first().map(|p| p.node)
    }

    fn consumer_port(&self, c: ChannelId) -> String {
        match self.func.channels[c].consumers.first() {
            Some(&p) => self.func.consumer_name(p),
            None => "nobody".into(),
        }
    }

    fn id(&self, n: NodeId) -> &str {
        &self.func.nodes[n].id
    }

    /// The inputs node `n` needs and does not have, by its op's [`WaitRule`].
    fn needed_inputs(&self, n: NodeId) -> Vec<ChannelId> {
        let node = &self.func.nodes[n];
        let missing = |cs: &[ChannelId]| cs.iter().copied().filter(|&c| !self.v(c)).collect();
        match node.op.spec().waits_for {
            WaitRule::Nothing => Vec::new(),
            WaitRule::AllInputs => missing(&node.inputs),
            WaitRule::SelectedInput => {
                let sel = node.inputs[0];
                if !self.v(sel) {
                    return vec![sel];
                }
                let k = mux_input(self.data[sel.index()], node.inputs.len() - 1);
                match k.and_then(|k| node.inputs.get(k + 1)) {
                    Some(&c) if !self.v(c) => vec![c],
                    _ => Vec::new(),
                }
            }
            WaitRule::AnyInput => {
                if node.inputs.iter().any(|&c| self.v(c)) {
                    Vec::new()
                } else {
                    node.inputs.clone()
                }
            }
            WaitRule::MemoryEnd => {
                let ins = &node.inputs;
                let Some(&ctrl_end) = ins.last() else {
                    return Vec::new();
                };
                if !self.v(ctrl_end) {
                    return vec![ctrl_end];
                }
                let (regs, _) = (self.registers)(n);
                let pending = match node.op.spec().state.decode(regs) {
                    crate::spec::NodeState::MemoryController {
                        remaining_stores, ..
                    } => remaining_stores,
                    _ => 0,
                };
                if pending <= 0 {
                    return Vec::new();
                }
                // The half of a store request that is missing; none when no port has a token.
                let stores = node.op.array().map(|a| a.stores).unwrap_or_default();
                stores
                    .iter()
                    .filter_map(|&(a, d)| Some((*ins.get(a)?, *ins.get(d)?)))
                    .filter(|&(a, d)| self.v(a) != self.v(d))
                    .map(|(a, d)| if self.v(a) { d } else { a })
                    .collect()
            }
            WaitRule::QueueEntries => {
                let Op::DynLsq { shape, memref, .. } = &node.op else {
                    return Vec::new();
                };
                let (regs, _) = (self.registers)(n);
                let crate::spec::NodeState::Lsq(q) = node.op.spec().state.decode(regs) else {
                    return Vec::new();
                };
                let ins = &node.inputs;
                let m = usize::from(memref.is_some());
                let (g, nl) = (shape.groups.len(), shape.load_ports() as usize);
                let never_fits = (0..g).any(|k| {
                    ins.get(m + k).is_some_and(|&c| self.v(c))
                        && (shape.loads(k) > shape.load_depth as usize
                            || shape.stores(k) > shape.store_depth as usize)
                });
                if never_fits {
                    return Vec::new();
                }
                let mut need: Vec<ChannelId> = Vec::new();
                for (_, l) in q.loads_by_age() {
                    if l.addr.is_none() {
                        need.extend(ins.get(m + g + l.port as usize));
                    }
                }
                for (_, s) in q.stores_by_age() {
                    let a = m + g + nl + 2 * s.port as usize;
                    if s.addr.is_none() {
                        need.extend(ins.get(a));
                    }
                    if s.data.is_none() {
                        need.extend(ins.get(a + 1));
                    }
                }
                let (l, s) = q.occupancy();
                if need.is_empty() && m == 1 && l + s == 0 {
                    need.extend(ins.last());
                }
                need.retain(|&c| !self.v(c));
                need.sort_unstable();
                need.dedup();
                need
            }
            WaitRule::QueuedStores => {
                let Op::AddrQueue { ld, st, .. } = node.op else {
                    return Vec::new();
                };
                let (regs, _) = (self.registers)(n);
                let crate::spec::NodeState::AddrQueue {
                    entries, offered, ..
                } = node.op.spec().state.decode(regs)
                else {
                    return Vec::new();
                };
                let (ld, st) = (ld as usize, st as usize);
                let ins = &node.inputs;
                let done_of = |j: u32| ins.get(2 * ld + 3 * j as usize + 2).copied();
                let head_done = entries.first().and_then(|&(_, j)| done_of(j));
                let mut need: Vec<ChannelId> = Vec::new();
                let mut active = false;
                for i in 0..ld {
                    let (Some(&a), Some(&o)) = (ins.get(2 * i), ins.get(2 * i + 1)) else {
                        continue;
                    };
                    match (self.v(a), self.v(o)) {
                        (false, false) => {}
                        (true, true) if !offered.get(i).copied().unwrap_or(false) => {
                            active = true;
                            // Blocked by a queued store to its address: that store's done
                            // (it leaves once older ones have).
                            let addr = self.data[a.index()];
                            if let Some(&(_, j)) = entries.iter().find(|e| e.0 == addr) {
                                need.extend(done_of(j));
                                need.extend(head_done);
                            }
                        }
                        (true, true) => active = true,
                        (va, _) => {
                            active = true;
                            need.push(if va { o } else { a });
                        }
                    }
                }
                for j in 0..st {
                    let base = 2 * ld + 3 * j;
                    let (Some(&a), Some(&o)) = (ins.get(base), ins.get(base + 1)) else {
                        continue;
                    };
                    match (self.v(a), self.v(o)) {
                        (false, false) => {}
                        (true, true) => {
                            active = true;
                            need.extend(head_done);
                        }
                        (va, _) => {
                            active = true;
                            need.push(if va { o } else { a });
                        }
                    }
                }
                if !active {
                    need.extend(
                        (0..ld)
                            .flat_map(|i| [2 * i, 2 * i + 1])
                            .chain((0..st).flat_map(|j| [2 * ld + 3 * j, 2 * ld + 3 * j + 1]))
                            .filter_map(|k| ins.get(k).copied()),
                    );
                }
                need.retain(|&c| !self.v(c));
                need.sort_unstable();
                need.dedup();
                need
            }
            WaitRule::ConditionThenChosen => {
                let (regs, _) = (self.registers)(n);
                let ins = &node.inputs;
                // An antitoken waits for its input's next token: that input is needed.
                if let crate::spec::NodeState::Antitokens(at) = node.op.spec().state.decode(regs) {
                    let pending: Vec<ChannelId> = (0..2)
                        .filter(|&k| at[k])
                        .filter_map(|k| ins.get(k + 1).copied())
                        .filter(|&c| !self.v(c))
                        .collect();
                    if !pending.is_empty() {
                        return pending;
                    }
                }
                let Some(&cond) = ins.first() else {
                    return Vec::new();
                };
                if !self.v(cond) {
                    return vec![cond];
                }
                let k = if self.data[cond.index()] & 1 == 1 {
                    1
                } else {
                    2
                };
                match ins.get(k) {
                    Some(&c) if !self.v(c) => vec![c],
                    _ => Vec::new(),
                }
            }
            WaitRule::InputWhenEmpty => {
                let (regs, _) = (self.registers)(n);
                if node.op.spec().state.decode(regs).is_empty_buffer() {
                    missing(&node.inputs)
                } else {
                    Vec::new()
                }
            }
        }
    }

    /// The condition that sent `cond_br` `n`'s last token to outTrue (`went_true`) or
    /// outFalse, as `cond = (7 < 0) = false; ` when a comparison with recorded operands
    /// decides it, else `cond = false; `.
    fn deciding_value(&self, n: NodeId, went_true: bool) -> String {
        use crate::ops::CmpPredicate as P;
        let plain = format!("cond = {went_true}; ");
        let Some((cmp, pred)) = deciding_compare(self.func, n) else {
            return plain;
        };
        let ins = &self.func.nodes[cmp].inputs;
        if ins.len() != 2 || ins.iter().any(|c| self.fires[c.index()] == 0) {
            return plain;
        }
        let (sym, signed) = match pred {
            P::Eq => ("==", true),
            P::Ne => ("!=", true),
            P::Slt => ("<", true),
            P::Sle => ("<=", true),
            P::Sgt => (">", true),
            P::Sge => (">=", true),
            P::Ult => ("<", false),
            P::Ule => ("<=", false),
            P::Ugt => (">", false),
            P::Uge => (">=", false),
        };
        let val = |c: ChannelId| {
            let ty = &self.func.channels[c].ty;
            let bits = self.last_data.get(c.index()).copied().unwrap_or(0) & ty.mask();
            let w = ty.bit_width();
            if signed && (1..64).contains(&w) && bits >> (w - 1) & 1 == 1 {
                ((bits | !crate::types::width_mask(w)) as i64).to_string()
            } else {
                bits.to_string()
            }
        };
        format!(
            "cond = ({} {sym}{} {}) = {went_true}; ",
            val(ins[0]),
            if signed { "" } else { "u" },
            val(ins[1])
        )
    }

    /// True when argument node `n` gave all its tokens while the run has more invocations:
    /// the others go on waiting for its next token.
    fn ran_out_early(&self, n: NodeId) -> Option<u64> {
        let Op::Argument { index } = self.func.nodes[n].op else {
            return None;
        };
        let pending = self
            .pending_args
            .iter()
            .find(|(a, _)| *a == index)
            .map_or(0, |(_, p)| *p);
        let given = self
            .given_args
            .iter()
            .find(|(a, _)| *a == index)
            .and_then(|(_, g)| *g)?;
        (pending == 0 && given < self.invocations).then_some(given)
    }

    /// True when channel `c` comes from an eager fork (or `sync`, `unpack`) that holds its
    /// input token and already delivered this output's copy of it.
    fn delivered_by_fork(&self, c: ChannelId) -> bool {
        let p = self.func.channels[c].producer.node;
        let node = &self.func.nodes[p];
        matches!(node.op, Op::Fork | Op::Sync | Op::Unpack)
            && !self.v(c)
            && node.inputs.iter().all(|&i| self.v(i))
    }

    /// Why a node that is waited for produces nothing and waits for nobody.
    fn terminal_reason(&self, n: NodeId, asked: Option<ChannelId>) -> String {
        let node = &self.func.nodes[n];
        let id = self.id(n);
        match &node.op {
            Op::Argument { index } => {
                let pending = self
                    .pending_args
                    .iter()
                    .find(|(a, _)| a == index)
                    .map_or(0, |(_, p)| *p);
                if let Some(given) = self.ran_out_early(n) {
                    format!(
                        "argument `{id}` ran out of tokens: it was given {given}, the other arguments {} (one per invocation)",
                        self.invocations
                    )
                } else if pending == 0 {
                    format!("argument `{id}` has no more tokens")
                } else {
                    format!("argument `{id}` still has {pending} tokens but they are not accepted")
                }
            }
            Op::Never => format!("{id} never produces a token"),
            Op::Mux
                if self.v(node.inputs[0])
                    && mux_input(self.data[node.inputs[0].index()], node.inputs.len() - 1)
                        .is_none() =>
            {
                format!(
                    "{id}'s select {} names no data input: only its low {} bits count, so it takes nothing",
                    self.value_text(node.inputs[0]),
                    crate::spec::mux_select_bits(node.inputs.len() - 1)
                )
            }
            Op::CondBr => {
                let (t, f) = (node.outputs[0], node.outputs[1]);
                let other = match asked {
                    Some(c) if c == t => f,
                    _ => t,
                };
                let lf = self.last_fire[other.index()];
                if lf >= 0 {
                    format!(
                        "{id} sent its token to {} ({}last at cycle {lf}, {} token{} in total)",
                        self.port_of_producer(other),
                        self.deciding_value(n, other == t),
                        self.fires[other.index()],
                        if self.fires[other.index()] == 1 {
                            ""
                        } else {
                            "s"
                        }
                    )
                } else {
                    format!("{id} has no input token")
                }
            }
            Op::Fork | Op::Sync | Op::Unpack => match asked {
                Some(c) if !self.v(c) && node.inputs.iter().all(|&i| self.v(i)) => format!(
                    "{id} already delivered its token on {} and waits for its other outputs",
                    self.port_of_producer(c)
                ),
                _ => format!("{id} has no input token"),
            },
            Op::Buffer { .. }
            | Op::Pipeline { .. }
            | Op::DynBuffer { .. }
            | Op::DynPipeline { .. }
            | Op::DynCounterBuffer { .. } => {
                format!("{id} is empty and receives nothing")
            }
            Op::Island(_) => {
                let (regs, _) = (self.registers)(n);
                match node.op.spec().state.decode(regs) {
                    crate::spec::NodeState::Island(st)
                        if st.phase == crate::spec::IslandPhase::Running =>
                    {
                        if st.walked {
                            format!(
                                "{id} is running its schedule ({} iterations): its results come in {} cycles",
                                st.iterations,
                                st.sched.saturating_sub(st.elapsed)
                            )
                        } else {
                            format!(
                                "{id} is running its loop ({} iterations so far)",
                                st.iterations
                            )
                        }
                    }
                    _ => format!("{id} has no input tokens"),
                }
            }
            Op::DynMemController { .. } => {
                let (regs, _) = (self.registers)(n);
                match node.op.spec().state.decode(regs) {
                    crate::spec::NodeState::MemoryController {
                        remaining_stores, ..
                    } if remaining_stores > 0 => format!(
                        "{id}'s block controls announced {remaining_stores} store{} more than its store ports delivered, and none is on its way: memEnd waits for {}",
                        if remaining_stores == 1 { "" } else { "s" },
                        if remaining_stores == 1 { "it" } else { "them" }
                    ),
                    _ => format!("{id} produces nothing"),
                }
            }
            Op::DynLsq { shape, .. } => {
                let (regs, _) = (self.registers)(n);
                match node.op.spec().state.decode(regs) {
                    crate::spec::NodeState::Lsq(q) => lsq_reason(id, shape, &q),
                    _ => format!("{id} produces nothing"),
                }
            }
            Op::AddrQueue { ld, depth, .. } => {
                let (regs, _) = (self.registers)(n);
                let crate::spec::NodeState::AddrQueue {
                    entries, offered, ..
                } = node.op.spec().state.decode(regs)
                else {
                    return format!("{id} produces nothing");
                };
                // A load port whose address a queued store holds.
                let blocked = (0..*ld as usize).find_map(|i| {
                    let (&a, &o) = (node.inputs.get(2 * i)?, node.inputs.get(2 * i + 1)?);
                    if !(self.v(a) && self.v(o)) || offered.get(i).copied().unwrap_or(false) {
                        return None;
                    }
                    let addr = self.data[a.index()];
                    let k = entries.iter().position(|e| e.0 == addr)?;
                    Some((i, addr, k, entries[k].1))
                });
                if let Some((i, addr, k, j)) = blocked {
                    format!(
                        "{id}: load port {i} waits: queued store {k} (store port {j}) is to the same address {addr} and has not been written"
                    )
                } else if entries.len() >= *depth as usize {
                    format!(
                        "{id} is full ({depth} store addresses queued): a store can only enter when the oldest (store port {}) is written",
                        entries.first().map_or(0, |e| e.1)
                    )
                } else {
                    format!("{id} has no address to pass on")
                }
            }
            Op::Return
            | Op::LazyFork
            | Op::Merge
            | Op::Mux
            | Op::ControlMerge
            | Op::DynControlMerge
            | Op::DynSelect
            | Op::DynLoad
            | Op::DynStore
            | Op::Br
            | Op::Join
            | Op::Pack
            | Op::Constant { .. }
            | Op::Source
            | Op::Sink
            | Op::Load
            | Op::Store
            | Op::Memory { .. }
            | Op::ExtMemory { .. }
            | Op::Instance { .. }
            | Op::Arith(_) => format!("{id} produces nothing"),
        }
    }
}

/// Builds the wait-for graph from the live state and explains the deadlock.
pub fn analyze(v: &LiveView<'_>) -> DeadlockReport {
    let f = v.func;
    let mut stuck = Vec::new();
    let mut seeds = Vec::new();
    for (cid, ch) in f.channels.iter() {
        if v.valid[cid.index()] {
            let prod = ch.producer.node;
            stuck.push(StuckToken {
                channel: ch.name.clone(),
                producer: f.nodes[prod].id.clone(),
                consumer: v.consumer_port(cid),
                value: v.value(cid),
                since: v.since(cid),
                loc: f.nodes[prod].loc.as_ref().map(|l| l.to_string()),
            });
            if v.stalled(cid) {
                seeds.push(prod);
            }
        }
    }
    let mut missing_results = BTreeMap::new();
    for &(i, m) in &v.missing_results {
        if m > 0 {
            missing_results.insert(f.results[i].name.clone(), m);
        }
    }
    let mut pending_inputs = BTreeMap::new();
    for &(i, p) in &v.pending_args {
        if p > 0 {
            pending_inputs.insert(f.args[i].name.clone(), p);
        }
    }
    let ret = f.return_node();
    if let (false, Some(r)) = (missing_results.is_empty(), ret) {
        seeds.insert(0, r);
    }

    // Explore the wait-for graph.
    let mut g: DiGraph<NodeId, (ChannelId, u8)> = DiGraph::new();
    let mut index: BTreeMap<NodeId, NodeIndex> = BTreeMap::new();
    let mut queue: VecDeque<NodeId> = VecDeque::new();
    let mut vertex = |g: &mut DiGraph<NodeId, (ChannelId, u8)>,
                      q: &mut VecDeque<NodeId>,
                      n: NodeId|
     -> NodeIndex {
        *index.entry(n).or_insert_with(|| {
            q.push_back(n);
            g.add_node(n)
        })
    };
    for &s in &seeds {
        vertex(&mut g, &mut queue, s);
    }
    let mut waits = Vec::new();
    while let Some(n) = queue.pop_front() {
        let from = vertex(&mut g, &mut queue, n);
        let node = &f.nodes[n];
        let mut edges: Vec<(NodeId, ChannelId, Kind)> = Vec::new();
        for &c in &node.outputs {
            if let (true, Some(cons)) = (v.stalled(c), v.consumer(c))
                && Some(cons) != ret
            {
                edges.push((cons, c, Kind::Stalled));
            }
        }
        let needs: Vec<ChannelId> = if Some(n) == ret {
            let mut missing = Vec::new();
            for &(i, m) in &v.missing_results {
                if m > 0 && !v.v(node.inputs[i]) {
                    missing.push(node.inputs[i]);
                }
            }
            missing
        } else {
            v.needed_inputs(n)
        };
        for c in needs {
            // A fork that already delivered this output's copy and holds its token for the
            // other outputs: the waiting node had its token; no wait-for edge (it would make
            // a cycle out of a chain).
            if v.delivered_by_fork(c) {
                continue;
            }
            edges.push((f.channels[c].producer.node, c, Kind::Needs));
        }
        for (to, c, k) in edges {
            let ti = vertex(&mut g, &mut queue, to);
            g.add_edge(from, ti, (c, k as u8));
            waits.push(WaitFor {
                from: f.nodes[n].id.clone(),
                to: f.nodes[to].id.clone(),
                channel: f.channels[c].name.clone(),
                kind: if k == Kind::Stalled {
                    "stalled"
                } else {
                    "needs"
                },
            });
        }
    }

    // A cond_br that routed its tokens the other way is the usual root cause: say so even
    // when the cond_br is itself part of a wait-for cycle.
    let routed_reason = |c: ChannelId| -> Option<String> {
        let p = f.channels[c].producer.node;
        match f.nodes[p].op {
            // Only when the other output fired after the awaited one last did: a cond_br
            // that sent its last token the awaited way simply got no more input.
            Op::CondBr
                if f.nodes[p]
                    .outputs
                    .iter()
                    .any(|&o| o != c && v.last_fire[o.index()] > v.last_fire[c.index()]) =>
            {
                Some(v.terminal_reason(p, Some(c)))
            }
            _ => None,
        }
    };
    // One wait-for edge as a step, with its sentence.
    let step = |from: NodeId, to: NodeId, c: ChannelId, k: u8| -> WaitStep {
        let fid = v.id(from);
        let stalled = k == Kind::Stalled as u8;
        let because = if stalled { None } else { routed_reason(c) };
        let text = if stalled {
            format!(
                "{fid} holds {} since cycle {} and waits for {} to accept it",
                v.value_text(c),
                v.since(c),
                v.consumer_port(c)
            )
        } else {
            let why = because
                .as_ref()
                .map_or(String::new(), |r| format!(", because {r}"));
            format!(
                "{fid} waits for {} ({}), which {} does not provide{why}",
                v.consumer_port(c),
                f.channels[c].name,
                v.id(f.channels[c].producer.node)
            )
        };
        WaitStep {
            from: fid.to_string(),
            to: v.id(to).to_string(),
            channel: f.channels[c].name.clone(),
            kind: if stalled { "stalled" } else { "needs" },
            text,
            because,
            loc: f.nodes[from].loc.as_ref().map(|l| l.to_string()),
        }
    };
    let sentence_of = |steps: &[WaitStep]| -> String {
        steps
            .iter()
            .map(|s| s.text.as_str())
            .collect::<Vec<_>>()
            .join("; ")
    };
    let mut paths = Vec::new();

    let mut explanation = Vec::new();
    if !missing_results.is_empty() {
        let m: Vec<String> = missing_results
            .iter()
            .map(|(r, n)| format!("{r} ({n} missing)"))
            .collect();
        explanation.push(format!(
            "No transfer since cycle {}; results not complete: {}.",
            v.idle_since,
            m.join(", ")
        ));
    }
    if stuck.is_empty() {
        explanation.push("No token is left inside the circuit.".into());
    }

    // Cycles.
    let mut cycles = Vec::new();
    let mut finished_loops = Vec::new();
    let mut loop_exit: BTreeSet<NodeIndex> = BTreeSet::new();
    let mut in_cycle: BTreeSet<NodeIndex> = BTreeSet::new();
    for scc in crate::scc::tarjan_scc(&g) {
        let cyclic = scc.len() > 1 || g.contains_edge(scc[0], scc[0]);
        if !cyclic {
            continue;
        }
        let members: BTreeSet<NodeIndex> = scc.iter().copied().collect();
        // An empty loop (every edge inside it a `needs`: no member holds a token) through a
        // cond_br that sent its last token out is a loop that finished, not a wait-for cycle.
        let inner: Vec<_> = members
            .iter()
            .flat_map(|&m| g.edges(m))
            .filter(|e| members.contains(&petgraph::visit::EdgeRef::target(e)))
            .collect();
        let empty = inner.iter().all(|e| e.weight().1 == Kind::Needs as u8);
        let exits: Vec<NodeIndex> = inner
            .iter()
            .filter(|e| {
                let t = petgraph::visit::EdgeRef::target(*e);
                v.routed_elsewhere(g[t], Some(e.weight().0))
            })
            .map(petgraph::visit::EdgeRef::target)
            .collect();
        if empty && !exits.is_empty() {
            let mut ids: Vec<String> = members.iter().map(|&i| v.id(g[i]).to_string()).collect();
            ids.sort();
            finished_loops.push(ids);
            for x in exits {
                loop_exit.insert(x);
            }
            continue;
        }
        in_cycle.extend(members.iter().copied());
        // Walk the cycle from its smallest node along edges inside the SCC.
        let start = *members.iter().min_by_key(|i| g[**i]).expect("non-empty");
        let mut path = vec![start];
        let mut seen = BTreeSet::from([start]);
        let mut steps = Vec::new();
        let mut cur = start;
        loop {
            let next = g
                .edges(cur)
                .filter(|e| members.contains(&petgraph::visit::EdgeRef::target(e)))
                .min_by_key(|e| {
                    (
                        seen.contains(&petgraph::visit::EdgeRef::target(e)),
                        g[petgraph::visit::EdgeRef::target(e)],
                    )
                });
            let Some(e) = next else { break };
            let t = petgraph::visit::EdgeRef::target(&e);
            let (c, k) = *e.weight();
            steps.push(step(g[cur], g[t], c, k));
            if seen.contains(&t) {
                break;
            }
            seen.insert(t);
            path.push(t);
            cur = t;
        }
        let ids: Vec<String> = path.iter().map(|&i| v.id(g[i]).to_string()).collect();
        explanation.push(format!(
            "Wait-for cycle {}: {}.",
            ids.join(" -> "),
            sentence_of(&steps)
        ));
        cycles.push(ids);
        paths.push(WaitPath {
            cyclic: true,
            steps,
            terminal: None,
            joins: None,
        });
    }

    // How far each vertex is from an argument that ran out of tokens early (reverse BFS):
    // a chain with a choice goes that way.
    let mut dist: BTreeMap<NodeIndex, usize> = BTreeMap::new();
    let mut bfs: VecDeque<NodeIndex> = g
        .node_indices()
        .filter(|&i| v.ran_out_early(g[i]).is_some())
        .collect();
    for &i in &bfs {
        dist.insert(i, 0);
    }
    while let Some(i) = bfs.pop_front() {
        let d = dist[&i];
        for e in g.edges_directed(i, petgraph::Direction::Incoming) {
            let src = petgraph::visit::EdgeRef::source(&e);
            if let std::collections::btree_map::Entry::Vacant(e) = dist.entry(src) {
                e.insert(d + 1);
                bfs.push_back(src);
            }
        }
    }

    // Chains from the seeds to nodes that cannot produce.
    let mut chains = Vec::new();
    let mut explained: BTreeSet<NodeIndex> = in_cycle.clone();
    for &s in &seeds {
        let si = index[&s];
        if explained.contains(&si) {
            continue;
        }
        let mut path = vec![si];
        let mut steps = Vec::new();
        let mut cur = si;
        let mut asked = None;
        let mut seen = BTreeSet::from([si]);
        let mut joins = None;
        let terminal = loop {
            explained.insert(cur);
            if v.routed_elsewhere(g[cur], asked) {
                let why = v.terminal_reason(g[cur], asked);
                break Some(if loop_exit.contains(&cur) {
                    format!("its loop finished: {why}")
                } else {
                    why
                });
            }
            let next = g
                .edges(cur)
                .map(|e| (petgraph::visit::EdgeRef::target(&e), *e.weight()))
                .min_by_key(|(t, _)| {
                    (
                        seen.contains(t),
                        dist.get(t).copied().unwrap_or(usize::MAX),
                        explained.contains(t),
                        g[*t],
                    )
                });
            match next {
                None => break Some(v.terminal_reason(g[cur], asked)),
                Some((t, (c, k))) => {
                    steps.push(step(g[cur], g[t], c, k));
                    path.push(t);
                    if seen.contains(&t) || explained.contains(&t) {
                        // Explained already (a cycle, an earlier chain, or this chain's own
                        // loop): say where it joins instead of repeating it.
                        joins = Some(v.id(g[t]).to_string());
                        break None;
                    }
                    seen.insert(t);
                    asked = Some(c);
                    cur = t;
                }
            }
        };
        if path.len() == 1 && terminal.is_none() {
            continue;
        }
        let ids: Vec<String> = path.iter().map(|&i| v.id(g[i]).to_string()).collect();
        let mut sentence = sentence_of(&steps);
        match &terminal {
            // The last step already says why (a cond_br that routed the token elsewhere).
            Some(t) if steps.last().is_some_and(|s| s.because.as_ref() == Some(t)) => {}
            Some(t) if !steps.is_empty() => {
                let _ = write!(sentence, ", because {t}");
            }
            Some(t) => sentence.clone_from(t),
            None => {
                let at = joins.as_deref().unwrap_or("");
                if path.iter().any(|i| in_cycle.contains(i)) {
                    let _ = write!(sentence, " ({at} is on a wait-for cycle above)");
                } else {
                    let _ = write!(sentence, " (from {at} on, as explained above)");
                }
            }
        }
        explanation.push(format!("{sentence}."));
        paths.push(WaitPath {
            cyclic: false,
            steps,
            terminal,
            joins,
        });
        chains.push(ids);
    }
    // The causes, ranked and each once.
    let mut ranked: Vec<(u8, String)> = Vec::new();
    for i in g.node_indices() {
        if v.ran_out_early(g[i]).is_some() {
            ranked.push((0, v.terminal_reason(g[i], None)));
        }
    }
    for p in &paths {
        for st in &p.steps {
            if let Some(b) = &st.because {
                ranked.push((1, b.clone()));
            }
        }
        if let Some(t) = &p.terminal {
            let rank = if t.starts_with("its loop finished") {
                4
            } else if t.starts_with("argument `") && t.contains("ran out of tokens") {
                0
            } else if t.contains(" sent its token to ") || t.contains("can never be allocated") {
                1
            } else {
                3
            };
            ranked.push((rank, t.clone()));
        }
    }
    for c in &cycles {
        ranked.push((
            2,
            format!(
                "the wait-for cycle {} -> {}: every node on it waits for the next, so no token can move (a loop without its initial token, or a buffer too small for the tokens in flight)",
                c.join(" -> "),
                c[0]
            ),
        ));
    }
    ranked.sort_by_key(|(r, _)| *r);
    let mut causes: Vec<String> = Vec::new();
    for (_, c) in ranked {
        if !causes.contains(&c) {
            causes.push(c);
        }
    }
    if let Some(first) = causes.first() {
        let at = usize::from(!missing_results.is_empty());
        explanation.insert(at, format!("Most likely cause: {first}."));
        if causes.len() > 1 {
            explanation.insert(at + 1, format!("Also: {}.", causes[1..].join("; ")));
        }
    }
    for l in &finished_loops {
        let shown: Vec<&str> = l.iter().take(6).map(String::as_str).collect();
        let more = if l.len() > 6 {
            format!(" and {} more", l.len() - 6)
        } else {
            String::new()
        };
        explanation.push(format!(
            "A loop that finished (its cond_br sent its last token out; not a wait-for cycle): {}{more}.",
            shown.join(", ")
        ));
    }

    if !pending_inputs.is_empty() {
        let p: Vec<String> = pending_inputs
            .iter()
            .map(|(a, n)| format!("{a} ({n})"))
            .collect();
        explanation.push(format!(
            "Arguments with tokens not yet consumed: {}.",
            p.join(", ")
        ));
    }

    DeadlockReport {
        since_cycle: v.idle_since,
        stuck,
        waits,
        cycles,
        chains,
        paths,
        causes,
        finished_loops,
        missing_results,
        pending_inputs,
        explanation,
    }
}

/// Renders a report in words for terminals.
pub fn render(d: &DeadlockReport) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "deadlock: no transfer since cycle {}", d.since_cycle);
    for t in &d.stuck {
        let val = t
            .value
            .as_ref()
            .map_or("token".to_string(), |v| v.to_string());
        let loc = t.loc.as_ref().map_or(String::new(), |l| format!(" [{l}]"));
        let _ = writeln!(
            s,
            "  stuck: {} = {val} since cycle {} -> {}{loc}",
            t.channel, t.since, t.consumer
        );
    }
    for e in &d.explanation {
        let _ = writeln!(s, "  {e}");
    }
    s
}

/// The number of cycles without any transfer after which a run counts as deadlocked: the
/// requested window, but never less than a buffer chain needs to drain without a channel
/// firing (`2 × the largest buffer's slot count + 4`) or a pipeline needs to move a token to
/// its output (`latency + ii + 4`). The engine, trace analysis and the
/// generated Verilator testbench all use this.
pub fn effective_window(requested: u64, f: &crate::Function) -> u64 {
    let max_slots = f
        .nodes
        .values()
        .filter_map(|n| match n.op {
            crate::Op::Buffer { slots, .. } | crate::Op::DynBuffer { slots, .. } => Some(slots),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    // A pipeline moves a token between its stages without any transfer for up to its latency
    // (and its initiation interval) cycles: that is no deadlock either.
    let max_pipe = f
        .nodes
        .values()
        .filter_map(|n| match n.op {
            crate::Op::Pipeline { latency, ii } => Some(u64::from(latency) + u64::from(ii)),
            crate::Op::DynPipeline { latency } | crate::Op::DynCounterBuffer { latency } => {
                Some(u64::from(latency) + 1)
            }
            _ => None,
        })
        .max()
        .unwrap_or(0);
    requested
        .max(1)
        .max(2 * u64::from(max_slots) + 4)
        .max(max_pipe + 4)
}

/// Why a load-store queue gives nothing: a group too large for its queues, else the oldest
/// load without data and what holds it, else the oldest store and what holds it, else
/// empty queues.
fn lsq_reason(id: &str, shape: &crate::ops::LsqShape, q: &crate::spec::LsqState) -> String {
    let (big_l, big_s) = shape.largest_group();
    if big_l > shape.load_depth as usize || big_s > shape.store_depth as usize {
        return format!(
            "{id}'s queues ({} load / {} store entries) are too shallow for its largest group ({big_l} loads, {big_s} stores): that group can never be allocated",
            shape.load_depth, shape.store_depth
        );
    }
    let loads = q.loads_by_age();
    let stores = q.stores_by_age();
    if let Some((i, _)) = loads.iter().find(|(_, l)| l.data.is_none())
        && let Some(why) = q.load_status(*i)
    {
        return format!("{id}'s {why}");
    }
    if let Some((j, _)) = stores.first()
        && let Some(why) = q.store_status(*j)
    {
        return format!("{id}'s {why}");
    }
    if loads.is_empty() && stores.is_empty() {
        return format!("{id}'s queues are empty: no group is allocated");
    }
    format!("{id}'s loads have their data and wait to be taken")
}
