//! Command-line interface: argument definitions and dispatch.

mod batch;
mod bench;
mod bench_engine;
mod bench_kernels;
pub(crate) mod check;
mod compile;
mod dot;
mod gui;
#[cfg(test)]
mod header_rule_tests;
mod interrupt;
mod layout_stats;
mod lesson;
mod mlir;
mod outputs_flag;
mod progress;
mod render;
mod replay;
mod schedule;
mod serve;
mod sim;
mod stimulus_flags;
mod surfer;
mod throughput;
pub mod timing_flags;
mod verilog;
mod wave_stream;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Handscope: cycle-accurate simulator and visual debugger for handshake dataflow circuits.
#[derive(Parser, Debug)]
#[command(name = "handscope", version, about, long_about = None, after_help = crate::exit::TABLE)]
pub struct Cli {
    /// What to do; without a subcommand Handscope opens on its built-in example gallery.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// A directory C kernels' `#include`s are looked for in, after the including file's own
    /// (repeatable; searched in order, then the directories of `CPATH`), as a C compiler's `-I`.
    #[arg(short = 'I', long = "include-dir", value_name = "DIR", global = true)]
    pub include_dirs: Vec<std::path::PathBuf>,
    /// Queue depths of a load-store queue, by its name (a Dynamatic file's `handshake.name`, a
    /// C kernel's memory node `mem.<array>` under `--memory lsq`): `--lsq-depth lsq1=8/8`
    /// gives `lsq1` 8 load and 8 store entries (repeatable). Without it a queue takes the
    /// file's `handshake.lsqDepth`, else 16/16. Under `--memory queue`, `mem.<array>=L/S`
    /// gives the array's address queue S entries (default 16).
    #[arg(long = "lsq-depth", value_name = "NAME=LOADS/STORES", global = true, value_parser = parse_lsq_depth)]
    pub lsq_depths: Vec<(String, (u32, u32))>,
    /// How a C kernel's accesses to an array keep program order: `serial` (each waits for
    /// the previous one to complete), `queue` (an array both read and written gets an
    /// address queue: a load passes older stores once their addresses are queued and none
    /// is its own; stores stay in order) or `lsq` (an array parameter both read and written
    /// goes through a load-store queue with a group per basic block: loads pass older stores
    /// to other addresses).
    #[arg(long = "memory", value_enum, global = true, default_value = "serial")]
    pub memory: MemoryFlag,
    /// How a C kernel is scheduled: `dynamic` (every operation a handshake component; loops
    /// marked `#pragma handscope static` excepted), `hybrid` (every innermost loop a static
    /// schedule fits becomes a static island, loops marked `#pragma handscope dynamic`
    /// excepted) or `static` (the whole function one static island). Islands are scheduled
    /// with `--timing`'s latencies.
    #[arg(
        long = "schedule",
        value_enum,
        global = true,
        default_value = "dynamic"
    )]
    pub schedule: ScheduleFlag,
    /// At most N units of a kind in a static schedule, shared by its operations: `muli=1`,
    /// `addf.f32=2`, `load.a=1` (an array's read ports). Repeatable; a kind not named has a
    /// unit per operation.
    #[arg(long = "units", value_name = "KIND=N", global = true, value_parser = parse_units)]
    pub units: Vec<(String, u32)>,
}

/// `--schedule`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ScheduleFlag {
    /// Handshake components only.
    Dynamic,
    /// Static islands where they fit.
    Hybrid,
    /// One static island.
    Static,
}

/// Parses `KIND=N` (`muli=1`).
fn parse_units(s: &str) -> Result<(String, u32), String> {
    let (k, n) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}`: write KIND=N, e.g. muli=1"))?;
    let n: u32 = n
        .trim()
        .parse()
        .map_err(|_| format!("`{s}`: `{n}` is not a count of units"))?;
    if n == 0 {
        return Err(format!("`{s}`: a kind needs at least one unit"));
    }
    Ok((k.trim().to_string(), n))
}

/// `--memory`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum MemoryFlag {
    /// Each access waits for the previous one.
    Serial,
    /// Load-store queues for array parameters both read and written.
    Lsq,
    /// Address queues for arrays both read and written.
    Queue,
}

/// Parses `NAME=LOADS/STORES` (`lsq1=8/16`).
fn parse_lsq_depth(s: &str) -> Result<(String, (u32, u32)), String> {
    let bad = || format!("`{s}`: expected NAME=LOADS/STORES, like `lsq1=8/8`");
    let (name, depths) = s.split_once('=').ok_or_else(bad)?;
    let (l, st) = depths.split_once('/').ok_or_else(bad)?;
    let n = |v: &str| -> Result<u32, String> {
        let d: u32 = v.trim().parse().map_err(|_| bad())?;
        if d == 0 || d > handscope_sim::limits::MAX_LSQ_DEPTH {
            return Err(format!(
                "`{s}`: a queue has between 1 and {} entries",
                handscope_sim::limits::MAX_LSQ_DEPTH
            ));
        }
        Ok(d)
    };
    if name.trim().is_empty() {
        return Err(bad());
    }
    Ok((name.trim().to_string(), (n(l)?, n(st)?)))
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Parse and verify a circuit: op counts, channels, warnings and errors with locations.
    Check(check::CheckArgs),
    /// Compile a C kernel to a handshake graph (MLIR, DOT or a readable node list).
    Compile(compile::CompileArgs),
    /// Write a Graphviz DOT drawing of a circuit.
    Dot(dot::DotArgs),
    /// Print a circuit as normalized CIRCT handshake MLIR.
    Mlir(mlir::MlirArgs),
    /// Simulate a function cycle by cycle: outputs, memories, statistics, deadlocks.
    Sim(sim::SimArgs),
    /// Measured and predicted throughput per loop, block and reconvergent region; critical
    /// cycles; the channels that stall most.
    Throughput(throughput::ThroughputArgs),
    /// Propose buffer slots that make a run faster, verified by re-simulation; write the tuned
    /// circuit.
    Tune(throughput::TuneArgs),
    /// Schedule a C kernel's innermost loops statically (static-island candidates): II,
    /// latency and the stage of every operation under a timing profile and unit limits.
    Schedule(schedule::ScheduleArgs),
    /// Open the visual debugger on a C kernel or handshake MLIR file (and optionally a VCD).
    Gui(gui::GuiArgs),
    /// Open the debugger on a guided lesson (`--list` lists them, `--check` checks them by
    /// simulation).
    Lesson(lesson::LessonArgs),
    /// Draw the debugger's view at a cycle without a window, as SVG or PNG.
    Render(render::RenderArgs),
    /// How readable each file's graph is at fit: aspect ratio, zoom, label size, crossings.
    LayoutStats(layout_stats::LayoutStatsArgs),
    /// Write SystemVerilog for a circuit (Handscope's component library).
    Verilog(verilog::VerilogArgs),
    /// Write a Verilator testbench that drives the SystemVerilog like `sim` (--run: build, run, replay).
    Verilate(verilog::VerilateArgs),
    /// Compute the `sim` report from a VCD of a hardware run.
    Replay(replay::ReplayArgs),
    /// The debugger without a window, driven by scripts and editors over the Waveform
    /// Control Protocol (WCP, `docs/wcp.md`).
    Serve(serve::ServeArgs),
    /// Run a circuit, write its VCD and show chosen channels in a running Surfer over WCP.
    Surfer(surfer::SurferArgs),
    /// Benchmarks: `bench frame` (the window's frame time on a large graph), `bench render`
    /// (render time per node), `bench engine` (the engine against Verilator).
    Bench(bench::BenchArgs),
}

/// Input-file argument shared by the subcommands.
#[derive(clap::Args, Debug)]
pub struct InputArgs {
    /// Handshake MLIR file or C kernel to read.
    pub file: PathBuf,
    /// Function to use (default: the last non-external function in the file).
    #[arg(long)]
    pub func: Option<String>,
}

/// Runs the parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    crate::load::set_include_dirs(
        cli.include_dirs
            .iter()
            .cloned()
            .chain(crate::load::cpath_dirs(std::env::var_os("CPATH")))
            .collect(),
    );
    crate::load::set_lsq_depths(cli.lsq_depths.iter().cloned().collect());
    crate::load::set_scheduling(
        match cli.schedule {
            ScheduleFlag::Dynamic => handscope_compiler::c::Scheduling::Dynamic,
            ScheduleFlag::Hybrid => handscope_compiler::c::Scheduling::Hybrid,
            ScheduleFlag::Static => handscope_compiler::c::Scheduling::Static,
        },
        cli.units.iter().cloned().collect(),
    );
    crate::load::set_memory_ordering(match cli.memory {
        MemoryFlag::Serial => handscope_compiler::c::MemoryOrdering::Serial,
        MemoryFlag::Lsq => handscope_compiler::c::MemoryOrdering::Lsq,
        MemoryFlag::Queue => handscope_compiler::c::MemoryOrdering::Queue,
    });
    match cli.command {
        Some(Command::Check(a)) => check::run(&a),
        Some(Command::Compile(a)) => compile::run(&a),
        Some(Command::Dot(a)) => dot::run(&a),
        Some(Command::Mlir(a)) => mlir::run(&a),
        Some(Command::Sim(a)) => sim::run(&a),
        Some(Command::Throughput(a)) => throughput::run_throughput(&a),
        Some(Command::Tune(a)) => throughput::run_tune(&a),
        Some(Command::Schedule(a)) => schedule::run(&a),
        Some(Command::Verilog(a)) => verilog::run_verilog(&a),
        Some(Command::Verilate(a)) => verilog::run_verilate(&a),
        Some(Command::Replay(a)) => replay::run(&a),
        Some(Command::Serve(a)) => serve::run(&a),
        Some(Command::Surfer(a)) => surfer::run(&a),
        Some(Command::Gui(a)) => gui::run(&a),
        Some(Command::Lesson(a)) => lesson::run(&a),
        Some(Command::LayoutStats(a)) => layout_stats::run(&a),
        Some(Command::Render(a)) => render::run(&a),
        Some(Command::Bench(a)) => bench::run(&a),
        None => Ok(crate::app::run(
            crate::app::model::Start::Example(0),
            None,
            None,
            None,
        )),
    }
}

/// Picks the function a subcommand works on (`--func`, else the last one with a body).
pub fn select_function<'m>(
    module: &'m handscope_sim::Module,
    name: Option<&str>,
) -> anyhow::Result<&'m handscope_sim::Function> {
    Ok(handscope_sim::session::select_function(module, name)?)
}

/// Opens the session of a command that runs a file: the selected function (`--func`, else a
/// C kernel's `// TOP:`), timed by `timing`, bound to the file's header stimulus with `flags`
/// replacing its entries (the one header rule, [`crate::load::Loaded::stimulus`]); warns on
/// standard error about what `check` would reject and about arguments left without tokens.
/// Returns the session and the stimulus it runs.
pub fn session(
    loaded: &crate::load::Loaded,
    path: &std::path::Path,
    timing: &handscope_sim::spec::timing::TimingProfile,
    flags: &handscope_sim::session::StimulusArgs,
    deadlock_window: u64,
) -> anyhow::Result<(
    handscope_sim::session::Session,
    handscope_sim::session::StimulusArgs,
)> {
    let mut s = handscope_sim::session::Session::open(&loaded.module, loaded.func.as_deref())?;
    s.apply_timing(timing)?;
    let stimulus = loaded.stimulus(&s, flags, path)?;
    bind_session(&mut s, &stimulus, deadlock_window)?;
    Ok((s, stimulus))
}

/// Like [`session`], binding exactly `stimulus` (no header) and saying nothing of arguments
/// without tokens: a replay, whose stimulus is the trace's.
pub fn session_exactly(
    loaded: &crate::load::Loaded,
    timing: &handscope_sim::spec::timing::TimingProfile,
    stimulus: &handscope_sim::session::StimulusArgs,
    deadlock_window: u64,
) -> anyhow::Result<handscope_sim::session::Session> {
    let mut s = handscope_sim::session::Session::open(&loaded.module, loaded.func.as_deref())?;
    s.apply_timing(timing)?;
    warn_before_running(&s);
    s.set_deadlock_window(deadlock_window).bind(stimulus)?;
    for n in s.notes() {
        eprintln!("warning: {n}");
    }
    Ok(s)
}

/// Warns before running, binds `stimulus` and says which arguments get no tokens.
fn bind_session(
    s: &mut handscope_sim::session::Session,
    stimulus: &handscope_sim::session::StimulusArgs,
    deadlock_window: u64,
) -> anyhow::Result<()> {
    warn_before_running(s);
    s.set_deadlock_window(deadlock_window).bind(stimulus)?;
    for n in s.notes() {
        eprintln!("warning: {n}");
    }
    let unfed = s.unfed_arguments();
    if !unfed.is_empty() {
        eprintln!(
            "warning: no tokens for {} (give them with --in NAME=...); the run may stall",
            unfed
                .iter()
                .map(|a| format!("`{a}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(())
}

/// Says on stderr, before a run, what `check` would reject and what the session inserted: a
/// circuit that fails `check` (say a combinational cycle) is still simulated, but the user
/// hears first that it fails and why.
pub fn warn_before_running(s: &handscope_sim::session::Session) {
    let inserted = s.inserted();
    if !inserted.is_empty() {
        let list: Vec<String> = inserted.iter().map(ToString::to_string).collect();
        eprintln!(
            "warning: @{} is not materialized; Handscope inserts forks and sinks: {}",
            s.function().name,
            list.join("; ")
        );
    }
    let report = handscope_sim::verify::verify(s.function());
    if !report.is_ok() {
        eprintln!(
            "warning: `handscope check` fails on @{} ({} error{}); simulating anyway, results may be unreliable:",
            s.function().name,
            report.errors.len(),
            if report.errors.len() == 1 { "" } else { "s" }
        );
        for p in &report.errors {
            eprintln!("  {p}");
        }
    }
}
