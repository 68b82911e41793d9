//! Canonicalization of the graph before fork/sink materialization, to a fixed point:
//!
//! * a `merge` with one input is replaced by that input (single-predecessor block entries);
//! * a `mux` whose data inputs are all the same value is replaced by that value;
//! * a `control_merge` whose `index` nobody reads becomes a `merge` of its control inputs;
//! * side-effect-free nodes (`arith`, `constant`, `merge`, `mux`, `control_merge`,
//!   `cond_br`, `join`, `index_cast`) none of whose outputs is read are deleted.
//!
//! `br` nodes are never created (unconditional branches connect directly) and forks are only
//! created afterwards by materialization, so single-output forks and unused fork outputs do
//! not arise.

use std::collections::BTreeMap;

use handscope_sim::{Op, Type};

use super::hgraph::{HGraph, Port};

/// Nodes that may be deleted when nothing reads them.
fn removable(op: &Op) -> bool {
    matches!(
        op,
        Op::Arith(_)
            | Op::Constant { .. }
            | Op::Merge
            | Op::Mux
            | Op::ControlMerge
            | Op::CondBr
            | Op::Join
            | Op::Br
    )
}

/// Runs the rewrites until nothing changes. `keep` lists nodes that must survive (their
/// inputs may still be rewired).
///
/// Work-list driven, so the cost is linear in the graph (a sweep over every node per
/// rewrite, and a sweep per round until nothing changes, made long graphs quadratic):
/// replaced outputs are forwarded to their replacement and resolved once at the end, every
/// output's use count is kept up to date, and a node is looked at again only when one of its
/// inputs was forwarded (a `mux` may now see equal inputs) or one of its outputs lost its
/// last use (it may now be deleted).
pub(crate) fn canonicalize(g: &mut HGraph, keep: &[usize]) {
    let n = g.nodes.len();
    let mut kept = vec![false; n];
    for &k in keep {
        if let Some(x) = kept.get_mut(k) {
            *x = true;
        }
    }
    let mut fwd: BTreeMap<Port, Port> = BTreeMap::new();
    let resolve = |fwd: &mut BTreeMap<Port, Port>, p: Port| -> Port {
        let mut r = p;
        while let Some(&q) = fwd.get(&r) {
            r = q;
        }
        // Path compression: later lookups of `p` take one step.
        let mut c = p;
        while let Some(q) = fwd.get(&c).copied() {
            if q == r {
                break;
            }
            fwd.insert(c, r);
            c = q;
        }
        r
    };
    // Live input references per (resolved) output, and the nodes holding them.
    let mut uses: BTreeMap<Port, usize> = BTreeMap::new();
    let mut readers: BTreeMap<Port, Vec<usize>> = BTreeMap::new();
    for (i, node) in g.nodes.iter().enumerate() {
        if node.dead {
            continue;
        }
        for p in &node.ins {
            *uses.entry(*p).or_default() += 1;
            readers.entry(*p).or_default().push(i);
        }
    }
    let mut queued = vec![true; n];
    let mut work: Vec<usize> = (0..n).rev().collect();
    let push = |work: &mut Vec<usize>, queued: &mut Vec<bool>, i: usize| {
        if i < queued.len() && !queued[i] {
            queued[i] = true;
            work.push(i);
        }
    };
    while let Some(i) = work.pop() {
        queued[i] = false;
        if g.nodes[i].dead || kept[i] {
            continue;
        }
        let ins: Vec<Port> = g.nodes[i]
            .ins
            .iter()
            .map(|p| resolve(&mut fwd, *p))
            .collect();
        let replacement = match &g.nodes[i].op {
            Op::Merge | Op::Br if ins.len() == 1 => Some(ins[0]),
            Op::Mux if ins.len() >= 2 && ins[1..].iter().all(|p| *p == ins[1]) => Some(ins[1]),
            _ => None,
        };
        let used = |uses: &BTreeMap<Port, usize>, p: u32| {
            uses.get(&Port::new(i, p)).is_some_and(|&u| u > 0)
        };
        let remove = replacement.is_some()
            || (removable(&g.nodes[i].op)
                && !(0..g.nodes[i].outs.len() as u32).any(|p| used(&uses, p)));
        if g.nodes[i].op == Op::ControlMerge && !used(&uses, 1) {
            let node = &mut g.nodes[i];
            node.op = Op::Merge;
            node.outs = vec![Type::None];
            push(&mut work, &mut queued, i);
            continue;
        }
        if !remove {
            continue;
        }
        g.nodes[i].dead = true;
        // Its inputs lose a reader; producers left without any may go.
        for p in &ins {
            let u = uses.entry(*p).or_default();
            *u = u.saturating_sub(1);
            if *u == 0 {
                push(&mut work, &mut queued, p.node);
            }
        }
        let Some(r) = replacement else { continue };
        let from = Port::new(i, 0);
        if r == from {
            // A merge feeding itself: nothing to forward to.
            continue;
        }
        fwd.insert(from, r);
        let moved = uses.remove(&from).unwrap_or(0);
        *uses.entry(r).or_default() += moved;
        let moved_readers = readers.remove(&from).unwrap_or_default();
        for &k in &moved_readers {
            push(&mut work, &mut queued, k);
        }
        readers.entry(r).or_default().extend(moved_readers);
    }
    for node in g.nodes.iter_mut().filter(|n| !n.dead) {
        for p in &mut node.ins {
            *p = resolve(&mut fwd, *p);
        }
    }
}
