//! The flat program a [`Function`](crate::Function) compiles to: instruction lists for the
//! forward (valid/data), backward (ready) and clock passes over struct-of-arrays state.

use super::arith::{BinOp, CastKind};
use super::float_arith::{FBinOp, FConv, FUnOp};
use crate::ops::{CmpPredicate, FloatPredicate};
use crate::types::FloatKind;

/// A slice `[start, start + len)` of [`Program::ports`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Span {
    /// First element.
    pub start: u32,
    /// Number of elements.
    pub len: u32,
}

impl Span {
    /// The range of indices into `ports`.
    #[inline(always)]
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..(self.start + self.len) as usize
    }
}

/// Forward-pass instruction: computes output valid/data from input valid/data and registers.
#[derive(Clone, Debug)]
pub enum Fwd {
    /// Binary arith op, join semantics.
    Bin {
        op: BinOp,
        a: u32,
        b: u32,
        out: u32,
        w: u8,
    },
    /// `cmpi`.
    Cmp {
        pred: CmpPredicate,
        a: u32,
        b: u32,
        out: u32,
        w: u8,
    },
    /// `select`.
    Select { c: u32, t: u32, f: u32, out: u32 },
    /// Binary float op, join semantics.
    FBin {
        op: FBinOp,
        a: u32,
        b: u32,
        out: u32,
        kind: FloatKind,
    },
    /// Unary float op.
    FUn {
        op: FUnOp,
        a: u32,
        out: u32,
        kind: FloatKind,
    },
    /// A `<math.h>` function (`b` is `a` for the one-operand ones), join semantics.
    FMath {
        f: crate::math_fn::MathFn,
        a: u32,
        b: u32,
        out: u32,
        kind: FloatKind,
    },
    /// `cmpf`.
    FCmp {
        pred: FloatPredicate,
        a: u32,
        b: u32,
        out: u32,
        kind: FloatKind,
    },
    /// Int/float and float/float conversions (`from`/`to`: operand and result widths).
    FConv {
        conv: FConv,
        a: u32,
        out: u32,
        from: u8,
        to: u8,
    },
    /// Width casts.
    Cast {
        kind: CastKind,
        a: u32,
        out: u32,
        from: u8,
        to: u8,
    },
    /// Join of `ins`; data copied from channel `data_from` (or 0 when `u32::MAX`).
    Join { ins: Span, data_from: u32, out: u32 },
    /// `pack`: join, data is the concatenation (field 0 in the most significant bits).
    Pack { ins: Span, out: u32 },
    /// Pass-through of valid and data (`br`, the data half of `load`).
    Wire { inp: u32, out: u32 },
    /// `cond_br`.
    CondBr {
        cond: u32,
        data: u32,
        t: u32,
        f: u32,
    },
    /// `mux`.
    Mux { sel: u32, ins: Span, out: u32 },
    /// `merge`.
    Merge { ins: Span, out: u32 },
    /// `control_merge`.
    Cmerge {
        ins: Span,
        out: u32,
        idx: u32,
        reg: u32,
    },
    /// Eager fork: `outs` fed from `inp` (data copied), emitted registers at `reg`.
    Fork { inp: u32, outs: Span, reg: u32 },
    /// `sync`: join of `ins`, eager fork over `outs` (out i carries in i's data).
    Sync { ins: Span, outs: Span, reg: u32 },
    /// `unpack`: eager fork, out i carries field i (shifts in `shifts`).
    Unpack {
        inp: u32,
        outs: Span,
        shifts: Span,
        reg: u32,
    },
    /// `lazy_fork`: valid depends on the other outputs' ready.
    LazyFork { inp: u32, outs: Span },
    /// Buffer output from the last slot's registers at `reg`.
    BufOut { out: u32, reg: u32 },
    /// Pipeline output from the last stage's registers at `reg`.
    PipeOut { out: u32, reg: u32 },
    /// Dynamatic buffer output: the FIFO's head, or (with a bypass, while empty) the input.
    DynBufOut {
        inp: u32,
        out: u32,
        reg: u32,
        bypass: bool,
    },
    /// Dynamatic `COUNTER_BUFFER` output: its token once its wait is over.
    DynCountOut { out: u32, reg: u32 },
    /// Static island outputs: its results (and the control token) while offering, each
    /// until taken.
    IslandOut { outs: Span, reg: u32 },
    /// Dynamatic `control_merge`: the skid register's winner, or the priority choice, onto
    /// `out` and `idx` (each until its fork flag is set).
    DynMerge {
        ins: Span,
        out: u32,
        idx: u32,
        reg: u32,
    },
    /// Dynamatic memory controller `mc`: read data and `memEnd` from its registers.
    DynMcOut { mc: u32 },
    /// Dynamatic load-store queue `lsq`: load data, `memEnd` and (slave) the requests to the
    /// memory controller, from its registers.
    DynLsqOut { lsq: u32 },
    /// Address queue `q`'s load port `port`: the address passes while no queued store
    /// address equals it.
    AqLoad { q: u32, port: u32 },
    /// Address queue `q`: every `stOrderOut<j>` from its pending registers.
    AqStoreOut { q: u32 },
    /// Dynamatic `select`: the chosen input onto `out` while no antitoken waits.
    DynSelect {
        c: u32,
        t: u32,
        f: u32,
        out: u32,
        reg: u32,
    },
    /// `constant`.
    Const { ctrl: u32, out: u32, value: u64 },
    /// `source` (valid) / `never` (not valid).
    Fixed { out: u32, valid: bool },
    /// `store`: lazy join of addr, data, ctrl onto `dout` and `aout`.
    Store {
        addr: u32,
        data: u32,
        ctrl: u32,
        dout: u32,
        aout: u32,
    },
    /// Memory load port: eager fork of `addr` onto `ld` (= mem[addr]) and `done`.
    MemLd {
        addr: u32,
        ld: u32,
        done: u32,
        reg: u32,
        mem: u32,
    },
    /// Memory store port completion: `done.valid = wvb`.
    MemStDone { done: u32, reg: u32 },
    /// Two-output [`Fwd::Fork`].
    Fork2 {
        inp: u32,
        o0: u32,
        o1: u32,
        reg: u32,
    },
    /// Two-channel [`Fwd::Sync`].
    Sync2 {
        i0: u32,
        i1: u32,
        o0: u32,
        o1: u32,
        reg: u32,
    },
    /// An operation with an operand or result wider than 64 bits: [`Program::wide`]`[op]`.
    Wide { op: u32 },
}

/// A data operation on words wider than 64 bits (see [`crate::wide`]), evaluated by
/// [`super::wide_arith`]. Valid and emitted-register logic is that of the narrow instruction
/// it replaces; the data is only computed when the inputs it needs are valid (the data of a
/// channel that is not valid is a don't-care, and computing it would intern values no token
/// carries).
#[derive(Clone, Debug)]
pub enum WideOp {
    /// As [`Fwd::Bin`], at `w` bits.
    Bin {
        op: BinOp,
        a: u32,
        b: u32,
        out: u32,
        w: u32,
    },
    /// As [`Fwd::Cmp`], operands of `w` bits.
    Cmp {
        pred: CmpPredicate,
        a: u32,
        b: u32,
        out: u32,
        w: u32,
    },
    /// As [`Fwd::Cast`].
    Cast {
        kind: CastKind,
        a: u32,
        out: u32,
        from: u32,
        to: u32,
    },
    /// As [`Fwd::Pack`]: `fields` are (channel, width), field 0 in the most significant bits.
    Pack { fields: Vec<(u32, u32)>, out: u32 },
    /// As [`Fwd::Unpack`] of an input `in_width` bits wide: `fields` are (output channel,
    /// shift, width).
    Unpack {
        inp: u32,
        in_width: u32,
        fields: Vec<(u32, u32, u32)>,
        reg: u32,
    },
}

/// Backward-pass instruction: computes input ready from output ready and settled valids.
#[derive(Clone, Debug)]
pub enum Bwd {
    /// Join: every input ready = out.valid & out.ready.
    Join { ins: Span, out: u32 },
    /// `inp.ready = out.ready`.
    Wire { inp: u32, out: u32 },
    /// Always ready (`sink`).
    Sink { inp: u32 },
    /// `cond_br`.
    CondBr {
        cond: u32,
        data: u32,
        t: u32,
        f: u32,
    },
    /// `mux`.
    Mux { sel: u32, ins: Span, out: u32 },
    /// `merge`.
    Merge { ins: Span, out: u32 },
    /// `control_merge`.
    Cmerge {
        ins: Span,
        out: u32,
        idx: u32,
        reg: u32,
    },
    /// Eager fork: `inp.ready = allDone`.
    Fork { inp: u32, outs: Span, reg: u32 },
    /// `sync`: inputs ready = join valid & allDone.
    Sync { ins: Span, outs: Span, reg: u32 },
    /// `lazy_fork`: `in.ready = AND(outs ready)`.
    LazyFork { inp: u32, outs: Span },
    /// Buffer input from the first slot's registers.
    BufIn { inp: u32, reg: u32 },
    /// Pipeline input: ready when the cooldown is over and a stage is free or the last one
    /// passes its token on.
    PipeIn {
        inp: u32,
        out: u32,
        reg: u32,
        latency: u32,
        ii: u32,
    },
    /// Dynamatic buffer input: ready while not full, or (when ready-through) when the head
    /// leaves.
    DynBufIn {
        inp: u32,
        out: u32,
        reg: u32,
        slots: u32,
        through: bool,
    },
    /// Dynamatic pipeline input: ready while the last stage (at `last`) is empty or taken.
    DynPipeIn { inp: u32, out: u32, last: u32 },
    /// Dynamatic `COUNTER_BUFFER` input: ready while empty, or when its token leaves.
    DynCountIn { inp: u32, out: u32, reg: u32 },
    /// Static island inputs: all ready together while idle and every input is valid.
    IslandIn { ins: Span, reg: u32 },
    /// Dynamatic `control_merge` inputs: the priority winner is ready while the skid
    /// register is empty.
    DynMerge { ins: Span, reg: u32 },
    /// Dynamatic memory controller `mc`: its arbiters' grants and its control readies.
    DynMcIn { mc: u32 },
    /// Dynamatic load-store queue `lsq`: group, address and data readies from its registers.
    DynLsqIn { lsq: u32 },
    /// Address queue `q`: store ports' readies (room, `stOrderOut` free) and `stDone`
    /// readies (the head's port).
    AqStoreIn { q: u32 },
    /// Dynamatic `select` inputs: ready without a token, when the result fires, or to be
    /// discarded by an antitoken.
    DynSelect {
        c: u32,
        t: u32,
        f: u32,
        out: u32,
        reg: u32,
    },
    /// `store`.
    Store {
        addr: u32,
        data: u32,
        ctrl: u32,
        dout: u32,
        aout: u32,
    },
    /// Memory store port readiness from the write-valid buffer.
    MemSt {
        addr: u32,
        data: u32,
        done: u32,
        reg: u32,
    },
    /// Two-input [`Bwd::Join`].
    Join2 { a: u32, b: u32, out: u32 },
    /// Two-output [`Bwd::Fork`].
    Fork2 {
        inp: u32,
        o0: u32,
        o1: u32,
        reg: u32,
    },
    /// Two-channel [`Bwd::Sync`].
    Sync2 {
        i0: u32,
        i1: u32,
        o0: u32,
        o1: u32,
        reg: u32,
    },
    /// [`Bwd::Fork2`] that also applies its clock edge (see [`Program::bwd_step`]).
    Fork2Clk {
        inp: u32,
        o0: u32,
        o1: u32,
        reg: u32,
    },
    /// [`Bwd::Sync2`] that also applies its clock edge (see [`Program::bwd_step`]).
    Sync2Clk {
        i0: u32,
        i1: u32,
        o0: u32,
        o1: u32,
        reg: u32,
    },
}

/// Clock-edge instruction: updates registers (and memories) from the settled values.
#[derive(Clone, Debug)]
pub enum Clk {
    /// Eager-fork emitted registers for `outs`.
    Emit { outs: Span, reg: u32 },
    /// `control_merge` registers.
    Cmerge {
        ins: Span,
        out: u32,
        idx: u32,
        reg: u32,
    },
    /// Buffer slots.
    Buffer {
        inp: u32,
        out: u32,
        reg: u32,
        slots: u32,
    },
    /// Pipeline stages and cooldown.
    Pipe {
        inp: u32,
        out: u32,
        reg: u32,
        latency: u32,
        ii: u32,
    },
    /// Memory store port: write and write-valid buffer.
    MemSt {
        addr: u32,
        data: u32,
        done: u32,
        reg: u32,
        mem: u32,
    },
    /// Dynamatic buffer: the FIFO takes and gives tokens.
    DynBuf {
        inp: u32,
        out: u32,
        reg: u32,
        slots: u32,
        bypass: bool,
    },
    /// Static island [`Program::islands`]`[island]`: takes its inputs and runs its loop,
    /// counts down to its results, hands them out.
    Island {
        ins: Span,
        outs: Span,
        reg: u32,
        island: u32,
    },
    /// Dynamatic `COUNTER_BUFFER`: takes a token and counts `latency - 1` cycles down.
    DynCount {
        inp: u32,
        out: u32,
        reg: u32,
        latency: u32,
    },
    /// Dynamatic pipeline: every stage shifts while the last is empty or taken.
    DynPipe {
        inp: u32,
        out: u32,
        reg: u32,
        latency: u32,
    },
    /// Dynamatic `control_merge`: skid register and fork flags.
    DynMerge {
        ins: Span,
        out: u32,
        idx: u32,
        reg: u32,
    },
    /// Dynamatic memory controller `mc`: the write, the read, the store count and the
    /// start/end handshake.
    DynMc { mc: u32 },
    /// Dynamatic load-store queue `lsq`: allocation, arrivals, issue, answers, frees.
    DynLsq { lsq: u32 },
    /// Address queue `q`: dequeue, enqueue, the pending flags.
    Aq { q: u32 },
    /// Dynamatic `select`: its two antitoken registers.
    DynSelect {
        c: u32,
        t: u32,
        f: u32,
        out: u32,
        reg: u32,
    },
}

/// Instructions stored as plain operand tuples in [`Program::typed`] and run in a loop
/// without per-instruction dispatch (the commonest shapes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypedOp {
    /// [`Fwd::Fork2`]: `[inp, o0, o1, reg]`.
    Fork2Fwd,
    /// [`Fwd::Sync2`]: `[i0, i1, o0, o1, reg]`.
    Sync2Fwd,
    /// [`Bwd::Fork2`]: `[inp, o0, o1, reg]`.
    Fork2Bwd,
    /// [`Bwd::Sync2`]: `[i0, i1, o0, o1, reg]`.
    Sync2Bwd,
    /// [`Bwd::Fork2Clk`]: `[inp, o0, o1, reg]`.
    Fork2Clk,
    /// [`Bwd::Sync2Clk`]: `[i0, i1, o0, o1, reg]`.
    Sync2Clk,
    /// [`Bwd::Join2`]: `[a, b, out]`.
    Join2Bwd,
}

/// A run of instructions: straight-line, or a combinational cycle iterated to a fixed point.
#[derive(Clone, Debug)]
pub enum Seg {
    /// Execute instructions `[start, end)` once.
    Straight(u32, u32),
    /// Execute the operand tuples `[start, end)` of [`Program::typed`] once, as `op`.
    Typed { op: TypedOp, start: u32, end: u32 },
    /// Iterate instructions `[start, end)` until the channels in `chans` settle.
    Loop {
        start: u32,
        end: u32,
        chans: Span,
        node: u32,
    },
}

/// Static description of one memory (internal or external).
#[derive(Clone, Debug)]
pub struct MemInfo {
    /// Node ID (internal) or memref argument name (external).
    pub name: String,
    /// Number of elements.
    pub size: u64,
    /// Element type width.
    pub elem_width: u32,
    /// Element type (how reports print the contents).
    pub elem: crate::types::Type,
    /// Mask applied to addresses (`2^ceil(log2 size) - 1`).
    pub addr_mask: u64,
    /// True for `extmemory`.
    pub external: bool,
    /// The node that holds it (reads and writes it).
    pub node: u32,
}

/// The ports of one of Dynamatic's memory controllers (channel indices) and its registers.
#[derive(Clone, Debug)]
pub struct DynMcInfo {
    /// Index into [`Program::mems`].
    pub mem: u32,
    /// `memStart`.
    pub start: u32,
    /// `ctrl<k>`.
    pub ctrl: Vec<u32>,
    /// `ldAddr<i>`.
    pub ld_addr: Vec<u32>,
    /// `ldData<i>`.
    pub ld_data: Vec<u32>,
    /// `stAddr<j>`.
    pub st_addr: Vec<u32>,
    /// `stData<j>`.
    pub st_data: Vec<u32>,
    /// `ctrlEnd`.
    pub ctrl_end: u32,
    /// `memEnd`.
    pub mem_end: u32,
    /// First register word (`spec::mc_regs`).
    pub reg: u32,
}

/// The ports of an address queue (channel indices) and its registers.
#[derive(Clone, Debug)]
pub struct AddrQueueInfo {
    /// First register word (`spec::addr_queue_regs`).
    pub reg: u32,
    /// Entries.
    pub depth: u32,
    /// `ldAddr<i>`.
    pub ld_addr: Vec<u32>,
    /// `ldOrder<i>`.
    pub ld_order: Vec<u32>,
    /// `ldAddrOut<i>`.
    pub ld_out: Vec<u32>,
    /// `stAddr<j>`.
    pub st_addr: Vec<u32>,
    /// `stOrder<j>`.
    pub st_order: Vec<u32>,
    /// `stDone<j>`.
    pub st_done: Vec<u32>,
    /// `stOrderOut<j>`.
    pub st_out: Vec<u32>,
}

/// One group of a load-store queue: what allocating it writes.
#[derive(Clone, Debug)]
pub struct LsqGroupInfo {
    /// Per load of the group, in program order: its load port.
    pub ld_ports: Vec<u32>,
    /// Per load: how many of the group's stores precede it.
    pub ld_order: Vec<u32>,
    /// Per store of the group, in program order: its store port.
    pub st_ports: Vec<u32>,
}

/// The ports of one of Dynamatic's load-store queues (channel indices) and its registers.
#[derive(Clone, Debug)]
pub struct DynLsqInfo {
    /// Its node.
    pub node: u32,
    /// Master: index into [`Program::mems`] of the array it holds.
    pub mem: Option<u32>,
    /// First register word (`spec::lsq_regs`).
    pub reg: u32,
    /// Load queue entries.
    pub nl: u32,
    /// Store queue entries.
    pub ns: u32,
    /// `memEnd` once per `ctrlEnd` ([`crate::ops::LsqShape::end_once`]).
    pub end_once: bool,
    /// The groups.
    pub groups: Vec<LsqGroupInfo>,
    /// `ctrl<g>`.
    pub ctrl: Vec<u32>,
    /// `ldAddr<p>`.
    pub ld_addr: Vec<u32>,
    /// `ldData<p>`.
    pub ld_data: Vec<u32>,
    /// `stAddr<q>`.
    pub st_addr: Vec<u32>,
    /// `stData<q>`.
    pub st_data: Vec<u32>,
    /// Master: `memStart`, `ctrlEnd`, `memEnd`.
    pub master: Option<[u32; 3]>,
    /// Slave: `ldAddrToMC`, `stAddrToMC`, `stDataToMC`, and `ldDataFromMC` (with loads).
    pub slave: Option<([u32; 3], Option<u32>)>,
}

impl DynLsqInfo {
    /// The write a master queue makes in the cycle whose registers are `regs` (the whole
    /// function's register words): the store at the issue pointer, when its address and data
    /// are there and no older load with the same or an unknown address is still allocated.
    /// Registers alone decide it, so a recorded trace gives the writes too.
    pub fn store_written(&self, regs: &[u64]) -> Option<(u64, u64)> {
        use crate::spec::{LsqCtl, LsqLoadPart as L, LsqStorePart as S, lsq_regs};
        let r = |off: u32| regs.get((self.reg + off) as usize).copied().unwrap_or(0);
        let si = r(lsq_regs::ctl(LsqCtl::StoreIssue)) as u32;
        let st = |p: S| r(lsq_regs::store(self.nl, si, p));
        if self.mem.is_none()
            || si >= self.ns
            || st(S::Alloc) == 0
            || st(S::AddrValid) == 0
            || st(S::DataValid) == 0
        {
            return None;
        }
        let addr = st(S::Addr);
        let blocked = (0..self.nl).any(|i| {
            let ld = |p: L| r(lsq_regs::load(i, p));
            ld(L::Alloc) != 0
                && ld(L::OlderStores) >> si & 1 == 0
                && (ld(L::AddrValid) == 0 || ld(L::Addr) == addr)
        });
        (!blocked).then(|| (addr, st(S::Data)))
    }
}

/// What activity-driven evaluation needs beyond the instruction lists: the node of every
/// instruction, the channels each forward and backward instruction writes, and the clock
/// instructions before [`Program::specialize`] moved the common ones to typed lists.
#[derive(Clone, Debug, Default)]
pub struct ActivityInfo {
    /// Node of each [`Program::fwd`] instruction.
    pub fwd_nodes: Vec<u32>,
    /// Channels each [`Program::fwd`] instruction writes (`valid` and `data`).
    pub fwd_writes: Vec<Span>,
    /// Node of each [`Program::bwd`] instruction.
    pub bwd_nodes: Vec<u32>,
    /// Channels each [`Program::bwd`] instruction writes (`ready`).
    pub bwd_writes: Vec<Span>,
    /// Every clock instruction with its node, in compile order.
    pub clk: Vec<(Clk, u32)>,
}

/// A compiled function.
#[derive(Clone, Debug, Default)]
pub struct Program {
    /// Per-instruction nodes and writes, for activity-driven evaluation.
    pub activity: ActivityInfo,
    /// Number of channels (= `Function::channels.len()`).
    pub n_channels: usize,
    /// Data width of every channel, at most 64 (a wider channel carries a wide word, see
    /// [`crate::wide`]: its instructions are [`Fwd::Wide`]).
    pub widths: Vec<u8>,
    /// Side table of channel indices / constants referenced by [`Span`]s.
    pub ports: Vec<u32>,
    /// Forward instructions in evaluation order.
    pub fwd: Vec<Fwd>,
    /// Forward segments.
    pub fwd_segs: Vec<Seg>,
    /// Backward instructions in evaluation order.
    pub bwd: Vec<Bwd>,
    /// Backward segments.
    pub bwd_segs: Vec<Seg>,
    /// Segments of [`Program::bwd_step`].
    pub bwd_step_segs: Vec<Seg>,
    /// Operand tuples of [`Seg::Typed`] segments.
    pub typed: Vec<[u32; 5]>,
    /// [`Program::bwd`] for [`crate::engine::Simulation::step`]: two-output forks and
    /// syncs in straight segments apply their clock edge as soon as they computed their
    /// ready (nothing reads their registers later in the cycle), so the clock pass skips
    /// them ([`Program::clk_emit2_rest`]). Empty when not used (lazy forks).
    pub bwd_step: Vec<Bwd>,
    /// Clock instructions not covered by the typed lists below (run after them, in order).
    pub clk: Vec<Clk>,
    /// Two-output eager forks' clock edges: `(out0, out1, first register)`.
    pub clk_emit2: Vec<(u32, u32, u32)>,
    /// The entries of [`Program::clk_emit2`] not applied by [`Program::bwd_step`].
    pub clk_emit2_rest: Vec<(u32, u32, u32)>,
    /// One-slot buffers' clock edges: `(in, out, first register)`.
    pub clk_buf1: Vec<(u32, u32, u32)>,
    /// Two-slot buffers' clock edges, as [`Program::clk_buf1`].
    pub clk_buf2: Vec<(u32, u32, u32)>,
    /// Buffers `(in, out, first register, slots)`, whose register-only outputs are driven
    /// at the start of every settle.
    pub buffers: Vec<(u32, u32, u32, u32)>,
    /// Forward instructions with constant results, run once at reset.
    pub static_fwd: Vec<Fwd>,
    /// Backward instructions with constant results, run once at reset.
    pub static_bwd: Vec<Bwd>,
    /// Reset value of every register word.
    pub reg_init: Vec<u64>,
    /// Memories.
    pub mems: Vec<MemInfo>,
    /// Dynamatic's memory controllers, for the `DynMc*` instructions.
    pub dyn_mcs: Vec<DynMcInfo>,
    /// Dynamatic's load-store queues, for the `DynLsq*` instructions.
    pub dyn_lsqs: Vec<DynLsqInfo>,
    /// Address queues, for the `Aq*` instructions.
    pub addr_queues: Vec<AddrQueueInfo>,
    /// Static islands, for the `Island*` instructions.
    pub islands: Vec<IslandInfo>,
    /// True when forward and backward passes must be iterated together (`lazy_fork`).
    pub global_iterate: bool,
    /// Channel of each channel argument: (argument index, channel).
    pub args: Vec<(usize, u32)>,
    /// Channel of each result.
    pub results: Vec<u32>,
    /// Division nodes to check for a zero divisor when they fire: (node, divisor, out, mask);
    /// the divisor is zero when `data & mask == 0` (the mask leaves out a float's sign bit).
    pub div_checks: Vec<(u32, u32, u32, u64)>,
    /// Memory ports to check for an address past the end when the address is accepted:
    /// (node, address channel, memory, true for a store port).
    pub addr_checks: Vec<(u32, u32, u32, bool)>,
    /// Muxes to check for an out-of-range select: (node, select channel, data inputs).
    pub mux_checks: Vec<(u32, u32, u32)>,
    /// Merge-like nodes to check for several valid inputs: (node, inputs, out, cmerge reg).
    pub merge_checks: Vec<(u32, Span, u32, Option<u32>)>,
    /// Per node (by `NodeId` index): its register range `[start, end)`.
    pub node_regs: Vec<(u32, u32)>,
    /// Per register word: a field name (`emitted_0`, `slot1.skid_valid`, ...).
    pub reg_names: Vec<String>,
    /// Largest buffer slot count (bounds how long tokens can move without any channel firing).
    pub max_slots: u32,
    /// The operations of [`Fwd::Wide`] instructions.
    pub wide: Vec<WideOp>,
}

/// A small integer per instruction variant, used to group identical instructions.
pub trait Kinded {
    /// The variant's key.
    fn kind(&self) -> u16;
}

impl Kinded for Fwd {
    fn kind(&self) -> u16 {
        match self {
            Fwd::Bin { op, .. } => *op as u16,
            Fwd::Cmp { .. } => 20,
            Fwd::Select { .. } => 21,
            Fwd::Cast { .. } => 22,
            Fwd::FBin { op, .. } => 40 + *op as u16,
            Fwd::FUn { op, .. } => 60 + *op as u16,
            Fwd::FCmp { .. } => 70,
            Fwd::FMath { f, .. } => 400 + *f as u16,
            Fwd::FConv { .. } => 71,
            Fwd::Join { ins, .. } => 100 + ins.len.min(100) as u16,
            Fwd::Pack { .. } => 23,
            Fwd::Wire { .. } => 24,
            Fwd::CondBr { .. } => 25,
            Fwd::Mux { .. } => 26,
            Fwd::Merge { .. } => 27,
            Fwd::Cmerge { .. } => 28,
            Fwd::Fork { outs, .. } => 200 + outs.len.min(100) as u16,
            Fwd::Sync { outs, .. } => 300 + outs.len.min(100) as u16,
            Fwd::Unpack { .. } => 29,
            Fwd::LazyFork { .. } => 30,
            Fwd::BufOut { .. } => 31,
            Fwd::PipeOut { .. } => 39,
            Fwd::DynBufOut { .. } => 81,
            Fwd::DynMerge { .. } => 82,
            Fwd::DynSelect { .. } => 83,
            Fwd::DynMcOut { .. } => 84,
            Fwd::DynCountOut { .. } => 85,
            Fwd::IslandOut { .. } => 89,
            Fwd::DynLsqOut { .. } => 86,
            Fwd::AqLoad { .. } => 87,
            Fwd::AqStoreOut { .. } => 88,
            Fwd::Const { .. } => 32,
            Fwd::Fixed { .. } => 33,
            Fwd::Store { .. } => 34,
            Fwd::MemLd { .. } => 35,
            Fwd::MemStDone { .. } => 36,
            Fwd::Fork2 { .. } => 37,
            Fwd::Sync2 { .. } => 38,
            Fwd::Wide { .. } => 80,
        }
    }
}

impl Kinded for Bwd {
    fn kind(&self) -> u16 {
        match self {
            Bwd::Join { ins, .. } => 100 + ins.len.min(100) as u16,
            Bwd::Wire { .. } => 1,
            Bwd::Sink { .. } => 2,
            Bwd::CondBr { .. } => 3,
            Bwd::Mux { .. } => 4,
            Bwd::Merge { .. } => 5,
            Bwd::Cmerge { .. } => 6,
            Bwd::Fork { outs, .. } => 200 + outs.len.min(100) as u16,
            Bwd::Sync { outs, .. } => 300 + outs.len.min(100) as u16,
            Bwd::LazyFork { .. } => 7,
            Bwd::BufIn { .. } => 8,
            Bwd::PipeIn { .. } => 16,
            Bwd::DynBufIn { .. } => 17,
            Bwd::DynPipeIn { .. } => 18,
            Bwd::DynMerge { .. } => 19,
            Bwd::DynSelect { .. } => 20,
            Bwd::DynMcIn { .. } => 21,
            Bwd::DynCountIn { .. } => 22,
            Bwd::IslandIn { .. } => 25,
            Bwd::DynLsqIn { .. } => 23,
            Bwd::AqStoreIn { .. } => 24,
            Bwd::Store { .. } => 9,
            Bwd::MemSt { .. } => 10,
            Bwd::Join2 { .. } => 11,
            Bwd::Fork2 { .. } => 12,
            Bwd::Sync2 { .. } => 13,
            Bwd::Fork2Clk { .. } => 14,
            Bwd::Sync2Clk { .. } => 15,
        }
    }
}

impl Kinded for Clk {
    fn kind(&self) -> u16 {
        match self {
            Clk::Emit { outs, .. } => 200 + outs.len.min(100) as u16,
            Clk::Cmerge { .. } => 1,
            Clk::Buffer { slots, .. } => 100 + (*slots).min(99) as u16,
            Clk::MemSt { .. } => 2,
            Clk::Pipe { .. } => 3,
            Clk::DynBuf { .. } => 4,
            Clk::DynPipe { .. } => 5,
            Clk::DynMerge { .. } => 6,
            Clk::DynSelect { .. } => 7,
            Clk::DynMc { .. } => 8,
            Clk::DynCount { .. } => 9,
            Clk::DynLsq { .. } => 10,
            Clk::Aq { .. } => 11,
            Clk::Island { .. } => 12,
        }
    }
}

impl Program {
    /// For every channel, the channel whose data it copies unconditionally while being
    /// valid only when that channel is (fork, sync, `cond_br`, `store`, wire outputs), for
    /// [`crate::trace::TraceBuilder::set_data_aliases`].
    pub fn data_aliases(&self) -> Vec<Option<u32>> {
        let mut al = vec![None; self.n_channels];
        let ports = &self.ports;
        let span = |sp: Span| &ports[sp.range()];
        for i in self.fwd.iter().chain(&self.static_fwd) {
            match *i {
                Fwd::Fork { inp, outs, .. } | Fwd::LazyFork { inp, outs } => {
                    for &o in span(outs) {
                        al[o as usize] = Some(inp);
                    }
                }
                Fwd::Fork2 { inp, o0, o1, .. } => {
                    al[o0 as usize] = Some(inp);
                    al[o1 as usize] = Some(inp);
                }
                Fwd::Sync { ins, outs, .. } => {
                    for (&i, &o) in span(ins).iter().zip(span(outs)) {
                        al[o as usize] = Some(i);
                    }
                }
                Fwd::Sync2 { i0, i1, o0, o1, .. } => {
                    al[o0 as usize] = Some(i0);
                    al[o1 as usize] = Some(i1);
                }
                Fwd::Wire { inp, out } => al[out as usize] = Some(inp),
                Fwd::CondBr { data, t, f, .. } => {
                    al[t as usize] = Some(data);
                    al[f as usize] = Some(data);
                }
                Fwd::Store {
                    addr,
                    data,
                    dout,
                    aout,
                    ..
                } => {
                    al[dout as usize] = Some(data);
                    al[aout as usize] = Some(addr);
                }
                Fwd::Join {
                    ins,
                    data_from,
                    out,
                } if span(ins).contains(&data_from) => {
                    al[out as usize] = Some(data_from);
                }
                _ => {}
            }
        }
        al
    }

    /// Rewrites common two-port instructions into fixed-arity forms (no span indirection).
    pub fn specialize(&mut self) {
        let ports = &self.ports;
        let two = |sp: Span| -> Option<(u32, u32)> {
            (sp.len == 2).then(|| (ports[sp.start as usize], ports[sp.start as usize + 1]))
        };
        for i in &mut self.fwd {
            match *i {
                Fwd::Fork { inp, outs, reg } => {
                    if let Some((o0, o1)) = two(outs) {
                        *i = Fwd::Fork2 { inp, o0, o1, reg };
                    }
                }
                Fwd::Sync { ins, outs, reg } => {
                    if let (Some((i0, i1)), Some((o0, o1))) = (two(ins), two(outs)) {
                        *i = Fwd::Sync2 {
                            i0,
                            i1,
                            o0,
                            o1,
                            reg,
                        };
                    }
                }
                _ => {}
            }
        }
        for i in &mut self.bwd {
            match *i {
                Bwd::Join { ins, out } => {
                    if let Some((a, b)) = two(ins) {
                        *i = Bwd::Join2 { a, b, out };
                    }
                }
                Bwd::Fork { inp, outs, reg } => {
                    if let Some((o0, o1)) = two(outs) {
                        *i = Bwd::Fork2 { inp, o0, o1, reg };
                    }
                }
                Bwd::Sync { ins, outs, reg } => {
                    if let (Some((i0, i1)), Some((o0, o1))) = (two(ins), two(outs)) {
                        *i = Bwd::Sync2 {
                            i0,
                            i1,
                            o0,
                            o1,
                            reg,
                        };
                    }
                }
                _ => {}
            }
        }
        // Clock edges are independent of each other (each reads settled signals and its own
        // registers), except memory writes, whose order stays as compiled. The common ones
        // move to typed lists that run without dispatch.
        let mut rest = Vec::with_capacity(self.clk.len());
        for i in std::mem::take(&mut self.clk) {
            match i {
                Clk::Emit { outs, reg } if outs.len == 2 => {
                    let (o0, o1) = two(outs).expect("two outputs");
                    self.clk_emit2.push((o0, o1, reg));
                }
                Clk::Buffer {
                    inp,
                    out,
                    reg,
                    slots: 1,
                } => self.clk_buf1.push((inp, out, reg)),
                Clk::Buffer {
                    inp,
                    out,
                    reg,
                    slots: 2,
                } => self.clk_buf2.push((inp, out, reg)),
                other => rest.push(other),
            }
        }
        self.clk = rest;
        self.fuse_emit2();
        let mut typed = Vec::new();
        let segs = std::mem::take(&mut self.fwd_segs);
        self.fwd_segs = typify(&segs, &self.fwd, &mut typed, fwd_typed);
        let segs = std::mem::take(&mut self.bwd_segs);
        if !self.global_iterate {
            self.bwd_step_segs = typify(&segs, &self.bwd_step, &mut typed, bwd_typed);
        }
        self.bwd_segs = typify(&segs, &self.bwd, &mut typed, bwd_typed);
        self.typed = typed;
    }

    /// Builds [`Program::bwd_step`] and [`Program::clk_emit2_rest`].
    fn fuse_emit2(&mut self) {
        self.clk_emit2_rest = self.clk_emit2.clone();
        if self.global_iterate {
            return;
        }
        let mut step = self.bwd.clone();
        let mut fused = std::collections::BTreeSet::new();
        for seg in &self.bwd_segs {
            let Seg::Straight(a, b) = *seg else { continue };
            for i in &mut step[a as usize..b as usize] {
                match *i {
                    Bwd::Fork2 { inp, o0, o1, reg } => {
                        *i = Bwd::Fork2Clk { inp, o0, o1, reg };
                        fused.insert(reg);
                    }
                    Bwd::Sync2 {
                        i0,
                        i1,
                        o0,
                        o1,
                        reg,
                    } => {
                        *i = Bwd::Sync2Clk {
                            i0,
                            i1,
                            o0,
                            o1,
                            reg,
                        };
                        fused.insert(reg);
                    }
                    _ => {}
                }
            }
        }
        self.clk_emit2_rest.retain(|&(_, _, r)| !fused.contains(&r));
        self.bwd_step = step;
    }
}

fn fwd_typed(i: &Fwd) -> Option<(TypedOp, [u32; 5])> {
    Some(match *i {
        Fwd::Fork2 { inp, o0, o1, reg } => (TypedOp::Fork2Fwd, [inp, o0, o1, reg, 0]),
        Fwd::Sync2 {
            i0,
            i1,
            o0,
            o1,
            reg,
        } => (TypedOp::Sync2Fwd, [i0, i1, o0, o1, reg]),
        _ => return None,
    })
}

fn bwd_typed(i: &Bwd) -> Option<(TypedOp, [u32; 5])> {
    Some(match *i {
        Bwd::Fork2 { inp, o0, o1, reg } => (TypedOp::Fork2Bwd, [inp, o0, o1, reg, 0]),
        Bwd::Fork2Clk { inp, o0, o1, reg } => (TypedOp::Fork2Clk, [inp, o0, o1, reg, 0]),
        Bwd::Sync2 {
            i0,
            i1,
            o0,
            o1,
            reg,
        } => (TypedOp::Sync2Bwd, [i0, i1, o0, o1, reg]),
        Bwd::Sync2Clk {
            i0,
            i1,
            o0,
            o1,
            reg,
        } => (TypedOp::Sync2Clk, [i0, i1, o0, o1, reg]),
        Bwd::Join2 { a, b, out } => (TypedOp::Join2Bwd, [a, b, out, 0, 0]),
        _ => return None,
    })
}

/// Splits straight segments into runs, turning runs of the shapes `conv` knows into
/// [`Seg::Typed`] segments over operand tuples appended to `typed`. Execution order is
/// unchanged.
fn typify<I>(
    segs: &[Seg],
    instrs: &[I],
    typed: &mut Vec<[u32; 5]>,
    conv: impl Fn(&I) -> Option<(TypedOp, [u32; 5])>,
) -> Vec<Seg> {
    let mut out = Vec::with_capacity(segs.len());
    for seg in segs {
        let Seg::Straight(a, b) = *seg else {
            out.push(seg.clone());
            continue;
        };
        for i in a..b {
            match conv(&instrs[i as usize]) {
                Some((op, args)) => {
                    let k = typed.len() as u32;
                    typed.push(args);
                    match out.last_mut() {
                        Some(Seg::Typed { op: o, end, .. }) if *o == op && *end == k => {
                            *end = k + 1
                        }
                        _ => out.push(Seg::Typed {
                            op,
                            start: k,
                            end: k + 1,
                        }),
                    }
                }
                None => match out.last_mut() {
                    Some(Seg::Straight(_, e)) if *e == i => *e = i + 1,
                    _ => out.push(Seg::Straight(i, i + 1)),
                },
            }
        }
    }
    out
}

/// A static island of a program.
#[derive(Clone, Debug)]
pub struct IslandInfo {
    /// Its region.
    pub island: crate::island::Island,
    /// Per memory it reaches, the index in [`Program::mems`].
    pub mems: Vec<u32>,
    /// [`crate::island::Island::cone_heads`], computed once.
    pub heads: Vec<bool>,
}

/// A program's memories as a static island sees them: its memory `k` is the program's
/// `ids[k]`, addresses cut to the array's address bits (a load past the end reads 0, a store
/// there writes nothing), values to its element width; the writes recorded when `writes` is
/// given (the engine's trace).
pub(crate) struct ProgramMemory<'a, 'b> {
    /// The program.
    pub prog: &'a Program,
    /// The island's memories, by program index.
    pub ids: &'a [u32],
    /// The contents, in program order.
    pub mems: &'b mut [Vec<u64>],
    /// Where writes are recorded: (memory, address, value).
    pub writes: Option<&'b mut Vec<(u32, u64, u64)>>,
}

impl crate::island::IslandMemory for ProgramMemory<'_, '_> {
    fn load(&mut self, k: u32, index: u64) -> u64 {
        let mi = self.ids[k as usize] as usize;
        let a = index & self.prog.mems[mi].addr_mask;
        self.mems[mi].get(a as usize).copied().unwrap_or(0)
    }

    fn store(&mut self, k: u32, index: u64, value: u64) {
        let mi = self.ids[k as usize] as usize;
        let m = &self.prog.mems[mi];
        let a = index & m.addr_mask;
        let v = value & crate::types::width_mask(m.elem_width);
        if let Some(slot) = self.mems[mi].get_mut(a as usize) {
            *slot = v;
            if let Some(w) = self.writes.as_deref_mut() {
                w.push((mi as u32, a, v));
            }
        }
    }
}
