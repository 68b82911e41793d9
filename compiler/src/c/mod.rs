//! C front end and CFG/SSA middle end: a subset of C used by HLS kernels is preprocessed,
//! parsed (own lexer and recursive-descent parser, so every node keeps a precise span and the
//! subset is enforced with located diagnostics), the top function is lowered with all calls
//! inlined to an SSA control-flow graph ([`ir::IrFunction`]), which [`interp`] can execute.

pub mod arith;
pub mod ast;
pub mod consteval;
pub mod error;
pub mod handshake;
pub mod interp;
pub mod ir;
pub mod lexer;
pub mod lower;
pub mod opt;
pub mod parser;
mod ppexpr;
pub mod preproc;
pub mod span;
pub mod ssa;
pub mod types;

pub use error::CError;
pub use handshake::{BufferPolicy, HsOptions, compile_to_handshake};
pub use interp::{ArgValue, ExecResult, InterpError, run};
pub use ir::IrFunction;

use span::{LineIndex, Span};

fn eof_span(source: &str) -> Span {
    let idx = LineIndex::new(source);
    let n = source.len();
    idx.span(n, n)
}

/// Parses `source` (after preprocessing) into an AST.
pub fn parse_source(source: &str, file_name: &str) -> Result<ast::TranslationUnit, CError> {
    let pre = preproc::preprocess(source).map_err(|e| e.into_cerror(source, file_name))?;
    parser::parse(&pre.tokens, pre.stdint, eof_span(source))
        .map_err(|e| e.into_cerror(source, file_name))
}

/// Compiles C `source` to IR: `top` names the top function (if `None`, the unique function
/// not called by another one); all other functions are inlined into it.
pub fn compile_to_ir(
    source: &str,
    file_name: &str,
    top: Option<&str>,
) -> Result<IrFunction, CError> {
    let tu = parse_source(source, file_name)?;
    lower::lower(&tu, top, &LineIndex::new(source)).map_err(|e| e.into_cerror(source, file_name))
}
