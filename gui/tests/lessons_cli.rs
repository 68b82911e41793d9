//! `handscope lesson`: every built-in lesson passes `--check` (its circuits compile, its
//! cycles and highlighted IDs exist, its expected answers hold when simulated), and a broken
//! lesson fails with errors that name the file and the step.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

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

#[test]
fn every_builtin_lesson_checks() {
    let out = handscope(&["lesson", "--check"]);
    let (o, e) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{o}{e}");
    // At least the eight topics of issue 15, every step with an answer checked.
    let n: usize = o
        .split_whitespace()
        .nth(1)
        .and_then(|x| x.parse().ok())
        .unwrap_or(0);
    assert!(n >= 8, "{o}");
    assert!(o.contains("expected answers hold"), "{o}");
}

#[test]
fn lessons_are_listed_and_the_list_matches_the_directory() {
    let out = handscope(&["lesson", "--list"]);
    let o = text(&out.stdout);
    assert!(out.status.success());
    let mut files: Vec<String> = std::fs::read_dir(workspace().join("assets/lessons"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let listed: Vec<&str> = o
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(
        listed, files,
        "every file under assets/lessons is built in (gui/src/lessons/mod.rs), in order"
    );
}

fn write_lesson(dir: &tempfile::TempDir, name: &str, body: &str) -> PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, body).unwrap();
    p
}

#[test]
fn wrong_answers_missing_ids_and_cycles_are_reported_by_file_and_step() {
    let dir = tempfile::tempdir().unwrap();
    let p = write_lesson(
        &dir,
        "broken.toml",
        r#"title = "Broken"
summary = "Every kind of mistake."

[[step]]
title = "fine"
file = "fork_join_diamond.mlir"
cycle = 1
text = "ok"
answer = { kind = "channel_value", channel = "addi1.out0", value = 5 }

[[step]]
title = "wrong value"
file = "fork_join_diamond.mlir"
cycle = 1
highlight = ["fork0", "nosuchnode"]
text = "x"
answer = { kind = "channel_value", channel = "addi1.out0", value = 6 }

[[step]]
title = "beyond the run"
file = "counter_loop.mlir"
cycle = 500
text = "x"
answer = { kind = "total_cycles", cycles = 10 }

[[step]]
title = "no such file"
file = "nope.mlir"
cycle = 0
text = "x"
"#,
    );
    let out = handscope(&["lesson", "--check", p.to_str().unwrap()]);
    let e = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{e}");
    let f = p.display().to_string();
    assert!(
        e.contains(&format!(
            "{f}: step 2 (wrong value): expected addi1.out0 to carry 6 at cycle 1, the run shows 5"
        )),
        "{e}"
    );
    assert!(
        e.contains("step 2 (wrong value): highlight `nosuchnode` is neither"),
        "{e}"
    );
    assert!(
        e.contains("step 3 (beyond the run): cycle 500 does not exist: the run has cycles 0 to 10"),
        "{e}"
    );
    assert!(
        e.contains("step 3 (beyond the run): expected the run to take 10 cycles, it takes 11"),
        "{e}"
    );
    assert!(
        e.contains("step 4 (no such file): `nope.mlir` is not an example"),
        "{e}"
    );
    assert!(!e.contains("step 1 "), "step 1 is sound: {e}");
}

#[test]
fn syntax_errors_and_unknown_keys_name_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = write_lesson(
        &dir,
        "typo.toml",
        "title = \"T\"\nsummary = \"S\"\n\n[[step]]\ntitle = \"s\"\nfile = \"counter_loop.mlir\"\ncycle = 0\ntext = \"x\"\nhighlihgt = [\"fork0\"]\n",
    );
    let out = handscope(&["lesson", "--check", p.to_str().unwrap()]);
    let e = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{e}");
    assert!(e.contains(&format!("{}:", p.display())), "{e}");
    assert!(e.contains("highlihgt"), "the unknown key is named: {e}");
    let out = handscope(&["lesson", "no-such-lesson"]);
    let e = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        e.contains("no lesson `no-such-lesson`") && e.contains("01-handshake"),
        "{e}"
    );
}
