//! Static islands (`docs/static-islands.md`, `docs/semantics.md` "Static islands"): one
//! invocation at a time. Idle, an island takes every input together; from that cycle on its
//! controller evaluates one cone of its region per cycle ([`crate::island::Island::cone`],
//! memory accesses included) and adds up the cycles the schedule spends on the edges it
//! takes. Once the walk has left the region and as many cycles have passed since the inputs
//! were taken as the schedule spent, it offers the results and the control token, each
//! output until taken (an eager fork's flags); when every output is taken it is idle again.

use super::{At, Sig};
use crate::engine::program::ProgramMemory;
use crate::engine::program::{Program, Span};
use crate::spec::island_regs::{
    self, ELAPSED, EMITTED, HEAD, IDLE, ITERATIONS, OFFERING, PHASE, RUNNING, SCHED, WALKED,
};

/// Register word `k` of the island at `reg`.
#[inline(always)]
fn at(reg: u32, k: u32) -> usize {
    (reg + k) as usize
}

/// The island's outputs: offered while offering, each until its flag is set.
pub(super) fn island_out(p: &Program, s: &mut Sig<'_>, outs: Span, reg: u32) {
    let offering = s.regs.at(at(reg, PHASE)) == OFFERING;
    let n = outs.len;
    for (i, &o) in p.span(outs).iter().enumerate() {
        let i = i as u32;
        let v = offering && s.regs.at(at(reg, EMITTED + i)) == 0;
        *s.valid.at_mut(o as usize) = v;
        *s.data.at_mut(o as usize) = if v && i > 0 {
            s.regs.at(at(reg, island_regs::result(n, i - 1)))
        } else {
            0
        };
    }
}

/// The island's inputs: ready together while it is idle and every one is valid.
pub(super) fn island_in(p: &Program, s: &mut Sig<'_>, ins: Span, reg: u32) {
    let idle = s.regs.at(at(reg, PHASE)) == IDLE;
    let take = idle && p.span(ins).iter().all(|&c| s.valid.at(c as usize));
    for &c in p.span(ins) {
        *s.ready.at_mut(c as usize) = take;
    }
}

/// Evaluates the cone at the island's head: slots from and back to its registers, the
/// schedule's cycles added, the results kept once the walk leaves.
fn walk(p: &Program, s: &mut Sig<'_>, outs: Span, reg: u32, k: u32, inputs: Option<Vec<u64>>) {
    let info = &p.islands[k as usize];
    let isl = &info.island;
    let n = outs.len;
    let slot = |j: usize| at(reg, island_regs::slot(n, j as u32));
    let mut vals: Vec<u64> = (0..isl.slots.len()).map(|j| s.regs.at(slot(j))).collect();
    let head = match inputs {
        Some(ins) => {
            for (j, v) in ins.into_iter().enumerate() {
                vals[j] = v & isl.slots[j].mask();
            }
            0
        }
        None => s.regs.at(at(reg, HEAD)) as u32,
    };
    let mut memory = ProgramMemory {
        prog: p,
        ids: &info.mems,
        mems: s.mems,
        writes: Some(s.mem_writes),
    };
    let step = isl.cone(head, &info.heads, &mut vals, &mut memory);
    for (j, v) in vals.into_iter().enumerate() {
        *s.regs.at_mut(slot(j)) = v;
    }
    *s.regs.at_mut(at(reg, SCHED)) = s.regs.at(at(reg, SCHED)).saturating_add(step.cycles);
    match step.next {
        Some(h) => {
            *s.regs.at_mut(at(reg, HEAD)) = u64::from(h);
            if h == 0 {
                *s.regs.at_mut(at(reg, ITERATIONS)) = s.regs.at(at(reg, ITERATIONS)) + 1;
            }
        }
        None => {
            *s.regs.at_mut(at(reg, WALKED)) = 1;
            for (i, v) in step.results.into_iter().enumerate() {
                *s.regs.at_mut(at(reg, island_regs::result(n, i as u32))) = v;
            }
        }
    }
}

/// The island's clock edge.
pub(super) fn island_clk(p: &Program, s: &mut Sig<'_>, ins: Span, outs: Span, reg: u32, k: u32) {
    match s.regs.at(at(reg, PHASE)) {
        IDLE => {
            let chans = p.span(ins);
            let taken = chans
                .iter()
                .all(|&c| s.valid.at(c as usize) && s.ready.at(c as usize));
            if !taken {
                return;
            }
            let inputs: Vec<u64> = chans[1..].iter().map(|&c| s.data.at(c as usize)).collect();
            for w in [SCHED, HEAD, WALKED] {
                *s.regs.at_mut(at(reg, w)) = 0;
            }
            *s.regs.at_mut(at(reg, ITERATIONS)) = 1;
            *s.regs.at_mut(at(reg, ELAPSED)) = 1;
            walk(p, s, outs, reg, k, Some(inputs));
            settle_phase(s, reg);
        }
        RUNNING => {
            *s.regs.at_mut(at(reg, ELAPSED)) = s.regs.at(at(reg, ELAPSED)).saturating_add(1);
            if s.regs.at(at(reg, WALKED)) == 0 {
                walk(p, s, outs, reg, k, None);
            }
            settle_phase(s, reg);
        }
        _ => {
            *s.regs.at_mut(at(reg, ELAPSED)) = s.regs.at(at(reg, ELAPSED)).saturating_add(1);
            let chans = p.span(outs);
            let mut all = true;
            for (i, &o) in chans.iter().enumerate() {
                let f = at(reg, EMITTED + i as u32);
                if s.regs.at(f) == 0 && s.valid.at(o as usize) && s.ready.at(o as usize) {
                    *s.regs.at_mut(f) = 1;
                }
                all &= s.regs.at(f) != 0;
            }
            if all {
                for i in 0..chans.len() {
                    *s.regs.at_mut(at(reg, EMITTED + i as u32)) = 0;
                }
                *s.regs.at_mut(at(reg, PHASE)) = IDLE;
            }
        }
    }
}

/// Running, or offering once the walk has left and the schedule's cycles have passed.
fn settle_phase(s: &mut Sig<'_>, reg: u32) {
    let done = s.regs.at(at(reg, WALKED)) != 0
        && s.regs.at(at(reg, ELAPSED)) >= s.regs.at(at(reg, SCHED)).max(1);
    *s.regs.at_mut(at(reg, PHASE)) = if done { OFFERING } else { RUNNING };
}
