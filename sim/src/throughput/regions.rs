//! The parts of a circuit whose throughput is reported: loops (strongly connected parts of
//! the valid-direction graph), basic blocks (`handshake.bb`) and reconvergent regions (a
//! fork's outputs meeting again at one node).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde::Serialize;

use crate::graph::{ChannelId, Function, NodeId};
use crate::spec::DisplayClass;

/// What kind of part a [`Region`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RegionKind {
    /// A loop: a strongly connected part of the graph (valid direction).
    Loop,
    /// The nodes of one basic block.
    Block,
    /// A fork, the node where two or more of its outputs meet again, and the nodes between.
    Reconvergent,
}

/// A part of the circuit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// Kind.
    pub kind: RegionKind,
    /// Name: `loop@<header>`, the block label, or `<fork>→<join>`.
    pub name: String,
    /// Its nodes, in node order.
    pub nodes: BTreeSet<NodeId>,
    /// Channels whose transfers count as its tokens (loops: back edges; reconvergent: the
    /// fork's input; blocks: every channel a node of the block produces); the busiest one
    /// sets the measured rate.
    pub pulse: Vec<ChannelId>,
}

/// Longest path (in nodes) followed from a fork when looking for the node where its outputs
/// meet again.
const RECONVERGENCE_DEPTH: usize = 48;

/// Loops (outermost first), blocks and reconvergent regions of a flat function, in that
/// order.
pub fn regions(f: &Function) -> Vec<Region> {
    let mut out = loops(f);
    out.extend(blocks(f));
    out.extend(reconvergent(f));
    out
}

fn loops(f: &Function) -> Vec<Region> {
    crate::throughput::model::loops(f)
        .into_iter()
        .map(|l| {
            let header = l
                .back_edges
                .first()
                .or(l.preloaded.first())
                .and_then(|&c| f.channels[c].consumers.first().map(|k| k.node))
                .or_else(|| l.nodes.first().copied())
                .expect("a loop has a node");
            Region {
                kind: RegionKind::Loop,
                name: format!("loop@{}", f.nodes[header].id),
                nodes: l.nodes,
                pulse: l.back_edges.into_iter().chain(l.preloaded).collect(),
            }
        })
        .collect()
}

fn blocks(f: &Function) -> Vec<Region> {
    let mut by: BTreeMap<&str, BTreeSet<NodeId>> = BTreeMap::new();
    for (id, n) in &f.nodes {
        if let Some(b) = &n.block {
            by.entry(b.as_str()).or_default().insert(id);
        }
    }
    let mut out: Vec<Region> = by
        .into_iter()
        .map(|(name, nodes)| {
            let pulse = nodes
                .iter()
                .flat_map(|&n| f.nodes[n].outputs.iter().copied())
                .collect();
            Region {
                kind: RegionKind::Block,
                name: name.to_string(),
                nodes,
                pulse,
            }
        })
        .collect();
    // bb2 before bb10; a stream operator's block by its line.
    out.sort_by_key(|r| {
        let digits: String = r.name.chars().filter(char::is_ascii_digit).collect();
        let key = crate::stream::operator_line(&r.name).or_else(|| digits.parse::<u64>().ok());
        (key.unwrap_or(u64::MAX), r.name.clone())
    });
    out
}

fn reconvergent(f: &Function) -> Vec<Region> {
    let mut out = Vec::new();
    let mut seen: BTreeSet<Vec<NodeId>> = BTreeSet::new();
    for (fork, node) in &f.nodes {
        if node.op.spec().display != DisplayClass::Fork || node.outputs.len() < 2 {
            continue;
        }
        // Breadth-first from each output; `reach[n]`: outputs that reach n, and depth.
        let mut reach: BTreeMap<NodeId, (u64, usize)> = BTreeMap::new();
        let mut queue = VecDeque::new();
        for (oi, &ch) in node.outputs.iter().enumerate().take(64) {
            for k in &f.channels[ch].consumers {
                queue.push_back((k.node, oi, 1usize));
            }
        }
        let mut visited: BTreeSet<(NodeId, usize)> = BTreeSet::new();
        while let Some((n, oi, d)) = queue.pop_front() {
            if n == fork || d > RECONVERGENCE_DEPTH || !visited.insert((n, oi)) {
                continue;
            }
            let e = reach.entry(n).or_insert((0, d));
            e.0 |= 1 << oi;
            e.1 = e.1.max(d);
            for &ch in &f.nodes[n].outputs {
                for k in &f.channels[ch].consumers {
                    queue.push_back((k.node, oi, d + 1));
                }
            }
        }
        let join = reach
            .iter()
            .filter(|(_, (mask, _))| mask.count_ones() >= 2)
            .min_by_key(|(n, (_, d))| (*d, **n))
            .map(|(n, _)| *n);
        let Some(join) = join else { continue };
        // Nodes between: reached from the fork and reaching the join.
        let mut nodes = BTreeSet::from([fork, join]);
        let mut back = vec![join];
        while let Some(n) = back.pop() {
            for &ch in &f.nodes[n].inputs {
                let p = f.channels[ch].producer.node;
                if reach.contains_key(&p) && nodes.insert(p) {
                    back.push(p);
                }
            }
        }
        if !seen.insert(nodes.iter().copied().collect()) {
            continue;
        }
        out.push(Region {
            kind: RegionKind::Reconvergent,
            name: format!("{}→{}", node.id, f.nodes[join].id),
            nodes,
            pulse: node.inputs.clone(),
        });
    }
    out
}
