//! Operation kinds of handshake graph nodes, their attributes and CIRCT port names.

use crate::types::MemRefType;

/// Implementation flavour of a `buffer`. In CIRCT 1.62 both build the same hardware.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BufferKind {
    /// `seq`
    Seq,
    /// `fifo`
    Fifo,
}

impl BufferKind {
    /// Keyword used in the MLIR syntax.
    pub fn keyword(self) -> &'static str {
        match self {
            BufferKind::Seq => "seq",
            BufferKind::Fifo => "fifo",
        }
    }
}

/// A Dynamatic buffer, named by the paths it cuts (`docs/semantics.md` "Dynamatic's
/// components", Buffers). All five are a FIFO of `slots` tokens; they differ in whether an
/// empty FIFO passes a token straight through (a bypass) and whether a full one takes a token
/// in the cycle its head leaves (ready through). (`SHIFT_REG_BREAK_DV` is a
/// [`Op::DynPipeline`], the same circuit as a unit's stages.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DynBufferKind {
    /// `ONE_SLOT_BREAK_DV` (`oehb`): one register, one cycle of latency.
    OneSlotBreakDv,
    /// `ONE_SLOT_BREAK_R` (`tehb`): a skid register bypassed while empty.
    OneSlotBreakR,
    /// `FIFO_BREAK_NONE` (`tfifo`): a FIFO beside a bypass.
    FifoBreakNone,
    /// `FIFO_BREAK_DV` (`elastic_fifo_inner`): a FIFO, one cycle of latency.
    FifoBreakDv,
    /// `ONE_SLOT_BREAK_DVR`: one register that cuts every path: it takes a token only while
    /// empty, so a stream passes one token every two cycles.
    OneSlotBreakDvr,
}

impl DynBufferKind {
    /// Every kind.
    pub const ALL: [DynBufferKind; 5] = [
        DynBufferKind::OneSlotBreakDv,
        DynBufferKind::OneSlotBreakR,
        DynBufferKind::FifoBreakNone,
        DynBufferKind::FifoBreakDv,
        DynBufferKind::OneSlotBreakDvr,
    ];

    /// Dynamatic's name (`bufferType = ...`).
    pub fn name(self) -> &'static str {
        match self {
            DynBufferKind::OneSlotBreakDv => "ONE_SLOT_BREAK_DV",
            DynBufferKind::OneSlotBreakR => "ONE_SLOT_BREAK_R",
            DynBufferKind::FifoBreakNone => "FIFO_BREAK_NONE",
            DynBufferKind::FifoBreakDv => "FIFO_BREAK_DV",
            DynBufferKind::OneSlotBreakDvr => "ONE_SLOT_BREAK_DVR",
        }
    }

    /// The kind Dynamatic calls `name`.
    pub fn from_name(name: &str) -> Option<DynBufferKind> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }

    /// An empty buffer offers the arriving token in the same cycle.
    pub fn bypass(self) -> bool {
        matches!(
            self,
            DynBufferKind::OneSlotBreakR | DynBufferKind::FifoBreakNone
        )
    }

    /// A full buffer whose head leaves takes a token in the same cycle (`in.ready` reads
    /// `out.ready`).
    pub fn ready_through(self) -> bool {
        !matches!(
            self,
            DynBufferKind::OneSlotBreakR | DynBufferKind::OneSlotBreakDvr
        )
    }

    /// Holds one token at most.
    pub fn one_slot(self) -> bool {
        matches!(
            self,
            DynBufferKind::OneSlotBreakDv
                | DynBufferKind::OneSlotBreakR
                | DynBufferKind::OneSlotBreakDvr
        )
    }
}

/// `arith.cmpi` predicates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpPredicate {
    /// equal
    Eq,
    /// not equal
    Ne,
    /// signed less than
    Slt,
    /// signed less or equal
    Sle,
    /// signed greater than
    Sgt,
    /// signed greater or equal
    Sge,
    /// unsigned less than
    Ult,
    /// unsigned less or equal
    Ule,
    /// unsigned greater than
    Ugt,
    /// unsigned greater or equal
    Uge,
}

impl CmpPredicate {
    /// All predicates in MLIR's enum order (the integer values of the attribute).
    pub const ALL: [CmpPredicate; 10] = [
        CmpPredicate::Eq,
        CmpPredicate::Ne,
        CmpPredicate::Slt,
        CmpPredicate::Sle,
        CmpPredicate::Sgt,
        CmpPredicate::Sge,
        CmpPredicate::Ult,
        CmpPredicate::Ule,
        CmpPredicate::Ugt,
        CmpPredicate::Uge,
    ];

    /// Keyword used in the MLIR syntax (`slt`, ...).
    pub fn keyword(self) -> &'static str {
        match self {
            CmpPredicate::Eq => "eq",
            CmpPredicate::Ne => "ne",
            CmpPredicate::Slt => "slt",
            CmpPredicate::Sle => "sle",
            CmpPredicate::Sgt => "sgt",
            CmpPredicate::Sge => "sge",
            CmpPredicate::Ult => "ult",
            CmpPredicate::Ule => "ule",
            CmpPredicate::Ugt => "ugt",
            CmpPredicate::Uge => "uge",
        }
    }

    /// Parses a keyword (`slt`, ...).
    pub fn from_keyword(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.keyword() == s)
    }
}

/// `arith.cmpf` predicates: `o*` are ordered (false when either operand is NaN), `u*` unordered
/// (true when either operand is NaN), `ord`/`uno` test for NaN, `false`/`true` are constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatPredicate {
    /// always false
    False,
    /// ordered and equal
    Oeq,
    /// ordered and greater than
    Ogt,
    /// ordered and greater or equal
    Oge,
    /// ordered and less than
    Olt,
    /// ordered and less or equal
    Ole,
    /// ordered and not equal
    One,
    /// ordered (neither operand is NaN)
    Ord,
    /// unordered or equal
    Ueq,
    /// unordered or greater than
    Ugt,
    /// unordered or greater or equal
    Uge,
    /// unordered or less than
    Ult,
    /// unordered or less or equal
    Ule,
    /// unordered or not equal
    Une,
    /// unordered (either operand is NaN)
    Uno,
    /// always true
    True,
}

impl FloatPredicate {
    /// All 16 predicates in MLIR's enum order (the integer values of the attribute).
    pub const ALL: [FloatPredicate; 16] = [
        FloatPredicate::False,
        FloatPredicate::Oeq,
        FloatPredicate::Ogt,
        FloatPredicate::Oge,
        FloatPredicate::Olt,
        FloatPredicate::Ole,
        FloatPredicate::One,
        FloatPredicate::Ord,
        FloatPredicate::Ueq,
        FloatPredicate::Ugt,
        FloatPredicate::Uge,
        FloatPredicate::Ult,
        FloatPredicate::Ule,
        FloatPredicate::Une,
        FloatPredicate::Uno,
        FloatPredicate::True,
    ];

    /// Keyword used in the MLIR syntax (`olt`, `true`, ...).
    pub fn keyword(self) -> &'static str {
        match self {
            FloatPredicate::False => "false",
            FloatPredicate::Oeq => "oeq",
            FloatPredicate::Ogt => "ogt",
            FloatPredicate::Oge => "oge",
            FloatPredicate::Olt => "olt",
            FloatPredicate::Ole => "ole",
            FloatPredicate::One => "one",
            FloatPredicate::Ord => "ord",
            FloatPredicate::Ueq => "ueq",
            FloatPredicate::Ugt => "ugt",
            FloatPredicate::Uge => "uge",
            FloatPredicate::Ult => "ult",
            FloatPredicate::Ule => "ule",
            FloatPredicate::Une => "une",
            FloatPredicate::Uno => "uno",
            FloatPredicate::True => "true",
        }
    }

    /// Parses a keyword (`olt`, ...).
    pub fn from_keyword(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.keyword() == s)
    }

    /// The integer value MLIR uses for this predicate in generic form.
    pub fn to_index(self) -> u32 {
        Self::ALL.iter().position(|p| *p == self).unwrap_or(0) as u32
    }
}

/// The dialect an operation of [`ArithOp`] belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// `arith`
    Arith,
    /// `math`
    Math,
}

impl Dialect {
    /// The dialect's name as MLIR writes it before the `.`.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Arith => "arith",
            Dialect::Math => "math",
        }
    }

    /// Parses a dialect name (`arith`, `math`).
    pub fn from_name(s: &str) -> Option<Dialect> {
        [Dialect::Arith, Dialect::Math]
            .into_iter()
            .find(|d| d.name() == s)
    }
}

/// How an `arith` operation types its operands and result. Everything that depends only on
/// this shape (arity, type rule, MLIR syntax, how the SystemVerilog and the engine treat the
/// operand widths) follows from the class, so a new op of an existing class needs only its
/// line in [`arith_ops!`](ArithOp) and its computation (engine and SystemVerilog).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArithClass {
    /// Two operands and a result of one integer type (`addi`, `xori`, ...).
    Binary,
    /// One operand and a result of one integer type (Dynamatic's `noti`).
    IntUnary,
    /// `cmpi`: two operands of one integer type, an `i1` result.
    Compare,
    /// `select`: an `i1` condition and two values of the result type.
    Select,
    /// `extsi`/`extui`: an `iN` to a wider `iM`.
    Extend,
    /// `trunci`: an `iN` to a narrower `iM`.
    Truncate,
    /// `index_cast`: between `index` and an `iN`.
    IndexCast,
    /// Two operands and a result of one float type (`addf`, `maximumf`, `math.copysign`, ...).
    FloatBinary,
    /// One operand and a result of one float type (`negf`, `math.sqrt`, `math.absf`).
    FloatUnary,
    /// `cmpf`: two operands of one float type, an `i1` result.
    FloatCompare,
    /// `sitofp`/`uitofp`: an `iN` to a float type.
    IntToFloat,
    /// `fptosi`/`fptoui`: a float type to an `iN`.
    FloatToInt,
    /// `extf`: `f32` to the wider `f64`.
    FloatExtend,
    /// `truncf`: `f64` to the narrower `f32`.
    FloatTruncate,
}

impl ArithClass {
    /// Number of data operands.
    pub fn arity(self) -> usize {
        match self {
            ArithClass::Binary
            | ArithClass::Compare
            | ArithClass::FloatBinary
            | ArithClass::FloatCompare => 2,
            ArithClass::Select => 3,
            ArithClass::IntUnary
            | ArithClass::Extend
            | ArithClass::Truncate
            | ArithClass::IndexCast
            | ArithClass::FloatUnary
            | ArithClass::IntToFloat
            | ArithClass::FloatToInt
            | ArithClass::FloatExtend
            | ArithClass::FloatTruncate => 1,
        }
    }

    /// True for the type-changing casts, written `op %x : A to B` in MLIR.
    pub fn is_cast(self) -> bool {
        match self {
            ArithClass::Extend
            | ArithClass::Truncate
            | ArithClass::IndexCast
            | ArithClass::IntToFloat
            | ArithClass::FloatToInt
            | ArithClass::FloatExtend
            | ArithClass::FloatTruncate => true,
            ArithClass::Binary
            | ArithClass::IntUnary
            | ArithClass::Compare
            | ArithClass::Select
            | ArithClass::FloatBinary
            | ArithClass::FloatUnary
            | ArithClass::FloatCompare => false,
        }
    }

    /// True for the classes whose operands or result are floats.
    pub fn is_float(self) -> bool {
        match self {
            ArithClass::FloatBinary
            | ArithClass::FloatUnary
            | ArithClass::FloatCompare
            | ArithClass::IntToFloat
            | ArithClass::FloatToInt
            | ArithClass::FloatExtend
            | ArithClass::FloatTruncate => true,
            ArithClass::Binary
            | ArithClass::IntUnary
            | ArithClass::Compare
            | ArithClass::Select
            | ArithClass::Extend
            | ArithClass::Truncate
            | ArithClass::IndexCast => false,
        }
    }
}

/// Defines [`ArithOp`] from one line per operation: variant, dialect and MLIR mnemonic,
/// [`ArithClass`], and whether CIRCT 1.62 lowers it to RTL
/// ([`CirctLowering`](crate::spec::CirctLowering)).
macro_rules! arith_ops {
    ($($(#[doc = $doc:literal])* $variant:ident = $dialect:ident . $mnemonic:ident, $class:ident, $circt:ident;)*) => {
        /// Operations from the `arith` and `math` dialects allowed inside a `handshake.func`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum ArithOp {
            $($(#[doc = $doc])* $variant,)*
            /// `cmpi` with its predicate
            Cmpi(CmpPredicate),
            /// `cmpf` with its predicate
            Cmpf(FloatPredicate),
            /// A `math` dialect op computing a `<math.h>` function (`math.exp`, `math.powf`)
            Math(crate::math_fn::MathFn),
        }

        impl ArithOp {
            /// Every op except `cmpi` and `cmpf` (whose predicates vary), with its mnemonic.
            pub const SIMPLE: &'static [(ArithOp, &'static str)] =
                &[$((ArithOp::$variant, stringify!($mnemonic)),)*];

            /// MLIR mnemonic without the dialect prefix.
            pub fn mnemonic(self) -> &'static str {
                match self {
                    $(ArithOp::$variant => stringify!($mnemonic),)*
                    ArithOp::Cmpi(_) => "cmpi",
                    ArithOp::Cmpf(_) => "cmpf",
                    ArithOp::Math(f) => f.mnemonic(),
                }
            }

            /// The dialect (`arith` or `math`).
            pub fn dialect(self) -> Dialect {
                match self {
                    $(ArithOp::$variant => arith_ops!(@dialect $dialect),)*
                    ArithOp::Cmpi(_) | ArithOp::Cmpf(_) => Dialect::Arith,
                    ArithOp::Math(_) => Dialect::Math,
                }
            }

            /// The operation's operand/result shape.
            pub fn class(self) -> ArithClass {
                match self {
                    $(ArithOp::$variant => ArithClass::$class,)*
                    ArithOp::Cmpi(_) => ArithClass::Compare,
                    ArithOp::Cmpf(_) => ArithClass::FloatCompare,
                    ArithOp::Math(f) if f.arity() == 2 => ArithClass::FloatBinary,
                    ArithOp::Math(_) => ArithClass::FloatUnary,
                }
            }

            /// Whether CIRCT 1.62's `lower-handshake-to-hw` lowers the operation.
            pub fn circt(self) -> crate::spec::CirctLowering {
                match self {
                    $(ArithOp::$variant => crate::spec::CirctLowering::$circt,)*
                    ArithOp::Cmpi(_) => crate::spec::CirctLowering::Lowered,
                    ArithOp::Cmpf(_) | ArithOp::Math(_) => crate::spec::CirctLowering::NotLowered,
                }
            }
        }
    };
    (@dialect arith) => { Dialect::Arith };
    (@dialect math) => { Dialect::Math };
}

arith_ops! {
    /// `addi`: wrapping add
    Addi = arith.addi, Binary, Lowered;
    /// `subi`: wrapping subtract
    Subi = arith.subi, Binary, Lowered;
    /// `muli`: wrapping multiply
    Muli = arith.muli, Binary, Lowered;
    /// `divsi`: signed divide
    Divsi = arith.divsi, Binary, Lowered;
    /// `divui`: unsigned divide
    Divui = arith.divui, Binary, Lowered;
    /// `remsi`: signed remainder
    Remsi = arith.remsi, Binary, Lowered;
    /// `remui`: unsigned remainder
    Remui = arith.remui, Binary, Lowered;
    /// `andi`
    Andi = arith.andi, Binary, Lowered;
    /// `ori`
    Ori = arith.ori, Binary, Lowered;
    /// `xori`
    Xori = arith.xori, Binary, Lowered;
    /// `noti`: every bit inverted (Dynamatic's `not`/`noti`; Handscope's written form prints
    /// it `arith.noti`, which CIRCT does not have)
    Noti = arith.noti, IntUnary, NotLowered;
    /// `shli`: shift left
    Shli = arith.shli, Binary, Lowered;
    /// `shrsi`: arithmetic shift right
    Shrsi = arith.shrsi, Binary, Lowered;
    /// `shrui`: logical shift right
    Shrui = arith.shrui, Binary, Lowered;
    /// `maxsi`: signed maximum
    Maxsi = arith.maxsi, Binary, NotLowered;
    /// `minsi`: signed minimum
    Minsi = arith.minsi, Binary, NotLowered;
    /// `maxui`: unsigned maximum
    Maxui = arith.maxui, Binary, NotLowered;
    /// `minui`: unsigned minimum
    Minui = arith.minui, Binary, NotLowered;
    /// `select` (condition, true value, false value)
    Select = arith.select, Select, Lowered;
    /// `extsi`: sign extension
    Extsi = arith.extsi, Extend, Lowered;
    /// `extui`: zero extension
    Extui = arith.extui, Extend, Lowered;
    /// `trunci`: truncation
    Trunci = arith.trunci, Truncate, Lowered;
    /// `index_cast`: sign-extending or truncating cast between `index` and `iN`
    IndexCast = arith.index_cast, IndexCast, Lowered;
    /// `addf`: IEEE-754 addition, round to nearest even
    Addf = arith.addf, FloatBinary, NotLowered;
    /// `subf`: IEEE-754 subtraction
    Subf = arith.subf, FloatBinary, NotLowered;
    /// `mulf`: IEEE-754 multiplication
    Mulf = arith.mulf, FloatBinary, NotLowered;
    /// `divf`: IEEE-754 division
    Divf = arith.divf, FloatBinary, NotLowered;
    /// `remf`: remainder with the dividend's sign (C's `fmod`)
    Remf = arith.remf, FloatBinary, NotLowered;
    /// `maximumf`: maximum, NaN if either operand is NaN, -0 < +0
    Maximumf = arith.maximumf, FloatBinary, NotLowered;
    /// `minimumf`: minimum, NaN if either operand is NaN, -0 < +0
    Minimumf = arith.minimumf, FloatBinary, NotLowered;
    /// `maxnumf`: maximum ignoring a NaN operand (C's `fmax`)
    Maxnumf = arith.maxnumf, FloatBinary, NotLowered;
    /// `minnumf`: minimum ignoring a NaN operand (C's `fmin`)
    Minnumf = arith.minnumf, FloatBinary, NotLowered;
    /// `negf`: flips the sign bit
    Negf = arith.negf, FloatUnary, NotLowered;
    /// `sitofp`: signed integer to float, round to nearest even
    Sitofp = arith.sitofp, IntToFloat, NotLowered;
    /// `uitofp`: unsigned integer to float, round to nearest even
    Uitofp = arith.uitofp, IntToFloat, NotLowered;
    /// `fptosi`: float to signed integer, truncating toward zero
    Fptosi = arith.fptosi, FloatToInt, NotLowered;
    /// `fptoui`: float to unsigned integer, truncating toward zero
    Fptoui = arith.fptoui, FloatToInt, NotLowered;
    /// `extf`: `f32` to `f64` (exact)
    Extf = arith.extf, FloatExtend, NotLowered;
    /// `truncf`: `f64` to `f32`, round to nearest even
    Truncf = arith.truncf, FloatTruncate, NotLowered;
    /// `math.sqrt`: square root, correctly rounded
    Sqrt = math.sqrt, FloatUnary, NotLowered;
    /// `math.absf`: clears the sign bit
    Absf = math.absf, FloatUnary, NotLowered;
    /// `math.copysign`: the first operand with the second's sign bit
    Copysign = math.copysign, FloatBinary, NotLowered;
}

impl ArithOp {
    /// Looks up an `arith` mnemonic other than `cmpi`/`cmpf`.
    pub fn from_mnemonic(m: &str) -> Option<Self> {
        Self::from_name(Dialect::Arith, m)
    }

    /// Looks up an op of `dialect` by mnemonic (not `cmpi`/`cmpf`).
    pub fn from_name(dialect: Dialect, m: &str) -> Option<Self> {
        Self::named()
            .find(|(op, s)| *s == m && op.dialect() == dialect)
            .map(|(op, _)| op)
    }

    /// Every op but `cmpi` and `cmpf`, with its mnemonic: [`ArithOp::SIMPLE`], then one
    /// [`ArithOp::Math`] per [`MathFn`](crate::math_fn::MathFn).
    pub fn named() -> impl Iterator<Item = (ArithOp, &'static str)> {
        Self::SIMPLE.iter().copied().chain(
            crate::math_fn::MathFn::ALL
                .iter()
                .map(|&f| (ArithOp::Math(f), f.mnemonic())),
        )
    }

    /// True for the divisions and remainders, whose zero divisor raises a runtime event
    /// (`divsi`, `divui`, `remsi`, `remui`, `divf`, `remf`).
    pub fn divides(self) -> bool {
        match self {
            ArithOp::Divsi
            | ArithOp::Divui
            | ArithOp::Remsi
            | ArithOp::Remui
            | ArithOp::Divf
            | ArithOp::Remf => true,
            ArithOp::Addi
            | ArithOp::Subi
            | ArithOp::Muli
            | ArithOp::Andi
            | ArithOp::Ori
            | ArithOp::Xori
            | ArithOp::Noti
            | ArithOp::Shli
            | ArithOp::Shrsi
            | ArithOp::Shrui
            | ArithOp::Maxsi
            | ArithOp::Minsi
            | ArithOp::Maxui
            | ArithOp::Minui
            | ArithOp::Select
            | ArithOp::Extsi
            | ArithOp::Extui
            | ArithOp::Trunci
            | ArithOp::IndexCast
            | ArithOp::Addf
            | ArithOp::Subf
            | ArithOp::Mulf
            | ArithOp::Maximumf
            | ArithOp::Minimumf
            | ArithOp::Maxnumf
            | ArithOp::Minnumf
            | ArithOp::Negf
            | ArithOp::Sitofp
            | ArithOp::Uitofp
            | ArithOp::Fptosi
            | ArithOp::Fptoui
            | ArithOp::Extf
            | ArithOp::Truncf
            | ArithOp::Sqrt
            | ArithOp::Absf
            | ArithOp::Copysign
            | ArithOp::Cmpi(_)
            | ArithOp::Cmpf(_)
            | ArithOp::Math(_) => false,
        }
    }

    /// The full MLIR name (`arith.addi`, `math.sqrt`).
    pub fn qualified_name(self) -> String {
        format!("{}.{}", self.dialect().name(), self.mnemonic())
    }

    /// Number of data operands.
    pub fn arity(self) -> usize {
        self.class().arity()
    }

    /// True for the type-changing casts (`extsi`, `sitofp`, `truncf`, `index_cast`, ...).
    pub fn is_cast(self) -> bool {
        self.class().is_cast()
    }
}

/// What a node does. The number of ports comes from the node's channel lists.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// A function argument carried on a channel (memref arguments are not nodes).
    Argument {
        /// Position in the function's argument list.
        index: usize,
    },
    /// `return`: its operands are the function's results, in order.
    Return,
    /// `fork [N]`: eager fork.
    Fork,
    /// `lazy_fork [N]`
    LazyFork,
    /// `merge`: fixed priority, lowest index first.
    Merge,
    /// `mux %sel [ins]`
    Mux,
    /// `control_merge`: outputs `dataOut` and `index`.
    ControlMerge,
    /// `cond_br %cond, %data`
    CondBr,
    /// `br`: a plain pass-through.
    Br,
    /// `join`
    Join,
    /// `sync`: join of all inputs, then an eager fork over all outputs.
    Sync,
    /// `pack`: builds a tuple.
    Pack,
    /// `unpack`: splits a tuple, eager-fork style.
    Unpack,
    /// `buffer [N] seq|fifo`, optionally preloaded.
    Buffer {
        /// Number of slots (each holds up to two tokens in CIRCT's RTL).
        slots: u32,
        /// `seq` or `fifo`.
        kind: BufferKind,
        /// `initValues`, slot 0 first, as raw bit patterns.
        init: Option<Vec<u64>>,
    },
    /// `constant %ctrl {value = V}`; the value is stored as a bit pattern.
    Constant {
        /// Bit pattern of the value, masked to the result width.
        value: u64,
    },
    /// `source`: always valid.
    Source,
    /// `sink`: always ready.
    Sink,
    /// `never`: never valid.
    Never,
    /// `load [addr] dataFromMem, ctrl`
    Load,
    /// `store [addr] data, ctrl`
    Store,
    /// `memory [ld = L, st = S]`: an internal memory.
    Memory {
        /// Number of load ports.
        ld: u32,
        /// Number of store ports.
        st: u32,
        /// The `id` attribute.
        id: u32,
        /// Shape and element type.
        memref: MemRefType,
        /// The `lsq` attribute.
        lsq: bool,
    },
    /// `extmemory [ld = L, st = S] (%mem : memref<..>)`: a memory outside the function.
    ExtMemory {
        /// Number of load ports.
        ld: u32,
        /// Number of store ports.
        st: u32,
        /// The `id` attribute.
        id: u32,
        /// Index of the memref argument in the function's argument list.
        memref_arg: usize,
        /// Shape and element type (copied from the argument).
        memref: MemRefType,
    },
    /// `instance @callee(...)`: a call of another `handshake.func`.
    Instance {
        /// Name of the called function.
        callee: String,
    },
    /// An `arith` operation.
    Arith(ArithOp),
    /// `pipeline`: a Handscope extension (not a CIRCT op) that a timing profile puts behind a
    /// timed unit (`arith` op, memory read port): `latency` register stages, accepting a token
    /// every `ii` cycles, tokens moving up into empty stages (`docs/semantics.md` "Pipelined
    /// units").
    Pipeline {
        /// Cycles from taking a token to offering it (at least 1).
        latency: u32,
        /// Initiation interval: cycles between two accepted tokens (at least 1).
        ii: u32,
    },
    /// A Dynamatic buffer of `slots` tokens (`docs/semantics.md` "Dynamatic's components").
    DynBuffer {
        /// Which paths it cuts.
        kind: DynBufferKind,
        /// Tokens it holds (at least 1; the one-slot kinds hold exactly 1).
        slots: u32,
    },
    /// A Dynamatic multi-cycle unit's pipeline, behind the unit's combinational join:
    /// `latency` stages that advance together while the last is empty or taken, so a stalled
    /// output freezes every stage, bubbles included.
    DynPipeline {
        /// Cycles from taking a token to offering it (at least 1).
        latency: u32,
    },
    /// Dynamatic's `COUNTER_BUFFER`: takes one token while empty and offers it `latency`
    /// cycles later (its `dvLatency`); the token leaving makes room for the next in the same
    /// cycle.
    DynCounterBuffer {
        /// Cycles from taking a token to offering it (at least 1).
        latency: u32,
    },
    /// Dynamatic's `control_merge`: a priority merge into a one-slot skid register that holds
    /// the winner's data and index, then an eager fork onto `outs` and `index`.
    DynControlMerge,
    /// Dynamatic's `load` port: a one-slot skid buffer (`ONE_SLOT_BREAK_R`) on the address
    /// going to the memory interface and another on the data coming back.
    DynLoad,
    /// Dynamatic's `store` port: passes the address and the data on to the memory interface.
    DynStore,
    /// Dynamatic's memory controller of one array (`docs/semantics.md`, Memory): inputs
    /// `memStart`, `ctrl<k>` (a block's store count), `ldAddr<i>`, `stAddr<j>`/`stData<j>`,
    /// `ctrlEnd`; outputs `ldData<i>`, `memEnd`. Fixed-priority arbiters, a read answered the
    /// next cycle, stores counted against the blocks' counts.
    DynMemController {
        /// Block-control (store count) inputs.
        ctrl: u32,
        /// Load ports.
        ld: u32,
        /// Store ports.
        st: u32,
        /// Index of the memref argument whose array it serves.
        memref_arg: usize,
        /// Shape and element type (copied from the argument).
        memref: MemRefType,
    },
    /// Dynamatic's load-store queue (`docs/semantics.md` "The load-store queue"): groups of
    /// accesses allocated together into a load queue and a store queue, loads issued out of
    /// order when no older store may write their address, stores in order. Ports, master
    /// (it holds the array): `memStart`, `ctrl<g>`, `ldAddr<p>`, `stAddr<q>`/`stData<q>`,
    /// `ctrlEnd`; outputs `ldData<p>`, `memEnd`. Slave (behind a memory controller):
    /// `ctrl<g>`, `ldAddr<p>`, `stAddr<q>`/`stData<q>`, `ldDataFromMC`; outputs `ldData<p>`,
    /// `ldAddrToMC`, `stAddrToMC`, `stDataToMC`.
    DynLsq {
        /// Groups, queue depths.
        shape: LsqShape,
        /// Master: the memref argument whose array it holds (`usize::MAX` until a reader
        /// resolves it); `None` for a slave.
        memref_arg: Option<usize>,
        /// Master: the array's shape and element type; `None` for a slave.
        memref: Option<MemRefType>,
    },
    /// Dynamatic's eager `select`: fires once the condition and the chosen input have tokens;
    /// the other input's token is taken with them, or, when it has not arrived, discarded on
    /// arrival by an antitoken (no result is offered while an antitoken waits).
    DynSelect,
    /// `addr_queue [ld = L, st = S, depth = D]`: a Handscope component (after R-HLS's address
    /// queue) that lets an array's loads pass older stores to other addresses. Store port
    /// `j` enqueues its address (`stAddr<j>` with the ordering token `stOrder<j>`) and
    /// raises `stOrderOut<j>` the next cycle; `stDone<j>` dequeues its entry once it is at
    /// the head. Load port `i` passes its address (`ldAddr<i>` with `ldOrder<i>`) on to
    /// `ldAddrOut<i>` while no queued store address equals it (`docs/semantics.md` "The
    /// address queue").
    AddrQueue {
        /// Load ports.
        ld: u32,
        /// Store ports.
        st: u32,
        /// Store addresses the queue holds.
        depth: u32,
    },
    /// `island`: a Handscope extension (not a CIRCT op), a loop scheduled at compile time
    /// (`docs/static-islands.md`, `docs/semantics.md` "Static islands"). Input 0 and output
    /// 0 are the control token; inputs `1..` are the loop header's parameters, outputs `1..`
    /// the values the loop leaves with.
    Island(Box<crate::island::Island>),
}

/// One access of a load-store queue's group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LsqAccess {
    /// A load: one port, its address.
    Load,
    /// A store: its address and its data.
    Store,
}

/// A load-store queue's groups and queue depths ([`Op::DynLsq`]). Load and store ports are
/// numbered in group order, each group's accesses in program order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LsqShape {
    /// Per group, its accesses in program order.
    pub groups: Vec<Vec<LsqAccess>>,
    /// Load queue entries.
    pub load_depth: u32,
    /// Store queue entries.
    pub store_depth: u32,
    /// `memEnd` is offered once per `ctrlEnd` and withdrawn when taken (Handscope's own flow,
    /// whose functions run several times), instead of staying offered once raised
    /// (Dynamatic's RTL).
    pub end_once: bool,
}

impl LsqShape {
    /// Loads of group `g`.
    pub fn loads(&self, g: usize) -> usize {
        self.groups[g]
            .iter()
            .filter(|a| **a == LsqAccess::Load)
            .count()
    }

    /// Stores of group `g`.
    pub fn stores(&self, g: usize) -> usize {
        self.groups[g].len() - self.loads(g)
    }

    /// Load ports (all groups).
    pub fn load_ports(&self) -> u32 {
        (0..self.groups.len()).map(|g| self.loads(g) as u32).sum()
    }

    /// Store ports (all groups).
    pub fn store_ports(&self) -> u32 {
        (0..self.groups.len()).map(|g| self.stores(g) as u32).sum()
    }

    /// For each load of group `g`, how many of the group's stores precede it (Dynamatic's
    /// `ldOrder`).
    pub fn load_order(&self, g: usize) -> Vec<usize> {
        let mut stores = 0;
        let mut order = Vec::new();
        for a in &self.groups[g] {
            match a {
                LsqAccess::Load => order.push(stores),
                LsqAccess::Store => stores += 1,
            }
        }
        order
    }

    /// The first load port and the first store port of group `g`.
    pub fn first_ports(&self, g: usize) -> (usize, usize) {
        (0..g).fold((0, 0), |(l, s), k| (l + self.loads(k), s + self.stores(k)))
    }

    /// The largest group's loads and stores.
    pub fn largest_group(&self) -> (usize, usize) {
        (0..self.groups.len()).fold((0, 0), |(l, s), g| {
            (l.max(self.loads(g)), s.max(self.stores(g)))
        })
    }

    /// The groups as text: `ls,l` (a group per comma, `l` a load, `s` a store).
    pub fn groups_text(&self) -> String {
        let g: Vec<String> = self
            .groups
            .iter()
            .map(|g| {
                g.iter()
                    .map(|a| match a {
                        LsqAccess::Load => 'l',
                        LsqAccess::Store => 's',
                    })
                    .collect()
            })
            .collect();
        g.join(",")
    }

    /// Parses [`LsqShape::groups_text`]'s form (no group may be empty).
    pub fn parse_groups(text: &str) -> Option<Vec<Vec<LsqAccess>>> {
        text.split(',')
            .map(|g| {
                let g = g.trim();
                (!g.is_empty())
                    .then(|| {
                        g.chars()
                            .map(|c| match c {
                                'l' => Some(LsqAccess::Load),
                                's' => Some(LsqAccess::Store),
                                _ => None,
                            })
                            .collect::<Option<Vec<_>>>()
                    })
                    .flatten()
            })
            .collect()
    }
}

/// The array of a node that holds one ([`Op::array`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ArrayPorts<'a> {
    /// Shape and element type.
    pub memref: &'a MemRefType,
    /// The memref argument it serves (`None`: an internal `memory`, named by its node).
    pub memref_arg: Option<usize>,
    /// Store ports: (address input, data input). A write happens when both transfer. Empty
    /// for a load-store queue, whose registers say when it writes.
    pub stores: Vec<(usize, usize)>,
}

/// Defines [`OpKind`] from one line per kind: variant and MLIR mnemonic.
macro_rules! op_kinds {
    ($($(#[doc = $doc:literal])* $variant:ident = $mnemonic:literal;)*) => {
        /// The kind of an [`Op`] without its attributes: one per variant of [`Op`] (all `arith`
        /// operations are [`OpKind::Arith`]).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum OpKind {
            $($(#[doc = $doc])* $variant,)*
        }

        impl OpKind {
            /// Every kind, in declaration order.
            pub const ALL: &'static [OpKind] = &[$(OpKind::$variant,)*];

            /// MLIR mnemonic without the dialect prefix (`arith` for [`OpKind::Arith`]).
            pub fn mnemonic(self) -> &'static str {
                match self {
                    $(OpKind::$variant => $mnemonic,)*
                }
            }
        }
    };
}

op_kinds! {
    /// [`Op::Argument`]
    Argument = "arg";
    /// [`Op::Return`]
    Return = "return";
    /// [`Op::Fork`]
    Fork = "fork";
    /// [`Op::LazyFork`]
    LazyFork = "lazy_fork";
    /// [`Op::Merge`]
    Merge = "merge";
    /// [`Op::Mux`]
    Mux = "mux";
    /// [`Op::ControlMerge`]
    ControlMerge = "control_merge";
    /// [`Op::CondBr`]
    CondBr = "cond_br";
    /// [`Op::Br`]
    Br = "br";
    /// [`Op::Join`]
    Join = "join";
    /// [`Op::Sync`]
    Sync = "sync";
    /// [`Op::Pack`]
    Pack = "pack";
    /// [`Op::Unpack`]
    Unpack = "unpack";
    /// [`Op::Buffer`]
    Buffer = "buffer";
    /// [`Op::Constant`]
    Constant = "constant";
    /// [`Op::Source`]
    Source = "source";
    /// [`Op::Sink`]
    Sink = "sink";
    /// [`Op::Never`]
    Never = "never";
    /// [`Op::Load`]
    Load = "load";
    /// [`Op::Store`]
    Store = "store";
    /// [`Op::Memory`]
    Memory = "memory";
    /// [`Op::ExtMemory`]
    ExtMemory = "extmemory";
    /// [`Op::Instance`]
    Instance = "instance";
    /// [`Op::Arith`]
    Arith = "arith";
    /// [`Op::Pipeline`]
    Pipeline = "pipeline";
    /// [`Op::DynBuffer`]
    DynBuffer = "dyn_buffer";
    /// [`Op::DynPipeline`]
    DynPipeline = "dyn_pipeline";
    /// [`Op::DynCounterBuffer`]
    DynCounterBuffer = "dyn_counter_buffer";
    /// [`Op::DynControlMerge`]
    DynControlMerge = "dyn_control_merge";
    /// [`Op::DynSelect`]
    DynSelect = "dyn_select";
    /// [`Op::DynLoad`]
    DynLoad = "dyn_load";
    /// [`Op::DynStore`]
    DynStore = "dyn_store";
    /// [`Op::DynMemController`]
    DynMemController = "dyn_mem_controller";
    /// [`Op::DynLsq`]
    DynLsq = "dyn_lsq";
    /// [`Op::AddrQueue`]
    AddrQueue = "addr_queue";
    /// [`Op::Island`]
    Island = "island";
}

impl OpKind {
    /// The `handshake` kinds that are real operations (every kind but [`OpKind::Argument`] and
    /// [`OpKind::Arith`]), by mnemonic: what `handshake.<mnemonic>` can name.
    pub fn handshake_ops() -> impl Iterator<Item = OpKind> {
        Self::ALL
            .iter()
            .copied()
            .filter(|k| !matches!(k, OpKind::Argument | OpKind::Arith))
    }

    /// Looks up a `handshake` operation by mnemonic (`fork`, `control_merge`, ...).
    pub fn from_handshake_mnemonic(m: &str) -> Option<OpKind> {
        Self::handshake_ops().find(|k| k.mnemonic() == m)
    }
}

impl Op {
    /// The kind of this op.
    pub fn kind(&self) -> OpKind {
        match self {
            Op::Argument { .. } => OpKind::Argument,
            Op::Return => OpKind::Return,
            Op::Fork => OpKind::Fork,
            Op::LazyFork => OpKind::LazyFork,
            Op::Merge => OpKind::Merge,
            Op::Mux => OpKind::Mux,
            Op::ControlMerge => OpKind::ControlMerge,
            Op::CondBr => OpKind::CondBr,
            Op::Br => OpKind::Br,
            Op::Join => OpKind::Join,
            Op::Sync => OpKind::Sync,
            Op::Pack => OpKind::Pack,
            Op::Unpack => OpKind::Unpack,
            Op::Buffer { .. } => OpKind::Buffer,
            Op::Constant { .. } => OpKind::Constant,
            Op::Source => OpKind::Source,
            Op::Sink => OpKind::Sink,
            Op::Never => OpKind::Never,
            Op::Load => OpKind::Load,
            Op::Store => OpKind::Store,
            Op::Memory { .. } => OpKind::Memory,
            Op::ExtMemory { .. } => OpKind::ExtMemory,
            Op::Instance { .. } => OpKind::Instance,
            Op::Arith(_) => OpKind::Arith,
            Op::Pipeline { .. } => OpKind::Pipeline,
            Op::DynBuffer { .. } => OpKind::DynBuffer,
            Op::DynPipeline { .. } => OpKind::DynPipeline,
            Op::DynCounterBuffer { .. } => OpKind::DynCounterBuffer,
            Op::DynControlMerge => OpKind::DynControlMerge,
            Op::DynSelect => OpKind::DynSelect,
            Op::DynLoad => OpKind::DynLoad,
            Op::DynStore => OpKind::DynStore,
            Op::DynMemController { .. } => OpKind::DynMemController,
            Op::DynLsq { .. } => OpKind::DynLsq,
            Op::AddrQueue { .. } => OpKind::AddrQueue,
            Op::Island(_) => OpKind::Island,
        }
    }

    /// Dialect the operation belongs to (`handshake`, `arith` or `math`); empty for arguments.
    pub fn dialect(&self) -> &'static str {
        match self {
            Op::Argument { .. } => "",
            Op::Arith(a) => a.dialect().name(),
            _ => "handshake",
        }
    }

    /// For a node that holds an array (`memory`, `extmemory`, Dynamatic's memory controller):
    /// the array's type, the memref argument it serves (`None` for an internal `memory`),
    /// and its store ports as (address input, data input) port indices.
    pub fn array(&self) -> Option<ArrayPorts<'_>> {
        match self {
            Op::Memory { st, memref, .. } => Some(ArrayPorts {
                memref,
                memref_arg: None,
                stores: (0..*st as usize).map(|j| (2 * j + 1, 2 * j)).collect(),
            }),
            Op::ExtMemory {
                st,
                memref,
                memref_arg,
                ..
            } => Some(ArrayPorts {
                memref,
                memref_arg: Some(*memref_arg),
                stores: (0..*st as usize).map(|j| (2 * j + 1, 2 * j)).collect(),
            }),
            Op::DynMemController {
                ctrl,
                ld,
                st,
                memref,
                memref_arg,
            } => {
                let first = 1 + *ctrl as usize + *ld as usize;
                Some(ArrayPorts {
                    memref,
                    memref_arg: Some(*memref_arg),
                    stores: (0..*st as usize)
                        .map(|j| (first + 2 * j, first + 2 * j + 1))
                        .collect(),
                })
            }
            // A queue writes when its store entry reaches the issue pointer, not when the
            // store's ports transfer: its writes come from its registers
            // (`DynLsqInfo::store_written`), so it lists no store ports here.
            Op::DynLsq {
                memref_arg,
                memref: Some(memref),
                ..
            } => Some(ArrayPorts {
                memref,
                memref_arg: *memref_arg,
                stores: Vec::new(),
            }),
            _ => None,
        }
    }

    /// For a node whose array is a memref argument (`extmemory`, Dynamatic's memory
    /// controller, a master load-store queue): the argument index a reader sets, and the
    /// type the node declares.
    pub fn memref_arg_mut(&mut self) -> Option<(&mut usize, &MemRefType)> {
        match self {
            Op::ExtMemory {
                memref_arg, memref, ..
            }
            | Op::DynMemController {
                memref_arg, memref, ..
            } => Some((memref_arg, memref)),
            Op::DynLsq {
                memref_arg: Some(memref_arg),
                memref: Some(memref),
                ..
            } => Some((memref_arg, memref)),
            _ => None,
        }
    }

    /// True for Dynamatic's components ([`Op::DynBuffer`], [`Op::DynPipeline`], ...), which
    /// only circuits read from Dynamatic's dialect hold.
    pub fn is_dynamatic(&self) -> bool {
        matches!(
            self,
            Op::DynBuffer { .. }
                | Op::DynPipeline { .. }
                | Op::DynCounterBuffer { .. }
                | Op::DynControlMerge
                | Op::DynSelect
                | Op::DynLoad
                | Op::DynStore
                | Op::DynMemController { .. }
                | Op::DynLsq { .. }
        )
    }

    /// MLIR mnemonic without the dialect prefix (`fork`, `addi`, ...).
    pub fn mnemonic(&self) -> &'static str {
        match self {
            Op::Arith(a) => a.mnemonic(),
            other => other.kind().mnemonic(),
        }
    }

    /// Base of the default stable ID (`<base><k>`): the mnemonic, or the callee for instances.
    /// This is what CIRCT's `lower-handshake-to-hw` uses for instance names once the
    /// `handshake_`/`arith_` prefix is removed.
    pub fn id_base(&self) -> &str {
        match self {
            Op::Instance { callee } => callee,
            _ => self.mnemonic(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mnemonics_round_trip() {
        assert_eq!(
            ArithOp::from_mnemonic("index_cast"),
            Some(ArithOp::IndexCast)
        );
        assert_eq!(ArithOp::Cmpi(CmpPredicate::Uge).mnemonic(), "cmpi");
        assert_eq!(CmpPredicate::from_keyword("sle"), Some(CmpPredicate::Sle));
        for &(op, m) in ArithOp::SIMPLE {
            if op.dialect() == Dialect::Arith {
                assert_eq!(ArithOp::from_mnemonic(m), Some(op));
            }
            assert_eq!(op.mnemonic(), m);
        }
        for k in OpKind::handshake_ops() {
            assert_eq!(OpKind::from_handshake_mnemonic(k.mnemonic()), Some(k));
        }
        assert_eq!(Op::Fork.kind(), OpKind::Fork);
        assert_eq!(Op::Arith(ArithOp::Addi).mnemonic(), "addi");
        assert_eq!(Op::Arith(ArithOp::Addi).dialect(), "arith");
        assert_eq!(Op::Arith(ArithOp::Sqrt).dialect(), "math");
        assert_eq!(Op::Arith(ArithOp::Copysign).mnemonic(), "copysign");
        assert_eq!(ArithOp::from_mnemonic("sqrt"), None);
        assert_eq!(
            ArithOp::from_name(Dialect::Math, "sqrt"),
            Some(ArithOp::Sqrt)
        );
        assert_eq!(ArithOp::Absf.qualified_name(), "math.absf");
        assert_eq!(
            ArithOp::Cmpf(FloatPredicate::Olt).class(),
            ArithClass::FloatCompare
        );
        for (i, p) in FloatPredicate::ALL.iter().enumerate() {
            assert_eq!(p.to_index() as usize, i);
            assert_eq!(FloatPredicate::from_keyword(p.keyword()), Some(*p));
        }
        assert_eq!(FloatPredicate::Olt.to_index(), 4);
        assert_eq!(FloatPredicate::Une.to_index(), 13);
        for (op, _) in ArithOp::named() {
            assert_eq!(ArithOp::from_name(op.dialect(), op.mnemonic()), Some(op));
        }
        assert_eq!(
            ArithOp::from_name(Dialect::Math, "powf"),
            Some(ArithOp::Math(crate::math_fn::MathFn::Pow))
        );
        assert_eq!(
            ArithOp::Math(crate::math_fn::MathFn::Atan2).class(),
            ArithClass::FloatBinary
        );
    }
}
