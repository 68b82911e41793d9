//! Streams on handshake channels: a stream of `T` travels as `tuple<T, i1>`, the element and
//! an end-of-stream bit (field 0 in the most significant bits, so the end bit is bit 0 of the
//! word). A token whose end bit is 1 ends the stream; its element carries no value.
//!
//! A function lowered from CIRCT's Stream dialect names its stream arguments and results in
//! the [`STREAMS_ATTR`] attribute. For those, `--in NAME=1,2,3` gives the elements and then an
//! end (`;` separates streams: `1,2;3` is two streams), the run is done when every stream
//! result has ended as often as the stream arguments were ended, and the report shows each
//! stream result as its streams: elements and the cycle of the end ([`StreamRun`]).

use serde::Serialize;

use crate::graph::Function;
use crate::report::OutputToken;
use crate::stimulus::{StimulusError, TokenSource};
use crate::types::Type;

/// Function attribute naming the arguments and results that are streams, e.g.
/// `handscope.streams = ["in", "out0"]`.
pub const STREAMS_ATTR: &str = "handscope.streams";

/// Most stream results' elements a report keeps per result (later elements are counted).
pub const KEPT_ELEMENTS: usize = 4096;

impl Function {
    /// The names listed in the [`STREAMS_ATTR`] attribute (empty without it).
    pub fn stream_names(&self) -> std::collections::BTreeSet<String> {
        crate::graph::name_list_attr(self, STREAMS_ATTR)
    }

    /// Sets the [`STREAMS_ATTR`] attribute to `names` (removes it when empty).
    pub fn set_stream_names<'a>(&mut self, names: impl IntoIterator<Item = &'a str>) {
        crate::graph::set_name_list_attr(self, STREAMS_ATTR, names);
    }

    /// The element type of argument or result `name` when it is a stream.
    pub fn stream_element(&self, name: &str) -> Option<Type> {
        if !self.stream_names().contains(name) {
            return None;
        }
        let ty = self
            .args
            .iter()
            .find(|a| a.name == name)
            .and_then(|a| match &a.ty {
                crate::graph::ArgType::Channel(t) => Some(t),
                crate::graph::ArgType::MemRef(_) => None,
            })
            .or_else(|| self.results.iter().find(|r| r.name == name).map(|r| &r.ty))?;
        element_type(ty).cloned()
    }
}

/// The block label of stream operator `id` (`map0`) at source line `line`: `map0 (line 7)`.
/// The drawing boxes and orders operators by it, `throughput` reports a row per label.
pub fn operator_block(id: &str, line: u32) -> String {
    format!("{id} (line {line})")
}

/// The source line of a block label made by [`operator_block`]; `None` for other labels.
pub fn operator_line(block: &str) -> Option<u64> {
    block
        .strip_suffix(')')
        .and_then(|t| t.rsplit_once(" (line "))
        .and_then(|(_, d)| d.parse().ok())
}

/// The element type `T` of a stream channel type `tuple<T, i1>`.
pub fn element_type(ty: &Type) -> Option<&Type> {
    match ty {
        Type::Tuple(f) if f.len() == 2 && f[1] == Type::Int(1) => Some(&f[0]),
        _ => None,
    }
}

/// The channel word of an element `elem` (a word of `elem_ty`) with end bit `end`.
pub fn token_word(elem: u64, elem_ty: &Type, end: bool) -> u64 {
    let w = elem_ty.bit_width();
    if crate::wide::is_wide(w + 1) {
        crate::wide::concat([(elem, w), (u64::from(end), 1)])
    } else {
        (elem << 1) | u64::from(end)
    }
}

/// Splits a stream token word into its element word and end bit.
pub fn split_word(word: u64, elem_ty: &Type) -> (u64, bool) {
    let w = elem_ty.bit_width();
    if crate::wide::is_wide(w + 1) {
        (
            crate::wide::extract(word, w + 1, 1, w),
            crate::wide::extract(word, w + 1, 0, 1) == 1,
        )
    } else {
        (word >> 1, word & 1 == 1)
    }
}

/// Parses `--in` text for a stream argument: streams separated by `;`, each a list of
/// elements (`1,2,3`, a range `0..4`, or `@file`) ended by an end token; an empty stream is
/// written as nothing between `;`s or as `[]`. Tuple elements are written `(1,2)`.
pub fn parse_streams(text: &str, elem_ty: &Type) -> Result<TokenSource, StimulusError> {
    let mut words = Vec::new();
    for part in text.split(';') {
        let part = part.trim();
        if !(part.is_empty() || part == "[]") {
            for item in split_top_level(part) {
                if item.trim().is_empty() {
                    return Err(StimulusError::EmptyItem(crate::quote::excerpt(part)));
                }
            }
            if let Type::Tuple(_) = elem_ty {
                for item in split_top_level(part) {
                    let w = parse_tuple(item.trim(), elem_ty)?;
                    words.push(token_word(w, elem_ty, false));
                }
            } else {
                let src = TokenSource::parse(part, elem_ty)?;
                let n = src.len();
                if n > crate::stimulus::MAX_TOKENS {
                    return Err(StimulusError::TooManyTokens {
                        list: "the stream".into(),
                        line: 1,
                        col: 1,
                    });
                }
                for k in 0..n {
                    words.push(token_word(src.word(k, elem_ty.bit_width()), elem_ty, false));
                }
            }
        }
        words.push(token_word(0, elem_ty, true));
    }
    Ok(TokenSource::Values(words))
}

/// Splits `s` at commas outside parentheses.
fn split_top_level(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// Parses a tuple element `(a, b, ...)` of type `ty` into its word.
fn parse_tuple(text: &str, ty: &Type) -> Result<u64, StimulusError> {
    match ty {
        Type::Tuple(fields) => {
            let inner = text
                .strip_prefix('(')
                .and_then(|t| t.strip_suffix(')'))
                .ok_or_else(|| StimulusError::Number(crate::quote::excerpt(text)))?;
            let items = split_top_level(inner);
            if items.len() != fields.len() {
                return Err(StimulusError::Number(format!(
                    "{} (a {ty} element has {} fields)",
                    crate::quote::excerpt(text),
                    fields.len()
                )));
            }
            let mut parts = Vec::new();
            for (item, f) in items.iter().zip(fields) {
                parts.push((parse_tuple(item.trim(), f)?, f.bit_width()));
            }
            if crate::wide::is_wide(ty.bit_width()) {
                Ok(crate::wide::concat(parts))
            } else {
                Ok(parts
                    .iter()
                    .fold(0u64, |acc, &(w, width)| shl(acc, width) | w))
            }
        }
        _ => {
            let src = TokenSource::parse(text, ty)?;
            if src.len() != 1 {
                return Err(StimulusError::Number(crate::quote::excerpt(text)));
            }
            Ok(src.word(0, ty.bit_width()))
        }
    }
}

fn shl(x: u64, by: u32) -> u64 {
    if by >= 64 { 0 } else { x << by }
}

/// For a function with stream results run in `env`: how many ends every stream result owes
/// before the run is done, the fewest ends any stream argument is given (one for a function
/// of no stream argument, whose streams are made inside). `None` for other functions.
pub fn expected_ends(f: &Function, env: &crate::stimulus::Environment) -> Option<u64> {
    if f.stream_names().is_empty() {
        return None;
    }
    Some(
        f.args
            .iter()
            .enumerate()
            .filter_map(|(ai, a)| {
                let elem = f.stream_element(&a.name)?;
                Some(
                    crate::stimulus::argument_tokens(f, env, ai)
                        .iter()
                        .map(|src| ends_in(src, &elem))
                        .sum::<u64>(),
                )
            })
            .min()
            .unwrap_or(1),
    )
}

/// Number of ends (tokens with the end bit set) in `src`.
pub fn ends_in(src: &TokenSource, elem_ty: &Type) -> u64 {
    (0..src.len())
        .filter(|&k| split_word(src.get(k), elem_ty).1)
        .count() as u64
}

/// An element of a stream as a report shows it: an integer (signed), or a tuple's fields.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Element {
    /// An integer, signed (`i1` as 0/1).
    Int(i64),
    /// An integer wider than 64 bits, in decimal.
    Wide(String),
    /// A tuple's fields in order.
    Tuple(Vec<Element>),
    /// A float, in its shortest round-trip form.
    Float(String),
}

impl std::fmt::Display for Element {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Element::Int(v) => write!(f, "{v}"),
            Element::Wide(v) | Element::Float(v) => f.write_str(v),
            Element::Tuple(items) => {
                f.write_str("(")?;
                for (i, e) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{e}")?;
                }
                f.write_str(")")
            }
        }
    }
}

/// The element `word` of type `ty`, for a report.
pub fn element(word: u64, ty: &Type) -> Element {
    match ty {
        Type::Tuple(fields) => {
            let total = ty.bit_width();
            let mut shift = total;
            let mut out = Vec::with_capacity(fields.len());
            for f in fields {
                let w = f.bit_width();
                shift -= w;
                out.push(element(crate::wide::extract(word, total, shift, w), f));
            }
            Element::Tuple(out)
        }
        Type::Int(w) if crate::wide::is_wide(u32::from(*w)) => {
            Element::Wide(crate::wide::to_decimal(word, u32::from(*w), true))
        }
        Type::Int(1) => Element::Int((word & 1) as i64),
        Type::Int(w) => Element::Int(crate::report::signed_value(word, u32::from(*w))),
        Type::Index => Element::Int(word as i64),
        Type::Float(k) => Element::Float(crate::float::format_float(word, *k)),
        Type::None => Element::Int(0),
    }
}

/// One stream of a stream result: its elements and the cycle its end was given in (`None`:
/// the run stopped before it ended).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StreamRun {
    /// The elements in order (at most [`KEPT_ELEMENTS`] per result in all).
    pub elements: Vec<Element>,
    /// Cycles in which the elements were given.
    pub cycles: Vec<u64>,
    /// Elements given but not kept.
    #[serde(skip_serializing_if = "is_zero")]
    pub omitted: u64,
    /// The cycle of the end token, or `None` when the stream never ended.
    pub ended_at: Option<u64>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Groups a stream result's tokens into its streams. The last stream is open (never ended)
/// when tokens follow the last end; a result with no tokens at all is one open, empty stream.
pub fn streams_of(tokens: &[OutputToken], elem_ty: &Type) -> Vec<StreamRun> {
    let mut out = Vec::new();
    let mut cur = StreamRun {
        elements: Vec::new(),
        cycles: Vec::new(),
        omitted: 0,
        ended_at: None,
    };
    let mut kept = 0usize;
    for t in tokens {
        let (e, end) = split_word(t.bits, elem_ty);
        if end {
            cur.ended_at = Some(t.cycle);
            out.push(std::mem::replace(
                &mut cur,
                StreamRun {
                    elements: Vec::new(),
                    cycles: Vec::new(),
                    omitted: 0,
                    ended_at: None,
                },
            ));
        } else if kept < KEPT_ELEMENTS {
            cur.elements.push(element(e, elem_ty));
            cur.cycles.push(t.cycle);
            kept += 1;
        } else {
            cur.omitted += 1;
        }
    }
    if !cur.elements.is_empty() || cur.omitted > 0 || out.is_empty() {
        out.push(cur);
    }
    out
}

/// The text a report prints for a stream result's streams.
pub fn render_streams(name: &str, runs: &[StreamRun]) -> String {
    let mut s = String::new();
    for (k, r) in runs.iter().enumerate() {
        let elems: Vec<String> = r.elements.iter().map(|e| e.to_string()).collect();
        let more = if r.omitted > 0 {
            format!(", ... ({} more)", r.omitted)
        } else {
            String::new()
        };
        let end = match r.ended_at {
            Some(c) => format!("ended at cycle {c}"),
            None => "never ended".to_string(),
        };
        let label = if runs.len() > 1 {
            format!("{name} stream {}", k + 1)
        } else {
            name.to_string()
        };
        s.push_str(&format!("  {label}: [{}{more}] {end}\n", elems.join(", ")));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_lists() {
        let i64t = Type::Int(64);
        assert_eq!(token_word(5, &i64t, false), 10);
        assert_eq!(split_word(11, &i64t), (5, true));
        let TokenSource::Values(v) = parse_streams("1,2;;3", &i64t).unwrap() else {
            panic!()
        };
        assert_eq!(v, vec![2, 4, 1, 1, 6, 1]);
        let neg = parse_streams("-1", &i64t).unwrap();
        assert_eq!(split_word(neg.get(0), &i64t).0, u64::MAX);
        let t = Type::Tuple(vec![Type::Int(8), Type::Int(8)]);
        let s = parse_streams("(1,2),(3,-1)", &t).unwrap();
        assert_eq!(s.get(0), (0x0102 << 1));
        assert_eq!(
            element(split_word(s.get(1), &t).0, &t).to_string(),
            "(3, -1)"
        );
        assert!(parse_streams("(1,2,3)", &t).is_err());
        assert!(parse_streams("1,,2", &i64t).is_err());
        // A wide tuple: 8 x i64 and the end bit.
        let w = Type::Tuple(vec![Type::Int(64); 8]);
        let s = parse_streams("(1,2,3,4,5,6,7,-8)", &w).unwrap();
        let (e, end) = split_word(s.get(0), &w);
        assert!(!end);
        assert_eq!(element(e, &w).to_string(), "(1, 2, 3, 4, 5, 6, 7, -8)");
        assert!(split_word(s.get(1), &w).1);
    }

    #[test]
    fn groups_tokens_into_streams() {
        let i8t = Type::Int(8);
        let tok = |cycle, e: u64, end| OutputToken {
            cycle,
            value: None,
            bits: token_word(e, &i8t, end),
        };
        let runs = streams_of(
            &[tok(1, 3, false), tok(2, 0, true), tok(5, 0xff, false)],
            &i8t,
        );
        assert_eq!(runs.len(), 2);
        assert_eq!(runs[0].ended_at, Some(2));
        assert_eq!(runs[1].elements, vec![Element::Int(-1)]);
        assert_eq!(runs[1].ended_at, None);
        let text = render_streams("out", &runs);
        assert!(
            text.contains("out stream 1: [3] ended at cycle 2"),
            "{text}"
        );
        assert!(text.contains("out stream 2: [-1] never ended"), "{text}");
        assert_eq!(streams_of(&[], &i8t)[0].ended_at, None);
        assert_eq!(operator_line(&operator_block("map0", 17)), Some(17));
        assert_eq!(operator_line("bb2"), None);
    }
}
