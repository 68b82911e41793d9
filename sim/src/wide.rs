//! Data wider than 64 bits.
//!
//! Every channel carries its data in one `u64` word (see [`crate::types`]). A channel of at
//! most 64 bits carries the bit pattern itself; a wider channel (an `i128`, a `tuple` of 96
//! bits, up to [`crate::types::MAX_DATA_WIDTH`] bits) carries a *wide word*:
//! * a value below 2^63 is the word itself (so `0`, the reset value, is zero at every width,
//!   and a zero-extended `i32` costs nothing);
//! * any other value is interned once per process in a global table and the word is
//!   `2^63 | its index`.
//!
//! Interning is canonical (one value, one word), so everything that copies, stores or
//! compares words (the engine's forks, buffers and memories, the trace's change detection,
//! the oracle's comparisons) is exact without knowing about widths; only what computes with a
//! value or prints it comes here. The table only grows: each distinct value of 2^63 or more
//! seen by the process costs its limbs once (a 4096-bit value 512 bytes), see [`stats`].

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, RwLock};

use num_bigint::{BigInt, BigUint, Sign};
use num_traits::{Num, Zero};

/// The flag that marks a wide word as an index into the table.
const HANDLE: u64 = 1 << 63;

/// The process-wide table of interned values.
#[derive(Default)]
struct Table {
    /// Values by index: little-endian limbs, no trailing zero limb.
    values: Vec<Arc<[u64]>>,
    /// Index of every value.
    index: HashMap<Arc<[u64]>, u64>,
    /// Sum of the values' limbs, in bytes.
    bytes: usize,
}

static TABLE: LazyLock<RwLock<Table>> = LazyLock::new(|| RwLock::new(Table::default()));

/// The table to read. A thread that panicked while holding the lock (a `--batch` worker, a
/// test) leaves it consistent (a value is pushed before it is indexed, and a value without an
/// index entry is merely interned again), so the lock's poison is ignored instead of making
/// every other thread panic.
fn table() -> std::sync::RwLockReadGuard<'static, Table> {
    TABLE
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The table to change (see [`table`]).
fn table_mut() -> std::sync::RwLockWriteGuard<'static, Table> {
    TABLE
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// True when a channel of `width` bits carries wide words.
#[inline(always)]
pub fn is_wide(width: u32) -> bool {
    width > 64
}

/// Number of 64-bit limbs of a `width`-bit value (at least 1).
pub fn limb_count(width: u32) -> usize {
    (width as usize).div_ceil(64).max(1)
}

/// The word of the value whose little-endian limbs are `limbs` (an unbounded unsigned
/// integer), masked to `width` bits. For `width <= 64` this is the low limb, masked.
pub fn from_limbs(limbs: &[u64], width: u32) -> u64 {
    if !is_wide(width) {
        return limbs.first().copied().unwrap_or(0) & crate::types::width_mask(width);
    }
    let n = limb_count(width).min(limbs.len());
    let mut v: Vec<u64> = limbs[..n].to_vec();
    let top = width % 64;
    if n == limb_count(width) && top != 0 {
        v[n - 1] &= (1u64 << top) - 1;
    }
    intern(v)
}

/// Interns trimmed limbs.
fn intern(mut v: Vec<u64>) -> u64 {
    while v.last() == Some(&0) {
        v.pop();
    }
    match v.as_slice() {
        [] => return 0,
        [x] if *x < HANDLE => return *x,
        _ => {}
    }
    if let Some(&h) = table().index.get(v.as_slice()) {
        return h;
    }
    let mut t = table_mut();
    if let Some(&h) = t.index.get(v.as_slice()) {
        return h;
    }
    let h = HANDLE | t.values.len() as u64;
    t.bytes += v.len() * 8;
    let v: Arc<[u64]> = v.into();
    t.values.push(v.clone());
    t.index.insert(v, h);
    h
}

/// The little-endian limbs of a word of a `width`-bit channel, exactly
/// [`limb_count`]`(width)` of them.
pub fn to_limbs(word: u64, width: u32) -> Vec<u64> {
    let n = limb_count(width);
    let mut out = vec![0u64; n];
    if !is_wide(width) || word & HANDLE == 0 {
        out[0] = word;
        return out;
    }
    let t = table();
    if let Some(v) = t.values.get((word & !HANDLE) as usize) {
        for (o, x) in out.iter_mut().zip(v.iter()) {
            *o = *x;
        }
    }
    out
}

/// The unsigned value of a word of a `width`-bit channel.
pub fn to_biguint(word: u64, width: u32) -> BigUint {
    if !is_wide(width) || word & HANDLE == 0 {
        return BigUint::from(word);
    }
    let limbs = to_limbs(word, width);
    let mut digits = Vec::with_capacity(limbs.len() * 2);
    for l in limbs {
        digits.push(l as u32);
        digits.push((l >> 32) as u32);
    }
    BigUint::new(digits)
}

/// The word of `v` on a `width`-bit channel (`v` reduced modulo 2^width).
pub fn from_biguint(v: &BigUint, width: u32) -> u64 {
    from_limbs(&v.to_u64_digits(), width)
}

/// The two's-complement signed value of a word of a `width`-bit channel.
pub fn to_bigint(word: u64, width: u32) -> BigInt {
    let u = to_biguint(word, width);
    if width > 0 && u.bit(u64::from(width) - 1) {
        BigInt::from(u) - (BigInt::from(1u8) << width)
    } else {
        BigInt::from(u)
    }
}

/// The word of the signed value `v` on a `width`-bit channel (two's complement modulo
/// 2^width).
pub fn from_bigint(v: &BigInt, width: u32) -> u64 {
    match v.sign() {
        Sign::Minus => {
            let m = BigInt::from(1u8) << width;
            let r = ((v % &m) + &m) % &m;
            from_biguint(r.magnitude(), width)
        }
        _ => from_biguint(v.magnitude(), width),
    }
}

/// Bits `[shift, shift + out_width)` of a word of an `in_width`-bit channel, as a word of an
/// `out_width`-bit channel.
pub fn extract(word: u64, in_width: u32, shift: u32, out_width: u32) -> u64 {
    if !is_wide(in_width) {
        let v = if shift >= 64 { 0 } else { word >> shift };
        return v & crate::types::width_mask(out_width);
    }
    from_biguint(&(to_biguint(word, in_width) >> shift), out_width)
}

/// The concatenation of `fields` (word, width), field 0 in the most significant bits, as a
/// word of a channel as wide as their sum.
pub fn concat(fields: impl IntoIterator<Item = (u64, u32)>) -> u64 {
    let mut acc = BigUint::zero();
    let mut total = 0u32;
    for (w, width) in fields {
        acc = (acc << width) | to_biguint(w, width);
        total += width;
    }
    from_biguint(&acc, total)
}

/// Lower-case hexadecimal digits of a word of a `width`-bit channel, without a prefix or
/// leading zeros (`0` for zero).
pub fn to_hex(word: u64, width: u32) -> String {
    to_biguint(word, width).to_str_radix(16)
}

/// Decimal text of a word of a `width`-bit channel, unsigned or two's-complement signed.
pub fn to_decimal(word: u64, width: u32, signed: bool) -> String {
    if signed {
        to_bigint(word, width).to_string()
    } else {
        to_biguint(word, width).to_string()
    }
}

/// Binary digits of a word of a `width`-bit channel, without leading zeros (`0` for zero),
/// as VCD value changes write them.
pub fn to_binary(word: u64, width: u32) -> String {
    to_biguint(word, width).to_str_radix(2)
}

/// Why a text is not a value of a given width.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// Not a number in any accepted notation.
    #[error("`{0}` is not a number (decimal, or 0x / 0o / 0b followed by digits)")]
    Syntax(String),
    /// More bits than the width holds.
    #[error("`{text}` does not fit in {width} bits")]
    TooLarge {
        /// The text.
        text: String,
        /// The width.
        width: u32,
    },
}

/// Parses a value for a `width`-bit channel: decimal with an optional `-` (two's
/// complement), or `0x`, `0o`, `0b` digits; `_` separators are allowed. A value that needs
/// more than `width` bits (more than `width` bits of magnitude for a positive value, below
/// `-2^(width-1)` for a negative one) is an error.
pub fn parse(text: &str, width: u32) -> Result<u64, ParseError> {
    let t: String = text.trim().chars().filter(|&c| c != '_').collect();
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, t.strip_prefix('+').unwrap_or(&t)),
    };
    let lower = body.to_ascii_lowercase();
    let (radix, digits) = [("0x", 16), ("0o", 8), ("0b", 2)]
        .into_iter()
        .find_map(|(p, r)| lower.strip_prefix(p).map(|d| (r, d)))
        .unwrap_or((10, lower.as_str()));
    if digits.is_empty() {
        return Err(ParseError::Syntax(text.to_string()));
    }
    let mag =
        BigUint::from_str_radix(digits, radix).map_err(|_| ParseError::Syntax(text.to_string()))?;
    let too_large = || ParseError::TooLarge {
        text: text.trim().to_string(),
        width,
    };
    if neg {
        if width == 0 || mag.bits() > u64::from(width) {
            return Err(too_large());
        }
        if mag > (BigUint::from(1u8) << (width - 1)) {
            return Err(too_large());
        }
        Ok(from_bigint(&-BigInt::from(mag), width))
    } else {
        if mag.bits() > u64::from(width) {
            return Err(too_large());
        }
        Ok(from_biguint(&mag, width))
    }
}

/// How many values the process has interned and their total size in bytes.
pub fn stats() -> (usize, usize) {
    let t = table();
    (t.values.len(), t.bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Issue 36, item 9: a thread that panics while holding the table's lock (a `--batch`
    /// worker) poisoned it, and every later wide value panicked in every other thread.
    #[test]
    fn a_panic_while_the_table_is_locked_does_not_stop_other_threads() {
        let before = from_limbs(&[7, 7], 128);
        let r = std::thread::spawn(|| {
            let _held = table_mut();
            panic!("injected failure while holding the wide table");
        })
        .join();
        assert!(r.is_err());
        assert_eq!(from_limbs(&[7, 7], 128), before);
        assert_eq!(to_limbs(before, 128), [7, 7]);
        let fresh = from_limbs(&[9, 9, 9], 192);
        assert_eq!(to_limbs(fresh, 192), [9, 9, 9]);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        /// Any value of any width survives words, limbs, decimal, signed decimal and hex.
        #[test]
        fn words_and_texts_round_trip(
            limbs in proptest::collection::vec(any::<u64>(), 1..70),
            width in 1u32..4200,
        ) {
            let w = from_limbs(&limbs, width);
            let back = to_limbs(w, width);
            prop_assert_eq!(from_limbs(&back, width), w);
            prop_assert_eq!(parse(&to_decimal(w, width, false), width), Ok(w));
            prop_assert_eq!(parse(&to_decimal(w, width, true), width), Ok(w));
            prop_assert_eq!(parse(&format!("0x{}", to_hex(w, width)), width), Ok(w));
            prop_assert_eq!(parse(&format!("0b{}", to_binary(w, width)), width), Ok(w));
            prop_assert!(to_biguint(w, width).bits() <= u64::from(width));
        }

        /// Garbage text is an error, never a panic.
        #[test]
        fn parse_never_panics(text in "\\PC{0,40}", width in 0u32..300) {
            let _ = parse(&text, width);
        }
    }

    #[test]
    fn small_values_are_their_own_word() {
        assert_eq!(from_limbs(&[5, 0, 0], 200), 5);
        assert_eq!(from_limbs(&[], 128), 0);
        assert_eq!(to_limbs(5, 200), vec![5, 0, 0, 0]);
        assert_eq!(from_limbs(&[u64::MAX], 32), u64::from(u32::MAX));
    }

    #[test]
    fn interning_is_canonical() {
        let a = from_limbs(&[1, 2], 128);
        let b = from_limbs(&[1, 2, 0, 0], 256);
        assert_eq!(a, b);
        assert_ne!(a & HANDLE, 0);
        assert_eq!(to_limbs(a, 128), vec![1, 2]);
        let c = from_limbs(&[u64::MAX], 65);
        assert_ne!(c & HANDLE, 0);
        assert_eq!(to_limbs(c, 65), vec![u64::MAX, 0]);
    }

    #[test]
    fn masking_to_width() {
        let w = from_limbs(&[u64::MAX, u64::MAX], 96);
        assert_eq!(to_limbs(w, 96), vec![u64::MAX, 0xffff_ffff]);
        assert_eq!(to_hex(w, 96), "f".repeat(24));
    }

    #[test]
    fn signed_round_trip() {
        for width in [65u32, 96, 128, 512, 4096] {
            let m1 = from_bigint(&BigInt::from(-1), width);
            assert_eq!(to_bigint(m1, width), BigInt::from(-1));
            assert_eq!(to_biguint(m1, width).bits(), u64::from(width));
            assert_eq!(to_decimal(m1, width, true), "-1");
        }
    }

    #[test]
    fn parse_and_print() {
        let w = parse("0x1_0000_0000_0000_0000", 128).unwrap();
        assert_eq!(to_decimal(w, 128, false), "18446744073709551616");
        assert_eq!(parse("-1", 128).map(|w| to_hex(w, 128)), Ok("f".repeat(32)));
        assert_eq!(
            parse("340282366920938463463374607431768211456", 128),
            Err(ParseError::TooLarge {
                text: "340282366920938463463374607431768211456".into(),
                width: 128
            })
        );
        assert!(matches!(parse("12z", 128), Err(ParseError::Syntax(_))));
        assert_eq!(parse("-128", 8), Ok(0x80));
        assert!(parse("-129", 8).is_err());
        assert_eq!(to_binary(parse("5", 100).unwrap(), 100), "101");
    }

    #[test]
    fn extract_and_concat() {
        // tuple<i32, i64, i64>: field 0 on top.
        let t = concat([(7, 32), (u64::MAX, 64), (3, 64)]);
        assert_eq!(extract(t, 160, 128, 32), 7);
        assert_eq!(extract(t, 160, 64, 64), u64::MAX);
        assert_eq!(extract(t, 160, 0, 64), 3);
        assert_eq!(concat([(1, 1), (0, 64)]), from_limbs(&[0, 1], 65));
    }
}
