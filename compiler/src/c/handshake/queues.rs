//! Passes for kernels whose arrays go through load-store queues or address queues
//! (`--memory lsq`, `--memory queue`).
//!
//! With a queue, a block's control token no longer waits for the accesses: the queue keeps
//! their order. What still ties it to the data is a constant that the block's control
//! triggers and that meets a loaded value in an `arith` op: the constant's trigger is taken
//! only when that op fires, so the block's control (an eager fork's input) waits for the load
//! and the next iteration cannot enter. Such a constant is paced by its other operand
//! anyway, so it can be offered all the time instead.

use handscope_sim::{Op, Type};

use super::hgraph::{HGraph, Port};

/// Gives a `source` trigger to every constant whose every consumer is an `arith` op with an
/// operand that is not a constant (that operand paces it).
pub(crate) fn constants_paced_by_data(g: &mut HGraph) {
    let n = g.nodes.len();
    let mut users: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, node) in g.nodes.iter().enumerate() {
        if node.dead {
            continue;
        }
        for p in &node.ins {
            if p.node < n {
                users[p.node].push(i);
            }
        }
    }
    let is_const = |g: &HGraph, i: usize| matches!(g.nodes[i].op, Op::Constant { .. });
    let paced: Vec<usize> = (0..n)
        .filter(|&i| !g.nodes[i].dead && is_const(g, i) && !users[i].is_empty())
        .filter(|&i| {
            users[i].iter().all(|&u| {
                matches!(g.nodes[u].op, Op::Arith(_))
                    && g.nodes[u]
                        .ins
                        .iter()
                        .any(|p| p.node < n && !is_const(g, p.node))
            })
        })
        .collect();
    for c in paced {
        let (block, span) = (g.nodes[c].block.clone(), g.nodes[c].span);
        let s = g.add(Op::Source, vec![], vec![Type::None], block.as_deref(), span);
        g.nodes[c].ins[0] = Port::new(s, 0);
    }
}
