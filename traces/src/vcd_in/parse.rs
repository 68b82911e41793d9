//! A streaming VCD reader: the header (scopes and variables) and then the value changes,
//! handed to a callback one timestamp at a time, over a byte slice or read from a file in
//! chunks of complete lines ([`parse_body_read`]), so several-GB files are never held in
//! memory.
//!
//! Widths: a vector value is read as the word of its variable's width: the bit pattern up to
//! 64 bits, a wide word (see [`handscope_sim::wide`]) beyond, whatever the number of digits
//! written (leading zeros may be left out). Digits beyond
//! [`MAX_DATA_WIDTH`](handscope_sim::types::MAX_DATA_WIDTH), which no channel has, are
//! dropped; `x`, `z` and the other non-1 digits read as 0 at every width.
//!
//! Robustness: every malformed token is an error with its line and byte offset, and so is a
//! timestamp smaller than the one before it (a cycle would be counted twice or lost); an
//! incomplete last line (a run that crashed while writing) is ignored with a warning, so the
//! changes up to the last complete line are still delivered.

use std::collections::HashMap;

use handscope_sim::types::MAX_DATA_WIDTH;
use handscope_sim::wide;

/// Deepest nesting of `$scope`s a header may have (scopes are kept as lists of their
/// enclosing names, so depth costs memory per variable).
pub const MAX_SCOPE_DEPTH: usize = 1024;
/// Most bytes the header's scope and variable paths (dotted, as signals are looked up) may
/// take together: each scope and variable keeps its path, so a few bytes of deeply nested
/// `$scope`s or `$var`s would otherwise ask for gigabytes.
pub const MAX_HEADER_PATH_BYTES: u64 = 256 << 20;

/// Longest header (up to `$enddefinitions $end`) read: it is held in memory whole, while the
/// value changes after it are streamed.
pub const MAX_HEADER_BYTES: usize = 256 << 20;

/// The error for a header that has not ended after [`MAX_HEADER_BYTES`].
pub(crate) fn header_too_long() -> SyntaxError {
    over_limit(
        MAX_HEADER_BYTES,
        format!(
            "no `$enddefinitions` in the first {} MiB: the header is longer than the limit",
            MAX_HEADER_BYTES >> 20
        ),
    )
}

/// A syntax error at a position of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// Byte offset of the offending token.
    pub offset: u64,
    /// What is wrong.
    pub message: String,
    /// The header is over one of its limits: reading more of the file does not change that.
    pub over_limit: bool,
}

/// One declared variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VarDecl {
    /// Enclosing scopes, outermost first.
    pub scope: Vec<String>,
    /// Variable name (any `[msb:lsb]` suffix removed).
    pub name: String,
    /// Declared width in bits.
    pub width: u32,
    /// Dense index of its identifier code (variables sharing a code share the index).
    pub code: u32,
}

impl VarDecl {
    /// `scope1.scope2.name`.
    pub fn path(&self) -> String {
        let mut s = self.scope.join(".");
        if !s.is_empty() {
            s.push('.');
        }
        s.push_str(&self.name);
        s
    }
}

/// The parsed header.
#[derive(Debug, Clone, Default)]
pub struct Header {
    /// Variables in declaration order.
    pub vars: Vec<VarDecl>,
    /// All scope paths (dotted), in declaration order.
    pub scopes: Vec<String>,
    /// Number of distinct identifier codes.
    pub codes: u32,
    /// Byte offset where the value changes start.
    pub body_start: usize,
    /// Per code: the width its values are read at, the largest declared for it, at most
    /// [`MAX_DATA_WIDTH`] (see [`code_widths`]).
    pub code_widths: Vec<u32>,
    code_map: CodeMap,
}

/// The width each of `codes` codes' values are read at: the largest width a variable of
/// `vars` declares for it, capped at [`MAX_DATA_WIDTH`] (no channel is wider, and a
/// declared width of billions must not size an allocation).
pub fn code_widths(vars: &[VarDecl], codes: u32) -> Vec<u32> {
    let mut w = vec![0u32; codes as usize];
    for v in vars {
        if let Some(x) = w.get_mut(v.code as usize) {
            *x = (*x).max(v.width.min(MAX_DATA_WIDTH));
        }
    }
    w
}

/// Identifier code -> dense index.
#[derive(Debug, Clone, Default)]
struct CodeMap {
    dense: Vec<u32>,
    sparse: HashMap<Vec<u8>, u32>,
}

const NO_CODE: u32 = u32::MAX;
const DENSE_LIMIT: u64 = 1 << 22;

/// Bijective base-94 value of a short identifier code, if small enough for the dense table.
#[inline(always)]
fn dense_key(id: &[u8]) -> Option<u64> {
    if id.len() > 4 {
        return None;
    }
    let mut v = 0u64;
    for &c in id {
        if !(33..=126).contains(&c) {
            return None;
        }
        v = v * 94 + u64::from(c - 32);
    }
    (v < DENSE_LIMIT).then_some(v)
}

impl CodeMap {
    fn insert(&mut self, id: &[u8], next: &mut u32) -> u32 {
        if let Some(k) = self.get(id) {
            return k;
        }
        let k = *next;
        *next += 1;
        match dense_key(id) {
            Some(d) => {
                let d = d as usize;
                if self.dense.len() <= d {
                    self.dense.resize(d + 1, NO_CODE);
                }
                self.dense[d] = k;
            }
            None => {
                self.sparse.insert(id.to_vec(), k);
            }
        }
        k
    }

    #[inline(always)]
    fn get(&self, id: &[u8]) -> Option<u32> {
        match dense_key(id) {
            Some(d) => self
                .dense
                .get(d as usize)
                .copied()
                .filter(|&k| k != NO_CODE),
            None => self.sparse.get(id).copied(),
        }
    }
}

#[inline(always)]
fn is_ws(c: u8) -> bool {
    c == b' ' || c == b'\n' || c == b'\r' || c == b'\t' || c == 0x0c
}

/// Whitespace-separated tokens with their offsets.
struct Tokens<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Tokens<'a> {
    #[inline(always)]
    fn next(&mut self) -> Option<(usize, &'a [u8])> {
        let b = self.b;
        let mut i = self.i;
        while i < b.len() && is_ws(b[i]) {
            i += 1;
        }
        if i >= b.len() {
            self.i = i;
            return None;
        }
        let s = i;
        while i < b.len() && !is_ws(b[i]) {
            i += 1;
        }
        self.i = i;
        Some((s, &b[s..i]))
    }
}

fn err(offset: usize, message: impl Into<String>) -> SyntaxError {
    SyntaxError {
        offset: offset as u64,
        message: message.into(),
        over_limit: false,
    }
}

/// An error at `offset` for a header over one of its limits.
fn over_limit(offset: usize, message: impl Into<String>) -> SyntaxError {
    SyntaxError {
        over_limit: true,
        ..err(offset, message)
    }
}

/// Counts `bytes` more of the header's paths against [`MAX_HEADER_PATH_BYTES`].
fn charge_paths(total: &mut u64, bytes: usize, offset: usize) -> Result<(), SyntaxError> {
    *total += bytes as u64;
    if *total > MAX_HEADER_PATH_BYTES {
        return Err(over_limit(
            offset,
            format!(
                "the header's scope and variable paths take more than {} MiB together; the limit keeps a replay within memory",
                MAX_HEADER_PATH_BYTES >> 20
            ),
        ));
    }
    Ok(())
}

fn text(t: &[u8]) -> String {
    String::from_utf8_lossy(&t[..t.len().min(60)]).into_owned()
}

/// Parses the header (up to `$enddefinitions $end`).
pub fn parse_header(b: &[u8]) -> Result<Header, SyntaxError> {
    let mut t = Tokens { b, i: 0 };
    let mut h = Header::default();
    let mut scope: Vec<String> = Vec::new();
    // Bytes of `scope.join(".")`, and of every path kept so far.
    let mut scope_bytes = 0usize;
    let mut path_bytes = 0u64;
    let mut next_code = 0u32;
    loop {
        let Some((off, tok)) = t.next() else {
            return Err(err(b.len(), "the file ends before `$enddefinitions`"));
        };
        match tok {
            b"$scope" => {
                let _kind = t.next().ok_or_else(|| err(off, "incomplete `$scope`"))?;
                let (_, name) = t.next().ok_or_else(|| err(off, "incomplete `$scope`"))?;
                let name = if name == b"$end" {
                    String::new()
                } else {
                    String::from_utf8_lossy(name).into_owned()
                };
                if scope.len() >= MAX_SCOPE_DEPTH {
                    return Err(over_limit(
                        off,
                        format!("`$scope` nested more than {MAX_SCOPE_DEPTH} deep"),
                    ));
                }
                scope_bytes += name.len() + usize::from(!scope.is_empty());
                charge_paths(&mut path_bytes, scope_bytes, off)?;
                scope.push(name);
                h.scopes.push(scope.join("."));
                skip_to_end(&mut t, off, "$scope")?;
            }
            b"$upscope" => {
                let Some(name) = scope.pop() else {
                    return Err(err(off, "`$upscope` without an open scope"));
                };
                scope_bytes -= name.len() + usize::from(!scope.is_empty());
                skip_to_end(&mut t, off, "$upscope")?;
            }
            b"$var" => {
                let mut parts = Vec::new();
                loop {
                    let (_, p) = t.next().ok_or_else(|| err(off, "incomplete `$var`"))?;
                    if p == b"$end" {
                        break;
                    }
                    parts.push(p);
                    if parts.len() > 64 {
                        return Err(err(off, "`$var` without `$end`"));
                    }
                }
                if parts.len() < 4 {
                    return Err(err(
                        off,
                        "`$var` needs a type, a width, an identifier code and a name",
                    ));
                }
                let width: u32 = std::str::from_utf8(parts[1])
                    .ok()
                    .and_then(|s| s.parse().ok())
                    .ok_or_else(|| {
                        err(off, format!("invalid width `{}` in `$var`", text(parts[1])))
                    })?;
                let code = h.code_map.insert(parts[2], &mut next_code);
                let mut name = String::from_utf8_lossy(parts[3]).into_owned();
                if let Some(i) = name.find('[')
                    && name.ends_with(']')
                    && i > 0
                {
                    name.truncate(i);
                }
                // The path, and the scope list the variable keeps.
                let kept = scope_bytes + 1 + name.len() + 24 * (scope.len() + 1);
                charge_paths(&mut path_bytes, kept, off)?;
                h.vars.push(VarDecl {
                    scope: scope.clone(),
                    name,
                    width,
                    code,
                });
            }
            b"$enddefinitions" => {
                skip_to_end(&mut t, off, "$enddefinitions")?;
                h.body_start = t.i;
                h.codes = next_code;
                h.code_widths = code_widths(&h.vars, next_code);
                return Ok(h);
            }
            x if x.first() == Some(&b'$') => skip_to_end(&mut t, off, "a header command")?,
            x => return Err(err(off, format!("unexpected `{}` in the header", text(x)))),
        }
    }
}

fn skip_to_end(t: &mut Tokens<'_>, off: usize, what: &str) -> Result<(), SyntaxError> {
    loop {
        match t.next() {
            Some((_, b"$end")) => return Ok(()),
            Some(_) => {}
            None => return Err(err(off, format!("{what} without `$end`"))),
        }
    }
}

/// Receives the value changes.
pub trait BodySink {
    /// A new timestamp starts (the previous one is complete).
    fn timestamp(&mut self, time: u64);
    /// Variable code `code` takes `value` (low 64 bits; `x`/`z` read as 0).
    fn change(&mut self, code: u32, value: u64);
    /// Progress: `done` of `total` body bytes read.
    fn progress(&mut self, _done: u64, _total: u64) {}
    /// The change of `code` just passed to [`BodySink::change`] had an `x`, `z` or other
    /// non-binary digit.
    fn unknown(&mut self, _code: u32) {}
}

/// True for a value digit that is not a plain 0 or 1 (`x`, `z`, `u`, `w`, `-`; `h` and `l`
/// are weak 1 and 0).
fn unknown_digit(c: u8) -> bool {
    !matches!(c, b'0' | b'1' | b'h' | b'H' | b'l' | b'L')
}

/// How the body ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodyEnd {
    /// Byte offset of an incomplete last line that was ignored, if any.
    pub truncated_at: Option<u64>,
}

#[inline(always)]
fn bit(c: u8) -> Option<u64> {
    match c {
        b'1' | b'H' | b'h' => Some(1),
        b'0' | b'x' | b'X' | b'z' | b'Z' | b'u' | b'U' | b'w' | b'W' | b'-' | b'L' | b'l' => {
            Some(0)
        }
        _ => None,
    }
}

/// Streams the value changes after the header to `sink`, from bytes already in memory.
pub fn parse_body(b: &[u8], h: &Header, sink: &mut impl BodySink) -> Result<BodyEnd, SyntaxError> {
    let start = h.body_start.min(b.len());
    // Only complete lines are read: a crashed writer leaves a partial last line. A body
    // without any line break (a writer that puts everything on one line) is read whole.
    let complete = match b[start..].iter().rposition(|&c| c == b'\n') {
        Some(p) => start + p + 1,
        None => b.len(),
    };
    let truncated_at =
        (complete < b.len() && b[complete..].iter().any(|c| !is_ws(*c))).then_some(complete as u64);
    let total = (complete - start) as u64;
    let mut p = BodyParser::new(h);
    p.lines(&b[start..complete], start as u64, total, 0, sink)?;
    p.finish().map_err(|(e, _)| e)?;
    sink.progress(total, total);
    Ok(BodyEnd { truncated_at })
}

/// A body syntax error with its 1-based line, from [`parse_body_read`].
#[derive(Debug)]
pub enum ReadBodyError {
    /// Malformed contents.
    Syntax(SyntaxError, u64),
    /// The file could not be read.
    Io(std::io::Error),
}

/// Streams the value changes after the header to `sink`, reading `r` in chunks of complete
/// lines (never memory-mapped: a file truncated or rewritten while it is read ends early
/// instead of taking the process down). `head` holds the bytes of the file read so far
/// (from offset 0, the header included); `total` is the file's size when it was opened,
/// for progress. `chunk` is the read size (8 MiB in replays): memory stays about two
/// chunks plus the longest line.
pub fn parse_body_read(
    r: &mut impl std::io::Read,
    head: Vec<u8>,
    h: &Header,
    total: u64,
    chunk: usize,
    sink: &mut impl BodySink,
) -> Result<BodyEnd, ReadBodyError> {
    #[allow(non_snake_case)]
    let CHUNK = chunk.max(1);
    let body_start = h.body_start.min(head.len());
    let mut lines_before = 1 + head[..body_start].iter().filter(|&&c| c == b'\n').count() as u64;
    let mut buf = head;
    buf.drain(..body_start);
    let mut base = body_start as u64;
    let body_total = total.saturating_sub(base);
    let mut p = BodyParser::new(h);
    let mut seen_newline = false;
    let mut want = CHUNK;
    // Bytes at the start of `buf` known to hold no line break (so a long line is searched
    // once, not once per read).
    let mut scanned = 0;
    let syntax = |e: SyntaxError, chunk: &[u8], base: u64, lines_before: u64| {
        let local = (e.offset.saturating_sub(base) as usize).min(chunk.len());
        let line = lines_before + chunk[..local].iter().filter(|&&c| c == b'\n').count() as u64;
        ReadBodyError::Syntax(e, line)
    };
    loop {
        // Fill the buffer to at least one chunk (or the end of the file).
        let mut eof = false;
        while buf.len() < want {
            let old = buf.len();
            buf.resize(want, 0);
            let n = loop {
                match r.read(&mut buf[old..]) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(ReadBodyError::Io(e)),
                }
            };
            buf.truncate(old + n);
            if n == 0 {
                eof = true;
                break;
            }
        }
        let complete = match buf[scanned..].iter().rposition(|&c| c == b'\n') {
            Some(q) => {
                seen_newline = true;
                scanned + q + 1
            }
            None if eof && !seen_newline => buf.len(),
            None if eof => 0,
            // A line longer than the buffer: read on.
            None => {
                scanned = buf.len();
                want = buf.len() + CHUNK;
                continue;
            }
        };
        want = CHUNK;
        let done = base - body_start as u64;
        p.lines(&buf[..complete], base, body_total, done, sink)
            .map_err(|e| syntax(e, &buf[..complete], base, lines_before))?;
        p.locate_open(&buf[..complete], base, lines_before);
        lines_before += buf[..complete].iter().filter(|&&c| c == b'\n').count() as u64;
        base += complete as u64;
        buf.drain(..complete);
        scanned = buf.len();
        if eof {
            p.finish()
                .map_err(|(e, line)| ReadBodyError::Syntax(e, line.unwrap_or(lines_before)))?;
            let truncated_at = buf.iter().any(|c| !is_ws(*c)).then_some(base);
            let read = base - body_start as u64;
            sink.progress(read, read.max(body_total));
            return Ok(BodyEnd { truncated_at });
        }
    }
}

/// A body parser fed one region of complete lines at a time, as a followed file grows: what
/// a region leaves open (a `$comment`, a value waiting for its code on the next line) carries
/// over to the next. Errors carry their 1-based line.
#[derive(Debug)]
pub struct BodyStream {
    open: Option<Open>,
    /// The last timestamp fed (see [`BodyParser::last_time`]).
    last_time: Option<u64>,
    /// File offset of the next region.
    base: u64,
    /// Lines before the next region.
    lines_before: u64,
}

impl BodyStream {
    /// A parser of the body of a file whose first `head` bytes hold header `h`.
    pub fn new(h: &Header, head: &[u8]) -> BodyStream {
        let body_start = h.body_start.min(head.len());
        BodyStream {
            open: None,
            last_time: None,
            base: body_start as u64,
            lines_before: 1 + head[..body_start].iter().filter(|&&c| c == b'\n').count() as u64,
        }
    }

    /// File offset where the next region starts.
    pub fn offset(&self) -> u64 {
        self.base
    }

    /// Parses `region`, the complete lines that follow what was fed so far.
    pub fn feed(
        &mut self,
        h: &Header,
        region: &[u8],
        sink: &mut impl BodySink,
    ) -> Result<(), (SyntaxError, u64)> {
        let mut p = BodyParser {
            h,
            open: self.open,
            last_time: self.last_time,
        };
        let (base, lines_before) = (self.base, self.lines_before);
        p.lines(region, base, 0, 0, sink).map_err(|e| {
            let local = (e.offset.saturating_sub(base) as usize).min(region.len());
            let line =
                lines_before + region[..local].iter().filter(|&&c| c == b'\n').count() as u64;
            (e, line)
        })?;
        p.locate_open(region, base, lines_before);
        self.open = p.open;
        self.last_time = p.last_time;
        self.lines_before += region.iter().filter(|&&c| c == b'\n').count() as u64;
        self.base += region.len() as u64;
        Ok(())
    }

    /// The body ends here: something still open is an error.
    pub fn finish(&self) -> Result<(), (SyntaxError, u64)> {
        let p = BodyParser {
            h: &EMPTY_HEADER,
            open: self.open,
            last_time: self.last_time,
        };
        p.finish()
            .map_err(|(e, line)| (e, line.unwrap_or(self.lines_before)))
    }
}

static EMPTY_HEADER: std::sync::LazyLock<Header> = std::sync::LazyLock::new(Header::default);

/// What a region of lines left unfinished, for the next region: VCD lets a `$comment` and
/// a value and its identifier code span lines.
#[derive(Clone, Copy, Debug)]
struct Open {
    /// Offset of the `$comment` or value token.
    off: u64,
    /// Its line, once the reader has worked it out.
    line: Option<u64>,
    what: OpenKind,
}

#[derive(Clone, Copy, Debug)]
enum OpenKind {
    /// A `$comment` whose `$end` has not been seen yet.
    Comment,
    /// A vector (`b`) value waiting for its identifier code (`value` and `digits` as
    /// [`read_vector`] gives them).
    Vector {
        value: u64,
        digits: u32,
        unknown: bool,
    },
    /// A real or string value waiting for its identifier code (read as 0).
    Other,
}

impl OpenKind {
    fn error(self) -> &'static str {
        match self {
            OpenKind::Comment => "$comment without `$end`",
            OpenKind::Vector { .. } => "a vector value without an identifier code",
            OpenKind::Other => "a value without an identifier code",
        }
    }
}

/// The value-change parser, fed complete lines one region at a time.
struct BodyParser<'h> {
    h: &'h Header,
    open: Option<Open>,
    /// The last timestamp read: a later one may not be smaller.
    last_time: Option<u64>,
}

impl<'h> BodyParser<'h> {
    fn new(h: &'h Header) -> Self {
        BodyParser {
            h,
            open: None,
            last_time: None,
        }
    }

    /// Something left open at the end of the body is an error (with its line, when known).
    fn finish(&self) -> Result<(), (SyntaxError, Option<u64>)> {
        match self.open {
            Some(o) => Err((err(o.off as usize, o.what.error()), o.line)),
            None => Ok(()),
        }
    }

    /// Sets the line of what is open, if it lies in `region` (starting at `base`, after
    /// `lines_before` lines).
    fn locate_open(&mut self, region: &[u8], base: u64, lines_before: u64) {
        if let Some(o) = &mut self.open
            && o.line.is_none()
            && o.off >= base
        {
            let local = ((o.off - base) as usize).min(region.len());
            o.line =
                Some(lines_before + region[..local].iter().filter(|&&c| c == b'\n').count() as u64);
        }
    }

    /// Parses `b`, complete lines starting at file offset `base`; `done` of `total` body
    /// bytes were read before it (for progress).
    fn lines(
        &mut self,
        b: &[u8],
        base: u64,
        total: u64,
        done: u64,
        sink: &mut impl BodySink,
    ) -> Result<(), SyntaxError> {
        let h = self.h;
        let at = |off: usize| (base as usize) + off;
        let mut t = Tokens { b, i: 0 };
        let code = |id: &[u8], off: usize| -> Result<u32, SyntaxError> {
            h.code_map
                .get(id)
                .ok_or_else(|| err(at(off), format!("unknown identifier code `{}`", text(id))))
        };
        if let Some(o) = self.open {
            match o.what {
                OpenKind::Comment => loop {
                    match t.next() {
                        Some((_, b"$end")) => break,
                        Some(_) => {}
                        None => return Ok(()),
                    }
                },
                OpenKind::Vector {
                    value,
                    digits,
                    unknown,
                } => {
                    let Some((ioff, id)) = t.next() else {
                        return Ok(());
                    };
                    let k = code(id, ioff)?;
                    sink.change(k, resolve(h, k, value, digits));
                    if unknown {
                        sink.unknown(k);
                    }
                }
                OpenKind::Other => {
                    let Some((ioff, id)) = t.next() else {
                        return Ok(());
                    };
                    sink.change(code(id, ioff)?, 0);
                }
            }
            self.open = None;
        }
        let open = |off: usize, what| Open {
            off: at(off) as u64,
            line: None,
            what,
        };
        let mut next_report = 4 << 20;
        while let Some((off, tok)) = t.next() {
            if off >= next_report {
                sink.progress(done + off as u64, total);
                next_report = off + (4 << 20);
            }
            let c = tok[0];
            match c {
                b'#' => {
                    let s = std::str::from_utf8(&tok[1..])
                        .ok()
                        .and_then(|s| s.parse::<u64>().ok());
                    let time = s.ok_or_else(|| {
                        err(at(off), format!("invalid timestamp `{}`", text(tok)))
                    })?;
                    if let Some(last) = self.last_time
                        && time < last
                    {
                        // A cycle would be counted twice or lost: the file is not one run.
                        return Err(err(
                            at(off),
                            format!(
                                "timestamp `#{time}` goes back in time (after `#{last}`); a VCD's timestamps never decrease"
                            ),
                        ));
                    }
                    self.last_time = Some(time);
                    sink.timestamp(time);
                }
                b'b' | b'B' => {
                    let digits = &tok[1..];
                    let (v, n) = if digits.len() <= 64 {
                        let mut v = 0u64;
                        for &d in digits {
                            let x = bit(d).ok_or_else(|| {
                                err(at(off), format!("invalid binary value `{}`", text(tok)))
                            })?;
                            v = (v << 1) | x;
                        }
                        (v, 0)
                    } else {
                        read_vector(digits).ok_or_else(|| {
                            err(at(off), format!("invalid binary value `{}`", text(tok)))
                        })?
                    };
                    let unknown = digits.iter().any(|&d| unknown_digit(d));
                    let Some((ioff, id)) = t.next() else {
                        // The identifier may be on a later line.
                        self.open = Some(open(
                            off,
                            OpenKind::Vector {
                                value: v,
                                digits: n,
                                unknown,
                            },
                        ));
                        return Ok(());
                    };
                    let k = code(id, ioff)?;
                    sink.change(k, resolve(h, k, v, n));
                    if unknown {
                        sink.unknown(k);
                    }
                }
                b'r' | b'R' | b's' | b'S' => {
                    let Some((ioff, id)) = t.next() else {
                        self.open = Some(open(off, OpenKind::Other));
                        return Ok(());
                    };
                    sink.change(code(id, ioff)?, 0);
                }
                b'$' => match tok {
                    b"$comment" => loop {
                        match t.next() {
                            Some((_, b"$end")) => break,
                            Some(_) => {}
                            None => {
                                self.open = Some(open(off, OpenKind::Comment));
                                return Ok(());
                            }
                        }
                    },
                    b"$dumpvars" | b"$dumpall" | b"$dumpon" | b"$dumpoff" | b"$end" => {}
                    _ => {
                        return Err(err(
                            at(off),
                            format!("unexpected command `{}` among the value changes", text(tok)),
                        ));
                    }
                },
                _ => match bit(c) {
                    Some(v) if tok.len() > 1 => {
                        let k = code(&tok[1..], off)?;
                        sink.change(k, v);
                        if unknown_digit(c) {
                            sink.unknown(k);
                        }
                    }
                    _ => {
                        return Err(err(
                            at(off),
                            format!("invalid value change `{}`", text(tok)),
                        ));
                    }
                },
            }
        }
        Ok(())
    }
}

/// The value of more than 64 binary digits: the wide word of their last
/// [`MAX_DATA_WIDTH`] digits at a width of that many bits, and that width. `None` when a
/// digit is not one [`bit`] reads.
#[cold]
#[inline(never)]
fn read_vector(digits: &[u8]) -> Option<(u64, u32)> {
    if !digits.iter().all(|&d| bit(d).is_some()) {
        return None;
    }
    let keep = &digits[digits.len().saturating_sub(MAX_DATA_WIDTH as usize)..];
    let mut limbs = vec![0u64; keep.len().div_ceil(64)];
    for (i, &d) in keep.iter().rev().enumerate() {
        if bit(d) == Some(1) {
            limbs[i / 64] |= 1 << (i % 64);
        }
    }
    let n = keep.len() as u32;
    Some((wide::from_limbs(&limbs, n), n))
}

/// The word of vector value `v` for code `k`. `digits == 0`: `v` holds the bit pattern of
/// at most 64 digits; otherwise `v` is the wide word of a `digits`-bit value
/// ([`read_vector`]). The word is that of the code's width ([`Header::code_widths`]): the
/// low 64 bits up to 64 bits, else the value modulo 2^width as a wide word.
#[inline(always)]
fn resolve(h: &Header, k: u32, v: u64, digits: u32) -> u64 {
    if digits == 0 && v >> 63 == 0 {
        // Below 2^63: the same word at every width.
        return v;
    }
    resolve_wide(h, k, v, digits)
}

/// [`resolve`] beyond its fast path.
#[inline(never)]
fn resolve_wide(h: &Header, k: u32, v: u64, digits: u32) -> u64 {
    let w = h.code_widths.get(k as usize).copied().unwrap_or(64);
    match (digits, wide::is_wide(w)) {
        (0, false) => v,
        (0, true) => wide::from_limbs(&[v], w),
        (_, false) => wide::to_limbs(v, digits)[0],
        (n, true) if n <= w => v,
        (n, true) => wide::from_limbs(&wide::to_limbs(v, n), w),
    }
}

/// Line number (1-based) of byte `offset` in `b`.
pub fn line_of(b: &[u8], offset: u64) -> u64 {
    let end = (offset as usize).min(b.len());
    1 + b[..end].iter().filter(|&&c| c == b'\n').count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Collect(Vec<(u64, Vec<(u32, u64)>)>);
    impl BodySink for Collect {
        fn timestamp(&mut self, t: u64) {
            self.0.push((t, Vec::new()));
        }
        fn change(&mut self, c: u32, v: u64) {
            if let Some(l) = self.0.last_mut() {
                l.1.push((c, v));
            }
        }
    }

    const VCD: &str = "$timescale 1ns $end\n$scope module top $end\n$var wire 1 ! clock $end\n$var wire 8 \" data [7:0] $end\n$scope module sub $end\n$var wire 1 ! clk $end\n$upscope $end\n$upscope $end\n$enddefinitions $end\n#0\n$dumpvars\n0!\nb101 \"\n$end\n#5\n1!\nbx1 \"\n";

    #[test]
    fn reading_in_chunks_gives_what_the_slice_gives() {
        let with_comment = VCD.replace("#5\n", "$comment a\nlong note\n$end\n#5\n");
        let one_line = VCD.replace('\n', " ");
        // A value and its identifier code on different lines (found by the fuzzer: a chunk
        // boundary between them was an error).
        let split_value = VCD.replace("b101 \"", "b101\n\n\"");
        let dangling = VCD.replace("bx1 \"\n", "bx1\n");
        let open_comment = format!("{VCD}$comment no end\n");
        for text in [
            VCD,
            &with_comment,
            &one_line,
            &VCD[..VCD.len() - 3],
            &split_value,
        ] {
            let b = text.as_bytes();
            let h = parse_header(b).unwrap();
            let mut want = Collect(Vec::new());
            let want_end = parse_body(b, &h, &mut want).unwrap();
            for chunk in [1, 2, 3, 7, 16, 1 << 20] {
                // The reader starts with a prefix already read (the header and a bit more).
                for head in [h.body_start, (h.body_start + 5).min(b.len())] {
                    let mut got = Collect(Vec::new());
                    let mut rest = &b[head..];
                    let end = parse_body_read(
                        &mut rest,
                        b[..head].to_vec(),
                        &h,
                        b.len() as u64,
                        chunk,
                        &mut got,
                    )
                    .unwrap();
                    assert_eq!(got.0, want.0, "chunk {chunk}: {text:?}");
                    assert_eq!(end, want_end, "chunk {chunk}: {text:?}");
                }
            }
        }
        // Errors keep their line, also for what a later region would have closed.
        for bad in [
            VCD.replace("#5\n", "#5\n#zz\n"),
            dangling,
            open_comment,
            VCD.replace("b101 \"", "b101\n\n!!"),
        ] {
            let h = parse_header(bad.as_bytes()).unwrap();
            let want = parse_body(bad.as_bytes(), &h, &mut Collect(Vec::new())).unwrap_err();
            for chunk in [1, 3, 5, 64] {
                let mut rest = &bad.as_bytes()[h.body_start..];
                let got = parse_body_read(
                    &mut rest,
                    bad.as_bytes()[..h.body_start].to_vec(),
                    &h,
                    0,
                    chunk,
                    &mut Collect(Vec::new()),
                )
                .unwrap_err();
                match got {
                    ReadBodyError::Syntax(e, line) => {
                        assert_eq!(e, want, "chunk {chunk}: {bad:?}");
                        assert_eq!(line, line_of(bad.as_bytes(), want.offset), "{bad:?}");
                    }
                    ReadBodyError::Io(e) => panic!("{e}"),
                }
            }
        }
        let bad = VCD.replace("#5\n", "#5\n#zz\n");
        let h = parse_header(bad.as_bytes()).unwrap();
        let want = parse_body(bad.as_bytes(), &h, &mut Collect(Vec::new())).unwrap_err();
        let mut rest = &bad.as_bytes()[h.body_start..];
        let got = parse_body_read(
            &mut rest,
            bad.as_bytes()[..h.body_start].to_vec(),
            &h,
            0,
            4,
            &mut Collect(Vec::new()),
        )
        .unwrap_err();
        match got {
            ReadBodyError::Syntax(e, line) => {
                assert_eq!(e, want);
                assert_eq!(line, line_of(bad.as_bytes(), want.offset));
            }
            ReadBodyError::Io(e) => panic!("{e}"),
        }
    }

    /// Vectors of wide variables become wide words of the variable's width, whatever the
    /// number of digits; narrow variables keep their low 64 bits, as before.
    #[test]
    fn wide_vectors() {
        use handscope_sim::wide;
        let big = wide::from_limbs(&[3, 1 << 63], 128);
        let ones128 = wide::from_limbs(&[u64::MAX; 2], 128);
        let vcd = format!(
            "$scope module top $end\n$var wire 128 # w [127:0] $end\n$var wire 64 $ n $end\n$var wire 100 % h $end\n$upscope $end\n$enddefinitions $end\n#0\nb{} #\nb{} $\nb{} %\n#1\nb1{} #\nb1{} $\nb{} %\n#2\nb0 #\nb{} #\nbx{} %\n#3\nb{}\n#\n",
            wide::to_binary(big, 128),
            "1".repeat(65),
            "1".repeat(140),
            "0".repeat(63),
            "0".repeat(63),
            "0".repeat(100),
            "1".repeat(128),
            "1".repeat(99),
            "1".repeat(128),
        );
        let h = parse_header(vcd.as_bytes()).unwrap();
        assert_eq!(h.code_widths, vec![128, 64, 100]);
        let mut c = Collect(Vec::new());
        parse_body(vcd.as_bytes(), &h, &mut c).unwrap();
        let hundred = wide::from_limbs(&[u64::MAX; 2], 100);
        let top63 = wide::from_limbs(&[1 << 63], 128);
        let x99 = wide::from_limbs(&[u64::MAX, (1 << 35) - 1], 100);
        assert_eq!(
            c.0,
            vec![
                (0, vec![(0, big), (1, u64::MAX), (2, hundred)]),
                (1, vec![(0, top63), (1, 1 << 63), (2, 0)]),
                (2, vec![(0, 0), (0, ones128), (2, x99)]),
                (3, vec![(0, ones128)]),
            ]
        );
        // The same read in small chunks (values split from their codes).
        for chunk in [1, 7, 64, 200] {
            let mut got = Collect(Vec::new());
            let mut rest = &vcd.as_bytes()[h.body_start..];
            parse_body_read(
                &mut rest,
                vcd.as_bytes()[..h.body_start].to_vec(),
                &h,
                vcd.len() as u64,
                chunk,
                &mut got,
            )
            .unwrap();
            assert_eq!(got.0, c.0, "chunk {chunk}");
        }
        // A bad digit anywhere in a long value is a located error.
        let bad = vcd.replacen(
            &format!("\nb{} #", "1".repeat(128)),
            &format!("\nb{}2 #", "1".repeat(127)),
            1,
        );
        let e = parse_body(bad.as_bytes(), &h, &mut Collect(Vec::new())).unwrap_err();
        assert!(e.message.contains("invalid binary value"), "{e:?}");
        assert_eq!(line_of(bad.as_bytes(), e.offset), 17);
    }

    #[test]
    fn declared_widths_are_capped() {
        let vcd = "$var wire 4000000000 ! w $end\n$enddefinitions $end\n#0\nb11 !\n";
        let h = parse_header(vcd.as_bytes()).unwrap();
        assert_eq!(h.code_widths, vec![MAX_DATA_WIDTH]);
        let mut c = Collect(Vec::new());
        parse_body(vcd.as_bytes(), &h, &mut c).unwrap();
        assert_eq!(c.0, vec![(0, vec![(0, 3)])]);
    }

    #[test]
    fn header_and_body() {
        let h = parse_header(VCD.as_bytes()).unwrap();
        assert_eq!(h.vars.len(), 3);
        assert_eq!(h.vars[1].path(), "top.data");
        assert_eq!(h.vars[2].path(), "top.sub.clk");
        assert_eq!(h.vars[0].code, h.vars[2].code);
        assert_eq!(h.codes, 2);
        let mut c = Collect(Vec::new());
        let end = parse_body(VCD.as_bytes(), &h, &mut c).unwrap();
        assert_eq!(end.truncated_at, None);
        assert_eq!(
            c.0,
            vec![(0, vec![(0, 0), (1, 5)]), (5, vec![(0, 1), (1, 1)])]
        );
        // A partial last line is ignored.
        let cut = &VCD.as_bytes()[..VCD.len() - 3];
        let mut c = Collect(Vec::new());
        let end = parse_body(cut, &h, &mut c).unwrap();
        assert!(end.truncated_at.is_some());
        assert_eq!(c.0[1].1, vec![(0, 1)]);
        // Corrupt tokens are errors with offsets.
        let bad = VCD.replace("1!", "1?");
        let e = parse_body(bad.as_bytes(), &h, &mut Collect(Vec::new())).unwrap_err();
        assert!(e.message.contains("unknown identifier code"), "{e:?}");
        assert_eq!(line_of(bad.as_bytes(), e.offset), 16);
    }
}
