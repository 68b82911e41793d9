//! `handscope sim` on every example circuit, with no stimulus flags, reproduces the answer
//! written in the example's header (it takes the `// sim:` arguments itself; `// expect:`
//! outputs or `deadlock`, `// expect-mem:` memory contents), and `--vcd` writes a well-formed
//! VCD.

use std::path::{Path, PathBuf};
use std::process::Command;

use handscope_sim::session::header::Header;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn header(text: &str, key: &str) -> Vec<String> {
    Header::parse(text).values(key).map(String::from).collect()
}

/// `handscope sim FILE EXTRA --json`: no stimulus flags, so the run takes the file's header
/// stimulus as every command does.
fn run_sim(path: &Path, extra: &[&str]) -> (i32, serde_json::Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_handscope"))
        .arg("sim")
        .arg(path)
        .args(extra)
        .arg("--json")
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{}: bad JSON ({e}): {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), json)
}

/// A value of a report as comparable text: integers as they are, finite floats (JSON numbers
/// with a fraction or exponent) as the `f64` serde_json reads, written with `{:?}`, so that an
/// expectation and the report agree exactly when they spell the same number; non-finite floats
/// are the report's strings ("inf", "-nan", ...).
fn value_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Number(n) if n.is_f64() => format!("{:?}", n.as_f64().unwrap()),
        other => other.to_string(),
    }
}

/// An expected value written in a header, read the way [`value_text`] reads the report: a
/// number without `.`/exponent that the report gives as a float (`2` for `2.0`) compares as
/// that float.
fn normalize(s: &str) -> String {
    let t = s.trim();
    match serde_json::from_str::<serde_json::Value>(t) {
        Ok(v @ serde_json::Value::Number(_)) if t.contains(['.', 'e']) => value_text(&v),
        _ => t.to_string(),
    }
}

fn same(got: &[String], want: &[String]) -> bool {
    got.len() == want.len()
        && got.iter().zip(want).all(|(g, w)| {
            g == w
                || (g.contains('.') && format!("{:?}", w.parse::<f64>().unwrap_or(f64::NAN)) == *g)
        })
}

fn values(list: &serde_json::Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|t| value_text(&t["value"]))
        .collect()
}

fn parse_list(s: &str) -> Vec<String> {
    s.split(',').map(normalize).collect()
}

#[test]
fn every_example_gives_its_expected_answer() {
    let mut checked = 0;
    for entry in std::fs::read_dir(workspace().join("examples/circuits")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let expects = header(&text, "expect");
        if header(&text, "sim").is_empty() || expects.is_empty() {
            continue;
        }
        let (code, report) = run_sim(&path, &[]);
        let name = path.display();
        for e in &expects {
            if e == "deadlock" {
                assert_eq!(report["status"], "deadlock", "{name}: {report:#}");
                assert_eq!(code, 2, "{name}: exit code of a deadlock");
                let chain = report["deadlock"].to_string();
                assert!(
                    chain.contains("join0 waits for join0.in1 (cond_br0.outTrue)")
                        && chain.contains("cond_br0 sent its token to outFalse"),
                    "{name}: the explanation should say why join0 waits: {chain}"
                );
                continue;
            }
            assert_eq!(report["status"], "done", "{name}: {report:#}");
            assert_eq!(code, 0, "{name}: exit code of a finished run");
            let (result, want) = e.split_once('=').unwrap();
            let got = values(&report["outputs"][result]);
            let want = parse_list(want);
            assert!(
                same(&got, &want),
                "{name}: result {result}: got {got:?}, want {want:?}"
            );
        }
        for m in header(&text, "expect-mem") {
            let (mem, want) = m.split_once('=').unwrap();
            let got: Vec<String> = report["memories"][mem]
                .as_array()
                .unwrap()
                .iter()
                .map(value_text)
                .collect();
            let want = parse_list(want);
            assert!(
                same(&got, &want),
                "{name}: memory {mem}: got {got:?}, want {want:?}"
            );
        }
        checked += 1;
    }
    assert!(checked >= 9, "only {checked} examples had expectations");
}

#[test]
fn vcd_has_one_scope_per_node_and_a_clock() {
    let dir = workspace().join("target/test-tmp/vcd");
    std::fs::create_dir_all(&dir).unwrap();
    let vcd = dir.join("counter.vcd");
    let path = workspace().join("examples/circuits/counter_loop.mlir");
    let (code, report) = run_sim(&path, &["--vcd", vcd.to_str().unwrap()]);
    assert_eq!(code, 0);
    let text = std::fs::read_to_string(&vcd).unwrap();
    for needle in [
        "$timescale",
        "$scope module fork0 $end",
        "$scope module mux0 $end",
        " clock $end",
        " out1_valid $end",
        " outTrue_ready $end",
        " n_valid $end",
        "$enddefinitions",
    ] {
        assert!(text.contains(needle), "VCD lacks `{needle}`");
    }
    // One rising clock edge per simulated cycle.
    let cycles = report["cycles"].as_u64().unwrap();
    let clock_id = text
        .lines()
        .find(|l| l.starts_with("$var") && l.contains(" clock $end"))
        .and_then(|l| l.split_whitespace().nth(3))
        .unwrap()
        .to_string();
    let rises = text
        .lines()
        .filter(|l| *l == format!("1{clock_id}"))
        .count() as u64;
    assert_eq!(rises, cycles);
}

#[test]
fn bad_stimulus_names_are_reported() {
    let path = workspace().join("examples/circuits/counter_loop.mlir");
    let out = Command::new(env!("CARGO_BIN_EXE_handscope"))
        .args(["sim", path.to_str().unwrap(), "--in", "nope=1"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no argument `nope`") && err.contains("n, start"),
        "{err}"
    );
}

/// Float arguments and memories: `--in` and `--mem @file` read every float spelling, and the
/// report (text and JSON) writes the values back in the same shortest round-trip form.
#[test]
fn float_stimulus_and_memories_round_trip() {
    let dir = workspace().join("target/test-tmp/float_stim");
    std::fs::create_dir_all(&dir).unwrap();
    let mlir = dir.join("scale.mlir");
    std::fs::write(
        &mlir,
        "handshake.func @scale(%mem: memref<5xf32>, %i: index, %k: f64, %start: none) -> (f32, f64, none) attributes {argNames = [\"mem\", \"i\", \"k\", \"start\"], resNames = [\"v\", \"w\", \"done\"]} {\n  %s:2 = fork [2] %start : none\n  %d, %a = load [%i] %ld, %s#0 : index, f32\n  %ld, %ldone = extmemory[ld = 1, st = 0] (%mem : memref<5xf32>) (%a) {id = 0 : i32} : (index) -> (f32, none)\n  %kk:2 = fork [2] %k : f64\n  %w = arith.mulf %kk#0, %kk#1 : f64\n  %j = join %ldone, %s#1 : none, none\n  return %d, %w, %j : f32, f64, none\n}\n",
    )
    .unwrap();
    let contents = dir.join("mem.txt");
    std::fs::write(&contents, "1.5 -0\nnan(0x7fc00001), 1e-45 0x7f800000\n").unwrap();
    let run = |json: bool| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_handscope"));
        cmd.arg("sim").arg(&mlir).args([
            "--in",
            "i=0,1,2,3,4",
            "--in",
            "k=0.1,-2e-3,inf,-nan,3",
            "--in",
            "start=5",
        ]);
        cmd.arg("--mem").arg(format!("mem=@{}", contents.display()));
        if json {
            cmd.arg("--json");
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let text = run(false);
    assert!(
        text.contains("v: [1.5@0, -0@1, nan(0x7fc00001)@2, 1e-45@3, inf@4]"),
        "{text}"
    );
    // 0.1 * 0.1 in f64, 2e-3 squared, inf, the NaN operand quieted (it already is), 9.
    assert!(
        text.contains("w: [0.010000000000000002@0, 4e-6@1, inf@2, -nan@3, 9@4]"),
        "{text}"
    );
    assert!(
        text.contains("memory mem: [1.5, -0, nan(0x7fc00001), 1e-45, inf]"),
        "{text}"
    );
    let report: serde_json::Value = serde_json::from_str(&run(true)).unwrap();
    assert_eq!(report["memories"]["mem"][0], 1.5);
    assert_eq!(report["memories"]["mem"][2], "nan(0x7fc00001)");
    assert_eq!(report["outputs"]["w"][3]["value"], "-nan");
    // A bad float names the argument and the accepted spellings.
    let out = Command::new(env!("CARGO_BIN_EXE_handscope"))
        .arg("sim")
        .arg(&mlir)
        .args(["--in", "k=1.5,abc", "--in", "i=0", "--in", "start=1"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--in k") && err.contains("`abc` is not a floating-point value"),
        "{err}"
    );
}
