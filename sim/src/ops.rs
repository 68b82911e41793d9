//! Operation kinds of handshake graph nodes, their attributes and CIRCT port names.

use crate::types::{MemRefType, Type};

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

    /// The integer value MLIR uses for this predicate in generic form.
    pub fn to_index(self) -> u32 {
        Self::ALL.iter().position(|p| *p == self).unwrap_or(0) as u32
    }
}

/// Integer operations from the `arith` dialect allowed inside a `handshake.func`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArithOp {
    /// `addi`
    Addi,
    /// `subi`
    Subi,
    /// `muli`
    Muli,
    /// `divsi`
    Divsi,
    /// `divui`
    Divui,
    /// `remsi`
    Remsi,
    /// `remui`
    Remui,
    /// `andi`
    Andi,
    /// `ori`
    Ori,
    /// `xori`
    Xori,
    /// `shli`
    Shli,
    /// `shrsi`
    Shrsi,
    /// `shrui`
    Shrui,
    /// `cmpi` with its predicate
    Cmpi(CmpPredicate),
    /// `select` (condition, true value, false value)
    Select,
    /// `extsi`
    Extsi,
    /// `extui`
    Extui,
    /// `trunci`
    Trunci,
    /// `index_cast`
    IndexCast,
}

impl ArithOp {
    /// Every arith op except `cmpi` (whose predicate varies), by mnemonic.
    pub const SIMPLE: [(ArithOp, &'static str); 18] = [
        (ArithOp::Addi, "addi"),
        (ArithOp::Subi, "subi"),
        (ArithOp::Muli, "muli"),
        (ArithOp::Divsi, "divsi"),
        (ArithOp::Divui, "divui"),
        (ArithOp::Remsi, "remsi"),
        (ArithOp::Remui, "remui"),
        (ArithOp::Andi, "andi"),
        (ArithOp::Ori, "ori"),
        (ArithOp::Xori, "xori"),
        (ArithOp::Shli, "shli"),
        (ArithOp::Shrsi, "shrsi"),
        (ArithOp::Shrui, "shrui"),
        (ArithOp::Select, "select"),
        (ArithOp::Extsi, "extsi"),
        (ArithOp::Extui, "extui"),
        (ArithOp::Trunci, "trunci"),
        (ArithOp::IndexCast, "index_cast"),
    ];

    /// MLIR mnemonic without the dialect prefix.
    pub fn mnemonic(self) -> &'static str {
        match self {
            ArithOp::Cmpi(_) => "cmpi",
            other => Self::SIMPLE
                .iter()
                .find(|(op, _)| *op == other)
                .map(|(_, m)| *m)
                .unwrap_or("?"),
        }
    }

    /// Looks up a mnemonic other than `cmpi`.
    pub fn from_mnemonic(m: &str) -> Option<Self> {
        Self::SIMPLE
            .iter()
            .find(|(_, s)| *s == m)
            .map(|(op, _)| *op)
    }

    /// Number of data operands.
    pub fn arity(self) -> usize {
        match self {
            ArithOp::Select => 3,
            ArithOp::Extsi | ArithOp::Extui | ArithOp::Trunci | ArithOp::IndexCast => 1,
            _ => 2,
        }
    }

    /// True for the width-changing casts (`extsi`, `extui`, `trunci`, `index_cast`).
    pub fn is_cast(self) -> bool {
        self.arity() == 1
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

impl Op {
    /// Dialect the operation belongs to (`handshake` or `arith`); empty for arguments.
    pub fn dialect(&self) -> &'static str {
        match self {
            Op::Argument { .. } => "",
            Op::Arith(_) => "arith",
            _ => "handshake",
        }
    }

    /// MLIR mnemonic without the dialect prefix (`fork`, `addi`, ...).
    pub fn mnemonic(&self) -> &'static str {
        match self {
            Op::Argument { .. } => "arg",
            Op::Return => "return",
            Op::Fork => "fork",
            Op::LazyFork => "lazy_fork",
            Op::Merge => "merge",
            Op::Mux => "mux",
            Op::ControlMerge => "control_merge",
            Op::CondBr => "cond_br",
            Op::Br => "br",
            Op::Join => "join",
            Op::Sync => "sync",
            Op::Pack => "pack",
            Op::Unpack => "unpack",
            Op::Buffer { .. } => "buffer",
            Op::Constant { .. } => "constant",
            Op::Source => "source",
            Op::Sink => "sink",
            Op::Never => "never",
            Op::Load => "load",
            Op::Store => "store",
            Op::Memory { .. } => "memory",
            Op::ExtMemory { .. } => "extmemory",
            Op::Instance { .. } => "instance",
            Op::Arith(a) => a.mnemonic(),
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

    /// Name of input port `i` as CIRCT's RTL names it.
    pub fn input_port_name(&self, i: usize) -> String {
        match self {
            Op::Mux => {
                if i == 0 {
                    "select".into()
                } else {
                    format!("in{}", i - 1)
                }
            }
            Op::CondBr => if i == 0 { "cond" } else { "data" }.into(),
            Op::Constant { .. } => "ctrl".into(),
            Op::Load => ["addrIn0", "dataFromMem", "ctrl"]
                .get(i)
                .copied()
                .unwrap_or("in?")
                .into(),
            Op::Store => ["addrIn0", "dataIn", "ctrl"]
                .get(i)
                .copied()
                .unwrap_or("in?")
                .into(),
            Op::Memory { st, .. } | Op::ExtMemory { st, .. } => {
                let st = *st as usize;
                if i < 2 * st {
                    if i.is_multiple_of(2) {
                        format!("stData{}", i / 2)
                    } else {
                        format!("stAddr{}", i / 2)
                    }
                } else {
                    format!("ldAddr{}", i - 2 * st)
                }
            }
            _ => format!("in{i}"),
        }
    }

    /// Name of output port `i` as CIRCT's RTL names it.
    pub fn output_port_name(&self, i: usize) -> String {
        match self {
            Op::CondBr => if i == 0 { "outTrue" } else { "outFalse" }.into(),
            Op::ControlMerge => if i == 0 { "dataOut" } else { "index" }.into(),
            Op::Load => if i == 0 { "dataOut" } else { "addrOut0" }.into(),
            Op::Store => if i == 0 { "dataToMem" } else { "addrOut0" }.into(),
            Op::Memory { ld, st, .. } | Op::ExtMemory { ld, st, .. } => {
                let (ld, st) = (*ld as usize, *st as usize);
                if i < ld {
                    format!("ldData{i}")
                } else if i < ld + st {
                    format!("stDone{}", i - ld)
                } else {
                    format!("ldDone{}", i - ld - st)
                }
            }
            _ => format!("out{i}"),
        }
    }

    /// True when the op holds state across cycles (registers) in the reference RTL.
    pub fn is_stateful(&self) -> bool {
        matches!(
            self,
            Op::Fork
                | Op::Sync
                | Op::Unpack
                | Op::ControlMerge
                | Op::Buffer { .. }
                | Op::Memory { .. }
                | Op::ExtMemory { .. }
        )
    }

    /// True when every output's valid/data is registered, so no combinational path runs
    /// from any input to any output (and none from output ready to input ready).
    pub fn breaks_combinational_paths(&self) -> bool {
        matches!(self, Op::Buffer { .. })
    }
}

/// Type of the `index` output of a `control_merge` and of a `mux` select, when unspecified.
pub fn default_index_type() -> Type {
    Type::Index
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn port_names_follow_circt() {
        assert_eq!(Op::Mux.input_port_name(0), "select");
        assert_eq!(Op::Mux.input_port_name(2), "in1");
        assert_eq!(Op::CondBr.output_port_name(1), "outFalse");
        let mem = Op::Memory {
            ld: 2,
            st: 1,
            id: 0,
            memref: MemRefType {
                dims: vec![8],
                elem: Type::Int(32),
            },
            lsq: false,
        };
        let ins: Vec<_> = (0..4).map(|i| mem.input_port_name(i)).collect();
        assert_eq!(ins, ["stData0", "stAddr0", "ldAddr0", "ldAddr1"]);
        let outs: Vec<_> = (0..5).map(|i| mem.output_port_name(i)).collect();
        assert_eq!(
            outs,
            ["ldData0", "ldData1", "stDone0", "ldDone0", "ldDone1"]
        );
        assert_eq!(
            ArithOp::from_mnemonic("index_cast"),
            Some(ArithOp::IndexCast)
        );
        assert_eq!(ArithOp::Cmpi(CmpPredicate::Uge).mnemonic(), "cmpi");
        assert_eq!(CmpPredicate::from_keyword("sle"), Some(CmpPredicate::Sle));
    }
}
