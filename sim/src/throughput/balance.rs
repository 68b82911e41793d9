//! Slots that keep latencies from throttling a circuit: static buffer sizing for a timing
//! profile, from the throughput model alone (no stimulus, no simulation).
//!
//! With pipelined units, the two arms of a fork/join region differ in latency: a token taking
//! the long arm (say a 9-cycle `addf`) keeps its partner waiting on the short arm, and the
//! short arm holds only as many tokens as it has places. The model sees this as a critical
//! cycle that goes forward along the long arm and back along the short arm's free places
//! (`docs/throughput.md`). Each round of [`balance`] takes the critical cycle of the timed
//! circuit; when it limits throughput below one token per cycle and runs back through a
//! channel's free places, `k = latency - tokens` slots on that channel (each slot adds one
//! cycle and two places to the cycle) bring its ratio to 1. A round keeps the first such
//! change that lowers the critical ratio; it stops when the critical cycle is a loop's
//! recurrence (only forward edges: no slot helps) or within one token per cycle, or after
//! [`BalanceOptions::max_slots`] slots.
//!
//! Slots are counted on the untimed circuit's channels: a channel out of a `pipeline` stands
//! for the channel into it (the unit's result). Channels into a memory get none, nor do the
//! function's results (`return` joins them once per invocation: slots there only delay the
//! results of one invocation, and the function lock keeps the next one out anyway).

use crate::graph::{ChannelId, Function};
use crate::ops::Op;
use crate::spec::timing::TimingProfile;
use crate::transform::apply_timing;

use super::model::{Direction, Model, ModelOptions, critical_cycle};
use super::tune::{SlotChange, apply};

/// Limits of [`balance`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BalanceOptions {
    /// Most slots added in all.
    pub max_slots: u32,
    /// Most rounds (one change each).
    pub max_rounds: usize,
}

impl Default for BalanceOptions {
    fn default() -> Self {
        BalanceOptions {
            max_slots: 512,
            max_rounds: 64,
        }
    }
}

/// The critical cycle's (latency, tokens) of `f` under `profile`, and its channels whose free
/// places close it (as channels of `f`). `None` when no cycle limits throughput.
fn critical(f: &Function, profile: &TimingProfile) -> Option<((u64, u64), Vec<ChannelId>)> {
    let mut timed = f.clone();
    apply_timing(&mut timed, profile).ok()?;
    let model = Model::build(&timed, ModelOptions::default());
    let c = critical_cycle(&model, |_| true)?;
    let mut chans = Vec::new();
    for &e in &c.edges {
        let w = &model.graph[e];
        if w.dir != Direction::Backward {
            continue;
        }
        let Some(ch) = w.channel else { continue };
        // A pipeline's output stands for its input, the unit's result (same id in `f`).
        let p = timed.channels[ch].producer.node;
        let orig = match timed.nodes[p].op {
            Op::Pipeline { .. } => timed.nodes[p].inputs[0],
            _ => ch,
        };
        let into_memory = f.channels[orig].consumers.iter().any(|k| {
            matches!(
                f.nodes[k.node].op,
                Op::Memory { .. } | Op::ExtMemory { .. } | Op::Return
            )
        });
        if !into_memory && !chans.contains(&orig) {
            chans.push(orig);
        }
    }
    Some(((c.latency, c.tokens), chans))
}

/// The slot changes that let `f` under `profile` run as fast as its loops' recurrences allow
/// (see the module documentation); empty for an ideal profile.
pub fn balance(f: &Function, profile: &TimingProfile, opts: BalanceOptions) -> Vec<SlotChange> {
    let mut changes: Vec<SlotChange> = Vec::new();
    if profile.is_ideal() {
        return changes;
    }
    let mut g = f.clone();
    let mut spent = 0u32;
    for _ in 0..opts.max_rounds {
        let Some(((lat, tok), chans)) = critical(&g, profile) else {
            break;
        };
        if tok > 0 && lat <= tok {
            break;
        }
        let need = u32::try_from(lat.saturating_sub(tok).max(1)).unwrap_or(u32::MAX);
        let mut kept = false;
        for ch in chans {
            let k = need.min(opts.max_slots.saturating_sub(spent));
            if k == 0 {
                break;
            }
            let change = SlotChange {
                channel: g.channels[ch].name.clone(),
                slots: k,
            };
            let Ok(h) = apply(&g, std::slice::from_ref(&change)) else {
                continue;
            };
            let better = match critical(&h, profile) {
                None => true,
                Some(((l2, t2), _)) => {
                    t2 > 0 && (l2 as u128) * (tok as u128) < (lat as u128) * (t2 as u128)
                }
            };
            if better {
                spent += k;
                // Name it as a channel of `f`: a channel out of a buffer this search
                // inserted stands for the channel into it.
                let mut c = ch;
                while f.channel_by_name(&g.channels[c].name).is_none() {
                    c = g.nodes[g.channels[c].producer.node].inputs[0];
                }
                let change = SlotChange {
                    channel: g.channels[c].name.clone(),
                    slots: k,
                };
                match changes.iter_mut().find(|c| c.channel == change.channel) {
                    Some(c) => c.slots += k,
                    None => changes.push(change),
                }
                g = h;
                kept = true;
                break;
            }
        }
        if !kept {
            break;
        }
    }
    changes
}
