//! Static islands (`docs/static-islands.md`): a region scheduled at compile time (an
//! innermost loop, or a whole function), run as one component with handshake channels only
//! at its boundary.
//!
//! An [`Island`] holds the region as a small control-flow graph over numbered values (its
//! *slots*): block 0 is where an invocation starts (a loop island's header), its parameters
//! are the island's data inputs, and an edge that leaves gives the island's results. Each
//! edge carries the cycles the static schedule spends on it (a pipelined loop's back edge
//! its `ii`, its exit its latency, a block's edges out the length of its schedule), so an
//! invocation takes the sum of the edges it went along: `(iterations - 1) * ii + latency`
//! for a loop island.
//!
//! Its controller evaluates one *cone* per clock cycle ([`Island::cone`]): the blocks from
//! one cone head (block 0, a back edge's target) to the next, combinationally, memory
//! accesses included. Every cone costs the schedule at least one cycle, so the controller
//! is never behind the schedule; it holds the results until the schedule says they are
//! ready.

use std::collections::BTreeMap;

use thiserror::Error;

use crate::engine::arith;
use crate::ops::ArithOp;
use crate::types::Type;

/// Most cones [`Island::run`] evaluates before it gives up (a loop that never leaves; the
/// engine, which evaluates a cone per cycle, simply runs on, as the hardware would).
pub const MAX_ISLAND_ITERATIONS: u64 = 1 << 26;

/// A statically scheduled region: its body, its timing and what the debugger shows of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Island {
    /// The type of every slot; slots `0..params` are the first block's parameters.
    pub slots: Vec<Type>,
    /// Number of first-block parameters: the data inputs (inputs `1..`, after the control
    /// token).
    pub params: u32,
    /// The memories the region reads or writes, by the name the engine knows them by (an
    /// array argument's name, or a `memory` node's ID).
    pub memories: Vec<String>,
    /// The region's blocks; block 0 is where an invocation starts (a loop island's header).
    pub blocks: Vec<IslandBlock>,
    /// The modulo-scheduled loops inside, for stage tables (a loop island has one, at block
    /// 0).
    pub pipelines: Vec<IslandPipeline>,
}

/// A modulo-scheduled loop of an island.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IslandPipeline {
    /// Its header block.
    pub header: u32,
    /// Its blocks, the header first.
    pub blocks: Vec<u32>,
    /// Its C source line (0 when unknown).
    pub line: u32,
    /// Cycles between the starts of two iterations (the initiation interval).
    pub ii: u32,
    /// Cycles from an iteration's start to its last result (at least 1).
    pub latency: u32,
    /// The scheduled operations, in iteration order.
    pub ops: Vec<ScheduledOp>,
}

impl IslandPipeline {
    /// Number of pipeline stages: up to the stage of the last operation to start and of the
    /// last result's cycle (as [`crate::schedule::Schedule::stages`]).
    pub fn stages(&self) -> u32 {
        let ii = self.ii.max(1);
        let last_start = self.ops.iter().map(|o| o.start / ii + 1).max().unwrap_or(1);
        last_start.max(self.latency.div_ceil(ii)).max(1)
    }

    /// The stage operation `k` runs in.
    pub fn stage(&self, k: usize) -> u32 {
        self.ops.get(k).map_or(0, |o| o.start / self.ii.max(1))
    }

    /// Which iteration occupies each stage `cycle` cycles after the loop's first iteration
    /// began, in a run of `iterations` iterations: entry `s` is the iteration in stage `s`.
    pub fn occupancy(&self, cycle: u64, iterations: u64) -> Vec<Option<u64>> {
        let ii = u64::from(self.ii.max(1));
        (0..u64::from(self.stages()))
            .map(|s| {
                // Iteration k is in stage s during [k*ii + s*ii, k*ii + (s+1)*ii), while it
                // has not finished (cycle < k*ii + latency).
                let lead = cycle.checked_sub(s * ii)?;
                let k = lead / ii;
                let inside = cycle < u64::from(self.latency) + k * ii;
                (k < iterations && inside).then_some(k)
            })
            .collect()
    }
}

/// One block of an island's loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IslandBlock {
    /// Slots bound by the edge that enters the block (the header's are `0..params`).
    pub params: Vec<u32>,
    /// Operations in order.
    pub steps: Vec<IslandStep>,
    /// Where the block goes.
    pub exit: IslandExit,
}

/// One operation of an island.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IslandStep {
    /// What it computes.
    pub op: StepOp,
    /// Operand slots.
    pub args: Vec<u32>,
    /// Result slot.
    pub result: u32,
}

/// The operations an island computes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StepOp {
    /// A constant bit pattern.
    Const(u64),
    /// An `arith`/`math` operation, as the engine computes it.
    Arith(ArithOp),
    /// A read of element `args[0]` of memory `memories[k]` (0 past its end).
    Load(u32),
    /// A write of `args[1]` to element `args[0]` of memory `memories[k]` (nothing past its
    /// end); its result is a `none` token.
    Store(u32),
}

/// How a block of an island ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IslandExit {
    /// Always along this edge.
    Goto(IslandEdge),
    /// Along `t` when slot `cond` is 1, else along `f`.
    Branch {
        /// The `i1` condition's slot.
        cond: u32,
        /// Edge when true.
        t: IslandEdge,
        /// Edge when false.
        f: IslandEdge,
    },
}

/// An edge of an island's loop and the slots it passes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IslandEdge {
    /// Where it goes.
    pub to: EdgeTarget,
    /// Slots bound to the target's parameters (for [`EdgeTarget::Leave`], the results).
    pub args: Vec<u32>,
    /// Cycles the static schedule spends when this edge is taken (a pipelined loop's back
    /// edge: its `ii`; its exit: its latency; a block's edges out: its schedule's length).
    pub cycles: u32,
}

/// The target of an [`IslandEdge`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeTarget {
    /// A block of the loop (block 0: the next iteration).
    Block(u32),
    /// Out of the loop: the edge's arguments are the island's results.
    Leave,
}

/// A scheduled operation as a stage table shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduledOp {
    /// The operation (`muli`, `load a`).
    pub name: String,
    /// Its source line (0 when unknown).
    pub line: u32,
    /// Cycle of the iteration it starts in.
    pub start: u32,
    /// Its unit's latency.
    pub latency: u32,
}

/// The memories an island reads and writes while it runs.
pub trait IslandMemory {
    /// Element `index` of memory `k` (0 past its end).
    fn load(&mut self, k: u32, index: u64) -> u64;
    /// Writes element `index` of memory `k` (nothing past its end).
    fn store(&mut self, k: u32, index: u64, value: u64);
}

/// Memories as plain arrays, indexed as the island numbers them.
impl IslandMemory for Vec<Vec<u64>> {
    fn load(&mut self, k: u32, index: u64) -> u64 {
        self.get(k as usize)
            .and_then(|m| m.get(usize::try_from(index).ok()?))
            .copied()
            .unwrap_or(0)
    }
    fn store(&mut self, k: u32, index: u64, value: u64) {
        if let Some(slot) = self
            .get_mut(k as usize)
            .and_then(|m| m.get_mut(usize::try_from(index).ok()?))
        {
            *slot = value;
        }
    }
}

/// One row of [`Island::stage_table`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StageRow {
    /// The stage.
    pub stage: u32,
    /// The operations that start in it.
    pub ops: Vec<String>,
    /// The iteration in it now, if any.
    pub iteration: Option<u64>,
}

/// What one invocation of an island computed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IslandRun {
    /// The results (the leaving edge's arguments), as words of their types.
    pub results: Vec<u64>,
    /// Times block 0 began (a loop island's iterations, the last one included).
    pub iterations: u64,
    /// Cycles from taking the inputs to offering the results: the edges' cycles along the
    /// path taken, at least 1.
    pub cycles: u64,
}

/// Why an island is malformed or could not run.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum IslandError {
    /// A slot, block or memory index out of range, or a mismatched count.
    #[error("malformed island: {0}")]
    Malformed(String),
    /// The region did not leave within [`MAX_ISLAND_ITERATIONS`] cones.
    #[error("the island ran {0} cones without leaving")]
    TooLong(u64),
}

impl Island {
    /// Number of results (outputs `1..`, after the control token).
    pub fn results(&self) -> usize {
        self.blocks
            .iter()
            .flat_map(|b| b.exit.edges())
            .find(|e| e.to == EdgeTarget::Leave)
            .map_or(0, |e| e.args.len())
    }

    /// The types of the results.
    pub fn result_types(&self) -> Vec<Type> {
        self.blocks
            .iter()
            .flat_map(|b| b.exit.edges())
            .find(|e| e.to == EdgeTarget::Leave)
            .map(|e| {
                e.args
                    .iter()
                    .map(|&s| self.slots[s as usize].clone())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Its operations block by block, for people: `bb0: cmpi, load a, muli` (constants and
    /// width conversions left out), a block's back edges and exits named after them.
    pub fn block_listing(&self) -> Vec<String> {
        self.blocks
            .iter()
            .enumerate()
            .map(|(k, b)| {
                let ops: Vec<String> = b
                    .steps
                    .iter()
                    .filter_map(|st| match st.op {
                        StepOp::Const(_) => None,
                        StepOp::Arith(a) if a.is_cast() => None,
                        StepOp::Arith(a) => Some(a.mnemonic().to_string()),
                        StepOp::Load(m) => Some(format!("load {}", self.memories[m as usize])),
                        StepOp::Store(m) => Some(format!("store {}", self.memories[m as usize])),
                    })
                    .collect();
                let to: Vec<String> = b
                    .exit
                    .edges()
                    .iter()
                    .map(|e| match e.to {
                        EdgeTarget::Block(t) => format!("bb{t}"),
                        EdgeTarget::Leave => "out".to_string(),
                    })
                    .collect();
                format!(
                    "bb{k}: {} -> {}",
                    if ops.is_empty() {
                        "(no operation)".to_string()
                    } else {
                        ops.join(", ")
                    },
                    to.join(" or ")
                )
            })
            .collect()
    }

    /// The pipeline of a loop island (one modulo-scheduled loop whose header is block 0).
    pub fn loop_pipeline(&self) -> Option<&IslandPipeline> {
        match self.pipelines.as_slice() {
            [p] if p.header == 0 => Some(p),
            _ => None,
        }
    }

    /// A stage table for people: per stage, its operations (`load a (line 9)`), and which
    /// iteration occupies it `elapsed` cycles into an invocation of `iterations` iterations
    /// (`None` when the island is idle or is not a loop island).
    pub fn stage_table(&self, running: Option<(u64, u64)>) -> Vec<StageRow> {
        let Some(p) = self.loop_pipeline() else {
            return Vec::new();
        };
        let occ = running.map(|(e, n)| p.occupancy(e, n));
        (0..p.stages())
            .map(|s| StageRow {
                stage: s,
                ops: p
                    .ops
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| p.stage(*k) == s)
                    .map(|(_, o)| {
                        if o.line > 0 {
                            format!("{} (line {})", o.name, o.line)
                        } else {
                            o.name.clone()
                        }
                    })
                    .collect(),
                iteration: occ.as_ref().and_then(|o| o[s as usize]),
            })
            .collect()
    }

    /// The units a static controller of this island needs, by kind (`muli`, `load a`): a
    /// pipeline needs as many units of a kind as it starts operations of that kind in one
    /// cycle of its interval (`start mod ii`); a block outside pipelines as many as it has
    /// operations of the kind (a block's schedule keeps them apart only when limits say
    /// so); a unit serves every block and pipeline, as they run one at a time. Width
    /// conversions and constants are wires, not units.
    pub fn units(&self) -> BTreeMap<String, u32> {
        let mut need: BTreeMap<String, u32> = BTreeMap::new();
        let mut bump = |k: String, n: u32| {
            let e = need.entry(k).or_insert(0);
            *e = (*e).max(n);
        };
        let is_unit = |name: &str| ArithOp::from_mnemonic(name).is_none_or(|a| !a.is_cast());
        let mut in_pipeline = vec![false; self.blocks.len()];
        for p in &self.pipelines {
            for &b in &p.blocks {
                if let Some(x) = in_pipeline.get_mut(b as usize) {
                    *x = true;
                }
            }
            let mut per: BTreeMap<(String, u32), u32> = BTreeMap::new();
            for o in p.ops.iter().filter(|o| is_unit(&o.name)) {
                *per.entry((o.name.clone(), o.start % p.ii.max(1)))
                    .or_insert(0) += 1;
            }
            for ((k, _), n) in per {
                bump(k, n);
            }
        }
        for (b, blk) in self.blocks.iter().enumerate() {
            if in_pipeline[b] {
                continue;
            }
            let mut per: BTreeMap<String, u32> = BTreeMap::new();
            for st in &blk.steps {
                let k = match st.op {
                    StepOp::Const(_) => continue,
                    StepOp::Arith(a) if a.is_cast() => continue,
                    StepOp::Arith(a) => a.mnemonic().to_string(),
                    StepOp::Load(m) => format!("load {}", self.memories[m as usize]),
                    StepOp::Store(m) => format!("store {}", self.memories[m as usize]),
                };
                *per.entry(k).or_insert(0) += 1;
            }
            for (k, n) in per {
                bump(k, n);
            }
        }
        need
    }

    /// Checks indices and counts: every slot, block and memory named exists, every edge to a
    /// block passes one slot per parameter, the leaving edges agree on their arity, and the
    /// schedule is positive.
    pub fn validate(&self) -> Result<(), IslandError> {
        let bad = |m: String| Err(IslandError::Malformed(m));
        if self.pipelines.iter().any(|p| p.ii == 0 || p.latency == 0) {
            return bad("a pipeline's ii and latency must be at least 1".into());
        }
        if self.pipelines.iter().any(|p| {
            p.blocks.first() != Some(&p.header)
                || p.blocks.iter().any(|&b| b as usize >= self.blocks.len())
        }) {
            return bad("a pipeline's blocks must be the island's, its header first".into());
        }
        if self.blocks.is_empty() {
            return bad("no blocks".into());
        }
        let n = self.slots.len() as u32;
        if self.params > n || self.blocks[0].params != (0..self.params).collect::<Vec<_>>() {
            return bad("the header's parameters must be slots 0..params".into());
        }
        let slot_ok = |s: u32| s < n;
        let mut arity: Option<usize> = None;
        for (bi, b) in self.blocks.iter().enumerate() {
            if !b.params.iter().all(|&s| slot_ok(s)) {
                return bad(format!("block {bi}: parameter slot out of range"));
            }
            for st in &b.steps {
                if !slot_ok(st.result) || !st.args.iter().all(|&s| slot_ok(s)) {
                    return bad(format!("block {bi}: operand slot out of range"));
                }
                let want = match st.op {
                    StepOp::Const(_) => 0,
                    StepOp::Arith(a) => a.arity(),
                    StepOp::Load(m) | StepOp::Store(m) => {
                        if m as usize >= self.memories.len() {
                            return bad(format!("block {bi}: memory {m} out of range"));
                        }
                        if matches!(st.op, StepOp::Load(_)) {
                            1
                        } else {
                            2
                        }
                    }
                };
                if st.args.len() != want {
                    return bad(format!(
                        "block {bi}: an operation takes {want} operands, not {}",
                        st.args.len()
                    ));
                }
            }
            if let IslandExit::Branch { cond, .. } = b.exit
                && !slot_ok(cond)
            {
                return bad(format!("block {bi}: condition slot out of range"));
            }
            for e in b.exit.edges() {
                if !e.args.iter().all(|&s| slot_ok(s)) {
                    return bad(format!("block {bi}: edge argument out of range"));
                }
                match e.to {
                    EdgeTarget::Block(t) => {
                        let Some(tb) = self.blocks.get(t as usize) else {
                            return bad(format!("block {bi}: edge to missing block {t}"));
                        };
                        if tb.params.len() != e.args.len() {
                            return bad(format!(
                                "block {bi}: edge to block {t} passes {} values for {} parameters",
                                e.args.len(),
                                tb.params.len()
                            ));
                        }
                    }
                    EdgeTarget::Leave => match arity {
                        Some(a) if a != e.args.len() => {
                            return bad("leaving edges give different numbers of results".into());
                        }
                        _ => arity = Some(e.args.len()),
                    },
                }
            }
        }
        if arity.is_none() {
            return bad("no edge leaves the loop".into());
        }
        Ok(())
    }

    /// Which blocks begin a *cone*: block 0 and every target of a back edge (an edge to a
    /// block at or before its source). Every cycle of the region passes through one, so the
    /// blocks from one to the next form a DAG: what a controller evaluates in one clock
    /// cycle.
    pub fn cone_heads(&self) -> Vec<bool> {
        let mut heads = vec![false; self.blocks.len()];
        if let Some(h) = heads.first_mut() {
            *h = true;
        }
        for (b, blk) in self.blocks.iter().enumerate() {
            for e in blk.exit.edges() {
                if let EdgeTarget::Block(t) = e.to
                    && t as usize <= b
                    && let Some(h) = heads.get_mut(t as usize)
                {
                    *h = true;
                }
            }
        }
        heads
    }

    /// Evaluates the cone that begins at block `head` on the slot values `vals` (updated:
    /// the blocks' results and the parameters bound on the way), with memory `mem`, up to
    /// the next cone's head or out of the island.
    pub fn cone(
        &self,
        head: u32,
        heads: &[bool],
        vals: &mut [u64],
        mem: &mut dyn IslandMemory,
    ) -> ConeStep {
        let width = |s: u32| self.slots[s as usize].bit_width();
        let mut block = head as usize;
        let mut cycles = 0u64;
        loop {
            let b = &self.blocks[block];
            for st in &b.steps {
                let v = match st.op {
                    StepOp::Const(c) => c,
                    StepOp::Load(m) => mem.load(m, vals[st.args[0] as usize]),
                    StepOp::Store(m) => {
                        let (i, v) = (vals[st.args[0] as usize], vals[st.args[1] as usize]);
                        mem.store(m, i, v);
                        0
                    }
                    StepOp::Arith(a) => {
                        let args: Vec<u64> = st.args.iter().map(|&s| vals[s as usize]).collect();
                        let from = st.args.first().map_or(0, |&s| width(s));
                        arith::apply(a, &args, from, width(st.result))
                    }
                };
                vals[st.result as usize] = v & self.slots[st.result as usize].mask();
            }
            let edge = match &b.exit {
                IslandExit::Goto(e) => e,
                IslandExit::Branch { cond, t, f } => {
                    if vals[*cond as usize] & 1 != 0 {
                        t
                    } else {
                        f
                    }
                }
            };
            let passed: Vec<u64> = edge.args.iter().map(|&s| vals[s as usize]).collect();
            cycles += u64::from(edge.cycles);
            match edge.to {
                EdgeTarget::Leave => {
                    return ConeStep {
                        next: None,
                        cycles,
                        results: passed,
                    };
                }
                EdgeTarget::Block(t) => {
                    block = t as usize;
                    for (&p, v) in self.blocks[block].params.iter().zip(passed) {
                        vals[p as usize] = v;
                    }
                    if heads[block] {
                        return ConeStep {
                            next: Some(t),
                            cycles,
                            results: Vec::new(),
                        };
                    }
                }
            }
        }
    }

    /// Runs one invocation on `inputs` (one word per first-block parameter), reading and
    /// writing element `i` of memory `k` through `mem`, cone after cone.
    pub fn run(
        &self,
        inputs: &[u64],
        mem: &mut dyn IslandMemory,
    ) -> Result<IslandRun, IslandError> {
        if inputs.len() != self.params as usize {
            return Err(IslandError::Malformed(format!(
                "{} inputs for {} parameters",
                inputs.len(),
                self.params
            )));
        }
        let heads = self.cone_heads();
        let mut vals = vec![0u64; self.slots.len()];
        for (k, &v) in inputs.iter().enumerate() {
            vals[k] = v & self.slots[k].mask();
        }
        let (mut head, mut iterations, mut cycles) = (0u32, 1u64, 0u64);
        for _ in 0..MAX_ISLAND_ITERATIONS {
            let step = self.cone(head, &heads, &mut vals, mem);
            cycles += step.cycles;
            match step.next {
                None => {
                    return Ok(IslandRun {
                        results: step.results,
                        iterations,
                        cycles: cycles.max(1),
                    });
                }
                Some(h) => {
                    iterations += u64::from(h == 0);
                    head = h;
                }
            }
        }
        Err(IslandError::TooLong(MAX_ISLAND_ITERATIONS))
    }
}

impl Island {
    /// Replays a cycle of the island's controller from its register words `regs` (in its
    /// layout's order, `outputs` outputs, `heads` its [`Island::cone_heads`]) and, when its inputs transfer in that cycle, their
    /// data `inputs` (the control token's first): evaluates the cone it evaluates then, if
    /// any, on `mem`. A replayed waveform finds the island's memory writes this way.
    pub fn replay_cycle(
        &self,
        regs: &[u64],
        outputs: u32,
        heads: &[bool],
        inputs: Option<&[u64]>,
        mem: &mut dyn IslandMemory,
    ) {
        use crate::spec::island_regs as r;
        let w = |k: u32| regs.get(k as usize).copied().unwrap_or(0);
        let phase = w(r::PHASE);
        let take = phase == r::IDLE && inputs.is_some();
        if !(take || (phase == r::RUNNING && w(r::WALKED) == 0)) {
            return;
        }
        let mut vals: Vec<u64> = (0..self.slots.len() as u32)
            .map(|k| w(r::slot(outputs, k)))
            .collect();
        let head = match inputs {
            Some(ins) if take => {
                for (j, &v) in ins.iter().skip(1).enumerate() {
                    if let (Some(x), Some(t)) = (vals.get_mut(j), self.slots.get(j)) {
                        *x = v & t.mask();
                    }
                }
                0
            }
            _ => w(r::HEAD) as u32,
        };
        if head as usize >= self.blocks.len() {
            return;
        }
        self.cone(head, heads, &mut vals, mem);
    }
}

/// What [`Island::cone`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConeStep {
    /// The next cone's head, or `None` when the island was left.
    pub next: Option<u32>,
    /// The schedule's cycles of the edges taken.
    pub cycles: u64,
    /// On leaving, the results.
    pub results: Vec<u64>,
}

impl IslandExit {
    /// The block's outgoing edges.
    pub fn edges(&self) -> Vec<&IslandEdge> {
        match self {
            IslandExit::Goto(e) => vec![e],
            IslandExit::Branch { t, f, .. } => vec![t, f],
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::ops::CmpPredicate;

    /// `s = 0; for (i = 0; i < n; i++) s += a[i];` as an island.
    pub(crate) fn sum_island() -> Island {
        // slots: 0 i, 1 s, 2 n, 3 c1, 4 cond, 5 a[i], 6 s', 7 i'
        let i32t = Type::Int(32);
        Island {
            slots: vec![
                i32t.clone(),
                i32t.clone(),
                i32t.clone(),
                i32t.clone(),
                Type::Int(1),
                i32t.clone(),
                i32t.clone(),
                i32t,
            ],
            params: 3,
            memories: vec!["a".into()],
            blocks: vec![
                IslandBlock {
                    params: vec![0, 1, 2],
                    steps: vec![IslandStep {
                        op: StepOp::Arith(ArithOp::Cmpi(CmpPredicate::Slt)),
                        args: vec![0, 2],
                        result: 4,
                    }],
                    exit: IslandExit::Branch {
                        cond: 4,
                        t: IslandEdge {
                            to: EdgeTarget::Block(1),
                            args: vec![],
                            cycles: 0,
                        },
                        f: IslandEdge {
                            to: EdgeTarget::Leave,
                            args: vec![1],
                            cycles: 4,
                        },
                    },
                },
                IslandBlock {
                    params: vec![],
                    steps: vec![
                        IslandStep {
                            op: StepOp::Load(0),
                            args: vec![0],
                            result: 5,
                        },
                        IslandStep {
                            op: StepOp::Arith(ArithOp::Addi),
                            args: vec![1, 5],
                            result: 6,
                        },
                        IslandStep {
                            op: StepOp::Const(1),
                            args: vec![],
                            result: 3,
                        },
                        IslandStep {
                            op: StepOp::Arith(ArithOp::Addi),
                            args: vec![0, 3],
                            result: 7,
                        },
                    ],
                    exit: IslandExit::Goto(IslandEdge {
                        to: EdgeTarget::Block(0),
                        args: vec![7, 6, 2],
                        cycles: 1,
                    }),
                },
            ],
            pipelines: vec![IslandPipeline {
                header: 0,
                blocks: vec![0, 1],
                line: 0,
                ii: 1,
                latency: 4,
                ops: vec![],
            }],
        }
    }

    #[test]
    fn runs_a_sum_loop() {
        let isl = sum_island();
        isl.validate().unwrap();
        let mut mem = vec![vec![3u64, 4, 5, 6]];
        let r = isl.run(&[0, 10, 4], &mut mem).unwrap();
        assert_eq!(r.results, vec![28]);
        assert_eq!(r.iterations, 5);
        // Four back edges of ii 1, then the last iteration's latency.
        assert_eq!(r.cycles, 4 + 4);
        // No iteration at all: the header leaves at once.
        let r = isl.run(&[0, 7, 0], &mut mem).unwrap();
        assert_eq!((r.results[0], r.iterations, r.cycles), (7, 1, 4));
    }

    #[test]
    fn validate_rejects_bad_indices() {
        let mut isl = sum_island();
        isl.blocks[1].steps[0].args = vec![99];
        assert!(isl.validate().is_err());
        let mut isl = sum_island();
        isl.blocks[1].exit = IslandExit::Goto(IslandEdge {
            to: EdgeTarget::Block(0),
            args: vec![7],
            cycles: 1,
        });
        assert!(isl.validate().is_err());
    }

    #[test]
    fn a_loop_that_never_leaves_is_an_error() {
        let mut isl = sum_island();
        // The back edge passes `i` unchanged: `i < n` holds for ever.
        isl.blocks[1].exit = IslandExit::Goto(IslandEdge {
            to: EdgeTarget::Block(0),
            args: vec![0, 6, 2],
            cycles: 1,
        });
        let r = isl.run(&[0, 0, 1], &mut vec![vec![0]]);
        assert_eq!(r, Err(IslandError::TooLong(MAX_ISLAND_ITERATIONS)));
    }

    #[test]
    fn occupancy_follows_the_schedule() {
        let p = IslandPipeline {
            header: 0,
            blocks: vec![0],
            line: 0,
            ii: 2,
            latency: 5, // 3 stages
            ops: vec![],
        };
        let isl = p;
        // Iteration k enters at 2k; stage s holds it in [2k+2s, 2k+2s+2), until cycle 2k+5.
        assert_eq!(isl.occupancy(0, 3), vec![Some(0), None, None]);
        assert_eq!(isl.occupancy(2, 3), vec![Some(1), Some(0), None]);
        assert_eq!(isl.occupancy(4, 3), vec![Some(2), Some(1), Some(0)]);
        assert_eq!(isl.occupancy(6, 3), vec![None, Some(2), Some(1)]);
        assert_eq!(isl.occupancy(8, 3), vec![None, None, Some(2)]);
        assert_eq!(isl.occupancy(9, 3), vec![None, None, None]);
    }

    #[test]
    fn stores_write_memory() {
        // a[i] = i for i < n, through a store at block 1.
        let mut isl = sum_island();
        isl.blocks[1].steps[0] = IslandStep {
            op: StepOp::Store(0),
            args: vec![0, 0],
            result: 5,
        };
        isl.slots[5] = Type::None;
        let mut mem = vec![vec![9u64; 4]];
        isl.run(&[0, 0, 3], &mut mem).unwrap();
        assert_eq!(mem[0], vec![0, 1, 2, 9]);
    }

    #[test]
    fn arith_value_matches_the_engine_ops() {
        assert_eq!(arith::apply(ArithOp::Addi, &[5, 7], 8, 8), 12);
        assert_eq!(arith::apply(ArithOp::Extsi, &[0x80], 8, 16), 0xff80);
        assert_eq!(arith::apply(ArithOp::Trunci, &[0x1ff], 16, 8), 0xff);
        assert_eq!(arith::apply(ArithOp::Select, &[0, 1, 2], 1, 8), 2);
        let one = 1.0f32.to_bits() as u64;
        let two = arith::apply(ArithOp::Addf, &[one, one], 32, 32);
        assert_eq!(f32::from_bits(two as u32), 2.0);
        assert_eq!(
            arith::apply(ArithOp::Sitofp, &[3], 32, 32),
            3.0f32.to_bits() as u64
        );
    }
}
