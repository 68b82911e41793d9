//! Writing a waveform while simulating, on two threads: the simulation runs on a thread of
//! its own and hands each cycle's changed signal words over in batches; the calling thread
//! turns them into the file. On a machine with two cores the waveform's text costs the
//! simulation little wall time (issue #33: a full VCD at twice Verilator `--trace`'s speed;
//! docs/bench-engine.md). The file is the one a single thread writes: the writer sees the
//! same words and changes in the same order.

use std::sync::atomic::AtomicBool;
use std::sync::mpsc;

use handscope_sim::engine::{Simulation, TapCycle};
use handscope_sim::report::RunReport;

/// Changes carried per batch before it is handed over.
const BATCH_CHANGES: usize = 1 << 16;

/// Batches in flight between the threads (bounds the memory the simulation can run ahead).
const BATCHES_IN_FLIGHT: usize = 8;

/// The changes of consecutive cycles.
#[derive(Default)]
struct Batch {
    /// Per cycle: its number and how many changes it has.
    cycles: Vec<(u64, u32)>,
    /// The changed words' indices and values, cycle after cycle.
    slots: Vec<u32>,
    values: Vec<u64>,
}

impl Batch {
    /// Adds cycle `c`: every word when `all` (the first cycle), else its changes.
    fn push(&mut self, c: &TapCycle<'_>, all: bool) {
        let before = self.slots.len();
        if all {
            self.slots.extend(0..c.words.len() as u32);
            self.values.extend_from_slice(c.words);
        } else {
            self.slots.extend_from_slice(c.changed);
            self.values
                .extend(c.changed.iter().map(|&s| c.words[s as usize]));
        }
        self.cycles
            .push((c.cycle, (self.slots.len() - before) as u32));
    }

    fn clear(&mut self) {
        self.cycles.clear();
        self.slots.clear();
        self.values.clear();
    }
}

/// Runs `sim` to its end (as [`Simulation::run_tapped`]) on a second thread and hands
/// `write` every cycle, in order: its number, all signal words and the indices of those
/// that changed. After the first error nothing more is written and the error comes back
/// with the report; the run itself goes on to its end.
pub(crate) fn run_streaming<E>(
    sim: &mut Simulation,
    max_cycles: u64,
    stop: &AtomicBool,
    mut write: impl FnMut(u64, &[u64], &[u32]) -> Result<(), E>,
) -> (RunReport, Option<E>) {
    let mut tap = sim.signal_tap();
    let (full_tx, full_rx) = mpsc::sync_channel::<Batch>(BATCHES_IN_FLIGHT);
    let (empty_tx, empty_rx) = mpsc::channel::<Batch>();
    std::thread::scope(|scope| {
        let simulation = scope.spawn(move || {
            let mut batch = Batch::default();
            let mut first = true;
            let report = sim.run_tapped(max_cycles, stop, &mut tap, &mut |c| {
                batch.push(c, first);
                first = false;
                if batch.slots.len() >= BATCH_CHANGES {
                    let next = empty_rx.try_recv().unwrap_or_default();
                    // A writer that stopped receiving has failed: its error is reported.
                    let _ = full_tx.send(std::mem::replace(&mut batch, next));
                }
            });
            let _ = full_tx.send(batch);
            report
        });
        let mut failed = None;
        let (mut words, mut changed) = (Vec::<u64>::new(), Vec::<u32>::new());
        for mut batch in full_rx {
            if failed.is_none() {
                let mut at = 0;
                for &(cycle, n) in &batch.cycles {
                    let range = at..at + n as usize;
                    at = range.end;
                    changed.clear();
                    for (&s, &v) in batch.slots[range.clone()].iter().zip(&batch.values[range]) {
                        let s = s as usize;
                        if s >= words.len() {
                            words.resize(s + 1, 0);
                        }
                        words[s] = v;
                        changed.push(s as u32);
                    }
                    if let Err(e) = write(cycle, &words, &changed) {
                        failed = Some(e);
                        break;
                    }
                }
            }
            batch.clear();
            let _ = empty_tx.send(batch);
        }
        let report = match simulation.join() {
            Ok(r) => r,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        (report, failed)
    })
}
