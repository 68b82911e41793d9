//! C front end and CFG/SSA middle end: a subset of C used by HLS kernels is preprocessed,
//! parsed (own lexer and recursive-descent parser, so every node keeps a precise span and the
//! subset is enforced with located diagnostics), the top function is lowered with all calls
//! inlined to an SSA control-flow graph ([`ir::IrFunction`]), which [`run`] can execute, and
//! lowered to a handshake graph ([`compile_to_handshake`]).
//!
//! The public surface is what the binary and the tests use: [`compile_to_handshake`] with
//! [`HsOptions`], [`compile_to_ir`], the IR ([`ir`]) and its interpreter ([`run`]), and the
//! diagnostics ([`CError`]). The lexer, preprocessor, parser, AST, lowering and the
//! handshake construction are internal modules.

mod arith;
mod ast;
mod consteval;
mod error;
mod handshake;
mod interp;
pub mod ir;
mod lexer;
mod lower;
mod opt;
mod parser;
mod ppexpr;
mod preproc;
mod reducible;
mod sources;
mod span;
mod ssa;
mod structs;
mod types;

pub use error::{CError, CWarning};
pub use handshake::islands::{IslandOp, LoopIsland};
pub use handshake::{
    BufferPolicy, HsOptions, LoopPragma, MemoryOrdering, Scheduling, compile_to_handshake,
    compile_to_handshake_warned, loop_pragmas,
};
pub use interp::{ArgValue, ExecResult, InterpError, run};
pub use ir::IrFunction;
pub use span::Span;
pub use types::{FloatTy, IntKind, IntTy, Scalar};

use sources::Sources;

/// Parses `source` (after preprocessing, which reads the files it includes into `sources`)
/// into an AST.
fn parse_source(sources: &mut Sources) -> Result<ast::TranslationUnit, CError> {
    let pre = match preproc::preprocess_sources(sources) {
        Ok(p) => p,
        Err(e) => return Err(sources.error(e)),
    };
    let mut tu =
        parser::parse(&pre.tokens, pre.stdint, sources.eof_span()).map_err(|e| sources.error(e))?;
    tu.math_h = pre.math;
    structs::flatten(tu).map_err(|e| sources.error(e))
}

/// Compiles C `source` to IR: `top` names the top function (if `None`, the unique function
/// not called by another one); all other functions are inlined into it. `file_name` is the
/// file's path: `#include "..."` reads files from its directory.
pub fn compile_to_ir(
    source: &str,
    file_name: &str,
    top: Option<&str>,
) -> Result<IrFunction, CError> {
    compile_sources_to_ir(&mut Sources::new(file_name, source), top).map(|(f, _)| f)
}

/// [`compile_to_ir`] on a compilation's sources (the included files are added to them), with
/// the warnings.
fn compile_sources_to_ir(
    sources: &mut Sources,
    top: Option<&str>,
) -> Result<(IrFunction, Vec<CWarning>), CError> {
    let tu = parse_source(sources)?;
    let (f, warnings) =
        lower::lower(&tu, top, &sources.line_indexes()).map_err(|e| sources.error(e))?;
    Ok((
        f,
        warnings
            .into_iter()
            .map(|w| CWarning(sources.error(w)))
            .collect(),
    ))
}

/// Lowers an IR function built by another front end (a Stream-dialect body of several
/// blocks) to a handshake function with the default options: arguments its parameters and
/// `start`, results `ret` and `done`, every node located in `file`. The error is a message
/// with the line and column it concerns.
pub(crate) fn lower_ir_to_handshake(
    ir: &IrFunction,
    file: &str,
) -> Result<handscope_sim::Function, (String, u32, u32)> {
    let files = [std::sync::Arc::<str>::from(file)];
    handshake::lower_ir(ir, &files).map_err(|e| (e.message, e.span.line, e.span.col))
}

/// The static-island candidates of a C kernel (issue #35): each innermost loop, with its modulo
/// schedule under `opts.timing` and at most `limits[kind]` units of a kind, or why it stays
/// dynamic ([`handshake::islands`]).
pub fn static_islands(
    source: &str,
    file_name: &str,
    top: Option<&str>,
    opts: &HsOptions,
    limits: &std::collections::BTreeMap<String, u32>,
) -> Result<Vec<handshake::islands::LoopIsland>, CError> {
    let mut sources = Sources::with_include_dirs(file_name, source, &opts.include_dirs);
    let (ir, _) = compile_sources_to_ir(&mut sources, top)?;
    let stores = opts.memory == MemoryOrdering::Serial;
    Ok(handshake::islands::loop_islands(
        &ir,
        &opts.timing,
        limits,
        stores,
    ))
}
