//! The engine worker thread: owns a [`Simulation`] and extends the run on demand, sending
//! finished cycles to the UI over a `crossbeam` channel so the UI never blocks on the engine.

use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, unbounded};
use handscope_sim::engine::Simulation;
use handscope_sim::report::RunReport;
use handscope_sim::stimulus::Environment;
use handscope_sim::trace::{ChannelMeta, MemWrite, StateMeta};
use handscope_sim::{ChannelId, Function, NodeId};

/// What the UI asks of the worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Request {
    /// Simulate until at least this many cycles exist (or the run ends).
    RunTo(u64),
    /// Stop the thread.
    Shutdown,
}

/// The values of one simulated cycle.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// `valid` per channel.
    pub valid: Vec<bool>,
    /// `ready` per channel.
    pub ready: Vec<bool>,
    /// `data` per channel.
    pub data: Vec<u64>,
    /// State words at the start of the cycle, in [`StateMeta`] order.
    pub state: Vec<u64>,
}

/// What the worker sends back.
#[derive(Debug)]
pub enum Reply {
    /// Trace metadata, sent first.
    Meta {
        /// Channels in channel order.
        channels: Vec<ChannelMeta>,
        /// Components with state.
        state: Vec<StateMeta>,
        /// Memory names.
        memories: Vec<String>,
    },
    /// Consecutive new cycles and the memory writes they made.
    Cycles(Vec<Frame>, Vec<MemWrite>),
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
    /// Starts simulating `func` in `env`, at most `max_cycles` cycles; `wake` is called after
    /// each reply (to request a repaint).
    pub fn spawn(
        func: Arc<Function>,
        env: Environment,
        max_cycles: u64,
        wake: Box<dyn Fn() + Send>,
    ) -> Worker {
        let (tx, req_rx) = unbounded::<Request>();
        let (rep_tx, rx) = unbounded::<Reply>();
        let handle = std::thread::Builder::new()
            .name("handscope-engine".into())
            .spawn(move || run(&func, env, max_cycles, &req_rx, &rep_tx, &*wake))
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
    func: &Function,
    env: Environment,
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
    let mut sim = match Simulation::new(func, env) {
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
    let state_meta = t.state_meta().to_vec();
    if !send(Reply::Meta {
        channels: t.channels().to_vec(),
        state: state_meta.clone(),
        memories: t.memories().to_vec(),
    }) {
        return;
    }
    let state_nodes: Vec<NodeId> = state_meta
        .iter()
        .filter_map(|m| func.node_by_id(&m.node))
        .collect();
    let chans: Vec<ChannelId> = func.channels.keys().collect();
    let mut target = 0u64;
    let mut writes_sent = 0usize;
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
        let mut frames = Vec::new();
        while sim.cycle() < target && sim.status().is_none() && start.elapsed() < CHUNK_TIME {
            let mut state = Vec::new();
            for &n in &state_nodes {
                state.extend_from_slice(sim.registers(n).0);
            }
            sim.step();
            frames.push(Frame {
                valid: chans.iter().map(|&c| sim.valid(c)).collect(),
                ready: chans.iter().map(|&c| sim.ready(c)).collect(),
                data: chans.iter().map(|&c| sim.data(c)).collect(),
                state,
            });
        }
        let writes = sim
            .trace()
            .map(|t| t.mem_writes()[writes_sent..].to_vec())
            .unwrap_or_default();
        writes_sent += writes.len();
        if (!frames.is_empty() || !writes.is_empty()) && !send(Reply::Cycles(frames, writes)) {
            return;
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
