//! Deadlock analysis: which tokens are stuck, and the chain or cycle of waits that explains
//! why.
//!
//! The wait-for graph has one vertex per node. A node *waits for* the consumer of each of its
//! stalled outputs (`valid & !ready`), and for the producer of each input it needs that is
//! not valid (per kind: all inputs of a join-like node, the selected input or the select of a
//! `mux`, any input of a merge, the input of a fork or an empty buffer, ...). The graph is
//! explored from the producers of stalled channels and from the `return` node when results
//! are missing. Strongly connected parts are reported as wait-for cycles; other paths are
//! followed to a node that can never produce (an argument without tokens, `never`, a
//! `cond_br` that routed its tokens elsewhere, ...).

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::Write as _;

use cranelift_entity::EntityRef;
use petgraph::graph::{DiGraph, NodeIndex};
use serde::Serialize;

use crate::graph::{ChannelId, Function, NodeId};
use crate::ops::Op;
use crate::report::{Value, render_value};
use crate::spec::{WaitRule, mux_input};

/// A token that cannot move.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StuckToken {
    /// Channel name.
    pub channel: String,
    /// Stable ID of the producer.
    pub producer: String,
    /// Consumer port (`mux4.in1`).
    pub consumer: String,
    /// Value (`null` for `none`).
    pub value: Option<Value>,
    /// First cycle in which this token was on the channel.
    pub since: u64,
    /// Source location of the producer, if known.
    pub loc: Option<String>,
}

/// One edge of the wait-for graph.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WaitFor {
    /// The waiting node.
    pub from: String,
    /// The node it waits for.
    pub to: String,
    /// The channel between them.
    pub channel: String,
    /// `stalled` (an output of `from` is not accepted) or `needs` (an input is missing).
    pub kind: &'static str,
}

/// One step of a wait-for cycle or chain: a node and what it waits for.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WaitStep {
    /// The waiting node.
    pub from: String,
    /// The node it waits for.
    pub to: String,
    /// The channel between them.
    pub channel: String,
    /// `stalled` (`from` holds a token `to` does not accept) or `needs` (`from` needs a token
    /// `to` does not provide).
    pub kind: &'static str,
    /// The step in words.
    pub text: String,
    /// Why `to` will never provide the token, when that is known at this step (a `cond_br`
    /// that routed its token to its other output): the usual root cause of a deadlock.
    pub because: Option<String>,
    /// Source location of the waiting node, if known.
    pub loc: Option<String>,
}

/// A wait-for cycle or a wait chain, step by step in wait order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WaitPath {
    /// True for a wait-for cycle (the last step waits for the first node), false for a chain.
    pub cyclic: bool,
    /// The steps.
    pub steps: Vec<WaitStep>,
    /// For a chain: why its last node cannot produce (`None` when it ends on a cycle).
    pub terminal: Option<String>,
}

/// The result of the analysis.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DeadlockReport {
    /// First cycle without any transfer.
    pub since_cycle: u64,
    /// Every stuck token.
    pub stuck: Vec<StuckToken>,
    /// Explored wait-for edges.
    pub waits: Vec<WaitFor>,
    /// Wait-for cycles, as node IDs in wait order.
    pub cycles: Vec<Vec<String>>,
    /// Wait chains ending at a node that cannot produce, as node IDs.
    pub chains: Vec<Vec<String>>,
    /// The cycles, then the chains, as explained steps (same order as `cycles` and `chains`).
    pub paths: Vec<WaitPath>,
    /// Missing tokens per result.
    pub missing_results: BTreeMap<String, u64>,
    /// Tokens not yet consumed per argument.
    pub pending_inputs: BTreeMap<String, u64>,
    /// The explanation in words, one sentence per line.
    pub explanation: Vec<String>,
}

/// Live engine state handed to [`analyze`].
pub struct LiveView<'a> {
    /// The function.
    pub func: &'a Function,
    /// Settled valid per channel.
    pub valid: &'a [bool],
    /// Settled ready per channel.
    pub ready: &'a [bool],
    /// Settled data per channel.
    pub data: &'a [u64],
    /// Last cycle each `cond_br` output fired (-1 = never or not tracked).
    pub last_fire: &'a [i64],
    /// Last cycle each channel was not holding a waiting token (`!valid | ready`), -1 = never.
    pub last_break: &'a [i64],
    /// Transfers per channel.
    pub fires: &'a [u64],
    /// Tokens not yet consumed, per argument index.
    pub pending_args: Vec<(usize, u64)>,
    /// Tokens still missing, per result index.
    pub missing_results: Vec<(usize, u64)>,
    /// Register words of a node.
    pub registers: &'a dyn Fn(NodeId) -> (&'a [u64], &'a [String]),
    /// First cycle of the idle period.
    pub idle_since: u64,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Stalled,
    Needs,
}

impl LiveView<'_> {
    fn v(&self, c: ChannelId) -> bool {
        self.valid[c.index()]
    }

    fn stalled(&self, c: ChannelId) -> bool {
        self.valid[c.index()] && !self.ready[c.index()]
    }

    fn since(&self, c: ChannelId) -> u64 {
        (self.last_break[c.index()] + 1) as u64
    }

    fn value(&self, c: ChannelId) -> Option<Value> {
        render_value(self.data[c.index()], &self.func.channels[c].ty)
    }

    fn value_text(&self, c: ChannelId) -> String {
        let p = self.func.channels[c].producer.node;
        let port = match self.func.nodes[p].op {
            Op::Argument { .. } => self.func.nodes[p].id.clone(),
            _ => self.port_of_producer(c),
        };
        match self.value(c) {
            Some(v) => format!("{port}={v}"),
            None => format!("a token on {port}"),
        }
    }

    /// True when `n` is a `cond_br` without input tokens whose other output took the tokens
    /// that `asked` is waiting for.
    fn routed_elsewhere(&self, n: NodeId, asked: Option<ChannelId>) -> bool {
        let node = &self.func.nodes[n];
        let Some(c) = asked else { return false };
        if node.op != Op::CondBr || node.inputs.iter().all(|&i| self.v(i)) {
            return false;
        }
        let other = if c == node.outputs[0] {
            node.outputs[1]
        } else {
            node.outputs[0]
        };
        self.last_fire[other.index()] > self.last_fire[c.index()]
    }

    fn port_of_producer(&self, c: ChannelId) -> String {
        let p = self.func.channels[c].producer;
        self.func.nodes[p.node].op.output_port_name(p.port as usize)
    }

    fn consumer(&self, c: ChannelId) -> Option<NodeId> {
        self.func.channels[c].consumers.first().map(|p| p.node)
    }

    fn consumer_port(&self, c: ChannelId) -> String {
        match self.func.channels[c].consumers.first() {
            Some(&p) => self.func.consumer_name(p),
            None => "nobody".into(),
        }
    }

    fn id(&self, n: NodeId) -> &str {
        &self.func.nodes[n].id
    }

    /// The inputs node `n` needs and does not have, by its op's [`WaitRule`].
    fn needed_inputs(&self, n: NodeId) -> Vec<ChannelId> {
        let node = &self.func.nodes[n];
        let missing = |cs: &[ChannelId]| cs.iter().copied().filter(|&c| !self.v(c)).collect();
        match node.op.spec().waits_for {
            WaitRule::Nothing => Vec::new(),
            WaitRule::AllInputs => missing(&node.inputs),
            WaitRule::SelectedInput => {
                let sel = node.inputs[0];
                if !self.v(sel) {
                    return vec![sel];
                }
                let k = mux_input(self.data[sel.index()], node.inputs.len() - 1);
                match k.and_then(|k| node.inputs.get(k + 1)) {
                    Some(&c) if !self.v(c) => vec![c],
                    _ => Vec::new(),
                }
            }
            WaitRule::AnyInput => {
                if node.inputs.iter().any(|&c| self.v(c)) {
                    Vec::new()
                } else {
                    node.inputs.clone()
                }
            }
            WaitRule::InputWhenEmpty => {
                let (regs, _) = (self.registers)(n);
                if node.op.spec().state.decode(regs).is_empty_buffer() {
                    missing(&node.inputs)
                } else {
                    Vec::new()
                }
            }
        }
    }

    /// Why a node that is waited for produces nothing and waits for nobody.
    fn terminal_reason(&self, n: NodeId, asked: Option<ChannelId>) -> String {
        let node = &self.func.nodes[n];
        let id = self.id(n);
        match &node.op {
            Op::Argument { index } => {
                let pending = self
                    .pending_args
                    .iter()
                    .find(|(a, _)| a == index)
                    .map_or(0, |(_, p)| *p);
                if pending == 0 {
                    format!("argument `{id}` has no more tokens")
                } else {
                    format!("argument `{id}` still has {pending} tokens but they are not accepted")
                }
            }
            Op::Never => format!("{id} never produces a token"),
            Op::Mux
                if self.v(node.inputs[0])
                    && mux_input(self.data[node.inputs[0].index()], node.inputs.len() - 1)
                        .is_none() =>
            {
                format!(
                    "{id}'s select {} names no data input: only its low {} bits count, so it takes nothing",
                    self.value_text(node.inputs[0]),
                    crate::spec::mux_select_bits(node.inputs.len() - 1)
                )
            }
            Op::CondBr => {
                let (t, f) = (node.outputs[0], node.outputs[1]);
                let other = match asked {
                    Some(c) if c == t => f,
                    _ => t,
                };
                let lf = self.last_fire[other.index()];
                if lf >= 0 {
                    format!(
                        "{id} sent its token to {} (last at cycle {lf}, {} token{} in total)",
                        self.port_of_producer(other),
                        self.fires[other.index()],
                        if self.fires[other.index()] == 1 {
                            ""
                        } else {
                            "s"
                        }
                    )
                } else {
                    format!("{id} has no input token")
                }
            }
            Op::Fork | Op::Sync | Op::Unpack => match asked {
                Some(c) if !self.v(c) && node.inputs.iter().all(|&i| self.v(i)) => format!(
                    "{id} already delivered its token on {} and waits for its other outputs",
                    self.port_of_producer(c)
                ),
                _ => format!("{id} has no input token"),
            },
            Op::Buffer { .. } | Op::Pipeline { .. } => {
                format!("{id} is empty and receives nothing")
            }
            Op::Return
            | Op::LazyFork
            | Op::Merge
            | Op::Mux
            | Op::ControlMerge
            | Op::Br
            | Op::Join
            | Op::Pack
            | Op::Constant { .. }
            | Op::Source
            | Op::Sink
            | Op::Load
            | Op::Store
            | Op::Memory { .. }
            | Op::ExtMemory { .. }
            | Op::Instance { .. }
            | Op::Arith(_) => format!("{id} produces nothing"),
        }
    }
}

/// Builds the wait-for graph from the live state and explains the deadlock.
pub fn analyze(v: &LiveView<'_>) -> DeadlockReport {
    let f = v.func;
    let mut stuck = Vec::new();
    let mut seeds = Vec::new();
    for (cid, ch) in f.channels.iter() {
        if v.valid[cid.index()] {
            let prod = ch.producer.node;
            stuck.push(StuckToken {
                channel: ch.name.clone(),
                producer: f.nodes[prod].id.clone(),
                consumer: v.consumer_port(cid),
                value: v.value(cid),
                since: v.since(cid),
                loc: f.nodes[prod].loc.as_ref().map(|l| l.to_string()),
            });
            if v.stalled(cid) {
                seeds.push(prod);
            }
        }
    }
    let mut missing_results = BTreeMap::new();
    for &(i, m) in &v.missing_results {
        if m > 0 {
            missing_results.insert(f.results[i].name.clone(), m);
        }
    }
    let mut pending_inputs = BTreeMap::new();
    for &(i, p) in &v.pending_args {
        if p > 0 {
            pending_inputs.insert(f.args[i].name.clone(), p);
        }
    }
    let ret = f.return_node();
    if let (false, Some(r)) = (missing_results.is_empty(), ret) {
        seeds.insert(0, r);
    }

    // Explore the wait-for graph.
    let mut g: DiGraph<NodeId, (ChannelId, u8)> = DiGraph::new();
    let mut index: BTreeMap<NodeId, NodeIndex> = BTreeMap::new();
    let mut queue: VecDeque<NodeId> = VecDeque::new();
    let mut vertex = |g: &mut DiGraph<NodeId, (ChannelId, u8)>,
                      q: &mut VecDeque<NodeId>,
                      n: NodeId|
     -> NodeIndex {
        *index.entry(n).or_insert_with(|| {
            q.push_back(n);
            g.add_node(n)
        })
    };
    for &s in &seeds {
        vertex(&mut g, &mut queue, s);
    }
    let mut waits = Vec::new();
    while let Some(n) = queue.pop_front() {
        let from = vertex(&mut g, &mut queue, n);
        let node = &f.nodes[n];
        let mut edges: Vec<(NodeId, ChannelId, Kind)> = Vec::new();
        for &c in &node.outputs {
            if let (true, Some(cons)) = (v.stalled(c), v.consumer(c))
                && Some(cons) != ret
            {
                edges.push((cons, c, Kind::Stalled));
            }
        }
        let needs: Vec<ChannelId> = if Some(n) == ret {
            let mut missing = Vec::new();
            for &(i, m) in &v.missing_results {
                if m > 0 && !v.v(node.inputs[i]) {
                    missing.push(node.inputs[i]);
                }
            }
            missing
        } else {
            v.needed_inputs(n)
        };
        for c in needs {
            edges.push((f.channels[c].producer.node, c, Kind::Needs));
        }
        for (to, c, k) in edges {
            let ti = vertex(&mut g, &mut queue, to);
            g.add_edge(from, ti, (c, k as u8));
            waits.push(WaitFor {
                from: f.nodes[n].id.clone(),
                to: f.nodes[to].id.clone(),
                channel: f.channels[c].name.clone(),
                kind: if k == Kind::Stalled {
                    "stalled"
                } else {
                    "needs"
                },
            });
        }
    }

    // A cond_br that routed its tokens the other way is the usual root cause: say so even
    // when the cond_br is itself part of a wait-for cycle.
    let routed_reason = |c: ChannelId| -> Option<String> {
        let p = f.channels[c].producer.node;
        match f.nodes[p].op {
            Op::CondBr
                if f.nodes[p]
                    .outputs
                    .iter()
                    .any(|&o| o != c && v.last_fire[o.index()] >= 0) =>
            {
                Some(v.terminal_reason(p, Some(c)))
            }
            _ => None,
        }
    };
    // One wait-for edge as a step, with its sentence.
    let step = |from: NodeId, to: NodeId, c: ChannelId, k: u8| -> WaitStep {
        let fid = v.id(from);
        let stalled = k == Kind::Stalled as u8;
        let because = if stalled { None } else { routed_reason(c) };
        let text = if stalled {
            format!(
                "{fid} holds {} since cycle {} and waits for {} to accept it",
                v.value_text(c),
                v.since(c),
                v.consumer_port(c)
            )
        } else {
            let why = because
                .as_ref()
                .map_or(String::new(), |r| format!(", because {r}"));
            format!(
                "{fid} waits for {} ({}), which {} does not provide{why}",
                v.consumer_port(c),
                f.channels[c].name,
                v.id(f.channels[c].producer.node)
            )
        };
        WaitStep {
            from: fid.to_string(),
            to: v.id(to).to_string(),
            channel: f.channels[c].name.clone(),
            kind: if stalled { "stalled" } else { "needs" },
            text,
            because,
            loc: f.nodes[from].loc.as_ref().map(|l| l.to_string()),
        }
    };
    let sentence_of = |steps: &[WaitStep]| -> String {
        steps
            .iter()
            .map(|s| s.text.as_str())
            .collect::<Vec<_>>()
            .join("; ")
    };
    let mut paths = Vec::new();

    let mut explanation = Vec::new();
    if !missing_results.is_empty() {
        let m: Vec<String> = missing_results
            .iter()
            .map(|(r, n)| format!("{r} ({n} missing)"))
            .collect();
        explanation.push(format!(
            "No transfer since cycle {}; results not complete: {}.",
            v.idle_since,
            m.join(", ")
        ));
    }
    if stuck.is_empty() {
        explanation.push("No token is left inside the circuit.".into());
    }

    // Cycles.
    let mut cycles = Vec::new();
    let mut in_cycle: BTreeSet<NodeIndex> = BTreeSet::new();
    for scc in crate::scc::tarjan_scc(&g) {
        let cyclic = scc.len() > 1 || g.contains_edge(scc[0], scc[0]);
        if !cyclic {
            continue;
        }
        let members: BTreeSet<NodeIndex> = scc.iter().copied().collect();
        in_cycle.extend(members.iter().copied());
        // Walk the cycle from its smallest node along edges inside the SCC.
        let start = *members.iter().min_by_key(|i| g[**i]).expect("non-empty");
        let mut path = vec![start];
        let mut seen = BTreeSet::from([start]);
        let mut steps = Vec::new();
        let mut cur = start;
        loop {
            let next = g
                .edges(cur)
                .filter(|e| members.contains(&petgraph::visit::EdgeRef::target(e)))
                .min_by_key(|e| {
                    (
                        seen.contains(&petgraph::visit::EdgeRef::target(e)),
                        g[petgraph::visit::EdgeRef::target(e)],
                    )
                });
            let Some(e) = next else { break };
            let t = petgraph::visit::EdgeRef::target(&e);
            let (c, k) = *e.weight();
            steps.push(step(g[cur], g[t], c, k));
            if seen.contains(&t) {
                break;
            }
            seen.insert(t);
            path.push(t);
            cur = t;
        }
        let ids: Vec<String> = path.iter().map(|&i| v.id(g[i]).to_string()).collect();
        explanation.push(format!(
            "Wait-for cycle {}: {}.",
            ids.join(" -> "),
            sentence_of(&steps)
        ));
        cycles.push(ids);
        paths.push(WaitPath {
            cyclic: true,
            steps,
            terminal: None,
        });
    }

    // Chains from the seeds to nodes that cannot produce.
    let mut chains = Vec::new();
    let mut explained: BTreeSet<NodeIndex> = BTreeSet::new();
    for &s in &seeds {
        let si = index[&s];
        if explained.contains(&si) {
            continue;
        }
        let mut path = vec![si];
        let mut steps = Vec::new();
        let mut cur = si;
        let mut asked = None;
        let mut seen = BTreeSet::from([si]);
        let terminal = loop {
            explained.insert(cur);
            if v.routed_elsewhere(g[cur], asked) {
                break Some(v.terminal_reason(g[cur], asked));
            }
            let next = g
                .edges(cur)
                .map(|e| (petgraph::visit::EdgeRef::target(&e), *e.weight()))
                .min_by_key(|(t, _)| (seen.contains(t), in_cycle.contains(t), g[*t]));
            match next {
                None => break Some(v.terminal_reason(g[cur], asked)),
                Some((t, (c, k))) => {
                    steps.push(step(g[cur], g[t], c, k));
                    if seen.contains(&t) || in_cycle.contains(&t) {
                        path.push(t);
                        break None;
                    }
                    seen.insert(t);
                    path.push(t);
                    asked = Some(c);
                    cur = t;
                }
            }
        };
        if path.len() == 1 && terminal.is_none() {
            continue;
        }
        let ids: Vec<String> = path.iter().map(|&i| v.id(g[i]).to_string()).collect();
        let mut sentence = sentence_of(&steps);
        match &terminal {
            Some(t) if !steps.is_empty() => {
                let _ = write!(sentence, ", because {t}");
            }
            Some(t) => sentence.clone_from(t),
            None => {
                let _ = write!(sentence, " (which is part of a wait-for cycle)");
            }
        }
        explanation.push(format!("{sentence}."));
        paths.push(WaitPath {
            cyclic: false,
            steps,
            terminal,
        });
        chains.push(ids);
    }
    if !pending_inputs.is_empty() {
        let p: Vec<String> = pending_inputs
            .iter()
            .map(|(a, n)| format!("{a} ({n})"))
            .collect();
        explanation.push(format!(
            "Arguments with tokens not yet consumed: {}.",
            p.join(", ")
        ));
    }

    DeadlockReport {
        since_cycle: v.idle_since,
        stuck,
        waits,
        cycles,
        chains,
        paths,
        missing_results,
        pending_inputs,
        explanation,
    }
}

/// Renders a report in words for terminals.
pub fn render(d: &DeadlockReport) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "deadlock: no transfer since cycle {}", d.since_cycle);
    for t in &d.stuck {
        let val = t.value.map_or("token".to_string(), |v| v.to_string());
        let loc = t.loc.as_ref().map_or(String::new(), |l| format!(" [{l}]"));
        let _ = writeln!(
            s,
            "  stuck: {} = {val} since cycle {} -> {}{loc}",
            t.channel, t.since, t.consumer
        );
    }
    for e in &d.explanation {
        let _ = writeln!(s, "  {e}");
    }
    s
}

/// The number of cycles without any transfer after which a run counts as deadlocked: the
/// requested window, but never less than a buffer chain needs to drain without a channel
/// firing (`2 × the largest buffer's slot count + 4`) or a pipeline needs to move a token to
/// its output (`latency + ii + 4`). The engine, trace analysis and the
/// generated Verilator testbench all use this.
pub fn effective_window(requested: u64, f: &crate::Function) -> u64 {
    let max_slots = f
        .nodes
        .values()
        .filter_map(|n| match n.op {
            crate::Op::Buffer { slots, .. } => Some(slots),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    // A pipeline moves a token between its stages without any transfer for up to its latency
    // (and its initiation interval) cycles: that is no deadlock either.
    let max_pipe = f
        .nodes
        .values()
        .filter_map(|n| match n.op {
            crate::Op::Pipeline { latency, ii } => Some(u64::from(latency) + u64::from(ii)),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    requested
        .max(1)
        .max(2 * u64::from(max_slots) + 4)
        .max(max_pipe + 4)
}
