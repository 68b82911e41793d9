//! Invocation tags on hand-built circuits (C kernels: `compiler/tests/c_kernels.rs`).

use super::*;
use crate::engine::Simulation;
use crate::graph::{ArgType, FuncResult};
use crate::ops::BufferKind;
use crate::stimulus::{Environment, TokenSource};
use crate::types::Type;

/// Runs `f` in `env` with a trace and returns, per cycle, the tags of every channel.
fn tags_per_cycle(f: &Function, env: Environment, cycles: u64) -> (Trace, Vec<Vec<Option<Tag>>>) {
    let mut sim = Simulation::new(f, env).expect("the circuit compiles");
    sim.enable_trace();
    sim.run(cycles);
    let t = sim.trace().expect("traced").clone();
    let mut tagger = TraceTagger::new(f, &t);
    let all = (0..t.cycles())
        .map(|c| tagger.at(f, &t, c).expect("a cycle of the trace").to_vec())
        .collect();
    (t, all)
}

fn env_range(arg: &str, n: i128) -> Environment {
    let mut env = Environment::default();
    env.push_tokens(arg, TokenSource::Range { start: 0, end: n });
    env
}

#[test]
fn the_chain_carries_each_token_s_own_number() {
    // The chain passes its input tokens 0, 1, 2, ... through forks, buffers and syncs
    // unchanged: every offered token's tag is its value.
    let f = crate::bench_support::chain(4);
    let (t, all) = tags_per_cycle(&f, env_range("in0", 30), 500);
    let mut seen = 0;
    for (c, tags) in all.iter().enumerate() {
        let v = t.cycle(c as u64).unwrap();
        for (id, ch) in f.channels.iter() {
            let ti = t.channel_index(&ch.name).unwrap();
            if v.valid(ti) {
                assert_eq!(
                    tags[id.index()],
                    Some(v.data(ti) as Tag),
                    "{} at {c}",
                    ch.name
                );
                seen += 1;
            } else {
                assert_eq!(tags[id.index()], None, "{} at {c}", ch.name);
            }
        }
    }
    assert!(seen > 200, "{seen}");
}

#[test]
fn any_cycle_in_any_order_gives_the_same_tags() {
    let f = crate::bench_support::chain(3);
    let (t, all) = tags_per_cycle(&f, env_range("in0", 3000), 2600);
    let mut tagger = TraceTagger::new(&f, &t);
    for c in [2500u64, 7, 1500, 1024, 1023, 2047, 0, 2599] {
        assert_eq!(
            tagger.at(&f, &t, c).unwrap(),
            &all[c as usize][..],
            "cycle {c}"
        );
    }
    assert!(tagger.at(&f, &t, t.cycles()).is_none());
}

/// `in0 -> merge(in0, back) -> buffer [2] -> cond_br(cmp, value)`: a loop whose tokens keep
/// the invocation of the token that entered; `buffer`'s initial token is invocation 0.
#[test]
fn queues_keep_their_order_and_initial_tokens_are_invocation_zero() {
    let ty = Type::Int(8);
    let mut f = Function::new("q");
    let a = f.add_arg("a", ArgType::Channel(ty.clone())).unwrap();
    let buf = f.add_node(
        Op::Buffer {
            slots: 2,
            kind: BufferKind::Fifo,
            init: Some(vec![42]),
        },
        vec![ty.clone()],
    );
    f.set_inputs(buf, vec![a]);
    let ret = f.add_node(Op::Return, vec![]);
    f.set_inputs(ret, vec![f.nodes[buf].outputs[0]]);
    f.results.push(FuncResult {
        name: "out0".into(),
        ty,
    });
    f.assign_ids().unwrap();
    let mut env = Environment::default();
    env.push_tokens("a", TokenSource::Values(vec![5, 6, 7]));
    let (t, all) = tags_per_cycle(&f, env, 50);
    let out = f.nodes[buf].outputs[0];
    let ti = t.channel_index(&f.channels[out].name).unwrap();
    let fired: Vec<(u64, Option<Tag>)> = (0..t.cycles())
        .filter_map(|c| {
            let v = t.cycle(c).unwrap();
            (v.valid(ti) && v.ready(ti)).then(|| (v.data(ti), all[c as usize][out.index()]))
        })
        .collect();
    // Three results make the run done (three tokens on `a`); 7 stays in the buffer.
    assert_eq!(fired, [(42, Some(0)), (5, Some(0)), (6, Some(1))]);
}
