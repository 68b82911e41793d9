//! The engine's trace storage: periodic state snapshots, with any cycle rebuilt by
//! re-simulating from the snapshot before it.
//!
//! Every combinational signal of a cycle (valid, ready, data) is a pure function of the
//! registers, the memories and the environment's state at the start of that cycle (token
//! cursors, ready-policy generators). So instead of storing every channel every cycle, the
//! recorder keeps a [`Key`] every `interval` cycles: registers, memories (shared with the
//! previous key when untouched), environment state, and per channel the data it last held
//! while valid (the trace shows that while a channel is not valid). Rebuilding cycle `c`
//! restores the key at or before `c` and runs at most `interval - 1` cycles plus one settle;
//! the interval is chosen from the program size so that this stays well under a
//! millisecond. Recording costs a snapshot every `interval` cycles plus one vectorized
//! pass per cycle that keeps the held data current.

use std::sync::Arc;

use super::eval::{self, State};
use super::program::Program;
use crate::stimulus::{ArgCursor, ReadyGen};

/// Work units (instructions plus channels) re-simulated per random access, at most.
const ACCESS_BUDGET: usize = 160_000;

/// One snapshot: the state at the start of trace cycle `cycle`.
#[derive(Clone, Debug)]
struct Key {
    cycle: u64,
    sim_cycle: u64,
    regs: Box<[u64]>,
    held: Box<[u64]>,
    mems: Vec<Arc<Vec<u64>>>,
    args: Vec<(u32, ArgCursor)>,
    readies: Vec<(u32, ReadyGen)>,
}

/// Snapshots of a run, and the program to re-simulate them with.
#[derive(Clone, Debug)]
pub(crate) struct ResimStore {
    prog: Arc<Program>,
    interval: u64,
    keys: Vec<Key>,
    cycles: u64,
    /// Recording: data each channel last had while valid.
    held: Vec<u64>,
    /// Recording: memories as of the last key, and which changed since.
    mems: Vec<Arc<Vec<u64>>>,
    dirty: Vec<bool>,
}

/// The environment's view needed to drive one cycle.
struct Env<'a> {
    args: &'a mut [(u32, ArgCursor)],
    readies: &'a mut [(u32, ReadyGen)],
}

impl Env<'_> {
    /// Drives argument valid/data and result ready for `sim_cycle` (as `Simulation::step`).
    fn drive(&mut self, st: &mut State, sim_cycle: u64) {
        for (chan, cur) in self.args.iter() {
            let c = *chan as usize;
            match cur.peek() {
                Some(v) => {
                    st.valid[c] = true;
                    st.data[c] = v;
                }
                None => {
                    st.valid[c] = false;
                    st.data[c] = 0;
                }
            }
        }
        for (chan, gen_) in self.readies.iter_mut() {
            st.ready[*chan as usize] = gen_.next(sim_cycle);
        }
    }

    /// Consumes the tokens that fired.
    fn consume(&mut self, st: &State) {
        for (chan, cur) in self.args.iter_mut() {
            let c = *chan as usize;
            if st.valid[c] & st.ready[c] {
                cur.advance();
            }
        }
    }
}

/// `held[i] = data[i]` for every valid channel (vectorizes).
#[inline]
fn update_held(held: &mut [u64], valid: &[bool], data: &[u64]) {
    for ((h, &v), &d) in held.iter_mut().zip(valid).zip(data) {
        *h = if v { d } else { *h };
    }
}

impl ResimStore {
    /// An empty store for `prog`, with the memories as they are now.
    pub(crate) fn new(prog: Arc<Program>, st: &State) -> Self {
        let clk = prog.clk.len() + prog.clk_emit2.len() + prog.clk_buf1.len() + prog.clk_buf2.len();
        let units = prog.fwd.len() + prog.bwd.len() + 2 * clk + prog.n_channels + 1;
        let interval = (ACCESS_BUDGET / units).clamp(8, 1024);
        let interval = 1u64 << (usize::BITS - 1 - interval.leading_zeros());
        ResimStore {
            interval,
            keys: Vec::new(),
            cycles: 0,
            held: vec![0; prog.n_channels],
            mems: st.mems.iter().map(|m| Arc::new(m.clone())).collect(),
            dirty: vec![false; st.mems.len()],
            prog,
        }
    }

    /// Number of recorded cycles.
    pub(crate) fn cycles(&self) -> u64 {
        self.cycles
    }

    /// Number of snapshots.
    pub(crate) fn keyframes(&self) -> usize {
        self.keys.len()
    }

    /// Cycles between snapshots.
    pub(crate) fn interval(&self) -> u64 {
        self.interval
    }

    /// Bytes held by the snapshots (memories counted once per distinct copy).
    pub(crate) fn memory_bytes(&self) -> usize {
        let mut bytes = self.held.len() * 8;
        let mut last: Vec<*const Vec<u64>> = Vec::new();
        for k in &self.keys {
            bytes += (k.regs.len() + k.held.len()) * 8 + 96;
            bytes += k.args.len() * 64 + k.readies.len() * 48;
            for (i, m) in k.mems.iter().enumerate() {
                let p = Arc::as_ptr(m);
                if last.get(i) != Some(&p) {
                    bytes += m.len() * 8;
                }
            }
            last = k.mems.iter().map(Arc::as_ptr).collect();
        }
        bytes
    }

    /// Recording, at the start of a cycle (before the environment is driven).
    pub(crate) fn begin_cycle(
        &mut self,
        sim_cycle: u64,
        st: &State,
        args: &[(u32, ArgCursor)],
        readies: impl Iterator<Item = (u32, ReadyGen)>,
    ) {
        if !self.cycles.is_multiple_of(self.interval) {
            return;
        }
        for (i, d) in self.dirty.iter_mut().enumerate() {
            if *d {
                self.mems[i] = Arc::new(st.mems[i].clone());
                *d = false;
            }
        }
        self.keys.push(Key {
            cycle: self.cycles,
            sim_cycle,
            regs: st.regs.clone().into_boxed_slice(),
            held: self.held.clone().into_boxed_slice(),
            mems: self.mems.clone(),
            args: args.to_vec(),
            readies: readies.collect(),
        });
    }

    /// Recording, once the cycle's signals are settled.
    #[inline]
    pub(crate) fn end_cycle(&mut self, st: &State) {
        update_held(&mut self.held, &st.valid, &st.data);
        self.cycles += 1;
    }

    /// Recording, after the clock edge: notes which memories were written.
    #[inline]
    pub(crate) fn after_clock(&mut self, st: &State) {
        for &(m, _, _) in &st.mem_writes {
            self.dirty[m as usize] = true;
        }
    }

    /// A cursor positioned before cycle `c` (its first [`Cursor::next`] returns `c`).
    pub(crate) fn cursor(&self, c: u64) -> Option<Cursor<'_>> {
        if c >= self.cycles {
            return None;
        }
        let k = self.keys.partition_point(|k| k.cycle <= c) - 1;
        let key = &self.keys[k];
        let mut st = State::new(&self.prog);
        st.regs.copy_from_slice(&key.regs);
        for (dst, src) in st.mems.iter_mut().zip(&key.mems) {
            dst.clone_from(src);
        }
        let mut cur = Cursor {
            store: self,
            st,
            held: key.held.to_vec(),
            args: key.args.clone(),
            readies: key.readies.clone(),
            next: key.cycle,
            sim_cycle: key.sim_cycle,
            settled: false,
        };
        while cur.next < c {
            cur.advance();
        }
        Some(cur)
    }
}

/// Re-simulates recorded cycles in order.
pub(crate) struct Cursor<'s> {
    store: &'s ResimStore,
    st: State,
    held: Vec<u64>,
    args: Vec<(u32, ArgCursor)>,
    readies: Vec<(u32, ReadyGen)>,
    /// The cycle the next `settle` computes.
    next: u64,
    sim_cycle: u64,
    /// True when `st` holds the settled signals of cycle `next - 1` (before its edge).
    settled: bool,
}

impl Cursor<'_> {
    fn settle_next(&mut self) {
        let mut env = Env {
            args: &mut self.args,
            readies: &mut self.readies,
        };
        env.drive(&mut self.st, self.sim_cycle);
        eval::settle(&self.store.prog, &mut self.st);
        update_held(&mut self.held, &self.st.valid, &self.st.data);
        self.next += 1;
        self.sim_cycle += 1;
        self.settled = true;
    }

    fn finish_cycle(&mut self) {
        if self.settled {
            let mut env = Env {
                args: &mut self.args,
                readies: &mut self.readies,
            };
            env.consume(&self.st);
            eval::clock(&self.store.prog, &mut self.st);
            self.settled = false;
        }
    }

    /// Skips one cycle.
    fn advance(&mut self) {
        self.finish_cycle();
        self.settle_next();
        self.finish_cycle();
    }

    /// Computes the next cycle and writes its signals (trace order: control words
    /// `valid | ready << 1`, data as last held while valid, state words) into `vals`.
    /// Returns false past the recorded end.
    pub(crate) fn next(&mut self, vals: &mut [u64]) -> bool {
        if self.next >= self.store.cycles {
            return false;
        }
        self.finish_cycle();
        self.settle_next();
        let nc = self.store.prog.n_channels;
        let st = &self.st;
        for ((v, &valid), &ready) in vals[..nc].iter_mut().zip(&st.valid).zip(&st.ready) {
            *v = u64::from(valid) | u64::from(ready) << 1;
        }
        vals[nc..2 * nc].copy_from_slice(&self.held);
        let n = (vals.len() - 2 * nc).min(st.regs.len());
        vals[2 * nc..2 * nc + n].copy_from_slice(&st.regs[..n]);
        true
    }
}
