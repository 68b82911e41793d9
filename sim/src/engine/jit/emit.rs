//! Translation of [`Program`] instructions to Cranelift IR, one instruction at a time, with
//! the same equations as the interpreter (`super::super::eval`), operands as constants.
//!
//! Signals: a `valid`/`ready` is an `i8` that is 0 or 1 (stored as the `bool` byte of the
//! state arrays), a data or register word an `i64`. Instructions this module does not
//! translate become a call to the interpreter's code for that one instruction
//! ([`Helper`]), so every program is covered.

use std::collections::HashMap;

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{Block, InstBuilder, MemFlagsData, SigRef, Value, types};
use cranelift_frontend::FunctionBuilder;

use super::super::arith::{BinOp, CastKind};
use super::super::program::{Bwd, Clk, Fwd, Program, Span, TypedOp};
use crate::ops::CmpPredicate;
use crate::spec::mux_select_mask;
use crate::types::width_mask;

use super::super::eval::{
    DATA, INDEX_EMITTED, RESULT_EMITTED, SKID_DATA, SKID_VALID, SLOT, STAGE_DATA, STAGE_VALID,
    VALID, WON,
};

/// Most data inputs of a `mux`, `merge` or `control_merge` translated inline (wider ones
/// call the interpreter).
const MAX_INLINE_INPUTS: u32 = 16;

/// The interpreter entry points generated code calls: `(context, index)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Helper {
    /// Instruction `Program::fwd[i]`.
    Fwd,
    /// Instruction `Program::bwd_step[i]`.
    Bwd,
    /// Instruction `Program::clk[i]`.
    Clk,
    /// Typed segment `Program::fwd_segs[i]`.
    FwdTyped,
    /// Typed segment `Program::bwd_step_segs[i]`.
    BwdTyped,
    /// Every buffer's register-driven outputs (index unused).
    BufferOutputs,
    /// The typed clock lists (index unused).
    ClockLists,
    /// Instruction `Program::bwd[i]` (the activity-driven passes).
    BwdAll,
    /// Instruction `Program::activity.clk[i]` (the activity-driven passes).
    ClkAll,
}

impl Helper {
    /// Every helper, in discriminant order.
    pub const ALL: [Helper; 9] = [
        Helper::Fwd,
        Helper::Bwd,
        Helper::Clk,
        Helper::FwdTyped,
        Helper::BwdTyped,
        Helper::BufferOutputs,
        Helper::ClockLists,
        Helper::BwdAll,
        Helper::ClkAll,
    ];
}

/// Byte offsets of the [`super::Ctx`] fields generated code reads.
pub(super) struct CtxLayout {
    pub valid: i32,
    pub ready: i32,
    pub data: i32,
    pub regs: i32,
    pub mems: i32,
    /// The activity flags (`u8` per instruction), the list of nodes whose registers
    /// changed and its length (activity-driven passes only).
    pub flags: i32,
    pub nodes: i32,
    pub nodes_len: i32,
    pub evaluated: i32,
}

/// Emits one pass's instructions into a function whose only parameter is the context.
pub(super) struct Emitter<'a, 'b> {
    pub b: &'a mut FunctionBuilder<'b>,
    p: &'a Program,
    ctx: Value,
    /// Byte offsets in the context of the base pointers of `valid`, `ready`, `data`,
    /// `regs` and the memory table ([`Array`] order).
    base_offsets: [i32; 5],
    /// The base pointers loaded since the last call into the interpreter. They are
    /// loaded again after a call rather than kept across it: kept, they would be spilled
    /// and reloaded from the stack around every call (they outnumber the callee-saved
    /// registers).
    bases: [Option<Value>; 5],
    helper_sig: SigRef,
    helpers: [i64; 9],
    /// Whether the instructions are the activity-driven passes' lists (`Program::bwd` and
    /// `Program::activity.clk`) rather than the full passes' (`bwd_step`, `clk`).
    all_lists: bool,
    /// Context offsets of the activity fields.
    act_offsets: [i32; 4],
    fl: MemFlagsData,
    /// The value each state word holds at this point of the function, when the function
    /// has loaded or stored it since the last call (straight-line code: a later read,
    /// in this or a later instruction, reuses it instead of a load; one program
    /// instruction's output is usually read by the next few). Cleared by a call into the
    /// interpreter, which may write any word. Measured on the matrix-product benchmark:
    /// 12,931 → 12,091 instructions per cycle against clearing it at every instruction,
    /// at twice the register-allocation time (about 30 ms more).
    known: HashMap<(Array, u32), Value>,
}

/// The state arrays generated code reads and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Array {
    Valid,
    Ready,
    Data,
    Regs,
    /// The `(base, len)` table of the memories (never cached in `known`).
    Mems,
}

impl<'a, 'b> Emitter<'a, 'b> {
    /// An emitter of code working on the state the context `ctx` describes.
    pub fn new(
        b: &'a mut FunctionBuilder<'b>,
        p: &'a Program,
        ctx: Value,
        layout: &CtxLayout,
        helper_sig: SigRef,
        helpers: [i64; 9],
        all_lists: bool,
    ) -> Self {
        let fl = MemFlagsData::trusted();
        Emitter {
            b,
            p,
            ctx,
            base_offsets: [
                layout.valid,
                layout.ready,
                layout.data,
                layout.regs,
                layout.mems,
            ],
            bases: [None; 5],
            helper_sig,
            helpers,
            all_lists,
            act_offsets: [
                layout.flags,
                layout.nodes,
                layout.nodes_len,
                layout.evaluated,
            ],
            fl,
            known: HashMap::new(),
        }
    }

    /// Forgets the known state words and base pointers (after a call into the
    /// interpreter, which may write any word, and across which base pointers would only be
    /// spilled and reloaded).
    fn forget(&mut self) {
        self.known.clear();
        self.bases = [None; 5];
    }

    /// The base pointer of `a`, loaded from the context once between calls.
    fn base(&mut self, a: Array) -> Value {
        let k = a as usize;
        if let Some(v) = self.bases[k] {
            return v;
        }
        let v = self
            .b
            .ins()
            .load(types::I64, self.fl, self.ctx, self.base_offsets[k]);
        self.bases[k] = Some(v);
        v
    }

    /// Element `i` of `a` (`ty` wide, `scale` bytes apart), from `known` or loaded.
    fn load(&mut self, a: Array, i: u32) -> Value {
        if let Some(&v) = self.known.get(&(a, i)) {
            return v;
        }
        let (base, ty, scale) = self.array(a);
        let v = self.b.ins().load(ty, self.fl, base, (i * scale) as i32);
        self.known.insert((a, i), v);
        v
    }

    fn store(&mut self, a: Array, i: u32, x: Value) {
        let (base, _, scale) = self.array(a);
        self.b.ins().store(self.fl, x, base, (i * scale) as i32);
        self.known.insert((a, i), x);
    }

    fn array(&mut self, a: Array) -> (Value, types::Type, u32) {
        let (ty, scale) = match a {
            Array::Valid | Array::Ready => (types::I8, 1),
            Array::Data | Array::Regs => (types::I64, 8),
            Array::Mems => (types::I64, 16),
        };
        (self.base(a), ty, scale)
    }

    // --- state access -------------------------------------------------------------------

    fn v(&mut self, c: u32) -> Value {
        self.load(Array::Valid, c)
    }
    fn set_v(&mut self, c: u32, x: Value) {
        self.store(Array::Valid, c, x);
    }
    fn r(&mut self, c: u32) -> Value {
        self.load(Array::Ready, c)
    }
    fn set_r(&mut self, c: u32, x: Value) {
        self.store(Array::Ready, c, x);
    }
    fn d(&mut self, c: u32) -> Value {
        self.load(Array::Data, c)
    }
    fn set_d(&mut self, c: u32, x: Value) {
        self.store(Array::Data, c, x);
    }
    fn reg(&mut self, r: usize) -> Value {
        self.load(Array::Regs, r as u32)
    }
    fn set_reg(&mut self, r: usize, x: Value) {
        self.store(Array::Regs, r as u32, x);
    }
    /// `regs[r] == 0` as a flag.
    fn reg_zero(&mut self, r: usize) -> Value {
        let x = self.reg(r);
        self.b.ins().icmp_imm_s(IntCC::Equal, x, 0)
    }
    /// `regs[r] != 0` as a flag.
    fn reg_set(&mut self, r: usize) -> Value {
        let x = self.reg(r);
        self.b.ins().icmp_imm_s(IntCC::NotEqual, x, 0)
    }

    // --- flag and word helpers ----------------------------------------------------------

    fn and(&mut self, a: Value, b: Value) -> Value {
        self.b.ins().band(a, b)
    }
    fn or(&mut self, a: Value, b: Value) -> Value {
        self.b.ins().bor(a, b)
    }
    fn not(&mut self, a: Value) -> Value {
        self.b.ins().bxor_imm_s(a, 1)
    }
    fn flag(&mut self, x: bool) -> Value {
        self.b.ins().iconst(types::I8, i64::from(x))
    }
    fn word(&mut self, x: u64) -> Value {
        self.b.ins().iconst(types::I64, x as i64)
    }
    /// A flag widened to a 0/1 word.
    fn wide(&mut self, f: Value) -> Value {
        self.b.ins().uextend(types::I64, f)
    }
    /// Whether word `x` is non-zero, as a flag.
    fn nz(&mut self, x: Value) -> Value {
        self.b.ins().icmp_imm_s(IntCC::NotEqual, x, 0)
    }
    /// Bit 0 of word `x` as a flag.
    fn bit0(&mut self, x: Value) -> Value {
        let m = self.b.ins().band_imm_s(x, 1);
        self.nz(m)
    }
    fn mask(&mut self, x: Value, w: u32) -> Value {
        if w >= 64 {
            x
        } else {
            self.b.ins().band_imm_s(x, width_mask(w) as i64)
        }
    }
    /// The sign extension of the low `w` bits of `x` (0 at width 0), as `arith::sext`.
    fn sext(&mut self, x: Value, w: u32) -> Value {
        match w {
            0 => self.word(0),
            64.. => x,
            _ => {
                let sh = i64::from(64 - w);
                let l = self.b.ins().ishl_imm_s(x, sh);
                self.b.ins().sshr_imm_s(l, sh)
            }
        }
    }
    fn ports(&self, sp: Span) -> &'a [u32] {
        &self.p.ports[sp.range()]
    }
    fn all_valid(&mut self, sp: Span) -> Value {
        let mut acc = self.flag(true);
        for &c in self.ports(sp) {
            let v = self.v(c);
            acc = self.and(acc, v);
        }
        acc
    }
    /// `valid & ready` of channel `c`.
    fn fire(&mut self, c: u32) -> Value {
        let (v, r) = (self.v(c), self.r(c));
        self.and(v, r)
    }
    /// An eager fork output's `done`: it fires now or has already been emitted.
    fn done(&mut self, o: u32, r: usize) -> Value {
        let f = self.fire(o);
        let e = self.reg_set(r);
        self.or(f, e)
    }

    // --- activity-driven passes (`super::activity`) -------------------------------------

    /// The context's activity field `k` (flags, nodes, nodes_len, evaluated): a pointer,
    /// or for the counts the word itself.
    fn act_field(&mut self, k: usize) -> Value {
        self.b
            .ins()
            .load(types::I64, self.fl, self.ctx, self.act_offsets[k])
    }

    /// The flag `true`.
    pub fn truth(&mut self) -> Value {
        self.flag(true)
    }

    /// Begins the code of an instruction that runs only when its activity flag `flag` is
    /// set, clearing it and counting it. Returns the block after it, for
    /// [`Emitter::unit_end`].
    pub fn unit_begin(&mut self, flag: u32) -> Block {
        let next = self.group_begin(flag);
        let flags = self.act_field(0);
        let zero = self.flag(false);
        self.b.ins().store(self.fl, zero, flags, flag as i32);
        let n = self.act_field(3);
        let n = self.b.ins().iadd_imm_s(n, 1);
        let ctx = self.ctx;
        self.b.ins().store(self.fl, n, ctx, self.act_offsets[3]);
        next
    }

    /// Begins a group of instructions (or one instruction, [`Emitter::unit_begin`]) that
    /// runs only when flag `flag` is set. Returns the block after it, for
    /// [`Emitter::group_end`].
    pub fn group_begin(&mut self, flag: u32) -> Block {
        self.forget();
        let flags = self.act_field(0);
        let f = self.b.ins().load(types::I8, self.fl, flags, flag as i32);
        let (run, next) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(f, run, &[], next, &[]);
        self.b.switch_to_block(run);
        next
    }

    /// Ends the group [`Emitter::group_begin`] began, clearing its flag: what its
    /// instructions marked ahead of themselves has run, and what they marked behind is
    /// not for this pass.
    pub fn group_end(&mut self, flag: u32, next: Block) {
        self.forget();
        let flags = self.act_field(0);
        let zero = self.flag(false);
        self.b.ins().store(self.fl, zero, flags, flag as i32);
        self.b.ins().jump(next, &[]);
        self.b.switch_to_block(next);
        self.forget();
    }

    /// Ends the code [`Emitter::unit_begin`] began.
    pub fn unit_end(&mut self, next: Block) {
        self.b.ins().jump(next, &[]);
        self.b.switch_to_block(next);
        self.forget();
    }

    /// `valid` and `data` of channel `c` now.
    pub fn fwd_signals(&mut self, c: u32) -> (Value, Value) {
        (self.v(c), self.d(c))
    }

    /// `ready` of channel `c` now.
    pub fn ready_signal(&mut self, c: u32) -> Value {
        self.r(c)
    }

    /// Register words `a..b` now.
    pub fn reg_words(&mut self, a: usize, b: usize) -> Vec<Value> {
        (a..b).map(|r| self.reg(r)).collect()
    }

    /// Whether `valid`/`data` of `c` differ from `old`, as a flag.
    pub fn fwd_changed(&mut self, c: u32, old: (Value, Value)) -> Value {
        let (v, d) = self.fwd_signals(c);
        let a = self.b.ins().icmp(IntCC::NotEqual, v, old.0);
        let b = self.b.ins().icmp(IntCC::NotEqual, d, old.1);
        self.or(a, b)
    }

    /// Whether `ready` of `c` differs from `old`, as a flag.
    pub fn ready_changed(&mut self, c: u32, old: Value) -> Value {
        let r = self.r(c);
        self.b.ins().icmp(IntCC::NotEqual, r, old)
    }

    /// Whether register words `a..` differ from `old`, as a flag.
    pub fn regs_changed(&mut self, a: usize, old: &[Value]) -> Value {
        let mut acc = self.flag(false);
        for (k, &o) in old.iter().enumerate() {
            let x = self.reg(a + k);
            let ne = self.b.ins().icmp(IntCC::NotEqual, x, o);
            acc = self.or(acc, ne);
        }
        acc
    }

    /// When `cond` holds: sets the activity flags `flags` and, when given, appends `node`
    /// to the context's node list.
    pub fn on_change(&mut self, cond: Value, flags: &[u32], node: Option<u32>) {
        let (then, after) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(cond, then, &[], after, &[]);
        self.b.switch_to_block(then);
        let base = self.act_field(0);
        let one = self.flag(true);
        for &f in flags {
            self.b.ins().store(self.fl, one, base, f as i32);
        }
        if let Some(n) = node {
            let list = self.act_field(1);
            let len = self.act_field(2);
            let at = self.b.ins().ishl_imm_s(len, 2);
            let addr = self.b.ins().iadd(list, at);
            let nv = self.b.ins().iconst(types::I32, i64::from(n));
            self.b.ins().store(self.fl, nv, addr, 0);
            let len = self.b.ins().iadd_imm_s(len, 1);
            let ctx = self.ctx;
            self.b.ins().store(self.fl, len, ctx, self.act_offsets[2]);
        }
        self.b.ins().jump(after, &[]);
        self.b.switch_to_block(after);
    }

    /// The helper of a backward instruction of this emitter's lists.
    fn bwd_helper(&self) -> Helper {
        if self.all_lists {
            Helper::BwdAll
        } else {
            Helper::Bwd
        }
    }

    /// The helper of a clock instruction of this emitter's lists.
    fn clk_helper(&self) -> Helper {
        if self.all_lists {
            Helper::ClkAll
        } else {
            Helper::Clk
        }
    }

    /// Calls the interpreter: `h` on `idx`.
    pub fn call(&mut self, h: Helper, idx: usize) {
        let f = self.helpers[h as usize];
        let callee = self.b.ins().iconst(types::I64, f);
        let i = self.b.ins().iconst(types::I32, idx as i64);
        let ctx = self.ctx;
        self.b
            .ins()
            .call_indirect(self.helper_sig, callee, &[ctx, i]);
        self.forget();
    }

    // --- shared shapes ------------------------------------------------------------------

    fn fork2_fwd(&mut self, inp: u32, o0: u32, o1: u32, r: usize) {
        let v = self.v(inp);
        let d = self.d(inp);
        let (e0, e1) = (self.reg_zero(r), self.reg_zero(r + 1));
        let (a, b) = (self.and(v, e0), self.and(v, e1));
        self.set_v(o0, a);
        self.set_v(o1, b);
        self.set_d(o0, d);
        self.set_d(o1, d);
    }

    fn sync2_fwd(&mut self, i0: u32, i1: u32, o0: u32, o1: u32, r: usize) {
        let (v0, v1) = (self.v(i0), self.v(i1));
        let j = self.and(v0, v1);
        let (e0, e1) = (self.reg_zero(r), self.reg_zero(r + 1));
        let (a, b) = (self.and(j, e0), self.and(j, e1));
        self.set_v(o0, a);
        self.set_v(o1, b);
        let (d0, d1) = (self.d(i0), self.d(i1));
        self.set_d(o0, d0);
        self.set_d(o1, d1);
    }

    /// `allDone` of a two-output fork, and (when `edge`) its clock edge.
    fn fork2_all(&mut self, o0: u32, o1: u32, r: usize, edge: bool) -> Value {
        let d0 = self.done(o0, r);
        let d1 = self.done(o1, r + 1);
        let all = self.and(d0, d1);
        if edge {
            let na = self.not(all);
            let (a, b) = (self.and(d0, na), self.and(d1, na));
            let (a, b) = (self.wide(a), self.wide(b));
            self.set_reg(r, a);
            self.set_reg(r + 1, b);
        }
        all
    }

    fn sync2_bwd(&mut self, i0: u32, i1: u32, o0: u32, o1: u32, r: usize, edge: bool) {
        let (v0, v1) = (self.v(i0), self.v(i1));
        let j = self.and(v0, v1);
        let all = self.fork2_all(o0, o1, r, edge);
        let x = self.and(j, all);
        self.set_r(i0, x);
        self.set_r(i1, x);
    }

    /// The current `control_merge` winner as a one-hot word (0: none), as
    /// `eval::cmerge_win`.
    fn cmerge_win(&mut self, ins: Span, r: usize) -> Value {
        let won = self.reg(r + WON);
        let mut first = self.word(0);
        for (k, &c) in self.ports(ins).iter().enumerate().rev() {
            let v = self.v(c);
            let bit = self.word(1 << k);
            first = self.b.ins().select(v, bit, first);
        }
        let has = self.nz(won);
        self.b.ins().select(has, won, first)
    }

    /// `(done_result, done_index, allDone)` of a `control_merge`.
    fn cmerge_done(&mut self, out: u32, idx: u32, r: usize) -> (Value, Value, Value) {
        let dr = self.done(out, r + RESULT_EMITTED);
        let di = self.done(idx, r + INDEX_EMITTED);
        let all = self.and(dr, di);
        (dr, di, all)
    }

    /// One buffer slot's clock edge, as `eval::slot_step` (`in_v`, `out_r`: 0/1 words).
    /// Returns the slot's output before the edge (valid word, data).
    fn slot_step(&mut self, r: usize, in_v: Value, in_d: Value, out_r: Value) -> (Value, Value) {
        let (v, d, sk, sd) = (
            self.reg(r),
            self.reg(r + 1),
            self.reg(r + 2),
            self.reg(r + 3),
        );
        let sk_set = self.nz(sk);
        let one = self.word(1);
        let old_v = self.b.ins().select(sk_set, one, v);
        let old_d = self.b.ins().select(sk_set, sd, d);
        let both = self.b.ins().band(v, sk);
        let free = self.b.ins().icmp_imm_s(IntCC::Equal, both, 0);
        let w0 = self.b.ins().select(free, in_v, v);
        let w1 = self.b.ins().select(free, in_d, d);
        let nr = self.b.ins().bxor_imm_s(out_r, 1);
        let held = self.b.ins().bor(sk, v);
        let w2 = self.b.ins().band(nr, held);
        // out ready: skid emptied when it was full; else the skid catches `d` when empty.
        let zero = self.word(0);
        let if_ready = self.b.ins().select(sk_set, zero, sd);
        let if_stall = self.b.ins().select(sk_set, sd, d);
        let or_set = self.nz(out_r);
        let w3 = self.b.ins().select(or_set, if_ready, if_stall);
        self.set_reg(r, w0);
        self.set_reg(r + 1, w1);
        self.set_reg(r + 2, w2);
        self.set_reg(r + 3, w3);
        (old_v, old_d)
    }

    /// A slot's `in.ready` as a 0/1 word.
    fn slot_ready(&mut self, r: usize) -> Value {
        let (v, sk) = (self.reg(r + VALID), self.reg(r + SKID_VALID));
        let both = self.b.ins().band(v, sk);
        let b = self.b.ins().band_imm_s(both, 1);
        self.b.ins().bxor_imm_s(b, 1)
    }

    /// A buffer's register-driven `out.valid/data` and `in.ready`.
    pub fn buffer_outputs(&mut self, inp: u32, out: u32, reg: u32, slots: u32) {
        let first = reg as usize;
        self.slot_output(out, first + SLOT * (slots as usize - 1));
        let (a, b) = (
            self.reg_zero(first + VALID),
            self.reg_zero(first + SKID_VALID),
        );
        let rd = self.or(a, b);
        self.set_r(inp, rd);
    }

    /// Drives `out` from the buffer slot whose words start at `r`: valid when it holds a
    /// token, the skid register's data first.
    fn slot_output(&mut self, out: u32, r: usize) {
        let (v, d, sk, sd) = (
            self.reg(r + VALID),
            self.reg(r + DATA),
            self.reg(r + SKID_VALID),
            self.reg(r + SKID_DATA),
        );
        let any = self.b.ins().bor(v, sk);
        let ov = self.nz(any);
        self.set_v(out, ov);
        let sk_set = self.nz(sk);
        let od = self.b.ins().select(sk_set, sd, d);
        self.set_d(out, od);
    }

    /// The clock edge of a two-output fork's emitted registers.
    pub fn emit2_clock(&mut self, o0: u32, o1: u32, reg: u32) {
        self.fork2_all(o0, o1, reg as usize, true);
    }

    /// One operand tuple of a [`TypedOp`] segment.
    pub fn typed(&mut self, op: TypedOp, [a, b, c, d, e]: [u32; 5]) {
        match op {
            TypedOp::Fork2Fwd => self.fork2_fwd(a, b, c, d as usize),
            TypedOp::Sync2Fwd => self.sync2_fwd(a, b, c, d, e as usize),
            TypedOp::Fork2Bwd | TypedOp::Fork2Clk => {
                let all = self.fork2_all(b, c, d as usize, op == TypedOp::Fork2Clk);
                self.set_r(a, all);
            }
            TypedOp::Sync2Bwd => self.sync2_bwd(a, b, c, d, e as usize, false),
            TypedOp::Sync2Clk => self.sync2_bwd(a, b, c, d, e as usize, true),
            TypedOp::Join2Bwd => {
                let f = self.fire(c);
                self.set_r(a, f);
                self.set_r(b, f);
            }
        }
    }

    /// Clock edge of a buffer of `slots` slots, as `eval::clk_one`'s `Clk::Buffer`.
    pub fn buffer_clock(&mut self, inp: u32, out: u32, reg: u32, slots: u32) {
        let base = reg as usize;
        let n = slots as usize;
        let iv = self.v(inp);
        let mut v = self.wide(iv);
        let mut d = self.d(inp);
        let orr = self.r(out);
        let out_r = self.wide(orr);
        for k in 0..n {
            let r = base + SLOT * k;
            let o = if k + 1 == n {
                out_r
            } else {
                self.slot_ready(r + SLOT)
            };
            (v, d) = self.slot_step(r, v, d, o);
        }
    }

    // --- the three passes ---------------------------------------------------------------

    /// Forward instruction `idx` of [`Program::fwd`].
    pub fn fwd(&mut self, idx: usize) {
        let p = self.p;
        match p.fwd[idx] {
            Fwd::Bin { op, a, b, out, w } => {
                let w = u32::from(w);
                let make = matches!(
                    op,
                    BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::And | BinOp::Or | BinOp::Xor
                );
                if !make {
                    return self.call(Helper::Fwd, idx);
                }
                let (va, vb) = (self.v(a), self.v(b));
                let v = self.and(va, vb);
                self.set_v(out, v);
                let (x, y) = (self.d(a), self.d(b));
                let r = match op {
                    BinOp::Add => self.b.ins().iadd(x, y),
                    BinOp::Sub => self.b.ins().isub(x, y),
                    BinOp::Mul => self.b.ins().imul(x, y),
                    BinOp::And => self.b.ins().band(x, y),
                    BinOp::Or => self.b.ins().bor(x, y),
                    _ => self.b.ins().bxor(x, y),
                };
                let r = self.mask(r, w);
                self.set_d(out, r);
            }
            Fwd::Cmp { pred, a, b, out, w } => {
                let w = u32::from(w);
                let (va, vb) = (self.v(a), self.v(b));
                let v = self.and(va, vb);
                self.set_v(out, v);
                let (x, y) = (self.d(a), self.d(b));
                let signed = matches!(
                    pred,
                    CmpPredicate::Slt | CmpPredicate::Sle | CmpPredicate::Sgt | CmpPredicate::Sge
                );
                let (x, y) = if signed {
                    (self.sext(x, w), self.sext(y, w))
                } else {
                    (x, y)
                };
                let cc = match pred {
                    CmpPredicate::Eq => IntCC::Equal,
                    CmpPredicate::Ne => IntCC::NotEqual,
                    CmpPredicate::Slt => IntCC::SignedLessThan,
                    CmpPredicate::Sle => IntCC::SignedLessThanOrEqual,
                    CmpPredicate::Sgt => IntCC::SignedGreaterThan,
                    CmpPredicate::Sge => IntCC::SignedGreaterThanOrEqual,
                    CmpPredicate::Ult => IntCC::UnsignedLessThan,
                    CmpPredicate::Ule => IntCC::UnsignedLessThanOrEqual,
                    CmpPredicate::Ugt => IntCC::UnsignedGreaterThan,
                    CmpPredicate::Uge => IntCC::UnsignedGreaterThanOrEqual,
                };
                let f = self.b.ins().icmp(cc, x, y);
                let r = self.wide(f);
                self.set_d(out, r);
            }
            Fwd::Select { c, t, f, out } => {
                let (vc, vt, vf) = (self.v(c), self.v(t), self.v(f));
                let v = self.and(vc, vt);
                let v = self.and(v, vf);
                self.set_v(out, v);
                let dc = self.d(c);
                let s = self.bit0(dc);
                let (dt, df) = (self.d(t), self.d(f));
                let r = self.b.ins().select(s, dt, df);
                self.set_d(out, r);
            }
            Fwd::Cast {
                kind,
                a,
                out,
                from,
                to,
            } => {
                let v = self.v(a);
                self.set_v(out, v);
                let x = self.d(a);
                let x = match kind {
                    CastKind::Sext => self.sext(x, u32::from(from)),
                    CastKind::Zext | CastKind::Trunc => x,
                    CastKind::Not => self.b.ins().bnot(x),
                };
                let r = self.mask(x, u32::from(to));
                self.set_d(out, r);
            }
            Fwd::Join {
                ins,
                data_from,
                out,
            } => {
                let v = self.all_valid(ins);
                self.set_v(out, v);
                let d = if data_from == u32::MAX {
                    self.word(0)
                } else {
                    self.d(data_from)
                };
                self.set_d(out, d);
            }
            Fwd::Wire { inp, out } => {
                let (v, d) = (self.v(inp), self.d(inp));
                self.set_v(out, v);
                self.set_d(out, d);
            }
            Fwd::CondBr { cond, data, t, f } => {
                let (vc, vd) = (self.v(cond), self.v(data));
                let j = self.and(vc, vd);
                let dc = self.d(cond);
                let sel = self.bit0(dc);
                let nsel = self.not(sel);
                let (a, b) = (self.and(j, sel), self.and(j, nsel));
                self.set_v(t, a);
                self.set_v(f, b);
                let d = self.d(data);
                self.set_d(t, d);
                self.set_d(f, d);
            }
            Fwd::Mux { sel, ins, out } => {
                if ins.len > MAX_INLINE_INPUTS {
                    return self.call(Helper::Fwd, idx);
                }
                let ds = self.d(sel);
                let k = self
                    .b
                    .ins()
                    .band_imm_s(ds, mux_select_mask(ins.len as usize) as i64);
                let mut v = self.flag(false);
                let mut d = self.word(0);
                for (j, &c) in self.ports(ins).iter().enumerate() {
                    let is = self.b.ins().icmp_imm_s(IntCC::Equal, k, j as i64);
                    let (vc, dc) = (self.v(c), self.d(c));
                    v = self.b.ins().select(is, vc, v);
                    d = self.b.ins().select(is, dc, d);
                }
                let vs = self.v(sel);
                let v = self.and(vs, v);
                self.set_v(out, v);
                self.set_d(out, d);
            }
            Fwd::Merge { ins, out } => {
                if ins.len > MAX_INLINE_INPUTS {
                    return self.call(Helper::Fwd, idx);
                }
                // The first valid input wins: fold from the last one.
                let mut v = self.flag(false);
                let mut d = self.word(0);
                for &c in self.ports(ins).iter().rev() {
                    let (vc, dc) = (self.v(c), self.d(c));
                    d = self.b.ins().select(vc, dc, d);
                    v = self.or(vc, v);
                }
                self.set_v(out, v);
                self.set_d(out, d);
            }
            Fwd::Cmerge {
                ins,
                out,
                idx: ix,
                reg,
            } => {
                if ins.len > MAX_INLINE_INPUTS {
                    return self.call(Helper::Fwd, idx);
                }
                let r = reg as usize;
                let win = self.cmerge_win(ins, r);
                let any = self.nz(win);
                let e = self.reg_zero(r + RESULT_EMITTED);
                let vo = self.and(any, e);
                self.set_v(out, vo);
                let e = self.reg_zero(r + INDEX_EMITTED);
                let vi = self.and(any, e);
                self.set_v(ix, vi);
                let mut d = self.word(0);
                for (k, &c) in self.ports(ins).iter().enumerate() {
                    let bit = self.b.ins().band_imm_s(win, 1 << k);
                    let is = self.nz(bit);
                    let dc = self.d(c);
                    d = self.b.ins().select(is, dc, d);
                }
                self.set_d(out, d);
                let tz = self.b.ins().ctz(win);
                let tz = self.mask(tz, u32::from(p.widths[ix as usize]));
                let zero = self.word(0);
                let di = self.b.ins().select(any, tz, zero);
                self.set_d(ix, di);
            }
            Fwd::Fork { inp, outs, reg } => {
                let v = self.v(inp);
                let d = self.d(inp);
                let r = reg as usize;
                for (k, &o) in self.ports(outs).iter().enumerate() {
                    let e = self.reg_zero(r + k);
                    let x = self.and(v, e);
                    self.set_v(o, x);
                    self.set_d(o, d);
                }
            }
            Fwd::Sync { ins, outs, reg } => {
                let j = self.all_valid(ins);
                let r = reg as usize;
                let (os, is) = (self.ports(outs), self.ports(ins));
                for k in 0..outs.len as usize {
                    let e = self.reg_zero(r + k);
                    let x = self.and(j, e);
                    self.set_v(os[k], x);
                    let d = self.d(is[k]);
                    self.set_d(os[k], d);
                }
            }
            Fwd::BufOut { out, reg } => self.slot_output(out, reg as usize),
            Fwd::PipeOut { out, reg } => {
                let r = reg as usize;
                let v = self.reg_set(r + STAGE_VALID);
                self.set_v(out, v);
                let d = self.reg(r + STAGE_DATA);
                self.set_d(out, d);
            }
            Fwd::Const { ctrl, out, value } => {
                let v = self.v(ctrl);
                self.set_v(out, v);
                let d = self.word(value);
                self.set_d(out, d);
            }
            Fwd::Fixed { out, valid } => {
                let v = self.flag(valid);
                self.set_v(out, v);
                let z = self.word(0);
                self.set_d(out, z);
            }
            Fwd::Store {
                addr,
                data,
                ctrl,
                dout,
                aout,
            } => {
                let (va, vd, vc) = (self.v(addr), self.v(data), self.v(ctrl));
                let v = self.and(va, vd);
                let v = self.and(v, vc);
                self.set_v(dout, v);
                self.set_v(aout, v);
                let (dd, da) = (self.d(data), self.d(addr));
                self.set_d(dout, dd);
                self.set_d(aout, da);
            }
            Fwd::MemLd {
                addr,
                ld,
                done,
                reg,
                mem,
            } => {
                if p.mems[mem as usize].size == 0 {
                    // No element to read (the load below needs one).
                    return self.call(Helper::Fwd, idx);
                }
                let r = reg as usize;
                let v = self.v(addr);
                let (e0, e1) = (self.reg_zero(r), self.reg_zero(r + 1));
                let (a, b) = (self.and(v, e0), self.and(v, e1));
                self.set_v(ld, a);
                self.set_v(done, b);
                // mems[mem] is (base, len); an address past the end reads 0.
                let fl = self.fl;
                let off = (mem as i32) * 16;
                let table = self.base(Array::Mems);
                let base = self.b.ins().load(types::I64, fl, table, off);
                let len = self.b.ins().load(types::I64, fl, table, off + 8);
                let da = self.d(addr);
                let a = self
                    .b
                    .ins()
                    .band_imm_s(da, p.mems[mem as usize].addr_mask as i64);
                let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, a, len);
                let zero = self.word(0);
                let safe = self.b.ins().select(inside, a, zero);
                let byte = self.b.ins().ishl_imm_s(safe, 3);
                let at = self.b.ins().iadd(base, byte);
                let x = self.b.ins().load(types::I64, fl, at, 0);
                let x = self.b.ins().select(inside, x, zero);
                self.set_d(ld, x);
                self.set_d(done, zero);
            }
            Fwd::MemStDone { done, reg } => {
                let v = self.reg_set(reg as usize);
                self.set_v(done, v);
                let z = self.word(0);
                self.set_d(done, z);
            }
            Fwd::Fork2 { inp, o0, o1, reg } => self.fork2_fwd(inp, o0, o1, reg as usize),
            Fwd::Sync2 {
                i0,
                i1,
                o0,
                o1,
                reg,
            } => self.sync2_fwd(i0, i1, o0, o1, reg as usize),
            Fwd::Pack { .. }
            | Fwd::Unpack { .. }
            | Fwd::LazyFork { .. }
            | Fwd::FBin { .. }
            | Fwd::FUn { .. }
            | Fwd::FMath { .. }
            | Fwd::FCmp { .. }
            | Fwd::FConv { .. }
            | Fwd::Wide { .. }
            | Fwd::DynBufOut { .. }
            | Fwd::DynMerge { .. }
            | Fwd::DynSelect { .. }
            | Fwd::DynMcOut { .. }
            | Fwd::DynLsqOut { .. }
            | Fwd::AqLoad { .. }
            | Fwd::AqStoreOut { .. }
            | Fwd::IslandOut { .. }
            | Fwd::DynCountOut { .. } => self.call(Helper::Fwd, idx),
        }
    }

    /// Backward instruction `idx` of [`Program::bwd_step`].
    pub fn bwd(&mut self, idx: usize) {
        let p = self.p;
        let instr = if self.all_lists {
            &p.bwd[idx]
        } else {
            &p.bwd_step[idx]
        };
        match *instr {
            Bwd::Join { ins, out } => {
                let f = self.fire(out);
                for &c in self.ports(ins) {
                    self.set_r(c, f);
                }
            }
            Bwd::Wire { inp, out } => {
                let r = self.r(out);
                self.set_r(inp, r);
            }
            Bwd::Sink { inp } => {
                let t = self.flag(true);
                self.set_r(inp, t);
            }
            Bwd::CondBr { cond, data, t, f } => {
                let (vc, vd) = (self.v(cond), self.v(data));
                let j = self.and(vc, vd);
                let dc = self.d(cond);
                let sel = self.bit0(dc);
                let (rt, rf) = (self.r(t), self.r(f));
                let rr = self.b.ins().select(sel, rt, rf);
                let x = self.and(j, rr);
                self.set_r(cond, x);
                self.set_r(data, x);
            }
            Bwd::Mux { sel, ins, out } => {
                if ins.len > MAX_INLINE_INPUTS {
                    return self.call(self.bwd_helper(), idx);
                }
                let f = self.fire(out);
                let ds = self.d(sel);
                let k = self
                    .b
                    .ins()
                    .band_imm_s(ds, mux_select_mask(ins.len as usize) as i64);
                for (j, &c) in self.ports(ins).iter().enumerate() {
                    let is = self.b.ins().icmp_imm_s(IntCC::Equal, k, j as i64);
                    let x = self.and(is, f);
                    self.set_r(c, x);
                }
                self.set_r(sel, f);
            }
            Bwd::Merge { ins, out } => {
                let f = self.fire(out);
                let mut found = self.flag(false);
                for &c in self.ports(ins) {
                    let vc = self.v(c);
                    let nf = self.not(found);
                    let win = self.and(nf, vc);
                    found = self.or(found, win);
                    let x = self.and(win, f);
                    self.set_r(c, x);
                }
            }
            Bwd::Cmerge {
                ins,
                out,
                idx: ix,
                reg,
            } => {
                if ins.len > MAX_INLINE_INPUTS {
                    return self.call(self.bwd_helper(), idx);
                }
                let r = reg as usize;
                let win = self.cmerge_win(ins, r);
                let (_, _, all) = self.cmerge_done(out, ix, r);
                for (k, &c) in self.ports(ins).iter().enumerate() {
                    let bit = self.b.ins().band_imm_s(win, 1 << k);
                    let is = self.nz(bit);
                    let x = self.and(all, is);
                    self.set_r(c, x);
                }
            }
            Bwd::Fork { inp, outs, reg } => {
                let r = reg as usize;
                let mut all = self.flag(true);
                for (k, &o) in self.ports(outs).iter().enumerate() {
                    let d = self.done(o, r + k);
                    all = self.and(all, d);
                }
                self.set_r(inp, all);
            }
            Bwd::Sync { ins, outs, reg } => {
                let j = self.all_valid(ins);
                let r = reg as usize;
                let mut all = j;
                for (k, &o) in self.ports(outs).iter().enumerate() {
                    let d = self.done(o, r + k);
                    all = self.and(all, d);
                }
                for &c in self.ports(ins) {
                    self.set_r(c, all);
                }
            }
            Bwd::BufIn { inp, reg } => {
                let r = reg as usize;
                let (a, b) = (self.reg_zero(r + VALID), self.reg_zero(r + SKID_VALID));
                let x = self.or(a, b);
                self.set_r(inp, x);
            }
            Bwd::Store {
                addr,
                data,
                ctrl,
                dout,
                aout,
            } => {
                let f = self.fire(dout);
                let ra = self.r(aout);
                let x = self.and(f, ra);
                self.set_r(addr, x);
                self.set_r(data, x);
                self.set_r(ctrl, x);
            }
            Bwd::MemSt {
                addr,
                data,
                done,
                reg,
            } => {
                let free = self.reg_zero(reg as usize);
                let rd = self.r(done);
                let x = self.or(free, rd);
                self.set_r(addr, x);
                self.set_r(data, x);
            }
            Bwd::Join2 { a, b, out } => {
                let f = self.fire(out);
                self.set_r(a, f);
                self.set_r(b, f);
            }
            Bwd::Fork2 { inp, o0, o1, reg } => {
                let all = self.fork2_all(o0, o1, reg as usize, false);
                self.set_r(inp, all);
            }
            Bwd::Fork2Clk { inp, o0, o1, reg } => {
                let all = self.fork2_all(o0, o1, reg as usize, true);
                self.set_r(inp, all);
            }
            Bwd::Sync2 {
                i0,
                i1,
                o0,
                o1,
                reg,
            } => self.sync2_bwd(i0, i1, o0, o1, reg as usize, false),
            Bwd::Sync2Clk {
                i0,
                i1,
                o0,
                o1,
                reg,
            } => self.sync2_bwd(i0, i1, o0, o1, reg as usize, true),
            Bwd::LazyFork { .. }
            | Bwd::PipeIn { .. }
            | Bwd::DynBufIn { .. }
            | Bwd::DynCountIn { .. }
            | Bwd::IslandIn { .. }
            | Bwd::DynPipeIn { .. }
            | Bwd::DynMerge { .. }
            | Bwd::DynSelect { .. }
            | Bwd::DynMcIn { .. }
            | Bwd::DynLsqIn { .. }
            | Bwd::AqStoreIn { .. } => self.call(self.bwd_helper(), idx),
        }
    }

    /// Clock instruction `idx` of [`Program::clk`].
    pub fn clk(&mut self, idx: usize) {
        let p = self.p;
        let instr = if self.all_lists {
            &p.activity.clk[idx].0
        } else {
            &p.clk[idx]
        };
        match *instr {
            Clk::Emit { outs, reg } => {
                let r = reg as usize;
                let os = self.ports(outs);
                let dones: Vec<Value> = os
                    .iter()
                    .enumerate()
                    .map(|(k, &o)| self.done(o, r + k))
                    .collect();
                let mut all = self.flag(true);
                for &d in &dones {
                    all = self.and(all, d);
                }
                let na = self.not(all);
                for (k, &d) in dones.iter().enumerate() {
                    let x = self.and(d, na);
                    let x = self.wide(x);
                    self.set_reg(r + k, x);
                }
            }
            Clk::Cmerge {
                ins,
                out,
                idx: ix,
                reg,
            } => {
                if ins.len > MAX_INLINE_INPUTS {
                    return self.call(self.clk_helper(), idx);
                }
                let r = reg as usize;
                let win = self.cmerge_win(ins, r);
                let (dr, di, all) = self.cmerge_done(out, ix, r);
                let zero = self.word(0);
                let w = self.b.ins().select(all, zero, win);
                let na = self.not(all);
                let (a, b) = (self.and(dr, na), self.and(di, na));
                let (a, b) = (self.wide(a), self.wide(b));
                self.set_reg(r + WON, w);
                self.set_reg(r + RESULT_EMITTED, a);
                self.set_reg(r + INDEX_EMITTED, b);
            }
            Clk::Buffer {
                inp,
                out,
                reg,
                slots,
            } => self.buffer_clock(inp, out, reg, slots),
            Clk::Pipe { .. }
            | Clk::MemSt { .. }
            | Clk::DynBuf { .. }
            | Clk::DynCount { .. }
            | Clk::Island { .. }
            | Clk::DynPipe { .. }
            | Clk::DynMerge { .. }
            | Clk::DynSelect { .. }
            | Clk::DynMc { .. }
            | Clk::DynLsq { .. }
            | Clk::Aq { .. } => self.call(self.clk_helper(), idx),
        }
    }
}
