//! `handscope surfer`: run a circuit like `sim`, write its VCD and open it in a running Surfer
//! over WCP with the chosen channels' `valid`, `ready` and data signals shown.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;

use crate::wcp::surfer::{Link, show_in_surfer};

/// Arguments of `handscope surfer`.
#[derive(clap::Args, Debug)]
pub struct SurferArgs {
    /// Handshake MLIR file or C kernel to run.
    pub file: PathBuf,
    /// Function to run (default: the only or the last function with a body).
    #[arg(long)]
    pub func: Option<String>,
    /// The stimulus: the file's header, with `--in`, `--mem`, `--ready` replacing entries.
    #[command(flatten)]
    pub stimulus: super::stimulus_flags::StimulusFlags,
    /// Channels to show, by stable name (repeatable; default: every channel).
    #[arg(long = "channel", value_name = "NAME")]
    pub channels: Vec<String>,
    /// Connect to a Surfer serving WCP at HOST:PORT.
    #[arg(long, value_name = "ADDR", conflicts_with = "listen")]
    pub connect: Option<String>,
    /// Wait at HOST:PORT (loopback) for a Surfer started with `--wcp-initiate PORT`.
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<String>,
    /// Where to write the VCD (default: handscope-<function>.vcd in the temporary directory).
    #[arg(long, value_name = "OUT.vcd")]
    pub vcd: Option<PathBuf>,
    /// Stop the run after this many cycles.
    #[arg(long, default_value_t = 1_000_000)]
    pub max_cycles: u64,
    /// Seconds to wait for Surfer at each step.
    #[arg(long, default_value_t = 30)]
    pub timeout: u64,
}

/// Runs, writes the VCD, talks to Surfer, prints the exchange.
pub fn run(a: &SurferArgs) -> anyhow::Result<ExitCode> {
    let link = match (&a.connect, &a.listen) {
        (Some(c), _) => Link::Connect(c.clone()),
        (None, Some(l)) => Link::Listen(l.clone()),
        (None, None) => Link::Connect(crate::wcp::server::DEFAULT_ADDR.into()),
    };
    // A refused address fails at once, before the run and before anything binds.
    if let Some(l) = &a.listen {
        crate::wcp::surfer::listen_addrs(l)?;
    }
    // The stimulus of the file's header (`// sim:`, a kernel's first `// RUN:`), as the
    // debugger runs it, with --in/--mem/--ready replacing entries.
    let circuit = crate::app::circuit::Circuit::from_file(
        &a.file,
        &a.stimulus.args(),
        a.func.as_deref(),
        &Default::default(),
    )?;
    let session = circuit.session;
    super::warn_before_running(&session);
    let f = session.function();
    let mut variables = Vec::new();
    let names: Vec<String> = if a.channels.is_empty() {
        f.channels.values().map(|c| c.name.clone()).collect()
    } else {
        a.channels.clone()
    };
    for n in &names {
        let Some(c) = f.channel_by_name(n) else {
            anyhow::bail!(
                "@{} has no channel `{n}` (channels are named `<node>.<port>` or after an argument)",
                f.name
            );
        };
        variables.extend(handscope_traces::vcd_out::channel_signal_names(
            n,
            f.channels[c].ty.bit_width() > 0,
        ));
    }
    // Without `--vcd`, a directory of our own under the temporary directory (a random name,
    // readable by this user only), kept for Surfer to read: a fixed name in a shared /tmp could
    // be a link someone else planted.
    let vcd = match &a.vcd {
        Some(p) => p.clone(),
        None => private_dir_builder()
            .tempdir()
            .context("cannot create a temporary directory for the waveform")?
            .keep()
            .join(format!("{}.vcd", f.name.replace('/', "_"))),
    };
    let stop = super::interrupt::stop_flag();
    let report = super::sim::run_writing_vcd(&mut session.simulation()?, a.max_cycles, stop, &vcd)?;
    outln!(
        "ran @{}: {} after {} cycles; wrote {}",
        f.name,
        report.status.as_str(),
        report.cycles,
        vcd.display()
    )?;
    let log = show_in_surfer(
        &link,
        &vcd,
        &variables,
        Duration::from_secs(a.timeout),
        &mut |addr| {
            // A failed write shows in the next line printed, which returns the error.
            let _ = outln!(
                "WCP: waiting for Surfer on {addr} (start it with `surfer --wcp-initiate PORT`)"
            )
            .and_then(|()| crate::stdout::flush());
        },
    )
    .context("cannot show the run in Surfer")?;
    for (out, m) in log {
        outln!("{} {m}", if out { "->" } else { "<-" })?;
    }
    Ok(ExitCode::SUCCESS)
}

/// A builder of temporary directories named `handscope-surfer-*`, readable by this user only.
fn private_dir_builder() -> tempfile::Builder<'static, 'static> {
    let mut b = tempfile::Builder::new();
    b.prefix("handscope-surfer-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        b.permissions(std::fs::Permissions::from_mode(0o700));
    }
    b
}
