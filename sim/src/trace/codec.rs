//! The byte encoding of the delta store: one record per cycle with the signals that changed.
//!
//! Values are stored as wrapping differences to the old value (zigzag LEB128), so counters and
//! small steps take one byte. The set of changed signals is a bitmap, stored as its XOR with
//! the bitmap of one of the last [`SET_RING`] records (the cheapest one; pipelines repeat
//! with short periods), as LEB128 gaps between the differing bits. A record is a tag
//! [`TAG_XOR`]` + k` (base: the `k`-th previous record, `k = 0` the empty set), the number of
//! differing bits, their gaps, then the differences of the changed signals in signal order;
//! or the single tag [`TAG_REPEAT`]: the same signals and differences as the previous record
//! (steady state). A cycle in which nothing changed has no bytes at all.

use std::collections::VecDeque;

/// Keyframe spacing: bytes of deltas allowed between keyframes, in snapshot sizes.
pub(super) const KEYFRAME_FACTOR: usize = 8;

/// Keyframe spacing: signal changes allowed between keyframes, per signal (bounds the work
/// of reconstructing one cycle).
pub(super) const KEYFRAME_WORK: usize = 16;

/// Record tag: the previous record's signals and differences again.
const TAG_REPEAT: u8 = 1;
/// Record tags `TAG_XOR + k` (`k` in `0..=SET_RING`): signal set given as an XOR with the
/// `k`-th previous record's set (`k = 0`: the empty set).
const TAG_XOR: u8 = 16;
/// Number of previous records' signal sets a record can refer to.
const SET_RING: usize = 4;

#[inline(always)]
fn put_varint(out: &mut Vec<u8>, mut x: u64) {
    while x >= 0x80 {
        out.push((x as u8) | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

#[inline(always)]
fn zigzag(d: u64) -> u64 {
    (d << 1) ^ (((d as i64) >> 63) as u64)
}

#[inline(always)]
fn unzigzag(z: u64) -> u64 {
    (z >> 1) ^ (z & 1).wrapping_neg()
}

#[inline(always)]
fn get_varint(b: &[u8], pos: &mut usize) -> u64 {
    let mut x = 0u64;
    let mut shift = 0;
    loop {
        let byte = b[*pos];
        *pos += 1;
        x |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return x;
        }
        shift += 7;
    }
}

/// Encoder state carried from one record to the next (within one keyframe segment).
#[derive(Clone, Debug, Default)]
pub(super) struct Encoder {
    /// Signal bitmaps of recent records, most recent first (at most [`SET_RING`]).
    ring: VecDeque<Vec<u64>>,
    /// Scratch bitmap.
    bits: Vec<u64>,
    /// The previous record's differences.
    last_diffs: Vec<u64>,
}

impl Encoder {
    /// Forgets the previous records (a new keyframe segment starts).
    pub(super) fn reset(&mut self) {
        self.ring.clear();
        self.last_diffs.clear();
    }

    /// Appends the record of one cycle to `out`: the changed signals `sigs` (ascending) of
    /// `n_words` signals and their differences `diffs`. `diffs` may be swapped with the
    /// previous record's (its contents are unspecified afterwards). Writes nothing when
    /// `sigs` is empty.
    pub(super) fn record(
        &mut self,
        n_words: usize,
        sigs: &[u32],
        diffs: &mut Vec<u64>,
        out: &mut Vec<u8>,
    ) {
        let n = sigs.len();
        if n == 0 {
            return;
        }
        out.reserve(1 + 10 + 20 * n);
        let words = n_words.div_ceil(64);
        let mut cur = std::mem::take(&mut self.bits);
        cur.clear();
        cur.resize(words, 0);
        for &sg in sigs {
            cur[sg as usize / 64] |= 1 << (sg % 64);
        }
        let repeat = self.ring.front().is_some_and(|r| *r == cur) && *diffs == self.last_diffs;
        if repeat {
            out.push(TAG_REPEAT);
            self.bits = cur;
            return;
        }
        // Cheapest base: fewest differing bits.
        let mut best = (n as u32, 0usize);
        for (k, r) in self.ring.iter().enumerate() {
            let c: u32 = r.iter().zip(&cur).map(|(a, b)| (a ^ b).count_ones()).sum();
            if c < best.0 {
                best = (c, k + 1);
            }
        }
        let (count, k) = best;
        out.push(TAG_XOR + k as u8);
        put_varint(out, u64::from(count));
        let mut last: i64 = -1;
        for (w, &x) in cur.iter().enumerate() {
            let mut x = if k == 0 { x } else { x ^ self.ring[k - 1][w] };
            while x != 0 {
                let bit = (w * 64) as i64 + i64::from(x.trailing_zeros());
                put_varint(out, (bit - last - 1) as u64);
                last = bit;
                x &= x - 1;
            }
        }
        for &d in diffs.iter() {
            put_varint(out, zigzag(d));
        }
        let recycled = if self.ring.len() == SET_RING {
            self.ring.pop_back().expect("full ring")
        } else {
            Vec::new()
        };
        self.ring.push_front(cur);
        self.bits = recycled;
        std::mem::swap(diffs, &mut self.last_diffs);
    }
}

/// Decoder state carried from one record to the next.
#[derive(Clone, Debug, Default)]
pub(super) struct Decoder {
    ring: VecDeque<Vec<u64>>,
    sigs: Vec<u32>,
    diffs: Vec<u64>,
}

impl Decoder {
    /// Forgets the previous records (a new keyframe segment starts).
    pub(super) fn reset(&mut self) {
        self.ring.clear();
        self.diffs.clear();
    }

    /// Applies the record `b[pos..end]` of a trace with `n_words` signals to `vals`,
    /// reporting every changed signal to `f`.
    pub(super) fn apply(
        &mut self,
        n_words: usize,
        b: &[u8],
        mut pos: usize,
        end: usize,
        vals: &mut [u64],
        mut f: impl FnMut(usize, u64),
    ) {
        if pos == end {
            return;
        }
        let b = &b[..end];
        let tag = b[pos];
        pos += 1;
        if tag != TAG_REPEAT {
            let k = usize::from(tag - TAG_XOR);
            let words = n_words.div_ceil(64);
            let full = self.ring.len() == SET_RING;
            let mut cur = if full && k == SET_RING {
                self.ring.pop_back().expect("full ring")
            } else {
                let mut v = if full {
                    self.ring.pop_back().expect("full ring")
                } else {
                    Vec::new()
                };
                v.clear();
                match k {
                    0 => v.resize(words, 0),
                    _ => v.extend_from_slice(&self.ring[k - 1]),
                }
                v
            };
            let count = get_varint(b, &mut pos);
            let mut bit: i64 = -1;
            for _ in 0..count {
                bit += get_varint(b, &mut pos) as i64 + 1;
                cur[bit as usize / 64] ^= 1 << (bit % 64);
            }
            self.sigs.clear();
            self.diffs.clear();
            for (w, &x) in cur.iter().enumerate() {
                let mut x = x;
                while x != 0 {
                    self.sigs.push((w * 64) as u32 + x.trailing_zeros());
                    x &= x - 1;
                }
            }
            for _ in 0..self.sigs.len() {
                self.diffs.push(unzigzag(get_varint(b, &mut pos)));
            }
            self.ring.push_front(cur);
        }
        for (&sg, &d) in self.sigs.iter().zip(&self.diffs) {
            let s = sg as usize;
            vals[s] = vals[s].wrapping_add(d);
            f(s, vals[s]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_and_zigzag_round_trip() {
        for x in [0u64, 1, 127, 128, 300, u64::MAX, 1 << 63] {
            let mut b = Vec::new();
            put_varint(&mut b, x);
            let mut pos = 0;
            assert_eq!(get_varint(&b, &mut pos), x);
            assert_eq!(pos, b.len());
            assert_eq!(unzigzag(zigzag(x)), x);
        }
        assert_eq!(zigzag(u64::MAX), 1, "-1 takes one byte");
    }

    #[test]
    fn records_round_trip_with_repeats_and_ring_bases() {
        let n = 130;
        let sets: [&[u32]; 6] = [
            &[0, 5, 129],
            &[0, 5, 129],
            &[1, 64],
            &[0, 5, 129],
            &[],
            &[7],
        ];
        let mut enc = Encoder::default();
        let mut out = Vec::new();
        let mut ends = Vec::new();
        let mut expect = vec![0u64; n];
        let mut want = Vec::new();
        for (k, s) in sets.iter().enumerate() {
            let mut diffs: Vec<u64> = s.iter().map(|&x| u64::from(x) + 1).collect();
            if k == 3 {
                diffs[0] = u64::MAX;
            }
            for (&sg, &d) in s.iter().zip(&diffs) {
                expect[sg as usize] = expect[sg as usize].wrapping_add(d);
            }
            want.push(expect.clone());
            enc.record(n, s, &mut diffs, &mut out);
            ends.push(out.len());
        }
        assert_eq!(
            out[ends[0]], TAG_REPEAT,
            "the second record repeats the first"
        );
        let mut dec = Decoder::default();
        let mut vals = vec![0u64; n];
        let mut start = 0;
        for (k, &end) in ends.iter().enumerate() {
            dec.apply(n, &out, start, end, &mut vals, |_, _| {});
            assert_eq!(vals, want[k], "record {k}");
            start = end;
        }
    }
}
