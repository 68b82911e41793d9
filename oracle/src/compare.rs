//! Comparing per-cycle channel values of the engine and of the RTL.
//!
//! Data are channel words: the bit pattern up to 64 bits, a wide word
//! ([`handscope_sim::wide`]) above, where equal values are equal words, so the comparison
//! is the same at every width (wide channels are compared with an all-ones mask).

use std::fmt::Write as _;

/// Per-cycle values of one channel.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChannelWave {
    /// `valid` per cycle.
    pub valid: Vec<bool>,
    /// `ready` per cycle.
    pub ready: Vec<bool>,
    /// `data` per cycle (only meaningful where valid).
    pub data: Vec<u64>,
}

/// What to compare for one channel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChannelCheck {
    /// Channel name.
    pub name: String,
    /// Mask of the data bits (0: data not compared, e.g. `none` or a documented exception;
    /// all ones for a wide channel).
    pub data_mask: u64,
    /// Data width in bits (how values are printed).
    pub width: u32,
}

/// First disagreement on one channel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// Design name.
    pub design: String,
    /// Channel name.
    pub channel: String,
    /// First cycle that differs.
    pub cycle: usize,
    /// `valid`, `ready` or `data`.
    pub field: &'static str,
    /// Engine value.
    pub engine: u64,
    /// RTL value.
    pub rtl: u64,
    /// Data width of the channel (how `engine` and `rtl` read for `data`).
    pub width: u32,
    /// A few cycles around it, both sides, printable.
    pub context: String,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "design `{}`: channel `{}` {} differs first in cycle {}: engine {}, RTL {}\n{}",
            self.design,
            self.channel,
            self.field,
            self.cycle,
            hex(self.engine, self.width),
            hex(self.rtl, self.width),
            self.context
        )
    }
}

/// `0x` and the hexadecimal digits of a channel word of a `width`-bit channel.
fn hex(word: u64, width: u32) -> String {
    if handscope_sim::wide::is_wide(width) {
        format!("0x{}", handscope_sim::wide::to_hex(word, width))
    } else {
        format!("{word:#x}")
    }
}

fn fmt_cycle(w: &ChannelWave, c: usize, mask: u64, width: u32) -> String {
    let v = w.valid.get(c).copied().unwrap_or(false);
    let r = w.ready.get(c).copied().unwrap_or(false);
    let d = w.data.get(c).copied().unwrap_or(0) & mask;
    if mask == 0 {
        format!("v={} r={}", u8::from(v), u8::from(r))
    } else if v {
        format!("v={} r={} d={}", u8::from(v), u8::from(r), hex(d, width))
    } else {
        format!("v={} r={} d=-", u8::from(v), u8::from(r))
    }
}

/// Compares the first `cycles` cycles of one channel; returns the number of channel-cycles
/// compared and the first mismatch, if any.
pub fn compare_channel(
    design: &str,
    check: &ChannelCheck,
    engine: &ChannelWave,
    rtl: &ChannelWave,
    cycles: usize,
) -> (u64, Option<Mismatch>) {
    for c in 0..cycles {
        let ev = engine.valid[c];
        let diff = if ev != rtl.valid[c] {
            Some(("valid", u64::from(ev), u64::from(rtl.valid[c])))
        } else if engine.ready[c] != rtl.ready[c] {
            Some(("ready", u64::from(engine.ready[c]), u64::from(rtl.ready[c])))
        } else if ev && (engine.data[c] ^ rtl.data[c]) & check.data_mask != 0 {
            Some((
                "data",
                engine.data[c] & check.data_mask,
                rtl.data[c] & check.data_mask,
            ))
        } else {
            None
        };
        if let Some((field, e, r)) = diff {
            let mut context = String::new();
            for k in c.saturating_sub(4)..(c + 3).min(cycles) {
                let mark = if k == c { ">" } else { " " };
                let _ = writeln!(
                    context,
                    "  {mark} cycle {k:>5}: engine {:<28} RTL {}",
                    fmt_cycle(engine, k, check.data_mask, check.width),
                    fmt_cycle(rtl, k, check.data_mask, check.width)
                );
            }
            let m = Mismatch {
                design: design.to_string(),
                channel: check.name.clone(),
                cycle: c,
                field,
                engine: e,
                rtl: r,
                width: if field == "data" { check.width } else { 1 },
                context,
            };
            return (c as u64 + 1, Some(m));
        }
    }
    (cycles as u64, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_first_difference_and_masks_data() {
        let a = ChannelWave {
            valid: vec![true, true, false],
            ready: vec![true; 3],
            data: vec![1, 0x102, 7],
        };
        let mut b = a.clone();
        b.data[2] = 9; // not valid: ignored
        b.data[1] = 0x202; // differs only above the mask
        let chk = ChannelCheck {
            name: "x".into(),
            data_mask: 0xff,
            width: 8,
        };
        assert_eq!(compare_channel("d", &chk, &a, &b, 3), (3, None));
        b.data[1] = 0x203;
        let (n, m) = compare_channel("d", &chk, &a, &b, 3);
        let m = m.unwrap();
        assert_eq!((n, m.cycle, m.field, m.engine, m.rtl), (2, 1, "data", 2, 3));
        assert!(
            m.to_string()
                .contains("channel `x` data differs first in cycle 1")
        );
        b.ready[0] = false;
        assert_eq!(
            compare_channel("d", &chk, &a, &b, 3).1.unwrap().field,
            "ready"
        );
    }

    #[test]
    fn wide_words_compare_and_print_by_value() {
        use handscope_sim::wide;
        // 2^94 + 1 and 2^95 + 1.
        let x = wide::from_limbs(&[1, 1 << 30], 96);
        let y = wide::from_limbs(&[1, 1 << 31], 96);
        let a = ChannelWave {
            valid: vec![true, true],
            ready: vec![true; 2],
            data: vec![x, x],
        };
        let mut b = a.clone();
        let chk = ChannelCheck {
            name: "w".into(),
            data_mask: u64::MAX,
            width: 96,
        };
        assert_eq!(compare_channel("d", &chk, &a, &b, 2), (2, None));
        b.data[1] = y;
        let m = compare_channel("d", &chk, &a, &b, 2).1.unwrap();
        assert_eq!((m.cycle, m.field), (1, "data"));
        let text = m.to_string();
        assert!(text.contains("engine 0x400000000000000000000001"), "{text}");
        assert!(text.contains("RTL 0x800000000000000000000001"), "{text}");
    }
}
