//! Live-following benchmark: a VCD written in pieces while a [`Follower`] keeps up with it,
//! against replaying the finished file once, and against replaying the whole prefix at every
//! look (what following did before it became incremental).
//!
//! ```text
//! cargo run --release -p handscope-traces --example follow_bench -- [CYCLES] [LOOKS]
//! ```
//! The VCD is `chain(200)` run for CYCLES cycles (default 20,000), written by Handscope's VCD
//! writer to a temporary file in LOOKS equal pieces (default 40); after each piece the
//! follower reads what was appended and makes the trace so far (what the debugger shows).

// An example reports on standard output.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::io::Write as _;
use std::time::{Duration, Instant};

use handscope_sim::bench_support::chain;
use handscope_sim::engine::Simulation;
use handscope_traces::vcd_in::follow::Follower;
use handscope_traces::vcd_in::{ReplayOptions, replay_bytes, replay_file};

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("numbers: CYCLES LOOKS"))
        .collect();
    let cycles = args.first().copied().unwrap_or(20_000);
    let looks = args.get(1).copied().unwrap_or(40).max(1) as usize;
    let f = chain(200);
    let env = handscope_sim::bench_support::chain_environment();
    let mut sim = Simulation::new(&f, env.clone()).expect("chain compiles");
    sim.enable_trace();
    sim.run(cycles);
    let trace = sim.take_trace().expect("trace");
    let mut vcd = Vec::new();
    handscope_traces::vcd_out::write_vcd(&trace, &mut vcd).expect("write");
    let dir = std::env::temp_dir().join(format!("follow_bench_{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("live.vcd");
    let opts = ReplayOptions::default();
    println!(
        "chain(200), {cycles} cycles: {:.1} MB of VCD written in {looks} pieces",
        vcd.len() as f64 / 1e6
    );

    // Following: the follower's time only (the writing is the simulator's).
    let mut file = std::fs::File::create(&path).expect("create");
    let mut follower = Follower::new(&path, &f, Some(&env), &opts).expect("follower");
    let mut following = Duration::ZERO;
    let piece = vcd.len().div_ceil(looks);
    let mut shown = 0;
    for chunk in vcd.chunks(piece) {
        file.write_all(chunk).expect("append");
        file.flush().expect("flush");
        let t = Instant::now();
        follower.poll().expect("poll");
        if let Some(tr) = follower.trace() {
            shown = tr.cycles();
        }
        following += t.elapsed();
    }
    let t = Instant::now();
    let done = follower.finish().expect("finish");
    following += t.elapsed();
    assert_eq!(done.trace.cycles(), trace.cycles());

    let t = Instant::now();
    let once = replay_file(&path, &f, Some(&env), &opts).expect("replay");
    let replay_once = t.elapsed();
    assert_eq!(once.trace.cycles(), done.trace.cycles());

    // The former way: the whole complete prefix replayed at every look.
    let t = Instant::now();
    for k in 1..=looks {
        let end = (k * piece).min(vcd.len());
        let cut = vcd[..end].iter().rposition(|&b| b == b'#').unwrap_or(end);
        let _ = replay_bytes(&vcd[..cut], "prefix", &f, Some(&env), &opts, None);
    }
    let whole_prefixes = t.elapsed();
    let _ = std::fs::remove_dir_all(&dir);

    println!(
        "following, {looks} looks ({shown} cycles shown before the end): {:.3} s",
        following.as_secs_f64()
    );
    println!(
        "replaying the finished file once:            {:.3} s  (following / once = {:.2})",
        replay_once.as_secs_f64(),
        following.as_secs_f64() / replay_once.as_secs_f64()
    );
    println!(
        "replaying the whole prefix at every look:    {:.3} s  (that / following = {:.1})",
        whole_prefixes.as_secs_f64(),
        whole_prefixes.as_secs_f64() / following.as_secs_f64()
    );
}
