//! Ctrl-C during a run: the first SIGINT asks the running simulation to stop and report what
//! it simulated so far (status `interrupted`); a second one ends the process as usual.
//!
//! Written on `libc` (already a dependency for SIGPIPE) rather than the `ctrlc` crate: all
//! that is needed is one flag set from the handler, and `ctrlc` would add a thread and a pipe
//! per process for it.

use std::sync::atomic::{AtomicBool, Ordering};

/// Set by the SIGINT handler; read by [`handscope_sim::session::Session::run_until`].
static STOP: AtomicBool = AtomicBool::new(false);

/// The SIGINT handler: set the flag, then let the next SIGINT take the default action.
extern "C" fn on_sigint(_: libc::c_int) {
    STOP.store(true, Ordering::Relaxed);
    // SAFETY: signal() is async-signal-safe (POSIX); SIG_DFL is always a valid disposition.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_DFL);
    }
}

/// Installs the handler (idempotent) and returns the flag a run should watch.
pub fn stop_flag() -> &'static AtomicBool {
    #[cfg(unix)]
    // SAFETY: installing a handler that only stores to an atomic and resets the disposition,
    // both async-signal-safe.
    unsafe {
        libc::signal(
            libc::SIGINT,
            on_sigint as extern "C" fn(libc::c_int) as libc::sighandler_t,
        );
    }
    &STOP
}
