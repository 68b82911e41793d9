//! Reading a trace: one reconstructed cycle ([`CycleView`]), a walk over the cycles in time
//! order ([`Replay`]), and a channel's change points ([`ChannelSample`]).

use std::borrow::Cow;

use super::delta::DeltaCursor;
use super::meta::{Change, MemWrite};
use super::{Store, Trace};
use crate::engine::resim::Cursor;

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
    pub(super) trace: &'t Trace,
    /// The cycle.
    pub cycle: u64,
    pub(super) vals: Cow<'t, [u64]>,
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
        self.vals[self.trace.layout.nc() + ch]
    }

    /// valid, ready and data of channel `ch`.
    pub fn sample(&self, ch: usize) -> ChannelSample {
        ChannelSample {
            valid: self.valid(ch),
            ready: self.ready(ch),
            data: self.data(ch),
        }
    }

    /// State words of node `node` (stable ID), in [`super::StateMeta::fields`] order.
    pub fn state(&self, node: &str) -> Option<&[u64]> {
        let l = &self.trace.layout;
        let i = *l.state_index.get(node)?;
        let start = 2 * l.nc() + l.state_start[i] as usize;
        Some(&self.vals[start..start + l.state[i].fields.len()])
    }

    /// All state words.
    pub fn state_words(&self) -> &[u64] {
        &self.vals[2 * self.trace.layout.nc()..]
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

/// How a replay advances: the store it walks.
enum Walk<'t> {
    Delta(DeltaCursor),
    Resim(Option<Box<Cursor<'t>>>),
}

/// Time-ordered walk over a trace's changes ([`Trace::replay`], [`Trace::replay_from`]).
pub struct Replay<'t> {
    trace: &'t Trace,
    next: u64,
    vals: Vec<u64>,
    walk: Walk<'t>,
    changes: Vec<Change>,
    scratch: Vec<u64>,
}

impl std::fmt::Debug for Replay<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Replay").field("next", &self.next).finish()
    }
}

impl<'t> Replay<'t> {
    /// A walk whose first [`Replay::next_cycle`] returns cycle `c`, reporting the changes
    /// from cycle `c - 1` (from all zeros for `c = 0`).
    pub(super) fn new(trace: &'t Trace, c: u64) -> Replay<'t> {
        let n = trace.layout.n_words;
        let c = c.min(trace.cycles());
        let (vals, walk) = match &trace.store {
            Store::Delta(_) if c == 0 => (vec![0; n], Walk::Delta(DeltaCursor::default())),
            Store::Delta(d) => {
                let (mut vals, cur) = d.seek(n, c - 1);
                trace.layout.resolve_aliases(&mut vals, |_, _| {});
                (vals, Walk::Delta(cur))
            }
            Store::Resim(r) if c == 0 => (vec![0; n], Walk::Resim(r.cursor(0).map(Box::new))),
            Store::Resim(r) => {
                let mut vals = vec![0; n];
                let mut cur = r.cursor(c - 1);
                if let Some(k) = &mut cur {
                    k.next(&mut vals);
                    trace.layout.resolve_aliases(&mut vals, |_, _| {});
                }
                (vals, Walk::Resim(cur.map(Box::new)))
            }
        };
        Replay {
            trace,
            next: c,
            vals,
            walk,
            changes: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// Advances one cycle and returns its changes.
    pub fn next_cycle(&mut self) -> Option<CycleChanges<'_>> {
        let t = self.trace;
        let c = self.next;
        if c >= t.cycles() {
            return None;
        }
        let layout = &t.layout;
        self.changes.clear();
        match (&mut self.walk, &t.store) {
            (Walk::Resim(cursor), Store::Resim(r)) => {
                // Restart from each snapshot, so a replay also checks that re-simulating
                // reproduces the recorded run.
                if c > 0 && c.is_multiple_of(r.interval()) {
                    *cursor = r.cursor(c).map(Box::new);
                }
                let cur = cursor.as_mut()?;
                let mut now = std::mem::take(&mut self.scratch);
                now.resize(layout.n_words, 0);
                if !cur.next(&mut now) {
                    return None;
                }
                layout.resolve_aliases(&mut now, |_, _| {});
                for (s, (&new, old)) in now.iter().zip(&self.vals).enumerate() {
                    if new != *old {
                        self.changes.push(Change {
                            signal: layout.signal(s),
                            value: new,
                        });
                    }
                }
                self.scratch = std::mem::replace(&mut self.vals, now);
            }
            (Walk::Delta(cur), Store::Delta(d)) => {
                let changes = &mut self.changes;
                d.apply(layout.n_words, cur, c, &mut self.vals, |s, v| {
                    changes.push(Change {
                        signal: layout.signal(s),
                        value: v,
                    });
                });
                let applied = changes.len();
                layout.resolve_aliases(&mut self.vals, |s, v| {
                    changes.push(Change {
                        signal: layout.signal(s),
                        value: v,
                    });
                });
                if changes.len() > applied {
                    // Keep signal order (alias data changes were appended after the rest).
                    changes.sort_unstable_by_key(|x| layout.index(x.signal));
                }
            }
            _ => unreachable!("a replay walks the store of its own trace"),
        }
        self.next += 1;
        Some(CycleChanges {
            cycle: c,
            changes: &self.changes,
        })
    }

    /// All signal values after the last returned cycle (signal order, see
    /// [`super::Trace`]).
    pub fn values(&self) -> &[u64] {
        &self.vals
    }

    /// The last returned cycle as a [`CycleView`] (the cycle before the first one to come,
    /// if none was returned yet; all zeros before cycle 0).
    pub fn view(&self) -> CycleView<'_> {
        CycleView {
            trace: self.trace,
            cycle: self.next.saturating_sub(1),
            vals: Cow::Borrowed(&self.vals),
        }
    }
}
