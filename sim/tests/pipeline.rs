//! Pipelined units (`docs/semantics.md` "Pipelined units"): hand-computed waveforms, and
//! properties under random back-pressure: no token lost or duplicated, never more tokens in
//! flight than stages, one token per `ii` cycles, and the same output sequence as the
//! combinational (ideal) circuit.

use crate::common;

use common::*;
use handscope_sim::engine::Simulation;
use handscope_sim::report::Status;
use handscope_sim::spec::timing::TimingProfile;
use handscope_sim::spec::{NodeState, StateLayout};
use handscope_sim::stimulus::{Environment, ReadyPolicy, TokenSource};
use handscope_sim::{ArithOp, FloatKind, Function, Op, Type};
use proptest::prelude::*;

fn pipe_graph(latency: u32, ii: u32) -> Function {
    let mut f = Function::new("t");
    let a = arg(&mut f, "a", Type::Int(16));
    let p = node(
        &mut f,
        Op::Pipeline { latency, ii },
        vec![a],
        vec![Type::Int(16)],
    );
    let o = out(&f, p, 0);
    ret(&mut f, vec![o]);
    f
}

fn env(tokens: Vec<u64>, ready: ReadyPolicy) -> Environment {
    let mut e = Environment::default();
    e.push_tokens("a", TokenSource::Values(tokens));
    e.set_ready("r0", ready);
    e
}

#[test]
fn latency_three_with_a_stall() {
    let f = pipe_graph(3, 1);
    let ready = ReadyPolicy::Pattern(vec![true, true, true, true, false, false, true]);
    let mut sim = Simulation::new(&f, env(vec![1, 2, 3, 4, 5], ready)).unwrap();
    let w = fmt_wave(&wave(&mut sim, &["a", "pipeline0.out0"], 5));
    assert_eq!(
        w,
        [
            "F1 R",  // 0: 1 enters stage 0
            "F2 R",  // 1
            "F3 R",  // 2: three tokens in flight
            "F4 F1", // 3: 1 leaves 3 cycles after it entered; the full pipeline takes 4
            "V5 V2", // 4: output stalls: full, so the input waits
        ]
    );
    let pid = f.node_by_id("pipeline0").unwrap();
    let layout = f.nodes[pid].op.spec().state;
    let NodeState::Pipeline(st) = layout.decode(sim.registers(pid).0) else {
        panic!("pipeline state")
    };
    assert_eq!(st.stages, [Some(4), Some(3), Some(2)]);
    assert_eq!(st.occupancy(), 3);
    let flight: Vec<(u64, u32)> = st
        .in_flight()
        .iter()
        .map(|t| (t.value, t.remaining))
        .collect();
    assert_eq!(flight, [(2, 0), (3, 1), (4, 2)]);
    let w = fmt_wave(&wave(&mut sim, &["a", "pipeline0.out0"], 5));
    assert_eq!(
        w,
        [
            "V5 V2", // 5: the stalled output holds its token
            "F5 F2", // 6: ready again: 2 leaves, 5 enters in the same cycle
            "R F3", "R F4", "R F5",
        ]
    );
    assert_eq!(sim.status(), Some(Status::Done));
}

#[test]
fn a_bubble_closes_while_the_output_stalls() {
    // Latency 3, one token every 2 cycles: a bubble follows each token. While the output
    // stalls, token 2 moves up into the bubble behind 1 and token 3 still gets in.
    let f = pipe_graph(3, 2);
    let mut ready = vec![false; 5];
    ready.extend([true; 7]);
    let mut sim = Simulation::new(&f, env(vec![1, 2, 3], ReadyPolicy::Pattern(ready))).unwrap();
    let w = fmt_wave(&wave(&mut sim, &["a", "pipeline0.out0"], 8));
    assert_eq!(
        w,
        [
            "F1 .", "V2 .", "F2 .", "V3 V1", "F3 V1", ". F1", "R F2", "R F3"
        ]
    );
}

#[test]
fn an_interval_of_three_takes_every_third_cycle() {
    let f = pipe_graph(2, 3);
    let mut sim = Simulation::new(&f, env(vec![1, 2, 3], ReadyPolicy::Always)).unwrap();
    let w = fmt_wave(&wave(&mut sim, &["a", "pipeline0.out0"], 9));
    assert_eq!(
        w,
        [
            "F1 R", "V2 R", "V2 F1", "F2 R", "V3 R", "V3 F2", "F3 R", ". R", ". F3"
        ]
    );
}

/// Runs `tokens` through a pipeline under `ready`; checks the invariants every cycle and
/// returns the output values with their cycles.
fn run_checked(latency: u32, ii: u32, tokens: &[u64], ready: ReadyPolicy) -> Vec<(u64, u64)> {
    let f = pipe_graph(latency, ii);
    let pid = f.node_by_id("pipeline0").unwrap();
    let layout: StateLayout = f.nodes[pid].op.spec().state;
    let inp = f.channel_by_name("a").unwrap();
    let outc = f.channel_by_name("pipeline0.out0").unwrap();
    let mut sim = Simulation::new(&f, env(tokens.to_vec(), ready)).unwrap();
    let mut taken_at: Vec<u64> = Vec::new();
    let mut outs = Vec::new();
    let mut last_take: Option<u64> = None;
    for _ in 0..(tokens.len() as u64 + 2) * u64::from(latency + ii) * 40 + 50 {
        if sim.status().is_some() {
            break;
        }
        let c = sim.cycle();
        sim.step();
        if sim.valid(inp) && sim.ready(inp) {
            if let Some(l) = last_take {
                assert!(c - l >= u64::from(ii), "took at {l} and {c} with ii {ii}");
            }
            last_take = Some(c);
            taken_at.push(c);
        }
        if sim.valid(outc) && sim.ready(outc) {
            let k = outs.len();
            assert!(
                c >= taken_at[k] + u64::from(latency),
                "token {k} out at {c}, taken at {}",
                taken_at[k]
            );
            outs.push((sim.data(outc), c));
        }
        let NodeState::Pipeline(st) = layout.decode(sim.registers(pid).0) else {
            panic!("pipeline state")
        };
        assert!(st.occupancy() <= latency as usize);
        assert_eq!(
            st.occupancy(),
            taken_at.len() - outs.len(),
            "tokens in flight"
        );
    }
    assert_eq!(sim.status(), Some(Status::Done));
    outs
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Under random back-pressure every token comes out once, in order, no earlier than
    /// `latency` cycles after it went in, with at most `latency` in flight.
    #[test]
    fn random_ready_loses_and_duplicates_nothing(
        latency in 1u32..7,
        ii in 1u32..4,
        tokens in proptest::collection::vec(0u64..60000, 1..40),
        seed in any::<u64>(),
        prob in 0.1f64..1.0,
    ) {
        let outs = run_checked(latency, ii, &tokens, ReadyPolicy::Random { seed, prob });
        let values: Vec<u64> = outs.iter().map(|o| o.0).collect();
        prop_assert_eq!(values, tokens);
    }

    /// A float chain with the `fpga` profile's pipelines computes the same output sequence as
    /// the ideal circuit, under the same random back-pressure, only later.
    #[test]
    fn pipelined_float_chain_equals_ideal(
        xs in proptest::collection::vec(-1.0e6f32..1.0e6, 1..24),
        seed in any::<u64>(),
        prob in 0.2f64..1.0,
    ) {
        let (ideal, ideal_cycles) = float_chain(&xs, &TimingProfile::ideal(), seed, prob);
        let (fpga, fpga_cycles) = float_chain(&xs, &TimingProfile::fpga(), seed, prob);
        prop_assert_eq!(&ideal, &fpga);
        prop_assert!(fpga_cycles > ideal_cycles);
    }
}

/// `((x * x) + x) / x` per token of `xs`, under `profile`; the output bit patterns and the
/// cycle count.
fn float_chain(xs: &[f32], profile: &TimingProfile, seed: u64, prob: f64) -> (Vec<u64>, u64) {
    let f32t = Type::Float(FloatKind::F32);
    let mut f = Function::new("t");
    let x = arg(&mut f, "x", f32t.clone());
    let fk = node(&mut f, Op::Fork, vec![x], vec![f32t.clone(); 4]);
    let o = |f: &Function, i| out(f, fk, i);
    let (x0, x1, x2, x3) = (o(&f, 0), o(&f, 1), o(&f, 2), o(&f, 3));
    let m = node(
        &mut f,
        Op::Arith(ArithOp::Mulf),
        vec![x0, x1],
        vec![f32t.clone()],
    );
    let m = out(&f, m, 0);
    let a = node(
        &mut f,
        Op::Arith(ArithOp::Addf),
        vec![m, x2],
        vec![f32t.clone()],
    );
    let a = out(&f, a, 0);
    let d = node(
        &mut f,
        Op::Arith(ArithOp::Divf),
        vec![a, x3],
        vec![f32t.clone()],
    );
    let d = out(&f, d, 0);
    ret(&mut f, vec![d]);
    let mut s = handscope_sim::session::Session::new(f).unwrap();
    s.apply_timing(profile).unwrap();
    let bits: Vec<u64> = xs.iter().map(|v| u64::from(v.to_bits())).collect();
    s.bind_tokens("x", TokenSource::Values(bits)).unwrap();
    s.bind_ready("r0", ReadyPolicy::Random { seed, prob })
        .unwrap();
    let run = s.run(100_000, false).unwrap();
    assert_eq!(run.report.status, Status::Done);
    let outs = run.report.outputs["r0"].iter().map(|t| t.bits).collect();
    (outs, run.report.cycles)
}

/// `x → fork → mulf(x, x) → addf(·, x)`: under `fpga` the short arm of the fork (one place)
/// throttles the stream to one token per multiplier latency; `throughput::balance` finds the
/// slots that restore one token per cycle, and a run confirms it.
#[test]
fn balance_sizes_the_short_arm_of_a_pipelined_join() {
    use handscope_sim::throughput::{balance, tune};
    let f32t = Type::Float(FloatKind::F32);
    let mut f = Function::new("t");
    let x = arg(&mut f, "x", f32t.clone());
    let fk = node(&mut f, Op::Fork, vec![x], vec![f32t.clone(); 3]);
    let (x0, x1, x2) = (out(&f, fk, 0), out(&f, fk, 1), out(&f, fk, 2));
    let m = node(
        &mut f,
        Op::Arith(ArithOp::Mulf),
        vec![x0, x1],
        vec![f32t.clone()],
    );
    let m = out(&f, m, 0);
    let a = node(
        &mut f,
        Op::Arith(ArithOp::Addf),
        vec![m, x2],
        vec![f32t.clone()],
    );
    let a = out(&f, a, 0);
    ret(&mut f, vec![a]);
    let fpga = TimingProfile::fpga();
    let n = 64u64;
    let cycles = |g: &Function| {
        let mut s = handscope_sim::session::Session::new(g.clone()).unwrap();
        s.apply_timing(&fpga).unwrap();
        let xs = (0..n).map(|i| u64::from((i as f32).to_bits())).collect();
        s.bind_tokens("x", TokenSource::Values(xs)).unwrap();
        let r = s.run(100_000, false).unwrap().report;
        assert_eq!(r.status, Status::Done);
        assert_eq!(r.outputs["r0"].len() as u64, n);
        r.cycles
    };
    let before = cycles(&f);
    let changes = balance::balance(&f, &fpga, balance::BalanceOptions::default());
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert_eq!(changes[0].channel, "fork0.out2", "the short arm");
    let g = tune::apply(&f, &changes).unwrap();
    let after = cycles(&g);
    println!("{n} tokens under fpga: {before} cycles unbalanced, {after} with {changes:?}");
    // One token per cycle, plus the pipeline's fill.
    assert!(after <= n + 20, "balanced: {after} cycles");
    assert!(before >= 3 * n, "unbalanced: {before} cycles");
}
