//! Cycles lost to memory ordering: what each load-store queue's entries and each address
//! queue's ports waited for, read from the registers and handshakes a trace records.

use serde::Serialize;

use crate::graph::Function;
use crate::ops::Op;
use crate::spec::NodeState;
use crate::trace::Trace;

/// Which kind of queue a [`QueueWaits`] describes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum QueueKind {
    /// Dynamatic's load-store queue ([`Op::DynLsq`]).
    #[default]
    LoadStore,
    /// An address queue ([`Op::AddrQueue`]): its load ports count as entries, a store port
    /// waiting while the queue is full as the store, and there are no groups.
    Address,
}

/// What one queue's accesses waited for over a run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct QueueWaits {
    /// The queue's node.
    pub queue: String,
    /// Load-store or address queue.
    pub kind: QueueKind,
    /// Load-entry cycles in which a load had its address but an older store with the same or
    /// a still unknown address kept it from memory and could not forward its data (the order
    /// costs these).
    pub load_entry_cycles_blocked: u64,
    /// Cycles in which at least one load was so blocked.
    pub cycles_with_blocked_loads: u64,
    /// Cycles in which the store at the issue pointer had its address and data but an older
    /// load with the same or an unknown address kept it from writing.
    pub store_cycles_blocked: u64,
    /// Cycles in which a group's control was offered and the queues had no room for it.
    pub group_cycles_waiting: u64,
}

/// The waits of every load-store queue of `f` over `trace`, in node order, then those of
/// every address queue.
pub fn queue_waits(f: &Function, trace: &Trace) -> Vec<QueueWaits> {
    let mut out = lsq_waits(f, trace);
    out.extend(address_queue_waits(f, trace));
    out
}

/// The waits of every address queue of `f` over `trace`: a load port blocked while its
/// address and order token are there and the address does not pass (a queued store has
/// it), a store port while its address and order token are there and the queue is full.
fn address_queue_waits(f: &Function, trace: &Trace) -> Vec<QueueWaits> {
    let ch = |c: crate::graph::ChannelId| trace.channel_index(&f.channels[c].name);
    let queues: Vec<_> = f
        .nodes
        .iter()
        .filter_map(|(n, node)| match node.op {
            Op::AddrQueue { ld, st, depth } => {
                let (ld, st) = (ld as usize, st as usize);
                let loads: Vec<(usize, usize, usize)> = (0..ld)
                    .filter_map(|i| {
                        Some((
                            ch(node.inputs[2 * i])?,
                            ch(node.inputs[2 * i + 1])?,
                            ch(node.outputs[i])?,
                        ))
                    })
                    .collect();
                let stores: Vec<(usize, usize)> = (0..st)
                    .filter_map(|j| {
                        Some((
                            ch(node.inputs[2 * ld + 3 * j])?,
                            ch(node.inputs[2 * ld + 3 * j + 1])?,
                        ))
                    })
                    .collect();
                Some((n, loads, stores, depth))
            }
            _ => None,
        })
        .collect();
    if queues.is_empty() {
        return Vec::new();
    }
    let mut out: Vec<QueueWaits> = queues
        .iter()
        .map(|(n, ..)| QueueWaits {
            queue: f.nodes[*n].id.clone(),
            kind: QueueKind::Address,
            ..QueueWaits::default()
        })
        .collect();
    let mut replay = trace.replay();
    while replay.next_cycle().is_some() {
        let view = replay.view();
        for ((n, loads, stores, depth), w) in queues.iter().zip(&mut out) {
            let blocked = loads
                .iter()
                .filter(|&&(a, o, out)| view.valid(a) && view.valid(o) && !view.valid(out))
                .count() as u64;
            w.load_entry_cycles_blocked += blocked;
            w.cycles_with_blocked_loads += u64::from(blocked > 0);
            let full = view.state(&f.nodes[*n].id).is_some_and(|words| {
                matches!(f.nodes[*n].op.spec().state.decode(words),
                    NodeState::AddrQueue { entries, .. } if entries.len() >= *depth as usize)
            });
            if full
                && stores
                    .iter()
                    .any(|&(a, o)| view.valid(a) && view.valid(o) && !view.ready(a))
            {
                w.store_cycles_blocked += 1;
            }
        }
    }
    out
}

/// The waits of every load-store queue of `f` over `trace`, in node order.
fn lsq_waits(f: &Function, trace: &Trace) -> Vec<QueueWaits> {
    let queues: Vec<_> = f
        .nodes
        .iter()
        .filter_map(|(n, node)| match &node.op {
            Op::DynLsq { shape, memref, .. } => {
                let m = usize::from(memref.is_some());
                let ctrl: Vec<usize> = node.inputs[m..m + shape.groups.len()]
                    .iter()
                    .filter_map(|&c| trace.channel_index(&f.channels[c].name))
                    .collect();
                Some((n, ctrl))
            }
            _ => None,
        })
        .collect();
    if queues.is_empty() {
        return Vec::new();
    }
    let mut out: Vec<QueueWaits> = queues
        .iter()
        .map(|(n, _)| QueueWaits {
            queue: f.nodes[*n].id.clone(),
            ..QueueWaits::default()
        })
        .collect();
    let mut replay = trace.replay();
    while replay.next_cycle().is_some() {
        let view = replay.view();
        for ((n, ctrl), w) in queues.iter().zip(&mut out) {
            let node = &f.nodes[*n];
            if ctrl.iter().any(|&c| view.valid(c) && !view.ready(c)) {
                w.group_cycles_waiting += 1;
            }
            let Some(words) = view.state(&node.id) else {
                continue;
            };
            let NodeState::Lsq(q) = node.op.spec().state.decode(words) else {
                continue;
            };
            let stores = q.stores_by_age();
            let mut blocked = 0;
            for (_, l) in q.loads_by_age() {
                let (Some(a), false, None) = (l.addr, l.issued, l.data) else {
                    continue;
                };
                // The youngest older store with the same or an unknown address; a load it
                // can forward to (same address, data there) is served this cycle.
                let youngest = stores
                    .iter()
                    .rev()
                    .find(|(j, s)| l.older_stores >> j & 1 == 1 && s.addr.is_none_or(|sa| sa == a));
                if let Some((_, s)) = youngest
                    && !(s.addr == Some(a) && s.data.is_some())
                {
                    blocked += 1;
                }
            }
            w.load_entry_cycles_blocked += blocked;
            w.cycles_with_blocked_loads += u64::from(blocked > 0);
            let si = q.store_issue;
            if let Some(Some(s)) = q.stores.get(si as usize)
                && let (Some(a), Some(_)) = (s.addr, s.data)
                && q.loads_by_age()
                    .iter()
                    .any(|(_, l)| l.older_stores >> si & 1 == 0 && l.addr.is_none_or(|la| la == a))
            {
                w.store_cycles_blocked += 1;
            }
        }
    }
    out
}
