//! Dynamatic's load-store queue (`docs/semantics.md` "The load-store queue"): every output
//! and every ready comes from its registers; the clock edge allocates groups, takes
//! addresses and data, issues the oldest load no older store blocks, forwards store data to
//! loads, writes the store at the issue pointer and frees what left.

use super::{At, Sig};
use crate::engine::program::{DynLsqInfo, Program};
use crate::spec::{LsqCtl, LsqLoadPart as L, LsqStorePart as S, lsq_regs};

/// Register access for one queue.
struct Regs<'q> {
    q: &'q DynLsqInfo,
}

impl Regs<'_> {
    #[inline(always)]
    fn ctl(&self, c: LsqCtl) -> usize {
        (self.q.reg + lsq_regs::ctl(c)) as usize
    }

    #[inline(always)]
    fn ld(&self, i: usize, part: L) -> usize {
        (self.q.reg + lsq_regs::load(i as u32, part)) as usize
    }

    #[inline(always)]
    fn st(&self, j: usize, part: S) -> usize {
        (self.q.reg + lsq_regs::store(self.q.nl, j as u32, part)) as usize
    }
}

/// The first index in `base, base + 1, ...` (mod `n`) where `f` holds.
#[inline(always)]
fn first_from(n: usize, base: usize, f: impl Fn(usize) -> bool) -> Option<usize> {
    (0..n).map(|k| (base + k) % n).find(|&i| f(i))
}

/// The first index in `base, base - 1, ...` (mod `n`) where `f` holds.
#[inline(always)]
fn first_down_from(n: usize, base: usize, f: impl Fn(usize) -> bool) -> Option<usize> {
    (0..n).map(|k| (base + n - k) % n).find(|&i| f(i))
}

/// What the registers say this cycle, before any input is looked at: the load issued to
/// memory (the oldest whose address is known and no older store may write) and whether the
/// store at the issue pointer writes.
struct Issue {
    /// The load entry sent to memory, if any.
    load: Option<usize>,
    /// The store at the issue pointer writes.
    store: bool,
}

/// `C(i, j)`: store `j` is allocated, older than load `i`, and has the load's address or
/// none yet.
#[inline(always)]
fn conflict(s: &Sig<'_>, r: &Regs<'_>, i: usize, j: usize) -> bool {
    s.regs.at(r.st(j, S::Alloc)) != 0
        && s.regs.at(r.ld(i, L::OlderStores)) >> j & 1 == 1
        && (s.regs.at(r.st(j, S::AddrValid)) == 0
            || s.regs.at(r.st(j, S::Addr)) == s.regs.at(r.ld(i, L::Addr)))
}

/// A load waiting to issue: allocated, not issued, its address known.
#[inline(always)]
fn pending_load(s: &Sig<'_>, r: &Regs<'_>, i: usize) -> bool {
    s.regs.at(r.ld(i, L::Alloc)) != 0
        && s.regs.at(r.ld(i, L::Issued)) == 0
        && s.regs.at(r.ld(i, L::AddrValid)) != 0
}

fn issue(s: &Sig<'_>, r: &Regs<'_>) -> Issue {
    let (nl, ns) = (r.q.nl as usize, r.q.ns as usize);
    let head = s.regs.at(r.ctl(LsqCtl::LoadHead)) as usize;
    let load = first_from(nl, head, |i| {
        pending_load(s, r, i) && !(0..ns).any(|j| conflict(s, r, i, j))
    });
    let si = s.regs.at(r.ctl(LsqCtl::StoreIssue)) as usize;
    let store = s.regs.at(r.st(si, S::Alloc)) != 0
        && s.regs.at(r.st(si, S::AddrValid)) != 0
        && s.regs.at(r.st(si, S::DataValid)) != 0
        && !(0..nl).any(|i| {
            // An allocated load older than the store, its address equal or unknown.
            s.regs.at(r.ld(i, L::Alloc)) != 0
                && s.regs.at(r.ld(i, L::OlderStores)) >> si & 1 == 0
                && (s.regs.at(r.ld(i, L::AddrValid)) == 0
                    || s.regs.at(r.ld(i, L::Addr)) == s.regs.at(r.st(si, S::Addr)))
        });
    Issue { load, store }
}

/// The oldest allocated load entry of port `p` (whatever it holds): the one whose data the
/// port offers.
#[inline(always)]
fn oldest_of_port(s: &Sig<'_>, r: &Regs<'_>, p: usize) -> Option<usize> {
    let head = s.regs.at(r.ctl(LsqCtl::LoadHead)) as usize;
    first_from(r.q.nl as usize, head, |i| {
        s.regs.at(r.ld(i, L::Alloc)) != 0 && s.regs.at(r.ld(i, L::Port)) as usize == p
    })
}

/// Free entries of both queues: the whole queue when empty, else from the tail to the head
/// (holes left by loads freed out of order count as taken).
fn free(s: &Sig<'_>, r: &Regs<'_>) -> (usize, usize) {
    let (nl, ns) = (r.q.nl as usize, r.q.ns as usize);
    let (lt, lh) = (
        s.regs.at(r.ctl(LsqCtl::LoadTail)) as usize,
        s.regs.at(r.ctl(LsqCtl::LoadHead)) as usize,
    );
    let (st, sh) = (
        s.regs.at(r.ctl(LsqCtl::StoreTail)) as usize,
        s.regs.at(r.ctl(LsqCtl::StoreHead)) as usize,
    );
    let l_empty = !(0..nl).any(|i| s.regs.at(r.ld(i, L::Alloc)) != 0);
    let s_empty = s.regs.at(r.st(sh, S::Alloc)) == 0;
    (
        if l_empty { nl } else { (lh + nl - lt) % nl },
        if s_empty { ns } else { (sh + ns - st) % ns },
    )
}

/// Whether group `g` fits in the free entries.
#[inline(always)]
fn group_fits(q: &DynLsqInfo, g: usize, free: (usize, usize)) -> bool {
    q.groups[g].ld_ports.len() <= free.0 && q.groups[g].st_ports.len() <= free.1
}

/// Whether an entry of port `p` waits for what the `valid` part says it lacks.
#[inline(always)]
fn port_waits(
    s: &Sig<'_>,
    n: usize,
    alloc: impl Fn(usize) -> usize,
    valid: impl Fn(usize) -> usize,
    port: impl Fn(usize) -> usize,
    p: usize,
) -> bool {
    (0..n).any(|i| {
        s.regs.at(alloc(i)) != 0 && s.regs.at(valid(i)) == 0 && s.regs.at(port(i)) as usize == p
    })
}

/// The queue's outputs: per load port the data of its oldest entry once it arrived;
/// `memEnd` (master) from its register; (slave) the read and write requests to the memory
/// controller.
pub(super) fn lsq_out(p: &Program, s: &mut Sig<'_>, lsq: u32) {
    let q = &p.dyn_lsqs[lsq as usize];
    let r = Regs { q };
    for (port, &o) in q.ld_data.iter().enumerate() {
        let (v, d) = match oldest_of_port(s, &r, port) {
            Some(i) => (
                s.regs.at(r.ld(i, L::DataValid)) != 0,
                s.regs.at(r.ld(i, L::Data)),
            ),
            None => (false, 0),
        };
        *s.valid.at_mut(o as usize) = v;
        *s.data.at_mut(o as usize) = d;
    }
    if let Some([_, _, end]) = q.master {
        *s.valid.at_mut(end as usize) = s.regs.at(r.ctl(LsqCtl::EndValid)) != 0;
        *s.data.at_mut(end as usize) = 0;
    }
    if let Some(([ld_addr, st_addr, st_data], _)) = q.slave {
        let is = issue(s, &r);
        *s.valid.at_mut(ld_addr as usize) = is.load.is_some();
        *s.data.at_mut(ld_addr as usize) = is.load.map_or(0, |i| s.regs.at(r.ld(i, L::Addr)));
        let si = s.regs.at(r.ctl(LsqCtl::StoreIssue)) as usize;
        let (a, d) = (s.regs.at(r.st(si, S::Addr)), s.regs.at(r.st(si, S::Data)));
        *s.valid.at_mut(st_addr as usize) = is.store;
        *s.data.at_mut(st_addr as usize) = a;
        *s.valid.at_mut(st_data as usize) = is.store;
        *s.data.at_mut(st_data as usize) = d;
    }
}

/// The queue's readies: a group's control while both queues have room for it; a port's
/// address (data) while an allocated entry of that port waits for one; `memStart` until
/// taken, `ctrlEnd` from its register; a slave always takes the controller's read data.
pub(super) fn lsq_in(p: &Program, s: &mut Sig<'_>, lsq: u32) {
    let q = &p.dyn_lsqs[lsq as usize];
    let r = Regs { q };
    let room = free(s, &r);
    for (g, &c) in q.ctrl.iter().enumerate() {
        *s.ready.at_mut(c as usize) = group_fits(q, g, room);
    }
    let (nl, ns) = (q.nl as usize, q.ns as usize);
    for (port, &a) in q.ld_addr.iter().enumerate() {
        let w = port_waits(
            s,
            nl,
            |i| r.ld(i, L::Alloc),
            |i| r.ld(i, L::AddrValid),
            |i| r.ld(i, L::Port),
            port,
        );
        *s.ready.at_mut(a as usize) = w;
    }
    for (port, (&a, &d)) in q.st_addr.iter().zip(&q.st_data).enumerate() {
        let wa = port_waits(
            s,
            ns,
            |j| r.st(j, S::Alloc),
            |j| r.st(j, S::AddrValid),
            |j| r.st(j, S::Port),
            port,
        );
        let wd = port_waits(
            s,
            ns,
            |j| r.st(j, S::Alloc),
            |j| r.st(j, S::DataValid),
            |j| r.st(j, S::Port),
            port,
        );
        *s.ready.at_mut(a as usize) = wa;
        *s.ready.at_mut(d as usize) = wd;
    }
    if let Some([start, ctrl_end, _]) = q.master {
        *s.ready.at_mut(start as usize) = s.regs.at(r.ctl(LsqCtl::StartTaken)) == 0;
        *s.ready.at_mut(ctrl_end as usize) = s.regs.at(r.ctl(LsqCtl::CtrlEndReady)) != 0;
    }
    if let Some((_, Some(from_mc))) = q.slave {
        *s.ready.at_mut(from_mc as usize) = true;
    }
}

/// Most entries of either queue ([`crate::limits::MAX_LSQ_DEPTH`]).
const MAX: usize = crate::limits::MAX_LSQ_DEPTH as usize;

/// The clock edge.
pub(super) fn lsq_clk(p: &Program, s: &mut Sig<'_>, lsq: u32) {
    let q = &p.dyn_lsqs[lsq as usize];
    let r = Regs { q };
    let (nl, ns) = (q.nl as usize, q.ns as usize);
    let get = |s: &Sig<'_>, c: LsqCtl| s.regs.at(r.ctl(c));
    let (lt, lh) = (
        get(s, LsqCtl::LoadTail) as usize,
        get(s, LsqCtl::LoadHead) as usize,
    );
    let (st, sh, si) = (
        get(s, LsqCtl::StoreTail) as usize,
        get(s, LsqCtl::StoreHead) as usize,
        get(s, LsqCtl::StoreIssue) as usize,
    );

    // Group allocation: every group whose control transfers (the RTL ORs the counts, port
    // numbers and orders of simultaneous groups together).
    let room = free(s, &r);
    let (mut n_ld, mut n_st) = (0usize, 0usize);
    let mut ld_port = [0u32; MAX];
    let mut st_port = [0u32; MAX];
    let mut ld_order = [0u32; MAX];
    for (g, &c) in q.ctrl.iter().enumerate() {
        if s.valid.at(c as usize) && group_fits(q, g, room) {
            let grp = &q.groups[g];
            n_ld |= grp.ld_ports.len();
            n_st |= grp.st_ports.len();
            for (k, (&pt, &o)) in grp.ld_ports.iter().zip(&grp.ld_order).enumerate().take(MAX) {
                ld_port[k] |= pt;
                ld_order[k] |= o;
            }
            for (k, &pt) in grp.st_ports.iter().enumerate().take(MAX) {
                st_port[k] |= pt;
            }
        }
    }
    let (n_ld, n_st) = (n_ld.min(nl), n_st.min(ns));
    // Entry -> position in the new group, for the entries allocated now.
    let new_ld = |i: usize| -> Option<usize> {
        let k = (i + nl - lt) % nl;
        (k < n_ld).then_some(k)
    };
    let new_st = |j: usize| -> Option<usize> {
        let k = (j + ns - st) % ns;
        (k < n_st).then_some(k)
    };

    // Addresses and data arriving: each port fills its oldest entry waiting for one.
    let mut ld_addr_in = [None; MAX];
    for (port, &a) in q.ld_addr.iter().enumerate() {
        if s.valid.at(a as usize) {
            let take = first_from(nl, lh, |i| {
                s.regs.at(r.ld(i, L::Alloc)) != 0
                    && s.regs.at(r.ld(i, L::AddrValid)) == 0
                    && s.regs.at(r.ld(i, L::Port)) as usize == port
            });
            if let Some(i) = take {
                ld_addr_in[i] = Some(s.data.at(a as usize));
            }
        }
    }
    let mut st_addr_in = [None; MAX];
    let mut st_data_in = [None; MAX];
    for (port, (&a, &d)) in q.st_addr.iter().zip(&q.st_data).enumerate() {
        for (ch, part, into) in [
            (a, S::AddrValid, &mut st_addr_in),
            (d, S::DataValid, &mut st_data_in),
        ] {
            if s.valid.at(ch as usize) {
                let take = first_from(ns, sh, |j| {
                    s.regs.at(r.st(j, S::Alloc)) != 0
                        && s.regs.at(r.st(j, part)) == 0
                        && s.regs.at(r.st(j, S::Port)) as usize == port
                });
                if let Some(j) = take {
                    into[j] = Some(s.data.at(ch as usize));
                }
            }
        }
    }

    // Issue: the oldest load no older store blocks goes to memory; a load whose youngest
    // blocking store has its address and data takes the data from it.
    let is = issue(s, &r);
    let (read_ready, write_ready) = match q.slave {
        Some(([ld_addr, st_addr, st_data], _)) => (
            s.ready.at(ld_addr as usize),
            s.ready.at(st_addr as usize) && s.ready.at(st_data as usize),
        ),
        None => (true, true),
    };
    let mut bypass = [None; MAX];
    for (i, slot) in bypass.iter_mut().enumerate().take(nl) {
        if !pending_load(s, &r, i) {
            continue;
        }
        let last = (st + ns - 1) % ns;
        if let Some(j) = first_down_from(ns, last, |j| conflict(s, &r, i, j))
            && s.regs.at(r.st(j, S::AddrValid)) != 0
            && s.regs.at(r.st(j, S::DataValid)) != 0
            && s.regs.at(r.st(j, S::Addr)) == s.regs.at(r.ld(i, L::Addr))
        {
            *slot = Some(s.regs.at(r.st(j, S::Data)));
        }
    }

    // Answers: the read issued last cycle (master: the RAM's word; slave: the controller's
    // data), for the entry it was issued for.
    let read_id = get(s, LsqCtl::ReadId) as usize;
    let answer = match q.slave {
        Some((_, Some(from_mc))) => s
            .valid
            .at(from_mc as usize)
            .then(|| s.data.at(from_mc as usize)),
        Some((_, None)) => None,
        None => (get(s, LsqCtl::ReadValid) != 0).then(|| get(s, LsqCtl::ReadData)),
    };

    // Loads leaving: each port's oldest entry, once its data is there and taken.
    let mut leaves = [false; MAX];
    for (port, &o) in q.ld_data.iter().enumerate() {
        if s.ready.at(o as usize)
            && let Some(i) = oldest_of_port(s, &r, port)
            && s.regs.at(r.ld(i, L::DataValid)) != 0
        {
            leaves[i] = true;
        }
    }
    let write_ack = get(s, LsqCtl::WriteAck) != 0;

    // Memory (master): the store writes, then the load reads (the RAM gives a read the word
    // written in the same cycle).
    let mut read_word = None;
    if let Some(mem) = q.mem {
        let mask = p.mems[mem as usize].addr_mask;
        if is.store {
            let a = s.regs.at(r.st(si, S::Addr)) & mask;
            let d = s.regs.at(r.st(si, S::Data));
            if let Some(slot) = s.mems[mem as usize].get_mut(a as usize) {
                *slot = d;
                s.mem_writes.push((mem, a, d));
            }
        }
        if let Some(i) = is.load {
            let a = s.regs.at(r.ld(i, L::Addr)) & mask;
            read_word = Some(s.mems[mem as usize].get(a as usize).copied().unwrap_or(0));
        }
    }

    // Completion (master): `memEnd` once `ctrlEnd` is offered and both queues are empty.
    if let Some([start, ctrl_end, end]) = q.master {
        let l_empty = !(0..nl).any(|i| s.regs.at(r.ld(i, L::Alloc)) != 0);
        let s_empty = s.regs.at(r.st(sh, S::Alloc)) == 0;
        let ctrl_end_valid = s.valid.at(ctrl_end as usize);
        let mev = get(s, LsqCtl::EndValid) != 0;
        let cer = get(s, LsqCtl::CtrlEndReady) != 0;
        // Handscope's own queue raises `memEnd` once per `ctrlEnd` and withdraws it when
        // taken; Dynamatic's keeps it raised.
        let t = ctrl_end_valid && l_empty && s_empty && !(q.end_once && (cer || mev));
        let end_taken = mev && s.ready.at(end as usize);
        let taken = get(s, LsqCtl::StartTaken) != 0;
        let ready_next = end_taken || (!taken && !s.valid.at(start as usize));
        *s.regs.at_mut(r.ctl(LsqCtl::StartTaken)) = u64::from(!ready_next);
        let keep = mev && !(q.end_once && end_taken);
        *s.regs.at_mut(r.ctl(LsqCtl::EndValid)) = u64::from(keep || t);
        *s.regs.at_mut(r.ctl(LsqCtl::CtrlEndReady)) =
            u64::from((t || cer) && !(ctrl_end_valid && cer));
    }

    // Register updates. Old-store bits first (they read the store queue before it changes).
    let freed_store = |j: usize| write_ack && j == sh;
    for i in 0..nl {
        let o = r.ld(i, L::OlderStores);
        let mut bits = 0u64;
        match new_ld(i) {
            Some(k) => {
                for j in 0..ns {
                    let own = new_st(j).is_some_and(|m| (m as u32) < ld_order[k]);
                    if !freed_store(j) && (s.regs.at(r.st(j, S::Alloc)) != 0 || own) {
                        bits |= 1 << j;
                    }
                }
            }
            None => {
                let old = s.regs.at(o);
                for j in 0..ns {
                    if !freed_store(j) && old >> j & 1 == 1 {
                        bits |= 1 << j;
                    }
                }
            }
        }
        *s.regs.at_mut(o) = bits;
    }
    // The new head: the oldest entry that stays (scanning from the old tail), else the
    // old tail (the first entry of a group allocated now, if any).
    let oldest_survivor = first_from(nl, lt, |i| s.regs.at(r.ld(i, L::Alloc)) != 0 && !leaves[i]);
    for i in 0..nl {
        let set = |s: &mut Sig<'_>, part: L, v: u64| *s.regs.at_mut(r.ld(i, part)) = v;
        let flag = |s: &Sig<'_>, part: L| s.regs.at(r.ld(i, part)) != 0;
        if let Some(k) = new_ld(i) {
            set(s, L::Alloc, 1);
            set(s, L::Issued, 0);
            set(s, L::AddrValid, 0);
            set(s, L::DataValid, 0);
            set(s, L::Port, u64::from(ld_port[k]));
            continue;
        }
        let alloc = flag(s, L::Alloc) && !leaves[i];
        let issued_now = is.load == Some(i) && read_ready || bypass[i].is_some();
        let issued = flag(s, L::Issued) || issued_now;
        set(s, L::Alloc, u64::from(alloc));
        set(s, L::Issued, u64::from(issued));
        if let Some(a) = ld_addr_in[i] {
            set(s, L::AddrValid, 1);
            set(s, L::Addr, a);
        }
        let data = if answer.is_some() && read_id == i {
            answer
        } else {
            bypass[i]
        };
        if let Some(d) = data {
            set(s, L::DataValid, 1);
            set(s, L::Data, d);
        }
    }
    for j in 0..ns {
        let set = |s: &mut Sig<'_>, part: S, v: u64| *s.regs.at_mut(r.st(j, part)) = v;
        if let Some(k) = new_st(j) {
            set(s, S::Alloc, 1);
            set(s, S::AddrValid, 0);
            set(s, S::DataValid, 0);
            set(s, S::Port, u64::from(st_port[k]));
            continue;
        }
        if freed_store(j) {
            set(s, S::Alloc, 0);
        }
        if let Some(a) = st_addr_in[j] {
            set(s, S::AddrValid, 1);
            set(s, S::Addr, a);
        }
        if let Some(d) = st_data_in[j] {
            set(s, S::DataValid, 1);
            set(s, S::Data, d);
        }
    }
    let put = |s: &mut Sig<'_>, c: LsqCtl, v: u64| *s.regs.at_mut(r.ctl(c)) = v;
    put(s, LsqCtl::LoadTail, ((lt + n_ld) % nl) as u64);
    put(s, LsqCtl::LoadHead, oldest_survivor.unwrap_or(lt) as u64);
    put(s, LsqCtl::StoreTail, ((st + n_st) % ns) as u64);
    put(
        s,
        LsqCtl::StoreHead,
        ((sh + usize::from(write_ack)) % ns) as u64,
    );
    put(
        s,
        LsqCtl::StoreIssue,
        ((si + usize::from(is.store && write_ready)) % ns) as u64,
    );
    // The read request's id is kept whenever one is offered (a slave's even when the
    // controller does not take it); the write is acknowledged the next cycle.
    if let Some(i) = is.load {
        put(s, LsqCtl::ReadId, i as u64);
    }
    put(
        s,
        LsqCtl::ReadValid,
        u64::from(is.load.is_some() && read_ready),
    );
    if let Some(w) = read_word {
        put(s, LsqCtl::ReadData, w);
    }
    put(s, LsqCtl::WriteAck, u64::from(is.store));
}
