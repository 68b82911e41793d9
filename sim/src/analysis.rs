//! The run report computed from recorded cycles instead of the live engine: outputs,
//! memories, statistics, runtime events, termination and deadlock analysis, with the same
//! rules as [`Simulation`](crate::engine::Simulation). Used to report on traces replayed from
//! hardware VCDs, so that `replay` prints what `sim` prints.
//!
//! Feed cycles in order with [`TraceObserver::push`]; it says when the engine would have
//! stopped. Without an [`Environment`] (a VCD of unknown stimulus), the number of invocations
//! is the largest number of tokens any argument transferred, pending inputs are unknown (0)
//! and every result counts as possibly ready; runs without results never end as `done`.

use std::collections::BTreeMap;

use cranelift_entity::EntityRef;

use crate::deadlock::{self, DeadlockReport};
use crate::graph::{ArgType, ChannelId, Function, NodeId};
use crate::ops::Op;
use crate::report::{
    ChannelStats, EventKind, OutputToken, RunReport, RuntimeEvent, Status, render_value_as,
};
use crate::spec::RegField;
use crate::stimulus::{Environment, ReadyPolicy, TokenSource};
use crate::trace::{Sample, StateMeta, Trace};
use crate::types::{Type, width_mask};

/// Most runtime events kept (as in the engine).
const MAX_EVENTS: usize = 10_000;

struct Mem {
    name: String,
    elem: u32,
    /// Element type (how reports print the contents).
    ty: Type,
    mask: u64,
    vals: Vec<u64>,
    /// `(addr channel, data channel)` per store port.
    stores: Vec<(usize, usize)>,
}

/// One result: its channel, whether it can ever be ready, `(cycle, bits)` per token.
type ResultObs = (usize, bool, Vec<(u64, u64)>);

/// Computes a [`RunReport`] from per-cycle samples.
pub struct TraceObserver<'f> {
    func: &'f Function,
    state_meta: Vec<StateMeta>,
    state_start: Vec<usize>,
    node_state: BTreeMap<NodeId, usize>,
    fires: Vec<u64>,
    vcnt: Vec<u64>,
    rcnt: Vec<u64>,
    last_break: Vec<i64>,
    last_fire: Vec<i64>,
    watched: Vec<usize>,
    /// `(channel, total tokens or None, consumed, arg index)`.
    args: Vec<(usize, Option<u64>, u64, usize)>,
    /// `(channel, may be ready, outputs)`.
    results: Vec<ResultObs>,
    invocations: Option<u64>,
    window: u64,
    idle: u64,
    idle_since: u64,
    cycle: u64,
    status: Option<Status>,
    deadlock: Option<DeadlockReport>,
    events: Vec<RuntimeEvent>,
    mems: Vec<Mem>,
    /// `(node, divisor channel, out channel, divisor zero mask)`.
    div_checks: Vec<(NodeId, usize, usize, u64)>,
    /// `(node, input channels, out channel, index of the `won` state word)`.
    merge_checks: Vec<(NodeId, Vec<usize>, usize, Option<usize>)>,
    /// Muxes whose out-of-range select is not reported yet: (node, select, data inputs, width).
    mux_unreported: Vec<(NodeId, usize, usize, u32)>,
}

impl<'f> TraceObserver<'f> {
    /// Starts observing a run of `f` (flattened, channel indices as in `f.channels`) whose
    /// state words follow `state_meta`, in environment `env` when it is known.
    pub fn new(f: &'f Function, state_meta: &[StateMeta], env: Option<&Environment>) -> Self {
        let n = f.channels.len();
        let mut state_start = Vec::new();
        let mut node_state = BTreeMap::new();
        let mut acc = 0;
        for (i, s) in state_meta.iter().enumerate() {
            state_start.push(acc);
            acc += s.fields.len();
            if let Some(id) = f.node_by_id(&s.node) {
                node_state.insert(id, i);
            }
        }
        let last_none = f
            .args
            .iter()
            .rposition(|a| matches!(&a.ty, ArgType::Channel(Type::None)));
        let mut args = Vec::new();
        for (ai, a) in f.args.iter().enumerate() {
            if let (ArgType::Channel(_), Some(node)) = (&a.ty, a.node) {
                let ch = f.nodes[node].outputs[0].index();
                let total = env.map(|e| match e.inputs.get(&a.name) {
                    Some(s) => s.iter().map(TokenSource::len).sum(),
                    None if Some(ai) == last_none => 1,
                    None => 0,
                });
                args.push((ch, total, 0, ai));
            }
        }
        let invocations = env.map(|_| args.iter().filter_map(|a| a.1).max().unwrap_or(0).max(1));
        let ret = f.return_node();
        let results = f
            .results
            .iter()
            .enumerate()
            .filter_map(|(k, r)| {
                let ch = ret.and_then(|rn| f.nodes[rn].inputs.get(k).copied())?;
                let may = env
                    .and_then(|e| e.ready.get(&r.name))
                    .is_none_or(ReadyPolicy::can_be_ready);
                Some((ch.index(), may, Vec::new()))
            })
            .collect();
        let window = crate::deadlock::effective_window(env.map_or(16, |e| e.deadlock_window), f);
        let mut mems = Vec::new();
        let mut div_checks = Vec::new();
        let mut merge_checks = Vec::new();
        let mut mux_unreported = Vec::new();
        let mut watched = Vec::new();
        for (nid, node) in f.nodes.iter() {
            match &node.op {
                Op::Memory { st, memref, .. } | Op::ExtMemory { st, memref, .. } => {
                    let (name, init) = match &node.op {
                        Op::ExtMemory { memref_arg, .. } => {
                            let name = f
                                .args
                                .get(*memref_arg)
                                .map_or_else(|| node.id.clone(), |a| a.name.clone());
                            let init = env.and_then(|e| e.ext_memories.get(&name)).cloned();
                            (name, init)
                        }
                        _ => (
                            node.id.clone(),
                            env.and_then(|e| e.memories.get(&node.id)).cloned(),
                        ),
                    };
                    let size = memref.len().min(1 << 32) as usize;
                    let elem = memref.elem.bit_width();
                    let mut vals = vec![0; size];
                    for (v, x) in vals.iter_mut().zip(init.unwrap_or_default()) {
                        *v = x & width_mask(elem);
                    }
                    let abits = 64 - (memref.len().max(1) - 1).leading_zeros();
                    let stores = (0..*st as usize)
                        .filter_map(|j| {
                            Some((
                                node.inputs.get(2 * j + 1)?.index(),
                                node.inputs.get(2 * j)?.index(),
                            ))
                        })
                        .collect();
                    mems.push(Mem {
                        name,
                        elem,
                        ty: memref.elem.clone(),
                        mask: width_mask(abits),
                        vals,
                        stores,
                    });
                }
                Op::Arith(a) if a.divides() => {
                    if let (Some(d), Some(o)) = (node.inputs.get(1), node.outputs.first()) {
                        let zero = crate::spec::divisor_zero_mask(&f.channels[*d].ty);
                        div_checks.push((nid, d.index(), o.index(), zero));
                    }
                }
                Op::Merge if node.inputs.len() > 1 => {
                    let ins = node.inputs.iter().map(|c| c.index()).collect();
                    merge_checks.push((nid, ins, node.outputs[0].index(), None));
                }
                Op::ControlMerge if node.inputs.len() > 1 => {
                    let ins = node.inputs.iter().map(|c| c.index()).collect();
                    let won = node_state.get(&nid).and_then(|&si| {
                        let pos = state_meta[si]
                            .fields
                            .iter()
                            .position(|x| RegField::parse(x) == Some(RegField::Won))?;
                        Some(state_start[si] + pos)
                    });
                    merge_checks.push((nid, ins, node.outputs[0].index(), won));
                }
                Op::CondBr => watched.extend(node.outputs.iter().map(|c| c.index())),
                Op::Mux if node.inputs.len() > 1 => {
                    let sel = node.inputs[0];
                    let w = f.channels[sel].ty.bit_width();
                    mux_unreported.push((nid, sel.index(), node.inputs.len() - 1, w));
                }
                _ => {}
            }
        }
        TraceObserver {
            func: f,
            state_meta: state_meta.to_vec(),
            state_start,
            node_state,
            fires: vec![0; n],
            vcnt: vec![0; n],
            rcnt: vec![0; n],
            last_break: vec![-1; n],
            last_fire: vec![-1; n],
            watched,
            args,
            results,
            invocations,
            window,
            idle: 0,
            idle_since: 0,
            cycle: 0,
            status: None,
            deadlock: None,
            events: Vec::new(),
            mems,
            div_checks,
            merge_checks,
            mux_unreported,
        }
    }

    /// The status once the run has ended (`done` or `deadlock`), else `None`.
    pub fn status(&self) -> Option<Status> {
        self.status
    }

    /// Cycles observed so far.
    pub fn cycles(&self) -> u64 {
        self.cycle
    }

    fn event(&mut self, node: NodeId, kind: EventKind, message: String) {
        let id = self.func.nodes[node].id.clone();
        if self.events.len() < MAX_EVENTS {
            self.events.push(RuntimeEvent {
                cycle: self.cycle,
                node: id,
                kind,
                message,
            });
        } else if self.events.len() == MAX_EVENTS {
            self.events.push(RuntimeEvent {
                cycle: self.cycle,
                node: id,
                kind: EventKind::Truncated,
                message: format!("more than {MAX_EVENTS} events; the rest are dropped"),
            });
        }
    }

    /// Observes the next cycle. Returns the status when the engine would stop after it.
    /// Does nothing once the run has ended.
    pub fn push(&mut self, s: Sample<'_>) -> Option<Status> {
        if self.status.is_some() {
            return self.status;
        }
        let n = self.fires.len();
        let get = |v: &[bool], i: usize| v.get(i).copied().unwrap_or(false);
        let cyc = self.cycle as i64;
        let mut any = false;
        for i in 0..n {
            let (v, r) = (get(s.valid, i), get(s.ready, i));
            self.fires[i] += u64::from(v & r);
            self.vcnt[i] += u64::from(v);
            self.rcnt[i] += u64::from(r);
            any |= v & r;
            if !(v & !r) {
                self.last_break[i] = cyc;
            }
        }
        let fire = |i: usize| get(s.valid, i) & get(s.ready, i);
        let data = |i: usize| s.data.get(i).copied().unwrap_or(0);
        let mut k = 0;
        while k < self.mux_unreported.len() {
            let (node, sel, n_data, w) = self.mux_unreported[k];
            let bits = data(sel);
            if get(s.valid, sel) && bits >= n_data as u64 {
                self.mux_unreported.remove(k);
                let value = crate::engine::arith::sext(bits, w);
                let note = crate::spec::mux_select_note(bits, value, n_data);
                self.event(node, EventKind::SelectOutOfRange, note);
            } else {
                k += 1;
            }
        }
        if any {
            for &w in &self.watched {
                if fire(w) {
                    self.last_fire[w] = cyc;
                }
            }
            for a in &mut self.args {
                if fire(a.0) {
                    a.2 += 1;
                }
            }
            for r in &mut self.results {
                if fire(r.0) {
                    r.2.push((self.cycle, data(r.0)));
                }
            }
            for k in 0..self.div_checks.len() {
                let (node, d, o, zero) = self.div_checks[k];
                if fire(o) && data(d) & zero == 0 {
                    let note = crate::spec::division_by_zero_note(
                        &self.func.channels[ChannelId::new(o)].ty,
                        data(o),
                    );
                    self.event(node, EventKind::DivisionByZero, note);
                }
            }
            for k in 0..self.merge_checks.len() {
                let (node, ref ins, out, won) = self.merge_checks[k];
                let nvalid = ins.iter().filter(|&&c| get(s.valid, c)).count();
                if nvalid < 2 {
                    continue;
                }
                let decided = match won {
                    None => fire(out),
                    Some(w) => s.state.get(w).copied().unwrap_or(0) == 0,
                };
                if decided {
                    self.event(
                        node,
                        EventKind::Nondeterminism,
                        format!("{nvalid} inputs valid at once; the lowest index wins"),
                    );
                }
            }
        }
        for m in &mut self.mems {
            for &(a, d) in &m.stores {
                if get(s.valid, a) & get(s.valid, d) {
                    let addr = (data(a) & m.mask) as usize;
                    if let Some(slot) = m.vals.get_mut(addr) {
                        *slot = data(d) & width_mask(m.elem);
                    }
                }
            }
        }
        let cycle = self.cycle;
        self.cycle += 1;
        let done = if self.results.is_empty() {
            !any && self.args.iter().all(|a| a.1.is_some_and(|t| a.2 >= t))
        } else {
            match self.invocations {
                Some(inv) => self.results.iter().all(|r| r.2.len() as u64 >= inv),
                None => false,
            }
        };
        let progress = any
            || self
                .results
                .iter()
                .any(|r| r.1 && get(s.valid, r.0) && !get(s.ready, r.0));
        if progress {
            self.idle = 0;
        } else {
            if self.idle == 0 {
                self.idle_since = cycle;
            }
            self.idle += 1;
        }
        if done {
            self.status = Some(Status::Done);
        } else if self.idle >= self.window {
            self.status = Some(Status::Deadlock);
            self.deadlock = Some(self.analyze(s));
        }
        self.status
    }

    fn analyze(&self, s: Sample<'_>) -> DeadlockReport {
        let f = self.func;
        let n = f.channels.len();
        let pad_b = |v: &[bool]| {
            let mut x = v.to_vec();
            x.resize(n, false);
            x
        };
        let valid = pad_b(s.valid);
        let ready = pad_b(s.ready);
        let mut data = s.data.to_vec();
        data.resize(n, 0);
        let state = s.state;
        let regs = |nid: NodeId| -> (&[u64], &[String]) {
            match self.node_state.get(&nid) {
                Some(&si) => {
                    let a = self.state_start[si];
                    let fields = &self.state_meta[si].fields;
                    let b = (a + fields.len()).min(state.len());
                    (
                        state.get(a..b).unwrap_or(&[]),
                        &fields[..b.saturating_sub(a)],
                    )
                }
                None => (&[], &[]),
            }
        };
        let inv = self.invocations_now();
        let view = deadlock::LiveView {
            func: f,
            valid: &valid,
            ready: &ready,
            data: &data,
            last_fire: &self.last_fire,
            last_break: &self.last_break,
            fires: &self.fires,
            pending_args: self
                .args
                .iter()
                .map(|a| (a.3, a.1.map_or(0, |t| t.saturating_sub(a.2))))
                .collect(),
            missing_results: self
                .results
                .iter()
                .enumerate()
                .map(|(i, r)| (i, inv.saturating_sub(r.2.len() as u64)))
                .collect(),
            registers: &regs,
            idle_since: self.idle_since,
        };
        deadlock::analyze(&view)
    }

    fn invocations_now(&self) -> u64 {
        self.invocations
            .unwrap_or_else(|| self.args.iter().map(|a| a.2).max().unwrap_or(0).max(1))
    }

    /// The report. `max-cycles` unless the run ended as `done` or `deadlock`; without an
    /// environment, a run whose results all reached the invocation count is `done`.
    pub fn report(&self) -> RunReport {
        let f = self.func;
        let inv = self.invocations_now();
        let mut status = self.status.unwrap_or(Status::MaxCycles);
        if self.status.is_none()
            && self.invocations.is_none()
            && !self.results.is_empty()
            && self.results.iter().all(|r| r.2.len() as u64 >= inv)
        {
            status = Status::Done;
        }
        let unsigned = f.unsigned_names();
        let mut outputs = BTreeMap::new();
        let ret = f.return_node();
        for (k, r) in f.results.iter().enumerate() {
            let u = unsigned.contains(&r.name);
            let ch = ret
                .and_then(|rn| f.nodes[rn].inputs.get(k).copied())
                .map(ChannelId::index);
            let toks = self
                .results
                .iter()
                .find(|x| Some(x.0) == ch)
                .map(|x| {
                    x.2.iter()
                        .map(|&(cycle, bits)| OutputToken {
                            cycle,
                            value: render_value_as(bits, &r.ty, u),
                            bits,
                        })
                        .collect()
                })
                .unwrap_or_default();
            outputs.insert(r.name.clone(), toks);
        }
        let mut memories = BTreeMap::new();
        for m in &self.mems {
            let u = unsigned.contains(&m.name);
            memories.insert(
                m.name.clone(),
                m.vals
                    .iter()
                    .filter_map(|&x| render_value_as(x, &m.ty, u))
                    .collect(),
            );
        }
        let mut stats = BTreeMap::new();
        for (cid, ch) in f.channels.iter() {
            let i = cid.index();
            stats.insert(
                ch.name.clone(),
                ChannelStats {
                    fires: self.fires[i],
                    stall_cycles: self.vcnt[i] - self.fires[i],
                    accept_cycles: self.rcnt[i] - self.fires[i],
                },
            );
        }
        RunReport {
            status,
            cycles: self.cycle,
            outputs,
            memories,
            deadlock: self.deadlock.clone(),
            events: self.events.clone(),
            stats,
        }
    }
}

/// The report of a recorded trace of `f` (whose channels are `f`'s, in order): the cycles up
/// to where the engine would have stopped. Returns the report and that number of cycles.
pub fn report_from_trace(f: &Function, trace: &Trace, env: Option<&Environment>) -> RunReport {
    let mut obs = TraceObserver::new(f, trace.state_meta(), env);
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
    obs.report()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Simulation;

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
            let got = report_from_trace(&f, &trace, Some(&env));
            assert_eq!(got, want, "policy {policy}");
        }
    }
}
