//! The buffer advisor: buffer slots that make a run faster, each proposal verified by
//! re-simulation.
//!
//! A greedy search over slot additions, every candidate checked by running the changed
//! circuit with the same stimulus:
//!
//! 1. Run the circuit with a trace; candidates are the channels whose free space closes the
//!    critical cycle (its backward steps: more slots there add tokens to it), then the most
//!    stalled channels, at most [`TuneOptions::candidates`] of them. A channel whose value
//!    is always on offer (a `source`'s, and the constants it triggers) stalls whenever its
//!    consumer is busy, which no slot changes: it is no candidate.
//! 2. Add `k` slots (k = 1, 2, 4, … within the budget) to each candidate in turn and run
//!    again. A change is *valid* when the run ends the same way, every result carries the
//!    same values in the same order and every memory ends with the same contents; it is
//!    *better* when the run takes fewer cycles. Keep the best (fewest cycles, then fewest
//!    slots, then candidate order); repeat from 1 until no candidate helps or the budget
//!    ([`TuneOptions::max_slots`]) is spent. When no single channel helps, try one slot on
//!    each of the first 2, 3, … candidates at once (bottlenecks of equal weight only give way
//!    together).
//! 3. Prune: take single slots away again while the cycles stay at the tuned figure, so the
//!    answer uses no slot it does not need; when that gave slots back, search again (at most
//!    [`PASSES`] times).
//!
//! Why a search and not an (M)ILP: the objective is the cycle count of one exact run, which
//! no linear model captures (merges, memories, the environment); a search whose every step
//! is a verified simulation never proposes a change that does not pay off.
//!
//! Slots go where the channel already has room for them: a channel produced by (or feeding)
//! a buffer without initial values grows that buffer; any other channel gets a new
//! `buffer [k] fifo` named `tune<i>` on it. In a circuit of Dynamatic's components the buffers
//! are Dynamatic's: a grown one-slot buffer becomes the FIFO of the same cuts
//! (`ONE_SLOT_BREAK_DV` a `FIFO_BREAK_DV`, `ONE_SLOT_BREAK_R` a `FIFO_BREAK_NONE`), and a new
//! one is a `FIFO_BREAK_NONE` (slots without latency, as Dynamatic's own throughput buffers).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::graph::{ChannelId, Function, NameHint, Node, NodeId};
use crate::ops::{BufferKind, DynBufferKind, Op};
use crate::report::{RunReport, Status};
use crate::session::Session;

/// Rounds of search and pruning.
const PASSES: usize = 4;

/// Most candidates changed together in one step of the search.
const GROUP_MAX: usize = 6;

/// Limits of the search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TuneOptions {
    /// Most slots added in all; more than [`crate::limits::MAX_TOTAL_BUFFER_SLOTS`] counts as
    /// that many (a function with more does not simulate), and no one buffer grows past
    /// [`crate::limits::MAX_BUFFER_SLOTS`].
    pub max_slots: u32,
    /// Channels tried per round.
    pub candidates: usize,
    /// Cycle limit of the first run (later runs get twice the best cycles so far, plus 1000).
    pub max_cycles: u64,
}

impl Default for TuneOptions {
    fn default() -> Self {
        TuneOptions {
            max_slots: 16,
            candidates: 16,
            max_cycles: 1_000_000,
        }
    }
}

/// Slots added on one channel.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SlotChange {
    /// The channel (its name in the circuit before tuning).
    pub channel: String,
    /// Slots added.
    pub slots: u32,
}

/// Cycles and initiation interval of one run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunFigures {
    /// How the run ended.
    pub status: Status,
    /// Cycles.
    pub cycles: u64,
    /// Initiation interval of the run: see [`run_ii`].
    pub ii: Option<f64>,
    /// The channel that II was measured on.
    pub ii_channel: Option<String>,
}

/// Why tuning could not start.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TuneError {
    /// The simulation could not be built.
    #[error(transparent)]
    Sim(#[from] crate::engine::SimError),
    /// The run did not end `done`: there is no result to keep.
    #[error("the run ends `{0}` within the cycle limit; tune needs a run that finishes")]
    NotDone(&'static str),
    /// A change names a channel the circuit does not have.
    #[error("no channel `{0}`")]
    NoChannel(String),
    /// The tuned circuit's final run did not reproduce the verified answer and cycles (a
    /// nondeterministic circuit or an engine fault; nothing is proposed).
    #[error("the tuned circuit's final run differs from the verified one; nothing is proposed")]
    Unverified,
}

/// What [`tune`] found.
#[derive(Clone, Debug, Serialize)]
pub struct Tuned {
    /// The run before.
    pub before: RunFigures,
    /// The run with the changes.
    pub after: RunFigures,
    /// The changes (empty: nothing helped).
    pub changes: Vec<SlotChange>,
    /// Slots added in all.
    pub added_slots: u32,
    /// Simulations run (each a verified candidate).
    pub simulations: usize,
    /// The tuned function.
    #[serde(skip)]
    pub function: Function,
}

/// Initiation interval of a run: mean cycles between transfers on the busiest result
/// channel when one carries at least two tokens (of equally busy ones, the slowest, then a
/// data one: a `start` passed straight to `end` does not hide the data's pace); else on the busiest loop
/// back edge (the loop that iterates most); `None` when neither repeats.
pub fn run_ii(f: &Function, acts: &[super::measure::Activity]) -> (Option<f64>, Option<String>) {
    let pick = |chans: Vec<ChannelId>| {
        chans
            .into_iter()
            .map(|c| (c, super::measure::of(acts, c)))
            .filter(|(_, a)| a.fires >= 2)
            .max_by(|(c, a), (d, b)| {
                let data = |x: &ChannelId| f.channels[*x].ty != crate::Type::None;
                a.fires
                    .cmp(&b.fires)
                    .then(
                        a.interval()
                            .partial_cmp(&b.interval())
                            .unwrap_or(std::cmp::Ordering::Equal),
                    )
                    .then(data(c).cmp(&data(d)))
                    .then(d.cmp(c))
            })
    };
    let results: Vec<ChannelId> = f
        .return_node()
        .map(|r| f.nodes[r].inputs.clone())
        .unwrap_or_default();
    let best = pick(results).or_else(|| {
        pick(
            super::model::loop_back_edges(f)
                .into_iter()
                .collect::<Vec<_>>(),
        )
    });
    match best {
        Some((c, a)) => (a.interval(), Some(f.channels[c].name.clone())),
        None => (None, None),
    }
}

fn figures(
    f: &Function,
    report: &RunReport,
    acts: Option<&[super::measure::Activity]>,
) -> RunFigures {
    let (ii, ii_channel) = acts.map(|a| run_ii(f, a)).unwrap_or((None, None));
    RunFigures {
        status: report.status,
        cycles: report.cycles,
        ii,
        ii_channel,
    }
}

/// True when two runs give the same answer: same status, same values on every result in the
/// same order, same final memories.
pub fn same_answer(a: &RunReport, b: &RunReport) -> bool {
    let values = |r: &RunReport| {
        r.outputs
            .iter()
            .map(|(k, v)| (k.clone(), v.iter().map(|t| t.bits).collect::<Vec<_>>()))
            .collect::<BTreeMap<_, _>>()
    };
    a.status == b.status && values(a) == values(b) && a.memories == b.memories
}

/// `f` with `changes` applied (see the module documentation for where slots go).
pub fn apply(f: &Function, changes: &[SlotChange]) -> Result<Function, TuneError> {
    let mut g = f.clone();
    let mut fresh = 0usize;
    let dynamatic = g.nodes.values().any(|n| n.op.is_dynamatic());
    for ch in changes {
        if ch.slots == 0 {
            continue;
        }
        let cid = g
            .channel_by_name(&ch.channel)
            .ok_or_else(|| TuneError::NoChannel(ch.channel.clone()))?;
        let producer = g.channels[cid].producer.node;
        let consumers = g.channels[cid].consumers.clone();
        if grow(&mut g.nodes[producer], ch.slots) {
            continue;
        }
        if let [only] = consumers.as_slice()
            && grow(&mut g.nodes[only.node], ch.slots)
        {
            continue;
        }
        let id = loop {
            let id = format!("tune{fresh}");
            fresh += 1;
            if g.node_by_id(&id).is_none() {
                break id;
            }
        };
        let ty = g.channels[cid].ty.clone();
        let op = if dynamatic {
            Op::DynBuffer {
                kind: DynBufferKind::FifoBreakNone,
                slots: ch.slots,
            }
        } else {
            Op::Buffer {
                slots: ch.slots,
                kind: BufferKind::Fifo,
                init: None,
            }
        };
        let b = g.add_node(op, vec![ty]);
        let out = g.nodes[b].outputs[0];
        for k in consumers {
            g.replace_input(k.node, k.port as usize, out);
        }
        g.set_inputs(b, vec![cid]);
        let pnode = &g.nodes[producer];
        let (loc, block) = (pnode.loc.clone(), pnode.block.clone());
        let node = &mut g.nodes[b];
        node.id = id.clone();
        node.name_hint = NameHint::Name(id);
        node.loc = loc;
        node.block = block;
        g.rebuild_index()
            .map_err(|e| TuneError::NoChannel(format!("{} (duplicate ID)", e.id)))?;
    }
    Ok(g)
}

/// Adds `k` slots to `n` when it is a buffer without initial values (a one-slot Dynamatic
/// buffer becomes the FIFO of the same cuts).
fn grow(n: &mut Node, k: u32) -> bool {
    match &mut n.op {
        Op::Buffer {
            slots, init: None, ..
        } => {
            *slots += k;
            true
        }
        Op::DynBuffer { kind, slots } => {
            *slots += k;
            *kind = match *kind {
                DynBufferKind::OneSlotBreakDv => DynBufferKind::FifoBreakDv,
                DynBufferKind::OneSlotBreakR => DynBufferKind::FifoBreakNone,
                other => other,
            };
            true
        }
        _ => false,
    }
}

/// The channel of the untuned circuit a channel of the tuned one stands for: the input of an
/// inserted `tune<i>` buffer for its output, the channel itself otherwise.
fn original_channel(f: &Function, orig: &Function, ch: ChannelId) -> Option<String> {
    let c = &f.channels[ch];
    if orig.channel_by_name(&c.name).is_some() {
        return Some(c.name.clone());
    }
    let p: NodeId = c.producer.node;
    let input = *f.nodes[p].inputs.first()?;
    let name = &f.channels[input].name;
    orig.channel_by_name(name).map(|_| name.clone())
}

fn merge(changes: &[SlotChange], add: &SlotChange) -> Vec<SlotChange> {
    let mut out = changes.to_vec();
    match out.iter_mut().find(|c| c.channel == add.channel) {
        Some(c) => c.slots += add.slots,
        None => out.push(add.clone()),
    }
    out
}

struct Search<'a> {
    session: &'a Session,
    orig: &'a Function,
    base: RunReport,
    simulations: usize,
}

impl Search<'_> {
    /// Runs `changes`; the report when the answer is the same as the untuned run's.
    fn verified(&mut self, changes: &[SlotChange], limit: u64) -> Option<(Function, RunReport)> {
        let f = apply(self.orig, changes).ok()?;
        let s = self.session.with_function(f.clone());
        self.simulations += 1;
        let run = s.run(limit, false).ok()?;
        same_answer(&self.base, &run.report).then_some((f, run.report))
    }
}

/// Tunes the buffers of the session's function for the session's stimulus.
pub fn tune(session: &Session, opts: TuneOptions) -> Result<Tuned, TuneError> {
    let orig = session.function();
    let first = session.run(opts.max_cycles, true)?;
    if first.report.status != Status::Done {
        return Err(TuneError::NotDone(first.report.status.as_str()));
    }
    let trace = first.trace.expect("a trace was asked for");
    let analysis = super::Analysis::new(orig, &trace);
    let before = figures(orig, &first.report, Some(&analysis.activity));
    let mut search = Search {
        session,
        orig,
        base: first.report.clone(),
        simulations: 1,
    };
    let mut changes: Vec<SlotChange> = Vec::new();
    let mut best_cycles = first.report.cycles;
    let mut current = orig.clone();
    let mut analysis = analysis;
    let mut added = 0u32;
    // No count below can pass these, so none wraps (`k` doubles up to one buffer's limit).
    let max_slots = opts
        .max_slots
        .min(u32::try_from(crate::limits::MAX_TOTAL_BUFFER_SLOTS).unwrap_or(u32::MAX));
    let max_step = u32::try_from(crate::limits::MAX_BUFFER_SLOTS).unwrap_or(u32::MAX);
    // Search, prune, and search again with the slots pruning gave back (a few times at most).
    for _pass in 0..PASSES {
        let cycles_before_pass = best_cycles;
        'rounds: while added < max_slots {
            let cands = candidates(&current, orig, &analysis, opts.candidates);
            let limit = 2 * best_cycles + 1000;
            let mut k = 1u32;
            while k <= max_slots - added && k <= max_step {
                let mut best: Option<(u64, Vec<SlotChange>, Function)> = None;
                for c in &cands {
                    let next = merge(
                        &changes,
                        &SlotChange {
                            channel: c.clone(),
                            slots: k,
                        },
                    );
                    if let Some((f, r)) = search.verified(&next, limit)
                        && r.cycles < best_cycles
                        && best.as_ref().is_none_or(|(b, _, _)| r.cycles < *b)
                    {
                        best = Some((r.cycles, next, f));
                    }
                }
                if let Some((cycles, next, f)) = best {
                    best_cycles = cycles;
                    changes = next;
                    added += k;
                    current = f;
                    let s = session.with_function(current.clone());
                    search.simulations += 1;
                    let run = s.run(limit, true)?;
                    let t = run.trace.expect("a trace was asked for");
                    analysis = super::Analysis::new(&current, &t);
                    continue 'rounds;
                }
                k = k.saturating_mul(2);
            }
            // No single channel helps: several bottlenecks of the same weight (two equally
            // unbalanced diamonds) only give way together. Try the first `n` candidates at once.
            let mut best: Option<(u64, Vec<SlotChange>, Function, u32)> = None;
            for n in 2..=cands.len().min(GROUP_MAX) {
                let cost = n as u32;
                if cost > max_slots - added {
                    break;
                }
                let mut next = changes.clone();
                for c in &cands[..n] {
                    next = merge(
                        &next,
                        &SlotChange {
                            channel: c.clone(),
                            slots: 1,
                        },
                    );
                }
                if let Some((f, r)) = search.verified(&next, limit)
                    && r.cycles < best_cycles
                    && best.as_ref().is_none_or(|(b, ..)| r.cycles < *b)
                {
                    best = Some((r.cycles, next, f, cost));
                }
            }
            if let Some((cycles, next, f, cost)) = best {
                best_cycles = cycles;
                changes = next;
                added += cost;
                current = f;
                let s = session.with_function(current.clone());
                search.simulations += 1;
                let run = s.run(limit, true)?;
                let t = run.trace.expect("a trace was asked for");
                analysis = super::Analysis::new(&current, &t);
                continue 'rounds;
            }
            break;
        }
        // Prune: single slots that the figure does not need.
        let limit = 2 * best_cycles + 1000;
        let mut i = 0;
        while i < changes.len() {
            let mut fewer = changes.clone();
            fewer[i].slots -= 1;
            match search.verified(&fewer, limit) {
                Some((f, r)) if r.cycles <= best_cycles => {
                    best_cycles = r.cycles;
                    current = f;
                    if fewer[i].slots == 0 {
                        fewer.remove(i);
                    }
                    changes = fewer;
                }
                _ => i += 1,
            }
        }
        let pruned: u32 = changes.iter().map(|c| c.slots).sum();
        if pruned == added || best_cycles == cycles_before_pass {
            break;
        }
        added = pruned;
        let s = session.with_function(current.clone());
        search.simulations += 1;
        let run = s.run(limit, true)?;
        let t = run.trace.expect("a trace was asked for");
        analysis = super::Analysis::new(&current, &t);
    }
    let limit = 2 * best_cycles + 1000;
    let s = session.with_function(current.clone());
    let run = s.run(limit, true)?;
    search.simulations += 1;
    // The final run is checked like every candidate.
    if !same_answer(&search.base, &run.report) || run.report.cycles > before.cycles {
        return Err(TuneError::Unverified);
    }
    let t = run.trace.expect("a trace was asked for");
    let acts = super::measure::activity(&current, &t);
    let after = figures(&current, &run.report, Some(&acts));
    Ok(Tuned {
        before,
        after,
        added_slots: changes.iter().map(|c| c.slots).sum(),
        changes,
        simulations: search.simulations,
        function: current,
    })
}

/// Channels to try: the backward steps of the critical cycle (free space that closes it),
/// then the most stalled channels; named as in the untuned circuit, without repeats.
/// Whether channel `c` carries a value that is always on offer: a `source`'s, or one computed
/// (within `depth` steps) from such values alone, as the constants that a source triggers.
/// Such a channel stalls whenever its consumer is busy, which no buffer slot changes: the
/// advisor does not spend candidates on it.
fn always_offered(f: &Function, c: ChannelId, depth: u32) -> bool {
    let node = &f.nodes[f.channels[c].producer.node];
    match node.op {
        Op::Source => true,
        Op::Constant { .. } | Op::Arith(_) | Op::Fork | Op::LazyFork if depth > 0 => {
            !node.inputs.is_empty() && node.inputs.iter().all(|&i| always_offered(f, i, depth - 1))
        }
        _ => false,
    }
}

fn candidates(f: &Function, orig: &Function, a: &super::Analysis, max: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |name: Option<String>| {
        if let Some(n) = name
            && !out.contains(&n)
        {
            out.push(n);
        }
    };
    if let Some(c) = &a.critical {
        for &e in &c.edges {
            let w = &a.model.graph[e];
            if w.dir != super::model::Direction::Backward {
                continue;
            }
            let ch = w
                .channel
                .or_else(|| w.buffer.and_then(|b| f.nodes[b].outputs.first().copied()));
            if let Some(ch) = ch {
                push(original_channel(f, orig, ch));
            }
        }
    }
    let mut stalled: Vec<(u64, ChannelId)> = f
        .channels
        .keys()
        .map(|c| (super::measure::of(&a.activity, c).stalls, c))
        .filter(|&(s, c)| s > 0 && !always_offered(f, c, 4))
        .collect();
    stalled.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
    for (_, c) in stalled {
        push(original_channel(f, orig, c));
    }
    out.truncate(max);
    out
}
