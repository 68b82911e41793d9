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
pub(crate) fn canonicalize(g: &mut HGraph, keep: &[usize]) {
    loop {
        let mut changed = false;
        for i in 0..g.nodes.len() {
            if g.nodes[i].dead || keep.contains(&i) {
                continue;
            }
            let n = &g.nodes[i];
            let replacement = match &n.op {
                Op::Merge | Op::Br if n.ins.len() == 1 => Some(n.ins[0]),
                Op::Mux if n.ins.len() >= 2 && n.ins[1..].iter().all(|p| *p == n.ins[1]) => {
                    Some(n.ins[1])
                }
                _ => None,
            };
            if let Some(r) = replacement {
                g.replace_uses(Port::new(i, 0), r);
                g.nodes[i].dead = true;
                changed = true;
            }
        }
        let uses = g.uses();
        for i in 0..g.nodes.len() {
            if g.nodes[i].dead || keep.contains(&i) {
                continue;
            }
            let used = |p: u32| uses.get(&Port::new(i, p)).is_some_and(|u| !u.is_empty());
            let n = &g.nodes[i];
            if n.op == Op::ControlMerge && !used(1) {
                let node = &mut g.nodes[i];
                node.op = Op::Merge;
                node.outs = vec![Type::None];
                changed = true;
                continue;
            }
            if removable(&n.op) && !(0..n.outs.len() as u32).any(used) {
                g.nodes[i].dead = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
}
