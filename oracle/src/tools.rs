//! Locating the external tools the oracle needs: a Python with the `circt` package and
//! Verilator.
//!
//! Rule: a missing tool makes the oracle *skip* (with a message on stdout), except when the
//! environment variable `CI` is `true`, where it is a hard failure with a clear message.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The tools one oracle run uses.
#[derive(Clone, Debug)]
pub struct Tools {
    /// Python interpreter that can `import circt`.
    pub python: PathBuf,
    /// The `verilator` executable.
    pub verilator: PathBuf,
    /// First line of `verilator --version` (part of the model cache key).
    pub verilator_version: String,
    /// Workspace root (holds `target/` and `oracle/scripts/lower.py`).
    pub workspace: PathBuf,
}

/// Why the tools are not usable.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct MissingTool(pub String);

/// The workspace root: the parent of this crate's manifest directory.
pub fn workspace_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.parent().unwrap_or(here).to_path_buf()
}

/// Path of the lowering script.
pub fn lower_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scripts")
        .join("lower.py")
}

/// Looks for the tools without deciding what to do when they are missing.
///
/// Python: `$HANDSCOPE_PYTHON`, else `<workspace>/.venv/bin/python`; it must be able to
/// `import circt`. Verilator: `verilator` on `PATH`.
pub fn find_tools() -> Result<Tools, MissingTool> {
    let workspace = workspace_root();
    let python = match std::env::var_os("HANDSCOPE_PYTHON") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => workspace.join(".venv").join("bin").join("python"),
    };
    let ok = Command::new(&python)
        .args(["-c", "import circt"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok {
        return Err(MissingTool(format!(
            "no Python with the `circt` package at {} (set HANDSCOPE_PYTHON or run scripts/setup-tools.sh)",
            python.display()
        )));
    }
    let out = Command::new("verilator")
        .arg("--version")
        .output()
        .map_err(|e| {
            MissingTool(format!(
                "`verilator` not found on PATH ({e}); install it with apt-get install verilator"
            ))
        })?;
    if !out.status.success() {
        return Err(MissingTool("`verilator --version` failed".into()));
    }
    let verilator_version = String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap_or("")
        .trim()
        .to_string();
    Ok(Tools {
        python,
        verilator: PathBuf::from("verilator"),
        verilator_version,
        workspace,
    })
}

/// True when running under CI (`CI=true`), where missing tools are an error.
pub fn in_ci() -> bool {
    std::env::var("CI").map(|v| v == "true").unwrap_or(false)
}

/// The tools, or `None` after printing why the oracle test is skipped. Panics with a clear
/// message instead of skipping when `CI=true`.
// This test-only crate says in the test output why an oracle test was skipped.
#[allow(clippy::print_stdout)]
pub fn require_tools(test: &str) -> Option<Tools> {
    match find_tools() {
        Ok(t) => Some(t),
        Err(e) if in_ci() => panic!("oracle test `{test}` cannot run under CI=true: {e}"),
        Err(e) => {
            println!("oracle: skipping `{test}`: {e}");
            None
        }
    }
}
