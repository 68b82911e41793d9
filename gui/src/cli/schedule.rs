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
    /// Also build the kernel under each schedule (`dynamic`, `hybrid`, `static`), run it
    /// with the stimulus, and print its cycles and size: handshake components, buffer
    /// slots, units (arithmetic operations and memory ports).
    #[arg(long)]
    pub compare: bool,
}

/// One build of a kernel under a schedule: its cycles with the stimulus and its size.
struct Variant {
    cycles: Result<u64, String>,
    islands: usize,
    components: usize,
    buffer_slots: u64,
    units: u64,
}

/// Builds and runs the kernel under `schedule`.
fn variant(
    a: &ScheduleArgs,
    text: &str,
    top: Option<&str>,
    opts: &HsOptions,
    schedule: handscope_compiler::c::Scheduling,
) -> anyhow::Result<Variant> {
    let c = HsOptions {
        schedule,
        ..opts.clone()
    };
    let loaded = crate::load::load_text_with(&a.file, text, top, &c)?;
    let (session, _) = super::session(&loaded, &a.file, &opts.timing, &a.stimulus.args(), 16)?;
    let f = session.function();
    let size = size_of(f);
    let run = session.run(50_000_000, false)?;
    let cycles = match run.report.status {
        handscope_sim::report::Status::Done => Ok(run.report.cycles),
        other => Err(format!("{other:?}")),
    };
    Ok(Variant {
        cycles,
        islands: size.0,
        components: size.1,
        buffer_slots: size.2,
        units: size.3,
    })
}

/// Islands, handshake components (every node but arguments, `return` and islands), buffer
/// slots and units: an island's [`handscope_sim::island::Island::units`], one per other
/// arithmetic operation (width conversions are wires) and per memory port.
fn size_of(f: &handscope_sim::Function) -> (usize, usize, u64, u64) {
    use handscope_sim::Op;
    let (mut islands, mut comps, mut slots, mut units) = (0, 0, 0u64, 0u64);
    for n in f.nodes.values() {
        match &n.op {
            Op::Argument { .. } | Op::Return => continue,
            Op::Island(isl) => {
                islands += 1;
                units += isl.units().values().map(|&u| u64::from(u)).sum::<u64>();
                continue;
            }
            Op::Buffer { slots: k, .. } => slots += u64::from(*k),
            Op::Arith(a) if !a.is_cast() => units += 1,
            Op::Memory { ld, st, .. } | Op::ExtMemory { ld, st, .. } => {
                units += u64::from(ld + st);
            }
            _ => {}
        }
        comps += 1;
    }
    (islands, comps, slots, units)
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
        unit_limits: limits.clone(),
        ..crate::load::c_options()
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
    if a.compare {
        use handscope_compiler::c::Scheduling;
        outln!("schedules under {}:", opts.timing.name())?;
        outln!("  schedule  cycles  islands  components  buffer slots  units")?;
        for (name, s) in [
            ("dynamic", Scheduling::Dynamic),
            ("hybrid", Scheduling::Hybrid),
            ("static", Scheduling::Static),
        ] {
            match variant(a, &text, top.as_deref(), &opts, s) {
                Ok(v) => outln!(
                    "  {name:<8}  {:>6}  {:>7}  {:>10}  {:>12}  {:>5}",
                    match &v.cycles {
                        Ok(c) => c.to_string(),
                        Err(why) => why.clone(),
                    },
                    v.islands,
                    v.components,
                    v.buffer_slots,
                    v.units
                )?,
                Err(e) => outln!("  {name:<8}  not built: {e}")?,
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
