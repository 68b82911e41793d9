//! `handscope replay`: the report of `sim`, computed from a VCD or FST of a hardware run
//! (the format is detected from the file's first byte).

use std::path::PathBuf;
use std::process::ExitCode;

use handscope_traces::vcd_in::{ReplayOptions, replay_file};

/// Arguments of `handscope replay`.
#[derive(clap::Args, Debug)]
pub struct ReplayArgs {
    /// Handshake MLIR file or C kernel of the circuit that was run.
    pub graph: PathBuf,
    /// The VCD or FST of the run (Verilator on Handscope's or CIRCT's SystemVerilog).
    pub trace: PathBuf,
    /// Function (default: the only or the last function with a body).
    #[arg(long)]
    pub func: Option<String>,
    /// Explicit mapping file: lines `channel_name signal_prefix`.
    #[arg(long, value_name = "FILE")]
    pub map: Option<PathBuf>,
    /// Clock signal (name or dotted path; default `clock` or `clk`).
    #[arg(long)]
    pub clock: Option<String>,
    /// Function scope in the VCD (dotted path or its tail), when several match.
    #[arg(long)]
    pub scope: Option<String>,
    /// The stimulus: `--in`, `--mem`, `--ready`.
    #[command(flatten)]
    pub stimulus: super::stimulus_flags::StimulusFlags,
    /// The timing profile the run used (`--timing`): its pipelines are part of the circuit.
    #[command(flatten)]
    pub timing: super::timing_flags::TimingFlags,
    /// Cycles without any transfer after which the run counts as deadlocked.
    #[arg(long, default_value_t = 16)]
    pub deadlock_window: u64,
    /// Replay even when some channels of the circuit have no signal in the file (they read
    /// as idle) or a data signal is not as wide as its channel's type (its values are cut to
    /// the channel's width, or extended by their sign); without it those are errors, since the file is likely of another
    /// circuit or another version of it.
    #[arg(long)]
    pub force: bool,
    /// Print the mapping report (matched channels, unmatched signals and channels).
    #[arg(long)]
    pub show_mapping: bool,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// `--outputs summary|all`.
    #[command(flatten)]
    pub outputs: super::outputs_flag::OutputsFlag,
}

/// Runs `handscope replay`.
pub fn run(a: &ReplayArgs) -> anyhow::Result<ExitCode> {
    let timing = a.timing.profile()?;
    let loaded = crate::load::load_timed(&a.graph, a.func.as_deref(), &timing)?;
    let stimulus = a.stimulus.args();
    let mut session = super::session_exactly(&loaded, &timing, &stimulus, a.deadlock_window)?;
    session.set_keep_all_outputs(a.outputs.keep_all(a.json));
    let given = !stimulus.inputs.is_empty();
    let progress = super::progress::ReadProgress::new(&a.trace.display().to_string());
    let opts = ReplayOptions {
        clock: a.clock.clone(),
        scope: a.scope.clone(),
        map_file: a.map.clone(),
        progress: Some(progress.callback()),
        force: a.force,
        // Without `--in`, the tokens are the trace's; the rest (`--ready`, `--mem`, the
        // window, `--outputs`) is the command line's.
        base: (!given).then(|| session.environment().clone()),
    };
    let mut r = replay_file(
        &a.trace,
        session.function(),
        given.then_some(session.environment()),
        &opts,
    )?;
    progress.finish(r.edges);
    for w in &r.warnings {
        eprintln!("warning: {w}");
    }
    let m = &r.mapping;
    eprintln!(
        "mapping: scope `{}`, clock `{}`, {} of {} channels matched, {} of {} state words, {} unmatched signals",
        m.scope,
        m.clock,
        m.matched.len(),
        m.matched.len() + m.unmatched_channels.len(),
        m.state_words.0,
        m.state_words.1,
        m.unmatched_signals.len()
    );
    if a.show_mapping {
        for c in &m.matched {
            eprintln!(
                "  {} <- {} ({})",
                c.channel,
                c.valid.trim_end_matches("_valid"),
                c.scheme
            );
        }
        for c in &m.unmatched_channels {
            eprintln!("  {c}: no signal");
        }
        for s in &m.unmatched_signals {
            eprintln!("  unused signal {s}");
        }
    }
    // A waveform shows the accesses a run made to a memory outside the circuit, not what the
    // memory held before: one without `--mem` is the writes the trace shows over zeros, and
    // says so.
    let given_mems: Vec<&str> = stimulus
        .mems
        .iter()
        .filter_map(|m| m.split_once('=').map(|(n, _)| n.trim()))
        .collect();
    let f = session.function();
    let outside = |name: &str| {
        f.args
            .iter()
            .any(|a| a.name == name && matches!(a.ty, handscope_sim::ArgType::MemRef(_)))
    };
    for name in r.report.memories.keys() {
        if outside(name) && !given_mems.contains(&name.as_str()) {
            eprintln!(
                "note: memory {name}: its contents before the run are not in the waveform and \
                 no --mem {name}=... gave them; it is shown as the trace's writes over zeros"
            );
        }
    }
    a.outputs.print(&mut r.report, a.json, &timing)?;
    Ok(crate::exit::of_run(r.report.status))
}
