//! The second ordering chain of an array behind an address queue (`--memory queue`).
//!
//! The IR threads one token per memory through its accesses: with an address queue it
//! becomes the *completion* chain (a store waits until every older access of the array is
//! done; a load's done joins it). The *order* chain added here is a twin of it: a token
//! that visits the array's accesses in program order without waiting for them to complete,
//! only for a store's address to be queued and for a load's address to pass the queue.
//! Loads wait for it, so a load is checked against every older store's address, and
//! against no younger one.
//!
//! The twin of a value is needed where an access of the array takes it, and on every path
//! that carries it there: a block parameter gets a twin parameter, every branch into the
//! block passes the twin of its argument, the start token is its own twin, and an access's
//! token result gets a twin the builder defines (the queue's `stOrderOut` for a store, the
//! passed address for a load).

use std::collections::{BTreeMap, BTreeSet};

use crate::c::ir::{InstKind, IrFunction, Terminator, ValueId};
use crate::c::span::Span;

/// Twins of the order chain: `(memory, completion token) -> order token`.
pub(crate) type Twins = BTreeMap<(u32, ValueId), ValueId>;

/// Adds the order chains of memories `mems` to `f` (maximized; `reach` its reachable
/// blocks) and returns the twins. An error names a token that no access of its memory
/// produced (an internal inconsistency).
pub(crate) fn add_order_chains(
    f: &mut IrFunction,
    reach: &[bool],
    mems: &[u32],
) -> Result<Twins, (String, Span)> {
    let mut twins = Twins::new();
    for &m in mems {
        add_chain(f, reach, m, &mut twins)?;
    }
    Ok(twins)
}

fn add_chain(
    f: &mut IrFunction,
    reach: &[bool],
    m: u32,
    twins: &mut Twins,
) -> Result<(), (String, Span)> {
    let live = |b: usize| reach.get(b).copied().unwrap_or(false);
    // Tokens the order chain must reach: the accesses' token operands, then back along
    // block parameters to the branch arguments that bind them.
    let mut needed: BTreeSet<ValueId> = BTreeSet::new();
    for (bi, b) in f.blocks.iter().enumerate() {
        if !live(bi) {
            continue;
        }
        for inst in &b.insts {
            match &inst.kind {
                InstKind::Load { mem, token, .. } | InstKind::Store { mem, token, .. }
                    if mem.0 == m =>
                {
                    needed.insert(*token);
                }
                _ => {}
            }
        }
    }
    loop {
        let mut grew = false;
        for (bi, b) in f.blocks.iter().enumerate() {
            if !live(bi) {
                continue;
            }
            for (s, args) in b.term.successors() {
                let params = &f.blocks[s.0 as usize].params;
                for (k, p) in params.iter().enumerate() {
                    if needed.contains(p)
                        && *p != f.start_token
                        && let Some(a) = args.get(k)
                    {
                        grew |= needed.insert(*a);
                    }
                }
            }
        }
        if !grew {
            break;
        }
    }
    // Which values are token results of the memory's accesses, and which are parameters.
    let mut results: BTreeSet<ValueId> = BTreeSet::new();
    for (bi, b) in f.blocks.iter().enumerate() {
        if !live(bi) {
            continue;
        }
        for inst in &b.insts {
            match &inst.kind {
                InstKind::Load { mem, .. } if mem.0 == m => {
                    results.extend(inst.results.get(1));
                }
                InstKind::Store { mem, .. } if mem.0 == m => {
                    results.extend(inst.results.first());
                }
                _ => {}
            }
        }
    }
    let mut param_block: BTreeMap<ValueId, usize> = BTreeMap::new();
    for (bi, b) in f.blocks.iter().enumerate() {
        if live(bi) {
            for p in &b.params {
                param_block.insert(*p, bi);
            }
        }
    }
    for &v in &needed {
        let twin = if v == f.start_token {
            v
        } else if results.contains(&v) || param_block.contains_key(&v) {
            new_token(f, v)
        } else {
            return Err((
                format!("internal error: ordering token {v} of memory {m} comes from no access"),
                f.span,
            ));
        };
        twins.insert((m, v), twin);
    }
    // Twin parameters, and the twins of the branch arguments that bind them.
    let twin_params: Vec<(usize, usize, ValueId)> = needed
        .iter()
        .filter(|v| **v != f.start_token)
        .filter_map(|v| {
            let b = *param_block.get(v)?;
            let k = f.blocks[b].params.iter().position(|p| p == v)?;
            Some((b, k, twins[&(m, *v)]))
        })
        .collect();
    for &(b, _, t) in &twin_params {
        f.blocks[b].params.push(t);
    }
    for bi in 0..f.blocks.len() {
        if !live(bi) {
            continue;
        }
        let mut term = f.blocks[bi].term.clone();
        let bind = |target: usize, args: &mut Vec<ValueId>| -> Result<(), (String, Span)> {
            for &(b, k, _) in twin_params.iter().filter(|(b, _, _)| *b == target) {
                let a = args[k];
                let t = *twins.get(&(m, a)).ok_or_else(|| {
                    (
                        format!("internal error: no ordering twin for {a} into bb{b}"),
                        f.span,
                    )
                })?;
                args.push(t);
            }
            Ok(())
        };
        match &mut term {
            Terminator::Br { target, args } => bind(target.0 as usize, args)?,
            Terminator::CondBr {
                t,
                t_args,
                f: fb,
                f_args,
                ..
            } => {
                bind(t.0 as usize, t_args)?;
                bind(fb.0 as usize, f_args)?;
            }
            Terminator::Return { .. } => {}
        }
        f.blocks[bi].term = term;
    }
    Ok(())
}

/// A new token value named like `like`.
fn new_token(f: &mut IrFunction, like: ValueId) -> ValueId {
    let v = ValueId(f.value_types.len() as u32);
    f.value_types.push(f.ty(like));
    let name = f.value_names.get(like.0 as usize).cloned().flatten();
    f.value_names.push(name);
    v
}
