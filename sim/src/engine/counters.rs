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
    /// Counts of the current chunk, [`LANES`] channels per block (the last block is
    /// padded; its lanes past the last channel count nothing that is read).
    blocks: Vec<Block>,
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

/// Channels counted by one block of vector code (a multiple of every vector width).
const LANES: usize = 32;

/// The 8-bit counts of the current chunk of [`LANES`] channels.
#[derive(Clone, Debug, Default)]
struct Block {
    fires: [u8; LANES],
    valid: [u8; LANES],
    ready: [u8; LANES],
    /// Consecutive waiting cycles at the end of the current chunk.
    wait: [u8; LANES],
    /// Consecutive cycles without a transfer at the end of the current chunk.
    idle: [u8; LANES],
}

impl Block {
    /// Counts one cycle of the block's channels (`valid`, `ready` as 0/1 bytes). Returns
    /// nonzero when any of them fired. Branch-free: one vector instruction per 16 or 32
    /// lanes and count.
    #[inline(always)]
    fn count(&mut self, v: &[u8; LANES], r: &[u8; LANES]) -> u8 {
        let mut any = 0u8;
        for i in 0..LANES {
            let (vi, ri) = (v[i], r[i]);
            let f = vi & ri;
            self.fires[i] = self.fires[i].wrapping_add(f);
            self.valid[i] = self.valid[i].wrapping_add(vi);
            self.ready[i] = self.ready[i].wrapping_add(ri);
            let wait = vi & (ri ^ 1);
            self.wait[i] = self.wait[i].wrapping_add(1) & 0u8.wrapping_sub(wait);
            self.idle[i] = self.idle[i].wrapping_add(1) & 0u8.wrapping_sub(f ^ 1);
            any |= f;
        }
        any
    }
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
            blocks: vec![Block::default(); n.div_ceil(LANES)],
            chunk_start: 0,
            chunk_len: 0,
        }
    }

    /// Counts the `k` cycles from `cycle` on, whose signals are all `valid`/`ready` and in
    /// which no channel fires: one vector pass over the lanes while the chunk has room,
    /// else straight into the totals.
    pub fn count_same(&mut self, cycle: u64, k: u64, valid: &[bool], ready: &[bool]) {
        if k == 0 {
            return;
        }
        if u64::from(self.chunk_len) + k > u64::from(CHUNK) {
            self.flush();
            if k >= u64::from(CHUNK) {
                self.add_same(cycle, k, valid, ready);
                return;
            }
        }
        if self.chunk_len == 0 {
            self.chunk_start = cycle;
        }
        self.chunk_len += k as u32;
        let k = k as u8;
        let n = self.fires.len();
        for (bi, b) in self.blocks.iter_mut().enumerate() {
            let at = bi * LANES;
            let m = (n - at).min(LANES);
            let (v, r) = (&bytes(valid)[at..at + m], &bytes(ready)[at..at + m]);
            for i in 0..m {
                let (vi, ri) = (v[i], r[i]);
                b.valid[i] = b.valid[i].wrapping_add(k & 0u8.wrapping_sub(vi));
                b.ready[i] = b.ready[i].wrapping_add(k & 0u8.wrapping_sub(ri));
                b.wait[i] = b.wait[i].wrapping_add(k) & 0u8.wrapping_sub(vi & (ri ^ 1));
                b.idle[i] = b.idle[i].wrapping_add(k);
            }
        }
    }

    /// Adds `k` repeated cycles from `cycle` on to the totals (the chunk is empty).
    fn add_same(&mut self, cycle: u64, k: u64, valid: &[bool], ready: &[bool]) {
        let last = (cycle + k - 1) as i64;
        for i in 0..self.fires.len() {
            let (v, r) = (u8::from(valid[i]), u8::from(ready[i]));
            debug_assert!(v & r == 0, "a repeated cycle fired");
            self.valid[i] += k * u64::from(v);
            self.ready[i] += k * u64::from(r);
            if v == 0 || r != 0 {
                self.last_break[i] = last;
            }
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
        let (v, r) = (bytes(valid), bytes(ready));
        let n = self.fires.len();
        let mut any = 0u8;
        let mut at = 0;
        for b in &mut self.blocks {
            any |= if at + LANES <= n {
                let block = |x: &[u8]| -> [u8; LANES] {
                    x[at..at + LANES].try_into().expect("a whole block")
                };
                b.count(&block(v), &block(r))
            } else {
                // The last, partial block: zero-padded copies (the padding counts nothing
                // that is read), so that it too is vector code.
                let (mut vt, mut rt) = ([0u8; LANES], [0u8; LANES]);
                vt[..n - at].copy_from_slice(&v[at..n]);
                rt[..n - at].copy_from_slice(&r[at..n]);
                b.count(&vt, &rt)
            };
            at += LANES;
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
            let (b, k) = (&self.blocks[i / LANES], i % LANES);
            self.fires[i] += u64::from(b.fires[k]);
            self.valid[i] += u64::from(b.valid[k]);
            self.ready[i] += u64::from(b.ready[k]);
            let w = u32::from(b.wait[k]);
            if w < len {
                self.last_break[i] = last - i64::from(w);
            }
            let idle = u32::from(b.idle[k]);
            if idle < len {
                self.last_fire[i] = last - i64::from(idle);
            }
        }
        self.blocks.fill(Block::default());
        self.chunk_len = 0;
    }

    /// Number of channels counted.
    pub fn channels(&self) -> usize {
        self.fires.len()
    }

    /// Total fires of channel `i` (flushed or not).
    pub fn fires(&self, i: usize) -> u64 {
        self.fires[i] + u64::from(self.blocks[i / LANES].fires[i % LANES])
    }

    /// Total cycles with `valid` of channel `i`.
    pub fn valid(&self, i: usize) -> u64 {
        self.valid[i] + u64::from(self.blocks[i / LANES].valid[i % LANES])
    }

    /// Total cycles with `ready` of channel `i`.
    pub fn ready(&self, i: usize) -> u64 {
        self.ready[i] + u64::from(self.blocks[i / LANES].ready[i % LANES])
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
        // Less than a block, exactly one, a block and a partial one, two.
        for n in [5, 32, 37, 64] {
            matches_naive_counting(n);
        }
    }

    #[test]
    fn repeated_cycles_count_as_the_cycle_they_repeat() {
        let n = 40;
        let mut c = Counters::new(n);
        let mut naive = Counters::new(n);
        let mut rng = crate::stimulus::SplitMix64::new(9);
        let mut cycle = 0u64;
        for round in 0..200 {
            let valid: Vec<bool> = (0..n).map(|_| rng.next() & 1 == 0).collect();
            // Every other round nothing fires, and that cycle is repeated.
            let ready: Vec<bool> = (0..n)
                .map(|i| (round % 2 == 0 || !valid[i]) && rng.next() & 1 == 0)
                .collect();
            c.count(cycle, &valid, &ready);
            naive.count(cycle, &valid, &ready);
            cycle += 1;
            if round % 2 == 1 {
                // Long repeats too (past a chunk).
                let k = match round % 10 {
                    1 => 600,
                    3 => 300,
                    _ => round % 7,
                };
                if k > 0 {
                    c.count_same(cycle, k / 2, &valid, &ready);
                    c.count_same(cycle + k / 2, k - k / 2, &valid, &ready);
                }
                for _ in 0..k {
                    naive.count(cycle, &valid, &ready);
                    cycle += 1;
                }
            }
            if round % 13 == 0 {
                for i in 0..n {
                    assert_eq!(
                        (c.fires(i), c.valid(i), c.ready(i)),
                        (naive.fires(i), naive.valid(i), naive.ready(i))
                    );
                }
            }
        }
        c.flush();
        naive.flush();
        assert_eq!(c.flushed_fires(), naive.flushed_fires());
        assert_eq!(c.flushed_last_break(), naive.flushed_last_break());
        assert_eq!(c.flushed_last_fire(), naive.flushed_last_fire());
        assert_eq!(c.valid, naive.valid);
        assert_eq!(c.ready, naive.ready);
    }

    fn matches_naive_counting(n: usize) {
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
