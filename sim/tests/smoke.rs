//! The engine passes every token of the benchmark chain through, in order.

use handscope_sim::bench_support::chain;
use handscope_sim::engine::Simulation;
use handscope_sim::report::Status;
use handscope_sim::stimulus::{Environment, TokenSource};

#[test]
fn chain_passes_tokens_in_order() {
    let f = chain(3);
    let mut env = Environment::default();
    env.push_tokens("in0", TokenSource::Range { start: 0, end: 20 });
    let mut sim = Simulation::new(&f, env).unwrap();
    let r = sim.run(1000);
    assert_eq!(
        r.status,
        Status::Done,
        "{}",
        handscope_sim::report::render_human(&r)
    );
    let vals: Vec<u64> = r.outputs["out0"].iter().map(|t| t.bits).collect();
    assert_eq!(vals, (0..20).collect::<Vec<u64>>());
    println!("{}", handscope_sim::report::render_human(&r));
}
