//! Replaying VCDs of hardware runs (Verilator on Handscope's or CIRCT's RTL) onto a graph:
//! the result is the same [`Trace`] type the engine records, and the same [`RunReport`].
//!
//! The file is read once in chunks of complete lines (module `parse`), never memory-mapped, so
//! a file truncated or rewritten while it is read ends the replay early with a warning
//! instead of a SIGBUS; devices and FIFOs are refused. Only mapped signals are kept (module
//! `mapping`). Values are sampled at every rising edge of the clock, using the values
//! from before that timestamp (the settled values of the cycle), so one step is one cycle;
//! edges where `reset` is high are skipped (one where it falls at the same timestamp is not:
//! the registers see it low). Sampling stops where the engine would have
//! stopped (results complete or deadlock, see [`handscope_sim::analysis`]). A file whose last
//! line is incomplete replays up to the last complete line with a warning.
//!
//! Widths: a signal's values are read at its declared width, as wide words beyond 64 bits
//! (see [`handscope_sim::wide`]). A channel whose data signal is declared with another width
//! than the channel's type is [`VcdError::Width`] (the file is of another version of the
//! circuit: its values would be cut or misread); with [`ReplayOptions::force`] it is a
//! warning and the signal's value, read at its own width, is brought to the channel's: cut
//! to its low bits, or extended by its sign bit on a signed integer channel (by zeros on an
//! unsigned or float one, and for state words, whose registers may be narrower).
//!
//! Stimulus: with an [`Environment`] the replay stops where the engine would have. Without
//! one (a run of unknown stimulus) the stimulus is the trace's own: the whole file is read,
//! the tokens each argument transferred become its input ([`ReplayOptions::base`] gives the
//! rest of the environment), and the report is that of the cycles up to where the engine,
//! given those tokens, would have stopped, so a replay agrees with `sim` on how a run ended.
//!
//! FST files (recognised by their first byte) are read through `wellen` ([`fst`]) into the
//! same mapping and sampler. [`ReplayOptions::progress`] receives how much of a VCD's value
//! changes has been read (a tool draws the progress bar; this library prints nothing).

pub mod follow;
pub mod fst;
mod fst_guard;
mod islands;
mod mapping;
mod parse;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use handscope_sim::Function;
use handscope_sim::analysis::TraceObserver;
use handscope_sim::engine::{SimError, Simulation};
use handscope_sim::report::RunReport;
use handscope_sim::stimulus::Environment;
use handscope_sim::trace::{ChannelMeta, MemWrite, Sample, StateMeta, Trace, TraceBuilder};
use handscope_sim::types::width_mask;
use handscope_sim::wide;

pub use mapping::{MapError, MappingReport};
use parse::{BodySink, Header};

/// Options of a replay.
#[derive(Clone, Debug, Default)]
pub struct ReplayOptions {
    /// Clock signal name or dotted path (default: `clock` or `clk`).
    pub clock: Option<String>,
    /// Function scope (dotted path or its last components), when several scopes match.
    pub scope: Option<String>,
    /// Explicit mapping file (`channel_name signal_prefix` per line).
    pub map_file: Option<PathBuf>,
    /// Called while a VCD's value changes are read, about every 4 MiB and once at the end.
    pub progress: Option<OnProgress>,
    /// Replay even when some channels have no signal in the file (they read as idle, with
    /// a warning) or a data signal's width is not its channel's (a warning); without it
    /// those are [`VcdError::Mismatch`] and [`VcdError::Width`].
    pub force: bool,
    /// A replay without an environment takes its tokens from the trace; the rest of its
    /// environment (ready policies, memories, deadlock window, outputs kept) is this one
    /// (default: [`Environment::default`]).
    pub base: Option<Environment>,
}

/// A progress callback: `(bytes of value changes read, bytes of value changes in total)`.
#[derive(Clone)]
pub struct OnProgress(pub Arc<dyn Fn(u64, u64) + Send + Sync>);

impl std::fmt::Debug for OnProgress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OnProgress")
    }
}

/// Errors of a replay.
#[derive(Debug, thiserror::Error)]
pub enum VcdError {
    /// The file could not be read.
    #[error("cannot read {path}: {error}")]
    Io {
        /// The file.
        path: String,
        /// The OS error (shown in the message, so not also a `source()`: a chain printer
        /// would repeat it).
        error: std::io::Error,
    },
    /// The file (or the mapping file) is not a regular file, or too large
    /// ([`handscope_sim::input`]).
    #[error(transparent)]
    Input(#[from] handscope_sim::input::InputError),
    /// The file is not a valid VCD.
    #[error("{path}:{line}: (byte {offset}) {message}")]
    Syntax {
        /// The file.
        path: String,
        /// 1-based line.
        line: u64,
        /// Byte offset.
        offset: u64,
        /// What is wrong.
        message: String,
    },
    /// The file is not a readable FST (a binary format: the message says which block or
    /// byte when the structure is at fault).
    #[error("{path}: {message}")]
    Fst {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// Signals could not be mapped.
    #[error("{path}: {error}")]
    Map {
        /// The file.
        path: String,
        /// The problem (in the message, not a `source()`, for the same reason as `Io`).
        error: MapError,
    },
    /// No channel matched any signal.
    #[error(
        "{path}: no channel of @{func} matches a signal in scope `{scope}`; give a mapping with --map"
    )]
    NothingMatched {
        /// The file.
        path: String,
        /// The function.
        func: String,
        /// The scope tried.
        scope: String,
    },
    /// Some channels have no signal: the file is most likely a run of another circuit (or
    /// of another version of this one), and a replay would make up idle channels.
    #[error(
        "{path}: {missing} of {total} channels of @{func} have no signal in scope `{scope}` ({}); the file looks like a run of another circuit. Map them with --map, or replay them as idle with --force",
        names.join(", ")
    )]
    Mismatch {
        /// The file.
        path: String,
        /// The function.
        func: String,
        /// The scope tried.
        scope: String,
        /// Channels without a signal.
        missing: usize,
        /// Channels of the function.
        total: usize,
        /// The first few of them.
        names: Vec<String>,
    },
    /// Data signals whose declared width is not their channel's: a run of another version
    /// of the circuit, whose values would be cut (a 32-bit signal on an `i8` channel) or
    /// misread.
    #[error(
        "{path}: {count} data signal(s) in scope `{scope}` are not as wide as their channels of @{func} ({}); the file looks like a run of another version of the circuit. Replay anyway with --force (values are cut to the channel's width, or extended by their sign)",
        names.join(", ")
    )]
    Width {
        /// The file.
        path: String,
        /// The function.
        func: String,
        /// The scope tried.
        scope: String,
        /// How many channels differ.
        count: usize,
        /// The first few, as `channel: N-bit signal, type T`.
        names: Vec<String>,
    },
    /// The graph cannot be simulated (so it has no trace layout).
    #[error(transparent)]
    Graph(#[from] SimError),
}

/// A replayed run.
#[derive(Debug)]
pub struct Replay {
    /// The trace, with the engine's layout.
    pub trace: Trace,
    /// The report `sim` would print.
    pub report: RunReport,
    /// How signals were mapped.
    pub mapping: MappingReport,
    /// Warnings (truncated file, ...).
    pub warnings: Vec<String>,
    /// Rising clock edges found (reset edges included).
    pub edges: u64,
}

/// The engine's trace layout for `f`: channels, state words and memories.
fn trace_layout(f: &Function) -> Result<TraceBuilder, SimError> {
    let mut sim = Simulation::new(f, Environment::default())?;
    sim.enable_trace();
    let t = sim
        .take_trace()
        .unwrap_or_else(|| TraceBuilder::new(Vec::new(), Vec::new()).finish());
    let mut b = TraceBuilder::new(t.channels().to_vec(), t.state_meta().to_vec());
    b.set_memories(t.memories().to_vec());
    Ok(b)
}

struct MemPort {
    /// The memory node's index (writes are recorded in node order).
    node: usize,
    mem: u32,
    addr: usize,
    data: usize,
    mask: u64,
    size: u64,
}

struct Sampler<'f> {
    map: mapping::Mapping,
    /// Per code: current value, stamp of the last timestamp that changed it, value before it.
    cur: Vec<u64>,
    stamp: Vec<u64>,
    before: Vec<u64>,
    ts: u64,
    interesting: Vec<bool>,
    tb: TraceBuilder,
    obs: TraceObserver<'f>,
    masks: Vec<u64>,
    valid: Vec<bool>,
    ready: Vec<bool>,
    data: Vec<u64>,
    state: Vec<u64>,
    stores: Vec<MemPort>,
    /// The static islands, whose stores the replay makes again.
    islands: Vec<islands::IslandReplay>,
    /// The memories' contents as the writes so far left them (islands read them).
    shadow: islands::Shadow,
    edges: u64,
    done: bool,
    progress: Option<OnProgress>,
    /// Per code: whether a change of it had an `x`/`z` digit (mapped codes only).
    unknown: Vec<bool>,
    /// Channels (by index) and state words (by index) whose signal is read at another width
    /// than theirs, one of them above 64 bits: see [`Rewidth`].
    data_rewidth: Vec<Rewidth>,
    state_rewidth: Vec<Rewidth>,
    /// Warnings found while mapping (widths replayed with `force`).
    warnings: Vec<String>,
    /// Without an environment: the tokens each argument transferred (see [`FromTrace`]).
    from_trace: Option<FromTrace>,
}

/// A replay whose stimulus is the trace's: per channel argument, its channel and the number
/// of tokens it transferred, and the environment the rest comes from.
struct FromTrace {
    base: Environment,
    /// `(argument name, channel index, tokens transferred)`.
    args: Vec<(String, usize, u64)>,
}

impl FromTrace {
    fn new(f: &Function, base: Environment) -> FromTrace {
        use cranelift_entity::EntityRef;
        let args = f
            .args
            .iter()
            .filter_map(|a| {
                let ch = *f.nodes[a.node?].outputs.first()?;
                Some((a.name.clone(), ch.index(), 0))
            })
            .collect();
        FromTrace { base, args }
    }

    /// The environment of the run: the base with each argument's transferred tokens, and
    /// one more for an argument still offering a token it did not hand over in the last cycle
    /// (`valid` without `ready`). Only their number matters to the monitor, which is all the
    /// environment is used for.
    fn environment(&self, valid: &[bool], ready: &[bool]) -> Environment {
        let mut env = self.base.clone();
        env.inputs = self
            .args
            .iter()
            .map(|(name, ch, n)| {
                let offered = u64::from(
                    valid.get(*ch).copied().unwrap_or(false)
                        && !ready.get(*ch).copied().unwrap_or(false),
                );
                (
                    name.clone(),
                    vec![handscope_sim::stimulus::TokenSource::None(n + offered)],
                )
            })
            .collect();
        env
    }
}

/// A value whose signal (`code`, read at width `from`) is not as wide as its channel or
/// state word (`to`), one of them wider than 64 bits or the signal narrower than a signed
/// channel: the word is rebuilt at width `to`.
struct Rewidth {
    index: usize,
    code: u32,
    from: u32,
    to: u32,
    /// Widen by sign extension (a signed integer channel), else by zeros.
    signed: bool,
}

impl Rewidth {
    /// The word of `word` (a `from`-bit signal's) at `to` bits: the low bits, extended by
    /// copies of the sign bit when `signed` (the signal's value read at its own width),
    /// else by zeros.
    fn apply(&self, word: u64) -> u64 {
        let mut limbs = if wide::is_wide(self.from) {
            wide::to_limbs(word, self.from)
        } else {
            vec![word & width_mask(self.from)]
        };
        let from = self.from as usize;
        if self.signed
            && self.from > 0
            && self.from < self.to
            && limbs
                .get((from - 1) / 64)
                .is_some_and(|l| l >> ((from - 1) % 64) & 1 == 1)
        {
            limbs.resize(self.to.div_ceil(64) as usize, 0);
            for (k, l) in limbs.iter_mut().enumerate() {
                let lo = k * 64;
                if lo >= from {
                    *l = u64::MAX;
                } else if lo + 64 > from {
                    *l |= u64::MAX << (from - lo);
                }
            }
        }
        wide::from_limbs(&limbs, self.to)
    }

    /// The rewidths of the values whose signals are `codes`, expected at `widths` (signed
    /// integers where `signed`).
    fn list(
        codes: &[Option<u32>],
        widths: &[u32],
        signed: &[bool],
        code_widths: &[u32],
    ) -> Vec<Rewidth> {
        codes
            .iter()
            .zip(widths)
            .enumerate()
            .filter_map(|(index, (&code, &to))| {
                let code = code?;
                let from = code_widths.get(code as usize).copied()?;
                let signed = signed.get(index).copied().unwrap_or(false);
                (from != to && (wide::is_wide(from) || wide::is_wide(to) || (signed && from < to)))
                    .then_some(Rewidth {
                        index,
                        code,
                        from,
                        to,
                        signed,
                    })
            })
            .collect()
    }
}

impl Sampler<'_> {
    /// Value of `code` at the start of the current timestamp.
    #[inline]
    fn old(&self, code: u32) -> u64 {
        let c = code as usize;
        if self.stamp[c] == self.ts {
            self.before[c]
        } else {
            self.cur[c]
        }
    }

    fn end_timestamp(&mut self) {
        if self.done || self.ts == 0 {
            return;
        }
        let clk = self.map.clock;
        if !(self.old(clk) & 1 == 0 && self.cur[clk as usize] & 1 == 1) {
            return;
        }
        self.edges += 1;
        // A reset that falls at the edge's own timestamp is already low for the registers
        // (a VHDL testbench releases reset in the same delta as the clock: Dynamatic's does
        // at 10 ns, its first working edge).
        if self
            .map
            .reset
            .is_some_and(|r| self.old(r) & 1 == 1 && self.cur[r as usize] & 1 == 1)
        {
            return;
        }
        for (i, c) in self.map.channels.iter().enumerate() {
            self.valid[i] = c.valid.is_some_and(|x| self.old(x) & 1 == 1);
            self.ready[i] = c.ready.is_some_and(|x| self.old(x) & 1 == 1);
            self.data[i] = c.data.map_or(0, |x| self.old(x)) & self.masks[i];
        }
        for (k, c) in self.map.state.iter().enumerate() {
            self.state[k] = c.map_or(0, |x| self.old(x));
        }
        for r in &self.data_rewidth {
            self.data[r.index] = r.apply(self.old(r.code));
        }
        for r in &self.state_rewidth {
            self.state[r.index] = r.apply(self.old(r.code));
        }
        let s = Sample {
            valid: &self.valid,
            ready: &self.ready,
            data: &self.data,
            state: &self.state,
        };
        self.tb.push_cycle(s);
        if let Some(ft) = &mut self.from_trace {
            for (_, ch, n) in &mut ft.args {
                if self.valid[*ch] && self.ready[*ch] {
                    *n += 1;
                }
            }
        }
        let cycle = self.tb.cycles() - 1;
        for (mem, addr, value) in self.obs.queue_writes(&self.state) {
            self.shadow.write(mem, addr, value);
            self.tb.push_mem_write(MemWrite {
                cycle,
                mem,
                addr,
                value,
            });
        }
        // Store ports and islands, in node order (the engine's clock edge order).
        let mut writes: Vec<(usize, u32, u64, u64)> = Vec::new();
        for p in &self.stores {
            if self.valid[p.addr] && self.valid[p.data] {
                let addr = self.data[p.addr] & p.mask;
                if addr < p.size {
                    self.shadow.write(p.mem, addr, self.data[p.data]);
                    writes.push((p.node, p.mem, addr, self.data[p.data]));
                }
            }
        }
        for isl in &self.islands {
            for (mem, addr, value) in isl.writes(
                &self.state,
                &self.valid,
                &self.ready,
                &self.data,
                &mut self.shadow,
            ) {
                writes.push((isl.node, mem, addr, value));
            }
        }
        writes.sort_by_key(|w| w.0);
        for (_, mem, addr, value) in writes {
            self.tb.push_mem_write(MemWrite {
                cycle,
                mem,
                addr,
                value,
            });
        }
        // Without an environment the whole file is read (the tokens are counted first);
        // the observer's report is made afterwards, in `finish`.
        if self.from_trace.is_none() && self.obs.push(s).is_some() {
            self.done = true;
        }
    }
}

impl BodySink for Sampler<'_> {
    fn timestamp(&mut self, _time: u64) {
        self.end_timestamp();
        self.ts += 1;
    }

    #[inline]
    fn change(&mut self, code: u32, value: u64) {
        let c = code as usize;
        if !self.interesting[c] {
            return;
        }
        if self.stamp[c] != self.ts {
            self.stamp[c] = self.ts;
            self.before[c] = self.cur[c];
        }
        self.cur[c] = value;
    }

    fn progress(&mut self, done: u64, total: u64) {
        if let Some(p) = &self.progress {
            (p.0)(done, total);
        }
    }

    fn unknown(&mut self, code: u32) {
        let c = code as usize;
        if self.interesting[c] {
            self.unknown[c] = true;
        }
    }
}

/// Replays the VCD at `path` onto flattened function `f` (in `env`, when the stimulus is
/// known, so that the run stops exactly where the engine's does).
pub fn replay_file(
    path: &Path,
    f: &Function,
    env: Option<&Environment>,
    opts: &ReplayOptions,
) -> Result<Replay, VcdError> {
    let name = path.display().to_string();
    let ioerr = |error| VcdError::Io {
        path: name.clone(),
        error,
    };
    // Only a regular file: `/dev/zero` would never end, a FIFO block and never rewind.
    let (mut file, meta) = handscope_sim::input::open_regular(path)?;
    let len = meta.len();
    let map_text = read_map_file(opts)?;
    if fst::is_fst(path).map_err(ioerr)? {
        return fst::replay_fst(path, f, env, opts, map_text.as_deref());
    }
    // Read, not memory-mapped: a file truncated or rewritten while it is read must end the
    // replay early (with a warning), never raise SIGBUS.
    let mut r = replay_reader(
        &mut file,
        len,
        &name,
        f,
        env,
        opts,
        map_text.as_deref(),
        READ_CHUNK,
    )?;
    if let Ok(now) = file.metadata()
        && (now.len() != len || now.modified().ok() != meta.modified().ok())
    {
        r.warnings.push(format!(
            "{name}: the file changed while it was read ({len} bytes when opened, {} now); the replay may mix two versions of it",
            now.len()
        ));
    }
    Ok(r)
}

/// How much of a VCD [`replay_file`] reads at a time.
pub const READ_CHUNK: usize = 8 << 20;

/// [`replay_file`] on a reader of VCD text (`len`: its size if known, for progress), read
/// `chunk` bytes at a time; `name` is used in messages. Gives exactly what [`replay_bytes`]
/// gives on the same bytes.
#[allow(clippy::too_many_arguments)]
pub fn replay_reader(
    r: &mut impl std::io::Read,
    len: u64,
    name: &str,
    f: &Function,
    env: Option<&Environment>,
    opts: &ReplayOptions,
    map_text: Option<&str>,
    chunk: usize,
) -> Result<Replay, VcdError> {
    let ioerr = |error| VcdError::Io {
        path: name.to_string(),
        error,
    };
    let syntax = |e: parse::SyntaxError, line: u64| VcdError::Syntax {
        path: name.to_string(),
        line,
        offset: e.offset,
        message: e.message,
    };
    let (head, header) = read_header(r, chunk).map_err(ioerr)?;
    let header = header.map_err(|e| {
        let line = parse::line_of(&head, e.offset);
        syntax(e, line)
    })?;
    let mut sampler = prepare(&header, name, f, env, opts, map_text)?;
    let end =
        parse::parse_body_read(r, head, &header, len, chunk, &mut sampler).map_err(
            |e| match e {
                parse::ReadBodyError::Syntax(e, line) => syntax(e, line),
                parse::ReadBodyError::Io(e) => ioerr(e),
            },
        )?;
    let mut warnings = Vec::new();
    if let Some(at) = end.truncated_at {
        warnings.push(truncation_warning(name, at));
    }
    finish(sampler, warnings)
}

fn truncation_warning(name: &str, at: u64) -> String {
    format!(
        "{name}: the file ends inside a line (byte {at}); it looks truncated, replayed up to the last complete timestamp"
    )
}

/// The first bytes of a VCD, through its header, and the parsed header (or the header's
/// error on the whole file). Reads ever larger pieces until the header parses with its last
/// token complete, so the header is read in time linear in its size.
fn read_header(
    r: &mut impl std::io::Read,
    chunk: usize,
) -> std::io::Result<(Vec<u8>, Result<Header, parse::SyntaxError>)> {
    let mut buf = Vec::new();
    let mut step = chunk.clamp(1, 1 << 16);
    loop {
        let old = buf.len();
        buf.resize(old + step, 0);
        let n = loop {
            match r.read(&mut buf[old..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        };
        buf.truncate(old + n);
        let eof = n == 0;
        if n > 0 && n < step {
            // Keep reading until the piece is full or the file ends.
            continue;
        }
        let parsed = parse::parse_header(&buf);
        match parsed {
            Ok(h) if h.body_start < buf.len() || eof => return Ok((buf, Ok(h))),
            Err(e) if eof || e.over_limit => return Ok((buf, Err(e))),
            Err(_) if buf.len() > parse::MAX_HEADER_BYTES => {
                return Ok((buf, Err(parse::header_too_long())));
            }
            _ => {}
        }
        step = buf.len().max(step);
    }
}

/// [`replay_file`] on bytes already in memory; `name` is used in messages.
pub fn replay_bytes(
    bytes: &[u8],
    name: &str,
    f: &Function,
    env: Option<&Environment>,
    opts: &ReplayOptions,
    map_text: Option<&str>,
) -> Result<Replay, VcdError> {
    let syntax = |e: parse::SyntaxError| VcdError::Syntax {
        path: name.to_string(),
        line: parse::line_of(bytes, e.offset),
        offset: e.offset,
        message: e.message,
    };
    let header = parse::parse_header(bytes).map_err(syntax)?;
    let mut sampler = prepare(&header, name, f, env, opts, map_text)?;
    let end = parse::parse_body(bytes, &header, &mut sampler).map_err(syntax)?;
    let mut warnings = Vec::new();
    if let Some(at) = end.truncated_at {
        warnings.push(truncation_warning(name, at));
    }
    finish(sampler, warnings)
}

/// The mapping file's text, if one is given.
fn read_map_file(opts: &ReplayOptions) -> Result<Option<String>, VcdError> {
    match &opts.map_file {
        Some(p) => Ok(Some(handscope_sim::input::read_text(p)?)),
        None => Ok(None),
    }
}

/// Maps `header`'s signals onto `f` and makes the sampler that receives the value changes.
fn prepare<'f>(
    header: &Header,
    name: &str,
    f: &'f Function,
    env: Option<&Environment>,
    opts: &ReplayOptions,
    map_text: Option<&str>,
) -> Result<Sampler<'f>, VcdError> {
    let map_file = match map_text {
        Some(t) => mapping::parse_map_file(t, f).map_err(|error| VcdError::Map {
            path: name.to_string(),
            error,
        })?,
        None => BTreeMap::new(),
    };
    let tb = trace_layout(f)?;
    let state_meta: Vec<StateMeta> = tb.state_meta().to_vec();
    let map = mapping::map_signals(
        header,
        f,
        &state_meta,
        &map_file,
        opts.clock.as_deref(),
        opts.scope.as_deref(),
    )
    .map_err(|error| VcdError::Map {
        path: name.to_string(),
        error,
    })?;
    if map.report.matched.is_empty() && !f.channels.is_empty() {
        return Err(VcdError::NothingMatched {
            path: name.to_string(),
            func: f.name.clone(),
            scope: map.report.scope.clone(),
        });
    }
    let missing = &map.report.unmatched_channels;
    if !missing.is_empty() && !opts.force {
        let mut names: Vec<String> = missing.iter().take(8).cloned().collect();
        if missing.len() > names.len() {
            names.push("...".into());
        }
        return Err(VcdError::Mismatch {
            path: name.to_string(),
            func: f.name.clone(),
            scope: map.report.scope.clone(),
            missing: missing.len(),
            total: f.channels.len(),
            names,
        });
    }
    let widths = width_mismatches(header, f, &map);
    let mut warnings = Vec::new();
    if !widths.is_empty() {
        let mut names: Vec<String> = widths.iter().take(8).cloned().collect();
        if widths.len() > names.len() {
            names.push("...".into());
        }
        if !opts.force {
            return Err(VcdError::Width {
                path: name.to_string(),
                func: f.name.clone(),
                scope: map.report.scope.clone(),
                count: widths.len(),
                names,
            });
        }
        warnings.push(format!(
            "{} data signal(s) are not as wide as their channels ({}); their values are cut to the channel's width, or extended by their sign",
            widths.len(),
            names.join(", ")
        ));
    }
    let mut sampler = new_sampler(header, f, env, map, tb, opts.progress.clone())?;
    sampler.warnings = warnings;
    if env.is_none() {
        sampler.from_trace = Some(FromTrace::new(f, opts.base.clone().unwrap_or_default()));
    }
    Ok(sampler)
}

/// The mapped channels whose data signal is declared with another width than the channel's
/// type, as `channel: N-bit signal, type T`.
fn width_mismatches(header: &Header, f: &Function, map: &mapping::Mapping) -> Vec<String> {
    f.channels
        .values()
        .zip(&map.channels)
        .filter_map(|(c, codes)| {
            let code = codes.data?;
            let w = *header.code_widths.get(code as usize)?;
            let want = c.ty.bit_width();
            (want > 0 && w != want).then(|| format!("`{}`: {w}-bit signal, type {}", c.name, c.ty))
        })
        .collect()
}

/// Closes the last timestamp and builds the [`Replay`].
fn finish(mut sampler: Sampler<'_>, mut warnings: Vec<String>) -> Result<Replay, VcdError> {
    sampler.end_timestamp();
    warnings.append(&mut sampler.warnings);
    let m = &sampler.map.report;
    let clock_unknown = sampler.unknown[sampler.map.clock as usize];
    if sampler.edges == 0 {
        warnings.push(format!(
            "the clock `{}` never rises from 0 to 1 in the file{}: nothing was replayed (0 cycles)",
            m.clock,
            if clock_unknown {
                " (its values are x or z)"
            } else {
                ""
            }
        ));
    }
    let unknown = sampler.unknown.iter().filter(|&&u| u).count();
    if unknown > 0 {
        warnings.push(format!(
            "{unknown} of the mapped signals hold x or z values at some time (read as 0); the replay shows them as 0{}",
            if clock_unknown { ", the clock among them" } else { "" }
        ));
    }
    if !m.unit_internal_channels.is_empty() {
        warnings.push(format!(
            "{} channel(s) inside Dynamatic's multi-cycle units have no net in its RTL and read as idle: {}",
            m.unit_internal_channels.len(),
            m.unit_internal_channels
                .iter()
                .take(8)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if !m.unmatched_channels.is_empty() {
        warnings.push(format!(
            "{} channel(s) have no signal in the file and read as idle: {}",
            m.unmatched_channels.len(),
            m.unmatched_channels
                .iter()
                .take(8)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let trace = sampler.tb.finish();
    let report = match &sampler.from_trace {
        Some(ft) => {
            let env = ft.environment(&sampler.valid, &sampler.ready);
            handscope_sim::analysis::report_from_trace(sampler.obs.function(), &trace, Some(&env))?
        }
        None => sampler.obs.report(),
    };
    Ok(Replay {
        trace,
        report,
        mapping: sampler.map.report,
        warnings,
        edges: sampler.edges,
    })
}

fn new_sampler<'f>(
    header: &Header,
    f: &'f Function,
    env: Option<&Environment>,
    map: mapping::Mapping,
    tb: TraceBuilder,
    progress: Option<OnProgress>,
) -> Result<Sampler<'f>, VcdError> {
    let n = header.codes as usize;
    let mut interesting = vec![false; n];
    let mut mark = |c: Option<u32>| {
        if let Some(x) = c.and_then(|c| interesting.get_mut(c as usize)) {
            *x = true;
        }
    };
    for c in &map.channels {
        mark(c.valid);
        mark(c.ready);
        mark(c.data);
    }
    for c in &map.state {
        mark(*c);
    }
    mark(Some(map.clock));
    mark(map.reset);
    let nc = f.channels.len();
    let masks = f.channels.values().map(|c| c.ty.mask()).collect();
    let metas: Vec<ChannelMeta> = f
        .channels
        .values()
        .map(|c| ChannelMeta {
            name: c.name.clone(),
            ty: c.ty.clone(),
        })
        .collect();
    let data_codes: Vec<Option<u32>> = map.channels.iter().map(|c| c.data).collect();
    let data_widths: Vec<u32> = metas.iter().map(|c| c.ty.bit_width()).collect();
    let unsigned = f.unsigned_names();
    let data_signed: Vec<bool> = metas
        .iter()
        .map(|c| {
            let int = matches!(c.ty, handscope_sim::types::Type::Int(_));
            int && !unsigned.contains(&c.name)
        })
        .collect();
    let data_rewidth = Rewidth::list(&data_codes, &data_widths, &data_signed, &header.code_widths);
    let state_widths = crate::vcd_out::state_widths(&metas, tb.state_meta());
    let state_rewidth = Rewidth::list(&map.state, &state_widths, &[], &header.code_widths);
    let mut stores = Vec::new();
    let mut mem = 0u32;
    for (nid, node) in f.nodes.iter() {
        if let Some(array) = node.op.array() {
            let memref = array.memref;
            let abits = 64 - (memref.len().max(1) - 1).leading_zeros();
            for &(a, d) in &array.stores {
                if let (Some(d), Some(a)) = (node.inputs.get(d), node.inputs.get(a)) {
                    use cranelift_entity::EntityRef;
                    stores.push(MemPort {
                        node: nid.index(),
                        mem,
                        addr: a.index(),
                        data: d.index(),
                        mask: width_mask(abits),
                        size: memref.len(),
                    });
                }
            }
            mem += 1;
        }
    }
    let island_list = islands::islands(f, tb.state_meta());
    let shadow = islands::Shadow::new(f, env);
    Ok(Sampler {
        islands: island_list,
        shadow,
        cur: vec![0; n],
        stamp: vec![u64::MAX; n],
        before: vec![0; n],
        ts: 0,
        interesting,
        obs: TraceObserver::new(f, env)?,
        tb,
        masks,
        valid: vec![false; nc],
        ready: vec![false; nc],
        data: vec![0; nc],
        state: vec![0; map.state.len()],
        map,
        stores,
        edges: 0,
        done: false,
        progress,
        unknown: vec![false; n],
        data_rewidth,
        state_rewidth,
        warnings: Vec::new(),
        from_trace: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A signal read at another width than its channel's: the low bits, zero-extended, as
    /// the channel's word.
    #[test]
    fn rewidth_keeps_the_low_bits() {
        let r = |from, to| Rewidth {
            index: 0,
            code: 0,
            from,
            to,
            signed: false,
        };
        let big = wide::from_limbs(&[u64::MAX, 5], 128);
        assert_eq!(r(128, 64).apply(big), u64::MAX);
        assert_eq!(r(128, 8).apply(big), 0xff);
        assert_eq!(
            r(128, 256).apply(big),
            wide::from_limbs(&[u64::MAX, 5], 256)
        );
        assert_eq!(r(128, 65).apply(big), wide::from_limbs(&[u64::MAX, 1], 65));
        // A 64-bit pattern with its top bit set is interned on a wide channel.
        assert_eq!(r(64, 128).apply(1 << 63), wide::from_limbs(&[1 << 63], 128));
        assert_eq!(r(32, 128).apply(u64::MAX), 0xffff_ffff);
        // Only pairs with a wide side are listed; narrow ones are masked as before.
        let l = Rewidth::list(
            &[Some(0), Some(1), None, Some(2), Some(3)],
            &[32, 128, 128, 64, 128],
            &[],
            &[64, 64, 128, 128, 128],
        );
        let got: Vec<(usize, u32, u32, u32)> =
            l.iter().map(|r| (r.index, r.code, r.from, r.to)).collect();
        assert_eq!(got, vec![(1, 1, 64, 128), (3, 2, 128, 64)]);
        // A signed channel wider than its signal: the signal's value, sign-extended
        // (issue 36: −10 on 32 bits read onto `i64` was 4294967286).
        let s = |from, to| Rewidth {
            index: 0,
            code: 0,
            from,
            to,
            signed: true,
        };
        assert_eq!(s(32, 64).apply(0xffff_fff6), (-10i64) as u64);
        assert_eq!(s(32, 64).apply(10), 10);
        assert_eq!(s(8, 16).apply(0x80), 0xff80);
        assert_eq!(
            s(32, 128).apply(0xffff_fff6),
            wide::from_limbs(&[(-10i64) as u64, u64::MAX], 128)
        );
        assert_eq!(s(64, 8).apply(0x1ff), 0xff);
        let l = Rewidth::list(&[Some(0), Some(1)], &[64, 8], &[true, true], &[32, 32]);
        assert_eq!(l.len(), 1, "narrowing needs no rewidth below 64 bits");
    }
}
