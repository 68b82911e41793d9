//! `handscope bench engine`: `handscope sim` side by side with a Verilator model of the same
//! circuit, on four workloads (issue 16): the generated chains of 50 and 200 stages, a loop
//! kernel (sum of squares) and a C kernel with memory (an 8×8 matrix product repeated).
//!
//! Both sides run as separate processes. Handscope's time is the wall time of the whole
//! `handscope sim` process (start, parse or C compile, run, report). Verilator's is the time of
//! the clocked loop only (reset, memory loading and the model's start excluded), measured inside
//! the testbench that `handscope verilate` writes, from which this module strips the waveform
//! calls for the runs without waves. The Verilator model is built from Handscope's own
//! SystemVerilog (`handscope verilate`) with `-O3`, for every workload; the oracle's models of
//! CIRCT's RTL of the chains are measured by `oracle/examples/bench_vs_verilator.rs`.
//! With waves (the chains, and the kernels of `--kernels`) Handscope writes `--vcd` and the model dumps every signal with
//! `VerilatedVcdC` at both clock edges.
//!
//! Each measurement is taken `rounds` times and the median kept; models are built once per
//! directory and reused while their sources do not change.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

use anyhow::{Context, bail};

/// Sizes of one benchmark run.
#[derive(Clone, Copy, Debug)]
pub struct Sizes {
    /// Stages of the two chains.
    pub chains: [usize; 2],
    /// Cycles of the chain runs without waves.
    pub chain_cycles: u64,
    /// Cycles of the chain runs with waves.
    pub wave_cycles: u64,
    /// `n` of the sum of squares.
    pub sumsq_n: u64,
    /// Repetitions of the matrix product.
    pub matmul_reps: u64,
    /// Cycles of the kernels' runs with waves (`--kernels`; the whole run when shorter).
    pub kernel_wave_cycles: u64,
    /// Compile the Verilator models' C++ unoptimized (`-O0`): for runs that check the
    /// benchmark works, not what it measures.
    pub quick_models: bool,
}

impl Sizes {
    /// The sizes of issue 16's measurement: millions of cycles per workload.
    pub const FULL: Sizes = Sizes {
        chains: [50, 200],
        chain_cycles: 2_000_000,
        wave_cycles: 50_000,
        sumsq_n: 2_000_000,
        matmul_reps: 2_000,
        kernel_wave_cycles: 1_000_000,
        quick_models: false,
    };
    /// Tiny sizes for the test suite (seconds, most of it the Verilator builds, whose C++ is
    /// compiled unoptimized: a tiny run's figures mean nothing).
    pub const TINY: Sizes = Sizes {
        chains: [3, 6],
        chain_cycles: 2_000,
        wave_cycles: 500,
        sumsq_n: 300,
        matmul_reps: 2,
        // The whole run: the kernels' runs without waves then reuse the model built for
        // the runs with waves (the same cycle limit), one Verilator build less per kernel.
        kernel_wave_cycles: 1 << 40,
        quick_models: true,
    };
}

/// The sum of squares kernel (`n` as its argument).
const SUMSQ_C: &str = "// Sum of squares below n: the engine benchmark's loop kernel.
// TOP: sumsq
int sumsq(int n) {
    int s = 0;
    for (int i = 0; i < n; i++)
        s += i * i;
    return s;
}
";

/// The repeated matrix product (arrays in external memories, `reps` as its argument).
const MATMUL_C: &str =
    "// 8x8 matrix product repeated reps times: the engine benchmark's kernel with memory.
// TOP: matmul_rep
#define N 8
int matmul_rep(int a[N][N], int b[N][N], int c[N][N], int reps) {
    int t = 0;
    for (int r = 0; r < reps; r++)
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++) {
                int s = r;
                for (int k = 0; k < N; k++)
                    s += a[i][k] * b[k][j];
                c[i][j] = s;
                t += s;
            }
    return t;
}
";

/// One workload: a file and the stimulus flags both sides get.
pub(super) struct Workload {
    pub(super) name: String,
    pub(super) file: PathBuf,
    pub(super) flags: Vec<String>,
    pub(super) max_cycles: u64,
    /// Whether its runs end at the cycle limit (a chain never finishes) rather than done.
    pub(super) runs_to_limit: bool,
    /// Cycles of the runs with waves (`None`: no wave runs).
    pub(super) wave_cycles: Option<u64>,
    /// For a chain, its stages: the runs without waves also time the yardstick
    /// (`bench_support::ideal_chain`) on it.
    pub(super) ideal: Option<usize>,
}

/// One side's time of one run: wall and CPU (user + system) seconds.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Time {
    pub(super) wall: f64,
    pub(super) cpu: f64,
}

/// The medians of one row (a workload with or without waves).
struct Row {
    name: String,
    waves: bool,
    cycles: u64,
    handscope: Time,
    verilator: Time,
    /// With waves: the VCD bytes of both sides.
    bytes: Option<(u64, u64)>,
    /// The yardstick's median wall time (chains without waves).
    ideal: Option<f64>,
}

/// The median times of `v`, wall and CPU apart.
pub(super) fn median_time(v: &[Time]) -> Time {
    let mut w: Vec<f64> = v.iter().map(|t| t.wall).collect();
    let mut c: Vec<f64> = v.iter().map(|t| t.cpu).collect();
    Time {
        wall: median(&mut w),
        cpu: median(&mut c),
    }
}

/// The C kernels of `bench engine --kernels`.
pub struct Kernels {
    /// The `.c` files.
    pub files: Vec<PathBuf>,
    /// Timing profiles to run each at.
    pub timings: Vec<String>,
    /// Only the kernels (no built-in workload).
    pub only: bool,
}

/// Runs the benchmark in `dir` (created; the models are cached there) and prints the table.
pub fn run(
    sizes: Sizes,
    rounds: usize,
    waves: bool,
    dir: &Path,
    kernels: &Kernels,
) -> anyhow::Result<ExitCode> {
    let rounds = rounds.max(1);
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    // Absolute: the models run in their own directories (a relative `--dir` named nothing
    // from there).
    let dir =
        &std::fs::canonicalize(dir).with_context(|| format!("cannot resolve {}", dir.display()))?;
    let exe = std::env::current_exe().context("cannot find the handscope executable")?;
    let workloads = if kernels.only {
        Vec::new()
    } else {
        write_workloads(sizes, waves, dir)?
    };
    let load = || {
        std::fs::read_to_string("/proc/loadavg")
            .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
            .unwrap_or_else(|_| "?".into())
    };
    outln!(
        "handscope sim (whole process) vs Verilator -O3 model of Handscope's SystemVerilog \
         (clocked loop only{}); median of {rounds}; load average {}",
        if sizes.quick_models {
            "; --tiny: its C++ unoptimized, the figures mean nothing"
        } else {
            ""
        },
        load()
    )?;
    let mut rows = Vec::new();
    for w in &workloads {
        eprintln!("bench engine: {} (building the models when needed)", w.name);
        let mut variants = vec![(false, model(&exe, w, dir, false, sizes.quick_models)?)];
        if w.wave_cycles.is_some() {
            variants.push((true, model(&exe, w, dir, true, sizes.quick_models)?));
        }
        for (traced, m) in &variants {
            let (mut hs, mut vl, mut ideal) = (Vec::new(), Vec::new(), Vec::new());
            let (mut cycles, mut bytes) = (0, None);
            for _ in 0..rounds {
                let ours = dir.join(format!("{}-handscope.vcd", w.name));
                let theirs = dir.join(format!("{}-verilator.vcd", w.name));
                let (h, hc) = handscope_run(&exe, w, traced.then_some(ours.as_path()))?;
                let (v, vc) = model_run(m, traced.then_some(theirs.as_path()))?;
                hs.push(h);
                vl.push(v);
                cycles = same_cycles(&w.name, hc, vc)?;
                if let (Some(n), false) = (w.ideal, *traced) {
                    ideal.push(ideal_run(n, cycles));
                }
                if *traced {
                    bytes = Some((file_len(&ours), file_len(&theirs)));
                    let _ = std::fs::remove_file(&ours);
                    let _ = std::fs::remove_file(&theirs);
                }
            }
            rows.push(Row {
                name: w.name.clone(),
                waves: *traced,
                cycles,
                handscope: median_time(&hs),
                verilator: median_time(&vl),
                bytes,
                ideal: (!ideal.is_empty()).then(|| median(&mut ideal)),
            });
        }
    }
    if !rows.is_empty() {
        out!("{}", table(&rows))?;
        out!("{}", yardstick_table(&rows))?;
    }
    let mut failed = Vec::new();
    if !kernels.files.is_empty() {
        let (t, f) = super::bench_kernels::run(
            &exe,
            &kernels.files,
            &kernels.timings,
            rounds,
            sizes.quick_models,
            waves.then_some(sizes.kernel_wave_cycles),
            dir,
        )?;
        out!("{t}")?;
        failed = f;
    }
    outln!("load average at end {}", load())?;
    for f in &failed {
        eprintln!("bench engine: failed: {f}");
    }
    Ok(if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Wall seconds of the yardstick on `chain(n)` for `cycles` cycles, in this process.
fn ideal_run(n: usize, cycles: u64) -> f64 {
    let t = Instant::now();
    let r = handscope_sim::bench_support::ideal_chain::run(n, cycles);
    let wall = t.elapsed().as_secs_f64();
    std::hint::black_box(r);
    wall
}

/// Both sides must have simulated the same cycles for their times to compare.
pub(super) fn same_cycles(name: &str, handscope: u64, verilator: u64) -> anyhow::Result<u64> {
    if handscope != verilator {
        bail!("{name}: handscope sim ran {handscope} cycles, the Verilator model {verilator}");
    }
    Ok(handscope)
}

/// The size of file `p` in bytes (0 when it cannot be read).
pub(super) fn file_len(p: &Path) -> u64 {
    std::fs::metadata(p).map_or(0, |m| m.len())
}

/// The median of `v` (not empty).
pub(super) fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// The printed table: one row per workload, and one per chain with waves.
fn table(rows: &[Row]) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<12} {:>5} {:>9} {:>10} {:>10} {:>7} {:>10} {:>10} {:>7} {:>11} {:>7} {:>7}",
        "workload",
        "waves",
        "cycles",
        "hs wall",
        "vl wall",
        "ratio",
        "hs cpu",
        "vl cpu",
        "ratio",
        "hs cycles/s",
        "hs MB",
        "vl MB"
    );
    for r in rows {
        let (hb, vb) = match r.bytes {
            Some((h, v)) => (
                format!("{:.1}", h as f64 / 1e6),
                format!("{:.1}", v as f64 / 1e6),
            ),
            None => ("-".into(), "-".into()),
        };
        let _ = writeln!(
            s,
            // Six decimals: a tiny run's clocked loop takes microseconds.
            "{:<12} {:>5} {:>9} {:>10.6} {:>10.6} {:>6.2}x {:>10.6} {:>10.6} {:>6.2}x {:>11.0} {:>7} {:>7}",
            r.name,
            if r.waves { "vcd" } else { "no" },
            r.cycles,
            r.handscope.wall,
            r.verilator.wall,
            r.verilator.wall / r.handscope.wall,
            r.handscope.cpu,
            r.verilator.cpu,
            r.verilator.cpu / r.handscope.cpu,
            r.cycles as f64 / r.handscope.wall,
            hb,
            vb
        );
    }
    s.push_str(
        "seconds; ratio = Verilator's time / Handscope's (above 1: Handscope is faster); cpu = \
         user + system seconds (Handscope: the whole process; Verilator: the clocked loop)\n",
    );
    s
}

/// The yardstick's rows: its time on each chain, its ratio to Verilator's and how much
/// faster it is than `handscope sim`.
fn yardstick_table(rows: &[Row]) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let ideal: Vec<(&Row, f64)> = rows
        .iter()
        .filter_map(|r| r.ideal.map(|t| (r, t)))
        .collect();
    if ideal.is_empty() {
        return s;
    }
    let _ = writeln!(
        s,
        "yardstick: the chains simulated by code written by hand for them in the engine's \
         representation (sim::bench_support::ideal_chain, in this process; median of the same rounds)"
    );
    let _ = writeln!(
        s,
        "{:<12} {:>9} {:>10} {:>10} {:>7} {:>9}",
        "workload", "cycles", "ideal wall", "vl wall", "ratio", "hs/ideal"
    );
    for (r, t) in ideal {
        let _ = writeln!(
            s,
            "{:<12} {:>9} {:>10.6} {:>10.6} {:>6.2}x {:>8.2}x",
            r.name,
            r.cycles,
            t,
            r.verilator.wall,
            r.verilator.wall / t,
            r.handscope.wall / t
        );
    }
    s
}

/// Writes the workloads' sources into `dir`.
fn write_workloads(sizes: Sizes, waves: bool, dir: &Path) -> anyhow::Result<Vec<Workload>> {
    let mut v = Vec::new();
    for (i, &n) in sizes.chains.iter().enumerate() {
        let f = handscope_sim::bench_support::chain(n);
        let file = dir.join(format!("chain{n}.mlir"));
        let module = handscope_sim::Module { functions: vec![f] };
        crate::output::write_bytes(&file, handscope_compiler::mlir::write_mlir(&module))?;
        let cycles = if i == 0 {
            sizes.chain_cycles
        } else {
            // chain(200) costs four times chain(50) per cycle on both sides.
            (sizes.chain_cycles / 2).max(1)
        };
        v.push(Workload {
            name: format!("chain({n})"),
            file,
            flags: vec!["--in".into(), format!("in0=0..{}", u32::MAX)],
            max_cycles: cycles,
            runs_to_limit: true,
            wave_cycles: waves.then_some(if i == 0 {
                sizes.wave_cycles
            } else {
                (sizes.wave_cycles / 2).max(1)
            }),
            ideal: Some(n),
        });
    }
    let sumsq = dir.join("sumsq.c");
    crate::output::write_bytes(&sumsq, SUMSQ_C)?;
    v.push(Workload {
        name: "sumsq".into(),
        file: sumsq,
        flags: vec!["--in".into(), format!("n={}", sizes.sumsq_n)],
        max_cycles: 1 << 40,
        runs_to_limit: false,
        wave_cycles: None,
        ideal: None,
    });
    let matmul = dir.join("matmul_rep.c");
    crate::output::write_bytes(&matmul, MATMUL_C)?;
    let mat = |seed: i64| {
        (0..64)
            .map(|i| ((i * 7 + seed * 13) % 19 - 9).to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    v.push(Workload {
        name: "matmul8_rep".into(),
        file: matmul,
        flags: vec![
            "--mem".into(),
            format!("a={}", mat(1)),
            "--mem".into(),
            format!("b={}", mat(2)),
            "--in".into(),
            format!("reps={}", sizes.matmul_reps),
        ],
        max_cycles: 1 << 40,
        runs_to_limit: false,
        wave_cycles: None,
        ideal: None,
    });
    Ok(v)
}

/// The cycle limit of `w`'s runs, with or without waves.
fn cycles_of(w: &Workload, waves: bool) -> u64 {
    match (waves, w.wave_cycles) {
        (true, Some(c)) => c,
        _ => w.max_cycles,
    }
}

/// Wall time of one `handscope sim` process on `w` (with `--vcd vcd` when given) and the
/// cycles its report gives. The run must end as `w` expects: done, or at the cycle limit.
fn handscope_run(exe: &Path, w: &Workload, vcd: Option<&Path>) -> anyhow::Result<(Time, u64)> {
    handscope_run_with(exe, w, vcd, &[]).map(|(t, c, _)| (t, c))
}

/// [`handscope_run`] with more `sim` options; also returns what it printed on stderr.
pub(super) fn handscope_run_with(
    exe: &Path,
    w: &Workload,
    vcd: Option<&Path>,
    extra: &[&str],
) -> anyhow::Result<(Time, u64, String)> {
    let cycles = cycles_of(w, vcd.is_some());
    let mut c = Command::new(exe);
    c.arg("sim")
        .arg(&w.file)
        .args(&w.flags)
        .args(extra)
        .args(["--max-cycles", &cycles.to_string()]);
    if let Some(v) = vcd {
        c.arg("--vcd").arg(v);
    }
    let cpu0 = children_cpu();
    let t = Instant::now();
    let out = c.output().context("cannot run handscope sim")?;
    let time = Time {
        wall: t.elapsed().as_secs_f64(),
        cpu: children_cpu() - cpu0,
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let want = if w.runs_to_limit {
        crate::exit::MAX_CYCLES
    } else {
        crate::exit::OK
    };
    // A kernel's run with waves stops at the wave cycles unless it finishes before.
    let also = (vcd.is_some() && !w.runs_to_limit).then_some(crate::exit::MAX_CYCLES);
    let code = out.status.code();
    if code != Some(i32::from(want)) && (also.is_none() || code != also.map(i32::from)) {
        bail!(
            "handscope sim {} ended with {:?} (expected {want}): {}{}",
            w.file.display(),
            out.status.code(),
            text.lines().next().unwrap_or(""),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // First line: `status: done after N cycles`.
    let ran = text
        .lines()
        .next()
        .and_then(|l| l.split_once(" after "))
        .and_then(|(_, r)| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .with_context(|| format!("no cycle count in the report of {}", w.file.display()))?;
    Ok((time, ran, String::from_utf8_lossy(&out.stderr).into_owned()))
}

/// User plus system CPU seconds of this process's finished children so far.
#[cfg(unix)]
fn children_cpu() -> f64 {
    // SAFETY: `rusage` is plain data, valid when zeroed.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `getrusage` writes into `ru`, which lives across the call.
    if unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) } != 0 {
        return f64::NAN;
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    secs(ru.ru_utime) + secs(ru.ru_stime)
}

/// CPU time of children is not measured off Unix.
#[cfg(not(unix))]
fn children_cpu() -> f64 {
    f64::NAN
}

/// A built Verilator model.
pub(super) struct Model {
    exe: PathBuf,
}

/// Builds (or reuses) the Verilator model of `w`, traced or not.
pub(super) fn model(
    exe: &Path,
    w: &Workload,
    dir: &Path,
    traced: bool,
    quick: bool,
) -> anyhow::Result<Model> {
    let cycles = cycles_of(w, traced);
    let mdir = dir.join(format!(
        "vl-{}{}",
        w.name.replace(['(', ')'], "").replace(['/', '@'], "-"),
        if traced { "-vcd" } else { "" }
    ));
    let fresh = dir.join(format!("{}.new", mdir.display()));
    let _ = std::fs::remove_dir_all(&fresh);
    let out = Command::new(exe)
        .arg("verilate")
        .arg(&w.file)
        .args(&w.flags)
        .args(["--max-cycles", &cycles.to_string(), "-o"])
        .arg(&fresh)
        .output()
        .context("cannot run handscope verilate")?;
    if !out.status.success() {
        bail!(
            "handscope verilate {} failed: {}",
            w.file.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let tb_path = fresh.join("tb.cpp");
    let tb = std::fs::read_to_string(&tb_path)?;
    let tb = timed_testbench(&tb, traced)?;
    crate::output::write_bytes(&tb_path, &tb)?;
    let build = std::fs::read_to_string(fresh.join("build.sh"))?;
    let mut cmd: Vec<String> = build
        .lines()
        .find(|l| l.starts_with("verilator "))
        .context("no verilator command in build.sh")?
        .split_whitespace()
        .filter(|a| traced || *a != "--trace")
        .map(str::to_string)
        .collect();
    if quick {
        for m in ["OPT_FAST=-O0", "OPT_GLOBAL=-O0"] {
            cmd.insert(1, m.to_string());
            cmd.insert(1, "-MAKEFLAGS".to_string());
        }
    }
    // Reuse the model built from the same sources.
    let same = |name: &str| {
        std::fs::read(fresh.join(name)).ok() == std::fs::read(mdir.join(name)).ok()
            && mdir.join(name).is_file()
    };
    let model_exe = mdir.join("obj").join("Vhs_tb");
    if model_exe.is_file() && same("design.sv") && same("tb.cpp") {
        let _ = std::fs::remove_dir_all(&fresh);
        return Ok(Model { exe: model_exe });
    }
    let _ = std::fs::remove_dir_all(&mdir);
    std::fs::rename(&fresh, &mdir)?;
    let t = Instant::now();
    let out = Command::new(&cmd[0])
        .args(&cmd[1..])
        .current_dir(&mdir)
        .output()
        .context("cannot run verilator")?;
    if !out.status.success() || !model_exe.is_file() {
        bail!(
            "verilator failed in {}: {}",
            mdir.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    eprintln!(
        "bench engine: built {} in {:.1} s",
        mdir.display(),
        t.elapsed().as_secs_f64()
    );
    Ok(Model { exe: model_exe })
}

/// The marker the timed testbench prints its clocked loop's seconds after (on stderr).
const LOOP_MARK: &str = "hs-bench-loop-seconds";

/// `tb` (from `handscope verilate`) timing its clocked loop, without its waveform calls unless
/// `traced`. Fails when the testbench no longer has the expected shape.
fn timed_testbench(tb: &str, traced: bool) -> anyhow::Result<String> {
    let mut tb = tb.to_string();
    let mut edit = |from: &str, to: &str| -> anyhow::Result<()> {
        if !tb.contains(from) {
            bail!("the generated testbench has no `{from}` (bench engine needs updating)");
        }
        tb = tb.replace(from, to);
        Ok(())
    };
    edit(
        "#include <cstdint>\n",
        "#include <cstdint>\n#include <chrono>\n#include <ctime>\n",
    )?;
    edit(
        "  for (uint64_t c = 0; ; c++) {\n",
        "  auto hs_bench_t0 = std::chrono::steady_clock::now(); std::clock_t hs_bench_c0 = std::clock();\n  for (uint64_t c = 0; ; c++) {\n",
    )?;
    edit(
        "  top->final();\n",
        &format!(
            "  fprintf(stderr, \"{LOOP_MARK} %.9f %.9f\\n\", std::chrono::duration<double>(std::chrono::steady_clock::now() - hs_bench_t0).count(), double(std::clock() - hs_bench_c0) / CLOCKS_PER_SEC);\n  top->final();\n"
        ),
    )?;
    if !traced {
        for from in [
            "Verilated::traceEverOn(true);",
            "VerilatedVcdC* tfp = new VerilatedVcdC;",
            "top->trace(tfp, 99);",
            "tfp->open(vcd);",
            "tfp->dump(t + 5);",
            "tfp->dump(t);",
            "tfp->close();",
            "delete tfp;",
            "#include \"verilated_vcd_c.h\"",
        ] {
            edit(from, "")?;
        }
        if tb.contains("tfp") {
            bail!(
                "the generated testbench still traces after stripping (bench engine needs updating)"
            );
        }
    }
    Ok(tb)
}

/// Runs a model; its clocked loop's times and the cycles it ran.
pub(super) fn model_run(m: &Model, vcd: Option<&Path>) -> anyhow::Result<(Time, u64)> {
    let mut c = Command::new(&m.exe);
    if let Some(v) = vcd {
        c.arg(v);
    }
    c.current_dir(
        m.exe
            .parent()
            .and_then(Path::parent)
            .unwrap_or(Path::new(".")),
    );
    let out = c.output().context("cannot run the Verilator model")?;
    let err = String::from_utf8_lossy(&out.stderr);
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        bail!("the Verilator model {} failed: {err}", m.exe.display());
    }
    let time = err
        .lines()
        .find_map(|l| l.strip_prefix(LOOP_MARK))
        .and_then(|x| {
            let mut it = x.split_whitespace().map(|v| v.parse::<f64>().ok());
            Some(Time {
                wall: it.next()??,
                cpu: it.next()??,
            })
        })
        .with_context(|| format!("the Verilator model printed no loop time: {err}"))?;
    let cycles = text
        .lines()
        .find_map(|l| l.split_once(" cycles ").map(|(_, c)| c.trim().to_string()))
        .and_then(|c| c.parse().ok())
        .with_context(|| format!("the Verilator model printed no cycle count: {text}"))?;
    Ok((time, cycles))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
    }
}
