//! The static throughput model: a timed marked graph of the circuit and its critical cycles
//! (maximum cycle ratio of latency over tokens).
//!
//! Every buffer slot is a vertex of its own (CIRCT 1.62's RTL builds an `N`-slot buffer as a
//! chain of `N` slots, each holding up to two tokens, `docs/semantics.md` "Buffers"); every
//! other node is one vertex. Each channel, and each link between two slots of one buffer,
//! gives two edges:
//!
//! * **forward** (producer → consumer, the valid direction): latency 1 when the producer is a
//!   slot (its output is registered), else 0; tokens: 1 when the producing slot is preloaded
//!   (`initValues`), plus 1 on a loop's back edge into a `mux`/`merge`/`control_merge` (one
//!   iteration in flight; see [`ModelOptions`]).
//! * **backward** (consumer → producer, the ready direction: free space): from a slot,
//!   latency 1 and `2 − preloaded` tokens (the slot's `ready` is registered and it holds two
//!   tokens); from a node with output registers (eager `fork`, `sync`, `unpack`,
//!   `control_merge`, memory load ports: one `emitted` flag per output), latency 1 and 1
//!   token (the node keeps a token it has offered but not yet handed over); from a purely
//!   combinational producer, latency 0 and no token.
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
use crate::spec::{StateLayout, WaitRule};

/// Which way an edge of the model runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    /// Tokens move producer → consumer (valid).
    Forward,
    /// Free space moves consumer → producer (ready).
    Backward,
}

/// A vertex of the model: a node, or one slot of a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Vertex {
    /// The node.
    pub node: NodeId,
    /// For a buffer, the slot (0 at the input); 0 otherwise.
    pub slot: u32,
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

/// How a node's outputs hold tokens, from its register layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OutputKind {
    /// Purely combinational.
    Comb,
    /// Output registers that keep an offered token (`emitted` flags).
    Held,
    /// Buffer slots.
    Slots,
}

fn output_kind(op: &Op) -> OutputKind {
    match op.spec().state {
        StateLayout::None => OutputKind::Comb,
        StateLayout::EmittedPerOutput
        | StateLayout::ControlMerge
        | StateLayout::MemoryPorts { .. } => OutputKind::Held,
        StateLayout::BufferSlots { .. } => OutputKind::Slots,
    }
}

fn merge_like(op: &Op) -> bool {
    match op.spec().waits_for {
        WaitRule::SelectedInput | WaitRule::AnyInput => true,
        WaitRule::Nothing | WaitRule::AllInputs | WaitRule::InputWhenEmpty => false,
    }
}

/// Slot count and preloaded flags of a buffer (empty for other ops).
fn slots(op: &Op) -> Vec<bool> {
    match op {
        Op::Buffer { slots, init, .. } => (0..*slots as usize)
            .map(|i| init.as_ref().is_some_and(|v| i < v.len()))
            .collect(),
        _ => Vec::new(),
    }
}

/// Channels that close a loop: depth-first search over the forward graph from the arguments
/// (then from every node not reached, in node order); an edge to a node still on the search
/// path whose consumer is merge-like.
pub fn loop_back_edges(f: &Function) -> BTreeSet<ChannelId> {
    // Successors of every node: (channel, consumer), in output and consumer order.
    let succ: Vec<Vec<(ChannelId, NodeId)>> = f
        .nodes
        .values()
        .map(|n| {
            n.outputs
                .iter()
                .flat_map(|&ch| f.channels[ch].consumers.iter().map(move |k| (ch, k.node)))
                .collect()
        })
        .collect();
    let mut state = vec![0u8; f.nodes.len()]; // 0 new, 1 on the path, 2 done
    let mut out = BTreeSet::new();
    let roots = f.args.iter().filter_map(|a| a.node).chain(f.nodes.keys());
    for root in roots {
        if state[root.index()] != 0 {
            continue;
        }
        state[root.index()] = 1;
        let mut stack: Vec<(NodeId, usize)> = vec![(root, 0)];
        while let Some((node, next)) = stack.last_mut() {
            let Some(&(ch, to)) = succ[node.index()].get(*next) else {
                state[node.index()] = 2;
                stack.pop();
                continue;
            };
            *next += 1;
            match state[to.index()] {
                0 => {
                    state[to.index()] = 1;
                    stack.push((to, 0));
                }
                1 if merge_like(&f.nodes[to].op) => {
                    out.insert(ch);
                }
                _ => {}
            }
        }
    }
    out
}

impl Model {
    /// Builds the model of a flat function.
    pub fn build(f: &Function, opts: ModelOptions) -> Model {
        let mut g = DiGraph::new();
        // First vertex of every node (buffers: slot 0), and their slot flags.
        let mut first = Vec::with_capacity(f.nodes.len());
        let mut last = Vec::with_capacity(f.nodes.len());
        for (id, node) in &f.nodes {
            let s = slots(&node.op);
            let a = g.add_node(Vertex { node: id, slot: 0 });
            let mut prev = a;
            for i in 1..s.len() {
                let v = g.add_node(Vertex {
                    node: id,
                    slot: i as u32,
                });
                let prev_pre = s[i - 1];
                link(
                    &mut g,
                    prev,
                    v,
                    None,
                    Some(id),
                    OutputKind::Slots,
                    prev_pre,
                    0,
                );
                prev = v;
            }
            first.push(a);
            last.push(prev);
        }
        let back_edges = if opts.loop_tokens {
            loop_back_edges(f)
        } else {
            BTreeSet::new()
        };
        for (ch, c) in &f.channels {
            let p = c.producer.node;
            let pnode = &f.nodes[p];
            let kind = output_kind(&pnode.op);
            let preloaded = slots(&pnode.op).last().copied().unwrap_or(false);
            let loop_tok = u64::from(back_edges.contains(&ch));
            for cons in &c.consumers {
                link(
                    &mut g,
                    last[p.index()],
                    first[cons.node.index()],
                    Some(ch),
                    None,
                    kind,
                    preloaded,
                    loop_tok,
                );
            }
        }
        Model {
            graph: g,
            back_edges,
        }
    }

    /// The channel or buffer an edge belongs to, as a stable name (`fork0.out1`, or
    /// `buffer3[0→1]` for the link between two slots of a buffer).
    pub fn edge_name(&self, f: &Function, e: EdgeIndex) -> String {
        let w = &self.graph[e];
        match (w.channel, w.buffer) {
            (Some(ch), _) => f.channels[ch].name.clone(),
            (None, Some(b)) => {
                let (s, _) = self.graph.edge_endpoints(e).unwrap_or_default();
                let (a, t) = match w.dir {
                    Direction::Forward => (self.graph[s].slot, self.graph[s].slot + 1),
                    Direction::Backward => (self.graph[s].slot - 1, self.graph[s].slot),
                };
                format!("{}[slot{a}→slot{t}]", f.nodes[b].id)
            }
            (None, None) => String::new(),
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn link(
    g: &mut DiGraph<Vertex, Edge>,
    from: NodeIndex,
    to: NodeIndex,
    channel: Option<ChannelId>,
    buffer: Option<NodeId>,
    kind: OutputKind,
    preloaded: bool,
    loop_tok: u64,
) {
    let pre = u64::from(preloaded);
    let (fwd_lat, back_lat, back_tok) = match kind {
        OutputKind::Comb => (0, 0, 0),
        OutputKind::Held => (0, 1, 1),
        OutputKind::Slots => (1, 1, 2 - pre),
    };
    g.add_edge(
        from,
        to,
        Edge {
            channel,
            buffer,
            dir: Direction::Forward,
            latency: fwd_lat,
            tokens: pre + loop_tok,
        },
    );
    g.add_edge(
        to,
        from,
        Edge {
            channel,
            buffer,
            dir: Direction::Backward,
            latency: back_lat,
            tokens: back_tok,
        },
    );
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
