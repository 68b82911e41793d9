//! `--timing` on the command line: built-in profiles, a TOML profile of one's own, errors that
//! name the file, line and column; the same answers under every profile, later under `fpga`.

use std::path::PathBuf;
use std::process::Command;

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_handscope"));
    c.current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    c
}

fn file(name: &str, text: &str) -> String {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("timing_cli");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write input");
    p.display().to_string()
}

/// `sim --json` of the float example under `timing`: (outputs, cycles).
fn sim(timing: &str) -> (serde_json::Value, u64) {
    let out = bin()
        .args([
            "sim",
            "examples/circuits/float_ops.mlir",
            "--in",
            "x=1.5,-2,3",
            "--in",
            "y=2,0.5,0",
            "--in",
            "n=3,-4,7",
            "--in",
            "start=3",
            "--timing",
            timing,
            "--json",
        ])
        .output()
        .expect("run");
    assert!(out.status.success(), "{timing}: {out:?}");
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let mut outputs = j["outputs"].clone();
    // Values only: the cycles differ.
    for (_, toks) in outputs.as_object_mut().unwrap().iter_mut() {
        for t in toks.as_array_mut().unwrap() {
            t.as_object_mut().unwrap().remove("cycle");
        }
    }
    (outputs, j["cycles"].as_u64().unwrap())
}

#[test]
fn profiles_change_cycles_not_answers() {
    let (ideal, c_ideal) = sim("ideal");
    let (fpga, c_fpga) = sim("fpga");
    let mine = file(
        "fast_div.toml",
        "base = \"fpga\"\n[ops]\ndivf = 2\nremf = { latency = 2 }\n\"math.sqrt\" = 3\n",
    );
    let (custom, c_custom) = sim(&mine);
    assert_eq!(ideal, fpga);
    assert_eq!(ideal, custom);
    assert!(
        c_ideal < c_custom && c_custom < c_fpga,
        "{c_ideal} {c_custom} {c_fpga}"
    );
}

#[test]
fn bad_profiles_are_located_errors() {
    let bad = file("bad.toml", "base = \"fpga\"\n[ops]\nfrobf = 3\n");
    let out = bin()
        .args(["sim", "examples/circuits/float_ops.mlir", "--timing", &bad])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.toml:3:1: `frobf`"), "{err}");
    let out = bin()
        .args([
            "sim",
            "examples/circuits/float_ops.mlir",
            "--timing",
            "asic",
        ])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("`ideal`, `fpga`"), "{err}");
}

#[test]
fn compile_sizes_buffers_and_verilog_writes_pipelines() {
    let slots = |timing: &str| -> u64 {
        let out = bin()
            .args([
                "compile",
                "examples/kernels/dot_f32.c",
                "--timing",
                timing,
                "-o",
                "-",
            ])
            .output()
            .expect("run");
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| {
                l.split_once("= buffer [")?
                    .1
                    .split(']')
                    .next()?
                    .parse::<u64>()
                    .ok()
            })
            .sum()
    };
    assert!(slots("fpga") > slots("ideal"));
    let out = bin()
        .args(["verilog", "examples/kernels/dot_f32.c", "--timing", "fpga"])
        .output()
        .expect("run");
    assert!(out.status.success(), "{out:?}");
    let sv = String::from_utf8_lossy(&out.stdout);
    // The kernel accumulates in double: its f64 adder has 12 stages, its f64 multiplier 6.
    assert!(
        sv.contains("module hs_pipeline_l12_ii1_i64"),
        "the f64 addf's 12 stages"
    );
    assert!(sv.contains("module hs_pipeline_l6_ii1_i64"), "the f64 mulf");
    assert!(sv.contains("stage11_valid"));
    let out = bin()
        .args(["verilog", "examples/kernels/dot_f32.c"])
        .output()
        .expect("run");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("hs_pipeline"));
}
