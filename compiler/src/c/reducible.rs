//! The CFG of a kernel must be reducible (every loop entered only through its header): the
//! handshake lowering gives each loop one header whose merges take the entry and the back
//! edges, and task pipelining and buffer placement rely on it. `goto` (and `case` labels
//! inside loops) can break that; this check finds the jump that does and names it.
//!
//! Method: with blocks numbered in reverse post-order (as [`super::ssa`] numbers them), an
//! edge `u -> v` with `v <= u` closes a cycle; the CFG is reducible exactly when every such
//! edge's target dominates its source. Dominators come from the iterative algorithm of
//! Cooper, Harvey and Kennedy ("A Simple, Fast Dominance Algorithm", 2001), linear in
//! practice on structured code.

use std::collections::BTreeSet;

use super::error::{CResult, RawError};
use super::ir::{Block, Terminator};
use super::span::Span;

/// Checks that `blocks` (entry first, numbered in reverse post-order) form a reducible CFG.
/// `gotos` are the spans of the `goto` statements: the error names the one that jumps into
/// the loop, else the jump that closes the loop.
pub(crate) fn check_reducible(blocks: &[Block], gotos: &BTreeSet<(u32, u32)>) -> CResult<()> {
    let n = blocks.len();
    if n == 0 {
        return Ok(());
    }
    let succs: Vec<Vec<usize>> = blocks
        .iter()
        .map(|b| {
            b.term
                .successors()
                .iter()
                .map(|(s, _)| s.0 as usize)
                .collect()
        })
        .collect();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (u, ss) in succs.iter().enumerate() {
        for &v in ss {
            preds[v].push(u);
        }
    }
    let idom = dominators(n, &preds);
    let dominates = |d: usize, mut b: usize| loop {
        if b == d {
            return true;
        }
        match idom[b] {
            Some(p) if p != b => b = p,
            _ => return false,
        }
    };
    for (u, ss) in succs.iter().enumerate() {
        if idom[u].is_none() && u != 0 {
            continue; // unreachable
        }
        for &v in ss {
            if v <= u && !dominates(v, u) {
                return Err(irreducible(blocks, &succs, &preds, gotos, u, v));
            }
        }
    }
    Ok(())
}

/// Immediate dominators (`idom[0] = Some(0)`; `None` for unreachable blocks).
fn dominators(n: usize, preds: &[Vec<usize>]) -> Vec<Option<usize>> {
    let mut idom: Vec<Option<usize>> = vec![None; n];
    idom[0] = Some(0);
    let intersect = |idom: &[Option<usize>], mut a: usize, mut b: usize| {
        while a != b {
            while a > b {
                a = idom[a].unwrap_or(0);
            }
            while b > a {
                b = idom[b].unwrap_or(0);
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for b in 1..n {
            let mut new: Option<usize> = None;
            for &p in &preds[b] {
                if idom[p].is_none() {
                    continue;
                }
                new = Some(match new {
                    None => p,
                    Some(x) => intersect(&idom, p, x),
                });
            }
            if new.is_some() && idom[b] != new {
                idom[b] = new;
                changed = true;
            }
        }
    }
    idom
}

/// The error for the cycle closed by `u -> v`, whose target does not dominate its source.
fn irreducible(
    blocks: &[Block],
    succs: &[Vec<usize>],
    preds: &[Vec<usize>],
    gotos: &BTreeSet<(u32, u32)>,
    u: usize,
    v: usize,
) -> RawError {
    // The cycle's blocks: reachable from v and reaching u.
    let walk = |start: usize, next: &[Vec<usize>]| {
        let mut seen = vec![false; blocks.len()];
        let mut stack = vec![start];
        while let Some(b) = stack.pop() {
            if !std::mem::replace(&mut seen[b], true) {
                stack.extend(next[b].iter().copied());
            }
        }
        seen
    };
    let from_v = walk(v, succs);
    let to_u = walk(u, preds);
    let in_loop = |b: usize| from_v[b] && to_u[b];
    let is_goto = |b: usize| {
        let s = blocks[b].term_span;
        matches!(blocks[b].term, Terminator::Br { .. }) && gotos.contains(&(s.start, s.end))
    };
    // A goto from outside the loop to a block inside it other than v: a second entry.
    let culprit = (0..blocks.len())
        .find(|&b| !in_loop(b) && is_goto(b) && succs[b].iter().any(|&t| t != v && in_loop(t)));
    let at: Span = match culprit {
        Some(b) => blocks[b].term_span,
        None => blocks[u].term_span,
    };
    RawError::new(
        at,
        "this jump enters a loop in its middle, a second entry besides the loop's start: irreducible control flow is not supported",
    )
    .with_help("jump to the loop's start, or restructure the loop so it has a single entry")
}
