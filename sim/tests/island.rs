//! Static islands (`docs/semantics.md` "Static islands"): an island takes its inputs
//! together while idle, offers its results `(iterations - 1) * ii + latency` cycles later,
//! holds them while an output stalls, and takes the next inputs only once every output was
//! taken; a run whose island counts down for longer than the deadlock window still ends
//! `done`.

use crate::common;

use common::*;
use handscope_sim::engine::Simulation;
use handscope_sim::island::{
    EdgeTarget, Island, IslandBlock, IslandEdge, IslandExit, IslandPipeline, IslandStep,
    ScheduledOp, StepOp,
};
use handscope_sim::report::Status;
use handscope_sim::spec::{IslandPhase, NodeState};
use handscope_sim::stimulus::{Environment, ReadyPolicy, TokenSource};
use handscope_sim::{ArithOp, CmpPredicate, Function, Op, Type};

/// `while (n > 0) { s += n; n -= 1; } return s;` scheduled at `ii`, `latency`.
fn countdown(ii: u32, latency: u32) -> Island {
    let i32t = Type::Int(32);
    // slots: 0 n, 1 s, 2 zero, 3 n > 0, 4 s + n, 5 one, 6 n - 1
    let edge = |to, args: Vec<u32>, cycles| IslandEdge { to, args, cycles };
    Island {
        slots: vec![
            i32t.clone(),
            i32t.clone(),
            i32t.clone(),
            Type::Int(1),
            i32t.clone(),
            i32t.clone(),
            i32t,
        ],
        params: 2,
        memories: vec![],
        blocks: vec![
            IslandBlock {
                params: vec![0, 1],
                steps: vec![
                    IslandStep {
                        op: StepOp::Const(0),
                        args: vec![],
                        result: 2,
                    },
                    IslandStep {
                        op: StepOp::Arith(ArithOp::Cmpi(CmpPredicate::Sgt)),
                        args: vec![0, 2],
                        result: 3,
                    },
                ],
                exit: IslandExit::Branch {
                    cond: 3,
                    t: edge(EdgeTarget::Block(1), vec![], 0),
                    f: edge(EdgeTarget::Leave, vec![1], latency),
                },
            },
            IslandBlock {
                params: vec![],
                steps: vec![
                    IslandStep {
                        op: StepOp::Arith(ArithOp::Addi),
                        args: vec![1, 0],
                        result: 4,
                    },
                    IslandStep {
                        op: StepOp::Const(1),
                        args: vec![],
                        result: 5,
                    },
                    IslandStep {
                        op: StepOp::Arith(ArithOp::Subi),
                        args: vec![0, 5],
                        result: 6,
                    },
                ],
                exit: IslandExit::Goto(edge(EdgeTarget::Block(0), vec![6, 4], ii)),
            },
        ],
        pipelines: vec![IslandPipeline {
            header: 0,
            blocks: vec![0, 1],
            line: 1,
            ii,
            latency,
            ops: vec![
                ScheduledOp {
                    name: "cmpi".into(),
                    line: 1,
                    start: 0,
                    latency: 1,
                },
                ScheduledOp {
                    name: "addi".into(),
                    line: 1,
                    start: 1,
                    latency: 1,
                },
                ScheduledOp {
                    name: "subi".into(),
                    line: 1,
                    start: latency - 1,
                    latency: 1,
                },
            ],
        }],
    }
}

fn graph(isl: Island) -> Function {
    let mut f = Function::new("t");
    let c = arg(&mut f, "c", Type::None);
    let n = arg(&mut f, "n", Type::Int(32));
    let s = arg(&mut f, "s", Type::Int(32));
    let i = node(
        &mut f,
        Op::Island(Box::new(isl)),
        vec![c, n, s],
        vec![Type::None, Type::Int(32)],
    );
    let (o0, o1) = (out(&f, i, 0), out(&f, i, 1));
    ret(&mut f, vec![o0, o1]);
    f
}

fn env(ns: Vec<u64>, ready: ReadyPolicy) -> Environment {
    let mut e = Environment::default();
    e.push_tokens("c", TokenSource::Values(vec![0; ns.len()]));
    e.push_tokens("s", TokenSource::Values(vec![100; ns.len()]));
    e.push_tokens("n", TokenSource::Values(ns));
    e.set_ready("r1", ready);
    e
}

#[test]
fn results_come_after_the_schedule() {
    // n = 3: the header runs 4 times (3 back edges of ii 2), then the last iteration's 3
    // cycles: results at cycle 9. The output stalls for two cycles; the next invocation
    // (n = 1: 1 back edge, results 5 cycles after it was taken) enters once both outputs
    // are taken.
    let f = graph(countdown(2, 3));
    let ready = ReadyPolicy::Pattern(
        std::iter::repeat_n(true, 9)
            .chain([false, false])
            .chain(std::iter::repeat_n(true, 20))
            .collect(),
    );
    let mut sim = Simulation::new(&f, env(vec![3, 1], ready)).unwrap();
    let w = fmt_wave(&wave(&mut sim, &["n", "island0.out1"], 18));
    assert_eq!(
        w,
        [
            "F3 R", // 0: taken
            "V1 R", "V1 R", // the next input waits while the island runs
            "V1 R", "V1 R", "V1 R", "V1 R", "V1 R", "V1 R",    //
            "V1 V106", // 9: 100 + 3 + 2 + 1, the output stalls
            "V1 V106", // 10: held
            "V1 F106", // 11: taken
            "F1 R",    // 12: idle again: the next invocation enters
            ". R", ". R", ". R", ". R",    // no more inputs; the island runs
            ". F101", // 17: 12 + (2 - 1) * 2 + 3
        ]
    );
    for _ in 0..40 {
        sim.step();
    }
    assert_eq!(sim.status(), Some(Status::Done));
}

#[test]
fn the_state_shows_which_iteration_each_stage_holds() {
    let f = graph(countdown(1, 3));
    let mut sim = Simulation::new(&f, env(vec![5], ReadyPolicy::Always)).unwrap();
    // Taken at cycle 0, where iteration 0 begins; at cycle 3 (3 cycles since) iterations
    // 1..=3 are in the three stages, and the controller, a cone (an iteration) per cycle,
    // has begun 4.
    for _ in 0..3 {
        sim.step();
    }
    let id = f.node_by_id("island0").unwrap();
    let Op::Island(isl) = &f.nodes[id].op else {
        unreachable!()
    };
    let NodeState::Island(st) = f.nodes[id].op.spec().state.decode(sim.registers(id).0) else {
        panic!("island state")
    };
    assert_eq!(st.phase, IslandPhase::Running);
    assert_eq!(st.iterations, 4);
    assert_eq!(st.elapsed, 3);
    assert!(!st.walked);
    let rows = isl.stage_table(Some((st.elapsed, st.iterations)));
    let held: Vec<Option<u64>> = rows.iter().map(|r| r.iteration).collect();
    assert_eq!(held, [Some(3), Some(2), Some(1)]);
    assert_eq!(rows[0].ops, ["cmpi (line 1)"]);
    assert_eq!(rows[2].ops, ["subi (line 1)"]);
}

#[test]
fn a_long_loop_is_not_a_deadlock() {
    // 5000 iterations, nothing moving on any channel for 5000 cycles.
    let f = graph(countdown(1, 4));
    let mut sim = Simulation::new(&f, env(vec![4999], ReadyPolicy::Always)).unwrap();
    for _ in 0..6000 {
        sim.step();
        if sim.status().is_some() {
            break;
        }
    }
    assert_eq!(sim.status(), Some(Status::Done), "{:?}", sim.status());
    assert_eq!(sim.cycle(), 4999 + 4 + 1);
}
