//! `handscope sim --batch RUNS` and `--seeds A..B`: many runs of one circuit, spread over
//! every core, each reported in one line, with the runs per second at the end.
//!
//! A batch file holds one run per line: `sim` stimulus options (`--in a=1,2 --ready
//! out=random:3:0.5`) or, for a C kernel, the arguments of a `// RUN:` line (`5 [1 2 3]`).
//! Blank lines and lines starting with `#` are skipped. The command line's `--in`, `--mem`
//! and `--ready` apply to every run; a line's entry replaces the command line's entry of the
//! same name. `--seeds A..B` runs each line (or the command line's stimulus) once per seed,
//! every result without an explicit `--ready` taking `random:SEED:PROB`.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use handscope_sim::report::{RunReport, SUMMARY_ENDS, Status};
use handscope_sim::session::header::run_stimulus;
use handscope_sim::session::{Session, StimulusArgs};

/// One run of a batch: where it came from and its stimulus.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchRun {
    /// `FILE:LINE`, `seed N`, or both.
    pub label: String,
    /// The stimulus, command-line entries already replaced by the run's own.
    pub stimulus: StimulusArgs,
}

/// What a whole batch gave.
#[derive(Debug, serde::Serialize)]
pub struct BatchReport {
    /// Every run, in batch order.
    pub runs: Vec<BatchEntry>,
    /// Runs per status.
    pub statuses: std::collections::BTreeMap<&'static str, usize>,
    /// Worker threads used.
    pub threads: usize,
    /// Wall time of all the runs (the circuit loaded and checked once before).
    pub seconds: f64,
    /// Runs completed per second of wall time.
    pub runs_per_second: f64,
    /// Cycles simulated per second of wall time, over every run.
    pub cycles_per_second: f64,
}

/// One run's outcome.
#[derive(Debug, serde::Serialize)]
pub struct BatchEntry {
    /// Where the run came from.
    pub label: String,
    /// Its report.
    pub report: RunReport,
}

/// Parses the seed range `A..B` (end excluded).
pub fn parse_seeds(text: &str) -> anyhow::Result<std::ops::Range<u64>> {
    let (a, b) = text
        .split_once("..")
        .with_context(|| format!("--seeds `{text}` is not a range A..B (e.g. 0..64)"))?;
    let a: u64 = a
        .trim()
        .parse()
        .with_context(|| format!("--seeds `{text}`: `{a}` is not a seed"))?;
    let b: u64 = b
        .trim()
        .parse()
        .with_context(|| format!("--seeds `{text}`: `{b}` is not a seed"))?;
    if b <= a {
        bail!("--seeds `{text}` is empty (the end is excluded: 0..4 is 0, 1, 2, 3)");
    }
    Ok(a..b)
}

/// The runs of a batch: the lines of `file`, each replacing entries of `base` (the file's
/// header stimulus with the command line's flags), or `base` alone, each once per seed of
/// `seeds` (or once). Errors name the file and line.
pub fn plan(
    session: &Session,
    base: &StimulusArgs,
    file: Option<&Path>,
    seeds: Option<std::ops::Range<u64>>,
    ready_prob: f64,
) -> anyhow::Result<Vec<BatchRun>> {
    let mut lines = Vec::new();
    if let Some(path) = file {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        for (i, line) in text.lines().enumerate() {
            let t = line.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            let at = format!("{}:{}", path.display(), i + 1);
            let own = if t.starts_with("--") {
                StimulusArgs::parse_flags(t).map_err(|e| anyhow::anyhow!("{at}: {e}"))?
            } else {
                run_stimulus(session.function(), t).map_err(|e| anyhow::anyhow!("{at}: {e}"))?
            };
            lines.push((at, base.overridden_by(&own)));
        }
        if lines.is_empty() {
            bail!(
                "{}: no runs (one run per line; `#` starts a comment)",
                path.display()
            );
        }
    } else {
        lines.push((String::new(), base.clone()));
    }
    let mut runs = Vec::new();
    for (at, stimulus) in lines {
        match &seeds {
            None => runs.push(BatchRun {
                label: if at.is_empty() { "run".into() } else { at },
                stimulus,
            }),
            Some(range) => {
                for seed in range.clone() {
                    let mut s = stimulus.clone();
                    for r in &session.function().results {
                        let named =
                            |e: &String| e.split_once('=').map(|(n, _)| n.trim()) == Some(&r.name);
                        if !s.ready.iter().any(named) {
                            s.ready
                                .push(format!("{}=random:{seed}:{ready_prob}", r.name));
                        }
                    }
                    let label = if at.is_empty() {
                        format!("seed {seed}")
                    } else {
                        format!("{at} seed {seed}")
                    };
                    runs.push(BatchRun { label, stimulus: s });
                }
            }
        }
    }
    // Every run's stimulus is bound once before anything runs, so a bad line fails the
    // batch at once instead of after the runs before it.
    for r in &runs {
        session
            .clone()
            .bind(&r.stimulus)
            .map_err(|e| anyhow::anyhow!("{}: {e}", r.label))?;
    }
    Ok(runs)
}

/// Runs every run of `runs` on `threads` worker threads (each run keeps the bounded token
/// lists of a summary unless `keep_all`); `stop` ends the runs in flight (as interrupted)
/// and skips the rest.
pub fn execute(
    session: &Session,
    runs: &[BatchRun],
    max_cycles: u64,
    threads: usize,
    keep_all: bool,
    stop: &AtomicBool,
) -> anyhow::Result<BatchReport> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<anyhow::Result<RunReport>>>> =
        Mutex::new((0..runs.len()).map(|_| None).collect());
    let threads = threads.clamp(1, runs.len().max(1));
    let start = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= runs.len() || stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let outcome = (|| {
                        let mut s = session.clone();
                        s.set_keep_all_outputs(keep_all).bind(&runs[i].stimulus)?;
                        Ok(s.run_until(max_cycles, false, stop)?.report)
                    })();
                    results.lock().expect("no worker panics")[i] = Some(outcome);
                }
            });
        }
    });
    let seconds = start.elapsed().max(Duration::from_micros(1)).as_secs_f64();
    let mut entries = Vec::new();
    let mut statuses = std::collections::BTreeMap::new();
    let mut cycles = 0u64;
    for (run, outcome) in runs
        .iter()
        .zip(results.into_inner().expect("no worker panics"))
    {
        let Some(outcome) = outcome else {
            break; // stopped before this run began
        };
        let report = outcome.with_context(|| run.label.clone())?;
        *statuses.entry(report.status.as_str()).or_insert(0) += 1;
        cycles += report.cycles;
        entries.push(BatchEntry {
            label: run.label.clone(),
            report,
        });
    }
    Ok(BatchReport {
        runs_per_second: entries.len() as f64 / seconds,
        cycles_per_second: cycles as f64 / seconds,
        runs: entries,
        statuses,
        threads,
        seconds,
    })
}

/// One line per run: its label, status, cycles and per result the tokens (up to
/// [`SUMMARY_ENDS`] of them) or their count and checksum.
pub fn render_text(b: &BatchReport) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    for e in &b.runs {
        let r = &e.report;
        let _ = write!(
            s,
            "{}: {} after {} cycles",
            e.label,
            r.status.as_str(),
            r.cycles
        );
        for (name, toks) in &r.outputs {
            let summary = r.output_summaries.get(name);
            let count = summary.map_or(toks.len() as u64, |m| m.count);
            if count as usize <= SUMMARY_ENDS && toks.len() as u64 == count {
                let vals: Vec<String> = toks
                    .iter()
                    .map(|t| {
                        t.value
                            .as_ref()
                            .map_or("token".to_string(), |v| v.to_string())
                    })
                    .collect();
                let _ = write!(s, "; {name}=[{}]", vals.join(", "));
            } else if let Some(m) = summary {
                let _ = write!(s, "; {name}: {} tokens, checksum {}", m.count, m.checksum);
            }
        }
        s.push('\n');
    }
    let statuses: Vec<String> = b.statuses.iter().map(|(k, v)| format!("{v} {k}")).collect();
    let _ = writeln!(
        s,
        "{} runs ({}) in {:.3} s on {} thread{}: {:.1} runs/s, {:.0} cycles/s",
        b.runs.len(),
        statuses.join(", "),
        b.seconds,
        b.threads,
        if b.threads == 1 { "" } else { "s" },
        b.runs_per_second,
        b.cycles_per_second
    );
    s
}

/// The exit code of a batch: success when every run is done, else the code of the first run
/// that is not.
pub fn exit_code(b: &BatchReport, planned: usize) -> ExitCode {
    match b.runs.iter().find(|e| e.report.status != Status::Done) {
        Some(e) => crate::exit::of_run(e.report.status),
        None if b.runs.len() < planned => crate::exit::of_run(Status::Interrupted),
        None => ExitCode::SUCCESS,
    }
}
