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
//!
//! `--waves` measures waveform output instead, both sides writing a VCD of the same number of
//! cycles to `--dir DIR` (default the system temporary directory): the engine streaming it
//! through `traces::vcd_out::VcdWriter` (what `sim --vcd` does), the model built with
//! `--trace` dumping every signal each half cycle (`VerilatedVcdC`); cycles/s, file sizes and
//! the ratios. Default cycles with `--waves`: 50,000.

// An example reports on standard output and error.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use handscope_oracle::tools::find_tools;
use handscope_sim::bench_support::chain;
use handscope_sim::engine::Simulation;
use handscope_sim::stimulus::Environment;

fn env() -> Environment {
    handscope_sim::bench_support::chain_environment()
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

/// Best-of-three engine rate (cycles/s) writing a VCD of every cycle to `path`; the file size.
fn engine_wave_rate(n: usize, cycles: u64, path: &std::path::Path) -> (f64, u64) {
    use std::sync::atomic::AtomicBool;
    let f = chain(n);
    let mut best = 0f64;
    for _ in 0..3 {
        let mut sim = Simulation::new(&f, env()).expect("chain compiles");
        let mut tap = sim.signal_tap();
        let t = Instant::now();
        let file = std::fs::File::create(path).expect("create the engine's VCD");
        let out = std::io::BufWriter::with_capacity(1 << 20, file);
        let mut w = handscope_traces::vcd_out::VcdWriter::new(
            tap.channels(),
            tap.state_meta(),
            tap.data_aliases(),
            out,
        )
        .expect("VCD header");
        let r = sim.run_tapped(cycles, &AtomicBool::new(false), &mut tap, &mut |c| {
            w.cycle(c.cycle, c.words, c.changed)
                .expect("write the engine's VCD");
        });
        w.finish().expect("finish the engine's VCD");
        let s = t.elapsed().as_secs_f64();
        assert_eq!(r.cycles, cycles);
        best = best.max(cycles as f64 / s);
    }
    let size = std::fs::metadata(path).map_or(0, |m| m.len());
    (best, size)
}

fn main_cpp(top: &str, waves: bool) -> String {
    // With waves: argv[2] names the VCD, every signal dumped at both clock edges.
    let (inc, open, dump0, dump1, close) = if waves {
        (
            "#include \"verilated_vcd_c.h\"\n",
            "  Verilated::traceEverOn(true); VerilatedVcdC* tf = new VerilatedVcdC; t->trace(tf, 99); tf->open(argc > 2 ? argv[2] : \"model.vcd\");\n",
            "    tf->dump((uint64_t)(10 * c));\n",
            "    tf->dump((uint64_t)(10 * c + 5));\n",
            "  tf->close();\n",
        )
    } else {
        ("", "", "", "", "")
    };
    format!(
        r#"#include "V{top}.h"
#include "verilated.h"
{inc}
#include <chrono>
#include <cstdio>
#include <cstdlib>
double sc_time_stamp() {{ return 0; }}
int main(int argc, char** argv) {{
  unsigned long long cycles = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  VerilatedContext* ctx = new VerilatedContext;
  V{top}* t = new V{top}{{ctx}};
{open}  t->in0 = 0; t->in0_valid = 0; t->out0_ready = 1; t->reset = 1; t->clock = 0; t->eval();
  for (int r = 0; r < 2; r++) {{ t->clock = 1; t->eval(); t->clock = 0; t->eval(); }}
  t->reset = 0; t->eval();
  unsigned long long tok = 0, outs = 0, sum = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (unsigned long long c = 0; c < cycles; c++) {{
    t->in0 = (unsigned)tok; t->in0_valid = 1; t->out0_ready = 1; t->clock = 0;
    t->eval();
    if (t->in0_ready) tok++;
    if (t->out0_valid) {{ outs++; sum += t->out0; }}
{dump0}    t->clock = 1;
    t->eval();
{dump1}  }}
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
{close}  std::printf("%.6f %llu %llu\n", s, outs, sum);
  t->final();
  delete t;
  return 0;
}}
"#
    )
}

/// Lowers and builds chain N; returns (executable, build seconds, cached).
fn build_verilator(n: usize, waves: bool) -> Result<(PathBuf, f64), String> {
    let tools = find_tools().map_err(|e| e.to_string())?;
    let f = chain(n);
    let mlir = handscope_compiler::mlir::write_function(&f);
    let t = Instant::now();
    let sv =
        handscope_oracle::lower::lower_one(&tools, &f.name, &mlir).map_err(|e| e.to_string())?;
    let lower_s = t.elapsed().as_secs_f64();
    let top = f.name.clone();
    let dir = handscope_oracle::lower::cache_root(&tools)
        .join(format!("bench-{top}{}", if waves { "-waves" } else { "" }));
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
    std::fs::write(&cpp, main_cpp(&top, waves)).map_err(|e| e.to_string())?;
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
        .args(if waves { &["--trace"][..] } else { &[][..] })
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

/// Best-of-three Verilator rate (cycles/s); with `vcd`, the model writes it.
fn verilator_rate(
    exe: &PathBuf,
    cycles: u64,
    vcd: Option<&std::path::Path>,
) -> Result<f64, String> {
    let mut best = 0f64;
    for _ in 0..3 {
        let out = Command::new(exe)
            .arg(cycles.to_string())
            .args(vcd)
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
    let mut waves = false;
    let mut given_cycles = None;
    let mut dir = std::env::temp_dir();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--cycles" => given_cycles = args.next().and_then(|v| v.parse().ok()),
            "--no-verilator" => verilator = false,
            "--waves" => waves = true,
            "--dir" => dir = args.next().map(PathBuf::from).unwrap_or(dir),
            _ => ns.push(a.parse::<usize>().expect("chain length")),
        }
    }
    if ns.is_empty() {
        ns = vec![50, 200];
    }
    if waves {
        waves_table(&ns, given_cycles.unwrap_or(50_000), verilator, &dir);
        return;
    }
    if let Some(c) = given_cycles {
        cycles = c;
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("load average at start: {}", load.trim());
    let mut rows = Vec::new();
    for &n in &ns {
        let (untraced, _) = engine_rate(n, cycles, false);
        let (traced, bytes) = engine_rate(n, cycles / 2, true);
        let (vl, build) = if verilator {
            match build_verilator(n, false)
                .and_then(|(exe, b)| Ok((verilator_rate(&exe, cycles, None)?, b)))
            {
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

/// The `--waves` table: both sides writing a VCD of `cycles` cycles.
fn waves_table(ns: &[usize], cycles: u64, verilator: bool, dir: &std::path::Path) {
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("load average at start: {}", load.trim());
    println!(
        "{:>5} {:>9} {:>14} {:>14} {:>8} {:>12} {:>12} {:>9}",
        "N", "cycles", "engine c/s", "Verilator c/s", "eng/Vl", "engine MB", "Vl MB", "size e/V"
    );
    for &n in ns {
        let ours = dir.join(format!("bench-chain{n}-engine.vcd"));
        let theirs = dir.join(format!("bench-chain{n}-verilator.vcd"));
        let (e, esize) = engine_wave_rate(n, cycles, &ours);
        let _ = std::fs::remove_file(&ours);
        let (v, vsize) = if verilator {
            match build_verilator(n, true)
                .and_then(|(exe, _)| verilator_rate(&exe, cycles, Some(&theirs)))
            {
                Ok(v) => (v, std::fs::metadata(&theirs).map_or(0, |m| m.len())),
                Err(err) => {
                    eprintln!("Verilator skipped for N={n}: {err}");
                    (f64::NAN, 0)
                }
            }
        } else {
            (f64::NAN, 0)
        };
        let _ = std::fs::remove_file(&theirs);
        println!(
            "{n:>5} {cycles:>9} {e:>14.0} {v:>14.0} {:>8.2} {:>12.1} {:>12.1} {:>9.2}",
            e / v,
            esize as f64 / 1e6,
            vsize as f64 / 1e6,
            esize as f64 / vsize as f64
        );
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("load average at end: {}", load.trim());
}
