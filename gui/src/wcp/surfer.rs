//! The client side: Handscope opens a run's waveforms in a running Surfer. It connects to a
//! Surfer serving WCP, or waits for a Surfer started with `--wcp-initiate PORT` to connect,
//! then greets, `load`s the VCD and `add_variables` the `valid`, `ready` and data signals of
//! the chosen channels. Blocking sockets with timeouts: it runs in the CLI (`handscope
//! surfer`) or in a thread of its own.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use serde_json::{Value, json};

use super::codec::{DEFAULT_MAX_MESSAGE, Frame, FrameDecoder};

/// How to reach Surfer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Link {
    /// Connect to a Surfer serving WCP at this address.
    Connect(String),
    /// Listen here for a Surfer started with `--wcp-initiate PORT` to connect.
    Listen(String),
}

/// One message of the exchange: `true` for what Handscope sent.
pub type Exchange = Vec<(bool, String)>;

/// A WCP connection to Surfer.
struct Conn {
    s: TcpStream,
    dec: FrameDecoder,
    queue: std::collections::VecDeque<Vec<u8>>,
    log: Exchange,
}

impl Conn {
    fn send(&mut self, v: &Value) -> anyhow::Result<()> {
        let text = v.to_string();
        self.log.push((true, text.clone()));
        let mut b = text.into_bytes();
        b.push(0);
        self.s.write_all(&b).context("WCP: cannot write to Surfer")
    }

    /// The next message, waiting at most until `deadline`; `None` on timeout.
    fn recv(&mut self, deadline: Instant) -> anyhow::Result<Option<Value>> {
        loop {
            if let Some(f) = self.queue.pop_front() {
                let v: Value = serde_json::from_slice(&f).with_context(|| {
                    format!(
                        "WCP: Surfer sent a message that is not JSON: {}",
                        String::from_utf8_lossy(&f)
                    )
                })?;
                self.log.push((false, v.to_string()));
                return Ok(Some(v));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(None);
            }
            self.s.set_read_timeout(Some(left))?;
            let mut buf = [0u8; 16 * 1024];
            let n = match self.s.read(&mut buf) {
                Ok(0) => bail!("WCP: Surfer closed the connection"),
                Ok(n) => n,
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    return Ok(None);
                }
                Err(e) => return Err(e).context("WCP: cannot read from Surfer"),
            };
            for f in self.dec.push(&buf[..n]) {
                match f {
                    Frame::Message(m) => self.queue.push_back(m),
                    Frame::TooLarge { len } => {
                        bail!("WCP: Surfer sent a message of more than {len} bytes")
                    }
                }
            }
        }
    }

    /// The next message that is not an event; events are returned too.
    fn reply(&mut self, what: &str, timeout: Duration) -> anyhow::Result<(Value, Vec<Value>)> {
        let deadline = Instant::now() + timeout;
        let mut events = Vec::new();
        loop {
            let Some(m) = self.recv(deadline)? else {
                bail!("WCP: Surfer did not answer {what} within {timeout:?}");
            };
            if m["type"] == "event" {
                events.push(m);
                continue;
            }
            if m["type"] == "error" {
                bail!(
                    "WCP: Surfer refused {what}: {} {}",
                    m["error"].as_str().unwrap_or(""),
                    m["message"].as_str().unwrap_or("")
                );
            }
            return Ok((m, events));
        }
    }
}

/// The addresses `addr` names for `--listen`, all of them loopback: checked before anything
/// binds (as `serve` checks `--wcp`), so a refused address is never opened, not even for a
/// moment.
pub fn listen_addrs(addr: &str) -> anyhow::Result<Vec<std::net::SocketAddr>> {
    let addrs: Vec<_> = std::net::ToSocketAddrs::to_socket_addrs(addr)
        .with_context(|| format!("WCP: `{addr}` is not a HOST:PORT address"))?
        .collect();
    if addrs.is_empty() {
        bail!("WCP: `{addr}` resolves to no address");
    }
    if let Some(a) = addrs.iter().find(|a| !a.ip().is_loopback()) {
        bail!(
            "WCP: refusing to listen for Surfer on {a}, which is not a loopback address: anyone who can reach it could connect instead of Surfer"
        );
    }
    Ok(addrs)
}

/// Opens the link: connects, or listens and accepts one connection (`on_listen` hears the
/// address first, so a user or test knows where to point Surfer).
fn open(
    link: &Link,
    timeout: Duration,
    on_listen: &mut dyn FnMut(&str),
) -> anyhow::Result<TcpStream> {
    match link {
        Link::Connect(addr) => {
            let addrs: Vec<_> = std::net::ToSocketAddrs::to_socket_addrs(addr.as_str())
                .with_context(|| format!("WCP: `{addr}` is not a HOST:PORT address"))?
                .collect();
            let mut last = None;
            for a in addrs {
                match TcpStream::connect_timeout(&a, timeout) {
                    Ok(s) => return Ok(s),
                    Err(e) => last = Some(e),
                }
            }
            Err(anyhow::anyhow!(
                "WCP: cannot connect to Surfer at {addr}: {}",
                last.map_or("no address".into(), |e| e.to_string())
            ))
        }
        Link::Listen(addr) => {
            let addrs = listen_addrs(addr)?;
            let l = TcpListener::bind(&addrs[..])
                .with_context(|| format!("WCP: cannot listen on {addr}"))?;
            let local = l.local_addr()?;
            on_listen(&local.to_string());
            l.set_nonblocking(true)?;
            let deadline = Instant::now() + timeout;
            loop {
                match l.accept() {
                    Ok((s, peer)) if peer.ip().is_loopback() => {
                        s.set_nonblocking(false)?;
                        return Ok(s);
                    }
                    Ok(_) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        if Instant::now() > deadline {
                            bail!("WCP: no Surfer connected to {local} within {timeout:?}");
                        }
                        std::thread::sleep(Duration::from_millis(20));
                    }
                    Err(e) => return Err(e).context("WCP: accept failed"),
                }
            }
        }
    }
}

/// Shows `variables` (full hierarchical signal names) of the waveform `vcd` in Surfer.
/// Returns the messages exchanged.
pub fn show_in_surfer(
    link: &Link,
    vcd: &Path,
    variables: &[String],
    timeout: Duration,
    on_listen: &mut dyn FnMut(&str),
) -> anyhow::Result<Exchange> {
    let s = open(link, timeout, on_listen)?;
    let _ = s.set_nodelay(true);
    let mut c = Conn {
        s,
        dec: FrameDecoder::new(DEFAULT_MAX_MESSAGE),
        queue: Default::default(),
        log: Vec::new(),
    };
    c.send(&json!({"type": "greeting", "version": "0", "commands": ["waveforms_loaded"]}))?;
    let (g, _) = c.reply("the greeting", timeout)?;
    if g["type"] != "greeting" {
        bail!("WCP: expected Surfer's greeting, got {g}");
    }
    let theirs: Vec<&str> = g["commands"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for need in ["load", "add_variables"] {
        if !theirs.contains(&need) {
            bail!("WCP: the viewer does not implement `{need}` (it offers {theirs:?})");
        }
    }
    let source =
        std::fs::canonicalize(vcd).with_context(|| format!("cannot read {}", vcd.display()))?;
    c.send(&json!({"type": "command", "command": "load", "source": source.display().to_string()}))?;
    let (_, mut events) = c.reply("`load`", timeout)?;
    // Surfer loads in the background and says when it is done; variables added earlier
    // would find no waveform.
    let deadline = Instant::now() + timeout;
    while !events.iter().any(|e| e["event"] == "waveforms_loaded") {
        match c.recv(deadline)? {
            Some(m) if m["type"] == "event" => events.push(m),
            Some(m) => bail!("WCP: unexpected message from Surfer while loading: {m}"),
            None => break, // an older Surfer may not send the event; try anyway
        }
    }
    c.send(&json!({"type": "command", "command": "add_variables", "variables": variables}))?;
    c.reply("`add_variables`", timeout)?;
    Ok(c.log)
}
