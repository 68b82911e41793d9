//! The activity-driven passes compiled (issue #33): every instruction of the forward,
//! backward and clock passes becomes straight-line code guarded by its activity flag, in
//! the interpreter's order, so an idle instruction costs a load and a well-predicted branch
//! and an active one runs as compiled code with no dispatch.
//!
//! The bookkeeping is the interpreted activity engine's (`super::super::activity`), done by
//! the generated code itself: an instruction whose flag is set clears it, keeps the values
//! of the signals it writes, runs, and for each written channel whose value changed sets
//! the flags of every instruction of the nodes on that channel (and the cycle's "changed"
//! byte). A clock instruction compares its node's registers (up to [`COMPARED_REGS`]
//! words; a larger node counts as changed) and, when they changed, sets the node's flags
//! for the next cycle (its clock instructions in a separate `clk_next` range, merged at the
//! next settle) and appends the node to the context's list of changed nodes.
//!
//! Instructions are grouped, [`GROUP_UNITS`] consecutive ones of a pass under one group
//! flag set with any of theirs: an idle group costs one test (GSIM's grouping, without its
//! cost of evaluating a whole group: inside a set group each instruction still runs only
//! when its own flag is set).

use cranelift_codegen::ir::{AbiParam, InstBuilder, UserFuncName, types};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::JITModule;
use cranelift_module::{FuncId, Linkage, Module};

use super::emit::Emitter;
use super::{CHUNK, Ctx, JitError, LAYOUT, PassFn, helpers, new_module};
use crate::engine::eval::State;
use crate::engine::program::Program;

/// Registers of a node the generated clock code compares (a node with more counts as
/// changed at every clock edge it runs).
pub(crate) const COMPARED_REGS: usize = 16;

/// Consecutive instructions of a generated pass under one group flag: a group whose flag
/// is clear is skipped with one test, so an idle cycle costs a test per group rather than
/// per instruction. Divides [`UNITS_PER_FUNCTION`], so no group spans two functions.
pub(crate) const GROUP_UNITS: usize = 8;

/// Where the activity flags of each pass start in the flag array.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FlagLayout {
    /// Forward instructions `0..`, backward, clock (this cycle), buffer outputs, clock
    /// instructions marked for the next cycle, the cycle's "a channel changed" byte.
    pub fwd: u32,
    pub bwd: u32,
    pub clk: u32,
    pub buffers: u32,
    pub clk_next: u32,
    pub changed: u32,
    /// The group flags of the settle passes (buffer outputs, forward, backward, in their
    /// order, [`GROUP_UNITS`] to a group), then those of the clock pass. A group flag is
    /// set whenever a flag of its group is (it may stay set after: a group scanned in vain
    /// costs time, never a missed instruction).
    pub groups: u32,
    pub clock_groups: u32,
    /// Bytes of the array.
    pub len: usize,
}

impl FlagLayout {
    /// The layout for `p`.
    pub(crate) fn of(p: &Program) -> FlagLayout {
        let (f, b, c, q) = (
            p.fwd.len() as u32,
            p.bwd.len() as u32,
            p.activity.clk.len() as u32,
            p.buffers.len() as u32,
        );
        let g = GROUP_UNITS as u32;
        let changed = f + b + 2 * c + q;
        let groups = changed + 1;
        let clock_groups = groups + (q + f + b).div_ceil(g);
        FlagLayout {
            fwd: 0,
            bwd: f,
            clk: f + b,
            buffers: f + b + c,
            clk_next: f + b + c + q,
            changed,
            groups,
            clock_groups,
            len: (clock_groups + c.div_ceil(g)) as usize,
        }
    }

    /// The group flag of the settle passes' unit at position `pos` (buffer outputs first,
    /// then forward, then backward instructions).
    pub(crate) fn settle_group(&self, pos: usize) -> u32 {
        self.groups + (pos / GROUP_UNITS) as u32
    }

    /// The group flag of clock instruction `k`.
    pub(crate) fn clock_group(&self, k: usize) -> u32 {
        self.clock_groups + (k / GROUP_UNITS) as u32
    }

    /// The group flag of instruction flag `flag` (`None` for the next-cycle range and the
    /// "changed" byte, which no pass scans).
    pub(crate) fn group_of(&self, flag: u32) -> Option<u32> {
        let q = (self.clk_next - self.buffers) as usize;
        let f = (self.bwd - self.fwd) as usize;
        let at = |a: u32| (flag - a) as usize;
        Some(if flag < self.bwd {
            self.settle_group(q + at(self.fwd))
        } else if flag < self.clk {
            self.settle_group(q + f + at(self.bwd))
        } else if flag < self.buffers {
            self.clock_group(at(self.clk))
        } else if flag < self.clk_next {
            self.settle_group(at(self.buffers))
        } else {
            return None;
        })
    }
}

/// What the generated code sets when something changes.
pub(crate) struct Marks<'a> {
    /// Per channel: the flags of the instructions of its nodes (this cycle's), and the
    /// "changed" byte.
    pub channel: &'a [Vec<u32>],
    /// Per node: its flags for the next cycle (clock instructions in `clk_next`).
    pub node_next: &'a [Vec<u32>],
    /// Per clock instruction: its node's register range, and its node.
    pub clk_regs: &'a [(u32, u32)],
    pub clk_nodes: &'a [u32],
}

/// One instruction of the generated passes.
#[derive(Clone, Copy, Debug)]
enum Unit {
    Buf(usize),
    Fwd(usize),
    Bwd(usize),
    Clk(usize),
}

/// Most units in one generated function (each carries its change detection).
const UNITS_PER_FUNCTION: usize = CHUNK / 2;

/// The compiled activity-driven passes of one program.
pub(crate) struct ActivityJit {
    /// Owns the code; freed on drop.
    module: Option<JITModule>,
    settle: Vec<PassFn>,
    clock: Vec<PassFn>,
    mem_table: Vec<(usize, usize)>,
    layout: FlagLayout,
}

// SAFETY: as `super::Jit`: the code is only used through `&mut ActivityJit`.
unsafe impl Send for ActivityJit {}

impl Drop for ActivityJit {
    fn drop(&mut self) {
        if let Some(m) = self.module.take() {
            // SAFETY: no generated code runs (the passes borrow `self` mutably) and the
            // function pointers die with `self`.
            unsafe { m.free_memory() };
        }
    }
}

impl std::fmt::Debug for ActivityJit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ActivityJit")
            .field("settle_functions", &self.settle.len())
            .field("clock_functions", &self.clock.len())
            .finish()
    }
}

impl ActivityJit {
    /// Compiles the activity-driven passes of `p`.
    pub(crate) fn new(p: &Program, marks: &Marks<'_>) -> Result<ActivityJit, JitError> {
        let fits = |n: usize, scale: usize| n.checked_mul(scale).is_some_and(|b| b < 1 << 30);
        let layout = FlagLayout::of(p);
        if !fits(p.n_channels, 8) || !fits(p.reg_init.len(), 8) || !fits(layout.len, 1) {
            return Err(JitError::TooLarge);
        }
        let cg = |e: &dyn std::fmt::Display| JitError::Codegen(e.to_string());
        let mut module = new_module(false)?;
        let settle_units: Vec<Unit> = (0..p.buffers.len())
            .map(Unit::Buf)
            .chain((0..p.fwd.len()).map(Unit::Fwd))
            .chain((0..p.bwd.len()).map(Unit::Bwd))
            .collect();
        let clock_units: Vec<Unit> = (0..p.activity.clk.len()).map(Unit::Clk).collect();
        let mut fctx = FunctionBuilderContext::new();
        let mut n = 0;
        let mut ids = |units: &[Unit], module: &mut JITModule| -> Result<Vec<FuncId>, JitError> {
            units
                .chunks(UNITS_PER_FUNCTION)
                .map(|c| {
                    n += 1;
                    function(module, &mut fctx, p, marks, &layout, c, n).map_err(|e| cg(&e))
                })
                .collect()
        };
        let settle = ids(&settle_units, &mut module)?;
        let clock = ids(&clock_units, &mut module)?;
        module.finalize_definitions().map_err(|e| cg(&e))?;
        let resolve = |v: Vec<FuncId>| -> Vec<PassFn> {
            v.into_iter()
                .map(|id| {
                    let code = module.get_finalized_function(id);
                    // SAFETY: generated with the signature `extern "C" fn(*mut Ctx)`.
                    unsafe { std::mem::transmute::<*const u8, PassFn>(code) }
                })
                .collect()
        };
        let (settle, clock) = (resolve(settle), resolve(clock));
        Ok(ActivityJit {
            module: Some(module),
            settle,
            clock,
            mem_table: Vec::new(),
            layout,
        })
    }

    /// Runs the settle passes' active instructions with activity flags `flags` (laid out
    /// as [`FlagLayout::of`]). Returns the instructions run.
    pub(crate) fn settle(&mut self, p: &Program, st: &mut State, flags: &mut [u8]) -> u64 {
        debug_assert_eq!(flags.len(), self.layout.len);
        let mut ctx = Ctx::new(p, st, &mut self.mem_table);
        ctx.flags = flags.as_mut_ptr();
        for &f in &self.settle {
            // SAFETY: `ctx` describes `st` and `flags`, borrowed for this whole call.
            unsafe { f(&mut ctx) };
        }
        ctx.evaluated
    }

    /// Runs the clock pass's active instructions; the nodes whose registers changed are
    /// appended to `nodes`. Returns the instructions run.
    pub(crate) fn clock(
        &mut self,
        p: &Program,
        st: &mut State,
        flags: &mut [u8],
        nodes: &mut Vec<u32>,
    ) -> u64 {
        debug_assert_eq!(flags.len(), self.layout.len);
        let start = nodes.len();
        // Each clock instruction appends its node at most once.
        nodes.resize(start + p.activity.clk.len(), 0);
        let mut ctx = Ctx::new(p, st, &mut self.mem_table);
        ctx.flags = flags.as_mut_ptr();
        // SAFETY: room for one node per clock instruction from `start` on.
        ctx.nodes = unsafe { nodes.as_mut_ptr().add(start) };
        for &f in &self.clock {
            // SAFETY: as in `settle`.
            unsafe { f(&mut ctx) };
        }
        nodes.truncate(start + ctx.nodes_len as usize);
        ctx.evaluated
    }
}

/// One generated function running `units` in order, each guarded by its flag.
fn function(
    module: &mut JITModule,
    fctx: &mut FunctionBuilderContext,
    p: &Program,
    marks: &Marks<'_>,
    l: &FlagLayout,
    units: &[Unit],
    n: usize,
) -> Result<FuncId, Box<cranelift_module::ModuleError>> {
    let ptr = types::I64;
    let mut sig = module.make_signature();
    sig.params.push(AbiParam::new(ptr));
    let id = module.declare_function(&format!("activity{n}"), Linkage::Local, &sig)?;
    let mut helper_sig = module.make_signature();
    helper_sig.params.push(AbiParam::new(ptr));
    helper_sig.params.push(AbiParam::new(types::I32));
    let target = module.target_config();
    let mut ctx = module.make_context();
    ctx.func.signature = sig;
    ctx.func.name = UserFuncName::user(0, id.as_u32());
    {
        let mut fb = FunctionBuilder::new(&mut ctx.func, fctx);
        let entry = fb.create_block();
        fb.append_block_params_for_function_params(entry);
        fb.switch_to_block(entry);
        let c = fb.block_params(entry)[0];
        let hs = fb.import_signature(helper_sig);
        let mut em = Emitter::new(&mut fb, p, c, &LAYOUT, hs, helpers(), true);
        for g in units.chunks(GROUP_UNITS) {
            let flag = l
                .group_of(unit_flag(l, g[0]))
                .expect("a pass's unit has a group");
            let next = em.group_begin(flag);
            for &u in g {
                unit(&mut em, p, marks, l, u);
            }
            em.group_end(flag, next);
        }
        em.b.ins().return_(&[]);
        fb.seal_all_blocks();
        fb.finalize(target);
    }
    module.define_function(id, &mut ctx)?;
    module.clear_context(&mut ctx);
    Ok(id)
}

/// The activity flag of unit `u`.
fn unit_flag(l: &FlagLayout, u: Unit) -> u32 {
    match u {
        Unit::Buf(k) => l.buffers + k as u32,
        Unit::Fwd(i) => l.fwd + i as u32,
        Unit::Bwd(j) => l.bwd + j as u32,
        Unit::Clk(k) => l.clk + k as u32,
    }
}

/// The guarded code of one instruction.
fn unit(em: &mut Emitter<'_, '_>, p: &Program, marks: &Marks<'_>, l: &FlagLayout, u: Unit) {
    let ch = |c: u32| marks.channel[c as usize].as_slice();
    match u {
        Unit::Buf(k) => {
            let next = em.unit_begin(unit_flag(l, u));
            let (inp, out, reg, slots) = p.buffers[k];
            let (o, r) = (em.fwd_signals(out), em.ready_signal(inp));
            em.buffer_outputs(inp, out, reg, slots);
            let changed = em.fwd_changed(out, o);
            em.on_change(changed, ch(out), None);
            let changed = em.ready_changed(inp, r);
            em.on_change(changed, ch(inp), None);
            em.unit_end(next);
        }
        Unit::Fwd(i) => {
            let next = em.unit_begin(unit_flag(l, u));
            let w = p.span(p.activity.fwd_writes[i]);
            let old: Vec<_> = w.iter().map(|&c| em.fwd_signals(c)).collect();
            em.fwd(i);
            for (&c, &o) in w.iter().zip(&old) {
                let changed = em.fwd_changed(c, o);
                em.on_change(changed, ch(c), None);
            }
            em.unit_end(next);
        }
        Unit::Bwd(j) => {
            let next = em.unit_begin(unit_flag(l, u));
            let w = p.span(p.activity.bwd_writes[j]);
            let old: Vec<_> = w.iter().map(|&c| em.ready_signal(c)).collect();
            em.bwd(j);
            for (&c, &o) in w.iter().zip(&old) {
                let changed = em.ready_changed(c, o);
                em.on_change(changed, ch(c), None);
            }
            em.unit_end(next);
        }
        Unit::Clk(k) => {
            let next = em.unit_begin(unit_flag(l, u));
            let (a, b) = marks.clk_regs[k];
            let (a, b) = (a as usize, b as usize);
            let node = marks.clk_nodes[k];
            let changed = if b - a <= COMPARED_REGS {
                let old = em.reg_words(a, b);
                em.clk(k);
                em.regs_changed(a, &old)
            } else {
                em.clk(k);
                em.truth()
            };
            em.on_change(changed, &marks.node_next[node as usize], Some(node));
            em.unit_end(next);
        }
    }
}
