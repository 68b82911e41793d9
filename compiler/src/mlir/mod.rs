//! Reader and writer for CIRCT's handshake dialect in MLIR's textual syntax.
//!
//! [`parse_mlir`] accepts what CIRCT 1.62 prints (custom and generic op forms, `loc(...)`
//! information, several functions per file) and builds a [`handscope_sim::Module`];
//! [`write_mlir`] prints a module back in normalized custom form that CIRCT parses.
//! [`parse_dynamatic`] reads Dynamatic's dialect (a fork of CIRCT's with its own syntax)
//! into a typed tree ([`dynamatic`]); [`looks_dynamatic`] tells the two apart.

pub(crate) mod ast;
mod build;
pub mod diag;
pub mod dynamatic;
mod island;
pub(crate) mod lexer;
mod opcheck;
mod opforms;
pub(crate) mod parser;
mod structure;
mod writer;

pub use diag::{Diagnostic, ParseError, Span};
pub use dynamatic::{DynModule, looks_dynamatic, parse_dynamatic};
pub use writer::{WriteOptions, float_literal, write_function, write_mlir, write_mlir_with};

/// Parses MLIR text into a graph module. `file_name` is used in error messages.
///
/// Every function of the returned module has had [`handscope_sim::Function::assign_ids`]
/// called. Non-fatal problems are returned as warnings.
// The error carries the whole source for rendering; it is returned once per parse.
#[allow(clippy::result_large_err)]
pub fn parse_mlir(
    source: &str,
    file_name: &str,
) -> Result<(handscope_sim::Module, Vec<Diagnostic>), ParseError> {
    let mut p = parser::Parser::new(source, file_name);
    let ast = p.parse_file().map_err(|e| *e)?;
    let module = build::build_module(&mut p, &ast).map_err(|e| *e)?;
    if module.functions.is_empty() {
        // An empty module is valid MLIR, but a check or simulation of it would report
        // success on nothing (issue 19: `check` said "ok: 0 functions").
        let at = source.len() - source.trim_start().len();
        return Err(ParseError::new(
            source,
            file_name,
            Span::new(at, at),
            "the file defines no `handshake.func`: there is nothing to check or simulate",
        )
        .with_help("a circuit is a `handshake.func @name(%arg: i32, ...) -> (i32) { ... }`"));
    }
    Ok((module, p.warnings))
}
