//! Errors of the oracle pipeline.

use std::path::PathBuf;

/// Anything that can go wrong while lowering, building, running or reading back.
#[derive(Debug, thiserror::Error)]
pub enum OracleError {
    /// File system trouble.
    #[error("{what} {path}: {error}")]
    Io {
        /// What was being done.
        what: &'static str,
        /// The path involved.
        path: PathBuf,
        /// The OS error (shown in the message, so not also a `source()`: a chain printer
        /// would repeat it).
        error: std::io::Error,
    },
    /// `lower.py` failed for one design.
    #[error("lowering design `{design}` failed:\n{message}")]
    Lower {
        /// Design name.
        design: String,
        /// The script's stderr.
        message: String,
    },
    /// The lowered SystemVerilog did not look as expected.
    #[error("unexpected RTL for design `{design}`: {message}")]
    Rtl {
        /// Design name.
        design: String,
        /// What was wrong.
        message: String,
    },
    /// The design uses something the oracle does not support.
    #[error("design `{design}` is not supported by the oracle: {reason}")]
    Unsupported {
        /// Design name.
        design: String,
        /// Why.
        reason: String,
    },
    /// Verilator or the C++ build failed.
    #[error("verilator build failed (log in {log}):\n{tail}")]
    Build {
        /// Full log file.
        log: PathBuf,
        /// Last lines of the log.
        tail: String,
    },
    /// The built model failed at run time.
    #[error("running the verilated model failed: {0}")]
    Run(String),
    /// The VCD could not be read or lacks a signal.
    #[error("reading the VCD: {0}")]
    Vcd(String),
}

/// Wraps an I/O error with context.
pub(crate) fn io(
    what: &'static str,
    path: impl Into<PathBuf>,
) -> impl FnOnce(std::io::Error) -> OracleError {
    let path = path.into();
    move |error| OracleError::Io { what, path, error }
}
