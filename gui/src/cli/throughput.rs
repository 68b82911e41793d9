//! `handscope throughput` (measured and predicted throughput, critical cycles, stalls) and
//! `handscope tune` (buffer slots that make the run faster, verified by re-simulation).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use handscope_compiler::mlir::write_mlir;
use handscope_sim::Module;
use handscope_sim::session::{Session, StimulusArgs};
use handscope_sim::throughput::{self, tune};

/// Input file, function and stimulus, shared by `throughput` and `tune`.
#[derive(clap::Args, Debug)]
pub struct RunInput {
    /// Handshake MLIR file or C kernel.
    pub file: PathBuf,
    /// Function to run (default: a C kernel's `// TOP:`, else the last function with a body).
    #[arg(long)]
    pub func: Option<String>,
    /// The stimulus: `--in`, `--mem`, `--ready`.
    #[command(flatten)]
    pub stimulus: super::stimulus_flags::StimulusFlags,
    /// The timing profile: `--timing`.
    #[command(flatten)]
    pub timing: super::timing_flags::TimingFlags,
    /// Stop after this many cycles.
    #[arg(long, default_value_t = 1_000_000)]
    pub max_cycles: u64,
    /// Cycles without any transfer after which the run is declared deadlocked.
    #[arg(long, default_value_t = 16)]
    pub deadlock_window: u64,
    /// Compile a C kernel with task pipelining (several invocations in flight).
    #[arg(long)]
    pub task_pipelining: bool,
}

/// Arguments of `handscope throughput`.
#[derive(clap::Args, Debug)]
pub struct ThroughputArgs {
    /// The circuit and its stimulus.
    #[command(flatten)]
    pub input: RunInput,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `handscope tune`.
#[derive(clap::Args, Debug)]
pub struct TuneArgs {
    /// The circuit and its stimulus.
    #[command(flatten)]
    pub input: RunInput,
    /// Most buffer slots to add in all (at most 1,048,576, the slots a function may hold).
    #[arg(long, default_value_t = 16, value_parser = max_slots_range())]
    pub max_slots: u32,
    /// Channels tried per round of the search.
    #[arg(long, default_value_t = 16)]
    pub candidates: usize,
    /// Write the tuned circuit (handshake MLIR) here.
    #[arg(short, long, value_name = "OUT.mlir")]
    pub output: Option<PathBuf>,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `--max-slots`: 0 to [`handscope_sim::limits::MAX_TOTAL_BUFFER_SLOTS`].
fn max_slots_range() -> clap::builder::RangedI64ValueParser<u32> {
    // Clap's ranges are `i64`; the limit (2^20) fits.
    let max = i64::try_from(handscope_sim::limits::MAX_TOTAL_BUFFER_SLOTS).unwrap_or(i64::MAX);
    clap::value_parser!(u32).range(0..=max)
}

/// The loaded module, the session with its stimulus bound, and that stimulus.
struct Opened {
    module: Module,
    /// The file's text.
    text: String,
    /// The timing profile it was read with.
    timing: handscope_sim::spec::timing::TimingProfile,
    session: Session,
    stimulus: StimulusArgs,
}

fn open(a: &RunInput) -> anyhow::Result<Opened> {
    let timing = a.timing.profile()?;
    let opts = handscope_compiler::c::HsOptions {
        task_pipelining: a.task_pipelining,
        timing: timing.clone(),
        ..crate::load::c_options()
    };
    let text = handscope_sim::input::read_text(&a.file)?;
    let loaded = crate::load::load_text_with(&a.file, &text, a.func.as_deref(), &opts)?;
    let (session, stimulus) = super::session(
        &loaded,
        &a.file,
        &timing,
        &a.stimulus.args(),
        a.deadlock_window,
    )?;
    Ok(Opened {
        module: loaded.module,
        text,
        timing,
        session,
        stimulus,
    })
}

/// Runs the circuit with a trace and prints its throughput report.
pub fn run_throughput(a: &ThroughputArgs) -> anyhow::Result<ExitCode> {
    let o = open(&a.input)?;
    let run = o.session.run(a.input.max_cycles, true)?;
    let trace = run.trace.context("the engine recorded no trace")?;
    let report = throughput::analyze(o.session.function(), &trace);
    if a.json {
        let mut v = serde_json::to_value(&report)?;
        v["status"] = serde_json::to_value(run.report.status)?;
        outln!("{}", serde_json::to_string_pretty(&v)?)?;
    } else {
        outln!("status: {}", run.report.status.as_str())?;
        out!("{}", throughput::render_text(&report))?;
    }
    Ok(crate::exit::of_run(run.report.status))
}

fn ii_text(f: &tune::RunFigures) -> String {
    match (f.ii, &f.ii_channel) {
        (Some(ii), Some(ch)) => format!("II {ii:.2} on {ch}"),
        _ => "II -".to_string(),
    }
}

/// Tunes the buffers, prints before/after and writes the tuned circuit.
pub fn run_tune(a: &TuneArgs) -> anyhow::Result<ExitCode> {
    let o = open(&a.input)?;
    let opts = tune::TuneOptions {
        max_slots: a.max_slots,
        candidates: a.candidates,
        max_cycles: a.input.max_cycles,
    };
    let t = tune::tune(&o.session, opts)?;
    if a.json {
        outln!("{}", serde_json::to_string_pretty(&t)?)?;
    } else {
        outln!("before: {} cycles, {}", t.before.cycles, ii_text(&t.before))?;
        if t.changes.is_empty() && t.simulations <= 2 {
            outln!(
                "no candidate: no channel stalls and the critical cycle has no free-space step"
            )?;
        } else if t.changes.is_empty() {
            outln!("no slot change makes this run faster")?;
        } else {
            for c in &t.changes {
                outln!(
                    "  +{} slot{} on {}",
                    c.slots,
                    if c.slots == 1 { "" } else { "s" },
                    c.channel
                )?;
            }
        }
        outln!(
            "after:  {} cycles, {} ({} slot{} added, {} verified runs: same outputs and memories)",
            t.after.cycles,
            ii_text(&t.after),
            t.added_slots,
            if t.added_slots == 1 { "" } else { "s" },
            t.simulations
        )?;
    }
    if let Some(out) = &a.output {
        let text = tuned_mlir(&a.input.file, &o, &t)?;
        crate::output::write_bytes(out, text)?;
        if !a.json {
            outln!("wrote {}", out.display())?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `text` without the `// KEY: ...` lines of its header (the comment lines before the first
/// other line, as `Header::parse` reads them).
fn without_header_key(text: &str, key: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_header = true;
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        if in_header && !t.is_empty() && !t.starts_with("//") {
            in_header = false;
        }
        let drop = in_header
            && t.strip_prefix("//")
                .map(|b| b.trim_start_matches('/').trim())
                .and_then(|b| b.split_once(':'))
                .is_some_and(|(k, _)| k.trim() == key);
        if !drop {
            out.push_str(line);
        }
    }
    out
}

/// The tuned circuit as MLIR: the other functions of the module as they were (unless the
/// tuned one was flattened, which makes them unnecessary), with a header naming the changes
/// and the stimulus as `// sim:` lines.
///
/// A Dynamatic file is written in its own dialect: its text with the buffer changes put in
/// (`crate::dynamatic::write_tuned`), so the tuned circuit goes back into Dynamatic's flow.
fn tuned_mlir(file: &Path, o: &Opened, t: &tune::Tuned) -> anyhow::Result<String> {
    let name = &t.function.name;
    let dynamatic = crate::dynamatic::is_dynamatic(file, &o.text);
    let flattened = o.module.function(name).is_some_and(|f| {
        f.nodes
            .values()
            .any(|n| n.op.kind() == handscope_sim::OpKind::Instance)
    });
    let module = if flattened || file.extension().is_some_and(|e| e == "c") {
        Module {
            functions: vec![t.function.clone()],
        }
    } else {
        let mut m = o.module.clone();
        for f in &mut m.functions {
            if &f.name == name {
                *f = t.function.clone();
            }
        }
        m
    };
    let mut s = format!(
        "// Tuned by `handscope tune` from {}: {} -> {} cycles.\n",
        file.display(),
        t.before.cycles,
        t.after.cycles
    );
    for c in &t.changes {
        s.push_str(&format!(
            "// +{} slot{} on {}\n",
            c.slots,
            if c.slots == 1 { "" } else { "s" },
            c.channel
        ));
    }
    let mut flags = Vec::new();
    for i in &o.stimulus.inputs {
        flags.push(format!("--in {i}"));
    }
    for m in &o.stimulus.mems {
        flags.push(format!("--mem {m}"));
    }
    for r in &o.stimulus.ready {
        flags.push(format!("--ready {r}"));
    }
    if !flags.is_empty() {
        s.push_str(&format!("// sim: {}\n", flags.join(" ")));
    }
    if dynamatic {
        let orig = o.session.function();
        let text = crate::dynamatic::write_tuned(file, &o.text, &o.timing, orig, &t.function)?;
        // The stimulus line above is the run's; the file's own would add to it.
        s.push_str(&without_header_key(&text, "sim"));
    } else {
        s.push_str(&write_mlir(&module));
    }
    Ok(s)
}
