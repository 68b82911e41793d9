//! Everything the view needs about one cycle, reconstructed once when the cursor moves.

use cranelift_entity::EntityRef;
use handscope_sim::Function;
use handscope_sim::trace::Trace;

use super::binding::Binding;
use super::style::ChanState;

/// The handshake state of every channel and the state words of every node in one cycle.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CycleState {
    /// The cycle.
    pub cycle: u64,
    /// `valid` per channel index.
    pub valid: Vec<bool>,
    /// `ready` per channel index.
    pub ready: Vec<bool>,
    /// `data` per channel index.
    pub data: Vec<u64>,
    /// All state words (in trace order; see [`Binding::state`]).
    pub words: Vec<u64>,
    /// Whether each node fires (any of its channels transfers), per node index.
    pub fires: Vec<bool>,
    /// Channels that transferred in the previous cycle (tokens now travelling), per channel.
    pub moved: Vec<bool>,
    /// The invocation each travelling token belongs to (`handscope_sim::invocation`), per
    /// channel; empty until computed ([`CycleState::tag_moved`]).
    pub moved_tags: Vec<Option<handscope_sim::invocation::Tag>>,
}

impl CycleState {
    /// Reads cycle `c` of `t` (empty state when it does not exist).
    pub fn read(f: &Function, t: &Trace, b: &Binding, c: u64) -> CycleState {
        let n = f.channels.len();
        let mut s = CycleState {
            cycle: c,
            valid: vec![false; n],
            ready: vec![false; n],
            data: vec![0; n],
            ..Default::default()
        };
        s.moved = vec![false; n];
        // One walk over the previous cycle (tokens that moved) and this one.
        let mut rp = t.replay_from(c.saturating_sub(1));
        if c > 0 && rp.next_cycle().is_some() {
            let v = rp.view();
            for (i, ti) in b.chan.iter().enumerate() {
                if let Some(ti) = *ti {
                    s.moved[i] = v.valid(ti) && v.ready(ti);
                }
            }
        }
        if rp.next_cycle().is_some() {
            let v = rp.view();
            for (i, ti) in b.chan.iter().enumerate() {
                if let Some(ti) = *ti {
                    s.valid[i] = v.valid(ti);
                    s.ready[i] = v.ready(ti);
                    s.data[i] = v.data(ti);
                }
            }
            s.words = v.state_words().to_vec();
        }
        s.fires = f
            .nodes
            .values()
            .map(|node| {
                node.inputs
                    .iter()
                    .chain(&node.outputs)
                    .any(|ch| s.fired(ch.index()))
            })
            .collect();
        s
    }

    /// Fills [`CycleState::moved_tags`] from `tagger` (the tags of the previous cycle), reading
    /// at most `budget` trace cycles; false when that was not enough (the tags stay empty).
    pub fn tag_moved(
        &mut self,
        f: &Function,
        t: &Trace,
        tagger: &mut handscope_sim::invocation::TraceTagger,
        budget: u64,
    ) -> bool {
        if self.cycle == 0 {
            return true;
        }
        let Some(tags) = tagger.at_within(f, t, self.cycle - 1, budget) else {
            return false;
        };
        self.moved_tags = tags
            .iter()
            .zip(&self.moved)
            .map(|(&tag, &m)| if m { tag } else { None })
            .collect();
        true
    }

    /// State of channel `i`.
    pub fn chan(&self, i: usize) -> ChanState {
        ChanState::of(
            self.valid.get(i).copied().unwrap_or(false),
            self.ready.get(i).copied().unwrap_or(false),
        )
    }

    /// True when channel `i` transfers.
    pub fn fired(&self, i: usize) -> bool {
        self.chan(i) == ChanState::Transfer
    }

    /// State words of node index `n`, with their names.
    pub fn node_words<'a>(&'a self, b: &'a Binding, n: usize) -> Option<(&'a [u64], &'a [String])> {
        let (r, names) = b.state.get(n)?.as_ref()?;
        Some((self.words.get(r.clone())?, names))
    }
}
