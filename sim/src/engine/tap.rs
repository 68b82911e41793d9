//! Streaming a run's signals out cycle by cycle, without recording a trace: what a waveform
//! written while simulating needs (constant memory, one pass).
//!
//! Each cycle's *signal words* have the order and meaning of a [`Trace`](crate::trace::Trace)'s
//! signals: per channel `i`, word `i` is `valid | ready << 1` and word `C + i` the data the
//! channel last held while valid; then the state words (registers before the cycle's clock
//! edge). A replay of a recorded trace and a tapped run give the same words.
//!
//! The tap is driven by what changed: a cycle hands out, next to all the words, the indices
//! of the words that differ from the cycle before ([`TapCycle::changed`]), so a waveform
//! writer does work per change, not per signal. Finding them costs one comparison of the
//! control bytes and registers per cycle and a look at the data of the valid channels only;
//! a cycle in which the engine changed no channel (a quiet cycle of the activity-driven
//! engine) compares the registers alone.

use crate::trace::{ChannelMeta, Layout, StateMeta};

/// What a [`Simulation::run_tapped`](super::Simulation::run_tapped) hands its sink each
/// cycle, and the names and types that describe those words.
#[derive(Clone, Debug)]
pub struct SignalTap {
    pub(super) layout: Layout,
    /// The signal words of the last cycle handed out.
    words: Vec<u64>,
    /// Indices of the words of the cycle being handed out that changed, in signal order.
    changed: Vec<u32>,
    /// The state words among them, recorded before the channels'.
    state_changed: Vec<u32>,
    /// `valid` and `ready` of every channel in the last cycle handed out.
    valid: Vec<bool>,
    ready: Vec<bool>,
    /// Per channel, whether its data is its own (not an alias of another channel's).
    own_data: Vec<bool>,
    /// The aliases of root channel `r`: `aliases[alias_start[r]..alias_start[r + 1]]`.
    alias_start: Vec<u32>,
    aliases: Vec<u32>,
    /// The channels whose data word changed in the cycle being recorded, one bit each.
    data_changed: Vec<u64>,
}

/// One cycle as a tap hands it out.
#[derive(Clone, Copy, Debug)]
pub struct TapCycle<'a> {
    /// The cycle.
    pub cycle: u64,
    /// Every signal word of the cycle (see [`SignalTap`]).
    pub words: &'a [u64],
    /// The indices into `words` of the words that differ from the cycle before, ascending
    /// (at cycle 0, those that differ from all zeros).
    pub changed: &'a [u32],
}

/// Bytes compared at once when looking for changed control bits and registers.
const CHUNK: usize = 16;

impl SignalTap {
    pub(super) fn new(layout: Layout) -> Self {
        let nc = layout.nc();
        let n = layout.n_words;
        let mut own_data = vec![true; nc];
        let mut pairs: Vec<(u32, u32)> = layout.aliases.iter().map(|&(a, r)| (r, a)).collect();
        pairs.sort_unstable();
        let mut alias_start = vec![0u32; nc + 1];
        for &(r, a) in &pairs {
            own_data[a as usize] = false;
            alias_start[r as usize + 1] += 1;
        }
        for i in 0..nc {
            alias_start[i + 1] += alias_start[i];
        }
        let aliases = pairs.iter().map(|&(_, a)| a).collect();
        SignalTap {
            layout,
            words: vec![0; n],
            changed: Vec::new(),
            state_changed: Vec::new(),
            valid: vec![false; nc],
            ready: vec![false; nc],
            own_data,
            alias_start,
            aliases,
            data_changed: vec![0; nc.div_ceil(64)],
        }
    }

    /// The channels, in signal order.
    pub fn channels(&self) -> &[ChannelMeta] {
        &self.layout.channels
    }

    /// The nodes with state words and the names of their words, in signal order.
    pub fn state_meta(&self) -> &[StateMeta] {
        &self.layout.state
    }

    /// The data aliases, `(alias, root)`: channel `alias`'s data word is always channel
    /// `root`'s ([`Trace::data_aliases`](crate::trace::Trace::data_aliases)).
    pub fn data_aliases(&self) -> &[(u32, u32)] {
        &self.layout.aliases
    }

    /// Starts a cycle: `regs` are the registers before its clock edge (read before the
    /// settle, which applies part of the edge). Records the state words that changed.
    pub(super) fn begin_cycle(&mut self, regs: &[u64]) {
        self.changed.clear();
        self.state_changed.clear();
        let base = 2 * self.layout.nc();
        let n = (self.words.len() - base).min(regs.len());
        let old = &mut self.words[base..base + n];
        let new = &regs[..n];
        for (k, (o, r)) in old.chunks_mut(CHUNK).zip(new.chunks(CHUNK)).enumerate() {
            if !differ(o, r) {
                continue;
            }
            for (j, (o, &r)) in o.iter_mut().zip(r).enumerate() {
                if *o != r {
                    *o = r;
                    self.state_changed.push((base + k * CHUNK + j) as u32);
                }
            }
        }
    }

    /// Records the channels whose control bits or held data changed in the cycle just
    /// settled. A cycle that changed no channel may skip this.
    pub(super) fn channels_settled(&mut self, valid: &[bool], ready: &[bool], data: &[u64]) {
        let nc = self.layout.nc();
        let ch = &mut self.changed;
        let words = &mut self.words;
        for k in (0..nc).step_by(CHUNK) {
            let e = (k + CHUNK).min(nc);
            let (pv, pr) = (&mut self.valid[k..e], &mut self.ready[k..e]);
            let (v, r) = (&valid[k..e], &ready[k..e]);
            let mut mask = match (
                <&[bool; CHUNK]>::try_from(&pv[..]),
                <&[bool; CHUNK]>::try_from(v),
                <&[bool; CHUNK]>::try_from(&pr[..]),
                <&[bool; CHUNK]>::try_from(r),
            ) {
                (Ok(pv), Ok(v), Ok(pr), Ok(r)) => control_mask(pv, v, pr, r),
                _ => (0..e - k).fold(0u32, |m, j| {
                    m | u32::from(pv[j] != v[j] || pr[j] != r[j]) << j
                }),
            };
            while mask != 0 {
                let j = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                pv[j] = v[j];
                pr[j] = r[j];
                words[k + j] = u64::from(v[j]) | u64::from(r[j]) << 1;
                ch.push((k + j) as u32);
            }
        }
        // Data: only a valid channel that is no alias takes new data of its own. A mask of
        // such channels whose data differs, 16 at once without branches; their words and
        // their aliases' change, noted in a bit set read in channel order.
        for k in (0..nc).step_by(CHUNK) {
            let e = (k + CHUNK).min(nc);
            let mut mask = match (
                <&[bool; CHUNK]>::try_from(&valid[k..e]),
                <&[bool; CHUNK]>::try_from(&self.own_data[k..e]),
                <&[u64; CHUNK]>::try_from(&data[k..e]),
                <&[u64; CHUNK]>::try_from(&words[nc + k..nc + e]),
            ) {
                (Ok(v), Ok(o), Ok(d), Ok(h)) => new_data_mask(v, o, d, h),
                _ => (k..e).fold(0u32, |m, i| {
                    let differs = valid[i] & self.own_data[i] & (data[i] != words[nc + i]);
                    m | u32::from(differs) << (i - k)
                }),
            };
            while mask != 0 {
                let i = k + mask.trailing_zeros() as usize;
                mask &= mask - 1;
                let d = data[i];
                words[nc + i] = d;
                self.data_changed[i / 64] |= 1 << (i % 64);
                let (a, b) = (
                    self.alias_start[i] as usize,
                    self.alias_start[i + 1] as usize,
                );
                for &a in &self.aliases[a..b] {
                    let a = a as usize;
                    if words[nc + a] != d {
                        words[nc + a] = d;
                        self.data_changed[a / 64] |= 1 << (a % 64);
                    }
                }
            }
        }
        for (w, bits) in self.data_changed.iter_mut().enumerate() {
            let mut m = std::mem::take(bits);
            while m != 0 {
                ch.push((nc + w * 64 + m.trailing_zeros() as usize) as u32);
                m &= m - 1;
            }
        }
    }

    /// The cycle recorded by [`SignalTap::begin_cycle`] (and
    /// [`SignalTap::channels_settled`]), as handed to a sink.
    pub(super) fn hand_out(&mut self, cycle: u64) -> TapCycle<'_> {
        // The state words come after the channels'.
        self.changed.extend_from_slice(&self.state_changed);
        TapCycle {
            cycle,
            words: &self.words,
            changed: &self.changed,
        }
    }
}

/// The bits of the channels of a chunk whose `valid` or `ready` differs from before: the
/// flags of a chunk compared as 128-bit words (a differing byte is 1).
#[inline]
fn control_mask(
    old_valid: &[bool; CHUNK],
    valid: &[bool; CHUNK],
    old_ready: &[bool; CHUNK],
    ready: &[bool; CHUNK],
) -> u32 {
    let word = |x: &[bool; CHUNK]| u128::from_ne_bytes(x.map(u8::from));
    let diff = (word(old_valid) ^ word(valid)) | (word(old_ready) ^ word(ready));
    pack_bits(diff.to_ne_bytes())
}

/// The bits of the channels of a chunk that are valid, hold data of their own and carry
/// data other than the held word.
#[inline]
fn new_data_mask(
    valid: &[bool; CHUNK],
    own: &[bool; CHUNK],
    data: &[u64; CHUNK],
    held: &[u64; CHUNK],
) -> u32 {
    let word = |x: &[bool; CHUNK]| u128::from_ne_bytes(x.map(u8::from));
    let takes = word(valid) & word(own);
    if takes == 0 {
        return 0;
    }
    let ne: [u8; CHUNK] = std::array::from_fn(|j| u8::from(data[j] != held[j]));
    pack_bits((takes & u128::from_ne_bytes(ne)).to_ne_bytes())
}

/// Bit `j` of the result is byte `j` of `b` (each 0 or 1): eight bytes at once by one
/// multiplication, which moves byte `j`'s low bit to bit `56 + j` with no two terms
/// meeting, instead of a variable shift per lane (which keeps a loop scalar).
#[inline]
fn pack_bits(b: [u8; CHUNK]) -> u32 {
    const GATHER: u64 = 0x0102_0408_1020_4080;
    let half = |h: &[u8]| -> u32 {
        let x = u64::from_le_bytes(h.try_into().expect("eight bytes"));
        (x.wrapping_mul(GATHER) >> 56) as u32
    };
    half(&b[..8]) | half(&b[8..]) << 8
}

/// Whether `a` and `b` differ anywhere: one pass without branches (vector code), where a
/// slice comparison would call `memcmp` for a handful of words.
#[inline]
fn differ<T: Copy + PartialEq>(a: &[T], b: &[T]) -> bool {
    a.iter().zip(b).fold(false, |acc, (x, y)| acc | (x != y))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packs_one_bit_per_byte() {
        for bits in [0u32, 1, 0x8000, 0xffff, 0xa5c3, 0x0101, 0x7ffe] {
            let b: [u8; CHUNK] = std::array::from_fn(|j| (bits >> j & 1) as u8);
            assert_eq!(pack_bits(b), bits, "{bits:#x}");
        }
        for j in 0..CHUNK {
            let mut b = [0u8; CHUNK];
            b[j] = 1;
            assert_eq!(pack_bits(b), 1 << j);
        }
    }
}
