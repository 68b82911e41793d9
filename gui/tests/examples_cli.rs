//! End-to-end tests of the `handscope` binary on every example circuit: `check`, `mlir`
//! round trips, `dot` rendered by Graphviz, and the MLIR that the `circt` 1.62 package prints
//! for each example (custom and generic form).

// Test helpers say which checks they skip (missing tools) and what they measured.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use handscope_sim::session::header::Header;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn handscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_handscope"))
        .args(args)
        .current_dir(workspace())
        .output()
        .expect("run handscope")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn examples() -> Vec<PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(workspace().join("examples/circuits"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mlir"))
        .collect();
    v.sort();
    assert!(
        v.len() >= 8,
        "expected at least 8 example circuits, found {}",
        v.len()
    );
    v
}

/// The `// check: error <words>` line of an example that `check` must reject.
fn expected_check_error(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).unwrap();
    Header::parse(&text)
        .values("check")
        .find_map(|v| v.strip_prefix("error ").map(str::to_string))
}

/// A Python with `circt` importable, or `None` (a failure when `CI=true`).
fn circt_python() -> Option<PathBuf> {
    let candidates = std::env::var_os("HANDSCOPE_PYTHON")
        .map(PathBuf::from)
        .into_iter()
        .chain([workspace().join(".venv/bin/python")]);
    for p in candidates {
        let ok = Command::new(&p)
            .args(["-c", "import circt"])
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            return Some(p);
        }
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "CI=true but no Python with the circt package was found (run scripts/setup-tools.sh)"
    );
    eprintln!("SKIPPED: no Python with circt (set HANDSCOPE_PYTHON or run scripts/setup-tools.sh)");
    None
}

#[test]
fn check_accepts_good_examples_and_rejects_bad_ones_with_locations() {
    for ex in examples() {
        let rel = ex
            .strip_prefix(workspace())
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        let out = handscope(&["check", &rel]);
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        match expected_check_error(&ex) {
            None => {
                assert!(out.status.success(), "{rel} rejected:\n{stdout}\n{stderr}");
                assert!(
                    stdout.contains("channels"),
                    "{rel}: no summary in\n{stdout}"
                );
            }
            Some(words) => {
                assert!(!out.status.success(), "{rel} should be rejected");
                let all = format!("{stdout}{stderr}");
                assert!(all.contains(&words), "{rel}: expected `{words}` in\n{all}");
                let file = ex.file_name().unwrap().to_str().unwrap();
                assert!(
                    all.contains(&format!("{file}:")),
                    "{rel}: no file:line:col in\n{all}"
                );
            }
        }
    }
}

#[test]
fn mlir_output_is_a_fixed_point_and_checks_the_same() {
    let dir = tempdir("mlir_fixed_point");
    for ex in examples() {
        let name = ex.file_name().unwrap().to_str().unwrap();
        let first = handscope(&["mlir", ex.to_str().unwrap()]);
        assert!(first.status.success(), "{name}: {}", text(&first.stderr));
        let path = dir.join(name);
        std::fs::write(&path, &first.stdout).unwrap();
        let second = handscope(&["mlir", path.to_str().unwrap()]);
        assert!(
            second.status.success(),
            "{name} (normalized): {}",
            text(&second.stderr)
        );
        assert_eq!(
            text(&first.stdout),
            text(&second.stdout),
            "{name}: mlir is not a fixed point"
        );
        let check = handscope(&["check", path.to_str().unwrap()]);
        assert_eq!(
            check.status.success(),
            expected_check_error(&ex).is_none(),
            "{name}: normalized file checks differently:\n{}{}",
            text(&check.stdout),
            text(&check.stderr)
        );
    }
}

#[test]
fn dot_output_renders_with_graphviz() {
    let has_dot = Command::new("dot")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_dot {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true but Graphviz `dot` is missing"
        );
        eprintln!("SKIPPED: Graphviz `dot` not installed");
        return;
    }
    let dir = tempdir("dot_render");
    for ex in examples() {
        let name = ex.file_stem().unwrap().to_str().unwrap();
        let out_path = dir.join(format!("{name}.dot"));
        let out = handscope(&[
            "dot",
            ex.to_str().unwrap(),
            "-o",
            out_path.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{name}: {}", text(&out.stderr));
        let dot_text = std::fs::read_to_string(&out_path).unwrap();
        let again = handscope(&["dot", ex.to_str().unwrap(), "-o", "-"]);
        assert_eq!(
            text(&again.stdout),
            dot_text,
            "{name}: DOT output is not deterministic"
        );
        let svg = Command::new("dot")
            .args(["-Tsvg", out_path.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(
            svg.status.success(),
            "{name}: dot failed: {}",
            text(&svg.stderr)
        );
        assert!(
            text(&svg.stdout).contains("<svg"),
            "{name}: no SVG produced"
        );
    }
}

const CIRCT_PRINT: &str = r#"
import sys, circt
from circt.ir import Context, Module
from circt import passmanager
ctx = Context()
circt.register_dialects(ctx)
with ctx:
    # The package does not register arith/func; running a pass that depends on them loads them.
    passmanager.PassManager.parse("builtin.module(handshake-lower-extmem-to-hw)").run(Module.parse("", ctx).operation)
m = Module.parse(open(sys.argv[1]).read(), ctx)
with open(sys.argv[2], "w") as f:
    f.write(str(m))
with open(sys.argv[3], "w") as f:
    f.write(m.operation.get_asm(print_generic_op_form=True))
"#;

#[test]
fn check_accepts_what_circt_prints_for_every_example() {
    let Some(py) = circt_python() else { return };
    let dir = tempdir("circt_print");
    for ex in examples() {
        let stem = ex.file_stem().unwrap().to_str().unwrap();
        // `// circt-print: skip (reason)`: CIRCT's package cannot read the file (the `math`
        // dialect is not registered in it).
        let src = std::fs::read_to_string(&ex).unwrap();
        if let Some(reason) = src
            .lines()
            .find_map(|l| l.strip_prefix("// circt-print: skip"))
        {
            assert!(
                !reason.trim().is_empty(),
                "{stem}: circt-print skip without a reason"
            );
            eprintln!("{stem}: not printed by circt {}", reason.trim());
            continue;
        }
        let custom = dir.join(format!("{stem}.custom.mlir"));
        let generic = dir.join(format!("{stem}.generic.mlir"));
        let out = Command::new(&py)
            .args([
                "-c",
                CIRCT_PRINT,
                ex.to_str().unwrap(),
                custom.to_str().unwrap(),
                generic.to_str().unwrap(),
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "circt could not parse {stem}: {}",
            text(&out.stderr)
        );
        for printed in [&custom, &generic] {
            let check = handscope(&["check", printed.to_str().unwrap()]);
            let all = format!("{}{}", text(&check.stdout), text(&check.stderr));
            match expected_check_error(&ex) {
                None => assert!(
                    check.status.success(),
                    "{}: rejected what circt printed:\n{all}",
                    printed.display()
                ),
                Some(words) => {
                    assert!(
                        !check.status.success(),
                        "{} should be rejected",
                        printed.display()
                    );
                    assert!(
                        all.contains(&words),
                        "{}: expected `{words}` in\n{all}",
                        printed.display()
                    );
                }
            }
        }
    }
}

fn tempdir(name: &str) -> PathBuf {
    let dir = workspace().join("target").join("test-tmp").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `sim` on a circuit `check` rejects or that is not materialized still runs, after saying why:
/// inserted forks and sinks, `check`'s errors, arguments that get no tokens.
#[test]
fn sim_says_what_it_inserts_and_what_check_rejects() {
    let dir = std::env::temp_dir().join(format!("hs-sim-warn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("u.mlir");
    std::fs::write(
        &path,
        "handshake.func @f(%x: i8, %unused: i8, %go: none, ...) -> (i8, none) {\n  %d = arith.addi %x, %x : i8\n  return %d, %go : i8, none\n}\n",
    )
    .unwrap();
    let p = path.to_str().unwrap();
    let out = handscope(&["sim", p, "--in", "x=3,4", "--in", "go=2"]);
    let (so, se) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{so}{se}");
    assert!(
        se.contains(
            "inserts forks and sinks: `x` is used 2 times: a fork; `unused` is never used: a sink"
        ),
        "{se}"
    );
    assert!(se.contains("no tokens for `unused`"), "{se}");
    assert!(so.contains("out0: [6@"), "{so}");
    // check: warnings by default, errors with --strict.
    let out = handscope(&["check", p]);
    assert!(out.status.success(), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains("warning[unused-value]"));
    assert!(!handscope(&["check", "--strict", p]).status.success());
    // A combinational cycle fails check but is simulated, with check's reason first.
    let out = handscope(&["sim", "examples/circuits/comb_cycle.mlir"]);
    let se = text(&out.stderr);
    assert!(
        se.contains("`handscope check` fails on @comb_cycle"),
        "{se}"
    );
    assert!(se.contains("combinational cycle"), "{se}");
    assert!(
        text(&out.stdout).contains("status:"),
        "{}",
        text(&out.stdout)
    );
    std::fs::remove_dir_all(&dir).ok();
}
