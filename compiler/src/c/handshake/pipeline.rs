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
//! Outside loops, a block where control paths meet (`control_merge`) would let a later
//! invocation overtake an earlier one on a shorter path. So every such block `M` gets a
//! region lock: its nearest dominator `D` outside all loops only admits a control token
//! when `join`ed with a token from a one-slot buffer preloaded with one token, refilled by
//! `M`'s control token. Between `D` and `M` there is then one invocation at a time. If some
//! path from `D` can reach the exit without passing `M`, the whole function falls back to
//! the function lock.
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
    let fin = g.add(
        Op::Join,
        b.mem_final.clone(),
        vec![Type::None],
        Some("bb0"),
        span,
    );
    let buf = g.add(
        Op::Buffer {
            slots: 1,
            kind: BufferKind::Seq,
            init: Some(vec![0]),
        },
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

/// Immediate dominator of every reachable block (`None` for `bb0` and unreachable blocks).
fn idoms(f: &IrFunction, reach: &[bool]) -> Vec<Option<usize>> {
    let n = f.blocks.len();
    let preds = f.predecessors();
    let all: BTreeSet<usize> = (0..n).filter(|&b| reach[b]).collect();
    let mut dom: Vec<BTreeSet<usize>> = (0..n)
        .map(|b| {
            if b == 0 {
                BTreeSet::from([0])
            } else {
                all.clone()
            }
        })
        .collect();
    loop {
        let mut changed = false;
        for b in 1..n {
            if !reach[b] {
                continue;
            }
            let mut new: Option<BTreeSet<usize>> = None;
            for p in &preds[b] {
                let p = p.0 as usize;
                if !reach[p] {
                    continue;
                }
                new = Some(match new {
                    None => dom[p].clone(),
                    Some(s) => s.intersection(&dom[p]).copied().collect(),
                });
            }
            let mut new = new.unwrap_or_default();
            new.insert(b);
            if new != dom[b] {
                dom[b] = new;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    // The immediate dominator is the strict dominator with the most dominators.
    (0..n)
        .map(|b| {
            if b == 0 || !reach[b] {
                return None;
            }
            dom[b]
                .iter()
                .copied()
                .filter(|&d| d != b)
                .max_by_key(|&d| dom[d].len())
        })
        .collect()
}

/// Adds region locks for the control merges outside loops. Returns the added nodes, or
/// `None` when some region has an exit that bypasses its merge (use the function lock).
pub(crate) fn region_locks(b: &mut Built, f: &IrFunction, reach: &[bool]) -> Option<Vec<usize>> {
    let loops = find_loops(b, f, reach);
    let in_loop = |x: usize| loops.iter().any(|(_, body)| body.contains(&x));
    let idom = idoms(f, reach);
    let mut gates: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    let mut added = Vec::new();
    for (&m, &cm) in &b.block_ctrl_entry.clone() {
        let m = m as usize;
        if b.g.nodes[cm].op != Op::ControlMerge || in_loop(m) {
            continue;
        }
        let mut d = idom[m]?;
        while in_loop(d) {
            d = idom[d]?;
        }
        // Every path from `d` must pass `m` before the exit.
        let mut seen = BTreeSet::from([m]);
        let mut stack = vec![d];
        while let Some(x) = stack.pop() {
            if !seen.insert(x) {
                continue;
            }
            let succ = f.blocks[x].term.successors();
            if succ.is_empty() {
                return None;
            }
            stack.extend(succ.iter().map(|(s, _)| s.0 as usize));
        }
        // The lock belongs to `M`, whose control token refills it.
        let label = format!("bb{m}");
        let span = b.g.nodes[cm].span;
        let buf = b.g.add(
            Op::Buffer {
                slots: 1,
                kind: BufferKind::Seq,
                init: Some(vec![0]),
            },
            vec![Port::new(cm, 0)],
            vec![Type::None],
            Some(&label),
            span,
        );
        b.g.nodes[buf].name = Some(format!("bb{m}.region_lock"));
        gates.entry(d).or_default().push(buf);
        added.push(buf);
    }
    for (d, bufs) in gates {
        let entry = b.block_ctrl_entry[&(d as u32)];
        let ctrl = Port::new(entry, 0);
        let label = format!("bb{d}");
        let span = b.g.nodes[entry].span;
        let gate =
            b.g.add(Op::Join, vec![], vec![Type::None], Some(&label), span);
        b.g.replace_uses(ctrl, Port::new(gate, 0));
        let mut ins = vec![ctrl];
        ins.extend(bufs.iter().map(|x| Port::new(*x, 0)));
        b.g.nodes[gate].ins = ins;
        b.g.nodes[gate].name = Some(format!("{label}.region_gate"));
        added.push(gate);
    }
    Some(added)
}

/// Every loop: header and natural-loop body, by header.
fn find_loops(b: &Built, f: &IrFunction, reach: &[bool]) -> Vec<(usize, BTreeSet<usize>)> {
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
    headers
        .iter()
        .map(|(h, srcs)| (*h, loop_body(f, reach, *h, srcs)))
        .collect()
}

/// Rewrites the headers of outermost loops; returns the nodes it added.
pub(crate) fn prime_outer_loops(b: &mut Built, f: &IrFunction, reach: &[bool]) -> Vec<usize> {
    let loops = find_loops(b, f, reach);
    let mut added = Vec::new();
    for (h, body) in &loops {
        let outer = !loops.iter().any(|(h2, body2)| h2 != h && body2.contains(h));
        if !outer {
            continue;
        }
        let Some(&cm) = b.block_ctrl_entry.get(&(*h as u32)) else {
            continue;
        };
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
                Op::Constant {
                    value: value as u64,
                },
                vec![ctrl],
                vec![Type::Index],
                Some(&blk),
                span,
            );
            consts.push(Port::new(c, 0));
            added.push(c);
        }
        let m =
            b.g.add(Op::Merge, consts, vec![Type::Index], Some(&label), span);
        let buf = b.g.add(
            Op::Buffer {
                slots: 1,
                kind: BufferKind::Seq,
                init: Some(vec![entry as u64]),
            },
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
