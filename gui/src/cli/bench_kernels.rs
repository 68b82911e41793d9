//! `handscope bench engine --kernels PATH`: C kernels of your own (or public benchmark suites
//! compiled by Handscope) side by side with Verilator models of Handscope's SystemVerilog of
//! the same kernels, at each timing profile, with the engine before and after issue #33.
//!
//! Each `.c` file (a directory stands for the `.c` files in it) must carry its stimulus in
//! its header (`// TOP:`, `// RUN:`), as the examples do; both sides run that stimulus to
//! completion. Per kernel and timing the table gives the simulated cycles, the activity
//! (transfers per channel and cycle, from the run's statistics), the instructions the
//! activity-driven interpreter evaluated per cycle against those of a cycle that evaluates
//! every component (`sim --engine-stats`), and three median times: the Verilator model's
//! clocked loop, `handscope sim --engine compiled` (the engine before activity-driven
//! evaluation: what `auto` ran long runs on) and `handscope sim` with the default engine.
//!
//! With waves (unless `--no-waves`) each kernel and timing is also run writing a full
//! waveform: `handscope sim --vcd` against the model built with `--trace` dumping every
//! signal with `VerilatedVcdC` at both clock edges, over the first `wave_cycles` cycles
//! (the whole run when it is shorter); the wave table gives both times and both files' sizes.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

use super::bench_engine::{
    Time, Workload, file_len, handscope_run_with, median, median_time, model, model_run,
    same_cycles,
};

/// The `.c` files `paths` name: files as given, directories by their `.c` files in name
/// order.
pub(super) fn kernel_files(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(p)
                .with_context(|| format!("cannot read {}", p.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.extension().is_some_and(|x| x == "c") && f.is_file())
                .collect();
            found.sort();
            if found.is_empty() {
                bail!("{}: no .c file in this directory", p.display());
            }
            files.extend(found);
        } else if p.is_file() {
            files.push(p.clone());
        } else {
            bail!("{}: no such file or directory", p.display());
        }
    }
    Ok(files)
}

/// One kernel's measurements at one timing.
struct KernelRow {
    name: String,
    timing: String,
    cycles: u64,
    /// Transfers per channel and cycle.
    activity: f64,
    /// Instructions evaluated per cycle by the activity-driven interpreter, and per cycle
    /// when every component is evaluated.
    evaluated: f64,
    instructions: u64,
    verilator: Time,
    before: Time,
    after: Time,
    /// The engine the default run ended with.
    engine: String,
    /// The runs writing a full waveform, when measured.
    waves: Option<WaveRow>,
}

/// One kernel's runs writing a full VCD at one timing: medians and file sizes.
struct WaveRow {
    cycles: u64,
    handscope: Time,
    verilator: Time,
    /// Bytes of Handscope's VCD and of Verilator's.
    bytes: (u64, u64),
}

/// Runs every kernel of `files` at every timing of `timings` (`rounds` times each) and
/// returns the table, and the kernels that failed with why.
pub(super) fn run(
    exe: &Path,
    files: &[PathBuf],
    timings: &[String],
    rounds: usize,
    quick_models: bool,
    wave_cycles: Option<u64>,
    dir: &Path,
) -> anyhow::Result<(String, Vec<String>)> {
    let mut rows = Vec::new();
    let mut failed = Vec::new();
    for file in files {
        let stem = file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "kernel".into());
        for timing in timings {
            let w = Workload {
                name: format!("{stem}@{timing}"),
                file: file.clone(),
                flags: vec!["--timing".into(), timing.clone()],
                max_cycles: 1 << 40,
                runs_to_limit: false,
                wave_cycles,
                ideal: None,
            };
            eprintln!("bench engine: {} (building the model when needed)", w.name);
            match measure(exe, &w, timing, rounds, quick_models, dir) {
                Ok(r) => rows.push(r),
                Err(e) => failed.push(format!("{}: {e:#}", w.name)),
            }
        }
    }
    Ok((table(&rows, timings), failed))
}

/// The measurements of one kernel at one timing.
fn measure(
    exe: &Path,
    w: &Workload,
    timing: &str,
    rounds: usize,
    quick_models: bool,
    dir: &Path,
) -> anyhow::Result<KernelRow> {
    // `--tiny` (quick models, whose figures mean nothing) times the runs without waves on
    // the traced model when the runs with waves build it anyway for the same cycles.
    let reuse = quick_models && w.wave_cycles == Some(w.max_cycles);
    let m = model(exe, w, dir, reuse, quick_models)?;
    let (mut vl, mut before, mut after) = (Vec::new(), Vec::new(), Vec::new());
    let (mut cycles, mut engine) = (0, String::new());
    for _ in 0..rounds {
        let (v, vc) = model_run(&m, None)?;
        let (b, bc, _) = handscope_run_with(exe, w, None, &["--engine", "compiled"])?;
        let (a, ac, err) = handscope_run_with(exe, w, None, &["--engine-stats"])?;
        same_cycles(&w.name, bc, vc)?;
        cycles = same_cycles(&w.name, ac, vc)?;
        engine = parse_engine_line(&err)
            .map(|(e, _, _)| e)
            .context("no --engine-stats line")?;
        vl.push(v);
        before.push(b);
        after.push(a);
    }
    let (activity, evaluated, instructions) = work(exe, w)?;
    let waves = match w.wave_cycles {
        Some(_) => Some(measure_waves(exe, w, rounds, quick_models, dir)?),
        None => None,
    };
    Ok(KernelRow {
        name: w.name.split('@').next().unwrap_or(&w.name).to_string(),
        timing: timing.to_string(),
        cycles,
        activity,
        evaluated,
        instructions,
        verilator: median_time(&vl),
        before: median_time(&before),
        after: median_time(&after),
        engine,
        waves,
    })
}

/// The runs of `w` writing a full VCD on both sides.
fn measure_waves(
    exe: &Path,
    w: &Workload,
    rounds: usize,
    quick_models: bool,
    dir: &Path,
) -> anyhow::Result<WaveRow> {
    let m = model(exe, w, dir, true, quick_models)?;
    let ours = dir.join(format!("{}-handscope.vcd", w.name));
    let theirs = dir.join(format!("{}-verilator.vcd", w.name));
    let (mut hs, mut vl) = (Vec::new(), Vec::new());
    let (mut cycles, mut bytes) = (0, (0, 0));
    for _ in 0..rounds {
        let (h, hc, _) = handscope_run_with(exe, w, Some(&ours), &[])?;
        let (v, vc) = model_run(&m, Some(&theirs))?;
        cycles = same_cycles(&w.name, hc, vc)?;
        bytes = (file_len(&ours), file_len(&theirs));
        let _ = std::fs::remove_file(&ours);
        let _ = std::fs::remove_file(&theirs);
        hs.push(h);
        vl.push(v);
    }
    Ok(WaveRow {
        cycles,
        handscope: median_time(&hs),
        verilator: median_time(&vl),
        bytes,
    })
}

/// Activity and instructions per cycle of `w`, from one untimed run of the activity-driven
/// interpreter with the JSON report.
fn work(exe: &Path, w: &Workload) -> anyhow::Result<(f64, f64, u64)> {
    let out = Command::new(exe)
        .arg("sim")
        .arg(&w.file)
        .args(&w.flags)
        .args([
            "--json",
            "--outputs",
            "summary",
            "--engine",
            "activity",
            "--engine-stats",
        ])
        .output()
        .context("cannot run handscope sim")?;
    let err = String::from_utf8_lossy(&out.stderr);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout)
        .with_context(|| format!("no JSON report from {}: {err}", w.file.display()))?;
    let cycles = json["cycles"]
        .as_u64()
        .context("no cycle count in the report")?;
    let stats = json["stats"]
        .as_object()
        .context("no statistics in the report")?;
    let fires: u64 = stats.values().filter_map(|s| s["fires"].as_u64()).sum();
    let activity = fires as f64 / (stats.len().max(1) as f64 * cycles.max(1) as f64);
    let (_, evaluated, instructions) = parse_engine_line(&err).context("no --engine-stats line")?;
    Ok((activity, evaluated, instructions))
}

/// The engine, instructions evaluated per cycle and instructions of a cycle in the line
/// `sim --engine-stats` prints.
fn parse_engine_line(err: &str) -> Option<(String, f64, u64)> {
    let line = err.lines().find_map(|l| l.strip_prefix("engine: "))?;
    let (engine, rest) = line.split_once(';')?;
    let rest = rest.trim().strip_prefix("instructions per cycle: ")?;
    let mut words = rest.split_whitespace();
    let evaluated = words.next()?.parse().ok()?;
    let instructions = words.nth(2)?.parse().ok()?;
    Some((engine.to_string(), evaluated, instructions))
}

/// Geometric mean of `v` (not empty).
fn geomean(v: &[f64]) -> f64 {
    (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp()
}

/// The printed table: one row per kernel and timing, then the geometric means per timing.
fn table(rows: &[KernelRow], timings: &[String]) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<20} {:>6} {:>10} {:>7} {:>8} {:>6} {:>9} {:>9} {:>9} {:>8} {:>8}  engine",
        "kernel",
        "timing",
        "cycles",
        "act%",
        "eval/cyc",
        "of",
        "vl wall",
        "before",
        "after",
        "before x",
        "after x"
    );
    for r in rows {
        let _ = writeln!(
            s,
            // Six decimals: a tiny run's clocked loop takes microseconds.
            "{:<20} {:>6} {:>10} {:>7.2} {:>8.1} {:>6} {:>9.6} {:>9.6} {:>9.6} {:>7.2}x {:>7.2}x  {}",
            r.name,
            r.timing,
            r.cycles,
            100.0 * r.activity,
            r.evaluated,
            r.instructions,
            r.verilator.wall,
            r.before.wall,
            r.after.wall,
            r.verilator.wall / r.before.wall,
            r.verilator.wall / r.after.wall,
            r.engine
        );
    }
    for t in timings {
        let of: Vec<&KernelRow> = rows.iter().filter(|r| &r.timing == t).collect();
        if of.is_empty() {
            continue;
        }
        let ratio = |f: &dyn Fn(&KernelRow) -> f64| {
            geomean(
                &of.iter()
                    .map(|r| r.verilator.wall / f(r))
                    .collect::<Vec<_>>(),
            )
        };
        let mut act: Vec<f64> = of.iter().map(|r| 100.0 * r.activity).collect();
        let _ = writeln!(
            s,
            "geomean at {t}: {} kernels, before {:.2}x, after {:.2}x Verilator (median activity {:.2}%)",
            of.len(),
            ratio(&|r| r.before.wall),
            ratio(&|r| r.after.wall),
            median(&mut act)
        );
    }
    s.push_str(
        "seconds, wall, medians; act% = transfers per channel and cycle; eval/cyc = instructions \
         the activity-driven interpreter evaluated per cycle, of = a cycle's instructions when \
         every component is evaluated; before = `sim --engine compiled`, after = `sim` (default \
         engine, which it ended with last); x = Verilator's time / Handscope's (above 1: \
         Handscope is faster)\n",
    );
    s.push_str(&wave_table(rows, timings));
    s
}

/// The table of the runs writing a full waveform (empty without them).
fn wave_table(rows: &[KernelRow], timings: &[String]) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    if rows.iter().all(|r| r.waves.is_none()) {
        return s;
    }
    let _ = writeln!(
        s,
        "{:<20} {:>6} {:>10} {:>9} {:>9} {:>7} {:>9} {:>9} {:>6}",
        "kernel with VCD",
        "timing",
        "cycles",
        "hs wall",
        "vl wall",
        "ratio",
        "hs MB",
        "vl MB",
        "size"
    );
    for r in rows {
        let Some(v) = &r.waves else { continue };
        let _ = writeln!(
            s,
            "{:<20} {:>6} {:>10} {:>9.6} {:>9.6} {:>6.2}x {:>9.3} {:>9.3} {:>5.2}x",
            r.name,
            r.timing,
            v.cycles,
            v.handscope.wall,
            v.verilator.wall,
            v.verilator.wall / v.handscope.wall,
            v.bytes.0 as f64 / 1e6,
            v.bytes.1 as f64 / 1e6,
            v.bytes.0 as f64 / v.bytes.1.max(1) as f64
        );
    }
    for t in timings {
        let of: Vec<&WaveRow> = rows
            .iter()
            .filter(|r| &r.timing == t)
            .filter_map(|r| r.waves.as_ref())
            .collect();
        if of.is_empty() {
            continue;
        }
        let speed: Vec<f64> = of
            .iter()
            .map(|v| v.verilator.wall / v.handscope.wall)
            .collect();
        let size: Vec<f64> = of
            .iter()
            .map(|v| v.bytes.0 as f64 / v.bytes.1.max(1) as f64)
            .collect();
        let _ = writeln!(
            s,
            "geomean with VCD at {t}: {} kernels, {:.2}x Verilator --trace, files {:.2}x its size (largest {:.2}x)",
            of.len(),
            geomean(&speed),
            geomean(&size),
            size.iter().copied().fold(0.0, f64::max)
        );
    }
    s.push_str(
        "with VCD: both sides write every signal of the first cycles of the run (Handscope \
         `sim --vcd`; the model built with --trace, VerilatedVcdC at both clock edges); ratio = \
         Verilator's wall time / Handscope's; size = Handscope's file / Verilator's\n",
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_engine_stats_line() {
        let err = "note: x\nengine: activity; instructions per cycle: 21.37 evaluated of 267 (8.0%) over 958060 cycles\n";
        assert_eq!(
            parse_engine_line(err),
            Some(("activity".into(), 21.37, 267))
        );
        let err = "engine: compiled; instructions per cycle: 267 evaluated of 267 (100.0%)";
        assert_eq!(
            parse_engine_line(err),
            Some(("compiled".into(), 267.0, 267))
        );
        assert_eq!(parse_engine_line("engine: broken"), None);
    }

    #[test]
    fn geomean_of_ratios() {
        assert!((geomean(&[2.0, 8.0]) - 4.0).abs() < 1e-12);
    }
}
