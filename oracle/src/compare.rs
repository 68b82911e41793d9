//! Comparing per-cycle channel values of the engine and of the RTL.

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
    /// Mask of the data bits (0: data not compared, e.g. `none` or a documented exception).
    pub data_mask: u64,
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
    /// A few cycles around it, both sides, printable.
    pub context: String,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "design `{}`: channel `{}` {} differs first in cycle {}: engine {:#x}, RTL {:#x}\n{}",
            self.design, self.channel, self.field, self.cycle, self.engine, self.rtl, self.context
        )
    }
}

fn fmt_cycle(w: &ChannelWave, c: usize, mask: u64) -> String {
    let v = w.valid.get(c).copied().unwrap_or(false);
    let r = w.ready.get(c).copied().unwrap_or(false);
    let d = w.data.get(c).copied().unwrap_or(0) & mask;
    if mask == 0 {
        format!("v={} r={}", u8::from(v), u8::from(r))
    } else if v {
        format!("v={} r={} d={d:#x}", u8::from(v), u8::from(r))
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
                    fmt_cycle(engine, k, check.data_mask),
                    fmt_cycle(rtl, k, check.data_mask)
                );
            }
            let m = Mismatch {
                design: design.to_string(),
                channel: check.name.clone(),
                cycle: c,
                field,
                engine: e,
                rtl: r,
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
}
