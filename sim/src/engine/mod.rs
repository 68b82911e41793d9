//! The cycle-accurate simulation engine.
//!
//! A flattened [`Function`] is compiled (module `compile`) into flat instruction lists over
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
//! The equations are those of `SEMANTICS.md` (CIRCT 1.62's `lower-handshake-to-hw`), without
//! its listed bugs. Tuples are packed like CIRCT's `hw.struct`: field 0 in the most
//! significant bits. Memory addresses keep their low `ceil(log2(size))` bits; an address
//! that is still out of range reads 0 and its writes are dropped. Several store ports
//! writing the same address in one cycle: the highest port number wins.

/// Integer arithmetic at widths up to 64 bits (its [`arith::BinOp`] and [`arith::CastKind`]
/// also name the operations of [`wide_arith`]).
mod activity;
pub mod arith;
pub(crate) mod compile;
pub(crate) mod counters;
mod eval;
#[cfg(any(test, feature = "bench-support"))]
pub(crate) use eval::{slot_ready, slot_step};
pub mod float_arith;
mod jit;
pub use jit::JitError;
pub(crate) mod monitor;
pub use monitor::{KEPT_OUTPUTS, MAX_ALL_OUTPUTS};
pub(crate) mod program;
pub(crate) mod resim;
pub mod tap;
pub mod wide_arith;
pub use tap::{SignalTap, TapCycle};
#[cfg(test)]
mod tests;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use cranelift_entity::EntityRef;

use crate::graph::{ArgType, ChannelId, Function, NodeId};
use crate::report::{EventKind, RunReport, Status};
use crate::stimulus::{ArgCursor, Environment, ReadyGen, ReadyPolicy, graph_memory_inits};
use crate::trace::{ChannelMeta, Layout, MemWrite, StateMeta, Trace};
use crate::types::width_mask;

use eval::State;
use monitor::{Monitor, Signals};
use program::Program;

/// Errors that prevent a simulation from starting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    /// The function still contains an `instance`: of an external function (no body to
    /// simulate), or the function was not flattened.
    #[error(
        "node `{node}` calls @{callee}, which has no body here (an external function, declared without `{{ ... }}`): the engine can only simulate inside functions the file defines; give @{callee} a body, or simulate another function"
    )]
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
    /// A channel's data is wider than [`crate::types::MAX_DATA_WIDTH`] bits.
    #[error("channel `{channel}` is {width} bits wide; the simulator supports at most 16384")]
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

/// Which engine simulates the cycles of a [`Simulation`]. Both compute the same signals and
/// registers, cycle by cycle (the tests run them side by side); they differ in speed only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum EngineKind {
    /// Measure, then keep the faster: the interpreter runs the first
    /// [`COMPILE_AFTER_CYCLES`] cycles (the last [`PROBE_CYCLES`] of them timed), then the
    /// graph is compiled and timed over as many cycles, and the run goes on with whichever
    /// took less time per cycle (compiled code must be [`COMPILED_MARGIN`] faster: the
    /// probes are short, and a wrong switch to compiled code costs more than a missed one).
    /// Then, where the graph allows it ([`EngineKind::Activity`]), the activity-driven
    /// interpreter is timed over as many cycles and kept when it is [`COMPILED_MARGIN`]
    /// faster than the engine chosen before.
    /// Short runs never pay for a compilation; compiled code wins
    /// on graphs whose instructions the interpreter dispatches one by one (loop kernels)
    /// and can lose on large regular graphs, whose straight-line code no longer fits the
    /// processor's instruction caches while the interpreter's typed loops do.
    #[default]
    Auto,
    /// The interpreter only.
    Interpreter,
    /// Code compiled for the graph from the next cycle on (the interpreter when the graph
    /// cannot be compiled, see [`Simulation::engine`]).
    Compiled,
    /// The interpreter, evaluating only the components whose inputs or registers changed
    /// (`engine/activity.rs`); the interpreter for graphs whose passes must iterate (lazy
    /// forks, combinational cycles).
    Activity,
}

/// The cycle after which [`EngineKind::Auto`] compiles the graph.
pub const COMPILE_AFTER_CYCLES: u64 = 4096;

/// Cycles [`EngineKind::Auto`] times each engine over.
pub const PROBE_CYCLES: u64 = 2048;

/// How much less time per cycle compiled code must take in [`EngineKind::Auto`]'s probe to
/// be kept (a fraction of the interpreter's).
pub const COMPILED_MARGIN: f64 = 0.85;

/// [`EngineKind::Auto`] times the activity-driven engine only when, over the cycles run so
/// far, fewer than this fraction of the channels transferred per cycle. Measured with
/// `handscope bench engine --kernels` on ten public kernels (docs/bench-engine.md): it beat
/// compiled code on kernels with 1.2 % to 4.3 % of their channels transferring per cycle
/// (`fpga` timing) and lost on all of them at ideal timing (4.6 % to 23 %); generating its
/// code costs as much as a few hundred thousand cycles of a large graph, and timing it where
/// it loses costs its probe.
pub const ACTIVITY_PROBE_MAX: f64 = 0.05;

/// Cycles of compiled code [`EngineKind::Auto`] runs before timing it (caches warm up).
const COMPILED_WARMUP_CYCLES: u64 = 256;

/// The engine a simulation runs now.
enum Tier {
    /// The interpreter from now on.
    Interpret,
    /// The activity-driven interpreter from now on.
    Activity(Box<activity::Activity>),
    /// Compiled code from now on.
    Compiled(Box<jit::Jit>),
    /// [`EngineKind::Auto`] timing the interpreter: timed since `since` (cycle, instant),
    /// compiles at cycle `until`.
    TimeInterpreter {
        since: Option<(u64, std::time::Instant)>,
        until: u64,
    },
    /// [`EngineKind::Auto`] timing the activity-driven interpreter against the engine
    /// chosen so far (`best`, `best_time` seconds per cycle); decides at cycle `until`.
    TimeActivity {
        act: Box<activity::Activity>,
        best: Box<Tier>,
        best_time: f64,
        since: Option<(u64, std::time::Instant)>,
        until: u64,
    },
    /// [`EngineKind::Auto`] timing compiled code against the interpreter's `interp`
    /// seconds per cycle; decides at cycle `until`.
    TimeCompiled {
        jit: Box<jit::Jit>,
        interp: f64,
        since: Option<(u64, std::time::Instant)>,
        until: u64,
    },
}

/// How often (in cycles) [`Simulation::run_until`] looks at its stop flag.
pub const STOP_POLL_CYCLES: u64 = 1024;

/// What [`Simulation::engine_work`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineWork {
    /// The engine simulating the next cycle (see [`Simulation::engine`]).
    pub engine: &'static str,
    /// Instructions of one cycle when every component is evaluated (forward, backward and
    /// clock passes).
    pub instructions: u64,
    /// While the activity-driven interpreter runs: the instructions it evaluated and the
    /// cycles it simulated (cycles skipped count their clock edges).
    pub activity: Option<(u64, u64)>,
}

/// A running simulation of one function.
pub struct Simulation {
    func: Function,
    prog: Arc<Program>,
    st: State,
    cycle: u64,
    /// Token cursor of every channel argument, by channel.
    args: Vec<(u32, ArgCursor)>,
    /// Ready generator of every result, by channel.
    readies: Vec<(u32, ReadyGen)>,
    monitor: Monitor,
    /// The trace being recorded, and the running state its next snapshot takes.
    trace: Option<(Trace, resim::Recorder)>,
    stop_when_done: bool,
    tier: Tier,
    /// Why the graph could not be compiled, once that was tried.
    jit_error: Option<JitError>,
    /// [`EngineKind::Auto`]'s measurement once made: seconds per cycle of the interpreter
    /// and of compiled code.
    auto_timing: Option<(f64, f64)>,
    /// [`EngineKind::Auto`]'s measurement of the activity-driven interpreter (seconds per
    /// cycle).
    auto_activity: Option<f64>,
    /// Whether the last simulated cycle transferred nothing (see [`Simulation::quiet_step`]).
    last_idle: bool,
    /// See [`Simulation::set_activity_compiled`].
    compile_activity: bool,
    /// The first cycle from which the environment drives the same signals as long as no
    /// token is taken (every argument offered, every result ready always); `u64::MAX` when
    /// a ready policy changes by itself.
    steady_from: u64,
    /// Where long runs publish how far they got ([`Simulation::set_progress`]).
    progress: Option<Arc<AtomicU64>>,
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
        let mut args = Vec::new();
        for &(ai, chan) in &prog.args {
            let ArgType::Channel(ty) = &f.args[ai].ty else {
                continue;
            };
            args.push((
                chan,
                ArgCursor::offered_from(
                    monitor::arg_sources(f, &env, ai),
                    ty,
                    f.args[ai].offered_from,
                ),
            ));
        }

        // Ready policies.
        for name in env.ready.keys() {
            if !f.results.iter().any(|r| &r.name == name) {
                return Err(env_err(format!("no result named `{name}`")));
            }
        }
        let readies = prog
            .results
            .iter()
            .zip(&f.results)
            .map(|(&chan, r)| {
                let pol = env
                    .ready
                    .get(&r.name)
                    .cloned()
                    .unwrap_or(ReadyPolicy::Always);
                (chan, ReadyGen::new(pol))
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

        let monitor = Monitor::new(&prog, f, Some(&env));
        let engine = env.engine;
        let mut sim = Simulation {
            func: f.clone(),
            prog,
            st,
            cycle: 0,
            args,
            readies,
            monitor,
            trace: None,
            stop_when_done: true,
            tier: Tier::Interpret,
            jit_error: None,
            auto_timing: None,
            auto_activity: None,
            last_idle: false,
            compile_activity: true,
            steady_from: 0,
            progress: None,
        };
        sim.steady_from = if sim
            .readies
            .iter()
            .all(|(_, r)| matches!(r.policy(), crate::stimulus::ReadyPolicy::Always))
        {
            sim.args
                .iter()
                .map(|(_, a)| a.first_cycle())
                .max()
                .unwrap_or(0)
        } else {
            u64::MAX
        };
        sim.set_engine(engine);
        Ok(sim)
    }

    /// Whether the activity-driven engine runs its passes as compiled code (the default;
    /// they are interpreted where the code generator cannot, or after `false` here, which
    /// takes effect the next time that engine is chosen). Both compute the same cycles.
    pub fn set_activity_compiled(&mut self, compiled: bool) {
        self.compile_activity = compiled;
    }

    /// Chooses the engine for the cycles still to simulate (default [`EngineKind::Auto`]).
    /// The switch keeps the state: a run may change engines between any two cycles.
    pub fn set_engine(&mut self, kind: EngineKind) {
        match kind {
            EngineKind::Interpreter => self.tier = Tier::Interpret,
            EngineKind::Compiled => match std::mem::replace(&mut self.tier, Tier::Interpret) {
                Tier::Compiled(j) | Tier::TimeCompiled { jit: j, .. } => {
                    self.tier = Tier::Compiled(j)
                }
                Tier::TimeActivity { best, .. } if matches!(*best, Tier::Compiled(_)) => {
                    self.tier = *best
                }
                Tier::Interpret
                | Tier::TimeInterpreter { .. }
                | Tier::Activity(_)
                | Tier::TimeActivity { .. } => match jit::Jit::new(&self.prog) {
                    Ok(j) => self.tier = Tier::Compiled(Box::new(j)),
                    Err(e) => self.jit_error = Some(e),
                },
            },
            EngineKind::Activity => {
                if let Tier::TimeActivity { .. } = self.tier
                    && let Tier::TimeActivity { act, .. } =
                        std::mem::replace(&mut self.tier, Tier::Interpret)
                {
                    self.tier = Tier::Activity(act);
                }
                if !matches!(self.tier, Tier::Activity(_)) {
                    self.tier = if activity::Activity::supports(&self.prog) {
                        Tier::Activity(Box::new(activity::Activity::new(
                            &self.prog,
                            &self.func,
                            self.cycle,
                            self.compile_activity,
                        )))
                    } else {
                        Tier::Interpret
                    };
                }
            }
            EngineKind::Auto => {
                if matches!(self.tier, Tier::Interpret) && self.jit_error.is_none() {
                    self.tier = Tier::TimeInterpreter {
                        since: None,
                        until: self.cycle.max(COMPILE_AFTER_CYCLES),
                    };
                }
            }
        }
    }

    /// The engine simulating the next cycle: `"compiled"` or `"interpreter"`, and why the
    /// graph could not be compiled when that was tried and failed.
    pub fn engine(&self) -> (&'static str, Option<&JitError>) {
        match &self.tier {
            Tier::Compiled(_) | Tier::TimeCompiled { .. } => ("compiled", None),
            Tier::Activity(a) | Tier::TimeActivity { act: a, .. } => (
                if a.is_compiled() {
                    "activity"
                } else {
                    "activity (interpreted)"
                },
                None,
            ),
            Tier::Interpret | Tier::TimeInterpreter { .. } => {
                ("interpreter", self.jit_error.as_ref())
            }
        }
    }

    /// The work of the engine per cycle: how many instructions a cycle has (forward,
    /// backward and clock passes) and, while the activity-driven interpreter runs, how many
    /// it evaluated over how many cycles.
    pub fn engine_work(&self) -> EngineWork {
        let p = &self.prog;
        let activity = match &self.tier {
            Tier::Activity(a) | Tier::TimeActivity { act: a, .. } => {
                Some((a.evaluated(), self.cycle - a.since()))
            }
            _ => None,
        };
        EngineWork {
            engine: self.engine().0,
            instructions: (p.activity.fwd_nodes.len()
                + p.activity.bwd_nodes.len()
                + p.activity.clk.len()) as u64,
            activity,
        }
    }

    /// Bytes of machine code of the compiled engine, while it runs.
    pub fn compiled_code_bytes(&self) -> Option<usize> {
        match &self.tier {
            Tier::Compiled(j) | Tier::TimeCompiled { jit: j, .. } => Some(j.code_bytes()),
            Tier::Interpret
            | Tier::TimeInterpreter { .. }
            | Tier::Activity(_)
            | Tier::TimeActivity { .. } => None,
        }
    }

    /// [`EngineKind::Auto`]'s measurement, once made: seconds per cycle of the interpreter
    /// and of compiled code (the run went on with compiled code when it took less than
    /// [`COMPILED_MARGIN`] of the interpreter's).
    pub fn auto_timing(&self) -> Option<(f64, f64)> {
        self.auto_timing
    }

    /// [`EngineKind::Auto`]'s measurement of the activity-driven interpreter, once made:
    /// seconds per cycle (the run went on with it when it took less than
    /// [`COMPILED_MARGIN`] of the faster of the two engines timed before).
    pub fn auto_activity_timing(&self) -> Option<f64> {
        self.auto_activity
    }

    /// [`EngineKind::Auto`]'s steps after each cycle: start a timer, compile, decide.
    fn advance_tier(&mut self) {
        let cycle = self.cycle;
        let per_cycle = |since: Option<(u64, std::time::Instant)>| {
            since.map_or(0.0, |(c0, t)| {
                t.elapsed().as_secs_f64() / (cycle.saturating_sub(c0)).max(1) as f64
            })
        };
        match &mut self.tier {
            Tier::TimeInterpreter { since, until }
            | Tier::TimeCompiled { since, until, .. }
            | Tier::TimeActivity { since, until, .. } => {
                if since.is_none() && cycle + PROBE_CYCLES >= *until {
                    *since = Some((cycle, std::time::Instant::now()));
                }
                if cycle < *until {
                    return;
                }
            }
            Tier::Interpret | Tier::Compiled(_) | Tier::Activity(_) => return,
        }
        match std::mem::replace(&mut self.tier, Tier::Interpret) {
            Tier::TimeInterpreter { since, .. } => {
                // Timed before compiling: the compilation is not the interpreter's time.
                let interp = per_cycle(since);
                match jit::Jit::new(&self.prog) {
                    Ok(j) => {
                        self.tier = Tier::TimeCompiled {
                            jit: Box::new(j),
                            interp,
                            since: None,
                            until: cycle + COMPILED_WARMUP_CYCLES + PROBE_CYCLES,
                        }
                    }
                    Err(e) => self.jit_error = Some(e),
                }
            }
            Tier::TimeCompiled {
                jit, interp, since, ..
            } => {
                let compiled = per_cycle(since);
                self.auto_timing = Some((interp, compiled));
                let (best, best_time) = if compiled < interp * COMPILED_MARGIN {
                    (Tier::Compiled(jit), compiled)
                } else {
                    (Tier::Interpret, interp)
                };
                // Then the activity-driven engine, where the graph allows it and moves little.
                self.tier = if activity::Activity::supports(&self.prog)
                    && self.monitor.transfers_per_channel_cycle() < ACTIVITY_PROBE_MAX
                {
                    Tier::TimeActivity {
                        act: Box::new(activity::Activity::new(
                            &self.prog,
                            &self.func,
                            self.cycle,
                            self.compile_activity,
                        )),
                        best: Box::new(best),
                        best_time,
                        since: None,
                        until: cycle + COMPILED_WARMUP_CYCLES + PROBE_CYCLES,
                    }
                } else {
                    best
                };
            }
            Tier::TimeActivity {
                act,
                best,
                best_time,
                since,
                ..
            } => {
                let t = per_cycle(since);
                self.auto_activity = Some(t);
                self.tier = if t < best_time * COMPILED_MARGIN {
                    Tier::Activity(act)
                } else {
                    *best
                };
            }
            other => self.tier = other,
        }
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
        match self.monitor.status() {
            None => true,
            Some(Status::Done) => !self.stop_when_done,
            Some(_) => false,
        }
    }

    /// The signal layout a trace or a tap of this simulation uses.
    fn layout(&self) -> Layout {
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
        let mut layout = Layout::new(channels, state);
        layout.memories = self.prog.mems.iter().map(|m| m.name.clone()).collect();
        layout.set_aliases(&self.prog.data_aliases());
        layout
    }

    /// Starts recording a [`Trace`] from the next cycle on (call before the first step to
    /// record everything).
    pub fn enable_trace(&mut self) {
        if self.trace.is_none() {
            let layout = self.layout();
            let (store, rec) = resim::ResimStore::new(self.prog.clone(), &self.st);
            self.trace = Some((Trace::from_resim(layout, store), rec));
        }
    }

    /// Makes [`Simulation::run_until`] and [`Simulation::run_tapped`] store the number of
    /// cycles simulated so far into `counter` every [`STOP_POLL_CYCLES`] cycles or so, for
    /// another thread to show the progress of a long run.
    pub fn set_progress(&mut self, counter: Arc<AtomicU64>) {
        self.progress = Some(counter);
    }

    /// A tap for [`Simulation::run_tapped`]: the description of the signal words it
    /// streams. Take it before the first step.
    pub fn signal_tap(&self) -> SignalTap {
        SignalTap::new(self.layout())
    }

    /// Like [`Simulation::run_until`], and hands `sink` every simulated cycle's signal
    /// words and which of them changed (see [`tap`]) as soon as the cycle has settled: a
    /// waveform written while simulating, in constant memory.
    pub fn run_tapped(
        &mut self,
        max_cycles: u64,
        stop: &AtomicBool,
        tap: &mut SignalTap,
        sink: &mut dyn FnMut(&TapCycle<'_>),
    ) -> RunReport {
        while self.can_step() && self.cycle < max_cycles {
            if self.cycle.is_multiple_of(STOP_POLL_CYCLES) {
                if stop.load(Ordering::Relaxed) {
                    self.monitor.stop_interrupted();
                    break;
                }
                if let Some(p) = &self.progress {
                    p.store(self.cycle, Ordering::Relaxed);
                }
            }
            self.step_with(Some((&mut *tap, &mut *sink)), self.cycle + 1);
        }
        self.monitor.stop_at_limit();
        self.report()
    }

    /// The trace recorded so far, if tracing is on.
    pub fn trace(&self) -> Option<&Trace> {
        self.trace.as_ref().map(|(t, _)| t)
    }

    /// Takes the recorded trace out (tracing stops).
    pub fn take_trace(&mut self) -> Option<Trace> {
        self.trace.take().map(|(t, _)| t)
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
        self.monitor.status()
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
        self.monitor.invocations()
    }

    /// Current contents of every memory, in program order: internal memories by node ID,
    /// external ones by argument name.
    pub fn memories(&self) -> impl Iterator<Item = (&str, &[u64])> {
        self.prog
            .mems
            .iter()
            .zip(&self.st.mems)
            .map(|(m, v)| (m.name.as_str(), v.as_slice()))
    }

    /// Simulates one cycle. Does nothing once the run has ended.
    pub fn step(&mut self) {
        self.step_with(None, self.cycle + 1);
    }

    /// [`Simulation::step`], handing the settled signal words to a tap's sink.
    #[allow(clippy::type_complexity)]
    /// Cycles in which nothing can change may be simulated together, up to cycle `limit`
    /// (exclusive; at least one cycle is simulated).
    fn step_with(
        &mut self,
        tap: Option<(&mut SignalTap, &mut dyn FnMut(&TapCycle<'_>))>,
        limit: u64,
    ) {
        if !self.can_step() {
            return;
        }
        let mut tap = tap;
        if self.quiet_step(limit, &mut tap) {
            return;
        }
        let cycle = self.cycle;
        if let Some((t, rec)) = &mut self.trace
            && let Some(store) = t.resim_mut()
        {
            rec.begin_cycle(
                store,
                cycle,
                &self.st,
                &self.args,
                self.readies.iter().cloned(),
            );
        }
        let st = &mut self.st;
        if let Some((tap, _)) = &mut tap {
            // Before the settle: a step applies part of the clock edge (fork emitted
            // registers) while it settles.
            tap.begin_cycle(&st.regs);
        }
        resim::drive_args(&self.args, st, cycle);
        for (chan, ready) in &mut self.readies {
            st.ready[*chan as usize] = ready.next(cycle);
        }
        let unsettled = match &mut self.tier {
            Tier::Compiled(j) | Tier::TimeCompiled { jit: j, .. } => j.settle(&self.prog, st),
            Tier::Interpret | Tier::TimeInterpreter { .. } => eval::settle_step(&self.prog, st),
            Tier::Activity(a) | Tier::TimeActivity { act: a, .. } => {
                a.settle(&self.prog, st);
                None
            }
        };
        self.finish_cycle(cycle, unsettled, tap);
    }

    /// A cycle of the activity-driven engine in which nothing changes: the last cycle
    /// transferred no token, the environment drives what it drove (no trace) and the
    /// settle changed no channel, so every signal is the last cycle's and the monitor only
    /// counts the cycle; a tap is handed the registers that changed. Then, without a tap and
    /// while `limit` allows, the cycles after it that cannot change anything either (time
    /// skipping, [`activity::Activity::quiet_edges`]) are applied at once. Returns false,
    /// having done nothing, when the cycle may not be quiet; when the settle changed a
    /// channel, the cycle is finished as any other.
    #[allow(clippy::type_complexity)]
    fn quiet_step(
        &mut self,
        limit: u64,
        tap: &mut Option<(&mut SignalTap, &mut dyn FnMut(&TapCycle<'_>))>,
    ) -> bool {
        if !self.last_idle
            || self.cycle < self.steady_from
            || self.trace.is_some()
            || self
                .monitor
                .quiet_room(&self.st.valid, &self.st.ready, &self.st.regs)
                == 0
        {
            return false;
        }
        // While `Auto` times it, up to the end of its timing.
        let (a, limit) = match &mut self.tier {
            Tier::Activity(a) => (a, limit),
            Tier::TimeActivity { act, until, .. } => (act, limit.min(*until)),
            _ => return false,
        };
        let cycle = self.cycle;
        if let Some((t, _)) = tap {
            t.begin_cycle(&self.st.regs);
        }
        if a.settle(&self.prog, &mut self.st) {
            // Something changed: the rest of the cycle as usual (the environment's signals
            // are what it drove in the last cycle).
            self.finish_cycle(cycle, None, tap.take());
            return true;
        }
        self.monitor
            .count_quiet(&self.st.valid, &self.st.ready, &self.st.regs, 1);
        if let Some((t, sink)) = tap {
            sink(&t.hand_out(cycle));
        }
        a.clock(&self.prog, &mut self.st);
        self.cycle += 1;
        if tap.is_some() {
            // A waveform shows every cycle's registers: no skipping.
            self.advance_tier();
            return true;
        }
        // Time skipping: the next cycles, up to the first whose signals may change.
        let room = limit
            .saturating_sub(self.cycle)
            .min(
                self.monitor
                    .quiet_room(&self.st.valid, &self.st.ready, &self.st.regs),
            );
        if room > 0
            && let Some(edges) = a.quiet_edges(&self.st)
        {
            let k = edges.min(room);
            a.skip_quiet(&mut self.st, k);
            self.monitor
                .count_quiet(&self.st.valid, &self.st.ready, &self.st.regs, k);
            self.cycle += k;
        }
        self.advance_tier();
        true
    }

    /// The rest of a cycle after its settle: the monitor, the trace and tap, the clock edge.
    #[allow(clippy::type_complexity)]
    fn finish_cycle(
        &mut self,
        cycle: u64,
        unsettled: Option<u32>,
        tap: Option<(&mut SignalTap, &mut dyn FnMut(&TapCycle<'_>))>,
    ) {
        let st = &mut self.st;
        if let Some(node) = unsettled {
            self.monitor
                .event(&self.func, node, EventKind::NoConvergence, || {
                    "a combinational cycle did not settle; values of this cycle are unreliable"
                        .into()
                });
        }
        let sig = Signals {
            valid: &st.valid,
            ready: &st.ready,
            data: &st.data,
            regs: &st.regs,
        };
        let any = self.monitor.observe(&self.prog, &self.func, sig);
        self.last_idle = !any;
        if any {
            for (chan, cur) in &mut self.args {
                let c = *chan as usize;
                if st.valid[c] & st.ready[c] {
                    cur.advance();
                }
            }
        }
        if let Some((t, rec)) = &mut self.trace
            && let Some(store) = t.resim_mut()
        {
            rec.end_cycle(store, &self.st);
        }
        if let Some((tap, sink)) = tap {
            let st = &self.st;
            tap.channels_settled(&st.valid, &st.ready, &st.data);
            sink(&tap.hand_out(cycle));
        }
        match &mut self.tier {
            Tier::Compiled(j) | Tier::TimeCompiled { jit: j, .. } => {
                j.clock(&self.prog, &mut self.st)
            }
            Tier::Interpret | Tier::TimeInterpreter { .. } => {
                eval::clock_step(&self.prog, &mut self.st)
            }
            Tier::Activity(a) | Tier::TimeActivity { act: a, .. } => {
                a.clock(&self.prog, &mut self.st)
            }
        }
        if let Some((t, rec)) = &mut self.trace {
            rec.after_clock(&self.st);
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
        self.advance_tier();
    }

    /// Runs until done, deadlocked, or `max_cycles` cycles have been simulated in total.
    pub fn run(&mut self, max_cycles: u64) -> RunReport {
        self.run_until(max_cycles, &AtomicBool::new(false))
    }

    /// Like [`Simulation::run`], but also stops, with status [`Status::Interrupted`], soon
    /// after `stop` is set (it is read every [`STOP_POLL_CYCLES`] cycles): a Ctrl-C handler
    /// sets it so that a long run still reports what it did.
    pub fn run_until(&mut self, max_cycles: u64, stop: &AtomicBool) -> RunReport {
        // Cycles in which nothing changes may be simulated together: `stop` is read at the
        // first step at or after each multiple of the poll interval.
        let mut poll = self.cycle;
        while self.can_step() && self.cycle < max_cycles {
            if self.cycle >= poll {
                if stop.load(Ordering::Relaxed) {
                    self.monitor.stop_interrupted();
                    break;
                }
                poll = (self.cycle / STOP_POLL_CYCLES + 1) * STOP_POLL_CYCLES;
                if let Some(p) = &self.progress {
                    p.store(self.cycle, Ordering::Relaxed);
                }
            }
            self.step_with(None, max_cycles);
        }
        self.monitor.stop_at_limit();
        self.report()
    }

    /// The report of the run so far.
    pub fn report(&self) -> RunReport {
        self.monitor.report(&self.prog, &self.func, &self.st.mems)
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
        let env = crate::bench_support::chain_environment();
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
            let env = crate::bench_support::chain_environment();
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
                    let st = &sim.st;
                    let sig = Signals {
                        valid: &st.valid,
                        ready: &st.ready,
                        data: &st.data,
                        regs: &st.regs,
                    };
                    sim.monitor.observe(&sim.prog, &sim.func, sig);
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
