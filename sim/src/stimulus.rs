//! Stimulus and environment: tokens driven into the function's arguments, ready policies for
//! its results, and initial memory contents.
//!
//! # Ready policies and the PRNG
//! [`ReadyPolicy::Random`] uses **splitmix64**, one generator per result, seeded with `seed`:
//! ```text
//! state = state + 0x9E3779B97F4A7C15            (mod 2^64)
//! z = state
//! z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9     (mod 2^64)
//! z = (z ^ (z >> 27)) * 0x94D049BB133111EB     (mod 2^64)
//! z = z ^ (z >> 31)
//! ```
//! Exactly one value `z` is drawn per result per cycle, starting at cycle 0, whatever the
//! circuit does. The result is ready in that cycle when `(z >> 32) < threshold`, where
//! `threshold = round(prob * 2^32)` clamped to `[0, 2^32]` (so `prob = 1` is always ready and
//! `prob = 0` never). A testbench reproduces it bit-exactly from `seed` and `threshold`
//! ([`ReadyPolicy::threshold`]).

use std::collections::BTreeMap;
use std::path::Path;

use crate::engine::SimError;
use crate::graph::Function;
use crate::ops::Op;
use crate::quote::excerpt;
use crate::types::{Type, width_mask};

/// Errors in stimulus text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StimulusError {
    /// A number could not be parsed.
    #[error("invalid number `{0}`")]
    Number(String),
    /// A value does not fit in 64 bits.
    #[error("value `{0}` does not fit in 64 bits")]
    Range(String),
    /// A ready policy could not be parsed.
    #[error("invalid ready policy `{0}` (expected always, random:SEED:PROB or pattern:BITS)")]
    Policy(String),
    /// A float value could not be parsed.
    #[error(transparent)]
    Float(#[from] crate::float::FloatParseError),
    /// A range (`a..b`) was given for a float argument.
    #[error("`{0}`: ranges are for integer arguments; list float values (1.5,-2e-3,inf,nan)")]
    FloatRange(String),
    /// A token file could not be read.
    #[error("cannot read `{path}`: {message}")]
    File {
        /// The file.
        path: String,
        /// The I/O error.
        message: String,
    },
    /// A value outside what the argument's type holds.
    #[error(
        "value `{text}` does not fit {ty} (it takes {min} to {max}; negative values as two's complement)"
    )]
    DoesNotFit {
        /// The value as given.
        text: String,
        /// The type.
        ty: String,
        /// Smallest value accepted (as signed).
        min: i128,
        /// Largest value accepted (as unsigned).
        max: i128,
    },
    /// A value outside what an argument wider than 64 bits holds.
    #[error(
        "value `{text}` does not fit {ty} (negative values as two's complement, down to -2^(width-1))"
    )]
    WideDoesNotFit {
        /// The value as given.
        text: String,
        /// The type.
        ty: String,
    },
    /// `a..b` with `b <= a`.
    #[error(
        "`{0}` is an empty range (the end is excluded: `0..4` is 0, 1, 2, 3); give a start below the end"
    )]
    EmptyRange(String),
    /// No value at all (`--in n=`).
    #[error("no value given (write a list `1,2,3`, a range `0..10` or `@file`)")]
    Empty,
    /// An empty item in a list (`1,,2`, a leading or trailing comma).
    #[error("`{0}` has an empty item between commas")]
    EmptyItem(String),
    /// A list or file of more than [`MAX_TOKENS`] values.
    #[error(
        "{list} holds more than {} values (value {} starts at line {line}, column {col}); the limit is {}",
        crate::limits::thousands(MAX_TOKENS),
        crate::limits::thousands(MAX_TOKENS + 1),
        crate::limits::thousands(MAX_TOKENS)
    )]
    TooManyTokens {
        /// `` `@FILE` `` or `the list`.
        list: String,
        /// 1-based line of the first value over the limit.
        line: usize,
        /// 1-based column (in characters) of that value.
        col: usize,
    },
}

/// Most values one list or `@file` gives an argument or memory: 33,554,432, 256 MiB once
/// held as 64-bit words (a 512 MiB file of `0 0 0 ...` would otherwise hold 268 million).
/// A range (`0..N`) is generated as the run goes and has no such limit.
pub const MAX_TOKENS: u64 = 1 << 25;

/// Largest token or memory file `@file` reads: 512 MiB, about 50 million values in text,
/// already 400 MB once held as 64-bit words.
pub const MAX_TOKEN_FILE_BYTES: u64 = crate::input::MAX_TEXT_BYTES;

/// One batch of tokens for an argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TokenSource {
    /// Explicit values as 64-bit patterns (masked to the argument width when driven); for an
    /// argument wider than 64 bits, its words (see [`crate::wide`]).
    Values(Vec<u64>),
    /// `start..end` (end exclusive), generated lazily, masked to the argument width.
    Range {
        /// First value.
        start: i128,
        /// One past the last value.
        end: i128,
    },
    /// `count` tokens of a `none` argument (data 0).
    None(u64),
}

impl TokenSource {
    /// Number of tokens.
    pub fn len(&self) -> u64 {
        match self {
            TokenSource::Values(v) => v.len() as u64,
            TokenSource::Range { start, end } => {
                (end - start).clamp(0, i128::from(u64::MAX)) as u64
            }
            TokenSource::None(n) => *n,
        }
    }

    /// True when there are no tokens.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Token `k` as an unmasked bit pattern (for a range, the value's low 64 bits; see
    /// [`TokenSource::word`] for arguments wider than 64 bits).
    pub fn get(&self, k: u64) -> u64 {
        match self {
            TokenSource::Values(v) => v[k as usize],
            TokenSource::Range { start, .. } => (start + i128::from(k)) as u64,
            TokenSource::None(_) => 0,
        }
    }

    /// Token `k` as the word of a channel `width` bits wide (see [`crate::wide`]).
    pub fn word(&self, k: u64, width: u32) -> u64 {
        match self {
            TokenSource::Range { start, .. } if crate::wide::is_wide(width) => {
                crate::wide::from_bigint(&num_bigint::BigInt::from(start + i128::from(k)), width)
            }
            _ => self.get(k) & width_mask(width),
        }
    }

    /// Parses CLI syntax for an argument of type `ty`:
    /// `1,2,-3` (negative values are masked to the width when driven), `0..1000`,
    /// `@file` (whitespace- or comma-separated decimal or `0x` hex numbers).
    /// For `none` arguments: `none` (one token) or a count `N`.
    /// For `f32`/`f64` arguments: a list (or `@file`) of floats in any spelling
    /// [`crate::float::parse_float`] reads (`1.5,-2e-3,inf,nan`, bit patterns `0x3fc00000`);
    /// each token is the value's bit pattern, rounded correctly to the format.
    ///
    /// Integer values must fit the type, read as signed or unsigned (`-128..=255` for `i8`);
    /// an empty text, an empty list item (`1,,2`) and an empty range (`10..0`) are errors.
    pub fn parse(text: &str, ty: &Type) -> Result<TokenSource, StimulusError> {
        let t = text.trim();
        if t.is_empty() {
            return Err(StimulusError::Empty);
        }
        if ty.is_none() {
            if t == "none" {
                return Ok(TokenSource::None(1));
            }
            let n = parse_number(t)?;
            return u64::try_from(n)
                .map(TokenSource::None)
                .map_err(|_| StimulusError::Range(excerpt(t)));
        }
        let float = ty.float_kind();
        if let Some(path) = t.strip_prefix('@') {
            return parse_file(Path::new(path), ty);
        }
        if let Some(kind) = float {
            if t.contains("..") {
                return Err(StimulusError::FloatRange(excerpt(t)));
            }
            return parse_float_list(t, kind, None);
        }
        if let Some((a, b)) = t.split_once("..") {
            let (start, end) = (parse_number(a)?, parse_number(b)?);
            if end <= start {
                return Err(StimulusError::EmptyRange(excerpt(t)));
            }
            check_fits(start, a.trim(), ty)?;
            check_fits(end - 1, &format!("{} (the last of {t})", end - 1), ty)?;
            return Ok(TokenSource::Range { start, end });
        }
        parse_list(t, ty, None)
    }
}

/// The values an integer type of `ty`'s width accepts: `-2^(w-1)` (signed) to `2^w - 1`
/// (unsigned), clamped to what an `i128` holds (types of 127 bits and more).
pub fn int_range(ty: &Type) -> (i128, i128) {
    let w = ty.bit_width();
    if w == 0 {
        return (0, 0);
    }
    if w >= 127 {
        return (i128::MIN, i128::MAX);
    }
    (-(1i128 << (w - 1)), (1i128 << w) - 1)
}

fn check_fits(v: i128, text: &str, ty: &Type) -> Result<(), StimulusError> {
    let (min, max) = int_range(ty);
    if v < min || v > max {
        return Err(StimulusError::DoesNotFit {
            text: excerpt(text),
            ty: ty.to_string(),
            min,
            max,
        });
    }
    Ok(())
}

/// Calls `f` on each item of a value list, in order: comma- or whitespace-separated. An
/// empty item between commas is an error; a file (`lenient`) may end with a comma. At most
/// [`MAX_TOKENS`] items, without collecting them first (a file of hundreds of millions of
/// values is refused at the first one over the limit, in memory linear in the text).
fn for_each_item<'t>(
    t: &'t str,
    lenient: bool,
    source: &str,
    mut f: impl FnMut(&'t str) -> Result<(), StimulusError>,
) -> Result<(), StimulusError> {
    let mut count = 0u64;
    let mut parts = t.split(',').peekable();
    while let Some(part) = parts.next() {
        let last = parts.peek().is_none();
        let mut any = false;
        for item in part.split_whitespace() {
            any = true;
            count += 1;
            if count > MAX_TOKENS {
                let at = item.as_ptr() as usize - t.as_ptr() as usize;
                let before = &t[..at];
                let line_start = before.rfind('\n').map_or(0, |i| i + 1);
                return Err(StimulusError::TooManyTokens {
                    list: source.to_string(),
                    line: before.matches('\n').count() + 1,
                    col: before[line_start..].chars().count() + 1,
                });
            }
            f(item)?;
        }
        if !(any || lenient && last) {
            return Err(StimulusError::EmptyItem(excerpt(t)));
        }
    }
    Ok(())
}

/// Parses a decimal or `0x` hexadecimal integer, optionally negative.
fn parse_number(s: &str) -> Result<i128, StimulusError> {
    let t = s.trim();
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let mag = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        u64::from_str_radix(&h.replace('_', ""), 16)
    } else {
        body.replace('_', "").parse::<u64>()
    }
    .map_err(|_| StimulusError::Number(excerpt(t)))?;
    Ok(if neg {
        -i128::from(mag)
    } else {
        i128::from(mag)
    })
}

/// What a list's errors call it: the `@FILE` it came from, or the list on the command line.
fn list_source(file: Option<&Path>) -> String {
    file.map_or_else(|| "the list".to_string(), |p| format!("`@{}`", p.display()))
}

fn parse_list(t: &str, ty: &Type, file: Option<&Path>) -> Result<TokenSource, StimulusError> {
    let mut vals = Vec::new();
    let w = ty.bit_width();
    let (lenient, source) = (file.is_some(), list_source(file));
    if crate::wide::is_wide(w) {
        for_each_item(t, lenient, &source, |part| {
            vals.push(crate::wide::parse(part, w).map_err(|e| match e {
                crate::wide::ParseError::Syntax(_) => StimulusError::Number(excerpt(part)),
                crate::wide::ParseError::TooLarge { .. } => StimulusError::WideDoesNotFit {
                    text: excerpt(part),
                    ty: ty.to_string(),
                },
            })?);
            Ok(())
        })?;
        return Ok(TokenSource::Values(vals));
    }
    for_each_item(t, lenient, &source, |part| {
        let v = parse_number(part)?;
        check_fits(v, part, ty)?;
        vals.push(v as u64);
        Ok(())
    })?;
    Ok(TokenSource::Values(vals))
}

fn parse_float_list(
    t: &str,
    kind: crate::types::FloatKind,
    file: Option<&Path>,
) -> Result<TokenSource, StimulusError> {
    let mut vals = Vec::new();
    for_each_item(t, file.is_some(), &list_source(file), |p| {
        vals.push(crate::float::parse_float(p, kind)?);
        Ok(())
    })?;
    Ok(TokenSource::Values(vals))
}

/// Reads `@file`: a regular file of at most [`MAX_TOKEN_FILE_BYTES`] through
/// [`crate::input`] (a device such as `/dev/zero` or a FIFO would never end or never fill).
fn parse_file(path: &Path, ty: &Type) -> Result<TokenSource, StimulusError> {
    let text = crate::input::read_text_limited(path, MAX_TOKEN_FILE_BYTES).map_err(|e| {
        StimulusError::File {
            path: crate::quote::escape_controls(&path.display().to_string()).into_owned(),
            message: e.reason(),
        }
    })?;
    match ty.float_kind() {
        Some(kind) => parse_float_list(&text, kind, Some(path)),
        None => parse_list(&text, ty, Some(path)),
    }
}

/// When a result channel is ready.
#[derive(Clone, Debug, PartialEq)]
pub enum ReadyPolicy {
    /// Always ready.
    Always,
    /// Ready with probability `prob` per cycle, drawn from splitmix64 seeded with `seed`.
    Random {
        /// Seed of this result's generator.
        seed: u64,
        /// Probability of being ready in a cycle.
        prob: f64,
    },
    /// `pattern[cycle % len]`.
    Pattern(Vec<bool>),
}

impl ReadyPolicy {
    /// Parses `always`, `random:SEED:PROB` or `pattern:1101`.
    pub fn parse(text: &str) -> Result<ReadyPolicy, StimulusError> {
        let t = text.trim();
        let bad = || StimulusError::Policy(excerpt(t));
        if t == "always" {
            return Ok(ReadyPolicy::Always);
        }
        if let Some(rest) = t.strip_prefix("random:") {
            let (seed, prob) = rest.split_once(':').ok_or_else(bad)?;
            let seed = u64::try_from(parse_number(seed)?).map_err(|_| bad())?;
            let prob: f64 = prob.trim().parse().map_err(|_| bad())?;
            if !(0.0..=1.0).contains(&prob) {
                return Err(bad());
            }
            return Ok(ReadyPolicy::Random { seed, prob });
        }
        if let Some(bits) = t.strip_prefix("pattern:") {
            let p: Option<Vec<bool>> = bits
                .chars()
                .filter(|c| *c != '_')
                .map(|c| match c {
                    '1' => Some(true),
                    '0' => Some(false),
                    _ => None,
                })
                .collect();
            return match p {
                Some(p) if !p.is_empty() => Ok(ReadyPolicy::Pattern(p)),
                _ => Err(bad()),
            };
        }
        Err(bad())
    }

    /// The integer threshold `round(prob * 2^32)` clamped to `[0, 2^32]` used by `Random`.
    pub fn threshold(prob: f64) -> u64 {
        let t = (prob * 4_294_967_296.0).round();
        if t.is_nan() || t <= 0.0 {
            0
        } else if t >= 4_294_967_296.0 {
            1 << 32
        } else {
            t as u64
        }
    }

    /// True when the policy can ever be ready.
    pub fn can_be_ready(&self) -> bool {
        match self {
            ReadyPolicy::Always => true,
            ReadyPolicy::Random { prob, .. } => Self::threshold(*prob) > 0,
            ReadyPolicy::Pattern(p) => p.iter().any(|b| *b),
        }
    }
}

/// The splitmix64 generator (see the module documentation).
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    /// Current state.
    pub state: u64,
}

impl SplitMix64 {
    /// A generator with the given seed.
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// Next 64-bit output.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// Per-cycle evaluation of a [`ReadyPolicy`].
#[derive(Clone, Debug)]
pub struct ReadyGen {
    policy: ReadyPolicy,
    rng: SplitMix64,
    threshold: u64,
}

impl ReadyGen {
    /// Starts a policy at cycle 0.
    pub fn new(policy: ReadyPolicy) -> Self {
        let (seed, threshold) = match &policy {
            ReadyPolicy::Random { seed, prob } => (*seed, ReadyPolicy::threshold(*prob)),
            _ => (0, 0),
        };
        ReadyGen {
            policy,
            rng: SplitMix64::new(seed),
            threshold,
        }
    }

    /// Ready value for `cycle`; must be called once per cycle in order.
    #[inline]
    pub fn next(&mut self, cycle: u64) -> bool {
        match &self.policy {
            ReadyPolicy::Always => true,
            ReadyPolicy::Random { .. } => (self.rng.next() >> 32) < self.threshold,
            ReadyPolicy::Pattern(p) => p[(cycle % p.len() as u64) as usize],
        }
    }

    /// The policy.
    pub fn policy(&self) -> &ReadyPolicy {
        &self.policy
    }
}

/// Everything outside the function: stimulus, ready policies, external memory contents.
#[derive(Clone, Debug, PartialEq)]
pub struct Environment {
    /// Tokens per channel argument (by argument name); several sources are concatenated.
    /// An argument without an entry gets no tokens, except the last `none` argument, which
    /// gets one.
    pub inputs: BTreeMap<String, Vec<TokenSource>>,
    /// Ready policy per result (by result name); default [`ReadyPolicy::Always`].
    pub ready: BTreeMap<String, ReadyPolicy>,
    /// Initial contents per `extmemory` (by memref argument name); missing elements are 0.
    pub ext_memories: BTreeMap<String, Vec<u64>>,
    /// Initial contents per internal `memory` (by node ID); missing elements are 0.
    pub memories: BTreeMap<String, Vec<u64>>,
    /// Cycles without any transfer after which the run stops as deadlocked.
    pub deadlock_window: u64,
    /// Keep every output token in the report, up to
    /// [`MAX_ALL_OUTPUTS`](crate::engine::MAX_ALL_OUTPUTS) per result (then the first that
    /// many and the last [`KEPT_OUTPUTS`](crate::engine::KEPT_OUTPUTS)), instead of the
    /// first and last [`KEPT_OUTPUTS`](crate::engine::KEPT_OUTPUTS) per result; counts and
    /// checksums ([`RunReport::output_summaries`](crate::report::RunReport::output_summaries))
    /// always cover every token.
    pub keep_all_outputs: bool,
    /// The engine that simulates the cycles (default: interpret, compile once the run is
    /// long).
    pub engine: crate::engine::EngineKind,
}

impl Default for Environment {
    fn default() -> Self {
        Environment {
            inputs: BTreeMap::new(),
            ready: BTreeMap::new(),
            ext_memories: BTreeMap::new(),
            memories: BTreeMap::new(),
            deadlock_window: 16,
            keep_all_outputs: false,
            engine: crate::engine::EngineKind::Auto,
        }
    }
}

impl Environment {
    /// Adds tokens to argument `name` (appending to earlier ones).
    pub fn push_tokens(&mut self, name: impl Into<String>, src: TokenSource) -> &mut Self {
        self.inputs.entry(name.into()).or_default().push(src);
        self
    }

    /// Sets the ready policy of result `name`.
    pub fn set_ready(&mut self, name: impl Into<String>, p: ReadyPolicy) -> &mut Self {
        self.ready.insert(name.into(), p);
        self
    }
}

/// Initial contents of the internal `memory` nodes that the graph gives a `handshake.init`
/// attribute (`[v0, v1, ...]`, optionally typed `v : i32`: integers for integer memories, in
/// the stimulus float syntax of [`crate::float::parse_float`] for `f32`/`f64` memories), as bit
/// patterns by node ID: the shape of [`Environment::memories`].
pub fn graph_memory_inits(f: &Function) -> Result<BTreeMap<String, Vec<u64>>, SimError> {
    let mut out = BTreeMap::new();
    for n in f.nodes.values() {
        let Op::Memory { memref, .. } = &n.op else {
            continue;
        };
        let float = match memref.elem {
            crate::types::Type::Float(k) => Some(k),
            _ => None,
        };
        let Some((_, text)) = n.attrs.iter().find(|(k, _)| k == "handshake.init") else {
            continue;
        };
        let body = text.trim();
        let body = body
            .strip_prefix('[')
            .and_then(|b| b.strip_suffix(']'))
            .ok_or_else(|| SimError::Malformed {
                node: n.id.clone(),
                what: format!("`handshake.init = {text}` is not a list `[v0, v1, ...]`"),
            })?;
        let mut vals = Vec::new();
        for item in body.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let num = item.split(':').next().unwrap_or("").trim();
            // A float memory's contents are floats in `parse_float`'s syntax (`1.5`, `-nan`,
            // bit patterns `0x3fc00000`).
            if let Some(k) = float {
                let v = crate::float::parse_float(num, k).map_err(|e| SimError::Malformed {
                    node: n.id.clone(),
                    what: format!("`handshake.init`: `{item}`: {e}"),
                })?;
                vals.push(v);
                continue;
            }
            let width = memref.elem.bit_width();
            if crate::wide::is_wide(width) {
                let v = crate::wide::parse(num, width).map_err(|e| SimError::Malformed {
                    node: n.id.clone(),
                    what: format!("`handshake.init`: `{item}`: {e}"),
                })?;
                vals.push(v);
                continue;
            }
            let v = num.parse::<i128>().map_err(|_| SimError::Malformed {
                node: n.id.clone(),
                what: format!("`handshake.init`: `{item}` is not an integer"),
            })?;
            vals.push(v as u64);
        }
        out.insert(n.id.clone(), vals);
    }
    Ok(out)
}

/// The tokens argument `ai` of `f` gets in `env`: its stimulus, else one token for the last
/// `none` argument (the start control) and for arguments marked
/// [`FuncArg::one_token_by_default`](crate::graph::FuncArg::one_token_by_default), else none.
/// Testbenches generated for other simulators follow the same rule.
pub fn argument_tokens(f: &Function, env: &Environment, ai: usize) -> Vec<TokenSource> {
    let a = &f.args[ai];
    if let Some(s) = env.inputs.get(&a.name) {
        return s.clone();
    }
    let last_none = f.args.iter().rposition(|a| {
        matches!(
            &a.ty,
            crate::graph::ArgType::Channel(crate::types::Type::None)
        )
    });
    if Some(ai) == last_none || a.one_token_by_default {
        vec![TokenSource::None(1)]
    } else {
        Vec::new()
    }
}

/// Runtime cursor over one argument's tokens.
#[derive(Clone, Debug)]
pub(crate) struct ArgCursor {
    /// The first cycle a token is offered.
    from: u64,
    sources: std::sync::Arc<[TokenSource]>,
    src: usize,
    off: u64,
    mask: u64,
    width: u32,
}

impl ArgCursor {
    #[cfg(test)]
    pub(crate) fn new(sources: Vec<TokenSource>, ty: &Type) -> Self {
        Self::offered_from(sources, ty, 0)
    }

    /// A cursor that offers nothing before cycle `from`.
    pub(crate) fn offered_from(sources: Vec<TokenSource>, ty: &Type, from: u64) -> Self {
        let mut c = ArgCursor {
            from,
            sources: sources.into(),
            src: 0,
            off: 0,
            mask: width_mask(ty.bit_width()),
            width: ty.bit_width(),
        };
        c.skip_empty();
        c
    }

    fn skip_empty(&mut self) {
        while self.src < self.sources.len() && self.off >= self.sources[self.src].len() {
            self.src += 1;
            self.off = 0;
        }
    }

    /// The current token (masked; a word for a wide argument), if any.
    #[inline]
    pub(crate) fn peek(&self) -> Option<u64> {
        let s = self.sources.get(self.src)?;
        Some(if crate::wide::is_wide(self.width) {
            s.word(self.off, self.width)
        } else {
            s.get(self.off) & self.mask
        })
    }

    /// The first cycle a token may be offered in.
    pub(crate) fn first_cycle(&self) -> u64 {
        self.from
    }

    /// The token offered in `cycle` (none before the argument's first cycle).
    #[inline]
    pub(crate) fn offered(&self, cycle: u64) -> Option<u64> {
        if cycle < self.from {
            return None;
        }
        self.peek()
    }

    /// Consumes the current token.
    #[inline]
    pub(crate) fn advance(&mut self) {
        self.off += 1;
        self.skip_empty();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 36: a 500 MB `@file` of zeros took 6.8 GB and more (every item collected as a
    /// string slice, then as a word). Items are read one by one and the one past
    /// [`MAX_TOKENS`] is an error naming the file, line and column.
    #[test]
    fn token_files_hold_at_most_max_tokens() {
        let path = std::env::temp_dir().join(format!("hs-stim-many-{}", std::process::id()));
        let n = MAX_TOKENS as usize;
        let mut text = "0 ".repeat(n);
        text.push_str("\n1 2\n");
        std::fs::write(&path, &text).unwrap();
        let e = TokenSource::parse(&format!("@{}", path.display()), &Type::Int(8)).unwrap_err();
        std::fs::remove_file(&path).ok();
        assert_eq!(
            e,
            StimulusError::TooManyTokens {
                list: format!("`@{}`", path.display()),
                line: 2,
                col: 1
            }
        );
        assert!(
            e.to_string().ends_with(
                "holds more than 33,554,432 values (value 33,554,433 starts at line 2, column 1); the limit is 33,554,432"
            ),
            "{e}"
        );
        // Exactly the limit is read.
        text.truncate(2 * n);
        let t = parse_list(&text, &Type::Int(8), Some(Path::new("f"))).unwrap();
        assert_eq!(t.len(), MAX_TOKENS);
    }

    #[test]
    fn parses_cli_syntax() {
        let i8t = Type::Int(8);
        let i16t = Type::Int(16);
        assert_eq!(
            TokenSource::parse("1, 2,-3", &i8t).unwrap(),
            TokenSource::Values(vec![1, 2, (-3i64) as u64])
        );
        assert_eq!(
            TokenSource::parse("0..1000", &i16t).unwrap(),
            TokenSource::Range {
                start: 0,
                end: 1000
            }
        );
        assert_eq!(TokenSource::parse("-2..0x2", &i8t).unwrap().len(), 4);
        assert_eq!(
            TokenSource::parse("none", &Type::None).unwrap(),
            TokenSource::None(1)
        );
        assert_eq!(
            TokenSource::parse("5", &Type::None).unwrap(),
            TokenSource::None(5)
        );
        assert!(TokenSource::parse("1,x", &i8t).is_err());
        let dir = std::env::temp_dir().join(format!("hs-stim-{}", std::process::id()));
        std::fs::write(&dir, "1 0x10,\n -1\t7").unwrap();
        let t = TokenSource::parse(&format!("@{}", dir.display()), &i8t).unwrap();
        std::fs::remove_file(&dir).ok();
        assert_eq!(t, TokenSource::Values(vec![1, 16, u64::MAX, 7]));
        assert!(TokenSource::parse("@/nonexistent/x", &i8t).is_err());
    }

    #[test]
    fn rejects_values_outside_the_type_and_empty_lists() {
        let i16t = Type::Int(16);
        assert!(matches!(
            TokenSource::parse("70000", &i16t),
            Err(StimulusError::DoesNotFit {
                min: -32768,
                max: 65535,
                ..
            })
        ));
        assert!(TokenSource::parse("-32768,65535", &i16t).is_ok());
        assert!(TokenSource::parse("-32769", &i16t).is_err());
        assert!(TokenSource::parse("0..65537", &i16t).is_err());
        assert!(TokenSource::parse("0..65536", &i16t).is_ok());
        assert!(TokenSource::parse("4294967296", &Type::Int(32)).is_err());
        assert!(TokenSource::parse("-1,18446744073709551615", &Type::Index).is_ok());
        assert!(TokenSource::parse("2", &Type::Int(1)).is_err());
        assert_eq!(TokenSource::parse(" ", &i16t), Err(StimulusError::Empty));
        assert!(matches!(
            TokenSource::parse("1,,2", &i16t),
            Err(StimulusError::EmptyItem(_))
        ));
        assert!(matches!(
            TokenSource::parse(",1", &i16t),
            Err(StimulusError::EmptyItem(_))
        ));
        assert!(matches!(
            TokenSource::parse("10..0", &i16t),
            Err(StimulusError::EmptyRange(_))
        ));
        assert!(matches!(
            TokenSource::parse("3..3", &i16t),
            Err(StimulusError::EmptyRange(_))
        ));
        // A file may end with a comma, not hold an empty item inside.
        let path = std::env::temp_dir().join(format!("hs-stim-e-{}", std::process::id()));
        std::fs::write(&path, "1, 2,\n").unwrap();
        let arg = format!("@{}", path.display());
        assert_eq!(
            TokenSource::parse(&arg, &i16t).unwrap(),
            TokenSource::Values(vec![1, 2])
        );
        std::fs::write(&path, "1,,2\n").unwrap();
        assert!(TokenSource::parse(&arg, &i16t).is_err());
        std::fs::remove_file(&path).ok();
        for dev in ["/dev/zero", "/dev/null"] {
            if Path::new(dev).exists() {
                let e = TokenSource::parse(&format!("@{dev}"), &i16t).unwrap_err();
                assert!(e.to_string().contains("not a regular file"), "{e}");
            }
        }
    }

    #[test]
    fn parses_floats_for_float_arguments() {
        let f32t = Type::Float(crate::types::FloatKind::F32);
        let f64t = Type::Float(crate::types::FloatKind::F64);
        assert_eq!(
            TokenSource::parse("1.5,-2e-3, inf,nan,-0,0x3fc00000", &f32t).unwrap(),
            TokenSource::Values(vec![
                0x3fc0_0000,
                u64::from((-2e-3f32).to_bits()),
                0x7f80_0000,
                0x7fc0_0000,
                0x8000_0000,
                0x3fc0_0000
            ])
        );
        assert_eq!(
            TokenSource::parse("0.1", &f64t).unwrap(),
            TokenSource::Values(vec![0.1f64.to_bits()])
        );
        assert!(matches!(
            TokenSource::parse("1.5,x", &f32t),
            Err(StimulusError::Float(_))
        ));
        assert!(matches!(
            TokenSource::parse("0..4", &f32t),
            Err(StimulusError::FloatRange(_))
        ));
        let path = std::env::temp_dir().join(format!("hs-stim-f-{}", std::process::id()));
        std::fs::write(&path, "1.5\n-nan nan(0x7fc00001)\n").unwrap();
        let t = TokenSource::parse(&format!("@{}", path.display()), &f32t).unwrap();
        std::fs::remove_file(&path).ok();
        assert_eq!(
            t,
            TokenSource::Values(vec![0x3fc0_0000, 0xffc0_0000, 0x7fc0_0001])
        );
    }

    #[test]
    fn cursor_masks_and_concatenates() {
        let mut c = ArgCursor::new(
            vec![
                TokenSource::Values(vec![(-3i64) as u64]),
                TokenSource::Values(vec![]),
                TokenSource::Range {
                    start: 254,
                    end: 257,
                },
            ],
            &Type::Int(8),
        );
        let mut got = Vec::new();
        while let Some(v) = c.peek() {
            got.push(v);
            c.advance();
        }
        assert_eq!(got, vec![0xfd, 254, 255, 0]);
        assert_eq!(got.len(), 4);
    }

    #[test]
    fn policies() {
        assert_eq!(ReadyPolicy::parse("always").unwrap(), ReadyPolicy::Always);
        assert_eq!(
            ReadyPolicy::parse("pattern:1101").unwrap(),
            ReadyPolicy::Pattern(vec![true, true, false, true])
        );
        assert_eq!(
            ReadyPolicy::parse("random:42:0.5").unwrap(),
            ReadyPolicy::Random {
                seed: 42,
                prob: 0.5
            }
        );
        assert!(ReadyPolicy::parse("random:1:2").is_err());
        assert!(ReadyPolicy::parse("pattern:").is_err());
        assert_eq!(ReadyPolicy::threshold(0.5), 1 << 31);
        assert_eq!(ReadyPolicy::threshold(1.0), 1 << 32);
        // splitmix64 reference value for seed 0 (first output).
        assert_eq!(SplitMix64::new(0).next(), 0xE220_A839_7B1D_CDAF);
        let mut g = ReadyGen::new(ReadyPolicy::Random {
            seed: 7,
            prob: 0.25,
        });
        let n = (0..10_000).filter(|&c| g.next(c)).count();
        assert!((2200..2800).contains(&n), "{n}");
        let mut p = ReadyGen::new(ReadyPolicy::Pattern(vec![true, false, false]));
        let v: Vec<bool> = (0..6).map(|c| p.next(c)).collect();
        assert_eq!(v, [true, false, false, true, false, false]);
    }
}
