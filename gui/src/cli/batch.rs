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

/// One run's outcome: its report, or why it has none.
#[derive(Debug, serde::Serialize)]
pub struct BatchEntry {
    /// Where the run came from.
    pub label: String,
    /// Its report (none when the run failed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report: Option<RunReport>,
    /// Why the run failed: an error, or a panic of its worker (the other runs go on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The status counted for a run that failed.
pub const FAILED: &str = "error";

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
        let text = handscope_sim::input::read_text(path)?;
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
    Ok(execute_with(runs, threads, stop, |run| {
        let mut s = session.clone();
        s.set_keep_all_outputs(keep_all).bind(&run.stimulus)?;
        Ok(s.run_until(max_cycles, false, stop)?.report)
    }))
}

/// The text of a panic's payload (what `panic!` was given, when it is text).
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_string())
}

/// [`execute`] with each run done by `run_one`. A run that fails, by an error or a panic, is
/// that run's entry (its `error`); the other workers and runs go on.
fn execute_with(
    runs: &[BatchRun],
    threads: usize,
    stop: &AtomicBool,
    run_one: impl Fn(&BatchRun) -> anyhow::Result<RunReport> + Sync,
) -> BatchReport {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<RunReport, String>>>> =
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
                    // A panic is caught here, so it never unwinds through a lock this
                    // worker shares with the others.
                    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        run_one(&runs[i])
                    }));
                    let outcome = match caught {
                        Ok(Ok(report)) => Ok(report),
                        Ok(Err(e)) => Err(format!("{e:#}")),
                        Err(payload) => Err(format!(
                            "the run panicked: {} (a bug in Handscope; please report it)",
                            panic_message(payload.as_ref())
                        )),
                    };
                    results
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)[i] = Some(outcome);
                }
            });
        }
    });
    let seconds = start.elapsed().max(Duration::from_micros(1)).as_secs_f64();
    let mut entries = Vec::new();
    let mut statuses = std::collections::BTreeMap::new();
    let mut cycles = 0u64;
    let results = results
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    for (run, outcome) in runs.iter().zip(results) {
        let Some(outcome) = outcome else {
            break; // stopped before this run began
        };
        let (report, error) = match outcome {
            Ok(report) => {
                *statuses.entry(report.status.as_str()).or_insert(0) += 1;
                cycles += report.cycles;
                (Some(report), None)
            }
            Err(e) => {
                *statuses.entry(FAILED).or_insert(0) += 1;
                (None, Some(e))
            }
        };
        entries.push(BatchEntry {
            label: run.label.clone(),
            report,
            error,
        });
    }
    BatchReport {
        runs_per_second: entries.len() as f64 / seconds,
        cycles_per_second: cycles as f64 / seconds,
        runs: entries,
        statuses,
        threads,
        seconds,
    }
}

/// One line per run: its label, status, cycles and per result the tokens (up to
/// [`SUMMARY_ENDS`] of them) or their count and checksum.
pub fn render_text(b: &BatchReport) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    for e in &b.runs {
        let Some(r) = &e.report else {
            let error = e.error.as_deref().unwrap_or("no report");
            let _ = writeln!(s, "{}: error: {error}", e.label);
            continue;
        };
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
    let status = |e: &BatchEntry| e.report.as_ref().map(|r| r.status);
    match b.runs.iter().find(|e| status(e) != Some(Status::Done)) {
        Some(e) => match status(e) {
            Some(s) => crate::exit::of_run(s),
            None => ExitCode::from(crate::exit::ERROR),
        },
        None if b.runs.len() < planned => crate::exit::of_run(Status::Interrupted),
        None => ExitCode::SUCCESS,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counter() -> Session {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/circuits/counter_loop.mlir");
        let loaded = crate::load::load_for(&path, None).unwrap();
        Session::open(&loaded.module, None).unwrap()
    }

    fn run(label: &str, n: u32) -> BatchRun {
        BatchRun {
            label: label.into(),
            stimulus: StimulusArgs {
                inputs: vec![format!("n={n}"), "start=1".into()],
                ..StimulusArgs::default()
            },
        }
    }

    /// Issue 36, item 9: a panic in one worker took the batch down. It is now that run's
    /// error; every other run finishes and keeps its report, on one worker or several.
    #[test]
    fn a_panicking_run_is_its_own_error_and_the_others_finish() {
        let session = counter();
        let runs: Vec<BatchRun> = (0..8).map(|i| run(&format!("run {i}"), i)).collect();
        let stop = AtomicBool::new(false);
        let shared = Mutex::new(0u32);
        for threads in [1, 3] {
            let report = execute_with(&runs, threads, &stop, |r| {
                // The panicking run holds a lock the others take too: it must not poison
                // their work.
                let mut held = shared
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                *held += 1;
                if r.label == "run 3" {
                    panic!("injected failure");
                }
                drop(held);
                let mut s = session.clone();
                s.bind(&r.stimulus)?;
                Ok(s.run_until(10_000, false, &stop)?.report)
            });
            assert_eq!(report.runs.len(), 8);
            for (i, e) in report.runs.iter().enumerate() {
                if i == 3 {
                    assert!(e.report.is_none());
                    let error = e.error.as_deref().unwrap();
                    assert!(
                        error.contains("the run panicked: injected failure"),
                        "{error}"
                    );
                } else {
                    let r = e.report.as_ref().unwrap();
                    assert_eq!(r.status, Status::Done, "{}", e.label);
                    assert_eq!(
                        r.outputs["count"][0].value.as_ref().unwrap().to_string(),
                        i.to_string()
                    );
                }
            }
            assert_eq!(report.statuses.get(FAILED), Some(&1));
            assert_eq!(report.statuses.get("done"), Some(&7));
            let text = render_text(&report);
            assert!(
                text.contains("run 3: error: the run panicked: injected failure"),
                "{text}"
            );
            assert!(text.contains("run 7: done"), "{text}");
            assert_eq!(
                exit_code(&report, runs.len()),
                ExitCode::from(crate::exit::ERROR)
            );
            let json = serde_json::to_value(&report).unwrap();
            assert!(json["runs"][3].get("report").is_none());
            assert!(json["runs"][2].get("error").is_none());
        }
    }
}
