//! Recorded per-cycle waveforms of a run: every channel's valid/ready/data and every
//! component's state words, plus memory writes.
//!
//! The type is independent of the engine: it is built from channel and state metadata and
//! per-cycle [`Sample`]s through [`TraceBuilder`], so traces replayed from VCDs fill the same
//! type.
//!
//! # Two storage forms
//! * Traces built from samples ([`TraceBuilder`], e.g. a replayed VCD) store every change,
//!   encoded as described below.
//! * Engine traces ([`crate::engine::Simulation::enable_trace`]) store state snapshots every
//!   few cycles and rebuild a cycle by re-simulating from the snapshot before it (module
//!   `engine::resim`): recording costs almost nothing and random access stays in the
//!   100 µs range. Both answer every query below identically.
//!
//! # What is recorded
//! All values form one vector of *signals*: for channel `i`, signal `i` is its control word
//! (`valid | ready << 1`) and signal `C + i` its data; signal `2C + k` is state word `k`.
//!
//! * A channel's data is only meaningful while it is valid. The trace records a data
//!   change only in cycles where the channel is valid, so while a channel is not valid its
//!   recorded data is the data of the last cycle in which it was valid (0 before that),
//!   not whatever the simulator happened to drive.
//! * A channel declared an *alias* of another ([`TraceBuilder::set_data_aliases`]: the
//!   engine declares fork, sync, `cond_br`, ... outputs, whose data is a copy of an input)
//!   stores no data of its own: its data is that of its root channel in the same cycle.
//!   Its data is exact whenever it is valid, because an alias is only valid while its
//!   root is.
//!
//! # Encoding
//! Each cycle stores the signals that changed since the previous cycle as a byte record
//! (no bytes when nothing changed). Values are stored as wrapping differences to the old
//! value (zigzag LEB128), so counters and small steps take one byte. The set of changed
//! signals is a bitmap, stored as its XOR with the bitmap of one of the last [`SET_RING`]
//! records (the cheapest one; pipelines repeat with short periods), as LEB128 gaps between
//! the differing bits. A record is a tag [`TAG_XOR`]` + k` (base: the `k`-th previous
//! record, `k = 0` the empty set), the number of differing bits, their gaps, then the
//! differences of the changed signals in signal order; or the single tag [`TAG_REPEAT`]:
//! the same signals and differences as the previous record (steady state). A full
//! snapshot (keyframe) is stored whenever the
//! bytes since the last one exceed [`KEYFRAME_FACTOR`] times the snapshot size or the
//! changes since the last one exceed [`KEYFRAME_WORK`] times the number of signals, so
//! reconstructing any cycle applies at most that many changes: random access costs
//! O(signals) regardless of the trace length. [`Trace::replay`] walks the changes in time
//! order (for VCD writers).

use std::collections::{BTreeMap, VecDeque};

use crate::engine::resim::{Cursor, ResimStore};
use crate::types::Type;

/// Keyframe spacing: bytes of deltas allowed between keyframes, in snapshot sizes.
pub const KEYFRAME_FACTOR: usize = 8;

/// Keyframe spacing: signal changes allowed between keyframes, per signal (bounds the work
/// of reconstructing one cycle).
pub const KEYFRAME_WORK: usize = 16;

/// Record tag: the previous record's signals and differences again.
pub const TAG_REPEAT: u8 = 1;
/// Record tags `TAG_XOR + k` (`k` in `0..=SET_RING`): signal set given as an XOR with the
/// `k`-th previous record's set (`k = 0`: the empty set).
pub const TAG_XOR: u8 = 16;
/// Number of previous records' signal sets a record can refer to.
pub const SET_RING: usize = 4;

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
/// Each segment owns its bytes, so recording never copies old deltas.
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
    /// `(channel, root)` for every channel whose data is its root channel's data.
    aliases: Vec<(u32, u32)>,
    cycle_end: Vec<u32>,
    keys: Vec<Keyframe>,
    mem_writes: Vec<MemWrite>,
    /// For engine runs: snapshots to re-simulate from, instead of `cycle_end`/`keys`.
    resim: Option<Box<ResimStore>>,
}

/// Builds a [`Trace`] cycle by cycle.
#[derive(Clone, Debug)]
pub struct TraceBuilder {
    trace: Trace,
    /// Current value of every signal (alias data unused).
    cur: Vec<u64>,
    /// Channels whose data is recorded (not aliases).
    roots: Vec<u32>,
    /// Control bytes (`valid | ready << 1`) of the previous cycle.
    prev_ctrl: Vec<u8>,
    /// Scratch: this cycle's changed signals and differences.
    sigs: Vec<u32>,
    diffs: Vec<u64>,
    /// The previous record's signals and differences.
    /// Signal bitmaps of recent records, most recent first (at most [`SET_RING`]).
    ring: VecDeque<Vec<u64>>,
    /// Scratch bitmap.
    bits: Vec<u64>,
    last_diffs: Vec<u64>,
    /// Changes since the last keyframe.
    work: usize,
}

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

/// Reads a `bool` slice as bytes (0 or 1).
#[inline(always)]
fn bool_bytes(b: &[bool]) -> &[u8] {
    // SAFETY: `bool` has the size and alignment of `u8` and is always 0 or 1.
    unsafe { std::slice::from_raw_parts(b.as_ptr().cast::<u8>(), b.len()) }
}

/// Eight bytes of `b` at `i` as one word.
#[inline(always)]
fn word8(b: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(b[i..i + 8].try_into().expect("eight bytes"))
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
        let nc = channels.len();
        let n_words = 2 * nc + n as usize;
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
                aliases: Vec::new(),
                cycle_end: Vec::new(),
                keys: vec![Keyframe {
                    first_cycle: 0,
                    snap: vec![0; n_words].into_boxed_slice(),
                    bytes: Vec::new(),
                }],
                mem_writes: Vec::new(),
                resim: None,
            },
            cur: vec![0; n_words],
            roots: (0..nc as u32).collect(),
            prev_ctrl: vec![0; nc],
            sigs: Vec::new(),
            diffs: Vec::new(),
            ring: VecDeque::new(),
            bits: Vec::new(),
            last_diffs: Vec::new(),
            work: 0,
        }
    }

    /// Names the memories that [`MemWrite::mem`] indexes.
    pub fn set_memories(&mut self, names: Vec<String>) {
        self.trace.memories = names;
    }

    /// Declares data aliases: `aliases[i] = Some(j)` says channel `i`'s data always equals
    /// channel `j`'s data in the same cycle, and `i` is only valid while `j` is. Chains
    /// are followed to their root; entries that would form a cycle or point out of range
    /// are ignored. Call before the first [`TraceBuilder::push_cycle`] (later calls are
    /// ignored).
    pub fn set_data_aliases(&mut self, aliases: &[Option<u32>]) {
        let t = &mut self.trace;
        if !t.cycle_end.is_empty() {
            return;
        }
        let nc = t.channels.len();
        let mut out = Vec::new();
        for i in 0..nc.min(aliases.len()) {
            let mut root = i;
            let mut steps = 0;
            while let Some(Some(j)) = aliases.get(root) {
                let j = *j as usize;
                if j >= nc || steps > nc {
                    root = i;
                    break;
                }
                root = j;
                steps += 1;
            }
            if root != i && steps <= nc {
                out.push((i as u32, root as u32));
            }
        }
        let is_alias: Vec<bool> = {
            let mut v = vec![false; nc];
            for &(a, _) in &out {
                v[a as usize] = true;
            }
            v
        };
        self.roots = (0..nc as u32).filter(|&i| !is_alias[i as usize]).collect();
        t.aliases = out;
    }

    /// Appends the next cycle. Slices must match the metadata sizes (extra entries are
    /// ignored, missing ones read as 0).
    pub fn push_cycle(&mut self, s: Sample<'_>) {
        let nc = self.trace.channels.len();
        self.sigs.clear();
        self.diffs.clear();
        // Control words, eight channels at a time.
        let valid = bool_bytes(s.valid);
        let ready = bool_bytes(s.ready);
        let mut ctrl_now = std::mem::take(&mut self.prev_ctrl);
        if valid.len() >= nc && ready.len() >= nc {
            let mut i = 0;
            while i + 8 <= nc {
                let w = word8(valid, i) | word8(ready, i) << 1;
                if w != word8(&ctrl_now, i) {
                    for k in i..i + 8 {
                        let x = valid[k] | ready[k] << 1;
                        if x != ctrl_now[k] {
                            self.sigs.push(k as u32);
                            self.diffs
                                .push(u64::from(x).wrapping_sub(u64::from(ctrl_now[k])));
                            ctrl_now[k] = x;
                        }
                    }
                }
                i += 8;
            }
            for k in i..nc {
                let x = valid[k] | ready[k] << 1;
                if x != ctrl_now[k] {
                    self.sigs.push(k as u32);
                    self.diffs
                        .push(u64::from(x).wrapping_sub(u64::from(ctrl_now[k])));
                    ctrl_now[k] = x;
                }
            }
        } else {
            for (k, c) in ctrl_now.iter_mut().enumerate() {
                let x = u8::from(s.valid.get(k).copied().unwrap_or(false))
                    | u8::from(s.ready.get(k).copied().unwrap_or(false)) << 1;
                if x != *c {
                    self.sigs.push(k as u32);
                    self.diffs.push(u64::from(x).wrapping_sub(u64::from(*c)));
                    *c = x;
                }
            }
        }
        // Data of root channels, while valid.
        for &i in &self.roots {
            let i = i as usize;
            if ctrl_now[i] & 1 == 0 {
                continue;
            }
            let x = s.data.get(i).copied().unwrap_or(0);
            let old = &mut self.cur[nc + i];
            if x != *old {
                self.sigs.push((nc + i) as u32);
                self.diffs.push(x.wrapping_sub(*old));
                *old = x;
            }
        }
        self.prev_ctrl = ctrl_now;
        // State words.
        let state = &mut self.cur[2 * nc..];
        if s.state.len() >= state.len() {
            for (k, (w, &x)) in state.iter_mut().zip(s.state).enumerate() {
                if x != *w {
                    self.sigs.push((2 * nc + k) as u32);
                    self.diffs.push(x.wrapping_sub(*w));
                    *w = x;
                }
            }
        } else {
            for (k, w) in state.iter_mut().enumerate() {
                let x = s.state.get(k).copied().unwrap_or(0);
                if x != *w {
                    self.sigs.push((2 * nc + k) as u32);
                    self.diffs.push(x.wrapping_sub(*w));
                    *w = x;
                }
            }
        }
        // Control words live in `cur` too (for keyframes).
        self.encode();
    }

    /// Writes this cycle's record and starts a keyframe when due.
    fn encode(&mut self) {
        let t = &mut self.trace;
        let nc = t.channels.len();
        let key = t.keys.last_mut().expect("the initial keyframe");
        let out = &mut key.bytes;
        let n = self.sigs.len();
        if n > 0 {
            for (k, &sg) in self.sigs.iter().enumerate() {
                if (sg as usize) < nc {
                    let c = &mut self.cur[sg as usize];
                    *c = c.wrapping_add(self.diffs[k]);
                }
            }
            out.reserve(1 + 10 + 20 * n);
            let words = t.n_words.div_ceil(64);
            let mut cur = std::mem::take(&mut self.bits);
            cur.clear();
            cur.resize(words, 0);
            for &sg in &self.sigs {
                cur[sg as usize / 64] |= 1 << (sg % 64);
            }
            let repeat =
                self.ring.front().is_some_and(|r| *r == cur) && self.diffs == self.last_diffs;
            if repeat {
                out.push(TAG_REPEAT);
                self.bits = cur;
            } else {
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
                for &d in &self.diffs {
                    put_varint(out, zigzag(d));
                }
                let recycled = if self.ring.len() == SET_RING {
                    self.ring.pop_back().expect("full ring")
                } else {
                    Vec::new()
                };
                self.ring.push_front(cur);
                self.bits = recycled;
                std::mem::swap(&mut self.diffs, &mut self.last_diffs);
            }
            self.work += n;
        }
        let used = out.len();
        t.cycle_end.push(used as u32);
        let n_words = t.n_words.max(8);
        if used >= KEYFRAME_FACTOR * 8 * n_words || self.work >= KEYFRAME_WORK * n_words {
            out.shrink_to_fit();
            t.keys.push(Keyframe {
                first_cycle: t.cycle_end.len() as u64,
                snap: self.cur.clone().into_boxed_slice(),
                bytes: Vec::new(),
            });
            self.work = 0;
            self.ring.clear();
            self.last_diffs.clear();
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

/// Decoder state carried from one record to the next.
#[derive(Clone, Debug, Default)]
struct Decoder {
    ring: VecDeque<Vec<u64>>,
    sigs: Vec<u32>,
    diffs: Vec<u64>,
}

impl Trace {
    /// Number of recorded cycles.
    pub fn cycles(&self) -> u64 {
        match &self.resim {
            Some(r) => r.cycles(),
            None => self.cycle_end.len() as u64,
        }
    }

    /// An engine trace: metadata from `meta` (a fresh builder), signals re-simulated from
    /// the snapshots in `store`.
    pub(crate) fn from_resim(meta: TraceBuilder, store: ResimStore) -> Trace {
        let mut t = meta.trace;
        t.resim = Some(Box::new(store));
        t
    }

    /// The snapshot store of an engine trace.
    pub(crate) fn resim_mut(&mut self) -> Option<&mut ResimStore> {
        self.resim.as_deref_mut()
    }

    /// Appends a memory write (engine traces).
    pub(crate) fn push_mem_write(&mut self, w: MemWrite) {
        self.mem_writes.push(w);
    }

    /// Cycles between snapshots, for engine traces (which re-simulate at most that many
    /// cycles per random access).
    pub fn snapshot_interval(&self) -> Option<u64> {
        self.resim.as_ref().map(|r| r.interval())
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

    /// Number of keyframes (full snapshots) stored.
    pub fn keyframes(&self) -> usize {
        match &self.resim {
            Some(r) => r.keyframes(),
            None => self.keys.len(),
        }
    }

    /// Bytes of memory the trace occupies (deltas, offsets, keyframes, memory writes).
    pub fn memory_bytes(&self) -> usize {
        self.resim.as_ref().map_or(0, |r| r.memory_bytes())
            + self.cycle_end.capacity() * 4
            + self
                .keys
                .iter()
                .map(|k| k.snap.len() * 8 + k.bytes.capacity() + 48)
                .sum::<usize>()
            + self.mem_writes.capacity() * std::mem::size_of::<MemWrite>()
            + self.aliases.capacity() * 8
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

    /// Applies the record of cycle `c` (inside keyframe `key`) to `vals`, reporting every
    /// changed signal to `f`. `dec` carries the previous record's signals (empty at the
    /// keyframe's first cycle).
    fn apply(
        &self,
        key: &Keyframe,
        c: u64,
        dec: &mut Decoder,
        vals: &mut [u64],
        mut f: impl FnMut(usize, u64),
    ) {
        let ci = c as usize;
        if c == key.first_cycle {
            dec.ring.clear();
            dec.diffs.clear();
        }
        let mut pos = if c == key.first_cycle {
            0
        } else {
            self.cycle_end[ci - 1] as usize
        };
        let end = self.cycle_end[ci] as usize;
        if pos == end {
            return;
        }
        let b = &key.bytes[..end];
        let tag = b[pos];
        pos += 1;
        if tag != TAG_REPEAT {
            let k = usize::from(tag - TAG_XOR);
            let words = self.n_words.div_ceil(64);
            let full = dec.ring.len() == SET_RING;
            let mut cur = if full && k == SET_RING {
                dec.ring.pop_back().expect("full ring")
            } else {
                let mut v = if full {
                    dec.ring.pop_back().expect("full ring")
                } else {
                    Vec::new()
                };
                v.clear();
                match k {
                    0 => v.resize(words, 0),
                    _ => v.extend_from_slice(&dec.ring[k - 1]),
                }
                v
            };
            let count = get_varint(b, &mut pos);
            let mut bit: i64 = -1;
            for _ in 0..count {
                bit += get_varint(b, &mut pos) as i64 + 1;
                cur[bit as usize / 64] ^= 1 << (bit % 64);
            }
            dec.sigs.clear();
            dec.diffs.clear();
            for (w, &x) in cur.iter().enumerate() {
                let mut x = x;
                while x != 0 {
                    dec.sigs.push((w * 64) as u32 + x.trailing_zeros());
                    x &= x - 1;
                }
            }
            for _ in 0..dec.sigs.len() {
                dec.diffs.push(unzigzag(get_varint(b, &mut pos)));
            }
            dec.ring.push_front(cur);
        }
        let sigs = &dec.sigs;
        for (&sg, &d) in sigs.iter().zip(&dec.diffs) {
            let s = sg as usize;
            vals[s] = vals[s].wrapping_add(d);
            f(s, vals[s]);
        }
    }

    /// Sets every alias channel's data to its root's data, reporting changes to `f`.
    fn resolve_aliases(&self, vals: &mut [u64], mut f: impl FnMut(usize, u64)) {
        let nc = self.channels.len();
        for &(a, r) in &self.aliases {
            let (a, r) = (nc + a as usize, nc + r as usize);
            if vals[a] != vals[r] {
                vals[a] = vals[r];
                f(a, vals[a]);
            }
        }
    }

    /// Reconstructs cycle `c`, or `None` past the end.
    pub fn cycle(&self, c: u64) -> Option<CycleView<'_>> {
        if c >= self.cycles() {
            return None;
        }
        if let Some(r) = &self.resim {
            let mut vals = vec![0; self.n_words];
            r.cursor(c)?.next(&mut vals);
            self.resolve_aliases(&mut vals, |_, _| {});
            return Some(CycleView {
                trace: self,
                cycle: c,
                vals,
            });
        }
        let k = self.keys.partition_point(|k| k.first_cycle <= c) - 1;
        let key = &self.keys[k];
        let mut vals = key.snap.to_vec();
        let mut dec = Decoder::default();
        for cc in key.first_cycle..=c {
            self.apply(key, cc, &mut dec, &mut vals, |_, _| {});
        }
        self.resolve_aliases(&mut vals, |_, _| {});
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
            dec: Decoder::default(),
            changes: Vec::new(),
            cursor: self.resim.as_ref().and_then(|r| r.cursor(0)),
            scratch: Vec::new(),
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
    dec: Decoder,
    changes: Vec<Change>,
    cursor: Option<Cursor<'t>>,
    scratch: Vec<u64>,
}

impl std::fmt::Debug for Cursor<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Cursor")
    }
}

impl Replay<'_> {
    /// Advances one cycle and returns its changes (cycle 0 reports changes from all-zero).
    pub fn next_cycle(&mut self) -> Option<CycleChanges<'_>> {
        let t = self.trace;
        let c = self.next;
        if c >= t.cycles() {
            return None;
        }
        if let Some(r) = &t.resim {
            // Restart from each snapshot, so a replay also checks that re-simulating
            // reproduces the recorded run.
            if c > 0 && c.is_multiple_of(r.interval()) {
                self.cursor = r.cursor(c);
            }
        }
        if let Some(cur) = &mut self.cursor {
            let mut now = std::mem::take(&mut self.scratch);
            now.resize(t.n_words, 0);
            if !cur.next(&mut now) {
                return None;
            }
            t.resolve_aliases(&mut now, |_, _| {});
            self.changes.clear();
            for (s, (&new, old)) in now.iter().zip(&self.vals).enumerate() {
                if new != *old {
                    self.changes.push(Change {
                        signal: t.signal(s),
                        value: new,
                    });
                }
            }
            self.scratch = std::mem::replace(&mut self.vals, now);
            self.next += 1;
            return Some(CycleChanges {
                cycle: c,
                changes: &self.changes,
            });
        }
        while self.key + 1 < t.keys.len() && t.keys[self.key + 1].first_cycle <= c {
            self.key += 1;
        }
        self.changes.clear();
        let changes = &mut self.changes;
        let mut applied = 0usize;
        t.apply(
            &t.keys[self.key],
            c,
            &mut self.dec,
            &mut self.vals,
            |s, v| {
                changes.push(Change {
                    signal: t.signal(s),
                    value: v,
                });
            },
        );
        applied += changes.len();
        t.resolve_aliases(&mut self.vals, |s, v| {
            changes.push(Change {
                signal: t.signal(s),
                value: v,
            });
        });
        if changes.len() > applied {
            // Keep signal order (alias data changes were appended after the rest).
            let nc = t.channels.len();
            let key = |x: &Change| match x.signal {
                Signal::Ctrl(i) => i as usize,
                Signal::Data(i) => nc + i as usize,
                Signal::State(k) => 2 * nc + k as usize,
            };
            changes.sort_unstable_by_key(key);
        }
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
        // Channel 4 copies channel 3's data and is valid only with it.
        tb.set_data_aliases(&[None, None, None, None, Some(3)]);
        let mut rng = crate::stimulus::SplitMix64::new(1);
        let mut all = Vec::new();
        // Expected data: the last data seen while valid.
        let mut held = [0u64; 5];
        let mut count = 0u64;
        for cyc in 0..5000 {
            let mut valid: Vec<bool> = (0..5).map(|_| rng.next() & 3 != 0).collect();
            valid[4] &= valid[3];
            let ready: Vec<bool> = (0..5).map(|_| rng.next() & 1 == 0).collect();
            let mut data: Vec<u64> = (0..5)
                .map(|_| if rng.next() & 7 == 0 { rng.next() } else { 0 })
                .collect();
            // Long steady stretches exercise the repeat records.
            if (1000..3000).contains(&cyc) {
                count += 1;
                valid = vec![true; 5];
                data = vec![count, count + 7, 3, count * 2, count * 2];
            }
            data[4] = data[3];
            for i in 0..5 {
                if valid[i] {
                    held[i] = data[i];
                }
            }
            let st: Vec<u64> = (0..2).map(|_| rng.next() & 1).collect();
            tb.push_cycle(Sample {
                valid: &valid,
                ready: &ready,
                data: &data,
                state: &st,
            });
            // An alias shows its root's data.
            let mut expect = held.to_vec();
            expect[4] = held[3];
            all.push((valid, ready, expect, st));
            let _ = &data;
        }
        let t = tb.finish();
        assert!(t.keys.len() > 2, "keyframes were written");
        for c in [0u64, 1, 77, 999, 1000, 1001, 1234, 2500, 2999, 3000, 4999] {
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
