//! A small mutable dataflow graph used while lowering: nodes can be created before their
//! inputs are known (for back edges), rewired and deleted. [`HGraph::emit`] turns it into a
//! [`handscope_sim::Function`] with readable stable IDs (`bb2.mux0`).

use std::collections::BTreeMap;
use std::sync::Arc;

use handscope_sim::{ArgType, FuncResult, Function, NameHint, Op, SourceLoc, Type};

use crate::c::span::Span;

/// An output port of a node: `(node index, output position)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Port {
    /// Node index in [`HGraph::nodes`].
    pub node: usize,
    /// Output position.
    pub port: u32,
}

impl Port {
    /// Placeholder for an input that is connected later.
    pub const PENDING: Port = Port {
        node: usize::MAX,
        port: 0,
    };

    /// Output `port` of `node`.
    pub fn new(node: usize, port: u32) -> Port {
        Port { node, port }
    }
}

/// One node under construction.
#[derive(Clone, Debug)]
pub(crate) struct HNode {
    /// Operation.
    pub op: Op,
    /// Inputs (output ports of other nodes).
    pub ins: Vec<Port>,
    /// Output types.
    pub outs: Vec<Type>,
    /// Basic-block label, used as the ID prefix.
    pub block: Option<String>,
    /// Source position.
    pub span: Option<Span>,
    /// Explicit stable ID (otherwise `<block>.<op><k>`).
    pub name: Option<String>,
    /// Deleted nodes are skipped by [`HGraph::emit`].
    pub dead: bool,
    /// Extra attributes printed verbatim.
    pub attrs: Vec<(String, String)>,
}

/// A function argument of the graph.
#[derive(Clone, Debug)]
pub(crate) struct HArg {
    /// Name.
    pub name: String,
    /// Type.
    pub ty: ArgType,
    /// The [`Op::Argument`] node for channel arguments.
    pub node: Option<usize>,
}

/// The graph under construction.
#[derive(Clone, Debug, Default)]
pub(crate) struct HGraph {
    /// Nodes in textual order.
    pub nodes: Vec<HNode>,
    /// Arguments in order.
    pub args: Vec<HArg>,
    /// Results: name and type.
    pub results: Vec<(String, Type)>,
}

impl HGraph {
    /// Adds a node and returns its index.
    pub fn add(
        &mut self,
        op: Op,
        ins: Vec<Port>,
        outs: Vec<Type>,
        block: Option<&str>,
        span: Option<Span>,
    ) -> usize {
        self.nodes.push(HNode {
            op,
            ins,
            outs,
            block: block.map(str::to_string),
            span,
            name: None,
            dead: false,
            attrs: Vec::new(),
        });
        self.nodes.len() - 1
    }

    /// Adds an argument; channel arguments get an [`Op::Argument`] node, whose output is
    /// returned.
    pub fn add_arg(&mut self, name: &str, ty: ArgType) -> Option<Port> {
        let index = self.args.len();
        let node = match &ty {
            ArgType::Channel(t) => {
                Some(self.add(Op::Argument { index }, vec![], vec![t.clone()], None, None))
            }
            ArgType::MemRef(_) => None,
        };
        self.args.push(HArg {
            name: name.to_string(),
            ty,
            node,
        });
        node.map(|n| Port::new(n, 0))
    }

    /// Type of an output port.
    pub fn ty(&self, p: Port) -> Type {
        self.nodes[p.node].outs[p.port as usize].clone()
    }

    /// Rewires every live use of `from` to `to`.
    pub fn replace_uses(&mut self, from: Port, to: Port) {
        for n in self.nodes.iter_mut().filter(|n| !n.dead) {
            for p in &mut n.ins {
                if *p == from {
                    *p = to;
                }
            }
        }
    }

    /// Builds the [`Function`]: arguments, live nodes in order, results. Nodes without an
    /// explicit name get `<block>.<mnemonic><k>` (one counter per block and op kind, in node
    /// order); nodes without a block get `<mnemonic><k>` under the prefix `fn`.
    pub fn emit(&self, name: &str, files: &[Arc<str>], fn_span: Span) -> Function {
        let mut f = Function::new(name);
        f.loc = Some(loc(files, fn_span));
        let mut map: Vec<Option<handscope_sim::NodeId>> = vec![None; self.nodes.len()];
        for a in &self.args {
            f.add_arg(a.name.clone(), a.ty.clone());
            if let (Some(n), Some(id)) = (a.node, f.args.last().and_then(|x| x.node)) {
                map[n] = Some(id);
            }
        }
        let mut counters: BTreeMap<(String, &'static str), u32> = BTreeMap::new();
        for (i, n) in self.nodes.iter().enumerate() {
            if n.dead || matches!(n.op, Op::Argument { .. }) {
                continue;
            }
            let id = f.add_node(n.op.clone(), n.outs.clone());
            let node = &mut f.nodes[id];
            let prefix = n.block.clone().unwrap_or_else(|| "fn".to_string());
            let stable = match &n.name {
                Some(s) => s.clone(),
                None => {
                    let k = counters
                        .entry((prefix.clone(), n.op.mnemonic()))
                        .or_insert(0);
                    let s = format!("{prefix}.{}{k}", n.op.mnemonic());
                    *k += 1;
                    s
                }
            };
            node.name_hint = NameHint::Name(stable);
            node.block = n.block.clone();
            node.loc = n.span.map(|s| loc(files, s));
            node.attrs = n.attrs.clone();
            map[i] = Some(id);
        }
        for (i, n) in self.nodes.iter().enumerate() {
            let Some(id) = map[i] else { continue };
            if n.dead || matches!(n.op, Op::Argument { .. }) {
                continue;
            }
            let ins = n
                .ins
                .iter()
                .filter_map(|p| map.get(p.node).copied().flatten().map(|src| (src, p.port)))
                .map(|(src, port)| f.nodes[src].outputs[port as usize])
                .collect();
            f.set_inputs(id, ins);
        }
        f.results = self
            .results
            .iter()
            .map(|(n, t)| FuncResult {
                name: n.clone(),
                ty: t.clone(),
            })
            .collect();
        f
    }
}

/// A [`SourceLoc`] for a span, in its file (`files` by index).
pub(crate) fn loc(files: &[Arc<str>], s: Span) -> SourceLoc {
    let file = &files[usize::from(s.file).min(files.len() - 1)];
    SourceLoc::new(file.clone(), s.line.max(1), s.col.max(1))
}
