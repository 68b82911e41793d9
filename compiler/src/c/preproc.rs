//! A small token-level preprocessor: `#define` (object-like and function-like), `#undef`,
//! conditional directives, `#include "file"` (looked for next to the including file, each
//! file's tokens keeping their own file in their spans; include guards and `#pragma once`
//! work), `#include` of `<stdint.h>`, `<stdbool.h>`, `<math.h>`, `<limits.h>`, `<stdlib.h>`,
//! `<stdio.h>` and `<assert.h>` (built in; `assert` as with `NDEBUG`), variadic macros (`...`
//! and `__VA_ARGS__`, GCC's named `args...` and `, ## args`), other `#pragma`s ignored.

use super::error::{CResult, RawError};
use super::lexer::{TokKind, Token, lex, lex_file, literal};
use super::sources::Sources;
use super::span::Span;
use std::collections::{BTreeMap, BTreeSet};

/// Limits that keep pathological inputs (macro bombs) from exhausting memory: tokens the
/// expansion visits or copies into macro arguments, in the whole file.
pub(crate) const MAX_TOKENS: usize = 2_000_000;
/// Macros expanding inside macros' bodies.
pub(crate) const MAX_DEPTH: usize = 100;
/// Macro invocations nested in other invocations' arguments (`M(M(M(a)))`); each level is
/// a frame of the expander and holds a copy of its argument.
pub(crate) const MAX_ARG_NESTING: usize = 256;
/// Deepest nesting of `#include "..."` (a file that includes itself without a guard stops
/// here).
const MAX_INCLUDE_DEPTH: usize = 64;

/// Result of preprocessing: the expanded token stream and the headers that were included.
#[derive(Clone, Debug, Default)]
pub struct Preprocessed {
    /// Tokens after macro expansion, directives removed.
    pub tokens: Vec<Token>,
    /// `<stdint.h>` was included (enables the `intN_t`/`uintN_t` type names).
    pub stdint: bool,
    /// `<stdbool.h>` was included.
    pub stdbool: bool,
    /// `<math.h>` was included.
    pub math: bool,
}

#[derive(Clone, Debug)]
struct Macro {
    /// Parameter names; a variadic macro's last one is `__VA_ARGS__`.
    params: Option<Vec<String>>,
    /// Declared with `...`: arguments past the named ones become `__VA_ARGS__`.
    variadic: bool,
    body: Vec<Token>,
}

/// The parameter a variadic macro's extra arguments are bound to.
const VA_ARGS: &str = "__VA_ARGS__";

struct Pre<'s> {
    macros: BTreeMap<String, Macro>,
    out: Preprocessed,
    produced: usize,
    /// Invocations whose arguments are being expanded, innermost last.
    arg_nesting: usize,
    sources: &'s mut Sources,
    /// The files being read, innermost last.
    files: Vec<u16>,
    /// Files that said `#pragma once`.
    once: BTreeSet<u16>,
}

/// Preprocesses source text on its own (its `#include "..."`s are looked for in the current
/// directory).
#[cfg(test)]
pub fn preprocess(src: &str) -> CResult<Preprocessed> {
    preprocess_sources(&mut Sources::new("<input>", src))
}

/// Preprocesses the main file of `sources`, adding the files it includes.
pub fn preprocess_sources(sources: &mut Sources) -> CResult<Preprocessed> {
    let toks = lex(&sources.file(0).text)?;
    let mut pre = Pre {
        macros: BTreeMap::new(),
        out: Preprocessed::default(),
        produced: 0,
        arg_nesting: 0,
        sources,
        files: Vec::new(),
        once: BTreeSet::new(),
    };
    pre.run(&toks, 0)?;
    // Translation phase 7: every preprocessing number left becomes a constant.
    for t in &mut pre.out.tokens {
        if let TokKind::PpNumber(_) = t.kind {
            t.kind = literal(&t.kind, t.span)?;
        }
    }
    Ok(pre.out)
}

impl Pre<'_> {
    /// Preprocesses the tokens of file `file`, appending to the output.
    fn run(&mut self, toks: &[Token], file: u16) -> CResult<()> {
        self.files.push(file);
        // Stack of conditional states: (currently active, some branch already taken, span).
        let mut conds: Vec<(bool, bool, Span)> = Vec::new();
        let mut text: Vec<Token> = Vec::new();
        let mut i = 0;
        while i < toks.len() {
            let t = &toks[i];
            let active = conds.iter().all(|c| c.0);
            if t.is_punct("#") && t.line_start {
                let mut j = i + 1;
                while j < toks.len() && !toks[j].line_start {
                    j += 1;
                }
                let line = &toks[i + 1..j];
                if active {
                    let run = std::mem::take(&mut text);
                    self.expand_into_output(&run)?;
                }
                self.directive(t.span, line, &mut conds, active)?;
                i = j;
                continue;
            }
            if active {
                text.push(t.clone());
            }
            i += 1;
        }
        if let Some(c) = conds.last() {
            return Err(RawError::new(c.2, "unterminated conditional directive"));
        }
        self.expand_into_output(&text)?;
        self.files.pop();
        Ok(())
    }

    /// Reads `#include "name"` from next to the including file: `Ok(false)` when there is
    /// no such file.
    /// Reads `name` from the including file's directory (only for `"name"`) or the first
    /// include directory that has it; false when none has it.
    fn include_file(&mut self, name: &str, quoted: bool, whole: Span) -> CResult<bool> {
        let current = self.files.last().copied().unwrap_or(0);
        let local = quoted.then(|| self.sources.dir_of(current).join(name));
        let Some(path) = local
            .into_iter()
            .chain(self.sources.include_dirs().iter().map(|d| d.join(name)))
            .find(|p| p.is_file())
        else {
            return Ok(false);
        };
        if self.files.len() >= MAX_INCLUDE_DEPTH {
            return Err(RawError::new(
                whole,
                format!(
                    "#include nested more than {MAX_INCLUDE_DEPTH} deep (does '{name}' include itself without a guard?)"
                ),
            ));
        }
        let k = match self.sources.find(&path) {
            Some(k) if self.once.contains(&k) => return Ok(true),
            Some(k) => k,
            None => {
                // A regular file of bounded size (`is_file` above; checked again on open).
                let text = handscope_sim::input::read_text(&path).map_err(|e| {
                    RawError::new(
                        whole,
                        format!("cannot read '{}': {}", path.display(), e.reason()),
                    )
                })?;
                self.sources.add(&path, text).ok_or_else(|| {
                    RawError::new(
                        whole,
                        format!("more than {} files included", super::sources::MAX_FILES - 1),
                    )
                })?
            }
        };
        let toks = lex_file(&self.sources.file(k).text, k)?;
        self.run(&toks, k)?;
        Ok(true)
    }
}

fn respan(toks: &[Token], span: Span) -> Vec<Token> {
    toks.iter()
        .map(|t| Token {
            kind: t.kind.clone(),
            span,
            line_start: false,
        })
        .collect()
}

/// A macro body with its parameters replaced (by the macro-expanded argument, or the argument
/// as written next to `##`) and `##` pastes done, every token placed at `span`.
fn substitute(
    body: &[Token],
    va_param: Option<&str>,
    params: &[String],
    raw_args: &[Vec<Token>],
    expanded_args: &[Vec<Token>],
    span: Span,
) -> CResult<Vec<Token>> {
    let param = |t: &Token| t.ident().and_then(|n| params.iter().position(|p| p == n));
    let mut out: Vec<Token> = Vec::new();
    let mut k = 0;
    while k < body.len() {
        let bt = &body[k];
        if bt.is_punct("##") {
            // The right operand, unexpanded; definitions never end with `##`.
            let Some(rt) = body.get(k + 1) else {
                return Err(RawError::new(bt.span, "`##` at the end of a macro body"));
            };
            let rhs = match param(rt) {
                Some(p) => respan(&raw_args[p], span),
                None => respan(std::slice::from_ref(rt), span),
            };
            // `, ## __VA_ARGS__` with no variadic arguments drops the comma (as GCC and Clang
            // do), so `F(x)` of `#define F(a, ...) g(a, ## __VA_ARGS__)` is `g(x)`.
            if va_param.is_some_and(|v| rt.ident() == Some(v))
                && rhs.is_empty()
                && out.last().is_some_and(|l| l.is_punct(","))
            {
                out.pop();
                k += 2;
                continue;
            }
            let mut rhs = rhs.into_iter();
            match (out.pop(), rhs.next()) {
                (Some(l), Some(r)) => out.push(paste(&l, &r, span)?),
                (Some(l), None) => out.push(l),
                (None, Some(r)) => out.push(r),
                (None, None) => {}
            }
            out.extend(rhs);
            k += 2;
        } else {
            let pasted_next = body.get(k + 1).is_some_and(|n| n.is_punct("##"));
            match param(bt) {
                Some(p) if pasted_next => out.extend(respan(&raw_args[p], span)),
                Some(p) => out.extend(respan(&expanded_args[p], span)),
                None => out.extend(respan(std::slice::from_ref(bt), span)),
            }
            k += 1;
        }
        if out.len() > MAX_TOKENS {
            return Err(RawError::new(
                span,
                "macro expansion produces too many tokens",
            ));
        }
    }
    Ok(out)
}

/// `l ## r`: the token spelled by the two spellings together.
fn paste(l: &Token, r: &Token, span: Span) -> CResult<Token> {
    let spell = |t: &Token| -> Option<String> {
        match &t.kind {
            TokKind::Ident(s) => Some(s.clone()),
            TokKind::Punct(p) => Some((*p).to_string()),
            TokKind::PpNumber(s) => Some(s.clone()),
            TokKind::Int {
                value,
                unsigned,
                longs,
                decimal: true,
            } => Some(format!(
                "{value}{}{}",
                if *unsigned { "u" } else { "" },
                "l".repeat(usize::from(*longs))
            )),
            _ => None,
        }
    };
    let (Some(a), Some(b)) = (spell(l), spell(r)) else {
        return Err(RawError::new(
            span,
            format!(
                "`##` can paste identifiers, numbers and punctuators, not {} and {}",
                l.describe(),
                r.describe()
            ),
        ));
    };
    let text = format!("{a}{b}");
    match crate::c::lexer::lex(&text).ok().as_deref() {
        Some([one]) => Ok(Token {
            kind: one.kind.clone(),
            span,
            line_start: false,
        }),
        _ => Err(RawError::new(
            span,
            format!(
                "pasting {} and {} does not give one token (`{text}`)",
                l.describe(),
                r.describe()
            ),
        )),
    }
}

impl Pre<'_> {
    fn expand_into_output(&mut self, run: &[Token]) -> CResult<()> {
        let mut out = Vec::new();
        let mut active = Vec::new();
        self.expand(run, &mut out, &mut active)?;
        self.out.tokens.extend(out);
        Ok(())
    }

    fn define_builtin(&mut self, name: &str, text: &str) {
        if let Ok(body) = lex(text) {
            self.macros.insert(
                name.to_string(),
                Macro {
                    params: None,
                    variadic: false,
                    body,
                },
            );
        }
    }

    /// Defines the function-like macro `name(params) text` of a built-in header.
    fn define_builtin_fn(&mut self, name: &str, params: &[&str], text: &str) {
        if let Ok(body) = lex(text) {
            self.macros.insert(
                name.to_string(),
                Macro {
                    params: Some(params.iter().map(|p| p.to_string()).collect()),
                    variadic: false,
                    body,
                },
            );
        }
    }

    fn directive(
        &mut self,
        hash: Span,
        line: &[Token],
        conds: &mut Vec<(bool, bool, Span)>,
        active: bool,
    ) -> CResult<()> {
        let Some(first) = line.first() else {
            return Ok(()); // null directive
        };
        let name = first.ident().unwrap_or("");
        let rest = &line[1..];
        match name {
            "ifdef" | "ifndef" | "if" => {
                let cond = if active {
                    self.condition(name, first.span, rest)?
                } else {
                    false
                };
                conds.push((active && cond, active && cond, hash.to(first.span)));
                // An inactive parent keeps the whole group inactive: mark as taken.
                if !active && let Some(c) = conds.last_mut() {
                    c.1 = true;
                }
                return Ok(());
            }
            "elif" | "else" => {
                let parent_active =
                    conds.len() <= 1 || conds[..conds.len() - 1].iter().all(|c| c.0);
                let cond = if name == "elif" && parent_active && !conds.last().is_some_and(|c| c.1)
                {
                    self.condition("if", first.span, rest)?
                } else {
                    name == "else"
                };
                let Some(c) = conds.last_mut() else {
                    return Err(RawError::new(first.span, format!("#{name} without #if")));
                };
                let take = !c.1 && cond;
                c.0 = take;
                c.1 |= take;
                return Ok(());
            }
            "endif" => {
                if conds.pop().is_none() {
                    return Err(RawError::new(first.span, "#endif without #if"));
                }
                return Ok(());
            }
            _ => {}
        }
        if !active {
            return Ok(());
        }
        match name {
            "define" => self.define(first.span, rest),
            "undef" => {
                let n = rest
                    .first()
                    .and_then(Token::ident)
                    .ok_or_else(|| RawError::new(first.span, "macro name missing after #undef"))?;
                self.macros.remove(n);
                Ok(())
            }
            "include" => self.include(first.span, rest),
            "pragma" => {
                if rest.first().and_then(Token::ident) == Some("once") {
                    self.once.insert(self.files.last().copied().unwrap_or(0));
                }
                Ok(())
            }
            "error" => Err(RawError::new(hash.to(first.span), "#error directive")),
            _ => Err(RawError::new(
                first.span,
                format!("unsupported preprocessor directive '#{name}'"),
            )),
        }
    }

    fn condition(&mut self, kind: &str, span: Span, rest: &[Token]) -> CResult<bool> {
        let name_of = |t: Option<&Token>| {
            t.and_then(Token::ident)
                .map(str::to_string)
                .ok_or_else(|| RawError::new(span, "macro name missing"))
        };
        match kind {
            "ifdef" => Ok(self.macros.contains_key(&name_of(rest.first())?)),
            "ifndef" => Ok(!self.macros.contains_key(&name_of(rest.first())?)),
            _ => {
                // `defined X` / `defined(X)` become 1 or 0 before macro expansion, then the
                // expression is expanded and evaluated (`ppexpr`).
                let mut replaced = Vec::with_capacity(rest.len());
                let mut k = 0;
                while k < rest.len() {
                    let t = &rest[k];
                    if t.ident() != Some("defined") {
                        replaced.push(t.clone());
                        k += 1;
                        continue;
                    }
                    let paren = rest.get(k + 1).is_some_and(|t| t.is_punct("("));
                    let name_at = if paren { k + 2 } else { k + 1 };
                    let n = name_of(rest.get(name_at))
                        .map_err(|_| RawError::new(t.span, "`defined` needs a macro name"))?;
                    if paren && !rest.get(name_at + 1).is_some_and(|t| t.is_punct(")")) {
                        return Err(RawError::new(t.span, "missing `)` after `defined(NAME`"));
                    }
                    replaced.push(Token {
                        kind: TokKind::Int {
                            value: u64::from(self.macros.contains_key(&n)),
                            unsigned: false,
                            longs: 0,
                            decimal: true,
                        },
                        span: t.span,
                        line_start: false,
                    });
                    k = name_at + 1 + usize::from(paren);
                }
                let mut out = Vec::new();
                self.expand(&replaced, &mut out, &mut Vec::new())?;
                super::ppexpr::evaluate(&out, span)
            }
        }
    }

    fn define(&mut self, span: Span, rest: &[Token]) -> CResult<()> {
        let Some(name_tok) = rest.first() else {
            return Err(RawError::new(span, "macro name missing after #define"));
        };
        let Some(name) = name_tok.ident() else {
            return Err(RawError::new(
                name_tok.span,
                "macro name must be an identifier",
            ));
        };
        let mut k = 1;
        let mut variadic = false;
        let params = if rest
            .get(1)
            .is_some_and(|t| t.is_punct("(") && t.span.start == name_tok.span.end)
        {
            k = 2;
            let mut ps = Vec::new();
            loop {
                let t = rest.get(k).ok_or_else(|| {
                    RawError::new(name_tok.span, "unterminated macro parameter list")
                })?;
                if t.is_punct(")") && ps.is_empty() {
                    k += 1;
                    break;
                }
                if t.is_punct("...") {
                    // `...` ends the list; its arguments are `__VA_ARGS__`.
                    variadic = true;
                    ps.push(VA_ARGS.to_string());
                    k += 1;
                    match rest.get(k) {
                        Some(c) if c.is_punct(")") => {
                            k += 1;
                            break;
                        }
                        other => {
                            return Err(RawError::new(
                                other.map_or(t.span, |c| c.span),
                                "expected ')' after '...' in a macro parameter list",
                            ));
                        }
                    }
                }
                let p = t.ident().ok_or_else(|| {
                    RawError::new(t.span, "expected a macro parameter name or '...'")
                })?;
                if rest.get(k + 1).is_some_and(|n| n.is_punct("...")) {
                    // GCC's named variadic parameter `args...`: `args` stands for the extra
                    // arguments (Dynamatic's `CALL_KERNEL(kernel, args...)` is written so).
                    variadic = true;
                    ps.push(p.to_string());
                    k += 2;
                    match rest.get(k) {
                        Some(c) if c.is_punct(")") => {
                            k += 1;
                            break;
                        }
                        other => {
                            return Err(RawError::new(
                                other.map_or(t.span, |c| c.span),
                                "expected ')' after '...' in a macro parameter list",
                            ));
                        }
                    }
                }
                if p == VA_ARGS {
                    return Err(RawError::new(
                        t.span,
                        "`__VA_ARGS__` cannot be a parameter name: declare `...` instead",
                    ));
                }
                ps.push(p.to_string());
                k += 1;
                match rest.get(k) {
                    Some(t) if t.is_punct(",") => k += 1,
                    Some(t) if t.is_punct(")") => {
                        k += 1;
                        break;
                    }
                    _ => {
                        return Err(RawError::new(
                            rest.get(k).map_or(t.span, |t| t.span),
                            "expected ',' or ')' in macro parameter list",
                        ));
                    }
                }
            }
            Some(ps)
        } else {
            None
        };
        let body = rest[k..].to_vec();
        if !variadic && let Some(t) = body.iter().find(|t| t.ident() == Some(VA_ARGS)) {
            return Err(RawError::new(
                t.span,
                "`__VA_ARGS__` is only allowed in a macro declared with `...`",
            ));
        }
        if let Some(t) = body.iter().find(|t| t.is_punct("#")) {
            return Err(RawError::new(
                t.span,
                "stringification (`#`) in macros is not supported: it makes string literals",
            ));
        }
        if let Some(t) = body
            .first()
            .filter(|t| t.is_punct("##"))
            .or_else(|| body.last().filter(|t| t.is_punct("##")))
        {
            return Err(RawError::new(
                t.span,
                "`##` cannot be at either end of a macro body",
            ));
        }
        self.macros.insert(
            name.to_string(),
            Macro {
                params,
                variadic,
                body,
            },
        );
        Ok(())
    }

    fn include(&mut self, span: Span, rest: &[Token]) -> CResult<()> {
        let (header, quoted): (String, bool) = match rest.first().map(|t| &t.kind) {
            Some(TokKind::Str(s)) => (s.clone(), true),
            Some(TokKind::Punct("<")) => {
                let mut s = String::new();
                for t in &rest[1..] {
                    match &t.kind {
                        TokKind::Punct(">") => break,
                        TokKind::Ident(n) | TokKind::PpNumber(n) => s.push_str(n),
                        TokKind::Punct(p) => s.push_str(p),
                        _ => {}
                    }
                }
                (s, false)
            }
            _ => return Err(RawError::new(span, "expected a header name after #include")),
        };
        let whole = rest
            .iter()
            .fold(rest.first().map_or(span, |t| t.span), |s, t| s.to(t.span));
        // Built-in headers come first for `<name>`; a file next to the kernel or in an include
        // directory first for `"name"` (as C compilers search).
        let builtin = matches!(
            header.as_str(),
            "stdint.h" | "stdbool.h" | "math.h" | "stdlib.h" | "stdio.h" | "limits.h" | "assert.h"
        );
        if (quoted || !builtin) && self.include_file(&header, quoted, whole)? {
            return Ok(());
        }
        match header.as_str() {
            "stdint.h" => {
                self.out.stdint = true;
                for (bits, smax) in [
                    (8, "127"),
                    (16, "32767"),
                    (32, "2147483647"),
                    (64, "9223372036854775807LL"),
                ] {
                    self.define_builtin(&format!("INT{bits}_MAX"), &format!("({smax})"));
                    self.define_builtin(&format!("INT{bits}_MIN"), &format!("(-{smax}-1)"));
                }
                self.define_builtin("UINT8_MAX", "(255)");
                self.define_builtin("UINT16_MAX", "(65535)");
                self.define_builtin("UINT32_MAX", "(4294967295U)");
                self.define_builtin("UINT64_MAX", "(18446744073709551615ULL)");
                Ok(())
            }
            "stdbool.h" => {
                self.out.stdbool = true;
                self.define_builtin("bool", "_Bool");
                self.define_builtin("true", "1");
                self.define_builtin("false", "0");
                Ok(())
            }
            "math.h" => {
                self.out.math = true;
                self.define_builtin("INFINITY", "(1e999f)");
                self.define_builtin("HUGE_VAL", "(1e999)");
                self.define_builtin("HUGE_VALF", "(1e999f)");
                // A quiet NaN with the sign bit clear, as C compilers' `NAN`: the default NaN
                // of 0/0 is negative on x86-64.
                self.define_builtin("NAN", "(-(0.0f / 0.0f))");
                // The constants POSIX adds (C compilers define them unless in strict ISO mode),
                // to the digits of their usual definitions.
                for (name, value) in [
                    ("M_E", "2.7182818284590452354"),
                    ("M_LOG2E", "1.4426950408889634074"),
                    ("M_LOG10E", "0.43429448190325182765"),
                    ("M_LN2", "0.69314718055994530942"),
                    ("M_LN10", "2.30258509299404568402"),
                    ("M_PI", "3.14159265358979323846"),
                    ("M_PI_2", "1.57079632679489661923"),
                    ("M_PI_4", "0.78539816339744830962"),
                    ("M_1_PI", "0.31830988618379067154"),
                    ("M_2_PI", "0.63661977236758134308"),
                    ("M_2_SQRTPI", "1.12837916709551257390"),
                    ("M_SQRT2", "1.41421356237309504880"),
                    ("M_SQRT1_2", "0.70710678118654752440"),
                ] {
                    self.define_builtin(name, value);
                }
                Ok(())
            }
            // `abs`/`labs`/`llabs` are built in; I/O calls get their own error where used.
            "stdlib.h" | "stdio.h" => Ok(()),
            // As with `NDEBUG`: hardware has nowhere to abort to, so `assert(e)` is dropped
            // and `e` is not evaluated (HLS tools ignore assertions in synthesis).
            "assert.h" => {
                self.define_builtin_fn("assert", &["e"], "((void)0)");
                Ok(())
            }
            "limits.h" => {
                for (name, value) in [
                    ("CHAR_BIT", "8"),
                    ("SCHAR_MIN", "(-128)"),
                    ("SCHAR_MAX", "127"),
                    ("UCHAR_MAX", "255"),
                    ("CHAR_MIN", "(-128)"),
                    ("CHAR_MAX", "127"),
                    ("SHRT_MIN", "(-32767-1)"),
                    ("SHRT_MAX", "32767"),
                    ("USHRT_MAX", "65535"),
                    ("INT_MIN", "(-2147483647-1)"),
                    ("INT_MAX", "2147483647"),
                    ("UINT_MAX", "4294967295U"),
                    ("LONG_MIN", "(-9223372036854775807L-1)"),
                    ("LONG_MAX", "9223372036854775807L"),
                    ("ULONG_MAX", "18446744073709551615UL"),
                    ("LLONG_MIN", "(-9223372036854775807LL-1)"),
                    ("LLONG_MAX", "9223372036854775807LL"),
                    ("ULLONG_MAX", "18446744073709551615ULL"),
                ] {
                    self.define_builtin(name, value);
                }
                Ok(())
            }
            _ if quoted || !self.sources.include_dirs().is_empty() => {
                let current = self.files.last().copied().unwrap_or(0);
                let mut looked: Vec<String> = Vec::new();
                if quoted {
                    looked.push(self.sources.dir_of(current).display().to_string());
                }
                looked.extend(
                    self.sources
                        .include_dirs()
                        .iter()
                        .map(|d| d.display().to_string()),
                );
                Err(RawError::new(
                    whole,
                    format!(
                        "cannot find include file '{header}' (looked in {})",
                        looked.join(", ")
                    ),
                )
                .with_help(
                    "\"file\" includes are read from the directory of the file that includes them, then from the include directories (-I DIR, CPATH); <stdint.h>, <stdbool.h>, <math.h>, <limits.h>, <stdlib.h>, <stdio.h> and <assert.h> are built in",
                ))
            }
            _ => Err(
                RawError::new(whole, format!("unsupported include '{header}'")).with_help(
                    "<stdint.h>, <stdbool.h>, <math.h>, <limits.h>, <stdlib.h>, <stdio.h> and <assert.h> are built in; other headers are read from the include directories (-I DIR, CPATH), \"file\" includes first from the directory of the including file",
                ),
            ),
        }
    }

    fn expand(
        &mut self,
        input: &[Token],
        out: &mut Vec<Token>,
        active: &mut Vec<String>,
    ) -> CResult<()> {
        if active.len() > MAX_DEPTH {
            let span = input.first().map_or(Span::default(), |t| t.span);
            return Err(RawError::new(span, "macro expansion nested too deeply"));
        }
        let mut i = 0;
        while i < input.len() {
            let t = &input[i];
            self.produced += 1;
            if self.produced > MAX_TOKENS {
                return Err(RawError::new(
                    t.span,
                    "macro expansion produces too many tokens",
                ));
            }
            let Some(name) = t.ident() else {
                out.push(t.clone());
                i += 1;
                continue;
            };
            let Some(m) = self
                .macros
                .get(name)
                .filter(|_| !active.iter().any(|a| a == name))
                .cloned()
            else {
                out.push(t.clone());
                i += 1;
                continue;
            };
            match &m.params {
                None => {
                    let body = substitute(&m.body, None, &[], &[], &[], t.span)?;
                    active.push(name.to_string());
                    self.expand(&body, out, active)?;
                    active.pop();
                    i += 1;
                }
                Some(params) => {
                    if !input.get(i + 1).is_some_and(|n| n.is_punct("(")) {
                        out.push(t.clone());
                        i += 1;
                        continue;
                    }
                    // Collect the arguments.
                    let mut args: Vec<Vec<Token>> = vec![Vec::new()];
                    let mut depth = 0usize;
                    let mut j = i + 2;
                    let end_span;
                    loop {
                        let Some(a) = input.get(j) else {
                            return Err(RawError::new(
                                t.span,
                                format!("unterminated invocation of macro '{name}'"),
                            ));
                        };
                        if a.is_punct(")") && depth == 0 {
                            end_span = a.span;
                            break;
                        }
                        if a.is_punct("(") {
                            depth += 1;
                        } else if a.is_punct(")") {
                            depth -= 1;
                        }
                        if a.is_punct(",") && depth == 0 {
                            args.push(Vec::new());
                        } else if let Some(last) = args.last_mut() {
                            // A copy: nested invocations copy their arguments once per level.
                            self.produced += 1;
                            if self.produced > MAX_TOKENS {
                                return Err(RawError::new(
                                    a.span,
                                    "macro expansion produces too many tokens",
                                ));
                            }
                            last.push(a.clone());
                        }
                        j += 1;
                    }
                    if params.is_empty() && args.len() == 1 && args[0].is_empty() {
                        args.clear();
                    }
                    let call_span = t.span.to(end_span);
                    if m.variadic {
                        let named = params.len() - 1;
                        if args.len() > named {
                            // The extra arguments, with the commas between them, are one.
                            let extra = args.split_off(named);
                            let mut va: Vec<Token> = Vec::new();
                            for (x, a) in extra.into_iter().enumerate() {
                                if x > 0 {
                                    va.push(Token {
                                        kind: TokKind::Punct(","),
                                        span: call_span,
                                        line_start: false,
                                    });
                                }
                                va.extend(a);
                            }
                            args.push(va);
                        } else if args.len() == named {
                            args.push(Vec::new());
                        }
                    }
                    if args.len() != params.len() {
                        return Err(RawError::new(
                            call_span,
                            if m.variadic {
                                format!(
                                    "macro '{name}' expects at least {} argument(s), got {}",
                                    params.len() - 1,
                                    args.len()
                                )
                            } else {
                                format!(
                                    "macro '{name}' expects {} argument(s), got {}",
                                    params.len(),
                                    args.len()
                                )
                            },
                        ));
                    }
                    if self.arg_nesting >= MAX_ARG_NESTING {
                        return Err(RawError::new(
                            call_span,
                            format!(
                                "macro invocations nested more than {MAX_ARG_NESTING} deep in arguments"
                            ),
                        ));
                    }
                    self.arg_nesting += 1;
                    let mut expanded_args = Vec::with_capacity(args.len());
                    for a in &args {
                        let mut e = Vec::new();
                        // An error ends preprocessing, so the count need not be restored.
                        self.expand(a, &mut e, active)?;
                        expanded_args.push(e);
                    }
                    self.arg_nesting -= 1;
                    let va = if m.variadic {
                        params.last().map(String::as_str)
                    } else {
                        None
                    };
                    let body = substitute(&m.body, va, params, &args, &expanded_args, call_span)?;
                    active.push(name.to_string());
                    self.expand(&body, out, active)?;
                    active.pop();
                    i = j + 1;
                }
            }
        }
        Ok(())
    }
}
