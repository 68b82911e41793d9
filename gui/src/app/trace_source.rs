//! Where the view's [`Trace`] comes from: a live engine extended on demand in a worker
//! thread, or a finished trace (replayed from a VCD or recorded earlier). The view only ever
//! reads a [`Trace`].

use std::sync::Arc;

use handscope_sim::Function;
use handscope_sim::report::RunReport;
use handscope_sim::stimulus::Environment;
use handscope_sim::trace::{Sample, Trace, TraceBuilder};

use super::worker::{Reply, Worker};

/// How many cycles the live engine keeps simulated ahead of the cursor.
pub const LOOKAHEAD: u64 = 512;

/// Default cycle limit of a live run.
pub const MAX_CYCLES: u64 = 1_000_000;

/// A live run: the worker and the trace assembled from its replies.
pub struct Live {
    worker: Worker,
    builder: Option<TraceBuilder>,
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
    },
}

impl Live {
    fn absorb(&mut self, r: Reply) {
        match r {
            Reply::Meta {
                channels,
                state,
                memories,
            } => {
                let mut b = TraceBuilder::new(channels, state);
                b.set_memories(memories);
                self.builder = Some(b);
            }
            Reply::Cycles(frames, writes) => {
                if let Some(b) = &mut self.builder {
                    for f in &frames {
                        b.push_cycle(Sample {
                            valid: &f.valid,
                            ready: &f.ready,
                            data: &f.data,
                            state: &f.state,
                        });
                    }
                    for w in writes {
                        b.push_mem_write(w);
                    }
                }
            }
            Reply::Finished(rep) => self.report = Some(rep),
            Reply::Failed(e) => self.error = Some(e),
        }
    }
}

impl TraceSource {
    /// Starts a live run of `func` in `env`; `wake` requests a repaint.
    pub fn live(func: Arc<Function>, env: Environment, wake: Box<dyn Fn() + Send>) -> TraceSource {
        let worker = Worker::spawn(func, env, MAX_CYCLES, wake);
        worker.request(LOOKAHEAD);
        TraceSource::Live(Box::new(Live {
            worker,
            builder: None,
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
        }
    }

    /// The trace so far (`None` until the engine reported its metadata).
    pub fn trace(&self) -> Option<&Trace> {
        match self {
            TraceSource::Live(l) => l.builder.as_ref().map(TraceBuilder::trace),
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
            TraceSource::Replay { .. } => true,
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
        while let Ok(r) = l.worker.rx.try_recv() {
            any = true;
            l.absorb(r);
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
        while l
            .builder
            .as_ref()
            .is_none_or(|b| b.trace().cycles() <= cycle)
            && l.report.is_none()
            && l.error.is_none()
        {
            match l.worker.rx.recv() {
                Ok(r) => l.absorb(r),
                Err(_) => return,
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
