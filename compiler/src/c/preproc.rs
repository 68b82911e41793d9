//! A small token-level preprocessor: `#define` (object-like and function-like), `#undef`,
//! conditional directives, `#include <stdint.h>` / `<stdbool.h>` / `<math.h>`, `#pragma` (ignored).

use super::error::{CResult, RawError};
use super::lexer::{TokKind, Token, lex};
use super::span::Span;
use std::collections::BTreeMap;

/// Limits that keep pathological inputs (macro bombs) from exhausting memory.
const MAX_TOKENS: usize = 2_000_000;
const MAX_DEPTH: usize = 100;

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
    params: Option<Vec<String>>,
    body: Vec<Token>,
}

struct Pre {
    macros: BTreeMap<String, Macro>,
    out: Preprocessed,
    produced: usize,
}

/// Preprocesses a whole source file.
pub fn preprocess(src: &str) -> CResult<Preprocessed> {
    let toks = lex(src)?;
    let mut pre = Pre {
        macros: BTreeMap::new(),
        out: Preprocessed::default(),
        produced: 0,
    };
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
                pre.expand_into_output(&run)?;
            }
            pre.directive(t.span, line, &mut conds, active)?;
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
    pre.expand_into_output(&text)?;
    Ok(pre.out)
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

impl Pre {
    fn expand_into_output(&mut self, run: &[Token]) -> CResult<()> {
        let mut out = Vec::new();
        let mut active = Vec::new();
        self.expand(run, &mut out, &mut active)?;
        self.out.tokens.extend(out);
        Ok(())
    }

    fn define_builtin(&mut self, name: &str, text: &str) {
        if let Ok(body) = lex(text) {
            self.macros
                .insert(name.to_string(), Macro { params: None, body });
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
            "pragma" => Ok(()),
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
                let p = t.ident().ok_or_else(|| {
                    RawError::new(
                        t.span,
                        "expected macro parameter name (variadic macros are not supported)",
                    )
                })?;
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
        if let Some(t) = body.iter().find(|t| t.is_punct("#") || t.is_punct("##")) {
            return Err(RawError::new(
                t.span,
                "stringification and token pasting in macros are not supported",
            ));
        }
        self.macros.insert(name.to_string(), Macro { params, body });
        Ok(())
    }

    fn include(&mut self, span: Span, rest: &[Token]) -> CResult<()> {
        let header: String = match rest.first().map(|t| &t.kind) {
            Some(TokKind::Str(s)) => s.clone(),
            Some(TokKind::Punct("<")) => {
                let mut s = String::new();
                for t in &rest[1..] {
                    match &t.kind {
                        TokKind::Punct(">") => break,
                        TokKind::Ident(n) => s.push_str(n),
                        TokKind::Punct(p) => s.push_str(p),
                        _ => {}
                    }
                }
                s
            }
            _ => return Err(RawError::new(span, "expected a header name after #include")),
        };
        let whole = rest
            .iter()
            .fold(rest.first().map_or(span, |t| t.span), |s, t| s.to(t.span));
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
                Ok(())
            }
            _ => Err(
                RawError::new(whole, format!("unsupported include '{header}'"))
                    .with_help("only <stdint.h>, <stdbool.h> and <math.h> can be included"),
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
                    let body = respan(&m.body, t.span);
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
                            last.push(a.clone());
                        }
                        j += 1;
                    }
                    if params.is_empty() && args.len() == 1 && args[0].is_empty() {
                        args.clear();
                    }
                    let call_span = t.span.to(end_span);
                    if args.len() != params.len() {
                        return Err(RawError::new(
                            call_span,
                            format!(
                                "macro '{name}' expects {} argument(s), got {}",
                                params.len(),
                                args.len()
                            ),
                        ));
                    }
                    let mut expanded_args = Vec::with_capacity(args.len());
                    for a in &args {
                        let mut e = Vec::new();
                        self.expand(a, &mut e, active)?;
                        expanded_args.push(e);
                    }
                    let mut body = Vec::new();
                    for bt in &m.body {
                        match bt.ident().and_then(|n| params.iter().position(|p| p == n)) {
                            Some(p) => body.extend(respan(&expanded_args[p], call_span)),
                            None => body.extend(respan(std::slice::from_ref(bt), call_span)),
                        }
                        if body.len() > MAX_TOKENS {
                            return Err(RawError::new(
                                call_span,
                                "macro expansion produces too many tokens",
                            ));
                        }
                    }
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
