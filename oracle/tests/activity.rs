//! The activity-driven interpreter (`EngineKind::Activity`, issue #33) against the
//! interpreter on the random graphs of the oracle's generator, with their random stimulus
//! and ready policies: every channel's valid, ready and data, every register and every
//! memory word after every cycle. No external tools: the engine against itself.

use handscope_oracle::generator::{random_function, suite_options};
use handscope_oracle::harness::{DesignSpec, engine_simulation, through_mlir};
use handscope_sim::engine::{EngineKind, Simulation};

/// A simulation of `d` with its stimulus on engine `kind`.
fn start(d: &DesignSpec, kind: EngineKind) -> Simulation {
    let mut sim = engine_simulation(d).expect("a simulation");
    sim.set_engine(kind);
    sim
}

#[test]
fn activity_engine_matches_the_interpreter_on_random_graphs() {
    let mut compared = 0u64;
    let mut activity_runs = 0;
    for seed in 0..120u64 {
        let name = format!("rand{seed}");
        let f = random_function(&name, seed, &suite_options(seed));
        let (f, mlir) = through_mlir(&f).expect("writer output parses");
        let tokens = if seed % 2 == 0 { 40 } else { 600 };
        let d = DesignSpec::with_random_stimulus(&name, f, mlir, seed, tokens);
        let mut a = start(&d, EngineKind::Interpreter);
        let mut b = start(&d, EngineKind::Activity);
        if b.engine().0 != "activity" {
            continue;
        }
        activity_runs += 1;
        let f = a.function().clone();
        for cycle in 0..500 {
            if !a.can_step() {
                break;
            }
            a.step();
            b.step();
            for (c, ch) in f.channels.iter() {
                let x = (a.valid(c), a.ready(c), a.data(c));
                let y = (b.valid(c), b.ready(c), b.data(c));
                assert_eq!(x, y, "{name}: cycle {cycle}, channel {}", ch.name);
            }
            for (id, node) in f.nodes.iter() {
                assert_eq!(
                    a.registers(id).0,
                    b.registers(id).0,
                    "{name}: cycle {cycle}, registers of {}",
                    node.id
                );
            }
            compared += 1;
        }
        assert_eq!(a.can_step(), b.can_step(), "{name}");
        assert_eq!(
            format!("{:?}", a.report()),
            format!("{:?}", b.report()),
            "{name}: reports differ"
        );
    }
    assert!(
        activity_runs >= 60,
        "only {activity_runs} graphs ran activity-driven"
    );
    assert!(compared > 20_000, "only {compared} cycles compared");
}
