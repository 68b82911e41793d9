//! The compiled engine: a [`Program`]'s settle and clock passes translated to machine code
//! with Cranelift, once per graph.
//!
//! The interpreter (`super::eval`) dispatches on every instruction and reads its operands
//! from the instruction list each cycle. Here each instruction becomes straight-line code
//! with its channel and register indices as constants (module [`emit`]), in the order the
//! interpreter runs them, computing the same equations: [`Jit::settle`] does what
//! `eval::settle_step` does and [`Jit::clock`] what `eval::clock_step` does, on the same
//! [`State`], so a run can switch from the interpreter to compiled code between two cycles
//! and every reader of the state (monitor, trace, tap) is unchanged.
//!
//! What is not translated is still exact: an instruction [`emit`] has no translation for
//! (floats, wide data, `pack`/`unpack`, pipelined units, memory writes, very wide merges)
//! is a call from the generated code into the interpreter for that one instruction, and a
//! combinational cycle (a `Seg::Loop`) runs in the interpreter between compiled pieces.
//! Programs with `lazy_fork` (both passes iterated together) are not compiled.
//!
//! The code is split into functions of at most [`CHUNK`] instructions each, which bounds
//! Cranelift's compile time on large graphs (its register allocation is superlinear in a
//! function's size).

pub(super) mod activity;
mod emit;

use cranelift_codegen::ir::{AbiParam, InstBuilder, UserFuncName, types};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{FuncId, Linkage, Module, default_libcall_names};

use super::eval::{self, Sig, State};
use super::program::{Program, Seg, TypedOp};
use emit::{CtxLayout, Emitter, Helper};

/// Most program instructions in one generated function.
const CHUNK: usize = 400;

/// Runs of regular work at least this long (a typed segment's operand tuples, the buffers,
/// the typed clock lists) are calls to the interpreter's loops; shorter ones are inline
/// code (a call costs as much as several inline instructions).
const LOOP_CALL_MIN: usize = 8;

/// Why a program was not compiled (the interpreter runs it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JitError {
    /// Forward and backward passes are iterated together (`lazy_fork`).
    #[error("the graph has a lazy_fork (both passes iterate together)")]
    GlobalIteration,
    /// A state array is too large for the generated code's 32-bit offsets.
    #[error("the state is too large for compiled code")]
    TooLarge,
    /// This processor is not supported by Cranelift, or code generation failed.
    #[error("code generation: {0}")]
    Codegen(String),
}

/// What generated code and the interpreter helpers it calls see of the state. `repr(C)`:
/// generated code reads the first fields at fixed offsets ([`CtxLayout`]).
#[repr(C)]
struct Ctx {
    valid: *mut bool,
    ready: *mut bool,
    data: *mut u64,
    regs: *mut u64,
    /// `(base, len)` of every memory's elements.
    mem_table: *const (usize, usize),
    n_channels: usize,
    n_regs: usize,
    prog: *const Program,
    mems: *mut Vec<Vec<u64>>,
    mem_writes: *mut Vec<(u32, u64, u64)>,
    /// The activity-driven passes' flags, one byte per instruction (null otherwise).
    flags: *mut u8,
    /// Nodes whose registers changed at the clock edge (activity-driven passes), and how
    /// many were written.
    nodes: *mut u32,
    nodes_len: u64,
    /// Instructions the activity-driven passes ran.
    evaluated: u64,
}

const LAYOUT: CtxLayout = CtxLayout {
    valid: std::mem::offset_of!(Ctx, valid) as i32,
    ready: std::mem::offset_of!(Ctx, ready) as i32,
    data: std::mem::offset_of!(Ctx, data) as i32,
    regs: std::mem::offset_of!(Ctx, regs) as i32,
    mems: std::mem::offset_of!(Ctx, mem_table) as i32,
    flags: std::mem::offset_of!(Ctx, flags) as i32,
    nodes: std::mem::offset_of!(Ctx, nodes) as i32,
    nodes_len: std::mem::offset_of!(Ctx, nodes_len) as i32,
    evaluated: std::mem::offset_of!(Ctx, evaluated) as i32,
};

impl Ctx {
    /// The context of `st`; `table` receives the memories' element pointers.
    fn new(p: &Program, st: &mut State, table: &mut Vec<(usize, usize)>) -> Ctx {
        table.clear();
        table.extend(
            st.mems
                .iter_mut()
                .map(|m| (m.as_mut_ptr() as usize, m.len())),
        );
        Ctx {
            valid: st.valid.as_mut_ptr(),
            ready: st.ready.as_mut_ptr(),
            data: st.data.as_mut_ptr(),
            regs: st.regs.as_mut_ptr(),
            mem_table: table.as_ptr(),
            n_channels: st.valid.len(),
            n_regs: st.regs.len(),
            prog: p,
            mems: &mut st.mems,
            mem_writes: &mut st.mem_writes,
            flags: std::ptr::null_mut(),
            nodes: std::ptr::null_mut(),
            nodes_len: 0,
            evaluated: 0,
        }
    }

    /// The interpreter's view of the state.
    ///
    /// # Safety
    /// `self` was made by [`Ctx::new`] from a state that is still borrowed by the pass
    /// running, and no other view of it is in use.
    unsafe fn sig<'a>(&self) -> Sig<'a> {
        // SAFETY: the pointers come from one `State` (see `Ctx::new`).
        unsafe {
            Sig::from_raw(
                self.valid,
                self.ready,
                self.data,
                self.n_channels,
                self.regs,
                self.n_regs,
                self.mems,
                self.mem_writes,
            )
        }
    }
}

// The interpreter entry points generated code calls (see `emit::Helper`). A panic cannot
// unwind out of them (`extern "C"` aborts); the interpreter's instructions do not panic.

unsafe extern "C" fn fwd_helper(ctx: *mut Ctx, idx: u32) {
    // SAFETY: generated code passes the context of the running pass.
    let (p, mut s) = unsafe { (&*(*ctx).prog, (*ctx).sig()) };
    eval::fwd_one(p, &mut s, &p.fwd[idx as usize]);
}

unsafe extern "C" fn bwd_helper(ctx: *mut Ctx, idx: u32) {
    // SAFETY: as `fwd_helper`.
    let (p, mut s) = unsafe { (&*(*ctx).prog, (*ctx).sig()) };
    eval::bwd_one(p, &mut s, &p.bwd_step[idx as usize]);
}

unsafe extern "C" fn clk_helper(ctx: *mut Ctx, idx: u32) {
    // SAFETY: as `fwd_helper`.
    let (p, mut s) = unsafe { (&*(*ctx).prog, (*ctx).sig()) };
    eval::clk_one(p, &mut s, &p.clk[idx as usize]);
}

unsafe extern "C" fn bwd_all_helper(ctx: *mut Ctx, idx: u32) {
    // SAFETY: as `fwd_helper`.
    let (p, mut s) = unsafe { (&*(*ctx).prog, (*ctx).sig()) };
    eval::bwd_one(p, &mut s, &p.bwd[idx as usize]);
}

unsafe extern "C" fn clk_all_helper(ctx: *mut Ctx, idx: u32) {
    // SAFETY: as `fwd_helper`.
    let (p, mut s) = unsafe { (&*(*ctx).prog, (*ctx).sig()) };
    eval::clk_one(p, &mut s, &p.activity.clk[idx as usize].0);
}

/// `Seg::Typed` segment `idx` of the forward pass.
unsafe extern "C" fn fwd_typed_helper(ctx: *mut Ctx, idx: u32) {
    // SAFETY: as `fwd_helper`.
    let (p, mut s) = unsafe { (&*(*ctx).prog, (*ctx).sig()) };
    eval::run_typed_seg(p, &mut s, &p.fwd_segs[idx as usize]);
}

/// `Seg::Typed` segment `idx` of `Program::bwd_step_segs`.
unsafe extern "C" fn bwd_typed_helper(ctx: *mut Ctx, idx: u32) {
    // SAFETY: as `fwd_helper`.
    let (p, mut s) = unsafe { (&*(*ctx).prog, (*ctx).sig()) };
    eval::run_typed_seg(p, &mut s, &p.bwd_step_segs[idx as usize]);
}

/// Every buffer's register-driven outputs.
unsafe extern "C" fn buffer_outputs_helper(ctx: *mut Ctx, _: u32) {
    // SAFETY: as `fwd_helper`.
    let (p, mut s) = unsafe { (&*(*ctx).prog, (*ctx).sig()) };
    eval::all_buffer_outputs(p, &mut s);
}

/// The typed clock lists (two-output forks not clocked by `bwd_step`, one- and two-slot
/// buffers).
unsafe extern "C" fn clock_lists_helper(ctx: *mut Ctx, _: u32) {
    // SAFETY: as `fwd_helper`.
    let (p, mut s) = unsafe { (&*(*ctx).prog, (*ctx).sig()) };
    eval::clock_lists(p, &mut s, &p.clk_emit2_rest);
}

type PassFn = unsafe extern "C" fn(*mut Ctx);

/// One step of a pass: generated code (`F`: a function's id while generating, its entry
/// point after), or a combinational cycle the interpreter iterates.
#[derive(Clone, Copy)]
enum Piece<F> {
    Native(F),
    /// `Seg::Loop` number `seg` of the forward pass (`forward`) or of `bwd_step_segs`.
    Loop {
        seg: usize,
        forward: bool,
    },
}

/// One unit of work of a pass, in execution order.
///
/// The regular parts of a program (typed segments, buffer outputs, the typed clock lists)
/// are calls to the interpreter's loops over operand tables: as fast as straight-line code
/// per instruction, and a few bytes of code instead of a hundred per instruction, which
/// keeps the generated code of large graphs small enough for the instruction caches.
#[derive(Clone, Copy)]
enum Item {
    /// Every buffer's register-driven outputs (interpreter).
    BufOuts,
    /// `Program::buffers[i]`'s outputs (inline).
    BufOut(usize),
    Fwd(usize),
    Bwd(usize),
    /// `Seg::Typed` segment `seg` of the forward pass or of `bwd_step_segs` (interpreter).
    Typed {
        seg: usize,
        forward: bool,
    },
    /// Operand tuple `Program::typed[k]` run as `op` (inline).
    Tuple(TypedOp, usize),
    /// The typed clock lists (interpreter).
    ClockLists,
    /// `Program::clk_emit2_rest[i]` (inline).
    Emit2(usize),
    /// `Program::clk_buf1[i]` (inline).
    Buf1(usize),
    /// `Program::clk_buf2[i]` (inline).
    Buf2(usize),
    Clk(usize),
}

/// A pass's work in execution order: items that become generated code, and the
/// combinational cycles between them.
type Plan = Vec<Piece<Item>>;

/// The plan of one pass's segments.
fn seg_items(segs: &[Seg], forward: bool, out: &mut Plan) {
    for (k, seg) in segs.iter().enumerate() {
        match *seg {
            Seg::Straight(a, b) => out.extend(
                (a as usize..b as usize)
                    .map(|i| Piece::Native(if forward { Item::Fwd(i) } else { Item::Bwd(i) })),
            ),
            Seg::Typed { op, start, end } => {
                if (end - start) as usize >= LOOP_CALL_MIN {
                    out.push(Piece::Native(Item::Typed { seg: k, forward }))
                } else {
                    out.extend(
                        (start as usize..end as usize).map(|t| Piece::Native(Item::Tuple(op, t))),
                    )
                }
            }
            Seg::Loop { .. } => out.push(Piece::Loop { seg: k, forward }),
        }
    }
}

/// A program compiled to machine code (see the module documentation).
pub(crate) struct Jit {
    /// Owns the code; freed on drop.
    module: Option<JITModule>,
    settle: Vec<Piece<PassFn>>,
    clock: Vec<Piece<PassFn>>,
    mem_table: Vec<(usize, usize)>,
    code_bytes: usize,
}

// SAFETY: the generated code and the module holding it are only used through `&mut Jit`;
// nothing in them refers to a thread.
unsafe impl Send for Jit {}

impl Drop for Jit {
    fn drop(&mut self) {
        if let Some(m) = self.module.take() {
            // SAFETY: the function pointers in `settle`/`clock` die with `self`, and no
            // generated code is running (the passes borrow `self` mutably).
            unsafe { m.free_memory() };
        }
    }
}

impl Jit {
    /// Compiles `p`'s settle and clock passes.
    pub(crate) fn new(p: &Program) -> Result<Jit, JitError> {
        if p.global_iterate {
            return Err(JitError::GlobalIteration);
        }
        let fits = |n: usize, scale: usize| n.checked_mul(scale).is_some_and(|b| b < 1 << 30);
        if !fits(p.n_channels, 8) || !fits(p.reg_init.len(), 8) || !fits(p.mems.len(), 16) {
            return Err(JitError::TooLarge);
        }
        let cg = |e: &dyn std::fmt::Display| JitError::Codegen(e.to_string());
        let mut module = new_module(true)?;

        let mut settle_items = Plan::new();
        if p.buffers.len() >= LOOP_CALL_MIN {
            settle_items.push(Piece::Native(Item::BufOuts));
        } else {
            settle_items.extend((0..p.buffers.len()).map(|i| Piece::Native(Item::BufOut(i))));
        }
        seg_items(&p.fwd_segs, true, &mut settle_items);
        seg_items(&p.bwd_step_segs, false, &mut settle_items);
        let mut clock_items = Vec::new();
        let lists = p.clk_emit2_rest.len() + p.clk_buf1.len() + p.clk_buf2.len();
        if lists >= LOOP_CALL_MIN {
            clock_items.push(Item::ClockLists);
        } else {
            clock_items.extend((0..p.clk_emit2_rest.len()).map(Item::Emit2));
            clock_items.extend((0..p.clk_buf1.len()).map(Item::Buf1));
            clock_items.extend((0..p.clk_buf2.len()).map(Item::Buf2));
        }
        clock_items.extend((0..p.clk.len()).map(Item::Clk));
        let clock_items: Plan = clock_items.into_iter().map(Piece::Native).collect();

        let mut b = Builder {
            module: &mut module,
            fctx: FunctionBuilderContext::new(),
            n: 0,
            code_bytes: 0,
        };
        let settle = b.pieces(p, &settle_items).map_err(|e| cg(&e))?;
        let clock = b.pieces(p, &clock_items).map_err(|e| cg(&e))?;
        let code_bytes = b.code_bytes;
        module.finalize_definitions().map_err(|e| cg(&e))?;
        let resolve = |ps: Vec<Piece<FuncId>>| -> Vec<Piece<PassFn>> {
            ps.into_iter()
                .map(|x| match x {
                    Piece::Native(id) => {
                        let code = module.get_finalized_function(id);
                        // SAFETY: the function was generated with the signature
                        // `extern "C" fn(*mut Ctx)` (one pointer parameter, no result).
                        Piece::Native(unsafe { std::mem::transmute::<*const u8, PassFn>(code) })
                    }
                    Piece::Loop { seg, forward } => Piece::Loop { seg, forward },
                })
                .collect()
        };
        let (settle, clock) = (resolve(settle), resolve(clock));
        Ok(Jit {
            module: Some(module),
            settle,
            clock,
            mem_table: Vec::new(),
            code_bytes,
        })
    }

    /// Bytes of machine code generated.
    pub(crate) fn code_bytes(&self) -> usize {
        self.code_bytes
    }

    /// Settles the cycle's signals as `eval::settle_step` does. Returns the node of a
    /// combinational cycle that did not converge, if any.
    pub(crate) fn settle(&mut self, p: &Program, st: &mut State) -> Option<u32> {
        let (mut fwd_failed, mut bwd_failed) = (None, None);
        let mut ctx = Ctx::new(p, st, &mut self.mem_table);
        for &piece in &self.settle {
            match piece {
                // SAFETY: `ctx` describes `st`, borrowed for this whole call.
                Piece::Native(f) => unsafe { f(&mut ctx) },
                Piece::Loop { seg, forward } => {
                    let failed = eval::run_loop_seg(p, st, seg, forward);
                    if failed.is_some() {
                        *(if forward {
                            &mut fwd_failed
                        } else {
                            &mut bwd_failed
                        }) = failed;
                    }
                    ctx = Ctx::new(p, st, &mut self.mem_table);
                }
            }
        }
        fwd_failed.or(bwd_failed)
    }

    /// Applies the clock edge after [`Jit::settle`], as `eval::clock_step` does.
    pub(crate) fn clock(&mut self, p: &Program, st: &mut State) {
        st.mem_writes.clear();
        let mut ctx = Ctx::new(p, st, &mut self.mem_table);
        for &piece in &self.clock {
            if let Piece::Native(f) = piece {
                // SAFETY: as in `settle`.
                unsafe { f(&mut ctx) };
            }
        }
    }
}

/// Generates the functions of a pass.
struct Builder<'m> {
    module: &'m mut JITModule,
    fctx: FunctionBuilderContext,
    /// Functions generated so far (their names).
    n: usize,
    /// Bytes of machine code generated so far.
    code_bytes: usize,
}

impl Builder<'_> {
    /// Groups the plan's items into generated functions of at most [`CHUNK`] items, with
    /// the interpreter's loops between them.
    fn pieces(
        &mut self,
        p: &Program,
        plan: &[Piece<Item>],
    ) -> Result<Vec<Piece<FuncId>>, Box<cranelift_module::ModuleError>> {
        let mut out = Vec::new();
        let mut run: Vec<Item> = Vec::new();
        for &step in plan {
            // A full run, or one a loop ends, becomes a function.
            if let Piece::Native(it) = step {
                run.push(it);
                if run.len() < CHUNK {
                    continue;
                }
            }
            if !run.is_empty() {
                out.push(Piece::Native(self.function(p, &run)?));
                run.clear();
            }
            if let Piece::Loop { seg, forward } = step {
                out.push(Piece::Loop { seg, forward });
            }
        }
        if !run.is_empty() {
            out.push(Piece::Native(self.function(p, &run)?));
        }
        Ok(out)
    }

    /// One generated function running `items` in order.
    fn function(
        &mut self,
        p: &Program,
        items: &[Item],
    ) -> Result<FuncId, Box<cranelift_module::ModuleError>> {
        let ptr = types::I64;
        let mut sig = self.module.make_signature();
        sig.params.push(AbiParam::new(ptr));
        let name = format!("pass{}", self.n);
        self.n += 1;
        let id = self.module.declare_function(&name, Linkage::Local, &sig)?;
        let mut helper_sig = self.module.make_signature();
        helper_sig.params.push(AbiParam::new(ptr));
        helper_sig.params.push(AbiParam::new(types::I32));

        let target = self.module.target_config();
        let mut ctx = self.module.make_context();
        ctx.func.signature = sig;
        ctx.func.name = UserFuncName::user(0, id.as_u32());
        {
            let mut fb = FunctionBuilder::new(&mut ctx.func, &mut self.fctx);
            let entry = fb.create_block();
            fb.append_block_params_for_function_params(entry);
            fb.switch_to_block(entry);
            let c = fb.block_params(entry)[0];
            let hs = fb.import_signature(helper_sig);
            let mut em = Emitter::new(&mut fb, p, c, &LAYOUT, hs, helpers(), false);
            for &it in items {
                match it {
                    Item::BufOuts => em.call(Helper::BufferOutputs, 0),
                    Item::Fwd(i) => em.fwd(i),
                    Item::Bwd(i) => em.bwd(i),
                    Item::Typed { seg, forward } => em.call(
                        if forward {
                            Helper::FwdTyped
                        } else {
                            Helper::BwdTyped
                        },
                        seg,
                    ),
                    Item::ClockLists => em.call(Helper::ClockLists, 0),
                    Item::BufOut(i) => {
                        let (inp, out, reg, slots) = p.buffers[i];
                        em.buffer_outputs(inp, out, reg, slots);
                    }
                    Item::Tuple(op, k) => em.typed(op, p.typed[k]),
                    Item::Emit2(i) => {
                        let (o0, o1, reg) = p.clk_emit2_rest[i];
                        em.emit2_clock(o0, o1, reg);
                    }
                    Item::Buf1(i) => {
                        let (inp, out, reg) = p.clk_buf1[i];
                        em.buffer_clock(inp, out, reg, 1);
                    }
                    Item::Buf2(i) => {
                        let (inp, out, reg) = p.clk_buf2[i];
                        em.buffer_clock(inp, out, reg, 2);
                    }
                    Item::Clk(i) => em.clk(i),
                }
            }
            em.b.ins().return_(&[]);
            fb.seal_all_blocks();
            fb.finalize(target);
        }
        self.module.define_function(id, &mut ctx)?;
        if let Some(c) = ctx.compiled_code() {
            self.code_bytes += c.code_info().total_size as usize;
        }
        self.module.clear_context(&mut ctx);
        Ok(id)
    }
}

type PassHelper = unsafe extern "C" fn(*mut Ctx, u32);

/// The addresses of the interpreter entry points, in [`Helper::ALL`] order.
fn helpers() -> [i64; 9] {
    Helper::ALL.map(|h| {
        (match h {
            Helper::Fwd => fwd_helper,
            Helper::Bwd => bwd_helper,
            Helper::Clk => clk_helper,
            Helper::FwdTyped => fwd_typed_helper,
            Helper::BwdTyped => bwd_typed_helper,
            Helper::BufferOutputs => buffer_outputs_helper,
            Helper::ClockLists => clock_lists_helper,
            Helper::BwdAll => bwd_all_helper,
            Helper::ClkAll => clk_all_helper,
        } as PassHelper) as usize as i64
    })
}

/// A new JIT module for this processor, or why not; Cranelift's optimizer runs when `optimize`.
fn new_module(optimize: bool) -> Result<JITModule, JitError> {
    let cg = |e: &dyn std::fmt::Display| JitError::Codegen(e.to_string());
    let mut flags = settings::builder();
    for (k, v) in [
        ("opt_level", if optimize { "speed" } else { "none" }),
        ("is_pic", "false"),
        ("use_colocated_libcalls", "false"),
        (
            "enable_verifier",
            if cfg!(debug_assertions) {
                "true"
            } else {
                "false"
            },
        ),
    ] {
        flags.set(k, v).map_err(|e| cg(&e))?;
    }
    let isa = cranelift_native::builder()
        .map_err(|e| cg(&e))?
        .finish(settings::Flags::new(flags))
        .map_err(|e| cg(&e))?;
    Ok(JITModule::new(JITBuilder::with_isa(
        isa,
        default_libcall_names(),
    )))
}
