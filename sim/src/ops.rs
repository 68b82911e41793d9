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

/// How an `arith` operation types its operands and result. Everything that depends only on
/// this shape (arity, type rule, MLIR syntax, how the SystemVerilog and the engine treat the
/// operand widths) follows from the class, so a new op of an existing class needs only its
/// line in [`arith_ops!`](ArithOp) and its computation (engine and SystemVerilog).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArithClass {
    /// Two operands and a result of one integer type (`addi`, `xori`, ...).
    Binary,
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
}

impl ArithClass {
    /// Number of data operands.
    pub fn arity(self) -> usize {
        match self {
            ArithClass::Binary | ArithClass::Compare => 2,
            ArithClass::Select => 3,
            ArithClass::Extend | ArithClass::Truncate | ArithClass::IndexCast => 1,
        }
    }

    /// True for the width-changing casts, written `op %x : A to B` in MLIR.
    pub fn is_cast(self) -> bool {
        self.arity() == 1
    }
}

/// Defines [`ArithOp`] from one line per operation: variant, MLIR mnemonic, [`ArithClass`],
/// and whether CIRCT 1.62 lowers it to RTL ([`CirctLowering`](crate::spec::CirctLowering)).
macro_rules! arith_ops {
    ($($(#[doc = $doc:literal])* $variant:ident = $mnemonic:literal, $class:ident, $circt:ident;)*) => {
        /// Integer operations from the `arith` dialect allowed inside a `handshake.func`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum ArithOp {
            $($(#[doc = $doc])* $variant,)*
            /// `cmpi` with its predicate
            Cmpi(CmpPredicate),
        }

        impl ArithOp {
            /// Every arith op except `cmpi` (whose predicate varies), with its mnemonic.
            pub const SIMPLE: &'static [(ArithOp, &'static str)] =
                &[$((ArithOp::$variant, $mnemonic),)*];

            /// MLIR mnemonic without the dialect prefix.
            pub fn mnemonic(self) -> &'static str {
                match self {
                    $(ArithOp::$variant => $mnemonic,)*
                    ArithOp::Cmpi(_) => "cmpi",
                }
            }

            /// The operation's operand/result shape.
            pub fn class(self) -> ArithClass {
                match self {
                    $(ArithOp::$variant => ArithClass::$class,)*
                    ArithOp::Cmpi(_) => ArithClass::Compare,
                }
            }

            /// Whether CIRCT 1.62's `lower-handshake-to-hw` lowers the operation.
            pub fn circt(self) -> crate::spec::CirctLowering {
                match self {
                    $(ArithOp::$variant => crate::spec::CirctLowering::$circt,)*
                    ArithOp::Cmpi(_) => crate::spec::CirctLowering::Lowered,
                }
            }
        }
    };
}

arith_ops! {
    /// `addi`: wrapping add
    Addi = "addi", Binary, Lowered;
    /// `subi`: wrapping subtract
    Subi = "subi", Binary, Lowered;
    /// `muli`: wrapping multiply
    Muli = "muli", Binary, Lowered;
    /// `divsi`: signed divide
    Divsi = "divsi", Binary, Lowered;
    /// `divui`: unsigned divide
    Divui = "divui", Binary, Lowered;
    /// `remsi`: signed remainder
    Remsi = "remsi", Binary, Lowered;
    /// `remui`: unsigned remainder
    Remui = "remui", Binary, Lowered;
    /// `andi`
    Andi = "andi", Binary, Lowered;
    /// `ori`
    Ori = "ori", Binary, Lowered;
    /// `xori`
    Xori = "xori", Binary, Lowered;
    /// `shli`: shift left
    Shli = "shli", Binary, Lowered;
    /// `shrsi`: arithmetic shift right
    Shrsi = "shrsi", Binary, Lowered;
    /// `shrui`: logical shift right
    Shrui = "shrui", Binary, Lowered;
    /// `maxsi`: signed maximum
    Maxsi = "maxsi", Binary, NotLowered;
    /// `minsi`: signed minimum
    Minsi = "minsi", Binary, NotLowered;
    /// `maxui`: unsigned maximum
    Maxui = "maxui", Binary, NotLowered;
    /// `minui`: unsigned minimum
    Minui = "minui", Binary, NotLowered;
    /// `select` (condition, true value, false value)
    Select = "select", Select, Lowered;
    /// `extsi`: sign extension
    Extsi = "extsi", Extend, Lowered;
    /// `extui`: zero extension
    Extui = "extui", Extend, Lowered;
    /// `trunci`: truncation
    Trunci = "trunci", Truncate, Lowered;
    /// `index_cast`: sign-extending or truncating cast between `index` and `iN`
    IndexCast = "index_cast", IndexCast, Lowered;
}

impl ArithOp {
    /// Looks up a mnemonic other than `cmpi`.
    pub fn from_mnemonic(m: &str) -> Option<Self> {
        Self::SIMPLE
            .iter()
            .find(|(_, s)| *s == m)
            .map(|(op, _)| *op)
    }

    /// Number of data operands.
    pub fn arity(self) -> usize {
        self.class().arity()
    }

    /// True for the width-changing casts (`extsi`, `extui`, `trunci`, `index_cast`).
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
        }
    }

    /// Dialect the operation belongs to (`handshake` or `arith`); empty for arguments.
    pub fn dialect(&self) -> &'static str {
        match self.kind() {
            OpKind::Argument => "",
            OpKind::Arith => "arith",
            _ => "handshake",
        }
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
            assert_eq!(ArithOp::from_mnemonic(m), Some(op));
            assert_eq!(op.mnemonic(), m);
        }
        for k in OpKind::handshake_ops() {
            assert_eq!(OpKind::from_handshake_mnemonic(k.mnemonic()), Some(k));
        }
        assert_eq!(Op::Fork.kind(), OpKind::Fork);
        assert_eq!(Op::Arith(ArithOp::Addi).mnemonic(), "addi");
        assert_eq!(Op::Arith(ArithOp::Addi).dialect(), "arith");
    }
}
