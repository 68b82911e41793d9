//! Per-channel transfer statistics, counted in cheap 8-bit lanes.
//!
//! Every cycle adds one to a channel's `fires`, `valid` and `ready` counts and tracks how
//! long its token has been waiting (`valid & !ready`). Those per-cycle updates run over
//! byte arrays in one branch-free loop the compiler vectorizes (16 or 32 channels per
//! instruction); the bytes are folded into 64-bit totals every [`CHUNK`] cycles, before they
//! can overflow, and whenever totals are read.

/// Cycles per chunk: the 8-bit lanes hold at most this many increments.
const CHUNK: u32 = 255;

/// Transfer counts of every channel.
#[derive(Clone, Debug, Default)]
pub struct Counters {
    fires: Vec<u64>,
    valid: Vec<u64>,
    ready: Vec<u64>,
    /// Last cycle in which the channel held no waiting token (`!valid | ready`); -1 = never.
    last_break: Vec<i64>,
    /// Last cycle in which the channel fired; -1 = never.
    last_fire: Vec<i64>,
    /// Counts of the current chunk.
    fires8: Vec<u8>,
    valid8: Vec<u8>,
    ready8: Vec<u8>,
    /// Consecutive waiting cycles at the end of the current chunk.
    wait8: Vec<u8>,
    /// Consecutive cycles without a transfer at the end of the current chunk.
    idle8: Vec<u8>,
    /// First cycle of the current chunk.
    chunk_start: u64,
    /// Cycles counted in the current chunk.
    chunk_len: u32,
}

/// Reads a `bool` slice as bytes (0 or 1).
#[inline(always)]
fn bytes(b: &[bool]) -> &[u8] {
    // SAFETY: `bool` has the size and alignment of `u8` and is always 0 or 1.
    unsafe { std::slice::from_raw_parts(b.as_ptr().cast::<u8>(), b.len()) }
}

impl Counters {
    /// Zero counts for `n` channels.
    pub fn new(n: usize) -> Self {
        Counters {
            fires: vec![0; n],
            valid: vec![0; n],
            ready: vec![0; n],
            last_break: vec![-1; n],
            last_fire: vec![-1; n],
            fires8: vec![0; n],
            valid8: vec![0; n],
            ready8: vec![0; n],
            wait8: vec![0; n],
            idle8: vec![0; n],
            chunk_start: 0,
            chunk_len: 0,
        }
    }

    /// Counts cycle `cycle` (cycles are counted in order, one call each). Returns true when
    /// any channel fired.
    #[inline]
    pub fn count(&mut self, cycle: u64, valid: &[bool], ready: &[bool]) -> bool {
        if self.chunk_len == CHUNK {
            self.flush();
        }
        if self.chunk_len == 0 {
            self.chunk_start = cycle;
        }
        self.chunk_len += 1;
        let n = self.fires8.len();
        let (v, r) = (&bytes(valid)[..n], &bytes(ready)[..n]);
        let (f8, v8, r8, w8, i8) = (
            &mut self.fires8[..n],
            &mut self.valid8[..n],
            &mut self.ready8[..n],
            &mut self.wait8[..n],
            &mut self.idle8[..n],
        );
        let mut any = 0u8;
        for i in 0..n {
            let (vi, ri) = (v[i], r[i]);
            let f = vi & ri;
            f8[i] = f8[i].wrapping_add(f);
            v8[i] = v8[i].wrapping_add(vi);
            r8[i] = r8[i].wrapping_add(ri);
            let wait = vi & (ri ^ 1);
            w8[i] = w8[i].wrapping_add(1) & 0u8.wrapping_sub(wait);
            i8[i] = i8[i].wrapping_add(1) & 0u8.wrapping_sub(f ^ 1);
            any |= f;
        }
        any != 0
    }

    /// Folds the current chunk into the totals.
    pub fn flush(&mut self) {
        let len = self.chunk_len;
        if len == 0 {
            return;
        }
        let last = (self.chunk_start + u64::from(len) - 1) as i64;
        for i in 0..self.fires.len() {
            self.fires[i] += u64::from(self.fires8[i]);
            self.valid[i] += u64::from(self.valid8[i]);
            self.ready[i] += u64::from(self.ready8[i]);
            let w = u32::from(self.wait8[i]);
            if w < len {
                self.last_break[i] = last - i64::from(w);
            }
            let idle = u32::from(self.idle8[i]);
            if idle < len {
                self.last_fire[i] = last - i64::from(idle);
            }
        }
        self.fires8.fill(0);
        self.valid8.fill(0);
        self.ready8.fill(0);
        self.wait8.fill(0);
        self.idle8.fill(0);
        self.chunk_len = 0;
    }

    /// Total fires of channel `i` (flushed or not).
    pub fn fires(&self, i: usize) -> u64 {
        self.fires[i] + u64::from(self.fires8[i])
    }

    /// Total cycles with `valid` of channel `i`.
    pub fn valid(&self, i: usize) -> u64 {
        self.valid[i] + u64::from(self.valid8[i])
    }

    /// Total cycles with `ready` of channel `i`.
    pub fn ready(&self, i: usize) -> u64 {
        self.ready[i] + u64::from(self.ready8[i])
    }

    /// Fires of all channels (call [`Counters::flush`] first).
    pub fn flushed_fires(&self) -> &[u64] {
        debug_assert_eq!(self.chunk_len, 0);
        &self.fires
    }

    /// Last non-waiting cycle of all channels (call [`Counters::flush`] first).
    pub fn flushed_last_break(&self) -> &[i64] {
        debug_assert_eq!(self.chunk_len, 0);
        &self.last_break
    }

    /// Per channel: the last cycle it fired (-1: never), as of the last flush.
    pub fn flushed_last_fire(&self) -> &[i64] {
        debug_assert_eq!(self.chunk_len, 0);
        &self.last_fire
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_naive_counting_across_chunks() {
        let n = 37;
        let mut c = Counters::new(n);
        let mut rng = crate::stimulus::SplitMix64::new(3);
        let (mut f, mut v, mut r) = (vec![0u64; n], vec![0u64; n], vec![0u64; n]);
        let mut lb = vec![-1i64; n];
        let mut lf = vec![-1i64; n];
        for cycle in 0..1000u64 {
            // Some channels wait for long stretches (longer than a chunk).
            let valid: Vec<bool> = (0..n).map(|i| i < 5 || rng.next() & 1 == 0).collect();
            let ready: Vec<bool> = (0..n)
                .map(|i| i >= 3 && (i < 5 && cycle > 700 || rng.next() & 1 == 0))
                .collect();
            let any = c.count(cycle, &valid, &ready);
            let mut any2 = false;
            for i in 0..n {
                let fire = valid[i] & ready[i];
                f[i] += u64::from(fire);
                v[i] += u64::from(valid[i]);
                r[i] += u64::from(ready[i]);
                any2 |= fire;
                if !valid[i] | ready[i] {
                    lb[i] = cycle as i64;
                }
                if fire {
                    lf[i] = cycle as i64;
                }
            }
            assert_eq!(any, any2);
            if cycle % 97 == 0 {
                for i in 0..n {
                    assert_eq!((c.fires(i), c.valid(i), c.ready(i)), (f[i], v[i], r[i]));
                }
            }
        }
        c.flush();
        assert_eq!(c.flushed_fires(), &f[..]);
        assert_eq!(c.flushed_last_break(), &lb[..]);
        assert_eq!(c.flushed_last_fire(), &lf[..]);
        assert_eq!(lf[0], -1, "channel 0 never fires");
        assert_eq!(lb[0], -1, "channel 0 waits forever");
        assert_eq!(lb[3], 999);
    }
}
