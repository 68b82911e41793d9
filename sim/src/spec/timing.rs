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
//! Two profiles are built in ([`TimingProfile::ideal`], [`TimingProfile::fpga`]); a TOML file
//! ([`TimingProfile::from_toml`]) starts from one of them and overrides entries. The numbers of
//! `fpga` and where they come from are in `docs/timing.md`.
//!
//! The tables below match every [`ArithOp`] and every [`Op`] without a catch-all arm, so a new
//! operation is a compile error here until it is given a latency.

use std::collections::BTreeMap;

use crate::ops::{ArithOp, Dialect, Op};

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

    /// The unit of `a` in this profile.
    pub fn arith(self, a: ArithOp) -> Unit {
        match self {
            Base::Ideal => Unit::COMB,
            Base::Fpga => fpga_arith(a),
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

/// The `fpga` profile's table (sources and reasoning in `docs/timing.md`).
fn fpga_arith(a: ArithOp) -> Unit {
    use ArithOp as A;
    match a {
        // Integer adders, logic, shifts, comparisons, selects and casts fit in one cycle at
        // 200-300 MHz and stay combinational.
        A::Addi
        | A::Subi
        | A::Andi
        | A::Ori
        | A::Xori
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
        A::Addf | A::Subf => Unit::pipelined(9),
        A::Mulf => Unit::pipelined(4),
        A::Divf | A::Remf => Unit::pipelined(30),
        A::Sqrt => Unit::pipelined(28),
        A::Cmpf(_) => Unit::pipelined(1),
        A::Maximumf | A::Minimumf | A::Maxnumf | A::Minnumf => Unit::pipelined(1),
        A::Sitofp | A::Uitofp | A::Fptosi | A::Fptoui => Unit::pipelined(4),
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
    /// Overrides by qualified op name (`arith.addf`, `math.sqrt`).
    ops: BTreeMap<String, Unit>,
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
        }
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
        self.memory_read == 0 && arith_ops().all(|a| self.arith(a).latency == 0)
    }

    /// The unit of arithmetic operation `a`.
    pub fn arith(&self, a: ArithOp) -> Unit {
        self.ops
            .get(&a.qualified_name())
            .copied()
            .unwrap_or_else(|| self.base.arith(a))
    }

    /// Latency of a memory read port.
    pub fn memory_read(&self) -> u32 {
        self.memory_read
    }

    /// The timed outputs of a node with op `op` (empty for untimed components): the result of
    /// an `arith` op, the `ldData` outputs of a memory. Units with latency 0 are left out.
    pub fn timed_outputs(&self, op: &Op) -> Vec<TimedOutput> {
        let units: Vec<TimedOutput> = match op {
            Op::Arith(a) => vec![TimedOutput {
                port: 0,
                unit: self.arith(*a),
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
            | Op::Constant { .. }
            | Op::Source
            | Op::Sink
            | Op::Never
            | Op::Load
            | Op::Store
            | Op::Instance { .. }
            | Op::Pipeline { .. } => Vec::new(),
        };
        units.into_iter().filter(|t| t.unit.latency > 0).collect()
    }

    /// Resolves `--timing` text: a built-in name, else TOML text read from a file (the caller
    /// reads it; `source` names it in errors).
    pub fn from_toml(text: &str, source: &str) -> Result<TimingProfile, TimingError> {
        toml_file::parse(text, source)
    }

    /// The profile as a table, one row per arithmetic operation (qualified name, unit), then
    /// the memory read latency: what `docs/timing.md` lists and `--timing` help prints.
    pub fn table(&self) -> Vec<(String, Unit)> {
        let mut rows: Vec<(String, Unit)> = arith_ops()
            .map(|a| (a.qualified_name(), self.arith(a)))
            .collect();
        rows.dedup_by(|a, b| a.0 == b.0);
        rows.push(("memory read".into(), Unit::pipelined(self.memory_read)));
        rows
    }
}

/// Every arithmetic operation once (`cmpi`/`cmpf` with one predicate each: the profile has one
/// entry per mnemonic).
fn arith_ops() -> impl Iterator<Item = ArithOp> {
    ArithOp::SIMPLE.iter().map(|&(a, _)| a).chain([
        ArithOp::Cmpi(crate::ops::CmpPredicate::Eq),
        ArithOp::Cmpf(crate::ops::FloatPredicate::Oeq),
    ])
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
    //! ```

    use std::collections::BTreeMap;

    use serde::Deserialize;
    use toml::Spanned;

    use super::{Base, TimingError, TimingProfile, Unit, op_by_name};

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
            let Some(op) = op_by_name(key.get_ref()) else {
                return Err(err(
                    Some(key.span()),
                    format!(
                        "`{}` is not an arith or math operation (e.g. `addf`, `math.sqrt`, `cmpi`)",
                        key.get_ref()
                    ),
                ));
            };
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
            p.ops.insert(op.qualified_name(), Unit { latency, ii });
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
            assert_eq!(p.arith(ArithOp::Divf), Unit::pipelined(16));
            assert_eq!(p.arith(ArithOp::Sqrt), Unit { latency: 20, ii: 4 });
            assert_eq!(p.arith(ArithOp::Mulf), Unit::pipelined(4));
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
        assert!(ideal.timed_outputs(&Op::Arith(ArithOp::Divf)).is_empty());
        let fpga = TimingProfile::fpga();
        assert!(!fpga.is_ideal());
        assert_eq!(
            fpga.timed_outputs(&Op::Arith(ArithOp::Addf)),
            vec![TimedOutput {
                port: 0,
                unit: Unit::pipelined(9)
            }]
        );
        assert!(fpga.timed_outputs(&Op::Arith(ArithOp::Addi)).is_empty());
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
        let t = fpga.timed_outputs(&mem);
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
    }
}
