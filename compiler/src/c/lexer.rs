//! Lexer for the C subset: turns source text into tokens with spans.

use super::error::{CResult, RawError};
use super::span::{LineIndex, Span};
use super::types::FloatTy;

/// Kind of a token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TokKind {
    /// Identifier or keyword.
    Ident(String),
    /// Integer literal with its suffix information.
    Int {
        /// Value of the literal.
        value: u64,
        /// `u`/`U` suffix present.
        unsigned: bool,
        /// Number of `l`/`L` in the suffix (0, 1 or 2).
        longs: u8,
        /// Decimal (as opposed to octal/hex/binary) literal.
        decimal: bool,
    },
    /// Character literal (value already of type int).
    Char(i64),
    /// String literal (only meaningful in `#include "..."`).
    Str(String),
    /// Floating-point literal: its value rounded to its type (`f`/`F` suffix: `float`, none:
    /// `double`), as the IEEE-754 bit pattern.
    Float {
        /// The encoding of the value in `ty`.
        bits: u64,
        /// `float` or `double`.
        ty: FloatTy,
    },
    /// Punctuator.
    Punct(&'static str),
    /// A preprocessing number (C11 6.4.8) as spelled: what the lexer makes of every number,
    /// so that `##` pastes spellings (`1.5 ## f`, `1 ## e ## 5`) and a pp-number that is no
    /// valid constant (`1e` before its exponent is pasted on) is only an error once it
    /// reaches the parser or an `#if`. [`literal`] turns it into an `Int` or a `Float`.
    PpNumber(String),
}

/// A token with its location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// What the token is.
    pub kind: TokKind,
    /// Where it is.
    pub span: Span,
    /// First token on its (logical) line.
    pub line_start: bool,
}

impl Token {
    /// True if this token is the punctuator `p`.
    pub fn is_punct(&self, p: &str) -> bool {
        matches!(&self.kind, TokKind::Punct(q) if *q == p)
    }

    /// The identifier text, if an identifier.
    pub fn ident(&self) -> Option<&str> {
        match &self.kind {
            TokKind::Ident(s) => Some(s),
            _ => None,
        }
    }

    /// Short description for diagnostics.
    pub fn describe(&self) -> String {
        match &self.kind {
            TokKind::Ident(s) => format!("'{s}'"),
            TokKind::Int { value, .. } => format!("'{value}'"),
            TokKind::Char(_) => "character literal".into(),
            TokKind::Str(_) => "string literal".into(),
            TokKind::Float { .. } => "floating-point literal".into(),
            TokKind::Punct(p) => format!("'{p}'"),
            TokKind::PpNumber(s) => format!("'{s}'"),
        }
    }
}

const PUNCTS: &[&str] = &[
    "<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=",
    "-=", "*=", "/=", "%=", "&=", "^=", "|=", "##", "+", "-", "*", "/", "%", "<", ">", "=", "!",
    "~", "&", "|", "^", "?", ":", ";", ",", ".", "(", ")", "[", "]", "{", "}", "#",
];

/// Lexes `src` into tokens.
pub fn lex(src: &str) -> CResult<Vec<Token>> {
    lex_file(src, 0)
}

/// Tokenizes `src`, source file `file` of the compilation (spans name it).
pub fn lex_file(src: &str, file: u16) -> CResult<Vec<Token>> {
    let idx = LineIndex::for_file(src, file);
    let b = src.as_bytes();
    let mut toks = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if c == b' ' || c == b'\t' || c == b'\r' || c == 0x0c || c == 0x0b {
            i += 1;
            continue;
        }
        if c == b'\\' && (b.get(i + 1) == Some(&b'\n') || b[i + 1..].starts_with(b"\r\n")) {
            i += if b.get(i + 1) == Some(&b'\n') { 2 } else { 3 };
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let start = i;
            i += 2;
            loop {
                if i + 1 >= b.len() {
                    return Err(RawError::new(
                        idx.span(start, start + 2),
                        "unterminated comment",
                    ));
                }
                if b[i] == b'*' && b[i + 1] == b'/' {
                    i += 2;
                    break;
                }
                i += 1;
            }
            continue;
        }
        let start = i;
        let kind = if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            TokKind::Ident(src[start..i].to_string())
        } else if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            while i < b.len()
                && (b[i].is_ascii_alphanumeric()
                    || b[i] == b'.'
                    || b[i] == b'_'
                    || ((b[i] == b'+' || b[i] == b'-')
                        && matches!(b[i - 1], b'e' | b'E' | b'p' | b'P')))
            {
                i += 1;
            }
            TokKind::PpNumber(src[start..i].to_string())
        } else if c == b'\'' || c == b'"' {
            i += 1;
            let mut vals = Vec::new();
            loop {
                match b.get(i) {
                    None | Some(b'\n') => {
                        return Err(RawError::new(
                            idx.span(start, i),
                            if c == b'\'' {
                                "unterminated character literal"
                            } else {
                                "unterminated string literal"
                            },
                        ));
                    }
                    Some(&q) if q == c => {
                        i += 1;
                        break;
                    }
                    Some(b'\\') => {
                        let (v, n) = escape(&b[i..]).ok_or_else(|| {
                            RawError::new(idx.span(i, i + 2), "invalid escape sequence")
                        })?;
                        vals.push(v);
                        i += n;
                    }
                    Some(&q) => {
                        vals.push(q as i64);
                        i += 1;
                    }
                }
            }
            if c == b'\'' {
                if vals.len() != 1 {
                    return Err(RawError::new(
                        idx.span(start, i),
                        "character literal must contain exactly one character",
                    ));
                }
                // Plain char is signed on the supported targets.
                TokKind::Char(vals[0] as u8 as i8 as i64)
            } else {
                TokKind::Str(vals.iter().map(|&v| (v as u8) as char).collect())
            }
        } else if let Some(p) = PUNCTS.iter().find(|p| b[i..].starts_with(p.as_bytes())) {
            i += p.len();
            TokKind::Punct(p)
        } else {
            let ch = src[i..].chars().next().unwrap_or('?');
            return Err(RawError::new(
                idx.span(i, i + ch.len_utf8()),
                format!("unexpected character '{}'", ch.escape_default()),
            ));
        };
        toks.push(Token {
            kind,
            span: idx.span(start, i),
            line_start,
        });
        line_start = false;
    }
    Ok(toks)
}

/// Parses an escape sequence starting at a backslash; returns (value, bytes consumed).
fn escape(b: &[u8]) -> Option<(i64, usize)> {
    let c = *b.get(1)?;
    let simple = match c {
        b'n' => Some(10),
        b't' => Some(9),
        b'r' => Some(13),
        b'0'..=b'7' => None,
        b'a' => Some(7),
        b'b' => Some(8),
        b'f' => Some(12),
        b'v' => Some(11),
        b'\\' | b'\'' | b'"' | b'?' => Some(c as i64),
        b'x' => None,
        _ => return None,
    };
    if let Some(v) = simple {
        return Some((v, 2));
    }
    if c == b'x' {
        let mut n = 2;
        let mut v: i64 = 0;
        while let Some(d) = b.get(n).and_then(|d| (*d as char).to_digit(16)) {
            v = (v * 16 + d as i64) & 0xff;
            n += 1;
        }
        return (n > 2).then_some((v, n));
    }
    let mut n = 1;
    let mut v: i64 = 0;
    while n < 4 {
        match b.get(n) {
            Some(d @ b'0'..=b'7') => {
                v = v * 8 + (d - b'0') as i64;
                n += 1;
            }
            _ => break,
        }
    }
    Some((v & 0xff, n))
}

/// The constant a token stands for: a preprocessing number as an `Int` or `Float` (a located
/// error when it is no valid constant), any other token as it is.
pub fn literal(kind: &TokKind, span: Span) -> CResult<TokKind> {
    match kind {
        TokKind::PpNumber(text) => number(text, span),
        k => Ok(k.clone()),
    }
}

fn number(text: &str, span: Span) -> CResult<TokKind> {
    let lower = text.to_ascii_lowercase();
    let is_hex = lower.starts_with("0x");
    let is_bin = lower.starts_with("0b");
    if !is_hex && (lower.contains('.') || lower.contains('e') || lower.ends_with('f'))
        || is_hex && (lower.contains('.') || lower.contains('p'))
    {
        return float_literal(text, &lower, is_hex, span);
    }
    let (radix, digits_start) = if is_hex {
        (16, 2)
    } else if is_bin {
        (2, 2)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, 1)
    } else {
        (10, 0)
    };
    let body = &lower[digits_start..];
    let digits_end = body
        .find(|c: char| !c.is_digit(radix))
        .unwrap_or(body.len());
    let (digits, suffix) = body.split_at(digits_end);
    if digits.is_empty() && radix != 8 {
        return Err(RawError::new(
            span,
            format!("invalid integer literal '{text}'"),
        ));
    }
    let (unsigned, longs) = match suffix {
        "" => (false, 0),
        "u" => (true, 0),
        "l" => (false, 1),
        "ul" | "lu" => (true, 1),
        "ll" => (false, 2),
        "ull" | "llu" => (true, 2),
        _ => {
            return Err(RawError::new(
                span,
                format!("invalid suffix '{suffix}' on integer literal"),
            ));
        }
    };
    let value = if digits.is_empty() {
        0
    } else {
        u64::from_str_radix(digits, radix)
            .map_err(|_| RawError::new(span, format!("integer literal '{text}' is too large")))?
    };
    Ok(TokKind::Int {
        value,
        unsigned,
        longs,
        decimal: radix == 10,
    })
}

/// A floating constant (C11 6.4.4.2): decimal (`1.5`, `.5e-3`, `2.`) or hexadecimal
/// (`0x1.8p3`), with an optional `f`/`F` (`float`) suffix; `l`/`L` (`long double`) is
/// rejected. Decimal constants are rounded once, to nearest even, straight to their type (what
/// GCC and Clang do); hexadecimal ones must be exact in their type.
fn float_literal(text: &str, lower: &str, hex: bool, span: Span) -> CResult<TokKind> {
    let (body, ty) = match lower.as_bytes().last() {
        Some(b'f') if !hex || lower.contains('p') => (&lower[..lower.len() - 1], FloatTy::Float),
        Some(b'l') => {
            return Err(
                RawError::new(span, format!("'{text}': long double is not supported"))
                    .with_help("use double (no suffix) or float (suffix f)"),
            );
        }
        _ => (lower, FloatTy::Double),
    };
    let bad = || RawError::new(span, format!("invalid floating-point literal '{text}'"));
    if hex && !body.contains('p') {
        return Err(bad()
            .with_help("a hexadecimal floating literal needs a binary exponent, as in 0x1.8p3"));
    }
    let bits = if hex {
        hex_float(&body[2..], ty).ok_or_else(|| {
            RawError::new(
                span,
                format!(
                    "hexadecimal floating literal '{text}' is not exact in {}",
                    ty.c_name()
                ),
            )
        })?
    } else {
        if !body
            .bytes()
            .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'+' | b'-'))
            || !body.contains(['.', 'e'])
        {
            return Err(bad());
        }
        match ty {
            FloatTy::Float => u64::from(body.parse::<f32>().map_err(|_| bad())?.to_bits()),
            FloatTy::Double => body.parse::<f64>().map_err(|_| bad())?.to_bits(),
        }
    };
    Ok(TokKind::Float { bits, ty })
}

/// The encoding of the hexadecimal floating constant `body` (after `0x`, before any suffix:
/// `h.hhhp[+-]d`), when its value is exactly representable in `ty` (`None` otherwise or when
/// malformed).
fn hex_float(body: &str, ty: FloatTy) -> Option<u64> {
    let (mant, exp) = body.split_once('p')?;
    let exp: i32 = exp.parse().ok()?;
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let mut m: u128 = 0;
    for c in int.chars().chain(frac.chars()) {
        m = m
            .checked_mul(16)?
            .checked_add(u128::from(c.to_digit(16)?))?;
        if m >> 100 != 0 {
            return None;
        }
    }
    let e = exp.checked_sub(4 * i32::try_from(frac.len()).ok()?)?;
    // value = m * 2^e; exact in f64 when m fits 53 bits and the scaling stays normal.
    if m >> 53 != 0 {
        return None;
    }
    let v = (m as f64) * 2f64.powi(e);
    if !v.is_finite() || (m != 0 && (v == 0.0 || v.abs() < f64::MIN_POSITIVE)) {
        return None;
    }
    // Check exactness: scaling back gives m.
    if (v * 2f64.powi(-e)) as u128 != m {
        return None;
    }
    match ty {
        FloatTy::Double => Some(v.to_bits()),
        FloatTy::Float => {
            let f = v as f32;
            (f64::from(f) == v && f.is_finite() && (f == 0.0 || f.abs() >= f32::MIN_POSITIVE))
                .then(|| u64::from(f.to_bits()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The constant of the first token of `text`.
    fn constant(text: &str) -> CResult<TokKind> {
        let t = lex(text).expect("lexes").remove(0);
        literal(&t.kind, t.span)
    }

    fn float(text: &str) -> (u64, FloatTy) {
        match constant(text) {
            Ok(TokKind::Float { bits, ty }) => (bits, ty),
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn float_literals_round_once_to_their_type() {
        let d = |x: f64| (x.to_bits(), FloatTy::Double);
        let f = |x: f32| (u64::from(x.to_bits()), FloatTy::Float);
        assert_eq!(float("1.5"), d(1.5));
        assert_eq!(float(".5e-3"), d(0.5e-3));
        assert_eq!(float("2."), d(2.0));
        assert_eq!(float("1e10"), d(1e10));
        assert_eq!(float("0.1f"), f(0.1));
        assert_eq!(float("0.1F"), f(0.1));
        assert_eq!(float("1e999f"), f(f32::INFINITY));
        assert_eq!(float("1e-50f"), f(0.0));
        // 16777217 is not a float: rounded straight from the decimal, to even.
        assert_eq!(float("16777217.0f"), f(16777216.0));
        assert_eq!(float("0x1.8p3"), d(12.0));
        assert_eq!(float("0x10p-4f"), f(1.0));
        assert_eq!(float("0x.8p0"), d(0.5));
    }

    #[test]
    fn bad_float_literals_are_located_errors() {
        for bad in ["1.5L", "1f", "0x1.8", "1.5e", "1.5ff", "1..5"] {
            let e = constant(bad)
                .err()
                .unwrap_or_else(|| panic!("{bad} is a constant"));
            assert_eq!((e.span.line, e.span.col), (1, 1), "{bad}");
        }
    }

    #[test]
    fn numbers_are_preprocessing_numbers_until_used() {
        // C11 6.4.8: a pp-number runs over letters, digits, `.` and signed exponents.
        for (text, spelled) in [("1e", "1e"), ("1.2.3", "1.2.3"), ("0x1p-3f", "0x1p-3f")] {
            let t = lex(text).expect("lexes");
            assert_eq!(t.len(), 1, "{text}");
            assert_eq!(t[0].kind, TokKind::PpNumber(spelled.into()));
        }
        assert!(constant("1.2.3").is_err());
        assert!(matches!(
            constant("42u"),
            Ok(TokKind::Int {
                value: 42,
                unsigned: true,
                ..
            })
        ));
    }
}
