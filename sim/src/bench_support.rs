//! Generated graphs for benchmarks and tests (cargo feature `bench-support`; not part of the
//! library's default API).

pub mod ideal_chain;

use crate::graph::{ArgType, FuncResult, Function};
use crate::ops::{BufferKind, Op};
use crate::stimulus::{Environment, TokenSource};
use crate::types::Type;

/// The stimulus every chain benchmark runs: `in0` takes 0, 1, 2, ... for as long as the run
/// lasts (2^40 tokens), results always ready.
pub fn chain_environment() -> Environment {
    let mut env = Environment::default();
    env.push_tokens(
        "in0",
        TokenSource::Range {
            start: 0,
            end: 1 << 40,
        },
    );
    env
}

/// A chain of `n` stages on `i32` data, argument `in0`, result `out0`. Each stage:
/// `fork [2]` -> `buffer [2] seq` on out0 and `buffer [1] fifo` on out1 -> `sync` (2 in,
/// 2 out) -> `sink` on sync.out0, while sync.out1 feeds the next stage. 5 nodes per stage.
pub fn chain(n: usize) -> Function {
    let ty = Type::Int(32);
    let mut f = Function::new(format!("chain{n}"));
    let mut cur = f
        .add_arg("in0", ArgType::Channel(ty.clone()))
        .expect("channel argument");
    for _ in 0..n {
        let fork = f.add_node(Op::Fork, vec![ty.clone(), ty.clone()]);
        f.set_inputs(fork, vec![cur]);
        let (a, b) = (f.nodes[fork].outputs[0], f.nodes[fork].outputs[1]);
        let b2 = f.add_node(
            Op::Buffer {
                slots: 2,
                kind: BufferKind::Seq,
                init: None,
            },
            vec![ty.clone()],
        );
        f.set_inputs(b2, vec![a]);
        let b1 = f.add_node(
            Op::Buffer {
                slots: 1,
                kind: BufferKind::Fifo,
                init: None,
            },
            vec![ty.clone()],
        );
        f.set_inputs(b1, vec![b]);
        let sync = f.add_node(Op::Sync, vec![ty.clone(), ty.clone()]);
        let ins = vec![f.nodes[b2].outputs[0], f.nodes[b1].outputs[0]];
        f.set_inputs(sync, ins);
        let sink = f.add_node(Op::Sink, vec![]);
        f.set_inputs(sink, vec![f.nodes[sync].outputs[0]]);
        cur = f.nodes[sync].outputs[1];
    }
    let ret = f.add_node(Op::Return, vec![]);
    f.set_inputs(ret, vec![cur]);
    f.results.push(FuncResult {
        name: "out0".into(),
        ty,
    });
    f.assign_ids().expect("generated IDs are unique");
    f
}
