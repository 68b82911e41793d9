//! Task-pipelining-safe loops: several invocations may be in flight, but an outermost loop
//! holds one invocation at a time.
//!
//! The header of every outermost loop chooses its next control token with a `mux` instead of
//! a `control_merge`. The select comes from a one-slot "loop priming" buffer
//! (`buffer [1] seq {initValues = [e]}`, `e` = position of the loop's entry edge) that starts
//! primed for the external entry. Every back edge refills it with its own input position,
//! every edge leaving the loop with `e` (a `constant` triggered by the edge's control token;
//! the constants meet in a `merge`, only one of them fires per iteration). Tokens of the next
//! invocation therefore wait at the entry input until the current one has left the loop.
//! The header's data `mux`es read the same select.
//!
//! Loops whose header has more than one entry edge keep their `control_merge`.
//!
//! Memory accesses of different invocations stay in invocation order through a memory lock:
//! the ordering chains of invocation `k + 1` start from `join(start, lock)`, where the lock
//! is a one-slot buffer preloaded with one token and refilled by the join of invocation
//! `k`'s final ordering tokens.

use std::collections::BTreeSet;

use handscope_sim::{BufferKind, Op, Type};

use super::build::Built;
use super::hgraph::Port;
use crate::c::ir::IrFunction;

/// Natural loop of header `h`: `h` plus every block that reaches a back-edge source
/// without passing through `h`.
fn loop_body(f: &IrFunction, reach: &[bool], h: usize, sources: &[usize]) -> BTreeSet<usize> {
    let preds = f.predecessors();
    let mut body = BTreeSet::from([h]);
    let mut stack: Vec<usize> = sources.to_vec();
    while let Some(b) = stack.pop() {
        if !reach[b] || !body.insert(b) {
            continue;
        }
        stack.extend(preds[b].iter().map(|p| p.0 as usize));
    }
    body
}

/// Inserts the memory lock (see the module documentation); returns the nodes it added.
pub(crate) fn memory_lock(b: &mut Built) -> Vec<usize> {
    if b.mem_final.is_empty() || b.mem_start_uses.is_empty() {
        return Vec::new();
    }
    let span = b.g.nodes[b.ret].span;
    let g = &mut b.g;
    let fin = g.add(Op::Join, b.mem_final.clone(), vec![Type::None], Some("bb0"), span);
    let buf = g.add(
        Op::Buffer { slots: 1, kind: BufferKind::Seq, init: Some(vec![0]) },
        vec![Port::new(fin, 0)],
        vec![Type::None],
        Some("bb0"),
        span,
    );
    let gate = g.add(
        Op::Join,
        vec![b.start, Port::new(buf, 0)],
        vec![Type::None],
        Some("bb0"),
        span,
    );
    g.nodes[fin].name = Some("memlock.join_final".into());
    g.nodes[buf].name = Some("memlock.buffer".into());
    g.nodes[gate].name = Some("memlock.join_start".into());
    for &(n, at) in &b.mem_start_uses {
        g.nodes[n].ins[at] = Port::new(gate, 0);
    }
    vec![fin, buf, gate]
}

/// Rewrites the headers of outermost loops; returns the nodes it added.
pub(crate) fn prime_outer_loops(b: &mut Built, f: &IrFunction, reach: &[bool]) -> Vec<usize> {
    let mut headers: Vec<(usize, Vec<usize>)> = Vec::new();
    for (bi, blk) in f.blocks.iter().enumerate() {
        if !reach[bi] {
            continue;
        }
        for (s, _) in blk.term.successors() {
            let si = s.0 as usize;
            if b.rpo[si] <= b.rpo[bi] {
                match headers.iter_mut().find(|(h, _)| *h == si) {
                    Some((_, srcs)) => srcs.push(bi),
                    None => headers.push((si, vec![bi])),
                }
            }
        }
    }
    headers.sort();
    let loops: Vec<(usize, BTreeSet<usize>)> =
        headers.iter().map(|(h, srcs)| (*h, loop_body(f, reach, *h, srcs))).collect();
    let mut added = Vec::new();
    for (h, body) in &loops {
        let outer = !loops.iter().any(|(h2, body2)| h2 != h && body2.contains(h));
        if !outer {
            continue;
        }
        let Some(&cm) = b.block_ctrl_entry.get(&(*h as u32)) else { continue };
        if b.g.nodes[cm].op != Op::ControlMerge {
            continue;
        }
        let preds = &b.block_preds[&(*h as u32)];
        let entries: Vec<usize> = (0..preds.len())
            .filter(|&p| preds[p].is_none_or(|x| !body.contains(&(x as usize))))
            .collect();
        let [entry] = entries[..] else { continue };
        let label = format!("bb{h}");
        let span = b.g.nodes[cm].span;
        let mut consts = Vec::new();
        for &(from, to, pos, ctrl) in &b.edge_ctrl {
            let (from, to) = (from as usize, to as usize);
            let value = if to == *h && body.contains(&from) {
                pos
            } else if body.contains(&from) && !body.contains(&to) {
                entry
            } else {
                continue;
            };
            let blk = format!("bb{from}");
            let c = b.g.add(
                Op::Constant { value: value as u64 },
                vec![ctrl],
                vec![Type::Index],
                Some(&blk),
                span,
            );
            consts.push(Port::new(c, 0));
            added.push(c);
        }
        let m = b.g.add(Op::Merge, consts, vec![Type::Index], Some(&label), span);
        let buf = b.g.add(
            Op::Buffer { slots: 1, kind: BufferKind::Seq, init: Some(vec![entry as u64]) },
            vec![Port::new(m, 0)],
            vec![Type::Index],
            Some(&label),
            span,
        );
        b.g.nodes[m].name = Some(format!("{label}.prime_merge"));
        b.g.nodes[buf].name = Some(format!("{label}.prime_buffer"));
        added.extend([m, buf]);
        let sel = Port::new(buf, 0);
        b.g.replace_uses(Port::new(cm, 1), sel);
        let node = &mut b.g.nodes[cm];
        node.op = Op::Mux;
        node.outs = vec![Type::None];
        let mut ins = vec![sel];
        ins.extend(node.ins.iter().copied());
        node.ins = ins;
        added.push(cm);
        // Back-edge inputs of the ctrl mux moved one position to the right.
        for e in &mut b.back_edges {
            if e.0 == cm {
                e.1 += 1;
            }
        }
    }
    added
}
