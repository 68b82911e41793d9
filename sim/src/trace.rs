//! Recorded per-cycle waveforms of a run: every channel's valid/ready/data and every
//! component's state words, plus memory writes.
//!
//! The type is independent of the engine: it is built from channel and state metadata and
//! per-cycle [`Sample`]s through [`TraceBuilder`], so traces replayed from VCDs fill the same
//! type.
//!
//! # Encoding
//! All recorded values form one vector of *signals*: for channel `i`, signal `i` is its
//! control word (`valid | ready << 1`) and signal `C + i` its data; signal `2C + k` is state
//! word `k`. Each cycle stores only the signals that changed since the previous cycle, as a
//! byte stream of records `(LEB128 gap to the previous changed signal, LEB128 old ^ new)`.
//! A full snapshot (keyframe) is stored whenever the bytes since the last one exceed
//! [`KEYFRAME_FACTOR`] times the snapshot size, so reconstructing any cycle decodes at most
//! that much: random access costs O(snapshot) regardless of the trace length, and the
//! keyframes add at most `1 / KEYFRAME_FACTOR` to the size. [`Trace::replay`] walks the
//! changes in time order (for VCD writers).

use std::collections::BTreeMap;

use crate::types::Type;

/// Keyframe spacing: bytes of deltas allowed between keyframes, in snapshot sizes.
pub const KEYFRAME_FACTOR: usize = 8;

/// Static description of one channel.
#[derive(Clone, Debug, PartialEq)]
pub struct ChannelMeta {
    /// Channel name.
    pub name: String,
    /// Data type.
    pub ty: Type,
}

/// Static description of one component's state words.
#[derive(Clone, Debug, PartialEq)]
pub struct StateMeta {
    /// Stable node ID.
    pub node: String,
    /// Name of each state word (`emitted_0`, `slot0.valid`, `won`, ...).
    pub fields: Vec<String>,
}

/// The values of one cycle, as given to [`TraceBuilder::push_cycle`].
#[derive(Clone, Copy, Debug)]
pub struct Sample<'a> {
    /// `valid` per channel.
    pub valid: &'a [bool],
    /// `ready` per channel.
    pub ready: &'a [bool],
    /// `data` per channel.
    pub data: &'a [u64],
    /// All state words, in [`StateMeta`] order.
    pub state: &'a [u64],
}

/// One memory write, effective at the clock edge ending `cycle`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemWrite {
    /// Cycle.
    pub cycle: u64,
    /// Memory index (see [`Trace::memories`]).
    pub mem: u32,
    /// Element address.
    pub addr: u64,
    /// Value written.
    pub value: u64,
}

/// One recorded signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// Control bits of a channel: `valid | ready << 1`.
    Ctrl(u32),
    /// Data of a channel.
    Data(u32),
    /// A state word (global index).
    State(u32),
}

/// One signal change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Change {
    /// Which signal.
    pub signal: Signal,
    /// Its new value.
    pub value: u64,
}

/// A snapshot plus the delta bytes of the cycles that follow it (until the next keyframe).
/// Each segment owns its bytes, preallocated, so recording never copies old deltas.
#[derive(Clone, Debug)]
struct Keyframe {
    first_cycle: u64,
    snap: Box<[u64]>,
    bytes: Vec<u8>,
}

/// A recorded run with random access by cycle.
#[derive(Clone, Debug)]
pub struct Trace {
    channels: Vec<ChannelMeta>,
    state: Vec<StateMeta>,
    state_start: Vec<u32>,
    state_index: BTreeMap<String, usize>,
    channel_index: BTreeMap<String, usize>,
    memories: Vec<String>,
    n_words: usize,
    cycle_end: Vec<u32>,
    keys: Vec<Keyframe>,
    cur: Vec<u64>,
    mem_writes: Vec<MemWrite>,
}

/// Builds a [`Trace`] cycle by cycle.
#[derive(Clone, Debug)]
pub struct TraceBuilder {
    trace: Trace,
}

/// Writes change records `(gap, xor)` as LEB128 pairs into a segment's spare capacity
/// (reserved so that one cycle always fits: at most 20 bytes per signal).
struct Encoder<'a> {
    out: &'a mut [std::mem::MaybeUninit<u8>],
    pos: usize,
    last: i64,
}

impl Encoder<'_> {
    #[inline(always)]
    fn byte(&mut self, b: u8) {
        self.out[self.pos].write(b);
        self.pos += 1;
    }

    #[inline(always)]
    fn varint(&mut self, mut x: u64) {
        while x >= 0x80 {
            self.byte((x as u8) | 0x80);
            x >>= 7;
        }
        self.byte(x as u8);
    }

    #[inline(always)]
    fn put(&mut self, sig: usize, xor: u64) {
        self.varint((sig as i64 - self.last - 1) as u64);
        self.varint(xor);
        self.last = sig as i64;
    }
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

impl TraceBuilder {
    /// An empty trace for these channels and state words.
    pub fn new(channels: Vec<ChannelMeta>, state: Vec<StateMeta>) -> Self {
        let mut state_start = Vec::with_capacity(state.len());
        let mut n = 0u32;
        for s in &state {
            state_start.push(n);
            n += s.fields.len() as u32;
        }
        let n_words = 2 * channels.len() + n as usize;
        let state_index = state
            .iter()
            .enumerate()
            .map(|(i, s)| (s.node.clone(), i))
            .collect();
        let channel_index = channels
            .iter()
            .enumerate()
            .map(|(i, c)| (c.name.clone(), i))
            .collect();
        TraceBuilder {
            trace: Trace {
                channels,
                state,
                state_start,
                state_index,
                channel_index,
                memories: Vec::new(),
                n_words,
                cycle_end: Vec::new(),
                keys: vec![Keyframe {
                    first_cycle: 0,
                    snap: vec![0; n_words].into_boxed_slice(),
                    bytes: Vec::new(),
                }],
                cur: vec![0; n_words],
                mem_writes: Vec::new(),
            },
        }
    }

    /// Names the memories that [`MemWrite::mem`] indexes.
    pub fn set_memories(&mut self, names: Vec<String>) {
        self.trace.memories = names;
    }

    /// Appends the next cycle. Slices must match the metadata sizes (extra entries are
    /// ignored, missing ones read as 0).
    pub fn push_cycle(&mut self, s: Sample<'_>) {
        let t = &mut self.trace;
        let nc = t.channels.len();
        let seg_limit = KEYFRAME_FACTOR * 8 * t.n_words.max(8);
        let key = t.keys.last_mut().expect("the initial keyframe");
        key.bytes.reserve(20 * t.n_words);
        let len0 = key.bytes.len();
        let mut enc = Encoder {
            out: key.bytes.spare_capacity_mut(),
            pos: 0,
            last: -1,
        };
        {
            let (ctrl, rest) = t.cur.split_at_mut(nc);
            let (data, state) = rest.split_at_mut(nc);
            if s.valid.len() >= nc && s.ready.len() >= nc {
                let vr = s.valid[..nc].iter().zip(&s.ready[..nc]);
                for (i, ((&v, &r), c)) in vr.zip(ctrl.iter_mut()).enumerate() {
                    let x = u64::from(v) | u64::from(r) << 1;
                    if x != *c {
                        enc.put(i, x ^ *c);
                        *c = x;
                    }
                }
            } else {
                for (i, c) in ctrl.iter_mut().enumerate() {
                    let x = u64::from(s.valid.get(i).copied().unwrap_or(false))
                        | u64::from(s.ready.get(i).copied().unwrap_or(false)) << 1;
                    if x != *c {
                        enc.put(i, x ^ *c);
                        *c = x;
                    }
                }
            }
            let d = &s.data[..nc.min(s.data.len())];
            for (i, (&x, old)) in d.iter().zip(data.iter_mut()).enumerate() {
                if x != *old {
                    enc.put(nc + i, x ^ *old);
                    *old = x;
                }
            }
            for (i, old) in data.iter_mut().enumerate().skip(d.len()) {
                if *old != 0 {
                    enc.put(nc + i, *old);
                    *old = 0;
                }
            }
            for (k, w) in state.iter_mut().enumerate() {
                let x = s.state.get(k).copied().unwrap_or(0);
                if x != *w {
                    enc.put(2 * nc + k, x ^ *w);
                    *w = x;
                }
            }
        }
        let written = enc.pos;
        // SAFETY: the encoder initialized exactly `written` bytes of the spare capacity.
        unsafe { key.bytes.set_len(len0 + written) };
        let used = key.bytes.len();
        t.cycle_end.push(used as u32);
        if used >= seg_limit {
            t.keys.push(Keyframe {
                first_cycle: t.cycle_end.len() as u64,
                snap: t.cur.clone().into_boxed_slice(),
                bytes: Vec::with_capacity(seg_limit + 20 * t.n_words),
            });
        }
    }

    /// Records a memory write (in cycle order).
    pub fn push_mem_write(&mut self, w: MemWrite) {
        self.trace.mem_writes.push(w);
    }

    /// The trace so far.
    pub fn trace(&self) -> &Trace {
        &self.trace
    }

    /// The finished trace.
    pub fn finish(mut self) -> Trace {
        if let Some(k) = self.trace.keys.last_mut() {
            k.bytes.shrink_to_fit();
        }
        self.trace.cycle_end.shrink_to_fit();
        self.trace
    }
}

impl Trace {
    /// Number of recorded cycles.
    pub fn cycles(&self) -> u64 {
        self.cycle_end.len() as u64
    }

    /// Channel metadata, indexed by channel index.
    pub fn channels(&self) -> &[ChannelMeta] {
        &self.channels
    }

    /// State metadata.
    pub fn state_meta(&self) -> &[StateMeta] {
        &self.state
    }

    /// Memory names, indexed by [`MemWrite::mem`].
    pub fn memories(&self) -> &[String] {
        &self.memories
    }

    /// Index of a channel by name.
    pub fn channel_index(&self, name: &str) -> Option<usize> {
        self.channel_index.get(name).copied()
    }

    /// All memory writes in cycle order.
    pub fn mem_writes(&self) -> &[MemWrite] {
        &self.mem_writes
    }

    /// Bytes of memory the trace occupies (deltas, offsets, keyframes, memory writes).
    pub fn memory_bytes(&self) -> usize {
        self.cycle_end.capacity() * 4
            + self
                .keys
                .iter()
                .map(|k| k.snap.len() * 8 + k.bytes.capacity() + 48)
                .sum::<usize>()
            + self.mem_writes.capacity() * std::mem::size_of::<MemWrite>()
            + self.cur.len() * 8
    }

    fn signal(&self, i: usize) -> Signal {
        let nc = self.channels.len();
        if i < nc {
            Signal::Ctrl(i as u32)
        } else if i < 2 * nc {
            Signal::Data((i - nc) as u32)
        } else {
            Signal::State((i - 2 * nc) as u32)
        }
    }

    /// Applies the deltas of cycle `c` (relative to keyframe `key`) to `vals`, reporting
    /// every change to `f`.
    fn apply(&self, key: &Keyframe, c: u64, vals: &mut [u64], mut f: impl FnMut(usize, u64)) {
        let ci = c as usize;
        let start = if c == key.first_cycle {
            0
        } else {
            self.cycle_end[ci - 1] as usize
        };
        let mut pos = start;
        let end = self.cycle_end[ci] as usize;
        let mut sig: i64 = -1;
        while pos < end {
            sig += get_varint(&key.bytes, &mut pos) as i64 + 1;
            let x = get_varint(&key.bytes, &mut pos);
            let s = sig as usize;
            vals[s] ^= x;
            f(s, vals[s]);
        }
    }

    /// Reconstructs cycle `c`, or `None` past the end.
    pub fn cycle(&self, c: u64) -> Option<CycleView<'_>> {
        if c >= self.cycles() {
            return None;
        }
        let k = self.keys.partition_point(|k| k.first_cycle <= c) - 1;
        let key = &self.keys[k];
        let mut vals = key.snap.to_vec();
        for cc in key.first_cycle..=c {
            self.apply(key, cc, &mut vals, |_, _| {});
        }
        Some(CycleView {
            trace: self,
            cycle: c,
            vals,
        })
    }

    /// Walks all changes in time order.
    pub fn replay(&self) -> Replay<'_> {
        Replay {
            trace: self,
            next: 0,
            key: 0,
            vals: vec![0; self.n_words],
            changes: Vec::new(),
        }
    }

    /// Samples of one channel: cycle 0, then every cycle where its valid, ready or data
    /// changed.
    pub fn channel_history(&self, ch: usize) -> impl Iterator<Item = (u64, ChannelSample)> + '_ {
        let nc = self.channels.len();
        let mut rp = self.replay();
        std::iter::from_fn(move || {
            loop {
                let c = rp.next_cycle()?;
                let hit = c.cycle == 0
                    || c.changes.iter().any(|x| {
                        x.signal == Signal::Ctrl(ch as u32) || x.signal == Signal::Data(ch as u32)
                    });
                if hit {
                    let ctrl = rp.vals[ch];
                    let data = rp.vals[nc + ch];
                    return Some((
                        rp.next - 1,
                        ChannelSample {
                            valid: ctrl & 1 != 0,
                            ready: ctrl & 2 != 0,
                            data,
                        },
                    ));
                }
            }
        })
    }
}

/// valid/ready/data of one channel in one cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChannelSample {
    /// valid
    pub valid: bool,
    /// ready
    pub ready: bool,
    /// data
    pub data: u64,
}

/// One reconstructed cycle.
#[derive(Clone, Debug)]
pub struct CycleView<'t> {
    trace: &'t Trace,
    /// The cycle.
    pub cycle: u64,
    vals: Vec<u64>,
}

impl CycleView<'_> {
    /// `valid` of channel `ch`.
    pub fn valid(&self, ch: usize) -> bool {
        self.vals[ch] & 1 != 0
    }

    /// `ready` of channel `ch`.
    pub fn ready(&self, ch: usize) -> bool {
        self.vals[ch] & 2 != 0
    }

    /// `data` of channel `ch`.
    pub fn data(&self, ch: usize) -> u64 {
        self.vals[self.trace.channels.len() + ch]
    }

    /// State words of node `node` (stable ID), in [`StateMeta::fields`] order.
    pub fn state(&self, node: &str) -> Option<&[u64]> {
        let i = *self.trace.state_index.get(node)?;
        let start = 2 * self.trace.channels.len() + self.trace.state_start[i] as usize;
        Some(&self.vals[start..start + self.trace.state[i].fields.len()])
    }

    /// All state words.
    pub fn state_words(&self) -> &[u64] {
        &self.vals[2 * self.trace.channels.len()..]
    }

    /// Memory writes performed at the end of this cycle.
    pub fn mem_writes(&self) -> &[MemWrite] {
        let w = &self.trace.mem_writes;
        let a = w.partition_point(|x| x.cycle < self.cycle);
        let b = w.partition_point(|x| x.cycle <= self.cycle);
        &w[a..b]
    }
}

/// The changes of one cycle, from [`Replay::next_cycle`].
#[derive(Debug)]
pub struct CycleChanges<'r> {
    /// The cycle.
    pub cycle: u64,
    /// Signals that changed, in signal order, with their new values.
    pub changes: &'r [Change],
}

/// Time-ordered walk over a trace's changes.
#[derive(Debug)]
pub struct Replay<'t> {
    trace: &'t Trace,
    next: u64,
    key: usize,
    vals: Vec<u64>,
    changes: Vec<Change>,
}

impl Replay<'_> {
    /// Advances one cycle and returns its changes (cycle 0 reports changes from all-zero).
    pub fn next_cycle(&mut self) -> Option<CycleChanges<'_>> {
        let t = self.trace;
        let c = self.next;
        if c >= t.cycles() {
            return None;
        }
        while self.key + 1 < t.keys.len() && t.keys[self.key + 1].first_cycle <= c {
            self.key += 1;
        }
        self.changes.clear();
        let changes = &mut self.changes;
        t.apply(&t.keys[self.key], c, &mut self.vals, |s, v| {
            changes.push(Change {
                signal: t.signal(s),
                value: v,
            });
        });
        self.next += 1;
        Some(CycleChanges {
            cycle: c,
            changes: &self.changes,
        })
    }

    /// All signal values after the last returned cycle (signal order, see module docs).
    pub fn values(&self) -> &[u64] {
        &self.vals
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_random_access() {
        let chans: Vec<ChannelMeta> = (0..5)
            .map(|i| ChannelMeta {
                name: format!("c{i}"),
                ty: Type::Int(32),
            })
            .collect();
        let state = vec![StateMeta {
            node: "f".into(),
            fields: vec!["a".into(), "b".into()],
        }];
        let mut tb = TraceBuilder::new(chans, state);
        let mut rng = crate::stimulus::SplitMix64::new(1);
        let mut all = Vec::new();
        for _ in 0..5000 {
            let valid: Vec<bool> = (0..5).map(|_| rng.next() & 3 == 0).collect();
            let ready: Vec<bool> = (0..5).map(|_| rng.next() & 1 == 0).collect();
            let data: Vec<u64> = (0..5)
                .map(|_| if rng.next() & 7 == 0 { rng.next() } else { 0 })
                .collect();
            let st: Vec<u64> = (0..2).map(|_| rng.next() & 1).collect();
            tb.push_cycle(Sample {
                valid: &valid,
                ready: &ready,
                data: &data,
                state: &st,
            });
            all.push((valid, ready, data, st));
        }
        let t = tb.finish();
        assert!(t.keys.len() > 2, "keyframes were written");
        for c in [0u64, 1, 77, 1234, 2500, 4999] {
            let v = t.cycle(c).unwrap();
            let (valid, ready, data, st) = &all[c as usize];
            for i in 0..5 {
                assert_eq!(v.valid(i), valid[i]);
                assert_eq!(v.ready(i), ready[i]);
                assert_eq!(v.data(i), data[i]);
            }
            assert_eq!(v.state("f").unwrap(), &st[..]);
        }
        assert!(t.cycle(5000).is_none());
        let hist: Vec<_> = t.channel_history(2).collect();
        assert_eq!(hist[0].0, 0);
        for (c, s) in &hist {
            let (valid, ready, data, _) = &all[*c as usize];
            assert_eq!((s.valid, s.ready, s.data), (valid[2], ready[2], data[2]));
        }
        let mut rp = t.replay();
        let mut n = 0;
        while let Some(cc) = rp.next_cycle() {
            assert_eq!(cc.cycle, n);
            n += 1;
        }
        assert_eq!(n, 5000);
        assert_eq!(rp.values()[5 + 1], all[4999].2[1]);
    }
}
