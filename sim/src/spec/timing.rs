//! Timing profiles: how many cycles each timed unit takes, next to the rest of the spec.
//!
//! A profile gives every `arith`/`math` operation and every memory read port a [`Unit`]: a
//! latency (cycles from taking a token to offering its result) and an initiation interval
//! (cycles between two tokens it takes). Latency 0 is a combinational unit, exactly as CIRCT
//! 1.62's RTL builds it. [`crate::transform::timing::apply_timing`] puts a `pipeline` node
//! behind every unit with a latency (`docs/semantics.md` "Pipelined units"), so the engine, the
//! SystemVerilog back end, the debugger and the throughput model all see the latency as a
//! component of its own.
//!
//! A floating-point operation's unit depends on its format: [`Format`] says whether a node
//! computes in `f32` or `f64` ([`Format::of_node`]), and a profile may give the two formats
//! different units (the `fpga` profile does: an `f64` adder, multiplier or divider is deeper
//! than an `f32` one).
//!
//! Two profiles are built in ([`TimingProfile::ideal`], [`TimingProfile::fpga`]); a TOML file
//! ([`TimingProfile::from_toml`]) starts from one of them and overrides entries. The numbers of
//! `fpga` and where they come from are in `docs/timing.md`.
//!
//! The tables below match every [`ArithOp`] and every [`Op`] without a catch-all arm, so a new
//! operation is a compile error here until it is given a latency.

use std::collections::BTreeMap;

use crate::graph::{Function, NodeId};
use crate::ops::{ArithOp, Dialect, Op};
use crate::types::{FloatKind, Type};

/// The number format a timed unit computes in: what a floating-point unit's latency depends
/// on. Integer units have one format for every width ([`Format::Integer`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    /// Any integer unit.
    Integer,
    /// A floating-point unit of this format (for a conversion, the wider of its operand's and
    /// result's formats, `f32` for an integer–`f32` conversion).
    Float(FloatKind),
}

impl Format {
    /// The format node `n` computes in: for a floating-point `arith`/`math` op, `f64` when any
    /// of its channels carries `f64`, `f32` otherwise; [`Format::Integer`] for everything else.
    pub fn of_node(f: &Function, n: NodeId) -> Format {
        let node = &f.nodes[n];
        match &node.op {
            Op::Arith(a) if a.class().is_float() => {
                let f64_channel = node
                    .inputs
                    .iter()
                    .chain(&node.outputs)
                    .any(|&c| f.channels[c].ty == Type::Float(FloatKind::F64));
                Format::Float(if f64_channel {
                    FloatKind::F64
                } else {
                    FloatKind::F32
                })
            }
            _ => Format::Integer,
        }
    }

    /// The formats `a` can compute in.
    pub fn of_op(a: ArithOp) -> &'static [Format] {
        if a.class().is_float() {
            &[Format::Float(FloatKind::F32), Format::Float(FloatKind::F64)]
        } else {
            &[Format::Integer]
        }
    }
}

/// Latency and initiation interval of one unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Unit {
    /// Cycles from taking a token to offering the result (0: combinational).
    pub latency: u32,
    /// Cycles between two tokens the unit takes (at least 1).
    pub ii: u32,
}

impl Unit {
    /// A combinational unit (latency 0, one token per cycle).
    pub const COMB: Unit = Unit { latency: 0, ii: 1 };

    /// A fully pipelined unit of latency `latency` (one token per cycle).
    pub const fn pipelined(latency: u32) -> Unit {
        Unit { latency, ii: 1 }
    }
}

/// The built-in profiles a TOML file can start from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Base {
    /// Every unit combinational, memories answer in the cycle of the request (CIRCT 1.62).
    Ideal,
    /// Latencies in the range HLS tools report for FPGAs at 200–300 MHz (`docs/timing.md`).
    Fpga,
}

impl Base {
    /// The profile's name (`ideal`, `fpga`).
    pub fn name(self) -> &'static str {
        match self {
            Base::Ideal => "ideal",
            Base::Fpga => "fpga",
        }
    }

    /// Looks a built-in profile up by name.
    pub fn from_name(name: &str) -> Option<Base> {
        [Base::Ideal, Base::Fpga]
            .into_iter()
            .find(|b| b.name() == name)
    }

    /// The unit of `a` computing in `format` in this profile.
    pub fn arith(self, a: ArithOp, format: Format) -> Unit {
        match self {
            Base::Ideal => Unit::COMB,
            Base::Fpga => fpga_arith(a, format == Format::Float(FloatKind::F64)),
        }
    }

    /// Latency of a memory read port (cycles from `ldAddr` to `ldData`).
    pub fn memory_read(self) -> u32 {
        match self {
            Base::Ideal => 0,
            Base::Fpga => 1,
        }
    }
}

/// The `fpga` profile's table (sources and reasoning in `docs/timing.md`); `double`: the unit
/// computes in `f64`.
fn fpga_arith(a: ArithOp, double: bool) -> Unit {
    let by_format = |single: u32, double_latency: u32| {
        Unit::pipelined(if double { double_latency } else { single })
    };
    use ArithOp as A;
    match a {
        // Integer adders, logic, shifts, comparisons, selects and casts fit in one cycle at
        // 200-300 MHz and stay combinational.
        A::Addi
        | A::Subi
        | A::Andi
        | A::Ori
        | A::Xori
        | A::Noti
        | A::Shli
        | A::Shrsi
        | A::Shrui
        | A::Maxsi
        | A::Minsi
        | A::Maxui
        | A::Minui
        | A::Select
        | A::Extsi
        | A::Extui
        | A::Trunci
        | A::IndexCast
        | A::Cmpi(_) => Unit::COMB,
        // DSP multiplier.
        A::Muli => Unit::pipelined(4),
        // Radix-2 integer divider, one stage per quotient bit plus a few.
        A::Divsi | A::Divui | A::Remsi | A::Remui => Unit::pipelined(36),
        // Sign-bit operations are wires.
        A::Negf | A::Absf | A::Copysign => Unit::COMB,
        A::Addf | A::Subf => by_format(9, 12),
        A::Mulf => by_format(4, 6),
        // Digit recurrence: one stage per significand bit, 24 in f32 and 53 in f64.
        A::Divf | A::Remf => by_format(30, 59),
        A::Sqrt => by_format(28, 57),
        A::Math(f) => by_format(f.fpga_latency(false), f.fpga_latency(true)),
        A::Cmpf(_) => Unit::pipelined(1),
        A::Maximumf | A::Minimumf | A::Maxnumf | A::Minnumf => Unit::pipelined(1),
        A::Sitofp | A::Uitofp | A::Fptosi | A::Fptoui => by_format(4, 5),
        A::Extf | A::Truncf => Unit::pipelined(3),
    }
}

/// Which output of a node a timed unit drives, and its unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimedOutput {
    /// Output port.
    pub port: u32,
    /// Latency and initiation interval.
    pub unit: Unit,
}

/// A named timing profile: a built-in base plus overrides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimingProfile {
    name: String,
    base: Base,
    memory_read: u32,
    /// Overrides by qualified op name (`arith.addf`, `math.sqrt`) and format (`None`: every
    /// format of the op).
    ops: BTreeMap<(String, Option<Format>), Unit>,
    /// For Dynamatic's circuits (`--timing dynamatic[=FILE]`): the name and text of the
    /// `components.json` whose latency tables give their units' depths (`None`: the reader's
    /// built-in table). Circuits in CIRCT's dialect and C kernels ignore it.
    dynamatic_components: Option<(String, String)>,
}

impl Default for TimingProfile {
    fn default() -> Self {
        TimingProfile::ideal()
    }
}

impl TimingProfile {
    /// A built-in profile.
    pub fn builtin(base: Base) -> TimingProfile {
        TimingProfile {
            name: base.name().to_string(),
            base,
            memory_read: base.memory_read(),
            ops: BTreeMap::new(),
            dynamatic_components: None,
        }
    }

    /// The profile of Dynamatic's circuits (`--timing dynamatic[=FILE]`): nothing added to
    /// the graph (Dynamatic's units carry their own pipelines), the latencies of the
    /// `components.json` named `name` with text `text`, or the built-in table.
    pub fn dynamatic(components: Option<(String, String)>) -> TimingProfile {
        TimingProfile {
            name: "dynamatic".into(),
            dynamatic_components: components,
            ..TimingProfile::builtin(Base::Ideal)
        }
    }

    /// The `components.json` (name, text) of a [`TimingProfile::dynamatic`] profile.
    pub fn dynamatic_components(&self) -> Option<(&str, &str)> {
        self.dynamatic_components
            .as_ref()
            .map(|(n, t)| (n.as_str(), t.as_str()))
    }

    /// `ideal`: CIRCT 1.62's RTL, every unit combinational.
    pub fn ideal() -> TimingProfile {
        Self::builtin(Base::Ideal)
    }

    /// `fpga`: pipelined arithmetic and a 1-cycle memory read.
    pub fn fpga() -> TimingProfile {
        Self::builtin(Base::Fpga)
    }

    /// The profile's name (`ideal`, `fpga`, or the TOML file's `name`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The built-in profile it starts from.
    pub fn base(&self) -> Base {
        self.base
    }

    /// True when no unit has a latency (nothing to insert: the circuit runs as CIRCT's RTL).
    pub fn is_ideal(&self) -> bool {
        self.memory_read == 0
            && arith_ops().all(|a| {
                Format::of_op(a)
                    .iter()
                    .all(|&k| self.arith(a, k).latency == 0)
            })
    }

    /// The unit of arithmetic operation `a` computing in `format`: an override for that
    /// format, else one for every format, else the base profile's.
    pub fn arith(&self, a: ArithOp, format: Format) -> Unit {
        let name = a.qualified_name();
        self.ops
            .get(&(name.clone(), Some(format)))
            .or_else(|| self.ops.get(&(name, None)))
            .copied()
            .unwrap_or_else(|| self.base.arith(a, format))
    }

    /// Latency of a memory read port.
    pub fn memory_read(&self) -> u32 {
        self.memory_read
    }

    /// The timed outputs of node `n` of `f` (empty for untimed components): the result of an
    /// `arith` op (in the node's [`Format`]), the `ldData` outputs of a memory. Units with
    /// latency 0 are left out.
    pub fn timed_outputs_of(&self, f: &Function, n: NodeId) -> Vec<TimedOutput> {
        self.timed_outputs(&f.nodes[n].op, Format::of_node(f, n))
    }

    /// The timed outputs of a node with op `op` computing in `format` (see
    /// [`TimingProfile::timed_outputs_of`]).
    pub fn timed_outputs(&self, op: &Op, format: Format) -> Vec<TimedOutput> {
        let units: Vec<TimedOutput> = match op {
            Op::Arith(a) => vec![TimedOutput {
                port: 0,
                unit: self.arith(*a, format),
            }],
            Op::Memory { ld, .. } | Op::ExtMemory { ld, .. } => (0..*ld)
                .map(|port| TimedOutput {
                    port,
                    unit: Unit::pipelined(self.memory_read),
                })
                .collect(),
            // Control and structural components keep CIRCT's timing in every profile; a
            // `pipeline` is already the latency of a unit.
            Op::Argument { .. }
            | Op::Return
            | Op::Fork
            | Op::LazyFork
            | Op::Merge
            | Op::Mux
            | Op::ControlMerge
            | Op::CondBr
            | Op::Br
            | Op::Join
            | Op::Sync
            | Op::Pack
            | Op::Unpack
            | Op::Buffer { .. }
            | Op::DynBuffer { .. }
            | Op::DynPipeline { .. }
            | Op::DynCounterBuffer { .. }
            | Op::DynControlMerge
            | Op::DynSelect
            | Op::DynLoad
            | Op::DynStore
            | Op::DynMemController { .. }
            | Op::DynLsq { .. }
            | Op::AddrQueue { .. }
            | Op::Constant { .. }
            | Op::Source
            | Op::Sink
            | Op::Never
            | Op::Load
            | Op::Store
            | Op::Instance { .. }
            | Op::Island(_)
            | Op::Pipeline { .. } => Vec::new(),
        };
        units.into_iter().filter(|t| t.unit.latency > 0).collect()
    }

    /// Resolves `--timing` text: a built-in name, else TOML text read from a file (the caller
    /// reads it; `source` names it in errors).
    pub fn from_toml(text: &str, source: &str) -> Result<TimingProfile, TimingError> {
        toml_file::parse(text, source)
    }

    /// The profile as a table, one row per arithmetic operation and format (qualified name,
    /// with `:f32`/`:f64` for floating-point operations, and unit), then the memory read
    /// latency: what `docs/timing.md` lists and `--timing` help prints.
    pub fn table(&self) -> Vec<(String, Unit)> {
        let mut rows: Vec<(String, Unit)> = arith_ops()
            .flat_map(|a| Format::of_op(a).iter().map(move |&k| (a, k)))
            .map(|(a, k)| (format_key(&a.qualified_name(), k), self.arith(a, k)))
            .collect();
        rows.dedup_by(|a, b| a.0 == b.0);
        rows.push(("memory read".into(), Unit::pipelined(self.memory_read)));
        rows
    }
}

/// Every arithmetic operation once (`cmpi`/`cmpf` with one predicate each: the profile has one
/// entry per mnemonic).
fn arith_ops() -> impl Iterator<Item = ArithOp> {
    ArithOp::named().map(|(a, _)| a).chain([
        ArithOp::Cmpi(crate::ops::CmpPredicate::Eq),
        ArithOp::Cmpf(crate::ops::FloatPredicate::Oeq),
    ])
}

/// An operation's name in a profile, with its format for a floating-point one (`arith.addf:f64`).
fn format_key(name: &str, format: Format) -> String {
    match format {
        Format::Integer => name.to_string(),
        Format::Float(k) => format!("{name}:{}", k.name()),
    }
}

/// Looks an operation up by the name a profile file uses: `addf`, `arith.addf`, `sqrt`,
/// `math.sqrt`, `cmpi`, `cmpf`.
fn op_by_name(name: &str) -> Option<ArithOp> {
    let (dialect, m) = match name.split_once('.') {
        Some(("arith", m)) => (Some(Dialect::Arith), m),
        Some(("math", m)) => (Some(Dialect::Math), m),
        Some(_) => return None,
        None => (None, name),
    };
    arith_ops().find(|a| a.mnemonic() == m && dialect.is_none_or(|d| a.dialect() == d))
}

/// A bad timing profile: unknown name, unreadable TOML, a bad entry. `line`/`column` (1-based)
/// locate it in the file when known.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{source_name}{}: {message}", location(*line, *column))]
pub struct TimingError {
    /// The file (or `--timing` text) the profile came from.
    pub source_name: String,
    /// 1-based line, when the error has a place in the file.
    pub line: Option<usize>,
    /// 1-based column.
    pub column: Option<usize>,
    /// What is wrong.
    pub message: String,
}

fn location(line: Option<usize>, column: Option<usize>) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!(":{l}:{c}"),
        (Some(l), None) => format!(":{l}"),
        _ => String::new(),
    }
}

mod toml_file {
    //! The TOML format of a user profile (`docs/timing.md`):
    //!
    //! ```toml
    //! name = "slow-divider"     # optional; default: the base's name
    //! base = "fpga"             # "ideal" (default) or "fpga"
    //! memory_read = 2           # optional: cycles of a memory read
    //! [ops]
    //! divf = 16                 # latency, one token per cycle
    //! "math.sqrt" = { latency = 20, ii = 4 }
    //! "addf:f64" = 14           # only the f64 adders
    //! ```

    use std::collections::BTreeMap;

    use serde::Deserialize;
    use toml::Spanned;

    use super::{Base, Format, TimingError, TimingProfile, Unit, op_by_name};
    use crate::types::FloatKind;

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct File {
        name: Option<String>,
        base: Option<Spanned<String>>,
        memory_read: Option<Spanned<i64>>,
        #[serde(default)]
        ops: BTreeMap<Spanned<String>, Spanned<Entry>>,
    }

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Entry {
        Latency(i64),
        Unit {
            latency: i64,
            #[serde(default = "one")]
            ii: i64,
        },
    }

    fn one() -> i64 {
        1
    }

    /// 1-based line and column of byte `offset` in `text`.
    fn line_col(text: &str, offset: usize) -> (usize, usize) {
        let before = &text[..offset.min(text.len())];
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        (line, col)
    }

    pub(super) fn parse(text: &str, source: &str) -> Result<TimingProfile, TimingError> {
        let err = |span: Option<std::ops::Range<usize>>, message: String| {
            let (line, column) = match span {
                Some(s) => {
                    let (l, c) = line_col(text, s.start);
                    (Some(l), Some(c))
                }
                None => (None, None),
            };
            TimingError {
                source_name: source.to_string(),
                line,
                column,
                message,
            }
        };
        let file: File = toml::from_str(text).map_err(|e| err(e.span(), e.message().into()))?;
        let base = match &file.base {
            None => Base::Ideal,
            Some(b) => Base::from_name(b.get_ref()).ok_or_else(|| {
                err(
                    Some(b.span()),
                    format!(
                        "unknown base profile `{}`: the built-in profiles are `ideal` and `fpga`",
                        b.get_ref()
                    ),
                )
            })?,
        };
        let cycles = |v: i64, span: std::ops::Range<usize>, what: &str, min: i64| {
            u32::try_from(v)
                .ok()
                .filter(|&x| i64::from(x) >= min && x <= crate::limits::MAX_LATENCY)
                .ok_or_else(|| {
                    err(
                        Some(span),
                        format!(
                            "{what} must be between {min} and {} cycles, found {v}",
                            crate::limits::MAX_LATENCY
                        ),
                    )
                })
        };
        let mut p = TimingProfile::builtin(base);
        if let Some(n) = file.name {
            p.name = n;
        }
        if let Some(m) = &file.memory_read {
            p.memory_read = cycles(*m.get_ref(), m.span(), "`memory_read`", 0)?;
        }
        for (key, entry) in &file.ops {
            let (name, format) = match key.get_ref().rsplit_once(':') {
                Some((name, f)) => match FloatKind::ALL.into_iter().find(|k| k.name() == f) {
                    Some(k) => (name, Some(Format::Float(k))),
                    None => {
                        return Err(err(
                            Some(key.span()),
                            format!(
                                "`{}`: the format after `:` is `f32` or `f64`, found `{f}`",
                                key.get_ref()
                            ),
                        ));
                    }
                },
                None => (key.get_ref().as_str(), None),
            };
            let Some(op) = op_by_name(name) else {
                return Err(err(
                    Some(key.span()),
                    format!(
                        "`{}` is not an arith or math operation (e.g. `addf`, `math.sqrt`, `cmpi`, `addf:f64`)",
                        key.get_ref()
                    ),
                ));
            };
            if format.is_some() && !op.class().is_float() {
                return Err(err(
                    Some(key.span()),
                    format!(
                        "`{}`: only floating-point operations have a latency per format",
                        key.get_ref()
                    ),
                ));
            }
            let (lat, ii) = match entry.get_ref() {
                Entry::Latency(l) => (*l, 1),
                Entry::Unit { latency, ii } => (*latency, *ii),
            };
            let latency = cycles(lat, entry.span(), "a latency", 0)?;
            let ii = cycles(ii, entry.span(), "an initiation interval", 1)?;
            if latency == 0 && ii > 1 {
                return Err(err(
                    Some(entry.span()),
                    format!(
                        "`{}`: a combinational unit (latency 0) takes a token every cycle; give it a latency to set an initiation interval",
                        key.get_ref()
                    ),
                ));
            }
            p.ops
                .insert((op.qualified_name(), format), Unit { latency, ii });
        }
        Ok(p)
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::ops::ArithOp;

        #[test]
        fn reads_overrides_on_a_base() {
            let p = parse(
                "name = \"mine\"\nbase = \"fpga\"\nmemory_read = 2\n[ops]\ndivf = 16\n\"math.sqrt\" = { latency = 20, ii = 4 }\n",
                "mine.toml",
            )
            .unwrap();
            assert_eq!(p.name(), "mine");
            assert_eq!(p.memory_read(), 2);
            for k in FloatKind::ALL {
                let k = Format::Float(k);
                assert_eq!(p.arith(ArithOp::Divf, k), Unit::pipelined(16));
                assert_eq!(p.arith(ArithOp::Sqrt, k), Unit { latency: 20, ii: 4 });
            }
            assert_eq!(p.arith(ArithOp::Mulf, F32), Unit::pipelined(4));
            assert_eq!(p.arith(ArithOp::Mulf, F64), Unit::pipelined(6));
        }

        const F32: Format = Format::Float(FloatKind::F32);
        const F64: Format = Format::Float(FloatKind::F64);

        #[test]
        fn a_format_suffix_overrides_one_format_and_wins_over_the_plain_name() {
            let p = parse(
                "base = \"fpga\"\n[ops]\n\"arith.addf:f64\" = 14\naddf = 7\n\"mulf:f32\" = { latency = 2, ii = 2 }\n",
                "p.toml",
            )
            .unwrap();
            assert_eq!(p.arith(ArithOp::Addf, F64), Unit::pipelined(14));
            assert_eq!(p.arith(ArithOp::Addf, F32), Unit::pipelined(7));
            assert_eq!(p.arith(ArithOp::Mulf, F32), Unit { latency: 2, ii: 2 });
            assert_eq!(p.arith(ArithOp::Mulf, F64), Unit::pipelined(6));
            let e = parse("[ops]\n\"muli:f64\" = 3\n", "p.toml").unwrap_err();
            assert_eq!((e.line, e.column), (Some(2), Some(1)), "{e}");
            assert!(e.message.contains("only floating-point operations"), "{e}");
            let e = parse("[ops]\n\"addf:f16\" = 3\n", "p.toml").unwrap_err();
            assert!(e.message.contains("`f32` or `f64`, found `f16`"), "{e}");
        }

        #[test]
        fn errors_name_line_and_column() {
            let e = parse("[ops]\naddf = 3\nfrobf = 2\n", "p.toml").unwrap_err();
            assert_eq!((e.line, e.column), (Some(3), Some(1)));
            assert!(e.to_string().starts_with("p.toml:3:1: `frobf`"), "{e}");
            let e = parse("[ops]\naddf = -3\n", "p.toml").unwrap_err();
            assert_eq!((e.line, e.column), (Some(2), Some(8)), "{e}");
            let e = parse("base = \"asic\"\n", "p.toml").unwrap_err();
            assert_eq!(e.line, Some(1));
            assert!(e.message.contains("`ideal` and `fpga`"));
            let e = parse("latency = 3\n", "p.toml").unwrap_err();
            assert_eq!(e.line, Some(1), "{e}");
            let e = parse("[ops\n", "p.toml").unwrap_err();
            assert!(e.line.is_some(), "{e}");
            let e = parse("[ops]\naddi = { latency = 0, ii = 2 }\n", "p.toml").unwrap_err();
            assert!(e.message.contains("combinational"), "{e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ideal_times_nothing_and_fpga_pipelines_floats_and_reads() {
        let ideal = TimingProfile::ideal();
        assert!(ideal.is_ideal());
        let (f32k, f64k) = (Format::Float(FloatKind::F32), Format::Float(FloatKind::F64));
        assert!(
            ideal
                .timed_outputs(&Op::Arith(ArithOp::Divf), f64k)
                .is_empty()
        );
        let fpga = TimingProfile::fpga();
        assert!(!fpga.is_ideal());
        for (format, latency) in [(f32k, 9), (f64k, 12)] {
            assert_eq!(
                fpga.timed_outputs(&Op::Arith(ArithOp::Addf), format),
                vec![TimedOutput {
                    port: 0,
                    unit: Unit::pipelined(latency)
                }]
            );
        }
        assert!(
            fpga.timed_outputs(&Op::Arith(ArithOp::Addi), Format::Integer)
                .is_empty()
        );
        assert_eq!(fpga.memory_read(), 1);
        let mem = Op::ExtMemory {
            ld: 2,
            st: 1,
            id: 0,
            memref_arg: 0,
            memref: crate::types::MemRefType {
                dims: vec![4],
                elem: crate::types::Type::Int(32),
            },
        };
        let t = fpga.timed_outputs(&mem, Format::Integer);
        assert_eq!(t.iter().map(|t| t.port).collect::<Vec<_>>(), [0, 1]);
    }

    #[test]
    fn op_names_resolve_with_and_without_dialect() {
        assert_eq!(op_by_name("addf"), Some(ArithOp::Addf));
        assert_eq!(op_by_name("arith.addf"), Some(ArithOp::Addf));
        assert_eq!(op_by_name("math.sqrt"), Some(ArithOp::Sqrt));
        assert_eq!(op_by_name("arith.sqrt"), None);
        assert!(matches!(op_by_name("cmpf"), Some(ArithOp::Cmpf(_))));
        assert_eq!(op_by_name("nope"), None);
        // One table row per mnemonic.
        let t = TimingProfile::fpga().table();
        assert_eq!(t.iter().filter(|r| r.0 == "arith.cmpi").count(), 1);
        let row = |name: &str| t.iter().find(|r| r.0 == name).map(|r| r.1);
        assert_eq!(row("arith.divf:f32"), Some(Unit::pipelined(30)));
        assert_eq!(row("arith.divf:f64"), Some(Unit::pipelined(59)));
        assert_eq!(row("arith.divf"), None);
    }
}
