//! Small clean-up passes on the IR.

use super::ir::{InstKind, IrFunction, ValueId};
use std::collections::BTreeSet;

/// Removes side-effect-free instructions whose results are never used.
pub fn dce(f: &mut IrFunction) {
    loop {
        let mut used: BTreeSet<ValueId> = BTreeSet::new();
        for b in &f.blocks {
            for i in &b.insts {
                used.extend(i.operands());
            }
            used.extend(b.term.operands());
        }
        let mut changed = false;
        for b in &mut f.blocks {
            let before = b.insts.len();
            b.insts.retain(|i| {
                let pure = !matches!(i.kind, InstKind::Load { .. } | InstKind::Store { .. });
                !pure || i.results.iter().any(|r| used.contains(r))
            });
            changed |= b.insts.len() != before;
        }
        if !changed {
            break;
        }
    }
}

/// Turns every conditional branch on a constant condition (a guard the front end could
/// decide, such as the `0 < 16` of a rotated `for` loop) into an unconditional branch to
/// the successor it always takes, then removes the blocks no longer reachable.
pub fn fold_constant_branches(f: &mut IrFunction) {
    use super::ir::Terminator;
    use std::collections::BTreeMap;
    let consts: BTreeMap<ValueId, i64> = f
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter_map(|i| match (&i.kind, i.results.as_slice()) {
            (InstKind::Const { value }, [r]) => Some((*r, *value)),
            _ => None,
        })
        .collect();
    for b in &mut f.blocks {
        if let Terminator::CondBr {
            cond,
            t,
            t_args,
            f: fb,
            f_args,
        } = &b.term
            && let Some(&v) = consts.get(cond)
        {
            b.term = if v != 0 {
                Terminator::Br {
                    target: *t,
                    args: t_args.clone(),
                }
            } else {
                Terminator::Br {
                    target: *fb,
                    args: f_args.clone(),
                }
            };
        }
    }
    remove_unreachable(f);
}

/// Removes the blocks that `bb0` cannot reach (the others are renumbered densely, in order).
pub fn remove_unreachable(f: &mut IrFunction) {
    use super::ir::Terminator;
    let mut reach = vec![false; f.blocks.len()];
    let mut stack = vec![0usize];
    while let Some(b) = stack.pop() {
        if b >= reach.len() || std::mem::replace(&mut reach[b], true) {
            continue;
        }
        stack.extend(
            f.blocks[b]
                .term
                .successors()
                .iter()
                .map(|(s, _)| s.0 as usize),
        );
    }
    if reach.iter().all(|&r| r) {
        return;
    }
    let mut new_index = vec![0u32; f.blocks.len()];
    let mut k = 0u32;
    for (i, &r) in reach.iter().enumerate() {
        new_index[i] = k;
        k += u32::from(r);
    }
    let mut i = 0;
    f.blocks.retain(|_| {
        i += 1;
        reach[i - 1]
    });
    for blk in &mut f.blocks {
        match &mut blk.term {
            Terminator::Br { target, .. } => target.0 = new_index[target.0 as usize],
            Terminator::CondBr { t, f: fb, .. } => {
                t.0 = new_index[t.0 as usize];
                fb.0 = new_index[fb.0 as usize];
            }
            Terminator::Return { .. } => {}
        }
    }
}

/// Merges every block into its predecessor when that predecessor ends in an unconditional
/// branch to it and is its only predecessor (the block's parameters become the branch
/// arguments). Blocks keep their relative order and are renumbered densely.
pub fn merge_blocks(f: &mut IrFunction) {
    use super::ir::{BlockId, Terminator};
    use std::collections::BTreeMap;
    loop {
        let preds = f.predecessors();
        let candidate = (0..f.blocks.len()).find_map(|p| match &f.blocks[p].term {
            Terminator::Br { target, .. }
                if target.0 != 0
                    && target.0 as usize != p
                    && preds[target.0 as usize].len() == 1 =>
            {
                Some((p, target.0 as usize))
            }
            _ => None,
        });
        let Some((p, b)) = candidate else { break };
        let Terminator::Br { args, .. } = f.blocks[p].term.clone() else {
            break;
        };
        let merged = f.blocks[b].clone();
        let subst: BTreeMap<ValueId, ValueId> = merged
            .params
            .iter()
            .copied()
            .zip(args.iter().copied())
            .collect();
        let pb = &mut f.blocks[p];
        pb.insts.extend(merged.insts);
        pb.term = merged.term;
        pb.term_span = merged.term_span;
        if !subst.is_empty() {
            for blk in &mut f.blocks {
                for i in &mut blk.insts {
                    for o in i.operands_mut() {
                        if let Some(n) = subst.get(o) {
                            *o = *n;
                        }
                    }
                }
                for o in blk.term.operands_mut() {
                    if let Some(n) = subst.get(o) {
                        *o = *n;
                    }
                }
            }
        }
        f.blocks.remove(b);
        let fix = |t: &mut BlockId| {
            if t.0 as usize > b {
                t.0 -= 1;
            }
        };
        for blk in &mut f.blocks {
            match &mut blk.term {
                Terminator::Br { target, .. } => fix(target),
                Terminator::CondBr { t, f: fb, .. } => {
                    fix(t);
                    fix(fb);
                }
                Terminator::Return { .. } => {}
            }
        }
    }
    renumber_values(f);
}

/// Renumbers values densely in order of definition (block parameters, then results).
pub fn renumber_values(f: &mut IrFunction) {
    use std::collections::BTreeMap;
    let mut map: BTreeMap<ValueId, ValueId> = BTreeMap::new();
    let mut types = Vec::new();
    let mut names = Vec::new();
    for b in &f.blocks {
        for v in b
            .params
            .iter()
            .chain(b.insts.iter().flat_map(|i| i.results.iter()))
        {
            map.insert(*v, ValueId(types.len() as u32));
            types.push(f.value_types[v.0 as usize]);
            names.push(f.value_names[v.0 as usize].clone());
        }
    }
    let m = |v: &mut ValueId| {
        if let Some(n) = map.get(v) {
            *v = *n;
        }
    };
    for b in &mut f.blocks {
        b.params.iter_mut().for_each(m);
        for i in &mut b.insts {
            i.results.iter_mut().for_each(m);
            i.operands_mut().into_iter().for_each(m);
        }
        b.term.operands_mut().into_iter().for_each(m);
    }
    for p in &mut f.params {
        if let super::ir::IrParam::Scalar { value, .. } = p {
            m(value);
        }
    }
    m(&mut f.start_token);
    f.value_types = types;
    f.value_names = names;
}
