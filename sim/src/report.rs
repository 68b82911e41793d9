//! The result of a run: status, outputs, memories, deadlock analysis, events and statistics.
//!
//! JSON rendering of data values: `iN` with `N > 1` and `index` are printed as signed
//! two's-complement numbers, `i1` as 0/1, `i0` as 0, tuples as their unsigned bit pattern,
//! `none` as `null`, `f32`/`f64` as [`crate::float::FloatValue`] does (a number when finite,
//! else `"inf"`, `"-inf"`, `"nan"`, `"-nan"` or `"nan(0x...)"`). Values of types wider than
//! 64 bits are JSON strings of their decimal value (signed for `iN`, unsigned for tuples),
//! since JSON numbers above 2^53 are not portable. [`OutputToken::bits`] keeps the raw unsigned pattern.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use crate::deadlock::DeadlockReport;
use crate::engine::arith::sext;
use crate::types::Type;

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Every result produced one token per invocation.
    Done,
    /// Nothing could move any more before the results were complete.
    Deadlock,
    /// The cycle limit was reached first.
    MaxCycles,
    /// The user stopped the run (Ctrl-C) first; the report covers the cycles simulated.
    Interrupted,
}

impl Status {
    /// The JSON spelling (`done`, `deadlock`, `max-cycles`, `interrupted`).
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Done => "done",
            Status::Deadlock => "deadlock",
            Status::MaxCycles => "max-cycles",
            Status::Interrupted => "interrupted",
        }
    }
}

/// A data value rendered for people and JSON.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Value {
    /// A value of a type wider than 64 bits, in decimal (a JSON string).
    Wide(String),
    /// Signed interpretation (`iN`, `N > 1`, and `index`).
    Signed(i64),
    /// Unsigned interpretation (`i1`, `i0`, tuples).
    Unsigned(u64),
    /// A float (`f32`, `f64`), printed in its shortest round-trip form.
    Float(crate::float::FloatValue),
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Signed(v) => write!(f, "{v}"),
            Value::Unsigned(v) => write!(f, "{v}"),
            Value::Float(v) => write!(f, "{v}"),
            Value::Wide(v) => write!(f, "{v}"),
        }
    }
}

/// Renders bit pattern `bits` of type `ty` (see the module documentation); `None` for `none`.
pub fn render_value(bits: u64, ty: &Type) -> Option<Value> {
    match ty {
        Type::None => None,
        Type::Int(w) if crate::wide::is_wide(u32::from(*w)) => Some(Value::Wide(
            crate::wide::to_decimal(bits, u32::from(*w), true),
        )),
        Type::Tuple(_) if crate::wide::is_wide(ty.bit_width()) => Some(Value::Wide(
            crate::wide::to_decimal(bits, ty.bit_width(), false),
        )),
        Type::Int(w) if *w > 1 => Some(Value::Signed(sext(bits, u32::from(*w)))),
        Type::Index => Some(Value::Signed(bits as i64)),
        Type::Float(kind) => Some(Value::Float(crate::float::FloatValue {
            kind: *kind,
            bits: bits & ty.mask(),
        })),
        _ => Some(Value::Unsigned(bits)),
    }
}

/// Like [`render_value`], but a multi-bit integer the source declares unsigned (see
/// [`crate::graph::UNSIGNED_ATTR`]) is printed as its unsigned value.
pub fn render_value_as(bits: u64, ty: &Type, unsigned: bool) -> Option<Value> {
    match ty {
        Type::Int(w) if unsigned && crate::wide::is_wide(u32::from(*w)) => Some(Value::Wide(
            crate::wide::to_decimal(bits, u32::from(*w), false),
        )),
        Type::Int(w) if unsigned && *w > 1 => Some(Value::Unsigned(bits & ty.mask())),
        _ => render_value(bits, ty),
    }
}

/// The signed two's-complement reading of the low `width` bits of `bits`.
pub fn signed_value(bits: u64, width: u32) -> i64 {
    sext(bits, width)
}

/// One token produced on a result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OutputToken {
    /// Cycle in which it was transferred.
    pub cycle: u64,
    /// Rendered value (`null` for `none`).
    pub value: Option<Value>,
    /// Raw unsigned bit pattern.
    #[serde(skip)]
    pub bits: u64,
}

/// A running checksum of a token sequence: 64-bit FNV-1a over each token's raw bit pattern
/// as 8 little-endian bytes (a value wider than 64 bits: its `ceil(width / 64)` limbs, least
/// significant first, 8 bytes each), in order (the same values in the same order give the same
/// checksum whatever the cycles, so two runs of a kernel under different timing or ready
/// policies can be compared by it). Serialized as `0x` and 16 hex digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenChecksum(pub u64);

impl Default for TokenChecksum {
    fn default() -> Self {
        TokenChecksum(0xcbf2_9ce4_8422_2325)
    }
}

impl TokenChecksum {
    /// Adds one token's bits.
    #[inline]
    pub fn add(&mut self, bits: u64) {
        for b in bits.to_le_bytes() {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    /// The checksum of `bits`, in order.
    pub fn of(bits: impl IntoIterator<Item = u64>) -> TokenChecksum {
        let mut c = TokenChecksum::default();
        for b in bits {
            c.add(b);
        }
        c
    }
}

impl std::fmt::Display for TokenChecksum {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "0x{:016x}", self.0)
    }
}

impl Serialize for TokenChecksum {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Every token a result gave, summarized: kept even when the token list is cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct OutputSummary {
    /// How many tokens.
    pub count: u64,
    /// Checksum of all of them ([`TokenChecksum`]).
    pub checksum: TokenChecksum,
}

/// How much of the output token lists a text report prints.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OutputDetail {
    /// Lists longer than [`SUMMARY_ABOVE`] tokens print as their count, checksum, and first
    /// and last [`SUMMARY_ENDS`] tokens.
    #[default]
    Summary,
    /// Every token the report holds.
    All,
}

/// Token lists up to this length print in full in a [`OutputDetail::Summary`] report.
pub const SUMMARY_ABOVE: usize = 32;
/// Tokens a summarized list prints at each end.
pub const SUMMARY_ENDS: usize = 8;

/// Transfer statistics of one channel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ChannelStats {
    /// Cycles with `valid & ready`.
    pub fires: u64,
    /// Cycles with `valid & !ready`.
    pub stall_cycles: u64,
    /// Cycles with `ready & !valid`.
    pub accept_cycles: u64,
}

/// Kind of a runtime event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EventKind {
    /// A division or remainder by zero fired (its result is 0).
    DivisionByZero,
    /// A combinational cycle did not settle within the iteration bound.
    NoConvergence,
    /// A merge or control_merge chose between several valid inputs.
    Nondeterminism,
    /// A mux's select offered a value outside `0..N` (reported once per mux): only its low
    /// `ceil(log2 N)` bits count, as in CIRCT's RTL.
    SelectOutOfRange,
    /// A memory port received an address past the memory's last element: only the low
    /// `ceil(log2 size)` address bits count, as in CIRCT's RTL, and an element that still
    /// does not exist reads as 0 and is not written.
    AddressOutOfRange,
    /// Several groups of a Dynamatic load-store queue were allocated in one cycle (reported
    /// once per queue): its RTL takes every group token and allocates the bitwise OR of their
    /// counts, ports and orders, as Handscope does; Dynamatic's newer RTL asserts against it.
    LsqGroupsTogether,
    /// Further events were dropped (limit reached).
    Truncated,
}

/// Something noteworthy that happened during the run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RuntimeEvent {
    /// Cycle.
    pub cycle: u64,
    /// Stable ID of the node.
    pub node: String,
    /// What happened.
    pub kind: EventKind,
    /// Details in words.
    pub message: String,
}

/// The outcome of [`Simulation::run`](crate::engine::Simulation::run).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunReport {
    /// How the run ended.
    pub status: Status,
    /// Number of simulated cycles.
    pub cycles: u64,
    /// Tokens per result name: all of them, or for a result that gave more than
    /// 2 x [`crate::engine::KEPT_OUTPUTS`] the first and the last that many (memory stays
    /// bounded on long runs), with the count in between in `omitted_outputs`. A run that
    /// keeps every token keeps at most [`crate::engine::MAX_ALL_OUTPUTS`] first ones and
    /// the last [`crate::engine::KEPT_OUTPUTS`].
    pub outputs: BTreeMap<String, Vec<OutputToken>>,
    /// Per result whose token list is cut: how many tokens between its first and last
    /// kept ones are left out (absent when none is).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub omitted_outputs: BTreeMap<String, u64>,
    /// Per result: how many tokens it gave in all and their checksum.
    pub output_summaries: BTreeMap<String, OutputSummary>,
    /// Per stream result (see [`crate::stream`]): its streams, each its elements and where
    /// it ended (absent for functions without streams).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub streams: BTreeMap<String, Vec<crate::stream::StreamRun>>,
    /// Final contents per memory (node ID) and external memory (argument name).
    pub memories: BTreeMap<String, Vec<Value>>,
    /// Deadlock analysis when `status` is `deadlock`.
    pub deadlock: Option<DeadlockReport>,
    /// Runtime events in cycle order.
    pub events: Vec<RuntimeEvent>,
    /// Per channel name.
    pub stats: BTreeMap<String, ChannelStats>,
    /// How a `done` run ended when not every result got one token per invocation: the
    /// circuit drained (every input token consumed, no token left anywhere), as a streaming
    /// circuit or a `cond_br` routing some tokens away from the results does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drained: Option<String>,
    /// The timing profile the circuit ran under, when not `ideal` (set by the caller that
    /// applied it, e.g. `handscope sim --timing fpga`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timing: Option<String>,
}

impl RunReport {
    /// Cuts every result's token list to its first and last `ends` tokens, counting the
    /// ones left out in [`RunReport::omitted_outputs`] (a short JSON report of a long run).
    pub fn cut_outputs(&mut self, ends: usize) {
        for (name, toks) in &mut self.outputs {
            if toks.len() > 2 * ends {
                let cut = toks.len() - 2 * ends;
                toks.drain(ends..toks.len() - ends);
                *self.omitted_outputs.entry(name.clone()).or_insert(0) += cut as u64;
            }
        }
    }
}

/// A compact human-readable rendering of a report; long token lists are summarized
/// ([`OutputDetail::Summary`]).
pub fn render_human(r: &RunReport) -> String {
    render_human_with(r, OutputDetail::Summary)
}

/// A human-readable rendering of a report, printing output tokens as `detail` says.
pub fn render_human_with(r: &RunReport, detail: OutputDetail) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "status: {} after {} cycles", r.status.as_str(), r.cycles);
    if let Some(t) = &r.timing {
        let _ = writeln!(s, "  timing: {t}");
    }
    if let Some(d) = &r.drained {
        let _ = writeln!(s, "  drained: {d}");
    }
    for (name, runs) in &r.streams {
        s.push_str(&crate::stream::render_streams(name, runs));
    }
    for (name, toks) in &r.outputs {
        if r.streams.contains_key(name) {
            continue;
        }
        let token = |t: &OutputToken| match &t.value {
            Some(v) => format!("{v}@{}", t.cycle),
            None => format!("token@{}", t.cycle),
        };
        let omitted = r.omitted_outputs.get(name).copied().unwrap_or(0);
        let summary = r.output_summaries.get(name);
        let total = summary.map_or(toks.len() as u64 + omitted, |m| m.count);
        if detail == OutputDetail::Summary && total > SUMMARY_ABOVE as u64 {
            let first: Vec<String> = toks.iter().take(SUMMARY_ENDS).map(token).collect();
            let last: Vec<String> = toks[toks.len().saturating_sub(SUMMARY_ENDS)..]
                .iter()
                .map(token)
                .collect();
            let checksum = summary.map_or(String::new(), |m| format!(", checksum {}", m.checksum));
            let _ = writeln!(
                s,
                "  {name}: {total} tokens{checksum}: [{}, ..., {}] (--outputs all prints every token)",
                first.join(", "),
                last.join(", ")
            );
            continue;
        }
        let mut vals: Vec<String> = toks.iter().map(token).collect();
        if omitted > 0 {
            let at = vals.len() / 2;
            vals.insert(at, format!("... ({omitted} more tokens) ..."));
        }
        let _ = writeln!(s, "  {name}: [{}]", vals.join(", "));
    }
    for (name, vals) in &r.memories {
        const SHOW: usize = 16;
        let mut v: Vec<String> = vals.iter().take(SHOW).map(|v| v.to_string()).collect();
        if vals.len() > SHOW {
            v.push(format!("... ({} elements)", vals.len()));
        }
        let _ = writeln!(s, "  memory {name}: [{}]", v.join(", "));
    }
    for e in &r.events {
        let _ = writeln!(s, "  event cycle {} {}: {}", e.cycle, e.node, e.message);
    }
    if let Some(d) = &r.deadlock {
        let _ = write!(s, "{}", crate::deadlock::render(d));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_rendering() {
        assert_eq!(render_value(0xff, &Type::Int(8)), Some(Value::Signed(-1)));
        assert_eq!(render_value(1, &Type::Int(1)), Some(Value::Unsigned(1)));
        assert_eq!(
            render_value(u64::MAX, &Type::Index),
            Some(Value::Signed(-1))
        );
        assert_eq!(render_value(0, &Type::None), None);
        assert_eq!(signed_value(0x40, 7), -64);
        // Unsigned source types print unsigned; other types are unaffected by the flag.
        assert_eq!(
            render_value_as(0x8000, &Type::Int(16), true),
            Some(Value::Unsigned(32768))
        );
        assert_eq!(
            render_value_as(0x8000, &Type::Int(16), false),
            Some(Value::Signed(-32768))
        );
        assert_eq!(
            render_value_as(1, &Type::Int(1), true),
            Some(Value::Unsigned(1))
        );
        let mut f = crate::graph::Function::default();
        assert!(f.unsigned_names().is_empty());
        f.set_unsigned_names(["ret", "hist"]);
        assert_eq!(f.attrs.last().unwrap().1, "[\"ret\", \"hist\"]");
        let names: Vec<String> = f.unsigned_names().into_iter().collect();
        assert_eq!(names, ["hist", "ret"]);
        f.set_unsigned_names([]);
        assert!(f.attrs.is_empty());
    }
}
