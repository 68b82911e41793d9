//! CIRCT's Stream dialect (the `circt-stream` project's): programs of operators over streams
//! of elements that end (`stream.map`, `filter`, `reduce`, `split`, `combine`, `create`,
//! `sink`, with registers kept across elements), read with located errors ([`parse_stream`]),
//! lowered to a handshake circuit ([`lower`]) and run by a reference interpreter
//! ([`interp`]) that the lowering is checked against. `docs/streams.md` describes the
//! dialect as Handscope reads it and the circuits it makes.

pub mod ast;
mod cfg;
pub mod interp;
pub mod lower;
mod reader;

pub use ast::StreamModule;
pub use lower::{LowerError, lower, stream_type};

use crate::mlir::{Diagnostic, ParseError};

/// True when `source` looks like a Stream-dialect program: it names `!stream.stream` or
/// defines a value with a `stream.` operation (`%t = stream.pack ...`).
pub fn looks_stream(source: &str) -> bool {
    source.contains("!stream.stream") || source.contains("= stream.")
}

/// Reads a Stream-dialect file; `file_name` is used in error messages and locations.
/// Non-fatal problems (ignored attributes) are returned as warnings.
// The error carries the whole source for rendering; it is returned once per parse.
#[allow(clippy::result_large_err)]
pub fn parse_stream(
    source: &str,
    file_name: &str,
) -> Result<(StreamModule, Vec<Diagnostic>), ParseError> {
    let mut r = reader::Reader::new(source, file_name);
    let m = r.parse_file().map_err(|e| *e)?;
    Ok((m, r.warnings()))
}

/// Reads and lowers a Stream-dialect file to a handshake module (see [`parse_stream`]).
#[allow(clippy::result_large_err)]
pub fn compile_stream(
    source: &str,
    file_name: &str,
) -> Result<(handscope_sim::Module, Vec<Diagnostic>), ParseError> {
    let (m, w) = parse_stream(source, file_name)?;
    let module = lower(&m).map_err(|e| {
        let at = offset_of(source, e.line, e.col);
        ParseError::new(source, file_name, crate::mlir::Span::new(at, at), e.message)
    })?;
    Ok((module, w))
}

/// The byte offset of 1-based `line` and `col` in `source` (clamped to the text).
fn offset_of(source: &str, line: u32, col: u32) -> usize {
    let start: usize = source
        .split_inclusive('\n')
        .take(line.saturating_sub(1) as usize)
        .map(str::len)
        .sum();
    (start + col.saturating_sub(1) as usize).min(source.len())
}
