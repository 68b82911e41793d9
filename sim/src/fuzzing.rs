//! Entry points of this crate's fuzz targets (`fuzz/fuzz_targets/stimulus.rs`), shared with the
//! test that replays their minimized corpus (`tests/fuzz_corpus.rs`), so a corpus file runs
//! through exactly the code the fuzzer ran it through. Each function panics on a broken
//! invariant (that is how the fuzzer learns of it) and returns normally otherwise.

use crate::stimulus::{ReadyPolicy, TokenSource, int_range};
use crate::types::{FloatKind, Type};

/// The types a stimulus is parsed for, picked by the first byte of the input.
const TYPES: [Type; 9] = [
    Type::None,
    Type::Int(1),
    Type::Int(8),
    Type::Int(16),
    Type::Int(32),
    Type::Int(64),
    Type::Index,
    Type::Float(FloatKind::F32),
    Type::Float(FloatKind::F64),
];

/// `--in`/`--mem` token text and `--ready` policies on arbitrary bytes (the first byte picks
/// the argument type, the rest is the text): parsing never panics, an error renders, and
/// what parses keeps its promises: integer values fit the type (as signed or unsigned), a
/// range is non-empty with both ends in the type, float values keep the format's width, a
/// policy's probability lies in 0..=1. Texts that name a file (`@...`) are left out: the
/// fuzzer must not read the machine's files.
pub fn stimulus(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    if let Ok(p) = ReadyPolicy::parse(text) {
        match p {
            ReadyPolicy::Random { prob, .. } => assert!((0.0..=1.0).contains(&prob), "{prob}"),
            ReadyPolicy::Pattern(bits) => assert!(!bits.is_empty()),
            ReadyPolicy::Always => {}
        }
    }
    if text.trim_start().starts_with('@') {
        return;
    }
    let ty = &TYPES[usize::from(sel) % TYPES.len()];
    match TokenSource::parse(text, ty) {
        Err(e) => assert!(!e.to_string().is_empty()),
        Ok(src) => check_source(&src, ty, text),
    }
}

fn check_source(src: &TokenSource, ty: &Type, text: &str) {
    let (min, max) = int_range(ty);
    let fits = |bits: u64| {
        let as_signed = i128::from(bits as i64);
        let as_unsigned = i128::from(bits);
        (min..=max).contains(&as_signed) || (min..=max).contains(&as_unsigned)
    };
    match src {
        TokenSource::None(_) => assert!(ty.is_none(), "a count for {ty}: {text:?}"),
        TokenSource::Range { start, end } => {
            assert!(ty.is_integer(), "a range for {ty}: {text:?}");
            assert!(start < end, "empty range from {text:?}");
            assert!(
                *start >= min && end - 1 <= max,
                "range outside {ty}: {text:?}"
            );
            assert_eq!(src.len(), (end - start) as u64);
        }
        TokenSource::Values(v) => {
            assert!(!v.is_empty(), "no values from {text:?}");
            for &bits in v {
                match ty.float_kind() {
                    Some(FloatKind::F32) => assert!(bits <= u64::from(u32::MAX), "{text:?}"),
                    Some(FloatKind::F64) => {}
                    None => assert!(fits(bits), "{bits:#x} outside {ty}: {text:?}"),
                }
            }
        }
    }
}

/// Separates the fields of a nesting directive (see [`unfold_nesting`]): ASCII group
/// separator, which no text input uses.
pub const NEST: u8 = 0x1d;

/// Longest input [`unfold_nesting`] makes (4 MiB keeps a fuzz iteration fast).
const MAX_UNFOLDED: usize = 4 << 20;

/// Deep nesting for the text fuzz targets (MLIR, C, VCD), which random mutation alone does
/// not reach: an input `N<GS>OPEN<GS>CLOSE<GS>BODY[<GS>HEAD[<GS>TAIL]]` (`<GS>` is [`NEST`],
/// `N` decimal digits) stands for `HEAD`, `OPEN` repeated `N` times, `BODY`, `CLOSE` repeated
/// `N` times and `TAIL`, at most 4 MiB in all (`"8000<GS>module {\n<GS>}\n<GS>"` is 8,000
/// nested modules); any other input stands for itself.
pub fn unfold_nesting(data: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    let parts: Vec<&[u8]> = data.splitn(6, |&b| b == NEST).collect();
    let [n, open, close, body, rest @ ..] = parts.as_slice() else {
        return data.into();
    };
    let (open, close, body) = (*open, *close, *body);
    let head = rest.first().copied().unwrap_or(&[]);
    let tail = rest.get(1).copied().unwrap_or(&[]);
    let Some(n) = std::str::from_utf8(n)
        .ok()
        .filter(|t| !t.is_empty() && t.len() <= 9 && t.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|t| t.parse::<usize>().ok())
    else {
        return data.into();
    };
    let fixed = head.len() + body.len() + tail.len();
    let each = (open.len() + close.len()).max(1);
    let n = n.min(MAX_UNFOLDED.saturating_sub(fixed) / each);
    let mut out = Vec::with_capacity(n * each + fixed);
    out.extend_from_slice(head);
    for _ in 0..n {
        out.extend_from_slice(open);
    }
    out.extend_from_slice(body);
    for _ in 0..n {
        out.extend_from_slice(close);
    }
    out.extend_from_slice(tail);
    out.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_directives_unfold() {
        assert_eq!(&*unfold_nesting(b"3\x1d(\x1d)\x1da"), b"(((a)))");
        assert_eq!(
            &*unfold_nesting(b"2\x1d(\x1d)\x1da\x1dx=\x1d;"),
            b"x=((a));"
        );
        assert_eq!(&*unfold_nesting(b"plain text"), b"plain text");
        assert_eq!(&*unfold_nesting(b"x\x1d(\x1d)\x1da"), b"x\x1d(\x1d)\x1da");
        let big = unfold_nesting(b"999999999\x1dab\x1dcd\x1d");
        assert!(big.len() <= MAX_UNFOLDED && big.len() > MAX_UNFOLDED - 4);
    }
}
