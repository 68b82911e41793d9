//! The run as seen from outside the circuit: transfers per channel, tokens taken from every
//! argument and given by every result, runtime events, when the run ends (done, deadlock)
//! and its [`RunReport`].
//!
//! One monitor serves both the engine ([`super::Simulation`] feeds it the settled signals of
//! every cycle it simulates) and recorded runs ([`crate::analysis::TraceObserver`] feeds it
//! the samples of every cycle of a trace, e.g. a VCD of a hardware run), so both reach their
//! report through the same code and agree on every rule: what counts as progress, when a
//! run is done or deadlocked, which events fire, how values are rendered.
//!
//! Without an [`Environment`] (a recorded run of unknown stimulus) the number of invocations
//! is the largest number of tokens any argument transferred, pending inputs are unknown (0),
//! every result counts as possibly ready, and a run without results never ends as done.

use std::collections::BTreeMap;

use cranelift_entity::EntityRef;

use crate::deadlock::{self, DeadlockReport};
use crate::graph::{Function, NodeId};
use crate::report::{
    ChannelStats, EventKind, OutputSummary, OutputToken, RunReport, RuntimeEvent, Status,
    render_value_as,
};
use crate::stimulus::{Environment, ReadyPolicy, TokenSource};

use super::counters::Counters;
use super::program::Program;

/// Most runtime events kept in a report.
const MAX_EVENTS: usize = 10_000;

/// The settled signals of one cycle, in channel order, and the register words at its start
/// (in the program's register order, which is the trace's state-word order).
#[derive(Clone, Copy)]
pub(crate) struct Signals<'a> {
    pub valid: &'a [bool],
    pub ready: &'a [bool],
    pub data: &'a [u64],
    pub regs: &'a [u64],
}

/// One channel argument.
#[derive(Clone, Debug)]
struct ArgObs {
    chan: u32,
    /// Index in `Function::args`.
    arg: usize,
    /// Tokens the environment gives it (unknown without an environment).
    total: Option<u64>,
    consumed: u64,
}

/// Tokens of one result a report keeps at each end: the first and the last
/// [`KEPT_OUTPUTS`] (`(cycle, bits)`, 16 bytes each, so at most 2 MiB per result however
/// long the run); the ones between are counted ([`RunReport::omitted_outputs`]).
pub const KEPT_OUTPUTS: usize = 1 << 16;

/// Tokens of one result a report keeps when asked for every token
/// ([`Environment::keep_all_outputs`], `--outputs all`, `--json`'s default): 4,194,304, 64 MiB
/// per result here and a few hundred MB of JSON. Past it the report keeps the first that
/// many and the last [`KEPT_OUTPUTS`], and counts the rest in
/// [`RunReport::omitted_outputs`] (counts and checksums cover every token), so a run over
/// `0..10^12` ends with a report instead of running out of memory.
pub const MAX_ALL_OUTPUTS: usize = 1 << 22;

/// The tokens a result gave: how many, a checksum of all of them, and the first and the last
/// [`KEPT_OUTPUTS`] (when `keep_all`: the first [`MAX_ALL_OUTPUTS`] and the last
/// [`KEPT_OUTPUTS`]).
#[derive(Clone, Debug)]
struct OutputLog {
    /// The result's width: a value wider than 64 bits enters the checksum as its limbs.
    width: u32,
    count: u64,
    checksum: crate::report::TokenChecksum,
    keep_all: bool,
    head: Vec<(u64, u64)>,
    tail: std::collections::VecDeque<(u64, u64)>,
}

impl OutputLog {
    fn new(keep_all: bool, width: u32) -> OutputLog {
        OutputLog {
            width,
            count: 0,
            checksum: crate::report::TokenChecksum::default(),
            keep_all,
            head: Vec::new(),
            tail: std::collections::VecDeque::new(),
        }
    }

    #[inline]
    fn push(&mut self, t: (u64, u64)) {
        self.count += 1;
        if crate::wide::is_wide(self.width) {
            for limb in crate::wide::to_limbs(t.1, self.width) {
                self.checksum.add(limb);
            }
        } else {
            self.checksum.add(t.1);
        }
        let keep = if self.keep_all {
            MAX_ALL_OUTPUTS
        } else {
            KEPT_OUTPUTS
        };
        if self.head.len() < keep {
            self.head.push(t);
        } else {
            if self.tail.len() == KEPT_OUTPUTS {
                self.tail.pop_front();
            }
            self.tail.push_back(t);
        }
    }

    fn len(&self) -> usize {
        self.count as usize
    }

    /// Tokens given but not kept.
    fn omitted(&self) -> u64 {
        self.count - (self.head.len() + self.tail.len()) as u64
    }

    fn iter(&self) -> impl Iterator<Item = &(u64, u64)> {
        self.head.iter().chain(self.tail.iter())
    }
}

/// One result.
#[derive(Clone, Debug)]
struct ResultObs {
    chan: u32,
    /// Whether its ready policy can ever be ready.
    may_ready: bool,
    /// `(cycle, bits)` per token (the first and last ones).
    outputs: OutputLog,
    /// For a stream result: its ends and first tokens.
    stream: Option<StreamObs>,
}

/// What the monitor keeps of a stream result (see [`crate::stream`]).
#[derive(Clone, Debug)]
struct StreamObs {
    elem: crate::types::Type,
    /// Tokens with the end bit set, so far.
    ends: u64,
    /// The first [`crate::stream::KEPT_ELEMENTS`] tokens.
    kept: Vec<(u64, u64)>,
    /// Tokens given after those.
    dropped: u64,
}

/// The tokens the environment drives into argument `ai` of `f`: its bound sources, else one
/// token for the last `none` argument, else none.
pub(crate) fn arg_sources(f: &Function, env: &Environment, ai: usize) -> Vec<TokenSource> {
    crate::stimulus::argument_tokens(f, env, ai)
}

/// The message of an [`EventKind::AddressOutOfRange`] event: the address as given (signed
/// when its top bit is set), the memory's size, and what the port does with it.
fn address_note(bits: u64, width: u32, m: &super::program::MemInfo, store: bool) -> String {
    let signed = super::arith::sext(bits, width);
    let shown = if signed < 0 {
        signed.to_string()
    } else {
        bits.to_string()
    };
    let low = bits & m.addr_mask;
    let abits = m.addr_mask.count_ones();
    let what = match (low < m.size, store) {
        (true, false) => format!("the load reads element {low} (the low {abits} address bits)"),
        (true, true) => format!("the store writes element {low} (the low {abits} address bits)"),
        (false, false) => {
            format!("element {low} (the low {abits} address bits) does not exist: the load reads 0")
        }
        (false, true) => format!(
            "element {low} (the low {abits} address bits) does not exist: nothing is written"
        ),
    };
    format!(
        "{} address {shown} is outside `{}` ({} elements); {what}",
        if store { "store" } else { "load" },
        m.name,
        m.size
    )
}

/// Statistics, events and termination of one run.
#[derive(Clone, Debug)]
pub(crate) struct Monitor {
    /// Transfer statistics, and the last fire of every channel (what the deadlock
    /// analysis asks of `cond_br` outputs).
    counters: Counters,
    /// Data at the last fire of the operands of comparisons deciding `cond_br`s.
    last_data: Vec<u64>,
    /// The channels of `last_data` that are tracked.
    watched_data: Vec<u32>,
    args: Vec<ArgObs>,
    results: Vec<ResultObs>,
    invocations: Option<u64>,
    /// For a function with stream results run with a known stimulus: how many ends each
    /// stream result owes before the run is done.
    stream_ends: Option<u64>,
    window: u64,
    /// The first register of every static island: one that runs its loop makes progress
    /// though no channel moves.
    island_regs: Vec<u32>,
    idle: u64,
    idle_since: u64,
    cycle: u64,
    status: Option<Status>,
    events: Vec<RuntimeEvent>,
    /// Set when the run ended `Done` because it drained (see [`RunReport::drained`]).
    drained: Option<String>,
    /// Entries of `Program::mux_checks` not reported yet (an out-of-range select is reported
    /// once per mux).
    mux_unreported: Vec<(u32, u32, u32)>,
    /// Load-store queues already reported for allocating several groups in one cycle.
    lsq_reported: Vec<u32>,
    deadlock: Option<DeadlockReport>,
}

impl Monitor {
    /// A monitor for runs of `f` compiled to `prog`, in `env` when it is known.
    pub(crate) fn new(prog: &Program, f: &Function, env: Option<&Environment>) -> Monitor {
        let args: Vec<ArgObs> = prog
            .args
            .iter()
            .map(|&(ai, chan)| ArgObs {
                chan,
                arg: ai,
                total: env.map(|e| arg_sources(f, e, ai).iter().map(TokenSource::len).sum()),
                consumed: 0,
            })
            .collect();
        let invocations = env.map(|_| {
            args.iter()
                .filter_map(|a| a.total)
                .max()
                .unwrap_or(0)
                .max(1)
        });
        // A stream function is done when every stream result has ended as often as the
        // stream arguments were ended (`stream::expected_ends`).
        let stream_ends = env.and_then(|e| crate::stream::expected_ends(f, e));
        let results = prog
            .results
            .iter()
            .zip(&f.results)
            .map(|(&chan, r)| ResultObs {
                stream: f.stream_element(&r.name).map(|elem| StreamObs {
                    elem,
                    ends: 0,
                    kept: Vec::new(),
                    dropped: 0,
                }),
                chan,
                may_ready: env
                    .and_then(|e| e.ready.get(&r.name))
                    .is_none_or(ReadyPolicy::can_be_ready),
                outputs: OutputLog::new(
                    env.is_some_and(|e| e.keep_all_outputs),
                    f.channels[crate::graph::ChannelId::new(chan as usize)]
                        .ty
                        .bit_width(),
                ),
            })
            .collect();
        let n = prog.n_channels;
        let watched_data = deadlock::watched_operands(f)
            .iter()
            .map(|c| c.as_u32())
            .collect();
        Monitor {
            counters: Counters::new(n),
            last_data: vec![0; n],
            watched_data,
            args,
            results,
            invocations,
            stream_ends,
            window: deadlock::effective_window(env.map_or(16, |e| e.deadlock_window), f),
            island_regs: prog
                .clk
                .iter()
                .filter_map(|c| match c {
                    super::program::Clk::Island { reg, .. } => Some(*reg),
                    _ => None,
                })
                .collect(),
            idle: 0,
            idle_since: 0,
            cycle: 0,
            status: None,
            events: Vec::new(),
            drained: None,
            mux_unreported: prog.mux_checks.clone(),
            lsq_reported: Vec::new(),
            deadlock: None,
        }
    }

    /// Cycles observed so far.
    pub(crate) fn cycles(&self) -> u64 {
        self.cycle
    }

    /// How the run ended, or `None` while it goes on.
    pub(crate) fn status(&self) -> Option<Status> {
        self.status
    }

    /// Marks a run stopped from outside (Ctrl-C) before it ended.
    pub(crate) fn stop_interrupted(&mut self) {
        if self.status.is_none() {
            self.status = Some(Status::Interrupted);
        }
    }

    /// Marks a run that stopped at its cycle limit.
    pub(crate) fn stop_at_limit(&mut self) {
        if self.status.is_none() {
            self.status = Some(Status::MaxCycles);
        }
    }

    /// Transfers per channel and cycle over the cycles observed so far (0 before any).
    pub(crate) fn transfers_per_channel_cycle(&self) -> f64 {
        let n = self.counters.channels();
        if self.cycle == 0 || n == 0 {
            return 0.0;
        }
        let fires: u64 = (0..n).map(|i| self.counters.fires(i)).sum();
        fires as f64 / (n as f64 * self.cycle as f64)
    }

    /// The invocation count: the largest token count over the arguments (at least 1); without
    /// an environment, the largest number of tokens an argument transferred so far.
    pub(crate) fn invocations(&self) -> u64 {
        self.invocations.unwrap_or_else(|| {
            self.args
                .iter()
                .map(|a| a.consumed)
                .max()
                .unwrap_or(0)
                .max(1)
        })
    }

    /// Records an event of the cycle being observed (the next [`Monitor::observe`]).
    pub(crate) fn event(
        &mut self,
        f: &Function,
        node: u32,
        kind: EventKind,
        msg: impl FnOnce() -> String,
    ) {
        let events = &mut self.events;
        if events.len() > MAX_EVENTS {
            return;
        }
        let node = if node == u32::MAX {
            f.name.clone()
        } else {
            f.nodes[NodeId::from_u32(node)].id.clone()
        };
        if events.len() < MAX_EVENTS {
            events.push(RuntimeEvent {
                cycle: self.cycle,
                node,
                kind,
                message: msg(),
            });
        } else {
            events.push(RuntimeEvent {
                cycle: self.cycle,
                node,
                kind: EventKind::Truncated,
                message: format!("more than {MAX_EVENTS} events; the rest are dropped"),
            });
        }
    }

    /// Observes the next cycle: statistics, tokens, events, then whether the run ended.
    /// Returns true when any channel transferred. Once the run has ended, statistics and
    /// tokens go on being counted but the status stays.
    #[inline]
    pub(crate) fn observe(&mut self, prog: &Program, f: &Function, s: Signals<'_>) -> bool {
        let cycle = self.cycle;
        if !self.mux_unreported.is_empty() {
            self.check_mux_selects(prog, f, s);
        }
        let any = self.counters.count(cycle, s.valid, s.ready);
        if any {
            self.transfers(prog, f, s);
        }
        self.cycle += 1;
        let done = if let Some(want) = self.stream_ends {
            !any && self
                .args
                .iter()
                .all(|a| a.total.is_some_and(|t| a.consumed >= t))
                && self
                    .results
                    .iter()
                    .all(|r| r.stream.as_ref().is_none_or(|st| st.ends >= want))
        } else if self.results.is_empty() {
            !any && self
                .args
                .iter()
                .all(|a| a.total.is_some_and(|t| a.consumed >= t))
        } else {
            let inv = self.invocations;
            inv.is_some_and(|inv| self.results.iter().all(|r| r.outputs.len() as u64 >= inv))
        };
        let progress = any || self.result_waits(s.valid, s.ready) || self.islands_run(s.regs);
        if progress {
            self.idle = 0;
        } else {
            if self.idle == 0 {
                self.idle_since = cycle;
            }
            self.idle += 1;
        }
        if self.status.is_some() {
            // Observing on after the end (see `Simulation::set_stop_when_done`).
        } else if done {
            self.status = Some(Status::Done);
        } else if self.idle >= self.window && self.drained_now(s) {
            // Every input consumed and no token anywhere: nothing is stuck, the circuit
            // simply has nothing more to do.
            self.status = Some(Status::Done);
            let missing: Vec<String> = self
                .results
                .iter()
                .zip(&f.results)
                .filter_map(|(r, res)| {
                    let inv = self.invocations?;
                    ((r.outputs.len() as u64) < inv)
                        .then(|| format!("{} got {} of {inv}", res.name, r.outputs.len()))
                })
                .collect();
            self.drained = Some(format!(
                "every input token was consumed and no token is left in the circuit{}",
                if missing.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", missing.join(", "))
                }
            ));
        } else if self.idle >= self.window {
            self.status = Some(Status::Deadlock);
            self.counters.flush();
            self.deadlock = Some(self.analyze(prog, f, s));
        }
        any
    }

    /// Whether a static island is running its loop (progress without transfers).
    fn islands_run(&self, regs: &[u64]) -> bool {
        self.island_regs.iter().any(|&r| {
            regs.get((r + crate::spec::island_regs::PHASE) as usize)
                == Some(&crate::spec::island_regs::RUNNING)
        })
    }

    /// Whether the results' signals `valid`/`ready` count as progress (a result offered
    /// to an environment that may take it later).
    fn result_waits(&self, valid: &[bool], ready: &[bool]) -> bool {
        self.results.iter().any(|r| {
            let c = r.chan as usize;
            r.may_ready && valid[c] && !ready[c]
        })
    }

    /// How many cycles whose signals are the last cycle's (which transferred nothing)
    /// [`Monitor::count_quiet`] may count at once: those before the one that completes the
    /// idle window (observed in full).
    pub(crate) fn quiet_room(&self, valid: &[bool], ready: &[bool], regs: &[u64]) -> u64 {
        if self.status.is_some() {
            0
        } else if self.result_waits(valid, ready) || self.islands_run(regs) {
            u64::MAX
        } else {
            self.window.saturating_sub(self.idle + 1)
        }
    }

    /// Counts `k` cycles whose signals are the last cycle's, which transferred nothing
    /// ([`Monitor::quiet_room`] allowed them): what [`Monitor::observe`] does with them,
    /// without the checks whose answers cannot have changed.
    pub(crate) fn count_quiet(&mut self, valid: &[bool], ready: &[bool], regs: &[u64], k: u64) {
        self.counters.count_same(self.cycle, k, valid, ready);
        if self.result_waits(valid, ready) || self.islands_run(regs) {
            self.idle = 0;
        } else {
            if self.idle == 0 {
                self.idle_since = self.cycle;
            }
            self.idle += k;
        }
        self.cycle += k;
    }

    /// True when every argument's tokens (known totals) are consumed and no channel offers a
    /// token: the circuit holds none (a token held in a register is offered on its output).
    fn drained_now(&self, s: Signals<'_>) -> bool {
        !self.args.is_empty()
            && self
                .args
                .iter()
                .all(|a| a.total.is_some_and(|t| a.consumed >= t))
            && !s.valid.iter().any(|&v| v)
    }

    /// Reports muxes whose valid select is out of range in this cycle (once each).
    fn check_mux_selects(&mut self, prog: &Program, f: &Function, s: Signals<'_>) {
        // Nearly always nothing to report: one pass without branches first.
        let bad = self.mux_unreported.iter().fold(false, |acc, &(_, sel, n)| {
            let c = sel as usize;
            acc | (s.valid[c] & (s.data[c] >= u64::from(n)))
        });
        if !bad {
            return;
        }
        let mut k = 0;
        while k < self.mux_unreported.len() {
            let (node, sel, n) = self.mux_unreported[k];
            let bits = s.data[sel as usize];
            if !s.valid[sel as usize] || bits < u64::from(n) {
                k += 1;
                continue;
            }
            self.mux_unreported.swap_remove(k);
            let value = super::arith::sext(bits, u32::from(prog.widths[sel as usize]));
            self.event(f, node, EventKind::SelectOutOfRange, || {
                crate::spec::mux_select_note(bits, value, n as usize)
            });
        }
    }

    /// The bookkeeping of a cycle in which some channel fired.
    fn transfers(&mut self, prog: &Program, f: &Function, s: Signals<'_>) {
        let cycle = self.cycle;
        let fire = |c: u32| s.valid[c as usize] & s.ready[c as usize];
        for &w in &self.watched_data {
            if fire(w) {
                self.last_data[w as usize] = s.data[w as usize];
            }
        }
        for a in &mut self.args {
            a.consumed += u64::from(fire(a.chan));
        }
        for r in &mut self.results {
            if fire(r.chan) {
                r.outputs.push((cycle, s.data[r.chan as usize]));
                if let Some(st) = &mut r.stream {
                    let w = s.data[r.chan as usize];
                    if crate::stream::split_word(w, &st.elem).1 {
                        st.ends += 1;
                    }
                    if st.kept.len() < crate::stream::KEPT_ELEMENTS {
                        st.kept.push((cycle, w));
                    } else {
                        st.dropped += 1;
                    }
                }
            }
        }
        for &(node, divisor, out, zero) in &prog.div_checks {
            if fire(out) && s.data[divisor as usize] & zero == 0 {
                let ty = &f.channels[crate::graph::ChannelId::from_u32(out)].ty;
                let bits = s.data[out as usize];
                self.event(f, node, EventKind::DivisionByZero, || {
                    crate::spec::division_by_zero_note(ty, bits)
                });
            }
        }
        for q in &prog.dyn_lsqs {
            let together = q.ctrl.iter().filter(|&&c| fire(c)).count() > 1;
            if together && !self.lsq_reported.contains(&q.node) {
                self.lsq_reported.push(q.node);
                let fired: Vec<usize> = (0..q.ctrl.len()).filter(|&g| fire(q.ctrl[g])).collect();
                self.event(f, q.node, EventKind::LsqGroupsTogether, || {
                    format!(
                        "groups {} were allocated in the same cycle: the queue took every group token and allocated the bitwise OR of their loads and stores, as Dynamatic's LSQ RTL (before its 2025 assertion) does; the queue's contents are not what the program order says",
                        fired
                            .iter()
                            .map(|g| g.to_string())
                            .collect::<Vec<_>>()
                            .join(" and ")
                    )
                });
            }
        }
        for &(node, addr, mem, store) in &prog.addr_checks {
            let bits = s.data[addr as usize];
            let m = &prog.mems[mem as usize];
            if fire(addr) && bits >= m.size {
                let width = u32::from(prog.widths[addr as usize]);
                self.event(f, node, EventKind::AddressOutOfRange, || {
                    address_note(bits, width, m, store)
                });
            }
        }
        for &(node, ins, out, reg) in &prog.merge_checks {
            let nvalid = prog.ports[ins.range()]
                .iter()
                .filter(|&&c| s.valid[c as usize])
                .count();
            if nvalid < 2 {
                continue;
            }
            let decided = match reg {
                None => fire(out),
                Some(r) => s.regs.get(r as usize).copied().unwrap_or(0) == 0,
            };
            if decided {
                self.event(f, node, EventKind::Nondeterminism, || {
                    format!("{nvalid} inputs valid at once; the lowest index wins")
                });
            }
        }
    }

    fn analyze(&self, prog: &Program, f: &Function, s: Signals<'_>) -> DeadlockReport {
        let regs = |n: NodeId| -> (&[u64], &[String]) {
            let (a, b) = prog.node_regs[n.index()];
            let (a, b) = (a as usize, b as usize);
            let b = b.min(s.regs.len()).max(a.min(s.regs.len()));
            let a = a.min(b);
            (&s.regs[a..b], &prog.reg_names[a..b])
        };
        let inv = self.invocations();
        let view = deadlock::LiveView {
            func: f,
            valid: s.valid,
            ready: s.ready,
            data: s.data,
            last_fire: self.counters.flushed_last_fire(),
            last_data: &self.last_data,
            given_args: self.args.iter().map(|a| (a.arg, a.total)).collect(),
            invocations: inv,
            last_break: self.counters.flushed_last_break(),
            fires: self.counters.flushed_fires(),
            pending_args: self
                .args
                .iter()
                .map(|a| (a.arg, a.total.map_or(0, |t| t.saturating_sub(a.consumed))))
                .collect(),
            missing_results: self
                .results
                .iter()
                .enumerate()
                .map(|(i, r)| (i, inv.saturating_sub(r.outputs.len() as u64)))
                .collect(),
            registers: &regs,
            idle_since: self.idle_since,
        };
        deadlock::analyze(&view)
    }

    /// The report of the run so far. `memories` are the current contents of the program's
    /// memories, in [`Program::mems`] order. Without a status the run is `max-cycles`, except
    /// that a run of unknown stimulus whose results all reached the invocation count is
    /// `done`.
    pub(crate) fn report<M: AsRef<[u64]>>(
        &self,
        prog: &Program,
        f: &Function,
        memories: &[M],
    ) -> RunReport {
        let inv = self.invocations();
        let status = match self.status {
            Some(s) => s,
            None if self.invocations.is_none()
                && !self.results.is_empty()
                && self.results.iter().all(|r| r.outputs.len() as u64 >= inv) =>
            {
                Status::Done
            }
            None => Status::MaxCycles,
        };
        let unsigned = f.unsigned_names();
        let mut outputs = BTreeMap::new();
        let mut omitted_outputs = BTreeMap::new();
        let mut output_summaries = BTreeMap::new();
        for (r, obs) in f.results.iter().zip(&self.results) {
            output_summaries.insert(
                r.name.clone(),
                OutputSummary {
                    count: obs.outputs.count,
                    checksum: obs.outputs.checksum,
                },
            );
            if obs.outputs.omitted() > 0 {
                omitted_outputs.insert(r.name.clone(), obs.outputs.omitted());
            }
            let u = unsigned.contains(&r.name);
            let toks = obs
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
        let mut mems = BTreeMap::new();
        for (m, vals) in prog.mems.iter().zip(memories) {
            let u = unsigned.contains(&m.name);
            let v = vals
                .as_ref()
                .iter()
                .filter_map(|&x| render_value_as(x, &m.elem, u))
                .collect();
            mems.insert(m.name.clone(), v);
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
        let mut streams = BTreeMap::new();
        for (r, obs) in f.results.iter().zip(&self.results) {
            if let Some(st) = &obs.stream {
                let toks: Vec<OutputToken> = st
                    .kept
                    .iter()
                    .map(|&(cycle, bits)| OutputToken {
                        cycle,
                        value: None,
                        bits,
                    })
                    .collect();
                let mut runs = crate::stream::streams_of(&toks, &st.elem);
                if st.dropped > 0
                    && let Some(last) = runs.last_mut()
                {
                    last.omitted += st.dropped;
                    last.ended_at = None;
                }
                let owed = self.stream_ends.is_some_and(|want| st.ends < want);
                if owed && runs.last().is_some_and(|l| l.ended_at.is_some()) {
                    // The next stream was owed but not even begun: show it as never ended.
                    runs.push(crate::stream::StreamRun {
                        elements: Vec::new(),
                        cycles: Vec::new(),
                        omitted: 0,
                        ended_at: None,
                    });
                }
                streams.insert(r.name.clone(), runs);
            }
        }
        RunReport {
            streams,
            status,
            cycles: self.cycle,
            outputs,
            omitted_outputs,
            output_summaries,
            memories: mems,
            deadlock: self.deadlock.clone(),
            drained: self.drained.clone(),
            timing: None,
            events: self.events.clone(),
            stats,
        }
    }
}
