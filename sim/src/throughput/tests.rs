//! The model and the measures on graphs built by hand: a diamond (fork, `long` one-slot
//! buffers on one arm, `short` on the other, an adder), the critical cycle's ratio against
//! the measured interval, the trace's counts against the run report's, and `apply`.

use super::model::{Direction, Model, ModelOptions, critical_cycle};
use super::tune::{SlotChange, TuneOptions, apply, tune};
use super::{analyze, measure};
use crate::graph::{ArgType, FuncResult, Function};
use crate::ops::{BufferKind, Op};
use crate::session::Session;
use crate::stimulus::TokenSource;
use crate::types::Type;

fn buffer() -> Op {
    Op::Buffer {
        slots: 1,
        kind: BufferKind::Seq,
        init: None,
    }
}

fn diamond(long: usize, short: usize) -> Function {
    let mut f = Function::new("d");
    let a = f.add_arg("a", ArgType::Channel(Type::Int(32))).unwrap();
    let fork = f.add_node(Op::Fork, vec![Type::Int(32), Type::Int(32)]);
    f.set_inputs(fork, vec![a]);
    let outs = f.nodes[fork].outputs.clone();
    let mut arm = |from, n| {
        let mut prev = from;
        for _ in 0..n {
            let b = f.add_node(buffer(), vec![Type::Int(32)]);
            f.set_inputs(b, vec![prev]);
            prev = f.nodes[b].outputs[0];
        }
        prev
    };
    let l = arm(outs[0], long);
    let s = arm(outs[1], short);
    let add = f.add_node(Op::Arith(crate::ops::ArithOp::Addi), vec![Type::Int(32)]);
    f.set_inputs(add, vec![l, s]);
    let sum = f.nodes[add].outputs[0];
    f.results.push(FuncResult {
        name: "out".into(),
        ty: Type::Int(32),
    });
    let r = f.add_node(Op::Return, vec![]);
    f.set_inputs(r, vec![sum]);
    f.assign_ids().unwrap();
    f
}

fn session(f: Function, tokens: u64) -> Session {
    let mut s = Session::new(f).unwrap();
    s.bind_tokens("a", TokenSource::Values((0..tokens).collect()))
        .unwrap();
    s
}

#[test]
fn diamond_cycle_ratio_is_the_measured_interval() {
    for (short, latency, tokens) in [(0, 5, 1), (1, 6, 3), (2, 7, 5), (5, 10, 9)] {
        let f = diamond(4, short);
        let m = Model::build(&f, ModelOptions::default());
        let c = critical_cycle(&m, |_| true).expect("a cycle");
        assert_eq!(
            (c.latency, c.tokens),
            (latency, tokens),
            "short arm {short}"
        );
        // The cycle goes forward through one arm, back through the other, turns twice.
        let turns = c
            .edges
            .iter()
            .filter(|&&e| m.graph[e].dir == Direction::Turn)
            .count();
        assert_eq!(turns, 2, "short arm {short}");
        let run = session(f.clone(), 300).run(100_000, true).unwrap();
        let r = analyze(&f, run.trace.as_ref().unwrap());
        let ii = r.regions[0].measured_ii.unwrap();
        let want = (latency as f64 / tokens as f64).max(1.0);
        assert!(
            (ii - want).abs() < 0.02,
            "short arm {short}: {ii} vs {want}"
        );
    }
}

#[test]
fn a_balanced_diamond_has_no_limit() {
    let m = Model::build(&diamond(0, 0), ModelOptions::default());
    let c = critical_cycle(&m, |_| true).expect("each channel closes a cycle");
    assert!(c.tokens >= c.latency, "{c:?}");
}

#[test]
fn trace_counts_equal_the_report() {
    let f = diamond(4, 1);
    let run = session(f.clone(), 50).run(100_000, true).unwrap();
    let acts = measure::activity(&f, run.trace.as_ref().unwrap());
    for (c, ch) in &f.channels {
        let a = measure::of(&acts, c);
        let st = run.report.stats[&ch.name];
        assert_eq!(
            (a.fires, a.stalls),
            (st.fires, st.stall_cycles),
            "{}",
            ch.name
        );
    }
}

#[test]
fn apply_grows_buffers_or_inserts_one() {
    let f = diamond(2, 0);
    let g = apply(
        &f,
        &[
            SlotChange {
                channel: "fork0.out1".into(),
                slots: 3,
            },
            SlotChange {
                channel: "buffer0.out0".into(),
                slots: 2,
            },
        ],
    )
    .unwrap();
    let tune0 = g.node_by_id("tune0").expect("inserted");
    assert!(matches!(g.nodes[tune0].op, Op::Buffer { slots: 3, .. }));
    let b0 = g.node_by_id("buffer0").unwrap();
    assert!(matches!(g.nodes[b0].op, Op::Buffer { slots: 3, .. }));
    assert!(crate::verify::verify(&g).is_ok());
    assert!(
        apply(
            &f,
            &[SlotChange {
                channel: "nope".into(),
                slots: 1
            }]
        )
        .is_err()
    );
}

/// In a circuit of Dynamatic's components, slots go into Dynamatic's buffers: a grown
/// one-slot buffer becomes the FIFO of its cuts, a new one is a FIFO_BREAK_NONE.
#[test]
fn apply_uses_dynamatic_buffers_in_dynamatic_circuits() {
    use crate::ops::DynBufferKind as K;
    let mut f = Function::new("d");
    let a = f.add_arg("a", ArgType::Channel(Type::Int(8))).unwrap();
    let b = f.add_node(
        Op::DynBuffer {
            kind: K::OneSlotBreakDv,
            slots: 1,
        },
        vec![Type::Int(8)],
    );
    f.set_inputs(b, vec![a]);
    let fk = f.add_node(Op::Fork, vec![Type::Int(8), Type::Int(8)]);
    f.set_inputs(fk, vec![f.nodes[b].outputs[0]]);
    for i in 0..2 {
        f.results.push(FuncResult {
            name: format!("r{i}"),
            ty: Type::Int(8),
        });
    }
    let r = f.add_node(Op::Return, vec![]);
    f.set_inputs(r, f.nodes[fk].outputs.clone());
    f.assign_ids().unwrap();
    let g = apply(
        &f,
        &[
            SlotChange {
                channel: "dyn_buffer0.out0".into(),
                slots: 2,
            },
            SlotChange {
                channel: "fork0.out1".into(),
                slots: 3,
            },
        ],
    )
    .unwrap();
    let b0 = g.node_by_id("dyn_buffer0").unwrap();
    assert_eq!(
        g.nodes[b0].op,
        Op::DynBuffer {
            kind: K::FifoBreakDv,
            slots: 3
        }
    );
    let t0 = g.node_by_id("tune0").unwrap();
    assert_eq!(
        g.nodes[t0].op,
        Op::DynBuffer {
            kind: K::FifoBreakNone,
            slots: 3
        }
    );
    assert!(crate::verify::verify(&g).is_ok());
}

#[test]
fn tune_balances_the_diamond() {
    let s = session(diamond(4, 0), 40);
    let t = tune(&s, TuneOptions::default()).unwrap();
    assert_eq!(t.before.ii, Some(5.0));
    assert_eq!(t.after.ii, Some(1.0));
    assert_eq!(
        t.changes,
        [SlotChange {
            channel: "fork0.out1".into(),
            slots: 4
        }]
    );
}

/// Issue 36, item 4: `tune --max-slots 3000000000` never returned (the doubling step count
/// wrapped to 0). Any limit ends, with the same answer as a small one.
#[test]
fn tune_ends_for_any_slot_limit() {
    let huge = TuneOptions {
        max_slots: u32::MAX,
        ..TuneOptions::default()
    };
    // Nothing to gain: every step size is tried, up to one buffer's limit.
    let t = tune(&session(diamond(0, 0), 10), huge).unwrap();
    assert!(t.changes.is_empty(), "{:?}", t.changes);
    let t = tune(&session(diamond(4, 0), 40), huge).unwrap();
    assert_eq!(
        t.changes,
        [SlotChange {
            channel: "fork0.out1".into(),
            slots: 4
        }]
    );
}

/// A Dynamatic `COUNTER_BUFFER` of 3 cycles passes a stream one token every 3 cycles: the
/// model's critical cycle (3 forward, one place) says so and the run measures it.
#[test]
fn a_counter_buffer_paces_a_stream_by_its_latency() {
    let mut f = Function::new("c");
    let a = f.add_arg("a", ArgType::Channel(Type::Int(8))).unwrap();
    let b = f.add_node(Op::DynCounterBuffer { latency: 3 }, vec![Type::Int(8)]);
    f.set_inputs(b, vec![a]);
    f.results.push(FuncResult {
        name: "out".into(),
        ty: Type::Int(8),
    });
    let r = f.add_node(Op::Return, vec![]);
    f.set_inputs(r, vec![f.nodes[b].outputs[0]]);
    f.assign_ids().unwrap();
    let m = Model::build(&f, ModelOptions::default());
    let c = critical_cycle(&m, |_| true).expect("the buffer's place closes a cycle");
    assert_eq!((c.latency, c.tokens), (3, 1), "{c:?}");
    let run = session(f.clone(), 30).run(10_000, true).unwrap();
    let acts = measure::activity(&f, run.trace.as_ref().unwrap());
    let out = f.nodes[b].outputs[0];
    let ii = measure::of(&acts, out).interval().unwrap();
    assert!((ii - 3.0).abs() < 0.01, "{ii}");
}
