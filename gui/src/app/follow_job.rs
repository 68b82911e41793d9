//! Following a VCD being written (`--live`) off the UI thread: a thread owns the incremental
//! [`Follower`], wakes on `notify` events for the file (and every 250 ms, for file systems
//! that send none), parses what was appended and hands the UI the trace so far. The UI never
//! parses: a frame only takes the newest result from a channel.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use handscope_sim::Function;
use handscope_sim::stimulus::Environment;
use handscope_sim::trace::Trace;
use handscope_traces::vcd_in::follow::Follower;
use handscope_traces::vcd_in::{Replay, ReplayOptions};
use notify::Watcher as _;

use super::model::Wake;

/// What the follower thread reports.
pub enum FollowUpdate {
    /// The complete cycles so far.
    Grew(Box<Trace>),
    /// The writer finished: the whole file's replay.
    Done(Box<Replay>),
    /// The file cannot be followed (the message names it).
    Failed(String),
}

/// A follower thread; dropping it stops the thread.
pub struct FollowJob {
    rx: crossbeam_channel::Receiver<FollowUpdate>,
    stop: Arc<AtomicBool>,
    path: PathBuf,
}

/// How long the thread waits for a file event before looking anyway.
const LOOK_EVERY: Duration = Duration::from_millis(250);

impl FollowJob {
    /// Follows `path` onto `func` in `env`; `writer_done` is set by whoever runs the writer
    /// once the file is complete; `wake` asks the UI for a frame when something arrived.
    pub fn spawn(
        path: &Path,
        func: Arc<Function>,
        env: Environment,
        opts: ReplayOptions,
        writer_done: Arc<AtomicBool>,
        wake: Wake,
    ) -> FollowJob {
        // One result waits at most: a newer trace replaces an unread one on the thread side.
        let (tx, rx) = crossbeam_channel::bounded(1);
        let stop = Arc::new(AtomicBool::new(false));
        let job = FollowJob {
            rx,
            stop: stop.clone(),
            path: path.to_path_buf(),
        };
        let path = path.to_path_buf();
        let slot = Slot {
            tx,
            rx: job.rx.clone(),
            wake,
        };
        let spawned = std::thread::Builder::new()
            .name("follow-vcd".into())
            .spawn(move || follow(&path, &func, &env, &opts, &writer_done, &stop, &slot));
        if let Err(e) = spawned {
            // The thread's end of the channel is gone with the closure: say why here.
            let (tx, rx) = crossbeam_channel::bounded(1);
            let _ = tx.send(FollowUpdate::Failed(format!(
                "cannot start following {}: {e}",
                job.path.display()
            )));
            return FollowJob {
                rx,
                stop: Arc::new(AtomicBool::new(true)),
                path: job.path.clone(),
            };
        }
        job
    }

    /// The followed file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The newest result, if one arrived since the last call.
    pub fn take(&self) -> Option<FollowUpdate> {
        self.rx.try_recv().ok()
    }
}

impl Drop for FollowJob {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// The one-result channel as the thread sees it.
struct Slot {
    tx: crossbeam_channel::Sender<FollowUpdate>,
    /// To take back a result the UI has not read yet.
    rx: crossbeam_channel::Receiver<FollowUpdate>,
    wake: Wake,
}

impl Slot {
    /// Puts `u` in the slot, replacing an unread result, and wakes the UI.
    fn send(&self, mut u: FollowUpdate) {
        loop {
            match self.tx.try_send(u) {
                Ok(()) | Err(crossbeam_channel::TrySendError::Disconnected(_)) => break,
                Err(crossbeam_channel::TrySendError::Full(back)) => {
                    u = back;
                    let _ = self.rx.try_recv();
                }
            }
        }
        (self.wake)();
    }
}

/// The thread: poll, publish, wait for an event; finish once the writer is done.
fn follow(
    path: &Path,
    func: &Function,
    env: &Environment,
    opts: &ReplayOptions,
    writer_done: &AtomicBool,
    stop: &AtomicBool,
    slot: &Slot,
) {
    let send = |u: FollowUpdate| slot.send(u);
    let mut follower = match Follower::new(path, func, Some(env), opts) {
        Ok(f) => f,
        Err(e) => {
            send(FollowUpdate::Failed(e.to_string()));
            return;
        }
    };
    // File events wake the thread early; without a watcher it looks every LOOK_EVERY.
    let (ev_tx, ev_rx) = crossbeam_channel::bounded::<()>(1);
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let watched = std::fs::canonicalize(dir).ok();
    let _watcher = watched.and_then(|dir| {
        let mut w = notify::recommended_watcher(move |_: notify::Result<notify::Event>| {
            let _ = ev_tx.try_send(());
        })
        .ok()?;
        w.watch(&dir, notify::RecursiveMode::NonRecursive).ok()?;
        Some(w)
    });
    loop {
        if stop.load(Ordering::SeqCst) {
            return;
        }
        // Read the flag before the file: whatever the writer wrote before setting it is
        // then in the file.
        if writer_done.load(Ordering::SeqCst) {
            send(match follower.finish() {
                Ok(r) => FollowUpdate::Done(Box::new(r)),
                Err(e) => FollowUpdate::Failed(e.to_string()),
            });
            return;
        }
        match follower.poll() {
            Ok(true) => {
                if let Some(t) = follower.trace() {
                    send(FollowUpdate::Grew(Box::new(t)));
                }
            }
            Ok(false) => {}
            Err(e) => {
                send(FollowUpdate::Failed(e.to_string()));
                return;
            }
        }
        let _ = ev_rx.recv_timeout(LOOK_EVERY);
    }
}
