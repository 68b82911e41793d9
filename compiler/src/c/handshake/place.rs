//! Where static islands go (`--schedule`, `#pragma handscope static|dynamic`,
//! `docs/static-islands.md`): the chosen regions of the maximized IR are cut out into
//! [`Island`]s, and the block that entered each region is rewritten to leave at once with the
//! island's results, so that the dataflow construction builds one `island` node there.
//!
//! * A **loop island** replaces an innermost loop that [`super::islands`] can schedule: its
//!   header's parameters come in, the values its exit edge passes go out; the back edge costs
//!   the schedule's `ii` and the exit its latency.
//! * A **function island** (`--schedule static`) replaces the whole function body: the entry
//!   block's parameters come in, the returned value and the memories' final tokens go out.
//!   Each block costs the length of its own schedule (at least a cycle: a controller state);
//!   the innermost loops a static schedule pipelines cost `ii` per iteration and their
//!   latency at their exit, as in a loop island.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use handscope_sim::island::{
    EdgeTarget, Island, IslandBlock, IslandEdge, IslandExit, IslandPipeline, IslandStep,
    ScheduledOp, StepOp,
};
use handscope_sim::schedule::{Dep, SchedOp, modulo_schedule};
use handscope_sim::spec::timing::{Format, TimingProfile, Unit};
use handscope_sim::{ArithOp, Type};

use super::build::{bin_op, cast_op, cmp_op, int_ty, memory_names, unary_op};
use super::islands::{LoopIsland, loop_islands};
use crate::c::ir::{
    Block, BlockId, InstKind, IrFunction, IrParam, MemoryKind, Terminator, Type as IrType, ValueId,
};
use crate::c::span::Span;

/// How the C flow schedules a kernel (`--schedule`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Scheduling {
    /// Every operation is a handshake component (loops marked
    /// `#pragma handscope static` excepted).
    #[default]
    Dynamic,
    /// The whole function is one statically scheduled island.
    Static,
    /// Every innermost loop a static schedule fits is an island (loops marked
    /// `#pragma handscope dynamic` excepted); the rest stays dynamic.
    Hybrid,
}

/// A `#pragma handscope static` or `dynamic` of the kernel's main file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoopPragma {
    /// Its line: it applies to the first innermost loop whose header is on a later line.
    pub line: u32,
    /// `static` (true) or `dynamic`.
    pub static_: bool,
}

/// An island placed in block `block`: its inputs are the block's parameters, its results the
/// values `results` the block now passes on.
pub(super) struct Placed {
    /// The island.
    pub island: Island,
    /// Fresh values holding the island's results, in order.
    pub results: Vec<ValueId>,
}

/// The `#pragma handscope static|dynamic` lines of `text`.
pub fn loop_pragmas(text: &str) -> Vec<LoopPragma> {
    text.lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let mut w = l.trim_start().strip_prefix('#')?.split_whitespace();
            (w.next()? == "pragma" && w.next()? == "handscope").then_some(())?;
            let static_ = match w.next()? {
                "static" => true,
                "dynamic" => false,
                _ => return None,
            };
            Some(LoopPragma {
                line: i as u32 + 1,
                static_,
            })
        })
        .collect()
}

/// Chooses the islands of `ir` (maximized) under `scheduling` and `pragmas`, cuts them out
/// and rewrites their entry blocks. Returns them by entry block.
pub(super) fn place_islands(
    ir: &mut IrFunction,
    scheduling: Scheduling,
    pragmas: &[LoopPragma],
    profile: &TimingProfile,
    limits: &BTreeMap<String, u32>,
    stores: bool,
) -> Result<BTreeMap<usize, Placed>, (String, Span)> {
    let loops = loop_islands(ir, profile, limits, stores);
    // The pragma of each loop: the nearest before its header line, with no other innermost
    // loop's header between.
    let mut wanted: BTreeMap<usize, bool> = BTreeMap::new();
    let main_file = |sp: Span| sp.file == 0;
    for p in pragmas {
        let next = loops
            .iter()
            .enumerate()
            .filter(|(_, l)| l.line > p.line && main_file(ir.blocks[l.blocks[0]].term_span))
            .min_by_key(|(_, l)| l.line);
        let Some((k, l)) = next else {
            return Err((
                format!(
                    "`#pragma handscope {}` at line {} is followed by no innermost loop",
                    if p.static_ { "static" } else { "dynamic" },
                    p.line
                ),
                ir.span,
            ));
        };
        if p.static_
            && let Err(why) = &l.schedule
        {
            return Err((
                format!(
                    "`#pragma handscope static` at line {}: the loop at line {} cannot be a static island: {why}",
                    p.line, l.line
                ),
                ir.blocks[l.blocks[0]].term_span,
            ));
        }
        wanted.insert(k, p.static_);
    }
    let mut placed = BTreeMap::new();
    if scheduling == Scheduling::Static {
        let reach = super::maximize::reachable(ir);
        let wide = (0..ir.blocks.len()).filter(|&b| reach[b]).find_map(|b| {
            let blk = &ir.blocks[b];
            blk.insts
                .iter()
                .find(|i| i.results.iter().any(|&v| ir.ty(v).bits() > 64))
                .map(|i| i.span)
                .or_else(|| {
                    blk.params
                        .iter()
                        .any(|&v| ir.ty(v).bits() > 64)
                        .then_some(blk.term_span)
                })
        });
        if let Some(span) = wide {
            return Err((
                "`--schedule static`: the function computes values wider than 64 bits, which an island does not hold; use `hybrid`".into(),
                span,
            ));
        }
        let pipelined: Vec<&LoopIsland> = loops
            .iter()
            .enumerate()
            .filter(|(k, l)| l.schedule.is_ok() && wanted.get(k) != Some(&false))
            .map(|(_, l)| l)
            .collect();
        let p = function_island(ir, &pipelined, profile, limits);
        placed.insert(0, p);
        return Ok(placed);
    }
    for (k, l) in loops.iter().enumerate() {
        let chosen = match wanted.get(&k) {
            Some(&s) => s,
            None => scheduling == Scheduling::Hybrid && l.schedule.is_ok(),
        };
        if chosen && l.schedule.is_ok() {
            let h = l.blocks[0];
            let p = loop_island(ir, l);
            placed.insert(h, p);
        }
    }
    Ok(placed)
}

/// The memory names an island uses: an array parameter's name, a local array's node ID.
fn memory_name(ir: &IrFunction, names: &[String], mi: usize) -> String {
    match ir.memories[mi].kind {
        MemoryKind::Param(_) => ir
            .params
            .iter()
            .find_map(|p| match p {
                IrParam::Array { name, mem } if mem.0 as usize == mi => Some(name.clone()),
                _ => None,
            })
            .unwrap_or_else(|| ir.memories[mi].name.clone()),
        MemoryKind::Local { .. } => names[mi].clone(),
    }
}

/// Translates IR blocks into island blocks.
struct Cutter<'a> {
    ir: &'a IrFunction,
    slots: Vec<Type>,
    slot_of: HashMap<ValueId, u32>,
    /// The slot every load's and store's ordering token goes to (tokens carry nothing).
    token: u32,
    memories: Vec<String>,
    memory_of: HashMap<usize, u32>,
    names: Vec<String>,
    /// Island block of each IR block inside.
    block_of: BTreeMap<usize, u32>,
}

impl<'a> Cutter<'a> {
    fn new(ir: &'a IrFunction, blocks: &[usize]) -> Cutter<'a> {
        let mut c = Cutter {
            ir,
            slots: Vec::new(),
            slot_of: HashMap::new(),
            token: 0,
            memories: Vec::new(),
            memory_of: HashMap::new(),
            names: memory_names(ir),
            block_of: blocks
                .iter()
                .enumerate()
                .map(|(k, &b)| (b, k as u32))
                .collect(),
        };
        // The first block's parameters are slots 0.. (the island's inputs).
        for &p in &ir.blocks[blocks[0]].params {
            c.slot(p);
        }
        c.token = c.slots.len() as u32;
        c.slots.push(Type::None);
        c
    }

    fn slot(&mut self, v: ValueId) -> u32 {
        if let Some(&s) = self.slot_of.get(&v) {
            return s;
        }
        let s = self.slots.len() as u32;
        self.slots.push(int_ty(self.ir.ty(v)));
        self.slot_of.insert(v, s);
        s
    }

    fn memory(&mut self, mi: usize) -> u32 {
        if let Some(&k) = self.memory_of.get(&mi) {
            return k;
        }
        let k = self.memories.len() as u32;
        self.memories.push(memory_name(self.ir, &self.names, mi));
        self.memory_of.insert(mi, k);
        k
    }

    /// Island block of IR block `b`; `cycles(from, to)` is what each edge costs (`to` is
    /// `None` for an edge that leaves).
    fn block(&mut self, b: usize, cycles: &dyn Fn(usize, Option<usize>) -> u32) -> IslandBlock {
        let blk: &Block = &self.ir.blocks[b];
        let params = blk.params.iter().map(|&p| self.slot(p)).collect();
        let mut steps = Vec::new();
        for inst in &blk.insts {
            let (op, args): (StepOp, Vec<ValueId>) = match &inst.kind {
                InstKind::Const { value } => {
                    let t = int_ty(self.ir.ty(inst.results[0]));
                    (StepOp::Const(*value as u64 & t.mask()), vec![])
                }
                InstKind::Binary { op, lhs, rhs } => (StepOp::Arith(bin_op(*op)), vec![*lhs, *rhs]),
                InstKind::Unary { op, value } => (StepOp::Arith(unary_op(*op)), vec![*value]),
                InstKind::Cmp { pred, lhs, rhs } => {
                    (StepOp::Arith(cmp_op(*pred)), vec![*lhs, *rhs])
                }
                InstKind::Select { cond, t, f } => {
                    (StepOp::Arith(ArithOp::Select), vec![*cond, *t, *f])
                }
                InstKind::Cast { op, value } => (StepOp::Arith(cast_op(*op)), vec![*value]),
                InstKind::Load { mem, index, .. } => {
                    let k = self.memory(mem.0 as usize);
                    (StepOp::Load(k), vec![*index])
                }
                InstKind::Store {
                    mem, index, value, ..
                } => {
                    let k = self.memory(mem.0 as usize);
                    (StepOp::Store(k), vec![*index, *value])
                }
            };
            let args = args.iter().map(|&v| self.slot(v)).collect();
            let result = match &inst.kind {
                InstKind::Store { .. } => self.token,
                _ => self.slot(inst.results[0]),
            };
            // A load's second result, its ordering token, is the shared token slot.
            if let (InstKind::Load { .. }, Some(&t)) = (&inst.kind, inst.results.get(1)) {
                self.slot_of.insert(t, self.token);
            }
            if let (InstKind::Store { .. }, Some(&t)) = (&inst.kind, inst.results.first()) {
                self.slot_of.insert(t, self.token);
            }
            steps.push(IslandStep { op, args, result });
        }
        let edge = |this: &mut Self, to: BlockId, args: &[ValueId]| -> IslandEdge {
            let args = args.iter().map(|&v| this.slot(v)).collect();
            match this.block_of.get(&(to.0 as usize)) {
                Some(&k) => IslandEdge {
                    to: EdgeTarget::Block(k),
                    args,
                    cycles: cycles(b, Some(to.0 as usize)),
                },
                None => IslandEdge {
                    to: EdgeTarget::Leave,
                    args,
                    cycles: cycles(b, None),
                },
            }
        };
        let exit = match &blk.term {
            Terminator::Br { target, args } => IslandExit::Goto(edge(self, *target, args)),
            Terminator::CondBr {
                cond,
                t,
                t_args,
                f,
                f_args,
            } => {
                let cond = self.slot(*cond);
                IslandExit::Branch {
                    cond,
                    t: edge(self, *t, t_args),
                    f: edge(self, *f, f_args),
                }
            }
            Terminator::Return { value, tokens } => {
                let vals: Vec<ValueId> = value.iter().chain(tokens).copied().collect();
                let args = vals.iter().map(|&v| self.slot(v)).collect();
                IslandExit::Goto(IslandEdge {
                    to: EdgeTarget::Leave,
                    args,
                    cycles: cycles(b, None),
                })
            }
        };
        IslandBlock {
            params,
            steps,
            exit,
        }
    }
}

/// The pipeline description of a scheduled loop, its blocks numbered by `block_of`.
fn pipeline(l: &LoopIsland, block_of: &BTreeMap<usize, u32>) -> IslandPipeline {
    let s = l.schedule.as_ref().expect("a scheduled loop");
    IslandPipeline {
        header: block_of[&l.blocks[0]],
        blocks: l.blocks.iter().map(|b| block_of[b]).collect(),
        line: l.line,
        ii: s.ii.max(1),
        latency: s.latency.max(1),
        ops: l
            .ops
            .iter()
            .zip(&s.start)
            .map(|(o, &start)| ScheduledOp {
                name: o.name.clone(),
                line: o.line,
                start,
                latency: o.unit.latency,
            })
            .collect(),
    }
}

/// Fresh IR values of the types of `like`.
fn fresh(ir: &mut IrFunction, like: &[Type]) -> Vec<ValueId> {
    like.iter()
        .map(|t| {
            let v = ValueId(ir.value_types.len() as u32);
            ir.value_types.push(match t {
                Type::None => IrType::Token,
                Type::Float(k) => IrType::Float(*k),
                other => IrType::Int(other.bit_width()),
            });
            ir.value_names.push(None);
            v
        })
        .collect()
}

/// Cuts loop `l` out into an island; its header now branches to the loop's exit with the
/// island's results.
fn loop_island(ir: &mut IrFunction, l: &LoopIsland) -> Placed {
    let h = l.blocks[0];
    let mut cut = Cutter::new(ir, &l.blocks);
    let pipe = pipeline(l, &cut.block_of);
    let (ii, latency) = (pipe.ii, pipe.latency);
    let body: BTreeSet<usize> = l.blocks.iter().copied().collect();
    let cycles = |_from: usize, to: Option<usize>| match to {
        Some(t) if t == h => ii,
        Some(_) => 0,
        None => latency,
    };
    let blocks: Vec<IslandBlock> = l.blocks.iter().map(|&b| cut.block(b, &cycles)).collect();
    // The loop's exit edge: its target and the IR values it passes.
    let (exit_to, _) = l
        .blocks
        .iter()
        .flat_map(|&b| ir.blocks[b].term.successors())
        .map(|(s, a)| (s, a.to_vec()))
        .find(|(s, _)| !body.contains(&(s.0 as usize)))
        .expect("a loop island has an exit");
    let island = Island {
        slots: cut.slots,
        params: ir.blocks[h].params.len() as u32,
        memories: cut.memories,
        blocks,
        pipelines: vec![pipe],
    };
    let results = fresh(ir, &island.result_types());
    ir.blocks[h].insts.clear();
    ir.blocks[h].term = Terminator::Br {
        target: exit_to,
        args: results.clone(),
    };
    Placed { island, results }
}

/// Cuts the whole function out into one island: the entry block returns its results.
fn function_island(
    ir: &mut IrFunction,
    pipelined: &[&LoopIsland],
    profile: &TimingProfile,
    limits: &BTreeMap<String, u32>,
) -> Placed {
    let reach = super::maximize::reachable(ir);
    let order = super::build::rpo(ir, &reach);
    let mut blocks: Vec<usize> = (0..ir.blocks.len()).filter(|&b| reach[b]).collect();
    blocks.sort_by_key(|&b| order[b]);
    // The pipelined loops: header → (ii, latency, blocks).
    let loops: BTreeMap<usize, (u32, u32, BTreeSet<usize>)> = pipelined
        .iter()
        .map(|l| {
            let s = l.schedule.as_ref().expect("a scheduled loop");
            (
                l.blocks[0],
                (
                    s.ii.max(1),
                    s.latency.max(1),
                    l.blocks.iter().copied().collect(),
                ),
            )
        })
        .collect();
    let lengths: Vec<u32> = (0..ir.blocks.len())
        .map(|b| {
            if reach[b] {
                block_length(ir, b, profile, limits)
            } else {
                1
            }
        })
        .collect();
    let cycles = |from: usize, to: Option<usize>| -> u32 {
        for (&h, (ii, latency, body)) in &loops {
            if body.contains(&from) {
                return match to {
                    Some(t) if t == h => *ii,
                    Some(t) if body.contains(&t) => 0,
                    _ => *latency,
                };
            }
        }
        lengths[from]
    };
    let mut cut = Cutter::new(ir, &blocks);
    let island_blocks: Vec<IslandBlock> = blocks.iter().map(|&b| cut.block(b, &cycles)).collect();
    let pipelines = pipelined
        .iter()
        .map(|l| pipeline(l, &cut.block_of))
        .collect();
    let island = Island {
        slots: cut.slots,
        params: ir.blocks[0].params.len() as u32,
        memories: cut.memories,
        blocks: island_blocks,
        pipelines,
    };
    let results = fresh(ir, &island.result_types());
    let has_value = ir.ret.is_some();
    ir.blocks[0].insts.clear();
    ir.blocks[0].term = Terminator::Return {
        value: has_value.then(|| results[0]),
        tokens: results[usize::from(has_value)..].to_vec(),
    };
    Placed { island, results }
}

/// Cycles a static schedule gives block `b` on its own: its operations as early as their
/// operands and units allow (memory accesses in program order), at least one cycle.
fn block_length(
    ir: &IrFunction,
    b: usize,
    profile: &TimingProfile,
    limits: &BTreeMap<String, u32>,
) -> u32 {
    let blk = &ir.blocks[b];
    let fmt = |t: IrType| match t {
        IrType::Float(k) => Format::Float(k),
        _ => Format::Integer,
    };
    let mut ops = Vec::new();
    let mut def: HashMap<ValueId, usize> = HashMap::new();
    let mut deps = Vec::new();
    for inst in &blk.insts {
        let (unit, kind) = match &inst.kind {
            InstKind::Const { .. } => (Unit::COMB, None),
            InstKind::Binary { op, lhs, .. } => {
                let a = bin_op(*op);
                (profile.arith(a, fmt(ir.ty(*lhs))), None)
            }
            InstKind::Unary { op, value } => {
                (profile.arith(unary_op(*op), fmt(ir.ty(*value))), None)
            }
            InstKind::Cmp { pred, lhs, .. } => {
                (profile.arith(cmp_op(*pred), fmt(ir.ty(*lhs))), None)
            }
            InstKind::Select { .. } => (profile.arith(ArithOp::Select, Format::Integer), None),
            InstKind::Cast { .. } => (Unit::COMB, None),
            InstKind::Load { mem, .. } => (
                Unit::pipelined(profile.memory_read()),
                Some(format!("load.{}", ir.memories[mem.0 as usize].name)),
            ),
            InstKind::Store { mem, .. } => (
                Unit::pipelined(1),
                Some(format!("store.{}", ir.memories[mem.0 as usize].name)),
            ),
        };
        let k = ops.len();
        for v in inst.operands() {
            if let Some(&from) = def.get(&v) {
                deps.push(Dep {
                    from,
                    to: k,
                    distance: 0,
                });
            }
        }
        for &r in &inst.results {
            def.insert(r, k);
        }
        ops.push(SchedOp { kind, unit });
    }
    // A straight-line block: no loop-carried dependence, so the schedule's latency is its
    // length (the interval is irrelevant).
    let len = modulo_schedule(&ops, &deps, limits).map_or_else(
        |_| ops.iter().map(|o| o.unit.latency).sum::<u32>(),
        |s| s.latency,
    );
    len.max(1)
}
