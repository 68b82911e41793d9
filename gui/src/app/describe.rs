//! The side panel's text: the selected node or channel described in words at the cursor.

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
        out.push(format!(
            "so far: {f} transfers, {s} stall cycles, {a} starved cycles"
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
        handscope_sim::Type::Tuple(ts) => format!(
            "tuple<{}>",
            ts.iter().map(type_name).collect::<Vec<_>>().join(", ")
        ),
    }
}

fn describe_node(x: &Ctx<'_>, hc: &mut HistoryCache, n: NodeId) -> Vec<String> {
    let node = &x.f.nodes[n];
    let (_, op) = super::layout::node_label(x.f, n);
    let mut out = vec![format!("node {} : {op}", node.id)];
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
                    "waiting {since} cycles for input {} from {}",
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

/// The deadlock explanation, step by step: the wait-for edges in order, then the analysis text.
pub fn deadlock_steps(d: &DeadlockReport) -> Vec<String> {
    let mut out = vec![format!(
        "Deadlock: no transfer since cycle {}.",
        d.since_cycle
    )];
    for t in &d.stuck {
        let v = t.value.map_or("a token".to_string(), |v| v.to_string());
        out.push(format!(
            "{} holds {v} since cycle {}; {} does not take it.",
            t.channel, t.since, t.consumer
        ));
    }
    for w in &d.waits {
        let why = if w.kind == "stalled" {
            "waits for"
        } else {
            "needs a token from"
        };
        out.push(format!("{} {why} {} on {}.", w.from, w.to, w.channel));
    }
    out.extend(d.explanation.iter().cloned());
    out
}

/// Nodes and channels on the deadlock's wait-for cycles and chains (to highlight).
pub fn deadlock_highlight(f: &Function, d: &DeadlockReport) -> (Vec<NodeId>, Vec<ChannelId>) {
    let mut nodes: Vec<NodeId> = Vec::new();
    for id in d.cycles.iter().chain(&d.chains).flatten() {
        if let Some(n) = f.node_by_id(id)
            && !nodes.contains(&n)
        {
            nodes.push(n);
        }
    }
    let mut chans: Vec<ChannelId> = Vec::new();
    for w in &d.waits {
        if let Some(c) = f.channel_by_name(&w.channel)
            && !chans.contains(&c)
        {
            chans.push(c);
        }
    }
    for t in &d.stuck {
        if let Some(c) = f.channel_by_name(&t.channel)
            && !chans.contains(&c)
        {
            chans.push(c);
        }
    }
    (nodes, chans)
}
