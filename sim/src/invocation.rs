//! Invocation tags: which invocation of the circuit each token in flight belongs to.
//!
//! The `k`-th token an argument delivers belongs to invocation `k` (counting from 0), and a
//! token a component produces belongs to the invocation of the tokens it was made from:
//!
//! - a component whose output is computed in the same cycle from its inputs (joins, forks,
//!   `arith`, `cond_br`, constants, loads, a memory's load ports; the forward paths of
//!   [`crate::spec::Comb`]) gives the output the **latest** invocation among those inputs, so
//!   a constant triggered by a loop's control carries the loop's invocation;
//! - a `merge` passes on the tag of the input it takes (the first valid one), a `mux` the later
//!   of its select's and the selected input's, a `control_merge` its winner's (the `won`
//!   register while it holds one, else the first valid input);
//! - a component that holds tokens (buffers, pipelines, a memory's store ports) lets them out
//!   in the order they came, so its tags queue in FIFO order; a buffer's initial tokens belong
//!   to invocation 0.
//!
//! The tags are computed cycle by cycle from the signals of a [`crate::trace::Trace`] (the GUI
//! colours moving tokens by them), whether the trace came from the engine or from a VCD. Which
//! rule a component follows is decided in one exhaustive `match` over [`Op`]: a new op does
//! not compile until it has one.

use std::collections::VecDeque;

use cranelift_entity::EntityRef;

use crate::graph::{Function, NodeId};
use crate::ops::Op;
use crate::spec::{PortRef, PortSignal, mux_input, spec};
use crate::trace::Trace;

/// An invocation number: `0` for the first.
pub type Tag = u32;

/// How one output's tag is found.
#[derive(Clone, Debug)]
enum OutRule {
    /// The latest tag of these inputs (their forward signals drive the output this cycle).
    Latest(Vec<usize>),
    /// The next tag of a FIFO filled when any of these inputs transfers.
    Queue(Vec<usize>),
    /// The `k`-th token of an argument: tag `k`.
    Argument,
    /// `merge`: the first valid input's tag.
    Merge,
    /// `mux`: the later of the select's and the selected input's tags.
    Mux,
    /// `control_merge`: the winner's tag.
    ControlMerge,
    /// A fixed tag (`source`: 0; `never` and unsimulated instances: none).
    Fixed(Option<Tag>),
}

/// The rules of one node's outputs (and its initial FIFO contents).
fn node_rules(f: &Function, n: NodeId) -> (Vec<OutRule>, usize) {
    let node = &f.nodes[n];
    let (n_in, n_out) = (node.inputs.len(), node.outputs.len());
    // The forward paths of the component's combinational description.
    let latest = || {
        let deps = spec(&node.op).comb.deps(n_in, n_out);
        (0..n_out)
            .map(|o| {
                let mut ins: Vec<usize> = deps
                    .iter()
                    .filter_map(|&(a, b)| match (a, b) {
                        (
                            PortSignal::Forward(PortRef::In(i)),
                            PortSignal::Forward(PortRef::Out(x)),
                        ) if x == o => Some(i),
                        _ => None,
                    })
                    .collect();
                ins.sort_unstable();
                ins.dedup();
                OutRule::Latest(ins)
            })
            .collect::<Vec<_>>()
    };
    let all = |r: OutRule| vec![r; n_out];
    match &node.op {
        Op::Argument { .. } => (all(OutRule::Argument), 0),
        Op::Return | Op::Sink => (Vec::new(), 0),
        Op::Fork
        | Op::LazyFork
        | Op::CondBr
        | Op::Br
        | Op::Join
        | Op::Sync
        | Op::Pack
        | Op::Unpack
        | Op::Constant { .. }
        | Op::Load
        | Op::Store
        | Op::Island(_)
        | Op::Arith(_) => (latest(), 0),
        Op::Merge => (all(OutRule::Merge), 0),
        Op::Mux => (all(OutRule::Mux), 0),
        Op::ControlMerge => (all(OutRule::ControlMerge), 0),
        Op::Buffer { init, .. } => (
            all(OutRule::Queue(vec![0])),
            init.as_ref().map_or(0, Vec::len),
        ),
        Op::Pipeline { .. }
        | Op::DynBuffer { .. }
        | Op::DynPipeline { .. }
        | Op::DynCounterBuffer { .. } => (all(OutRule::Queue(vec![0])), 0),
        Op::DynControlMerge => (all(OutRule::Merge), 0),
        Op::DynSelect
        | Op::DynLoad
        | Op::DynStore
        | Op::DynMemController { .. }
        | Op::DynLsq { .. } => (latest(), 0),
        Op::Memory { ld, st, .. } | Op::ExtMemory { ld, st, .. } => {
            let (ld, st) = (*ld as usize, *st as usize);
            let mut r = latest();
            // `stDone<j>` comes from a register set by store port j's write.
            for j in 0..st {
                if let Some(x) = r.get_mut(ld + j) {
                    *x = OutRule::Queue(vec![2 * j, 2 * j + 1]);
                }
            }
            (r, 0)
        }
        Op::AddrQueue { ld, st, .. } => {
            let (ld, st) = (*ld as usize, *st as usize);
            let mut r = latest();
            // `stOrderOut<j>` comes from a register set when store port j enqueues.
            for j in 0..st {
                if let Some(x) = r.get_mut(ld + j) {
                    *x = OutRule::Queue(vec![2 * ld + 3 * j, 2 * ld + 3 * j + 1]);
                }
            }
            (r, 0)
        }
        Op::Source => (all(OutRule::Fixed(Some(0))), 0),
        // `never` offers nothing; an instance is never simulated (flattened, or refused).
        Op::Never | Op::Instance { .. } => (all(OutRule::Fixed(None)), 0),
    }
}

/// One cycle's signals, indexed by the function's channel indices.
#[derive(Clone, Copy)]
pub struct CycleSignals<'a> {
    /// `valid` per channel.
    pub valid: &'a [bool],
    /// `ready` per channel.
    pub ready: &'a [bool],
    /// `data` per channel (a `mux` reads its select).
    pub data: &'a [u64],
    /// The input a `control_merge` node holds as winner (its `won` register), when the trace
    /// records it.
    pub won: &'a dyn Fn(NodeId) -> Option<usize>,
}

impl CycleSignals<'_> {
    fn fires(&self, c: usize) -> bool {
        self.valid.get(c).copied().unwrap_or(false) && self.ready.get(c).copied().unwrap_or(false)
    }

    fn valid(&self, c: usize) -> bool {
        self.valid.get(c).copied().unwrap_or(false)
    }
}

/// The tags of one function's tokens, advanced one cycle at a time from the first cycle.
#[derive(Clone, Debug)]
pub struct InvocationTags {
    /// Per node, per output: the rule.
    rules: Vec<Vec<OutRule>>,
    /// Nodes in an order where a node's same-cycle inputs come first (then the rest).
    order: Vec<NodeId>,
    /// Whether some same-cycle dependencies form a loop (then passes repeat until stable).
    cyclic: bool,
    /// Per node, per output: queued tags (for [`OutRule::Queue`]).
    queues: Vec<Vec<VecDeque<Option<Tag>>>>,
    /// Per node: tokens its argument has delivered.
    delivered: Vec<Tag>,
    /// Per channel: the tag of the token offered this cycle.
    tags: Vec<Option<Tag>>,
    /// The next cycle [`InvocationTags::cycle`] reads.
    next: u64,
}

impl InvocationTags {
    /// Tags before the first cycle of `f`'s run.
    pub fn new(f: &Function) -> Self {
        let mut rules = Vec::with_capacity(f.nodes.len());
        let mut queues = Vec::with_capacity(f.nodes.len());
        for n in f.nodes.keys() {
            let (r, preload) = node_rules(f, n);
            queues.push(
                r.iter()
                    .map(|x| match x {
                        OutRule::Queue(_) => std::iter::repeat_n(Some(0), preload).collect(),
                        _ => VecDeque::new(),
                    })
                    .collect(),
            );
            rules.push(r);
        }
        let (order, cyclic) = same_cycle_order(f, &rules);
        InvocationTags {
            rules,
            order,
            cyclic,
            queues,
            delivered: vec![0; f.nodes.len()],
            tags: vec![None; f.channels.len()],
            next: 0,
        }
    }

    /// The tags of the last cycle read (per channel index).
    pub fn tags(&self) -> &[Option<Tag>] {
        &self.tags
    }

    /// The next cycle [`InvocationTags::cycle`] expects.
    pub fn next_cycle(&self) -> u64 {
        self.next
    }

    /// Reads the next cycle: returns the tag of the token offered on each channel (none where
    /// no token is offered) and moves past the cycle's clock edge.
    pub fn cycle(&mut self, f: &Function, s: &CycleSignals<'_>) -> &[Option<Tag>] {
        let passes = if self.cyclic { self.order.len() + 1 } else { 1 };
        for _ in 0..passes {
            let mut changed = false;
            for k in 0..self.order.len() {
                let n = self.order[k];
                changed |= self.eval_node(f, n, s);
            }
            if !changed {
                break;
            }
        }
        self.clock(f, s);
        self.next += 1;
        &self.tags
    }

    /// Computes node `n`'s output tags; true when one changed.
    fn eval_node(&mut self, f: &Function, n: NodeId, s: &CycleSignals<'_>) -> bool {
        let node = &f.nodes[n];
        let tag_in = |tags: &[Option<Tag>], i: usize| {
            node.inputs
                .get(i)
                .and_then(|c| tags.get(c.index()).copied().flatten())
        };
        let mut changed = false;
        for (o, rule) in self.rules[n.index()].iter().enumerate() {
            let Some(&out) = node.outputs.get(o) else {
                continue;
            };
            let t = if !s.valid(out.index()) {
                None
            } else {
                match rule {
                    OutRule::Latest(ins) => ins.iter().filter_map(|&i| tag_in(&self.tags, i)).max(),
                    OutRule::Queue(_) => self.queues[n.index()][o].front().copied().flatten(),
                    OutRule::Argument => Some(self.delivered[n.index()]),
                    OutRule::Merge => (0..node.inputs.len())
                        .find(|&i| s.valid(node.inputs[i].index()))
                        .and_then(|i| tag_in(&self.tags, i)),
                    OutRule::Mux => {
                        let sel = node.inputs.first().map(|c| c.index());
                        let k = sel.and_then(|c| {
                            mux_input(
                                s.data.get(c).copied().unwrap_or(0),
                                node.inputs.len().saturating_sub(1),
                            )
                        });
                        let chosen = k.and_then(|k| tag_in(&self.tags, k + 1));
                        tag_in(&self.tags, 0).max(chosen)
                    }
                    OutRule::ControlMerge => (s.won)(n)
                        .filter(|&i| i < node.inputs.len())
                        .or_else(|| {
                            (0..node.inputs.len()).find(|&i| s.valid(node.inputs[i].index()))
                        })
                        .and_then(|i| tag_in(&self.tags, i)),
                    OutRule::Fixed(t) => *t,
                }
            };
            if let Some(slot) = self.tags.get_mut(out.index())
                && *slot != t
            {
                *slot = t;
                changed = true;
            }
        }
        changed
    }

    /// The clock edge: queues take the tags of the tokens that entered and drop those that
    /// left; arguments count their tokens.
    fn clock(&mut self, f: &Function, s: &CycleSignals<'_>) {
        for (n, node) in f.nodes.iter() {
            for (o, rule) in self.rules[n.index()].iter().enumerate() {
                let Some(&out) = node.outputs.get(o) else {
                    continue;
                };
                match rule {
                    OutRule::Queue(ins) => {
                        let q = &mut self.queues[n.index()][o];
                        if s.fires(out.index()) {
                            q.pop_front();
                        }
                        let entered: Vec<usize> = ins
                            .iter()
                            .filter_map(|&i| node.inputs.get(i).map(|c| c.index()))
                            .filter(|&c| s.fires(c))
                            .collect();
                        if !entered.is_empty() {
                            let t = entered
                                .iter()
                                .filter_map(|&c| self.tags.get(c).copied().flatten())
                                .max();
                            q.push_back(t);
                        }
                    }
                    OutRule::Argument if s.fires(out.index()) => {
                        self.delivered[n.index()] += 1;
                    }
                    _ => {}
                }
            }
        }
    }
}

/// Nodes ordered so that a node comes after the producers of the inputs its outputs read in the
/// same cycle (Kahn's algorithm); nodes on a same-cycle loop follow in index order, and the
/// flag says there were some.
fn same_cycle_order(f: &Function, rules: &[Vec<OutRule>]) -> (Vec<NodeId>, bool) {
    let n = f.nodes.len();
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut indeg = vec![0usize; n];
    for (id, node) in f.nodes.iter() {
        let mut reads: Vec<usize> = Vec::new();
        for rule in &rules[id.index()] {
            match rule {
                OutRule::Latest(ins) => reads.extend(ins),
                OutRule::Merge | OutRule::Mux | OutRule::ControlMerge => {
                    reads.extend(0..node.inputs.len());
                }
                OutRule::Queue(_) | OutRule::Argument | OutRule::Fixed(_) => {}
            }
        }
        reads.sort_unstable();
        reads.dedup();
        for i in reads {
            if let Some(&c) = node.inputs.get(i) {
                let p = f.channels[c].producer.node.index();
                succs[p].push(id.index());
                indeg[id.index()] += 1;
            }
        }
    }
    let mut order = Vec::with_capacity(n);
    let mut ready: VecDeque<usize> = (0..n).filter(|&i| indeg[i] == 0).collect();
    while let Some(i) = ready.pop_front() {
        order.push(NodeId::new(i));
        for &j in &succs[i] {
            indeg[j] -= 1;
            if indeg[j] == 0 {
                ready.push_back(j);
            }
        }
    }
    let cyclic = order.len() < n;
    if cyclic {
        let placed: std::collections::HashSet<usize> = order.iter().map(|x| x.index()).collect();
        order.extend((0..n).filter(|i| !placed.contains(i)).map(NodeId::new));
    }
    (order, cyclic)
}

/// Cycles between two saved states of a [`TraceTagger`] (a step back restarts from the
/// nearest one instead of cycle 0).
const CHECKPOINT_CYCLES: u64 = 1024;

/// [`InvocationTags`] following a [`Trace`]: channels are matched by name and each
/// `control_merge`'s `won` register by its node ID, as the GUI binds a function to a trace, so
/// a replayed VCD works as an engine trace does. Any cycle can be asked for, in any order.
#[derive(Clone, Debug)]
pub struct TraceTagger {
    /// Trace channel index per function channel index.
    chan: Vec<Option<usize>>,
    /// Per node: the index of its `won` word among the trace's state words.
    won: Vec<Option<usize>>,
    /// The tags, ready for cycle `tags.next_cycle()`.
    tags: InvocationTags,
    /// States saved at every [`CHECKPOINT_CYCLES`]-th cycle, in order.
    saved: Vec<InvocationTags>,
    /// Scratch signals of the cycle being read.
    valid: Vec<bool>,
    ready: Vec<bool>,
    data: Vec<u64>,
}

impl TraceTagger {
    /// A tagger for `f`'s run recorded in `t`.
    pub fn new(f: &Function, t: &Trace) -> Self {
        let chan = f
            .channels
            .values()
            .map(|c| t.channel_index(&c.name))
            .collect();
        let mut won = vec![None; f.nodes.len()];
        let mut at = 0usize;
        for m in t.state_meta() {
            if let (Some(n), Some(k)) = (
                f.node_by_id(&m.node),
                m.fields.iter().position(|x| x == "won"),
            ) && matches!(f.nodes[n].op, Op::ControlMerge)
            {
                won[n.index()] = Some(at + k);
            }
            at += m.fields.len();
        }
        let tags = InvocationTags::new(f);
        let n = f.channels.len();
        TraceTagger {
            chan,
            won,
            saved: vec![tags.clone()],
            tags,
            valid: vec![false; n],
            ready: vec![false; n],
            data: vec![0; n],
        }
    }

    /// The tag of the token offered on each channel (by function channel index) in cycle
    /// `cycle` of `t`; `None` when the trace has no such cycle.
    pub fn at(&mut self, f: &Function, t: &Trace, cycle: u64) -> Option<&[Option<Tag>]> {
        self.at_within(f, t, cycle, u64::MAX)
    }

    /// [`TraceTagger::at`], reading at most `budget` cycles of the trace: `None` when more
    /// are needed (the cycles read are kept, so asking again goes on from there). The GUI
    /// asks with a budget so that a jump to the end of a long trace never stalls a frame.
    pub fn at_within(
        &mut self,
        f: &Function,
        t: &Trace,
        cycle: u64,
        budget: u64,
    ) -> Option<&[Option<Tag>]> {
        if cycle >= t.cycles() {
            return None;
        }
        if cycle < self.tags.next_cycle() {
            let k = ((cycle / CHECKPOINT_CYCLES) as usize).min(self.saved.len() - 1);
            self.tags = self.saved[k].clone();
            self.saved.truncate(k + 1);
        }
        let mut rp = t.replay_from(self.tags.next_cycle());
        let mut read = 0u64;
        loop {
            if read == budget {
                return None;
            }
            read += 1;
            let c = self.tags.next_cycle();
            rp.next_cycle()?;
            let v = rp.view();
            for (i, ti) in self.chan.iter().enumerate() {
                let (a, b, d) = match *ti {
                    Some(ti) => (v.valid(ti), v.ready(ti), v.data(ti)),
                    None => (false, false, 0),
                };
                self.valid[i] = a;
                self.ready[i] = b;
                self.data[i] = d;
            }
            let words = v.state_words();
            let won_at = &self.won;
            let won = |n: NodeId| {
                let w = words.get(won_at[n.index()]?).copied()?;
                (w != 0).then_some(w.trailing_zeros() as usize)
            };
            let s = CycleSignals {
                valid: &self.valid,
                ready: &self.ready,
                data: &self.data,
                won: &won,
            };
            self.tags.cycle(f, &s);
            if self.tags.next_cycle().is_multiple_of(CHECKPOINT_CYCLES)
                && self.saved.len() as u64 == self.tags.next_cycle() / CHECKPOINT_CYCLES
            {
                self.saved.push(self.tags.clone());
            }
            if c == cycle {
                return Some(self.tags.tags());
            }
        }
    }
}

#[cfg(test)]
mod tests;
