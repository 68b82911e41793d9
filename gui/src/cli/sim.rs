//! `handscope sim`: run a function in the cycle-accurate engine and report what happened.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;

/// Arguments of `handscope sim`.
#[derive(clap::Args, Debug)]
pub struct SimArgs {
    /// Handshake MLIR file or C kernel to simulate.
    pub file: PathBuf,
    /// Function to run (default: the only or the last function with a body).
    #[arg(long)]
    pub func: Option<String>,
    /// The stimulus: `--in`, `--mem`, `--ready`.
    #[command(flatten)]
    pub stimulus: super::stimulus_flags::StimulusFlags,
    /// The timing profile: `--timing`.
    #[command(flatten)]
    pub timing: super::timing_flags::TimingFlags,
    /// Stop after this many cycles (default: no limit; a run that stops making progress
    /// ends as a deadlock after --deadlock-window cycles, and Ctrl-C stops a run and prints
    /// the report of the cycles simulated so far).
    #[arg(long)]
    pub max_cycles: Option<u64>,
    /// Cycles without any transfer after which the run is declared deadlocked.
    #[arg(long, default_value_t = 16)]
    pub deadlock_window: u64,
    /// Write a VCD of every channel (and component state) to this file, while simulating.
    #[arg(long, value_name = "OUT.vcd", conflicts_with = "fst")]
    pub vcd: Option<PathBuf>,
    /// Write the same waveform as FST (compressed; GTKWave, Surfer) to this file.
    #[arg(long, value_name = "OUT.fst")]
    pub fst: Option<PathBuf>,
    /// Print the report as JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// `--outputs summary|all`.
    #[command(flatten)]
    pub outputs: super::outputs_flag::OutputsFlag,
    /// Run every line of this file (one run per line: `--in/--mem/--ready` options, or a C
    /// kernel's `RUN:` arguments; `#` comments) on every core, one report line per run.
    #[arg(long, value_name = "RUNS")]
    pub batch: Option<PathBuf>,
    /// Run once per seed of `A..B` (end excluded), every result without an explicit
    /// `--ready` taking `random:SEED:PROB` (with --batch: every line once per seed).
    #[arg(long, value_name = "A..B", conflicts_with_all = ["vcd", "fst"])]
    pub seeds: Option<String>,
    /// The ready probability of --seeds.
    #[arg(long, default_value_t = 0.5, requires = "seeds")]
    pub ready_prob: f64,
    /// Worker threads of --batch/--seeds (default: every core).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// The engine: `auto` interprets the first cycles, then times code compiled for the
    /// circuit and the activity-driven interpreter and keeps the fastest; `compiled` compiles
    /// before the first cycle; `interpreter` never compiles; `activity` evaluates only the
    /// components whose channels or registers changed. All four compute the same cycles.
    #[arg(long, value_enum, default_value_t = Engine::Auto)]
    pub engine: Engine,
    /// After the run, print on stderr the engine that ended it and its work per cycle:
    /// instructions of a cycle that evaluates every component, and those the
    /// activity-driven interpreter evaluated (`handscope bench engine` reads this line).
    #[arg(long, conflicts_with_all = ["batch", "seeds"])]
    pub engine_stats: bool,
}

/// The line `--engine-stats` prints.
pub(crate) fn engine_stats_line(w: &handscope_sim::engine::EngineWork) -> String {
    match w.activity {
        Some((evaluated, cycles)) if cycles > 0 => format!(
            "engine: {}; instructions per cycle: {:.2} evaluated of {} ({:.1}%) over {cycles} cycles",
            w.engine,
            evaluated as f64 / cycles as f64,
            w.instructions,
            100.0 * evaluated as f64 / (cycles as f64 * w.instructions.max(1) as f64)
        ),
        _ => format!(
            "engine: {}; instructions per cycle: {} evaluated of {} (100.0%)",
            w.engine, w.instructions, w.instructions
        ),
    }
}

/// `--engine` (see [`handscope_sim::engine::EngineKind`]).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// Interpret, then compile once the run is long enough to pay for it.
    Auto,
    /// Compiled code from the first cycle.
    Compiled,
    /// The interpreter only.
    Interpreter,
    /// The interpreter, evaluating only the components whose inputs or registers changed.
    Activity,
}

impl Engine {
    /// The engine kind this names.
    pub fn kind(self) -> handscope_sim::engine::EngineKind {
        use handscope_sim::engine::EngineKind;
        match self {
            Engine::Auto => EngineKind::Auto,
            Engine::Compiled => EngineKind::Compiled,
            Engine::Interpreter => EngineKind::Interpreter,
            Engine::Activity => EngineKind::Activity,
        }
    }
}

/// Runs the simulation and prints the report; the exit code says how it ended
/// ([`super::exit_code`]).
pub fn run(a: &SimArgs) -> anyhow::Result<ExitCode> {
    if a.batch.is_some() || a.seeds.is_some() {
        return run_batch(a);
    }
    let timing = a.timing.profile()?;
    let loaded = crate::load::load_timed(&a.file, a.func.as_deref(), &timing)?;
    let (mut session, _) = super::session(
        &loaded,
        &a.file,
        &timing,
        &a.stimulus.args(),
        a.deadlock_window,
    )?;
    session.set_keep_all_outputs(a.outputs.keep_all(a.json));
    session.set_engine(a.engine.kind());
    let stop = super::interrupt::stop_flag();
    let max_cycles = a.max_cycles.unwrap_or(u64::MAX);
    let progress = super::progress::RunProgress::start();
    let mut sim = session.simulation()?;
    sim.set_progress(progress.counter());
    let mut report = match (&a.vcd, &a.fst) {
        (Some(path), _) => run_writing_vcd(&mut sim, max_cycles, stop, path)?,
        (None, Some(path)) => run_writing_fst(&mut sim, max_cycles, stop, path)?,
        (None, None) => sim.run_until(max_cycles, stop),
    };
    drop(progress);
    if a.engine_stats {
        eprintln!("{}", engine_stats_line(&sim.engine_work()));
    }
    a.outputs.print(&mut report, a.json, &timing)?;
    Ok(crate::exit::of_run(report.status))
}

/// `sim --batch` / `--seeds`: plans every run (a bad line fails before anything runs), runs
/// them on every core and prints one line per run and the runs per second.
fn run_batch(a: &SimArgs) -> anyhow::Result<ExitCode> {
    use super::batch;
    if a.vcd.is_some() || a.fst.is_some() {
        anyhow::bail!("--batch writes no waveform (--vcd/--fst): run one line of it alone");
    }
    let timing = a.timing.profile()?;
    let loaded = crate::load::load_timed(&a.file, a.func.as_deref(), &timing)?;
    let mut session =
        handscope_sim::session::Session::open(&loaded.module, loaded.func.as_deref())?;
    session.apply_timing(&timing)?;
    super::warn_before_running(&session);
    session.set_deadlock_window(a.deadlock_window);
    session.set_engine(a.engine.kind());
    for n in session.notes() {
        eprintln!("warning: {n}");
    }
    let seeds = a.seeds.as_deref().map(batch::parse_seeds).transpose()?;
    if !(0.0..=1.0).contains(&a.ready_prob) {
        anyhow::bail!(
            "--ready-prob {} is not a probability in 0..=1",
            a.ready_prob
        );
    }
    let base = loaded.stimulus(&session, &a.stimulus.args(), &a.file)?;
    let runs = batch::plan(&session, &base, a.batch.as_deref(), seeds, a.ready_prob)?;
    let threads = a.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    if threads == 0 {
        anyhow::bail!("--jobs 0: give at least one worker thread");
    }
    let stop = super::interrupt::stop_flag();
    let max_cycles = a.max_cycles.unwrap_or(u64::MAX);
    let keep_all = a.json && a.outputs.keep_all(true);
    let mut report = batch::execute(&session, &runs, max_cycles, threads, keep_all, stop)?;
    for r in report.runs.iter_mut().filter_map(|e| e.report.as_mut()) {
        r.timing = (!timing.is_ideal()).then(|| timing.name().to_string());
    }
    if a.json {
        if !keep_all {
            for r in report.runs.iter_mut().filter_map(|e| e.report.as_mut()) {
                r.cut_outputs(handscope_sim::report::SUMMARY_ENDS);
            }
        }
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        out!("{}", batch::render_text(&report))?;
    }
    Ok(batch::exit_code(&report, runs.len()))
}

/// Runs `session` and writes its waveform to `path` while it runs (constant memory: nothing
/// is recorded).
pub(crate) fn run_writing_vcd(
    sim: &mut handscope_sim::engine::Simulation,
    max_cycles: u64,
    stop: &std::sync::atomic::AtomicBool,
    path: &std::path::Path,
) -> anyhow::Result<handscope_sim::report::RunReport> {
    let tap = sim.signal_tap();
    let mut report = None;
    // Written to a temporary file renamed when complete: a failed run leaves no partial VCD.
    crate::output::write_file(path, |out| {
        let mut w = handscope_traces::vcd_out::VcdWriter::new(
            tap.channels(),
            tap.state_meta(),
            tap.data_aliases(),
            out,
        )?;
        let (r, failed) =
            super::wave_stream::run_streaming(sim, max_cycles, stop, |c, words, changed| {
                w.cycle(c, words, changed)
            });
        report = Some(r);
        if let Some(e) = failed {
            return Err(e);
        }
        w.finish().map(|_| ())
    })?;
    let report = report.context("the run did not start")?;
    Ok(report)
}

/// Runs `session` and writes its waveform to `path` as FST while it runs.
fn run_writing_fst(
    sim: &mut handscope_sim::engine::Simulation,
    max_cycles: u64,
    stop: &std::sync::atomic::AtomicBool,
    path: &std::path::Path,
) -> anyhow::Result<handscope_sim::report::RunReport> {
    use handscope_traces::fst_out::FstWriter;
    let tap = sim.signal_tap();
    let mut report = None;
    // FST needs a seekable file: a temporary one renamed over `path` when complete (or, for a
    // device or FIFO, copied into it).
    crate::output::write_seekable(path, |file| {
        let err = || format!("cannot write {}", path.display());
        let out = std::io::BufWriter::with_capacity(1 << 20, file);
        let mut w = FstWriter::new(out, tap.channels(), tap.state_meta()).with_context(err)?;
        let (r, failed) =
            super::wave_stream::run_streaming(sim, max_cycles, stop, |c, words, changed| {
                w.cycle(c, words, changed)
            });
        report = Some(r);
        if let Some(e) = failed {
            return Err(e).with_context(err);
        }
        w.finish().with_context(err)?;
        Ok(())
    })?;
    let report = report.context("the run did not start")?;
    Ok(report)
}
