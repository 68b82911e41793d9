//! Progress of loading a large waveform file: an `indicatif` bar on standard error while
//! reading (only when standard error is a terminal), and one plain summary line at the end.

use std::io::IsTerminal;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};

/// Files at least this large (bytes) get a progress bar and a summary line.
pub const LARGE_FILE: u64 = 64 << 20;

/// Progress reporting of one load (does nothing unless enabled and the file is large).
pub struct Progress {
    name: String,
    total: u64,
    active: bool,
    bar: Option<ProgressBar>,
    start: Instant,
}

impl Progress {
    /// Reporting for reading `total` bytes of `name`; `enabled` is the caller's wish
    /// ([`ReplayOptions::progress`](super::ReplayOptions::progress)).
    pub fn new(name: &str, total: u64, enabled: bool) -> Progress {
        let active = enabled && total >= LARGE_FILE;
        let bar = (active && std::io::stderr().is_terminal()).then(|| {
            let b = ProgressBar::new(total);
            b.set_style(
                ProgressStyle::with_template(
                    "reading {msg} {wide_bar} {binary_bytes}/{binary_total_bytes} ({binary_bytes_per_sec}, {eta})",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            b.set_message(name.to_string());
            b
        });
        Progress {
            name: name.to_string(),
            total,
            active,
            bar,
            start: Instant::now(),
        }
    }

    /// `done` bytes of the total have been read.
    pub fn update(&self, done: u64) {
        if let Some(b) = &self.bar {
            b.set_position(done.min(self.total));
        }
    }

    /// Clears the bar and prints the summary line (`cycles` rising edges sampled).
    pub fn finish(&mut self, cycles: u64) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
        if self.active {
            let secs = self.start.elapsed().as_secs_f64();
            let mb = self.total as f64 / 1e6;
            eprintln!(
                "read {}: {mb:.0} MB in {secs:.1} s ({:.0} MB/s), {cycles} cycles",
                self.name,
                mb / secs.max(1e-9)
            );
            self.active = false;
        }
    }
}
