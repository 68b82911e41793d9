//! Issue 19 through the command line: long and large inputs finish, diagnostics never take
//! the process down, size limits give located errors, and odd files get clear ones.

use std::path::PathBuf;
use std::process::Command;

/// Runs `handscope args...`: (exit code, stdout, stderr).
fn handscope(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_handscope"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .output()
        .expect("run handscope");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Writes `text` to a fresh file `name` and returns its path.
fn file(name: &str, text: &str) -> String {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("robust_cli");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write input");
    p.display().to_string()
}

/// Exit code 1 with a message, never a panic (101) or an abort.
/// Asserts that an error message stays under `max` bytes (quoting its start when it does not).
fn assert_short(msg: &str, max: usize) {
    assert!(
        msg.len() < max,
        "{} bytes: {}",
        msg.len(),
        &msg[..msg.len().min(500)]
    );
}

fn fails(args: &[&str]) -> String {
    let (code, out, err) = handscope(args);
    assert_eq!(code, 1, "{args:?}\nstdout:\n{out}\nstderr:\n{err}");
    assert!(!err.contains("panicked"), "{err}");
    format!("{out}{err}")
}

#[test]
fn long_sums_and_many_statements_check_and_compile() {
    // 30 terms took 42 s; 2,000 never finished.
    let mut sum = String::from("int f(int a[64]) {\n  return a[0]");
    for i in 1..2_000 {
        sum.push_str(&format!(" + a[{}]", i % 64));
    }
    sum.push_str(";\n}\n");
    let sum = file("sum2000.c", &sum);
    let (code, out, err) = handscope(&["check", &sum]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("ok: 1 function"), "{out}");
    // 1,000 if-lines took 17.5 s in check.
    let mut ifs = String::from("int f(int x) {\n");
    for i in 0..1_000 {
        ifs.push_str(&format!("  if (x == {i}) x = x + 1;\n"));
    }
    ifs.push_str("  return x;\n}\n");
    let ifs = file("ifs1000.c", &ifs);
    let (code, out, err) = handscope(&["check", &ifs]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, _, err) = handscope(&["compile", &ifs, "-o", &file("ifs1000.mlir", "")]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn errors_past_column_65535_are_reported_not_panicked_on() {
    let mut c = String::from("int f(int a[64]) {\n  return ");
    for i in 0..20_000 {
        c.push_str(&format!("a[{}] + ", i % 64));
    }
    c.push_str("bogus;\n}\n");
    let msg = fails(&["check", &file("longline.c", &c)]);
    assert!(
        msg.contains("use of undeclared identifier 'bogus'"),
        "{msg}"
    );
    assert!(msg.contains("line 2, column "), "{msg}");
    assert!(msg.len() < 2_000, "{} bytes", msg.len());

    let mut m = String::from(
        "handshake.func @f(%a: i32, ...) -> (i32) attributes {argNames = [\"a\"], resNames = [\"r\"]} { ",
    );
    for _ in 0..10_000 {
        m.push_str("          ");
    }
    m.push_str("%b = arith.addi %a, %nope : i32 return %b : i32 }\n");
    let msg = fails(&["check", &file("longline.mlir", &m)]);
    assert!(msg.contains("longline.mlir:1:100"), "{msg}");
    assert!(msg.contains("| …"), "{msg}");
}

#[test]
fn size_limits_are_located_errors_in_check_and_sim() {
    let head = "handshake.func @f(%a: i32, %start: none, ...) -> (i32, none) attributes {argNames = [\"a\", \"start\"], resNames = [\"d\", \"done\"]} {\n";
    let fork = file(
        "fork.mlir",
        &format!(
            "{head}  %b:2 = fork [1000000000] %a : i32\n  return %b#0, %start : i32, none\n}}\n"
        ),
    );
    let msg = fails(&["check", &fork]);
    assert!(
        msg.contains("fork.mlir:2:16: a `fork` of 1,000,000,000 outputs"),
        "{msg}"
    );
    let buffer = file(
        "buffer.mlir",
        &format!(
            "{head}  %b = buffer [100000000] seq %a : i32\n  return %b, %start : i32, none\n}}\n"
        ),
    );
    for cmd in ["check", "sim"] {
        let msg = fails(&[cmd, &buffer]);
        assert!(
            msg.contains("buffer.mlir:2:16: a buffer of 100,000,000 slots"),
            "{msg}"
        );
    }
    // 1,024 instances per level, 6 levels: 2^60 nodes once inlined.
    let w = 1024;
    let mut nested = String::new();
    for k in (0..6).rev() {
        let mut body = format!("  %0:{w} = fork [{w}] %x : none\n");
        let outs: Vec<String> = if k == 5 {
            (0..w).map(|i| format!("%0#{i}")).collect()
        } else {
            (0..w)
                .map(|i| {
                    body.push_str(&format!(
                        "  %i{i} = instance @f{n}(%0#{i}) : (none) -> (none)\n",
                        n = k + 1
                    ));
                    format!("%i{i}")
                })
                .collect()
        };
        let types = vec!["none"; w].join(", ");
        body.push_str(&format!("  %j = join {} : {types}\n", outs.join(", ")));
        nested.push_str(&format!(
            "handshake.func @f{k}(%x: none, ...) -> (none) {{\n{body}  return %j : none\n}}\n"
        ));
    }
    let nested = file("nested.mlir", &nested);
    let msg = fails(&["check", &nested]);
    assert!(
        msg.contains("error[limit]: @f0: inlining the instances of @f0"),
        "{msg}"
    );
}

#[test]
fn png_scale_is_bounded_before_allocating() {
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("robust_cli/scaled.png");
    let _ = std::fs::remove_file(&out);
    let o = out.display().to_string();
    let msg = fails(&[
        "render",
        "examples/circuits/fork_join_diamond.mlir",
        "-o",
        &o,
        "--scale",
        "100",
    ]);
    assert!(msg.contains("--scale 100: the PNG would be"), "{msg}");
    assert!(msg.contains("or write an SVG"), "{msg}");
    let msg = fails(&[
        "render",
        "examples/circuits/fork_join_diamond.mlir",
        "-o",
        &o,
        "--scale=-1",
    ]);
    assert!(msg.contains("must be a positive number"), "{msg}");
    assert!(!out.exists());
}

#[test]
fn odd_files_get_clear_errors() {
    for name in ["empty.mlir", "empty.c"] {
        let msg = fails(&["check", &file(name, "")]);
        assert!(msg.contains("defines no"), "{msg}");
        assert!(!msg.contains("ok: 0 functions"), "{msg}");
    }
    let rec = file(
        "rec.c",
        "int f(int n) {\n  if (n == 0) return 0;\n  return f(n - 1) + 1;\n}\n",
    );
    let msg = fails(&["check", &rec]);
    assert!(
        msg.contains("rec.c:3:10: recursion is not supported: f -> f"),
        "{msg}"
    );
    // The OS error once, not "Is a directory (os error 21): Is a directory (os error 21)".
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("robust_cli");
    std::fs::create_dir_all(&dir).expect("dir");
    let msg = fails(&[
        "replay",
        "examples/circuits/fork_join_diamond.mlir",
        &dir.display().to_string(),
    ]);
    assert_eq!(msg.matches("a directory").count(), 1, "{msg}");
    // A missing file: the reason once, for each command that reads one.
    for cmd in ["check", "sim", "render"] {
        let mut args = vec![cmd, "no_such_kernel.mlir"];
        if cmd == "render" {
            args.extend(["-o", "never.svg"]);
        }
        let msg = fails(&args);
        assert!(msg.contains("cannot read no_such_kernel.mlir"), "{msg}");
        assert_eq!(msg.matches("os error 2").count(), 1, "{cmd}: {msg}");
    }
    // `replay /dev/zero` hung.
    let msg = fails(&[
        "replay",
        "examples/circuits/fork_join_diamond.mlir",
        "/dev/zero",
    ]);
    assert!(
        msg.contains("/dev/zero: it is a character device, not a regular file"),
        "{msg}"
    );
}

/// A C kernel that loads `a[i]` from a 4-element array.
const LOAD_AI: &str = "int f(int a[4], int i) {\n  return a[i];\n}\n";

#[test]
fn stimulus_values_that_do_not_fit_or_say_nothing_are_rejected() {
    let k = file("load_ai.c", LOAD_AI);
    // 4294967296 on an i32 became 0.
    let msg = fails(&["sim", &k, "--in", "i=4294967296", "--mem", "a=1,2,3,4"]);
    assert!(
        msg.contains(
            "--in i: value `4294967296` does not fit i32 (it takes -2147483648 to 4294967295"
        ),
        "{msg}"
    );
    // 70000 on an i16 wrapped.
    let m16 = file(
        "id16.mlir",
        "handshake.func @f(%a: i16, %s: none, ...) -> (i16, none) attributes {argNames = [\"a\", \"s\"], resNames = [\"r\", \"done\"]} {\n  return %a, %s : i16, none\n}\n",
    );
    let msg = fails(&["sim", &m16, "--in", "a=1,70000"]);
    assert!(
        msg.contains("`70000` does not fit i16 (it takes -32768 to 65535"),
        "{msg}"
    );
    let msg = fails(&["sim", &m16, "--in", "a=65530..65537"]);
    assert!(msg.contains("does not fit i16"), "{msg}");
    let (code, out, err) = handscope(&["sim", &m16, "--in", "a=-32768,65535"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("r: [-32768@0, -1@1]"), "{out}");
    // Empty values, empty items and empty ranges said nothing clear.
    let msg = fails(&["sim", &k, "--in", "i=", "--mem", "a=1,2,3,4"]);
    assert!(msg.contains("--in i: no value given"), "{msg}");
    let msg = fails(&["sim", &k, "--in", "i=1,,2", "--mem", "a=1,2,3,4"]);
    assert!(
        msg.contains("`1,,2` has an empty item between commas"),
        "{msg}"
    );
    let msg = fails(&["sim", &k, "--in", "i=1,", "--mem", "a=1,2,3,4"]);
    assert!(msg.contains("empty item"), "{msg}");
    let msg = fails(&["sim", &k, "--in", "i=10..0", "--mem", "a=1,2,3,4"]);
    assert!(msg.contains("`10..0` is an empty range"), "{msg}");
    // Memory contents: too many values, a huge range, a device.
    let msg = fails(&["sim", &k, "--in", "i=0", "--mem", "a=1,2,3,4,5"]);
    assert!(
        msg.contains("--mem a: 5 values for a memory of 4 elements"),
        "{msg}"
    );
    let msg = fails(&["sim", &k, "--in", "i=0", "--mem", "a=0..1000000000"]);
    assert!(msg.contains("1000000000 values for a memory of 4"), "{msg}");
    let msg = fails(&["sim", &k, "--in", "i=0..1000000000000"]);
    assert!(
        msg.contains("`999999999999 (the last of 0..1000000000000)` does not fit i32"),
        "{msg}"
    );
    let msg = fails(&["sim", &k, "--in", "i=0", "--mem", "a=@/dev/zero"]);
    assert!(msg.contains("not a regular file"), "{msg}");
    let msg = fails(&["sim", &k, "--in", "i=@/dev/zero", "--mem", "a=1"]);
    assert!(msg.contains("not a regular file"), "{msg}");
    // A short list is zero-padded, and the user hears so.
    let (code, out, err) = handscope(&["sim", &k, "--in", "i=3", "--mem", "a=1,2"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        err.contains("warning: --mem a: 2 values for 4 elements; elements 2 to 3 start at 0"),
        "{err}"
    );
    assert!(out.contains("ret: [0@"), "{out}");
}

#[test]
fn out_of_bounds_addresses_are_runtime_events() {
    // extmem_add with j = -1 on a 4-element memory read element 3 silently.
    let (code, out, err) = handscope(&[
        "sim",
        "examples/circuits/extmem_add.mlir",
        "--mem",
        "mem=5,6,7,8",
        "--in",
        "i=0",
        "--in",
        "j=-1",
        "--in",
        "k=1",
        "--in",
        "start=1",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("event cycle 0 extmemory0: load address -1 is outside `mem` (4 elements); the load reads element 3 (the low 2 address bits)"),
        "{out}"
    );
    // A C kernel: a[i] with i = 10 on int a[4], in the JSON report.
    let k = file("load_ai_oob.c", LOAD_AI);
    let (code, out, err) = handscope(&["sim", &k, "--in", "i=10", "--mem", "a=1,2,3,4", "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    let ev = &v["events"][0];
    assert_eq!(ev["kind"], "address-out-of-range", "{out}");
    assert_eq!(ev["node"], "mem.a", "{out}");
    assert_eq!(ev["cycle"], 0, "{out}");
    assert!(
        ev["message"]
            .as_str()
            .unwrap()
            .starts_with("load address 10 is outside `a` (4 elements)"),
        "{out}"
    );
    // In range: no event.
    let (_, out, _) = handscope(&["sim", &k, "--in", "i=3", "--mem", "a=1,2,3,4"]);
    assert!(!out.contains("event"), "{out}");
}

#[test]
fn traces_of_other_circuits_and_unreadable_traces_are_errors() {
    let vcd = file("counter_loop.vcd", "");
    let (code, _, err) = handscope(&[
        "sim",
        "examples/circuits/counter_loop.mlir",
        "--in",
        "n=5",
        "--vcd",
        &vcd,
    ]);
    assert_eq!(code, 0, "{err}");
    // Another circuit's VCD gave made-up outputs and exit 0.
    let msg = fails(&["replay", "examples/circuits/fork_join_diamond.mlir", &vcd]);
    assert!(
        msg.contains("7 of 16 channels of @diamond have no signal in scope `handscope`"),
        "{msg}"
    );
    assert!(msg.contains("--force"), "{msg}");
    assert!(!msg.contains("status:"), "{msg}");
    let (code, out, err) = handscope(&[
        "replay",
        "examples/circuits/fork_join_diamond.mlir",
        &vcd,
        "--force",
    ]);
    assert_ne!(code, 1, "{out}{err}");
    assert!(err.contains("read as idle"), "{err}");
    // The right circuit replays.
    let (code, out, err) = handscope(&["replay", "examples/circuits/counter_loop.mlir", &vcd]);
    assert_eq!(code, 0, "{out}{err}");
    // render --trace of a missing or garbage file drew a simulation and exited 0.
    let svg = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("robust_cli/trace.svg");
    let _ = std::fs::remove_file(&svg);
    let svg_s = svg.display().to_string();
    let msg = fails(&[
        "render",
        "examples/circuits/counter_loop.mlir",
        "--trace",
        "/nonexistent.vcd",
        "-o",
        &svg_s,
    ]);
    assert!(msg.contains("cannot read /nonexistent.vcd"), "{msg}");
    assert!(!msg.contains("simulation instead"), "{msg}");
    let garbage = file("garbage.vcd", "\u{1}\u{2}not a vcd at all\n");
    let msg = fails(&[
        "render",
        "examples/circuits/counter_loop.mlir",
        "--trace",
        &garbage,
        "-o",
        &svg_s,
    ]);
    assert!(msg.contains("garbage.vcd:1:"), "{msg}");
    assert!(!svg.exists());
}

#[test]
fn outputs_are_whole_or_absent() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("robust_cli/outputs");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let ex = "examples/circuits/counter_loop.mlir";
    let out = |name: &str| dir.join(name).display().to_string();
    for (args, name) in [
        (vec!["verilog", ex, "-o"], "c.sv"),
        (vec!["mlir", ex, "-o"], "c.mlir"),
        (vec!["dot", ex, "-o"], "c.dot"),
        (vec!["render", ex, "-o"], "c.svg"),
        (vec!["sim", ex, "--in", "n=3", "--vcd"], "c.vcd"),
    ] {
        let mut a = args.clone();
        let o = out(name);
        a.push(&o);
        let (code, so, se) = handscope(&a);
        assert!(code == 0, "{a:?}: {so}{se}");
        let meta = std::fs::metadata(&o).expect("written");
        assert!(meta.len() > 0, "{name}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            // A plain file's mode, not a temporary file's private 0600.
            assert_ne!(meta.permissions().mode() & 0o777, 0o600, "{name}");
        }
        // On a device that is full the command fails with the OS's reason (`render` takes
        // the format from the extension, so it cannot name a device).
        if std::path::Path::new("/dev/full").exists() && args[0] != "render" {
            let mut a = args.clone();
            a.push("/dev/full");
            let msg = fails(&a);
            assert!(msg.contains("cannot write /dev/full"), "{msg}");
        }
    }
    // Only the outputs: no temporary file left behind.
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["c.dot", "c.mlir", "c.sv", "c.svg", "c.vcd"]);
    // A missing directory: an error, nothing created.
    let msg = fails(&["verilog", ex, "-o", &out("missing/c.sv")]);
    assert!(msg.contains("missing/c.sv"), "{msg}");
}

#[test]
fn render_of_a_gallery_name_leaves_no_temporary_file() {
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("robust_cli/tmpdir");
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).expect("dir");
    let svg = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("robust_cli/gallery.svg");
    let out = Command::new(env!("CARGO_BIN_EXE_handscope"))
        .args(["render", "counter_loop", "--in", "n=2", "-o"])
        .arg(&svg)
        .env("TMPDIR", &tmp)
        .current_dir(&tmp)
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(svg.exists());
    let left: Vec<_> = std::fs::read_dir(&tmp).expect("list").collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn usage_errors_have_their_own_exit_code() {
    // Exit code 2 meant both a usage error and a deadlock.
    for args in [
        vec!["sim"],
        vec![
            "sim",
            "examples/circuits/counter_loop.mlir",
            "--no-such-flag",
        ],
        vec!["frobnicate"],
        vec![
            "sim",
            "examples/circuits/counter_loop.mlir",
            "--max-cycles",
            "x",
        ],
    ] {
        let (code, out, err) = handscope(&args);
        assert_eq!(code, 64, "{args:?}: {out}{err}");
        assert!(err.contains("Usage") || err.contains("--help"), "{err}");
    }
    let (code, out, _) = handscope(&["--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("Exit codes:"), "{out}");
    for line in [
        "2   a run deadlocked",
        "64  usage error",
        "69  the debugger window",
    ] {
        assert!(out.contains(line), "{line}: {out}");
    }
    let (code, _, _) = handscope(&["--version"]);
    assert_eq!(code, 0);
    let (code, _, _) = handscope(&["sim", "examples/circuits/deadlock_join.mlir"]);
    assert_eq!(code, 2);
}

#[test]
fn render_growth_benchmark_runs_once_per_size() {
    // The figures are judged in benchmark runs (`handscope bench render`), never here.
    let (code, out, err) = handscope(&["bench", "render", "--max-stages", "10"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("us/node"), "{out}");
    assert!(
        out.lines().any(|l| l.trim_start().starts_with("10 ")),
        "{out}"
    );
}

#[test]
fn damaged_fst_indexes_and_hierarchies_are_refused_by_block() {
    // Found by the `replay_fst` fuzz target: 2.5 KB whose value-change index claims a run of
    // 272 million signals in a block of 48; the reader under `wellen` built a table entry for
    // each (3.2 GB, 7 s) before the guard checked the index.
    let fst = "fuzz/regressions/replay_fst/oom-399f0a92d0479e089a2b43f12e6ec5cfc3d35c4a";
    let msg = fails(&["replay", "examples/circuits/extmem_add.mlir", fst]);
    assert!(
        msg.contains(&format!(
            "{fst}: cannot read the FST file: the block at byte 939 (type 1) indexes 272547467 signals of 48: the file is damaged"
        )),
        "{msg}"
    );
    // Also found by it: 1,277 bytes whose hierarchy names signal 1,354,758,022 of 70 (the
    // reader sized a table by it: 10.8 GB, 31 s).
    let fst = "fuzz/regressions/replay_fst/oom-9a76cdd7f062af1db4cca6831de2096ca040901c";
    let msg = fails(&["replay", "examples/circuits/extmem_add.mlir", fst]);
    assert!(
        msg.contains(&format!(
            "{fst}: cannot read the FST file: the hierarchy block at byte 330 (type 6) names signal 1354758022 of 70: the file is damaged"
        )),
        "{msg}"
    );
}

// Issue 36 ("Hostile input, round two"), items 1, 2, 5 and 8: special files, stdout,
// terminal escapes and long input in messages.

/// A fresh scratch directory `name` under the test's temporary directory.
fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("robust_cli/issue36")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

/// Makes a FIFO at `p`.
#[cfg(unix)]
fn mkfifo(p: &std::path::Path) {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(p.as_os_str().as_bytes()).expect("path");
    // SAFETY: a valid NUL-terminated path.
    let made = unsafe { libc::mkfifo(c.as_ptr(), 0o600) };
    assert_eq!(made, 0, "mkfifo {}", p.display());
}

/// Runs `handscope args...` and kills it when it is still running after `limit` (a hang is a
/// failure here, not a measurement): (exit code, stdout + stderr), `None` when killed.
fn handscope_or_hang(args: &[&str], limit: std::time::Duration) -> Option<(i32, String)> {
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_handscope"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run handscope");
    let start = std::time::Instant::now();
    loop {
        if child.try_wait().expect("wait").is_some() {
            let out = child.wait_with_output().expect("output");
            return Some((
                out.status.code().unwrap_or(-1),
                format!(
                    "{}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                ),
            ));
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Reads everything written into FIFO `p` in a thread; [`FifoReader::finish`] returns it.
#[cfg(unix)]
struct FifoReader {
    path: PathBuf,
    thread: std::thread::JoinHandle<Vec<u8>>,
}

#[cfg(unix)]
impl FifoReader {
    fn start(path: &std::path::Path) -> FifoReader {
        let p = path.to_path_buf();
        let thread = std::thread::spawn(move || {
            use std::io::Read;
            let mut bytes = Vec::new();
            let mut f = std::fs::File::open(&p).expect("open fifo to read");
            f.read_to_end(&mut bytes).expect("read fifo");
            bytes
        });
        FifoReader {
            path: path.to_path_buf(),
            thread,
        }
    }

    /// What was read. A reader still waiting for a writer (the command never opened the
    /// FIFO) is released by opening it for writing without blocking, and reads nothing.
    fn finish(self) -> Vec<u8> {
        use std::os::unix::fs::OpenOptionsExt;
        if !self.thread.is_finished() {
            let _ = std::fs::OpenOptions::new()
                .write(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(&self.path);
        }
        self.thread.join().expect("reader")
    }
}

#[cfg(unix)]
fn is_fifo(p: &std::path::Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_fifo())
}

/// Item 1: `sim FILE --fst /dev/null` renamed a temporary file over the device (as root) and
/// exited 0. A FIFO (and a link to one) stands for the device here: written into, never
/// replaced; a link to a regular file keeps being a link, its file replaced.
#[cfg(unix)]
#[test]
fn special_files_as_outputs_are_written_into_not_replaced() {
    let d = scratch("outputs");
    let ex = "examples/circuits/counter_loop.mlir";
    let fifo = d.join("wave.fifo");
    mkfifo(&fifo);
    let link = d.join("link-to-fifo");
    std::os::unix::fs::symlink(&fifo, &link).expect("symlink");
    let fifo_s = fifo.display().to_string();
    let link_s = link.display().to_string();
    for (args, starts) in [
        (vec!["sim", ex, "--in", "n=3", "--fst", &fifo_s], &b"\0"[..]),
        (vec!["sim", ex, "--in", "n=3", "--fst", &link_s], &b"\0"[..]),
        (vec!["sim", ex, "--in", "n=3", "--vcd", &fifo_s], &b"$"[..]),
        (vec!["mlir", ex, "-o", &link_s], &b"module {"[..]),
        (vec!["verilog", ex, "-o", &fifo_s], &b""[..]),
    ] {
        let reader = FifoReader::start(&fifo);
        let (code, out, err) = handscope(&args);
        let got = reader.finish();
        assert_eq!(code, 0, "{args:?}: {out}{err}");
        assert!(is_fifo(&fifo), "{args:?} replaced the FIFO");
        assert!(
            std::fs::symlink_metadata(&link).is_ok_and(|m| m.file_type().is_symlink()),
            "{args:?} replaced the link"
        );
        assert!(
            got.len() > 100 && got.starts_with(starts),
            "{args:?}: {} bytes: {:?}",
            got.len(),
            String::from_utf8_lossy(&got[..got.len().min(80)])
        );
    }
    // A link to a regular file: the file gets the output, the link stays.
    let real = d.join("real.mlir");
    std::fs::write(&real, "old").expect("write");
    let link2 = d.join("link.mlir");
    std::os::unix::fs::symlink(&real, &link2).expect("symlink");
    let (code, _, err) = handscope(&["mlir", ex, "-o", &link2.display().to_string()]);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::symlink_metadata(&link2).is_ok_and(|m| m.file_type().is_symlink()));
    assert!(
        std::fs::read_to_string(&real)
            .expect("read")
            .contains("handshake.func")
    );
    // No temporary file left anywhere.
    let mut names: Vec<String> = std::fs::read_dir(&d)
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["link-to-fifo", "link.mlir", "real.mlir", "wave.fifo"]
    );
    // A full device: written into, and the failed write is an error (never a rename).
    if std::path::Path::new("/dev/full").exists() {
        let msg = fails(&["sim", ex, "--in", "n=3", "--fst", "/dev/full"]);
        assert!(msg.contains("cannot write /dev/full"), "{msg}");
    }
}

/// Item 2: a FIFO as the circuit, `--in a=@f`, `--mem m=@f`, `--batch`, `--map`,
/// `--timing`, the trace of `replay`/`render --trace`, or a lesson blocked forever. Each is
/// refused at once, naming the path and what it is; so is a link to the FIFO.
#[cfg(unix)]
#[test]
fn special_files_as_inputs_are_refused_without_blocking() {
    let d = scratch("inputs");
    let fifo = d.join("in.fifo");
    mkfifo(&fifo);
    let link = d.join("link.mlir");
    std::os::unix::fs::symlink(&fifo, &link).expect("symlink");
    let toml = d.join("t.toml");
    std::os::unix::fs::symlink(&fifo, &toml).expect("symlink");
    let c_link = d.join("k.c");
    std::os::unix::fs::symlink(&fifo, &c_link).expect("symlink");
    let ex = "examples/circuits/counter_loop.mlir";
    let mem = "examples/circuits/extmem_add.mlir";
    let vcd = file("issue36_counter.vcd", "");
    let (code, _, err) = handscope(&["sim", ex, "--in", "n=2", "--vcd", &vcd]);
    assert_eq!(code, 0, "{err}");
    let f = fifo.display().to_string();
    let l = link.display().to_string();
    let t = toml.display().to_string();
    let k = c_link.display().to_string();
    let at = format!("n=@{f}");
    let mem_at = format!("mem=@{f}");
    let svg = d.join("x.svg").display().to_string();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["check", &f], &f),
        (vec!["sim", &l], &l),
        (vec!["compile", &k], &k),
        (vec!["sim", ex, "--in", &at], &f),
        (vec!["sim", mem, "--mem", &mem_at], &f),
        (vec!["sim", ex, "--batch", &f], &f),
        (vec!["sim", ex, "--timing", &t], &t),
        (vec!["replay", ex, &f], &f),
        (vec!["replay", ex, &vcd, "--map", &f], &f),
        (vec!["render", ex, "--trace", &f, "-o", &svg], &f),
        (vec!["lesson", "--check", &f], &f),
    ];
    for (args, path) in cases {
        let Some((code, msg)) = handscope_or_hang(&args, std::time::Duration::from_secs(60)) else {
            panic!("{args:?} blocked on the FIFO");
        };
        assert_eq!(code, 1, "{args:?}: {msg}");
        assert!(
            msg.contains(path) && msg.contains("it is a FIFO (named pipe), not a regular file"),
            "{args:?}: {msg}"
        );
        assert!(!msg.contains("panicked"), "{msg}");
    }
    assert!(is_fifo(&fifo));
}

/// Item 5: a failed write to standard output panicked (`check FILE > /dev/full`: exit 101).
/// It is an error with exit 1, for line-by-line output and for output printed at once.
#[cfg(unix)]
#[test]
fn a_failed_write_to_stdout_is_an_error_not_a_panic() {
    if !std::path::Path::new("/dev/full").exists() {
        return;
    }
    let ex = "examples/circuits/counter_loop.mlir";
    for args in [
        vec!["check", ex],
        vec!["sim", ex, "--in", "n=3"],
        vec!["sim", ex, "--in", "n=3", "--json"],
        vec!["mlir", ex],
        vec!["sim", ex, "--seeds", "0..3"],
        vec!["--help"],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("open /dev/full");
        let out = Command::new(env!("CARGO_BIN_EXE_handscope"))
            .args(&args)
            .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
            .stdout(full)
            .output()
            .expect("run");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("cannot write to standard output"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// Item 8: escape sequences from input files reached the terminal in error snippets and
/// messages; they are printed escaped.
#[test]
fn control_characters_from_inputs_are_printed_escaped() {
    let c = file(
        "escape.c",
        "int f(int a) {\n  return a \x1b[2J\x1b]0;owned\x07 + ;\n}\n",
    );
    let mlir = file("escape.mlir", "handshake.func @f(%a: i32\x1b[31m) {\n}\n");
    let ex = "examples/circuits/counter_loop.mlir";
    for args in [
        vec!["check", &c],
        vec!["check", &mlir],
        vec!["sim", ex, "--in", "n=1\x1b[2J"],
        vec!["sim", ex, "--ready", "count=\x1b[2J"],
    ] {
        let msg = fails(&args);
        assert!(
            !msg.chars()
                .any(|c| c.is_control() && c != '\n' && c != '\t'),
            "{args:?}: {msg:?}"
        );
        assert!(msg.contains("\\x1b"), "{args:?}: {msg}");
    }
}

/// Item 8: error messages printed bad input whole: a 50 MB token, or `--in a=@FILE` of a
/// file like `/proc/self/environ` (NUL-separated, one "value" of every variable). The quote
/// is cut to its ends.
#[test]
fn long_input_is_quoted_as_a_short_excerpt() {
    let secret = "SECRET_TOKEN=hunter2";
    let environ = format!(
        "HOME=/root\0PATH=/usr/bin\0{}\0{secret}\0SHELL=/bin/sh\0LANG=C.UTF-8\0TERM=xterm\0",
        "X=".repeat(5000)
    );
    let env_file = file("environ", &environ);
    let ex = "examples/circuits/counter_loop.mlir";
    let at = format!("n=@{env_file}");
    let msg = fails(&["sim", ex, "--in", &at]);
    assert!(!msg.contains(secret), "{msg}");
    assert!(msg.contains("characters left out"), "{msg}");
    assert!(msg.len() < 2000, "{} bytes: {msg}", msg.len());
    // A huge token on the command line and in a circuit file.
    // (A command-line argument stays below the system's 128 KiB limit.)
    let arg = format!("n={}", "9".repeat(100_000));
    let token = "9".repeat(5_000_000);
    let msg = fails(&["sim", ex, "--in", &arg]);
    assert!(msg.len() < 2000, "{} bytes", msg.len());
    let big = file(
        "token.mlir",
        &format!("handshake.func @f(%a: i{token}) {{\n}}\n"),
    );
    assert_short(&fails(&["check", &big]), 4000);
    let big = file(
        "ident.mlir",
        &format!("handshake.func @f{token}x(%a: i32) {{\n  bogus.op{token}\n}}\n"),
    );
    assert_short(&fails(&["check", &big]), 4000);
}

/// Issue 36, item 6, end to end: `replay p.mlir p.vcd` without `--in` takes its stimulus
/// from the trace and agrees with `sim` on the end (status, cycles, exit code). Before:
/// runs `sim` reported done (drained, or without results) replayed as `deadlock`, exit 2.
#[test]
fn replay_without_stimulus_agrees_with_sim() {
    let mut paths: Vec<PathBuf> =
        std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/circuits"))
            .expect("examples")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "mlir"))
            .collect();
    paths.sort();
    let mut compared = 0;
    for p in &paths {
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        let circuit = p.display().to_string();
        let vcd = file(&format!("{name}.stim.vcd"), "");
        let (code, out, err) = handscope(&["sim", &circuit, "--vcd", &vcd, "--json"]);
        if code != 0 && code != 2 {
            continue; // circuits `check` rejects
        }
        let sim: serde_json::Value = serde_json::from_str(&out).expect("sim --json");
        let (rcode, rout, rerr) = handscope(&["replay", &circuit, &vcd, "--json"]);
        let replay: serde_json::Value =
            serde_json::from_str(&rout).unwrap_or_else(|e| panic!("{name}: {e}\n{rout}{rerr}"));
        assert_eq!(
            (rcode, &replay["status"], &replay["cycles"]),
            (code, &sim["status"], &sim["cycles"]),
            "{name}\nsim: {err}\nreplay: {rerr}"
        );
        compared += 1;
    }
    assert!(compared >= 10, "{compared}");
}

/// Issue 36, item 6, end to end: a VCD of the circuit declared `i32` replayed onto the same
/// circuit declared `i8` (or `i64`). Before: `count=44` for 300 (and −10 read as
/// 4294967286 at `i64`), exit 0; after: exit 1 naming the channels, `--force` replays with a
/// warning.
#[test]
fn replay_of_signals_of_another_width_needs_force() {
    let vcd = file("width300.vcd", "");
    let (code, _, err) = handscope(&[
        "sim",
        "examples/circuits/counter_loop.mlir",
        "--in",
        "n=300",
        "--vcd",
        &vcd,
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/circuits/counter_loop.mlir"
    ))
    .expect("example");
    for ty in ["i8", "i64"] {
        let other = file(&format!("counter_{ty}.mlir"), &text.replace("i32", ty));
        // No `--in`: 300 does not fit `i8` as a stimulus; the replay takes it from the trace.
        let msg = fails(&["replay", &other, &vcd]);
        assert!(
            msg.contains(&format!("`n`: 32-bit signal, type {ty}")) && msg.contains("--force"),
            "{msg}"
        );
        assert!(!msg.contains("count: ["), "no report: {msg}");
        let (code, out, err) = handscope(&["replay", &other, &vcd, "--force"]);
        assert_ne!(code, 1, "{out}{err}");
        assert!(err.contains("not as wide as their channels"), "{err}");
    }
}

/// A replayed memory outside the circuit whose contents before the run no `--mem` gave is
/// said to be the trace's writes over zeros, not shown as if known; with `--mem` nothing is
/// said.
#[test]
fn replay_says_when_a_memory_starts_unknown() {
    let circuit = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/circuits/extmem_add.mlir"
    );
    let vcd = file("extmem_add.mem.vcd", "");
    let (code, _, err) = handscope(&["sim", circuit, "--vcd", &vcd]);
    assert_eq!(code, 0, "{err}");
    let (_, _, err) = handscope(&["replay", circuit, &vcd]);
    assert!(
        err.contains("its contents before the run are not in the waveform"),
        "{err}"
    );
    let text = std::fs::read_to_string(circuit).unwrap();
    let mem = handscope_sim::session::header::Header::parse(&text)
        .values("sim")
        .flat_map(|v| v.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .skip_while(|w| w != "--mem")
        .nth(1)
        .expect("the example's header gives its memory");
    let (_, _, err) = handscope(&["replay", circuit, &vcd, "--mem", &mem]);
    assert!(!err.contains("not in the waveform"), "{err}");
}
