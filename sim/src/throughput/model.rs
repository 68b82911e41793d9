//! The static throughput model: a timed marked graph of the circuit and its critical cycles
//! (maximum cycle ratio of latency over tokens).
//!
//! Every buffer slot is a vertex of its own (CIRCT 1.62's RTL builds an `N`-slot buffer as a
//! chain of `N` slots, each holding up to two tokens, `docs/semantics.md` "Buffers"), so is
//! every port of a memory (a port's outputs depend only on its own inputs); every other node
//! is one vertex. Each channel, and each link between two slots of one buffer,
//! gives two edges:
//!
//! * **forward** (producer → consumer, the valid direction): latency 1 when the producer is a
//!   slot (its output is registered), else 0; tokens: 1 when the producing slot is preloaded
//!   (`initValues`), plus 1 on a loop's back edge into a data input of a `mux`/`merge`/
//!   `control_merge` (one iteration in flight; see [`loops`] and [`ModelOptions`]).
//! * **backward** (consumer → producer, the ready direction: free space): from a slot,
//!   latency 1 and `2 − preloaded` tokens (the slot's `ready` is registered and it holds two
//!   tokens); from a node with output registers (eager `fork`, `sync`, `unpack`,
//!   `control_merge`, memory load ports: one `emitted` flag per output), latency 1 and 1
//!   token (the node keeps a token it has offered but not yet handed over); from a purely
//!   combinational producer, latency 0 and no token. A memory's store port registers its
//!   done token (forward latency 1) and takes the next store in the cycle that token leaves
//!   (backward latency 0, 1 place).
//!
//! **Choices.** A marked graph has no choice: every node takes a token on every input each
//! time. A `cond_br` sends each token to one output and a `mux`/`merge`/`control_merge` takes
//! it from one data input, so a cycle that goes out of one branch and back in through the
//! free space of the other describes no run. The model therefore gives the channels out of a
//! `cond_br` and into a merge-like node's data inputs no backward edge: cycles through choices
//! are loops (forward), and reconvergence is measured between forks and joins.
//!
//! The throughput of a cycle is at most its tokens over its latency; the circuit's at most the
//! smallest of those and 1 ([`CycleRatio::throughput`]). The cycle with the largest ratio
//! latency/tokens is the *critical cycle*. Reconvergent paths close a cycle through the
//! backward edges of one arm: a fork whose long arm has four one-slot buffers and whose short
//! arm none closes a cycle of latency 5 (4 slots forward, 1 back through the fork's `emitted`
//! flag) over 1 token, hence one token every 5 cycles.
//!
//! The search ([`critical_cycle`]) is Dinkelbach's iteration on the cycle ratio: start from
//! any cycle with positive latency, then repeatedly look for a cycle that beats the best ratio
//! `L/T` found so far, i.e. a negative cycle under weights `L·t − T·l` (integers, exact in
//! `f64`), found by petgraph's Bellman-Ford (`find_negative_cycle`). Each step strictly
//! raises the ratio, so it ends at the maximum, usually in a handful of steps.

use std::collections::BTreeSet;

use cranelift_entity::EntityRef;
use petgraph::graph::{DiGraph, EdgeIndex, NodeIndex};
use petgraph::visit::EdgeRef;
use serde::Serialize;

use crate::graph::{ChannelId, Function, NodeId};
use crate::ops::Op;
use crate::spec::{Comb, DisplayClass, StateLayout, WaitRule};

/// Which way an edge of the model runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    /// Tokens move producer → consumer (valid).
    Forward,
    /// Free space moves consumer → producer (ready).
    Backward,
    /// The path turns around at a node (see the module documentation).
    Turn,
}

/// A vertex of the model: a node, one slot of a buffer, or one port of a memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Vertex {
    /// The node.
    pub node: NodeId,
    /// For a buffer, the slot (0 at the input); for a memory, the port (loads, then stores);
    /// for a load, 0 (address) or 1 (data); 0 otherwise.
    pub part: u32,
    /// The backward side of a node without slots (slots have one vertex).
    pub back: bool,
}

/// One edge of the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    /// The channel it belongs to (`None`: the link between two slots of one buffer).
    pub channel: Option<ChannelId>,
    /// The buffer node whose internal slot link this is (when `channel` is `None`).
    pub buffer: Option<NodeId>,
    /// Valid or ready direction.
    pub dir: Direction,
    /// Cycles it takes.
    pub latency: u64,
    /// Tokens (forward) or free places (backward) it holds initially.
    pub tokens: u64,
    /// A forward edge into a data input of a merge-like node (where a loop is entered).
    pub enters_merge: bool,
}

/// Choices of the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelOptions {
    /// Put one token on each loop back edge into a merge-like node (one iteration of the loop
    /// in flight). Without it a loop whose buffers start empty has no token at all.
    pub loop_tokens: bool,
}

impl Default for ModelOptions {
    fn default() -> Self {
        ModelOptions { loop_tokens: true }
    }
}

/// The timed marked graph of a function.
#[derive(Clone, Debug)]
pub struct Model {
    /// Vertices and edges.
    pub graph: DiGraph<Vertex, Edge>,
    /// Channels that are loop back edges (forward edges with a loop token).
    pub back_edges: BTreeSet<ChannelId>,
}

/// How a node's output holds tokens, from its register layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OutputKind {
    /// Purely combinational.
    Comb,
    /// A registered valid that holds one token (a store port's done token).
    Registered,
    /// Buffer slots.
    Slots,
    /// Pipeline stages: registered valid, one token each, and a combinational ready (a full
    /// stage takes a token in the cycle its own moves on).
    Stages,
    /// A Dynamatic buffer, one vertex: forward latency 0 with a bypass, else 1; backward
    /// latency 0 when its ready goes through, else 1; as many free places as slots.
    Fifo {
        /// Forward latency.
        fwd: u64,
        /// Backward latency.
        back: u64,
        /// Slots.
        places: u64,
    },
}

fn output_kind(op: &Op, port: usize) -> OutputKind {
    match op.spec().state {
        StateLayout::None => OutputKind::Comb,
        // Dynamatic's `control_merge` is modelled like CIRCT's: its skid register adds a place
        // but no latency.
        StateLayout::EmittedPerOutput
        | StateLayout::ControlMerge
        | StateLayout::SkidMerge
        | StateLayout::Antitokens
        // A load's skid buffers add places but no latency.
        | StateLayout::LoadPaths => OutputKind::Comb,
        // Read data and `memEnd` come from registers.
        StateLayout::DynMc { .. } | StateLayout::DynLsq { .. } => OutputKind::Registered,
        StateLayout::Fifo { slots } => match op {
            Op::DynBuffer { kind, .. } => OutputKind::Fifo {
                fwd: u64::from(!kind.bypass()),
                back: u64::from(!kind.ready_through()),
                places: u64::from(slots),
            },
            // One place; a token waits `latency` cycles; the next enters as it leaves.
            Op::DynCounterBuffer { latency } => OutputKind::Fifo {
                fwd: u64::from(*latency),
                back: 0,
                places: 1,
            },
            _ => OutputKind::Slots,
        },
        // `ldAddrOut<i>` passes combinationally; `stOrderOut<j>` comes from a register.
        StateLayout::AddrQueue { .. } => match op {
            Op::AddrQueue { ld, .. } if port >= *ld as usize => OutputKind::Registered,
            _ => OutputKind::Comb,
        },
        StateLayout::MemoryPorts { ld, st } => {
            let (ld, st) = (ld as usize, st as usize);
            if port >= ld && port < ld + st {
                OutputKind::Registered
            } else {
                OutputKind::Comb
            }
        }
        StateLayout::BufferSlots { .. } => OutputKind::Slots,
        StateLayout::Pipeline { .. } => OutputKind::Stages,
        // One invocation at a time; its results come at least `latency` cycles after its
        // inputs (more with more iterations, which a static model cannot know).
        StateLayout::Island { .. } => OutputKind::Fifo {
            fwd: match op {
                Op::Island(isl) => isl
                    .pipelines
                    .iter()
                    .map(|p| u64::from(p.latency))
                    .max()
                    .unwrap_or(1),
                _ => 1,
            },
            back: 1,
            places: 1,
        },
    }
}

/// Independent parts of a node, from the shape of its combinational paths: a memory's ports
/// (loads `0..ld`, then stores; a port's outputs depend only on its own inputs) and a load's
/// two halves (address `{addrIn0, ctrl} → addrOut0` is part 0, data `dataFromMem → dataOut`
/// part 1) are vertices of their own; every other node is one part.
pub(crate) fn port_groups(op: &Op) -> usize {
    match op.spec().comb {
        Comb::Memory { ld, st } => (ld + st).max(1) as usize,
        Comb::Load | Comb::Parallel { .. } => 2,
        // A part per load port, per store port, and one for the start, counts and end.
        Comb::DynMc { ld, st, .. } => (ld + st + 1) as usize,
        // A part per load port and per store port.
        Comb::AddrQueue { ld, st } => (ld + st).max(1) as usize,
        Comb::None
        | Comb::Join
        | Comb::LazyFork
        | Comb::Pipeline
        | Comb::Bypass { .. }
        | Comb::Island
        | Comb::SkidMerge => 1,
    }
}

/// The part of a node input `port` belongs to ([`port_groups`]).
pub(crate) fn input_group(op: &Op, port: usize) -> usize {
    match op.spec().comb {
        Comb::Memory { ld, st } => {
            let (ld, st) = (ld as usize, st as usize);
            if port < 2 * st {
                ld + port / 2
            } else {
                port - 2 * st
            }
        }
        Comb::Load => usize::from(port == 1),
        Comb::Parallel { .. } => port.min(1),
        Comb::DynMc { ctrl, ld, st } => {
            let (c, l, s) = (ctrl as usize, ld as usize, st as usize);
            match port {
                p if p > c && p <= c + l => p - 1 - c,
                p if p > c + l && p <= c + l + 2 * s => l + (p - 1 - c - l) / 2,
                _ => l + s,
            }
        }
        Comb::AddrQueue { ld, .. } => {
            let ld = ld as usize;
            if port < 2 * ld {
                port / 2
            } else {
                ld + (port - 2 * ld) / 3
            }
        }
        Comb::None
        | Comb::Join
        | Comb::LazyFork
        | Comb::Pipeline
        | Comb::Bypass { .. }
        | Comb::Island
        | Comb::SkidMerge => 0,
    }
}

/// The part of a node output `port` belongs to ([`port_groups`]).
pub(crate) fn output_group(op: &Op, port: usize) -> usize {
    match op.spec().comb {
        Comb::Memory { ld, st } => {
            let (ld, st) = (ld as usize, st as usize);
            // Load data and store done: their own port; load done: its load's.
            if port < ld + st { port } else { port - ld - st }
        }
        Comb::Load => usize::from(port == 0),
        Comb::Parallel { .. } => port.min(1),
        Comb::DynMc { ld, st, .. } => {
            let (l, s) = (ld as usize, st as usize);
            if port < l { port } else { l + s }
        }
        Comb::AddrQueue { .. } => port,
        Comb::None
        | Comb::Join
        | Comb::LazyFork
        | Comb::Pipeline
        | Comb::Bypass { .. }
        | Comb::Island
        | Comb::SkidMerge => 0,
    }
}

/// Preloaded flag of every slot of a buffer (or stage of a pipeline), input end first (empty
/// for other ops): the slot count from the register layout, the flags from `initValues`.
fn slots(op: &Op) -> Vec<bool> {
    let n = match op.spec().state {
        StateLayout::BufferSlots { slots } => slots as usize,
        StateLayout::Pipeline { latency, .. } => latency as usize,
        // A FIFO is one vertex, its slots the free places of its output link.
        StateLayout::Fifo { .. } | StateLayout::Island { .. } => 1,
        StateLayout::None
        | StateLayout::EmittedPerOutput
        | StateLayout::ControlMerge
        | StateLayout::SkidMerge
        | StateLayout::Antitokens
        | StateLayout::LoadPaths
        | StateLayout::DynMc { .. }
        | StateLayout::DynLsq { .. }
        | StateLayout::AddrQueue { .. }
        | StateLayout::MemoryPorts { .. } => 0,
    };
    let init = if let Op::Buffer { init: Some(v), .. } = op {
        v.len()
    } else {
        0
    };
    (0..n).map(|i| i < init).collect()
}

/// A loop: a strongly connected part of the valid-direction graph at one nesting level.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loop {
    /// Its nodes.
    pub nodes: BTreeSet<NodeId>,
    /// Its back edges: channels from inside the loop into a data input of a merge-like node
    /// (its header) that also has a data input from outside. The model puts a token on each.
    pub back_edges: BTreeSet<ChannelId>,
    /// Outputs of preloaded buffers that stay inside the loop: a ring that starts with its
    /// tokens (the function lock, a token ring) rather than being entered.
    pub preloaded: BTreeSet<ChannelId>,
}

/// The data inputs of a merge-like node (a `mux`'s inputs after the select; every input of a
/// `merge` or `control_merge`); `None` for other nodes.
fn data_inputs(op: &Op) -> Option<usize> {
    match op.spec().waits_for {
        WaitRule::SelectedInput => Some(1),
        WaitRule::AnyInput => Some(0),
        WaitRule::Nothing
        | WaitRule::AllInputs
        | WaitRule::InputWhenEmpty
        | WaitRule::ConditionThenChosen
        | WaitRule::MemoryEnd
        | WaitRule::QueueEntries
        | WaitRule::QueuedStores => None,
    }
}

/// The loops of a flat function, outermost first: the strongly connected parts of the
/// valid-direction graph (without the edges from a memory back to its load ports) whose headers (merge-like nodes entered from outside) have back
/// edges; then, with those back edges removed, the loops inside each of them, and so on.
pub fn loops(f: &Function) -> Vec<Loop> {
    let mut out = Vec::new();
    let mut removed: BTreeSet<ChannelId> = BTreeSet::new();
    let mut work: Vec<BTreeSet<NodeId>> = vec![f.nodes.keys().collect()];
    while let Some(set) = work.pop() {
        // One vertex per node, per port for memories (as in the model).
        let mut g = DiGraph::<NodeId, ()>::new();
        let mut ix: Vec<Vec<NodeIndex>> = vec![Vec::new(); f.nodes.len()];
        for &n in &set {
            ix[n.index()] = (0..port_groups(&f.nodes[n].op))
                .map(|_| g.add_node(n))
                .collect();
        }
        for (ch, c) in &f.channels {
            let p = &f.nodes[c.producer.node];
            let pv = &ix[c.producer.node.index()];
            if removed.contains(&ch) || pv.is_empty() {
                continue;
            }
            let a = pv[output_group(&p.op, c.producer.port as usize).min(pv.len() - 1)];
            for k in &c.consumers {
                let cn = &f.nodes[k.node];
                // A memory answers a load in the cycle it asks: load → memory port → load is
                // no loop.
                if p.op.spec().display == DisplayClass::Memory
                    && cn.op.spec().display == DisplayClass::MemoryAccess
                {
                    continue;
                }
                let cv = &ix[k.node.index()];
                if cv.is_empty() {
                    continue;
                }
                let b = cv[input_group(&cn.op, k.port as usize).min(cv.len() - 1)];
                g.add_edge(a, b, ());
            }
        }
        let mut found = Vec::new();
        for comp in crate::scc::tarjan_scc(&g) {
            if comp.len() < 2 && g.find_edge(comp[0], comp[0]).is_none() {
                continue;
            }
            let nodes: BTreeSet<NodeId> = comp.iter().map(|&v| g[v]).collect();
            let mut back = BTreeSet::new();
            let mut preloaded = BTreeSet::new();
            for &m in &nodes {
                let node = &f.nodes[m];
                if let Op::Buffer { init: Some(_), .. } = node.op {
                    preloaded.extend(node.outputs.iter().copied().filter(|ch| {
                        f.channels[*ch]
                            .consumers
                            .iter()
                            .any(|k| nodes.contains(&k.node))
                    }));
                }
                let Some(first) = data_inputs(&node.op) else {
                    continue;
                };
                let data = node.inputs.iter().skip(first);
                let from_inside = |ch: &&ChannelId| nodes.contains(&f.channels[**ch].producer.node);
                let entered = data.clone().any(|ch| !from_inside(&ch));
                if entered {
                    back.extend(data.filter(from_inside).filter(|ch| !removed.contains(ch)));
                }
            }
            if !back.is_empty() || !preloaded.is_empty() {
                found.push(Loop {
                    nodes,
                    back_edges: back,
                    preloaded,
                });
            }
        }
        found.sort_by_key(|l| l.nodes.first().copied());
        for l in found.into_iter().rev() {
            removed.extend(l.back_edges.iter().copied());
            removed.extend(l.preloaded.iter().copied());
            work.push(l.nodes.clone());
            out.push(l);
        }
    }
    out.sort_by_key(|l| (std::cmp::Reverse(l.nodes.len()), l.nodes.first().copied()));
    out
}

/// Every loop back edge ([`loops`]).
pub fn loop_back_edges(f: &Function) -> BTreeSet<ChannelId> {
    loops(f).into_iter().flat_map(|l| l.back_edges).collect()
}

impl Model {
    /// Builds the model of a flat function.
    pub fn build(f: &Function, opts: ModelOptions) -> Model {
        let mut g = DiGraph::new();
        // Per node and part: (forward side, backward side); a slot is one vertex (turning
        // there is free: its backward edge already counts its free places).
        let mut verts: Vec<Vec<(NodeIndex, NodeIndex)>> = Vec::with_capacity(f.nodes.len());
        for (id, node) in &f.nodes {
            let s = slots(&node.op);
            let vs: Vec<(NodeIndex, NodeIndex)> = if s.is_empty() {
                (0..port_groups(&node.op))
                    .map(|i: usize| {
                        let v = |back| Vertex {
                            node: id,
                            part: i as u32,
                            back,
                        };
                        let fw = g.add_node(v(false));
                        let bw = g.add_node(v(true));
                        turn(&mut g, id, fw, bw);
                        (fw, bw)
                    })
                    .collect()
            } else {
                (0..s.len())
                    .map(|i: usize| {
                        let v = g.add_node(Vertex {
                            node: id,
                            part: i as u32,
                            back: false,
                        });
                        (v, v)
                    })
                    .collect()
            };
            let inner = output_kind(&node.op, 0);
            for i in 1..s.len() {
                link(
                    &mut g,
                    (vs[i - 1], vs[i]),
                    (None, Some(id)),
                    inner,
                    s[i - 1],
                    0,
                );
            }
            // A pipeline that takes a token every `ii` cycles: a cycle of `ii` over one token
            // at its first stage.
            if let Op::Pipeline { ii, .. } = node.op
                && ii > 1
                && let Some(&(first, _)) = vs.first()
            {
                g.add_edge(
                    first,
                    first,
                    Edge {
                        channel: None,
                        buffer: Some(id),
                        dir: Direction::Turn,
                        latency: u64::from(ii),
                        tokens: 1,
                        enters_merge: false,
                    },
                );
            }
            verts.push(vs);
        }
        let back_edges = if opts.loop_tokens {
            loop_back_edges(f)
        } else {
            BTreeSet::new()
        };
        for (ch, c) in &f.channels {
            let p = c.producer.node;
            let pnode = &f.nodes[p];
            let port = c.producer.port as usize;
            let kind = output_kind(&pnode.op, port);
            let preloaded = slots(&pnode.op).last().copied().unwrap_or(false);
            let loop_tok = u64::from(back_edges.contains(&ch));
            let pv = &verts[p.index()];
            let from = match kind {
                OutputKind::Slots | OutputKind::Stages | OutputKind::Fifo { .. } => {
                    pv[pv.len() - 1]
                }
                OutputKind::Comb | OutputKind::Registered => {
                    pv[output_group(&pnode.op, port).min(pv.len() - 1)]
                }
            };
            let branch = pnode.op.spec().display == DisplayClass::Branch;
            for cons in &c.consumers {
                let cnode = &f.nodes[cons.node];
                let cv = &verts[cons.node.index()];
                let to = cv[input_group(&cnode.op, cons.port as usize).min(cv.len() - 1)];
                let merge_data =
                    data_inputs(&cnode.op).is_some_and(|first| cons.port as usize >= first);
                let (fwd, back) = link(
                    &mut g,
                    (from, to),
                    (Some(ch), None),
                    kind,
                    preloaded,
                    loop_tok,
                );
                g[fwd].enters_merge = merge_data;
                if branch || merge_data {
                    // Only the forward edge: see the module documentation (choices).
                    g.remove_edge(back);
                }
            }
        }
        let mut model = Model {
            graph: g,
            back_edges,
        };
        if opts.loop_tokens {
            model.repair_loops();
        }
        model
    }

    /// A forward cycle without tokens through a merge-like node is a loop whose back edge
    /// [`loops`] did not find (its nesting is irregular): put the loop token on the last edge
    /// of the cycle that enters a merge, and look again.
    fn repair_loops(&mut self) {
        while let Some(c) = critical_cycle(self, |_| true) {
            if c.tokens > 0 {
                break;
            }
            let Some(&e) = c.edges.iter().rev().find(|&&e| self.graph[e].enters_merge) else {
                break;
            };
            self.graph[e].tokens += 1;
            if let Some(ch) = self.graph[e].channel {
                self.back_edges.insert(ch);
            }
        }
    }

    /// The channel or buffer an edge belongs to, as a stable name (`fork0.out1`, or
    /// `buffer3[0→1]` for the link between two slots of a buffer).
    pub fn edge_name(&self, f: &Function, e: EdgeIndex) -> String {
        let w = &self.graph[e];
        match (w.channel, w.buffer, w.dir) {
            (Some(ch), _, _) => f.channels[ch].name.clone(),
            (None, Some(n), Direction::Turn) => f.nodes[n].id.clone(),
            (None, Some(b), Direction::Forward | Direction::Backward) => {
                let (s, t) = self.graph.edge_endpoints(e).unwrap_or_default();
                let (a, z) = match w.dir {
                    Direction::Backward => (self.graph[t].part, self.graph[s].part),
                    Direction::Forward | Direction::Turn => {
                        (self.graph[s].part, self.graph[t].part)
                    }
                };
                format!("{}[slot{a}→slot{z}]", f.nodes[b].id)
            }
            (None, None, _) => String::new(),
        }
    }
}

/// Adds the forward and backward edge of one link (`ends`: producer and consumer, each as
/// its forward and backward vertex; `owner`: the channel, or the buffer of an internal slot
/// link); returns both edges.
fn link(
    g: &mut DiGraph<Vertex, Edge>,
    (from, to): ((NodeIndex, NodeIndex), (NodeIndex, NodeIndex)),
    (channel, buffer): (Option<ChannelId>, Option<NodeId>),
    kind: OutputKind,
    preloaded: bool,
    loop_tok: u64,
) -> (EdgeIndex, EdgeIndex) {
    let pre = u64::from(preloaded);
    let (fwd_lat, back_lat, back_tok) = match kind {
        OutputKind::Comb => (0, 0, 0),
        OutputKind::Registered => (1, 0, 1),
        OutputKind::Slots => (1, 1, 2 - pre),
        OutputKind::Stages => (1, 0, 1),
        OutputKind::Fifo { fwd, back, places } => (fwd, back, places.saturating_sub(pre)),
    };
    let fwd = g.add_edge(
        from.0,
        to.0,
        Edge {
            channel,
            buffer,
            dir: Direction::Forward,
            latency: fwd_lat,
            tokens: pre + loop_tok,
            enters_merge: false,
        },
    );
    let back = g.add_edge(
        to.1,
        from.1,
        Edge {
            channel,
            buffer,
            dir: Direction::Backward,
            latency: back_lat,
            tokens: back_tok,
            enters_merge: false,
        },
    );
    (fwd, back)
}

/// The two turns at a node without slots: from forward to backward (a join waiting for
/// its other inputs) costs nothing; from backward to forward (the node handing on a token
/// it was offered, once the path back has made room) takes one cycle and the one token the
/// node's input holds.
fn turn(g: &mut DiGraph<Vertex, Edge>, node: NodeId, fw: NodeIndex, bw: NodeIndex) {
    let e = |latency, tokens| Edge {
        channel: None,
        buffer: Some(node),
        dir: Direction::Turn,
        latency,
        tokens,
        enters_merge: false,
    };
    g.add_edge(fw, bw, e(0, 0));
    g.add_edge(bw, fw, e(1, 1));
}

/// A cycle of the model and its ratio.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CycleRatio {
    /// The edges, in order around the cycle.
    pub edges: Vec<EdgeIndex>,
    /// Sum of latencies.
    pub latency: u64,
    /// Sum of tokens.
    pub tokens: u64,
}

impl CycleRatio {
    /// Predicted tokens per cycle: `min(1, tokens / latency)` (0 for a cycle without tokens).
    pub fn throughput(&self) -> f64 {
        if self.tokens == 0 {
            0.0
        } else {
            (self.tokens as f64 / self.latency as f64).min(1.0)
        }
    }

    /// Ratio latency / tokens (`inf` without tokens).
    pub fn ratio(&self) -> f64 {
        self.latency as f64 / self.tokens as f64
    }

    /// True when `self` has a larger latency/tokens ratio than `other`.
    fn beats(&self, other: &CycleRatio) -> bool {
        // L1/T1 > L2/T2 with T = 0 meaning infinity.
        (self.latency as u128) * (other.tokens as u128)
            > (other.latency as u128) * (self.tokens as u128)
    }
}

/// The cycle of the largest latency/tokens ratio among the edges `keep` accepts (vertices
/// and edges of the whole model otherwise). `None` when no cycle has positive latency
/// (every path is combinational or slack is unlimited: throughput 1).
pub fn critical_cycle(model: &Model, keep: impl Fn(&Vertex) -> bool) -> Option<CycleRatio> {
    // Restrict to the kept vertices.
    let mut sub: DiGraph<(), (EdgeIndex, u64, u64)> = DiGraph::new();
    let mut map = vec![None; model.graph.node_count()];
    for v in model.graph.node_indices() {
        if keep(&model.graph[v]) {
            map[v.index()] = Some(sub.add_node(()));
        }
    }
    for e in model.graph.edge_references() {
        if let (Some(a), Some(b)) = (map[e.source().index()], map[e.target().index()]) {
            let w = e.weight();
            sub.add_edge(a, b, (e.id(), w.latency, w.tokens));
        }
    }
    if sub.node_count() == 0 {
        return None;
    }
    // (L, T) of the best cycle so far; start with weights "-latency" (any positive-latency
    // cycle is negative).
    let mut best: Option<CycleRatio> = None;
    loop {
        let (l_best, t_best) = match &best {
            Some(c) => (c.latency, c.tokens),
            None => (0, 1),
        };
        if best.is_some() && t_best == 0 {
            return best; // a cycle without tokens: nothing beats it
        }
        // Weight of an edge: L*t - T*l; negative cycle <=> ratio > L/T.
        let weighted = sub.map(
            |_, _| (),
            |_, &(_, l, t)| (l_best as f64) * (t as f64) - (t_best as f64) * (l as f64),
        );
        let mut found = None;
        // Every vertex of a strongly connected part is a source; try each SCC once.
        for comp in crate::scc::tarjan_scc(&weighted) {
            if comp.len() < 2 && !has_self_loop(&weighted, comp[0]) {
                continue;
            }
            if let Some(path) = petgraph::algo::find_negative_cycle(&weighted, comp[0]) {
                found = Some(path);
                break;
            }
        }
        let Some(path) = found else {
            return best;
        };
        // The cheapest edge between consecutive vertices (the one Bellman-Ford relaxed).
        let mut cyc = CycleRatio {
            edges: Vec::new(),
            latency: 0,
            tokens: 0,
        };
        for i in 0..path.len() {
            let (a, b) = (path[i], path[(i + 1) % path.len()]);
            let e = weighted
                .edges_connecting(a, b)
                .min_by(|x, y| x.weight().total_cmp(y.weight()))
                .map(|x| x.id());
            let Some(e) = e else {
                return best;
            };
            let (orig, l, t) = sub[e];
            cyc.edges.push(orig);
            cyc.latency += l;
            cyc.tokens += t;
        }
        match &best {
            Some(b) if !cyc.beats(b) => return best,
            _ => {}
        }
        if cyc.latency == 0 {
            return best;
        }
        best = Some(cyc);
    }
}

fn has_self_loop<N, E>(g: &DiGraph<N, E>, v: NodeIndex) -> bool {
    g.edges_connecting(v, v).next().is_some()
}
