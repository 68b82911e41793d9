//! The cycle-accurate simulation engine.
//!
//! A flattened [`Function`] is compiled ([`compile`]) into flat instruction lists over
//! struct-of-arrays state (valid, ready, data per channel; register words; memories). Each
//! cycle ([`Simulation::step`]):
//! 1. the environment drives argument valid/data (stimulus) and result ready (policies);
//! 2. the forward pass computes every valid/data in topological order of the combinational
//!    forward edges, then the backward pass computes every ready in reverse order; strongly
//!    connected parts are iterated to their least fixed point (starting from "not valid" /
//!    "not ready"), bounded, with a `no-convergence` event when they do not settle; graphs
//!    with `lazy_fork` (whose valid depends on ready) iterate both passes together;
//! 3. transfers are observed (outputs, stimulus consumption, statistics, events, trace);
//! 4. every register takes its next value (clock edge).
//!
//! The equations are those of `docs/semantics.md` (CIRCT 1.62's `lower-handshake-to-hw`), without
//! its listed bugs. Tuples are packed like CIRCT's `hw.struct`: field 0 in the most
//! significant bits. Memory addresses keep their low `ceil(log2(size))` bits; an address
//! that is still out of range reads 0 and its writes are dropped. Several store ports
//! writing the same address in one cycle: the highest port number wins.

pub mod arith;
mod compile;
mod counters;
mod eval;
pub mod float_arith;
mod program;
pub(crate) mod resim;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::sync::Arc;

use cranelift_entity::EntityRef;

use crate::deadlock::{self, DeadlockReport};
use crate::graph::{ArgType, ChannelId, Function, NodeId};
use crate::report::{
    ChannelStats, EventKind, OutputToken, RunReport, RuntimeEvent, Status, render_value_as,
};
use crate::stimulus::{ArgCursor, Environment, ReadyGen, ReadyPolicy, TokenSource};
use crate::trace::{ChannelMeta, MemWrite, StateMeta, Trace, TraceBuilder};
use crate::types::{Type, width_mask};

use counters::Counters;
use eval::State;
use program::Program;

/// Errors that prevent a simulation from starting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    /// The function still contains an `instance` (flatten it first).
    #[error("node `{node}` is an instance of `{callee}`; flatten the function before simulating")]
    Instance {
        /// Stable ID of the instance node.
        node: String,
        /// Called function.
        callee: String,
    },
    /// A channel does not have exactly one consumer.
    #[error(
        "channel `{channel}` has {count} consumers; every channel needs exactly one (insert forks and sinks)"
    )]
    Consumers {
        /// Channel name.
        channel: String,
        /// Number of consumers.
        count: usize,
    },
    /// A channel's data is wider than 64 bits.
    #[error("channel `{channel}` is {width} bits wide; the simulator supports at most 64")]
    TooWide {
        /// Channel name.
        channel: String,
        /// Its width.
        width: u32,
    },
    /// A node has the wrong shape.
    #[error("node `{node}`: {what}")]
    Malformed {
        /// Stable ID.
        node: String,
        /// What is wrong.
        what: String,
    },
    /// The environment names something the function does not have.
    #[error("environment: {0}")]
    Environment(String),
}

/// Most runtime events kept in a report.
const MAX_EVENTS: usize = 10_000;

/// Runtime state of one result.
#[derive(Clone, Debug)]
struct ResultRt {
    chan: u32,
    ready: ReadyGen,
    may_ready: bool,
    outputs: Vec<(u64, u64)>,
}

/// A running simulation of one function.
pub struct Simulation {
    func: Function,
    prog: Arc<Program>,
    st: State,
    cycle: u64,
    args: Vec<(u32, ArgCursor)>,
    results: Vec<ResultRt>,
    invocations: u64,
    counters: Counters,
    /// Last fire of each watched channel (`cond_br` outputs), -1 = never; others stay -1.
    last_fire: Vec<i64>,
    /// Channels whose last fire is tracked.
    watched: Vec<u32>,
    idle: u64,
    idle_since: u64,
    window: u64,
    status: Option<Status>,
    events: Vec<RuntimeEvent>,
    /// Entries of `Program::mux_checks` not reported yet (an out-of-range select is reported
    /// once per mux).
    mux_unreported: Vec<(u32, u32, u32)>,
    deadlock: Option<DeadlockReport>,
    trace: Option<Trace>,
    stop_when_done: bool,
}

impl Simulation {
    /// Compiles `f` and prepares a run in `env`, in the reset state.
    pub fn new(f: &Function, env: Environment) -> Result<Simulation, SimError> {
        let prog = Arc::new(compile::compile(f)?);
        let mut st = State::new(&prog);
        let env_err = |m: String| SimError::Environment(m);

        // Stimulus.
        for name in env.inputs.keys() {
            let ok = f
                .args
                .iter()
                .any(|a| &a.name == name && matches!(a.ty, ArgType::Channel(_)));
            if !ok {
                return Err(env_err(format!("no channel argument named `{name}`")));
            }
        }
        let last_none = f
            .args
            .iter()
            .rposition(|a| matches!(&a.ty, ArgType::Channel(Type::None)));
        let mut args = Vec::new();
        for &(ai, chan) in &prog.args {
            let a = &f.args[ai];
            let ty = match &a.ty {
                ArgType::Channel(t) => t.clone(),
                ArgType::MemRef(_) => continue,
            };
            let sources = match env.inputs.get(&a.name) {
                Some(s) => s.clone(),
                None if Some(ai) == last_none => vec![TokenSource::None(1)],
                None => Vec::new(),
            };
            args.push((chan, ArgCursor::new(sources, &ty)));
        }
        let invocations = args.iter().map(|(_, c)| c.total).max().unwrap_or(0).max(1);

        // Ready policies.
        for name in env.ready.keys() {
            if !f.results.iter().any(|r| &r.name == name) {
                return Err(env_err(format!("no result named `{name}`")));
            }
        }
        let results = prog
            .results
            .iter()
            .zip(&f.results)
            .map(|(&chan, r)| {
                let pol = env
                    .ready
                    .get(&r.name)
                    .cloned()
                    .unwrap_or(ReadyPolicy::Always);
                ResultRt {
                    chan,
                    may_ready: pol.can_be_ready(),
                    ready: ReadyGen::new(pol),
                    outputs: Vec::new(),
                }
            })
            .collect();

        // Memories: the environment's contents, else a `memory` node's `handshake.init`.
        let graph_inits = graph_memory_inits(f)?;
        for (mi, m) in prog.mems.iter().enumerate() {
            let src = if m.external {
                env.ext_memories.get(&m.name)
            } else {
                env.memories
                    .get(&m.name)
                    .or_else(|| graph_inits.get(&m.name))
            };
            if let Some(init) = src {
                if init.len() as u64 > m.size {
                    return Err(env_err(format!(
                        "{} values given for memory `{}` of {} elements",
                        init.len(),
                        m.name,
                        m.size
                    )));
                }
                let mask = width_mask(m.elem_width);
                for (slot, v) in st.mems[mi].iter_mut().zip(init) {
                    *slot = v & mask;
                }
            }
        }
        for name in env.ext_memories.keys() {
            if !prog.mems.iter().any(|m| m.external && &m.name == name) {
                return Err(env_err(format!("no extmemory argument named `{name}`")));
            }
        }
        for name in env.memories.keys() {
            if !prog.mems.iter().any(|m| !m.external && &m.name == name) {
                return Err(env_err(format!("no memory node named `{name}`")));
            }
        }

        let n = prog.n_channels;
        let counters = Counters::new(n);
        let last_fire = vec![-1; n];
        let watched = f
            .nodes
            .values()
            .filter(|n| n.op == crate::ops::Op::CondBr)
            .flat_map(|n| n.outputs.iter().map(|c| c.as_u32()))
            .collect();
        let window = deadlock::effective_window(env.deadlock_window, f);
        let mux_unreported = prog.mux_checks.clone();
        Ok(Simulation {
            func: f.clone(),
            prog,
            st,
            cycle: 0,
            args,
            results,
            invocations,
            counters,
            last_fire,
            watched,
            idle: 0,
            idle_since: 0,
            window,
            status: None,
            events: Vec::new(),
            mux_unreported,
            deadlock: None,
            trace: None,
            stop_when_done: true,
        })
    }

    /// Whether stepping stops once the run is done (default true). With `false`, [`step`]
    /// and [`run`] keep simulating after the status became [`Status::Done`] (it stays
    /// `Done`; deadlock detection is off from then on), e.g. to compare more cycles with
    /// another simulator.
    ///
    /// [`step`]: Simulation::step
    /// [`run`]: Simulation::run
    pub fn set_stop_when_done(&mut self, stop: bool) {
        self.stop_when_done = stop;
    }

    /// True while [`Simulation::step`] still simulates cycles.
    pub fn can_step(&self) -> bool {
        match self.status {
            None => true,
            Some(Status::Done) => !self.stop_when_done,
            Some(_) => false,
        }
    }

    /// Starts recording a [`Trace`] from the next cycle on (call before the first step to
    /// record everything).
    pub fn enable_trace(&mut self) {
        if self.trace.is_none() {
            let f = &self.func;
            let channels = f
                .channels
                .iter()
                .map(|(_, c)| ChannelMeta {
                    name: c.name.clone(),
                    ty: c.ty.clone(),
                })
                .collect();
            let mut state = Vec::new();
            for (nid, node) in f.nodes.iter() {
                let (a, b) = self.prog.node_regs[nid.index()];
                if a < b {
                    state.push(StateMeta {
                        node: node.id.clone(),
                        fields: self.prog.reg_names[a as usize..b as usize].to_vec(),
                    });
                }
            }
            let mems = self.prog.mems.iter().map(|m| m.name.clone()).collect();
            let mut tb = TraceBuilder::new(channels, state);
            tb.set_memories(mems);
            tb.set_data_aliases(&self.prog.data_aliases());
            let store = resim::ResimStore::new(self.prog.clone(), &self.st);
            self.trace = Some(Trace::from_resim(tb, store));
        }
    }

    /// The trace recorded so far, if tracing is on.
    pub fn trace(&self) -> Option<&Trace> {
        self.trace.as_ref()
    }

    /// Takes the recorded trace out (tracing stops).
    pub fn take_trace(&mut self) -> Option<Trace> {
        self.trace.take()
    }

    /// The function being simulated.
    pub fn function(&self) -> &Function {
        &self.func
    }

    /// Number of cycles simulated so far (the index of the next cycle).
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// How the run ended, or `None` while it can go on.
    pub fn status(&self) -> Option<Status> {
        self.status
    }

    /// Settled `valid` of a channel in the last simulated cycle.
    pub fn valid(&self, c: ChannelId) -> bool {
        self.st.valid[c.index()]
    }

    /// Settled `ready` of a channel in the last simulated cycle.
    pub fn ready(&self, c: ChannelId) -> bool {
        self.st.ready[c.index()]
    }

    /// Settled `data` of a channel in the last simulated cycle.
    pub fn data(&self, c: ChannelId) -> u64 {
        self.st.data[c.index()]
    }

    /// Current register words of a node (after the last clock edge) and their names.
    pub fn registers(&self, n: NodeId) -> (&[u64], &[String]) {
        let (a, b) = self.prog.node_regs[n.index()];
        (
            &self.st.regs[a as usize..b as usize],
            &self.prog.reg_names[a as usize..b as usize],
        )
    }

    /// Current contents of a memory, by node ID (internal) or argument name (external).
    pub fn memory(&self, name: &str) -> Option<&[u64]> {
        let i = self.prog.mems.iter().position(|m| m.name == name)?;
        Some(&self.st.mems[i])
    }

    /// Invocation count: the largest token count over the arguments (at least 1).
    pub fn invocations(&self) -> u64 {
        self.invocations
    }

    /// Simulates one cycle. Does nothing once the run has ended.
    pub fn step(&mut self) {
        if !self.can_step() {
            return;
        }
        let cycle = self.cycle;
        if let Some(r) = self.trace.as_mut().and_then(Trace::resim_mut) {
            r.begin_cycle(
                cycle,
                &self.st,
                &self.args,
                self.results.iter().map(|x| (x.chan, x.ready.clone())),
            );
        }
        let st = &mut self.st;
        resim::drive_args(&self.args, st);
        for r in &mut self.results {
            st.ready[r.chan as usize] = r.ready.next(cycle);
        }
        if let Some(node) = eval::settle_step(&self.prog, st) {
            let id = self.node_name(node);
            push_event(
                &mut self.events,
                cycle,
                id,
                EventKind::NoConvergence,
                || {
                    "a combinational cycle did not settle; values of this cycle are unreliable"
                        .into()
                },
            );
        }
        if !self.mux_unreported.is_empty() {
            self.check_mux_selects();
        }
        let any_fire = self.observe();
        if let Some(r) = self.trace.as_mut().and_then(Trace::resim_mut) {
            r.end_cycle(&self.st);
        }
        eval::clock_step(&self.prog, &mut self.st);
        if let Some(t) = &mut self.trace {
            if let Some(r) = t.resim_mut() {
                r.after_clock(&self.st);
            }
            for &(mem, addr, value) in &self.st.mem_writes {
                t.push_mem_write(MemWrite {
                    cycle,
                    mem,
                    addr,
                    value,
                });
            }
        }
        self.cycle += 1;

        // Termination.
        let done = if self.results.is_empty() {
            !any_fire && self.args.iter().all(|(_, c)| c.peek().is_none())
        } else {
            self.results
                .iter()
                .all(|r| r.outputs.len() as u64 >= self.invocations)
        };
        let progress = any_fire
            || self.results.iter().any(|r| {
                r.may_ready && self.st.valid[r.chan as usize] && !self.st.ready[r.chan as usize]
            });
        if progress {
            self.idle = 0;
        } else {
            if self.idle == 0 {
                self.idle_since = cycle;
            }
            self.idle += 1;
        }
        if self.status.is_some() {
            // Stepping on after `Done` (see `set_stop_when_done`).
        } else if done {
            self.status = Some(Status::Done);
        } else if self.idle >= self.window {
            self.status = Some(Status::Deadlock);
            self.counters.flush();
            self.deadlock = Some(self.analyze_deadlock());
        }
    }

    /// Runs until done, deadlocked, or `max_cycles` cycles have been simulated in total.
    pub fn run(&mut self, max_cycles: u64) -> RunReport {
        while self.can_step() && self.cycle < max_cycles {
            self.step();
        }
        if self.status.is_none() {
            self.status = Some(Status::MaxCycles);
        }
        self.report()
    }

    fn node_name(&self, node: u32) -> String {
        if node == u32::MAX {
            return self.func.name.clone();
        }
        self.func.nodes[NodeId::from_u32(node)].id.clone()
    }

    /// Reports muxes whose valid select is out of range in the settled cycle (once each).
    fn check_mux_selects(&mut self) {
        let (st, cycle, widths) = (&self.st, self.cycle, &self.prog.widths);
        let events = &mut self.events;
        let func = &self.func;
        self.mux_unreported.retain(|&(node, sel, n)| {
            let (v, k) = (st.valid[sel as usize], st.data[sel as usize]);
            if !v || k < u64::from(n) {
                return true;
            }
            let id = func.nodes[NodeId::from_u32(node)].id.clone();
            let value = arith::sext(k, u32::from(widths[sel as usize]));
            push_event(events, cycle, id, EventKind::SelectOutOfRange, || {
                crate::spec::mux_select_note(k, value, n as usize)
            });
            false
        });
    }

    /// Records transfers of the settled cycle. Returns true when any channel fired.
    fn observe(&mut self) -> bool {
        let cycle = self.cycle;
        let st = &self.st;
        let cyc = cycle as i64;
        if !self.counters.count(cycle, &st.valid, &st.ready) {
            return false;
        }
        for &w in &self.watched {
            let w = w as usize;
            if st.valid[w] & st.ready[w] {
                self.last_fire[w] = cyc;
            }
        }
        for (chan, cur) in &mut self.args {
            let ch = *chan as usize;
            if st.valid[ch] & st.ready[ch] {
                cur.advance();
            }
        }
        for r in &mut self.results {
            let ch = r.chan as usize;
            if st.valid[ch] & st.ready[ch] {
                r.outputs.push((cycle, st.data[ch]));
            }
        }
        for &(node, divisor, out, zero) in &self.prog.div_checks {
            let o = out as usize;
            if st.valid[o] & st.ready[o] && st.data[divisor as usize] & zero == 0 {
                let id = self.func.nodes[NodeId::from_u32(node)].id.clone();
                let (ty, bits) = (&self.func.channels[ChannelId::from_u32(out)].ty, st.data[o]);
                push_event(
                    &mut self.events,
                    cycle,
                    id,
                    EventKind::DivisionByZero,
                    || crate::spec::division_by_zero_note(ty, bits),
                );
            }
        }
        for &(node, ins, out, reg) in &self.prog.merge_checks {
            let nvalid = self.prog.ports[ins.range()]
                .iter()
                .filter(|&&c| st.valid[c as usize])
                .count();
            if nvalid < 2 {
                continue;
            }
            let decided = match reg {
                None => st.valid[out as usize] & st.ready[out as usize],
                Some(r) => st.regs[r as usize] == 0,
            };
            if decided {
                let id = self.func.nodes[NodeId::from_u32(node)].id.clone();
                push_event(
                    &mut self.events,
                    cycle,
                    id,
                    EventKind::Nondeterminism,
                    || format!("{nvalid} inputs valid at once; the lowest index wins"),
                );
            }
        }
        true
    }

    fn analyze_deadlock(&self) -> DeadlockReport {
        let view = deadlock::LiveView {
            func: &self.func,
            valid: &self.st.valid,
            ready: &self.st.ready,
            data: &self.st.data,
            last_fire: &self.last_fire,
            last_break: self.counters.flushed_last_break(),
            fires: self.counters.flushed_fires(),
            pending_args: self
                .prog
                .args
                .iter()
                .zip(&self.args)
                .map(|(&(ai, _), (_, cur))| (ai, cur.total - cur.consumed))
                .collect(),
            missing_results: self
                .results
                .iter()
                .enumerate()
                .map(|(i, r)| (i, self.invocations.saturating_sub(r.outputs.len() as u64)))
                .collect(),
            registers: &|n: NodeId| self.registers(n),
            idle_since: self.idle_since,
        };
        deadlock::analyze(&view)
    }

    /// The report of the run so far.
    pub fn report(&self) -> RunReport {
        let f = &self.func;
        let unsigned = f.unsigned_names();
        let mut outputs = BTreeMap::new();
        for (r, rt) in f.results.iter().zip(&self.results) {
            let u = unsigned.contains(&r.name);
            let toks = rt
                .outputs
                .iter()
                .map(|&(cycle, bits)| OutputToken {
                    cycle,
                    value: render_value_as(bits, &r.ty, u),
                    bits,
                })
                .collect();
            outputs.insert(r.name.clone(), toks);
        }
        let mut memories = BTreeMap::new();
        for (m, vals) in self.prog.mems.iter().zip(&self.st.mems) {
            let u = unsigned.contains(&m.name);
            let v = vals
                .iter()
                .filter_map(|&x| render_value_as(x, &m.elem, u))
                .collect();
            memories.insert(m.name.clone(), v);
        }
        let mut stats = BTreeMap::new();
        let c = &self.counters;
        for (cid, ch) in f.channels.iter() {
            let i = cid.index();
            stats.insert(
                ch.name.clone(),
                ChannelStats {
                    fires: c.fires(i),
                    stall_cycles: c.valid(i) - c.fires(i),
                    accept_cycles: c.ready(i) - c.fires(i),
                },
            );
        }
        RunReport {
            status: self.status.unwrap_or(Status::MaxCycles),
            cycles: self.cycle,
            outputs,
            memories,
            deadlock: self.deadlock.clone(),
            events: self.events.clone(),
            stats,
        }
    }
}

/// Initial contents of internal `memory` nodes given in the graph as a `handshake.init`
/// attribute (`[v0, v1, ...]`, values as integers, optionally typed `v : i32`), by node ID.
fn graph_memory_inits(f: &Function) -> Result<BTreeMap<String, Vec<u64>>, SimError> {
    let mut out = BTreeMap::new();
    for n in f.nodes.values() {
        if !matches!(n.op, crate::ops::Op::Memory { .. }) {
            continue;
        }
        let Some((_, text)) = n.attrs.iter().find(|(k, _)| k == "handshake.init") else {
            continue;
        };
        let body = text.trim();
        let body = body
            .strip_prefix('[')
            .and_then(|b| b.strip_suffix(']'))
            .ok_or_else(|| SimError::Malformed {
                node: n.id.clone(),
                what: format!("`handshake.init = {text}` is not a list `[v0, v1, ...]`"),
            })?;
        let mut vals = Vec::new();
        for item in body.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let num = item.split(':').next().unwrap_or("").trim();
            let v = num.parse::<i128>().map_err(|_| SimError::Malformed {
                node: n.id.clone(),
                what: format!("`handshake.init`: `{item}` is not an integer"),
            })?;
            vals.push(v as u64);
        }
        out.insert(n.id.clone(), vals);
    }
    Ok(out)
}

fn push_event(
    events: &mut Vec<RuntimeEvent>,
    cycle: u64,
    node: String,
    kind: EventKind,
    msg: impl FnOnce() -> String,
) {
    if events.len() < MAX_EVENTS {
        events.push(RuntimeEvent {
            cycle,
            node,
            kind,
            message: msg(),
        });
    } else if events.len() == MAX_EVENTS {
        events.push(RuntimeEvent {
            cycle,
            node,
            kind: EventKind::Truncated,
            message: format!("more than {MAX_EVENTS} events; the rest are dropped"),
        });
    }
}

#[cfg(test)]
mod perf_probe {
    use super::*;

    fn min_time(reps: usize, mut f: impl FnMut()) -> std::time::Duration {
        (0..reps)
            .map(|_| {
                let t = std::time::Instant::now();
                f();
                t.elapsed()
            })
            .min()
            .unwrap()
    }

    /// Fixed workload for instruction counting (`valgrind --tool=callgrind`): env
    /// `PROBE_N` stages, `PROBE_CYCLES` cycles, `PROBE_TRACE=1` to trace.
    #[test]
    #[ignore]
    fn run_chain() {
        let get = |k: &str, d: u64| {
            std::env::var(k)
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(d)
        };
        let n = get("PROBE_N", 50) as usize;
        let cycles = get("PROBE_CYCLES", 20_000);
        let f = crate::bench_support::chain(n);
        let mut env = Environment::default();
        env.push_tokens(
            "in0",
            TokenSource::Range {
                start: 0,
                end: 1 << 40,
            },
        );
        let mut sim = Simulation::new(&f, env).unwrap();
        if get("PROBE_TRACE", 0) == 1 {
            sim.enable_trace();
        }
        let t = std::time::Instant::now();
        let r = sim.run(cycles);
        let e = t.elapsed();
        assert_eq!(r.cycles, cycles);
        eprintln!(
            "n={n} cycles={cycles}: {:.0} kc/s, trace {:?} bytes",
            cycles as f64 / e.as_secs_f64() / 1e3,
            sim.trace().map(|t| t.memory_bytes())
        );
        if let Some(t) = sim.trace() {
            let mut rp = t.replay();
            let mut hist = std::collections::BTreeMap::new();
            for _ in 0..2000 {
                let Some(cc) = rp.next_cycle() else { break };
                for ch in cc.changes {
                    let k = match ch.signal {
                        crate::trace::Signal::Ctrl(_) => "ctrl",
                        crate::trace::Signal::Data(_) => "data",
                        crate::trace::Signal::State(_) => "state",
                    };
                    *hist.entry(k).or_insert(0u64) += 1;
                }
            }
            eprintln!("keyframes {} changes by kind {hist:?}", t.keyframes());
        }
    }

    #[test]
    #[ignore]
    fn probe() {
        for n in [50, 200] {
            let f = crate::bench_support::chain(n);
            let mut env = Environment::default();
            env.push_tokens(
                "in0",
                TokenSource::Range {
                    start: 0,
                    end: 1 << 40,
                },
            );
            let mut sim = Simulation::new(&f, env.clone()).unwrap();
            let k = 5000u32;
            let settle = min_time(30, || {
                for _ in 0..k {
                    eval::settle(&sim.prog, &mut sim.st);
                }
            });
            let clock = min_time(30, || {
                for _ in 0..k {
                    eval::clock(&sim.prog, &mut sim.st);
                }
            });
            let observe = min_time(30, || {
                for _ in 0..k {
                    sim.observe();
                }
            });
            let timed_run = |trace: bool| {
                (0..10)
                    .map(|_| {
                        let mut s = Simulation::new(&f, env.clone()).unwrap();
                        if trace {
                            s.enable_trace();
                        }
                        let t = std::time::Instant::now();
                        s.run(u64::from(k));
                        let e = t.elapsed();
                        if trace {
                            let b = s.trace().unwrap().memory_bytes();
                            eprintln!(
                                "  trace bytes per Mcycle: {:.1} MB",
                                b as f64 * 1e6 / f64::from(k) / 1e6
                            );
                        }
                        e
                    })
                    .min()
                    .unwrap()
            };
            let run = timed_run(false);
            let traced = timed_run(true);
            eprintln!(
                "n={n}: settle {:?} clock {:?} observe {:?} run {:?} ({:.0} kc/s) traced {:?} ({:.0} kc/s)",
                settle / k,
                clock / k,
                observe / k,
                run / k,
                f64::from(k) / run.as_secs_f64() / 1e3,
                traced / k,
                f64::from(k) / traced.as_secs_f64() / 1e3,
            );
        }
    }
}
