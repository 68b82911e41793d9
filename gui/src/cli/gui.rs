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
    /// Serve the Waveform Control Protocol (`docs/wcp.md`) while the window is open, on ADDR
    /// (default 127.0.0.1:54321): scripts and editors drive the same cursor, selection and
    /// breakpoints as the window.
    #[arg(long, value_name = "ADDR", num_args = 0..=1,
          default_missing_value = crate::wcp::server::DEFAULT_ADDR)]
    pub wcp: Option<String>,
    /// Follow TRACE while a simulator is still writing it: the view grows as cycles arrive
    /// and stays at the newest one (the last timestamp shows once the file stops growing
    /// and the view is told it is complete, as `verilate --run --live` does).
    #[arg(long, requires = "trace")]
    pub live: bool,
    /// WCP listening options.
    #[command(flatten)]
    pub wcp_flags: super::serve::WcpFlags,
    /// The timing profile: `--timing`.
    #[command(flatten)]
    pub timing: super::timing_flags::TimingFlags,
    /// Put another file beside the circuit in the compare view (`k`), run with the same
    /// stimulus: another buffer placement of the same kernel, such as `tune -o` writes.
    #[arg(long, value_name = "OTHER")]
    pub compare: Option<PathBuf>,
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
    if a.live
        && let Some(t) = &a.trace
        && handscope_traces::vcd_in::fst::is_fst(t).unwrap_or(false)
    {
        anyhow::bail!(
            "--live follows VCD files; {} is an FST (FST writers finish its blocks only at the end)",
            t.display()
        );
    }
    let wcp = match a.wcp.as_deref() {
        Some(addr) => {
            let mut o = a.wcp_flags.options(addr);
            let token = crate::wcp::server::new_token();
            a.wcp_flags.write_token(&token)?;
            o.token = Some(token);
            Some(o)
        }
        None => None,
    };
    let mut start = start;
    let follow = match (&mut start, a.live) {
        (Start::File(_, trace, ..), true) => trace.take().map(|path| crate::app::Follow {
            path,
            opts: Default::default(),
            writer_done: Default::default(),
        }),
        _ => None,
    };
    if let Some(c) = &a.compare
        && !c.exists()
    {
        anyhow::bail!("--compare {}: no such file", c.display());
    }
    Ok(crate::app::run(start, wcp, follow, a.compare.clone()))
}

/// Index of the gallery example named like `f` (`deadlock_join` or `deadlock_join.mlir`).
pub fn gallery_index(f: &std::path::Path) -> Option<usize> {
    let s = f.to_string_lossy();
    crate::examples::CIRCUITS
        .iter()
        .position(|e| e.name == s || e.name.trim_end_matches(".mlir") == s)
}
