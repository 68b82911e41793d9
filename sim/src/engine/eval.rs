//! Executes a [`Program`] on struct-of-arrays [`State`]: forward pass, backward pass, clock.

use super::program::{Bwd, Clk, Fwd, Program, Seg, Span, TypedOp, WideOp};
use super::{arith, float_arith, wide_arith};
use crate::spec::{cmerge_regs, mux_input, slot_regs, stage_regs};
use crate::types::width_mask;

mod addr_queue;
mod dynamatic;
mod island;
mod lsq;

// Register word offsets, from the components' state layouts (`crate::spec`).
pub(super) const WON: usize = cmerge_regs::WON as usize;
pub(super) const RESULT_EMITTED: usize = cmerge_regs::RESULT_EMITTED as usize;
pub(super) const INDEX_EMITTED: usize = cmerge_regs::INDEX_EMITTED as usize;
pub(super) const VALID: usize = slot_regs::VALID as usize;
pub(super) const DATA: usize = slot_regs::DATA as usize;
pub(super) const SKID_VALID: usize = slot_regs::SKID_VALID as usize;
pub(super) const SKID_DATA: usize = slot_regs::SKID_DATA as usize;
pub(super) const SLOT: usize = slot_regs::WORDS as usize;
const STAGE: usize = stage_regs::WORDS as usize;
pub(super) const STAGE_VALID: usize = stage_regs::VALID as usize;
pub(super) const STAGE_DATA: usize = stage_regs::DATA as usize;
// `slot_step` views a slot's words as `[valid, data, skid_valid, skid_data]`.
const _: () = assert!(VALID == 0 && DATA == 1 && SKID_VALID == 2 && SKID_DATA == 3 && SLOT == 4);

/// Unchecked element access for the hot loops.
///
/// Every index used by the evaluator comes from [`Program`], built by `compile` from the
/// same function as the [`State`] it runs on: channel indices are below `n_channels`,
/// register indices below `reg_init.len()`, port spans inside `ports`. `Simulation` never
/// pairs a program with a state of another program, so the accesses are in bounds; debug
/// builds check it.
trait At<T> {
    fn at(&self, i: usize) -> T;
    fn at_mut(&mut self, i: usize) -> &mut T;
}

impl<T: Copy> At<T> for [T] {
    #[inline(always)]
    fn at(&self, i: usize) -> T {
        debug_assert!(i < self.len());
        // SAFETY: see the trait documentation.
        unsafe { *self.get_unchecked(i) }
    }

    #[inline(always)]
    fn at_mut(&mut self, i: usize) -> &mut T {
        debug_assert!(i < self.len());
        // SAFETY: see the trait documentation.
        unsafe { self.get_unchecked_mut(i) }
    }
}

impl Program {
    /// The port indices of a span (unchecked, see [`At`]).
    #[inline(always)]
    pub(super) fn span(&self, sp: Span) -> &[u32] {
        debug_assert!((sp.start + sp.len) as usize <= self.ports.len());
        // SAFETY: spans are created by `compile` inside `ports`.
        unsafe {
            self.ports
                .get_unchecked(sp.start as usize..(sp.start + sp.len) as usize)
        }
    }
}

/// The mutable state of a running program.
#[derive(Clone, Debug)]
pub struct State {
    /// `valid` per channel.
    pub valid: Vec<bool>,
    /// `ready` per channel.
    pub ready: Vec<bool>,
    /// `data` per channel (masked to the channel width).
    pub data: Vec<u64>,
    /// Register words (see [`Program::reg_names`]).
    pub regs: Vec<u64>,
    /// Memory contents.
    pub mems: Vec<Vec<u64>>,
    /// Memory writes performed at the last clock edge: (memory, address, value).
    pub mem_writes: Vec<(u32, u64, u64)>,
    snap: Vec<(bool, u64)>,
    snap_all: (Vec<bool>, Vec<bool>, Vec<u64>),
}

impl State {
    /// Reset state for `p`: all registers 0 except buffer initial values; memories zero.
    pub fn new(p: &Program) -> Self {
        let mut st = State {
            valid: vec![false; p.n_channels],
            ready: vec![false; p.n_channels],
            data: vec![0; p.n_channels],
            regs: p.reg_init.clone(),
            mems: p.mems.iter().map(|m| vec![0; m.size as usize]).collect(),
            mem_writes: Vec::new(),
            snap: Vec::new(),
            snap_all: Default::default(),
        };
        init_signals(p, &mut st);
        st
    }

    /// The signal arrays as separate slices (so the hot loops keep their base pointers in
    /// registers), plus the fixed-point scratch buffers.
    #[allow(clippy::type_complexity)]
    pub(super) fn split(
        &mut self,
    ) -> (
        Sig<'_>,
        &mut Vec<(bool, u64)>,
        &mut (Vec<bool>, Vec<bool>, Vec<u64>),
    ) {
        (
            Sig {
                valid: &mut self.valid,
                ready: &mut self.ready,
                data: &mut self.data,
                regs: &mut self.regs,
                mems: &mut self.mems,
                mem_writes: &mut self.mem_writes,
            },
            &mut self.snap,
            &mut self.snap_all,
        )
    }
}

/// Borrowed view of a [`State`]'s arrays used by the evaluator.
pub(super) struct Sig<'a> {
    pub(super) valid: &'a mut [bool],
    pub(super) ready: &'a mut [bool],
    pub(super) data: &'a mut [u64],
    pub(super) regs: &'a mut [u64],
    pub(super) mems: &'a mut [Vec<u64>],
    pub(super) mem_writes: &'a mut Vec<(u32, u64, u64)>,
}

#[inline(always)]
fn all_valid(p: &Program, s: &Sig<'_>, sp: Span) -> bool {
    p.span(sp).iter().all(|&c| s.valid.at(c as usize))
}

/// Evaluates a [`WideOp`]: valid as the narrow instruction, data only when the inputs it
/// reads are valid.
#[cold]
fn wide_fwd(s: &mut Sig<'_>, op: &WideOp) {
    match *op {
        WideOp::Bin { op, a, b, out, w } => {
            wide_join2(s, a, b, out, |x, y| wide_arith::bin(op, x, y, w));
        }
        WideOp::Cmp { pred, a, b, out, w } => {
            wide_join2(s, a, b, out, |x, y| wide_arith::cmp(pred, x, y, w));
        }
        WideOp::Cast {
            kind,
            a,
            out,
            from,
            to,
        } => {
            let (a, o) = (a as usize, out as usize);
            let v = s.valid.at(a);
            *s.valid.at_mut(o) = v;
            if v {
                *s.data.at_mut(o) = wide_arith::cast(kind, s.data.at(a), from, to);
            }
        }
        WideOp::Pack { ref fields, out } => {
            let v = fields.iter().all(|&(c, _)| s.valid.at(c as usize));
            *s.valid.at_mut(out as usize) = v;
            if v {
                *s.data.at_mut(out as usize) =
                    crate::wide::concat(fields.iter().map(|&(c, w)| (s.data.at(c as usize), w)));
            }
        }
        WideOp::Unpack {
            inp,
            in_width,
            ref fields,
            reg,
        } => {
            let v = s.valid.at(inp as usize);
            let d = s.data.at(inp as usize);
            let r = reg as usize;
            for (k, &(o, shift, w)) in fields.iter().enumerate() {
                *s.valid.at_mut(o as usize) = v & (s.regs.at(r + k) == 0);
                if v {
                    *s.data.at_mut(o as usize) = crate::wide::extract(d, in_width, shift, w);
                }
            }
        }
    }
}

/// A two-input join whose data, `f` of the inputs' data, is computed only when both are valid.
fn wide_join2(s: &mut Sig<'_>, a: u32, b: u32, out: u32, f: impl FnOnce(u64, u64) -> u64) {
    let (a, b, o) = (a as usize, b as usize, out as usize);
    let v = s.valid.at(a) & s.valid.at(b);
    *s.valid.at_mut(o) = v;
    if v {
        *s.data.at_mut(o) = f(s.data.at(a), s.data.at(b));
    }
}

#[inline(always)]
pub(super) fn fwd_one(p: &Program, s: &mut Sig<'_>, i: &Fwd) {
    match *i {
        Fwd::Wide { op } => wide_fwd(s, &p.wide[op as usize]),
        Fwd::Bin { op, a, b, out, w } => {
            let (a, b, o) = (a as usize, b as usize, out as usize);
            *s.valid.at_mut(o) = s.valid.at(a) & s.valid.at(b);
            *s.data.at_mut(o) = arith::bin(op, s.data.at(a), s.data.at(b), u32::from(w));
        }
        Fwd::Cmp { pred, a, b, out, w } => {
            let (a, b, o) = (a as usize, b as usize, out as usize);
            *s.valid.at_mut(o) = s.valid.at(a) & s.valid.at(b);
            *s.data.at_mut(o) = arith::cmp(pred, s.data.at(a), s.data.at(b), u32::from(w));
        }
        Fwd::Select { c, t, f, out } => {
            let (c, t, f, o) = (c as usize, t as usize, f as usize, out as usize);
            *s.valid.at_mut(o) = s.valid.at(c) & s.valid.at(t) & s.valid.at(f);
            *s.data.at_mut(o) = if s.data.at(c) & 1 != 0 {
                s.data.at(t)
            } else {
                s.data.at(f)
            };
        }
        Fwd::Cast {
            kind,
            a,
            out,
            from,
            to,
        } => {
            let (a, o) = (a as usize, out as usize);
            *s.valid.at_mut(o) = s.valid.at(a);
            *s.data.at_mut(o) = arith::cast(kind, s.data.at(a), u32::from(from), u32::from(to));
        }
        Fwd::FBin {
            op,
            a,
            b,
            out,
            kind,
        } => {
            let (a, b, o) = (a as usize, b as usize, out as usize);
            *s.valid.at_mut(o) = s.valid.at(a) & s.valid.at(b);
            *s.data.at_mut(o) = float_arith::fbin(op, s.data.at(a), s.data.at(b), kind);
        }
        Fwd::FMath { f, a, b, out, kind } => {
            let (a, b, o) = (a as usize, b as usize, out as usize);
            *s.valid.at_mut(o) = s.valid.at(a) & s.valid.at(b);
            *s.data.at_mut(o) = float_arith::fmath(f, s.data.at(a), s.data.at(b), kind);
        }
        Fwd::FUn { op, a, out, kind } => {
            let (a, o) = (a as usize, out as usize);
            *s.valid.at_mut(o) = s.valid.at(a);
            *s.data.at_mut(o) = float_arith::fun(op, s.data.at(a), kind);
        }
        Fwd::FCmp {
            pred,
            a,
            b,
            out,
            kind,
        } => {
            let (a, b, o) = (a as usize, b as usize, out as usize);
            *s.valid.at_mut(o) = s.valid.at(a) & s.valid.at(b);
            *s.data.at_mut(o) = float_arith::fcmp(pred, s.data.at(a), s.data.at(b), kind);
        }
        Fwd::FConv {
            conv,
            a,
            out,
            from,
            to,
        } => {
            let (a, o) = (a as usize, out as usize);
            *s.valid.at_mut(o) = s.valid.at(a);
            *s.data.at_mut(o) =
                float_arith::fconv(conv, s.data.at(a), u32::from(from), u32::from(to));
        }
        Fwd::Join {
            ins,
            data_from,
            out,
        } => {
            let o = out as usize;
            *s.valid.at_mut(o) = all_valid(p, s, ins);
            *s.data.at_mut(o) = if data_from == u32::MAX {
                0
            } else {
                s.data.at(data_from as usize)
            };
        }
        Fwd::Pack { ins, out } => {
            let o = out as usize;
            *s.valid.at_mut(o) = all_valid(p, s, ins);
            let mut acc = 0u64;
            for &c in p.span(ins) {
                let w = u32::from(p.widths.at(c as usize));
                acc = if w >= 64 { 0 } else { acc << w };
                acc |= s.data.at(c as usize);
            }
            *s.data.at_mut(o) = acc;
        }
        Fwd::Wire { inp, out } => {
            *s.valid.at_mut(out as usize) = s.valid.at(inp as usize);
            *s.data.at_mut(out as usize) = s.data.at(inp as usize);
        }
        Fwd::CondBr { cond, data, t, f } => {
            let (c, d) = (cond as usize, data as usize);
            let j = s.valid.at(c) & s.valid.at(d);
            let sel = s.data.at(c) & 1 != 0;
            *s.valid.at_mut(t as usize) = j & sel;
            *s.valid.at_mut(f as usize) = j & !sel;
            *s.data.at_mut(t as usize) = s.data.at(d);
            *s.data.at_mut(f as usize) = s.data.at(d);
        }
        Fwd::Mux { sel, ins, out } => {
            let (sl, o) = (sel as usize, out as usize);
            if let Some(k) = mux_input(s.data.at(sl), ins.len as usize) {
                let c = p.ports.at(ins.start as usize + k) as usize;
                *s.valid.at_mut(o) = s.valid.at(sl) & s.valid.at(c);
                *s.data.at_mut(o) = s.data.at(c);
            } else {
                *s.valid.at_mut(o) = false;
                *s.data.at_mut(o) = 0;
            }
        }
        Fwd::Merge { ins, out } => {
            let o = out as usize;
            let mut v = false;
            let mut d = 0;
            for &c in p.span(ins) {
                if s.valid.at(c as usize) {
                    v = true;
                    d = s.data.at(c as usize);
                    break;
                }
            }
            *s.valid.at_mut(o) = v;
            *s.data.at_mut(o) = d;
        }
        Fwd::Cmerge { ins, out, idx, reg } => {
            let r = reg as usize;
            let win = cmerge_win(p, s, ins, r);
            let any = win != 0;
            *s.valid.at_mut(out as usize) = any & (s.regs.at(r + RESULT_EMITTED) == 0);
            *s.valid.at_mut(idx as usize) = any & (s.regs.at(r + INDEX_EMITTED) == 0);
            if any {
                let k = win.trailing_zeros() as usize;
                *s.data.at_mut(out as usize) =
                    s.data.at(p.ports.at(ins.start as usize + k) as usize);
                *s.data.at_mut(idx as usize) =
                    (k as u64) & width_mask(u32::from(p.widths.at(idx as usize)));
            } else {
                *s.data.at_mut(out as usize) = 0;
                *s.data.at_mut(idx as usize) = 0;
            }
        }
        Fwd::Fork { inp, outs, reg } => {
            let v = s.valid.at(inp as usize);
            let d = s.data.at(inp as usize);
            let r = reg as usize;
            for (k, &o) in p.span(outs).iter().enumerate() {
                *s.valid.at_mut(o as usize) = v & (s.regs.at(r + k) == 0);
                *s.data.at_mut(o as usize) = d;
            }
        }
        Fwd::Sync { ins, outs, reg } => {
            let j = all_valid(p, s, ins);
            let r = reg as usize;
            for k in 0..outs.len as usize {
                let o = p.ports.at(outs.start as usize + k) as usize;
                let i = p.ports.at(ins.start as usize + k) as usize;
                *s.valid.at_mut(o) = j & (s.regs.at(r + k) == 0);
                *s.data.at_mut(o) = s.data.at(i);
            }
        }
        Fwd::Unpack {
            inp,
            outs,
            shifts,
            reg,
        } => {
            let v = s.valid.at(inp as usize);
            let d = s.data.at(inp as usize);
            let r = reg as usize;
            for k in 0..outs.len as usize {
                let o = p.ports.at(outs.start as usize + k) as usize;
                let sh = p.ports.at(shifts.start as usize + k);
                *s.valid.at_mut(o) = v & (s.regs.at(r + k) == 0);
                let x = if sh >= 64 { 0 } else { d >> sh };
                *s.data.at_mut(o) = x & width_mask(u32::from(p.widths.at(o)));
            }
        }
        Fwd::LazyFork { inp, outs } => {
            let v = s.valid.at(inp as usize);
            let d = s.data.at(inp as usize);
            let os = p.span(outs);
            // Output k is offered when every *other* output is ready: count the outputs
            // that are not, once (per output it would be quadratic in the width).
            let not_ready = os.iter().filter(|&&x| !s.ready.at(x as usize)).count();
            for &o in os {
                let others = not_ready - usize::from(!s.ready.at(o as usize)) == 0;
                *s.valid.at_mut(o as usize) = v & others;
                *s.data.at_mut(o as usize) = d;
            }
        }
        Fwd::BufOut { out, reg } => {
            let r = reg as usize;
            let (v, d, sk, sd) = (
                s.regs.at(r + VALID),
                s.regs.at(r + DATA),
                s.regs.at(r + SKID_VALID),
                s.regs.at(r + SKID_DATA),
            );
            *s.valid.at_mut(out as usize) = (sk | v) != 0;
            *s.data.at_mut(out as usize) = if sk != 0 { sd } else { d };
        }
        Fwd::PipeOut { out, reg } => {
            let r = reg as usize;
            *s.valid.at_mut(out as usize) = s.regs.at(r + STAGE_VALID) != 0;
            *s.data.at_mut(out as usize) = s.regs.at(r + STAGE_DATA);
        }
        Fwd::Const { ctrl, out, value } => {
            *s.valid.at_mut(out as usize) = s.valid.at(ctrl as usize);
            *s.data.at_mut(out as usize) = value;
        }
        Fwd::Fixed { out, valid } => {
            *s.valid.at_mut(out as usize) = valid;
            *s.data.at_mut(out as usize) = 0;
        }
        Fwd::Store {
            addr,
            data,
            ctrl,
            dout,
            aout,
        } => {
            let v =
                s.valid.at(addr as usize) & s.valid.at(data as usize) & s.valid.at(ctrl as usize);
            *s.valid.at_mut(dout as usize) = v;
            *s.valid.at_mut(aout as usize) = v;
            *s.data.at_mut(dout as usize) = s.data.at(data as usize);
            *s.data.at_mut(aout as usize) = s.data.at(addr as usize);
        }
        Fwd::MemLd {
            addr,
            ld,
            done,
            reg,
            mem,
        } => {
            let r = reg as usize;
            let v = s.valid.at(addr as usize);
            *s.valid.at_mut(ld as usize) = v & (s.regs.at(r) == 0);
            *s.valid.at_mut(done as usize) = v & (s.regs.at(r + 1) == 0);
            let info = &p.mems[mem as usize];
            let a = s.data.at(addr as usize) & info.addr_mask;
            *s.data.at_mut(ld as usize) =
                s.mems[mem as usize].get(a as usize).copied().unwrap_or(0);
            *s.data.at_mut(done as usize) = 0;
        }
        Fwd::Fork2 { inp, o0, o1, reg } => {
            let v = s.valid.at(inp as usize);
            let d = s.data.at(inp as usize);
            let r = reg as usize;
            *s.valid.at_mut(o0 as usize) = v & (s.regs.at(r) == 0);
            *s.valid.at_mut(o1 as usize) = v & (s.regs.at(r + 1) == 0);
            *s.data.at_mut(o0 as usize) = d;
            *s.data.at_mut(o1 as usize) = d;
        }
        Fwd::Sync2 {
            i0,
            i1,
            o0,
            o1,
            reg,
        } => {
            let j = s.valid.at(i0 as usize) & s.valid.at(i1 as usize);
            let r = reg as usize;
            *s.valid.at_mut(o0 as usize) = j & (s.regs.at(r) == 0);
            *s.valid.at_mut(o1 as usize) = j & (s.regs.at(r + 1) == 0);
            *s.data.at_mut(o0 as usize) = s.data.at(i0 as usize);
            *s.data.at_mut(o1 as usize) = s.data.at(i1 as usize);
        }
        Fwd::MemStDone { done, reg } => {
            *s.valid.at_mut(done as usize) = s.regs.at(reg as usize) != 0;
            *s.data.at_mut(done as usize) = 0;
        }
        Fwd::DynBufOut {
            inp,
            out,
            reg,
            bypass,
        } => dynamatic::buf_out(s, inp, out, reg, bypass),
        Fwd::DynMerge { ins, out, idx, reg } => dynamatic::merge_out(p, s, ins, out, idx, reg),
        Fwd::DynSelect { c, t, f, out, reg } => dynamatic::select_out(s, c, t, f, out, reg),
        Fwd::DynMcOut { mc } => dynamatic::mc_out(p, s, mc),
        Fwd::DynCountOut { out, reg } => dynamatic::count_out(s, out, reg),
        Fwd::IslandOut { outs, reg } => island::island_out(p, s, outs, reg),
        Fwd::DynLsqOut { lsq } => lsq::lsq_out(p, s, lsq),
        Fwd::AqLoad { q, port } => addr_queue::load_fwd(p, s, q, port),
        Fwd::AqStoreOut { q } => addr_queue::store_out(p, s, q),
    }
}

/// Current `control_merge` winner as a one-hot mask (0 = none).
#[inline(always)]
fn cmerge_win(p: &Program, s: &Sig<'_>, ins: Span, r: usize) -> u64 {
    let won = s.regs.at(r + WON);
    if won != 0 {
        return won;
    }
    for (k, &c) in p.span(ins).iter().enumerate() {
        if s.valid.at(c as usize) {
            return 1 << k;
        }
    }
    0
}

/// Eager-fork `done` bits and `allDone` for outputs `outs` with emitted registers at `r`.
#[inline(always)]
fn fork_done(p: &Program, s: &Sig<'_>, outs: Span, r: usize) -> bool {
    let mut all = true;
    for (k, &o) in p.span(outs).iter().enumerate() {
        let o = o as usize;
        all &= (s.valid.at(o) & s.ready.at(o)) | (s.regs.at(r + k) != 0);
    }
    all
}

/// `done_0`, `done_1` and `allDone` of a two-output eager fork.
#[inline(always)]
fn fork2_done(s: &Sig<'_>, o0: u32, o1: u32, r: usize) -> (bool, bool, bool) {
    let (o0, o1) = (o0 as usize, o1 as usize);
    let d0 = (s.valid.at(o0) & s.ready.at(o0)) | (s.regs.at(r) != 0);
    let d1 = (s.valid.at(o1) & s.ready.at(o1)) | (s.regs.at(r + 1) != 0);
    (d0, d1, d0 & d1)
}

/// Clock edge of a two-output eager fork's `emitted` registers at `r`; returns `allDone`
/// (the input's ready), computed before the edge.
#[inline(always)]
fn fork2_edge(s: &mut Sig<'_>, o0: u32, o1: u32, r: usize) -> bool {
    let (d0, d1, all) = fork2_done(s, o0, o1, r);
    *s.regs.at_mut(r) = u64::from(d0 & !all);
    *s.regs.at_mut(r + 1) = u64::from(d1 & !all);
    all
}

#[inline(always)]
pub(super) fn bwd_one(p: &Program, s: &mut Sig<'_>, i: &Bwd) {
    match *i {
        Bwd::Join { ins, out } => {
            let r = s.valid.at(out as usize) & s.ready.at(out as usize);
            for &c in p.span(ins) {
                *s.ready.at_mut(c as usize) = r;
            }
        }
        Bwd::Wire { inp, out } => *s.ready.at_mut(inp as usize) = s.ready.at(out as usize),
        Bwd::Sink { inp } => *s.ready.at_mut(inp as usize) = true,
        Bwd::CondBr { cond, data, t, f } => {
            let j = s.valid.at(cond as usize) & s.valid.at(data as usize);
            let r = j & if s.data.at(cond as usize) & 1 != 0 {
                s.ready.at(t as usize)
            } else {
                s.ready.at(f as usize)
            };
            *s.ready.at_mut(cond as usize) = r;
            *s.ready.at_mut(data as usize) = r;
        }
        Bwd::Mux { sel, ins, out } => {
            let r = s.valid.at(out as usize) & s.ready.at(out as usize);
            for &c in p.span(ins) {
                *s.ready.at_mut(c as usize) = false;
            }
            if let Some(k) = mux_input(s.data.at(sel as usize), ins.len as usize) {
                *s.ready.at_mut(p.ports.at(ins.start as usize + k) as usize) = r;
            }
            *s.ready.at_mut(sel as usize) = r;
        }
        Bwd::Merge { ins, out } => {
            let r = s.valid.at(out as usize) & s.ready.at(out as usize);
            let mut found = false;
            for &c in p.span(ins) {
                let c = c as usize;
                let win = !found & s.valid.at(c);
                found |= win;
                *s.ready.at_mut(c) = win & r;
            }
        }
        Bwd::Cmerge { ins, out, idx, reg } => {
            let r = reg as usize;
            let win = cmerge_win(p, s, ins, r);
            let (o, x) = (out as usize, idx as usize);
            let done_r = (s.valid.at(o) & s.ready.at(o)) | (s.regs.at(r + RESULT_EMITTED) != 0);
            let done_i = (s.valid.at(x) & s.ready.at(x)) | (s.regs.at(r + INDEX_EMITTED) != 0);
            let all = done_r & done_i;
            for (k, &c) in p.span(ins).iter().enumerate() {
                *s.ready.at_mut(c as usize) = all & ((win >> k) & 1 != 0);
            }
        }
        Bwd::Join2 { a, b, out } => {
            let r = s.valid.at(out as usize) & s.ready.at(out as usize);
            *s.ready.at_mut(a as usize) = r;
            *s.ready.at_mut(b as usize) = r;
        }
        Bwd::Fork2 { inp, o0, o1, reg } => {
            *s.ready.at_mut(inp as usize) = fork2_done(s, o0, o1, reg as usize).2;
        }
        Bwd::Sync2 {
            i0,
            i1,
            o0,
            o1,
            reg,
        } => {
            let j = s.valid.at(i0 as usize) & s.valid.at(i1 as usize);
            let r = j & fork2_done(s, o0, o1, reg as usize).2;
            *s.ready.at_mut(i0 as usize) = r;
            *s.ready.at_mut(i1 as usize) = r;
        }
        Bwd::Fork2Clk { inp, o0, o1, reg } => {
            let r = reg as usize;
            let all = fork2_edge(s, o0, o1, r);
            *s.ready.at_mut(inp as usize) = all;
        }
        Bwd::Sync2Clk {
            i0,
            i1,
            o0,
            o1,
            reg,
        } => {
            let r = reg as usize;
            let j = s.valid.at(i0 as usize) & s.valid.at(i1 as usize);
            let all = fork2_edge(s, o0, o1, r);
            *s.ready.at_mut(i0 as usize) = j & all;
            *s.ready.at_mut(i1 as usize) = j & all;
        }
        Bwd::Fork { inp, outs, reg } => {
            *s.ready.at_mut(inp as usize) = fork_done(p, s, outs, reg as usize);
        }
        Bwd::Sync { ins, outs, reg } => {
            let j = all_valid(p, s, ins);
            let r = j & fork_done(p, s, outs, reg as usize);
            for &c in p.span(ins) {
                *s.ready.at_mut(c as usize) = r;
            }
        }
        Bwd::LazyFork { inp, outs } => {
            *s.ready.at_mut(inp as usize) = p.span(outs).iter().all(|&o| s.ready.at(o as usize));
        }
        Bwd::BufIn { inp, reg } => {
            let r = reg as usize;
            *s.ready.at_mut(inp as usize) =
                s.regs.at(r + VALID) == 0 || s.regs.at(r + SKID_VALID) == 0;
        }
        Bwd::PipeIn {
            inp,
            out,
            reg,
            latency,
            ii,
        } => {
            *s.ready.at_mut(inp as usize) = pipe_accepts(s, out, reg, latency, ii);
        }
        Bwd::Store {
            addr,
            data,
            ctrl,
            dout,
            aout,
        } => {
            let r =
                s.valid.at(dout as usize) & s.ready.at(dout as usize) & s.ready.at(aout as usize);
            *s.ready.at_mut(addr as usize) = r;
            *s.ready.at_mut(data as usize) = r;
            *s.ready.at_mut(ctrl as usize) = r;
        }
        Bwd::MemSt {
            addr,
            data,
            done,
            reg,
        } => {
            let wvb = s.regs.at(reg as usize) != 0;
            let r = !wvb | s.ready.at(done as usize);
            *s.ready.at_mut(addr as usize) = r;
            *s.ready.at_mut(data as usize) = r;
        }
        Bwd::DynBufIn {
            inp,
            out,
            reg,
            slots,
            through,
        } => dynamatic::buf_in(s, inp, out, reg, slots, through),
        Bwd::DynPipeIn { inp, out, last } => dynamatic::pipe_in(s, inp, out, last),
        Bwd::DynMerge { ins, reg } => dynamatic::merge_in(p, s, ins, reg),
        Bwd::DynSelect { c, t, f, out, reg } => dynamatic::select_in(s, c, t, f, out, reg),
        Bwd::DynMcIn { mc } => dynamatic::mc_in(p, s, mc),
        Bwd::DynCountIn { inp, out, reg } => dynamatic::count_in(s, inp, out, reg),
        Bwd::IslandIn { ins, reg } => island::island_in(p, s, ins, reg),
        Bwd::DynLsqIn { lsq } => lsq::lsq_in(p, s, lsq),
        Bwd::AqStoreIn { q } => addr_queue::store_in(p, s, q),
    }
}

/// One buffer slot's clock edge (registers `v, d, s, sd` at `r`, flags 0 or 1). Returns
/// the slot's output before the edge (the next slot's input), valid as 0 or 1.
///
/// The equations of `docs/semantics.md` (buffers): `in.ready = !(v & s)`; when ready, `v' = in.valid` and
/// `d' = in.data`; `s' = !out.ready & (s | v)`; `sd' = out.ready ? (s ? 0 : sd) : (s ? sd : d)`.
#[inline(always)]
pub(crate) fn slot_step(
    regs: &mut [u64],
    r: usize,
    in_v: u64,
    in_d: u64,
    out_r: u64,
) -> (u64, u64) {
    debug_assert!(r + SLOT <= regs.len());
    // SAFETY: a slot's four words lie inside the register file (see `At`).
    let w: &mut [u64; 4] = unsafe { &mut *regs.as_mut_ptr().add(r).cast::<[u64; 4]>() };
    let [v, d, sk, sd] = *w;
    let old = if sk != 0 { (1, sd) } else { (v, d) };
    if v & sk == 0 {
        w[0] = in_v;
        w[1] = in_d;
    }
    w[2] = (out_r ^ 1) & (sk | v);
    if out_r != 0 {
        if sk != 0 {
            w[3] = 0;
        }
    } else if sk == 0 {
        w[3] = d;
    }
    old
}

/// A pipeline's `in.ready` (`docs/semantics.md`, "Pipelined units"): its cooldown is over,
/// and some stage is empty or the last stage passes its token on (`out.ready`).
#[inline(always)]
fn pipe_accepts(s: &Sig<'_>, out: u32, reg: u32, latency: u32, ii: u32) -> bool {
    let base = reg as usize;
    let n = latency as usize;
    let cool = ii > 1 && s.regs.at(base + STAGE * n) != 0;
    !cool
        && (s.ready.at(out as usize)
            || (0..n).any(|k| s.regs.at(base + STAGE * k + STAGE_VALID) == 0))
}

/// A pipeline's clock edge: going from the output back, stage `k` takes stage `k-1`'s
/// contents (stage 0 takes the input's transfer) when it is free (empty, or its token moves
/// on); a stage that is not free holds. The cooldown restarts at `ii - 1` on a transfer in.
#[inline(always)]
fn pipe_step(s: &mut Sig<'_>, inp: u32, out: u32, reg: u32, latency: u32, ii: u32) {
    let base = reg as usize;
    let n = latency as usize;
    let taken = s.valid.at(inp as usize) & s.ready.at(inp as usize);
    let mut free_next = s.ready.at(out as usize);
    for k in (0..n).rev() {
        let r = base + STAGE * k;
        let free = s.regs.at(r + STAGE_VALID) == 0 || free_next;
        if free {
            let (v, d) = if k == 0 {
                (u64::from(taken), s.data.at(inp as usize))
            } else {
                (
                    s.regs.at(r - STAGE + STAGE_VALID),
                    s.regs.at(r - STAGE + STAGE_DATA),
                )
            };
            *s.regs.at_mut(r + STAGE_VALID) = v;
            // An empty stage keeps its old data word (as the SystemVerilog model does).
            if v != 0 {
                *s.regs.at_mut(r + STAGE_DATA) = d;
            }
        }
        free_next = free;
    }
    if ii > 1 {
        let c = base + STAGE * n;
        let cool = s.regs.at(c);
        *s.regs.at_mut(c) = if taken {
            u64::from(ii - 1)
        } else {
            cool.saturating_sub(1)
        };
    }
}

/// Clock edges before a pipeline's output can change, when no token enters it: its tokens
/// only move on while its last stage is empty, one stage per edge, and `in.ready` stays
/// what it is while its cooldown is over. `None` when its last stage holds a token or it
/// is cooling down (anything may change); `Some(u64::MAX)` when it holds no token.
pub(super) fn pipe_quiet_edges(regs: &[u64], reg: u32, latency: u32, ii: u32) -> Option<u64> {
    let (base, n) = (reg as usize, latency as usize);
    if ii > 1 && regs[base + STAGE * n] != 0 {
        return None;
    }
    let last = (0..n)
        .rev()
        .find(|&k| regs[base + STAGE * k + STAGE_VALID] != 0);
    match last {
        None => Some(u64::MAX),
        Some(k) if k + 1 == n => None,
        Some(k) => Some((n - 1 - k) as u64),
    }
}

/// `k` clock edges of a pipeline at once, when [`pipe_quiet_edges`] allows at least `k`
/// and no token enters: each edge moves every token one stage on, stage 0 empties, and an
/// empty stage keeps its data word (so a stage's word is that of the last token that passed
/// through it). Same registers as `k` calls of the clock instruction.
pub(super) fn pipe_shift(regs: &mut [u64], reg: u32, latency: u32, k: u64, scratch: &mut Vec<u64>) {
    let (base, n) = (reg as usize, latency as usize);
    let k = k.min(n as u64) as usize;
    if k == 0 {
        return;
    }
    scratch.clear();
    scratch.extend_from_slice(&regs[base..base + STAGE * n]);
    let old = |i: usize, f: usize| scratch[STAGE * i + f];
    for j in 0..n {
        let valid = if j >= k { old(j - k, STAGE_VALID) } else { 0 };
        regs[base + STAGE * j + STAGE_VALID] = valid;
        // The last token to pass into stage j came from the lowest valid stage among
        // j-k..j-1 (it arrived last).
        let from = j.saturating_sub(k);
        if let Some(i) = (from..j).find(|&i| old(i, STAGE_VALID) != 0) {
            regs[base + STAGE * j + STAGE_DATA] = old(i, STAGE_DATA);
        }
    }
}

/// `in.ready` of a buffer slot at `r` as 0 or 1.
#[inline(always)]
pub(crate) fn slot_ready(regs: &[u64], r: usize) -> u64 {
    (regs.at(r + VALID) & regs.at(r + SKID_VALID) & 1) ^ 1
}

/// Drives a buffer's `out.valid/data` and `in.ready` from its registers.
#[inline(always)]
pub(super) fn buffer_outputs(s: &mut Sig<'_>, inp: u32, out: u32, reg: u32, slots: u32) {
    let first = reg as usize;
    let last = first + SLOT * (slots as usize - 1);
    let (v, d, sk, sd) = (
        s.regs.at(last + VALID),
        s.regs.at(last + DATA),
        s.regs.at(last + SKID_VALID),
        s.regs.at(last + SKID_DATA),
    );
    *s.valid.at_mut(out as usize) = (v | sk) != 0;
    *s.data.at_mut(out as usize) = if sk != 0 { sd } else { d };
    *s.ready.at_mut(inp as usize) =
        s.regs.at(first + VALID) == 0 || s.regs.at(first + SKID_VALID) == 0;
}

#[inline(always)]
pub(super) fn clk_one(p: &Program, s: &mut Sig<'_>, i: &Clk) {
    match *i {
        Clk::Emit { outs, reg } => {
            let r = reg as usize;
            let all = fork_done(p, s, outs, r);
            for (k, &o) in p.span(outs).iter().enumerate() {
                let o = o as usize;
                let done = (s.valid.at(o) & s.ready.at(o)) | (s.regs.at(r + k) != 0);
                *s.regs.at_mut(r + k) = u64::from(done & !all);
            }
        }
        Clk::Cmerge { ins, out, idx, reg } => {
            let r = reg as usize;
            let win = cmerge_win(p, s, ins, r);
            let (o, x) = (out as usize, idx as usize);
            let done_r = (s.valid.at(o) & s.ready.at(o)) | (s.regs.at(r + RESULT_EMITTED) != 0);
            let done_i = (s.valid.at(x) & s.ready.at(x)) | (s.regs.at(r + INDEX_EMITTED) != 0);
            let all = done_r & done_i;
            *s.regs.at_mut(r + WON) = if all { 0 } else { win };
            *s.regs.at_mut(r + RESULT_EMITTED) = u64::from(done_r & !all);
            *s.regs.at_mut(r + INDEX_EMITTED) = u64::from(done_i & !all);
        }
        Clk::Buffer {
            inp,
            out,
            reg,
            slots,
        } => {
            let base = reg as usize;
            let n = slots as usize;
            // Old output of the previous slot (slot -1 = the buffer input).
            let in_v = u64::from(s.valid.at(inp as usize));
            let in_d = s.data.at(inp as usize);
            let out_r = u64::from(s.ready.at(out as usize));
            match n {
                1 => {
                    slot_step(s.regs, base, in_v, in_d, out_r);
                }
                2 => {
                    let mid_r = slot_ready(s.regs, base + SLOT);
                    let (v, d) = slot_step(s.regs, base, in_v, in_d, mid_r);
                    slot_step(s.regs, base + SLOT, v, d, out_r);
                }
                _ => {
                    let (mut v, mut d) = (in_v, in_d);
                    for k in 0..n {
                        let r = base + SLOT * k;
                        let o = if k + 1 == n {
                            out_r
                        } else {
                            slot_ready(s.regs, r + SLOT)
                        };
                        (v, d) = slot_step(s.regs, r, v, d, o);
                    }
                }
            }
        }
        Clk::Pipe {
            inp,
            out,
            reg,
            latency,
            ii,
        } => pipe_step(s, inp, out, reg, latency, ii),
        Clk::MemSt {
            addr,
            data,
            done,
            reg,
            mem,
        } => {
            let r = reg as usize;
            let wvb = s.regs.at(r) != 0;
            let eoc = !wvb | s.ready.at(done as usize);
            let wv = s.valid.at(addr as usize) & s.valid.at(data as usize);
            if wv {
                let a = s.data.at(addr as usize) & p.mems[mem as usize].addr_mask;
                let d = s.data.at(data as usize);
                if let Some(slot) = s.mems[mem as usize].get_mut(a as usize) {
                    *slot = d;
                    s.mem_writes.push((mem, a, d));
                }
            }
            *s.regs.at_mut(r) = u64::from(if eoc { wv } else { wvb });
        }
        Clk::DynBuf {
            inp,
            out,
            reg,
            slots,
            bypass,
        } => dynamatic::buf_clk(s, inp, out, reg, slots, bypass),
        Clk::DynPipe {
            inp,
            out,
            reg,
            latency,
        } => dynamatic::pipe_clk(s, inp, out, reg, latency),
        Clk::DynCount {
            inp,
            out,
            reg,
            latency,
        } => dynamatic::count_clk(s, inp, out, reg, latency),
        Clk::DynMerge { ins, out, idx, reg } => dynamatic::merge_clk(p, s, ins, out, idx, reg),
        Clk::DynSelect { c, t, f, out, reg } => dynamatic::select_clk(s, c, t, f, out, reg),
        Clk::DynMc { mc } => dynamatic::mc_clk(p, s, mc),
        Clk::DynLsq { lsq } => lsq::lsq_clk(p, s, lsq),
        Clk::Aq { q } => addr_queue::clk(p, s, q),
        Clk::Island {
            ins,
            outs,
            reg,
            island,
        } => island::island_clk(p, s, ins, outs, reg, island),
    }
}

/// Runs segments of one pass. Returns the node of a combinational cycle that did not settle.
/// One pass's instruction type, executed with a statically dispatched, inlined body.
trait Exec {
    fn exec(p: &Program, s: &mut Sig<'_>, i: &Self);
}

impl Exec for Fwd {
    #[inline(always)]
    fn exec(p: &Program, s: &mut Sig<'_>, i: &Self) {
        fwd_one(p, s, i)
    }
}

impl Exec for Bwd {
    #[inline(always)]
    fn exec(p: &Program, s: &mut Sig<'_>, i: &Self) {
        bwd_one(p, s, i)
    }
}

/// Runs typed instructions (see [`TypedOp`]), one tight loop per shape.
#[inline(always)]
fn run_typed(s: &mut Sig<'_>, op: TypedOp, args: &[[u32; 5]]) {
    match op {
        TypedOp::Fork2Fwd => {
            for &[inp, o0, o1, reg, _] in args {
                let v = s.valid.at(inp as usize);
                let d = s.data.at(inp as usize);
                let r = reg as usize;
                *s.valid.at_mut(o0 as usize) = v & (s.regs.at(r) == 0);
                *s.valid.at_mut(o1 as usize) = v & (s.regs.at(r + 1) == 0);
                *s.data.at_mut(o0 as usize) = d;
                *s.data.at_mut(o1 as usize) = d;
            }
        }
        TypedOp::Sync2Fwd => {
            for &[i0, i1, o0, o1, reg] in args {
                let j = s.valid.at(i0 as usize) & s.valid.at(i1 as usize);
                let r = reg as usize;
                *s.valid.at_mut(o0 as usize) = j & (s.regs.at(r) == 0);
                *s.valid.at_mut(o1 as usize) = j & (s.regs.at(r + 1) == 0);
                *s.data.at_mut(o0 as usize) = s.data.at(i0 as usize);
                *s.data.at_mut(o1 as usize) = s.data.at(i1 as usize);
            }
        }
        TypedOp::Fork2Bwd => {
            for &[inp, o0, o1, reg, _] in args {
                *s.ready.at_mut(inp as usize) = fork2_done(s, o0, o1, reg as usize).2;
            }
        }
        TypedOp::Sync2Bwd => {
            for &[i0, i1, o0, o1, reg] in args {
                let j = s.valid.at(i0 as usize) & s.valid.at(i1 as usize);
                let r = j & fork2_done(s, o0, o1, reg as usize).2;
                *s.ready.at_mut(i0 as usize) = r;
                *s.ready.at_mut(i1 as usize) = r;
            }
        }
        TypedOp::Fork2Clk => {
            for &[inp, o0, o1, reg, _] in args {
                let r = reg as usize;
                let all = fork2_edge(s, o0, o1, r);
                *s.ready.at_mut(inp as usize) = all;
            }
        }
        TypedOp::Sync2Clk => {
            for &[i0, i1, o0, o1, reg] in args {
                let r = reg as usize;
                let j = s.valid.at(i0 as usize) & s.valid.at(i1 as usize);
                let all = fork2_edge(s, o0, o1, r);
                *s.ready.at_mut(i0 as usize) = j & all;
                *s.ready.at_mut(i1 as usize) = j & all;
            }
        }
        TypedOp::Join2Bwd => {
            for &[a, b, out, _, _] in args {
                let r = s.valid.at(out as usize) & s.ready.at(out as usize);
                *s.ready.at_mut(a as usize) = r;
                *s.ready.at_mut(b as usize) = r;
            }
        }
    }
}

fn run_segs<I: Exec>(
    p: &Program,
    s: &mut Sig<'_>,
    snap_buf: &mut Vec<(bool, u64)>,
    segs: &[Seg],
    instrs: &[I],
    forward: bool,
) -> Option<u32> {
    let mut failed = None;
    for seg in segs {
        match *seg {
            Seg::Straight(a, b) => {
                for i in &instrs[a as usize..b as usize] {
                    I::exec(p, s, i);
                }
            }
            Seg::Typed { op, start, end } => {
                debug_assert!(end as usize <= p.typed.len());
                // SAFETY: typed segments are built inside `typed` (see `At`).
                let args = unsafe { p.typed.get_unchecked(start as usize..end as usize) };
                run_typed(s, op, args);
            }
            Seg::Loop {
                start,
                end,
                chans,
                node,
            } => {
                // Least fixed point: start from "not valid" / "not ready".
                for &c in p.span(chans) {
                    if forward {
                        *s.valid.at_mut(c as usize) = false;
                    } else {
                        *s.ready.at_mut(c as usize) = false;
                    }
                }
                let limit = 2 * (end - start) as usize + 4;
                let mut settled = false;
                for _ in 0..limit {
                    let mut snap = std::mem::take(snap_buf);
                    snap.clear();
                    snap.extend(p.span(chans).iter().map(|&c| {
                        let c = c as usize;
                        if forward {
                            (s.valid.at(c), s.data.at(c))
                        } else {
                            (s.ready.at(c), 0)
                        }
                    }));
                    for i in &instrs[start as usize..end as usize] {
                        I::exec(p, s, i);
                    }
                    let same = p.span(chans).iter().zip(&snap).all(|(&c, &old)| {
                        let c = c as usize;
                        let now = if forward {
                            (s.valid.at(c), s.data.at(c))
                        } else {
                            (s.ready.at(c), 0)
                        };
                        now == old
                    });
                    *snap_buf = snap;
                    if same {
                        settled = true;
                        break;
                    }
                }
                if !settled {
                    failed = Some(node);
                }
            }
        }
    }
    failed
}

impl<'a> Sig<'a> {
    /// A view of raw state arrays, for the compiled engine's calls into the interpreter
    /// (`super::jit`).
    ///
    /// # Safety
    /// The pointers are those of one live [`State`] (`valid`, `ready` and `data` of
    /// `n_channels` elements, `regs` of `n_regs`, its `mems` and `mem_writes`), nothing else
    /// accesses that state while the view is used, and the view is dropped before the state
    /// is used again through another path.
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn from_raw(
        valid: *mut bool,
        ready: *mut bool,
        data: *mut u64,
        n_channels: usize,
        regs: *mut u64,
        n_regs: usize,
        mems: *mut Vec<Vec<u64>>,
        mem_writes: *mut Vec<(u32, u64, u64)>,
    ) -> Sig<'a> {
        // SAFETY: the caller's contract.
        unsafe {
            Sig {
                valid: std::slice::from_raw_parts_mut(valid, n_channels),
                ready: std::slice::from_raw_parts_mut(ready, n_channels),
                data: std::slice::from_raw_parts_mut(data, n_channels),
                regs: std::slice::from_raw_parts_mut(regs, n_regs),
                mems: (*mems).as_mut_slice(),
                mem_writes: &mut *mem_writes,
            }
        }
    }
}

/// Runs one combinational-cycle segment of the forward pass (`forward`) or of
/// [`Program::bwd_step_segs`] to its fixed point, as [`settle_step`] does. Returns the node
/// of the cycle when it did not settle.
pub(super) fn run_loop_seg(p: &Program, st: &mut State, seg: usize, forward: bool) -> Option<u32> {
    let (mut sig, snap, _) = st.split();
    if forward {
        run_segs(p, &mut sig, snap, &p.fwd_segs[seg..=seg], &p.fwd, true)
    } else {
        run_segs(
            p,
            &mut sig,
            snap,
            &p.bwd_step_segs[seg..=seg],
            &p.bwd_step,
            false,
        )
    }
}

/// Settles all combinational signals of the current cycle. Returns the node of a
/// combinational cycle that did not converge, if any. Registers are not touched.
pub fn settle(p: &Program, st: &mut State) -> Option<u32> {
    settle_with(p, st, &p.bwd, &p.bwd_segs)
}

/// [`settle`] for a step: also applies the clock edge of the registers that
/// [`Program::bwd_step`] updates; finish the cycle with [`clock_step`].
pub fn settle_step(p: &Program, st: &mut State) -> Option<u32> {
    if p.global_iterate {
        settle_with(p, st, &p.bwd, &p.bwd_segs)
    } else {
        settle_with(p, st, &p.bwd_step, &p.bwd_step_segs)
    }
}

fn settle_with(p: &Program, st: &mut State, bwd: &[Bwd], bwd_segs: &[Seg]) -> Option<u32> {
    let (mut sig, snap, snap_all) = st.split();
    let s = &mut sig;
    all_buffer_outputs(p, s);
    if !p.global_iterate {
        let a = run_segs(p, s, snap, &p.fwd_segs, &p.fwd, true);
        let b = run_segs(p, s, snap, bwd_segs, bwd, false);
        return a.or(b);
    }
    // Lazy forks: valid depends on ready. Iterate both passes from "nothing ready".
    let results: Vec<(u32, bool)> = p
        .results
        .iter()
        .map(|&c| (c, s.ready.at(c as usize)))
        .collect();
    s.ready.iter_mut().for_each(|r| *r = false);
    for &(c, r) in &results {
        *s.ready.at_mut(c as usize) = r;
    }
    let limit = 2 * (p.fwd.len() + p.bwd.len()) + 4;
    let mut failed = None;
    for _ in 0..limit {
        let (mut v, mut r, mut d) = std::mem::take(snap_all);
        v.clear();
        v.extend_from_slice(s.valid);
        r.clear();
        r.extend_from_slice(s.ready);
        d.clear();
        d.extend_from_slice(s.data);
        let a = run_segs(p, s, snap, &p.fwd_segs, &p.fwd, true);
        let b = run_segs(p, s, snap, &p.bwd_segs, &p.bwd, false);
        failed = a.or(b);
        let same = v[..] == *s.valid && r[..] == *s.ready && d[..] == *s.data;
        *snap_all = (v, r, d);
        if same {
            return failed;
        }
    }
    Some(failed.unwrap_or(u32::MAX))
}

/// Applies the clock edge after [`settle`]: every register and memory takes its next value.
pub fn clock(p: &Program, st: &mut State) {
    clock_with(p, st, &p.clk_emit2);
}

/// Applies the rest of the clock edge after [`settle_step`].
pub fn clock_step(p: &Program, st: &mut State) {
    if p.global_iterate {
        clock_with(p, st, &p.clk_emit2);
    } else {
        clock_with(p, st, &p.clk_emit2_rest);
    }
}

fn clock_with(p: &Program, st: &mut State, emit2: &[(u32, u32, u32)]) {
    let (mut sig, _, _) = st.split();
    let s = &mut sig;
    s.mem_writes.clear();
    clock_lists(p, s, emit2);
    for i in &p.clk {
        clk_one(p, s, i);
    }
}

/// Buffer outputs (`out.valid/data`, `in.ready`) depend only on registers: one combined step
/// per buffer drives them before the passes.
pub(super) fn all_buffer_outputs(p: &Program, s: &mut Sig<'_>) {
    for &(inp, out, reg, slots) in &p.buffers {
        buffer_outputs(s, inp, out, reg, slots);
    }
}

/// Runs one [`Seg::Typed`] segment.
pub(super) fn run_typed_seg(p: &Program, s: &mut Sig<'_>, seg: &Seg) {
    if let Seg::Typed { op, start, end } = *seg {
        run_typed(s, op, &p.typed[start as usize..end as usize]);
    }
}

/// The clock edges of the typed lists: two-output forks in `emit2`, one- and two-slot
/// buffers.
pub(super) fn clock_lists(p: &Program, s: &mut Sig<'_>, emit2: &[(u32, u32, u32)]) {
    for &(o0, o1, reg) in emit2 {
        let r = reg as usize;
        fork2_edge(s, o0, o1, r);
    }
    for &(inp, out, reg) in &p.clk_buf1 {
        let r = reg as usize;
        let in_v = u64::from(s.valid.at(inp as usize));
        let in_d = s.data.at(inp as usize);
        let out_r = u64::from(s.ready.at(out as usize));
        slot_step(s.regs, r, in_v, in_d, out_r);
    }
    for &(inp, out, reg) in &p.clk_buf2 {
        let r = reg as usize;
        let in_v = u64::from(s.valid.at(inp as usize));
        let in_d = s.data.at(inp as usize);
        let out_r = u64::from(s.ready.at(out as usize));
        let mid_r = slot_ready(s.regs, r + SLOT);
        let (v, d) = slot_step(s.regs, r, in_v, in_d, mid_r);
        slot_step(s.regs, r + SLOT, v, d, out_r);
    }
}

/// Drives the signals that never change (`source`, `never`, `sink`).
fn init_signals(p: &Program, st: &mut State) {
    let (mut sig, _, _) = st.split();
    let s = &mut sig;
    for i in &p.static_fwd {
        fwd_one(p, s, i);
    }
    for i in &p.static_bwd {
        bwd_one(p, s, i);
    }
}
