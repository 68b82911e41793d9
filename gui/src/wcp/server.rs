//! The WCP server's network side: a tokio runtime in its own thread accepts clients, splits
//! their bytes into frames, parses them and hands each message to the [`super::hub::Hub`]
//! through a crossbeam channel; the hub (the window's frame loop, or `serve`'s loop) answers
//! without ever waiting on a socket. Each client has one command in flight: its next frame is
//! read once the hub has answered the previous one, so a client cannot queue work without
//! bound. Only loopback addresses are accepted unless the options allow remote clients.
//!
//! Authentication: every server has a session token ([`Server::token`], random unless the
//! options give one); a connection's first message must be a greeting that carries it, else
//! the connection gets an `unauthorized` error and is closed. Until then the hub does not
//! know the connection exists. A connection that has not greeted within
//! [`ServerOptions::greeting_timeout`], or that has sent nothing for
//! [`ServerOptions::idle_timeout`], is told so and closed, so idle connections cannot hold
//! the [`MAX_CLIENTS`] places.

use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use anyhow::{Context as _, bail};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot, watch};

use super::codec::{Frame, FrameDecoder, encode};
use super::gate::{Admission, Gate, transcript_text};
use super::proto::{ClientMessage, Command, ServerMessage, parse_client};

/// The default address: loopback, the port Surfer's WCP examples use.
pub const DEFAULT_ADDR: &str = "127.0.0.1:54321";

/// At most this many clients at once; more are told so and closed.
pub const MAX_CLIENTS: usize = 32;

/// Messages queued for one client (replies and events) before it counts as not reading and
/// is dropped.
pub const CLIENT_QUEUE: usize = 1024;

/// How the server listens.
#[derive(Clone, Debug)]
pub struct ServerOptions {
    /// `HOST:PORT` (port 0 picks a free one).
    pub addr: String,
    /// Accept a non-loopback address and remote clients.
    pub allow_remote: bool,
    /// Largest message in bytes.
    pub max_message: usize,
    /// The session token clients must send in their greeting (`None`: a random one).
    pub token: Option<String>,
    /// Directories (and files) whose files clients may `load`; empty: the working
    /// directory.
    pub load_dirs: Vec<PathBuf>,
    /// How long a new connection may take to send its greeting.
    pub greeting_timeout: Duration,
    /// How long a greeted connection may stay silent (`None`: for ever).
    pub idle_timeout: Option<Duration>,
}

/// The default of [`ServerOptions::greeting_timeout`].
pub const GREETING_TIMEOUT: Duration = Duration::from_secs(10);

/// The default of [`ServerOptions::idle_timeout`], in seconds.
pub const IDLE_TIMEOUT_S: u64 = 600;

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            addr: DEFAULT_ADDR.into(),
            allow_remote: false,
            max_message: super::codec::DEFAULT_MAX_MESSAGE,
            token: None,
            load_dirs: Vec::new(),
            greeting_timeout: GREETING_TIMEOUT,
            idle_timeout: Some(Duration::from_secs(IDLE_TIMEOUT_S)),
        }
    }
}

/// A random session token: 128 bits from the system's generator, in hex.
pub fn new_token() -> String {
    let mut bytes = [0u8; 16];
    let read = std::fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes));
    if read.is_err() {
        // No /dev/urandom (not Unix): the standard library's per-process random hash keys.
        use std::hash::{BuildHasher as _, Hasher as _};
        for (k, chunk) in bytes.chunks_mut(8).enumerate() {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_usize(k);
            h.write_u128(
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos()),
            );
            chunk.copy_from_slice(&h.finish().to_le_bytes()[..chunk.len()]);
        }
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// One client's outgoing queue: `None` closes the connection after what is queued.
pub type Outgoing = mpsc::Sender<Option<ServerMessage>>;

/// What the network side tells the hub.
#[derive(Debug)]
pub enum ToHub {
    /// A client connected; `out` carries its replies and events.
    Connected {
        /// Client number (unique per server).
        client: u64,
        /// Its outgoing queue.
        out: Outgoing,
    },
    /// A message, or the error reply for a frame that is not one. The hub queues the reply
    /// on the client's `out` and then sends `done`.
    Message {
        /// Client number.
        client: u64,
        /// The message, or the error reply for a bad frame.
        msg: Result<ClientMessage, ServerMessage>,
        /// The frame as text (lossy, at most 2,000 characters), for transcripts.
        text: String,
        /// Sent once the reply is queued (`true`: close the connection after it).
        done: oneshot::Sender<bool>,
    },
    /// A client went away.
    Disconnected {
        /// Client number.
        client: u64,
    },
}

/// A running server; dropping it stops it.
pub struct Server {
    /// Where it listens.
    pub local_addr: SocketAddr,
    /// The session token clients send in their greeting.
    pub token: String,
    /// What clients may `load` (canonical paths): see [`ServerOptions::load_dirs`].
    pub load_dirs: Vec<PathBuf>,
    /// Messages for the hub.
    pub rx: crossbeam_channel::Receiver<ToHub>,
    stop: Option<watch::Sender<bool>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// Checks `addr` against the loopback rule and binds it.
fn bind(opts: &ServerOptions) -> anyhow::Result<std::net::TcpListener> {
    let addrs: Vec<SocketAddr> = opts
        .addr
        .to_socket_addrs()
        .with_context(|| format!("WCP: `{}` is not a HOST:PORT address", opts.addr))?
        .collect();
    if addrs.is_empty() {
        bail!("WCP: `{}` resolves to no address", opts.addr);
    }
    if !opts.allow_remote
        && let Some(a) = addrs.iter().find(|a| !a.ip().is_loopback())
    {
        bail!(
            "WCP: refusing to listen on {a}, which is not a loopback address: anyone who can reach it could drive the debugger and read files; pass --wcp-allow-remote to allow it"
        );
    }
    let l = std::net::TcpListener::bind(&addrs[..])
        .with_context(|| format!("WCP: cannot listen on {}", opts.addr))?;
    l.set_nonblocking(true)?;
    Ok(l)
}

impl Server {
    /// Binds `opts.addr` and starts serving in a new thread; `wake` is called whenever a
    /// message for the hub arrives.
    pub fn start(opts: &ServerOptions, wake: crate::app::model::Wake) -> anyhow::Result<Server> {
        let listener = bind(opts)?;
        let local_addr = listener.local_addr()?;
        let mut opts = opts.clone();
        let token = opts.token.get_or_insert_with(new_token).clone();
        let load_dirs = if opts.load_dirs.is_empty() {
            vec![std::env::current_dir().context("WCP: no working directory")?]
        } else {
            opts.load_dirs.clone()
        };
        let load_dirs = load_dirs
            .iter()
            .map(|d| {
                std::fs::canonicalize(d)
                    .with_context(|| format!("WCP: cannot allow loads from {}", d.display()))
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        let (tx, rx) = crossbeam_channel::unbounded();
        let (stop_tx, stop_rx) = watch::channel(false);
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("WCP: cannot start the tokio runtime")?;
        let thread = std::thread::Builder::new()
            .name("wcp-server".into())
            .spawn(move || {
                rt.block_on(accept_loop(listener, opts, tx, wake, stop_rx));
                rt.shutdown_timeout(std::time::Duration::from_millis(200));
            })
            .context("WCP: cannot start the server thread")?;
        Ok(Server {
            local_addr,
            token,
            load_dirs,
            rx,
            stop: Some(stop_tx),
            thread: Some(thread),
        })
    }

    /// Stops accepting and closes every connection.
    pub fn stop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(true);
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

async fn accept_loop(
    listener: std::net::TcpListener,
    opts: ServerOptions,
    tx: crossbeam_channel::Sender<ToHub>,
    wake: crate::app::model::Wake,
    mut stop: watch::Receiver<bool>,
) {
    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
        return;
    };
    let live = Arc::new(AtomicUsize::new(0));
    let mut next = 0u64;
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            _ = stop.changed() => {
                // Let connections that are closing (the one that sent `shutdown`) flush
                // their last replies; the others are cut when the runtime stops.
                let deadline = tokio::time::Instant::now() + std::time::Duration::from_millis(300);
                while live.load(Ordering::SeqCst) > 0 && tokio::time::Instant::now() < deadline {
                    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                }
                return;
            }
        };
        let Ok((stream, peer)) = accepted else {
            continue;
        };
        if !opts.allow_remote && !peer.ip().is_loopback() {
            continue; // dropped: closes the socket
        }
        let _ = stream.set_nodelay(true);
        if live.load(Ordering::SeqCst) >= MAX_CLIENTS {
            tokio::spawn(refuse(stream));
            continue;
        }
        next += 1;
        live.fetch_add(1, Ordering::SeqCst);
        let (tx, wake, live, opts) = (tx.clone(), wake.clone(), live.clone(), opts.clone());
        tokio::spawn(async move {
            connection(stream, next, &opts, tx, wake).await;
            live.fetch_sub(1, Ordering::SeqCst);
        });
    }
}

async fn refuse(mut stream: tokio::net::TcpStream) {
    let m = ServerMessage::error(
        "too_many_clients",
        vec![],
        format!("the server already has {MAX_CLIENTS} clients"),
    );
    let _ = stream.write_all(&encode(&m)).await;
    let _ = stream.shutdown().await;
}

/// Why a connection is closed without the hub.
fn closing_error(kind: &str, message: String) -> ServerMessage {
    ServerMessage::error(kind, vec!["greeting".into()], message)
}

async fn connection(
    stream: tokio::net::TcpStream,
    client: u64,
    opts: &ServerOptions,
    tx: crossbeam_channel::Sender<ToHub>,
    wake: crate::app::model::Wake,
) {
    let max = opts.max_message;
    let token = opts.token.clone().unwrap_or_default();
    let (mut rd, mut wr) = stream.into_split();
    let (out, mut out_rx) = mpsc::channel::<Option<ServerMessage>>(CLIENT_QUEUE);
    let writer = tokio::spawn(async move {
        while let Some(Some(m)) = out_rx.recv().await {
            if wr.write_all(&encode(&m)).await.is_err() {
                return;
            }
        }
        let _ = wr.shutdown().await;
    });
    // The hub hears of the connection once it has greeted with the token.
    let mut gate = Gate::new(token);
    let mut dec = FrameDecoder::new(max);
    let mut buf = vec![0u8; 16 * 1024];
    let start = tokio::time::Instant::now();
    'read: loop {
        let greeted = gate.greeted();
        let limit = if greeted {
            opts.idle_timeout.map(|t| tokio::time::Instant::now() + t)
        } else {
            Some(start + opts.greeting_timeout)
        };
        let read = match limit {
            Some(at) => tokio::time::timeout_at(at, rd.read(&mut buf)).await,
            None => Ok(rd.read(&mut buf).await),
        };
        let n = match read {
            Ok(Ok(0) | Err(_)) => break,
            Ok(Ok(n)) => n,
            Err(_) => {
                let m = if greeted {
                    closing_error(
                        "idle_timeout",
                        format!(
                            "no message for {} s; the connection is closed",
                            opts.idle_timeout.unwrap_or_default().as_secs()
                        ),
                    )
                } else {
                    closing_error(
                        "greeting_timeout",
                        format!(
                            "no greeting within {} ms; the connection is closed",
                            opts.greeting_timeout.as_millis()
                        ),
                    )
                };
                let _ = out.send(Some(m)).await;
                break;
            }
        };
        for frame in dec.push(&buf[..n]) {
            let text: String = match &frame {
                Frame::Message(bytes) => {
                    String::from_utf8_lossy(bytes).chars().take(2000).collect()
                }
                Frame::TooLarge { len } => format!("({len} bytes, too large)"),
            };
            let msg = match frame {
                Frame::Message(bytes) => parse_client(&bytes).map_err(|e| e.reply()),
                Frame::TooLarge { len } => Err(ServerMessage::error(
                    "message_too_large",
                    vec![len.to_string()],
                    format!(
                        "a message of more than {len} bytes exceeds the limit of {max} bytes; it was dropped"
                    ),
                )),
            };
            let was_greeted = gate.greeted();
            if let Admission::Close(m) = gate.admit(&msg) {
                let _ = out.send(Some(m)).await;
                break 'read;
            }
            if !was_greeted
                && tx
                    .send(ToHub::Connected {
                        client,
                        out: out.clone(),
                    })
                    .is_err()
            {
                break 'read;
            }
            // Transcripts never hold the token.
            let text = transcript_text(text, &msg);
            let shutdown = matches!(msg, Ok(ClientMessage::Command(Command::Shutdown)));
            let (done, done_rx) = oneshot::channel();
            if tx
                .send(ToHub::Message {
                    client,
                    msg,
                    text,
                    done,
                })
                .is_err()
            {
                break 'read;
            }
            wake();
            match done_rx.await {
                Ok(close) if !(close || shutdown) => {}
                _ => break 'read,
            }
        }
    }
    if gate.greeted() {
        let _ = tx.send(ToHub::Disconnected { client });
        wake();
    }
    let _ = out.send(None).await;
    drop(out);
    let _ = writer.await;
}
