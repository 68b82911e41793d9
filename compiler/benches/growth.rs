//! Growth of `check`, `compile` and `sim` start-up time with the size of the input: expression length (10 to
//! 100,000 terms), statements, functions (C) and graph size (MLIR, up to 100,000 nodes).
//!
//! `cargo bench -p handscope-compiler --bench growth` prints one table per input family: the
//! time of each stage at every size and the time per element, which stays roughly constant
//! when the stage is linear; the last column is the ratio of the time per element at this
//! size to the one at the previous size. Under `cargo test --all-targets` every family runs
//! once at tiny sizes and the table is printed without any time assertion (speed is judged
//! in benchmark runs, never in timed tests).
//!
//! Stages, as the CLI runs them:
//! - C `check`: compile to a handshake graph, then verify the module (`handscope check`);
//! - C `compile`: compile to a handshake graph, then write MLIR (`handscope compile`);
//! - MLIR `check`: parse, then verify (`handscope check`);
//! - MLIR `mlir`: parse, then write normalized MLIR (`handscope mlir`);
//! - `sim start` (both languages): from the graph in memory to a simulation ready to run its
//!   first cycle, as `handscope sim` does after loading: `Session::open` (select, flatten,
//!   insert missing forks and sinks) and `Simulation::new` (compile to the engine's program,
//!   lay out registers and memories). The front end is not in it.
#![allow(clippy::print_stdout)]

use std::time::{Duration, Instant};

use handscope_compiler::bench_support::{c_functions, c_ifs, c_scalar_expr, c_sum, mlir_chain};
use handscope_compiler::c::{HsOptions, compile_to_handshake};
use handscope_compiler::mlir::{parse_mlir, write_mlir};
use handscope_sim::Module;
use handscope_sim::session::Session;
use handscope_sim::verify::verify_module;

/// An input family: name, unit of size, sizes, generator, language.
struct Family {
    name: &'static str,
    unit: &'static str,
    sizes: Vec<usize>,
    gen_src: fn(usize) -> String,
    c: bool,
}

fn c_module(src: &str) -> Module {
    compile_to_handshake(src, "g.c", None, &HsOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn mlir_module(src: &str) -> Module {
    parse_mlir(src, "g.mlir")
        .unwrap_or_else(|e| panic!("{}", e.render()))
        .0
}

fn check(m: &Module) {
    let r = verify_module(m);
    assert!(r.is_ok(), "{:?}", r.errors.first());
}

/// Best of `runs` timings of `f`.
fn time(runs: usize, mut f: impl FnMut()) -> Duration {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    let full = |v: &[usize], tiny: &[usize]| if bench { v.to_vec() } else { tiny.to_vec() };
    let exprs = [10, 100, 1_000, 10_000, 100_000];
    let families = [
        Family {
            name: "C unrolled sum `a[0] + a[1] - ...`",
            unit: "term",
            sizes: full(&exprs, &[10, 100]),
            gen_src: c_sum,
            c: true,
        },
        Family {
            name: "C scalar expression `x + y * 7 - ...`",
            unit: "term",
            sizes: full(&exprs, &[10, 100]),
            gen_src: c_scalar_expr,
            c: true,
        },
        Family {
            name: "C statements `if (x == i) x = x + 1;`",
            unit: "stmt",
            sizes: full(&[10, 100, 1_000, 10_000, 30_000], &[10, 50]),
            gen_src: c_ifs,
            c: true,
        },
        Family {
            name: "C functions (each inlined once)",
            unit: "func",
            sizes: full(&[10, 100, 1_000, 10_000], &[10, 30]),
            gen_src: c_functions,
            c: true,
        },
        Family {
            name: "MLIR pipeline graph",
            unit: "node",
            sizes: full(&exprs, &[10, 100]),
            gen_src: mlir_chain,
            c: false,
        },
    ];
    println!(
        "growth of check, compile and sim start-up time with input size ({})",
        if bench {
            "benchmark build"
        } else {
            "test mode: tiny sizes, unoptimized build"
        }
    );
    for fam in &families {
        println!("\n{}", fam.name);
        let (s1, s2) = if fam.c {
            ("check", "compile")
        } else {
            ("check", "mlir")
        };
        println!(
            "  {:>8} {:>8} {:>11} {:>12} {:>6} {:>11} {:>12} {:>6} {:>11} {:>12} {:>6}",
            fam.unit,
            "nodes",
            s1,
            format!("us/{}", fam.unit),
            "ratio",
            s2,
            format!("us/{}", fam.unit),
            "ratio",
            "sim start",
            format!("us/{}", fam.unit),
            "ratio"
        );
        let mut prev: Option<(f64, f64, f64)> = None;
        for &n in &fam.sizes {
            let src = (fam.gen_src)(n);
            let runs = if n >= 10_000 { 1 } else { 3 };
            let module = if fam.c {
                c_module(&src)
            } else {
                mlir_module(&src)
            };
            let nodes: usize = module.functions.iter().map(|f| f.nodes.len()).sum();
            let (t1, t2) = if fam.c {
                (
                    time(runs, || check(&c_module(&src))),
                    time(runs, || {
                        std::hint::black_box(write_mlir(&c_module(&src)));
                    }),
                )
            } else {
                (
                    time(runs, || check(&mlir_module(&src))),
                    time(runs, || {
                        std::hint::black_box(write_mlir(&mlir_module(&src)));
                    }),
                )
            };
            let t3 = time(runs, || {
                let s = Session::open(&module, None).unwrap_or_else(|e| panic!("{e}"));
                std::hint::black_box(s.simulation().unwrap_or_else(|e| panic!("{e}")));
            });
            let per = |t: Duration| t.as_secs_f64() * 1e6 / n as f64;
            let (p1, p2, p3) = (per(t1), per(t2), per(t3));
            let ratio =
                |p: f64, q: Option<f64>| q.map_or(String::from("-"), |q| format!("{:.2}", p / q));
            println!(
                "  {:>8} {:>8} {:>9.2}ms {:>12.2} {:>6} {:>9.2}ms {:>12.2} {:>6} {:>9.2}ms {:>12.2} {:>6}",
                n,
                nodes,
                t1.as_secs_f64() * 1e3,
                p1,
                ratio(p1, prev.map(|p| p.0)),
                t2.as_secs_f64() * 1e3,
                p2,
                ratio(p2, prev.map(|p| p.1)),
                t3.as_secs_f64() * 1e3,
                p3,
                ratio(p3, prev.map(|p| p.2)),
            );
            prev = Some((p1, p2, p3));
        }
    }
}
