//! Dynamatic's components (`docs/semantics.md` "Dynamatic's components"): its buffers (a FIFO
//! with or without a bypass), its stalling multi-cycle pipelines and its `control_merge`.

use super::{At, STAGE, STAGE_DATA, STAGE_VALID, Sig};
use crate::engine::program::{DynMcInfo, Program, Span};
use crate::spec::{fifo_regs, mc_regs, skid_merge_regs};
use crate::types::width_mask;

const COUNT: usize = fifo_regs::COUNT as usize;
const HEAD: usize = fifo_regs::HEAD as usize;
const ENTRIES: usize = fifo_regs::ENTRIES as usize;
const FULL: usize = skid_merge_regs::FULL as usize;
const INDEX: usize = skid_merge_regs::INDEX as usize;
const HELD: usize = skid_merge_regs::DATA as usize;
const EMITTED: usize = skid_merge_regs::EMITTED as usize;

/// A buffer's output: the FIFO's head when it holds a token, else (with a bypass) the input.
#[inline(always)]
pub(super) fn buf_out(s: &mut Sig<'_>, inp: u32, out: u32, reg: u32, bypass: bool) {
    let r = reg as usize;
    let (v, d) = if s.regs.at(r + COUNT) != 0 {
        (true, s.regs.at(r + ENTRIES + s.regs.at(r + HEAD) as usize))
    } else if bypass {
        (s.valid.at(inp as usize), s.data.at(inp as usize))
    } else {
        (false, 0)
    };
    *s.valid.at_mut(out as usize) = v;
    *s.data.at_mut(out as usize) = d;
}

/// A buffer's `in.ready`: not full, or (ready-through kinds) its head leaves now.
#[inline(always)]
pub(super) fn buf_in(s: &mut Sig<'_>, inp: u32, out: u32, reg: u32, slots: u32, through: bool) {
    let full = s.regs.at(reg as usize + COUNT) >= u64::from(slots);
    *s.ready.at_mut(inp as usize) = !full || (through && s.ready.at(out as usize));
}

/// A buffer's clock edge: the head leaves when taken; the input's token enters the FIFO
/// when taken and not passed straight through (a bypass passes it while the FIFO is empty
/// and the output is ready).
#[inline(always)]
pub(super) fn buf_clk(s: &mut Sig<'_>, inp: u32, out: u32, reg: u32, slots: u32, bypass: bool) {
    let r = reg as usize;
    let n = u64::from(slots);
    let (count, head) = (s.regs.at(r + COUNT), s.regs.at(r + HEAD));
    let out_r = s.ready.at(out as usize);
    let leave = count != 0 && out_r;
    let taken = s.valid.at(inp as usize) & s.ready.at(inp as usize);
    let enter = taken && !(bypass && count == 0 && out_r);
    if enter {
        let tail = (head + count) % n;
        *s.regs.at_mut(r + ENTRIES + tail as usize) = s.data.at(inp as usize);
    }
    *s.regs.at_mut(r + COUNT) = count + u64::from(enter) - u64::from(leave);
    if leave {
        *s.regs.at_mut(r + HEAD) = (head + 1) % n;
    }
}

/// A `COUNTER_BUFFER`'s output: its token (`ENTRIES`) once it holds one (`COUNT`) and the
/// wait (`HEAD`, the cycles still to count) is over.
#[inline(always)]
pub(super) fn count_out(s: &mut Sig<'_>, out: u32, reg: u32) {
    let r = reg as usize;
    let done = s.regs.at(r + COUNT) != 0 && s.regs.at(r + HEAD) == 0;
    *s.valid.at_mut(out as usize) = done;
    *s.data.at_mut(out as usize) = if done { s.regs.at(r + ENTRIES) } else { 0 };
}

/// A `COUNTER_BUFFER`'s `in.ready`: empty, or its token leaves now.
#[inline(always)]
pub(super) fn count_in(s: &mut Sig<'_>, inp: u32, out: u32, reg: u32) {
    let r = reg as usize;
    let busy = s.regs.at(r + COUNT) != 0;
    let done = busy && s.regs.at(r + HEAD) == 0;
    *s.ready.at_mut(inp as usize) = !busy || (done && s.ready.at(out as usize));
}

/// A `COUNTER_BUFFER`'s clock edge: a taken token is held for `latency - 1` more cycles;
/// else the token leaves when taken, or the wait counts down.
#[inline(always)]
pub(super) fn count_clk(s: &mut Sig<'_>, inp: u32, out: u32, reg: u32, latency: u32) {
    let r = reg as usize;
    let (busy, wait) = (s.regs.at(r + COUNT) != 0, s.regs.at(r + HEAD));
    let taken = s.valid.at(inp as usize) & s.ready.at(inp as usize);
    let leave = busy && wait == 0 && s.ready.at(out as usize);
    if taken {
        *s.regs.at_mut(r + COUNT) = 1;
        *s.regs.at_mut(r + HEAD) = u64::from(latency.saturating_sub(1));
        *s.regs.at_mut(r + ENTRIES) = s.data.at(inp as usize);
    } else if leave {
        *s.regs.at_mut(r + COUNT) = 0;
    } else if busy && wait > 0 {
        *s.regs.at_mut(r + HEAD) = wait - 1;
    }
}

/// A stalling pipeline's `in.ready`: its last stage (at `last`) is empty or taken.
#[inline(always)]
pub(super) fn pipe_in(s: &mut Sig<'_>, inp: u32, out: u32, last: u32) {
    *s.ready.at_mut(inp as usize) =
        s.regs.at(last as usize + STAGE_VALID) == 0 || s.ready.at(out as usize);
}

/// A stalling pipeline's clock edge: while the last stage is empty or taken, every stage
/// takes the one before it (stage 0 the input's transfer, or a bubble); otherwise nothing
/// moves.
#[inline(always)]
pub(super) fn pipe_clk(s: &mut Sig<'_>, inp: u32, out: u32, reg: u32, latency: u32) {
    let base = reg as usize;
    let n = latency as usize;
    let last = base + STAGE * (n - 1);
    if s.regs.at(last + STAGE_VALID) != 0 && !s.ready.at(out as usize) {
        return;
    }
    for k in (1..n).rev() {
        let r = base + STAGE * k;
        let v = s.regs.at(r - STAGE + STAGE_VALID);
        *s.regs.at_mut(r + STAGE_VALID) = v;
        if v != 0 {
            *s.regs.at_mut(r + STAGE_DATA) = s.regs.at(r - STAGE + STAGE_DATA);
        }
    }
    let taken = s.valid.at(inp as usize) & s.ready.at(inp as usize);
    *s.regs.at_mut(base + STAGE_VALID) = u64::from(taken);
    if taken {
        *s.regs.at_mut(base + STAGE_DATA) = s.data.at(inp as usize);
    }
}

/// The lowest-indexed valid input of a `control_merge`, if any.
#[inline(always)]
fn winner(p: &Program, s: &Sig<'_>, ins: Span) -> Option<usize> {
    p.span(ins).iter().position(|&c| s.valid.at(c as usize))
}

/// The token a `control_merge` offers: the skid register's, else the priority winner's
/// (valid, index, data).
#[inline(always)]
fn offered(p: &Program, s: &Sig<'_>, ins: Span, r: usize) -> (bool, u64, u64) {
    if s.regs.at(r + FULL) != 0 {
        return (true, s.regs.at(r + INDEX), s.regs.at(r + HELD));
    }
    match winner(p, s, ins) {
        Some(k) => (true, k as u64, s.data.at(p.span(ins)[k] as usize)),
        None => (false, 0, 0),
    }
}

/// A `control_merge`'s outputs: the offered token on `out` and its index on `idx`, each
/// until its fork flag is set.
#[inline(always)]
pub(super) fn merge_out(p: &Program, s: &mut Sig<'_>, ins: Span, out: u32, idx: u32, reg: u32) {
    let r = reg as usize;
    let (v, k, d) = offered(p, s, ins, r);
    *s.valid.at_mut(out as usize) = v & (s.regs.at(r + EMITTED) == 0);
    *s.valid.at_mut(idx as usize) = v & (s.regs.at(r + EMITTED + 1) == 0);
    *s.data.at_mut(out as usize) = d;
    *s.data.at_mut(idx as usize) = k & width_mask(u32::from(p.widths.at(idx as usize)));
}

/// A `control_merge`'s input readies: the priority winner's while the skid register is empty.
#[inline(always)]
pub(super) fn merge_in(p: &Program, s: &mut Sig<'_>, ins: Span, reg: u32) {
    let empty = s.regs.at(reg as usize + FULL) == 0;
    let win = if empty { winner(p, s, ins) } else { None };
    for (k, &c) in p.span(ins).iter().enumerate() {
        *s.ready.at_mut(c as usize) = win == Some(k);
    }
}

/// A `control_merge`'s clock edge: the fork's flags as an eager fork's, then the skid
/// register keeps the offered token while the fork has not sent it to both outputs.
#[inline(always)]
pub(super) fn merge_clk(p: &Program, s: &mut Sig<'_>, ins: Span, out: u32, idx: u32, reg: u32) {
    let r = reg as usize;
    let (v, k, d) = offered(p, s, ins, r);
    let sent =
        |o: u32, e: usize| (s.valid.at(o as usize) & s.ready.at(o as usize)) | (s.regs.at(e) != 0);
    let (d0, d1) = (sent(out, r + EMITTED), sent(idx, r + EMITTED + 1));
    let all = v && d0 && d1;
    *s.regs.at_mut(r + EMITTED) = u64::from(v && d0 && !all);
    *s.regs.at_mut(r + EMITTED + 1) = u64::from(v && d1 && !all);
    let keep = v && !all;
    *s.regs.at_mut(r + FULL) = u64::from(keep);
    if keep {
        *s.regs.at_mut(r + INDEX) = k;
        *s.regs.at_mut(r + HELD) = d;
    }
}

/// A `select`'s `(fires, kill_true, kill_false)` from its settled signals: whether the result
/// transfers, and whether each data input is taken to feed an antitoken (one generated now
/// because the result fires without that input's token, or one waiting).
#[inline(always)]
fn select_kills(s: &Sig<'_>, t: u32, f: u32, out: u32, reg: u32) -> (bool, bool, bool) {
    let r = reg as usize;
    let fire = s.valid.at(out as usize) & s.ready.at(out as usize);
    let gen_t = !s.valid.at(t as usize) && fire;
    let gen_f = !s.valid.at(f as usize) && fire;
    (
        fire,
        gen_t || s.regs.at(r) != 0,
        gen_f || s.regs.at(r + 1) != 0,
    )
}

/// A `select`'s result: the chosen input once the condition and it have tokens, unless an
/// antitoken waits.
#[inline(always)]
pub(super) fn select_out(s: &mut Sig<'_>, c: u32, t: u32, f: u32, out: u32, reg: u32) {
    let r = reg as usize;
    let cond = s.data.at(c as usize) & 1 == 1;
    let chosen = if cond { t } else { f };
    let stop = s.regs.at(r) != 0 || s.regs.at(r + 1) != 0;
    *s.valid.at_mut(out as usize) = s.valid.at(c as usize) && s.valid.at(chosen as usize) && !stop;
    *s.data.at_mut(out as usize) = s.data.at(chosen as usize);
}

/// A `select`'s input readies: an input is ready while it has no token, when the result
/// fires, or (data inputs) when an antitoken discards its token.
#[inline(always)]
pub(super) fn select_in(s: &mut Sig<'_>, c: u32, t: u32, f: u32, out: u32, reg: u32) {
    let (fire, kill_t, kill_f) = select_kills(s, t, f, out, reg);
    *s.ready.at_mut(c as usize) = !s.valid.at(c as usize) || fire;
    *s.ready.at_mut(t as usize) = !s.valid.at(t as usize) || fire || kill_t;
    *s.ready.at_mut(f as usize) = !s.valid.at(f as usize) || fire || kill_f;
}

/// A `select`'s clock edge: an antitoken is set when the result fires without that input's
/// token, and stays until the input's next token arrives (and is discarded).
#[inline(always)]
pub(super) fn select_clk(s: &mut Sig<'_>, _c: u32, t: u32, f: u32, out: u32, reg: u32) {
    let r = reg as usize;
    let (_, kill_t, kill_f) = select_kills(s, t, f, out, reg);
    let at_t = !s.valid.at(t as usize) && kill_t;
    let at_f = !s.valid.at(f as usize) && kill_f;
    *s.regs.at_mut(r) = u64::from(at_t);
    *s.regs.at_mut(r + 1) = u64::from(at_f);
}

/// A memory controller's read data (per load port) and `memEnd`, from its registers.
#[inline(always)]
pub(super) fn mc_out(p: &Program, s: &mut Sig<'_>, mc: u32) {
    let m = &p.dyn_mcs[mc as usize];
    let r = m.reg as usize;
    for (i, &o) in m.ld_data.iter().enumerate() {
        let v = r + mc_regs::LOADS as usize + 2 * i;
        *s.valid.at_mut(o as usize) = s.regs.at(v) != 0;
        *s.data.at_mut(o as usize) = s.regs.at(v + 1);
    }
    *s.valid.at_mut(m.mem_end as usize) = s.regs.at(r + mc_regs::END_VALID as usize) != 0;
    *s.data.at_mut(m.mem_end as usize) = 0;
}

/// The load port the read arbiter grants: the lowest with a valid address whose data output
/// is ready.
#[inline(always)]
fn mc_load_grant(s: &Sig<'_>, m: &DynMcInfo) -> Option<usize> {
    (0..m.ld_addr.len())
        .find(|&i| s.valid.at(m.ld_addr[i] as usize) && s.ready.at(m.ld_data[i] as usize))
}

/// The store port the write arbiter grants: the lowest whose address and data are valid.
#[inline(always)]
fn mc_store_grant(s: &Sig<'_>, m: &DynMcInfo) -> Option<usize> {
    (0..m.st_addr.len())
        .find(|&j| s.valid.at(m.st_addr[j] as usize) && s.valid.at(m.st_data[j] as usize))
}

/// A memory controller's input readies: the granted load address and store request,
/// block counts always, `memStart` until taken, `ctrlEnd` from its register.
#[inline(always)]
pub(super) fn mc_in(p: &Program, s: &mut Sig<'_>, mc: u32) {
    let m = &p.dyn_mcs[mc as usize];
    let r = m.reg as usize;
    let (ld, st) = (mc_load_grant(s, m), mc_store_grant(s, m));
    for (i, &a) in m.ld_addr.iter().enumerate() {
        *s.ready.at_mut(a as usize) = ld == Some(i);
    }
    for (j, (&a, &d)) in m.st_addr.iter().zip(&m.st_data).enumerate() {
        *s.ready.at_mut(a as usize) = st == Some(j);
        *s.ready.at_mut(d as usize) = st == Some(j);
    }
    for &c in &m.ctrl {
        *s.ready.at_mut(c as usize) = true;
    }
    *s.ready.at_mut(m.start as usize) = s.regs.at(r + mc_regs::START_TAKEN as usize) == 0;
    *s.ready.at_mut(m.ctrl_end as usize) = s.regs.at(r + mc_regs::CTRL_END_READY as usize) != 0;
}

/// A memory controller's clock edge: the granted store writes; the granted load reads (the
/// new value when both touch one address: the testbench's RAM) into its port's register, a
/// port's data that is taken leaves; the store count adds the block counts arriving and
/// drops by one per write; `memEnd` is raised (and `ctrlEnd` taken) once `ctrlEnd` is valid,
/// no store is pending and no count arrives; `memStart` is taken once per run.
#[inline(always)]
pub(super) fn mc_clk(p: &Program, s: &mut Sig<'_>, mc: u32) {
    let m = &p.dyn_mcs[mc as usize];
    let info = &p.mems[m.mem as usize];
    let r = m.reg as usize;
    let (ld, st) = (mc_load_grant(s, m), mc_store_grant(s, m));
    if let Some(j) = st {
        let a = s.data.at(m.st_addr[j] as usize) & info.addr_mask;
        let d = s.data.at(m.st_data[j] as usize);
        if let Some(slot) = s.mems[m.mem as usize].get_mut(a as usize) {
            *slot = d;
            s.mem_writes.push((m.mem, a, d));
        }
    }
    for (i, &o) in m.ld_data.iter().enumerate() {
        let v = r + mc_regs::LOADS as usize + 2 * i;
        if ld == Some(i) {
            let a = s.data.at(m.ld_addr[i] as usize) & info.addr_mask;
            let d = s.mems[m.mem as usize].get(a as usize).copied().unwrap_or(0);
            *s.regs.at_mut(v) = 1;
            *s.regs.at_mut(v + 1) = d;
        } else if s.ready.at(o as usize) {
            *s.regs.at_mut(v) = 0;
        }
    }
    let old = s.regs.at(r + mc_regs::REMAINING_STORES as usize);
    let mut count = old;
    let mut counting = false;
    for &c in &m.ctrl {
        if s.valid.at(c as usize) {
            counting = true;
            count = count.wrapping_add(s.data.at(c as usize));
        }
    }
    if st.is_some() {
        count = count.wrapping_sub(1);
    }
    *s.regs.at_mut(r + mc_regs::REMAINING_STORES as usize) = count & 0xffff_ffff;
    let done = old & 0xffff_ffff == 0 && !counting;
    let (start, end, ctrl_end) = (
        r + mc_regs::START_TAKEN as usize,
        r + mc_regs::END_VALID as usize,
        r + mc_regs::CTRL_END_READY as usize,
    );
    let (was_taken, was_end, was_ready) = (
        s.regs.at(start) != 0,
        s.regs.at(end) != 0,
        s.regs.at(ctrl_end) != 0,
    );
    let (mut taken, mut end_v, mut ready) = (was_taken, was_end, was_ready);
    let ctrl_end_valid = s.valid.at(m.ctrl_end as usize);
    if ctrl_end_valid && done {
        end_v = true;
        ready = true;
    }
    if ctrl_end_valid && was_ready {
        ready = false;
    }
    if s.valid.at(m.start as usize) && !was_taken {
        taken = true;
    }
    if was_end && s.ready.at(m.mem_end as usize) {
        taken = false;
        end_v = false;
    }
    *s.regs.at_mut(start) = u64::from(taken);
    *s.regs.at_mut(end) = u64::from(end_v);
    *s.regs.at_mut(ctrl_end) = u64::from(ready);
}
