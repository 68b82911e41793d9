//! Progress of reading a large waveform file: an `indicatif` bar on standard error while the
//! replay reads (only when standard error is a terminal), and one plain summary line at the
//! end. The replay library only reports how far it got ([`OnProgress`]); drawing is the
//! binary's job.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use handscope_sim::limits::thousands;
use handscope_traces::vcd_in::OnProgress;
use indicatif::{ProgressBar, ProgressStyle};

/// Files with at least this many bytes of value changes get a progress bar and a summary
/// line.
pub const LARGE_FILE: u64 = 64 << 20;

/// The progress display of one replay.
pub struct ReadProgress {
    name: String,
    start: Instant,
    /// Bytes of value changes in the file (0 until the reader reports).
    total: Arc<AtomicU64>,
    /// The bar, made at the first report (`None` when there is none to draw).
    bar: Arc<OnceLock<Option<ProgressBar>>>,
}

impl ReadProgress {
    /// Progress of reading `name`, starting now.
    pub fn new(name: &str) -> ReadProgress {
        ReadProgress {
            name: name.to_string(),
            start: Instant::now(),
            total: Arc::new(AtomicU64::new(0)),
            bar: Arc::new(OnceLock::new()),
        }
    }

    /// The callback to give the replay.
    pub fn callback(&self) -> OnProgress {
        let (name, total, bar) = (self.name.clone(), self.total.clone(), self.bar.clone());
        OnProgress(Arc::new(move |done, all| {
            total.store(all, Ordering::Relaxed);
            let bar = bar.get_or_init(|| {
                (all >= LARGE_FILE && std::io::stderr().is_terminal()).then(|| {
                    let b = ProgressBar::new(all);
                    b.set_style(
                        ProgressStyle::with_template(
                            "reading {msg} {wide_bar} {binary_bytes}/{binary_total_bytes} ({binary_bytes_per_sec}, {eta})",
                        )
                        .unwrap_or_else(|_| ProgressStyle::default_bar()),
                    );
                    b.set_message(name.clone());
                    b
                })
            });
            if let Some(b) = bar {
                b.set_position(done.min(all));
            }
        }))
    }

    /// Clears the bar and, for a large file, prints the summary line (`cycles` rising edges
    /// sampled).
    pub fn finish(self, cycles: u64) {
        if let Some(Some(b)) = self.bar.get() {
            b.finish_and_clear();
        }
        let total = self.total.load(Ordering::Relaxed);
        if total >= LARGE_FILE {
            let secs = self.start.elapsed().as_secs_f64();
            let mb = total as f64 / 1e6;
            eprintln!(
                "read {}: {mb:.0} MB in {secs:.1} s ({:.0} MB/s), {cycles} cycles",
                self.name,
                mb / secs.max(1e-9)
            );
        }
    }
}

/// Runs shorter than this show no progress.
const RUN_QUIET_FOR: std::time::Duration = std::time::Duration::from_secs(1);

/// The progress of a long `sim` run on standard error (only when it is a terminal): a
/// spinner with the cycles simulated and the rate, from the counter the engine stores into
/// ([`handscope_sim::engine::Simulation::set_progress`]), redrawn by a thread of its own
/// and cleared when the run ends. Runs shorter than a second show nothing.
pub struct RunProgress {
    counter: Arc<AtomicU64>,
    done: Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl RunProgress {
    /// Starts the display (a no-op when standard error is not a terminal).
    pub fn start() -> RunProgress {
        let counter = Arc::new(AtomicU64::new(0));
        let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let thread = std::io::stderr().is_terminal().then(|| {
            let (counter, done) = (counter.clone(), done.clone());
            std::thread::spawn(move || show_run(&counter, &done))
        });
        RunProgress {
            counter,
            done,
            thread,
        }
    }

    /// The counter for the simulation to store its cycle into.
    pub fn counter(&self) -> Arc<AtomicU64> {
        self.counter.clone()
    }
}

impl Drop for RunProgress {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}

/// The display thread of [`RunProgress`].
fn show_run(counter: &AtomicU64, done: &std::sync::atomic::AtomicBool) {
    let start = Instant::now();
    let tick = std::time::Duration::from_millis(250);
    let mut bar: Option<ProgressBar> = None;
    while !done.load(Ordering::Relaxed) {
        std::thread::park_timeout(tick);
        if done.load(Ordering::Relaxed) || start.elapsed() < RUN_QUIET_FOR {
            continue;
        }
        let b = bar.get_or_insert_with(|| {
            let b = ProgressBar::new_spinner();
            b.set_style(
                ProgressStyle::with_template("{spinner} simulating: {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            b
        });
        let cycles = counter.load(Ordering::Relaxed);
        let rate = cycles as f64 / start.elapsed().as_secs_f64().max(1e-9);
        b.set_message(format!(
            "{} cycles ({}/s; Ctrl-C stops and reports)",
            thousands(cycles),
            thousands(rate as u64)
        ));
        b.tick();
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_progress_without_a_terminal_draws_nothing_and_ends() {
        // Test runs have no terminal on standard error (or do, which also must end).
        let p = RunProgress::start();
        p.counter().store(5, Ordering::Relaxed);
        drop(p);
    }
}
