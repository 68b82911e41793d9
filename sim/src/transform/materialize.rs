//! Fork and sink materialization: after it, every channel has exactly one consumer.
//!
//! A channel read by `N > 1` ports gets a `fork [N]` whose outputs feed those ports; a channel
//! nobody reads gets a `sink`. Return operands are read by the `return` node, so they never
//! need a sink. New nodes get [`NameHint::Counter`], the producer's location and block, and
//! their IDs come from [`Function::assign_ids`].
//!
//! # Placement and IDs
//!
//! Counter-based IDs (`fork3`) depend on textual order, so where new nodes go matters:
//!
//! * [`Placement::Circt`] (the default, used by [`materialize`]) puts nodes where CIRCT's
//!   `handshake-materialize-forks-sinks` pass puts them, so the IDs match the instance names
//!   in RTL generated from CIRCT's output: right after the producing op (sinks first, then
//!   forks, each group in reverse result order), and for function arguments at the start of
//!   the body (sinks, then forks, each in reverse argument order). Fork output `k` feeds the
//!   `k`-th use counting from the *last* use in textual order, as CIRCT does. This reorders
//!   the node arena, so **existing [`NodeId`]s are invalidated** and existing counter-named
//!   `fork`/`sink` nodes may be **renumbered** (a new `fork` placed before `fork2` makes it
//!   `fork3`).
//! * [`Placement::Append`] appends the new nodes at the end of the arena: existing nodes keep
//!   their [`NodeId`]s and IDs (new forks and sinks number after the existing ones), at the
//!   cost of not matching CIRCT's numbering.
//!
//! Unlike CIRCT, outputs of an existing `fork` that are used several times are forked too
//! (CIRCT leaves them and then fails its own one-use check).

use cranelift_entity::SecondaryMap;

use crate::graph::{ChannelId, DuplicateId, Function, NameHint, NodeId, PortRef};
use crate::ops::Op;

/// Where [`materialize_with`] puts new nodes in textual order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Placement {
    /// Where CIRCT's pass would: IDs match CIRCT; existing counter IDs may shift.
    #[default]
    Circt,
    /// At the end: existing nodes keep their [`NodeId`]s and stable IDs.
    Append,
}

/// The nodes [`materialize_with`] added (final [`NodeId`]s, in creation order).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Materialized {
    /// New `fork` nodes.
    pub forks: Vec<NodeId>,
    /// New `sink` nodes.
    pub sinks: Vec<NodeId>,
}

/// Materializes forks and sinks with [`Placement::Circt`], then assigns IDs.
pub fn materialize(f: &mut Function) -> Result<Materialized, DuplicateId> {
    materialize_with(f, Placement::Circt)
}

/// Materializes forks and sinks with the given placement, then assigns IDs.
pub fn materialize_with(
    f: &mut Function,
    placement: Placement,
) -> Result<Materialized, DuplicateId> {
    let mut added = Materialized::default();
    // New nodes anchored to the producing node: (new node, producer output port, is_fork).
    let mut anchored: SecondaryMap<NodeId, Vec<(NodeId, u32, bool)>> = SecondaryMap::new();
    let channels: Vec<ChannelId> = f.channels.keys().collect();
    for c in channels {
        let ch = &f.channels[c];
        let (ty, producer) = (ch.ty.clone(), ch.producer);
        let Some(pnode) = f.nodes.get(producer.node) else {
            continue;
        };
        let (loc, block) = (pnode.loc.clone(), pnode.block.clone());
        let new = match ch.consumers.len() {
            0 => {
                let sink = f.add_node(Op::Sink, Vec::new());
                f.set_inputs(sink, vec![c]);
                added.sinks.push(sink);
                (sink, false)
            }
            1 => continue,
            n => {
                let mut uses: Vec<PortRef> = ch.consumers.clone();
                uses.sort();
                let fork = f.add_node(Op::Fork, vec![ty; n]);
                // Every use moves to the fork, so `c`'s consumer list is emptied at once
                // (one `replace_input` per use would scan it each time: quadratic in `n`).
                f.channels[c].consumers.clear();
                for (k, u) in uses.iter().rev().enumerate() {
                    let out = f.nodes[fork].outputs[k];
                    f.nodes[u.node].inputs[u.port as usize] = out;
                    f.channels[out].consumers.push(*u);
                }
                f.set_inputs(fork, vec![c]);
                added.forks.push(fork);
                (fork, true)
            }
        };
        let node = &mut f.nodes[new.0];
        node.name_hint = NameHint::Counter;
        node.loc = loc;
        node.block = block;
        anchored[producer.node].push((new.0, producer.port, new.1));
    }
    if placement == Placement::Circt {
        let order = circt_order(f, &anchored);
        if let Some(map) = super::reorder_nodes(f, &order) {
            for n in added.forks.iter_mut().chain(added.sinks.iter_mut()) {
                *n = map[*n];
            }
        }
    }
    f.assign_ids()?;
    Ok(added)
}

/// Textual order CIRCT's pass produces (see the module documentation).
fn circt_order(
    f: &Function,
    anchored: &SecondaryMap<NodeId, Vec<(NodeId, u32, bool)>>,
) -> Vec<NodeId> {
    let is_new: std::collections::BTreeSet<NodeId> = anchored
        .values()
        .flat_map(|v| v.iter().map(|(n, _, _)| *n))
        .collect();
    // Sinks first, then forks; each group in reverse port order.
    let group = |v: &[(NodeId, u32, bool)]| -> Vec<NodeId> {
        let mut sinks: Vec<_> = v.iter().filter(|e| !e.2).collect();
        let mut forks: Vec<_> = v.iter().filter(|e| e.2).collect();
        sinks.sort_by_key(|e| std::cmp::Reverse(e.1));
        forks.sort_by_key(|e| std::cmp::Reverse(e.1));
        sinks.into_iter().chain(forks).map(|e| e.0).collect()
    };
    let old: Vec<NodeId> = f.nodes.keys().filter(|n| !is_new.contains(n)).collect();
    let args: Vec<NodeId> = old
        .iter()
        .copied()
        .filter(|n| matches!(f.nodes[*n].op, Op::Argument { .. }))
        .collect();
    // Argument-anchored nodes: all sinks (reverse argument order), then all forks.
    let mut arg_entries: Vec<(usize, NodeId, bool)> = Vec::new();
    for &a in &args {
        let Op::Argument { index } = f.nodes[a].op else {
            continue;
        };
        for &(n, _, fork) in &anchored[a] {
            arg_entries.push((index, n, fork));
        }
    }
    arg_entries.sort_by_key(|(i, _, fork)| (*fork, std::cmp::Reverse(*i)));
    let mut order = args.clone();
    order.extend(arg_entries.iter().map(|e| e.1));
    for &n in &old {
        if matches!(f.nodes[n].op, Op::Argument { .. }) {
            continue;
        }
        order.push(n);
        order.extend(group(&anchored[n]));
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::ArgType;
    use crate::ops::ArithOp;
    use crate::types::Type;
    use crate::verify::{Rule, verify};

    /// The graph of the CIRCT experiment in the module docs:
    /// `a` used by fork x, s, t; `b` unused; `s` used by t, u and return.
    fn sample() -> Function {
        let i32t = Type::Int(32);
        let mut f = Function::new("f");
        let a = f.add_arg("a", ArgType::Channel(i32t.clone())).unwrap();
        let _b = f.add_arg("b", ArgType::Channel(i32t.clone())).unwrap();
        let c = f.add_arg("c", ArgType::Channel(Type::None)).unwrap();
        f.results = vec![
            crate::graph::FuncResult {
                name: "out0".into(),
                ty: i32t.clone(),
            },
            crate::graph::FuncResult {
                name: "out1".into(),
                ty: i32t.clone(),
            },
            crate::graph::FuncResult {
                name: "out2".into(),
                ty: Type::None,
            },
        ];
        let x = f.add_node(Op::Fork, vec![i32t.clone(); 2]);
        f.set_inputs(x, vec![a]);
        let x0 = f.nodes[x].outputs[0];
        let s = f.add_node(Op::Arith(ArithOp::Addi), vec![i32t.clone()]);
        f.set_inputs(s, vec![x0, a]);
        let sv = f.nodes[s].outputs[0];
        let t = f.add_node(Op::Arith(ArithOp::Addi), vec![i32t.clone()]);
        f.set_inputs(t, vec![sv, a]);
        let tv = f.nodes[t].outputs[0];
        let u = f.add_node(Op::Arith(ArithOp::Addi), vec![i32t.clone()]);
        f.set_inputs(u, vec![tv, sv]);
        let uv = f.nodes[u].outputs[0];
        let v = f.add_node(Op::Fork, vec![i32t.clone(); 2]);
        f.set_inputs(v, vec![uv]);
        let v0 = f.nodes[v].outputs[0];
        let r = f.add_node(Op::Return, vec![]);
        f.set_inputs(r, vec![v0, sv, c]);
        f.assign_ids().unwrap();
        f
    }

    #[test]
    fn circt_placement_matches_circt_numbering() {
        let mut f = sample();
        let before = verify(&f);
        assert_eq!(before.warnings_of(Rule::UnusedValue).count(), 3);
        assert_eq!(before.warnings_of(Rule::MultipleUses).count(), 2);
        let added = materialize(&mut f).unwrap();
        assert_eq!((added.forks.len(), added.sinks.len()), (2, 3));
        let r = verify(&f);
        assert!(r.is_ok(), "{:#?}", r.errors);
        assert!(r.warnings.is_empty(), "{:#?}", r.warnings);
        // CIRCT 1.62 prints: sink %b; fork[3] %a; fork[2] %x#2 (old fork0 -> fork1);
        // sink %x#1; addi; fork[3] %s; addi; addi; fork[2] %u (old fork1 -> fork3); sink %v#1.
        let ids: Vec<(&str, &str)> = f
            .nodes
            .values()
            .map(|n| (n.op.mnemonic(), n.id.as_str()))
            .filter(|(m, _)| *m != "arg")
            .collect();
        assert_eq!(
            ids,
            [
                ("sink", "sink0"),
                ("fork", "fork0"),
                ("fork", "fork1"),
                ("sink", "sink1"),
                ("addi", "addi0"),
                ("fork", "fork2"),
                ("addi", "addi1"),
                ("addi", "addi2"),
                ("fork", "fork3"),
                ("sink", "sink2"),
                ("return", "return0"),
            ]
        );
        // Fork output 0 feeds the last textual use of `a` (addi1), output 2 the first (fork1).
        let consumer =
            |ch: &str| f.consumer_name(f.channels[f.channel_by_name(ch).unwrap()].consumers[0]);
        assert_eq!(consumer("fork0.out0"), "addi1.in1");
        assert_eq!(consumer("fork0.out1"), "addi0.in1");
        assert_eq!(consumer("fork0.out2"), "fork1.in0");
        assert_eq!(consumer("fork2.out0"), "return0.in1");
        assert_eq!(consumer("fork2.out1"), "addi2.in1");
        assert_eq!(consumer("fork2.out2"), "addi1.in0");
        assert_eq!(consumer("b"), "sink0.in0");
        assert_eq!(consumer("fork3.out1"), "sink2.in0");
        assert_eq!(f.args[0].node.map(|n| f.nodes[n].id.as_str()), Some("a"));
    }

    #[test]
    fn append_placement_keeps_existing_ids_and_node_ids() {
        let mut f = sample();
        let old: Vec<(NodeId, String)> = f.nodes.iter().map(|(k, n)| (k, n.id.clone())).collect();
        let added = materialize_with(&mut f, Placement::Append).unwrap();
        for (k, id) in &old {
            assert_eq!(&f.nodes[*k].id, id);
        }
        assert!(
            added
                .forks
                .iter()
                .chain(&added.sinks)
                .all(|n| n.as_u32() as usize >= old.len())
        );
        let new_forks: Vec<&str> = added
            .forks
            .iter()
            .map(|n| f.nodes[*n].id.as_str())
            .collect();
        assert_eq!(new_forks, ["fork2", "fork3"]);
        assert!(verify(&f).is_ok());
    }

    #[test]
    fn nothing_to_do_is_identity() {
        let mut f = sample();
        materialize(&mut f).unwrap();
        let once = f.clone();
        let added = materialize(&mut f).unwrap();
        assert_eq!(added, Materialized::default());
        assert_eq!(f, once);
    }
}
