//! Floating-point values as text: the one spelling every report, the debugger and the stimulus
//! parser share.
//!
//! [`format_float`] writes the shortest text that reads back to the same bits:
//! - finite values in the shortest decimal form that round-trips (`1.5`, `-0`, `0.1`, `100`),
//!   with an exponent outside `1e-5 <= |x| < 1e16` (`1e300`, `1.5e-7`);
//! - `inf`, `-inf`;
//! - `nan` and `-nan` for the default quiet NaNs (quiet bit set, payload 0; `-nan`, bits
//!   `0xffc00000` / `0xfff8000000000000`, is what x86-64 produces for an invalid operation);
//! - any other NaN as `nan(0x<bits>)`, the full bit pattern in hex (`nan(0x7fc00001)`,
//!   signaling NaNs included), so that payloads survive a round trip.
//!
//! [`parse_float`] reads all of these back, plus decimal forms with an exponent or sign (`+1e3`,
//! `.5`, `infinity`, correctly rounded to the format) and a raw bit pattern in hex
//! (`0x3fc00000`), which must fit the format's width.

use crate::types::FloatKind;

/// The quiet bit of each format (the most significant fraction bit).
pub fn quiet_bit(kind: FloatKind) -> u64 {
    match kind {
        FloatKind::F32 => 1 << 22,
        FloatKind::F64 => 1 << 51,
    }
}

/// The sign bit of each format.
pub fn sign_bit(kind: FloatKind) -> u64 {
    1 << (kind.bits() - 1)
}

/// The exponent field mask of each format (all ones for infinities and NaNs).
fn exp_mask(kind: FloatKind) -> u64 {
    match kind {
        FloatKind::F32 => 0x7f80_0000,
        FloatKind::F64 => 0x7ff0_0000_0000_0000,
    }
}

/// True when `bits` encode a NaN of `kind`.
pub fn is_nan(bits: u64, kind: FloatKind) -> bool {
    let m = exp_mask(kind);
    bits & m == m && bits & (quiet_bit(kind) * 2 - 1) != 0
}

/// The positive default quiet NaN (`nan`): `0x7fc00000` / `0x7ff8000000000000`.
pub fn positive_nan(kind: FloatKind) -> u64 {
    exp_mask(kind) | quiet_bit(kind)
}

/// Writes the value with bit pattern `bits` of format `kind` (see the module documentation).
pub fn format_float(bits: u64, kind: FloatKind) -> String {
    let bits = bits & crate::types::width_mask(kind.bits());
    let sign = bits & sign_bit(kind) != 0;
    if is_nan(bits, kind) {
        return if bits == positive_nan(kind) {
            "nan".into()
        } else if bits == positive_nan(kind) | sign_bit(kind) {
            "-nan".into()
        } else {
            format!("nan(0x{bits:0w$x})", w = kind.bits() as usize / 4)
        };
    }
    let (text, abs) = match kind {
        FloatKind::F32 => {
            let x = f32::from_bits(bits as u32);
            (shortest(x, f64::from(x.abs())), f64::from(x.abs()))
        }
        FloatKind::F64 => {
            let x = f64::from_bits(bits);
            (shortest(x, x.abs()), x.abs())
        }
    };
    if abs.is_infinite() {
        return if sign { "-inf" } else { "inf" }.into();
    }
    text
}

/// Rust's shortest round-trip digits, positional near 1 and with an exponent elsewhere.
fn shortest<T: std::fmt::Display + std::fmt::LowerExp>(x: T, abs: f64) -> String {
    if abs == 0.0 || (1e-5..1e16).contains(&abs) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// A float value of a known format, for reports: prints as [`format_float`]; in JSON a number
/// when finite (the shortest decimal that reads back to the same value of its format) and the
/// text (`"inf"`, `"-inf"`, `"nan"`, `"-nan"`, `"nan(0x...)"`) otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FloatValue {
    /// The format.
    pub kind: FloatKind,
    /// The bit pattern.
    pub bits: u64,
}

impl FloatValue {
    /// The value as an `f64` (exact for `f32` values except NaN payloads).
    pub fn to_f64(self) -> f64 {
        match self.kind {
            FloatKind::F32 => f64::from(f32::from_bits(self.bits as u32)),
            FloatKind::F64 => f64::from_bits(self.bits),
        }
    }
}

impl std::fmt::Display for FloatValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&format_float(self.bits, self.kind))
    }
}

impl serde::Serialize for FloatValue {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let x = self.to_f64();
        if !x.is_finite() {
            return s.serialize_str(&self.to_string());
        }
        match self.kind {
            FloatKind::F32 => s.serialize_f32(f32::from_bits(self.bits as u32)),
            FloatKind::F64 => s.serialize_f64(x),
        }
    }
}

/// Why a float could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FloatParseError {
    /// Not a number in any accepted spelling.
    #[error(
        "`{0}` is not a floating-point value (expected e.g. 1.5, -2e-3, inf, nan, nan(0x7fc00001) or a bit pattern 0x3fc00000)"
    )]
    Syntax(String),
    /// A hex bit pattern wider than the format.
    #[error("bit pattern `{text}` does not fit in {kind} ({bits} bits)")]
    Width {
        /// The text.
        text: String,
        /// The format's name.
        kind: &'static str,
        /// The format's width.
        bits: u32,
    },
    /// `nan(0x...)` whose bits are not a NaN.
    #[error("`{0}` names a bit pattern that is not a NaN; write the bits as `0x...` instead")]
    NotNan(String),
}

/// Reads a value of format `kind` (see the module documentation); returns its bit pattern.
pub fn parse_float(text: &str, kind: FloatKind) -> Result<u64, FloatParseError> {
    let t = text.trim();
    let syntax = || FloatParseError::Syntax(crate::quote::excerpt(t));
    let hex = |h: &str| -> Result<u64, FloatParseError> {
        let v = u64::from_str_radix(&h.replace('_', ""), 16).map_err(|_| syntax())?;
        if h.is_empty() || v & !crate::types::width_mask(kind.bits()) != 0 {
            return Err(FloatParseError::Width {
                text: crate::quote::excerpt(t),
                kind: kind.name(),
                bits: kind.bits(),
            });
        }
        Ok(v)
    };
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        return hex(h);
    }
    let lower = t.to_ascii_lowercase();
    let (neg, body) = match lower.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, lower.strip_prefix('+').unwrap_or(&lower)),
    };
    let sign = if neg { sign_bit(kind) } else { 0 };
    if body == "nan" {
        return Ok(positive_nan(kind) | sign);
    }
    if let Some(inner) = body.strip_prefix("nan(").and_then(|b| b.strip_suffix(')')) {
        let h = inner.strip_prefix("0x").ok_or_else(syntax)?;
        if neg || t.starts_with('+') {
            return Err(syntax());
        }
        let v = hex(h)?;
        return if is_nan(v, kind) {
            Ok(v)
        } else {
            Err(FloatParseError::NotNan(t.to_string()))
        };
    }
    // Decimal (Rust's parser rounds correctly to the target format); `inf`/`infinity` too.
    if body.is_empty() || body.starts_with(['+', '-']) || body.contains("nan") {
        return Err(syntax());
    }
    match kind {
        FloatKind::F32 => body
            .parse::<f32>()
            .map(|x| u64::from(x.to_bits()) | sign)
            .map_err(|_| syntax()),
        FloatKind::F64 => body
            .parse::<f64>()
            .map(|x| x.to_bits() | sign)
            .map_err(|_| syntax()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const F32: FloatKind = FloatKind::F32;
    const F64: FloatKind = FloatKind::F64;

    fn f32b(x: f32) -> u64 {
        u64::from(x.to_bits())
    }

    #[test]
    fn formats_shortest_and_specials() {
        assert_eq!(format_float(f32b(1.5), F32), "1.5");
        assert_eq!(format_float(f32b(1.0), F32), "1");
        assert_eq!(format_float(f32b(-0.0), F32), "-0");
        assert_eq!(format_float(f32b(0.1), F32), "0.1");
        assert_eq!(format_float(0.1f64.to_bits(), F64), "0.1");
        assert_eq!(format_float(1e300f64.to_bits(), F64), "1e300");
        assert_eq!(format_float(f32b(1.5e-7), F32), "1.5e-7");
        assert_eq!(format_float(f32b(f32::INFINITY), F32), "inf");
        assert_eq!(format_float(f64::NEG_INFINITY.to_bits(), F64), "-inf");
        assert_eq!(format_float(0x7fc0_0000, F32), "nan");
        assert_eq!(format_float(0xffc0_0000, F32), "-nan");
        assert_eq!(format_float(0xfff8_0000_0000_0000, F64), "-nan");
        assert_eq!(format_float(0x7fc0_0001, F32), "nan(0x7fc00001)");
        assert_eq!(format_float(0x7f80_0001, F32), "nan(0x7f800001)");
        assert_eq!(format_float(1, F64), "5e-324");
        assert_eq!(format_float(f32b(f32::MAX), F32), "3.4028235e38");
    }

    #[test]
    fn parses_every_spelling() {
        assert_eq!(parse_float("1.5", F32), Ok(0x3fc0_0000));
        assert_eq!(parse_float(" -2e-3 ", F64), Ok((-2e-3f64).to_bits()));
        assert_eq!(parse_float("+inf", F32), Ok(0x7f80_0000));
        assert_eq!(parse_float("-Infinity", F32), Ok(0xff80_0000));
        assert_eq!(parse_float("nan", F32), Ok(0x7fc0_0000));
        assert_eq!(parse_float("-nan", F64), Ok(0xfff8_0000_0000_0000));
        assert_eq!(parse_float("nan(0x7f800001)", F32), Ok(0x7f80_0001));
        assert_eq!(parse_float("0x3fc00000", F32), Ok(0x3fc0_0000));
        assert_eq!(parse_float(".5", F32), Ok(f32b(0.5)));
        assert_eq!(parse_float("-0", F32), Ok(0x8000_0000));
        // Correct rounding to the format, not through f64.
        assert_eq!(parse_float("16777217", F32), Ok(f32b(16_777_216.0)));
        assert!(matches!(
            parse_float("0x1ffffffff", F32),
            Err(FloatParseError::Width { .. })
        ));
        assert!(matches!(
            parse_float("nan(0x3f800000)", F32),
            Err(FloatParseError::NotNan(_))
        ));
        for bad in [
            "",
            "x",
            "1.5.2",
            "--1",
            "-nan(0x7fc00001)",
            "nan(7fc00001)",
            "1,5",
        ] {
            assert!(parse_float(bad, F32).is_err(), "{bad}");
        }
    }

    #[test]
    fn json_numbers_and_strings() {
        let v = |bits, kind| serde_json::to_string(&FloatValue { kind, bits }).unwrap();
        assert_eq!(v(f32b(0.1), F32), "0.1");
        assert_eq!(v(1.5f64.to_bits(), F64), "1.5");
        assert_eq!(v(f32b(-0.0), F32), "-0.0");
        assert_eq!(v(0x7f80_0000, F32), "\"inf\"");
        assert_eq!(v(0xffc0_0000, F32), "\"-nan\"");
        assert_eq!(v(0x7ff8_0000_0000_0001, F64), "\"nan(0x7ff8000000000001)\"");
        assert_eq!(
            FloatValue {
                kind: F32,
                bits: f32b(2.5)
            }
            .to_string(),
            "2.5"
        );
    }

    /// Every spelling reads back to the same bits, for special and random patterns.
    #[test]
    fn round_trips_bit_exactly() {
        let mut x = 0x1234_5678_9abc_def0u64;
        let mut pats: Vec<u64> = vec![
            0,
            1,
            0x8000_0000,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0xffc0_0000,
            0x7f80_0001,
            0x007f_ffff,
            0x0080_0000,
            0x7f7f_ffff,
        ];
        for _ in 0..20_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            pats.push(x);
        }
        for &p in &pats {
            for kind in [F32, F64] {
                let b = p & crate::types::width_mask(kind.bits());
                let s = format_float(b, kind);
                assert_eq!(parse_float(&s, kind), Ok(b), "{kind:?} {b:#x} `{s}`");
            }
        }
    }
}
