//! Recorded per-cycle waveforms of a run: every channel's valid/ready/data and every
//! component's state words, plus memory writes.
//!
//! The type is independent of the engine: traces replayed from VCDs fill the same type as
//! the engine's recordings, and every reader (reports, VCD writer, debugger) sees one API.
//!
//! # What is recorded
//! All values of a cycle form one vector of *signals*: for channel `i`, signal `i` is its
//! control word (`valid | ready << 1`) and signal `C + i` its data; signal `2C + k` is state
//! word `k` (module `meta`).
//!
//! * A channel's data is only meaningful while it is valid. A trace shows, while a channel
//!   is not valid, the data of the last cycle in which it was valid (0 before that), not
//!   whatever the simulator happened to drive.
//! * A channel declared an *alias* of another ([`TraceBuilder::set_data_aliases`]: the
//!   engine declares fork, sync, `cond_br`, ... outputs, whose data is a copy of an input)
//!   stores no data of its own: its data is that of its root channel in the same cycle.
//!   Its data is exact whenever it is valid, because an alias is only valid while its
//!   root is.
//!
//! # Two stores
//! * `delta`: traces built from samples ([`TraceBuilder`], e.g. a replayed VCD) store every
//!   change, as byte records (module `codec`) with keyframes, so any cycle is rebuilt from the
//!   keyframe before it.
//! * Engine traces ([`crate::engine::Simulation::enable_trace`]) store state snapshots every
//!   few cycles and rebuild a cycle by re-simulating from the snapshot before it (module
//!   `engine::resim`): recording costs almost nothing and random access stays in the
//!   100 µs range. An engine trace grows while the run goes on; [`Trace::tail`] and
//!   [`Trace::extend`] carry the new part to a copy in another thread (the debugger's
//!   engine worker).
//!
//! Both answer every query ([`CycleView`], [`Replay`]) identically.

mod codec;
mod delta;
mod meta;
mod views;

pub use delta::TraceBuilder;
pub use meta::{Change, ChannelMeta, MemWrite, Sample, Signal, StateMeta};
pub use views::{ChannelSample, CycleChanges, CycleView, Replay};

pub(crate) use meta::Layout;

use std::borrow::Cow;

use crate::engine::resim::{ResimStore, ResimTail};
use delta::DeltaStore;

/// Where the signal values of a trace live.
#[derive(Clone, Debug)]
pub(crate) enum Store {
    /// Every change, with keyframes (traces built from samples).
    Delta(DeltaStore),
    /// Snapshots to re-simulate from (engine traces).
    Resim(Box<ResimStore>),
}

/// A recorded run with random access by cycle.
#[derive(Clone, Debug)]
pub struct Trace {
    layout: Layout,
    store: Store,
    mem_writes: Vec<MemWrite>,
}

/// How far a trace had grown: what [`Trace::tail`] starts from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceMark {
    cycles: u64,
    keys: usize,
    mem_writes: usize,
}

/// The part of an engine trace recorded after a [`TraceMark`]: what a copy of the trace
/// taken at that mark lacks ([`Trace::extend`]).
#[derive(Clone, Debug)]
pub struct TraceTail {
    from: TraceMark,
    resim: ResimTail,
    mem_writes: Vec<MemWrite>,
}

/// A tail that does not continue the trace it is applied to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the trace tail starts after cycle {tail}, but the trace has {have} cycles")]
pub struct TailMismatch {
    /// Cycles of the trace the tail was taken after.
    pub tail: u64,
    /// Cycles of the trace it was applied to.
    pub have: u64,
}

impl Trace {
    /// An engine trace: metadata from `layout`, signals re-simulated from the snapshots in
    /// `store`.
    pub(crate) fn from_resim(layout: Layout, store: ResimStore) -> Trace {
        Trace {
            layout,
            store: Store::Resim(Box::new(store)),
            mem_writes: Vec::new(),
        }
    }

    /// The snapshot store of an engine trace.
    pub(crate) fn resim_mut(&mut self) -> Option<&mut ResimStore> {
        match &mut self.store {
            Store::Resim(r) => Some(r),
            Store::Delta(_) => None,
        }
    }

    /// Appends a memory write (engine traces).
    pub(crate) fn push_mem_write(&mut self, w: MemWrite) {
        self.mem_writes.push(w);
    }

    /// Number of recorded cycles.
    pub fn cycles(&self) -> u64 {
        match &self.store {
            Store::Resim(r) => r.cycles(),
            Store::Delta(d) => d.cycles(),
        }
    }

    /// Channel metadata, indexed by channel index.
    pub fn channels(&self) -> &[ChannelMeta] {
        &self.layout.channels
    }

    /// State metadata.
    pub fn state_meta(&self) -> &[StateMeta] {
        &self.layout.state
    }

    /// The data aliases, `(alias, root)`: channel `alias`'s data word is always channel
    /// `root`'s (see [`TraceBuilder::set_data_aliases`]).
    pub fn data_aliases(&self) -> &[(u32, u32)] {
        &self.layout.aliases
    }

    /// Memory names, indexed by [`MemWrite::mem`].
    pub fn memories(&self) -> &[String] {
        &self.layout.memories
    }

    /// Index of a channel by name.
    pub fn channel_index(&self, name: &str) -> Option<usize> {
        self.layout.channel_index.get(name).copied()
    }

    /// All memory writes in cycle order.
    pub fn mem_writes(&self) -> &[MemWrite] {
        &self.mem_writes
    }

    /// Number of keyframes (full snapshots) stored.
    pub fn keyframes(&self) -> usize {
        match &self.store {
            Store::Resim(r) => r.keyframes(),
            Store::Delta(d) => d.keyframes(),
        }
    }

    /// Bytes of memory the trace occupies (deltas, offsets, keyframes, memory writes).
    pub fn memory_bytes(&self) -> usize {
        let store = match &self.store {
            Store::Resim(r) => r.memory_bytes(),
            Store::Delta(d) => d.memory_bytes(),
        };
        store
            + self.mem_writes.capacity() * std::mem::size_of::<MemWrite>()
            + self.layout.aliases.capacity() * 8
    }

    /// Reconstructs cycle `c`, or `None` past the end.
    pub fn cycle(&self, c: u64) -> Option<CycleView<'_>> {
        if c >= self.cycles() {
            return None;
        }
        let n = self.layout.n_words;
        let mut vals = match &self.store {
            Store::Resim(r) => {
                let mut vals = vec![0; n];
                r.cursor(c)?.next(&mut vals);
                vals
            }
            Store::Delta(d) => d.seek(n, c).0,
        };
        self.layout.resolve_aliases(&mut vals, |_, _| {});
        Some(CycleView {
            trace: self,
            cycle: c,
            vals: Cow::Owned(vals),
        })
    }

    /// Walks all changes in time order.
    pub fn replay(&self) -> Replay<'_> {
        Replay::new(self, 0)
    }

    /// Walks the changes from cycle `c` on (its first cycle reports the changes since
    /// cycle `c - 1`); costs one random access, then one step per cycle.
    pub fn replay_from(&self, c: u64) -> Replay<'_> {
        Replay::new(self, c)
    }

    /// Samples of one channel: cycle 0, then every cycle where its valid, ready or data
    /// changed.
    pub fn channel_history(&self, ch: usize) -> impl Iterator<Item = (u64, ChannelSample)> + '_ {
        self.channel_history_from(ch, 0)
    }

    /// Like [`Trace::channel_history`] over cycles `from..`: the cycles from `from` on in
    /// which valid, ready or data of channel `ch` changed (and cycle 0 itself when `from`
    /// is 0).
    pub fn channel_history_from(
        &self,
        ch: usize,
        from: u64,
    ) -> impl Iterator<Item = (u64, ChannelSample)> + '_ {
        let ctrl = Signal::Ctrl(ch as u32);
        let data = Signal::Data(ch as u32);
        let mut rp = self.replay_from(from);
        std::iter::from_fn(move || {
            loop {
                let c = rp.next_cycle()?;
                let cycle = c.cycle;
                let hit = cycle == 0
                    || c.changes
                        .iter()
                        .any(|x| x.signal == ctrl || x.signal == data);
                if hit {
                    return Some((cycle, rp.view().sample(ch)));
                }
            }
        })
    }

    /// How far the trace has grown, for [`Trace::tail`].
    pub fn mark(&self) -> TraceMark {
        TraceMark {
            cycles: self.cycles(),
            keys: match &self.store {
                Store::Resim(r) => r.key_count(),
                Store::Delta(d) => d.keyframes(),
            },
            mem_writes: self.mem_writes.len(),
        }
    }

    /// What an engine trace recorded after `since` (`None` for traces built from samples,
    /// which do not grow in place).
    pub fn tail(&self, since: TraceMark) -> Option<TraceTail> {
        let Store::Resim(r) = &self.store else {
            return None;
        };
        Some(TraceTail {
            from: since,
            resim: r.tail(since.keys),
            mem_writes: self
                .mem_writes
                .get(since.mem_writes..)
                .unwrap_or_default()
                .to_vec(),
        })
    }

    /// Appends `tail` to a copy of an engine trace taken at the tail's mark.
    pub fn extend(&mut self, tail: TraceTail) -> Result<(), TailMismatch> {
        let here = self.mark();
        let mismatch = TailMismatch {
            tail: tail.from.cycles,
            have: here.cycles,
        };
        if tail.from != here {
            return Err(mismatch);
        }
        let Store::Resim(r) = &mut self.store else {
            return Err(mismatch);
        };
        r.extend(tail.resim);
        self.mem_writes.extend(tail.mem_writes);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Type;

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
        assert!(t.keyframes() > 2, "keyframes were written");
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

#[cfg(test)]
mod walk_tests {
    use super::*;
    use crate::engine::Simulation;
    use crate::stimulus::{Environment, ReadyPolicy, TokenSource};

    /// A run of the benchmark chain with a ready policy that stalls it.
    fn sim() -> Simulation {
        let f = crate::bench_support::chain(6);
        let mut env = Environment::default();
        env.push_tokens("in0", TokenSource::Range { start: 0, end: 400 });
        env.set_ready("out0", ReadyPolicy::parse("random:5:0.6").unwrap());
        let mut sim = Simulation::new(&f, env).unwrap();
        sim.enable_trace();
        sim
    }

    /// The engine trace of [`sim`], the tails taken every 37 cycles while it ran, and the
    /// same run rebuilt through a [`TraceBuilder`] (delta store).
    fn engine_trace(cycles: u64) -> (Trace, Vec<(TraceMark, TraceTail)>, Trace) {
        let mut sim = sim();
        let mut tails = Vec::new();
        let mut mark = sim.trace().unwrap().mark();
        while sim.cycle() < cycles && sim.can_step() {
            for _ in 0..37 {
                sim.step();
            }
            let t = sim.trace().unwrap();
            tails.push((mark, t.tail(mark).unwrap()));
            mark = t.mark();
        }
        let t = sim.take_trace().unwrap();
        let delta = rebuild(&t);
        (t, tails, delta)
    }

    /// `t` recorded again through a [`TraceBuilder`] (delta store).
    fn rebuild(t: &Trace) -> Trace {
        let n = t.channels().len();
        let mut b = TraceBuilder::new(t.channels().to_vec(), t.state_meta().to_vec());
        let mut rp = t.replay();
        while rp.next_cycle().is_some() {
            let v = rp.values();
            let valid: Vec<bool> = v[..n].iter().map(|x| x & 1 != 0).collect();
            let ready: Vec<bool> = v[..n].iter().map(|x| x & 2 != 0).collect();
            b.push_cycle(Sample {
                valid: &valid,
                ready: &ready,
                data: &v[n..2 * n],
                state: &v[2 * n..],
            });
        }
        b.finish()
    }

    fn all_changes(t: &Trace, from: u64) -> Vec<(u64, Vec<Change>)> {
        let mut rp = t.replay_from(from);
        let mut out = Vec::new();
        while let Some(c) = rp.next_cycle() {
            out.push((c.cycle, c.changes.to_vec()));
        }
        out
    }

    #[test]
    fn replay_from_continues_the_full_replay_in_both_stores() {
        let (engine, _, delta) = engine_trace(700);
        for t in [&engine, &delta] {
            let full = all_changes(t, 0);
            assert_eq!(full.len() as u64, t.cycles());
            for from in [1u64, 2, 63, 64, 65, 300, 699, 700] {
                let part = all_changes(t, from);
                assert_eq!(part[..], full[from as usize..], "from {from}");
                let mut rp = t.replay_from(from);
                if rp.next_cycle().is_some() {
                    let v = t.cycle(from).unwrap();
                    assert_eq!(rp.values(), &v.vals[..], "values at {from}");
                    assert_eq!(rp.view().state_words(), v.state_words());
                }
            }
            for ch in 0..t.channels().len() {
                let h: Vec<_> = t.channel_history(ch).collect();
                let tail: Vec<_> = t.channel_history_from(ch, 350).collect();
                let want: Vec<_> = h.iter().filter(|x| x.0 >= 350).copied().collect();
                assert_eq!(tail, want, "channel {ch}");
            }
        }
    }

    #[test]
    fn tails_rebuild_a_copy_of_an_engine_trace() {
        let (engine, tails, delta) = engine_trace(700);
        assert!(
            delta.tail(delta.mark()).is_none(),
            "built traces do not grow"
        );
        // The copy starts as the fresh trace of the run that recorded `engine`.
        let mut copy = sim().take_trace().unwrap();
        let (first_mark, first) = tails[0].clone();
        assert_eq!(first_mark, copy.mark());
        // Out of order: refused.
        assert!(copy.extend(tails[1].1.clone()).is_err());
        copy.extend(first).unwrap();
        for (_, t) in tails.iter().skip(1).cloned() {
            copy.extend(t).unwrap();
        }
        assert_eq!(copy.cycles(), engine.cycles());
        assert_eq!(copy.mem_writes(), engine.mem_writes());
        assert_eq!(all_changes(&copy, 0), all_changes(&engine, 0));
    }
}
