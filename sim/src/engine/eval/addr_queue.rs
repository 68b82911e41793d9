//! The address queue (`docs/semantics.md` "The address queue"): a shift queue of store
//! addresses, the oldest in entry 0. A load port passes its address while no queued
//! address equals it (and keeps offering it until taken); a store port enqueues its address and raises `stOrderOut` from a
//! register; `stDone` dequeues the head when it is the head's port.

use super::{At, Sig};
use crate::engine::program::{AddrQueueInfo, Program};
use crate::spec::addr_queue_regs as regs;

/// Register word `w` of queue `q`.
#[inline(always)]
fn word(q: &AddrQueueInfo, w: u32) -> usize {
    (q.reg + w) as usize
}

#[inline(always)]
fn stores(q: &AddrQueueInfo) -> u32 {
    q.st_addr.len() as u32
}

#[inline(always)]
fn loads(q: &AddrQueueInfo) -> u32 {
    q.ld_addr.len() as u32
}

/// Queued addresses.
#[inline(always)]
fn count(s: &Sig<'_>, q: &AddrQueueInfo) -> u32 {
    (s.regs.at(word(q, regs::COUNT)) as u32).min(q.depth)
}

/// True when a queued store address equals `addr`.
#[inline(always)]
fn queued(s: &Sig<'_>, q: &AddrQueueInfo, addr: u64) -> bool {
    let st = stores(q);
    (0..count(s, q)).any(|k| s.regs.at(word(q, regs::addr(loads(q), st, k))) == addr)
}

/// The store port of the oldest entry, if any.
#[inline(always)]
fn head_port(s: &Sig<'_>, q: &AddrQueueInfo) -> Option<usize> {
    (count(s, q) > 0).then(|| s.regs.at(word(q, regs::port(loads(q), stores(q), 0))) as usize)
}

/// Load port `port`: `ldAddrOut` offers the address while both inputs are valid and no
/// queued store has it, or it was offered and not yet taken (a valid is never withdrawn).
pub(super) fn load_fwd(p: &Program, s: &mut Sig<'_>, q: u32, port: u32) {
    let q = &p.addr_queues[q as usize];
    let i = port as usize;
    let (a, o, out) = (
        q.ld_addr[i] as usize,
        q.ld_order[i] as usize,
        q.ld_out[i] as usize,
    );
    let addr = s.data.at(a);
    let offered = s.regs.at(word(q, regs::offered(stores(q), port))) != 0;
    let v = s.valid.at(a) && s.valid.at(o) && (offered || !queued(s, q, addr));
    *s.valid.at_mut(out) = v;
    *s.data.at_mut(out) = addr;
}

/// Every `stOrderOut<j>` from its pending register.
pub(super) fn store_out(p: &Program, s: &mut Sig<'_>, q: u32) {
    let q = &p.addr_queues[q as usize];
    for (j, &o) in q.st_out.iter().enumerate() {
        *s.valid.at_mut(o as usize) = s.regs.at(word(q, regs::pending(j as u32))) != 0;
    }
}

/// Which store ports enqueue this cycle: those with address and ordering token whose
/// `stOrderOut` is free or taken now, in port order while there is room.
#[inline(always)]
fn enqueues(s: &Sig<'_>, q: &AddrQueueInfo, j: usize, taken_before: u32) -> bool {
    let room = q.depth - count(s, q);
    s.valid.at(q.st_addr[j] as usize)
        && s.valid.at(q.st_order[j] as usize)
        && (s.regs.at(word(q, regs::pending(j as u32))) == 0 || s.ready.at(q.st_out[j] as usize))
        && taken_before < room
}

/// Store ports' readies and `stDone` readies.
pub(super) fn store_in(p: &Program, s: &mut Sig<'_>, q: u32) {
    let q = &p.addr_queues[q as usize];
    let mut n = 0;
    for j in 0..q.st_addr.len() {
        let e = enqueues(s, q, j, n);
        n += u32::from(e);
        *s.ready.at_mut(q.st_addr[j] as usize) = e;
        *s.ready.at_mut(q.st_order[j] as usize) = e;
    }
    let head = head_port(s, q);
    for (j, &d) in q.st_done.iter().enumerate() {
        *s.ready.at_mut(d as usize) = head == Some(j);
    }
}

/// The clock edge: the head leaves when its `stDone` is taken, then the enqueued addresses
/// enter in port order; a pending flag is set by an enqueue and cleared when taken.
pub(super) fn clk(p: &Program, s: &mut Sig<'_>, q: u32) {
    let q = &p.addr_queues[q as usize];
    let st = stores(q);
    let mut n = count(s, q);
    if let Some(j) = head_port(s, q) {
        let d = q.st_done[j] as usize;
        if s.valid.at(d) && s.ready.at(d) {
            for k in 1..n {
                let (a, pt) = (
                    s.regs.at(word(q, regs::addr(loads(q), st, k))),
                    s.regs.at(word(q, regs::port(loads(q), st, k))),
                );
                *s.regs.at_mut(word(q, regs::addr(loads(q), st, k - 1))) = a;
                *s.regs.at_mut(word(q, regs::port(loads(q), st, k - 1))) = pt;
            }
            n -= 1;
        }
    }
    for j in 0..q.st_addr.len() {
        let a = q.st_addr[j] as usize;
        let pend = word(q, regs::pending(j as u32));
        if s.valid.at(a) && s.ready.at(a) {
            *s.regs.at_mut(word(q, regs::addr(loads(q), st, n))) = s.data.at(a);
            *s.regs.at_mut(word(q, regs::port(loads(q), st, n))) = j as u64;
            n += 1;
            *s.regs.at_mut(pend) = 1;
        } else if s.regs.at(pend) != 0 && s.ready.at(q.st_out[j] as usize) {
            *s.regs.at_mut(pend) = 0;
        }
    }
    *s.regs.at_mut(word(q, regs::COUNT)) = u64::from(n);
    for (i, &o) in q.ld_out.iter().enumerate() {
        let w = word(q, regs::offered(st, i as u32));
        *s.regs.at_mut(w) = u64::from(s.valid.at(o as usize) && !s.ready.at(o as usize));
    }
}
