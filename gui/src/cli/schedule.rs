//! `handscope schedule`: the static-island candidates of a C kernel (issue #35): every
//! innermost loop with its modulo schedule under a timing profile and limits on units (II,
//! latency, stages, which operation runs in which stage), or why the loop stays dynamic.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context as _, bail};
use handscope_compiler::c::{HsOptions, static_islands};

/// Arguments of `handscope schedule`.
#[derive(clap::Args, Debug)]
pub struct ScheduleArgs {
    /// C kernel.
    pub file: PathBuf,
    /// Top function (default: the kernel's `// TOP:`, else the only function nobody calls).
    #[arg(long)]
    pub func: Option<String>,
    /// The latencies the schedule is made for (`--timing`); the dynamic circuit it is
    /// compared with runs under the same profile.
    #[command(flatten)]
    pub timing: super::timing_flags::TimingFlags,
    /// The stimulus of the dynamic circuit's run (default: the kernel's `// RUN:` line).
    #[command(flatten)]
    pub stimulus: super::stimulus_flags::StimulusFlags,
}

/// The measured II of every loop of the dynamic circuit, by header block (`bb2`), from one
/// run with the kernel's stimulus; `None` (with the reason) when it cannot run.
fn dynamic_iis(
    a: &ScheduleArgs,
    text: &str,
    top: Option<&str>,
    opts: &HsOptions,
) -> Result<BTreeMap<String, f64>, String> {
    let run = || -> anyhow::Result<BTreeMap<String, f64>> {
        // The dynamic circuit: the islands' loops as handshake components.
        let c = HsOptions {
            timing: opts.timing.clone(),
            schedule: handscope_compiler::c::Scheduling::Dynamic,
            ..crate::load::c_options()
        };
        let loaded = crate::load::load_text_with(&a.file, text, top, &c)?;
        let (session, _) = super::session(&loaded, &a.file, &opts.timing, &a.stimulus.args(), 16)?;
        let run = session.run(1_000_000, true)?;
        let trace = run.trace.context("the engine recorded no trace")?;
        let report = handscope_sim::throughput::analyze(session.function(), &trace);
        let mut out = BTreeMap::new();
        for r in &report.regions {
            if r.kind != handscope_sim::throughput::RegionKind::Loop {
                continue;
            }
            let Some(ii) = r.measured_ii else { continue };
            let header = r.name.trim_start_matches("loop@");
            let block = header.split_once('.').map_or(header, |(b, _)| b);
            out.entry(block.to_string()).or_insert(ii);
        }
        Ok(out)
    };
    run().map_err(|e| e.to_string())
}

/// Runs `handscope schedule`.
pub fn run(a: &ScheduleArgs) -> anyhow::Result<ExitCode> {
    if a.file.extension().and_then(|e| e.to_str()) != Some("c") {
        bail!(
            "{}: `schedule` takes a C kernel (`.c`): it schedules the kernel's loops",
            a.file.display()
        );
    }
    let limits = crate::load::unit_limits();
    let text = handscope_sim::input::read_text(&a.file)?;
    let header = handscope_sim::session::header::Header::parse(&text);
    let top = a
        .func
        .clone()
        .or_else(|| header.function(None, true).map(String::from));
    let opts = HsOptions {
        timing: a.timing.profile()?,
        include_dirs: crate::load::include_dirs(),
        ..Default::default()
    };
    let name = a.file.display().to_string();
    let loops = static_islands(&text, &name, top.as_deref(), &opts, &limits)
        .map_err(|e| crate::load::Rendered(crate::load::render_diagnostic(&e)))?;
    let dynamic = dynamic_iis(a, &text, top.as_deref(), &opts);
    outln!("timing: {}", opts.timing.name())?;
    if let Err(e) = &dynamic {
        outln!(
            "dynamic circuit: not run ({}); give its stimulus with --in/--mem",
            e.lines().next().unwrap_or("")
        )?;
    }
    let measured = |header: &str| match &dynamic {
        Ok(m) => match m.get(header) {
            Some(ii) => format!("; the dynamic circuit measured II {ii:.2}"),
            None => "; the dynamic circuit ran no iteration of it".to_string(),
        },
        Err(_) => String::new(),
    };
    if loops.is_empty() {
        outln!("no loops: nothing to schedule")?;
    }
    for l in &loops {
        match &l.schedule {
            Err(why) => outln!(
                "loop {} (line {}): stays dynamic: {why}{}",
                l.header,
                l.line,
                measured(&l.header)
            )?,
            Ok(s) => {
                outln!(
                    "loop {} (line {}): static, II {} (lower bound {}), latency {}, {} stage{}{}",
                    l.header,
                    l.line,
                    s.ii,
                    s.min_ii,
                    s.latency,
                    s.stages(),
                    if s.stages() == 1 { "" } else { "s" },
                    measured(&l.header)
                )?;
                outln!("  stage  cycle  latency  operation")?;
                let mut order: Vec<usize> = (0..l.ops.len()).collect();
                order.sort_by_key(|&k| (s.start[k], k));
                for k in order {
                    let o = &l.ops[k];
                    outln!(
                        "  {:>5}  {:>5}  {:>7}  {} (line {})",
                        s.stage(k),
                        s.start[k],
                        o.unit.latency,
                        o.name,
                        o.line
                    )?;
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
