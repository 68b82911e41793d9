//! Activity-driven evaluation (issue #33): a component is evaluated only in the cycles when
//! something it reads changed.
//!
//! Every instruction is a function of the signals it reads and the registers (and memory)
//! of its node. A node is *active* in a cycle when a channel it touches (its inputs and its
//! outputs: `valid`, `data` or `ready`) changed in that cycle, when its registers changed at
//! the previous clock edge, or when its memory was written then; the nodes on the
//! environment's channels (arguments, results) are active in every cycle. The forward and
//! backward passes run the instructions of active nodes only, in the interpreter's order
//! (every signal written before it is read), and each instruction's written channels are
//! compared with what they held: a change makes the nodes on that channel active for the
//! rest of the cycle. The clock edge runs the active nodes' clock instructions and compares
//! their registers; a change keeps the node active in the next cycle.
//!
//! Nothing else can change an output, so an inactive node's signals are still what it would
//! compute: the run is the interpreter's, signal for signal
//! (`compiler/tests/engine_compiled.rs`). Programs whose passes must iterate (lazy forks,
//! combinational cycles) are not run this way ([`Activity::supports`]).
//!
//! Active instructions are bits of one bit set per pass, indexed by the instruction's
//! position: a pass visits the set bits in order (a word of 64 instructions at a time), so
//! an idle part of the graph costs one zero word per 64 instructions.

use cranelift_entity::EntityRef;

use super::eval::{Sig, State, buffer_outputs, bwd_one, clk_one, fwd_one};
use super::program::{Program, Seg};

/// A set of instruction positions, visited in increasing order.
#[derive(Clone, Debug, Default)]
struct Bits {
    words: Vec<u64>,
}

impl Bits {
    fn new(n: usize) -> Bits {
        Bits {
            words: vec![0; n.div_ceil(64)],
        }
    }

    fn set_all(&mut self, n: usize) {
        for (w, word) in self.words.iter_mut().enumerate() {
            let left = n.saturating_sub(w * 64).min(64);
            *word = if left == 64 {
                u64::MAX
            } else {
                (1 << left) - 1
            };
        }
    }

    fn clear(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
    }

    /// The first set position at or after `from`, cleared.
    #[inline(always)]
    fn take_next(&mut self, from: usize) -> Option<usize> {
        let mut w = from >> 6;
        if w >= self.words.len() {
            return None;
        }
        let mut word = self.words[w] & (u64::MAX << (from & 63));
        loop {
            if word != 0 {
                let b = word.trailing_zeros() as usize;
                self.words[w] &= !(1 << b);
                return Some(w * 64 + b);
            }
            w += 1;
            if w >= self.words.len() {
                return None;
            }
            word = self.words[w];
        }
    }
}

/// The instructions of one node in the passes, as bit-set words to OR in: `(pass, word,
/// mask)` with pass 0 forward, 1 backward, 2 clock, 3 buffer outputs.
#[derive(Clone, Debug, Default)]
struct NodeInstrs {
    words: Vec<(u8, u32, u64)>,
}

impl NodeInstrs {
    fn add(&mut self, pass: u8, i: u32) {
        let (w, bit) = (i >> 6, 1u64 << (i & 63));
        match self.words.iter_mut().find(|e| e.0 == pass && e.1 == w) {
            Some(e) => e.2 |= bit,
            None => self.words.push((pass, w, bit)),
        }
    }
}

/// The per-run bookkeeping of activity-driven evaluation for one [`Program`].
#[derive(Clone, Debug)]
pub(crate) struct Activity {
    /// Per channel, the nodes that touch it: `adj[adj_start[c]..adj_start[c + 1]]`.
    adj_start: Vec<u32>,
    adj: Vec<u32>,
    /// Per node, its instructions.
    instrs: Vec<NodeInstrs>,
    /// Nodes marked active this cycle (so that a node's instructions are set once).
    marked: Vec<bool>,
    /// Nodes active in the next cycle (registers or memory changed at this clock edge).
    next: Vec<u32>,
    /// Nodes active in every cycle (the environment drives their channels).
    always: Vec<u32>,
    /// Active instructions of each pass.
    fwd: Bits,
    bwd: Bits,
    clk: Bits,
    buffers: Bits,
    /// Nodes marked this cycle (to clear `marked`).
    touched: Vec<u32>,
    /// Per node, its register range.
    regs: Vec<(u32, u32)>,
    /// Scratch: registers before a clock edge, written values before an instruction.
    before: Vec<u64>,
    old: Vec<(bool, u64)>,
    /// The first cycle runs every instruction.
    first: bool,
    /// Instructions evaluated so far (forward, backward and clock).
    evaluated: u64,
}

impl Activity {
    /// True when `p` can be run activity-driven: passes that settle in one sweep.
    pub(crate) fn supports(p: &Program) -> bool {
        !p.global_iterate
            && p.fwd_segs
                .iter()
                .chain(&p.bwd_segs)
                .all(|s| !matches!(s, Seg::Loop { .. }))
            && p.activity.fwd_nodes.len() == p.fwd.len()
            && p.activity.bwd_nodes.len() == p.bwd.len()
    }

    /// Bookkeeping for `p` whose function is `f`, every node active in the first cycle.
    pub(crate) fn new(p: &Program, f: &crate::graph::Function) -> Activity {
        let n_nodes = f.nodes.len();
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); p.n_channels];
        for (cid, ch) in f.channels.iter() {
            let l = &mut lists[cid.index()];
            l.push(ch.producer.node.index() as u32);
            for c in &ch.consumers {
                let n = c.node.index() as u32;
                if !l.contains(&n) {
                    l.push(n);
                }
            }
        }
        let mut adj_start = Vec::with_capacity(p.n_channels + 1);
        let mut adj = Vec::new();
        for l in &lists {
            adj_start.push(adj.len() as u32);
            adj.extend_from_slice(l);
        }
        adj_start.push(adj.len() as u32);
        let mut always: Vec<u32> = Vec::new();
        for &(_, c) in &p.args {
            always.extend(lists[c as usize].iter().copied());
        }
        for &c in &p.results {
            always.extend(lists[c as usize].iter().copied());
        }
        always.sort_unstable();
        always.dedup();
        let regs = p.node_regs.clone();
        let mut instrs = vec![NodeInstrs::default(); n_nodes];
        let act = &p.activity;
        for (i, &n) in act.fwd_nodes.iter().enumerate() {
            instrs[n as usize].add(0, i as u32);
        }
        for (i, &n) in act.bwd_nodes.iter().enumerate() {
            instrs[n as usize].add(1, i as u32);
        }
        for (i, &(_, n)) in act.clk.iter().enumerate() {
            instrs[n as usize].add(2, i as u32);
        }
        for (k, &(_, _, reg, _)) in p.buffers.iter().enumerate() {
            if let Some(n) = regs.iter().position(|&(a, b)| a <= reg && reg < b) {
                instrs[n].add(3, k as u32);
            }
        }
        Activity {
            adj_start,
            adj,
            instrs,
            marked: vec![false; n_nodes],
            next: Vec::new(),
            always,
            fwd: Bits::new(p.fwd.len()),
            bwd: Bits::new(p.bwd.len()),
            clk: Bits::new(act.clk.len()),
            buffers: Bits::new(p.buffers.len()),
            touched: Vec::new(),
            regs,
            before: Vec::new(),
            old: Vec::new(),
            first: true,
            evaluated: 0,
        }
    }

    /// Instructions evaluated so far.
    pub(crate) fn evaluated(&self) -> u64 {
        self.evaluated
    }

    /// Marks node `n` active for the rest of the cycle.
    #[inline(always)]
    fn mark(&mut self, n: u32) {
        if self.marked[n as usize] {
            return;
        }
        self.marked[n as usize] = true;
        self.touched.push(n);
        for &(pass, w, mask) in &self.instrs[n as usize].words {
            let bits = match pass {
                0 => &mut self.fwd,
                1 => &mut self.bwd,
                2 => &mut self.clk,
                _ => &mut self.buffers,
            };
            bits.words[w as usize] |= mask;
        }
    }

    /// Marks the nodes on channel `c` active.
    #[inline(always)]
    fn touch(&mut self, c: u32) {
        let (a, b) = (
            self.adj_start[c as usize] as usize,
            self.adj_start[c as usize + 1] as usize,
        );
        for k in a..b {
            let n = self.adj[k];
            self.mark(n);
        }
    }

    /// Settles the cycle's signals, evaluating the active nodes only. The environment's
    /// channels must already be driven.
    pub(crate) fn settle(&mut self, p: &Program, st: &mut State) {
        for k in 0..self.touched.len() {
            let n = self.touched[k];
            self.marked[n as usize] = false;
        }
        self.touched.clear();
        if self.first {
            self.first = false;
            self.fwd.set_all(p.fwd.len());
            self.bwd.set_all(p.bwd.len());
            self.clk.set_all(p.activity.clk.len());
            self.buffers.set_all(p.buffers.len());
            self.marked.iter_mut().for_each(|m| *m = true);
            self.touched.extend(0..self.marked.len() as u32);
        }
        for k in 0..self.next.len() {
            let n = self.next[k];
            self.mark(n);
        }
        self.next.clear();
        for k in 0..self.always.len() {
            let n = self.always[k];
            self.mark(n);
        }
        let (mut sig, _, _) = st.split();
        let s = &mut sig;
        let mut at = 0;
        while let Some(k) = self.buffers.take_next(at) {
            at = k + 1;
            let (inp, out, reg, slots) = p.buffers[k];
            let before = (
                s.valid[out as usize],
                s.data[out as usize],
                s.ready[inp as usize],
            );
            buffer_outputs(s, inp, out, reg, slots);
            if (s.valid[out as usize], s.data[out as usize]) != (before.0, before.1) {
                self.touch(out);
            }
            if s.ready[inp as usize] != before.2 {
                self.touch(inp);
            }
        }
        let act = &p.activity;
        let mut at = 0;
        while let Some(i) = self.fwd.take_next(at) {
            at = i + 1;
            self.evaluated += 1;
            let w = p.span(act.fwd_writes[i]);
            self.old.clear();
            self.old
                .extend(w.iter().map(|&c| (s.valid[c as usize], s.data[c as usize])));
            fwd_one(p, s, &p.fwd[i]);
            for (k, &c) in w.iter().enumerate() {
                if (s.valid[c as usize], s.data[c as usize]) != self.old[k] {
                    self.touch(c);
                }
            }
        }
        let mut at = 0;
        while let Some(i) = self.bwd.take_next(at) {
            at = i + 1;
            self.evaluated += 1;
            let w = p.span(act.bwd_writes[i]);
            if let [c] = *w {
                let c = c as usize;
                let was = s.ready[c];
                bwd_one(p, s, &p.bwd[i]);
                if s.ready[c] != was {
                    self.touch(c as u32);
                }
                continue;
            }
            self.old.clear();
            self.old.extend(w.iter().map(|&c| (s.ready[c as usize], 0)));
            bwd_one(p, s, &p.bwd[i]);
            for (k, &c) in w.iter().enumerate() {
                if s.ready[c as usize] != self.old[k].0 {
                    self.touch(c);
                }
            }
        }
    }

    /// The clock edge of the active nodes; a node whose registers (or memory) changed is
    /// active in the next cycle.
    pub(crate) fn clock(&mut self, p: &Program, st: &mut State) {
        let (mut sig, _, _) = st.split();
        let s: &mut Sig<'_> = &mut sig;
        s.mem_writes.clear();
        let mut at = 0;
        while let Some(i) = self.clk.take_next(at) {
            at = i + 1;
            self.evaluated += 1;
            let (instr, node) = &p.activity.clk[i];
            let n = *node as usize;
            let (a, b) = self.regs.get(n).copied().unwrap_or((0, 0));
            let (a, b) = (a as usize, b as usize);
            self.before.clear();
            self.before.extend_from_slice(&s.regs[a..b]);
            let writes = s.mem_writes.len();
            clk_one(p, s, instr);
            let changed = s.regs[a..b].iter().zip(&self.before).any(|(x, y)| x != y);
            if changed || s.mem_writes.len() != writes {
                self.next.push(*node);
            }
        }
        for &(mem, _, _) in s.mem_writes.iter() {
            if let Some(m) = p.mems.get(mem as usize) {
                self.next.push(m.node);
            }
        }
        // Instructions of nodes marked this cycle that did not run (none: every pass ran its
        // set bits) leave no bits behind.
        self.fwd.clear();
        self.bwd.clear();
        self.buffers.clear();
    }
}
