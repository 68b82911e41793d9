//! What a recorded run says about throughput: per channel, how often it fired and stalled, and
//! when it first and last fired. One walk over the trace in time order.

use crate::graph::{ChannelId, Function};
use crate::trace::Trace;

/// Transfers and stalls of one channel over a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Activity {
    /// Cycles with `valid & ready` (tokens transferred).
    pub fires: u64,
    /// Cycles with `valid & !ready` (a token offered and refused).
    pub stalls: u64,
    /// Cycle of the first transfer.
    pub first: Option<u64>,
    /// Cycle of the last transfer.
    pub last: Option<u64>,
}

impl Activity {
    /// Mean cycles between consecutive transfers over the active span (`None` below two
    /// transfers).
    pub fn interval(&self) -> Option<f64> {
        match (self.first, self.last) {
            (Some(a), Some(b)) if self.fires >= 2 => Some((b - a) as f64 / (self.fires - 1) as f64),
            _ => None,
        }
    }
}

/// The activity of every channel of `f` (indexed by `ChannelId`) in `trace`. Channels the
/// trace does not record (a trace of another function) stay at zero.
pub fn activity(f: &Function, trace: &Trace) -> Vec<Activity> {
    let map: Vec<Option<usize>> = f
        .channels
        .values()
        .map(|c| trace.channel_index(&c.name))
        .collect();
    let mut acts = vec![Activity::default(); f.channels.len()];
    let mut rp = trace.replay();
    while let Some(c) = rp.next_cycle() {
        let cycle = c.cycle;
        let vals = rp.values();
        for (i, m) in map.iter().enumerate() {
            let Some(t) = *m else { continue };
            let w = vals[t];
            match (w & 1 != 0, w & 2 != 0) {
                (true, true) => {
                    let a = &mut acts[i];
                    a.fires += 1;
                    a.first.get_or_insert(cycle);
                    a.last = Some(cycle);
                }
                (true, false) => acts[i].stalls += 1,
                (false, _) => {}
            }
        }
    }
    acts
}

/// The activity of one channel.
pub fn of(acts: &[Activity], ch: ChannelId) -> Activity {
    acts[cranelift_entity::EntityRef::index(ch)]
}
