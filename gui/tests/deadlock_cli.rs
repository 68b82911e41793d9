//! How `sim` explains deadlocks (issue 15 item 4), one small circuit per rule: an argument
//! that ran out of tokens comes first (a C kernel's start token too); a loop that simply
//! finished is not a wait-for cycle; a branch's deciding value is stated; a chain through a
//! fork that already delivered its copy is not a cycle; nothing is explained twice.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// `handscope sim FILE ARGS --json` from the workspace: the report's deadlock section.
fn deadlock(file: &Path, args: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_handscope"))
        .arg("sim")
        .arg(file)
        .args(args)
        .arg("--json")
        .current_dir(workspace())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "a deadlock: {out:?}");
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    r["deadlock"].clone()
}

fn strs(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

/// No wait-for step (waiting node, channel) is explained twice, and no cause is listed twice.
fn nothing_twice(d: &serde_json::Value) {
    let mut steps = BTreeSet::new();
    for p in d["paths"].as_array().unwrap() {
        for s in p["steps"].as_array().unwrap() {
            let key = (s["from"].to_string(), s["channel"].to_string());
            assert!(steps.insert(key.clone()), "step {key:?} twice: {d:#}");
        }
    }
    let causes = strs(&d["causes"]);
    let set: BTreeSet<_> = causes.iter().collect();
    assert_eq!(set.len(), causes.len(), "{causes:?}");
}

fn mlir(dir: &tempfile::TempDir, text: &str) -> PathBuf {
    let p = dir.path().join("t.mlir");
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn an_argument_that_ran_out_of_tokens_comes_first() {
    let dir = tempfile::tempdir().unwrap();
    let p = mlir(
        &dir,
        "handshake.func @add(%a: i32, %b: i32, ...) -> (i32) attributes {argNames = [\"a\", \"b\"], resNames = [\"s\"]} {\n  %s = arith.addi %a, %b : i32\n  return %s : i32\n}\n",
    );
    let d = deadlock(&p, &["--in", "a=1,2", "--in", "b=5"]);
    let causes = strs(&d["causes"]);
    assert_eq!(
        causes[0],
        "argument `b` ran out of tokens: it was given 1, the other arguments 2 (one per invocation)",
        "{d:#}"
    );
    let text = strs(&d["explanation"]).join("\n");
    assert!(
        text.contains("Most likely cause: argument `b` ran out"),
        "{text}"
    );
    nothing_twice(&d);
}

#[test]
fn a_c_kernels_start_token_is_blamed_not_its_finished_loops() {
    // Four values of v but one start token: the first invocation runs its three loops to the
    // end; the second never starts.
    let d = deadlock(
        Path::new("examples/kernels/three_loops.c"),
        &["--in", "v=1,2,3,4"],
    );
    let causes = strs(&d["causes"]);
    assert!(
        causes[0].starts_with(
            "argument `start` ran out of tokens: it was given 1, the other arguments 4"
        ),
        "{causes:?}"
    );
    // The three loops finished: no wait-for cycle, and no cond_br is blamed.
    assert_eq!(d["cycles"].as_array().unwrap().len(), 0, "{d:#}");
    assert_eq!(d["finished_loops"].as_array().unwrap().len(), 3, "{d:#}");
    assert!(
        causes.iter().all(|c| !c.contains("sent its token")),
        "a loop exit is not a cause: {causes:?}"
    );
    nothing_twice(&d);
}

#[test]
fn a_loop_that_finished_is_not_a_wait_for_cycle() {
    // counter_loop with two values of n and one start token.
    let d = deadlock(
        Path::new("examples/circuits/counter_loop.mlir"),
        &["--in", "n=3,4", "--in", "start=1"],
    );
    assert_eq!(d["cycles"].as_array().unwrap().len(), 0, "{d:#}");
    let loops = &d["finished_loops"];
    assert_eq!(loops.as_array().unwrap().len(), 1, "{d:#}");
    assert!(strs(&loops[0]).contains(&"control_merge0".to_string()));
    assert!(strs(&d["causes"])[0].starts_with("argument `start` ran out of tokens"));
    nothing_twice(&d);
}

#[test]
fn the_deciding_value_of_a_branch_is_stated_and_a_fork_that_delivered_is_no_cycle() {
    let d = deadlock(
        Path::new("examples/circuits/deadlock_join.mlir"),
        &["--in", "x=7", "--in", "start=1"],
    );
    let causes = strs(&d["causes"]);
    assert_eq!(
        causes,
        [
            "cond_br0 sent its token to outFalse (cond = (7 < 0) = false; last at cycle 0, 1 token in total)"
        ],
        "{d:#}"
    );
    // fork0 already gave constant0 its copy: constant0 -> fork0 is no wait, so fork0 ->
    // join0 -> cond_br0 -> cmpi0 -> constant0 is no wait-for cycle.
    assert_eq!(d["cycles"].as_array().unwrap().len(), 0, "{d:#}");
    assert!(
        !d["waits"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["from"] == "constant0" && w["to"] == "fork0"),
        "{d:#}"
    );
    nothing_twice(&d);
    // The operands are the run's values.
    let d = deadlock(
        Path::new("examples/circuits/deadlock_join.mlir"),
        &["--in", "x=12", "--in", "start=1"],
    );
    assert!(
        strs(&d["causes"])[0].contains("cond = (12 < 0) = false"),
        "{d:#}"
    );
}
