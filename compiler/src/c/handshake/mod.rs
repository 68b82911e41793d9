//! Dataflow lowering: from the SSA CFG of [`crate::c::ir`] to a handshake graph.
//!
//! The flow follows the classic CDFG-to-handshake construction:
//! 1. constants used outside their block are copied into the using blocks and the CFG is
//!    SSA-maximized, so every value a block reads arrives as a block argument
//!    ([`maximize`]);
//! 2. each block becomes an entry (`merge`s, or a `control_merge` driving `mux`es), a body
//!    (`constant`, `arith`, `load`/`store` ordered by per-memory done tokens) and an exit
//!    (`cond_br` per live-out value and for the control token) ([`build`]);
//! 3. without task pipelining a function lock lets one invocation in at a time ([`lock`]);
//!    with it, outermost loops get a priming mux instead, and a memory lock keeps the
//!    memory accesses of successive invocations in order ([`pipeline`]);
//! 4. canonicalization ([`canon`]), fork/sink materialization, and buffer insertion by
//!    [`BufferPolicy`] ([`buffers`]).
//!
//! Every node gets a readable stable ID `<block>.<op><k>` (per block and op kind), its block
//! label and its C source location. Local arrays become `memory` nodes named `mem.<array>`
//! whose initial contents (if any) are in a `handshake.init = [..]` attribute (integers,
//! or floats in shortest round-trip form for `float`/`double` arrays, read by `handscope_sim::stimulus::graph_memory_inits`); array parameters become `extmemory` nodes on memref
//! arguments named after the parameter. Arguments are the C parameters plus `start`
//! (`none`); results are `ret` (for non-void functions) and `done` (`none`).

pub mod buffers;
mod build;
mod canon;
mod hgraph;
pub mod islands;
mod lock;
mod maximize;
mod order_chain;
mod pipeline;
pub mod place;
mod queues;

use std::collections::BTreeMap;
use std::sync::Arc;

use handscope_sim::{Function, Module, Op};

use super::error::{CError, RawError};
use super::ir::{IrFunction, IrParam};

pub use buffers::BufferPolicy;
pub use place::{LoopPragma, Scheduling, loop_pragmas};

/// Options of [`compile_to_handshake`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HsOptions {
    /// Where buffers go (default [`BufferPolicy::Cycles`]).
    pub buffers: BufferPolicy,
    /// Let several invocations overlap: outermost loops are entered through a primed `mux`
    /// instead of a `control_merge`, and there is no function lock.
    pub task_pipelining: bool,
    /// The timing profile the circuit will run under: with latencies, buffers get the slots
    /// that keep the latencies from throttling it ([`handscope_sim::throughput::balance`]).
    /// The graph itself carries no latency; the profile is applied when it runs.
    pub timing: handscope_sim::spec::timing::TimingProfile,
    /// Directories searched for `#include`d files after the including file's own (`-I`).
    pub include_dirs: Vec<std::path::PathBuf>,
    /// How the accesses to an array are ordered (default [`MemoryOrdering::Serial`]).
    pub memory: MemoryOrdering,
    /// Queue depths (loads, stores) of load-store queues by node ID (`mem.<array>`), from
    /// `--lsq-depth`; the others get 16 each (raised to one more than the largest group).
    pub lsq_depths: std::collections::BTreeMap<String, (u32, u32)>,
    /// Which regions become static islands (`--schedule`, default dynamic), scheduled with
    /// [`HsOptions::timing`]'s latencies.
    pub schedule: Scheduling,
    /// Most units of a kind a static schedule may use (`--units muli=1`); unlisted kinds
    /// have as many as they need.
    pub unit_limits: std::collections::BTreeMap<String, u32>,
}

/// How a kernel's accesses to one array are kept in program order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MemoryOrdering {
    /// Each access waits for the previous one to complete (the ordering token chain).
    #[default]
    Serial,
    /// An array parameter that is both read and written goes through a load-store queue
    /// (`dyn_lsq`, Dynamatic's semantics, `memEnd` once per call) with one group per basic
    /// block: a block's accesses are allocated together when its control token arrives, and
    /// a load goes ahead of older stores to other addresses (or takes a same-address store's
    /// data). The other arrays stay serial.
    Lsq,
    /// Every array that is both read and written gets an address queue (`addr_queue`, after
    /// R-HLS's): a store's address is queued in program order and leaves when the store is
    /// written; a load goes ahead of older stores once their addresses are queued and none
    /// equals its own. Stores still wait for every older access to be done.
    Queue,
}

/// Compiles C `source` (top function `top`, or the unique uncalled one) to a module with one
/// `handshake.func`.
pub fn compile_to_handshake(
    source: &str,
    file_name: &str,
    top: Option<&str>,
    opts: &HsOptions,
) -> Result<Module, CError> {
    compile_to_handshake_warned(source, file_name, top, opts).map(|(m, _)| m)
}

/// [`compile_to_handshake`], with the warnings of the compilation (located, such as an
/// implicitly declared math function), for a caller to show.
pub fn compile_to_handshake_warned(
    source: &str,
    file_name: &str,
    top: Option<&str>,
    opts: &HsOptions,
) -> Result<(Module, Vec<super::CWarning>), CError> {
    let mut sources =
        super::sources::Sources::with_include_dirs(file_name, source, &opts.include_dirs);
    let (ir, warnings) = super::compile_sources_to_ir(&mut sources, top)?;
    let pragmas = loop_pragmas(source);
    let f = lower_function(&ir, &sources.names(), opts, &pragmas).map_err(|e| sources.error(e))?;
    Ok((Module { functions: vec![f] }, warnings))
}

/// [`lower_function`] with the default options, for IR another front end built.
pub(crate) fn lower_ir(ir: &IrFunction, files: &[Arc<str>]) -> Result<Function, RawError> {
    lower_function(ir, files, &HsOptions::default(), &[])
}

/// Lowers an IR function to a handshake function, with the compilation's file names by
/// index (a span's `file`), so that nodes from included files are located in them. Errors
/// are internal inconsistencies, located in the C source.
fn lower_function(
    ir: &IrFunction,
    files: &[Arc<str>],
    opts: &HsOptions,
    pragmas: &[LoopPragma],
) -> Result<Function, RawError> {
    let mut ir = ir.clone();
    maximize::rematerialize_constants(&mut ir);
    maximize::maximize(&mut ir);
    let islands = place::place_islands(
        &mut ir,
        opts.schedule,
        pragmas,
        &opts.timing,
        &opts.unit_limits,
        opts.memory == MemoryOrdering::Serial,
    )
    .map_err(|(m, span)| RawError::new(span, m))?;
    let reach = maximize::reachable(&ir);
    if opts.task_pipelining && opts.memory != MemoryOrdering::Serial {
        return Err(RawError::new(
            ir.span,
            "task pipelining with load-store or address queues is not supported yet: \
             compile with `--memory serial`, or without `--task-pipelining`",
        ));
    }
    let twins = if opts.memory == MemoryOrdering::Queue {
        let mems = build::queued_memories(&ir, &reach);
        order_chain::add_order_chains(&mut ir, &reach, &mems)
            .map_err(|(m, span)| RawError::new(span, m))?
    } else {
        order_chain::Twins::new()
    };
    let mut built = build::build(&ir, &reach, opts.memory, &opts.lsq_depths, &twins, &islands)
        .map_err(|e| RawError::new(e.span, e.message))?;
    if opts.memory != MemoryOrdering::Serial {
        queues::constants_paced_by_data(&mut built.g);
    }
    let keep = if opts.task_pipelining {
        let mut k = pipeline::prime_outer_loops(&mut built, &ir, &reach);
        match pipeline::region_locks(&mut built, &ir, &reach) {
            Some(r) => {
                k.extend(r);
                k.extend(pipeline::memory_lock(&mut built));
            }
            None => k.extend(lock::insert_lock(&mut built)),
        }
        k
    } else {
        lock::insert_lock(&mut built).to_vec()
    };
    if opts.buffers != BufferPolicy::None {
        buffers::buffer_back_edges(&mut built);
    }
    let mut keep = keep;
    keep.push(built.ret);
    canon::canonicalize(&mut built.g, &keep);
    let mut f = built.g.emit(&ir.name, files, ir.span);
    let internal = |m: String| RawError::new(ir.span, format!("internal error: {m}"));
    handscope_sim::transform::materialize_with(&mut f, handscope_sim::transform::Placement::Append)
        .map_err(|e| internal(e.to_string()))?;
    if opts.buffers == BufferPolicy::All {
        buffers::buffer_all(&mut f);
    }
    name_new_nodes(&mut f);
    f.assign_ids().map_err(|e| internal(e.to_string()))?;
    if opts.buffers != BufferPolicy::None && !opts.timing.is_ideal() {
        buffers::balance_latencies(&mut f, &opts.timing).map_err(internal)?;
        name_new_nodes(&mut f);
        f.assign_ids().map_err(|e| internal(e.to_string()))?;
    }
    mark_unsigned(&mut f, &ir);
    Ok(f)
}

/// Records which results, scalar arguments and memories have unsigned C types
/// ([`handscope_sim::graph::UNSIGNED_ATTR`]), so that reports print them as C would.
/// Memories are named like the engine's reports: array parameters by their name, local
/// arrays by their node ID.
fn mark_unsigned(f: &mut Function, ir: &IrFunction) {
    let mut names: Vec<String> = Vec::new();
    if ir.ret.is_some_and(|t| t.int().is_some_and(|i| !i.signed)) {
        names.extend(f.results.first().map(|r| r.name.clone()));
    }
    for p in &ir.params {
        if let IrParam::Scalar { name, ty, .. } = p
            && ty.int().is_some_and(|i| !i.signed)
        {
            names.push(name.clone());
        }
    }
    for (id, n) in f.nodes.iter() {
        let (mi, arg) = match &n.op {
            Op::ExtMemory { id, memref_arg, .. } => (*id, Some(*memref_arg)),
            Op::Memory { id, .. } => (*id, None),
            _ => continue,
        };
        if ir
            .memories
            .get(mi as usize)
            .is_some_and(|m| m.elem.int().is_some_and(|i| !i.signed))
        {
            match arg {
                Some(a) => names.extend(f.args.get(a).map(|x| x.name.clone())),
                None => names.push(f.nodes[id].id.clone()),
            }
        }
    }
    f.set_unsigned_names(names.iter().map(String::as_str));
}

/// Gives nodes added after emission (forks, sinks, buffers) `<block>.<op><k>` IDs that do
/// not clash with existing ones.
fn name_new_nodes(f: &mut Function) {
    use handscope_sim::NameHint;
    let mut taken: std::collections::BTreeSet<String> = f
        .nodes
        .values()
        .filter_map(|n| match &n.name_hint {
            NameHint::Name(s) => Some(s.clone()),
            _ => None,
        })
        .collect();
    taken.extend(f.args.iter().map(|a| a.name.clone()));
    let mut counters: BTreeMap<(String, &'static str), u32> = BTreeMap::new();
    let func_loc = f.loc.clone();
    for (_, n) in f.nodes.iter_mut() {
        if matches!(n.op, Op::Argument { .. }) || n.name_hint != NameHint::Counter {
            continue;
        }
        // Nodes materialized outside every block (forks of arguments) belong to the entry,
        // at the function's location.
        if n.loc.is_none() {
            n.loc.clone_from(&func_loc);
        }
        let prefix = n.block.get_or_insert_with(|| "bb0".into()).clone();
        let k = counters
            .entry((prefix.clone(), n.op.mnemonic()))
            .or_insert(0);
        let id = loop {
            let id = format!("{prefix}.{}{k}", n.op.mnemonic());
            *k += 1;
            if taken.insert(id.clone()) {
                break id;
            }
        };
        n.name_hint = NameHint::Name(id);
    }
}
