//! `handscope throughput` and `handscope tune`: the model's predictions against measured runs
//! (unbalanced reconvergent paths, a chain of them, a loop with several tasks in flight), the
//! tuner reaching the throughput the issue asks for, and, for every example circuit and C
//! kernel, a tuned circuit that gives the same answer in no more cycles (also after writing
//! it as MLIR and reading it back).

use std::path::{Path, PathBuf};
use std::process::Command;

use handscope_compiler::c::{HsOptions, compile_to_handshake};
use handscope_compiler::mlir::{parse_mlir, write_mlir};
use handscope_sim::Module;
use handscope_sim::report::Status;
use handscope_sim::session::header::{Header, run_stimulus};
use handscope_sim::session::{Session, StimulusArgs};
use handscope_sim::throughput::tune::{self, TuneError, TuneOptions, same_answer};
use serde_json::Value;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn tmp(name: &str) -> PathBuf {
    let dir = workspace().join("target/test-tmp/throughput");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Runs the binary in the workspace and parses its JSON output.
fn json(args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_handscope"))
        .current_dir(workspace())
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?}: bad JSON ({e}): {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn region<'a>(report: &'a Value, kind: &str, name: &str) -> &'a Value {
    report["regions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["kind"] == kind && r["name"] == name)
        .unwrap_or_else(|| panic!("no {kind} region {name}: {report:#}"))
}

/// A diamond: a fork, `long` one-slot buffers on one arm, `short` on the other, an adder.
fn diamond(long: usize, short: usize) -> String {
    let mut s = String::from(
        "handshake.func @d(%a: i32, ...) -> (i32) attributes {argNames = [\"a\"], resNames = [\"out\"]} {\n  %f:2 = fork [2] %a : i32\n",
    );
    let mut arm = |name: &str, n: usize, from: &str| {
        let mut prev = from.to_string();
        for i in 0..n {
            s.push_str(&format!("  %{name}{i} = buffer [1] seq {prev} : i32\n"));
            prev = format!("%{name}{i}");
        }
        prev
    };
    let l = arm("l", long, "%f#0");
    let r = arm("s", short, "%f#1");
    s.push_str(&format!(
        "  %sum = arith.addi {l}, {r} : i32\n  return %sum : i32\n}}\n"
    ));
    s
}

#[test]
fn unbalanced_diamond_is_predicted_measured_and_tuned() {
    let file = "examples/circuits/reconvergent_unbalanced.mlir";
    let r = json(&["throughput", file]);
    assert_eq!(r["status"], "done");
    assert_eq!(r["critical"]["latency"], 5);
    assert_eq!(r["critical"]["tokens"], 1);
    assert_eq!(f(&r["critical"]["ii"]), 5.0);
    let d = region(&r, "reconvergent", "fork0→addi0");
    assert_eq!(f(&d["measured_ii"]), 5.0, "{d:#}");
    assert_eq!(f(&d["predicted"]["ii"]), 5.0);
    // The fork's short arm and its input stall while the long arm drains.
    let stalled: Vec<&str> = r["stalls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["channel"].as_str().unwrap())
        .collect();
    assert_eq!(&stalled[..2], ["a", "fork0.out1"]);

    let out = tmp("unbalanced_tuned.mlir");
    let t = json(&["tune", file, "-o", out.to_str().unwrap()]);
    assert_eq!(f(&t["before"]["ii"]), 5.0);
    assert!(f(&t["after"]["ii"]) <= 1.0 / 0.95, "{t:#}");
    let changes = t["changes"].as_array().unwrap();
    assert!(
        changes.iter().all(|c| c["channel"] == "fork0.out1"),
        "{t:#}"
    );
    // The written circuit, simulated with the stimulus its header names, gives the same
    // outputs in the tuned number of cycles.
    let before = json(&["sim", file, "--in", "a=1..17"]);
    let after = json(&["sim", out.to_str().unwrap(), "--in", "a=1..17"]);
    let values = |r: &Value| -> Vec<Value> {
        r["outputs"]["out"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["value"].clone())
            .collect()
    };
    assert_eq!(values(&before), values(&after));
    assert_eq!(after["cycles"], t["after"]["cycles"]);
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        Header::parse(&text).values("sim").next().is_some(),
        "{text}"
    );
}

/// The model's II equals the measured one for every short-arm length, on both sides of the
/// balance point (a short arm longer than the long one limits through the long arm's slots).
#[test]
fn model_predicts_diamonds_with_any_short_arm() {
    // (short slots, II): 4 slots forward + 1 turn over 1 token, then each short slot adds a
    // cycle and two places; past balance the long arm's places limit.
    for (short, want) in [
        (0, 5.0),
        (1, 2.0),
        (2, 1.4),
        (3, 8.0 / 7.0),
        (4, 1.0),
        (5, 10.0 / 9.0),
        (6, 11.0 / 9.0),
    ] {
        let path = tmp(&format!("diamond_4_{short}.mlir"));
        std::fs::write(&path, diamond(4, short)).unwrap();
        let r = json(&["throughput", path.to_str().unwrap(), "--in", "a=0..400"]);
        let predicted = f(&r["critical"]["ii"]);
        assert!((predicted - want).abs() < 1e-9, "short {short}: {r:#}");
        let d = region(&r, "reconvergent", "fork0→addi0");
        let measured = f(&d["measured_ii"]);
        assert!(
            (measured - want).abs() < 0.02,
            "short {short}: measured {measured}, predicted {want}"
        );
    }
}

#[test]
fn chain_of_diamonds_is_predicted_and_tuned() {
    let file = "examples/circuits/reconvergent_chain.mlir";
    let r = json(&["throughput", file]);
    // The forks pass the ready path on combinationally: one cycle through all three long
    // arms (4 + 3 + 2) and one turn, over one token.
    assert_eq!(f(&r["critical"]["ii"]), 10.0, "{r:#}");
    for name in ["fork0→addi0", "fork1→addi1", "fork2→addi2"] {
        assert_eq!(f(&region(&r, "reconvergent", name)["measured_ii"]), 10.0);
    }
    let t = json(&["tune", file]);
    assert!(f(&t["after"]["ii"]) <= 1.0 / 0.95, "{t:#}");
    let mut arms: Vec<&str> = t["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["channel"].as_str().unwrap())
        .collect();
    arms.sort();
    assert_eq!(arms, ["fork0.out1", "fork1.out1", "fork2.out1"], "{t:#}");
}

#[test]
fn loop_speeds_up_only_with_tasks_and_slack() {
    let file = "examples/circuits/loop_task_slack.mlir";
    let r = json(&["throughput", file, "--in", "x=1..101"]);
    let l = region(&r, "loop", "loop@fork0");
    assert_eq!(f(&l["measured_ii"]), 5.0, "{l:#}");
    assert_eq!(f(&l["predicted"]["ii"]), 5.0);
    let t = json(&["tune", file, "--in", "x=1..101"]);
    assert_eq!(f(&t["before"]["ii"]), 5.0);
    // Four tasks over a loop of latency 9: at best 2.25 cycles a trip.
    assert!(f(&t["after"]["ii"]) <= 2.3, "{t:#}");
    assert!(t["added_slots"].as_u64().unwrap() >= 2, "{t:#}");
    // One slot of slack is not enough for the same figure.
    let one = json(&["tune", file, "--in", "x=1..101", "--max-slots", "1"]);
    assert!(
        one["after"]["cycles"].as_u64() > t["after"]["cycles"].as_u64(),
        "{one:#}"
    );

    // The same loop with a single task: its own latency (ring slot, 4 long-arm slots, back
    // buffer) is the limit, and no slot helps.
    let single = std::fs::read_to_string(workspace().join(file))
        .unwrap()
        .replace(
            "buffer [4] seq %back {initValues = [0, 100, 200, 300]}",
            "buffer [1] seq %back {initValues = [0]}",
        );
    let path = tmp("loop_one_task.mlir");
    std::fs::write(&path, single).unwrap();
    let p = path.to_str().unwrap();
    let r = json(&["throughput", p, "--in", "x=1..101"]);
    assert_eq!(f(&r["critical"]["ii"]), 6.0, "{r:#}");
    assert_eq!(f(&region(&r, "loop", "loop@fork0")["measured_ii"]), 6.0);
    let t = json(&["tune", p, "--in", "x=1..101"]);
    assert_eq!(t["changes"], serde_json::json!([]), "{t:#}");
    assert_eq!(t["after"]["cycles"], t["before"]["cycles"]);
}

/// The module and the stimulus of an example: a circuit's `// sim:` lines, a kernel's first
/// `// RUN:` line.
fn example(path: &Path) -> (Module, StimulusArgs) {
    let text = std::fs::read_to_string(path).unwrap();
    let name = path.display().to_string();
    let header = Header::parse(&text);
    if path.extension().is_some_and(|e| e == "c") {
        let m = compile_to_handshake(&text, &name, header.top(), &HsOptions::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let line = header.runs()[0];
        let stim = run_stimulus(&m.functions[0], line).unwrap();
        (m, stim)
    } else {
        let (m, _) = parse_mlir(&text, &name).unwrap();
        (m, header.sim_args())
    }
}

fn session(m: &Module, stim: &StimulusArgs) -> Session {
    let mut s = Session::open(m, None).unwrap();
    s.bind(stim).unwrap();
    s
}

#[test]
fn tune_keeps_every_example_answer_and_never_slows_it() {
    let mut files: Vec<PathBuf> = ["examples/circuits", "examples/kernels"]
        .iter()
        .flat_map(|d| std::fs::read_dir(workspace().join(d)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mlir" || e == "c"))
        .collect();
    files.sort();
    assert!(files.len() >= 30, "{files:?}");
    let opts = TuneOptions {
        max_slots: 4,
        candidates: 8,
        max_cycles: 200_000,
    };
    let mut tuned = 0;
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let (module, stim) = example(path);
        let s = session(&module, &stim);
        let base = s.run(opts.max_cycles, false).unwrap().report;
        let t = match tune::tune(&s, opts) {
            Ok(t) => t,
            Err(TuneError::NotDone(status)) => {
                assert_ne!(base.status, Status::Done, "{name}");
                println!("{name}: not tuned, the run ends {status}");
                continue;
            }
            Err(e) => panic!("{name}: {e}"),
        };
        tuned += 1;
        assert_eq!(t.before.cycles, base.cycles, "{name}");
        assert!(t.after.cycles <= t.before.cycles, "{name}: {t:?}");
        // Re-run the tuned function on its own: same answer, the cycles reported.
        let again = s
            .with_function(t.function.clone())
            .run(opts.max_cycles, false)
            .unwrap();
        assert!(same_answer(&base, &again.report), "{name}");
        assert_eq!(again.report.cycles, t.after.cycles, "{name}");
        // Write it as MLIR and read it back: still the same answer in the same cycles.
        let text = write_mlir(&Module {
            functions: vec![t.function.clone()],
        });
        let (back, _) = parse_mlir(&text, &name).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let reread = session(&back, &stim).run(opts.max_cycles, false).unwrap();
        assert!(same_answer(&base, &reread.report), "{name}: written MLIR");
        assert_eq!(reread.report.cycles, t.after.cycles, "{name}: written MLIR");
        println!(
            "{name}: {} -> {} cycles, II {:?} -> {:?}, +{} slots",
            t.before.cycles, t.after.cycles, t.before.ii, t.after.ii, t.added_slots
        );
    }
    assert!(tuned >= 30, "only {tuned} examples tuned");
}

/// Issue 36, item 4: `tune --max-slots 3000000000` never returned (a doubling step count
/// wrapped to 0). The range is checked (a usage error naming it), and the largest value
/// allowed ends.
#[test]
fn tune_slot_limit_is_range_checked_and_always_ends() {
    let file = "examples/circuits/fork_join_diamond.mlir";
    let out = Command::new(env!("CARGO_BIN_EXE_handscope"))
        .args(["tune", file, "--max-slots", "3000000000"])
        .current_dir(workspace())
        .output()
        .expect("run");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(64), "{err}");
    assert!(
        err.contains("3000000000") && err.contains("0..=1048576"),
        "{err}"
    );
    let most = json(&["tune", file, "--max-slots", "1048576"]);
    let default = json(&["tune", file]);
    // More slots allowed: never slower than with the default 16.
    assert!(
        most["after"]["cycles"].as_u64().unwrap() <= default["after"]["cycles"].as_u64().unwrap(),
        "{most:#}
{default:#}"
    );
}

/// A Dynamatic circuit is tuned with Dynamatic's buffers and written back in Dynamatic's
/// dialect: the file is the input's text with one `buffer` op more, reads back with the tuned
/// cycles, and `mlir` writes it unchanged (`--handscope-form` in Handscope's form).
#[test]
fn a_tuned_dynamatic_circuit_is_written_in_dynamatics_dialect() {
    let file = "compiler/tests/data/dynamatic/diamond_e4.mlir";
    let stim = ["--in", "x=1..9", "--in", "start=8"];
    let out = tmp("diamond_e4_tuned.mlir");
    let mut args = vec!["tune", file, "-o", out.to_str().unwrap()];
    args.extend(stim);
    let t = json(&args);
    assert_eq!(t["before"]["cycles"], 41, "{t:#}");
    assert_eq!(t["after"]["cycles"], 13, "{t:#}");
    // The pace of the data result, not of `start` passed straight to `end`.
    assert_eq!(f(&t["before"]["ii"]), 5.0, "{t:#}");
    assert_eq!(f(&t["after"]["ii"]), 1.0, "{t:#}");
    assert_eq!(t["after"]["ii_channel"], "addi0.out0", "{t:#}");
    let text = std::fs::read_to_string(&out).unwrap();
    let input = std::fs::read_to_string(workspace().join(file)).unwrap();
    assert!(
        text.contains(
            "    %tune0 = buffer %0#1, bufferType = FIFO_BREAK_NONE, numSlots = 4 {handshake.bb = 0 : ui32, handshake.name = \"tune0\"} : <i32>\n    %4 = addi %3, %tune0 "
        ),
        "{text}"
    );
    // Every line of the input but the one whose operand now reads the buffer is kept.
    let kept = input
        .lines()
        .filter(|l| text.lines().any(|o| o == *l))
        .count();
    assert_eq!(kept, input.lines().count() - 1, "{text}");
    let mut sim = vec!["sim", out.to_str().unwrap()];
    sim.extend(stim);
    let r = json(&sim);
    assert_eq!(r["cycles"], 13);
    let before = {
        let mut a = vec!["sim", file];
        a.extend(stim);
        json(&a)
    };
    assert_eq!(r["outputs"]["out0"].as_array().unwrap().len(), 8);
    let values = |r: &Value| -> Vec<Value> {
        r["outputs"]["out0"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["value"].clone())
            .collect()
    };
    assert_eq!(values(&r), values(&before));
    // `mlir` writes Dynamatic's dialect as read; `--handscope-form` the simulated graph.
    let mlir = Command::new(env!("CARGO_BIN_EXE_handscope"))
        .current_dir(workspace())
        .args(["mlir", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&mlir.stdout), text);
    let hs = Command::new(env!("CARGO_BIN_EXE_handscope"))
        .current_dir(workspace())
        .args(["mlir", "--handscope-form", out.to_str().unwrap()])
        .output()
        .unwrap();
    let hs = String::from_utf8_lossy(&hs.stdout);
    assert!(hs.contains("dyn_buffer"), "{hs}");
    assert!(!hs.contains("!handshake.channel"), "{hs}");
}

/// The gallery's Dynamatic circuit tuned from its own header's stimulus: the written file has
/// one `// sim:` line (the run's; the file's own is not repeated), re-simulates from it at
/// the tuned cycles, and is the `_tuned.mlir` committed beside it.
#[test]
fn the_dynamatic_gallery_circuit_tunes_to_its_committed_placement() {
    let file = "examples/dynamatic/dynamatic_diamond.mlir";
    let out = tmp("dynamatic_diamond_tuned.mlir");
    let t = json(&["tune", file, "-o", out.to_str().unwrap()]);
    assert_eq!(
        (&t["before"]["cycles"], &t["after"]["cycles"]),
        (&29.into(), &14.into())
    );
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(text.matches("// sim:").count(), 1, "{text}");
    assert_eq!(json(&["sim", out.to_str().unwrap()])["cycles"], 14);
    let committed = std::fs::read_to_string(
        workspace().join("examples/dynamatic/dynamatic_diamond_tuned.mlir"),
    )
    .unwrap();
    assert_eq!(
        text, committed,
        "regenerate it with `handscope tune {file} -o ...`"
    );
    // `gui --compare` names a missing file before opening any window.
    let gui = Command::new(env!("CARGO_BIN_EXE_handscope"))
        .current_dir(workspace())
        .args(["gui", file, "--compare", "no/such/placement.mlir"])
        .output()
        .unwrap();
    assert_ne!(gui.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&gui.stderr)
            .contains("--compare no/such/placement.mlir: no such file"),
        "{}",
        String::from_utf8_lossy(&gui.stderr)
    );
}
