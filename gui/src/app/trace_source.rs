//! Where the view's [`Trace`] comes from: a live engine extended on demand in a worker
//! thread (the view holds a copy of the engine's own trace, extended by the tails the worker
//! sends), or a finished trace (replayed from a VCD or recorded earlier). The view only ever
//! reads a [`Trace`].

use handscope_sim::report::RunReport;
use handscope_sim::session::Session;
use handscope_sim::trace::Trace;

use super::worker::{Reply, Worker};

/// How many cycles the live engine keeps simulated ahead of the cursor.
pub const LOOKAHEAD: u64 = 512;

/// What the view says when the engine thread ended without a report (it panicked).
pub const WORKER_GONE: &str = "the simulation stopped unexpectedly (the engine thread failed)";

/// Default cycle limit of a live run.
pub const MAX_CYCLES: u64 = 1_000_000;

/// A live run: the worker and the copy of its trace.
pub struct Live {
    worker: Worker,
    trace: Option<Trace>,
    report: Option<Box<RunReport>>,
    error: Option<String>,
    requested: u64,
}

/// The source of the trace the view shows.
pub enum TraceSource {
    /// Simulated on demand.
    Live(Box<Live>),
    /// A finished trace (VCD replay).
    Replay {
        /// The trace.
        trace: Box<Trace>,
        /// The run's report (outputs, deadlock analysis), when known.
        report: Option<Box<RunReport>>,
        /// The trace is a prefix of a run still being written (a followed VCD): more cycles
        /// will come, and the report is not final.
        growing: bool,
    },
}

impl Live {
    fn absorb(&mut self, r: Reply) {
        match r {
            Reply::Started(t) => self.trace = Some(*t),
            Reply::Grown(tail) => {
                let grown = self.trace.as_mut().map(|t| t.extend(tail));
                if let Some(Err(e)) = grown {
                    self.error = Some(e.to_string());
                }
            }
            Reply::Finished(rep) => self.report = Some(rep),
            Reply::Failed(e) => self.error = Some(e),
        }
    }
}

impl TraceSource {
    /// Starts a live run of `session`; `wake` requests a repaint.
    pub fn live(session: Session, wake: Box<dyn Fn() + Send>) -> TraceSource {
        let worker = Worker::spawn(session, MAX_CYCLES, wake);
        worker.request(LOOKAHEAD);
        TraceSource::Live(Box::new(Live {
            worker,
            trace: None,
            report: None,
            error: None,
            requested: LOOKAHEAD,
        }))
    }

    /// Wraps a finished trace.
    pub fn replay(trace: Trace, report: Option<RunReport>) -> TraceSource {
        TraceSource::Replay {
            trace: Box::new(trace),
            report: report.map(Box::new),
            growing: false,
        }
    }

    /// The prefix of a run still being written (a followed VCD): not complete, no report.
    pub fn growing(trace: Trace) -> TraceSource {
        TraceSource::Replay {
            trace: Box::new(trace),
            report: None,
            growing: true,
        }
    }

    /// The trace so far (`None` until the engine reported its metadata).
    pub fn trace(&self) -> Option<&Trace> {
        match self {
            TraceSource::Live(l) => l.trace.as_ref(),
            TraceSource::Replay { trace, .. } => Some(trace),
        }
    }

    /// Number of cycles available now.
    pub fn cycles(&self) -> u64 {
        self.trace().map_or(0, Trace::cycles)
    }

    /// True when no more cycles will come.
    pub fn complete(&self) -> bool {
        match self {
            TraceSource::Live(l) => l.report.is_some() || l.error.is_some(),
            TraceSource::Replay { growing, .. } => !growing,
        }
    }

    /// The final report of a live run that ended.
    pub fn report(&self) -> Option<&RunReport> {
        match self {
            TraceSource::Live(l) => l.report.as_deref(),
            TraceSource::Replay { report, .. } => report.as_deref(),
        }
    }

    /// An engine start-up error.
    pub fn error(&self) -> Option<&str> {
        match self {
            TraceSource::Live(l) => l.error.as_deref(),
            TraceSource::Replay { .. } => None,
        }
    }

    /// Takes the worker's replies into the trace. Returns true when anything arrived.
    pub fn poll(&mut self) -> bool {
        let TraceSource::Live(l) = self else {
            return false;
        };
        let mut any = false;
        loop {
            match l.worker.rx.try_recv() {
                Ok(r) => {
                    any = true;
                    l.absorb(r);
                }
                Err(crossbeam_channel::TryRecvError::Empty) => break,
                Err(crossbeam_channel::TryRecvError::Disconnected) => {
                    // The worker ended without a report: say so instead of waiting forever.
                    if l.report.is_none() && l.error.is_none() {
                        l.error = Some(WORKER_GONE.into());
                        any = true;
                    }
                    break;
                }
            }
        }
        any
    }

    /// Makes sure cycles up to `cycle + LOOKAHEAD` are (being) simulated.
    pub fn ensure(&mut self, cycle: u64) {
        if let TraceSource::Live(l) = self {
            let want = cycle.saturating_add(LOOKAHEAD);
            if want > l.requested && l.report.is_none() {
                l.requested = want;
                l.worker.request(want);
            }
        }
    }

    /// Blocks until `cycle` exists or the run ended (for headless rendering and tests).
    pub fn wait_for(&mut self, cycle: u64) {
        self.ensure(cycle);
        self.poll();
        let TraceSource::Live(l) = self else { return };
        while l.trace.as_ref().is_none_or(|t| t.cycles() <= cycle)
            && l.report.is_none()
            && l.error.is_none()
        {
            match l.worker.rx.recv() {
                Ok(r) => l.absorb(r),
                Err(_) => {
                    l.error.get_or_insert_with(|| WORKER_GONE.into());
                    return;
                }
            }
        }
    }

    #[cfg(test)]
    /// Blocks until the run ended (or `limit` cycles exist).
    pub fn wait_complete(&mut self, limit: u64) {
        while !self.complete() && self.cycles() < limit {
            let c = self.cycles();
            self.wait_for(c);
            if self.cycles() == c && !self.complete() {
                self.ensure(c + LOOKAHEAD);
            }
        }
    }
}
