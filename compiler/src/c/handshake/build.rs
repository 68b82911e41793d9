//! Construction of the dataflow graph from a maximized SSA CFG (one block at a time).
//!
//! Per block `bbN`:
//! * entry: with one incoming edge, a `merge` per block parameter and one for the control
//!   token (removed by canonicalization); with several, a `control_merge` of the incoming
//!   control tokens whose `index` selects one `mux` per parameter;
//! * body: `constant`s triggered by the block's control token, `arith` ops, and
//!   `load`/`store`s whose `ctrl` is the memory's ordering token (the previous access's done
//!   signal) and whose address goes through an `index_cast` to `index`. A store's done token
//!   is the memory's `stDone`. A load from a memory the function also stores to gets its
//!   data through a one-slot buffer (a latch) and its done token is `join(ldDone, data)`:
//!   the memory reads combinationally and keeps re-reading while its `ldData` waits, so
//!   without the latch a later store released by `ldDone` could change a value that was not
//!   yet consumed. A load from a memory without stores needs no latch (every re-read gives
//!   the same value): its data comes straight from the memory and its done token is
//!   `ldDone`, so chained loads of a read-only array take no cycle each;
//! * exit: a `cond_br` per value passed to a successor (and for the control token), or a
//!   direct connection for an unconditional branch; the exit block joins its control token
//!   with the final ordering token of every memory into the `done` result.
//!
//! Memories are created first: one `memory` per accessed local array (initial contents in a
//! `handshake.init` attribute) and one `extmemory` per array parameter.

use std::collections::BTreeMap;

use handscope_sim::{ArgType, ArithOp, BufferKind, MemRefType, Op, Type};

use super::hgraph::{HGraph, Port};
use crate::c::ir::{
    BinaryOp, BlockId, CastOp, CmpPred, InstKind, IrFunction, IrParam, MemoryKind, Terminator,
    UnaryOp, ValueId,
};
use crate::c::span::Span;

/// What the builder records for later passes.
#[derive(Clone, Debug, Default)]
pub(crate) struct Built {
    /// The graph.
    pub g: HGraph,
    /// Inputs that close a CFG back edge: `(entry node, input position)`.
    pub back_edges: Vec<(usize, usize)>,
    /// The channel carrying the start token into the body (the `start` argument).
    pub start: Port,
    /// The `return` node.
    pub ret: usize,
    /// Position of the `done` operand of `return`.
    pub done_pos: usize,
    /// Entry `control_merge`/`merge` of each block (for loop-header rewriting).
    pub block_ctrl_entry: BTreeMap<u32, usize>,
    /// Muxes of each block that has several predecessors.
    pub block_muxes: BTreeMap<u32, Vec<usize>>,
    /// Incoming edges of each block: predecessor (`None` for the function entry).
    pub block_preds: BTreeMap<u32, Vec<Option<u32>>>,
    /// Every CFG edge: (from, to, position among `to`'s incoming edges, control token).
    pub edge_ctrl: Vec<(u32, u32, usize, Port)>,
    /// Reverse-postorder position of every block.
    pub rpo: Vec<usize>,
    /// Inputs where the start token begins the memory ordering chains.
    pub mem_start_uses: Vec<(usize, usize)>,
    /// Final ordering token of every memory (operands of the `done` join besides control).
    pub mem_final: Vec<Port>,
}

/// An internal inconsistency in the IR (reported at `span`).
#[derive(Clone, Debug)]
pub(crate) struct BuildError {
    /// Message.
    pub message: String,
    /// Where.
    pub span: Span,
}

pub(super) fn int_ty(t: crate::c::ir::Type) -> Type {
    match t {
        crate::c::ir::Type::Int(b) => Type::Int(b as u16),
        crate::c::ir::Type::Float(k) => Type::Float(k),
        crate::c::ir::Type::Token => Type::None,
    }
}

/// The channel type of a memory's elements.
fn elem_ty(t: crate::c::types::Scalar) -> Type {
    int_ty(crate::c::ir::Type::of(t))
}

pub(super) fn bin_op(op: BinaryOp) -> ArithOp {
    match op {
        BinaryOp::AddI => ArithOp::Addi,
        BinaryOp::SubI => ArithOp::Subi,
        BinaryOp::MulI => ArithOp::Muli,
        BinaryOp::DivSI => ArithOp::Divsi,
        BinaryOp::DivUI => ArithOp::Divui,
        BinaryOp::RemSI => ArithOp::Remsi,
        BinaryOp::RemUI => ArithOp::Remui,
        BinaryOp::AndI => ArithOp::Andi,
        BinaryOp::OrI => ArithOp::Ori,
        BinaryOp::XOrI => ArithOp::Xori,
        BinaryOp::ShLI => ArithOp::Shli,
        BinaryOp::ShRSI => ArithOp::Shrsi,
        BinaryOp::ShRUI => ArithOp::Shrui,
        BinaryOp::AddF => ArithOp::Addf,
        BinaryOp::SubF => ArithOp::Subf,
        BinaryOp::MulF => ArithOp::Mulf,
        BinaryOp::DivF => ArithOp::Divf,
        BinaryOp::RemF => ArithOp::Remf,
        BinaryOp::MaxNumF => ArithOp::Maxnumf,
        BinaryOp::MinNumF => ArithOp::Minnumf,
        BinaryOp::CopySign => ArithOp::Copysign,
        BinaryOp::Math(f) => ArithOp::Math(f),
    }
}

/// The `arith` op of a cast.
pub(super) fn cast_op(op: CastOp) -> ArithOp {
    match op {
        CastOp::ExtSI => ArithOp::Extsi,
        CastOp::ExtUI => ArithOp::Extui,
        CastOp::TruncI => ArithOp::Trunci,
        CastOp::SIToFP => ArithOp::Sitofp,
        CastOp::UIToFP => ArithOp::Uitofp,
        CastOp::FPToSI => ArithOp::Fptosi,
        CastOp::FPToUI => ArithOp::Fptoui,
        CastOp::ExtF => ArithOp::Extf,
        CastOp::TruncF => ArithOp::Truncf,
    }
}

pub(super) fn unary_op(op: UnaryOp) -> ArithOp {
    match op {
        UnaryOp::NegF => ArithOp::Negf,
        UnaryOp::AbsF => ArithOp::Absf,
        UnaryOp::Sqrt => ArithOp::Sqrt,
        UnaryOp::Math(f) => ArithOp::Math(f),
    }
}

pub(super) fn cmp_op(p: CmpPred) -> ArithOp {
    match p.predicate() {
        Ok(i) => ArithOp::Cmpi(i),
        Err(f) => ArithOp::Cmpf(f),
    }
}

/// Per-memory port bookkeeping.
#[derive(Clone, Debug, Default)]
struct MemPorts {
    node: Option<usize>,
    ld: u32,
    st: u32,
    /// Through a load-store queue: the blocks that access it, one group each (in group order).
    lsq_blocks: Option<Vec<usize>>,
    /// A load-store queue's group controls, by group.
    group_ctrl: Vec<Port>,
    /// Load nodes in port order.
    loads: Vec<usize>,
    /// Store nodes in port order.
    stores: Vec<usize>,
    /// Behind an address queue: its node.
    queue: Option<usize>,
    /// The queue's load ports: (address, order token), in port order.
    queue_loads: Vec<(Port, Port)>,
    /// The queue's store ports: (address, order token), in port order.
    queue_stores: Vec<(Port, Port)>,
}

/// The memories an address queue orders with `--memory queue`: every array (parameter or
/// local) the function both reads and writes in reachable blocks.
pub(crate) fn queued_memories(f: &IrFunction, reach: &[bool]) -> Vec<u32> {
    let mut ld = vec![false; f.memories.len()];
    let mut st = vec![false; f.memories.len()];
    for (bi, blk) in f.blocks.iter().enumerate() {
        if !reach.get(bi).copied().unwrap_or(false) {
            continue;
        }
        for inst in &blk.insts {
            match &inst.kind {
                InstKind::Load { mem, .. } => ld[mem.0 as usize] = true,
                InstKind::Store { mem, .. } => st[mem.0 as usize] = true,
                _ => {}
            }
        }
    }
    (0..f.memories.len() as u32)
        .filter(|&m| ld[m as usize] && st[m as usize])
        .collect()
}

/// A one-slot register that latches a load's data as the memory offers it (the memory reads
/// combinationally and re-reads while its data output waits).
fn latch(
    g: &mut HGraph,
    data: Port,
    elem: &Type,
    block: Option<&str>,
    span: Option<Span>,
) -> usize {
    g.add(
        Op::Buffer {
            slots: 1,
            kind: BufferKind::Seq,
            init: None,
        },
        vec![data],
        vec![elem.clone()],
        block,
        span,
    )
}

/// A transparent FIFO of `slots` tokens on `p` (Dynamatic's `FIFO_BREAK_NONE`: an empty
/// one passes a token in the same cycle).
fn fifo(
    g: &mut HGraph,
    p: Port,
    ty: Type,
    slots: u32,
    block: Option<&str>,
    span: Option<Span>,
) -> Port {
    let n = g.add(
        Op::DynBuffer {
            kind: handscope_sim::DynBufferKind::FifoBreakNone,
            slots,
        },
        vec![p],
        vec![ty],
        block,
        span,
    );
    Port::new(n, 0)
}

/// Store addresses an address queue holds unless `--lsq-depth mem.<array>=L/S` gives `S`.
const ADDR_QUEUE_DEPTH: u32 = 16;

/// An access's address: its index cast to `index`.
fn index_cast(g: &mut HGraph, idx: Port, block: Option<&str>, span: Option<Span>) -> usize {
    g.add(
        Op::Arith(ArithOp::IndexCast),
        vec![idx],
        vec![Type::Index],
        block,
        span,
    )
}

/// Entries of each queue of a load-store queue in Handscope's own flow (Dynamatic's default),
/// raised to one more than the largest group.
const LSQ_DEPTH: u32 = 16;

/// Unique, readable memory node IDs: `mem.<array>` (`mem.<array>_<k>` on clashes).
pub(super) fn memory_names(f: &IrFunction) -> Vec<String> {
    let mut used: BTreeMap<String, u32> = BTreeMap::new();
    f.memories
        .iter()
        .map(|m| {
            let base = format!("mem.{}", m.name);
            let k = used.entry(base.clone()).or_insert(0);
            *k += 1;
            if *k == 1 {
                base
            } else {
                format!("{base}_{}", *k - 1)
            }
        })
        .collect()
}

/// Builds the graph. `reach[b]` tells which blocks are reachable.
pub(crate) fn build(
    f: &IrFunction,
    reach: &[bool],
    ordering: super::MemoryOrdering,
    depths: &BTreeMap<String, (u32, u32)>,
    twins: &super::order_chain::Twins,
    islands: &BTreeMap<usize, super::place::Placed>,
) -> Result<Built, BuildError> {
    let mut b = Built::default();
    let g = &mut b.g;
    let err = |m: &str, span: Span| BuildError {
        message: m.to_string(),
        span,
    };

    // Arguments: C parameters in order, then the start token.
    let mut scalar_args: BTreeMap<ValueId, Port> = BTreeMap::new();
    let mut mem_arg: BTreeMap<u32, usize> = BTreeMap::new();
    for p in &f.params {
        match p {
            IrParam::Scalar { name, value, .. } => {
                let port = g.add_arg(name, ArgType::Channel(int_ty(f.ty(*value))));
                scalar_args.insert(*value, port.unwrap_or(Port::PENDING));
            }
            IrParam::Array { name, mem } => {
                let m = &f.memories[mem.0 as usize];
                let memref = MemRefType {
                    dims: vec![m.len],
                    elem: elem_ty(m.elem),
                };
                mem_arg.insert(mem.0, g.args.len());
                g.add_arg(name, ArgType::MemRef(memref));
            }
        }
    }
    let mut start_name = "start".to_string();
    while g.args.iter().any(|a| a.name == start_name) {
        start_name.push('_');
    }
    let start = g
        .add_arg(&start_name, ArgType::Channel(Type::None))
        .unwrap_or(Port::PENDING);
    b.start = start;

    // Memories (port counts first).
    let mut mems: Vec<MemPorts> = vec![MemPorts::default(); f.memories.len()];
    for (bi, blk) in f.blocks.iter().enumerate() {
        if !reach[bi] {
            continue;
        }
        for inst in &blk.insts {
            match &inst.kind {
                InstKind::Load { mem, .. } => mems[mem.0 as usize].ld += 1,
                InstKind::Store { mem, .. } => mems[mem.0 as usize].st += 1,
                _ => {}
            }
        }
    }
    // Arrays through a load-store queue: parameters both read and written; one group per
    // block that accesses the array, its accesses in program order.
    if ordering == super::MemoryOrdering::Lsq {
        for (mi, m) in f.memories.iter().enumerate() {
            let mp = &mut mems[mi];
            if !matches!(m.kind, MemoryKind::Param(_)) || mp.ld == 0 || mp.st == 0 {
                continue;
            }
            let blocks: Vec<usize> = f
                .blocks
                .iter()
                .enumerate()
                .filter(|(bi, blk)| {
                    reach[*bi]
                        && blk.insts.iter().any(|i| match &i.kind {
                            InstKind::Load { mem, .. } | InstKind::Store { mem, .. } => {
                                mem.0 as usize == mi
                            }
                            _ => false,
                        })
                })
                .map(|(bi, _)| bi)
                .collect();
            mp.group_ctrl = vec![Port::PENDING; blocks.len()];
            mp.lsq_blocks = Some(blocks);
        }
    }
    let queued: Vec<u32> = if ordering == super::MemoryOrdering::Queue {
        queued_memories(f, reach)
    } else {
        Vec::new()
    };
    // With address queues, the completion chains (every ordering token but the order
    // chains' twins and the start token) may run behind the order chains by up to a queue's
    // depth of iterations: the controls that steer them (a loop header's `mux` select, a
    // `cond_br` condition) reach them through a FIFO, so that a fork of the control does not
    // hold the order chain back until the completion chain catches up.
    let twin_vals: std::collections::BTreeSet<ValueId> = twins.values().copied().collect();
    let lags = |v: ValueId| {
        !queued.is_empty()
            && v != f.start_token
            && f.ty(v) == crate::c::ir::Type::Token
            && !twin_vals.contains(&v)
    };
    let names = memory_names(f);
    let has_queue =
        |mi: usize, mp: &MemPorts| mp.lsq_blocks.is_some() || queued.contains(&(mi as u32));
    if let Some(name) = depths.keys().find(|n| {
        !names
            .iter()
            .zip(&mems)
            .enumerate()
            .any(|(mi, (m, mp))| *m == **n && has_queue(mi, mp))
    }) {
        let queues: Vec<String> = names
            .iter()
            .zip(&mems)
            .enumerate()
            .filter(|(mi, (_, mp))| has_queue(*mi, mp))
            .map(|(_, (m, _))| format!("`{m}`"))
            .collect();
        return Err(BuildError {
            message: format!(
                "`--lsq-depth {name}=...` names no load-store queue of this kernel ({})",
                if queues.is_empty() {
                    "it has none: `--memory lsq` puts each array parameter that is both read \
                     and written behind one, `--memory queue` each array"
                        .to_string()
                } else {
                    format!("it has {}", queues.join(", "))
                }
            ),
            span: f.span,
        });
    }
    for (mi, m) in f.memories.iter().enumerate() {
        let mp = &mut mems[mi];
        let elem = elem_ty(m.elem);
        let memref = MemRefType {
            dims: vec![m.len],
            elem: elem.clone(),
        };
        let outs: Vec<Type> = (0..mp.ld)
            .map(|_| elem.clone())
            .chain((0..mp.st + mp.ld).map(|_| Type::None))
            .collect();
        let op = match &m.kind {
            MemoryKind::Param(_) if mp.lsq_blocks.is_some() => {
                let groups: Vec<Vec<handscope_sim::LsqAccess>> = mp
                    .lsq_blocks
                    .iter()
                    .flatten()
                    .map(|&bi| {
                        f.blocks[bi]
                            .insts
                            .iter()
                            .filter_map(|i| match &i.kind {
                                InstKind::Load { mem, .. } if mem.0 as usize == mi => {
                                    Some(handscope_sim::LsqAccess::Load)
                                }
                                InstKind::Store { mem, .. } if mem.0 as usize == mi => {
                                    Some(handscope_sim::LsqAccess::Store)
                                }
                                _ => None,
                            })
                            .collect()
                    })
                    .collect();
                let mut shape = handscope_sim::LsqShape {
                    groups,
                    load_depth: LSQ_DEPTH,
                    store_depth: LSQ_DEPTH,
                    end_once: true,
                };
                if let Some(&(l, s)) = depths.get(&names[mi]) {
                    // Given: as given (a queue too shallow for a group never allocates it,
                    // which the deadlock report says).
                    shape.load_depth = l;
                    shape.store_depth = s;
                } else {
                    let (l, s) = shape.largest_group();
                    shape.load_depth = shape.load_depth.max(l as u32 + 1);
                    shape.store_depth = shape.store_depth.max(s as u32 + 1);
                }
                let outs: Vec<Type> = (0..mp.ld)
                    .map(|_| elem.clone())
                    .chain([Type::None])
                    .collect();
                let op = Op::DynLsq {
                    shape,
                    memref_arg: Some(mem_arg.get(&(mi as u32)).copied().unwrap_or(0)),
                    memref: Some(memref),
                };
                let n = g.add(op, vec![], outs, Some("bb0"), Some(m.span));
                g.nodes[n].name = Some(names[mi].clone());
                mp.node = Some(n);
                continue;
            }
            MemoryKind::Param(_) => Op::ExtMemory {
                ld: mp.ld,
                st: mp.st,
                id: mi as u32,
                memref_arg: mem_arg.get(&(mi as u32)).copied().unwrap_or(0),
                memref,
            },
            // A local array only islands access still needs its memory.
            MemoryKind::Local { .. }
                if mp.ld + mp.st == 0
                    && !islands
                        .values()
                        .any(|p| p.island.memories.contains(&names[mi])) =>
            {
                continue;
            }
            MemoryKind::Local { .. } => Op::Memory {
                ld: mp.ld,
                st: mp.st,
                id: mi as u32,
                memref,
                lsq: false,
            },
        };
        // A memory serves every block of the function: it belongs to the entry block, at
        // the array's declaration.
        let n = g.add(op, vec![], outs, Some("bb0"), Some(m.span));
        g.nodes[n].name = Some(names[mi].clone());
        if queued.contains(&(mi as u32)) {
            let depth = depths.get(&names[mi]).map_or(ADDR_QUEUE_DEPTH, |&(_, s)| s);
            let q = g.add(
                Op::AddrQueue {
                    ld: mp.ld,
                    st: mp.st,
                    depth,
                },
                vec![],
                (0..mp.ld)
                    .map(|_| Type::Index)
                    .chain((0..mp.st).map(|_| Type::None))
                    .collect(),
                Some("bb0"),
                Some(m.span),
            );
            g.nodes[q].name = Some(names[mi].replacen("mem.", "queue.", 1));
            mp.queue = Some(q);
        }
        if let MemoryKind::Local { init: Some(vals) } = &m.kind {
            let mask = elem.mask();
            let text: Vec<String> = vals
                .iter()
                .map(|v| match &elem {
                    Type::Float(k) => handscope_sim::float::format_float((*v as u64) & mask, *k),
                    // A wide word is written as the value it stands for.
                    t if t.bit_width() > 64 => {
                        handscope_sim::wide::to_decimal(*v as u64, t.bit_width(), false)
                    }
                    _ => ((*v as u64) & mask).to_string(),
                })
                .collect();
            g.nodes[n]
                .attrs
                .push(("handshake.init".into(), format!("[{}]", text.join(", "))));
        }
        mp.node = Some(n);
    }

    // Incoming edges per block: the entry edge of bb0, then (pred, successor slot) in order.
    let mut edges: Vec<Vec<(Option<u32>, usize)>> = vec![Vec::new(); f.blocks.len()];
    edges[0].push((None, 0));
    for (bi, blk) in f.blocks.iter().enumerate() {
        if !reach[bi] {
            continue;
        }
        for (slot, (s, _)) in blk.term.successors().iter().enumerate() {
            edges[s.0 as usize].push((Some(bi as u32), slot));
        }
    }
    let rpo_index = rpo(f, reach);

    // Entry nodes.
    let mut vals: BTreeMap<ValueId, Port> = BTreeMap::new();
    let mut ctrl: Vec<Port> = vec![Port::PENDING; f.blocks.len()];
    // entry[b] = (ctrl node, per-param node, uses mux-style input offset)
    let mut entry: Vec<(usize, Vec<usize>, usize)> = vec![(0, vec![], 0); f.blocks.len()];
    for (bi, blk) in f.blocks.iter().enumerate() {
        if !reach[bi] {
            continue;
        }
        let label = format!("bb{bi}");
        let span = blk.insts.first().map_or(blk.term_span, |i| i.span);
        let n_in = edges[bi].len();
        let pend = vec![Port::PENDING; n_in];
        let (cnode, pnodes, off);
        if n_in <= 1 {
            cnode = g.add(
                Op::Merge,
                pend.clone(),
                vec![Type::None],
                Some(&label),
                Some(span),
            );
            ctrl[bi] = Port::new(cnode, 0);
            pnodes = blk
                .params
                .iter()
                .map(|p| {
                    let n = g.add(
                        Op::Merge,
                        pend.clone(),
                        vec![int_ty(f.ty(*p))],
                        Some(&label),
                        Some(span),
                    );
                    vals.insert(*p, Port::new(n, 0));
                    n
                })
                .collect();
            off = 0;
        } else {
            cnode = g.add(
                Op::ControlMerge,
                pend.clone(),
                vec![Type::None, Type::Index],
                Some(&label),
                Some(span),
            );
            ctrl[bi] = Port::new(cnode, 0);
            let mut ins = vec![Port::new(cnode, 1)];
            ins.extend(pend.iter().copied());
            let muxes: Vec<usize> = blk
                .params
                .iter()
                .map(|p| {
                    let mut ins = ins.clone();
                    if lags(*p) {
                        ins[0] = fifo(
                            g,
                            ins[0],
                            Type::Index,
                            ADDR_QUEUE_DEPTH,
                            Some(&label),
                            Some(span),
                        );
                    }
                    let n = g.add(
                        Op::Mux,
                        ins,
                        vec![int_ty(f.ty(*p))],
                        Some(&label),
                        Some(span),
                    );
                    vals.insert(*p, Port::new(n, 0));
                    n
                })
                .collect();
            b.block_muxes.insert(bi as u32, muxes.clone());
            pnodes = muxes;
            off = 1;
        }
        b.block_ctrl_entry.insert(bi as u32, cnode);
        b.block_preds
            .insert(bi as u32, edges[bi].iter().map(|(p, _)| *p).collect());
        entry[bi] = (cnode, pnodes, off);
    }

    // The function entry edge into bb0.
    {
        let blk = &f.blocks[0];
        let (cnode, pnodes, off) = entry[0].clone();
        g.nodes[cnode].ins[0] = start;
        for (k, p) in blk.params.iter().enumerate() {
            let src = if *p == f.start_token {
                b.mem_start_uses.push((pnodes[k], off));
                start
            } else {
                *scalar_args
                    .get(p)
                    .ok_or_else(|| err("entry parameter without argument", f.span))?
            };
            g.nodes[pnodes[k]].ins[off] = src;
        }
    }

    // Bodies and exits.
    let mut mem_token_final: Vec<Port> = Vec::new();
    let mut ret_value: Option<Port> = None;
    let mut ret_block: Option<usize> = None;
    let mut ret_ctrl = Port::PENDING;
    for (bi, blk) in f.blocks.iter().enumerate() {
        if !reach[bi] {
            continue;
        }
        let label = format!("bb{bi}");
        let lb = Some(label.as_str());
        let c = ctrl[bi];
        let get = |vals: &BTreeMap<ValueId, Port>, v: &ValueId, span: Span| {
            vals.get(v)
                .copied()
                .ok_or_else(|| err(&format!("value {v} is not available in {label}"), span))
        };
        // A static island takes the block's parameters and its control token together, and
        // gives the control token (output 0) and its results.
        let c = match islands.get(&bi) {
            Some(placed) => {
                let mut ins = vec![c];
                for p in &blk.params {
                    ins.push(get(&vals, p, blk.term_span)?);
                }
                let mut outs = vec![Type::None];
                outs.extend(placed.island.result_types());
                let n = g.add(
                    Op::Island(Box::new(placed.island.clone())),
                    ins,
                    outs,
                    lb,
                    Some(blk.term_span),
                );
                for (k, &r) in placed.results.iter().enumerate() {
                    vals.insert(r, Port::new(n, k as u32 + 1));
                }
                Port::new(n, 0)
            }
            None => c,
        };
        for inst in &blk.insts {
            let sp = Some(inst.span);
            match &inst.kind {
                InstKind::Const { value } => {
                    let t = int_ty(f.ty(inst.results[0]));
                    let v = (*value as u64) & t.mask();
                    let n = g.add(Op::Constant { value: v }, vec![c], vec![t], lb, sp);
                    vals.insert(inst.results[0], Port::new(n, 0));
                }
                InstKind::Binary { op, lhs, rhs } => {
                    let ins = vec![get(&vals, lhs, inst.span)?, get(&vals, rhs, inst.span)?];
                    let t = int_ty(f.ty(inst.results[0]));
                    let n = g.add(Op::Arith(bin_op(*op)), ins, vec![t], lb, sp);
                    vals.insert(inst.results[0], Port::new(n, 0));
                }
                InstKind::Cmp { pred, lhs, rhs } => {
                    let ins = vec![get(&vals, lhs, inst.span)?, get(&vals, rhs, inst.span)?];
                    let op = Op::Arith(cmp_op(*pred));
                    let n = g.add(op, ins, vec![Type::Int(1)], lb, sp);
                    vals.insert(inst.results[0], Port::new(n, 0));
                }
                InstKind::Select { cond, t, f: fv } => {
                    let ins = vec![
                        get(&vals, cond, inst.span)?,
                        get(&vals, t, inst.span)?,
                        get(&vals, fv, inst.span)?,
                    ];
                    let ty = int_ty(f.ty(inst.results[0]));
                    let n = g.add(Op::Arith(ArithOp::Select), ins, vec![ty], lb, sp);
                    vals.insert(inst.results[0], Port::new(n, 0));
                }
                InstKind::Unary { op, value } => {
                    let t = int_ty(f.ty(inst.results[0]));
                    let n = g.add(
                        Op::Arith(unary_op(*op)),
                        vec![get(&vals, value, inst.span)?],
                        vec![t],
                        lb,
                        sp,
                    );
                    vals.insert(inst.results[0], Port::new(n, 0));
                }
                InstKind::Cast { op, value } => {
                    let a = cast_op(*op);
                    let t = int_ty(f.ty(inst.results[0]));
                    let n = g.add(
                        Op::Arith(a),
                        vec![get(&vals, value, inst.span)?],
                        vec![t],
                        lb,
                        sp,
                    );
                    vals.insert(inst.results[0], Port::new(n, 0));
                }
                InstKind::Load { mem, index, token }
                    if mems[mem.0 as usize].lsq_blocks.is_some() =>
                {
                    // Through the queue: the block's control releases the address; the
                    // queue keeps the order, so the ordering token passes straight on.
                    let mp = &mut mems[mem.0 as usize];
                    let mnode = mp
                        .node
                        .ok_or_else(|| err("load from a missing memory", inst.span))?;
                    let elem = g.nodes[mnode].outs[0].clone();
                    let idx = get(&vals, index, inst.span)?;
                    let addr = index_cast(g, idx, lb, sp);
                    let k = mp.loads.len() as u32;
                    // Dynamatic's load port: the address goes as soon as it is computed
                    // (the queue keeps the order), and a slot on each path takes the data
                    // at once: the queue frees a load's entry only when its data is taken
                    // and ends (`memEnd`) only when empty, so a value consumed on the way
                    // to the function's end (which waits for `memEnd`) must not hold it.
                    let ld = g.add(
                        Op::DynLoad,
                        vec![Port::new(addr, 0), Port::new(mnode, k)],
                        vec![Type::Index, elem],
                        lb,
                        sp,
                    );
                    mp.loads.push(ld);
                    vals.insert(inst.results[0], Port::new(ld, 1));
                    let t = get(&vals, token, inst.span)?;
                    vals.insert(inst.results[1], t);
                }
                InstKind::Store {
                    mem,
                    index,
                    value,
                    token,
                } if mems[mem.0 as usize].lsq_blocks.is_some() => {
                    let mp = &mut mems[mem.0 as usize];
                    let idx = get(&vals, index, inst.span)?;
                    let addr = index_cast(g, idx, lb, sp);
                    let data = get(&vals, value, inst.span)?;
                    let dty = g.ty(data);
                    // Dynamatic's store port: address and data go on independently.
                    let st = g.add(
                        Op::DynStore,
                        vec![Port::new(addr, 0), data],
                        vec![Type::Index, dty],
                        lb,
                        sp,
                    );
                    mp.stores.push(st);
                    let t = get(&vals, token, inst.span)?;
                    vals.insert(inst.results[0], t);
                }
                InstKind::Load { mem, index, token } if mems[mem.0 as usize].queue.is_some() => {
                    // Behind an address queue: the address passes the queue once the order
                    // token says every older store's address is queued; the load's done
                    // joins the completion chain (later stores wait for it).
                    let m = mem.0;
                    let mp = &mut mems[m as usize];
                    let (Some(mnode), Some(q)) = (mp.node, mp.queue) else {
                        return Err(err("load from a missing memory", inst.span));
                    };
                    let elem = g.nodes[mnode].outs[0].clone();
                    let idx = get(&vals, index, inst.span)?;
                    let addr = index_cast(g, idx, lb, sp);
                    let k = mp.loads.len() as u32;
                    let order_in = twins
                        .get(&(m, *token))
                        .and_then(|t| vals.get(t).copied())
                        .ok_or_else(|| {
                            err("internal error: a load without its order token", inst.span)
                        })?;
                    mp.queue_loads.push((Port::new(addr, 0), order_in));
                    let passed = Port::new(q, k);
                    let order_out = g.add(Op::Join, vec![passed], vec![Type::None], lb, sp);
                    if let Some(t) = twins.get(&(m, inst.results[1])) {
                        vals.insert(*t, Port::new(order_out, 0));
                    }
                    let data = Port::new(mnode, k);
                    let ld_done = Port::new(mnode, mp.ld + mp.st + k);
                    let latch = latch(g, data, &elem, lb, sp);
                    let ld = g.add(
                        Op::Load,
                        vec![passed, Port::new(latch, 0), Port::new(order_out, 0)],
                        vec![elem, Type::Index],
                        lb,
                        sp,
                    );
                    // The memory's `ldDone` is taken at once (its port is free for the next
                    // load the cycle it reads); the load is done once its data is latched,
                    // and that waits in a FIFO for the completion chain.
                    let ld_done = fifo(g, ld_done, Type::None, ADDR_QUEUE_DEPTH, lb, sp);
                    let done = g.add(
                        Op::Join,
                        vec![ld_done, Port::new(ld, 0)],
                        vec![Type::None],
                        lb,
                        sp,
                    );
                    let done = fifo(g, Port::new(done, 0), Type::None, ADDR_QUEUE_DEPTH, lb, sp);
                    let all = g.add(
                        Op::Join,
                        vec![get(&vals, token, inst.span)?, done],
                        vec![Type::None],
                        lb,
                        sp,
                    );
                    vals.insert(inst.results[1], Port::new(all, 0));
                    mp.loads.push(ld);
                    vals.insert(inst.results[0], Port::new(ld, 0));
                }
                InstKind::Store {
                    mem,
                    index,
                    value,
                    token,
                } if mems[mem.0 as usize].queue.is_some() => {
                    // Behind an address queue: the address is queued when the order token
                    // arrives (the queue passes the token on a cycle later); the write
                    // waits for every older access to be done, and its `stDone` also
                    // takes its address out of the queue.
                    let m = mem.0;
                    let mp = &mut mems[m as usize];
                    let (Some(mnode), Some(q)) = (mp.node, mp.queue) else {
                        return Err(err("store to a missing memory", inst.span));
                    };
                    let idx = get(&vals, index, inst.span)?;
                    let addr = index_cast(g, idx, lb, sp);
                    let data = get(&vals, value, inst.span)?;
                    let dty = g.ty(data);
                    let k = mp.stores.len() as u32;
                    let order_in = twins
                        .get(&(m, *token))
                        .and_then(|t| vals.get(t).copied())
                        .ok_or_else(|| {
                            err("internal error: a store without its order token", inst.span)
                        })?;
                    mp.queue_stores.push((Port::new(addr, 0), order_in));
                    // The address is queued early; the write waits for the completion chain
                    // with its address in a FIFO, so that later addresses are not held up.
                    let waiting =
                        fifo(g, Port::new(addr, 0), Type::Index, ADDR_QUEUE_DEPTH, lb, sp);
                    let st = g.add(
                        Op::Store,
                        vec![waiting, data, get(&vals, token, inst.span)?],
                        vec![dty, Type::Index],
                        lb,
                        sp,
                    );
                    mp.stores.push(st);
                    vals.insert(inst.results[0], Port::new(mnode, mp.ld + k));
                    if let Some(t) = twins.get(&(m, inst.results[0])) {
                        vals.insert(*t, Port::new(q, mp.ld + k));
                    }
                }
                InstKind::Load { mem, index, token } => {
                    let mp = &mut mems[mem.0 as usize];
                    let mnode = mp
                        .node
                        .ok_or_else(|| err("load from a missing memory", inst.span))?;
                    let elem = g.nodes[mnode].outs[0].clone();
                    let idx = get(&vals, index, inst.span)?;
                    let addr = index_cast(g, idx, lb, sp);
                    let k = mp.loads.len() as u32;
                    let data = Port::new(mnode, k);
                    let ld_done = Port::new(mnode, mp.ld + mp.st + k);
                    let token = get(&vals, token, inst.span)?;
                    let ld;
                    if mp.st == 0 {
                        // A memory the function never writes: re-reading gives the same
                        // value, so the data comes straight from the memory and its `ldDone`
                        // is the access's done token (no cycle spent in a latch).
                        ld = g.add(
                            Op::Load,
                            vec![Port::new(addr, 0), data, token],
                            vec![elem, Type::Index],
                            lb,
                            sp,
                        );
                        vals.insert(inst.results[1], ld_done);
                    } else {
                        // The memory reads combinationally and re-reads while its data
                        // output waits, so the data is latched in a buffer and the next
                        // access of the memory waits for it (a store could otherwise change
                        // it first).
                        let latch = latch(g, data, &elem, lb, sp);
                        ld = g.add(
                            Op::Load,
                            vec![Port::new(addr, 0), Port::new(latch, 0), token],
                            vec![elem, Type::Index],
                            lb,
                            sp,
                        );
                        let done = g.add(
                            Op::Join,
                            vec![ld_done, Port::new(ld, 0)],
                            vec![Type::None],
                            lb,
                            sp,
                        );
                        vals.insert(inst.results[1], Port::new(done, 0));
                    }
                    mp.loads.push(ld);
                    vals.insert(inst.results[0], Port::new(ld, 0));
                }
                InstKind::Store {
                    mem,
                    index,
                    value,
                    token,
                } => {
                    let mp = &mut mems[mem.0 as usize];
                    let mnode = mp
                        .node
                        .ok_or_else(|| err("store to a missing memory", inst.span))?;
                    let idx = get(&vals, index, inst.span)?;
                    let addr = index_cast(g, idx, lb, sp);
                    let data = get(&vals, value, inst.span)?;
                    let dty = g.ty(data);
                    let k = mp.stores.len() as u32;
                    let st = g.add(
                        Op::Store,
                        vec![Port::new(addr, 0), data, get(&vals, token, inst.span)?],
                        vec![dty, Type::Index],
                        lb,
                        sp,
                    );
                    mp.stores.push(st);
                    vals.insert(inst.results[0], Port::new(mnode, mp.ld + k));
                }
            }
        }
        let tsp = Some(blk.term_span);
        // A block with groups in load-store queues hands its control on only once every
        // queue took its group (a lazy fork), and a cycle later (a register): two groups of
        // one queue never arrive in the same cycle, and they arrive in program order.
        let queues: Vec<(usize, usize)> = mems
            .iter()
            .enumerate()
            .filter_map(|(mi, mp)| {
                let g = mp.lsq_blocks.as_ref()?.iter().position(|&b| b == bi)?;
                Some((mi, g))
            })
            .collect();
        let c = if queues.is_empty() {
            c
        } else {
            let k = queues.len();
            let lf = g.add(Op::LazyFork, vec![c], vec![Type::None; k + 1], lb, tsp);
            for (j, &(mi, grp)) in queues.iter().enumerate() {
                mems[mi].group_ctrl[grp] = Port::new(lf, j as u32);
            }
            let reg = g.add(
                Op::Buffer {
                    slots: 1,
                    kind: BufferKind::Seq,
                    init: None,
                },
                vec![Port::new(lf, k as u32)],
                vec![Type::None],
                lb,
                tsp,
            );
            Port::new(reg, 0)
        };
        // Connects `src` to input `edge` of successor `s`'s entry for param position `k`
        // (`None` = control).
        let mut connect =
            |g: &mut HGraph, s: BlockId, from: u32, slot: usize, k: Option<usize>, src: Port| {
                let si = s.0 as usize;
                let Some(pos) = edges[si].iter().position(|e| *e == (Some(from), slot)) else {
                    return;
                };
                let (cnode, pnodes, off) = &entry[si];
                let (node, at) = match k {
                    None => (*cnode, pos),
                    Some(k) => (pnodes[k], pos + off),
                };
                g.nodes[node].ins[at] = src;
                if k.is_none() {
                    b.edge_ctrl.push((from, s.0, pos, src));
                }
                if rpo_index[si] <= rpo_index[bi] {
                    b.back_edges.push((node, at));
                }
            };
        match &blk.term {
            Terminator::Br { target, args } => {
                connect(g, *target, bi as u32, 0, None, c);
                for (k, a) in args.iter().enumerate() {
                    let src = get(&vals, a, blk.term_span)?;
                    connect(g, *target, bi as u32, 0, Some(k), src);
                }
            }
            Terminator::CondBr {
                cond,
                t,
                t_args,
                f: fb,
                f_args,
            } => {
                let cv = get(&vals, cond, blk.term_span)?;
                // One cond_br per distinct value: the control token first, then arguments.
                let mut order: Vec<Option<ValueId>> = vec![None];
                for a in t_args.iter().chain(f_args.iter()) {
                    if !order.contains(&Some(*a)) {
                        order.push(Some(*a));
                    }
                }
                for v in order {
                    let (src, ty) = match v {
                        None => (c, Type::None),
                        Some(v) => {
                            let p = get(&vals, &v, blk.term_span)?;
                            (p, g.ty(p))
                        }
                    };
                    let c = match v {
                        Some(v) if lags(v) => fifo(g, cv, Type::Int(1), ADDR_QUEUE_DEPTH, lb, tsp),
                        _ => cv,
                    };
                    let br = g.add(Op::CondBr, vec![c, src], vec![ty.clone(), ty], lb, tsp);
                    let (tp, fp) = (Port::new(br, 0), Port::new(br, 1));
                    match v {
                        None => {
                            connect(g, *t, bi as u32, 0, None, tp);
                            connect(g, *fb, bi as u32, 1, None, fp);
                        }
                        Some(v) => {
                            for (k, a) in t_args.iter().enumerate() {
                                if *a == v {
                                    connect(g, *t, bi as u32, 0, Some(k), tp);
                                }
                            }
                            for (k, a) in f_args.iter().enumerate() {
                                if *a == v {
                                    connect(g, *fb, bi as u32, 1, Some(k), fp);
                                }
                            }
                        }
                    }
                }
            }
            Terminator::Return { value, tokens } => {
                if ret_block.is_some() {
                    return Err(err("more than one return block", blk.term_span));
                }
                ret_block = Some(bi);
                ret_value = match value {
                    Some(v) => Some(get(&vals, v, blk.term_span)?),
                    None => None,
                };
                mem_token_final.push(c);
                for t in tokens {
                    mem_token_final.push(get(&vals, t, blk.term_span)?);
                }
                ret_ctrl = c;
            }
        }
    }
    let ret_block = ret_block.ok_or_else(|| err("the function never returns", f.span))?;
    let rlabel = format!("bb{ret_block}");
    let rspan = Some(f.blocks[ret_block].term_span);
    b.mem_final = mem_token_final[1..].to_vec();
    // A queue's `memEnd` (its stores written) joins the done token too.
    for mp in &mems {
        if let (Some(n), Some(_)) = (mp.node, &mp.lsq_blocks) {
            mem_token_final.push(Port::new(n, mp.ld));
        }
    }
    let done = if mem_token_final.len() == 1 {
        mem_token_final[0]
    } else {
        let j = g.add(
            Op::Join,
            mem_token_final,
            vec![Type::None],
            Some(&rlabel),
            rspan,
        );
        Port::new(j, 0)
    };
    let mut rins = Vec::new();
    if let Some(v) = ret_value {
        g.results.push(("ret".into(), g.ty(v)));
        rins.push(v);
    }
    g.results.push(("done".into(), Type::None));
    b.done_pos = rins.len();
    rins.push(done);
    b.ret = g.add(Op::Return, rins, vec![], Some(&rlabel), rspan);
    g.nodes[b.ret].name = Some("return".into());
    b.rpo = rpo_index;

    // Memory inputs: store ports (data, address), then load addresses. A queue's: `memStart`
    // (the start token), its group controls, load addresses, store address/data pairs,
    // `ctrlEnd` (the return block's control).
    for mp in &mems {
        let Some(n) = mp.node else { continue };
        if mp.lsq_blocks.is_some() {
            let mut ins = vec![start];
            ins.extend(mp.group_ctrl.iter().copied());
            ins.extend(mp.loads.iter().map(|&l| Port::new(l, 0)));
            for &s in &mp.stores {
                ins.push(Port::new(s, 0));
                ins.push(Port::new(s, 1));
            }
            ins.push(ret_ctrl);
            g.nodes[n].ins = ins;
            continue;
        }
        let mut ins = Vec::new();
        for &s in &mp.stores {
            ins.push(Port::new(s, 0));
            ins.push(Port::new(s, 1));
        }
        for &l in &mp.loads {
            ins.push(Port::new(l, 1));
        }
        g.nodes[n].ins = ins;
        // An address queue: per load (address, order), per store (address, order, stDone).
        if let Some(q) = mp.queue {
            let mut ins = Vec::new();
            for &(a, o) in &mp.queue_loads {
                ins.extend([a, o]);
            }
            for (k, &(a, o)) in mp.queue_stores.iter().enumerate() {
                ins.extend([a, o, Port::new(n, mp.ld + k as u32)]);
            }
            g.nodes[q].ins = ins;
        }
    }
    if let Some((i, _)) = g
        .nodes
        .iter()
        .enumerate()
        .find(|(_, n)| n.ins.contains(&Port::PENDING))
    {
        return Err(err(
            &format!(
                "internal error: unconnected input of a {} node",
                g.nodes[i].op.mnemonic()
            ),
            g.nodes[i].span.unwrap_or(f.span),
        ));
    }
    Ok(b)
}

/// Reverse-postorder position of every reachable block (edges to a block with a smaller or
/// equal position are the CFG's back edges).
pub(crate) fn rpo(f: &IrFunction, reach: &[bool]) -> Vec<usize> {
    let n = f.blocks.len();
    let mut post = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    // Iterative DFS: (block, next successor index).
    let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
    seen[0] = true;
    while let Some(&mut (b, ref mut i)) = stack.last_mut() {
        let succs = f.blocks[b].term.successors();
        if *i < succs.len() {
            let s = succs[*i].0.0 as usize;
            *i += 1;
            if !seen[s] && reach[s] {
                seen[s] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(b);
            stack.pop();
        }
    }
    let mut idx = vec![usize::MAX; n];
    for (k, b) in post.iter().rev().enumerate() {
        idx[*b] = k;
    }
    idx
}
