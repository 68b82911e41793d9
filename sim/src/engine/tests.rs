//! Engine options: stepping past `Done`, memory contents from the graph.

use super::*;
use crate::graph::FuncResult;
use crate::ops::Op;
use crate::stimulus::TokenSource;
use crate::types::{MemRefType, Type};

fn chain_env(tokens: u64) -> Environment {
    let mut env = Environment::default();
    env.push_tokens(
        "in0",
        TokenSource::Range {
            start: 0,
            end: i128::from(tokens),
        },
    );
    env
}

#[test]
fn stops_when_done_by_default() {
    let f = crate::bench_support::chain(3);
    let mut sim = Simulation::new(&f, chain_env(4)).unwrap();
    let r = sim.run(1000);
    assert_eq!(r.status, Status::Done);
    assert!(r.cycles < 100);
    assert!(!sim.can_step());
    let before = sim.cycle();
    sim.step();
    assert_eq!(sim.cycle(), before);
}

#[test]
fn steps_past_done_when_asked() {
    let f = crate::bench_support::chain(3);
    let mut sim = Simulation::new(&f, chain_env(4)).unwrap();
    sim.set_stop_when_done(false);
    sim.enable_trace();
    let r = sim.run(500);
    assert_eq!(r.status, Status::Done, "stays done");
    assert_eq!(r.cycles, 500);
    assert_eq!(r.outputs["out0"].len(), 4);
    assert!(r.deadlock.is_none());
    let t = sim.trace().unwrap();
    assert_eq!(t.cycles(), 500);
    // Quiet at the end: nothing valid on the output.
    let out = f.channel_by_name(&f.channels[f.nodes[f.return_node().unwrap()].inputs[0]].name);
    let v = t.cycle(499).unwrap();
    assert!(!v.valid(out.unwrap().index()));
}

/// `ld_addr` -> memory (4 x i8, one load port) -> `r0`; memory done -> `r1`.
fn load_graph(init: Option<&str>) -> Function {
    let mut f = Function::new("t");
    let la = f.add_arg("la", ArgType::Channel(Type::Index)).unwrap();
    let m = f.add_node(
        Op::Memory {
            ld: 1,
            st: 0,
            id: 0,
            memref: MemRefType {
                dims: vec![4],
                elem: Type::Int(8),
            },
            lsq: false,
        },
        vec![Type::Int(8), Type::None],
    );
    f.set_inputs(m, vec![la]);
    if let Some(t) = init {
        f.nodes[m].attrs.push(("handshake.init".into(), t.into()));
    }
    let outs = f.nodes[m].outputs.clone();
    for (i, &c) in outs.iter().enumerate() {
        f.results.push(FuncResult {
            name: format!("r{i}"),
            ty: f.channels[c].ty.clone(),
        });
    }
    let r = f.add_node(Op::Return, vec![]);
    f.set_inputs(r, outs);
    f.assign_ids().unwrap();
    f
}

fn load_env(addr: i64) -> Environment {
    let mut env = Environment::default();
    env.push_tokens("la", TokenSource::Values(vec![addr as u64]));
    env
}

#[test]
fn memory_contents_from_the_graph() {
    let f = load_graph(Some("[1, -2 : i8, 3, 4]"));
    let mut sim = Simulation::new(&f, load_env(1)).unwrap();
    let r = sim.run(20);
    assert_eq!(r.status, Status::Done);
    assert_eq!(r.outputs["r0"][0].bits, 0xfe);
    let mem = sim.memory("memory0").unwrap();
    assert_eq!(mem, &[1, 0xfe, 3, 4]);
    // The environment wins over the graph.
    let mut env = load_env(2);
    env.memories.insert("memory0".into(), vec![9, 9, 9, 9]);
    let mut sim = Simulation::new(&f, env).unwrap();
    assert_eq!(sim.run(20).outputs["r0"][0].bits, 9);
    // No attribute: zeros.
    let g = load_graph(None);
    let mut sim = Simulation::new(&g, load_env(0)).unwrap();
    assert_eq!(sim.run(20).outputs["r0"][0].bits, 0);
}

#[test]
fn bad_memory_contents_are_an_error() {
    for bad in ["1, 2", "[1, x]", "[1, 2, 3, 4, 5]"] {
        let f = load_graph(Some(bad));
        assert!(Simulation::new(&f, load_env(0)).is_err(), "{bad}");
    }
}

/// The values a run shows live (`Simulation::valid` etc. after each step) are those its
/// trace rebuilds, by random access and by replay (which restarts at every snapshot).
#[test]
fn trace_matches_live_values() {
    let f = crate::bench_support::chain(7);
    let mut env = chain_env(1 << 20);
    env.set_ready(
        "out0",
        crate::stimulus::ReadyPolicy::Random { seed: 5, prob: 0.6 },
    );
    let mut sim = Simulation::new(&f, env).unwrap();
    sim.enable_trace();
    let n = f.channels.len();
    let mut live = Vec::new();
    for _ in 0..3000 {
        sim.step();
        let ids: Vec<ChannelId> = f.channels.keys().collect();
        live.push(
            ids.iter()
                .map(|&c| {
                    (
                        sim.valid(c),
                        sim.ready(c),
                        sim.valid(c).then(|| sim.data(c)),
                    )
                })
                .collect::<Vec<_>>(),
        );
    }
    let t = sim.take_trace().unwrap();
    for c in [0u64, 1, 63, 64, 65, 1000, 2999] {
        let v = t.cycle(c).unwrap();
        for (i, want) in live[c as usize].iter().enumerate() {
            let d = v.valid(i).then(|| v.data(i));
            assert_eq!((v.valid(i), v.ready(i), d), *want, "cycle {c}");
        }
    }
    let mut rp = t.replay();
    let mut c = 0;
    while rp.next_cycle().is_some() {
        let vals = rp.values();
        for i in 0..n {
            let valid = vals[i] & 1 != 0;
            let got = (valid, vals[i] & 2 != 0, valid.then(|| vals[n + i]));
            assert_eq!(got, live[c][i], "replay cycle {c} channel {i}");
        }
        c += 1;
    }
    assert_eq!(c, 3000);
}

#[test]
fn long_runs_keep_the_first_and_last_output_tokens_and_count_the_rest() {
    let n = 2 * KEPT_OUTPUTS as u64 + 1000;
    let f = crate::bench_support::chain(1);
    let mut sim = Simulation::new(&f, chain_env(n)).unwrap();
    let r = sim.run(10 * n);
    assert_eq!(r.status, Status::Done);
    let toks = &r.outputs["out0"];
    assert_eq!(toks.len(), 2 * KEPT_OUTPUTS);
    assert_eq!(r.omitted_outputs["out0"], 1000);
    // The first ones from the start, the last ones up to the end, in order.
    assert_eq!(toks[0].bits, 0);
    assert_eq!(toks[KEPT_OUTPUTS - 1].bits, KEPT_OUTPUTS as u64 - 1);
    assert_eq!(toks[KEPT_OUTPUTS].bits, KEPT_OUTPUTS as u64 + 1000);
    assert_eq!(toks.last().unwrap().bits, (n - 1) & 0xffff_ffff);
    assert!(toks.windows(2).all(|w| w[0].cycle < w[1].cycle));
    let text = crate::report::render_human_with(&r, crate::report::OutputDetail::All);
    assert!(
        text.contains("... (1000 more tokens) ..."),
        "{}",
        &text[..200]
    );
    // Count and checksum cover every token, the dropped ones included.
    let sum = r.output_summaries["out0"];
    assert_eq!(sum.count, n);
    assert_eq!(
        sum.checksum,
        crate::report::TokenChecksum::of((0..n).map(|i| i & 0xffff_ffff))
    );
    // The summary prints the count, the checksum and a few tokens from each end.
    let text = crate::report::render_human(&r);
    let line = text.lines().find(|l| l.contains("out0")).unwrap();
    assert!(
        line.starts_with(&format!(
            "  out0: {n} tokens, checksum {}: [0@",
            sum.checksum
        )),
        "{line}"
    );
    assert!(line.contains(&format!("{}@", n - 1)), "{line}");
    assert!(line.len() < 400, "{line}");
    // Keeping every token keeps them all, in order, with the same summary.
    let mut env = chain_env(n);
    env.keep_all_outputs = true;
    let all = Simulation::new(&f, env).unwrap().run(10 * n);
    let toks = &all.outputs["out0"];
    assert_eq!(toks.len() as u64, n);
    assert!(toks.iter().enumerate().all(|(i, t)| t.bits == i as u64));
    assert!(all.omitted_outputs.is_empty());
    assert_eq!(all.output_summaries["out0"], sum);
    // Cutting a report's lists keeps the ends and counts the rest.
    let mut cut = all.clone();
    cut.cut_outputs(8);
    assert_eq!(cut.outputs["out0"].len(), 16);
    assert_eq!(cut.omitted_outputs["out0"], n - 16);
    assert_eq!(cut.outputs["out0"][8].bits, n - 8);
    // A short run omits nothing and says nothing about it.
    let r = Simulation::new(&f, chain_env(10)).unwrap().run(1000);
    assert!(r.omitted_outputs.is_empty());
    assert!(!serde_json::to_string(&r).unwrap().contains("omitted"));
}

/// Issue 36: `--json` (every token kept) over `0..10^12` grew until the process ran out of
/// memory. Keeping every token keeps at most `MAX_ALL_OUTPUTS` first ones and the last
/// `KEPT_OUTPUTS`, and counts the rest.
#[test]
fn keeping_every_output_token_is_bounded() {
    // Past the first `MAX_ALL_OUTPUTS`, more than the `KEPT_OUTPUTS` last ones, so some are
    // left out.
    let n = (super::MAX_ALL_OUTPUTS + KEPT_OUTPUTS) as u64 + 1000;
    let f = crate::bench_support::chain(1);
    let mut env = chain_env(n);
    env.keep_all_outputs = true;
    let r = Simulation::new(&f, env).unwrap().run(10 * n);
    assert_eq!(r.status, Status::Done);
    let toks = &r.outputs["out0"];
    assert_eq!(toks.len(), super::MAX_ALL_OUTPUTS + KEPT_OUTPUTS);
    assert_eq!(r.omitted_outputs["out0"], n - toks.len() as u64);
    assert_eq!(
        toks[super::MAX_ALL_OUTPUTS - 1].bits,
        super::MAX_ALL_OUTPUTS as u64 - 1
    );
    assert_eq!(toks.last().unwrap().bits, n - 1);
    assert_eq!(r.output_summaries["out0"].count, n);
}

/// Steps `sim` until it has simulated `cycle` cycles (`run` would end the run there).
fn step_to(sim: &mut Simulation, cycle: u64) {
    while sim.cycle() < cycle && sim.can_step() {
        sim.step();
    }
}

/// The report of a 9,000-cycle run of `chain(4)` on `tokens` tokens, switching engines at the
/// given cycles.
fn chain_run_switching(tokens: u64, switches: &[(u64, EngineKind)]) -> (String, Vec<&'static str>) {
    let f = crate::bench_support::chain(4);
    let mut env = chain_env(tokens);
    env.engine = EngineKind::Interpreter;
    let mut sim = Simulation::new(&f, env).unwrap();
    sim.set_stop_when_done(false);
    sim.enable_trace();
    let mut engines = Vec::new();
    for &(at, kind) in switches {
        step_to(&mut sim, at);
        sim.set_engine(kind);
        engines.push(sim.engine().0);
    }
    let r = sim.run(9000);
    let trace = sim.take_trace().unwrap();
    let mut rp = trace.replay();
    let mut changes = 0;
    while let Some(c) = rp.next_cycle() {
        changes += c.changes.len();
    }
    (format!("{r:?} changes {changes}"), engines)
}

#[test]
fn switching_engines_between_cycles_changes_nothing() {
    let (plain, _) = chain_run_switching(5000, &[]);
    let (switched, engines) = chain_run_switching(
        5000,
        &[
            (7, EngineKind::Compiled),
            (1500, EngineKind::Interpreter),
            (1501, EngineKind::Compiled),
            (3000, EngineKind::Activity),
            (4000, EngineKind::Interpreter),
            (4500, EngineKind::Activity),
            (4999, EngineKind::Auto),
        ],
    );
    assert_eq!(
        engines,
        [
            "compiled",
            "interpreter",
            "compiled",
            "activity",
            "interpreter",
            "activity",
            "activity"
        ]
    );
    assert_eq!(plain, switched);
}

#[test]
fn auto_compiles_after_its_probe_and_keeps_the_faster_engine() {
    // A chain whose result is ready one cycle in 64: most of it waits, so `Auto` also
    // times the activity-driven engine.
    let f = crate::bench_support::chain(4);
    let throttled = || {
        let mut env = chain_env(1 << 20);
        let mut p = vec![false; 64];
        p[0] = true;
        env.ready
            .insert("out0".into(), crate::stimulus::ReadyPolicy::Pattern(p));
        env
    };
    let mut sim = Simulation::new(&f, throttled()).unwrap();
    step_to(&mut sim, COMPILE_AFTER_CYCLES - 1);
    assert_eq!(sim.engine().0, "interpreter");
    assert_eq!(sim.auto_timing(), None);
    step_to(&mut sim, COMPILE_AFTER_CYCLES + 1);
    assert_eq!(sim.engine().0, "compiled", "timing compiled code");
    assert!(sim.compiled_code_bytes().is_some_and(|b| b > 0));
    let decided = COMPILE_AFTER_CYCLES + super::COMPILED_WARMUP_CYCLES + PROBE_CYCLES;
    step_to(&mut sim, decided + 1);
    let (interp, compiled) = sim.auto_timing().expect("decided");
    assert!(interp > 0.0 && compiled > 0.0);
    // Then the activity-driven engine is timed against the faster of the two.
    assert_eq!(
        sim.engine().0,
        "activity",
        "timing the activity-driven engine"
    );
    assert_eq!(sim.auto_activity_timing(), None);
    let end = decided + super::COMPILED_WARMUP_CYCLES + PROBE_CYCLES + 1;
    step_to(&mut sim, end);
    let activity = sim.auto_activity_timing().expect("decided");
    let (best, best_time) = if compiled < interp * COMPILED_MARGIN {
        ("compiled", compiled)
    } else {
        ("interpreter", interp)
    };
    let want = if activity < best_time * COMPILED_MARGIN {
        "activity"
    } else {
        best
    };
    assert_eq!(sim.engine().0, want);
    // A chain taking a token every cycle moves on every channel: the activity-driven
    // engine is not timed there.
    let mut busy = Simulation::new(&f, chain_env(1 << 20)).unwrap();
    step_to(&mut busy, decided + 1);
    assert!(
        matches!(busy.engine().0, "interpreter" | "compiled"),
        "{}",
        busy.engine().0
    );
    step_to(&mut busy, end);
    assert_eq!(busy.auto_activity_timing(), None);
    // The same run interpreted throughout gives the same report.
    let mut env = throttled();
    env.engine = EngineKind::Interpreter;
    let mut plain = Simulation::new(&f, env).unwrap();
    step_to(&mut plain, end);
    assert_eq!(
        format!("{:?}", plain.report()),
        format!("{:?}", sim.report())
    );
}
