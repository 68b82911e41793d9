//! The delta store: every change of every signal, for traces built from samples
//! ([`TraceBuilder`], e.g. a replayed VCD).
//!
//! Each cycle stores the signals that changed since the previous cycle as one record
//! ([`super::codec`]). A full snapshot (keyframe) is stored whenever the bytes since the last
//! one exceed `KEYFRAME_FACTOR` times the snapshot size or the changes since the last one
//! exceed `KEYFRAME_WORK` times the number of signals, so reconstructing any cycle applies
//! at most that many changes: random access costs O(signals) regardless of the trace length.

use super::codec::{Decoder, Encoder, KEYFRAME_FACTOR, KEYFRAME_WORK};
use super::meta::{ChannelMeta, Layout, MemWrite, Sample, StateMeta};
use super::{Store, Trace};

/// A snapshot plus the delta bytes of the cycles that follow it (until the next keyframe).
/// Each segment owns its bytes, so recording never copies old deltas.
#[derive(Clone, Debug)]
struct Keyframe {
    first_cycle: u64,
    snap: Box<[u64]>,
    bytes: Vec<u8>,
}

/// Recorded changes with keyframes.
#[derive(Clone, Debug)]
pub(crate) struct DeltaStore {
    /// End of each cycle's record in its keyframe's bytes.
    cycle_end: Vec<u32>,
    keys: Vec<Keyframe>,
}

/// Where a walk over a delta store stands.
#[derive(Clone, Debug, Default)]
pub(crate) struct DeltaCursor {
    key: usize,
    dec: Decoder,
}

impl DeltaStore {
    fn new(n_words: usize) -> DeltaStore {
        DeltaStore {
            cycle_end: Vec::new(),
            keys: vec![Keyframe {
                first_cycle: 0,
                snap: vec![0; n_words].into_boxed_slice(),
                bytes: Vec::new(),
            }],
        }
    }

    /// Number of recorded cycles.
    pub(crate) fn cycles(&self) -> u64 {
        self.cycle_end.len() as u64
    }

    /// Number of keyframes.
    pub(crate) fn keyframes(&self) -> usize {
        self.keys.len()
    }

    /// Bytes of memory held.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.cycle_end.capacity() * 4
            + self
                .keys
                .iter()
                .map(|k| k.snap.len() * 8 + k.bytes.capacity() + 48)
                .sum::<usize>()
    }

    /// Applies the record of cycle `c` to `vals` (whose values are those of cycle `c - 1`),
    /// reporting every changed signal to `f`; `cur` must have applied cycle `c - 1` (or be
    /// fresh, for `c` at a keyframe or 0).
    pub(crate) fn apply(
        &self,
        n_words: usize,
        cur: &mut DeltaCursor,
        c: u64,
        vals: &mut [u64],
        f: impl FnMut(usize, u64),
    ) {
        while cur.key + 1 < self.keys.len() && self.keys[cur.key + 1].first_cycle <= c {
            cur.key += 1;
        }
        let key = &self.keys[cur.key];
        let start = if c == key.first_cycle {
            cur.dec.reset();
            0
        } else {
            self.cycle_end[c as usize - 1] as usize
        };
        let end = self.cycle_end[c as usize] as usize;
        cur.dec.apply(n_words, &key.bytes, start, end, vals, f);
    }

    /// The values of cycle `c` (aliases not resolved) and a cursor that has applied it.
    pub(crate) fn seek(&self, n_words: usize, c: u64) -> (Vec<u64>, DeltaCursor) {
        let k = self.keys.partition_point(|k| k.first_cycle <= c) - 1;
        let key = &self.keys[k];
        let mut vals = key.snap.to_vec();
        let mut cur = DeltaCursor {
            key: k,
            dec: Decoder::default(),
        };
        for cc in key.first_cycle..=c {
            self.apply(n_words, &mut cur, cc, &mut vals, |_, _| {});
        }
        (vals, cur)
    }
}

/// Builds a [`Trace`] cycle by cycle.
#[derive(Clone, Debug)]
pub struct TraceBuilder {
    layout: Layout,
    store: DeltaStore,
    mem_writes: Vec<MemWrite>,
    /// Current value of every signal (alias data unused).
    cur: Vec<u64>,
    /// Channels whose data is recorded (not aliases).
    roots: Vec<u32>,
    /// Control bytes (`valid | ready << 1`) of the previous cycle.
    prev_ctrl: Vec<u8>,
    /// Scratch: this cycle's changed signals and differences.
    sigs: Vec<u32>,
    diffs: Vec<u64>,
    encoder: Encoder,
    /// Changes since the last keyframe.
    work: usize,
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
        let layout = Layout::new(channels, state);
        let nc = layout.nc();
        let n_words = layout.n_words;
        TraceBuilder {
            layout,
            store: DeltaStore::new(n_words),
            mem_writes: Vec::new(),
            cur: vec![0; n_words],
            roots: (0..nc as u32).collect(),
            prev_ctrl: vec![0; nc],
            sigs: Vec::new(),
            diffs: Vec::new(),
            encoder: Encoder::default(),
            work: 0,
        }
    }

    /// Names the memories that [`MemWrite::mem`] indexes.
    pub fn set_memories(&mut self, names: Vec<String>) {
        self.layout.memories = names;
    }

    /// Declares data aliases: `aliases[i] = Some(j)` says channel `i`'s data always equals
    /// channel `j`'s data in the same cycle, and `i` is only valid while `j` is. Chains
    /// are followed to their root; entries that would form a cycle or point out of range
    /// are ignored. Call before the first [`TraceBuilder::push_cycle`] (later calls are
    /// ignored).
    pub fn set_data_aliases(&mut self, aliases: &[Option<u32>]) {
        if self.store.cycles() == 0 {
            self.roots = self.layout.set_aliases(aliases);
        }
    }

    /// Appends the next cycle. Slices must match the metadata sizes (extra entries are
    /// ignored, missing ones read as 0).
    pub fn push_cycle(&mut self, s: Sample<'_>) {
        let nc = self.layout.nc();
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
        self.encode();
    }

    /// Writes this cycle's record and starts a keyframe when due.
    fn encode(&mut self) {
        let nc = self.layout.nc();
        let n_words = self.layout.n_words;
        // Control words live in `cur` too (for keyframes).
        for (&sg, &d) in self.sigs.iter().zip(&self.diffs) {
            if (sg as usize) < nc {
                let c = &mut self.cur[sg as usize];
                *c = c.wrapping_add(d);
            }
        }
        let st = &mut self.store;
        let key = st.keys.last_mut().expect("the initial keyframe");
        self.encoder
            .record(n_words, &self.sigs, &mut self.diffs, &mut key.bytes);
        self.work += self.sigs.len();
        let used = key.bytes.len();
        st.cycle_end.push(used as u32);
        let n_words = n_words.max(8);
        if used >= KEYFRAME_FACTOR * 8 * n_words || self.work >= KEYFRAME_WORK * n_words {
            key.bytes.shrink_to_fit();
            st.keys.push(Keyframe {
                first_cycle: st.cycle_end.len() as u64,
                snap: self.cur.clone().into_boxed_slice(),
                bytes: Vec::new(),
            });
            self.work = 0;
            self.encoder.reset();
        }
    }

    /// Records a memory write (in cycle order).
    pub fn push_mem_write(&mut self, w: MemWrite) {
        self.mem_writes.push(w);
    }

    /// Number of cycles pushed so far.
    pub fn cycles(&self) -> u64 {
        self.store.cycles()
    }

    /// The finished trace.
    pub fn finish(mut self) -> Trace {
        if let Some(k) = self.store.keys.last_mut() {
            k.bytes.shrink_to_fit();
        }
        self.store.cycle_end.shrink_to_fit();
        Trace {
            layout: self.layout,
            store: Store::Delta(self.store),
            mem_writes: self.mem_writes,
        }
    }

    /// The state metadata.
    pub fn state_meta(&self) -> &[StateMeta] {
        &self.layout.state
    }
}
