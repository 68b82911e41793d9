//! Live reload: watches the open source file (and VCD) with `notify` and raises a flag that
//! the UI checks each frame.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use notify::{RecursiveMode, Watcher as _};

/// A file watcher.
pub struct Watcher {
    _inner: notify::RecommendedWatcher,
    changed: Arc<AtomicBool>,
}

impl Watcher {
    /// Watches `files` (their directories, so editors that replace files are seen too); `wake`
    /// is called on a change. `None` when watching is not possible.
    pub fn new(files: &[PathBuf], wake: super::model::Wake) -> Option<Watcher> {
        let changed = Arc::new(AtomicBool::new(false));
        let flag = changed.clone();
        let names: Vec<PathBuf> = files.iter().map(|f| canonical(f)).collect();
        let names2 = names.clone();
        let mut w = notify::recommended_watcher(move |ev: notify::Result<notify::Event>| {
            if let Ok(ev) = ev
                && (ev.kind.is_modify() || ev.kind.is_create())
                && ev.paths.iter().any(|p| names2.contains(&canonical(p)))
            {
                flag.store(true, Ordering::SeqCst);
                wake();
            }
        })
        .ok()?;
        for f in &names {
            let dir = f
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            w.watch(dir, RecursiveMode::NonRecursive).ok()?;
        }
        Some(Watcher { _inner: w, changed })
    }

    /// True once after the watched files changed.
    pub fn take_change(&self) -> bool {
        self.changed.swap(false, Ordering::SeqCst)
    }
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}
