//! The handshake graph: modules, functions, nodes and channels in typed arenas.
//!
//! Nodes and channels live in [`PrimaryMap`]s indexed by [`NodeId`] and [`ChannelId`]; these
//! indices are internal. The public names are the *stable IDs*: [`Node::id`] and
//! [`Channel::name`], assigned by [`Function::assign_ids`].

use std::collections::HashMap;

use cranelift_entity::{PrimaryMap, entity_impl};

use crate::location::SourceLoc;
use crate::ops::Op;
use crate::types::{MemRefType, Type};

/// Typed index of a node inside one [`Function`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(u32);
entity_impl!(NodeId, "node");

/// Typed index of a channel inside one [`Function`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ChannelId(u32);
entity_impl!(ChannelId, "chan");

/// One port of one node: input or output number `port` of `node`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PortRef {
    /// The node.
    pub node: NodeId,
    /// Port position among the node's inputs (for consumers) or outputs (for producers).
    pub port: u32,
}

/// Where a node's name came from, which decides its stable ID.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum NameHint {
    /// No attribute: the ID is `<op><k>` with one counter per op kind in textual order.
    #[default]
    Counter,
    /// A `handshake.name = "..."` attribute: the ID is that string.
    Name(String),
    /// A `handshake_id = N` attribute: the ID is `<op>_id<N>` (CIRCT's instance naming).
    HandshakeId(u64),
}

/// One component of the circuit.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// Stable ID (set by [`Function::assign_ids`]).
    pub id: String,
    /// What the node does.
    pub op: Op,
    /// Input channels, one per input port, in operand order.
    pub inputs: Vec<ChannelId>,
    /// Output channels, one per output port, in result order.
    pub outputs: Vec<ChannelId>,
    /// Where the ID comes from.
    pub name_hint: NameHint,
    /// Source location, if known.
    pub loc: Option<SourceLoc>,
    /// Basic-block label (`bb3`), if known.
    pub block: Option<String>,
    /// Other attributes, kept verbatim (`name`, raw MLIR attribute value) for round trips.
    pub attrs: Vec<(String, String)>,
}

/// A ready/valid handshake channel: exactly one producer port, ideally exactly one consumer.
#[derive(Clone, Debug, PartialEq)]
pub struct Channel {
    /// Stable name: `<producer id>.<output port name>`, or the argument name for arguments.
    pub name: String,
    /// Data type.
    pub ty: Type,
    /// The output port that drives the channel.
    pub producer: PortRef,
    /// Input ports that read it. A verified graph has exactly one.
    pub consumers: Vec<PortRef>,
}

/// Type of a function argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgType {
    /// A handshake channel of this type.
    Channel(Type),
    /// A memory reference consumed by an `extmemory`.
    MemRef(MemRefType),
}

/// A function argument.
#[derive(Clone, Debug, PartialEq)]
pub struct FuncArg {
    /// Name (from `argNames`, or the SSA name, or `in<i>`).
    pub name: String,
    /// Type.
    pub ty: ArgType,
    /// For channel arguments, the [`Op::Argument`] node that produces the channel.
    pub node: Option<NodeId>,
    /// The first cycle in which the environment offers this argument's tokens (0: from the
    /// start). Dynamatic's testbench offers its data arguments from cycle 1, a cycle after
    /// `start` (`docs/semantics.md`, "The function's boundary").
    pub offered_from: u64,
    /// The environment gives this (`none`) argument one token when the stimulus names
    /// none for it, as it does the function's last `none` argument: Dynamatic's memory start
    /// controls, which its testbench holds valid.
    pub one_token_by_default: bool,
}

/// A function result.
#[derive(Clone, Debug, PartialEq)]
pub struct FuncResult {
    /// Name (from `resNames`, or `out<i>`).
    pub name: String,
    /// Type.
    pub ty: Type,
}

/// A `handshake.func`: arguments, results and the graph between them.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Function {
    /// Symbol name (without `@`).
    pub name: String,
    /// Arguments in order.
    pub args: Vec<FuncArg>,
    /// Results in order.
    pub results: Vec<FuncResult>,
    /// Nodes in textual order.
    pub nodes: PrimaryMap<NodeId, Node>,
    /// Channels in creation order.
    pub channels: PrimaryMap<ChannelId, Channel>,
    /// Location of the function itself.
    pub loc: Option<SourceLoc>,
    /// True for an external declaration (no body).
    pub external: bool,
    /// Other function attributes, kept verbatim.
    pub attrs: Vec<(String, String)>,
    node_index: HashMap<String, NodeId>,
    channel_index: HashMap<String, ChannelId>,
}

/// A translation unit: several functions.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Module {
    /// Functions in textual order.
    pub functions: Vec<Function>,
}

impl Module {
    /// Finds a function by name.
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }

    /// The function a tool runs by default: the only one, or else the last one.
    pub fn default_function(&self) -> Option<&Function> {
        self.functions.iter().rev().find(|f| !f.external)
    }
}

/// Two nodes ended up with the same stable ID.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("stable ID `{id}` is used by two nodes")]
pub struct DuplicateId {
    /// The clashing ID.
    pub id: String,
    /// The node that took it first.
    pub first: NodeId,
    /// The node that clashed.
    pub second: NodeId,
}

/// The names listed in function attribute `key`, an array of strings (empty without it).
pub(crate) fn name_list_attr(f: &Function, key: &str) -> std::collections::BTreeSet<String> {
    f.attrs
        .iter()
        .filter(|(k, _)| k == key)
        .flat_map(|(_, v)| {
            v.trim()
                .trim_start_matches('[')
                .trim_end_matches(']')
                .split(',')
                .map(|x| x.trim().trim_matches('"').to_string())
                .filter(|x| !x.is_empty())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Sets function attribute `key` to the array of strings `names` (removes it when empty).
pub(crate) fn set_name_list_attr<'a>(
    f: &mut Function,
    key: &str,
    names: impl IntoIterator<Item = &'a str>,
) {
    f.attrs.retain(|(k, _)| k != key);
    let list: Vec<String> = names.into_iter().map(|n| format!("{n:?}")).collect();
    if !list.is_empty() {
        f.attrs
            .push((key.to_string(), format!("[{}]", list.join(", "))));
    }
}

/// Function attribute naming the results, arguments and memories whose integers the source
/// declares unsigned (C `unsigned` types), e.g. `handscope.unsigned = ["ret", "hist"]`.
/// Handshake integers are signless; reports print these names' values as unsigned numbers
/// and every other multi-bit integer as signed.
pub const UNSIGNED_ATTR: &str = "handscope.unsigned";

impl Function {
    /// The names listed in the [`UNSIGNED_ATTR`] attribute (empty without it).
    pub fn unsigned_names(&self) -> std::collections::BTreeSet<String> {
        name_list_attr(self, UNSIGNED_ATTR)
    }

    /// Sets the [`UNSIGNED_ATTR`] attribute to `names` (removes it when empty).
    pub fn set_unsigned_names<'a>(&mut self, names: impl IntoIterator<Item = &'a str>) {
        set_name_list_attr(self, UNSIGNED_ATTR, names);
    }

    /// An empty function.
    pub fn new(name: impl Into<String>) -> Self {
        Function {
            name: name.into(),
            ..Default::default()
        }
    }

    /// Appends an argument. Channel arguments get an [`Op::Argument`] node whose single output
    /// is the argument's channel, returned here.
    pub fn add_arg(&mut self, name: impl Into<String>, ty: ArgType) -> Option<ChannelId> {
        let name = name.into();
        let index = self.args.len();
        let (node, chan) = match &ty {
            ArgType::Channel(t) => {
                let n = self.add_node(Op::Argument { index }, vec![t.clone()]);
                self.nodes[n].id = name.clone();
                (Some(n), Some(self.nodes[n].outputs[0]))
            }
            ArgType::MemRef(_) => (None, None),
        };
        self.args.push(FuncArg {
            name,
            ty,
            node,
            offered_from: 0,
            one_token_by_default: false,
        });
        chan
    }

    /// Appends a node with fresh output channels of the given types and no inputs yet
    /// (connect them with [`Function::set_inputs`]). Its ID is set by [`Function::assign_ids`].
    pub fn add_node(&mut self, op: Op, output_types: Vec<Type>) -> NodeId {
        let node = self.nodes.push(Node {
            id: String::new(),
            op,
            inputs: Vec::new(),
            outputs: Vec::new(),
            name_hint: NameHint::Counter,
            loc: None,
            block: None,
            attrs: Vec::new(),
        });
        let outputs = output_types
            .into_iter()
            .enumerate()
            .map(|(port, ty)| {
                self.channels.push(Channel {
                    name: String::new(),
                    ty,
                    producer: PortRef {
                        node,
                        port: port as u32,
                    },
                    consumers: Vec::new(),
                })
            })
            .collect();
        self.nodes[node].outputs = outputs;
        node
    }

    /// Sets a node's input channels (replacing any previous ones) and records the node as a
    /// consumer of each.
    pub fn set_inputs(&mut self, node: NodeId, inputs: Vec<ChannelId>) {
        for old in std::mem::take(&mut self.nodes[node].inputs) {
            self.channels[old].consumers.retain(|c| c.node != node);
        }
        for (port, &ch) in inputs.iter().enumerate() {
            self.channels[ch].consumers.push(PortRef {
                node,
                port: port as u32,
            });
        }
        self.nodes[node].inputs = inputs;
    }

    /// Rewires input `port` of `node` to read `channel` instead of its current one.
    pub fn replace_input(&mut self, node: NodeId, port: usize, channel: ChannelId) {
        let old = self.nodes[node].inputs[port];
        let pref = PortRef {
            node,
            port: port as u32,
        };
        self.channels[old].consumers.retain(|c| *c != pref);
        self.channels[channel].consumers.push(pref);
        self.nodes[node].inputs[port] = channel;
    }

    /// The `return` node, if the function has one.
    pub fn return_node(&self) -> Option<NodeId> {
        self.nodes
            .iter()
            .find(|(_, n)| n.op == Op::Return)
            .map(|(id, _)| id)
    }

    /// Gives every node its stable ID and every channel its name, and rebuilds the lookup
    /// tables. Rule: `handshake.name` wins; `handshake_id = N` gives `<op>_id<N>`; otherwise
    /// `<op><k>` with one counter per op kind in textual order (CIRCT's instance naming).
    /// Argument nodes are named after their argument.
    pub fn assign_ids(&mut self) -> Result<(), DuplicateId> {
        let mut counters: HashMap<String, u32> = HashMap::new();
        for (_, node) in self.nodes.iter_mut() {
            node.id = match (&node.op, &node.name_hint) {
                (Op::Argument { index }, _) => self.args[*index].name.clone(),
                (_, NameHint::Name(n)) => n.clone(),
                (op, NameHint::HandshakeId(n)) => format!("{}_id{n}", op.id_base()),
                (op, NameHint::Counter) => {
                    let base = op.id_base().to_string();
                    let k = counters.entry(base.clone()).or_insert(0);
                    let id = format!("{base}{k}");
                    *k += 1;
                    id
                }
            };
        }
        self.rebuild_index()
    }

    /// Recomputes channel names from producer IDs and rebuilds the ID lookup tables, keeping
    /// node IDs as they are. Fails if two nodes share an ID.
    pub fn rebuild_index(&mut self) -> Result<(), DuplicateId> {
        self.node_index.clear();
        for (nid, node) in self.nodes.iter() {
            if let Some(&first) = self.node_index.get(&node.id) {
                return Err(DuplicateId {
                    id: node.id.clone(),
                    first,
                    second: nid,
                });
            }
            self.node_index.insert(node.id.clone(), nid);
        }
        self.channel_index.clear();
        for (cid, ch) in self.channels.iter_mut() {
            let producer = &self.nodes[ch.producer.node];
            ch.name = match producer.op {
                Op::Argument { .. } => producer.id.clone(),
                _ => format!(
                    "{}.{}",
                    producer.id,
                    producer.op.output_port_name(ch.producer.port as usize)
                ),
            };
            self.channel_index.insert(ch.name.clone(), cid);
        }
        Ok(())
    }

    /// Looks a node up by stable ID.
    pub fn node_by_id(&self, id: &str) -> Option<NodeId> {
        self.node_index.get(id).copied()
    }

    /// Looks a channel up by name (`fork3.out1`).
    pub fn channel_by_name(&self, name: &str) -> Option<ChannelId> {
        self.channel_index.get(name).copied()
    }

    /// Name of input port `port` of `node`.
    pub fn input_port_name(&self, node: NodeId, port: usize) -> String {
        self.nodes[node].op.input_port_name(port)
    }

    /// `"<node id>.<input port name>"` for a consumer port.
    pub fn consumer_name(&self, p: PortRef) -> String {
        let n = &self.nodes[p.node];
        format!("{}.{}", n.id, n.op.input_port_name(p.port as usize))
    }

    /// Counts nodes per op mnemonic (arguments excluded), sorted by mnemonic.
    pub fn op_counts(&self) -> Vec<(&'static str, usize)> {
        let mut m: std::collections::BTreeMap<&'static str, usize> = Default::default();
        for (_, n) in self.nodes.iter() {
            if !matches!(n.op, Op::Argument { .. }) {
                *m.entry(n.op.mnemonic()).or_default() += 1;
            }
        }
        m.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::BufferKind;

    #[test]
    fn ids_follow_circt_instance_naming() {
        let mut f = Function::new("f");
        let a = f.add_arg("a", ArgType::Channel(Type::Int(32))).unwrap();
        let fork = f.add_node(Op::Fork, vec![Type::Int(32), Type::Int(32)]);
        f.set_inputs(fork, vec![a]);
        let o0 = f.nodes[fork].outputs[0];
        let o1 = f.nodes[fork].outputs[1];
        let named = f.add_node(
            Op::Buffer {
                slots: 1,
                kind: BufferKind::Seq,
                init: None,
            },
            vec![Type::Int(32)],
        );
        f.nodes[named].name_hint = NameHint::Name("pipe".into());
        f.set_inputs(named, vec![o0]);
        let fork2 = f.add_node(Op::Fork, vec![Type::Int(32)]);
        f.set_inputs(fork2, vec![o1]);
        let by_id = f.add_node(Op::Fork, vec![Type::Int(32)]);
        f.nodes[by_id].name_hint = NameHint::HandshakeId(7);
        f.assign_ids().unwrap();
        assert_eq!(f.nodes[fork].id, "fork0");
        assert_eq!(f.nodes[fork2].id, "fork1");
        assert_eq!(f.nodes[by_id].id, "fork_id7");
        assert_eq!(f.nodes[named].id, "pipe");
        assert_eq!(f.channels[o1].name, "fork0.out1");
        assert_eq!(f.channels[a].name, "a");
        assert_eq!(f.channel_by_name("fork0.out1"), Some(o1));
        assert_eq!(f.node_by_id("pipe"), Some(named));
        assert_eq!(f.consumer_name(f.channels[o0].consumers[0]), "pipe.in0");
        f.nodes[named].name_hint = NameHint::Name("fork1".into());
        assert!(f.assign_ids().is_err());
    }
}
