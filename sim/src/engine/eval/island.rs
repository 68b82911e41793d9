//! Static islands (`docs/static-islands.md`, `docs/semantics.md` "Static islands"): one
//! invocation at a time. Idle, an island takes every input together; its clock edge runs the
//! whole loop ([`crate::island::Island::run`], memories read as they are, which nothing
//! writes) and waits `(iterations - 1) * ii + latency` cycles from then to offer its results
//! and the control token, each output until taken (an eager fork's flags); when every output
//! is taken it is idle again.

use super::{At, Sig};
use crate::engine::program::{Program, Span};
use crate::island::IslandMemory;
use crate::spec::island_regs::{
    self, ELAPSED, EMITTED, IDLE, ITERATIONS, OFFERING, PHASE, RUNNING, WAIT,
};

/// The engine's memories as an island sees them: its memory `k` is the program's
/// `ids[k]`, addresses cut to the array's address bits, writes recorded for the trace.
struct EngineMemory<'a, 'b> {
    p: &'a Program,
    ids: &'a [u32],
    mems: &'b mut [Vec<u64>],
    writes: &'b mut Vec<(u32, u64, u64)>,
}

impl IslandMemory for EngineMemory<'_, '_> {
    fn load(&mut self, k: u32, index: u64) -> u64 {
        let mi = self.ids[k as usize] as usize;
        let a = index & self.p.mems[mi].addr_mask;
        self.mems[mi].get(a as usize).copied().unwrap_or(0)
    }

    fn store(&mut self, k: u32, index: u64, value: u64) {
        let mi = self.ids[k as usize] as usize;
        let a = index & self.p.mems[mi].addr_mask;
        let v = value & crate::types::width_mask(self.p.mems[mi].elem_width);
        if let Some(slot) = self.mems[mi].get_mut(a as usize) {
            *slot = v;
            self.writes.push((mi as u32, a, v));
        }
    }
}

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

/// The island's clock edge.
pub(super) fn island_clk(p: &Program, s: &mut Sig<'_>, ins: Span, outs: Span, reg: u32, k: u32) {
    let phase = s.regs.at(at(reg, PHASE));
    if phase != IDLE {
        *s.regs.at_mut(at(reg, ELAPSED)) = s.regs.at(at(reg, ELAPSED)).saturating_add(1);
    }
    match phase {
        IDLE => {
            let chans = p.span(ins);
            let taken = chans
                .iter()
                .all(|&c| s.valid.at(c as usize) && s.ready.at(c as usize));
            if !taken {
                return;
            }
            let (isl, mems) = &p.islands[k as usize];
            let inputs: Vec<u64> = chans[1..].iter().map(|&c| s.data.at(c as usize)).collect();
            let mut memory = EngineMemory {
                p,
                ids: mems,
                mems: s.mems,
                writes: s.mem_writes,
            };
            let n = outs.len;
            let wait = match isl.run(&inputs, &mut memory) {
                Ok(run) => {
                    for (i, v) in run.results.iter().enumerate() {
                        *s.regs.at_mut(at(reg, island_regs::result(n, i as u32))) = *v;
                    }
                    *s.regs.at_mut(at(reg, ITERATIONS)) = run.iterations;
                    run.cycles - 1
                }
                // A loop that never leaves keeps the island running for ever.
                Err(_) => {
                    *s.regs.at_mut(at(reg, ITERATIONS)) = crate::island::MAX_ISLAND_ITERATIONS;
                    u64::MAX
                }
            };
            *s.regs.at_mut(at(reg, ELAPSED)) = 0;
            *s.regs.at_mut(at(reg, WAIT)) = wait;
            *s.regs.at_mut(at(reg, PHASE)) = if wait == 0 { OFFERING } else { RUNNING };
        }
        RUNNING => {
            let wait = s.regs.at(at(reg, WAIT));
            if wait != u64::MAX {
                *s.regs.at_mut(at(reg, WAIT)) = wait - 1;
                if wait == 1 {
                    *s.regs.at_mut(at(reg, PHASE)) = OFFERING;
                }
            }
        }
        _ => {
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
