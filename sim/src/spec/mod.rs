//! One description per component.
//!
//! [`spec`] is the one place that says, for every operation, what its ports are called and how
//! many there are, which types they must have, which of its signals depend combinationally on
//! which, which registers it holds, how it is drawn and what it waits for when a circuit is
//! stuck. Every part of Handscope that needs one of these facts reads it from here: the
//! verifier ([`crate::verify`]), the MLIR op checker, the DOT writer, the CIRCT name mapping,
//! the engine's register layout, the debugger's scene and the deadlock analysis.
//!
//! Each aspect is a small enum ([`Ports`], [`Typing`], [`Comb`], [`StateLayout`],
//! [`DisplayClass`], [`WaitRule`]) whose meaning is implemented once, in this module's
//! submodules; [`spec`] picks the aspects of each op in one exhaustive `match`. A new [`Op`]
//! variant is therefore a compile error here, in [`Op::kind`], and in every other exhaustive
//! match over ops that computes something per op (the engine's compiler, the SystemVerilog
//! component library, the MLIR writer, the deadlock explanations). The cycle behaviour itself
//! is documented in `docs/semantics.md`.

mod comb;
mod display;
mod ports;
mod state;
pub mod timing;
mod typing;

pub use comb::{Comb, PortSignal};
pub use display::{Detail, DisplayClass, describe_op, signed_value};
pub use ports::{Count, CountContext, PortRef, Ports, Resolved};
pub use state::{
    IslandPhase, IslandState, LsqCtl, LsqLoadEntry, LsqLoadPart, LsqState, LsqStoreEntry,
    LsqStorePart, NodeState, PipelineState, RegField, SlotPart, SlotState, StageToken, StateLayout,
    addr_queue_regs, cmerge_regs, fifo_regs, island_regs, lsq_regs, mc_regs, skid_merge_regs,
    slot_regs, stage_regs,
};
pub use typing::{Typing, Violation, ViolationKind};

use crate::ops::Op;
use crate::types::Type;

/// What a node needs before it can make progress; the deadlock analysis follows these edges
/// backwards from stuck tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitRule {
    /// Nothing inside the graph (function arguments, `source`, `never`, `sink`).
    Nothing,
    /// Every input.
    AllInputs,
    /// The select input, then the data input it selects (`mux`).
    SelectedInput,
    /// Any one input (`merge`, `control_merge`).
    AnyInput,
    /// The condition (input 0), then the input it chooses (1 when true, 2 when false), and
    /// an input whose token an antitoken waits to discard (Dynamatic's `select`).
    ConditionThenChosen,
    /// Dynamatic's memory controller, whose end waits for its `ctrlEnd` (the last input)
    /// and for the stores its block controls announced: the half of a store request that has
    /// not arrived. When announced stores are missing and no store port has a token, nothing
    /// upstream is to blame: the controller itself is the end of the chain.
    MemoryEnd,
    /// Its input, but only while it holds no token (`buffer`).
    InputWhenEmpty,
    /// Dynamatic's load-store queue: the addresses and data its allocated entries lack, then
    /// (master) `ctrlEnd` once both queues are empty. A group token that no queue depth can
    /// take waits for nothing upstream: the queue is the end of the chain.
    QueueEntries,
    /// An address queue: a load port waits for its address and ordering token, then for
    /// the `stDone` of the queued store with its address; a store port for its address and
    /// ordering token, then (queue full) for the oldest store's `stDone`; `stDone<j>` for
    /// nothing upstream.
    QueuedStores,
}

/// Whether CIRCT 1.62's `lower-handshake-to-hw` turns an op into RTL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CirctLowering {
    /// Lowered (possibly with a known bug, see `docs/semantics.md`).
    Lowered,
    /// Not lowered: a circuit containing it cannot be compared against CIRCT's RTL.
    NotLowered,
    /// Not a component of its own (arguments, `return`, `instance`): handled by the function.
    Structural,
}

/// Everything Handscope knows about one operation, independent of any particular node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComponentSpec {
    /// Input ports: names and how many.
    pub inputs: Ports,
    /// Output ports: names and how many.
    pub outputs: Ports,
    /// Type and attribute rules over the port types.
    pub typing: Typing,
    /// Combinational dependencies between the signals of the ports.
    pub comb: Comb,
    /// Registers (named, typed fields), in the engine's word order.
    pub state: StateLayout,
    /// How drawings show it.
    pub display: DisplayClass,
    /// What it waits for when stuck.
    pub waits_for: WaitRule,
    /// Whether CIRCT 1.62 lowers it to RTL.
    pub circt: CirctLowering,
}

/// The specification of `op`.
pub fn spec(op: &Op) -> ComponentSpec {
    use CirctLowering::{Lowered, NotLowered, Structural};
    use Count::{AtLeast, Exactly, FunctionResults, SameAsInputs};
    let numbered = |prefix, count| Ports::Numbered { prefix, count };
    let s = |inputs, outputs, typing, comb, state, display, waits_for, circt| ComponentSpec {
        inputs,
        outputs,
        typing,
        comb,
        state,
        display,
        waits_for,
        circt,
    };
    match op {
        Op::Argument { .. } => s(
            Ports::None,
            numbered("out", Exactly(1)),
            Typing::Signature,
            Comb::None,
            StateLayout::None,
            DisplayClass::Argument,
            WaitRule::Nothing,
            Structural,
        ),
        Op::Return => s(
            numbered("in", FunctionResults),
            Ports::None,
            Typing::Signature,
            Comb::None,
            StateLayout::None,
            DisplayClass::Result,
            WaitRule::AllInputs,
            Structural,
        ),
        Op::Fork => s(
            numbered("in", Exactly(1)),
            numbered("out", AtLeast(1)),
            Typing::OutputsLikeInput,
            Comb::Join,
            StateLayout::EmittedPerOutput,
            DisplayClass::Fork,
            WaitRule::AllInputs,
            Lowered,
        ),
        Op::LazyFork => s(
            numbered("in", Exactly(1)),
            numbered("out", AtLeast(1)),
            Typing::OutputsLikeInput,
            Comb::LazyFork,
            StateLayout::None,
            DisplayClass::Fork,
            WaitRule::AllInputs,
            NotLowered,
        ),
        Op::Merge => s(
            numbered("in", AtLeast(1)),
            numbered("out", Exactly(1)),
            Typing::InputsLikeOutput,
            Comb::Join,
            StateLayout::None,
            DisplayClass::Merge,
            WaitRule::AnyInput,
            Lowered,
        ),
        Op::Mux => s(
            Ports::SelectThenData,
            numbered("out", Exactly(1)),
            Typing::Mux,
            Comb::Join,
            StateLayout::None,
            DisplayClass::Merge,
            WaitRule::SelectedInput,
            Lowered,
        ),
        Op::ControlMerge => s(
            numbered("in", AtLeast(1)),
            Ports::Named(&["dataOut", "index"]),
            Typing::ControlMerge,
            Comb::Join,
            StateLayout::ControlMerge,
            DisplayClass::Merge,
            WaitRule::AnyInput,
            Lowered,
        ),
        Op::CondBr => s(
            Ports::Named(&["cond", "data"]),
            Ports::Named(&["outTrue", "outFalse"]),
            Typing::CondBr,
            Comb::Join,
            StateLayout::None,
            DisplayClass::Branch,
            WaitRule::AllInputs,
            Lowered,
        ),
        Op::Br => s(
            numbered("in", Exactly(1)),
            numbered("out", Exactly(1)),
            Typing::OutputsLikeInput,
            Comb::Join,
            StateLayout::None,
            DisplayClass::Wire,
            WaitRule::AllInputs,
            NotLowered,
        ),
        Op::Join => s(
            numbered("in", AtLeast(1)),
            numbered("out", Exactly(1)),
            Typing::NoneOutput,
            Comb::Join,
            StateLayout::None,
            DisplayClass::Join,
            WaitRule::AllInputs,
            Lowered,
        ),
        Op::Sync => s(
            numbered("in", AtLeast(1)),
            numbered("out", SameAsInputs),
            Typing::Pairwise,
            Comb::Join,
            StateLayout::EmittedPerOutput,
            DisplayClass::Join,
            WaitRule::AllInputs,
            Lowered,
        ),
        Op::Pack => s(
            numbered("in", AtLeast(1)),
            numbered("out", Exactly(1)),
            Typing::Pack,
            Comb::Join,
            StateLayout::None,
            DisplayClass::Tuple,
            WaitRule::AllInputs,
            Lowered,
        ),
        Op::Unpack => s(
            numbered("in", Exactly(1)),
            numbered("out", AtLeast(1)),
            Typing::Unpack,
            Comb::Join,
            StateLayout::EmittedPerOutput,
            DisplayClass::Tuple,
            WaitRule::AllInputs,
            Lowered,
        ),
        Op::Buffer { slots, .. } => s(
            numbered("in", Exactly(1)),
            numbered("out", Exactly(1)),
            Typing::OutputsLikeInput,
            Comb::None,
            StateLayout::BufferSlots { slots: *slots },
            DisplayClass::Buffer,
            WaitRule::InputWhenEmpty,
            Lowered,
        ),
        Op::Constant { .. } => s(
            Ports::Named(&["ctrl"]),
            numbered("out", Exactly(1)),
            Typing::Constant,
            Comb::Join,
            StateLayout::None,
            DisplayClass::Constant,
            WaitRule::AllInputs,
            Lowered,
        ),
        Op::Source => s(
            Ports::None,
            numbered("out", Exactly(1)),
            Typing::NoneOutput,
            Comb::None,
            StateLayout::None,
            DisplayClass::Endpoint,
            WaitRule::Nothing,
            Lowered,
        ),
        Op::Sink => s(
            numbered("in", Exactly(1)),
            Ports::None,
            Typing::Any,
            Comb::None,
            StateLayout::None,
            DisplayClass::Endpoint,
            WaitRule::Nothing,
            Lowered,
        ),
        Op::Never => s(
            Ports::None,
            numbered("out", Exactly(1)),
            Typing::Any,
            Comb::None,
            StateLayout::None,
            DisplayClass::Endpoint,
            WaitRule::Nothing,
            NotLowered,
        ),
        Op::Load => s(
            Ports::Named(&["addrIn0", "dataFromMem", "ctrl"]),
            Ports::Named(&["dataOut", "addrOut0"]),
            Typing::MemoryAccess,
            Comb::Load,
            StateLayout::None,
            DisplayClass::MemoryAccess,
            WaitRule::AllInputs,
            Lowered,
        ),
        Op::Store => s(
            Ports::Named(&["addrIn0", "dataIn", "ctrl"]),
            Ports::Named(&["dataToMem", "addrOut0"]),
            Typing::MemoryAccess,
            Comb::Join,
            StateLayout::None,
            DisplayClass::MemoryAccess,
            WaitRule::AllInputs,
            Lowered,
        ),
        Op::Memory { ld, st, .. } | Op::ExtMemory { ld, st, .. } => s(
            Ports::MemoryInputs { ld: *ld, st: *st },
            Ports::MemoryOutputs { ld: *ld, st: *st },
            Typing::Memory,
            Comb::Memory { ld: *ld, st: *st },
            StateLayout::MemoryPorts { ld: *ld, st: *st },
            DisplayClass::Memory,
            WaitRule::AllInputs,
            Lowered,
        ),
        Op::Instance { .. } => s(
            numbered("in", Count::Callee),
            numbered("out", Count::Callee),
            Typing::Signature,
            Comb::None,
            StateLayout::None,
            DisplayClass::Instance,
            WaitRule::AllInputs,
            Structural,
        ),
        Op::Pipeline { latency, ii } => s(
            numbered("in", Exactly(1)),
            numbered("out", Exactly(1)),
            Typing::OutputsLikeInput,
            Comb::Pipeline,
            StateLayout::Pipeline {
                latency: *latency,
                ii: *ii,
            },
            DisplayClass::Pipeline,
            WaitRule::InputWhenEmpty,
            NotLowered,
        ),
        Op::DynBuffer { kind, slots } => s(
            numbered("in", Exactly(1)),
            numbered("out", Exactly(1)),
            Typing::OutputsLikeInput,
            if kind.bypass() {
                Comb::Bypass {
                    ready_through: kind.ready_through(),
                }
            } else if kind.ready_through() {
                Comb::Pipeline
            } else {
                Comb::None
            },
            StateLayout::Fifo { slots: *slots },
            DisplayClass::Buffer,
            WaitRule::InputWhenEmpty,
            NotLowered,
        ),
        Op::DynPipeline { latency } => s(
            numbered("in", Exactly(1)),
            numbered("out", Exactly(1)),
            Typing::OutputsLikeInput,
            Comb::Pipeline,
            StateLayout::Pipeline {
                latency: *latency,
                ii: 1,
            },
            DisplayClass::Pipeline,
            WaitRule::InputWhenEmpty,
            NotLowered,
        ),
        // One place: COUNT, HEAD (the cycles still to wait) and the token.
        Op::DynCounterBuffer { .. } => s(
            numbered("in", Exactly(1)),
            numbered("out", Exactly(1)),
            Typing::OutputsLikeInput,
            Comb::Pipeline,
            StateLayout::Fifo { slots: 1 },
            DisplayClass::Buffer,
            WaitRule::InputWhenEmpty,
            NotLowered,
        ),
        // The loop's schedule is fixed when it is built: timing profiles leave it alone.
        Op::Island(isl) => s(
            numbered("in", AtLeast(1)),
            numbered("out", AtLeast(1)),
            Typing::Island,
            Comb::Island,
            StateLayout::Island {
                outputs: isl.results() as u32 + 1,
                slots: isl.slots.len() as u32,
            },
            DisplayClass::Island,
            WaitRule::AllInputs,
            NotLowered,
        ),
        Op::DynControlMerge => s(
            numbered("in", AtLeast(1)),
            Ports::Named(&["outs", "index"]),
            Typing::ControlMerge,
            Comb::SkidMerge,
            StateLayout::SkidMerge,
            DisplayClass::Merge,
            WaitRule::AnyInput,
            NotLowered,
        ),
        Op::DynLoad => s(
            Ports::Named(&["addrIn", "dataFromMem"]),
            Ports::Named(&["addrOut", "dataOut"]),
            Typing::Pairwise,
            Comb::Parallel {
                ready_through: false,
            },
            StateLayout::LoadPaths,
            DisplayClass::MemoryAccess,
            WaitRule::AllInputs,
            NotLowered,
        ),
        Op::DynStore => s(
            Ports::Named(&["addrIn", "dataIn"]),
            Ports::Named(&["addrOut", "dataToMem"]),
            Typing::Pairwise,
            Comb::Parallel {
                ready_through: true,
            },
            StateLayout::None,
            DisplayClass::MemoryAccess,
            WaitRule::AllInputs,
            NotLowered,
        ),
        Op::DynMemController { ctrl, ld, st, .. } => s(
            Ports::DynMcInputs {
                ctrl: *ctrl,
                ld: *ld,
                st: *st,
            },
            Ports::DynMcOutputs { ld: *ld },
            Typing::DynMemory,
            Comb::DynMc {
                ctrl: *ctrl,
                ld: *ld,
                st: *st,
            },
            StateLayout::DynMc { ld: *ld },
            DisplayClass::Memory,
            WaitRule::MemoryEnd,
            NotLowered,
        ),
        Op::AddrQueue { ld, st, depth } => s(
            Ports::AddrQueueInputs { ld: *ld, st: *st },
            Ports::AddrQueueOutputs { ld: *ld, st: *st },
            Typing::AddrQueue,
            Comb::AddrQueue { ld: *ld, st: *st },
            StateLayout::AddrQueue {
                depth: *depth,
                loads: *ld,
                stores: *st,
            },
            DisplayClass::MemoryAccess,
            WaitRule::QueuedStores,
            NotLowered,
        ),
        Op::DynLsq { shape, memref, .. } => {
            let (g, ld, st) = (
                shape.groups.len() as u32,
                shape.load_ports(),
                shape.store_ports(),
            );
            let master = memref.is_some();
            s(
                if master {
                    Ports::DynMcInputs { ctrl: g, ld, st }
                } else {
                    Ports::DynLsqSlaveInputs { groups: g, ld, st }
                },
                if master {
                    Ports::DynMcOutputs { ld }
                } else {
                    Ports::DynLsqSlaveOutputs { ld }
                },
                Typing::DynLsq,
                Comb::None,
                StateLayout::DynLsq {
                    loads: shape.load_depth,
                    stores: shape.store_depth,
                },
                DisplayClass::Memory,
                WaitRule::QueueEntries,
                NotLowered,
            )
        }
        Op::DynSelect => s(
            Ports::Named(&["condition", "trueValue", "falseValue"]),
            Ports::Named(&["result"]),
            Typing::Arith(crate::ops::ArithClass::Select),
            Comb::Join,
            StateLayout::Antitokens,
            DisplayClass::Compute,
            WaitRule::ConditionThenChosen,
            NotLowered,
        ),
        Op::Arith(a) => s(
            numbered("in", Exactly(a.arity())),
            numbered("out", Exactly(1)),
            Typing::Arith(a.class()),
            Comb::Join,
            StateLayout::None,
            DisplayClass::Compute,
            WaitRule::AllInputs,
            a.circt(),
        ),
    }
}

impl Op {
    /// This op's [`ComponentSpec`].
    pub fn spec(&self) -> ComponentSpec {
        spec(self)
    }

    /// Name of input port `i` as CIRCT's RTL names it (`in0`, `select`, `ldAddr1`, ...).
    pub fn input_port_name(&self, i: usize) -> String {
        self.spec().inputs.name(i)
    }

    /// Name of output port `i` as CIRCT's RTL names it (`out0`, `outTrue`, `ldData0`, ...).
    pub fn output_port_name(&self, i: usize) -> String {
        self.spec().outputs.name(i)
    }

    /// True when the op holds registers (and needs `clock` and `reset` in RTL).
    pub fn is_stateful(&self) -> bool {
        self.spec().state != StateLayout::None
    }
}

/// The data input a `mux` with `n_data` data inputs takes for select value `select`, as CIRCT's
/// RTL decides it: only the low `ceil(log2 n_data)` bits of the select count (so an `i1` true
/// sign-extended to `index`, -1, picks the last input of a 2-input mux); when those bits name
/// no input (possible when `n_data` is not a power of two) the mux takes nothing. See
/// `docs/semantics.md`.
#[inline(always)]
pub fn mux_input(select: u64, n_data: usize) -> Option<usize> {
    let k = (select & mux_select_mask(n_data)) as usize;
    (k < n_data).then_some(k)
}

/// The select bits a `mux` with `n_data` data inputs reads: `2^ceil(log2 n_data) - 1`.
#[inline(always)]
pub fn mux_select_mask(n_data: usize) -> u64 {
    (n_data.max(1).next_power_of_two() as u64) - 1
}

/// The runtime event text for a `mux` whose select (`bits`, the select's bit pattern, and
/// `value`, the same read as a signed number) is out of range for `n_data` data inputs.
pub fn mux_select_note(bits: u64, value: i64, n_data: usize) -> String {
    let b = mux_select_bits(n_data);
    let what = match mux_input(bits, n_data) {
        Some(i) => format!("it takes in{i}"),
        None => "no input matches, so it takes nothing".into(),
    };
    format!(
        "select {value} is out of range for {n_data} data inputs; its low {b} bit{} count, as in CIRCT's RTL: {what}",
        if b == 1 { "" } else { "s" }
    )
}

/// The bits of a divisor of type `ty` that must all be 0 for a division-by-zero event: every
/// bit of an integer, every bit but the sign of a float (`+0` and `-0` are zero).
pub fn divisor_zero_mask(ty: &Type) -> u64 {
    match ty.float_kind() {
        Some(k) => !crate::float::sign_bit(k) & crate::types::width_mask(k.bits()),
        None => u64::MAX,
    }
}

/// The runtime event text for a division or remainder by zero whose result (of type `ty`) has
/// bit pattern `result`: integers give 0, floats the IEEE result (infinity or NaN).
pub fn division_by_zero_note(ty: &Type, result: u64) -> String {
    match ty.float_kind() {
        Some(k) => format!(
            "division by zero; the IEEE result is {}",
            crate::float::format_float(result, k)
        ),
        None => "division by zero; the result is 0".into(),
    }
}

/// Number of select bits a `mux` with `n_data` data inputs reads (`ceil(log2 n_data)`).
pub fn mux_select_bits(n_data: usize) -> u32 {
    mux_select_mask(n_data).count_ones()
}

/// Checks a node's port counts and port types against its op's spec: the number of inputs and
/// outputs first (given the function's result count for `return`), then, when they are right,
/// the type and attribute rules. `instance` nodes are checked against their callee by the
/// verifier, not here.
pub fn check_node(op: &Op, ins: &[Type], outs: &[Type], function_results: usize) -> Vec<Violation> {
    let sp = spec(op);
    let mut v = Vec::new();
    let cx = ports::CountContext {
        inputs: ins.len(),
        function_results,
    };
    for (what, ports, n) in [
        ("inputs", &sp.inputs, ins.len()),
        ("outputs", &sp.outputs, outs.len()),
    ] {
        if let Some(c) = ports.count().resolve(&cx)
            && !c.accepts(n)
        {
            v.push(Violation {
                kind: ViolationKind::Count,
                message: format!("has {n} {what}, expected {}", c.describe()),
            });
        }
    }
    if v.is_empty() {
        v.extend(typing::check(op, &sp, ins, outs));
    }
    v
}

#[cfg(test)]
mod tests;
