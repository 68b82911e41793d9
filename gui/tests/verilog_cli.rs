//! `handscope verilog`, `verilate --run` and `replay` from the command line: the report built
//! from Verilator's VCD equals `sim`'s, for an MLIR circuit, a C kernel and a deadlock; a
//! truncated VCD replays its complete prefix with a warning. Skipped (with a message) when
//! Verilator is not installed; `scripts/test.sh` installs it.

// Test helpers say which checks they skip (missing tools) and what they measured.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// Runs handscope; (exit code, stdout, stderr).
fn handscope(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_handscope"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("run handscope");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn have_verilator() -> bool {
    let ok = Command::new("verilator")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipped: verilator is not installed (scripts/test.sh installs it)");
    }
    ok
}

fn tmp(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("verilog_cli")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn json(s: &str) -> serde_json::Value {
    serde_json::from_str(s).unwrap_or_else(|e| panic!("not JSON ({e}):\n{s}"))
}

fn find_vcd(dir: &Path) -> PathBuf {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "vcd") {
                return p;
            }
        }
    }
    panic!("no VCD under {}", dir.display())
}

/// `sim --json`, `verilate --run --json` and `replay --json` of the VCD agree on everything
/// but the analysis text order; returns the replayed report.
fn round_trip(name: &str, file: &str, stim: &[&str], want_code: i32) -> serde_json::Value {
    let dir = tmp(name);
    let d = dir.to_str().unwrap();
    let mut sim = vec!["sim", file, "--json"];
    sim.extend_from_slice(stim);
    let (code, out, err) = handscope(&sim);
    assert_eq!(code, want_code, "sim {file}: {err}");
    let sim_report = json(&out);

    let mut ver = vec!["verilate", file, "-o", d, "--run", "--json"];
    ver.extend_from_slice(stim);
    let (code, out, err) = handscope(&ver);
    assert_eq!(code, want_code, "verilate --run {file}: {err}");
    let hw_report = json(&out);
    for key in [
        "status", "cycles", "outputs", "memories", "stats", "deadlock",
    ] {
        assert_eq!(
            sim_report[key], hw_report[key],
            "{file}: `{key}` differs between sim and the Verilator run"
        );
    }
    for f in ["design.sv", "tb.cpp", "build.sh"] {
        assert!(dir.join(f).exists(), "{file}: verilate wrote no {f}");
    }

    let vcd = find_vcd(&dir);
    let mut rep = vec![
        "replay",
        file,
        vcd.to_str().unwrap(),
        "--json",
        "--show-mapping",
    ];
    rep.extend_from_slice(stim);
    let (code, out, err) = handscope(&rep);
    assert_eq!(code, want_code, "replay {file}: {err}");
    assert!(err.contains("mapping: scope"), "{err}");
    assert!(
        !err.contains(": no signal"),
        "every channel has a signal:\n{err}"
    );
    let replayed = json(&out);
    for key in [
        "status", "cycles", "outputs", "memories", "stats", "deadlock",
    ] {
        assert_eq!(
            sim_report[key], replayed[key],
            "{file}: `{key}` differs between sim and replay"
        );
    }
    replayed
}

#[test]
fn mlir_circuit_verilates_and_replays_like_sim() {
    if !have_verilator() {
        return;
    }
    let r = round_trip(
        "counter_loop",
        "examples/circuits/counter_loop.mlir",
        &["--in", "n=5", "--in", "start=1"],
        0,
    );
    assert_eq!(r["outputs"]["count"][0]["value"], 5, "{r}");
}

/// Floats through the DPI-C simulation model: `verilate --run` and `replay` give `sim`'s
/// report (every float output bit for bit, NaNs and infinities included).
#[test]
fn float_circuit_verilates_and_replays_like_sim() {
    if !have_verilator() {
        return;
    }
    let r = round_trip(
        "float_ops",
        "examples/circuits/float_ops.mlir",
        &[
            "--in",
            "x=1.5,-2,nan(0x7fc00001),-0,3e38",
            "--in",
            "y=2,0.5,1,0,-3e38",
            "--in",
            "n=3,-4,7,1,-1",
            "--in",
            "start=5",
        ],
        0,
    );
    assert_eq!(r["outputs"]["q"][0]["value"], 0.75, "{r}");
    assert_eq!(r["outputs"]["q"][3]["value"], "-nan", "{r}");
    assert_eq!(r["outputs"]["h"][2]["value"], "nan(0x7fc00001)", "{r}");
    assert_eq!(r["outputs"]["h"][4]["value"], "inf", "{r}");
}

#[test]
fn c_kernel_verilates_and_replays_like_sim() {
    if !have_verilator() {
        return;
    }
    let r = round_trip(
        "gcd",
        "examples/kernels/gcd.c",
        &["--in", "a=48", "--in", "b=18"],
        0,
    );
    let text = r["outputs"].to_string();
    assert!(text.contains("\"value\":6"), "gcd(48, 18) = 6: {text}");
}

#[test]
fn deadlock_verilates_and_replays_like_sim() {
    if !have_verilator() {
        return;
    }
    let r = round_trip(
        "deadlock_join",
        "examples/circuits/deadlock_join.mlir",
        &["--in", "x=7", "--in", "start=1"],
        2,
    );
    assert_eq!(r["status"], "deadlock", "{r}");
    assert!(
        r["deadlock"]["explanation"]
            .to_string()
            .contains("cond_br0 sent its token to outFalse"),
        "{r}"
    );
}

#[test]
fn verilog_names_instances_after_stable_ids_and_truncated_vcds_replay_a_prefix() {
    let dir = tmp("verilog");
    let sv = dir.join("out.sv");
    let (code, _, err) = handscope(&[
        "verilog",
        "examples/kernels/gcd.c",
        "-o",
        sv.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&sv).unwrap();
    assert!(
        text.contains("module gcd"),
        "top module named after the function"
    );
    for port in ["clock", "reset"] {
        assert!(text.contains(port), "top module has {port}");
    }
    // A VCD written by `sim --vcd`, cut in the middle of a timestamp block.
    let vcd = dir.join("run.vcd");
    let (code, _, err) = handscope(&[
        "sim",
        "examples/circuits/counter_loop.mlir",
        "--in",
        "n=5",
        "--in",
        "start=1",
        "--vcd",
        vcd.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let bytes = std::fs::read(&vcd).unwrap();
    let cut = dir.join("cut.vcd");
    // Two thirds into the value changes (the header is most of a short run's file).
    let body = bytes
        .windows(15)
        .position(|w| w == b"$enddefinitions")
        .expect("a header");
    std::fs::write(&cut, &bytes[..body + (bytes.len() - body) * 2 / 3]).unwrap();
    let (code, out, err) = handscope(&[
        "replay",
        "examples/circuits/counter_loop.mlir",
        cut.to_str().unwrap(),
        "--json",
    ]);
    assert!(err.contains("warning"), "a truncated file warns: {err}");
    assert!(
        code == 2 || code == 3 || code == 0,
        "no crash: {code} {err}"
    );
    let r = json(&out);
    assert!(
        r["cycles"].as_u64().unwrap() > 0,
        "a prefix was replayed: {r}"
    );
    // Garbage: a located error, exit 1, no panic.
    let bad = dir.join("bad.vcd");
    std::fs::write(
        &bad,
        "$timescale 1ns $end\n$scope module x $end\n$var wire 1 ! clock $end\n#0\n1!\n#zz\n",
    )
    .unwrap();
    let (code, _, err) = handscope(&[
        "replay",
        "examples/circuits/counter_loop.mlir",
        bad.to_str().unwrap(),
    ]);
    assert_ne!(code, 0);
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains("bad.vcd"), "the error names the file: {err}");
}

/// `verilate -o RELDIR --run` from another working directory: the model writes its VCD into
/// RELDIR, where the replay reads it (it used to look for RELDIR/RELDIR/trace.vcd).
#[test]
fn verilate_run_with_a_relative_output_directory() {
    if !have_verilator() {
        return;
    }
    let cwd = tmp("relative_cwd");
    std::fs::create_dir_all(&cwd).unwrap();
    let file = root().join("examples/circuits/counter_loop.mlir");
    let out = Command::new(env!("CARGO_BIN_EXE_handscope"))
        .args(["verilate", file.to_str().unwrap(), "-o", "rel/out", "--run"])
        .args(["--in", "n=3", "--in", "start=1"])
        .current_dir(&cwd)
        .output()
        .expect("run handscope");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("status: done"), "{text}");
    assert!(cwd.join("rel/out/trace.vcd").is_file(), "{err}");
}

#[test]
fn bench_engine_runs_tiny_and_prints_sane_rows() {
    // The figures are judged in benchmark runs (`handscope bench engine`), never here: this
    // checks that the command builds the four models, runs both sides and prints its table.
    if !have_verilator() {
        return;
    }
    let dir = tmp("bench-engine");
    let d = dir.display().to_string();
    let (code, out, err) = handscope(&["bench", "engine", "--tiny", "--rounds", "1", "--dir", &d]);
    assert_eq!(code, 0, "{out}\n{err}");
    let rows: Vec<Vec<&str>> = out
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|w| w.len() == 12 && (w[1] == "no" || w[1] == "vcd"))
        .collect();
    let names: Vec<(&str, &str)> = rows.iter().map(|w| (w[0], w[1])).collect();
    assert_eq!(
        names,
        [
            ("chain(3)", "no"),
            ("chain(3)", "vcd"),
            ("chain(6)", "no"),
            ("chain(6)", "vcd"),
            ("sumsq", "no"),
            ("matmul8_rep", "no"),
        ],
        "{out}"
    );
    for w in &rows {
        let cycles: u64 = w[2].parse().expect("cycles");
        let secs = |s: &str| s.parse::<f64>().expect("seconds");
        let ratio = |s: &str| s.trim_end_matches('x').parse::<f64>().expect("ratio");
        assert!(cycles > 10, "{out}");
        // Wall seconds are positive; CPU seconds of a tiny run may round to zero.
        assert!(secs(w[3]) > 0.0 && secs(w[4]) > 0.0, "{out}");
        assert!(secs(w[6]) >= 0.0 && secs(w[7]) >= 0.0, "{out}");
        assert!(ratio(w[5]).is_finite() && ratio(w[5]) > 0.0, "{out}");
    }
    // The chains run to the cycle limit on both sides; the kernels run to completion.
    assert!(rows[0][2] == "2000" && rows[1][2] == "500", "{out}");
    // The yardstick's rows: one per chain, same cycles as the runs without waves.
    let ideal: Vec<Vec<&str>> = out
        .lines()
        .skip_while(|l| !l.starts_with("yardstick:"))
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|w| w.len() == 6 && w[0].starts_with("chain("))
        .collect();
    let chains: Vec<(&str, &str)> = ideal.iter().map(|w| (w[0], w[1])).collect();
    assert_eq!(
        chains,
        [("chain(3)", "2000"), ("chain(6)", "1000")],
        "{out}"
    );
    for w in &ideal {
        let secs = w[2].parse::<f64>().expect("seconds");
        assert!(
            secs > 0.0 && w[4].ends_with('x') && w[5].ends_with('x'),
            "{out}"
        );
    }
    // Without waves (the models are cached now): the chains still end at their cycle limit,
    // which is what a chain run must do, not an error. `--dir` relative to the working
    // directory this time (the models run in their own directories).
    let out = Command::new(env!("CARGO_BIN_EXE_handscope"))
        .args([
            "bench",
            "engine",
            "--tiny",
            "--rounds",
            "1",
            "--no-waves",
            "--dir",
        ])
        .arg(dir.file_name().expect("a name"))
        .current_dir(dir.parent().expect("a parent"))
        .output()
        .expect("run handscope");
    let (code, out, err) = (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert_eq!(code, 0, "{out}\n{err}");
    let kinds: Vec<&str> = out
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|w| w.len() == 12 && (w[1] == "no" || w[1] == "vcd"))
        .map(|w| w[1])
        .collect();
    assert_eq!(kinds, ["no"; 4], "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bench_engine_measures_kernels_at_each_timing() {
    // `--kernels`: a kernel with its header stimulus at both timing profiles; the figures are
    // judged in benchmark runs, this checks the rows and what they are made of.
    if !have_verilator() {
        return;
    }
    let dir = tmp("bench-kernels");
    let d = dir.display().to_string();
    let kernel = format!("{}/../examples/kernels/dot.c", env!("CARGO_MANIFEST_DIR"));
    let (code, out, err) = handscope(&[
        "bench",
        "engine",
        "--tiny",
        "--rounds",
        "1",
        "--only-kernels",
        "--kernels",
        &kernel,
        "--dir",
        &d,
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    let rows: Vec<Vec<&str>> = out
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|w| w.len() == 12 && w[0] == "dot")
        .collect();
    let timings: Vec<&str> = rows.iter().map(|w| w[1]).collect();
    assert_eq!(timings, ["ideal", "fpga"], "{out}");
    // The cycles are those `handscope sim` reports for the same kernel and timing.
    for w in &rows {
        let (c, sim_out, e) = handscope(&["sim", &kernel, "--timing", w[1]]);
        assert_eq!(c, 0, "{sim_out}{e}");
        let first = sim_out.lines().next().unwrap_or("");
        assert_eq!(
            first,
            format!("status: done after {} cycles", w[2]),
            "{out}"
        );
        let num = |s: &str| s.trim_end_matches('x').parse::<f64>().expect("a number");
        let (act, eval, of) = (num(w[3]), num(w[4]), num(w[5]));
        assert!(act > 0.0 && act <= 100.0, "{out}");
        assert!(eval > 0.0 && eval <= of, "{out}");
        // Wall seconds are positive; the ratios of a tiny run may round to zero.
        for x in &w[6..9] {
            assert!(num(x).is_finite() && num(x) > 0.0, "{out}");
        }
        for x in &w[9..11] {
            assert!(num(x).is_finite() && num(x) >= 0.0, "{out}");
        }
        assert!(
            w[11].starts_with("activity") || w[11] == "compiled" || w[11] == "interpreter",
            "{out}"
        );
    }
    for t in ["ideal", "fpga"] {
        assert!(
            out.lines()
                .any(|l| l.starts_with(&format!("geomean at {t}: 1 kernels, before "))),
            "{out}"
        );
        assert!(
            out.lines()
                .any(|l| l.starts_with(&format!("geomean with VCD at {t}: 1 kernels, "))),
            "{out}"
        );
    }
    // The runs writing a full VCD: the whole run (`--tiny`), both files written.
    let waves: Vec<Vec<&str>> = out
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|w| w.len() == 9 && w[0] == "dot")
        .collect();
    assert_eq!(waves.len(), 2, "{out}");
    for (w, full) in waves.iter().zip(&rows) {
        assert_eq!(w[1], full[1], "{out}");
        let cycles: u64 = w[2].parse().unwrap();
        assert_eq!(cycles, full[2].parse::<u64>().unwrap(), "{out}");
        for x in &w[3..5] {
            assert!(x.parse::<f64>().unwrap() > 0.0, "{out}");
        }
        for x in &w[6..8] {
            assert!(x.parse::<f64>().unwrap() > 0.0, "{out}");
        }
    }
    // A directory that holds no kernel is refused before anything runs.
    let empty = tmp("bench-kernels-empty");
    std::fs::create_dir_all(&empty).unwrap();
    let (code, _, err) = handscope(&[
        "bench",
        "engine",
        "--tiny",
        "--only-kernels",
        "--kernels",
        &empty.display().to_string(),
        "--dir",
        &d,
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("no .c file"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&empty);
}
