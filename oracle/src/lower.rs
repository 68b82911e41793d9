//! Running `scripts/lower.py` (one process per design, two at a time), with a cache.
//!
//! The SystemVerilog for an MLIR text is cached under
//! `<workspace>/target/oracle-cache/lower/<hash>.sv`, keyed by the MLIR text and the script.

use std::path::PathBuf;
use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::{OracleError, io};
use crate::hash::hash_hex;
use crate::tools::{Tools, lower_script};

/// Number of lowering processes run at the same time.
pub const LOWER_JOBS: usize = 2;

/// Root of the oracle's caches.
pub fn cache_root(tools: &Tools) -> PathBuf {
    tools.workspace.join("target").join("oracle-cache")
}

/// Lowers one MLIR text to SystemVerilog (or returns the cached result).
pub fn lower_one(tools: &Tools, design: &str, mlir: &str) -> Result<String, OracleError> {
    let script = lower_script();
    let script_text = std::fs::read(&script).map_err(io("reading", &script))?;
    let key = hash_hex(&[&script_text, mlir.as_bytes()]);
    let dir = cache_root(tools).join("lower");
    std::fs::create_dir_all(&dir).map_err(io("creating", &dir))?;
    let sv_path = dir.join(format!("{key}.sv"));
    if let Ok(sv) = std::fs::read_to_string(&sv_path) {
        return Ok(sv);
    }
    let tag = format!(
        "{key}.{}.{:?}",
        std::process::id(),
        std::thread::current().id()
    );
    let tag: String = tag
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '.')
        .collect();
    let mlir_path = dir.join(format!("{tag}.mlir"));
    let tmp_sv = dir.join(format!("{tag}.sv.tmp"));
    std::fs::write(&mlir_path, mlir).map_err(io("writing", &mlir_path))?;
    let out = Command::new(&tools.python)
        .arg(&script)
        .arg(&mlir_path)
        .arg(&tmp_sv)
        .output()
        .map_err(io("running", &tools.python))?;
    let _ = std::fs::remove_file(&mlir_path);
    if !out.status.success() {
        let _ = std::fs::remove_file(&tmp_sv);
        let mut message = String::from_utf8_lossy(&out.stderr).into_owned();
        if message.trim().is_empty() {
            message = format!("lower.py exited with {}", out.status);
        }
        return Err(OracleError::Lower {
            design: design.to_string(),
            message,
        });
    }
    std::fs::rename(&tmp_sv, &sv_path).map_err(io("renaming", &tmp_sv))?;
    std::fs::read_to_string(&sv_path).map_err(io("reading", &sv_path))
}

/// Lowers many designs, [`LOWER_JOBS`] processes at a time; results in input order.
pub fn lower_many(tools: &Tools, designs: &[(&str, &str)]) -> Vec<Result<String, OracleError>> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<String, OracleError>>>> =
        Mutex::new((0..designs.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..LOWER_JOBS {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some((name, mlir)) = designs.get(i) else {
                        break;
                    };
                    let r = lower_one(tools, name, mlir);
                    if let Ok(mut v) = results.lock() {
                        v[i] = Some(r);
                    }
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err(OracleError::Run("lowering thread panicked".into()))))
        .collect()
}
