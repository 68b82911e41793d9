//! C-to-handshake compile time of every example kernel (`examples/kernels`), from the
//! source text to the materialized, buffered graph (default options).
//!
//! `cargo bench -p handscope-compiler --bench compile` runs the criterion benchmarks, then
//! prints a table of median compile times, slowest first, and fails when any kernel takes
//! 100 ms or more. Under `cargo test --all-targets` each benchmark runs once and the table is
//! only printed: speed is judged in benchmark runs, never in timed tests.

// The benchmark prints its table of compile times.
#![allow(clippy::print_stdout, clippy::print_stderr)]
// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group};
use handscope_compiler::c::{HsOptions, compile_to_handshake};
use handscope_sim::session::header::Header;

/// The compile-time budget of every example kernel.
const BUDGET: Duration = Duration::from_millis(100);

/// `(file name, source, top function)` of every example kernel, sorted by name.
fn kernels() -> Vec<(String, String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/kernels");
    let mut out: Vec<(String, String, String)> = std::fs::read_dir(&dir)
        .expect("examples/kernels")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "c"))
        .map(|e| {
            let src = std::fs::read_to_string(e.path()).expect("read");
            let top = Header::parse(&src).top().expect("TOP line").to_string();
            (e.file_name().to_string_lossy().into_owned(), src, top)
        })
        .collect();
    out.sort();
    out
}

fn compile(name: &str, src: &str, top: &str) {
    let m = compile_to_handshake(src, name, Some(top), &HsOptions::default())
        .unwrap_or_else(|e| panic!("{name}: {e:?}"));
    std::hint::black_box(m);
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("compile_c");
    g.sample_size(20);
    for (name, src, top) in kernels() {
        g.bench_function(name.trim_end_matches(".c"), |b| {
            b.iter(|| compile(&name, &src, &top))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);

/// Median of `runs` compile times of one kernel (after one warm-up compile).
fn median_time(name: &str, src: &str, top: &str, runs: usize) -> Duration {
    compile(name, src, top);
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            compile(name, src, top);
            t.elapsed()
        })
        .collect();
    times.sort();
    times[runs / 2]
}

/// Prints every kernel's median compile time, slowest first; in a real benchmark run
/// (`bench_mode`, more samples) panics when one reaches [`BUDGET`].
fn budget(bench_mode: bool) {
    let runs = if bench_mode { 21 } else { 3 };
    let mut rows: Vec<(Duration, String)> = kernels()
        .iter()
        .map(|(name, src, top)| (median_time(name, src, top, runs), name.clone()))
        .collect();
    rows.sort_by(|a, b| b.cmp(a));
    println!("\nC -> handshake compile time (median of {runs}), slowest first:");
    for (t, name) in &rows {
        println!("  {name:<22} {:>9.3} ms", t.as_secs_f64() * 1e3);
    }
    let (slowest, name) = &rows[0];
    println!(
        "slowest: {name} {:.3} ms (budget {} ms)",
        slowest.as_secs_f64() * 1e3,
        BUDGET.as_millis()
    );
    let over: Vec<&String> = rows
        .iter()
        .filter(|(t, _)| *t >= BUDGET)
        .map(|(_, n)| n)
        .collect();
    if bench_mode {
        assert!(over.is_empty(), "over the compile-time budget: {over:?}");
    } else if !over.is_empty() {
        println!("(test mode, unoptimized build) over the budget: {over:?}");
    }
}

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    budget(std::env::args().any(|a| a == "--bench"));
}
