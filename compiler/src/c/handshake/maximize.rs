//! Preparation of the SSA CFG for the dataflow lowering.
//!
//! * [`rematerialize_constants`]: a constant used outside its defining block is copied into
//!   every using block, so it is triggered there by the block's control token instead of
//!   travelling through the block arguments of the CFG path in between.
//! * [`maximize`]: SSA maximization. Afterwards every value a block reads is defined in the
//!   block or is one of its parameters: values that were used across blocks by dominance
//!   become extra parameters (live-ins, appended in [`ValueId`] order), passed along by
//!   every branch into the block.

use std::collections::{BTreeMap, BTreeSet};

use crate::c::ir::{BlockId, Inst, InstKind, IrFunction, ValueId};

/// Blocks reachable from `bb0`, as a per-block flag.
pub(crate) fn reachable(f: &IrFunction) -> Vec<bool> {
    let mut seen = vec![false; f.blocks.len()];
    let mut stack = vec![0usize];
    while let Some(b) = stack.pop() {
        if b >= seen.len() || seen[b] {
            continue;
        }
        seen[b] = true;
        for (s, _) in f.blocks[b].term.successors() {
            stack.push(s.0 as usize);
        }
    }
    seen
}

fn new_value(f: &mut IrFunction, like: ValueId) -> ValueId {
    let v = ValueId(f.value_types.len() as u32);
    f.value_types.push(f.ty(like));
    let name = f.value_names.get(like.0 as usize).cloned().flatten();
    f.value_names.push(name);
    v
}

/// Copies constants into every other block that reads them.
pub(crate) fn rematerialize_constants(f: &mut IrFunction) {
    let mut consts: BTreeMap<ValueId, (BlockId, Inst)> = BTreeMap::new();
    for (bi, b) in f.blocks.iter().enumerate() {
        for inst in &b.insts {
            if matches!(inst.kind, InstKind::Const { .. }) {
                consts.insert(inst.results[0], (BlockId(bi as u32), inst.clone()));
            }
        }
    }
    for bi in 0..f.blocks.len() {
        let mut used: BTreeSet<ValueId> = BTreeSet::new();
        for inst in &f.blocks[bi].insts {
            used.extend(inst.operands());
        }
        used.extend(f.blocks[bi].term.operands());
        let mut copies: BTreeMap<ValueId, ValueId> = BTreeMap::new();
        let mut new_insts = Vec::new();
        for v in used {
            if let Some((home, inst)) = consts.get(&v)
                && home.0 as usize != bi
            {
                let nv = new_value(f, v);
                let mut c = inst.clone();
                c.results = vec![nv];
                new_insts.push(c);
                copies.insert(v, nv);
            }
        }
        if copies.is_empty() {
            continue;
        }
        let b = &mut f.blocks[bi];
        for inst in &mut b.insts {
            for op in inst.operands_mut() {
                if let Some(n) = copies.get(op) {
                    *op = *n;
                }
            }
        }
        for op in b.term.operands_mut() {
            if let Some(n) = copies.get(op) {
                *op = *n;
            }
        }
        new_insts.append(&mut b.insts);
        b.insts = new_insts;
    }
}

/// SSA maximization (see the module documentation). Only reachable blocks are considered.
pub(crate) fn maximize(f: &mut IrFunction) {
    let live = reachable(f);
    let n = f.blocks.len();
    let mut defs: Vec<BTreeSet<ValueId>> = vec![BTreeSet::new(); n];
    let mut uses: Vec<BTreeSet<ValueId>> = vec![BTreeSet::new(); n];
    for (bi, b) in f.blocks.iter().enumerate() {
        defs[bi].extend(b.params.iter().copied());
        for inst in &b.insts {
            for o in inst.operands() {
                if !defs[bi].contains(&o) {
                    uses[bi].insert(o);
                }
            }
            defs[bi].extend(inst.results.iter().copied());
        }
        for o in b.term.operands() {
            if !defs[bi].contains(&o) {
                uses[bi].insert(o);
            }
        }
    }
    let mut live_in: Vec<BTreeSet<ValueId>> = uses.clone();
    loop {
        let mut changed = false;
        for bi in (0..n).rev() {
            if !live[bi] {
                continue;
            }
            let succs: Vec<usize> = f.blocks[bi]
                .term
                .successors()
                .iter()
                .map(|(s, _)| s.0 as usize)
                .collect();
            for s in succs {
                let add: Vec<ValueId> = live_in[s]
                    .iter()
                    .filter(|v| !defs[bi].contains(v) && !live_in[bi].contains(v))
                    .copied()
                    .collect();
                changed |= !add.is_empty();
                live_in[bi].extend(add);
            }
        }
        if !changed {
            break;
        }
    }
    // Successor arguments first (in terms of the original values), then renaming.
    let live_ins: Vec<Vec<ValueId>> = live_in
        .iter()
        .map(|s| s.iter().copied().collect())
        .collect();
    for (blk, _) in f.blocks.iter_mut().zip(&live).filter(|(_, l)| **l) {
        match &mut blk.term {
            crate::c::ir::Terminator::Br { target, args } => {
                args.extend(live_ins[target.0 as usize].iter().copied());
            }
            crate::c::ir::Terminator::CondBr {
                t,
                t_args,
                f: fb,
                f_args,
                ..
            } => {
                t_args.extend(live_ins[t.0 as usize].iter().copied());
                f_args.extend(live_ins[fb.0 as usize].iter().copied());
            }
            crate::c::ir::Terminator::Return { .. } => {}
        }
    }
    for bi in 0..n {
        if !live[bi] || live_ins[bi].is_empty() {
            continue;
        }
        let mut map: BTreeMap<ValueId, ValueId> = BTreeMap::new();
        for &v in &live_ins[bi] {
            let p = new_value(f, v);
            map.insert(v, p);
        }
        let b = &mut f.blocks[bi];
        b.params.extend(live_ins[bi].iter().map(|v| map[v]));
        for inst in &mut b.insts {
            for op in inst.operands_mut() {
                if let Some(p) = map.get(op) {
                    *op = *p;
                }
            }
        }
        for op in b.term.operands_mut() {
            if let Some(p) = map.get(op) {
                *op = *p;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::c::compile_to_ir;

    #[test]
    fn every_use_is_local_after_maximization() {
        let src = "int f(int a[8], int n) {\n  int s = 0;\n  for (int i = 0; i < n; i++)\n    for (int j = 0; j < i; j++)\n      s += a[j] * n;\n  return s;\n}\n";
        let mut f = compile_to_ir(src, "t.c", None).expect("compiles");
        rematerialize_constants(&mut f);
        maximize(&mut f);
        let live = reachable(&f);
        for (bi, b) in f.blocks.iter().enumerate() {
            if !live[bi] {
                continue;
            }
            let mut local: BTreeSet<ValueId> = b.params.iter().copied().collect();
            for inst in &b.insts {
                for o in inst.operands() {
                    assert!(local.contains(&o), "bb{bi} uses {o} non-locally\n{f}");
                }
                local.extend(inst.results.iter().copied());
            }
            for o in b.term.operands() {
                assert!(local.contains(&o), "bb{bi} terminator uses {o}\n{f}");
            }
            for (s, args) in b.term.successors() {
                assert_eq!(args.len(), f.blocks[s.0 as usize].params.len(), "{f}");
            }
        }
    }
}
