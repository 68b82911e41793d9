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
    assert_eq!(msg.matches("os error").count(), 1, "{msg}");
}
