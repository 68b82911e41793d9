//! `handscope sim`: run a function in the cycle-accurate engine and report what happened.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use handscope_sim::report::render_human;
use handscope_sim::session::StimulusArgs;

/// Arguments of `handscope sim`.
#[derive(clap::Args, Debug)]
pub struct SimArgs {
    /// Handshake MLIR file to simulate.
    pub file: PathBuf,
    /// Function to run (default: the only or the last function with a body).
    #[arg(long)]
    pub func: Option<String>,
    /// Tokens for an argument: `NAME=1,2,-3`, `NAME=0..1000` (0 to 999), `NAME=@file`; for a
    /// `none` argument a count (`start=3`). Repeatable. The last `none` argument defaults to 1
    /// token, other arguments to none.
    #[arg(long = "in", value_name = "NAME=TOKENS")]
    pub inputs: Vec<String>,
    /// Initial contents of an `extmemory` argument or internal `memory` (by node ID):
    /// `NAME=v0,v1,...` or `NAME=@file`. Repeatable.
    #[arg(long = "mem", value_name = "NAME=VALUES")]
    pub mems: Vec<String>,
    /// Ready policy of a result: `NAME=always|random:SEED:PROB|pattern:BITS` (default always).
    #[arg(long = "ready", value_name = "NAME=POLICY")]
    pub ready: Vec<String>,
    /// Stop after this many cycles.
    #[arg(long, default_value_t = 1_000_000)]
    pub max_cycles: u64,
    /// Cycles without any transfer after which the run is declared deadlocked.
    #[arg(long, default_value_t = 16)]
    pub deadlock_window: u64,
    /// Write a VCD of every channel (and component state) to this file.
    #[arg(long, value_name = "OUT.vcd")]
    pub vcd: Option<PathBuf>,
    /// Print the report as JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs the simulation and prints the report. Exit code 0 when the run is `done`, 2 on a
/// deadlock, 3 when the cycle limit was reached.
pub fn run(a: &SimArgs) -> anyhow::Result<ExitCode> {
    let loaded = crate::load::load_for(&a.file, a.func.as_deref())?;
    let session = super::session(
        &loaded.module,
        a.func.as_deref(),
        &a.stimulus(),
        a.deadlock_window,
    )?;
    let run = session.run(a.max_cycles, a.vcd.is_some())?;
    let report = run.report;
    if let Some(path) = &a.vcd {
        let trace = run.trace.context("the engine recorded no trace")?;
        crate::output::write_file(path, |w| handscope_traces::vcd_out::write_vcd(&trace, w))?;
    }
    if a.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", render_human(&report));
    }
    Ok(super::exit_code(report.status))
}

impl SimArgs {
    /// The stimulus options.
    pub fn stimulus(&self) -> StimulusArgs {
        StimulusArgs {
            inputs: self.inputs.clone(),
            mems: self.mems.clone(),
            ready: self.ready.clone(),
        }
    }
}
