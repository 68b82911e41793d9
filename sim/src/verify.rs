//! Structural verification of handshake graphs.
//!
//! [`verify`] checks one [`Function`]: every channel has exactly one producer and exactly one
//! consumer, every node has the right number and types of ports for its op, and no
//! combinational cycle exists (see [`comb`] for how combinational paths are modelled).
//! [`verify_module`] additionally checks `instance` nodes against their callees and rejects
//! missing callees and recursive instances.
//!
//! Problems are reported, never panicked on: each [`Problem`] names its [`Rule`], a message, and
//! the stable IDs, channel names and source locations of the nodes involved, so a front end
//! can print `file:line:col` diagnostics.

pub mod comb;
mod ports;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use crate::graph::{Function, Module, NodeId};
use crate::location::SourceLoc;
use crate::ops::Op;

/// Which rule a [`Problem`] breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    /// Producer/consumer records of a channel and a node's port lists disagree.
    Structure,
    /// A value has no consumer (it needs a `sink`).
    UnusedValue,
    /// A value has more than one consumer (it needs a `fork`).
    MultipleUses,
    /// A node has the wrong number of input or output ports for its op.
    PortCount,
    /// A port has the wrong type for its op.
    TypeMismatch,
    /// An op attribute is invalid (buffer slots/init values, constant value, memref argument).
    Attribute,
    /// The function has no `return`, or more than one.
    Return,
    /// An `instance` calls a function the module does not define.
    MissingCallee,
    /// Instances call each other recursively.
    RecursiveInstance,
    /// A cycle of combinational paths with no register on it.
    CombinationalCycle,
    /// Warning: a `mux` select can take a value outside `0..N` (a constant, or an `i1`
    /// sign-extended to -1); only its low `ceil(log2 N)` bits count.
    SelectRange,
    /// The graph exceeds a size limit of the simulator (see [`crate::limits`]).
    Limit,
    /// Warning: CIRCT 1.62's `lower-handshake-to-hw` cannot lower this.
    CirctUnsupported,
    /// Warning (only with [`VerifyOptions::circt_compat`]): CIRCT 1.62's RTL is known to be
    /// wrong for this; a differential test against it will disagree.
    CirctBug,
}

impl Rule {
    /// Short kebab-case code for diagnostics (`unused-value`).
    pub fn code(self) -> &'static str {
        match self {
            Rule::Structure => "structure",
            Rule::UnusedValue => "unused-value",
            Rule::MultipleUses => "multiple-uses",
            Rule::PortCount => "port-count",
            Rule::TypeMismatch => "type-mismatch",
            Rule::Attribute => "attribute",
            Rule::Return => "return",
            Rule::MissingCallee => "missing-callee",
            Rule::RecursiveInstance => "recursive-instance",
            Rule::CombinationalCycle => "combinational-cycle",
            Rule::SelectRange => "select-range",
            Rule::Limit => "limit",
            Rule::CirctUnsupported => "circt-unsupported",
            Rule::CirctBug => "circt-bug",
        }
    }
}

/// A node involved in a problem: its stable ID and source location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeRef {
    /// Stable ID of the node.
    pub id: String,
    /// Source location, if known.
    pub loc: Option<SourceLoc>,
}

/// One verification finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The rule broken.
    pub rule: Rule,
    /// Name of the function the problem is in.
    pub function: String,
    /// Human-readable description.
    pub message: String,
    /// Nodes involved, most relevant first (for cycles: in cycle order).
    pub nodes: Vec<NodeRef>,
    /// Names of the channels involved.
    pub channels: Vec<String>,
}

impl Problem {
    /// Location of the first involved node that has one.
    pub fn loc(&self) -> Option<&SourceLoc> {
        self.nodes.iter().find_map(|n| n.loc.as_ref())
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(loc) = self.loc() {
            write!(f, "{loc}: ")?;
        }
        write!(
            f,
            "[{}] @{}: {}",
            self.rule.code(),
            self.function,
            self.message
        )
    }
}

/// Everything [`verify`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VerifyReport {
    /// Problems that make the graph invalid.
    pub errors: Vec<Problem>,
    /// Problems worth knowing about that do not make the graph invalid.
    pub warnings: Vec<Problem>,
}

impl VerifyReport {
    /// True when there are no errors.
    pub fn is_ok(&self) -> bool {
        self.errors.is_empty()
    }

    /// Errors with the given rule.
    pub fn errors_of(&self, rule: Rule) -> impl Iterator<Item = &Problem> {
        self.errors.iter().filter(move |p| p.rule == rule)
    }

    /// Warnings with the given rule.
    pub fn warnings_of(&self, rule: Rule) -> impl Iterator<Item = &Problem> {
        self.warnings.iter().filter(move |p| p.rule == rule)
    }

    fn extend(&mut self, other: VerifyReport) {
        self.errors.extend(other.errors);
        self.warnings.extend(other.warnings);
    }
}

/// Knobs for [`verify_with`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VerifyOptions {
    /// Also warn about constructs CIRCT 1.62 lowers to wrong RTL (`mux` with more than two data
    /// inputs; `merge`/`control_merge`, whose data is 0 when input 0 wins).
    pub circt_compat: bool,
    /// Report values used never or several times (an unmaterialized circuit) as errors. By
    /// default they are warnings: simulation inserts the forks and sinks itself (see
    /// [`crate::session`]), as CIRCT's own interpreter runs such circuits.
    pub strict: bool,
}

/// Verifies one function with default options and without callee information.
pub fn verify(f: &Function) -> VerifyReport {
    verify_with(f, &VerifyOptions::default(), None)
}

/// Verifies one function. With `module`, `instance` nodes are checked against their callees.
pub fn verify_with(f: &Function, opts: &VerifyOptions, module: Option<&Module>) -> VerifyReport {
    let mut cx = Cx {
        f,
        report: VerifyReport::default(),
    };
    if f.external {
        return cx.report;
    }
    cx.report.errors.extend(limit_problems(f));
    let structure_ok = cx.check_structure();
    cx.check_uses(opts.strict);
    cx.check_return();
    if structure_ok {
        ports::check_ports(&mut cx, opts, module);
        cx.report.errors.extend(comb::cycle_problems(f));
    }
    cx.report
}

/// One [`Rule::Limit`] error per limit of [`crate::limits`] that `f` exceeds.
fn limit_problems(f: &Function) -> Vec<Problem> {
    crate::limits::check(f)
        .into_iter()
        .map(|e| Problem {
            rule: Rule::Limit,
            function: f.name.clone(),
            message: e.message,
            nodes: e
                .node
                .map(|n| NodeRef {
                    id: f.nodes[n].id.clone(),
                    loc: f.nodes[n].loc.clone(),
                })
                .into_iter()
                .collect(),
            channels: Vec::new(),
        })
        .collect()
}

/// Verifies every function of a module with default options, including callee checks.
pub fn verify_module(m: &Module) -> VerifyReport {
    verify_module_with(m, &VerifyOptions::default())
}

/// Verifies every function of a module, checks that callees exist (per instance, in
/// [`verify_with`]) and that no function instantiates itself, directly or not.
///
/// Combinational cycles are checked per function with `instance` nodes treated as opaque (no
/// path through them); flatten the hierarchy with `transform::flatten` and verify the result to
/// find cycles that cross instance boundaries.
pub fn verify_module_with(m: &Module, opts: &VerifyOptions) -> VerifyReport {
    let mut report = VerifyReport::default();
    for f in &m.functions {
        report.extend(verify_with(f, opts, Some(m)));
    }
    report.errors.extend(recursion_problems(m));
    report
}

/// Finds instance cycles in the call graph; one problem per cycle of functions.
fn recursion_problems(m: &Module) -> Vec<Problem> {
    let mut calls: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for f in &m.functions {
        let set = calls.entry(f.name.as_str()).or_default();
        for (_, n) in f.nodes.iter() {
            if let Op::Instance { callee } = &n.op
                && m.function(callee).is_some()
            {
                set.insert(callee.as_str());
            }
        }
    }
    let names: Vec<&str> = calls.keys().copied().collect();
    let index: BTreeMap<&str, usize> = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let mut g = petgraph::graph::DiGraph::<(), ()>::new();
    let ids: Vec<_> = names.iter().map(|_| g.add_node(())).collect();
    for (from, tos) in &calls {
        for to in tos {
            g.add_edge(ids[index[from]], ids[index[to]], ());
        }
    }
    let mut out = Vec::new();
    let mut sccs = crate::scc::tarjan_scc(&g);
    for scc in &mut sccs {
        scc.sort();
    }
    sccs.sort();
    for scc in sccs {
        let self_loop = scc.len() == 1 && g.contains_edge(scc[0], scc[0]);
        if scc.len() < 2 && !self_loop {
            continue;
        }
        let members: Vec<&str> = scc.iter().map(|i| names[i.index()]).collect();
        let first = m.function(members[0]);
        let mut nodes = Vec::new();
        for name in &members {
            if let Some(f) = m.function(name) {
                for (_, n) in f.nodes.iter() {
                    if let Op::Instance { callee } = &n.op
                        && members.contains(&callee.as_str())
                    {
                        nodes.push(NodeRef {
                            id: format!("{name}:{}", n.id),
                            loc: n.loc.clone(),
                        });
                    }
                }
            }
        }
        out.push(Problem {
            rule: Rule::RecursiveInstance,
            function: first.map(|f| f.name.clone()).unwrap_or_default(),
            message: format!("recursive instances among @{}", members.join(", @")),
            nodes,
            channels: Vec::new(),
        });
    }
    out
}

/// Verification context for one function.
pub(crate) struct Cx<'a> {
    pub(crate) f: &'a Function,
    pub(crate) report: VerifyReport,
}

impl Cx<'_> {
    pub(crate) fn node_ref(&self, n: NodeId) -> NodeRef {
        let node = &self.f.nodes[n];
        NodeRef {
            id: node.id.clone(),
            loc: node.loc.clone(),
        }
    }

    pub(crate) fn problem(&self, rule: Rule, n: NodeId, message: String) -> Problem {
        let node = &self.f.nodes[n];
        let mut channels: Vec<String> = node
            .inputs
            .iter()
            .chain(&node.outputs)
            .filter_map(|c| self.f.channels.get(*c))
            .map(|c| c.name.clone())
            .collect();
        channels.dedup();
        Problem {
            rule,
            function: self.f.name.clone(),
            message,
            nodes: vec![self.node_ref(n)],
            channels,
        }
    }

    pub(crate) fn error(&mut self, rule: Rule, n: NodeId, message: String) {
        let message = format!(
            "{} `{}`: {message}",
            self.f.nodes[n].op.mnemonic(),
            self.f.nodes[n].id
        );
        let p = self.problem(rule, n, message);
        self.report.errors.push(p);
    }

    pub(crate) fn warning(&mut self, rule: Rule, n: NodeId, message: String) {
        let message = format!(
            "{} `{}`: {message}",
            self.f.nodes[n].op.mnemonic(),
            self.f.nodes[n].id
        );
        let p = self.problem(rule, n, message);
        self.report.warnings.push(p);
    }

    /// Checks that channel records and node port lists agree. Returns false when they do not,
    /// in which case later checks that index ports are skipped.
    fn check_structure(&mut self) -> bool {
        let f = self.f;
        let mut ok = true;
        for (nid, node) in f.nodes.iter() {
            for (port, &c) in node.outputs.iter().enumerate() {
                let good = f
                    .channels
                    .get(c)
                    .is_some_and(|ch| ch.producer.node == nid && ch.producer.port as usize == port);
                if !good {
                    ok = false;
                    self.error(
                        Rule::Structure,
                        nid,
                        format!("output {port} is not recorded as the producer of its channel"),
                    );
                }
            }
            for (port, &c) in node.inputs.iter().enumerate() {
                let good = f.channels.get(c).is_some_and(|ch| {
                    ch.consumers
                        .iter()
                        .any(|p| p.node == nid && p.port as usize == port)
                });
                if !good {
                    ok = false;
                    self.error(
                        Rule::Structure,
                        nid,
                        format!("input {port} is not recorded as a consumer of its channel"),
                    );
                }
            }
        }
        for (cid, ch) in f.channels.iter() {
            let p = ch.producer;
            let produced = f
                .nodes
                .get(p.node)
                .is_some_and(|n| n.outputs.get(p.port as usize) == Some(&cid));
            if !produced {
                ok = false;
                self.report.errors.push(Problem {
                    rule: Rule::Structure,
                    function: f.name.clone(),
                    message: format!("channel `{}` has no producer", ch.name),
                    nodes: Vec::new(),
                    channels: vec![ch.name.clone()],
                });
            }
            for c in &ch.consumers {
                let consumed = f
                    .nodes
                    .get(c.node)
                    .is_some_and(|n| n.inputs.get(c.port as usize) == Some(&cid));
                if !consumed {
                    ok = false;
                    self.report.errors.push(Problem {
                        rule: Rule::Structure,
                        function: f.name.clone(),
                        message: format!(
                            "channel `{}` lists a consumer port that does not read it",
                            ch.name
                        ),
                        nodes: f
                            .nodes
                            .get(c.node)
                            .map(|_| self.node_ref(c.node))
                            .into_iter()
                            .collect(),
                        channels: vec![ch.name.clone()],
                    });
                }
            }
        }
        ok
    }

    /// Every channel needs exactly one consumer.
    fn check_uses(&mut self, strict: bool) {
        let f = self.f;
        for (_, ch) in f.channels.iter() {
            let Some(producer) = f.nodes.get(ch.producer.node) else {
                continue;
            };
            let n = ch.consumers.len();
            if n == 1 {
                continue;
            }
            let (rule, message) = if n == 0 {
                (
                    Rule::UnusedValue,
                    format!("`{}` is an unused value, needs a sink", ch.name),
                )
            } else {
                (
                    Rule::MultipleUses,
                    format!("`{}` is used {n} times, needs a fork", ch.name),
                )
            };
            let mut nodes = vec![NodeRef {
                id: producer.id.clone(),
                loc: producer.loc.clone(),
            }];
            nodes.extend(
                ch.consumers
                    .iter()
                    .filter(|c| f.nodes.get(c.node).is_some())
                    .map(|c| self.node_ref(c.node)),
            );
            let p = Problem {
                rule,
                function: f.name.clone(),
                message,
                nodes,
                channels: vec![ch.name.clone()],
            };
            if strict {
                self.report.errors.push(p);
            } else {
                self.report.warnings.push(p);
            }
        }
    }

    /// Exactly one `return` (functions with results and without one cannot deliver them).
    fn check_return(&mut self) {
        let f = self.f;
        let returns: Vec<NodeId> = f
            .nodes
            .iter()
            .filter(|(_, n)| n.op == Op::Return)
            .map(|(id, _)| id)
            .collect();
        if returns.is_empty() {
            self.report.errors.push(Problem {
                rule: Rule::Return,
                function: f.name.clone(),
                message: "function has no return".into(),
                nodes: Vec::new(),
                channels: Vec::new(),
            });
        }
        for &r in returns.iter().skip(1) {
            self.error(Rule::Return, r, "function has more than one return".into());
        }
    }
}

#[cfg(test)]
mod tests;
