//! Per-channel histories (change points of valid/ready/data), cached per channel, for the side
//! panel's "stalled N cycles" and the waveform panel.

use std::collections::BTreeMap;

use handscope_sim::trace::{ChannelSample, Trace};

use super::style::ChanState;

/// Change points of one channel: `(cycle, sample)` with the first at cycle 0.
pub type History = Vec<(u64, ChannelSample)>;

/// Histories by trace channel index, with the number of cycles each covers; extended over
/// the new cycles when the trace grows.
#[derive(Default)]
pub struct HistoryCache {
    map: BTreeMap<usize, (u64, History)>,
}

impl HistoryCache {
    /// The history of trace channel `ch` (over all of `t`'s cycles).
    pub fn get(&mut self, t: &Trace, ch: usize) -> &History {
        let n = t.cycles();
        let e = self.map.entry(ch).or_insert_with(|| (0, Vec::new()));
        if e.0 > n {
            // A shorter trace than the one the history was read from: start over.
            *e = (0, Vec::new());
        }
        if e.0 < n {
            e.1.extend(t.channel_history_from(ch, e.0));
            e.0 = n;
        }
        &e.1
    }

    /// Forgets everything (new trace).
    pub fn clear(&mut self) {
        self.map.clear();
    }
}

/// Index of the change point in effect at cycle `c`.
pub fn at(h: &History, c: u64) -> Option<usize> {
    h.partition_point(|(k, _)| *k <= c).checked_sub(1)
}

/// First cycle of the run of state `ChanState` that contains cycle `c`.
pub fn run_start(h: &History, c: u64) -> Option<(ChanState, u64)> {
    let mut i = at(h, c)?;
    let st = |s: &ChannelSample| ChanState::of(s.valid, s.ready);
    let want = st(&h[i].1);
    while i > 0 && st(&h[i - 1].1) == want {
        i -= 1;
    }
    Some((want, h[i].0))
}

/// Transfers, stall cycles and accept cycles in cycles `0..=c`.
pub fn counts(h: &History, c: u64) -> [u64; 3] {
    let mut out = [0u64; 3];
    for (k, (start, s)) in h.iter().enumerate() {
        if *start > c {
            break;
        }
        let end = h.get(k + 1).map_or(c + 1, |(e, _)| (*e).min(c + 1));
        let len = end - start;
        match ChanState::of(s.valid, s.ready) {
            ChanState::Transfer => out[0] += len,
            ChanState::Stall => out[1] += len,
            ChanState::Accept => out[2] += len,
            ChanState::Idle => {}
        }
    }
    out
}
