//! Dynamatic's components (`docs/semantics.md` "Dynamatic's components"): waveforms worked
//! out by hand from the equations there, run by the interpreter and by compiled code.

use crate::common;

use common::*;
use handscope_sim::engine::{EngineKind, Simulation};
use handscope_sim::report::Status;
use handscope_sim::stimulus::{Environment, ReadyPolicy, TokenSource};
use handscope_sim::{DynBufferKind, Op, Type};

/// The waveform of `names` over `cycles` cycles, the same from both engines.
fn wave_both(
    f: &handscope_sim::Function,
    env: &Environment,
    names: &[&str],
    cycles: usize,
) -> Vec<String> {
    let mut waves = Vec::new();
    for engine in [EngineKind::Interpreter, EngineKind::Compiled] {
        let mut e = env.clone();
        e.engine = engine;
        let mut sim = Simulation::new(f, e).unwrap();
        sim.set_stop_when_done(false);
        waves.push(fmt_wave(&wave(&mut sim, names, cycles)));
    }
    assert_eq!(waves[0], waves[1], "interpreter vs compiled code");
    waves.swap_remove(0)
}

/// `a` (i8) through one Dynamatic buffer into result `r0`, which is ready from cycle 3.
fn buffer_wave(kind: DynBufferKind, slots: u32) -> Vec<String> {
    op_wave(Op::DynBuffer { kind, slots }, "dyn_buffer0.out0")
}

/// `a` (i8) through one node of `op` (its output `out`) into result `r0`, which is ready
/// from cycle 3.
fn op_wave(op: Op, out_name: &str) -> Vec<String> {
    let mut f = handscope_sim::Function::new("t");
    let a = arg(&mut f, "a", Type::Int(8));
    let b = node(&mut f, op, vec![a], vec![Type::Int(8)]);
    let o = out(&f, b, 0);
    ret(&mut f, vec![o]);
    let mut e = Environment::default();
    e.push_tokens("a", TokenSource::Values(vec![10, 11, 12]));
    e.set_ready(
        "r0",
        ReadyPolicy::Pattern(vec![false, false, false, true, true, true, true]),
    );
    wave_both(&f, &e, &["a", out_name], 6)
}

/// `ONE_SLOT_BREAK_DV`: one token, one cycle of latency, and a full buffer whose token leaves
/// takes the next in the same cycle.
#[test]
fn one_slot_break_dv_holds_one_token_and_refills_as_it_drains() {
    assert_eq!(
        buffer_wave(DynBufferKind::OneSlotBreakDv, 1),
        ["F10 .", "V11 V10", "V11 V10", "F11 F10", "F12 F11", "R F12"]
    );
}

/// `ONE_SLOT_BREAK_R`: an empty buffer passes the token through in the same cycle; a stalled
/// output makes it keep one, and while it holds one it takes nothing, even in the cycle the
/// token leaves.
#[test]
fn one_slot_break_r_passes_through_and_keeps_one_on_a_stall() {
    assert_eq!(
        buffer_wave(DynBufferKind::OneSlotBreakR, 1),
        [
            "F10 V10", "V11 V10", "V11 V10", "V11 F10", "F11 F11", "F12 F12"
        ]
    );
}

/// `FIFO_BREAK_NONE`: passes through while empty, queues on a stall, takes a token in the
/// cycle a full FIFO's head leaves, and its queued tokens go first.
#[test]
fn fifo_break_none_passes_through_queues_and_keeps_order() {
    assert_eq!(
        buffer_wave(DynBufferKind::FifoBreakNone, 2),
        ["F10 V10", "F11 V10", "V12 V10", "F12 F10", "R F11", "R F12"]
    );
}

/// `FIFO_BREAK_DV`: one cycle of latency, two tokens, and a token taken in the cycle a full
/// FIFO's head leaves (the circular FIFO wraps).
#[test]
fn fifo_break_dv_delays_by_one_and_wraps() {
    assert_eq!(
        buffer_wave(DynBufferKind::FifoBreakDv, 2),
        ["F10 .", "F11 V10", "V12 V10", "F12 F10", "R F11", "R F12"]
    );
}

/// `ONE_SLOT_BREAK_DVR`: one cycle of latency, and every path cut: it takes a token only
/// while empty, never in the cycle its token leaves, so a stream passes every other cycle.
#[test]
fn one_slot_break_dvr_takes_a_token_only_while_empty() {
    assert_eq!(
        buffer_wave(DynBufferKind::OneSlotBreakDvr, 1),
        ["F10 .", "V11 V10", "V11 V10", "V11 F10", "F11 R", "V12 F11"]
    );
}

/// `COUNTER_BUFFER` of 2 cycles: a token taken in cycle 0 is offered from cycle 2; nothing
/// enters while it waits or stalls, and the next enters in the cycle it leaves.
#[test]
fn counter_buffer_holds_each_token_its_latency() {
    assert_eq!(
        op_wave(
            Op::DynCounterBuffer { latency: 2 },
            "dyn_counter_buffer0.out0"
        ),
        ["F10 .", "V11 .", "V11 V10", "F11 F10", "V12 R", "F12 F11"]
    );
}

/// A stalling pipeline of 3 stages fed 1, (nothing), 3: while its output stalls every stage
/// freezes, the bubble between the tokens included, so 3 leaves two cycles after 1 (an
/// elastic `pipeline` would have closed the gap: one cycle).
#[test]
fn a_stalled_dynamatic_pipeline_freezes_its_bubbles() {
    let mut f = handscope_sim::Function::new("t");
    let c = arg(&mut f, "c", Type::Int(1));
    let d = arg(&mut f, "d", Type::Int(8));
    let br = node(
        &mut f,
        Op::CondBr,
        vec![c, d],
        vec![Type::Int(8), Type::Int(8)],
    );
    let (t, fl) = (out(&f, br, 0), out(&f, br, 1));
    node(&mut f, Op::Sink, vec![fl], vec![]);
    let p = node(
        &mut f,
        Op::DynPipeline { latency: 3 },
        vec![t],
        vec![Type::Int(8)],
    );
    let o = out(&f, p, 0);
    ret(&mut f, vec![o]);
    let mut e = Environment::default();
    e.push_tokens("c", TokenSource::Values(vec![1, 0, 1]));
    e.push_tokens("d", TokenSource::Values(vec![1, 2, 3]));
    e.set_ready(
        "r0",
        ReadyPolicy::Pattern(vec![
            false, false, false, false, false, true, true, true, true,
        ]),
    );
    assert_eq!(
        wave_both(&f, &e, &["cond_br0.outTrue", "dyn_pipeline0.out0"], 8),
        [
            "F1 .", "R .", "F3 .", // 1, a bubble (2 went to the sink), 3
            ". V1", ". V1", // stalled: nothing moves
            "R F1", "R R", "R F3", // the bubble comes out between them
        ]
    );
    let mut sim = Simulation::new(&f, e).unwrap();
    sim.run(100);
    let r = sim.report();
    assert_eq!(r.status, Status::Done);
    let cycles: Vec<u64> = r.outputs["r0"].iter().map(|t| t.cycle).collect();
    assert_eq!(cycles, [5, 7]);
}

/// Dynamatic's `control_merge` takes the winner into its skid register while `outs` stalls
/// (CIRCT's would leave it on the input), sends `index` at once and `outs` when ready, and
/// takes no other input while it holds one.
#[test]
fn dynamatic_control_merge_takes_the_winner_into_its_skid_register() {
    let mut f = handscope_sim::Function::new("t");
    let a = arg(&mut f, "a", Type::Int(8));
    let b = arg(&mut f, "b", Type::Int(8));
    let cm = node(
        &mut f,
        Op::DynControlMerge,
        vec![a, b],
        vec![Type::Int(8), Type::Int(1)],
    );
    let (d, i) = (out(&f, cm, 0), out(&f, cm, 1));
    ret(&mut f, vec![d, i]);
    let mut e = Environment::default();
    e.push_tokens("a", TokenSource::Values(vec![10]));
    e.push_tokens("b", TokenSource::Values(vec![20]));
    // `outs` is ready in odd cycles.
    e.set_ready("r0", ReadyPolicy::Pattern(vec![false, true]));
    assert_eq!(
        wave_both(
            &f,
            &e,
            &[
                "a",
                "b",
                "dyn_control_merge0.outs",
                "dyn_control_merge0.index"
            ],
            4
        ),
        [
            "F10 V20 V10 F0", // a wins and is taken; index goes, outs stalls
            ". V20 F10 R",    // held in the skid register: outs goes, b waits
            ". F20 V20 F1",   // empty again: b wins, outs stalls again, b is held
            ". . F20 R",      // and goes the next cycle
        ]
    );
}
