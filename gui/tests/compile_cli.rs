//! `handscope compile`: C kernels to MLIR, DOT and the readable listing; located errors.

use std::process::Command;

fn handscope(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_handscope"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .output()
        .expect("run handscope");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn emits_mlir_dot_and_graph() {
    let (ok, mlir, err) = handscope(&["compile", "examples/kernels/gcd.c"]);
    assert!(ok, "{err}");
    assert!(mlir.contains("handshake.func @gcd("), "{mlir}");
    assert!(
        mlir.contains("handshake.name = \"bb1.control_merge0\""),
        "{mlir}"
    );
    let (ok2, mlir2, _) = handscope(&["compile", "examples/kernels/gcd.c"]);
    assert!(ok2);
    assert_eq!(mlir, mlir2, "compiling twice is byte-identical");

    let (ok, dot, err) = handscope(&["compile", "examples/kernels/gcd.c", "--emit", "dot"]);
    assert!(ok, "{err}");
    assert!(dot.starts_with("digraph"), "{dot}");
    assert!(dot.contains("\"bb1.control_merge0\""), "{dot}");

    let (ok, g, err) = handscope(&["compile", "examples/kernels/gcd.c", "--emit", "graph"]);
    assert!(ok, "{err}");
    assert!(g.starts_with("function @gcd: 33 nodes"), "{g}");
    // Every node line names its block and C source position.
    let line = g
        .lines()
        .find(|l| l.trim_start().starts_with("bb1.control_merge0"))
        .expect("listed");
    assert!(
        line.contains("control_merge") && line.contains("bb1"),
        "{line}"
    );
    assert!(line.contains("examples/kernels/gcd.c:"), "{line}");
}

#[test]
fn options_change_the_graph() {
    let count = |args: &[&str]| {
        let (ok, g, err) = handscope(args);
        assert!(ok, "{err}");
        g.lines().filter(|l| l.contains(" buffer ")).count()
    };
    let base = [
        "compile",
        "examples/kernels/three_loops.c",
        "--emit",
        "graph",
    ];
    let none = count(&[&base[..], &["--buffers", "none"]].concat());
    let cycles = count(&base);
    let all = count(&[&base[..], &["--buffers", "all"]].concat());
    assert!(none < cycles && cycles < all, "{none} {cycles} {all}");
    let (ok, tp, _) = handscope(&[&base[..], &["--task-pipelining"]].concat());
    let (_, plain, _) = handscope(&base);
    assert!(ok);
    assert_ne!(tp, plain, "task pipelining changes the graph");
}

#[test]
fn bad_c_gets_a_located_error() {
    let dir = std::env::temp_dir().join(format!("hs-compile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("bad.c");
    std::fs::write(&f, "int f(int a) {\n  long double x = 1;\n  return a;\n}\n").unwrap();
    let (ok, _, err) = handscope(&["compile", f.to_str().unwrap()]);
    assert!(!ok);
    assert!(err.contains("bad.c:2:"), "{err}");
    let (ok, _, err) = handscope(&["compile", "examples/circuits/counter_loop.mlir"]);
    assert!(!ok);
    assert!(err.contains("takes a C kernel"), "{err}");
}

#[test]
fn sim_names_c_parameters_and_reports_arrays() {
    let (ok, out, err) = handscope(&[
        "sim",
        "examples/kernels/carried_dep.c",
        "--in",
        "k=3",
        "--mem",
        "a=5",
        "--json",
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["status"], "done");
    assert_eq!(v["outputs"]["ret"][0]["value"], 32, "{out}");
    let a: Vec<i64> = v["memories"]["a"]
        .as_array()
        .expect("array parameter in memories")
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect();
    assert_eq!(a, [5, 8, 11, 14, 17, 20, 23, 26, 29, 32]);
}

#[test]
fn func_picks_the_top_and_output_goes_to_a_file() {
    let (ok, g, err) = handscope(&[
        "compile",
        "examples/kernels/helper_call.c",
        "--func",
        "row_sum",
        "--emit",
        "graph",
    ]);
    assert!(ok, "{err}");
    assert!(g.starts_with("function @row_sum: "), "{g}");
    // Channels are listed with their producer and consumers.
    assert!(
        g.contains("\nchannels (name, type: producer -> consumer):\n"),
        "{g}"
    );
    assert!(
        g.lines().any(|l| l.contains(" -> ") && l.contains(".in")),
        "{g}"
    );
    let (ok, _, err) = handscope(&[
        "compile",
        "examples/kernels/helper_call.c",
        "--func",
        "nope",
    ]);
    assert!(!ok);
    assert!(
        err.contains("helper_call.c:") && err.contains("nope"),
        "{err}"
    );

    let dir = std::env::temp_dir().join(format!("hs-compile-o-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("matvec.mlir");
    let (ok, stdout, err) = handscope(&[
        "compile",
        "examples/kernels/matvec.c",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(stdout.is_empty(), "{stdout}");
    let written = std::fs::read_to_string(&out).expect("written");
    let (_, piped, _) = handscope(&["compile", "examples/kernels/matvec.c"]);
    assert_eq!(written, piped);
    assert!(
        written.contains("argNames = [\"a\", \"x\", \"y\", \"start\"]"),
        "{written}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn check_and_dot_take_c_kernels() {
    let (ok, out, err) = handscope(&["check", "examples/kernels/stencil1d.c"]);
    assert!(ok, "{err}");
    assert!(out.contains("@stencil1d:"), "{out}");
    assert!(
        out.contains("(out: memref<12xi32>, in: memref<12xi32>, start: none)"),
        "{out}"
    );
    assert!(out.contains("0 errors"), "{out}");
    let (ok, dot, err) = handscope(&["dot", "examples/kernels/stencil1d.c"]);
    assert!(ok, "{err}");
    assert!(dot.starts_with("digraph \"stencil1d\""), "{dot}");
    // Unknown C parameter names are rejected with the list of real ones.
    let (ok, _, err) = handscope(&["sim", "examples/kernels/carried_dep.c", "--in", "kk=3"]);
    assert!(!ok);
    assert!(
        err.contains("no argument `kk`") && err.contains("a, k, start"),
        "{err}"
    );
}

#[test]
fn sim_reports_every_array_parameter() {
    let (ok, out, err) = handscope(&[
        "sim",
        "examples/kernels/stencil1d.c",
        "--mem",
        "in=1,2,3,4",
        "--json",
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["status"], "done");
    let mem = |name: &str| -> Vec<i64> {
        v["memories"][name]
            .as_array()
            .unwrap_or_else(|| panic!("memory {name} in {out}"))
            .iter()
            .map(|x| x.as_i64().unwrap())
            .collect()
    };
    assert_eq!(mem("in"), [1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0]);
    // (1 2 1)/4 with clamped borders.
    assert_eq!(mem("out"), [1, 2, 3, 2, 1, 0, 0, 0, 0, 0, 0, 0]);
}

/// Values keep their C signedness in reports: an `uint16_t` result and `uint8_t` array
/// elements print as unsigned numbers, from the C file and from the MLIR it compiles to
/// (the `handscope.unsigned` function attribute), while signed types stay signed.
#[test]
fn reports_print_unsigned_c_types_as_unsigned() {
    let (ok, out, err) = handscope(&["sim", "examples/kernels/bitrev.c", "--in", "x=1"]);
    assert!(ok, "{err}");
    assert!(out.contains("ret: [32768@"), "{out}");
    let (ok, out, err) = handscope(&[
        "sim",
        "examples/kernels/histogram.c",
        "--in",
        "n=7",
        "--mem",
        "data=1,1,1,2,3,250,250",
    ]);
    assert!(ok, "{err}");
    assert!(
        out.contains("memory data: [1, 1, 1, 2, 3, 250, 250,"),
        "{out}"
    );
    let dir = std::env::temp_dir().join(format!("hs-unsigned-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mlir = dir.join("bitrev.mlir");
    let (ok, text, err) = handscope(&["compile", "examples/kernels/bitrev.c", "--emit", "mlir"]);
    assert!(ok, "{err}");
    assert!(
        text.contains("handscope.unsigned = [\"ret\", \"x\"]"),
        "{text}"
    );
    std::fs::write(&mlir, text).unwrap();
    let (ok, out, err) = handscope(&["sim", mlir.to_str().unwrap(), "--in", "x=1", "--json"]);
    assert!(ok, "{err}");
    assert!(out.contains("32768"), "{out}");
    assert!(!out.contains("-32768"), "{out}");
    // A signed result stays signed.
    let src = dir.join("neg.c");
    std::fs::write(&src, "short f(short a) { return a - 3; }\n").unwrap();
    let (ok, out, err) = handscope(&["sim", src.to_str().unwrap(), "--in", "a=1"]);
    assert!(ok, "{err}");
    assert!(out.contains("ret: [-2@"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn without_a_display_the_debugger_points_to_render() {
    for args in [
        vec![],
        vec!["gui", "examples/kernels/gcd.c"],
        vec!["gui", "examples/circuits/deadlock_join.mlir"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_handscope"))
            .args(&args)
            .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .output()
            .expect("run handscope");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(69), "{args:?}: {err}");
        assert!(err.contains("no display available"), "{args:?}: {err}");
        assert!(err.contains("handscope render"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// A Wayland-only session (no XWayland) in a build without the `wayland` feature: the error
/// says why the window cannot open and how to get one.
#[test]
fn a_wayland_only_display_names_xwayland_and_the_feature() {
    let out = Command::new(env!("CARGO_BIN_EXE_handscope"))
        .args(["gui", "examples/kernels/gcd.c"])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .env_remove("DISPLAY")
        .env("WAYLAND_DISPLAY", "wayland-0")
        .output()
        .expect("run handscope");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(69), "{err}");
    assert!(err.contains("only a Wayland display is set"), "{err}");
    assert!(err.contains("XWayland"), "{err}");
    assert!(err.contains("--features wayland"), "{err}");
    assert!(err.contains("handscope render"), "{err}");
}

/// `check` on MLIR compiled from C shows, under a C location, the C source line (read beside
/// the MLIR file) and never the MLIR file's line of the same number.
#[test]
fn check_shows_the_line_of_the_file_a_location_names() {
    let dir = std::env::temp_dir().join(format!("hs-check-loc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let c = "int f(int a) {\n  int x = a;\n  return x / 3 + a;\n}\n";
    std::fs::write(dir.join("k.c"), c).unwrap();
    let kc = dir.join("k.c");
    let (ok, mlir, err) = handscope(&["compile", kc.to_str().unwrap()]);
    assert!(ok, "{err}");
    // Make the constant unused (a problem located at the C line of `3`).
    let line = mlir
        .lines()
        .find(|l| l.contains("arith.divsi"))
        .expect("a division");
    let cst = line
        .split(", ")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap();
    let broken = mlir.replace(
        line,
        &line.replacen(
            cst,
            line.split_whitespace()
                .nth(3)
                .unwrap()
                .trim_end_matches(','),
            1,
        ),
    );
    let path = dir.join("k.mlir");
    std::fs::write(&path, &broken).unwrap();
    let (ok, out, _) = handscope(&["check", "--strict", path.to_str().unwrap()]);
    assert!(!ok);
    assert!(out.contains("   |   return x / 3 + a;"), "{out}");
    // Without the C file, no source line at all (not the MLIR file's line 3).
    std::fs::remove_file(&kc).unwrap();
    let (_, out, _) = handscope(&["check", path.to_str().unwrap()]);
    let mlir_line3 = broken.lines().nth(2).unwrap();
    assert!(!out.contains(mlir_line3.trim()), "{out}");
    assert!(!out.contains("   | "), "{out}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Output piped into a reader that stops early (`| head`) ends the process quietly.
#[cfg(unix)]
#[test]
fn a_closed_pipe_is_not_a_panic() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    // Far more output than a pipe buffers (64 KiB), so the writer meets the closed pipe.
    let dir = std::env::temp_dir().join(format!("hs-pipe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let body: String = (0..3000).map(|i| format!("  x = x * 3 + {i};\n")).collect();
    let path = dir.join("long.c");
    std::fs::write(&path, format!("int f(int x) {{\n{body}  return x;\n}}\n")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_handscope"))
        .args(["compile", path.to_str().unwrap(), "--emit", "mlir"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    // The reader is dropped here: the rest of the output has nowhere to go.
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_ne!(out.status.code(), Some(101), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A float kernel end to end: `--in` takes floats, a float division by zero gives its IEEE
/// result (`inf`, `-nan` for 0/0) and a `division-by-zero` event naming the `divf` node, and
/// float arrays print in shortest round-trip form.
#[test]
fn c_float_division_by_zero_is_ieee_with_an_event() {
    let dir = std::env::temp_dir().join(format!("hs-fdiv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("ratio.c");
    std::fs::write(
        &path,
        "// TOP: ratio\nfloat ratio(float a, float b, double v[2]) {\n  v[0] = v[0] / b;\n  v[1] = 0.1f;\n  return a / b;\n}\n",
    )
    .unwrap();
    let p = path.to_str().unwrap();
    let (ok, out, err) = handscope(&["sim", p, "--in", "a=1.5", "--in", "b=0", "--mem", "v=-2,7"]);
    assert!(ok, "{err}");
    assert!(out.contains("ret: [inf@"), "{out}");
    assert!(
        out.contains("memory v: [-inf, 0.10000000149011612]"),
        "{out}"
    );
    assert!(
        out.contains("divf") && out.contains("division by zero; the IEEE result is inf"),
        "{out}"
    );
    let (ok, out, err) = handscope(&[
        "sim", p, "--in", "a=0", "--in", "b=-0", "--mem", "v=1,1", "--json",
    ]);
    assert!(ok, "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(json["outputs"]["ret"][0]["value"], "-nan");
    let kinds: Vec<&str> = json["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["division-by-zero", "division-by-zero"], "{out}");
    // A constant zero divisor is not folded away: the division runs and reports.
    let path = dir.join("konst.c");
    std::fs::write(
        &path,
        "// TOP: konst\ndouble konst(void) {\n  return -1.0 / 0.0;\n}\n",
    )
    .unwrap();
    let (ok, out, err) = handscope(&["sim", path.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(out.contains("ret: [-inf@"), "{out}");
    assert!(
        out.contains("division by zero; the IEEE result is -inf"),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A kernel that includes a tool's header from elsewhere, the way HLS benchmark suites do
/// (`#include "tool/harness.h"` found through `-I`): the header defines its call macro with
/// GCC's named variadic parameter and keeps C++ in a section the kernel never enables.
#[test]
fn include_dirs_from_the_command_line_and_cpath() {
    let root = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("include_dirs");
    let _ = std::fs::remove_dir_all(&root);
    let inc = root.join("inc");
    let kdir = root.join("kernel");
    std::fs::create_dir_all(inc.join("tool")).unwrap();
    std::fs::create_dir_all(&kdir).unwrap();
    std::fs::write(
        inc.join("tool/harness.h"),
        "#ifndef TOOL_HARNESS_H\n#define TOOL_HARNESS_H\n#ifdef TOOL_PROFILE\n\
         #include <iostream>\ntemplate <typename T> static void dump(const T &x) { std::cout << x; }\n\
         #define RUN(kernel, args...) (dump(kernel(args)))\n#else\n\
         #define RUN(kernel, args...) kernel(args)\n#endif\n#endif\n",
    )
    .unwrap();
    let k = kdir.join("k.c");
    std::fs::write(
        &k,
        "#include <assert.h>\n#include \"tool/harness.h\"\n\
         int k(int a, int b) {\n  assert(a >= 0);\n  return a * b + 1;\n}\n\
         int main(void) {\n  return RUN(k, 6, 7);\n}\n",
    )
    .unwrap();
    let kp = k.display().to_string();
    let ip = inc.display().to_string();
    // Without the include directory: a located error saying where it looked.
    let (ok, _, err) = handscope(&["sim", &kp, "--func", "k", "--in", "a=6", "--in", "b=7"]);
    assert!(!ok);
    assert!(err.contains("k.c:2:10"), "{err}");
    assert!(
        err.contains("cannot find include file 'tool/harness.h'"),
        "{err}"
    );
    // `-I DIR` before or after the subcommand.
    for args in [
        vec![
            "-I", &ip, "sim", &kp, "--func", "k", "--in", "a=6", "--in", "b=7",
        ],
        vec![
            "sim", &kp, "--func", "k", "--in", "a=6", "--in", "b=7", "-I", &ip,
        ],
    ] {
        let (ok, out, err) = handscope(&args);
        assert!(ok, "{args:?}: {err}");
        assert!(out.contains("ret: [43@"), "{out}");
    }
    // `CPATH`, as C compilers read it.
    let out = Command::new(env!("CARGO_BIN_EXE_handscope"))
        .args(["compile", &kp, "--func", "k"])
        .env("CPATH", format!("/nonexistent:{ip}"))
        .output()
        .expect("run handscope");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("handshake.func @k("));
}

/// A file in Dynamatic's dialect: `check` reads it, says what it holds and what `sim` will do
/// with it; `sim` simulates it, or says plainly at which op what is not simulated yet (never
/// CIRCT's "expected a type" on the first `!handshake.channel`).
#[test]
fn dynamatic_files_are_recognized_and_checked() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    // What `sim` says of each snippet: a valid-path cycle without a buffer (E2 and E4, whose
    // LSQ simulates), extra signals (E3), a research-branch `init` (E5).
    let refusals = [
        ("e2", "combinational cycle"),
        ("e3", "extra signals"),
        ("e4", "combinational cycle"),
        ("e5", "`init`: a research-branch component"),
    ];
    for (era, why) in refusals {
        let file = format!("compiler/tests/data/dynamatic/{era}.mlir");
        let out = Command::new(env!("CARGO_BIN_EXE_handscope"))
            .args(["check", &file])
            .current_dir(root)
            .output()
            .expect("run handscope");
        let (so, se) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert_eq!(out.status.code(), Some(0), "{file}: {so}{se}");
        let era_upper = era.to_uppercase();
        assert!(
            so.contains(&format!("Dynamatic's dialect, syntax era {era_upper}")),
            "{file}: {so}"
        );
        assert!(so.contains("operations,"), "{file}: {so}");
        assert!(so.contains("    ops: "), "{file}: {so}");
        assert!(so.contains(why), "{file}: {so}");
        assert!(
            so.lines().last().unwrap_or("").starts_with("ok: "),
            "{file}: {so}"
        );
        // The E3 snippet holds a research-branch op (`passer`) and extra signals: said.
        assert_eq!(
            so.contains("that Handscope does not simulate: passer 1"),
            era == "e3",
            "{file}: {so}"
        );
        assert_eq!(
            so.contains("with extra signals"),
            era == "e3",
            "{file}: {so}"
        );

        let out = Command::new(env!("CARGO_BIN_EXE_handscope"))
            .args(["sim", &file, "--max-cycles", "300"])
            .current_dir(root)
            .output()
            .expect("run handscope");
        let se = String::from_utf8_lossy(&out.stderr);
        // E2's and E4's circuits are read and simulated with a warning (as a CIRCT file that
        // fails `check` is), and their unbuffered loops do not finish: E2 deadlocks, E4 runs
        // to the cycle limit (its LSQ's `memEnd` stays offered, as Dynamatic's RTL keeps it,
        // and the result takes it every cycle); the others are refused.
        let code = match era {
            "e2" => 2,
            "e4" => 3,
            _ => 1,
        };
        assert_eq!(out.status.code(), Some(code), "{file}: {se}");
        assert!(se.contains(why), "{file}: {se}");
        assert!(!se.contains("panicked"), "{file}: {se}");
    }
    // Circuits it simulates: `check` says so, `sim` runs them with Dynamatic's testbench
    // conventions (`x` a cycle after `start`; the memory's start control fed by default).
    for (name, args, expect) in [
        ("inc_e4", vec!["--in", "x=7"], "out0: [21@6]"),
        (
            "mem_e4",
            vec!["--mem", "a=1,2,3,4"],
            "memory a: [1, 2, 12, 4]",
        ),
    ] {
        let file = format!("compiler/tests/data/dynamatic/{name}.mlir");
        let out = Command::new(env!("CARGO_BIN_EXE_handscope"))
            .args(["check", &file])
            .current_dir(root)
            .output()
            .expect("run handscope");
        let so = String::from_utf8_lossy(&out.stdout);
        assert!(so.contains(": simulates as "), "{file}: {so}");
        let out = Command::new(env!("CARGO_BIN_EXE_handscope"))
            .args(["sim", &file])
            .args(&args)
            .current_dir(root)
            .output()
            .expect("run handscope");
        let (so, se) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert_eq!(out.status.code(), Some(0), "{file}: {so}{se}");
        assert!(so.contains(expect), "{file}: {so}");
        assert!(!se.contains("no tokens for"), "{file}: {se}");
    }
    // A CIRCT timing profile does not apply to Dynamatic's units.
    let out = Command::new(env!("CARGO_BIN_EXE_handscope"))
        .args([
            "sim",
            "compiler/tests/data/dynamatic/inc_e4.mlir",
            "--in",
            "x=7",
            "--timing",
            "fpga",
        ])
        .current_dir(root)
        .output()
        .expect("run handscope");
    let se = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{se}");
    assert!(se.contains("--timing dynamatic"), "{se}");
    // A Dynamatic file with an error: located, exit 1.
    let dir = std::env::temp_dir().join(format!("hs-dyn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.mlir");
    std::fs::write(
        &bad,
        "module {\n  handshake.func @f(%arg0: !handshake.control<>, ...) -> (!handshake.control<>) attributes {argNames = [\"start\"], resNames = [\"end\"]} {\n    end {handshake.bb = 0 : ui32, handshake.name = \"end0\"} %nowhere : <>\n  }\n}\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_handscope"))
        .args(["check", bad.to_str().unwrap()])
        .output()
        .expect("run handscope");
    let se = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{se}");
    assert!(se.contains("bad.mlir:3:"), "{se}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--memory lsq`: the kernel's array goes through a load-store queue, `sim` gives the same
/// memory as the serial order, `throughput` says what the order cost, the MLIR holds the
/// queue and reads back, and `verilog` writes the queue's module.
#[test]
fn memory_lsq_compiles_simulates_and_writes_verilog() {
    let k = "examples/kernels/histogram.c";
    let (ok, serial, err) = handscope(&["sim", k]);
    assert!(ok, "{err}");
    let (ok, lsq, err) = handscope(&["sim", k, "--memory", "lsq"]);
    assert!(ok, "{err}");
    let hist = |s: &str| {
        s.lines()
            .find(|l| l.contains("memory hist:"))
            .unwrap_or("")
            .to_string()
    };
    assert!(!hist(&serial).is_empty(), "{serial}");
    assert_eq!(hist(&serial), hist(&lsq));
    assert!(serial.contains("status: done after 96 cycles"), "{serial}");
    assert!(lsq.contains("status: done after 71 cycles"), "{lsq}");
    // The queue's depth: one entry each serializes the iterations, two let two overlap,
    // from four on the loop sets the pace.
    for (d, cycles) in [("1/1", 226), ("2/2", 116), ("4/4", 71)] {
        let depth = format!("mem.hist={d}");
        let (ok, out, err) = handscope(&["sim", k, "--memory", "lsq", "--lsq-depth", &depth]);
        assert!(ok, "{err}");
        assert!(
            out.contains(&format!("status: done after {cycles} cycles")),
            "{d}: {out}"
        );
    }
    let (ok, _, err) = handscope(&["sim", k, "--memory", "lsq", "--lsq-depth", "mem.x=2/2"]);
    assert!(!ok);
    assert!(err.contains("(it has `mem.hist`)"), "{err}");
    let (ok, t, err) = handscope(&["throughput", k, "--memory", "lsq"]);
    assert!(ok, "{err}");
    assert!(t.contains("memory ordering in mem.hist:"), "{t}");
    let (ok, mlir, err) = handscope(&["compile", k, "--memory", "lsq"]);
    assert!(ok, "{err}");
    assert!(
        mlir.contains("dyn_lsq[groups = \"ls\", ldq = 16, stq = 16, end_once]"),
        "{mlir}"
    );
    let dir = std::env::temp_dir().join(format!("hs-lsq-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("h.mlir");
    std::fs::write(&file, &mlir).unwrap();
    let (ok, again, err) = handscope(&[
        "sim",
        file.to_str().unwrap(),
        "--mem",
        "data=3,3,4",
        "--in",
        "n=3",
    ]);
    assert!(ok, "{err}");
    assert!(again.contains("status: done"), "{again}");
    let (ok, sv, err) = handscope(&["verilog", file.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(sv.contains("module hs_dyn_lsq_m_gls_l16_s16_once"), "{sv}");
    assert!(sv.contains("logic ldq0_alloc, ldq0_issued"), "{sv}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--memory queue`: the kernel's array gets an address queue, `sim` gives the same memory as
/// the serial order in fewer cycles, the depth comes from `--lsq-depth`, `throughput` says
/// what the order cost, the MLIR holds the queue and reads back, `verilog` writes its module,
/// and task pipelining with it is refused.
#[test]
fn memory_queue_compiles_simulates_and_writes_verilog() {
    let k = "examples/kernels/histogram.c";
    let (ok, serial, err) = handscope(&["sim", k]);
    assert!(ok, "{err}");
    let (ok, queue, err) = handscope(&["sim", k, "--memory", "queue"]);
    assert!(ok, "{err}");
    let hist = |s: &str| {
        s.lines()
            .find(|l| l.contains("memory hist:"))
            .unwrap_or("")
            .to_string()
    };
    assert!(!hist(&serial).is_empty(), "{serial}");
    assert_eq!(hist(&serial), hist(&queue));
    assert!(queue.contains("status: done after 65 cycles"), "{queue}");
    for (d, cycles) in [("1/1", 80), ("1/2", 65)] {
        let depth = format!("mem.hist={d}");
        let (ok, out, err) = handscope(&["sim", k, "--memory", "queue", "--lsq-depth", &depth]);
        assert!(ok, "{err}");
        assert!(
            out.contains(&format!("status: done after {cycles} cycles")),
            "{d}: {out}"
        );
    }
    let (ok, t, err) = handscope(&["throughput", k, "--memory", "queue"]);
    assert!(ok, "{err}");
    assert!(
        t.contains("memory ordering in queue.hist: loads waited"),
        "{t}"
    );
    let (ok, _, err) = handscope(&["compile", k, "--memory", "queue", "--task-pipelining"]);
    assert!(!ok);
    assert!(
        err.contains("task pipelining with load-store or address queues"),
        "{err}"
    );
    let (ok, mlir, err) = handscope(&["compile", k, "--memory", "queue"]);
    assert!(ok, "{err}");
    assert!(
        mlir.contains("addr_queue[ld = 1, st = 1, depth = 16]"),
        "{mlir}"
    );
    let dir = std::env::temp_dir().join(format!("hs-queue-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("h.mlir");
    std::fs::write(&file, &mlir).unwrap();
    let (ok, again, err) = handscope(&[
        "sim",
        file.to_str().unwrap(),
        "--mem",
        "data=3,3,4",
        "--in",
        "n=3",
    ]);
    assert!(ok, "{err}");
    assert!(again.contains("status: done"), "{again}");
    assert!(again.contains("memory hist: [0, 0, 0, 2, 1, 0"), "{again}");
    let (ok, sv, err) = handscope(&["verilog", file.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(sv.contains("module hs_addr_queue_l1_s1_d16_a64"), "{sv}");
    assert!(sv.contains("logic st0_order_pending;"), "{sv}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--lsq-depth`: a malformed value and a name that is no queue of the file are errors that
/// say what is expected; a depth changes the run.
#[test]
fn lsq_depth_is_checked() {
    let f = "compiler/tests/data/dynamatic/lsq3_e4.mlir";
    let (ok, _, err) = handscope(&["sim", f, "--lsq-depth", "lsq0"]);
    assert!(!ok);
    assert!(err.contains("expected NAME=LOADS/STORES"), "{err}");
    let (ok, _, err) = handscope(&["sim", f, "--lsq-depth", "lsq0=0/4"]);
    assert!(!ok);
    assert!(err.contains("between 1 and 64 entries"), "{err}");
    let (ok, _, err) = handscope(&["sim", f, "--lsq-depth", "lsq9=4/4"]);
    assert!(!ok);
    assert!(err.contains("names no load-store"), "{err}");
    assert!(err.contains("`lsq0`"), "{err}");
    let (ok, out, err) = handscope(&["check", f, "--lsq-depth", "lsq0=8/8"]);
    assert!(ok, "{err}");
    assert!(out.contains("lsq lsq0 (master)"), "{out}");
}

/// `sim --engine activity` (the activity-driven interpreter) prints the interpreter's report
/// on C kernels under both timing profiles.
#[test]
fn sim_engine_activity_prints_the_interpreters_report() {
    for (file, timing) in [
        ("examples/kernels/histogram.c", "ideal"),
        ("examples/kernels/jacobi1d_f32.c", "fpga"),
        ("examples/kernels/insertion_sort.c", "fpga"),
    ] {
        let (ok, interp, err) =
            handscope(&["sim", file, "--timing", timing, "--engine", "interpreter"]);
        assert!(ok, "{err}");
        let (ok, act, err) = handscope(&["sim", file, "--timing", timing, "--engine", "activity"]);
        assert!(ok, "{err}");
        assert!(interp.contains("status: done"), "{interp}");
        assert_eq!(interp, act, "{file} under {timing}");
    }
}

#[test]
fn sim_engine_stats_counts_the_instructions_evaluated() {
    // `--engine-stats` on stderr: the activity-driven engine evaluates fewer instructions per
    // cycle than a cycle has; the others evaluate them all. The report is unchanged.
    let file = "examples/kernels/jacobi1d_f32.c";
    let (ok, plain, err) = handscope(&["sim", file, "--timing", "fpga", "--engine", "activity"]);
    assert!(ok, "{err}");
    let (ok, out, err) = handscope(&[
        "sim",
        file,
        "--timing",
        "fpga",
        "--engine",
        "activity",
        "--engine-stats",
    ]);
    assert!(ok, "{err}");
    assert_eq!(out, plain);
    let line = err
        .lines()
        .find(|l| l.starts_with("engine: activity; instructions per cycle: "))
        .unwrap_or_else(|| panic!("{err}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let evaluated: f64 = words[5].parse().expect("evaluated");
    let of: f64 = words[8].parse().expect("of");
    assert!(evaluated > 0.0 && evaluated < of, "{line}");
    let (ok, _, err) = handscope(&["sim", file, "--engine", "interpreter", "--engine-stats"]);
    assert!(ok, "{err}");
    assert!(
        err.lines().any(
            |l| l.starts_with("engine: interpreter; instructions per cycle: ")
                && l.contains("(100.0%)")
        ),
        "{err}"
    );
}

/// `handscope schedule`: the static-island candidates of a kernel, their stage tables and
/// unit limits; the loops that stay dynamic say why; bad flags and inputs are refused.
#[test]
fn schedule_prints_static_islands() {
    let (ok, out, err) = handscope(&["schedule", "examples/kernels/dot.c", "--timing", "fpga"]);
    assert!(ok, "{err}");
    assert!(out.starts_with("timing: fpga\n"), "{out}");
    assert!(out.contains("static, II 1 (lower bound 1)"), "{out}");
    assert!(out.contains("stage  cycle  latency  operation"), "{out}");
    assert!(out.contains("muli (line 9)"), "{out}");
    let (ok, out, err) = handscope(&[
        "schedule",
        "examples/kernels/matmul.c",
        "--timing",
        "fpga",
        "--units",
        "muli=1",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("static, II 3 (lower bound 3)"), "{out}");
    // Serial memory order keeps a loop's stores in order: an island; under `--memory lsq`
    // its array is ordered at run time: it stays dynamic.
    let (ok, out, _) = handscope(&["schedule", "examples/kernels/prefix_sum.c"]);
    assert!(ok);
    assert!(out.contains("static, II"), "{out}");
    let (ok, out, _) = handscope(&[
        "--memory",
        "lsq",
        "schedule",
        "examples/kernels/prefix_sum.c",
    ]);
    assert!(ok);
    assert!(out.contains("stays dynamic: it"), "{out}");
    // --compare: cycles and size under each schedule.
    let (ok, out, err) = handscope(&[
        "schedule",
        "examples/kernels/dot.c",
        "--timing",
        "fpga",
        "--compare",
    ]);
    assert!(ok, "{err}");
    let rows: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("schedules under fpga:"))
        .collect();
    assert_eq!(rows.len(), 5, "{out}");
    let cycles = |name: &str| -> u64 {
        let row = rows
            .iter()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("{name}: {out}"));
        row.split_whitespace().nth(1).unwrap().parse().unwrap()
    };
    // The dot product's loads wait on each other in the dynamic circuit (II about 6); the
    // island starts an iteration per cycle.
    assert!(cycles("hybrid") * 3 < cycles("dynamic"), "{out}");
    assert!(cycles("static") < cycles("dynamic"), "{out}");
    let (ok, _, err) = handscope(&["schedule", "examples/kernels/dot.c", "--units", "muli=0"]);
    assert!(!ok && err.contains("at least one unit"), "{err}");
    let (ok, _, err) = handscope(&["schedule", "examples/kernels/dot.c", "--units", "muli"]);
    assert!(!ok && err.contains("KIND=N"), "{err}");
    let (ok, _, err) = handscope(&["schedule", "examples/circuits/counter_loop.mlir"]);
    assert!(!ok && err.contains("takes a C kernel"), "{err}");
}
