//! Applies a timing profile: a `pipeline` node behind every timed unit.
//!
//! For every output a [`TimingProfile`] times ([`TimingProfile::timed_outputs`]: the result of
//! an `arith`/`math` op, a memory's `ldData` ports), a `pipeline` of the unit's latency and
//! initiation interval is inserted between the producer and its consumers. The unit itself
//! stays as it was (combinational, as CIRCT builds it); the pipeline holds its results in
//! flight. New nodes are appended (every existing node keeps its [`NodeId`] and stable ID) and
//! named after the unit: `<unit>_pipe` for an op's result, `<memory>_ld<i>_pipe` for a read
//! port. The channel out of the unit is renamed after the pipeline (`<unit>_pipe.out0`) and the
//! one from the unit into the pipeline keeps the unit's name (`<unit>.out0`).

use crate::graph::{DuplicateId, Function, NameHint, NodeId};
use crate::ops::Op;
use crate::spec::timing::TimingProfile;

/// One inserted pipeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimedUnit {
    /// The pipeline node.
    pub pipeline: NodeId,
    /// The unit it times.
    pub unit: NodeId,
    /// The unit's output port it sits on.
    pub port: u32,
}

/// Inserts the pipelines of `profile` into `f` (nothing for a profile without latencies). An
/// output that already feeds a `pipeline` (a circuit written after a timed run, e.g. by
/// `tune`) is taken as timed and left alone, so applying a profile twice changes nothing.
pub fn apply_timing(
    f: &mut Function,
    profile: &TimingProfile,
) -> Result<Vec<TimedUnit>, DuplicateId> {
    let mut added = Vec::new();
    let nodes: Vec<NodeId> = f.nodes.keys().collect();
    let mut taken: std::collections::HashSet<String> =
        f.nodes.values().map(|n| n.id.clone()).collect();
    for unit in nodes {
        let timed = profile.timed_outputs_of(f, unit);
        for t in timed {
            let Some(&chan) = f.nodes[unit].outputs.get(t.port as usize) else {
                continue;
            };
            let consumers = &f.channels[chan].consumers;
            if !consumers.is_empty()
                && consumers
                    .iter()
                    .all(|c| matches!(f.nodes[c.node].op, Op::Pipeline { .. }))
            {
                continue;
            }
            let ty = f.channels[chan].ty.clone();
            let base = match &f.nodes[unit].op {
                Op::Memory { .. } | Op::ExtMemory { .. } => {
                    format!("{}_ld{}_pipe", f.nodes[unit].id, t.port)
                }
                _ => format!("{}_pipe", f.nodes[unit].id),
            };
            let mut id = base.clone();
            let mut k = 1;
            while taken.contains(&id) {
                id = format!("{base}{k}");
                k += 1;
            }
            taken.insert(id.clone());
            let p = f.add_node(
                Op::Pipeline {
                    latency: t.unit.latency,
                    ii: t.unit.ii,
                },
                vec![ty],
            );
            let out = f.nodes[p].outputs[0];
            let consumers = f.channels[chan].consumers.clone();
            for c in consumers {
                f.replace_input(c.node, c.port as usize, out);
            }
            // A `return` operand: the node lists it as an input like any consumer.
            f.set_inputs(p, vec![chan]);
            let (loc, block) = (f.nodes[unit].loc.clone(), f.nodes[unit].block.clone());
            let node = &mut f.nodes[p];
            node.id = id.clone();
            node.name_hint = NameHint::Name(id);
            node.loc = loc;
            node.block = block;
            added.push(TimedUnit {
                pipeline: p,
                unit,
                port: t.port,
            });
        }
    }
    if !added.is_empty() {
        f.rebuild_index()?;
    }
    Ok(added)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::ArithOp;
    use crate::types::Type;

    #[test]
    fn puts_a_pipeline_between_a_float_op_and_its_consumer() {
        let mut f = Function::new("f");
        let a = f
            .add_arg(
                "a",
                crate::graph::ArgType::Channel(Type::Float(crate::types::FloatKind::F32)),
            )
            .unwrap();
        let b = f
            .add_arg(
                "b",
                crate::graph::ArgType::Channel(Type::Float(crate::types::FloatKind::F32)),
            )
            .unwrap();
        let add = f.add_node(
            Op::Arith(ArithOp::Addf),
            vec![Type::Float(crate::types::FloatKind::F32)],
        );
        f.set_inputs(add, vec![a, b]);
        let sum = f.nodes[add].outputs[0];
        f.results.push(crate::graph::FuncResult {
            name: "out0".into(),
            ty: Type::Float(crate::types::FloatKind::F32),
        });
        let ret = f.add_node(Op::Return, vec![]);
        f.set_inputs(ret, vec![sum]);
        f.assign_ids().unwrap();
        assert!(
            apply_timing(&mut f, &TimingProfile::ideal())
                .unwrap()
                .is_empty()
        );
        let added = apply_timing(&mut f, &TimingProfile::fpga()).unwrap();
        assert_eq!(added.len(), 1);
        let p = added[0].pipeline;
        assert_eq!(f.nodes[p].id, "addf0_pipe");
        assert_eq!(f.nodes[p].op, Op::Pipeline { latency: 9, ii: 1 });
        assert_eq!(f.nodes[p].inputs, vec![sum]);
        assert_eq!(f.nodes[ret].inputs, vec![f.nodes[p].outputs[0]]);
        assert!(f.channel_by_name("addf0_pipe.out0").is_some());
        assert_eq!(f.channels[sum].consumers.len(), 1);
        // Idempotent: an output that feeds a pipeline is timed already.
        assert!(
            apply_timing(&mut f, &TimingProfile::fpga())
                .unwrap()
                .is_empty()
        );
        let report = crate::verify::verify(&f);
        assert!(report.is_ok(), "{report:?}");
    }
}
