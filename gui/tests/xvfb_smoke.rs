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
