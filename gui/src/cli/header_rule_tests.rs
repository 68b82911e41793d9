//! The one header rule: `handscope sim FILE` with no flags runs what the debugger shows.

use std::path::{Path, PathBuf};

use handscope_sim::session::StimulusArgs;
use handscope_sim::spec::timing::TimingProfile;

use crate::app::circuit::{Circuit, DEADLOCK_WINDOW};

/// Every example circuit and C kernel of the repository, in name order.
fn examples() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut out = Vec::new();
    for dir in ["circuits", "kernels"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "mlir" || x == "c") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Every example, opened as `sim`, `throughput`, `verilate` and `replay` open a file
/// (`cli::session`) and as the debugger, `render`, `serve` and `surfer` do
/// (`Circuit::from_file`), binds the same stimulus, and the two runs report the same
/// cycles, outputs, memories and statistics; the kernels whose header has a `RUN:` line get
/// its arguments (a kernel's arrays are not left at zero).
#[test]
fn sim_without_flags_runs_what_the_debugger_shows() {
    let timing = TimingProfile::ideal();
    let none = StimulusArgs::default();
    let (mut compared, mut from_run_lines) = (0, 0);
    for path in examples() {
        let name = path.display().to_string();
        let Ok(shown) = Circuit::from_file(&path, &none, None, &timing) else {
            assert!(
                crate::load::load_timed(&path, None, &timing).is_err(),
                "{name}: the debugger cannot open it, sim can"
            );
            continue;
        };
        let loaded = crate::load::load_timed(&path, None, &timing).unwrap();
        let (session, stimulus) =
            super::session(&loaded, &path, &timing, &none, DEADLOCK_WINDOW).unwrap();
        assert_eq!(stimulus, shown.stimulus, "{name}: the stimulus differs");
        assert_eq!(shown.sim_error, None, "{name}");
        if loaded.is_c && !loaded.header.runs().is_empty() {
            assert!(
                !stimulus.is_empty(),
                "{name}: its `// RUN:` line was ignored"
            );
            from_run_lines += 1;
        }
        let limit = 2_000_000;
        let ours = session.run(limit, false).unwrap().report;
        let theirs = shown.session.run(limit, false).unwrap().report;
        assert_eq!(
            serde_json::to_value(&ours).unwrap(),
            serde_json::to_value(&theirs).unwrap(),
            "{name}: sim and the debugger report different runs"
        );
        compared += 1;
    }
    assert!(compared >= 50, "only {compared} examples compared");
    assert!(
        from_run_lines >= 30,
        "only {from_run_lines} kernels with RUN lines"
    );
}

/// A C kernel whose `// TOP:` is not its last function runs its top function, with the
/// `RUN:` line's arguments; `--func` naming another function takes no `RUN:` arguments.
#[test]
fn run_lines_belong_to_the_top_function() {
    let dir = std::env::temp_dir().join(format!("handscope-header-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("two.c");
    std::fs::write(
        &path,
        "// TOP: twice\n// RUN: 21\nint twice(int x) { return x + x; }\nint other(int a, int b) { return a - b; }\n",
    )
    .unwrap();
    let timing = TimingProfile::ideal();
    let none = StimulusArgs::default();
    let loaded = crate::load::load_timed(&path, None, &timing).unwrap();
    assert_eq!(loaded.func.as_deref(), Some("twice"));
    let (session, stimulus) = super::session(&loaded, &path, &timing, &none, 16).unwrap();
    assert_eq!(stimulus.inputs, ["x=21"]);
    let report = session.run(10_000, false).unwrap().report;
    let out = serde_json::to_value(&report).unwrap();
    assert_eq!(out["status"], "done", "{out:#}");
    assert!(out["outputs"].to_string().contains("42"), "{out:#}");
    let loaded = crate::load::load_timed(&path, Some("other"), &timing).unwrap();
    let (_, stimulus) = super::session(&loaded, &path, &timing, &none, 16).unwrap();
    assert!(stimulus.is_empty(), "{stimulus:?}");
    // A flag replaces the header's entry of the same name.
    let loaded = crate::load::load_timed(&path, None, &timing).unwrap();
    let over = StimulusArgs {
        inputs: vec!["x=5".into()],
        ..Default::default()
    };
    let (_, stimulus) = super::session(&loaded, &path, &timing, &over, 16).unwrap();
    assert_eq!(stimulus.inputs, ["x=5"]);
    std::fs::remove_dir_all(&dir).unwrap();
}
