//! Engine throughput next to Verilator on CIRCT's RTL of the same generated chain.
//!
//! `cargo run --release -p handscope-oracle --example bench_vs_verilator -- 50 200`
//!
//! For each chain length N (`handscope_sim::bench_support::chain`): engine cycles/s without
//! and with tracing, trace bytes per million cycles, then the chain lowered by CIRCT
//! (`lower.py`), built by Verilator with `-O3` and a minimal C++ main (input always valid
//! with an incrementing token, output always ready, two `eval`s per cycle, no tracing),
//! its cycles/s and build time. Options: `--cycles K` (engine cycles, default 1e6),
//! `--no-verilator`. Single thread; best of three runs.

// An example reports on standard output and error.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use handscope_oracle::tools::find_tools;
use handscope_sim::bench_support::chain;
use handscope_sim::engine::Simulation;
use handscope_sim::stimulus::{Environment, TokenSource};

fn env() -> Environment {
    let mut env = Environment::default();
    env.push_tokens(
        "in0",
        TokenSource::Range {
            start: 0,
            end: 1 << 40,
        },
    );
    env
}

/// Best-of-three engine rate (cycles/s) and trace bytes per million cycles.
fn engine_rate(n: usize, cycles: u64, traced: bool) -> (f64, f64) {
    let f = chain(n);
    let mut best = 0f64;
    let mut bytes = 0f64;
    for _ in 0..3 {
        let mut sim = Simulation::new(&f, env()).expect("chain compiles");
        if traced {
            sim.enable_trace();
        }
        let t = Instant::now();
        let r = sim.run(cycles);
        let s = t.elapsed().as_secs_f64();
        assert_eq!(r.cycles, cycles);
        best = best.max(cycles as f64 / s);
        if let Some(tr) = sim.trace() {
            bytes = tr.memory_bytes() as f64 * 1e6 / cycles as f64;
        }
    }
    (best, bytes)
}

fn main_cpp(top: &str) -> String {
    format!(
        r#"#include "V{top}.h"
#include "verilated.h"
#include <chrono>
#include <cstdio>
#include <cstdlib>
double sc_time_stamp() {{ return 0; }}
int main(int argc, char** argv) {{
  unsigned long long cycles = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  VerilatedContext* ctx = new VerilatedContext;
  V{top}* t = new V{top}{{ctx}};
  t->in0 = 0; t->in0_valid = 0; t->out0_ready = 1; t->reset = 1; t->clock = 0; t->eval();
  for (int r = 0; r < 2; r++) {{ t->clock = 1; t->eval(); t->clock = 0; t->eval(); }}
  t->reset = 0; t->eval();
  unsigned long long tok = 0, outs = 0, sum = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (unsigned long long c = 0; c < cycles; c++) {{
    t->in0 = (unsigned)tok; t->in0_valid = 1; t->out0_ready = 1; t->clock = 0;
    t->eval();
    if (t->in0_ready) tok++;
    if (t->out0_valid) {{ outs++; sum += t->out0; }}
    t->clock = 1;
    t->eval();
  }}
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%.6f %llu %llu\n", s, outs, sum);
  t->final();
  delete t;
  return 0;
}}
"#
    )
}

/// Lowers and builds chain N; returns (executable, build seconds, cached).
fn build_verilator(n: usize) -> Result<(PathBuf, f64), String> {
    let tools = find_tools().map_err(|e| e.to_string())?;
    let f = chain(n);
    let mlir = handscope_compiler::mlir::write_function(&f);
    let t = Instant::now();
    let sv =
        handscope_oracle::lower::lower_one(&tools, &f.name, &mlir).map_err(|e| e.to_string())?;
    let lower_s = t.elapsed().as_secs_f64();
    let top = f.name.clone();
    let dir = handscope_oracle::lower::cache_root(&tools).join(format!("bench-{top}"));
    let exe = dir.join("obj").join(format!("V{top}"));
    let stamp = dir.join("design.sv");
    if exe.is_file() && std::fs::read_to_string(&stamp).ok().as_deref() == Some(sv.as_str()) {
        eprintln!(
            "  (Verilator model for N={n} cached; build time from the first build not known)"
        );
        return Ok((exe, f64::NAN));
    }
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    std::fs::write(&stamp, &sv).map_err(|e| e.to_string())?;
    let cpp = dir.join("main.cpp");
    std::fs::write(&cpp, main_cpp(&top)).map_err(|e| e.to_string())?;
    let t = Instant::now();
    let out = Command::new(&tools.verilator)
        .args([
            "--cc",
            "--exe",
            "--build",
            "-O3",
            "--x-assign",
            "0",
            "--x-initial",
            "0",
        ])
        .args([
            "-Wno-fatal",
            "-Wno-lint",
            "-Wno-style",
            "--top-module",
            &top,
        ])
        .args(["-CFLAGS", "-O3 -w", "-j", "2"])
        .args(["-MAKEFLAGS", "OPT_FAST=-O3", "-MAKEFLAGS", "OPT_SLOW=-O3"])
        .args(["-MAKEFLAGS", "OPT_GLOBAL=-O3"])
        .arg("--Mdir")
        .arg(dir.join("obj"))
        .arg(&stamp)
        .arg(&cpp)
        .output()
        .map_err(|e| e.to_string())?;
    let build_s = t.elapsed().as_secs_f64();
    if !out.status.success() || !exe.is_file() {
        return Err(format!(
            "verilator failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    eprintln!("  lowering {lower_s:.1} s (cached when fast), Verilator build {build_s:.1} s");
    Ok((exe, build_s))
}

/// Best-of-three Verilator rate (cycles/s).
fn verilator_rate(exe: &PathBuf, cycles: u64) -> Result<f64, String> {
    let mut best = 0f64;
    for _ in 0..3 {
        let out = Command::new(exe)
            .arg(cycles.to_string())
            .output()
            .map_err(|e| e.to_string())?;
        let text = String::from_utf8_lossy(&out.stdout);
        let s: f64 = text
            .split_whitespace()
            .next()
            .and_then(|x| x.parse().ok())
            .ok_or_else(|| format!("bad model output `{text}`"))?;
        best = best.max(cycles as f64 / s);
    }
    Ok(best)
}

fn main() {
    let mut ns = Vec::new();
    let mut cycles = 1_000_000u64;
    let mut verilator = true;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--cycles" => cycles = args.next().and_then(|v| v.parse().ok()).unwrap_or(cycles),
            "--no-verilator" => verilator = false,
            _ => ns.push(a.parse::<usize>().expect("chain length")),
        }
    }
    if ns.is_empty() {
        ns = vec![50, 200];
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("load average at start: {}", load.trim());
    let mut rows = Vec::new();
    for &n in &ns {
        let (untraced, _) = engine_rate(n, cycles, false);
        let (traced, bytes) = engine_rate(n, cycles / 2, true);
        let (vl, build) = if verilator {
            match build_verilator(n).and_then(|(exe, b)| Ok((verilator_rate(&exe, cycles)?, b))) {
                Ok(x) => x,
                Err(e) => {
                    eprintln!("Verilator skipped for N={n}: {e}");
                    (f64::NAN, f64::NAN)
                }
            }
        } else {
            (f64::NAN, f64::NAN)
        };
        rows.push((n, untraced, traced, bytes, vl, build));
    }
    println!(
        "{:>5} {:>14} {:>14} {:>9} {:>14} {:>10} {:>12} {:>12}",
        "N",
        "engine c/s",
        "traced c/s",
        "slowdown",
        "Verilator c/s",
        "eng/Vl",
        "trace MB/Mc",
        "Vl build s"
    );
    for (n, u, t, b, v, bs) in rows {
        println!(
            "{n:>5} {:>14.0} {:>14.0} {:>9.2} {:>14.0} {:>10.2} {:>12.1} {:>12.1}",
            u,
            t,
            u / t,
            v,
            u / v,
            b / 1e6,
            bs
        );
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("load average at end: {}", load.trim());
}
