//! File structure: the optional `module { ... }` wrapper, `handshake.func` headers (with the
//! `...` variadic marker and `argNames`/`resNames`) and function bodies.

use super::ast::{DynFunc, DynPort};
use super::era::EraMark;
use crate::mlir::Span;
use crate::mlir::ast::AttrValue;
use crate::mlir::diag::ErrExt;
use crate::mlir::lexer::Tok;
use crate::mlir::parser::{PResult, Parser, take_attr};

/// The Dynamatic reader: the CIRCT reader's token-level parser plus what this dialect adds.
pub(crate) struct Reader<'a> {
    /// Tokens, attributes, limits and diagnostics.
    pub(crate) p: Parser<'a>,
    /// Era-specific forms met so far.
    pub(crate) marks: Vec<EraMark>,
    /// Ops read in the whole file (against the CIRCT reader's op limit).
    pub(crate) ops_read: u64,
    /// Results and fork outputs declared in the whole file.
    pub(crate) ports_declared: u64,
}

impl<'a> Reader<'a> {
    /// A reader over `src`, reported as `file`.
    pub(crate) fn new(src: &'a str, file: &'a str) -> Self {
        Reader {
            p: Parser::new(src, file),
            marks: Vec::new(),
            ops_read: 0,
            ports_declared: 0,
        }
    }

    /// Parses every function of the file.
    pub(crate) fn parse_file(&mut self) -> PResult<Vec<DynFunc>> {
        let mut funcs = Vec::new();
        self.parse_items(&mut funcs, false)?;
        if funcs.is_empty() {
            let src = self.p.src();
            let at = src.len() - src.trim_start().len();
            return Err(self
                .p
                .err(Span::new(at, at), "the file defines no `handshake.func`")
                .with_help(
                    "a Dynamatic circuit is a `handshake.func @name(...) -> (...) { ... }`",
                ));
        }
        Ok(funcs)
    }

    fn parse_items(&mut self, funcs: &mut Vec<DynFunc>, nested: bool) -> PResult<()> {
        loop {
            let sp = self.p.peek_span()?;
            match self.p.peek()? {
                Tok::Eof if !nested => return Ok(()),
                Tok::RBrace if nested => return Ok(()),
                Tok::Ident(w) if (w == "module" || w == "builtin.module") && !nested => {
                    self.p.module_open()?;
                    self.parse_items(funcs, true)?;
                    self.p.expect(&Tok::RBrace)?;
                }
                Tok::Ident(w) if w == "handshake.func" => funcs.push(self.parse_func()?),
                _ => {
                    let found = self.p.peek()?.describe();
                    return Err(self
                        .p
                        .err(sp, format!("expected `handshake.func`, found {found}")));
                }
            }
        }
    }

    fn parse_func(&mut self) -> PResult<DynFunc> {
        let start = self.p.expect_word("handshake.func")?.start;
        let name = match self.p.peek()? {
            Tok::At(n) => {
                self.p.bump()?;
                n
            }
            _ => return Err(self.p.expected("a function name (`@name`)")),
        };
        // Arguments: `%argN: type`, then optionally `...`.
        self.p.expect(&Tok::LParen)?;
        let mut args: Vec<DynPort> = Vec::new();
        if !self.p.at(&Tok::RParen)? {
            loop {
                if self.p.eat(&Tok::Ellipsis)? {
                    break;
                }
                let s0 = self.p.next_start()?;
                let ssa = match self.p.peek()? {
                    Tok::Value { name, index: None } => {
                        self.p.bump()?;
                        name
                    }
                    _ => return Err(self.p.expected("an argument (`%arg0: type`)")),
                };
                self.p.expect(&Tok::Colon)?;
                let (ty, _) = self.parse_dyn_type()?;
                if self.p.at(&Tok::LBrace)? {
                    self.p.parse_attr_dict()?;
                }
                let span = self.p.span_from(s0);
                self.p.within_limit(
                    args.len() as u64 + 1,
                    handscope_sim::limits::MAX_PORTS as u64,
                    ("a function with", "arguments"),
                    span,
                )?;
                args.push(DynPort {
                    name: String::new(),
                    ssa,
                    ty,
                    span,
                });
                if !self.p.eat(&Tok::Comma)? {
                    break;
                }
            }
        }
        self.p.expect(&Tok::RParen)?;
        // Results: `-> (T, ...)` or `-> T`.
        let mut results: Vec<DynPort> = Vec::new();
        if self.p.eat(&Tok::Arrow)? {
            let paren = self.p.eat(&Tok::LParen)?;
            if !(paren && self.p.at(&Tok::RParen)?) {
                loop {
                    let (ty, span) = self.parse_dyn_type()?;
                    if self.p.at(&Tok::LBrace)? {
                        self.p.parse_attr_dict()?;
                    }
                    self.p.within_limit(
                        results.len() as u64 + 1,
                        handscope_sim::limits::MAX_PORTS as u64,
                        ("a function with", "results"),
                        span,
                    )?;
                    results.push(DynPort {
                        name: String::new(),
                        ssa: String::new(),
                        ty,
                        span,
                    });
                    if !paren || !self.p.eat(&Tok::Comma)? {
                        break;
                    }
                }
            }
            if paren {
                self.p.expect(&Tok::RParen)?;
            }
        }
        let mut attrs = if self.p.eat_word("attributes")? {
            self.p.parse_attr_dict()?
        } else {
            Vec::new()
        };
        self.apply_names(&mut attrs, "argNames", &mut args)?;
        self.apply_names(&mut attrs, "resNames", &mut results)?;
        for (i, a) in args.iter_mut().enumerate() {
            if a.name.is_empty() {
                a.name = if a.ssa.is_empty() {
                    format!("%arg{i}")
                } else {
                    format!("%{}", a.ssa)
                };
            }
        }
        for (i, r) in results.iter_mut().enumerate() {
            if r.name.is_empty() {
                r.name = format!("out{i}");
            }
        }
        self.p.expect(&Tok::LBrace)?;
        let mut ops = Vec::new();
        while !self.p.at(&Tok::RBrace)? {
            if self.p.at(&Tok::Eof)? {
                return Err(self.p.expected("`}` closing the function body"));
            }
            self.ops_read += 1;
            let sp = self.p.peek_span()?;
            self.p.within_limit(
                self.ops_read,
                crate::mlir::parser::MAX_OPS,
                ("the file holds more than", "operations"),
                sp,
            )?;
            ops.push(self.parse_op()?);
        }
        self.p.expect(&Tok::RBrace)?;
        Ok(DynFunc {
            name,
            args,
            results,
            ops,
            span: self.p.span_from(start),
        })
    }

    /// Names the ports from the string array attribute `key`, when present.
    fn apply_names(
        &mut self,
        attrs: &mut Vec<crate::mlir::ast::Attr>,
        key: &str,
        ports: &mut [DynPort],
    ) -> PResult<()> {
        let Some(a) = take_attr(attrs, key) else {
            return Ok(());
        };
        let AttrValue::Array(items) = &a.value else {
            return Err(self
                .p
                .err(a.value_span, format!("`{key}` must be an array of strings")));
        };
        if items.len() != ports.len() {
            let what = if key == "argNames" {
                "arguments"
            } else {
                "results"
            };
            return Err(self.p.err(
                a.value_span,
                format!(
                    "`{key}` names {} {what}, the function has {}",
                    items.len(),
                    ports.len()
                ),
            ));
        }
        for ((v, s), port) in items.iter().zip(ports.iter_mut()) {
            match v {
                AttrValue::Str(n) => port.name = n.clone(),
                _ => return Err(self.p.err(*s, format!("`{key}` must hold strings"))),
            }
        }
        Ok(())
    }
}
