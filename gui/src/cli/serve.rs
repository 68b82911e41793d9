//! `handscope serve`: the debugger without a window, driven over the Waveform Control
//! Protocol (`docs/wcp.md`): scripts and editors load a circuit, set breakpoints, step, run
//! and read values and reports.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use anyhow::Context as _;

use crate::app::model::{Model, Start, Wake};
use crate::wcp::hub::Hub;
use crate::wcp::server::{DEFAULT_ADDR, Server, ServerOptions};

/// The WCP listening options shared by `serve` and `gui --wcp`.
#[derive(clap::Args, Debug, Clone)]
pub struct WcpFlags {
    /// Accept a non-loopback `--wcp` address (anyone who reaches it can drive Handscope and
    /// make it read files).
    #[arg(long)]
    pub wcp_allow_remote: bool,
    /// Largest WCP message in bytes; longer ones are dropped with an error reply.
    #[arg(long, value_name = "BYTES", default_value_t = crate::wcp::codec::DEFAULT_MAX_MESSAGE)]
    pub wcp_max_message: usize,
}

impl WcpFlags {
    /// The server options for `addr`.
    pub fn options(&self, addr: &str) -> ServerOptions {
        ServerOptions {
            addr: addr.to_string(),
            allow_remote: self.wcp_allow_remote,
            max_message: self.wcp_max_message,
        }
    }
}

/// Arguments of `handscope serve`.
#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// C kernel or handshake MLIR file to open (a client can `load` another).
    pub file: PathBuf,
    /// A VCD or FST of a run of that circuit to replay instead of simulating.
    pub trace: Option<PathBuf>,
    /// The stimulus: `--in`, `--mem`, `--ready`.
    #[command(flatten)]
    pub stimulus: super::stimulus_flags::StimulusFlags,
    /// Function to run (default: the only or the last function with a body).
    #[arg(long)]
    pub func: Option<String>,
    /// Where to listen (`HOST:PORT`; port 0 picks a free one, printed on stdout).
    #[arg(long, value_name = "ADDR", default_value = DEFAULT_ADDR)]
    pub wcp: String,
    /// Listening options.
    #[command(flatten)]
    pub flags: WcpFlags,
    /// Write every message in and out to this file (JSON lines) when the server stops.
    #[arg(long, value_name = "FILE")]
    pub transcript: Option<PathBuf>,
}

/// Serves until a client sends `shutdown` or Ctrl-C.
pub fn run(a: &ServeArgs) -> anyhow::Result<ExitCode> {
    let (tick_tx, tick_rx) = crossbeam_channel::bounded::<()>(1);
    let wake: Wake = Arc::new(move || {
        let _ = tick_tx.try_send(());
    });
    let mut model = Model::new(
        Start::File(
            a.file.clone(),
            a.trace.clone(),
            a.stimulus.args(),
            a.func.clone(),
            Default::default(),
        ),
        wake.clone(),
    );
    if model.circuit.is_none() {
        anyhow::bail!(
            "{}",
            model.error.as_deref().unwrap_or("the circuit did not load")
        );
    }
    if let Some(e) = &model.error {
        eprintln!("warning: {e}");
    }
    let mut server = Server::start(&a.flags.options(&a.wcp), wake)?;
    outln!("WCP: listening on {}", server.local_addr)?;
    use std::io::Write as _;
    std::io::stdout().flush()?;
    let mut hub = Hub::new(server.rx.clone());
    if a.transcript.is_some() {
        hub.transcript = Some(Vec::new());
    }
    let stop = super::interrupt::stop_flag();
    loop {
        if let Some(w) = &model.watcher
            && w.take_change()
        {
            model.reload();
        }
        model.update(0.0);
        let busy = hub.poll(&mut model);
        if hub.shutdown_requested || stop.load(Ordering::Relaxed) {
            break;
        }
        let wait = if busy { 1 } else { 200 };
        let _ = tick_rx.recv_timeout(Duration::from_millis(wait));
    }
    server.stop();
    if let (Some(path), Some(log)) = (&a.transcript, &hub.transcript) {
        let mut text = String::new();
        for l in log {
            let dir = if l.incoming { "->" } else { "<-" };
            text.push_str(&format!(
                "{{\"client\":{},\"dir\":\"{dir}\",\"message\":{}}}\n",
                l.client, l.json
            ));
        }
        crate::output::write_file(path, |out| out.write_all(text.as_bytes()))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}
