//! `handscope verilog` and `handscope verilate`: SystemVerilog from Handscope's component
//! library, and a Verilator testbench that drives it like `handscope sim` (optionally built,
//! run and replayed), dumping a VCD or, with `--fst`, an FST.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use handscope_compiler::verilog::testbench::{
    TbDesign, memory_init_files, wrapper, write_testbench,
};
use handscope_compiler::verilog::{VerilogBuilder, write_verilog};
use handscope_sim::session::flat_function;
use handscope_traces::verilator::{BuildConfig, WaveFormat};

/// Arguments of `handscope verilog`.
#[derive(clap::Args, Debug)]
pub struct VerilogArgs {
    /// Handshake MLIR file or C kernel.
    pub file: PathBuf,
    /// Function to write (default: the only or the last function with a body).
    #[arg(long)]
    pub func: Option<String>,
    /// Output file (default: standard output).
    #[arg(short, long, value_name = "OUT.sv")]
    pub output: Option<PathBuf>,
    /// The timing profile: `--timing`.
    #[command(flatten)]
    pub timing: super::timing_flags::TimingFlags,
}

/// Arguments of `handscope verilate`.
#[derive(clap::Args, Debug)]
pub struct VerilateArgs {
    /// Handshake MLIR file or C kernel.
    pub file: PathBuf,
    /// Function to run (default: the only or the last function with a body).
    #[arg(long)]
    pub func: Option<String>,
    /// The stimulus: `--in`, `--mem`, `--ready`.
    #[command(flatten)]
    pub stimulus: super::stimulus_flags::StimulusFlags,
    /// The timing profile: `--timing`.
    #[command(flatten)]
    pub timing: super::timing_flags::TimingFlags,
    /// Stop after this many cycles.
    #[arg(long, default_value_t = 1_000_000)]
    pub max_cycles: u64,
    /// Cycles without any transfer after which the run is declared deadlocked.
    #[arg(long, default_value_t = 16)]
    pub deadlock_window: u64,
    /// Output directory (SystemVerilog, testbench, memory files, build script).
    #[arg(short, long, value_name = "DIR")]
    pub output: PathBuf,
    /// Build with Verilator, run, replay the VCD and print the report like `sim`.
    #[arg(long)]
    pub run: bool,
    /// With --run: print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// With --run: `--outputs summary|all`.
    #[command(flatten)]
    pub outputs: super::outputs_flag::OutputsFlag,
    /// Dump an FST (`trace.fst`, Verilator `--trace-fst`) instead of a VCD.
    #[arg(long)]
    pub fst: bool,
    /// With --run: open the debugger on the model while it runs, following its VCD as it is
    /// written (the view grows as cycles arrive and can stay at the newest one). The model
    /// runs the file's header stimulus (`// sim:`, a kernel's first `// RUN:`) with
    /// --in/--mem/--ready replacing entries, as the debugger does.
    #[arg(long, requires = "run")]
    pub live: bool,
}

/// Runs `handscope verilog`.
pub fn run_verilog(a: &VerilogArgs) -> anyhow::Result<ExitCode> {
    let timing = a.timing.profile()?;
    let loaded = crate::load::load_timed(&a.file, a.func.as_deref(), &timing)?;
    let mut flat = flat_function(&loaded.module, loaded.func.as_deref())?;
    if !timing.is_ideal() {
        // As a run sees it: forks and sinks where missing, then the pipelines.
        let mut s = handscope_sim::session::Session::new(flat)?;
        s.apply_timing(&timing)?;
        flat = s.function().clone();
    }
    let sv = write_verilog(&flat)?;
    match &a.output {
        Some(p) => crate::output::write_bytes(p, sv)?,
        None => out!("{sv}")?,
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `handscope verilate`.
pub fn run_verilate(a: &VerilateArgs) -> anyhow::Result<ExitCode> {
    let timing = a.timing.profile()?;
    let loaded = crate::load::load_timed(&a.file, a.func.as_deref(), &timing)?;
    let stimulus = a.stimulus.args();
    let mut session = if a.live {
        // The window runs the file's header stimulus with the flags replacing entries
        // (`app::circuit`); the model must run exactly that for the VCD to match.
        let mut s = crate::app::circuit::Circuit::from_file(
            &a.file,
            &stimulus,
            a.func.as_deref(),
            &timing,
        )?
        .session;
        s.set_deadlock_window(a.deadlock_window);
        s
    } else {
        super::session(&loaded, &a.file, &timing, &stimulus, a.deadlock_window)?.0
    };
    session.set_keep_all_outputs(a.outputs.keep_all(a.json));
    let (flat, env) = (session.function(), session.environment());
    let mut b = VerilogBuilder::new();
    let top = b.add(flat, None)?;
    let design = TbDesign {
        top: top.clone(),
        func: flat,
        env,
        max_cycles: a.max_cycles,
        any_fire: true,
    };
    let designs = [design];
    let mut sv = b.finish();
    sv.push_str(&wrapper(&designs));
    let format = if a.fst {
        WaveFormat::Fst
    } else {
        WaveFormat::Vcd
    };
    let mut tb = write_testbench(&designs);
    if a.fst {
        tb = handscope_traces::verilator::fst_testbench(&tb);
    }
    let dir = &a.output;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let write = |name: &str, text: &str| -> anyhow::Result<()> {
        crate::output::write_bytes(&dir.join(name), text)
    };
    write("design.sv", &sv)?;
    write("tb.cpp", &tb)?;
    for (name, text) in memory_init_files(&top, flat, env) {
        write(&name, &text)?;
    }
    let cfg = BuildConfig {
        format,
        reject_comb_loops: true,
        ..BuildConfig::default()
    };
    let cmd = handscope_traces::verilator::build_command_for(Path::new("obj"), &cfg);
    write(
        "build.sh",
        &format!(
            "#!/bin/sh\n# Builds ./obj/Vhs_tb; run it as ./obj/Vhs_tb {}\ncd \"$(dirname \"$0\")\"\n{}\n",
            format.file_name(),
            cmd.join(" ")
        ),
    )?;
    if !a.run {
        eprintln!(
            "wrote {}/design.sv, tb.cpp and build.sh (top module `{top}`)",
            dir.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    if a.live {
        return run_live(a, &sv, &write_testbench(&designs), &cfg, &top);
    }
    // `build_and_run_with` converts the VCD testbench itself.
    let vcd = handscope_traces::verilator::build_and_run_with(
        dir,
        &sv,
        &write_testbench(&designs),
        &cfg,
    )?;
    let progress = super::progress::ReadProgress::new(&vcd.display().to_string());
    let opts = handscope_traces::vcd_in::ReplayOptions {
        scope: Some(format!("hs_tb.{top}")),
        progress: Some(progress.callback()),
        ..Default::default()
    };
    let mut replay = handscope_traces::vcd_in::replay_file(&vcd, flat, Some(env), &opts)?;
    progress.finish(replay.edges);
    for w in &replay.warnings {
        eprintln!("warning: {w}");
    }
    a.outputs.print(&mut replay.report, a.json, &timing)?;
    Ok(crate::exit::of_run(replay.report.status))
}

/// `verilate --run --live`: starts the model and opens the debugger on its VCD while the
/// model writes it; the view grows as cycles arrive and shows the last one once the model
/// has exited. Closing the window stops a model still running.
fn run_live(
    a: &VerilateArgs,
    sv: &str,
    tb: &str,
    cfg: &BuildConfig<'_>,
    top: &str,
) -> anyhow::Result<ExitCode> {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    if a.fst {
        anyhow::bail!("--live follows a VCD; it cannot be combined with --fst");
    }
    let (child, vcd) = handscope_traces::verilator::build_and_spawn_with(&a.output, sv, tb, cfg)?;
    let child = Arc::new(std::sync::Mutex::new(child));
    let done = Arc::new(AtomicBool::new(false));
    let (c2, d2) = (child.clone(), done.clone());
    std::thread::spawn(move || {
        loop {
            let ended = c2
                .lock()
                .map(|mut c| !matches!(c.try_wait(), Ok(None)))
                .unwrap_or(true);
            if ended {
                d2.store(true, Ordering::SeqCst);
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    });
    let follow = crate::app::Follow {
        path: vcd,
        opts: handscope_traces::vcd_in::ReplayOptions {
            scope: Some(format!("hs_tb.{top}")),
            ..Default::default()
        },
        writer_done: done,
    };
    let start = crate::app::model::Start::File(
        a.file.clone(),
        None,
        a.stimulus.args(),
        a.func.clone(),
        a.timing.profile()?,
    );
    let code = crate::app::run(start, None, Some(follow), None);
    if let Ok(mut c) = child.lock()
        && matches!(c.try_wait(), Ok(None))
    {
        let _ = c.kill();
        let _ = c.wait();
    }
    Ok(code)
}
