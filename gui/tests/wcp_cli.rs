//! `handscope serve` over the Waveform Control Protocol, end to end: a tokio client drives a
//! whole debugging session over the socket; two clients at once share one debugger;
//! truncated, garbage and oversized messages get error replies and never end the server; the
//! standard-library Python example runs against it; `handscope surfer` talks to a fake Surfer.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_handscope"));
    c.current_dir(ROOT);
    c
}

fn example(name: &str) -> String {
    format!("{ROOT}/examples/circuits/{name}")
}

/// A `handscope serve` process on a free loopback port; killed when dropped.
struct Serve {
    child: Child,
    addr: String,
    /// The session token it printed.
    token: String,
}

impl Serve {
    fn start(args: &[&str]) -> Serve {
        let mut child = bin()
            .arg("serve")
            .args(args)
            .args(["--wcp", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start handscope serve");
        let mut out = BufReader::new(child.stdout.take().expect("stdout"));
        let mut line = |prefix: &str| {
            let mut line = String::new();
            out.read_line(&mut line).expect("read stdout");
            line.trim()
                .strip_prefix(prefix)
                .unwrap_or_else(|| panic!("expected {prefix:?}, got {line:?}"))
                .to_string()
        };
        let addr = line("WCP: listening on ");
        let token = line("WCP: token ");
        Serve { child, addr, token }
    }

    /// Waits (bounded) for the process to end; its exit status.
    fn wait(&mut self) -> std::process::ExitStatus {
        for _ in 0..200 {
            if let Some(s) = self.child.try_wait().expect("wait") {
                return s;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("handscope serve did not exit");
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A test client: sends JSON + NUL, reads NUL-terminated JSON, sets events aside.
struct Client {
    s: TcpStream,
    buf: Vec<u8>,
    events: Vec<Value>,
    /// The server's session token, sent in the greeting.
    token: String,
}

impl Client {
    async fn connect(serve: &Serve) -> Client {
        Client {
            s: TcpStream::connect(&serve.addr).await.expect("connect"),
            buf: Vec::new(),
            events: Vec::new(),
            token: serve.token.clone(),
        }
    }

    async fn raw(&mut self, bytes: &[u8]) {
        self.s.write_all(bytes).await.expect("send");
    }

    async fn send(&mut self, v: &Value) {
        let mut b = serde_json::to_vec(v).expect("json");
        b.push(0);
        self.raw(&b).await;
    }

    /// The next message, or `None` when the server closed the connection.
    async fn recv(&mut self) -> Option<Value> {
        loop {
            if let Some(i) = self.buf.iter().position(|&b| b == 0) {
                let frame: Vec<u8> = self.buf.drain(..=i).collect();
                return Some(
                    serde_json::from_slice(&frame[..i])
                        .unwrap_or_else(|e| panic!("server sent bad JSON ({e}): {frame:?}")),
                );
            }
            let mut chunk = [0u8; 8192];
            let n = tokio::time::timeout(Duration::from_secs(60), self.s.read(&mut chunk))
                .await
                .expect("the server answers within 60 s")
                .unwrap_or(0);
            if n == 0 {
                return None;
            }
            self.buf.extend_from_slice(&chunk[..n]);
        }
    }

    /// The next message that is not an event.
    async fn reply(&mut self) -> Value {
        loop {
            let m = self
                .recv()
                .await
                .expect("a reply before the connection closed");
            if m["type"] == "event" {
                self.events.push(m);
            } else {
                return m;
            }
        }
    }

    async fn call(&mut self, v: Value) -> Value {
        self.send(&v).await;
        self.reply().await
    }

    async fn cmd(&mut self, name: &str, fields: Value) -> Value {
        let mut v = fields;
        if v.is_null() {
            v = json!({});
        }
        v["type"] = json!("command");
        v["command"] = json!(name);
        self.call(v).await
    }

    async fn greet(&mut self, events: &[&str]) -> Value {
        let token = self.token.clone();
        self.call(json!({"type": "greeting", "version": "0", "commands": events, "token": token}))
            .await
    }
}

fn assert_response(r: &Value, name: &str) {
    assert_eq!(r["type"], "response", "{r}");
    assert_eq!(r["command"], name, "{r}");
}

fn assert_error(r: &Value, kind: &str) {
    assert_eq!(r["type"], "error", "{r}");
    assert_eq!(r["error"], kind, "{r}");
    assert!(r["message"].as_str().is_some_and(|m| !m.is_empty()), "{r}");
}

/// The whole debugging session: greeting, items, breakpoints, run, values, reports, load of
/// another circuit, its deadlock report, shutdown.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_drives_a_debugging_session() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("wcp_session");
    std::fs::create_dir_all(&dir).unwrap();
    let transcript = dir.join("transcript.jsonl");
    let _ = std::fs::remove_file(&transcript);
    let mut serve = Serve::start(&[
        &example("counter_loop.mlir"),
        "--wcp-allow-load",
        &format!("{ROOT}/examples"),
        "--wcp-allow-load",
        dir.to_str().unwrap(),
        "--transcript",
        transcript.to_str().unwrap(),
    ]);
    let mut c = Client::connect(&serve).await;

    // Commands before the greeting are refused, and the connection closed.
    let mut early = Client::connect(&serve).await;
    assert_error(
        &early.cmd("get_item_list", Value::Null).await,
        "unauthorized",
    );
    assert!(early.recv().await.is_none());
    let g = c
        .greet(&["cursor_moved", "run_finished", "waveforms_loaded"])
        .await;
    assert_eq!(g["type"], "greeting");
    assert_eq!(g["version"], "0");
    let cmds: Vec<&str> = g["commands"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for needed in [
        "load",
        "add_variables",
        "set_cursor",
        "handscope.run_to",
        "shutdown",
    ] {
        assert!(cmds.contains(&needed), "{needed} missing from {cmds:?}");
    }

    // Items: channels and nodes by stable ID.
    let r = c
        .cmd(
            "add_variables",
            json!({"variables": ["addi0.out0", "mux0"]}),
        )
        .await;
    assert_response(&r, "add_variables");
    assert_eq!(r["ids"], json!(["addi0.out0", "mux0"]));
    let r = c
        .cmd(
            "add_items",
            json!({"items": ["cond_br0"], "recursive": true}),
        )
        .await;
    assert_response(&r, "add_items");
    assert!(r["ids"].as_array().unwrap().len() >= 3, "{r}");
    let r = c.cmd("get_item_list", Value::Null).await;
    assert_response(&r, "get_item_list");
    assert!(r["ids"].as_array().unwrap().contains(&json!("mux0")));
    let r = c
        .cmd("get_item_info", json!({"ids": ["addi0.out0", "mux0"]}))
        .await;
    assert_eq!(r["results"][0]["type"], "Channel", "{r}");
    assert_eq!(r["results"][0]["data_type"], "i32", "{r}");
    assert_eq!(r["results"][1]["type"], "Node", "{r}");
    assert_eq!(r["results"][1]["op"], "mux", "{r}");
    assert_error(
        &c.cmd("get_item_info", json!({"ids": ["nope"]})).await,
        "unknown_item",
    );
    assert_error(
        &c.cmd("add_variables", json!({"variables": ["mux0", "nope.out0"]}))
            .await,
        "unknown_item",
    );

    // Breakpoint: the adder produces 3 (i = 2 -> 3).
    let r = c
        .cmd(
            "handscope.set_breakpoint",
            json!({"breakpoint": {"kind": "value", "channel": "addi0.out0", "op": "==", "value": 3}}),
        )
        .await;
    assert_response(&r, "handscope.set_breakpoint");
    let bp = r["id"].as_str().unwrap().to_string();
    assert_eq!(bp, "addi0.out0 == 3");
    assert_error(
        &c.cmd(
            "handscope.set_breakpoint",
            json!({"breakpoint": {"kind": "channel_fires", "channel": "nope"}}),
        )
        .await,
        "unknown_item",
    );
    let r = c.cmd("handscope.run_to", Value::Null).await;
    assert_response(&r, "handscope.run_to");
    assert_eq!(r["hit"], true, "{r}");
    let hit = r["cycle"].as_u64().unwrap();
    assert!(hit > 0);
    let r = c
        .cmd(
            "handscope.get_values",
            json!({"ids": ["addi0.out0", "mux0", "n"]}),
        )
        .await;
    assert_response(&r, "handscope.get_values");
    assert_eq!(r["cycle"], hit);
    let v = &r["values"][0];
    assert_eq!(v["valid"], true, "{r}");
    assert_eq!(v["ready"], true, "{r}");
    assert_eq!(v["state"], "transfer", "{r}");
    assert_eq!(v["data"], 3, "{r}");
    assert_eq!(r["values"][1]["kind"], "node", "{r}");
    assert!(r["values"][1]["fires"].is_boolean(), "{r}");

    // Stepping and the cursor.
    let r = c.cmd("handscope.step", json!({"cycles": 2})).await;
    assert_eq!(r["cycle"], hit + 2, "{r}");
    let r = c.cmd("handscope.step", json!({"cycles": -1})).await;
    assert_eq!(r["cycle"], hit + 1, "{r}");
    let r = c.cmd("set_cursor", json!({"timestamp": 4})).await;
    assert_response(&r, "set_cursor");
    assert_eq!(r["cycle"], 4);
    let r = c
        .cmd(
            "add_markers",
            json!({"markers": [{"time": 7, "name": "seven"}]}),
        )
        .await;
    assert_eq!(r["ids"], json!(["marker:0"]), "{r}");
    let r = c.cmd("get_item_info", json!({"ids": ["marker:0"]})).await;
    assert_eq!(r["results"][0]["name"], "seven", "{r}");
    assert_eq!(r["results"][0]["cycle"], 7, "{r}");
    for (name, fields) in [
        ("set_viewport_range", json!({"start": 0, "end": 20})),
        ("set_viewport_to", json!({"timestamp": 10})),
        ("zoom_to_fit", json!({"viewport_idx": 0})),
        ("focus_item", json!({"id": "mux0"})),
    ] {
        assert_response(&c.cmd(name, fields).await, "ack");
    }
    assert_error(
        &c.cmd("set_viewport_range", json!({"start": 5, "end": 1}))
            .await,
        "invalid_arguments",
    );

    // The run report equals `handscope sim --json` for the same run.
    let r = c.cmd("handscope.run_report", Value::Null).await;
    assert_response(&r, "handscope.run_report");
    let sim = bin()
        .args(["sim", &example("counter_loop.mlir"), "--json"])
        .args(["--in", "n=5", "--in", "start=1"])
        .output()
        .expect("sim");
    let want: Value = serde_json::from_slice(&sim.stdout).expect("sim json");
    assert_eq!(r["report"], want);
    assert_eq!(r["report"]["outputs"]["count"][0]["value"], 5, "{r}");
    let r = c.cmd("handscope.deadlock_report", Value::Null).await;
    assert_eq!(r["deadlocked"], false, "{r}");
    // Clearing the breakpoint: running to it again fails.
    assert_response(
        &c.cmd("handscope.clear_breakpoints", json!({"ids": [bp]}))
            .await,
        "ack",
    );
    assert_error(
        &c.cmd("handscope.run_to", Value::Null).await,
        "no_breakpoints",
    );
    assert_error(
        &c.cmd("handscope.clear_breakpoints", json!({"ids": ["x fires"]}))
            .await,
        "unknown_breakpoint",
    );

    // Another circuit: it deadlocks, and the report says where.
    let r = c
        .cmd("load", json!({"source": example("deadlock_join.mlir")}))
        .await;
    assert_response(&r, "ack");
    // The report waits for the end of the run (the view then opens at the first stuck
    // cycle, as the window does); from cycle 0 the deadlock breakpoint stops there.
    let r = c.cmd("handscope.deadlock_report", Value::Null).await;
    assert_eq!(r["deadlocked"], true, "{r}");
    let since = r["report"]["since_cycle"].as_u64().expect("since_cycle");
    let chains = r["report"]["chains"].to_string() + &r["report"]["cycles"].to_string();
    assert!(chains.contains("join0"), "{r}");
    let r = c.cmd("handscope.get_cursor", Value::Null).await;
    assert_eq!(r["cycle"], since, "{r}");
    assert_response(
        &c.cmd("set_cursor", json!({"timestamp": 0})).await,
        "set_cursor",
    );
    let r = c
        .cmd(
            "handscope.set_breakpoint",
            json!({"breakpoint": {"kind": "deadlock"}}),
        )
        .await;
    assert_eq!(r["id"], "deadlock");
    let r = c.cmd("handscope.run_to", Value::Null).await;
    assert_eq!(r["hit"], true, "{r}");
    assert_eq!(r["cycle"], since, "{r}");
    assert_error(
        &c.cmd("load", json!({"source": "/nonexistent/x.mlir"}))
            .await,
        "forbidden",
    );
    assert_error(
        &c.cmd("load", json!({"source": dir.join("nonexistent.mlir")}))
            .await,
        "load_failed",
    );

    // A file that does not parse, a waveform of something else: errors, nothing changes.
    let bad = dir.join("bad.mlir");
    std::fs::write(
        &bad,
        "handshake.func @f(%a: i32) -> (i32) {\n  return %nope : i32\n}\n",
    )
    .unwrap();
    let r = c.cmd("load", json!({"source": bad})).await;
    assert_error(&r, "load_failed");
    assert!(r["message"].as_str().unwrap().contains("bad.mlir"), "{r}");
    let junk = dir.join("junk.vcd");
    std::fs::write(&junk, "this is not a VCD\n").unwrap();
    let r = c.cmd("load", json!({"source": junk})).await;
    assert_error(&r, "load_failed");
    // Issue 36: 8,000 nested `module {` overflowed the stack and ended the server.
    let deep = dir.join("deep.mlir");
    std::fs::write(&deep, "module {\n".repeat(8000)).unwrap();
    let r = c.cmd("load", json!({"source": deep})).await;
    assert_error(&r, "load_failed");
    let message = r["message"].as_str().unwrap();
    assert!(
        message.contains("deep.mlir:129:8") && message.contains("nesting is too deep"),
        "{r}"
    );
    let r = c.cmd("handscope.list_items", Value::Null).await;
    let nodes = r["nodes"].to_string();
    assert!(
        nodes.contains("join0"),
        "still the deadlock_join circuit: {r}"
    );

    // Events: the cursor moved, the runs finished, the second circuit loaded.
    let kinds: Vec<&str> = c
        .events
        .iter()
        .filter_map(|e| e["event"].as_str())
        .collect();
    for k in ["cursor_moved", "run_finished", "waveforms_loaded"] {
        assert!(kinds.contains(&k), "no {k} event in {kinds:?}");
    }

    assert_response(&c.cmd("shutdown", Value::Null).await, "ack");
    assert!(
        c.recv().await.is_none(),
        "the connection closes after shutdown"
    );
    assert!(serve.wait().success());
    // The transcript, written as messages passed, never holds the token.
    let log = std::fs::read_to_string(&transcript).expect("transcript");
    assert!(log.lines().count() > 40, "{log}");
    assert!(log.contains(r#""token":"(hidden)""#), "{log}");
    assert!(
        !log.contains(&serve.token),
        "the token leaked into the transcript"
    );
    for l in log.lines() {
        serde_json::from_str::<Value>(l).unwrap_or_else(|e| panic!("{e}: {l}"));
    }
}

/// Two clients at once share the debugger: one's cursor is the other's; both get answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_clients_share_one_debugger() {
    let serve = Serve::start(&[&example("counter_loop.mlir")]);
    let mut a = Client::connect(&serve).await;
    let mut b = Client::connect(&serve).await;
    a.greet(&[]).await;
    b.greet(&["cursor_moved"]).await;
    // Interleaved commands from both.
    let (ra, rb) = tokio::join!(
        a.cmd("set_cursor", json!({"timestamp": 6})),
        b.cmd("get_item_list", Value::Null)
    );
    assert_response(&ra, "set_cursor");
    assert_response(&rb, "get_item_list");
    let r = b.cmd("handscope.get_cursor", Value::Null).await;
    assert_eq!(r["cycle"], 6, "{r}");
    // b asked for cursor events; a did not.
    let r = a.cmd("handscope.step", Value::Null).await;
    assert_eq!(r["cycle"], 7);
    let r = b.cmd("handscope.get_cursor", Value::Null).await;
    assert_eq!(r["cycle"], 7);
    assert!(
        b.events
            .iter()
            .any(|e| e["event"] == "cursor_moved" && e["cycle"] == 7),
        "{:?}",
        b.events
    );
    assert!(a.events.is_empty(), "{:?}", a.events);
    // One client leaving does not disturb the other.
    drop(a);
    let r = b.cmd("handscope.step", Value::Null).await;
    assert_eq!(r["cycle"], 8);
}

/// Garbage, truncated, oversized and wrong messages: error replies, the connection and the
/// server go on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_messages_get_error_replies() {
    let serve = Serve::start(&[&example("counter_loop.mlir"), "--wcp-max-message", "4096"]);
    let mut c = Client::connect(&serve).await;
    c.greet(&[]).await;
    c.raw(b"this is not json\0").await;
    assert_error(&c.reply().await, "malformed_message");
    c.raw(&[0xff, 0xfe, 0x80, 0]).await;
    assert_error(&c.reply().await, "malformed_message");
    c.raw(b"[1,2,3]\0").await;
    assert_error(&c.reply().await, "malformed_message");
    c.raw(b"{\"type\":\"greeting\"\0").await; // truncated JSON
    assert_error(&c.reply().await, "malformed_message");
    assert_error(
        &c.call(json!({"type": "greeting", "version": "7"})).await,
        "unsupported_version",
    );
    assert_error(
        &c.cmd("fly_to_the_moon", Value::Null).await,
        "unknown_command",
    );
    assert_error(
        &c.cmd("set_cursor", json!({"timestamp": "soon"})).await,
        "invalid_arguments",
    );
    assert_error(
        &c.cmd("set_cursor", json!({"timestamp": 1, "extra": true}))
            .await,
        "invalid_arguments",
    );
    assert_error(
        &c.cmd("focus_item", json!({"id": "nope"})).await,
        "unknown_item",
    );
    // Oversized: dropped with an error, in one write and in pieces; then business as usual.
    let mut big = vec![b'x'; 10_000];
    big.push(0);
    c.raw(&big).await;
    assert_error(&c.reply().await, "message_too_large");
    for chunk in vec![b' '; 9000].chunks(1000) {
        c.raw(chunk).await;
    }
    c.raw(b"\0").await;
    assert_error(&c.reply().await, "message_too_large");
    let r = c.cmd("handscope.get_cursor", Value::Null).await;
    assert_response(&r, "handscope.get_cursor");
    // Two messages in one write, and one split across writes.
    c.raw(b"{\"type\":\"command\",\"command\":\"handscope.get_cursor\"}\0{\"type\":\"command\",")
        .await;
    assert_response(&c.reply().await, "handscope.get_cursor");
    c.raw(b"\"command\":\"get_item_list\"}\0").await;
    assert_response(&c.reply().await, "get_item_list");
    // A client that disconnects mid-message does not hurt the server.
    let mut d = Client::connect(&serve).await;
    d.raw(b"{\"type\":\"gree").await;
    drop(d);
    let mut e = Client::connect(&serve).await;
    assert_eq!(e.greet(&[]).await["type"], "greeting");
}

/// Issue 36, item 8: only clients that know the session token are served. Before: any
/// local user's client drove the debugger (and made it read files); after: a connection
/// without the token, with a wrong one, or whose first message is not a greeting gets
/// `unauthorized` and is closed, and the hub never hears of it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_without_the_token_are_refused() {
    let serve = Serve::start(&[&example("counter_loop.mlir")]);
    assert_eq!(serve.token.len(), 32, "{}", serve.token);
    for first in [
        json!({"type": "greeting", "version": "0"}),
        json!({"type": "greeting", "version": "0", "token": "0123"}),
        json!({"type": "greeting", "version": "0", "token": serve.token.to_uppercase() + "0"}),
        json!({"type": "greeting", "version": "0", "token": 7}),
        json!({"type": "command", "command": "load", "source": "/etc/shadow"}),
    ] {
        let mut c = Client::connect(&serve).await;
        assert_error(&c.call(first.clone()).await, "unauthorized");
        assert!(c.recv().await.is_none(), "{first}: still open");
    }
    let mut c = Client::connect(&serve).await;
    assert_eq!(c.greet(&[]).await["type"], "greeting");
}

/// Issue 36, item 8: `load` reads only under the allowed directories (the working directory
/// by default), symbolic links resolved first. Before: a client could load any file the
/// server's user can read, and a symlink to a root-only file came back in an error reply;
/// after: `forbidden`, before anything is read.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn load_reads_only_allowed_directories() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("wcp_allowed");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let secret = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("wcp_secret.mlir");
    std::fs::write(&secret, "secret words\n").unwrap();
    let link = dir.join("link.mlir");
    std::os::unix::fs::symlink(&secret, &link).unwrap();
    let serve = Serve::start(&[
        &example("counter_loop.mlir"),
        "--wcp-allow-load",
        dir.to_str().unwrap(),
    ]);
    let mut c = Client::connect(&serve).await;
    c.greet(&[]).await;
    for source in [
        secret.display().to_string(),
        link.display().to_string(),
        format!("{}/../wcp_secret.mlir", dir.display()),
        "/etc/passwd".to_string(),
        example("deadlock_join.mlir"),
    ] {
        let r = c.cmd("load", json!({ "source": source })).await;
        assert_error(&r, "forbidden");
        assert!(!r.to_string().contains("secret words"), "{r}");
    }
    // Inside: loads; the file the server opened may be reloaded.
    let inside = dir.join("c.mlir");
    std::fs::copy(example("counter_loop.mlir"), &inside).unwrap();
    assert_response(&c.cmd("load", json!({ "source": inside })).await, "ack");
    assert_response(&c.cmd("reload", Value::Null).await, "ack");
}

/// Issue 36, item 7: connections that never greet, or go silent, are closed, so idle
/// connections cannot hold every place. Before: 32 idle connections locked everyone out
/// (`too_many_clients` for ever); after: they are told `greeting_timeout` and closed, and a
/// new client is served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_do_not_lock_others_out() {
    let serve = Serve::start(&[&example("counter_loop.mlir"), "--wcp-idle-timeout", "1"]);
    let mut idle = Vec::new();
    for _ in 0..32 {
        idle.push(Client::connect(&serve).await);
    }
    // Each of them hears why it is closed (10 s without a greeting).
    for c in &mut idle {
        assert_error(&c.reply().await, "greeting_timeout");
        assert!(c.recv().await.is_none());
    }
    // A place frees once a closed connection's task has ended: retry briefly.
    let mut c = Client::connect(&serve).await;
    for _ in 0..100 {
        let g = c.greet(&[]).await;
        if g["type"] == "greeting" {
            break;
        }
        assert_error(&g, "too_many_clients");
        tokio::time::sleep(Duration::from_millis(50)).await;
        c = Client::connect(&serve).await;
    }
    // A greeted client that goes silent is closed too (`--wcp-idle-timeout 1`).
    assert_error(&c.reply().await, "idle_timeout");
    assert!(c.recv().await.is_none());
    let mut d = Client::connect(&serve).await;
    assert_eq!(d.greet(&[]).await["type"], "greeting");
}

/// Loopback only, unless allowed.
#[test]
fn non_loopback_addresses_need_the_flag() {
    let out = bin()
        .args(["serve", &example("counter_loop.mlir"), "--wcp", "0.0.0.0:0"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not a loopback address") && err.contains("--wcp-allow-remote"),
        "{err}"
    );
}

/// Issue 36, item 8: `surfer --listen 0.0.0.0:0` bound the address (and ran the circuit)
/// before refusing it. It is refused first: no run, no VCD written.
#[test]
fn surfer_refuses_a_non_loopback_address_before_anything() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("wcp_surfer_refused");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let vcd = dir.join("never.vcd");
    let out = bin()
        .args([
            "surfer",
            &example("counter_loop.mlir"),
            "--listen",
            "0.0.0.0:0",
        ])
        .arg("--vcd")
        .arg(&vcd)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("refusing to listen for Surfer on 0.0.0.0:0"),
        "{err}"
    );
    assert!(err.contains("not a loopback address"), "{err}");
    assert!(out.stdout.is_empty(), "{out:?}");
    assert!(!vcd.exists());
    std::fs::remove_dir_all(&dir).ok();
}

/// The Python example (standard library only) drives `handscope serve` on a C kernel: runs
/// to a value breakpoint until it hits no more and checks the values.
#[test]
fn python_example_runs() {
    let python = ["python3", "python"].into_iter().find(|p| {
        Command::new(p)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    });
    let Some(python) = python else {
        eprintln!("SKIPPED python_example_runs: no python3 on PATH (scripts/test.sh provides one)");
        return;
    };
    let out = Command::new(python)
        .current_dir(ROOT)
        .args(["examples/wcp_client.py", "--handscope"])
        .arg(env!("CARGO_BIN_EXE_handscope"))
        .output()
        .expect("run python");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("dot(a, b, 8) = 120"), "{text}");
    assert!(text.trim_end().ends_with("ok"), "{text}");
}

/// A fake Surfer on `stream`: answers the greeting, `load` (ack, then `waveforms_loaded`)
/// and `add_variables`; returns the commands it received.
fn fake_surfer(mut s: std::net::TcpStream) -> Vec<Value> {
    use std::io::{Read, Write};
    let mut got = Vec::new();
    let mut buf = Vec::new();
    let send = |s: &mut std::net::TcpStream, v: Value| {
        let mut b = v.to_string().into_bytes();
        b.push(0);
        s.write_all(&b).expect("fake surfer write");
    };
    loop {
        while let Some(i) = buf.iter().position(|&b| b == 0) {
            let frame: Vec<u8> = buf.drain(..=i).collect();
            let m: Value = serde_json::from_slice(&frame[..i]).expect("handscope sends JSON");
            match (m["type"].as_str(), m["command"].as_str()) {
                (Some("greeting"), _) => send(
                    &mut s,
                    json!({"type": "greeting", "version": "0",
                           "commands": ["add_variables", "load", "reload", "zoom_to_fit"]}),
                ),
                (Some("command"), Some("load")) => {
                    send(&mut s, json!({"type": "response", "command": "ack"}));
                    send(
                        &mut s,
                        json!({"type": "event", "event": "waveforms_loaded", "source": m["source"]}),
                    );
                }
                (Some("command"), Some("add_variables")) => {
                    let n = m["variables"].as_array().map_or(0, Vec::len);
                    send(
                        &mut s,
                        json!({"type": "response", "command": "add_variables",
                               "ids": (0..n).collect::<Vec<_>>()}),
                    );
                }
                _ => send(
                    &mut s,
                    json!({"type": "error", "error": "unknown", "arguments": [], "message": "?"}),
                ),
            }
            got.push(m);
        }
        let mut chunk = [0u8; 4096];
        match s.read(&mut chunk) {
            Ok(0) | Err(_) => return got,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

fn check_surfer_exchange(got: &[Value], vcd: &std::path::Path) {
    assert_eq!(got[0]["type"], "greeting", "{got:?}");
    assert_eq!(got[1]["command"], "load", "{got:?}");
    let source = got[1]["source"].as_str().expect("source");
    assert_eq!(
        std::path::Path::new(source),
        std::fs::canonicalize(vcd).expect("the VCD exists")
    );
    let vars: Vec<&str> = got[2]["variables"]
        .as_array()
        .expect("variables")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(
        vars,
        [
            "handscope.addi0.out0_valid",
            "handscope.addi0.out0_ready",
            "handscope.addi0.out0",
            "handscope.n_valid",
            "handscope.n_ready",
            "handscope.n",
        ]
    );
    // Every name is a variable the VCD declares (scope path + name).
    let text = std::fs::read_to_string(vcd).expect("read vcd");
    for v in &vars {
        let leaf = v.rsplit('.').next().unwrap();
        assert!(
            text.contains(&format!(" {leaf} $end")),
            "{v} not in the VCD"
        );
    }
}

/// `handscope surfer --connect`: Handscope connects to a (fake) Surfer serving WCP.
#[test]
fn surfer_client_connects_out() {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = l.local_addr().unwrap().to_string();
    let fake = std::thread::spawn(move || fake_surfer(l.accept().expect("accept").0));
    let vcd = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("wcp_surfer_out.vcd");
    let out = bin()
        .args(["surfer", &example("counter_loop.mlir"), "--connect", &addr])
        .args(["--channel", "addi0.out0", "--channel", "n", "--vcd"])
        .arg(&vcd)
        .output()
        .expect("run");
    assert!(out.status.success(), "{out:?}");
    let got = fake.join().expect("fake surfer");
    check_surfer_exchange(&got, &vcd);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("<- {\"command\":\"add_variables\""), "{text}");
}

/// `handscope surfer --listen`: a (fake) Surfer started with `--wcp-initiate` connects in.
#[test]
fn surfer_client_waits_for_surfer() {
    let vcd = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("wcp_surfer_in.vcd");
    let mut child = bin()
        .args([
            "surfer",
            &example("counter_loop.mlir"),
            "--listen",
            "127.0.0.1:0",
        ])
        .args(["--channel", "addi0.out0", "--channel", "n", "--vcd"])
        .arg(&vcd)
        .stdout(Stdio::piped())
        .spawn()
        .expect("run");
    let mut r = BufReader::new(child.stdout.take().unwrap());
    let mut addr = None;
    let mut line = String::new();
    while r.read_line(&mut line).expect("read") > 0 {
        if let Some(rest) = line.trim().strip_prefix("WCP: waiting for Surfer on ") {
            addr = Some(rest.split(' ').next().unwrap().to_string());
            break;
        }
        line.clear();
    }
    let addr = addr.expect("handscope says where it listens");
    let got = fake_surfer(std::net::TcpStream::connect(&addr).expect("connect"));
    assert!(child.wait().expect("wait").success());
    check_surfer_exchange(&got, &vcd);
}

/// Without `--vcd`, the waveform goes into a new directory of this user's under the temporary
/// directory (a random name, mode 0700), never a fixed name someone else could have planted a
/// link at (a #36 leftover).
#[test]
fn surfer_without_vcd_writes_into_a_private_directory() {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = l.local_addr().unwrap().to_string();
    let fake = std::thread::spawn(move || fake_surfer(l.accept().expect("accept").0));
    let out = bin()
        .args(["surfer", &example("counter_loop.mlir"), "--connect", &addr])
        .args(["--channel", "addi0.out0", "--channel", "n"])
        .output()
        .expect("run");
    assert!(out.status.success(), "{out:?}");
    let got = fake.join().expect("fake surfer");
    let source = std::path::PathBuf::from(got[1]["source"].as_str().expect("source"));
    check_surfer_exchange(&got, &source);
    let dir = source.parent().expect("a directory");
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with("handscope-surfer-"), "{}", dir.display());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700, "{}", dir.display());
    }
    let _ = std::fs::remove_dir_all(dir);
}
