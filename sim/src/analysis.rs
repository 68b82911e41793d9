//! The run report of recorded cycles (a replayed VCD of a hardware run, or any [`Trace`]):
//! the cycles are fed to the same monitor the engine uses (statistics, tokens, events,
//! termination, deadlock analysis, report; module `engine::monitor`), so `replay` prints
//! exactly what `sim` prints for the same run.
//!
//! Feed cycles in order with [`TraceObserver::push`]; it says when the engine would have
//! stopped. Memory contents are followed from the store ports' signals. Without an
//! [`Environment`] (a VCD of unknown stimulus), the number of invocations is the largest
//! number of tokens any argument transferred, pending inputs are unknown (0), every result
//! counts as possibly ready, runs without results never end as `done`, and memories start
//! from the graph's `handshake.init` contents (else zeros).

use cranelift_entity::EntityRef;

use crate::engine::SimError;
use crate::engine::compile::compile;
use crate::engine::monitor::{Monitor, Signals};
use crate::engine::program::Program;
use crate::graph::Function;
use crate::report::{RunReport, Status};
use crate::stimulus::{Environment, graph_memory_inits};
use crate::trace::{Sample, Trace};
use crate::types::width_mask;

/// One store port of a memory: `(memory index, address channel, data channel)`.
type StorePort = (usize, usize, usize);

/// Computes a [`RunReport`] from per-cycle samples.
pub struct TraceObserver<'f> {
    func: &'f Function,
    prog: Program,
    monitor: Monitor,
    /// Memory contents, in [`Program::mems`] order.
    mems: Vec<Vec<u64>>,
    stores: Vec<StorePort>,
    /// Samples padded to the function's channel and register counts.
    valid: Vec<bool>,
    ready: Vec<bool>,
    data: Vec<u64>,
    regs: Vec<u64>,
}

impl<'f> TraceObserver<'f> {
    /// Starts observing a run of flat function `f` (channel indices as in `f.channels`, state
    /// words in the engine's trace layout), in environment `env` when it is known.
    pub fn new(f: &'f Function, env: Option<&Environment>) -> Result<Self, SimError> {
        let prog = compile(f)?;
        let monitor = Monitor::new(&prog, f, env);
        let graph_inits = graph_memory_inits(f)?;
        let mut mems: Vec<Vec<u64>> = prog
            .mems
            .iter()
            .map(|m| {
                let init = if m.external {
                    env.and_then(|e| e.ext_memories.get(&m.name))
                } else {
                    env.map_or(graph_inits.get(&m.name), |e| {
                        e.memories.get(&m.name).or_else(|| graph_inits.get(&m.name))
                    })
                };
                let mut vals = vec![0; m.size as usize];
                for (v, x) in vals.iter_mut().zip(init.into_iter().flatten()) {
                    *v = x & width_mask(m.elem_width);
                }
                vals
            })
            .collect();
        mems.shrink_to_fit();
        let mut stores = Vec::new();
        for node in f.nodes.values() {
            let Some(array) = node.op.array() else {
                continue;
            };
            let name = array
                .memref_arg
                .and_then(|k| f.args.get(k))
                .map_or_else(|| node.id.clone(), |a| a.name.clone());
            let Some(mi) = prog.mems.iter().position(|m| m.name == name) else {
                continue;
            };
            for &(a, d) in &array.stores {
                if let (Some(d), Some(a)) = (node.inputs.get(d), node.inputs.get(a)) {
                    stores.push((mi, a.index(), d.index()));
                }
            }
        }
        let n = prog.n_channels;
        let nr = prog.reg_init.len();
        Ok(TraceObserver {
            func: f,
            monitor,
            mems,
            stores,
            valid: vec![false; n],
            ready: vec![false; n],
            data: vec![0; n],
            regs: vec![0; nr],
            prog,
        })
    }

    /// The writes the load-store queues make in a cycle whose register words are `state`:
    /// (memory, address, value), as the engine records them (the address's low bits; none
    /// past the memory's end).
    pub fn queue_writes(&self, state: &[u64]) -> Vec<(u32, u64, u64)> {
        self.prog
            .dyn_lsqs
            .iter()
            .filter_map(|q| {
                let (a, d) = q.store_written(state)?;
                let mi = q.mem?;
                let m = &self.prog.mems[mi as usize];
                let a = a & m.addr_mask;
                (a < m.size).then_some((mi, a, d))
            })
            .collect()
    }

    /// The status once the run has ended (`done` or `deadlock`), else `None`.
    pub fn status(&self) -> Option<Status> {
        self.monitor.status()
    }

    /// Cycles observed so far.
    pub fn cycles(&self) -> u64 {
        self.monitor.cycles()
    }

    /// The function observed.
    pub fn function(&self) -> &'f Function {
        self.func
    }

    /// Observes the next cycle. Returns the status when the engine would stop after it.
    /// Does nothing once the run has ended.
    pub fn push(&mut self, s: Sample<'_>) -> Option<Status> {
        if self.monitor.status().is_some() {
            return self.monitor.status();
        }
        fn copy<T: Copy + Default>(dst: &mut [T], src: &[T]) {
            let k = dst.len().min(src.len());
            dst[..k].copy_from_slice(&src[..k]);
            dst[k..].fill(T::default());
        }
        copy(&mut self.valid, s.valid);
        copy(&mut self.ready, s.ready);
        copy(&mut self.data, s.data);
        copy(&mut self.regs, s.state);
        let sig = Signals {
            valid: &self.valid,
            ready: &self.ready,
            data: &self.data,
            regs: &self.regs,
        };
        self.monitor.observe(&self.prog, self.func, sig);
        for (mi, addr, value) in self.queue_writes(s.state) {
            let m = &self.prog.mems[mi as usize];
            if let Some(slot) = self.mems[mi as usize].get_mut(addr as usize) {
                *slot = value & width_mask(m.elem_width);
            }
        }
        for &(mi, a, d) in &self.stores {
            if self.valid[a] & self.valid[d] {
                let m = &self.prog.mems[mi];
                let addr = (self.data[a] & m.addr_mask) as usize;
                if let Some(slot) = self.mems[mi].get_mut(addr) {
                    *slot = self.data[d] & width_mask(m.elem_width);
                }
            }
        }
        self.island_writes();
        self.monitor.status()
    }

    /// Applies the stores the static islands make in the cycle just observed (their
    /// controllers' cones, replayed from their registers).
    fn island_writes(&mut self) {
        use crate::engine::program::Clk;
        for c in &self.prog.clk {
            let Clk::Island {
                ins,
                outs,
                reg,
                island,
            } = *c
            else {
                continue;
            };
            let info = &self.prog.islands[island as usize];
            let chans = &self.prog.ports[ins.start as usize..(ins.start + ins.len) as usize];
            let inputs: Option<Vec<u64>> = chans
                .iter()
                .all(|&ch| self.valid[ch as usize] && self.ready[ch as usize])
                .then(|| chans.iter().map(|&ch| self.data[ch as usize]).collect());
            let words = self.regs.get(reg as usize..).unwrap_or(&[]);
            let mut mem = crate::engine::program::ProgramMemory {
                prog: &self.prog,
                ids: &info.mems,
                mems: &mut self.mems,
                writes: None,
            };
            info.island
                .replay_cycle(words, outs.len, &info.heads, inputs.as_deref(), &mut mem);
        }
    }

    /// The report. `max-cycles` unless the run ended as `done` or `deadlock`; without an
    /// environment, a run whose results all reached the invocation count is `done`.
    pub fn report(&self) -> RunReport {
        self.monitor.report(&self.prog, self.func, &self.mems)
    }
}

/// The report of a recorded trace of flat function `f` (whose channels are `f`'s, in
/// order): the cycles up to where the engine would have stopped.
pub fn report_from_trace(
    f: &Function,
    trace: &Trace,
    env: Option<&Environment>,
) -> Result<RunReport, SimError> {
    let mut obs = TraceObserver::new(f, env)?;
    let n = trace.channels().len();
    let mut rp = trace.replay();
    let (mut valid, mut ready) = (vec![false; n], vec![false; n]);
    while rp.next_cycle().is_some() {
        let vals = rp.values();
        for i in 0..n {
            valid[i] = vals[i] & 1 != 0;
            ready[i] = vals[i] & 2 != 0;
        }
        let st = Sample {
            valid: &valid,
            ready: &ready,
            data: &vals[n..2 * n],
            state: &vals[2 * n..],
        };
        if obs.push(st).is_some() {
            break;
        }
    }
    Ok(obs.report())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Simulation;
    use crate::stimulus::{ReadyPolicy, TokenSource};

    #[test]
    fn matches_the_engine_on_a_chain() {
        let f = crate::bench_support::chain(5);
        for (toks, policy) in [(30, "always"), (12, "random:3:0.4"), (5, "pattern:0")] {
            let mut env = Environment::default();
            env.push_tokens(
                "in0",
                TokenSource::Range {
                    start: 0,
                    end: toks,
                },
            );
            env.set_ready("out0", ReadyPolicy::parse(policy).unwrap());
            let mut sim = Simulation::new(&f, env.clone()).unwrap();
            sim.enable_trace();
            let want = sim.run(500);
            let trace = sim.take_trace().unwrap();
            let got = report_from_trace(&f, &trace, Some(&env)).unwrap();
            assert_eq!(got, want, "policy {policy}");
        }
    }
}
