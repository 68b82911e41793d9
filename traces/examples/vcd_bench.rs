//! VCD load benchmark: Handscope's replay (streaming parse + mapping + Trace building) against
//! `wellen`'s own loading of the same file, plus the time to reach an arbitrary cycle.
//!
//! ```text
//! cargo run --release -p handscope-traces --example vcd_bench -- FILE [--generate CYCLES]
//! ```
//! With `--generate`, FILE is first written by the engine (`bench_support::chain(200)`,
//! argument `in0` streaming 0.., traced for CYCLES cycles) through Handscope's VCD writer.
//! The graph used for replay is always `chain(200)`.

// An example reports on standard output and error.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::time::Instant;

use handscope_sim::bench_support::chain;
use handscope_sim::engine::Simulation;
use handscope_sim::stimulus::SplitMix64;
use handscope_traces::vcd_in::{ReplayOptions, replay_file};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(file) = args.first() else {
        eprintln!("usage: vcd_bench FILE [--generate CYCLES]");
        std::process::exit(2);
    };
    let f = chain(200);
    if let Some(i) = args.iter().position(|a| a == "--generate") {
        let cycles: u64 = args
            .get(i + 1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(30_000);
        let env = handscope_sim::bench_support::chain_environment();
        let t = Instant::now();
        let mut sim = Simulation::new(&f, env).expect("chain compiles");
        sim.enable_trace();
        sim.run(cycles);
        let trace = sim.take_trace().expect("trace");
        let out = std::io::BufWriter::with_capacity(
            1 << 20,
            std::fs::File::create(file).expect("create"),
        );
        handscope_traces::vcd_out::write_vcd(&trace, out).expect("write");
        eprintln!(
            "generated {file}: {cycles} cycles in {:.1} s",
            t.elapsed().as_secs_f64()
        );
    }
    let size = std::fs::metadata(file).expect("file").len() as f64 / 1e6;
    println!("file: {file}, {size:.0} MB");

    // Handscope.
    let t = Instant::now();
    let r = replay_file(
        std::path::Path::new(file),
        &f,
        None,
        &ReplayOptions::default(),
    )
    .expect("replay");
    let load = t.elapsed().as_secs_f64();
    let n = r.trace.cycles();
    let mut rng = SplitMix64::new(1);
    let seeks = 2000;
    let t = Instant::now();
    let mut acc = 0u64;
    for _ in 0..seeks {
        let c = rng.next() % n.max(1);
        let v = r.trace.cycle(c).expect("cycle");
        acc = acc.wrapping_add(v.data(0));
    }
    let seek = t.elapsed().as_secs_f64() / f64::from(seeks);
    println!(
        "handscope: load {load:.2} s = {:.0} MB/s ({n} cycles, {} channels, trace {:.0} MB in memory); seek to a random cycle (all {} channels + state) {:.1} us",
        size / load,
        r.trace.channels().len(),
        r.trace.memory_bytes() as f64 / 1e6,
        r.trace.channels().len(),
        seek * 1e6
    );

    // wellen.
    let t = Instant::now();
    let mut w = wellen::simple::read(file).expect("wellen read");
    let read = t.elapsed().as_secs_f64();
    let h = w.hierarchy();
    let mut sigs: Vec<wellen::SignalRef> = h.all_vars().map(|v| h[v].signal_ref()).collect();
    sigs.sort();
    sigs.dedup();
    let t = Instant::now();
    w.load_signals_multi_threaded(&sigs);
    let sload = t.elapsed().as_secs_f64();
    let tt = w.time_table().to_vec();
    let t = Instant::now();
    let wseeks = 200;
    for _ in 0..wseeks {
        let i = (rng.next() % tt.len().max(1) as u64) as wellen::TimeTableIdx;
        for &s in &sigs {
            if let Some(sig) = w.get_signal(s)
                && let Some(off) = sig.get_offset(i)
                && let wellen::SignalValueRef::BitVec(b) = sig.get_value_at(&off, 0)
            {
                acc = acc.wrapping_add(b.iter_lsb_to_msb().take(64).map(u64::from).sum::<u64>());
            }
        }
    }
    let wseek = t.elapsed().as_secs_f64() / f64::from(wseeks);
    println!(
        "wellen:    read {read:.2} s = {:.0} MB/s, + loading all {} signals {sload:.2} s = {:.0} MB/s overall; seek (value of every signal at a random time) {:.1} us",
        size / read,
        sigs.len(),
        size / (read + sload),
        wseek * 1e6
    );
    println!("(checksum {acc})");
}
