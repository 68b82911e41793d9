//! Finding a Python that can import the `circt` 1.62 package, for the tests that check what
//! CIRCT accepts and lowers.
//!
//! Python is taken from `HANDSCOPE_PYTHON`, else `<workspace>/.venv/bin/python` (what
//! `scripts/setup-tools.sh` creates). Without one that can import `circt`, a test is skipped
//! with a message, except under `CI=true`, where that is a failure.

// Test helpers say which checks they skip (missing tools) and what they measured.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::PathBuf;
use std::process::Command;

/// True when `python` runs and imports `circt`.
fn imports_circt(python: &PathBuf) -> bool {
    Command::new(python)
        .args(["-c", "import circt"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// The Python to use, or `None` (after printing why) when the test should be skipped.
/// Panics under `CI=true` when there is none.
pub fn python(test: &str) -> Option<PathBuf> {
    let explicit = std::env::var_os("HANDSCOPE_PYTHON").map(PathBuf::from);
    let venv = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.venv/bin/python");
    let candidate = explicit.or_else(|| venv.exists().then_some(venv));
    if let Some(p) = candidate.filter(imports_circt) {
        return Some(p);
    }
    let why = "no Python with the `circt` package (set HANDSCOPE_PYTHON, or run \
               scripts/setup-tools.sh to create <workspace>/.venv)";
    assert_ne!(
        std::env::var("CI").as_deref(),
        Ok("true"),
        "{test}: {why}; required when CI=true"
    );
    let msg = format!("{test}: SKIPPED: {why}");
    eprintln!("{msg}");
    println!("{msg}");
    None
}
