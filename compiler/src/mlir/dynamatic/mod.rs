//! Reader for Dynamatic's handshake dialect (its `handshake_export.mlir` and lit-test files)
//! into a typed syntax tree, [`DynModule`].
//!
//! Dynamatic forked CIRCT's handshake dialect and changed its printed syntax several times;
//! the reader accepts the eras E2 to E5 ([`Era`]), decides which one a file is written in,
//! and checks the graph (definitions, single uses, result and operand counts). Mapping the
//! tree onto a simulator graph is a separate step.

mod ast;
mod attrs;
mod check;
mod edit;
mod era;
mod kinds;
mod lower;
mod lsq;
mod ops;
mod reader;
mod shapes;
mod summary;
mod timing;
mod types;

#[cfg(test)]
mod tests;

pub use ast::{
    BufferForm, BufferParams, BufferType, ConstValue, DynFunc, DynModule, DynOp, DynPort,
    DynResult, DynType, DynValue, ExtraSignal, LsqMode, LsqParams, MemInterfaceRef, MemOperand,
    OpParams, Predicate, RawAttr,
};
pub use edit::{BufferEdit, EditError, NodeShape, buffer_edits, graph_shape, write_edited};
pub use era::Era;
pub use kinds::DynOpKind;
pub use lower::{SourceNames, lower, lower_with_depths, lower_with_names};
pub use lsq::{
    DEFAULT_DEPTH, DepthSource, LsqAccess, LsqConfig, LsqConfigError, LsqDepths, lsq_config,
};
pub use summary::{FuncSummary, InterfaceKind, MemorySummary};
pub use timing::{DynTiming, LatencyError, TimingFileError};

use crate::mlir::{Diagnostic, ParseError};

/// True when `source` looks like Dynamatic's dialect rather than CIRCT's: a
/// `!handshake.channel<`/`!handshake.control<` type, or Dynamatic's instance names
/// (`handshake.name = "..."`, or the 2024 `#handshake.name<"...">`) together with an op only
/// Dynamatic has (`mem_controller`, `end {`, `= lsq[`, `, bufferType =`, E2's `hw.parameters`). Cheap: one pass of
/// substring searches.
pub fn looks_dynamatic(source: &str) -> bool {
    if source.contains("!handshake.channel<") || source.contains("!handshake.control<") {
        return true;
    }
    let named = source.contains("handshake.name = \"") || source.contains("#handshake.name<\"");
    // Dynamatic's `mem_controller[%mem : ...]` (Handscope's own form of it, which the
    // CIRCT-form reader reads, is `dyn_mem_controller[ctrl = ...]`).
    let mem_controller = source.contains("mem_controller[%");
    named
        && (mem_controller
            || [
                "end {",
                // Dynamatic's `= lsq[`, not Handscope's own `= dyn_lsq[`.
                "= lsq[",
                ", bufferType = ",
                "hw.parameters = {NUM_SLOTS",
            ]
            .iter()
            .any(|m| source.contains(m)))
}

/// Parses Dynamatic handshake text; `file_name` is used in messages. Returns the tree and
/// the warnings (unused values, mixed era forms), or the first error with its position.
// The error carries the whole source for rendering; it is returned once per parse.
#[allow(clippy::result_large_err)]
pub fn parse_dynamatic(
    source: &str,
    file_name: &str,
) -> Result<(DynModule, Vec<Diagnostic>), ParseError> {
    let mut r = reader::Reader::new(source, file_name);
    let funcs = r.parse_file().map_err(|e| *e)?;
    for f in &funcs {
        r.check_func(f).map_err(|e| *e)?;
    }
    let (era, era_reason) = r.decide_era();
    Ok((
        DynModule {
            funcs,
            era,
            era_reason,
        },
        r.p.warnings,
    ))
}
