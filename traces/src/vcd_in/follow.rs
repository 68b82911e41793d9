//! Following a VCD while a simulator is still writing it, incrementally: each
//! [`Follower::poll`] reads only the bytes appended since the last one and parses only them,
//! into the same sampler a finished file goes through, so the trace grows in place and the
//! cost of a long run is linear in its size. Memory holds the trace and the unparsed tail,
//! never the file.
//!
//! A timestamp's value changes are known to be complete only once the next timestamp has
//! begun, so the follower parses up to the end of the last complete `#N` line and keeps
//! what follows (the newest timestamp, possibly half-written, its line possibly cut in the
//! middle) until more arrives; it is never shown as data until the writer is known to have
//! finished ([`Follower::finish`]). A file that shrinks (a new run writing it again from the
//! start) is followed again from its first byte.
//!
//! FST files cannot be followed: their writers put the hierarchy and the block index at the
//! end of the file when it is closed, so a file still being written has no readable
//! signal list.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use handscope_sim::Function;
use handscope_sim::stimulus::Environment;
use handscope_sim::trace::Trace;

use super::parse::{self, BodyStream, Header};
use super::{Replay, ReplayOptions, Sampler, VcdError};

/// The header once it is complete, the body parser and the sampler.
struct Parsed<'f> {
    header: Header,
    body: BodyStream,
    sampler: Sampler<'f>,
}

/// Follows one VCD file as it grows, replaying it onto a function.
pub struct Follower<'f> {
    path: PathBuf,
    name: String,
    f: &'f Function,
    env: Option<Environment>,
    opts: ReplayOptions,
    map_text: Option<String>,
    /// Bytes of the file read so far.
    read: u64,
    /// Bytes read and not parsed yet: the header until it is complete, then the tail after
    /// the last complete timestamp line.
    pending: Vec<u8>,
    /// Bytes at the start of `pending` already searched for timestamp lines.
    scanned: usize,
    parsed: Option<Parsed<'f>>,
}

impl std::fmt::Debug for Follower<'_> {
    fn fmt(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        out.debug_struct("Follower")
            .field("path", &self.path)
            .field("read", &self.read)
            .field("cycles", &self.cycles())
            .finish()
    }
}

impl<'f> Follower<'f> {
    /// A follower of `path` (which may not exist yet) replaying onto `f` in `env`. Fails only
    /// when the options name a mapping file that cannot be read.
    pub fn new(
        path: &Path,
        f: &'f Function,
        env: Option<&Environment>,
        opts: &ReplayOptions,
    ) -> Result<Follower<'f>, VcdError> {
        Ok(Follower {
            path: path.to_path_buf(),
            name: path.display().to_string(),
            f,
            env: env.cloned(),
            opts: opts.clone(),
            map_text: super::read_map_file(opts)?,
            read: 0,
            pending: Vec::new(),
            scanned: 0,
            parsed: None,
        })
    }

    /// The followed file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Cycles replayed so far.
    pub fn cycles(&self) -> u64 {
        self.parsed.as_ref().map_or(0, |p| p.sampler.tb.cycles())
    }

    /// Bytes of the file read so far.
    pub fn bytes_read(&self) -> u64 {
        self.read
    }

    /// The complete cycles so far, as a trace (`None` until the header is complete).
    pub fn trace(&self) -> Option<Trace> {
        self.parsed.as_ref().map(|p| p.sampler.tb.clone().finish())
    }

    /// Reads and parses what was appended since the last call. Returns true when the trace
    /// may have changed (cycles added, or the file was rewritten from the start).
    pub fn poll(&mut self) -> Result<bool, VcdError> {
        let restarted = self.read_more()?;
        let before = self.cycles();
        self.parse_complete(false)?;
        Ok(restarted || self.cycles() != before)
    }

    /// The writer is done: reads the rest, takes the last timestamp as complete and gives
    /// the replay of the whole file, exactly what [`super::replay_file`] gives.
    pub fn finish(mut self) -> Result<Replay, VcdError> {
        self.read_more()?;
        self.parse_complete(true)?;
        let name = self.name.clone();
        let Some(mut p) = self.parsed.take() else {
            // Never a whole header: the full reader says what is wrong with it.
            return super::replay_bytes(
                &self.pending,
                &name,
                self.f,
                self.env.as_ref(),
                &self.opts,
                self.map_text.as_deref(),
            );
        };
        // Only complete lines are read; a last line without its newline is a truncation
        // (unless the whole body is one line, which the full reader reads whole).
        let mut warnings = Vec::new();
        let body_has_newline =
            p.body.offset() > p.header.body_start as u64 || self.pending.contains(&b'\n');
        let tail = match self.pending.iter().rposition(|&c| c == b'\n') {
            Some(q) => q + 1,
            None if !body_has_newline => self.pending.len(),
            None => 0,
        };
        let at = p.body.offset() + tail as u64;
        feed(&name, &mut p, &self.pending[..tail])?;
        if self.pending[tail..]
            .iter()
            .any(|c| !c.is_ascii_whitespace())
        {
            warnings.push(super::truncation_warning(&name, at));
        }
        p.body
            .finish()
            .map_err(|(e, line)| syntax(&name, e, line))?;
        super::finish(p.sampler, warnings)
    }

    /// Appends the file's new bytes to `pending`; true when the file shrank and following
    /// started again from its first byte.
    fn read_more(&mut self) -> Result<bool, VcdError> {
        let ioerr = |error| VcdError::Io {
            path: self.name.clone(),
            error,
        };
        // A regular file only (a FIFO would block here, a device never end).
        let (mut file, len) = match handscope_sim::input::open_regular(&self.path) {
            Ok((f, meta)) => (f, meta.len()),
            Err(handscope_sim::input::InputError::Io { error, .. })
                if error.kind() == std::io::ErrorKind::NotFound =>
            {
                return Ok(false);
            }
            Err(e) => return Err(e.into()),
        };
        let restarted = len < self.read;
        if restarted {
            self.read = 0;
            self.pending.clear();
            self.scanned = 0;
            self.parsed = None;
        }
        file.seek(SeekFrom::Start(self.read)).map_err(ioerr)?;
        let n = file
            .take(len - self.read)
            .read_to_end(&mut self.pending)
            .map_err(ioerr)?;
        self.read += n as u64;
        Ok(restarted)
    }

    /// Parses the header once it is complete, then every line up to the end of the last
    /// complete timestamp line (`all`: every complete line).
    fn parse_complete(&mut self, all: bool) -> Result<(), VcdError> {
        if self.parsed.is_none() {
            let Some(end) = header_end(&self.pending) else {
                if self.pending.len() > parse::MAX_HEADER_BYTES {
                    let e = parse::header_too_long();
                    let line = parse::line_of(&self.pending, e.offset);
                    return Err(syntax(&self.name, e, line));
                }
                return Ok(());
            };
            let header = match parse::parse_header(&self.pending[..end]) {
                Ok(h) => h,
                Err(e) => {
                    return Err(syntax(
                        &self.name,
                        e.clone(),
                        parse::line_of(&self.pending, e.offset),
                    ));
                }
            };
            let sampler = super::prepare(
                &header,
                &self.name,
                self.f,
                self.env.as_ref(),
                &self.opts,
                self.map_text.as_deref(),
            )?;
            let body = BodyStream::new(&header, &self.pending);
            let start = header.body_start.min(self.pending.len());
            self.pending.drain(..start);
            self.scanned = 0;
            self.parsed = Some(Parsed {
                header,
                body,
                sampler,
            });
        }
        if all {
            return Ok(());
        }
        let Some(p) = &mut self.parsed else {
            return Ok(());
        };
        let (cut, scanned) = last_timestamp_line_end(&self.pending, self.scanned);
        self.scanned = scanned;
        if cut > 0 {
            feed(&self.name, p, &self.pending[..cut])?;
            self.pending.drain(..cut);
            self.scanned -= cut;
        }
        Ok(())
    }
}

fn syntax(name: &str, e: parse::SyntaxError, line: u64) -> VcdError {
    VcdError::Syntax {
        path: name.to_string(),
        line,
        offset: e.offset,
        message: e.message,
    }
}

fn feed(name: &str, p: &mut Parsed<'_>, region: &[u8]) -> Result<(), VcdError> {
    p.body
        .feed(&p.header, region, &mut p.sampler)
        .map_err(|(e, line)| syntax(name, e, line))
}

/// Where the header ends, if it is complete: just after the `$end` of `$enddefinitions`.
fn header_end(b: &[u8]) -> Option<usize> {
    const KEY: &[u8] = b"$enddefinitions";
    let at = b.windows(KEY.len()).position(|w| w == KEY)? + KEY.len();
    let end = b[at..].windows(4).position(|w| w == b"$end")? + at + 4;
    Some(end)
}

/// The end (after its newline) of the last complete line starting with `#` in `b`, searching
/// from `from` (0: none); and how far `b` was searched (the start of its incomplete last
/// line, to resume from).
fn last_timestamp_line_end(b: &[u8], from: usize) -> (usize, usize) {
    let mut cut = 0;
    let mut line_start = from;
    for (i, &c) in b.iter().enumerate().skip(from) {
        if c == b'\n' {
            if b[line_start] == b'#' {
                cut = i + 1;
            }
            line_start = i + 1;
        }
    }
    (cut, line_start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_timestamps_whose_line_is_complete_end_a_region() {
        let b = b"1!\n#5\n0!\n#1";
        assert_eq!(last_timestamp_line_end(b, 0), (6, 9));
        // Resuming where the search stopped finds the next one once its line is complete.
        let b2 = b"1!\n#5\n0!\n#10\n1!\n";
        assert_eq!(last_timestamp_line_end(b2, 9), (13, 16));
        assert_eq!(last_timestamp_line_end(b"#", 0), (0, 0));
        assert_eq!(header_end(b"$var wire 1 ! c $end $enddefinitions $e"), None);
        assert_eq!(header_end(b"$enddefinitions $end\n#0"), Some(20));
    }
}
