//! Helpers to build small graphs with the Function API.
#![allow(dead_code)]

use handscope_sim::engine::Simulation;
use handscope_sim::{ArgType, ChannelId, FuncResult, Function, NodeId, Op, Type};

pub fn arg(f: &mut Function, name: &str, ty: Type) -> ChannelId {
    f.add_arg(name, ArgType::Channel(ty)).unwrap()
}

pub fn node(f: &mut Function, op: Op, ins: Vec<ChannelId>, outs: Vec<Type>) -> NodeId {
    let n = f.add_node(op, outs);
    f.set_inputs(n, ins);
    n
}

pub fn out(f: &Function, n: NodeId, i: usize) -> ChannelId {
    f.nodes[n].outputs[i]
}

/// Adds the return node; results are named `r0`, `r1`, ...
pub fn ret(f: &mut Function, chans: Vec<ChannelId>) {
    for (i, &c) in chans.iter().enumerate() {
        let ty = f.channels[c].ty.clone();
        f.results.push(FuncResult {
            name: format!("r{i}"),
            ty,
        });
    }
    node(f, Op::Return, chans, vec![]);
    f.assign_ids().unwrap();
}

/// Per-cycle (valid, ready, data) of channel `name` over `n` steps.
pub fn wave(sim: &mut Simulation, names: &[&str], n: usize) -> Vec<Vec<(bool, bool, u64)>> {
    let chans: Vec<ChannelId> = names
        .iter()
        .map(|nm| {
            sim.function()
                .channel_by_name(nm)
                .unwrap_or_else(|| panic!("{nm}"))
        })
        .collect();
    let mut rows = Vec::new();
    for _ in 0..n {
        sim.step();
        rows.push(
            chans
                .iter()
                .map(|&c| (sim.valid(c), sim.ready(c), sim.data(c)))
                .collect(),
        );
    }
    rows
}

/// Compact waveform: per cycle, per channel "V"/"R"/"F"(fire)/"." plus data when valid.
pub fn fmt_wave(rows: &[Vec<(bool, bool, u64)>]) -> Vec<String> {
    rows.iter()
        .map(|r| {
            r.iter()
                .map(|&(v, rd, d)| match (v, rd) {
                    (true, true) => format!("F{d}"),
                    (true, false) => format!("V{d}"),
                    (false, true) => "R".to_string(),
                    (false, false) => ".".to_string(),
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}
