//! Following a VCD while a simulator is still writing it. The follower reads only the bytes
//! appended since its last look and keeps the file's *complete prefix*: everything before
//! the start of the last timestamp line (`#N`) seen. A timestamp's value changes are known
//! to be complete only once the next timestamp has begun, so the last one (possibly
//! half-written, its `#` line possibly cut in the middle) is never shown as data, until the
//! writer is known to have finished ([`Follower::finish`]).
//!
//! Replaying the prefix goes through [`replay_bytes`](super::replay_bytes), the same
//! sampler as a finished file, so a followed run shows exactly the cycles a replay of the
//! same bytes would. (The prefix is replayed whole on each growth: the caller throttles how
//! often it asks.)

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use handscope_sim::Function;
use handscope_sim::stimulus::Environment;

use super::{Replay, ReplayOptions, VcdError};

/// Follows one VCD file as it grows.
#[derive(Debug)]
pub struct Follower {
    path: PathBuf,
    bytes: Vec<u8>,
    /// End of the complete prefix: the start of the last timestamp line seen.
    cut: usize,
    /// Bytes before this offset were scanned for line starts.
    scanned: usize,
    /// The writer finished: the whole file counts.
    finished: bool,
}

impl Follower {
    /// A follower of `path` (which may not exist yet).
    pub fn new(path: &Path) -> Follower {
        Follower {
            path: path.to_path_buf(),
            bytes: Vec::new(),
            cut: 0,
            scanned: 0,
            finished: false,
        }
    }

    /// The followed file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads what was appended since the last call. Returns true when the complete prefix
    /// grew. A file that shrank (rewritten from the start) is read again from the start.
    pub fn poll(&mut self) -> std::io::Result<bool> {
        let mut file = match std::fs::File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
            Err(e) => return Err(e),
        };
        let len = file.metadata()?.len();
        if len < self.bytes.len() as u64 {
            self.bytes.clear();
            self.cut = 0;
            self.scanned = 0;
        }
        file.seek(SeekFrom::Start(self.bytes.len() as u64))?;
        let mut more = Vec::new();
        file.read_to_end(&mut more)?;
        Ok(self.push(&more))
    }

    /// Takes appended bytes (what [`Follower::poll`] read). Returns true when the complete
    /// prefix grew.
    pub fn push(&mut self, more: &[u8]) -> bool {
        self.bytes.extend_from_slice(more);
        let before = self.cut;
        // A line starts at 0 or after a '\n'; a timestamp line starts with '#'.
        let mut i = self.scanned;
        while i < self.bytes.len() {
            let line_start = i == 0 || self.bytes[i - 1] == b'\n';
            if line_start && self.bytes[i] == b'#' {
                self.cut = i;
            }
            i += 1;
        }
        self.scanned = self.bytes.len();
        self.cut > before
    }

    /// The writer is done: the last timestamp is complete too.
    pub fn finish(&mut self) -> std::io::Result<()> {
        self.poll()?;
        self.finished = true;
        Ok(())
    }

    /// True once [`Follower::finish`] was called.
    pub fn finished(&self) -> bool {
        self.finished
    }

    /// The bytes that hold only complete timestamps.
    pub fn complete(&self) -> &[u8] {
        if self.finished {
            &self.bytes
        } else {
            &self.bytes[..self.cut]
        }
    }

    /// Replays the complete prefix onto `f`. `Ok(None)` while not even the header and one
    /// timestamp are complete.
    pub fn replay(
        &self,
        f: &Function,
        env: Option<&Environment>,
        opts: &ReplayOptions,
    ) -> Result<Option<Replay>, VcdError> {
        let b = self.complete();
        if b.is_empty() {
            return Ok(None);
        }
        let name = self.path.display().to_string();
        match super::replay_bytes(b, &name, f, env, opts, None) {
            Ok(r) => Ok(Some(r)),
            // The header is still being written.
            Err(VcdError::Syntax { .. }) if !self.finished && !has_body(b) => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// True when `b` holds the end of a VCD header.
fn has_body(b: &[u8]) -> bool {
    b.windows(15).any(|w| w == b"$enddefinitions")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prefix_ends_before_the_last_timestamp_even_inside_a_line() {
        let mut f = Follower::new(Path::new("unused.vcd"));
        assert!(f.push(b"$enddefinitions $end\n#0\n1!\n"));
        assert_eq!(f.complete(), b"$enddefinitions $end\n");
        // A second timestamp begins (its line cut after `#`): the first one is complete.
        assert!(f.push(b"#"));
        assert_eq!(f.complete(), b"$enddefinitions $end\n#0\n1!\n");
        assert!(f.push(b"5\n0!\n#1"));
        assert_eq!(f.complete(), b"$enddefinitions $end\n#0\n1!\n#5\n0!\n");
        assert!(!f.push(b"0\n1!\n"));
        f.finished = true;
        assert!(f.complete().ends_with(b"#10\n1!\n"));
    }
}
