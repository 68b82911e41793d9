//! The engine's trace storage: periodic state snapshots, with any cycle rebuilt by
//! re-simulating from the snapshot before it.
//!
//! Every combinational signal of a cycle (valid, ready, data) is a pure function of the
//! registers, the memories and the environment's state at the start of that cycle (token
//! cursors, ready-policy generators). So instead of storing every channel every cycle, the
//! recorder keeps a [`Key`] every `interval` cycles: registers, memories (shared with the
//! previous key when untouched), environment state, and per channel the data it last held
//! while valid (the trace shows that while a channel is not valid; channels whose trace
//! data is an alias of another channel's need none). Register and held words are stored
//! compactly: every [`GROUP`]-th key in full, the others as differences to it, each as a
//! bitmap of the nonzero words plus their zigzag LEB128 values (flags that did not move
//! cost one bit, counters a byte or two). Rebuilding cycle `c`
//! restores the key at or before `c` and runs at most `interval - 1` cycles plus one settle;
//! the interval is chosen from the program size so that this stays well under a
//! millisecond. Recording costs a snapshot every `interval` cycles plus one vectorized
//! pass per cycle that keeps the held data current.

use std::sync::Arc;

use super::eval::{self, State};
use super::program::Program;
use crate::stimulus::{ArgCursor, ReadyGen};

/// Work units (instructions plus channels) re-simulated per random access, at most.
const ACCESS_BUDGET: usize = 160_000;

/// Keys per group: the first of a group is stored in full, the others as differences to it.
const GROUP: usize = 16;

/// One snapshot: the state at the start of trace cycle `cycle`.
#[derive(Clone, Debug)]
struct Key {
    cycle: u64,
    sim_cycle: u64,
    /// Register words, then the held data of the channels in `ResimStore::kept`, encoded
    /// by [`encode_words`] against the group's first key (itself against zeros).
    words: Box<[u8]>,
    mems: Vec<Arc<Vec<u64>>>,
    args: Vec<(u32, ArgCursor)>,
    readies: Vec<(u32, ReadyGen)>,
}

/// Snapshots of a run, and the program to re-simulate them with.
#[derive(Clone, Debug)]
pub(crate) struct ResimStore {
    prog: Arc<Program>,
    interval: u64,
    keys: Vec<Key>,
    cycles: u64,
    /// Channels whose held data is stored (those the trace does not show as an alias).
    kept: Vec<u32>,
}

/// The snapshots a store took after a given point, to extend a copy of it (see
/// [`crate::trace::TraceTail`]).
#[derive(Clone, Debug)]
pub(crate) struct ResimTail {
    keys: Vec<Key>,
    cycles: u64,
}

/// What recording needs besides the store: the running state that goes into the next
/// snapshot. Lives in the [`super::Simulation`], not in the trace.
#[derive(Clone, Debug)]
pub(crate) struct Recorder {
    /// Data each channel of `ResimStore::kept` last had while valid.
    held: Vec<u64>,
    /// The words of the current group's first key, and scratch for the next.
    base: Vec<u64>,
    words: Vec<u64>,
    /// Memories as of the last key, and which changed since.
    mems: Vec<Arc<Vec<u64>>>,
    dirty: Vec<bool>,
}

/// Appends `cur - base` (wrapping; `base` all zero when `None`): a bitmap of the nonzero
/// differences, then each of them as zigzag LEB128.
fn encode_words(cur: &[u64], base: Option<&[u64]>, out: &mut Vec<u8>) {
    match base {
        Some(b) => encode_diffs(cur, |i| b[i], out),
        None => encode_diffs(cur, |_| 0, out),
    }
}

#[inline(always)]
fn encode_diffs(cur: &[u64], base: impl Fn(usize) -> u64, out: &mut Vec<u8>) {
    let n = cur.len();
    let start = out.len();
    let nb = n.div_ceil(8);
    // Room for the bitmap and the longest varints; trimmed at the end.
    out.resize(start + nb + 10 * n, 0);
    let (bitmap, vals) = out[start..].split_at_mut(nb);
    let mut pos = 0;
    for ((chunk, words), bits) in cur.chunks(8).enumerate().zip(bitmap.iter_mut()) {
        let mut b = 0u8;
        for (k, &w) in words.iter().enumerate() {
            let d = w.wrapping_sub(base(chunk * 8 + k));
            if d != 0 {
                b |= 1 << k;
                let mut z = (d << 1) ^ ((d as i64 >> 63) as u64);
                while z >= 0x80 {
                    vals[pos] = z as u8 | 0x80;
                    pos += 1;
                    z >>= 7;
                }
                vals[pos] = z as u8;
                pos += 1;
            }
        }
        *bits = b;
    }
    out.truncate(start + nb + pos);
}

/// Inverse of [`encode_words`]: `out[i] += difference i` for every word.
fn decode_words(bytes: &[u8], out: &mut [u64]) {
    let n = out.len();
    let (bitmap, mut rest) = bytes.split_at(n.div_ceil(8));
    for (bi, &b) in bitmap.iter().enumerate() {
        let mut b = b;
        while b != 0 {
            let i = bi * 8 + b.trailing_zeros() as usize;
            b &= b - 1;
            let mut z = 0u64;
            let mut shift = 0;
            loop {
                let (&x, r) = rest.split_first().expect("encoded by encode_words");
                rest = r;
                z |= u64::from(x & 0x7f) << shift;
                shift += 7;
                if x < 0x80 {
                    break;
                }
            }
            let d = (z >> 1) ^ 0u64.wrapping_sub(z & 1);
            out[i] = out[i].wrapping_add(d);
        }
    }
}

/// Channels that are not data aliases of another channel (following alias chains the way
/// [`crate::trace::TraceBuilder::set_data_aliases`] does: a cyclic chain is no alias).
fn alias_roots(aliases: &[Option<u32>]) -> Vec<u32> {
    let n = aliases.len();
    (0..n)
        .filter(|&i| {
            let mut root = i;
            let mut steps = 0;
            while let Some(j) = aliases[root] {
                root = j as usize;
                steps += 1;
                if root >= n || steps > n {
                    return true;
                }
            }
            root == i
        })
        .map(|i| i as u32)
        .collect()
}

/// Drives every argument channel from its token cursor: the current token, or not valid
/// (data 0) once the tokens are used up. Shared by `Simulation::step` and re-simulation.
pub(crate) fn drive_args(args: &[(u32, ArgCursor)], st: &mut State, cycle: u64) {
    for (chan, cur) in args {
        let c = *chan as usize;
        let tok = cur.offered(cycle);
        st.valid[c] = tok.is_some();
        st.data[c] = tok.unwrap_or(0);
    }
}

/// The environment's view needed to drive one cycle.
struct Env<'a> {
    args: &'a mut [(u32, ArgCursor)],
    readies: &'a mut [(u32, ReadyGen)],
}

impl Env<'_> {
    /// Drives argument valid/data and result ready for `sim_cycle` (as `Simulation::step`).
    fn drive(&mut self, st: &mut State, sim_cycle: u64) {
        drive_args(self.args, st, sim_cycle);
        for (chan, gen_) in self.readies.iter_mut() {
            st.ready[*chan as usize] = gen_.next(sim_cycle);
        }
    }

    /// Consumes the tokens that fired.
    fn consume(&mut self, st: &State) {
        for (chan, cur) in self.args.iter_mut() {
            let c = *chan as usize;
            if st.valid[c] & st.ready[c] {
                cur.advance();
            }
        }
    }
}

/// `held[i] = data[i]` for every valid channel (vectorizes).
#[inline]
fn update_held(held: &mut [u64], valid: &[bool], data: &[u64]) {
    for ((h, &v), &d) in held.iter_mut().zip(valid).zip(data) {
        *h = if v { d } else { *h };
    }
}

impl ResimStore {
    /// An empty store for `prog`, and its recorder with the memories as they are now.
    pub(crate) fn new(prog: Arc<Program>, st: &State) -> (Self, Recorder) {
        let clk = prog.clk.len() + prog.clk_emit2.len() + prog.clk_buf1.len() + prog.clk_buf2.len();
        let units = prog.fwd.len() + prog.bwd.len() + 2 * clk + prog.n_channels + 1;
        let interval = (ACCESS_BUDGET / units).clamp(8, 1024);
        let interval = 1u64 << (usize::BITS - 1 - interval.leading_zeros());
        let kept = alias_roots(&prog.data_aliases());
        let rec = Recorder {
            held: vec![0; kept.len()],
            base: Vec::new(),
            words: Vec::new(),
            mems: st.mems.iter().map(|m| Arc::new(m.clone())).collect(),
            dirty: vec![false; st.mems.len()],
        };
        let store = ResimStore {
            interval,
            keys: Vec::new(),
            cycles: 0,
            kept,
            prog,
        };
        (store, rec)
    }

    /// Number of snapshots taken so far.
    pub(crate) fn key_count(&self) -> usize {
        self.keys.len()
    }

    /// The snapshots from number `from_key` on, and the cycle count.
    pub(crate) fn tail(&self, from_key: usize) -> ResimTail {
        ResimTail {
            keys: self.keys.get(from_key..).unwrap_or_default().to_vec(),
            cycles: self.cycles,
        }
    }

    /// Appends a tail taken from a store of the same run that had as many snapshots as
    /// this one.
    pub(crate) fn extend(&mut self, tail: ResimTail) {
        self.keys.extend(tail.keys);
        self.cycles = self.cycles.max(tail.cycles);
    }

    /// Number of recorded cycles.
    pub(crate) fn cycles(&self) -> u64 {
        self.cycles
    }

    /// Number of snapshots.
    pub(crate) fn keyframes(&self) -> usize {
        self.keys.len()
    }

    /// Cycles between snapshots.
    pub(crate) fn interval(&self) -> u64 {
        self.interval
    }

    /// Bytes held by the snapshots (memories counted once per distinct copy).
    pub(crate) fn memory_bytes(&self) -> usize {
        let mut bytes = self.kept.len() * 4;
        let mut last: Vec<*const Vec<u64>> = Vec::new();
        for k in &self.keys {
            bytes += k.words.len() + std::mem::size_of::<Key>();
            bytes += k.args.len() * 64 + k.readies.len() * 48;
            for (i, m) in k.mems.iter().enumerate() {
                let p = Arc::as_ptr(m);
                if last.get(i) != Some(&p) {
                    bytes += m.len() * 8;
                }
            }
            last = k.mems.iter().map(Arc::as_ptr).collect();
        }
        bytes
    }

    /// A cursor positioned before cycle `c` (its first [`Cursor::next`] returns `c`).
    pub(crate) fn cursor(&self, c: u64) -> Option<Cursor<'_>> {
        if c >= self.cycles {
            return None;
        }
        let k = self.keys.partition_point(|k| k.cycle <= c) - 1;
        let key = &self.keys[k];
        let nr = self.prog.reg_init.len();
        let mut words = vec![0u64; nr + self.kept.len()];
        let first = k - k % GROUP;
        decode_words(&self.keys[first].words, &mut words);
        if first != k {
            decode_words(&key.words, &mut words);
        }
        let mut held = vec![0u64; self.prog.n_channels];
        for (&c, &w) in self.kept.iter().zip(&words[nr..]) {
            held[c as usize] = w;
        }
        let mut st = State::new(&self.prog);
        st.regs.copy_from_slice(&words[..nr]);
        for (dst, src) in st.mems.iter_mut().zip(&key.mems) {
            dst.clone_from(src);
        }
        let mut cur = Cursor {
            store: self,
            st,
            held,
            args: key.args.clone(),
            readies: key.readies.clone(),
            next: key.cycle,
            sim_cycle: key.sim_cycle,
            settled: false,
        };
        while cur.next < c {
            cur.advance();
        }
        Some(cur)
    }
}

impl Recorder {
    /// Recording, at the start of a cycle (before the environment is driven).
    pub(crate) fn begin_cycle(
        &mut self,
        store: &mut ResimStore,
        sim_cycle: u64,
        st: &State,
        args: &[(u32, ArgCursor)],
        readies: impl Iterator<Item = (u32, ReadyGen)>,
    ) {
        if !store.cycles.is_multiple_of(store.interval) {
            return;
        }
        for (i, d) in self.dirty.iter_mut().enumerate() {
            if *d {
                self.mems[i] = Arc::new(st.mems[i].clone());
                *d = false;
            }
        }
        let mut words = std::mem::take(&mut self.words);
        words.clear();
        words.extend_from_slice(&st.regs);
        words.extend_from_slice(&self.held);
        let mut bytes = Vec::new();
        if store.keys.len().is_multiple_of(GROUP) {
            encode_words(&words, None, &mut bytes);
            std::mem::swap(&mut self.base, &mut words);
        } else {
            encode_words(&words, Some(&self.base), &mut bytes);
        }
        self.words = words;
        store.keys.push(Key {
            cycle: store.cycles,
            sim_cycle,
            words: bytes.into_boxed_slice(),
            mems: self.mems.clone(),
            args: args.to_vec(),
            readies: readies.collect(),
        });
    }

    /// Recording, once the cycle's signals are settled.
    #[inline]
    pub(crate) fn end_cycle(&mut self, store: &mut ResimStore, st: &State) {
        let (valid, data) = (&st.valid[..], &st.data[..]);
        for (h, &c) in self.held.iter_mut().zip(&store.kept) {
            let c = c as usize;
            debug_assert!(c < valid.len() && c < data.len());
            // SAFETY: `kept` holds channel indices of the program `st` was built for.
            let (v, d) = unsafe { (*valid.get_unchecked(c), *data.get_unchecked(c)) };
            // Branch-free: valid channels change every cycle in busy pipelines.
            let m = 0u64.wrapping_sub(u64::from(v));
            *h = (*h & !m) | (d & m);
        }
        store.cycles += 1;
    }

    /// Recording, after the clock edge: notes which memories were written.
    #[inline]
    pub(crate) fn after_clock(&mut self, st: &State) {
        for &(m, _, _) in &st.mem_writes {
            self.dirty[m as usize] = true;
        }
    }
}

/// Re-simulates recorded cycles in order.
pub(crate) struct Cursor<'s> {
    store: &'s ResimStore,
    st: State,
    held: Vec<u64>,
    args: Vec<(u32, ArgCursor)>,
    readies: Vec<(u32, ReadyGen)>,
    /// The cycle the next `settle` computes.
    next: u64,
    sim_cycle: u64,
    /// True when `st` holds the settled signals of cycle `next - 1` (before its edge).
    settled: bool,
}

impl Cursor<'_> {
    fn settle_next(&mut self) {
        let mut env = Env {
            args: &mut self.args,
            readies: &mut self.readies,
        };
        env.drive(&mut self.st, self.sim_cycle);
        eval::settle(&self.store.prog, &mut self.st);
        update_held(&mut self.held, &self.st.valid, &self.st.data);
        self.next += 1;
        self.sim_cycle += 1;
        self.settled = true;
    }

    fn finish_cycle(&mut self) {
        if self.settled {
            let mut env = Env {
                args: &mut self.args,
                readies: &mut self.readies,
            };
            env.consume(&self.st);
            eval::clock(&self.store.prog, &mut self.st);
            self.settled = false;
        }
    }

    /// Skips one cycle.
    fn advance(&mut self) {
        self.finish_cycle();
        self.settle_next();
        self.finish_cycle();
    }

    /// Computes the next cycle and writes its signals (trace order: control words
    /// `valid | ready << 1`, data as last held while valid, state words) into `vals`.
    /// Returns false past the recorded end.
    pub(crate) fn next(&mut self, vals: &mut [u64]) -> bool {
        if self.next >= self.store.cycles {
            return false;
        }
        self.finish_cycle();
        self.settle_next();
        let nc = self.store.prog.n_channels;
        let st = &self.st;
        for ((v, &valid), &ready) in vals[..nc].iter_mut().zip(&st.valid).zip(&st.ready) {
            *v = u64::from(valid) | u64::from(ready) << 1;
        }
        vals[nc..2 * nc].copy_from_slice(&self.held);
        let n = (vals.len() - 2 * nc).min(st.regs.len());
        vals[2 * nc..2 * nc + n].copy_from_slice(&st.regs[..n]);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip() {
        let base = [0u64, 5, u64::MAX, 1 << 63, 7, 0, 0, 0, 0, 1];
        let cur = [0u64, 6, 0, 3, 7, 1 << 40, u64::MAX, 0, 0, 0];
        for b in [None, Some(&base[..])] {
            let mut bytes = Vec::new();
            encode_words(&cur, b, &mut bytes);
            let mut out = b.map_or(vec![0; cur.len()], <[u64]>::to_vec);
            decode_words(&bytes, &mut out);
            assert_eq!(out, cur);
        }
        let mut bytes = Vec::new();
        encode_words(&base, Some(&base), &mut bytes);
        assert_eq!(bytes, [0, 0], "unchanged words cost one bit each");
    }

    #[test]
    fn alias_chains() {
        // 1 -> 0, 2 -> 1, 3 <-> 4 (cyclic: no alias).
        let al = [None, Some(0), Some(1), Some(4), Some(3)];
        assert_eq!(alias_roots(&al), [0, 3, 4]);
    }
}
