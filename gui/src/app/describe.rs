//! The side panel's text: the selected node or channel described in words at the cursor.

use std::collections::{BTreeMap, BTreeSet};

use cranelift_entity::EntityRef;
use handscope_sim::deadlock::DeadlockReport;
use handscope_sim::trace::Trace;
use handscope_sim::{ChannelId, Function, NodeId, PortRef};

use super::binding::Binding;
use super::cycle::CycleState;
use super::history::{self, HistoryCache};
use super::style::{ChanState, Radix, format_value};

/// What is selected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Selection {
    /// A node.
    Node(NodeId),
    /// A channel.
    Channel(ChannelId),
}

/// Everything the descriptions read.
pub struct Ctx<'a> {
    /// The function.
    pub f: &'a Function,
    /// The trace.
    pub t: &'a Trace,
    /// Function-to-trace binding.
    pub b: &'a Binding,
    /// The cursor's cycle.
    pub cs: &'a CycleState,
    /// Value format.
    pub radix: Radix,
    /// Deadlock analysis of the run, if it deadlocked.
    pub deadlock: Option<&'a DeadlockReport>,
}

fn producer_name(f: &Function, p: PortRef) -> String {
    let n = &f.nodes[p.node];
    format!("{}.{}", n.id, n.op.output_port_name(p.port as usize))
}

fn consumers(f: &Function, c: ChannelId) -> String {
    let ch = &f.channels[c];
    if ch.consumers.is_empty() {
        return "nobody".into();
    }
    ch.consumers
        .iter()
        .map(|p| f.consumer_name(*p))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One sentence on the state of channel `c` at the cursor ("stalled 14 cycles: waiting for
/// bb3.mux1.in1").
pub fn channel_sentence(x: &Ctx<'_>, hc: &mut HistoryCache, c: ChannelId) -> String {
    let i = c.index();
    let ch = &x.f.channels[c];
    let st = x.cs.chan(i);
    let since = x.b.chan[i]
        .and_then(|ti| history::run_start(hc.get(x.t, ti), x.cs.cycle))
        .map(|(_, s)| s);
    let len = since.map_or(1, |s| x.cs.cycle - s + 1);
    let val = format_value(x.cs.data[i], &ch.ty, x.radix);
    let cyc = |n: u64| {
        if n == 1 {
            "1 cycle".to_string()
        } else {
            format!("{n} cycles")
        }
    };
    match st {
        ChanState::Transfer => format!(
            "transfers {val} from {} to {}",
            producer_name(x.f, ch.producer),
            consumers(x.f, c)
        ),
        ChanState::Stall => format!(
            "stalled {}: {val} waiting for {}",
            cyc(len),
            consumers(x.f, c)
        ),
        ChanState::Accept => format!(
            "starved {}: {} is ready, waiting for {}",
            cyc(len),
            consumers(x.f, c),
            producer_name(x.f, ch.producer)
        ),
        ChanState::Idle => format!("idle {}", cyc(len)),
    }
}

/// The full description of a selection, one paragraph per line.
pub fn describe(x: &Ctx<'_>, hc: &mut HistoryCache, sel: Selection) -> Vec<String> {
    match sel {
        Selection::Channel(c) => describe_channel(x, hc, c),
        Selection::Node(n) => describe_node(x, hc, n),
    }
}

fn describe_channel(x: &Ctx<'_>, hc: &mut HistoryCache, c: ChannelId) -> Vec<String> {
    let ch = &x.f.channels[c];
    let i = c.index();
    let mut out = vec![
        format!("channel {} : {}", ch.name, type_name(&ch.ty)),
        format!(
            "from {} to {}",
            producer_name(x.f, ch.producer),
            consumers(x.f, c)
        ),
        format!(
            "cycle {}: {} (valid={}, ready={})",
            x.cs.cycle,
            x.cs.chan(i).name(),
            u8::from(x.cs.valid[i]),
            u8::from(x.cs.ready[i])
        ),
        channel_sentence(x, hc, c),
    ];
    if let Some(ti) = x.b.chan[i] {
        let [f, s, a] = history::counts(hc.get(x.t, ti), x.cs.cycle);
        let n = |k: u64, one: &str, many: &str| format!("{k} {}", if k == 1 { one } else { many });
        out.push(format!(
            "so far: {}, {}, {}",
            n(f, "transfer", "transfers"),
            n(s, "stall cycle", "stall cycles"),
            n(a, "starved cycle", "starved cycles")
        ));
    }
    if let Some(d) = x.deadlock
        && x.cs.cycle >= d.since_cycle
    {
        for t in d.stuck.iter().filter(|t| t.channel == ch.name) {
            out.push(format!(
                "deadlock: stuck here since cycle {}, waiting for {}",
                t.since, t.consumer
            ));
        }
    }
    out
}

fn type_name(t: &handscope_sim::Type) -> String {
    match t {
        handscope_sim::Type::None => "none".into(),
        handscope_sim::Type::Int(w) => format!("i{w}"),
        handscope_sim::Type::Index => "index".into(),
        handscope_sim::Type::Float(k) => k.name().into(),
        handscope_sim::Type::Tuple(ts) => format!(
            "tuple<{}>",
            ts.iter().map(type_name).collect::<Vec<_>>().join(", ")
        ),
    }
}

fn describe_node(x: &Ctx<'_>, hc: &mut HistoryCache, n: NodeId) -> Vec<String> {
    let node = &x.f.nodes[n];
    let (_, op) = super::layout::node_label(x.f, n);
    let mut out = vec![
        format!("node {} : {op}", node.id),
        super::inspect::sentence(x.f, x.b, x.cs, n, x.radix),
    ];
    let mut place = Vec::new();
    if let Some(b) = &node.block {
        place.push(format!("block {b}"));
    }
    if let Some(l) = &node.loc {
        place.push(format!("source {l}"));
    }
    if !place.is_empty() {
        out.push(place.join(", "));
    }
    let fires = x.cs.fires.get(n.index()).copied().unwrap_or(false);
    out.push(format!(
        "cycle {}: {}",
        x.cs.cycle,
        if fires { "fires" } else { "does not fire" }
    ));
    // Why it waits.
    for &o in &node.outputs {
        if x.cs.chan(o.index()) == ChanState::Stall {
            out.push(format!(
                "output {}: {}",
                x.f.channels[o].name,
                channel_sentence(x, hc, o)
            ));
        }
    }
    let valid_in = node.inputs.iter().filter(|c| x.cs.valid[c.index()]).count();
    if valid_in > 0 && valid_in < node.inputs.len() {
        for (k, &c) in node.inputs.iter().enumerate() {
            if !x.cs.valid[c.index()] {
                let p = x.f.channels[c].producer;
                let since = x.b.chan[c.index()]
                    .and_then(|ti| history::run_start(hc.get(x.t, ti), x.cs.cycle))
                    .map_or(1, |(_, s)| x.cs.cycle - s + 1);
                out.push(format!(
                    "waiting {since} cycle{} for input {} from {}",
                    if since == 1 { "" } else { "s" },
                    node.op.input_port_name(k),
                    producer_name(x.f, p)
                ));
            }
        }
    }
    for (k, &c) in node.inputs.iter().enumerate() {
        out.push(format!(
            "in  {:<8} {:<9} {}",
            node.op.input_port_name(k),
            x.cs.chan(c.index()).name(),
            if x.cs.valid[c.index()] {
                format_value(x.cs.data[c.index()], &x.f.channels[c].ty, x.radix)
            } else {
                String::new()
            }
        ));
    }
    for (k, &c) in node.outputs.iter().enumerate() {
        out.push(format!(
            "out {:<8} {:<9} {}",
            node.op.output_port_name(k),
            x.cs.chan(c.index()).name(),
            if x.cs.valid[c.index()] {
                format_value(x.cs.data[c.index()], &x.f.channels[c].ty, x.radix)
            } else {
                String::new()
            }
        ));
    }
    if let Some((words, _)) = x.cs.node_words(x.b, n.index())
        && let handscope_sim::spec::NodeState::Pipeline(p) = node.op.spec().state.decode(words)
    {
        let ty = node
            .outputs
            .first()
            .map_or(handscope_sim::Type::None, |&o| x.f.channels[o].ty.clone());
        out.push(format!(
            "in flight: {} of {} stages{}",
            p.occupancy(),
            p.latency(),
            if p.cooldown > 0 {
                format!(", next token in {} cycles", p.cooldown)
            } else {
                String::new()
            }
        ));
        for t in p.in_flight() {
            out.push(format!(
                "  stage {:<3} {:<12} {}",
                t.stage,
                format_value(t.value, &ty, x.radix),
                match t.remaining {
                    0 => "offered now".to_string(),
                    1 => "out in 1 cycle".to_string(),
                    r => format!("out in {r} cycles"),
                }
            ));
        }
    }
    if let Some((words, names)) = x.cs.node_words(x.b, n.index()) {
        let st: Vec<String> = names
            .iter()
            .zip(words)
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        out.push(format!("state: {}", st.join(" ")));
    }
    if let Some(d) = x.deadlock
        && x.cs.cycle >= d.since_cycle
    {
        for w in d.waits.iter().filter(|w| w.from == node.id) {
            let why = if w.kind == "stalled" {
                "cannot hand its output to"
            } else {
                "needs a token from"
            };
            out.push(format!(
                "deadlock: {} {why} {} (channel {})",
                w.from, w.to, w.channel
            ));
        }
        if d.cycles.iter().any(|c| c.contains(&node.id)) {
            out.push("deadlock: this node is on a wait-for cycle".into());
        }
    }
    out
}

/// One numbered step of the deadlock explanation.
#[derive(Clone, Debug, PartialEq)]
pub struct DeadlockStep {
    /// Step number, counted across the whole explanation from 1.
    pub number: usize,
    /// The waiting node.
    pub node: Option<NodeId>,
    /// Its stable ID.
    pub node_id: String,
    /// The node it waits for.
    pub waits_for: Option<NodeId>,
    /// The channel it waits on.
    pub channel: Option<ChannelId>,
    /// Its name.
    pub channel_name: String,
    /// Source line of the waiting node (1-based), if known.
    pub line: Option<u32>,
    /// The step in words, without the waiting node's ID it starts with (`holds a token ...`,
    /// `waits for ...`).
    pub text: String,
}

/// A wait-for cycle or a wait chain of the deadlock explanation.
#[derive(Clone, Debug, PartialEq)]
pub struct DeadlockSection {
    /// True for a wait-for cycle.
    pub cyclic: bool,
    /// Heading (`Wait-for cycle: fork0 -> join0 -> fork0`).
    pub title: String,
    /// The steps in wait order.
    pub steps: Vec<DeadlockStep>,
    /// For a chain: why its last node never produces.
    pub terminal: Option<String>,
}

/// The deadlock view's content: what is missing, the root cause when one is known, then every
/// wait-for cycle and chain as numbered steps.
#[derive(Clone, Debug, PartialEq)]
pub struct DeadlockExplanation {
    /// First sentence: since when nothing moves and what is missing.
    pub headline: String,
    /// The root cause (a `cond_br` that sent its token the other way, an argument without
    /// tokens, ...), if the analysis found one.
    pub root_cause: Option<String>,
    /// Cycles first, then chains.
    pub sections: Vec<DeadlockSection>,
}

/// Builds the deadlock view's content from the analysis `d` of a run of `f`.
pub fn deadlock_explanation(f: &Function, d: &DeadlockReport) -> DeadlockExplanation {
    let mut headline = format!("Deadlock: no transfer since cycle {}.", d.since_cycle);
    if !d.missing_results.is_empty() {
        let m: Vec<String> = d
            .missing_results
            .iter()
            .map(|(r, n)| format!("{r} ({n})"))
            .collect();
        headline.push_str(&format!(" Results still missing: {}.", m.join(", ")));
    }
    if d.stuck.is_empty() {
        headline.push_str(" No token is left inside the circuit.");
    }
    // The analysis ranks the causes (an argument that ran out of tokens first).
    let mut root_cause = d.causes.first().cloned();
    if root_cause.is_none() {
        root_cause = d.paths.iter().find_map(|p| p.terminal.clone());
    }
    if root_cause.is_none() && d.paths.iter().any(|p| p.cyclic) {
        root_cause = Some(
            "every node on the wait-for cycle waits for the next one, so no token can move \
             (a loop without its initial token, or a buffer too small for the tokens in flight)"
                .into(),
        );
    }
    let mut number = 0;
    let mut sections = Vec::new();
    for p in &d.paths {
        let steps: Vec<DeadlockStep> = p
            .steps
            .iter()
            .map(|s| {
                number += 1;
                let node = f.node_by_id(&s.from);
                DeadlockStep {
                    number,
                    node,
                    node_id: s.from.clone(),
                    waits_for: f.node_by_id(&s.to),
                    channel: f.channel_by_name(&s.channel),
                    channel_name: s.channel.clone(),
                    line: node.and_then(|n| f.nodes[n].loc.as_ref().map(|l| l.line)),
                    text: format!(
                        "{}.",
                        s.text
                            .strip_prefix(s.from.as_str())
                            .map_or(s.text.as_str(), str::trim_start)
                    ),
                }
            })
            .collect();
        let mut ids: Vec<&str> = p.steps.iter().map(|s| s.from.as_str()).collect();
        if let Some(last) = p.steps.last() {
            ids.push(&last.to);
        }
        let title = if p.cyclic {
            format!("Wait-for cycle: {}", ids.join(" -> "))
        } else if p.terminal.is_none() {
            format!("Wait chain: {} (then as explained above)", ids.join(" -> "))
        } else {
            format!("Wait chain: {}", ids.join(" -> "))
        };
        sections.push(DeadlockSection {
            cyclic: p.cyclic,
            title,
            steps,
            terminal: p.terminal.clone(),
        });
    }
    DeadlockExplanation {
        headline,
        root_cause,
        sections,
    }
}

/// What the graph marks for a deadlock: the wait-for cycles stand out from the chains.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeadlockMarks {
    /// Nodes on a wait-for cycle.
    pub cycle_nodes: Vec<NodeId>,
    /// Channels between consecutive nodes of a wait-for cycle.
    pub cycle_channels: Vec<ChannelId>,
    /// Nodes on a wait chain (and not on a cycle).
    pub chain_nodes: Vec<NodeId>,
    /// Channels of a wait chain (and not of a cycle).
    pub chain_channels: Vec<ChannelId>,
    /// Step numbers drawn on the waiting nodes (`"3"`, `"3,7"`).
    pub badges: Vec<(NodeId, String)>,
}

/// The graph marks of the explanation `x`.
pub fn deadlock_marks(x: &DeadlockExplanation) -> DeadlockMarks {
    // Lists in first-seen order, with sets for the membership tests (searching the lists
    // was quadratic in the size of a large deadlock).
    fn add<T: Ord + Copy>(v: &mut Vec<T>, seen: &mut BTreeSet<T>, t: T) {
        if seen.insert(t) {
            v.push(t);
        }
    }
    let mut m = DeadlockMarks::default();
    let (mut cycle_n, mut chain_n) = (BTreeSet::new(), BTreeSet::new());
    let (mut cycle_c, mut chain_c) = (BTreeSet::new(), BTreeSet::new());
    let mut badges: Vec<(NodeId, Vec<usize>)> = Vec::new();
    let mut badge_of: BTreeMap<NodeId, usize> = BTreeMap::new();
    for cyclic in [true, false] {
        for sec in x.sections.iter().filter(|s| s.cyclic == cyclic) {
            for st in &sec.steps {
                let Some(n) = st.node else { continue };
                for k in std::iter::once(n).chain(st.waits_for) {
                    if cyclic {
                        add(&mut m.cycle_nodes, &mut cycle_n, k);
                    } else if !cycle_n.contains(&k) {
                        add(&mut m.chain_nodes, &mut chain_n, k);
                    }
                }
                if let Some(c) = st.channel {
                    if cyclic {
                        add(&mut m.cycle_channels, &mut cycle_c, c);
                    } else if !cycle_c.contains(&c) {
                        add(&mut m.chain_channels, &mut chain_c, c);
                    }
                }
                match badge_of.get(&n) {
                    Some(&i) => badges[i].1.push(st.number),
                    None => {
                        badge_of.insert(n, badges.len());
                        badges.push((n, vec![st.number]));
                    }
                }
            }
        }
    }
    m.badges = badges
        .into_iter()
        .map(|(n, v)| {
            let shown: Vec<String> = v.iter().take(3).map(usize::to_string).collect();
            let more = if v.len() > 3 { ",…" } else { "" };
            (n, format!("{}{more}", shown.join(",")))
        })
        .collect();
    m
}
