//! Deliberate deadlocks and the explanations the analysis gives.

use crate::common;

use common::*;
use handscope_sim::engine::Simulation;
use handscope_sim::report::Status;
use handscope_sim::stimulus::{Environment, TokenSource};
use handscope_sim::{BufferKind, Op, Type};

#[test]
fn join_input_routed_elsewhere_by_cond_br() {
    let mut f = handscope_sim::Function::new("t");
    let c = arg(&mut f, "c", Type::Int(1));
    let d = arg(&mut f, "d", Type::Int(8));
    let x = arg(&mut f, "x", Type::Int(8));
    let cb = node(
        &mut f,
        Op::CondBr,
        vec![c, d],
        vec![Type::Int(8), Type::Int(8)],
    );
    let (t, fl) = (out(&f, cb, 0), out(&f, cb, 1));
    node(&mut f, Op::Sink, vec![fl], vec![]);
    let j = node(&mut f, Op::Join, vec![x, t], vec![Type::None]);
    let jo = out(&f, j, 0);
    ret(&mut f, vec![jo]);
    let mut env = Environment::default();
    env.push_tokens("c", TokenSource::Values(vec![0]));
    env.push_tokens("d", TokenSource::Values(vec![5]));
    env.push_tokens("x", TokenSource::Values(vec![7]));
    let mut sim = Simulation::new(&f, env).unwrap();
    let r = sim.run(1000);
    assert_eq!(r.status, Status::Deadlock);
    assert!(r.cycles < 40, "stopped early: {}", r.cycles);
    let d = r.deadlock.as_ref().unwrap();
    assert_eq!(d.stuck.len(), 1);
    assert_eq!(d.stuck[0].channel, "x");
    assert_eq!(d.stuck[0].consumer, "join0.in0");
    assert_eq!(d.stuck[0].since, 0);
    assert_eq!(d.missing_results["r0"], 1);
    let text = d.explanation.join("\n");
    assert!(
        text.contains("join0 waits for join0.in1 (cond_br0.outTrue)"),
        "{text}"
    );
    assert!(
        text.contains("cond_br0 sent its token to outFalse (cond = false; last at cycle 0"),
        "{text}"
    );
    assert!(d.cycles.is_empty());
    assert!(
        d.chains
            .iter()
            .any(|c| c.last().map(String::as_str) == Some("cond_br0")),
        "{:?}",
        d.chains
    );
    // The chain as explained steps: the return waits for join0, join0 for cond_br0, and the
    // chain ends because cond_br0 routed its token the other way.
    assert_eq!(d.paths.len(), d.chains.len());
    let chain = d
        .paths
        .iter()
        .find(|p| p.steps.last().is_some_and(|s| s.to == "cond_br0"))
        .expect("a path ending at cond_br0");
    assert!(!chain.cyclic);
    let last = chain.steps.last().unwrap();
    assert_eq!(
        (last.from.as_str(), last.channel.as_str(), last.kind),
        ("join0", "cond_br0.outTrue", "needs")
    );
    assert!(
        chain
            .terminal
            .as_deref()
            .is_some_and(|t| t.contains("sent its token to outFalse")),
        "{:?}",
        chain.terminal
    );
    let human = handscope_sim::report::render_human(&r);
    assert!(
        human.contains("stuck: x = 7 since cycle 0 -> join0.in0"),
        "{human}"
    );
}

#[test]
fn loop_without_initial_token_waits_on_itself() {
    // join(a, loop) -> fork -> {result, buffer -> join.in1}: the loop has no token.
    let mut f = handscope_sim::Function::new("t");
    let a = arg(&mut f, "a", Type::Int(8));
    let j = f.add_node(Op::Join, vec![Type::None]);
    let jo = out(&f, j, 0);
    let fk = node(&mut f, Op::Fork, vec![jo], vec![Type::None, Type::None]);
    let f1 = out(&f, fk, 1);
    let b = node(
        &mut f,
        Op::Buffer {
            slots: 1,
            kind: BufferKind::Seq,
            init: None,
        },
        vec![f1],
        vec![Type::None],
    );
    let ins = vec![a, out(&f, b, 0)];
    f.set_inputs(j, ins);
    let r0 = out(&f, fk, 0);
    ret(&mut f, vec![r0]);
    let mut env = Environment::default();
    env.push_tokens("a", TokenSource::Values(vec![3]));
    let mut sim = Simulation::new(&f, env).unwrap();
    let r = sim.run(1000);
    assert_eq!(r.status, Status::Deadlock);
    let d = r.deadlock.unwrap();
    assert_eq!(d.cycles.len(), 1, "{:?}", d.explanation);
    let mut members = d.cycles[0].clone();
    members.sort();
    assert_eq!(members, ["buffer0", "fork0", "join0"]);
    // The cycle as steps: each waits for the next, the last for the first.
    let p = &d.paths[0];
    assert!(p.cyclic && p.terminal.is_none());
    assert_eq!(p.steps.len(), 3);
    for (k, s) in p.steps.iter().enumerate() {
        assert_eq!(s.from, d.cycles[0][k]);
        assert_eq!(s.to, d.cycles[0][(k + 1) % 3]);
    }
    let text = d.explanation.join("\n");
    assert!(text.contains("Wait-for cycle"), "{text}");
    assert!(
        text.contains("a holds a=3 since cycle 0 and waits for join0.in0"),
        "{text}"
    );
}

#[test]
fn done_runs_are_not_deadlocks() {
    let f = handscope_sim::bench_support::chain(2);
    let mut env = Environment::default();
    env.push_tokens("in0", TokenSource::Range { start: 0, end: 5 });
    let mut sim = Simulation::new(&f, env).unwrap();
    let r = sim.run(1000);
    assert_eq!(r.status, Status::Done);
    assert!(r.deadlock.is_none());
}

/// A filter (cond_br whose false side is sunk) returns fewer tokens than it consumed: once
/// every input is consumed and no token is left, the run is done (drained), not a deadlock.
/// The same circuit with a token stuck in it (a result that never accepts) is a deadlock.
#[test]
fn a_drained_stream_is_done_not_deadlocked() {
    let mut f = handscope_sim::Function::new("t");
    let c = arg(&mut f, "c", Type::Int(1));
    let d = arg(&mut f, "d", Type::Int(8));
    let cb = node(
        &mut f,
        Op::CondBr,
        vec![c, d],
        vec![Type::Int(8), Type::Int(8)],
    );
    let (t, fl) = (out(&f, cb, 0), out(&f, cb, 1));
    node(&mut f, Op::Sink, vec![fl], vec![]);
    ret(&mut f, vec![t]);
    let mut env = Environment::default();
    env.push_tokens("c", TokenSource::Values(vec![1, 0, 1]));
    env.push_tokens("d", TokenSource::Values(vec![5, 6, 7]));
    let mut sim = Simulation::new(&f, env.clone()).unwrap();
    let r = sim.run(1000);
    assert_eq!(r.status, Status::Done, "{r:?}");
    let got: Vec<u64> = r.outputs["r0"].iter().map(|t| t.bits).collect();
    assert_eq!(got, [5, 7]);
    let why = r.drained.as_deref().expect("says it drained");
    assert!(why.contains("r0 got 2 of 3"), "{why}");
    assert!(r.deadlock.is_none());
    // A result that never accepts keeps a token in the circuit: deadlock.
    env.set_ready(
        "r0",
        handscope_sim::stimulus::ReadyPolicy::Pattern(vec![false]),
    );
    let r = Simulation::new(&f, env).unwrap().run(1000);
    assert_eq!(r.status, Status::Deadlock);
    assert!(r.drained.is_none());
}
