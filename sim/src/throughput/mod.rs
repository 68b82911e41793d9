//! Throughput analysis: how many tokens per cycle each part of a circuit passes, what limits
//! it, and which buffer slots would raise it.
//!
//! * [`analyze`] reads a recorded run ([`Trace`]) of a flat function: per loop, basic block and
//!   reconvergent region ([`regions`]) the measured rate (tokens per cycle, initiation
//!   interval) next to the rate the static model predicts ([`model`]: a timed marked graph
//!   with buffer slots as CIRCT 1.62's RTL holds them, critical cycles by maximum cycle
//!   ratio), and the channels that stall most (`valid & !ready`).
//! * [`tune`] proposes buffer slot additions, verifying each by re-simulation.
//!
//! `docs/throughput.md` explains the model, the measures and the search.

pub mod balance;
pub mod measure;
pub mod model;
pub mod ordering;
pub mod regions;
pub mod tune;

use std::fmt::Write as _;

use serde::Serialize;

use crate::graph::Function;
use crate::trace::Trace;
use measure::Activity;
use model::{CycleRatio, Direction, Model, ModelOptions};
pub use regions::RegionKind;

/// One step of a critical cycle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CycleStep {
    /// The channel (`buffer[slotI→slotJ]` for a link inside a buffer; the node for a turn).
    pub channel: String,
    /// `forward` (a token moving), `backward` (free space moving back) or `turn` (at a node).
    pub direction: Direction,
    /// Cycles the step takes.
    pub latency: u64,
    /// Tokens (forward) or free places (backward) it holds.
    pub tokens: u64,
}

/// A critical cycle and what it predicts.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Prediction {
    /// Sum of latencies around the cycle.
    pub latency: u64,
    /// Sum of tokens around the cycle.
    pub tokens: u64,
    /// Predicted initiation interval: `max(1, latency / tokens)` (`null`: no token, the
    /// cycle cannot move).
    pub ii: Option<f64>,
    /// Predicted tokens per cycle: `min(1, tokens / latency)`.
    pub tokens_per_cycle: f64,
    /// The cycle, step by step.
    pub cycle: Vec<CycleStep>,
}

impl Prediction {
    fn of(model: &Model, f: &Function, c: Option<CycleRatio>) -> Prediction {
        // A cycle that allows a token every cycle limits nothing (a channel's own handshake).
        let c = c.filter(|c| c.latency > c.tokens);
        match c {
            None => Prediction {
                latency: 0,
                tokens: 0,
                ii: Some(1.0),
                tokens_per_cycle: 1.0,
                cycle: Vec::new(),
            },
            Some(c) => Prediction {
                latency: c.latency,
                tokens: c.tokens,
                ii: (c.tokens > 0).then(|| c.ratio().max(1.0)),
                tokens_per_cycle: c.throughput(),
                cycle: c
                    .edges
                    .iter()
                    .map(|&e| {
                        let w = &model.graph[e];
                        CycleStep {
                            channel: model.edge_name(f, e),
                            direction: w.dir,
                            latency: w.latency,
                            tokens: w.tokens,
                        }
                    })
                    .collect(),
            },
        }
    }
}

/// Measured and predicted throughput of one region.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RegionReport {
    /// Loop, block or reconvergent region.
    pub kind: RegionKind,
    /// Name (`loop@<header>`, `bb3`, `<fork>→<join>`).
    pub name: String,
    /// Number of nodes.
    pub nodes: usize,
    /// Source location of its first node that has one (`file:line`).
    pub location: Option<String>,
    /// The channel whose transfers are counted (the busiest of the region's pulse channels).
    pub pulse: Option<String>,
    /// Transfers on that channel.
    pub tokens: u64,
    /// Cycle of its first transfer.
    pub first: Option<u64>,
    /// Cycle of its last transfer.
    pub last: Option<u64>,
    /// Measured initiation interval: mean cycles between transfers over the active span.
    pub measured_ii: Option<f64>,
    /// Measured tokens per cycle (`1 / measured_ii`).
    pub measured_tokens_per_cycle: Option<f64>,
    /// What the model predicts for the region on its own (no cycle when nothing limits it
    /// below one token per cycle).
    pub predicted: Prediction,
}

/// A channel that stalls.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ChannelStall {
    /// Channel name.
    pub channel: String,
    /// Cycles with `valid & !ready`.
    pub stall_cycles: u64,
    /// Cycles with `valid & ready`.
    pub fires: u64,
    /// `stall_cycles / cycles of the run`.
    pub stall_share: f64,
}

/// The throughput report of one run (`handscope throughput`, JSON as it is serialized).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ThroughputReport {
    /// Function name.
    pub function: String,
    /// Cycles recorded.
    pub cycles: u64,
    /// The circuit's critical cycle (the whole model).
    pub critical: Prediction,
    /// Loops, then blocks, then reconvergent regions.
    pub regions: Vec<RegionReport>,
    /// Channels with stalls, most stalled first (ties by name).
    pub stalls: Vec<ChannelStall>,
    /// Cycles lost to memory ordering in each load-store queue (none without queues).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub queues: Vec<ordering::QueueWaits>,
}

/// Per-channel activity and the model of a function, shared by the report and the tuner.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// The static model.
    pub model: Model,
    /// The critical cycle of the whole model.
    pub critical: Option<CycleRatio>,
    /// Activity of every channel, by channel index.
    pub activity: Vec<Activity>,
}

impl Analysis {
    /// Builds the model and reads the trace.
    pub fn new(f: &Function, trace: &Trace) -> Analysis {
        let model = Model::build(f, ModelOptions::default());
        let critical = model::critical_cycle(&model, |_| true);
        Analysis {
            model,
            critical,
            activity: measure::activity(f, trace),
        }
    }
}

/// The throughput report of `f` over `trace` (a run of `f`).
pub fn analyze(f: &Function, trace: &Trace) -> ThroughputReport {
    let a = Analysis::new(f, trace);
    let mut r = report(f, trace.cycles(), &a);
    r.queues = ordering::queue_waits(f, trace);
    r
}

/// The report from an [`Analysis`] of a run of `cycles` cycles.
pub fn report(f: &Function, cycles: u64, a: &Analysis) -> ThroughputReport {
    let regions = regions::regions(f)
        .into_iter()
        .map(|r| {
            let busiest = r
                .pulse
                .iter()
                .copied()
                .max_by_key(|&c| (measure::of(&a.activity, c).fires, std::cmp::Reverse(c)));
            let act = busiest
                .map(|c| measure::of(&a.activity, c))
                .unwrap_or_default();
            let ii = act.interval();
            let crit = model::critical_cycle(&a.model, |v| r.nodes.contains(&v.node));
            let location = r
                .nodes
                .iter()
                .find_map(|&n| f.nodes[n].loc.as_ref())
                .map(|l| format!("{}:{}", l.file, l.line));
            RegionReport {
                kind: r.kind,
                name: r.name,
                nodes: r.nodes.len(),
                location,
                pulse: busiest.map(|c| f.channels[c].name.clone()),
                tokens: act.fires,
                first: act.first,
                last: act.last,
                measured_ii: ii,
                measured_tokens_per_cycle: ii.map(|i| if i > 0.0 { 1.0 / i } else { 1.0 }),
                predicted: Prediction::of(&a.model, f, crit),
            }
        })
        .collect();
    let mut stalls: Vec<ChannelStall> = f
        .channels
        .iter()
        .filter_map(|(c, ch)| {
            let act = measure::of(&a.activity, c);
            (act.stalls > 0).then(|| ChannelStall {
                channel: ch.name.clone(),
                stall_cycles: act.stalls,
                fires: act.fires,
                stall_share: act.stalls as f64 / cycles.max(1) as f64,
            })
        })
        .collect();
    stalls.sort_by(|x, y| {
        y.stall_cycles
            .cmp(&x.stall_cycles)
            .then_with(|| x.channel.cmp(&y.channel))
    });
    ThroughputReport {
        function: f.name.clone(),
        cycles,
        critical: Prediction::of(&a.model, f, a.critical.clone()),
        regions,
        stalls,
        queues: Vec::new(),
    }
}

fn num(x: Option<f64>) -> String {
    match x {
        Some(v) if v.is_finite() => format!("{v:.2}"),
        Some(_) | None => "-".to_string(),
    }
}

/// The cycle as one line: `→a.out0 →b.out0 ⇠c.out1 ↺fork0` (`→` a token moving forward, `⇠`
/// free space moving back, `↺` the path turning at a node that holds a token).
pub fn cycle_text(p: &Prediction) -> String {
    let mut s = String::new();
    for (i, step) in p.cycle.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        let arrow = match step.direction {
            Direction::Forward => "→",
            Direction::Backward => "⇠",
            Direction::Turn => "↺",
        };
        let _ = write!(s, "{arrow}{}", step.channel);
    }
    s
}

/// How many regions the text report lists per kind (JSON lists all).
const TEXT_REGIONS: usize = 12;
/// How many stalled channels the text report lists.
const TEXT_STALLS: usize = 10;

/// The report as text: critical cycle, regions (loops, blocks, the slowest reconvergent
/// regions), most stalled channels.
pub fn render_text(r: &ThroughputReport) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "@{}: {} cycles", r.function, r.cycles);
    let c = &r.critical;
    if c.cycle.is_empty() {
        let _ = writeln!(
            s,
            "critical cycle: none (no cycle limits throughput: 1 token per cycle predicted)"
        );
    } else {
        let _ = writeln!(
            s,
            "critical cycle: latency {} over {} token{} -> II {} ({:.3} tokens/cycle predicted)",
            c.latency,
            c.tokens,
            if c.tokens == 1 { "" } else { "s" },
            num(c.ii),
            c.tokens_per_cycle
        );
        let _ = writeln!(s, "  {}", cycle_text(c));
    }
    for kind in [
        RegionKind::Loop,
        RegionKind::Block,
        RegionKind::Reconvergent,
    ] {
        let mut rs: Vec<&RegionReport> = r.regions.iter().filter(|x| x.kind == kind).collect();
        if rs.is_empty() {
            continue;
        }
        let operators = rs
            .iter()
            .all(|x| crate::stream::operator_line(&x.name).is_some());
        let title = match kind {
            RegionKind::Loop => "loops",
            RegionKind::Block if operators => "stream operators (tokens: elements and ends in)",
            RegionKind::Block => "basic blocks",
            RegionKind::Reconvergent => "reconvergent regions (slowest predicted first)",
        };
        if kind == RegionKind::Reconvergent {
            rs.sort_by(|a, b| {
                a.predicted
                    .tokens_per_cycle
                    .total_cmp(&b.predicted.tokens_per_cycle)
                    .then_with(|| a.name.cmp(&b.name))
            });
        }
        let _ = writeln!(s, "{title}:");
        let _ = writeln!(
            s,
            "  {:<32} {:>5} {:>7} {:>8} {:>9} {:>8} {:>9}  pulse",
            "region", "nodes", "tokens", "II", "tok/cyc", "pred II", "pred t/c"
        );
        for x in rs.iter().take(TEXT_REGIONS) {
            let _ = writeln!(
                s,
                "  {:<32} {:>5} {:>7} {:>8} {:>9} {:>8} {:>9.3}  {}{}",
                x.name,
                x.nodes,
                x.tokens,
                num(x.measured_ii),
                x.measured_tokens_per_cycle
                    .map(|v| format!("{v:.3}"))
                    .unwrap_or_else(|| "-".into()),
                num(x.predicted.ii),
                x.predicted.tokens_per_cycle,
                x.pulse.as_deref().unwrap_or("-"),
                x.location
                    .as_deref()
                    .map(|l| format!(" ({l})"))
                    .unwrap_or_default()
            );
        }
        if rs.len() > TEXT_REGIONS {
            let _ = writeln!(
                s,
                "  ... {} more (--json lists all)",
                rs.len() - TEXT_REGIONS
            );
        }
    }
    if r.stalls.is_empty() {
        let _ = writeln!(s, "stalls: none");
    } else {
        let _ = writeln!(s, "most stalled channels:");
        for x in r.stalls.iter().take(TEXT_STALLS) {
            let _ = writeln!(
                s,
                "  {:<40} {:>7} stall cycles ({:>5.1}% of the run), {} transfers",
                x.channel,
                x.stall_cycles,
                100.0 * x.stall_share,
                x.fires
            );
        }
    }
    for q in &r.queues {
        let _ = match q.kind {
            ordering::QueueKind::LoadStore => writeln!(
                s,
                "memory ordering in {}: loads waited {} entry-cycles (in {} cycles) for older stores to the same or an unknown address; the next store waited {} cycles for older loads; group controls waited {} cycles for free entries",
                q.queue,
                q.load_entry_cycles_blocked,
                q.cycles_with_blocked_loads,
                q.store_cycles_blocked,
                q.group_cycles_waiting
            ),
            ordering::QueueKind::Address => writeln!(
                s,
                "memory ordering in {}: loads waited {} port-cycles (in {} cycles) for queued older stores to their address; stores waited {} cycles for room in the full queue",
                q.queue,
                q.load_entry_cycles_blocked,
                q.cycles_with_blocked_loads,
                q.store_cycles_blocked
            ),
        };
    }
    s
}

#[cfg(test)]
mod tests;
