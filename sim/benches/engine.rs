//! Engine throughput on the generated fork/buffer/sync chain.

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use handscope_sim::bench_support::chain;
use handscope_sim::engine::Simulation;
use handscope_sim::stimulus::Environment;

const CYCLES: u64 = 20_000;

fn env() -> Environment {
    handscope_sim::bench_support::chain_environment()
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("chain");
    g.throughput(Throughput::Elements(CYCLES));
    g.sample_size(20);
    for n in [50usize, 200] {
        let f = chain(n);
        for traced in [false, true] {
            let name = format!("n{n}_{}", if traced { "traced" } else { "untraced" });
            g.bench_function(name, |b| {
                b.iter_batched(
                    || {
                        let mut sim = Simulation::new(&f, env()).expect("chain compiles");
                        if traced {
                            sim.enable_trace();
                        }
                        sim
                    },
                    |mut sim| {
                        let r = sim.run(CYCLES);
                        assert_eq!(r.cycles, CYCLES);
                        sim
                    },
                    BatchSize::LargeInput,
                )
            });
        }
    }
    g.finish();
}

/// Random access into a recorded trace: reconstructing one cycle (must stay well under 1 ms).
fn trace_access(c: &mut Criterion) {
    let mut g = c.benchmark_group("trace_cycle");
    for n in [50usize, 200] {
        let f = chain(n);
        let mut sim = Simulation::new(&f, env()).expect("chain compiles");
        sim.enable_trace();
        sim.run(200_000);
        let t = sim.take_trace().expect("traced");
        let mut rng = handscope_sim::stimulus::SplitMix64::new(7);
        g.bench_function(format!("n{n}_random"), |b| {
            b.iter(|| {
                let k = rng.next() % t.cycles();
                t.cycle(k).expect("in range").data(0)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench, trace_access);
criterion_main!(benches);
