//! `handscope gui`: open the visual debugger on a file (and optionally a VCD).

use std::path::PathBuf;
use std::process::ExitCode;

use crate::app::model::Start;

/// Arguments of `handscope gui`.
#[derive(clap::Args, Debug)]
pub struct GuiArgs {
    /// C kernel or handshake MLIR file (default: the built-in gallery).
    pub file: Option<PathBuf>,
    /// A VCD of a run of that circuit to replay instead of simulating.
    pub trace: Option<PathBuf>,
    /// The stimulus: `--in`, `--mem`, `--ready`.
    #[command(flatten)]
    pub stimulus: super::stimulus_flags::StimulusFlags,
    /// Function to show (default: the only or the last function with a body).
    #[arg(long)]
    pub func: Option<String>,
    /// The timing profile: `--timing`.
    #[command(flatten)]
    pub timing: super::timing_flags::TimingFlags,
}

/// Opens the window.
pub fn run(a: &GuiArgs) -> anyhow::Result<ExitCode> {
    let timing = a.timing.profile()?;
    let start = match &a.file {
        None => Start::TimedExample(0, timing),
        Some(f) => match gallery_index(f) {
            Some(i) if !f.exists() => Start::TimedExample(i, timing),
            _ => Start::File(
                f.clone(),
                a.trace.clone(),
                a.stimulus.args(),
                a.func.clone(),
                timing,
            ),
        },
    };
    Ok(crate::app::run(start))
}

/// Index of the gallery example named like `f` (`deadlock_join` or `deadlock_join.mlir`).
pub fn gallery_index(f: &std::path::Path) -> Option<usize> {
    let s = f.to_string_lossy();
    crate::examples::CIRCUITS
        .iter()
        .position(|e| e.name == s || e.name.trim_end_matches(".mlir") == s)
}
