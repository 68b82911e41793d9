//! Combinational cycle detection.
//!
//! # Model
//!
//! Every channel `c` carries two groups of signals: the *forward* group `F(c)` (`valid` and
//! `data`, which always travel together) and the *ready* signal `R(c)`. Each node contributes
//! the combinational dependencies between the signals of its own ports that its op's
//! [`Comb`](crate::spec::Comb) shape states (see `docs/semantics.md` for the equations they come
//! from). `instance` nodes are opaque here: flatten the hierarchy first to look through them.
//!
//! # Why a signal-level graph
//!
//! For most ops the ready dependencies are exactly the forward ones reversed, so a cycle of
//! forward edges through nodes is also a cycle of ready edges and one SCC pass over node-level
//! forward edges would find both. The store port of a memory breaks that symmetry: a loop
//! `stDone_j -> ... (combinational) ... -> stAddr_j` is not a valid-path loop (the `wvb`
//! register cuts it) but *is* a ready-path loop (`stDone_j.ready` feeds `stAddr_j.ready`,
//! which feeds back through the chain to `stDone_j.ready`). `lazy_fork` additionally mixes the
//! two directions. So the analysis builds one graph whose vertices are the `F(c)` and `R(c)`
//! signals, runs Tarjan's SCC algorithm on it, and reports one concrete simple cycle per
//! non-trivial component. A plain loop of combinational nodes shows up twice (once as a
//! forward cycle, once as the reversed ready cycle); the two are merged into one report.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use petgraph::graph::{DiGraph, NodeIndex};

use super::{NodeRef, Problem, Rule};
use crate::graph::{ChannelId, Function, NodeId};
use crate::spec::Comb;

/// One signal group of a channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Signal {
    /// `valid` and `data`, produced by the channel's producer.
    Forward(ChannelId),
    /// `ready`, produced by the channel's consumer.
    Ready(ChannelId),
}

impl Signal {
    /// The channel the signal belongs to.
    pub fn channel(self) -> ChannelId {
        match self {
            Signal::Forward(c) | Signal::Ready(c) => c,
        }
    }
}

/// The combinational dependencies inside node `n`, as `(from, to)` pairs: `to` is computed
/// in the same cycle from `from`. They come from the op's [`Comb`](crate::spec::Comb) shape;
/// ports the node does not have are left out.
pub fn node_deps(f: &Function, n: NodeId) -> Vec<(Signal, Signal)> {
    let (mut deps, groups, others) = dep_groups(f, n);
    for (from, to) in groups {
        for &a in &from {
            deps.extend(to.iter().map(|&b| (a, b)));
        }
    }
    for (from, to) in others {
        for (i, &b) in to.iter().enumerate() {
            for (j, &a) in from.iter().enumerate() {
                if i != j {
                    deps.push((a, b));
                }
            }
        }
    }
    deps
}

/// All pairs of `from` x `to` are dependencies.
type DepGroup = (Vec<Signal>, Vec<Signal>);

/// [`node_deps`] in three parts: single pairs; join-like groups (every signal of a group's
/// `from` reaches every signal of its `to`: a node with `n` inputs has `n * n` such pairs,
/// which [`find_cycles`] represents with `2 * n` edges through a hub); and "others" groups
/// (`from[j]` reaches `to[i]` for every `j != i`: a lazy fork's outputs, represented with
/// chains of prefix and suffix hubs).
fn dep_groups(f: &Function, n: NodeId) -> (Vec<(Signal, Signal)>, Vec<DepGroup>, Vec<DepGroup>) {
    let node = &f.nodes[n];
    let ins = &node.inputs;
    let outs = &node.outputs;
    let mut deps = Vec::new();
    let mut groups: Vec<DepGroup> = Vec::new();
    let mut others: Vec<DepGroup> = Vec::new();
    let mut join = |ins: &[ChannelId], outs: &[ChannelId]| {
        let fwd = |cs: &[ChannelId]| cs.iter().map(|&c| Signal::Forward(c)).collect::<Vec<_>>();
        let rdy = |cs: &[ChannelId]| cs.iter().map(|&c| Signal::Ready(c)).collect::<Vec<_>>();
        groups.push((fwd(ins), fwd(outs)));
        groups.push((rdy(outs), rdy(ins)));
        groups.push((fwd(ins), rdy(ins)));
    };
    let pick = |list: &[ChannelId], idx: &[usize]| -> Vec<ChannelId> {
        idx.iter().filter_map(|&i| list.get(i).copied()).collect()
    };
    match node.op.spec().comb {
        Comb::None => {}
        Comb::Join => join(ins, outs),
        Comb::Island => {
            let fwd = ins.iter().map(|&c| Signal::Forward(c)).collect();
            let rdy = ins.iter().map(|&c| Signal::Ready(c)).collect();
            groups.push((fwd, rdy));
        }
        Comb::Pipeline => {
            for &i in ins {
                for &o in outs {
                    deps.push((Signal::Ready(o), Signal::Ready(i)));
                }
            }
        }
        Comb::Bypass { ready_through } => {
            for &i in ins {
                for &o in outs {
                    deps.push((Signal::Forward(i), Signal::Forward(o)));
                    if ready_through {
                        deps.push((Signal::Ready(o), Signal::Ready(i)));
                    }
                }
            }
        }
        Comb::Parallel { .. } | Comb::DynMc { .. } | Comb::AddrQueue { .. } => {
            // Stated once in `spec::Comb::deps`, by port.
            for (from, to) in node.op.spec().comb.deps(ins.len(), outs.len()) {
                let sig = |p: crate::spec::PortSignal| -> Option<Signal> {
                    use crate::spec::{PortRef, PortSignal};
                    let ch = |r: PortRef| match r {
                        PortRef::In(i) => ins.get(i).copied(),
                        PortRef::Out(o) => outs.get(o).copied(),
                    };
                    match p {
                        PortSignal::Forward(r) => ch(r).map(Signal::Forward),
                        PortSignal::Ready(r) => ch(r).map(Signal::Ready),
                    }
                };
                if let (Some(a), Some(b)) = (sig(from), sig(to)) {
                    deps.push((a, b));
                }
            }
        }
        Comb::SkidMerge => {
            for &i in ins {
                for &o in outs {
                    deps.push((Signal::Forward(i), Signal::Forward(o)));
                }
                for &j in ins {
                    deps.push((Signal::Forward(j), Signal::Ready(i)));
                }
            }
        }
        Comb::Load => {
            join(&pick(ins, &[0, 2]), &pick(outs, &[1]));
            join(&pick(ins, &[1]), &pick(outs, &[0]));
        }
        Comb::LazyFork => {
            for &i in ins {
                for &o in outs {
                    deps.push((Signal::Forward(i), Signal::Forward(o)));
                    deps.push((Signal::Ready(o), Signal::Ready(i)));
                }
            }
            // R(out_j) -> F(out_i) for every j != i.
            others.push((
                outs.iter().map(|&o| Signal::Ready(o)).collect(),
                outs.iter().map(|&o| Signal::Forward(o)).collect(),
            ));
        }
        Comb::Memory { ld, st } => {
            let (ld, st) = (ld as usize, st as usize);
            for i in 0..ld {
                join(&pick(ins, &[2 * st + i]), &pick(outs, &[i, ld + st + i]));
            }
            for j in 0..st {
                if let Some(&done) = outs.get(ld + j) {
                    for c in pick(ins, &[2 * j, 2 * j + 1]) {
                        deps.push((Signal::Ready(done), Signal::Ready(c)));
                    }
                }
            }
        }
    }
    (deps, groups, others)
}

/// A vertex of the dependency graph [`find_cycles`] searches: a signal, or a hub standing for
/// one large dependency group (its `from` signals have an edge to the hub, the hub has one to
/// each `to` signal).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Vertex {
    Sig(Signal),
    Hub(u32),
}

/// Groups with at most this many pairs are added pair by pair (small nodes keep exactly the
/// edges, and so the reported cycles, they always had); larger ones go through a hub.
const HUB_MIN_PAIRS: usize = 64;

/// A combinational cycle found in a function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CombCycle {
    /// Nodes along the cycle in data-flow order, starting from the smallest [`NodeId`].
    pub nodes: Vec<NodeId>,
    /// Channels along the cycle, `channels[i]` leaving `nodes[i]`'s side of the loop.
    pub channels: Vec<ChannelId>,
    /// True when the loop runs through valid/data signals.
    pub valid: bool,
    /// True when the loop runs through ready signals.
    pub ready: bool,
}

/// Finds one simple combinational cycle per strongly connected component of the signal
/// graph, merging a forward cycle with the ready cycle over the same nodes. Sorted by nodes.
pub fn find_cycles(f: &Function) -> Vec<CombCycle> {
    // (from, to) -> the node that creates the dependency (the first one, by NodeId).
    let mut edges: BTreeMap<(Vertex, Vertex), NodeId> = BTreeMap::new();
    let mut hubs = 0u32;
    for n in f.nodes.keys() {
        let (pairs, groups, others) = dep_groups(f, n);
        for (a, b) in pairs {
            edges.entry((Vertex::Sig(a), Vertex::Sig(b))).or_insert(n);
        }
        for (from, to) in groups {
            if from.len() * to.len() <= HUB_MIN_PAIRS.max(from.len() + to.len()) {
                for &a in &from {
                    for &b in &to {
                        edges.entry((Vertex::Sig(a), Vertex::Sig(b))).or_insert(n);
                    }
                }
            } else {
                let h = Vertex::Hub(hubs);
                hubs += 1;
                for a in from {
                    edges.insert((Vertex::Sig(a), h), n);
                }
                for b in to {
                    edges.insert((h, Vertex::Sig(b)), n);
                }
            }
        }
        for (from, to) in others {
            let k = from.len().min(to.len());
            if k * k <= HUB_MIN_PAIRS {
                for (i, &b) in to.iter().enumerate() {
                    for (j, &a) in from.iter().enumerate() {
                        if i != j {
                            edges.entry((Vertex::Sig(a), Vertex::Sig(b))).or_insert(n);
                        }
                    }
                }
                continue;
            }
            // prefix[i] is reached by from[0..i], suffix[i] by from[i+1..]; to[i] reads both.
            let mut hub = || {
                hubs += 1;
                Vertex::Hub(hubs - 1)
            };
            let prefix: Vec<Vertex> = (0..k).map(|_| hub()).collect();
            let suffix: Vec<Vertex> = (0..k).map(|_| hub()).collect();
            for i in 0..k {
                if i + 1 < k {
                    edges.insert((Vertex::Sig(from[i]), prefix[i + 1]), n);
                    edges.insert((prefix[i], prefix[i + 1]), n);
                    edges.insert((Vertex::Sig(from[i + 1]), suffix[i]), n);
                    edges.insert((suffix[i + 1], suffix[i]), n);
                }
                edges.insert((prefix[i], Vertex::Sig(to[i])), n);
                edges.insert((suffix[i], Vertex::Sig(to[i])), n);
            }
        }
    }
    let mut g: DiGraph<Vertex, NodeId> = DiGraph::new();
    let mut index: BTreeMap<Vertex, NodeIndex> = BTreeMap::new();
    for (&(a, b), &n) in &edges {
        let ia = *index.entry(a).or_insert_with(|| g.add_node(a));
        let ib = *index.entry(b).or_insert_with(|| g.add_node(b));
        g.add_edge(ia, ib, n);
    }
    // The edges inside each component, in `edges` order, gathered in one pass (a scan of
    // all edges per component would be quadratic: most components are single signals).
    let sccs = crate::scc::tarjan_scc(&g);
    let mut component = vec![usize::MAX; g.node_count()];
    for (k, scc) in sccs.iter().enumerate() {
        for i in scc {
            component[i.index()] = k;
        }
    }
    let mut inner_edges: Vec<Vec<(Vertex, Vertex, NodeId)>> = vec![Vec::new(); sccs.len()];
    for (&(a, b), &n) in &edges {
        let (ka, kb) = (component[index[&a].index()], component[index[&b].index()]);
        if ka == kb {
            inner_edges[ka].push((a, b, n));
        }
    }
    let mut cycles: Vec<CombCycle> = Vec::new();
    for inner in inner_edges {
        if inner.is_empty() {
            continue;
        }
        if let Some(c) = one_cycle(&inner) {
            match cycles.iter_mut().find(|k| same_nodes(&k.nodes, &c.nodes)) {
                Some(k) => {
                    k.valid |= c.valid;
                    k.ready |= c.ready;
                }
                None => cycles.push(c),
            }
        }
    }
    cycles.sort_by(|a, b| a.nodes.cmp(&b.nodes));
    cycles
}

fn same_nodes(a: &[NodeId], b: &[NodeId]) -> bool {
    let sa: BTreeSet<_> = a.iter().collect();
    let sb: BTreeSet<_> = b.iter().collect();
    sa == sb
}

/// Extracts a shortest simple cycle through the lowest-numbered node's first edge in the
/// component, by breadth-first search in sorted edge order.
fn one_cycle(inner: &[(Vertex, Vertex, NodeId)]) -> Option<CombCycle> {
    let &(start_from, start_to, start_node) = inner.iter().min_by_key(|(a, b, n)| (*n, *a, *b))?;
    let mut adj: BTreeMap<Vertex, Vec<(Vertex, NodeId)>> = BTreeMap::new();
    for &(a, b, n) in inner {
        adj.entry(a).or_default().push((b, n));
    }
    // BFS from start_to back to start_from.
    let mut prev: BTreeMap<Vertex, (Vertex, NodeId)> = BTreeMap::new();
    let mut queue = VecDeque::from([start_to]);
    let mut seen = BTreeSet::from([start_to]);
    while let Some(s) = queue.pop_front() {
        if s == start_from {
            break;
        }
        for &(t, n) in adj.get(&s).map(Vec::as_slice).unwrap_or(&[]) {
            if seen.insert(t) {
                prev.insert(t, (s, n));
                queue.push_back(t);
            }
        }
    }
    if !seen.contains(&start_from) {
        return None;
    }
    // Edge list of the cycle, in propagation order, starting with the chosen edge.
    let mut path = Vec::new();
    let mut cur = start_from;
    while cur != start_to {
        let (p, n) = prev[&cur];
        path.push((p, cur, n));
        cur = p;
    }
    path.reverse();
    let mut with_hubs = vec![(start_from, start_to, start_node)];
    with_hubs.extend(path);
    // Back to signal edges: `a -> hub -> b` inside one node is the dependency `a -> b`.
    let first_sig = with_hubs
        .iter()
        .position(|(a, _, _)| matches!(a, Vertex::Sig(_)))?;
    with_hubs.rotate_left(first_sig);
    let mut cycle: Vec<(Signal, Signal, NodeId)> = Vec::new();
    let mut open: Option<(Signal, NodeId)> = None;
    for (a, b, n) in with_hubs {
        match (a, b) {
            (Vertex::Sig(a), Vertex::Sig(b)) => cycle.push((a, b, n)),
            (Vertex::Sig(a), Vertex::Hub(_)) => open = Some((a, n)),
            (Vertex::Hub(_), Vertex::Sig(b)) => {
                let (a, n) = open.take()?;
                cycle.push((a, b, n));
            }
            // Inside a chain of hubs: still within the same dependency.
            (Vertex::Hub(_), Vertex::Hub(_)) => {}
        }
    }
    let forward = cycle
        .iter()
        .all(|(a, b, _)| matches!((a, b), (Signal::Forward(_), Signal::Forward(_))));
    let ready = cycle
        .iter()
        .all(|(a, b, _)| matches!((a, b), (Signal::Ready(_), Signal::Ready(_))));
    // Nodes and channels in propagation order; node i is followed by the channel its edge
    // writes to.
    let mut nodes: Vec<NodeId> = Vec::new();
    let mut channels: Vec<ChannelId> = Vec::new();
    for &(_, to, n) in &cycle {
        if nodes.last() != Some(&n) {
            nodes.push(n);
            channels.push(to.channel());
        } else if let Some(last) = channels.last_mut() {
            *last = to.channel();
        }
    }
    if nodes.len() > 1 && nodes.first() == nodes.last() {
        // The loop entered and left the same node: merge the two halves (the node writes
        // the first edge's channel).
        nodes.pop();
        channels.pop();
    }
    if ready {
        // Ready propagates against the data flow: present the loop in data-flow order, each
        // node followed by the channel it drives.
        nodes.reverse();
        channels.reverse();
        channels.rotate_left(1);
    }
    let k = nodes
        .iter()
        .enumerate()
        .min_by_key(|(_, n)| **n)
        .map(|(i, _)| i)
        .unwrap_or(0);
    nodes.rotate_left(k);
    channels.rotate_left(k);
    Some(CombCycle {
        nodes,
        channels,
        valid: forward || !ready,
        ready: ready || !forward,
    })
}

/// One [`Rule::CombinationalCycle`] error per cycle found by [`find_cycles`].
pub fn cycle_problems(f: &Function) -> Vec<Problem> {
    find_cycles(f)
        .into_iter()
        .map(|c| {
            let ids: Vec<&str> = c.nodes.iter().map(|n| f.nodes[*n].id.as_str()).collect();
            let kind = match (c.valid, c.ready) {
                (true, true) => "valid and ready paths",
                (true, false) => "valid path",
                _ => "ready path",
            };
            let mut path = ids.join(" -> ");
            if let Some(first) = ids.first() {
                path.push_str(" -> ");
                path.push_str(first);
            }
            Problem {
                rule: Rule::CombinationalCycle,
                function: f.name.clone(),
                message: format!("combinational cycle ({kind}) with no buffer: {path}"),
                nodes: c
                    .nodes
                    .iter()
                    .map(|n| NodeRef {
                        id: f.nodes[*n].id.clone(),
                        loc: f.nodes[*n].loc.clone(),
                    })
                    .collect(),
                channels: c
                    .channels
                    .iter()
                    .map(|ch| f.channels[*ch].name.clone())
                    .collect(),
            }
        })
        .collect()
}
