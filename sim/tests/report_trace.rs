//! Run reports (JSON shape) and trace random access against the live engine.

use crate::common;

use common::*;
use handscope_sim::engine::Simulation;
use handscope_sim::report::Status;
use handscope_sim::stimulus::{Environment, ReadyPolicy, TokenSource};
use handscope_sim::{ArithOp, Op, Type};

#[test]
fn json_report_shape() {
    let mut f = handscope_sim::Function::new("t");
    let a = arg(&mut f, "a", Type::Int(8));
    let b = arg(&mut f, "b", Type::Int(8));
    let start = arg(&mut f, "start", Type::None);
    let s = node(
        &mut f,
        Op::Arith(ArithOp::Subi),
        vec![a, b],
        vec![Type::Int(8)],
    );
    let so = out(&f, s, 0);
    ret(&mut f, vec![so, start]);
    let mut env = Environment::default();
    env.push_tokens("a", TokenSource::parse("1,2", &Type::Int(8)).unwrap());
    env.push_tokens("b", TokenSource::parse("3..5", &Type::Int(8)).unwrap());
    env.push_tokens("start", TokenSource::parse("2", &Type::None).unwrap());
    let mut sim = Simulation::new(&f, env).unwrap();
    let r = sim.run(100);
    assert_eq!(r.status, Status::Done);
    let j = serde_json::to_value(&r).unwrap();
    assert_eq!(j["status"], "done");
    assert_eq!(j["cycles"], 2);
    assert_eq!(j["outputs"]["r0"][0]["value"], -2);
    assert_eq!(j["outputs"]["r0"][1]["cycle"], 1);
    assert_eq!(j["outputs"]["r1"][0]["value"], serde_json::Value::Null);
    assert_eq!(j["deadlock"], serde_json::Value::Null);
    assert_eq!(j["stats"]["a"]["fires"], 2);
    assert_eq!(j["stats"]["subi0.out0"]["stall_cycles"], 0);
    assert!(j["events"].as_array().unwrap().is_empty());
    assert!(j["memories"].as_object().unwrap().is_empty());
    assert_eq!(j["output_summaries"]["r0"]["count"], 2);
    let sum = j["output_summaries"]["r0"]["checksum"].as_str().unwrap();
    assert!(sum.starts_with("0x") && sum.len() == 18, "{sum}");
    let keys: Vec<&String> = j.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "cycles",
            "deadlock",
            "events",
            "memories",
            "output_summaries",
            "outputs",
            "stats",
            "status"
        ]
    );
    // max-cycles
    let mut env = Environment::default();
    env.push_tokens(
        "a",
        TokenSource::Range {
            start: 0,
            end: 1000,
        },
    );
    env.push_tokens(
        "b",
        TokenSource::Range {
            start: 0,
            end: 1000,
        },
    );
    let r = Simulation::new(&f, env).unwrap().run(10);
    assert_eq!(serde_json::to_value(&r).unwrap()["status"], "max-cycles");
    assert_eq!(r.cycles, 10);
}

#[test]
fn environment_errors() {
    let f = handscope_sim::bench_support::chain(1);
    let mut env = Environment::default();
    env.push_tokens("nope", TokenSource::None(1));
    assert!(Simulation::new(&f, env).is_err());
    let mut env = Environment::default();
    env.set_ready("zz", ReadyPolicy::Always);
    assert!(Simulation::new(&f, env).is_err());
}

#[test]
fn instances_are_rejected() {
    let mut f = handscope_sim::Function::new("t");
    let a = arg(&mut f, "a", Type::Int(8));
    let i = node(
        &mut f,
        Op::Instance { callee: "g".into() },
        vec![a],
        vec![Type::Int(8)],
    );
    let o = out(&f, i, 0);
    ret(&mut f, vec![o]);
    let e = Simulation::new(&f, Environment::default()).err().unwrap();
    let msg = e.to_string();
    assert!(
        msg.contains("`g0` calls @g") && msg.contains("no body"),
        "{msg}"
    );
}

#[test]
fn trace_matches_live_engine_at_random_cycles() {
    let f = handscope_sim::bench_support::chain(6);
    let mut env = Environment::default();
    env.push_tokens(
        "in0",
        TokenSource::Range {
            start: 0,
            end: 1 << 30,
        },
    );
    env.set_ready("out0", ReadyPolicy::Random { seed: 9, prob: 0.6 });
    let mut sim = Simulation::new(&f, env).unwrap();
    sim.enable_trace();
    let nodes: Vec<_> = f.nodes.keys().collect();
    let mut live = Vec::new();
    for _ in 0..3000 {
        let regs: Vec<Vec<u64>> = nodes.iter().map(|&n| sim.registers(n).0.to_vec()).collect();
        sim.step();
        let chans: Vec<(bool, bool, u64)> = f
            .channels
            .keys()
            .map(|c| (sim.valid(c), sim.ready(c), sim.data(c)))
            .collect();
        live.push((chans, regs));
    }
    let t = sim.take_trace().unwrap();
    assert_eq!(t.cycles(), 3000);
    let mut rng = handscope_sim::stimulus::SplitMix64::new(5);
    for _ in 0..200 {
        let c = rng.next() % 3000;
        let view = t.cycle(c).unwrap();
        let (chans, regs) = &live[c as usize];
        for (i, &(v, r, d)) in chans.iter().enumerate() {
            // Data is recorded only while valid (see `trace` module docs).
            assert_eq!(
                (view.valid(i), view.ready(i), v && view.data(i) != d),
                (v, r, false),
                "cycle {c} ch {i}"
            );
        }
        for (k, &n) in nodes.iter().enumerate() {
            if let Some(s) = view.state(&f.nodes[n].id) {
                assert_eq!(s, &regs[k][..], "cycle {c} node {}", f.nodes[n].id);
            }
        }
    }
    // fork state names are exposed
    let meta = t.state_meta().iter().find(|m| m.node == "fork0").unwrap();
    assert_eq!(meta.fields, ["emitted_0", "emitted_1"]);
    assert!(t.memory_bytes() > 0);
}
