//! The engine worker thread: owns a [`Simulation`] and extends the run on demand, sending
//! what its [`Trace`] recorded to the UI over a `crossbeam` channel so the UI never blocks on
//! the engine. The UI holds a copy of the engine's own trace: first the empty trace, then
//! each [`TraceTail`] (new snapshots and memory writes), never per-cycle values.

use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, unbounded};
use handscope_sim::report::RunReport;
use handscope_sim::session::Session;
use handscope_sim::trace::{Trace, TraceTail};

/// What the UI asks of the worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Request {
    /// Simulate until at least this many cycles exist (or the run ends).
    RunTo(u64),
    /// Stop the thread.
    Shutdown,
}

/// What the worker sends back.
#[derive(Debug)]
pub enum Reply {
    /// The engine started; its trace, still empty (metadata and program). Sent first.
    Started(Box<Trace>),
    /// What the trace recorded since the previous reply.
    Grown(TraceTail),
    /// The run ended (done, deadlock or cycle limit); the report of the whole run.
    Finished(Box<RunReport>),
    /// The engine could not start.
    Failed(String),
}

/// A running worker thread.
pub struct Worker {
    tx: Sender<Request>,
    /// Replies from the worker.
    pub rx: Receiver<Reply>,
    handle: Option<JoinHandle<()>>,
}

/// Longest stretch the worker simulates before handing cycles over.
const CHUNK_TIME: Duration = Duration::from_millis(25);

impl Worker {
    /// Starts simulating `session`, at most `max_cycles` cycles; `wake` is called after each
    /// reply (to request a repaint).
    pub fn spawn(session: Session, max_cycles: u64, wake: Box<dyn Fn() + Send>) -> Worker {
        let (tx, req_rx) = unbounded::<Request>();
        let (rep_tx, rx) = unbounded::<Reply>();
        let handle = std::thread::Builder::new()
            .name("handscope-engine".into())
            .spawn(move || run(&session, max_cycles, &req_rx, &rep_tx, &*wake))
            .ok();
        Worker { tx, rx, handle }
    }

    /// Asks for at least `cycles` cycles.
    pub fn request(&self, cycles: u64) {
        let _ = self.tx.send(Request::RunTo(cycles));
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.tx.send(Request::Shutdown);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

fn run(
    session: &Session,
    max_cycles: u64,
    req: &Receiver<Request>,
    out: &Sender<Reply>,
    wake: &dyn Fn(),
) {
    let send = |r: Reply| {
        let ok = out.send(r).is_ok();
        wake();
        ok
    };
    let mut sim = match session.simulation() {
        Ok(s) => s,
        Err(e) => {
            send(Reply::Failed(e.to_string()));
            return;
        }
    };
    sim.enable_trace();
    let Some(t) = sim.trace() else {
        send(Reply::Failed("the engine records no trace".into()));
        return;
    };
    let mut mark = t.mark();
    if !send(Reply::Started(Box::new(t.clone()))) {
        return;
    }
    let mut target = 0u64;
    let mut finished = false;
    loop {
        // Wait for work when idle; otherwise only drain pending requests.
        let next = if finished || sim.cycle() >= target {
            req.recv().ok()
        } else {
            req.try_recv().ok()
        };
        match next {
            Some(Request::Shutdown) => return,
            Some(Request::RunTo(n)) => target = target.max(n.min(max_cycles)),
            None if finished || sim.cycle() >= target => return,
            None => {}
        }
        if finished {
            continue;
        }
        let start = Instant::now();
        while sim.cycle() < target && sim.status().is_none() && start.elapsed() < CHUNK_TIME {
            sim.step();
        }
        if let Some(t) = sim.trace()
            && t.mark() != mark
        {
            let Some(tail) = t.tail(mark) else {
                send(Reply::Failed("the engine's trace does not grow".into()));
                return;
            };
            mark = t.mark();
            if !send(Reply::Grown(tail)) {
                return;
            }
        }
        let ended = sim.status().is_some() || sim.cycle() >= max_cycles;
        if ended {
            let report = if sim.status().is_some() {
                sim.report()
            } else {
                sim.run(sim.cycle())
            };
            finished = true;
            if !send(Reply::Finished(Box::new(report))) {
                return;
            }
        }
    }
}
