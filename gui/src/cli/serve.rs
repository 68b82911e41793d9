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
use crate::wcp::hub::{Hub, LogLine};
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
    /// Also write the session token clients must greet with to FILE (created readable by
    /// you alone, mode 0600); it is always printed on standard output.
    #[arg(long, value_name = "FILE")]
    pub wcp_token_file: Option<PathBuf>,
    /// A directory whose files WCP clients may `load` (repeatable; default: the working
    /// directory).
    #[arg(long, value_name = "DIR")]
    pub wcp_allow_load: Vec<PathBuf>,
    /// Close a WCP connection that has sent nothing for this many seconds (0: never).
    #[arg(long, value_name = "SECONDS", default_value_t = crate::wcp::server::IDLE_TIMEOUT_S)]
    pub wcp_idle_timeout: u64,
}

impl WcpFlags {
    /// The server options for `addr`.
    pub fn options(&self, addr: &str) -> ServerOptions {
        ServerOptions {
            addr: addr.to_string(),
            allow_remote: self.wcp_allow_remote,
            max_message: self.wcp_max_message,
            load_dirs: self.wcp_allow_load.clone(),
            idle_timeout: (self.wcp_idle_timeout > 0)
                .then(|| Duration::from_secs(self.wcp_idle_timeout)),
            ..ServerOptions::default()
        }
    }

    /// Writes `token` to `--wcp-token-file`, if given.
    pub fn write_token(&self, token: &str) -> anyhow::Result<()> {
        if let Some(p) = &self.wcp_token_file {
            write_private(p, &format!("{token}\n"))
                .with_context(|| format!("cannot write the WCP token to {}", p.display()))?;
        }
        Ok(())
    }

    /// Says where `server` listens and its token on standard output, and writes the token
    /// to `--wcp-token-file`.
    pub fn announce(&self, server: &Server) -> anyhow::Result<()> {
        self.write_token(&server.token)?;
        outln!("WCP: listening on {}", server.local_addr)?;
        outln!("WCP: token {}", server.token)?;
        use std::io::Write as _;
        std::io::stdout().flush()?;
        Ok(())
    }
}

/// Writes `text` to `path`, a file only the user can read or write (created with mode 0600,
/// an existing one restricted to it before it is written).
fn write_private(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create(true).truncate(false);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    let mut f = o.open(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        if f.metadata()?.is_file() {
            f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
            f.set_len(0)?;
        }
    }
    f.write_all(text.as_bytes())?;
    f.flush()
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
    /// Write every message in and out to this file (JSON lines), each as it passes.
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
    let transcript = match &a.transcript {
        Some(p) => Some(Transcript::create(p)?),
        None => None,
    };
    let mut server = Server::start(&a.flags.options(&a.wcp), wake)?;
    a.flags.announce(&server)?;
    let mut hub = Hub::new(&server);
    hub.allow_load_of(&a.file, &server.load_dirs);
    if let Some(t) = &transcript {
        let t = t.clone();
        hub.transcript = Some(Box::new(move |l: &LogLine| t.write(l)));
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
    drop(hub);
    if let (Some(path), Some(t)) = (&a.transcript, transcript) {
        t.finish()
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `--transcript`: each message written to the file as it passes (buffered), so memory does
/// not grow with the session; the first write error is kept and reported at the end.
#[derive(Clone)]
struct Transcript(std::rc::Rc<std::cell::RefCell<TranscriptFile>>);

/// The transcript's file and its first write error.
type TranscriptFile = (std::io::BufWriter<std::fs::File>, Option<std::io::Error>);

impl Transcript {
    fn create(path: &std::path::Path) -> anyhow::Result<Transcript> {
        let f = std::fs::File::create(path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        Ok(Transcript(std::rc::Rc::new(std::cell::RefCell::new((
            std::io::BufWriter::new(f),
            None,
        )))))
    }

    fn write(&self, l: &LogLine) {
        use std::io::Write as _;
        let mut t = self.0.borrow_mut();
        if t.1.is_some() {
            return;
        }
        let dir = if l.incoming { "->" } else { "<-" };
        if let Err(e) = writeln!(
            t.0,
            "{{\"client\":{},\"dir\":\"{dir}\",\"message\":{}}}",
            l.client, l.json
        ) {
            t.1 = Some(e);
        }
    }

    fn finish(self) -> std::io::Result<()> {
        use std::io::Write as _;
        let mut t = self.0.borrow_mut();
        if let Some(e) = t.1.take() {
            return Err(e);
        }
        t.0.flush()
    }
}
