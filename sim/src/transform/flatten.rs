//! Hierarchy flattening: inlines `instance` nodes recursively.
//!
//! A node `n` of a function instantiated by instance `i` (itself inside instance `p`, ...)
//! gets the ID `p/i/n`: the instance path joined with [`HIERARCHY_SEPARATOR`]. Channel names
//! follow from the producer IDs (`p/i/n.out0`). The callee's argument nodes disappear (their
//! consumers read the instance's input channels) and so does its `return` (the instance's
//! output channels become whatever fed the return's operands). Top-level nodes keep their IDs
//! and name hints; inlined nodes get [`NameHint::Name`] with their full path, so a later
//! [`Function::assign_ids`] keeps the paths. Locations, blocks and attributes are kept.
//! Instances of external functions (no body) stay as `instance` nodes.

use std::collections::BTreeMap;

use crate::graph::{ArgType, ChannelId, DuplicateId, Function, Module, NameHint, NodeId};
use crate::ops::Op;

/// Separator between instance names in a flattened node ID.
pub const HIERARCHY_SEPARATOR: char = '/';

/// Splits a flattened node ID into its instance path and local ID (`"a/b/fork0"` gives
/// `["a", "b", "fork0"]`).
pub fn hierarchy_of(id: &str) -> Vec<&str> {
    id.split(HIERARCHY_SEPARATOR).collect()
}

/// Why [`flatten`] failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FlattenError {
    /// The requested top function does not exist or has no body.
    #[error("no function @{0} with a body in the module")]
    MissingTop(String),
    /// An instance calls a function the module does not define.
    #[error("instance `{instance}` calls @{callee}, which the module does not define")]
    MissingCallee {
        /// Full ID of the instance node.
        instance: String,
        /// Called function.
        callee: String,
    },
    /// Functions instantiate each other recursively.
    #[error("recursive instances: @{}", chain.join(" -> @"))]
    Recursion {
        /// Function names from the outer to the repeated one.
        chain: Vec<String>,
    },
    /// An instance's ports do not match its callee's arguments or results.
    #[error("instance `{instance}` has {actual} {what}, but @{callee} has {expected}")]
    PortMismatch {
        /// Full ID of the instance node.
        instance: String,
        /// Called function.
        callee: String,
        /// `inputs` or `outputs`.
        what: &'static str,
        /// Number of ports on the instance.
        actual: usize,
        /// Number the callee declares.
        expected: usize,
    },
    /// The callee takes memref arguments, which instances cannot pass.
    #[error("@{callee} has memref arguments and cannot be inlined")]
    MemRefArgument {
        /// Called function.
        callee: String,
    },
    /// A callee has no `return`, so the instance's outputs have no driver.
    #[error("@{callee} has no return")]
    MissingReturn {
        /// Called function.
        callee: String,
    },
    /// Arguments wired straight to results form a loop with no node on it.
    #[error("channel `{channel}` is a loop of pass-through wires with no driver")]
    WireLoop {
        /// Name of a channel on the loop.
        channel: String,
    },
    /// Two nodes of the flattened function got the same ID.
    #[error(transparent)]
    DuplicateId(#[from] DuplicateId),
    /// The flattened function would exceed [`crate::limits::MAX_NODES`].
    #[error(
        "inlining the instances of @{top} gives {} nodes; the limit is {}",
        crate::limits::thousands(*nodes),
        crate::limits::thousands(crate::limits::MAX_NODES as u64)
    )]
    TooLarge {
        /// The function being flattened.
        top: String,
        /// Nodes it would have (saturating).
        nodes: u64,
    },
    /// Instances nest deeper than [`crate::limits::MAX_HIERARCHY_DEPTH`].
    #[error(
        "instances nest more than {} levels deep: @{}",
        crate::limits::MAX_HIERARCHY_DEPTH,
        chain.join(" -> @")
    )]
    TooDeep {
        /// The outermost functions of the too-deep chain.
        chain: Vec<String>,
    },
}

/// A channel of some inlined function: (scope number, channel in that function).
type Sym = (usize, ChannelId);

struct Flattener<'m> {
    module: &'m Module,
    out: Function,
    scopes: usize,
    /// Channels that have a real producer in `out`.
    real: BTreeMap<Sym, ChannelId>,
    /// Channels that are another channel under a different name (arguments, results).
    alias: BTreeMap<Sym, Sym>,
    /// Inputs of new nodes, to be resolved at the end.
    pending: Vec<(NodeId, Vec<Sym>)>,
    /// Names of the functions being inlined, outermost first.
    stack: Vec<String>,
    /// Name of some channel per scope, for error messages.
    names: BTreeMap<Sym, String>,
}

/// Inlines every instance below `top`, recursively, into one function named like `top`.
pub fn flatten(m: &Module, top: &str) -> Result<Function, FlattenError> {
    let f = m
        .function(top)
        .filter(|f| !f.external)
        .ok_or_else(|| FlattenError::MissingTop(top.to_string()))?;
    check_size(m, f)?;
    let mut out = Function::new(f.name.clone());
    out.results = f.results.clone();
    out.loc = f.loc.clone();
    out.attrs = f.attrs.clone();
    let mut fl = Flattener {
        module: m,
        out,
        scopes: 0,
        real: BTreeMap::new(),
        alias: BTreeMap::new(),
        pending: Vec::new(),
        stack: vec![f.name.clone()],
        names: BTreeMap::new(),
    };
    let scope = fl.new_scope();
    for arg in &f.args {
        let ch = fl.out.add_arg(arg.name.clone(), arg.ty.clone());
        if let (Some(ch), Some(old)) = (ch, arg.node) {
            fl.real.insert((scope, f.nodes[old].outputs[0]), ch);
            if let (Some(new), old) = (fl.out.args.last().and_then(|a| a.node), &f.nodes[old]) {
                let n = &mut fl.out.nodes[new];
                n.loc = old.loc.clone();
                n.block = old.block.clone();
                n.attrs = old.attrs.clone();
            }
        }
    }
    fl.inline(f, scope, "", None)?;
    for (node, syms) in std::mem::take(&mut fl.pending) {
        let inputs = syms
            .iter()
            .map(|s| fl.resolve(*s))
            .collect::<Result<Vec<_>, _>>()?;
        fl.out.set_inputs(node, inputs);
    }
    fl.out.rebuild_index()?;
    Ok(fl.out)
}

/// Fails when flattening `top` would give more than [`crate::limits::MAX_NODES`] nodes or
/// nest instances more than [`crate::limits::MAX_HIERARCHY_DEPTH`] deep, before anything is
/// built: instances nested two per level double the graph at every level, so a few lines of
/// MLIR can ask for billions of nodes. One pass over the instance graph (each function's
/// flattened size computed once), without recursion. Recursive instances are left to the
/// inlining, which reports them.
fn check_size(m: &Module, top: &Function) -> Result<(), FlattenError> {
    use crate::limits::{MAX_HIERARCHY_DEPTH, MAX_NODES};
    let by_name: BTreeMap<&str, &Function> = m
        .functions
        .iter()
        .filter(|g| !g.external)
        .map(|g| (g.name.as_str(), g))
        .collect();
    // Path of the depth-first search: function, its callees, next callee, nodes so far.
    struct Frame<'a> {
        f: &'a Function,
        callees: Vec<&'a str>,
        next: usize,
        nodes: u64,
    }
    fn frame<'a>(g: &'a Function, by_name: &BTreeMap<&str, &Function>) -> Frame<'a> {
        let callees: Vec<&'a str> = g
            .nodes
            .values()
            .filter_map(|n| match &n.op {
                Op::Instance { callee } if by_name.contains_key(callee.as_str()) => {
                    Some(callee.as_str())
                }
                _ => None,
            })
            .collect();
        let own = (g.nodes.len() - callees.len()) as u64;
        Frame {
            f: g,
            callees,
            next: 0,
            nodes: own,
        }
    }
    let mut size: BTreeMap<&str, u64> = BTreeMap::new();
    let mut path = vec![frame(top, &by_name)];
    while let Some(fr) = path.last_mut() {
        if let Some(&c) = fr.callees.get(fr.next) {
            fr.next += 1;
            if let Some(&n) = size.get(c) {
                fr.nodes = fr.nodes.saturating_add(n);
            } else if !path.iter().any(|p| p.f.name == c) {
                if path.len() > MAX_HIERARCHY_DEPTH {
                    let chain = path.iter().take(8).map(|p| p.f.name.clone());
                    return Err(FlattenError::TooDeep {
                        chain: chain.chain([String::from("...")]).collect(),
                    });
                }
                path.push(frame(by_name[c], &by_name));
            }
            continue;
        }
        let done = path.pop().map_or(0, |fr| {
            size.insert(fr.f.name.as_str(), fr.nodes);
            fr.nodes
        });
        if let Some(parent) = path.last_mut() {
            parent.nodes = parent.nodes.saturating_add(done);
        } else if done > MAX_NODES as u64 {
            return Err(FlattenError::TooLarge {
                top: top.name.clone(),
                nodes: done,
            });
        }
    }
    Ok(())
}

impl Flattener<'_> {
    fn new_scope(&mut self) -> usize {
        self.scopes += 1;
        self.scopes - 1
    }

    /// Copies the nodes of `f` (scope `scope`, ID prefix `prefix`) into the output. `inst` is
    /// the parent scope and instance node when `f` is being inlined.
    fn inline(
        &mut self,
        f: &Function,
        scope: usize,
        prefix: &str,
        inst: Option<(usize, &crate::graph::Node)>,
    ) -> Result<(), FlattenError> {
        for (c, ch) in f.channels.iter() {
            self.names
                .insert((scope, c), format!("{prefix}{}", ch.name));
        }
        for (_, node) in f.nodes.iter() {
            let full = format!("{prefix}{}", node.id);
            match (&node.op, inst) {
                (Op::Argument { .. }, None) => {}
                (Op::Argument { index }, Some((parent, i))) => {
                    let pos = f.args[..*index]
                        .iter()
                        .filter(|a| matches!(a.ty, ArgType::Channel(_)))
                        .count();
                    if let (Some(&out), Some(&outer)) = (node.outputs.first(), i.inputs.get(pos)) {
                        self.alias.insert((scope, out), (parent, outer));
                    }
                }
                (Op::Return, Some((parent, i))) => {
                    for (k, &operand) in node.inputs.iter().enumerate() {
                        if let Some(&res) = i.outputs.get(k) {
                            self.alias.insert((parent, res), (scope, operand));
                        }
                    }
                }
                (Op::Instance { callee }, _)
                    if self.module.function(callee).is_some_and(|g| !g.external) =>
                {
                    self.instance(node, callee, scope, &full)?;
                }
                (Op::Instance { callee }, _) if self.module.function(callee).is_none() => {
                    return Err(FlattenError::MissingCallee {
                        instance: full,
                        callee: callee.clone(),
                    });
                }
                _ => {
                    let types = node
                        .outputs
                        .iter()
                        .map(|c| f.channels[*c].ty.clone())
                        .collect();
                    let new = self.out.add_node(node.op.clone(), types);
                    for (k, &c) in node.outputs.iter().enumerate() {
                        self.real.insert((scope, c), self.out.nodes[new].outputs[k]);
                    }
                    let n = &mut self.out.nodes[new];
                    n.name_hint = if inst.is_some() {
                        NameHint::Name(full.clone())
                    } else {
                        node.name_hint.clone()
                    };
                    n.id = full;
                    n.loc = node.loc.clone();
                    n.block = node.block.clone();
                    n.attrs = node.attrs.clone();
                    self.pending
                        .push((new, node.inputs.iter().map(|c| (scope, *c)).collect()));
                }
            }
        }
        Ok(())
    }

    /// Inlines one instance node of scope `scope` whose full ID is `full`.
    fn instance(
        &mut self,
        node: &crate::graph::Node,
        callee: &str,
        scope: usize,
        full: &str,
    ) -> Result<(), FlattenError> {
        let module = self.module;
        let Some(g) = module.function(callee) else {
            return Err(FlattenError::MissingCallee {
                instance: full.to_string(),
                callee: callee.to_string(),
            });
        };
        if self.stack.iter().any(|s| s == callee) {
            let mut chain = self.stack.clone();
            chain.push(callee.to_string());
            return Err(FlattenError::Recursion { chain });
        }
        if g.args.iter().any(|a| matches!(a.ty, ArgType::MemRef(_))) {
            return Err(FlattenError::MemRefArgument {
                callee: callee.to_string(),
            });
        }
        let mismatch = |what, actual, expected| FlattenError::PortMismatch {
            instance: full.to_string(),
            callee: callee.to_string(),
            what,
            actual,
            expected,
        };
        if node.inputs.len() != g.args.len() {
            return Err(mismatch("inputs", node.inputs.len(), g.args.len()));
        }
        if node.outputs.len() != g.results.len() {
            return Err(mismatch("outputs", node.outputs.len(), g.results.len()));
        }
        if g.return_node().is_none() {
            return Err(FlattenError::MissingReturn {
                callee: callee.to_string(),
            });
        }
        self.stack.push(callee.to_string());
        let child = self.new_scope();
        let prefix = format!("{full}{HIERARCHY_SEPARATOR}");
        self.inline(g, child, &prefix, Some((scope, node)))?;
        self.stack.pop();
        Ok(())
    }

    /// Follows aliases to the channel that really drives `s`.
    fn resolve(&self, s: Sym) -> Result<ChannelId, FlattenError> {
        let mut cur = s;
        for _ in 0..=self.alias.len() {
            if let Some(&c) = self.real.get(&cur) {
                return Ok(c);
            }
            match self.alias.get(&cur) {
                Some(&next) => cur = next,
                None => break,
            }
        }
        Err(FlattenError::WireLoop {
            channel: self.names.get(&s).cloned().unwrap_or_default(),
        })
    }
}

#[cfg(test)]
mod tests;
