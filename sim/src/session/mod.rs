//! The run API: choose a function, flatten it, bind a stimulus to it, run it, report.
//!
//! This is the one path from "a module and some stimulus" to "a run" that the command line,
//! the debugger, the oracle and the test harnesses share:
//!
//! ```text
//! Session::open(module, func)     select the function (default: the last one with a body),
//!                                 flatten its instances, start from the graph's memory inits
//!   .bind(&StimulusArgs)          `--in` / `--mem` / `--ready` text, checked against the
//!   .bind_tokens / bind_memory /  function's arguments, memories and results (typed errors
//!    bind_ready                   that name the argument and list the valid names)
//!   .run(max_cycles, trace)       the engine's RunReport (+ Trace, final memory contents)
//!   .simulation()                 or a Simulation to step by hand
//! ```
//!
//! The stimulus of example files comes from their header ([`header`]): `// sim:` lines in
//! `handscope sim` syntax, or a C kernel's `// RUN:` lines.

mod bind;
pub mod header;

use std::collections::BTreeMap;
use std::sync::Arc;

pub use bind::{BindError, StimulusArgs};

use crate::engine::{SimError, Simulation};
use crate::graph::{Function, Module};
use crate::ops::Op;
use crate::report::RunReport;
use crate::stimulus::{Environment, ReadyPolicy, TokenSource, graph_memory_inits};
use crate::trace::Trace;
use crate::transform::materialize::{Placement, materialize_with};
use crate::transform::{FlattenError, flatten};

/// Errors of [`Session::open`] and [`Session::new`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SessionError {
    /// The module has no function of the requested name.
    #[error("no function @{name} (the file has: {})", available.join(", "))]
    NoSuchFunction {
        /// The name asked for.
        name: String,
        /// Every function of the module.
        available: Vec<String>,
    },
    /// The module has no function with a body.
    #[error("the file has no function with a body")]
    NoFunction,
    /// Flattening the hierarchy failed.
    #[error(transparent)]
    Flatten(#[from] FlattenError),
    /// The graph cannot be simulated as it is (e.g. a malformed `handshake.init`).
    #[error(transparent)]
    Sim(#[from] SimError),
    /// Inserting forks and sinks (or pipelines) gave two nodes one ID.
    #[error("inserting forks, sinks or pipelines: {0}")]
    Materialize(crate::graph::DuplicateId),
}

/// Picks the function a tool works on: `name`, or the module's default function (the last
/// one with a body).
pub fn select_function<'m>(
    module: &'m Module,
    name: Option<&str>,
) -> Result<&'m Function, SessionError> {
    match name {
        Some(n) => module
            .function(n)
            .ok_or_else(|| SessionError::NoSuchFunction {
                name: n.to_string(),
                available: module.functions.iter().map(|f| f.name.clone()).collect(),
            }),
        None => module.default_function().ok_or(SessionError::NoFunction),
    }
}

/// Function `name` of `module` (default: the last one with a body) with its instances
/// flattened away.
pub fn flat_function(module: &Module, name: Option<&str>) -> Result<Function, SessionError> {
    let f = select_function(module, name)?;
    if f.nodes
        .values()
        .any(|n| matches!(n.op, Op::Instance { .. }))
    {
        Ok(flatten(module, &f.name)?)
    } else {
        Ok(f.clone())
    }
}

/// A flat function and the environment bound to it so far.
#[derive(Clone, Debug)]
pub struct Session {
    func: Arc<Function>,
    env: Environment,
    inserted: Vec<Inserted>,
    notes: Vec<String>,
}

/// A fork or sink [`Session::open`] inserted because the circuit was not materialized.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Inserted {
    /// A value used several times gets a fork.
    Fork {
        /// The value (channel name before insertion).
        value: String,
        /// How many times it is used.
        uses: usize,
    },
    /// A value nobody uses gets a sink.
    Sink {
        /// The value.
        value: String,
    },
}

impl std::fmt::Display for Inserted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Inserted::Fork { value, uses } => write!(f, "`{value}` is used {uses} times: a fork"),
            Inserted::Sink { value } => write!(f, "`{value}` is never used: a sink"),
        }
    }
}

/// What [`Session::run`] returns.
#[derive(Debug)]
pub struct Run {
    /// The report (status, outputs, memories, statistics, events, deadlock analysis).
    pub report: RunReport,
    /// The recorded trace, when asked for.
    pub trace: Option<Trace>,
    /// Final raw contents of every memory: internal ones by node ID, external ones by
    /// argument name.
    pub memories: BTreeMap<String, Vec<u64>>,
}

impl Session {
    /// Selects function `name` (default: the module's default function) and flattens its
    /// instances away.
    pub fn open(module: &Module, name: Option<&str>) -> Result<Session, SessionError> {
        let f = select_function(module, name)?;
        let flat = if f
            .nodes
            .values()
            .any(|n| matches!(n.op, Op::Instance { .. }))
        {
            flatten(module, &f.name)?
        } else {
            f.clone()
        };
        Session::new(flat)
    }

    /// The forks and sinks inserted because the circuit was not materialized (values used
    /// several times or never), in channel order: empty for a materialized circuit. Tools
    /// print them as a warning.
    pub fn inserted(&self) -> &[Inserted] {
        &self.inserted
    }

    /// A session on a function that is already flat. The environment starts with the
    /// contents the graph gives its internal memories (`handshake.init`) and the default
    /// deadlock window (16 idle cycles); unbound arguments get no tokens, except the last
    /// `none` argument, which gets one (the engine's default).
    /// Values used several times or never get a fork or a sink (appended, so every existing
    /// node keeps its ID), as CIRCT's interpreter runs unmaterialized circuits; see
    /// [`Session::inserted`].
    pub fn new(func: impl Into<Arc<Function>>) -> Result<Session, SessionError> {
        let mut func = func.into();
        let inserted: Vec<Inserted> = func
            .channels
            .values()
            .filter_map(|c| match c.consumers.len() {
                1 => None,
                0 => Some(Inserted::Sink {
                    value: c.name.clone(),
                }),
                uses => Some(Inserted::Fork {
                    value: c.name.clone(),
                    uses,
                }),
            })
            .collect();
        if !inserted.is_empty() {
            let f = Arc::make_mut(&mut func);
            materialize_with(f, Placement::Append).map_err(SessionError::Materialize)?;
        }
        let env = Environment {
            memories: graph_memory_inits(&func)?,
            ..Environment::default()
        };
        Ok(Session {
            func,
            env,
            inserted,
            notes: Vec::new(),
        })
    }

    /// Applies a timing profile: a `pipeline` behind every unit the profile gives a latency
    /// ([`crate::transform::apply_timing`]); nothing for `ideal`. Call it once, right after
    /// opening the session (stimulus binds by argument and memory names, which it keeps).
    pub fn apply_timing(
        &mut self,
        profile: &crate::spec::timing::TimingProfile,
    ) -> Result<&mut Self, SessionError> {
        if !profile.is_ideal() {
            let f = Arc::make_mut(&mut self.func);
            crate::transform::apply_timing(f, profile).map_err(SessionError::Materialize)?;
        }
        Ok(self)
    }

    /// What binding text stimulus assumed that the user may not have meant, in words (a
    /// `--mem` list shorter than its memory: the rest starts at 0). Tools print them as
    /// warnings.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The same stimulus bound to another flat function with the same arguments, results and
    /// memories (a variant of this one, e.g. with other buffers: `throughput::tune`).
    pub fn with_function(&self, func: impl Into<Arc<Function>>) -> Session {
        Session {
            func: func.into(),
            env: self.env.clone(),
            inserted: Vec::new(),
            notes: self.notes.clone(),
        }
    }

    /// The flat function.
    pub fn function(&self) -> &Function {
        &self.func
    }

    /// The flat function, shared.
    pub fn shared_function(&self) -> Arc<Function> {
        self.func.clone()
    }

    /// Channel arguments that get no token from the environment bound so far (the last `none`
    /// argument gets one by default): a run without them usually stalls, and tools say so.
    pub fn unfed_arguments(&self) -> Vec<&str> {
        (0..self.func.args.len())
            .filter(|&ai| matches!(self.func.args[ai].ty, crate::graph::ArgType::Channel(_)))
            .filter(|&ai| {
                crate::engine::monitor::arg_sources(&self.func, &self.env, ai)
                    .iter()
                    .all(|s| s.is_empty())
            })
            .map(|ai| self.func.args[ai].name.as_str())
            .collect()
    }

    /// The environment bound so far.
    pub fn environment(&self) -> &Environment {
        &self.env
    }

    /// Sets the number of cycles without any transfer after which a run counts as
    /// deadlocked.
    pub fn set_deadlock_window(&mut self, cycles: u64) -> &mut Self {
        self.env.deadlock_window = cycles;
        self
    }

    /// Chooses the engine of the runs (default [`EngineKind::Auto`](crate::engine::EngineKind)).
    pub fn set_engine(&mut self, engine: crate::engine::EngineKind) -> &mut Self {
        self.env.engine = engine;
        self
    }

    /// Keeps every output token in the run's report, up to
    /// [`MAX_ALL_OUTPUTS`](crate::engine::MAX_ALL_OUTPUTS) per result, instead of the first
    /// and last [`KEPT_OUTPUTS`](crate::engine::KEPT_OUTPUTS) (memory then grows with the
    /// run up to that bound).
    pub fn set_keep_all_outputs(&mut self, keep: bool) -> &mut Self {
        self.env.keep_all_outputs = keep;
        self
    }

    /// Binds stimulus given as text (`handscope sim`'s `--in`, `--mem`, `--ready` values, in
    /// that order). Tokens add to the ones bound before; memory contents and policies
    /// replace them.
    pub fn bind(&mut self, args: &StimulusArgs) -> Result<&mut Self, BindError> {
        bind::bind_text(self, args)?;
        Ok(self)
    }

    /// Adds tokens to channel argument `arg`.
    pub fn bind_tokens(&mut self, arg: &str, src: TokenSource) -> Result<&mut Self, BindError> {
        bind::channel_arg(&self.func, "--in", arg)?;
        self.env.push_tokens(arg, src);
        Ok(self)
    }

    /// Sets the initial contents of memory `name`: an `extmemory` argument, or an internal
    /// `memory` by node ID (replacing its `handshake.init`). Values are masked to the
    /// element width; missing elements are 0.
    pub fn bind_memory(&mut self, name: &str, contents: Vec<u64>) -> Result<&mut Self, BindError> {
        let (elem, internal, _) = bind::memory(&self.func, name)?;
        let contents = contents.into_iter().map(|v| v & elem.mask()).collect();
        if internal {
            self.env.memories.insert(name.to_string(), contents);
        } else {
            self.env.ext_memories.insert(name.to_string(), contents);
        }
        Ok(self)
    }

    /// Sets the ready policy of result `name`.
    pub fn bind_ready(&mut self, name: &str, policy: ReadyPolicy) -> Result<&mut Self, BindError> {
        bind::result(&self.func, name)?;
        self.env.set_ready(name, policy);
        Ok(self)
    }

    /// A simulation in the reset state, to step by hand.
    pub fn simulation(&self) -> Result<Simulation, SimError> {
        Simulation::new(&self.func, self.env.clone())
    }

    /// Runs until the run is done, deadlocks, or `max_cycles` cycles have passed; records a
    /// trace when `trace` is set.
    pub fn run(&self, max_cycles: u64, trace: bool) -> Result<Run, SimError> {
        self.run_until(
            max_cycles,
            trace,
            &std::sync::atomic::AtomicBool::new(false),
        )
    }

    /// Like [`Session::run`], but stops early with status
    /// [`Interrupted`](crate::report::Status::Interrupted) once `stop` is set (a Ctrl-C
    /// handler sets it); the report, trace and memories cover the cycles simulated.
    pub fn run_until(
        &self,
        max_cycles: u64,
        trace: bool,
        stop: &std::sync::atomic::AtomicBool,
    ) -> Result<Run, SimError> {
        let mut sim = self.simulation()?;
        if trace {
            sim.enable_trace();
        }
        let report = sim.run_until(max_cycles, stop);
        let memories = sim
            .memories()
            .map(|(name, vals)| (name.to_string(), vals.to_vec()))
            .collect();
        Ok(Run {
            report,
            trace: sim.take_trace(),
            memories,
        })
    }
}

#[cfg(test)]
mod tests;
