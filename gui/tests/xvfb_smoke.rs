//! Starts the real debugger window under Xvfb, drives it with xdotool key presses and checks
//! that a screenshot is not blank and that the cursor moved. Skips when Xvfb or its helpers
//! are missing, except under `CI=true`, where it fails.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

struct Kill(Child);

impl Drop for Kill {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn xdo(display: &str, args: &[&str]) -> Option<String> {
    let out = Command::new("xdotool")
        .args(args)
        .env("DISPLAY", display)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

#[test]
fn real_window_under_xvfb() {
    let ci = std::env::var("CI").as_deref() == Ok("true");
    let missing: Vec<&str> = ["Xvfb", "xdotool", "xwd"]
        .into_iter()
        .filter(|t| !have(t))
        .collect();
    if !missing.is_empty() {
        assert!(
            !ci,
            "CI=true but these tools are missing: {missing:?} (scripts/setup-tools.sh installs them)"
        );
        eprintln!("skipping: missing {missing:?}");
        return;
    }
    let display = format!(":{}", 40 + std::process::id() % 200);
    let _xvfb = Kill(
        Command::new("Xvfb")
            .args([
                display.as_str(),
                "-screen",
                "0",
                "1400x900x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start Xvfb"),
    );
    // Wait for the server.
    let t0 = Instant::now();
    while xdo(&display, &["getdisplaygeometry"]).is_none() {
        assert!(t0.elapsed() < Duration::from_secs(20), "Xvfb did not start");
        std::thread::sleep(Duration::from_millis(100));
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_handscope"))
        .env("DISPLAY", &display)
        .env_remove("WAYLAND_DISPLAY")
        .env("HANDSCOPE_LOG_CURSOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start handscope");
    let stdout = child.stdout.take().unwrap();
    let stderr = child.stderr.take().unwrap();
    let app = Kill(child);
    let (tx, rx) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for l in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(l);
        }
    });
    let err_log = std::thread::spawn(move || {
        BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
            .collect::<Vec<_>>()
    });
    // Wait for the window to show the first cycle.
    let wait_line = |want: &str, secs: u64| -> bool {
        let t0 = Instant::now();
        while t0.elapsed() < Duration::from_secs(secs) {
            if let Ok(l) = rx.recv_timeout(Duration::from_millis(200))
                && l.trim() == want
            {
                return true;
            }
        }
        false
    };
    let started = wait_line("cursor 0", 120);
    if !started {
        drop(app);
        let err = err_log.join().unwrap_or_default().join("\n");
        panic!("the window did not come up under Xvfb; stderr:\n{err}");
    }
    let win = xdo(&display, &["search", "--name", "Handscope"])
        .and_then(|s| s.lines().last().map(str::to_string));
    let win = win.expect("the Handscope window exists");
    let _ = xdo(&display, &["windowactivate", "--sync", &win]);
    let _ = xdo(&display, &["windowfocus", "--sync", &win]);
    std::thread::sleep(Duration::from_millis(500));
    for _ in 0..3 {
        let _ = xdo(&display, &["key", "--window", &win, "Right"]);
        std::thread::sleep(Duration::from_millis(250));
    }
    assert!(
        wait_line("cursor 3", 30),
        "three Right key presses moved the cursor to cycle 3"
    );
    std::thread::sleep(Duration::from_millis(500));
    let shot = Command::new("xwd")
        .args(["-root", "-silent", "-display", &display])
        .output()
        .expect("xwd");
    assert!(shot.status.success(), "screenshot failed");
    let n = distinct_colours(&shot.stdout).expect("a readable XWD screenshot");
    assert!(n > 16, "the screenshot is blank ({n} colours)");
    drop(app);
}

/// Number of distinct pixel values of an XWD (X Window Dump) image, up to 10,000.
fn distinct_colours(xwd: &[u8]) -> Option<usize> {
    let be = |i: usize| -> Option<u32> {
        Some(u32::from_be_bytes(
            xwd.get(4 * i..4 * i + 4)?.try_into().ok()?,
        ))
    };
    let header = be(0)? as usize;
    let (h, bpp, line) = (be(5)? as usize, be(11)? as usize, be(12)? as usize);
    let ncolors = be(19)? as usize;
    let start = header + 12 * ncolors;
    let bytes = bpp / 8;
    if bytes == 0 {
        return None;
    }
    let mut seen = std::collections::BTreeSet::new();
    for y in 0..h {
        let row = xwd.get(start + y * line..start + (y + 1) * line)?;
        for px in row.chunks_exact(bytes) {
            seen.insert(px.to_vec());
            if seen.len() >= 10_000 {
                return Some(seen.len());
            }
        }
    }
    Some(seen.len())
}

/// `handscope gui FILE --wcp`: a WCP client moves the real window's cursor, and a key press
/// in the window reaches the client as a `cursor_moved` event.
#[test]
fn window_is_driven_over_wcp_under_xvfb() {
    use std::io::{Read, Write};
    let ci = std::env::var("CI").as_deref() == Ok("true");
    let missing: Vec<&str> = ["Xvfb", "xdotool"]
        .into_iter()
        .filter(|t| !have(t))
        .collect();
    if !missing.is_empty() {
        assert!(!ci, "CI=true but these tools are missing: {missing:?}");
        eprintln!("skipping: missing {missing:?}");
        return;
    }
    let display = format!(":{}", 241 + std::process::id() % 200);
    let _xvfb = Kill(
        Command::new("Xvfb")
            .args([
                display.as_str(),
                "-screen",
                "0",
                "1400x900x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start Xvfb"),
    );
    let t0 = Instant::now();
    while xdo(&display, &["getdisplaygeometry"]).is_none() {
        assert!(t0.elapsed() < Duration::from_secs(20), "Xvfb did not start");
        std::thread::sleep(Duration::from_millis(100));
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_handscope"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .args([
            "gui",
            "examples/circuits/counter_loop.mlir",
            "--wcp",
            "127.0.0.1:0",
        ])
        .env("DISPLAY", &display)
        .env_remove("WAYLAND_DISPLAY")
        .env("HANDSCOPE_LOG_CURSOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start handscope");
    let stdout = child.stdout.take().unwrap();
    let app = Kill(child);
    let (tx, rx) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for l in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(l);
        }
    });
    let wait_line = |pred: &dyn Fn(&str) -> bool, secs: u64| -> Option<String> {
        let t0 = Instant::now();
        while t0.elapsed() < Duration::from_secs(secs) {
            if let Ok(l) = rx.recv_timeout(Duration::from_millis(200))
                && pred(l.trim())
            {
                return Some(l.trim().to_string());
            }
        }
        None
    };
    let addr = wait_line(&|l| l.starts_with("WCP: listening on "), 60)
        .expect("the window's WCP server starts")
        .trim_start_matches("WCP: listening on ")
        .to_string();
    let token = wait_line(&|l| l.starts_with("WCP: token "), 60)
        .expect("the window's WCP server prints its token")
        .trim_start_matches("WCP: token ")
        .to_string();
    assert!(
        wait_line(&|l| l == "cursor 0", 120).is_some(),
        "the window came up"
    );
    let mut s = std::net::TcpStream::connect(&addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut buf = Vec::new();
    let mut next = |s: &mut std::net::TcpStream| -> serde_json::Value {
        loop {
            if let Some(i) = buf.iter().position(|&b| b == 0) {
                let f: Vec<u8> = buf.drain(..=i).collect();
                return serde_json::from_slice(&f[..i]).expect("json");
            }
            let mut chunk = [0u8; 4096];
            let n = s.read(&mut chunk).expect("read");
            assert!(n > 0, "closed");
            buf.extend_from_slice(&chunk[..n]);
        }
    };
    let send = |s: &mut std::net::TcpStream, v: serde_json::Value| {
        let mut b = v.to_string().into_bytes();
        b.push(0);
        s.write_all(&b).expect("write");
    };
    send(
        &mut s,
        serde_json::json!({"type": "greeting", "version": "0", "commands": ["cursor_moved"], "token": token}),
    );
    assert_eq!(next(&mut s)["type"], "greeting");
    send(
        &mut s,
        serde_json::json!({"type": "command", "command": "set_cursor", "timestamp": 5}),
    );
    assert_eq!(next(&mut s)["cycle"], 5);
    assert!(
        wait_line(&|l| l == "cursor 5", 30).is_some(),
        "the window's cursor moved to 5"
    );
    // A key press in the window: the client hears of it.
    let win = xdo(&display, &["search", "--name", "Handscope"])
        .and_then(|s| s.lines().last().map(str::to_string))
        .expect("the window exists");
    let _ = xdo(&display, &["windowactivate", "--sync", &win]);
    let _ = xdo(&display, &["windowfocus", "--sync", &win]);
    std::thread::sleep(Duration::from_millis(300));
    let _ = xdo(&display, &["key", "--window", &win, "Right"]);
    let mut moved = false;
    for _ in 0..10 {
        let m = next(&mut s);
        if m["event"] == "cursor_moved" && m["cycle"] == 6 {
            moved = true;
            break;
        }
    }
    assert!(moved, "no cursor_moved event for the key press");
    drop(app);
}

/// `verilate --run --live`: the window opens on the Verilator model's VCD while it is
/// written and ends at the run's last cycle (counter_loop: cycle 10 of 11).
#[test]
fn verilate_live_opens_the_window_on_the_running_model() {
    let ci = std::env::var("CI").as_deref() == Ok("true");
    let missing: Vec<&str> = ["Xvfb", "xdotool", "verilator"]
        .into_iter()
        .filter(|t| !have(t))
        .collect();
    if !missing.is_empty() {
        assert!(!ci, "CI=true but these tools are missing: {missing:?}");
        eprintln!("skipping: missing {missing:?}");
        return;
    }
    let display = format!(":{}", 451 + std::process::id() % 200);
    let _xvfb = Kill(
        Command::new("Xvfb")
            .args([
                display.as_str(),
                "-screen",
                "0",
                "1400x900x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start Xvfb"),
    );
    let t0 = Instant::now();
    while xdo(&display, &["getdisplaygeometry"]).is_none() {
        assert!(t0.elapsed() < Duration::from_secs(20), "Xvfb did not start");
        std::thread::sleep(Duration::from_millis(100));
    }
    let out = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("verilate_live");
    let mut child = Command::new(env!("CARGO_BIN_EXE_handscope"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .args([
            "verilate",
            "examples/circuits/counter_loop.mlir",
            "--run",
            "--live",
            "-o",
        ])
        .arg(&out)
        .env("DISPLAY", &display)
        .env_remove("WAYLAND_DISPLAY")
        .env("HANDSCOPE_LOG_CURSOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start handscope");
    let stdout = child.stdout.take().unwrap();
    let app = Kill(child);
    let (tx, rx) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for l in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(l);
        }
    });
    let t0 = Instant::now();
    let mut seen = Vec::new();
    while t0.elapsed() < Duration::from_secs(300) {
        if let Ok(l) = rx.recv_timeout(Duration::from_millis(200)) {
            seen.push(l.trim().to_string());
            if l.trim() == "cursor 10" {
                drop(app);
                return;
            }
        }
    }
    panic!("the window never reached the last cycle; it printed {seen:?}");
}
