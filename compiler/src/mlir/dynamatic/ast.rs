//! The typed syntax tree of a Dynamatic handshake file: functions, ports, ops and their
//! parameters, as printed (nothing is resolved into a graph here).

use handscope_sim::{CmpPredicate, FloatKind, FloatPredicate, MemRefType, Type};

use super::era::Era;
use super::kinds::DynOpKind;
use crate::mlir::Span;

/// A whole file: its functions and the syntax era it is written in.
#[derive(Clone, Debug, PartialEq)]
pub struct DynModule {
    /// The `handshake.func`s, in file order.
    pub funcs: Vec<DynFunc>,
    /// The syntax era, decided from the forms the file uses.
    pub era: Era,
    /// Why that era was chosen (the form that decided it, with its position).
    pub era_reason: String,
}

/// One `handshake.func`.
#[derive(Clone, Debug, PartialEq)]
pub struct DynFunc {
    /// The symbol name, without `@`.
    pub name: String,
    /// Arguments, in order.
    pub args: Vec<DynPort>,
    /// Results, in order (the operands of `end`).
    pub results: Vec<DynPort>,
    /// The body's operations, in file order.
    pub ops: Vec<DynOp>,
    /// From `handshake.func` to the closing brace.
    pub span: Span,
}

/// A function argument or result.
#[derive(Clone, Debug, PartialEq)]
pub struct DynPort {
    /// The name from `argNames`/`resNames`, else `%argN` (arguments) or `outN` (results).
    pub name: String,
    /// The SSA name of an argument (`arg0`, without `%`); empty for results.
    pub ssa: String,
    /// Its type.
    pub ty: DynType,
    /// Where the type (and the argument's SSA name) is written.
    pub span: Span,
}

/// A value's type in Dynamatic's dialect.
#[derive(Clone, Debug, PartialEq)]
pub enum DynType {
    /// `!handshake.channel<T, [extra]>` (printed `<T>` inside ops): data plus handshake.
    Channel {
        /// The data type (an integer or a float).
        data: Type,
        /// Extra signals carried beside the data.
        extra: Vec<ExtraSignal>,
    },
    /// `!handshake.control<[extra]>` (printed `<>`): a data-less token.
    Control {
        /// Extra signals carried with the token.
        extra: Vec<ExtraSignal>,
    },
    /// `memref<NxT>`: a memory, only as a function argument or memory-interface operand.
    MemRef(MemRefType),
}

impl DynType {
    /// True for a channel or control type with extra signals.
    pub fn has_extra_signals(&self) -> bool {
        match self {
            DynType::Channel { extra, .. } | DynType::Control { extra } => !extra.is_empty(),
            DynType::MemRef(_) => false,
        }
    }

    /// The data type of a channel, `None` for control and memrefs.
    pub fn data(&self) -> Option<&Type> {
        match self {
            DynType::Channel { data, .. } => Some(data),
            _ => None,
        }
    }

    /// True for a control type.
    pub fn is_control(&self) -> bool {
        matches!(self, DynType::Control { .. })
    }
}

/// An extra signal of a channel, `name: type` (upstream when marked `(U)`).
#[derive(Clone, Debug, PartialEq)]
pub struct ExtraSignal {
    /// Signal name (`spec`, `tag`).
    pub name: String,
    /// Its data type.
    pub ty: Type,
    /// True for an upstream signal (`(U)`: it travels with `ready`, against the data).
    pub upstream: bool,
}

/// A use of an SSA value: `%name` or `%name#k`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DynValue {
    /// The name without `%`.
    pub name: String,
    /// The result number (0 when not written).
    pub index: u32,
    /// Where the use is written.
    pub span: Span,
}

/// A group of results defined together: `%name` (one) or `%name:N`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DynResult {
    /// The name without `%`.
    pub name: String,
    /// How many values the group defines (uses are `%name#0` .. `%name#N-1`).
    pub count: u32,
    /// Where it is written.
    pub span: Span,
}

/// The memory operand of a memory interface: `[%mem : memref<...>]`.
#[derive(Clone, Debug, PartialEq)]
pub struct MemOperand {
    /// The memref value (a function argument).
    pub value: DynValue,
    /// Its declared type.
    pub ty: MemRefType,
}

/// An attribute kept as written.
#[derive(Clone, Debug, PartialEq)]
pub struct RawAttr {
    /// Its name (`handshake.bufProps`, `fastmath`, ...).
    pub name: String,
    /// The value's text as written, empty for a unit attribute (`ftd.imerge`).
    pub value: String,
    /// Where the name is written.
    pub span: Span,
}

/// One operation of a function body.
#[derive(Clone, Debug, PartialEq)]
pub struct DynOp {
    /// What the op is.
    pub kind: DynOpKind,
    /// Its mnemonic as printed (`noti` and `not` are one kind).
    pub mnemonic: String,
    /// The result groups as written. A `mem_controller`'s last result is its `memEnd`,
    /// which its printed type does not list.
    pub results: Vec<DynResult>,
    /// The value operands in printed order, the memref excluded. For `mem_controller`:
    /// `memStart`, the data inputs, `ctrlEnd`; for a master `lsq`: `memStart`, the groups'
    /// inputs, `ctrlEnd`; for `end`: the function's results.
    pub operands: Vec<DynValue>,
    /// The memref of a `mem_controller` or master `lsq`.
    pub memref: Option<MemOperand>,
    /// The operand types as the printed type list gives them (one per operand where the
    /// form says so; for op kinds the reader does not model, every type printed before `to`/`->`).
    pub in_types: Vec<DynType>,
    /// The result types as the printed type list gives them (a `mem_controller`'s implicit
    /// `memEnd` is not among them).
    pub out_types: Vec<DynType>,
    /// The stable instance name (`handshake.name`).
    pub name: Option<String>,
    /// The basic block (`handshake.bb`).
    pub bb: Option<u32>,
    /// Parameters specific to the op kind.
    pub params: OpParams,
    /// `latency = N : i64` (HEAD syntax), the pipeline depth.
    pub latency: Option<u32>,
    /// `internal_delay = "..."`, the key of the chosen implementation in `components.json`.
    pub internal_delay: Option<String>,
    /// `handshake.mem_interface` of a `load`/`store`.
    pub mem_interface: Option<MemInterfaceRef>,
    /// The attributes not parsed into the fields above, as written.
    pub attrs: Vec<RawAttr>,
    /// Where the mnemonic is written.
    pub name_span: Span,
    /// The whole op.
    pub span: Span,
}

/// Parameters that only some op kinds have.
#[derive(Clone, Debug, PartialEq)]
pub enum OpParams {
    /// Nothing beyond operands and types.
    None,
    /// `fork [N]` / `lazy_fork [N]`: the number of outputs.
    Fork {
        /// The printed size.
        size: u32,
    },
    /// A buffer's kind and capacity.
    Buffer(BufferParams),
    /// A constant's value.
    Constant(ConstValue),
    /// A `cmpi`/`cmpf` predicate.
    Compare(Predicate),
    /// A memory controller.
    MemController {
        /// `connectedBlocks`: the basic blocks whose accesses it serves, in port order.
        connected_blocks: Vec<u32>,
    },
    /// A load-store queue.
    Lsq(LsqParams),
    /// An `init`'s initial token (`initToken`), when given.
    Init {
        /// The initial token's value.
        init_token: Option<u64>,
    },
}

/// A buffer's parameters, from either syntax.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferParams {
    /// The buffer kind.
    pub kind: BufferType,
    /// Its capacity.
    pub slots: u32,
    /// `dvLatency` (E5 keyword form only).
    pub dv_latency: Option<u32>,
    /// Which syntax gave the parameters.
    pub form: BufferForm,
}

/// How a buffer's parameters are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferForm {
    /// `buffer %x, bufferType = K, numSlots = N[, dvLatency = L]` (E4, E5).
    Keywords,
    /// `hw.parameters = {BUFFER_TYPE = "K", NUM_SLOTS = N, TIMING = ...}` (E3).
    HwParametersWithType,
    /// `hw.parameters = {NUM_SLOTS = N, TIMING = ...}`, the kind derived from the timing (E2).
    HwParametersTiming,
}

/// Dynamatic's buffer kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BufferType {
    /// One register slot cutting data and valid (legacy OEHB).
    OneSlotBreakDv,
    /// One skid slot cutting ready (legacy TEHB).
    OneSlotBreakR,
    /// One slot cutting data, valid and ready.
    OneSlotBreakDvr,
    /// An N-slot FIFO cutting data and valid.
    FifoBreakDv,
    /// An N-slot FIFO with bypass, cutting nothing (legacy TFIFO).
    FifoBreakNone,
    /// An N-stage shift register, all stages advancing together.
    ShiftRegBreakDv,
    /// Holds one token for `dvLatency` cycles.
    CounterBuffer,
}

impl BufferType {
    /// Every kind.
    pub const ALL: [BufferType; 7] = [
        BufferType::OneSlotBreakDv,
        BufferType::OneSlotBreakR,
        BufferType::OneSlotBreakDvr,
        BufferType::FifoBreakDv,
        BufferType::FifoBreakNone,
        BufferType::ShiftRegBreakDv,
        BufferType::CounterBuffer,
    ];

    /// The keyword Dynamatic prints (`ONE_SLOT_BREAK_DV`, ...).
    pub fn keyword(self) -> &'static str {
        match self {
            BufferType::OneSlotBreakDv => "ONE_SLOT_BREAK_DV",
            BufferType::OneSlotBreakR => "ONE_SLOT_BREAK_R",
            BufferType::OneSlotBreakDvr => "ONE_SLOT_BREAK_DVR",
            BufferType::FifoBreakDv => "FIFO_BREAK_DV",
            BufferType::FifoBreakNone => "FIFO_BREAK_NONE",
            BufferType::ShiftRegBreakDv => "SHIFT_REG_BREAK_DV",
            BufferType::CounterBuffer => "COUNTER_BUFFER",
        }
    }

    /// The kind printed as `s`.
    pub fn from_keyword(s: &str) -> Option<BufferType> {
        BufferType::ALL.into_iter().find(|k| k.keyword() == s)
    }
}

/// A constant's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConstValue {
    /// An integer as its two's-complement bit pattern of `width` bits.
    Int {
        /// The bits (above `width` zero).
        bits: u64,
        /// The width of the value's type.
        width: u16,
    },
    /// `true` / `false` (an `i1`).
    Bool(bool),
    /// A float as its IEEE-754 bit pattern.
    Float {
        /// The bits (an f32's in the low 32).
        bits: u64,
        /// f32 or f64.
        kind: FloatKind,
    },
}

/// A comparison predicate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Predicate {
    /// Of a `cmpi`.
    Int(CmpPredicate),
    /// Of a `cmpf`.
    Float(FloatPredicate),
}

/// Whether an LSQ owns its memory or sits behind a memory controller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LsqMode {
    /// `lsq[%mem : memref<...>]`: talks to the memory itself, has `memStart`/`ctrlEnd`/`memEnd`.
    Master,
    /// `lsq[MC]`: its requests go through a `mem_controller`.
    Slave,
}

/// An LSQ's parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LsqParams {
    /// Master or slave.
    pub mode: LsqMode,
    /// `groupSizes`: accesses per group.
    pub group_sizes: Vec<u32>,
    /// `handshake.lsqDepth` (load queue, store queue), when given.
    pub depth: Option<(u32, u32)>,
}

/// Which interface a `load`/`store` talks to (`handshake.mem_interface`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemInterfaceRef {
    /// `<MC>`: a memory controller.
    Mc,
    /// `<LSQ: g>`: an LSQ, in its group `g`.
    Lsq(u32),
}
