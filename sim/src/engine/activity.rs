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

use super::eval::{
    Sig, State, buffer_outputs, bwd_one, clk_one, fwd_one, pipe_quiet_edges, pipe_shift,
};
use super::jit::activity::{ActivityJit, FlagLayout, Marks};
use super::program::{Clk, Program, Seg};

/// The four passes' instruction sets in one vector of words: pass `k`'s positions are the
/// bits of `words[base[k]..base[k + 1]]`, visited in increasing order.
#[derive(Clone, Debug, Default)]
struct Bits {
    words: Vec<u64>,
    /// First word of each pass, and the end.
    base: [usize; 5],
}

impl Bits {
    /// Sets of `lens[k]` positions for the four passes.
    fn new(lens: [usize; 4]) -> Bits {
        let mut base = [0; 5];
        for k in 0..4 {
            base[k + 1] = base[k] + lens[k].div_ceil(64);
        }
        Bits {
            words: vec![0; base[4]],
            base,
        }
    }

    /// The word holding position `i` of pass `pass`, as an index into `words`.
    fn word_of(&self, pass: u8, i: u32) -> u32 {
        (self.base[pass as usize] + (i as usize >> 6)) as u32
    }

    /// Every position of pass `pass` below `n`.
    fn set_all(&mut self, pass: usize, n: usize) {
        let b = self.base[pass];
        for w in 0..self.base[pass + 1] - b {
            let left = n.saturating_sub(w * 64).min(64);
            self.words[b + w] = if left == 64 {
                u64::MAX
            } else {
                (1 << left) - 1
            };
        }
    }

    /// Clears pass `pass`.
    fn clear(&mut self, pass: usize) {
        let (a, b) = (self.base[pass], self.base[pass + 1]);
        self.words[a..b].iter_mut().for_each(|w| *w = 0);
    }

    /// The first set position of pass `pass` at or after `from`, cleared.
    #[inline(always)]
    fn take_next(&mut self, pass: usize, from: usize) -> Option<usize> {
        let (base, end) = (self.base[pass], self.base[pass + 1]);
        let mut w = base + (from >> 6);
        if w >= end {
            return None;
        }
        let mut word = self.words[w] & (u64::MAX << (from & 63));
        loop {
            if word != 0 {
                let b = word.trailing_zeros() as usize;
                self.words[w] &= !(1 << b);
                return Some((w - base) * 64 + b);
            }
            w += 1;
            if w >= end {
                return None;
            }
            word = self.words[w];
        }
    }
}

/// The instructions of one node (or of the nodes on a channel) in the passes, as words of
/// [`Bits`] to OR in: `(word, mask)`. Passes: 0 forward, 1 backward, 2 clock, 3 buffer
/// outputs.
#[derive(Clone, Debug, Default)]
struct NodeInstrs {
    words: Vec<(u32, u64)>,
}

impl NodeInstrs {
    fn add_mask(&mut self, w: u32, mask: u64) {
        match self.words.iter_mut().find(|e| e.0 == w) {
            Some(e) => e.1 |= mask,
            None => self.words.push((w, mask)),
        }
    }

    fn add(&mut self, bits: &Bits, pass: u8, i: u32) {
        self.add_mask(bits.word_of(pass, i), 1u64 << (i & 63));
    }
}

/// The per-run bookkeeping of activity-driven evaluation for one [`Program`].
#[derive(Debug)]
pub(crate) struct Activity {
    /// The passes compiled (`super::jit::activity`), with their flags; `None`: interpreted
    /// with [`Bits`].
    compiled: Option<Compiled>,
    /// Per channel, the instructions of the nodes that touch it, merged into bit-set words:
    /// `ch_masks[ch_start[c]..ch_start[c + 1]]`.
    ch_start: Vec<u32>,
    ch_masks: Vec<(u32, u64)>,
    /// Per node, its instructions.
    instrs: Vec<NodeInstrs>,
    /// Nodes active in the next cycle (registers or memory changed at this clock edge).
    next: Vec<u32>,
    /// The channels the environment drives, with what it drove in the previous cycle:
    /// `(channel, drives valid and data (an argument) or ready (a result))`.
    env: Vec<(u32, bool)>,
    env_prev: Vec<(bool, u64)>,
    /// Scratch: the environment's channels that changed this cycle.
    env_changed: Vec<u32>,
    /// Active instructions of each pass.
    bits: Bits,
    /// Per forward and backward instruction: its one written channel, or [`MANY`] (then
    /// `Program::activity`'s spans list them).
    fwd_one_write: Vec<u32>,
    bwd_one_write: Vec<u32>,
    /// Per clock instruction: its node's register range.
    clk_regs: Vec<(u32, u32)>,
    /// Per node: `(reg, latency, ii)` when it is a pipelined unit (its one clock
    /// instruction a `Clk::Pipe`), which [`Activity::quiet_edges`] can look ahead for.
    pipes: Vec<Option<(u32, u32, u32)>>,
    /// Scratch: registers before a clock edge (wide nodes), written values before an
    /// instruction.
    before: Vec<u64>,
    old: Vec<(bool, u64)>,
    /// The first cycle runs every instruction.
    first: bool,
    /// Whether a channel changed in the current cycle's settle.
    changed: bool,
    /// Instructions evaluated so far (forward, backward and clock).
    evaluated: u64,
    /// The cycle this engine took over at.
    since: u64,
}

/// The compiled passes and the flags they read and set.
#[derive(Debug)]
struct Compiled {
    jit: Box<ActivityJit>,
    layout: FlagLayout,
    flags: Vec<u8>,
    /// Per channel, its flags (this cycle's) and the "changed" byte; per node, its flags
    /// for the next cycle.
    channel: Vec<Vec<u32>>,
    node_next: Vec<Vec<u32>>,
}

impl Compiled {
    /// Compiles the passes of `p`: `None` when the code generator cannot.
    fn new(
        p: &Program,
        instrs: &[NodeInstrs],
        nodes_of: &[Vec<usize>],
        bits: &Bits,
    ) -> Option<Compiled> {
        let layout = FlagLayout::of(p);
        // A bit position of `Bits` as a flag index: the passes are laid out alike, in the
        // same order, except the clock instructions' next-cycle range.
        let flag_of = |w: u32, b: u32, next: bool| -> u32 {
            let pos = (w as usize) * 64 + b as usize;
            let (pass, i) = (0..4)
                .rev()
                .find(|&k| pos >= bits.base[k] * 64)
                .map(|k| (k, pos - bits.base[k] * 64))
                .unwrap_or((0, pos));
            let start = match pass {
                0 => layout.fwd,
                1 => layout.bwd,
                2 if next => layout.clk_next,
                2 => layout.clk,
                _ => layout.buffers,
            };
            start + i as u32
        };
        let flags_of = |ni: &NodeInstrs, next: bool| -> Vec<u32> {
            let mut v = Vec::new();
            for &(w, mask) in &ni.words {
                let mut m = mask;
                while m != 0 {
                    let b = m.trailing_zeros();
                    m &= m - 1;
                    v.push(flag_of(w, b, next));
                }
            }
            v
        };
        // Every flag set with its group's (a next-cycle clock flag's group is set when it
        // is merged, at the next settle).
        let with_groups = |mut v: Vec<u32>| -> Vec<u32> {
            let groups: Vec<u32> = v.iter().filter_map(|&f| layout.group_of(f)).collect();
            v.extend(groups);
            v.sort_unstable();
            v.dedup();
            v
        };
        let node_next: Vec<Vec<u32>> = instrs
            .iter()
            .map(|ni| with_groups(flags_of(ni, true)))
            .collect();
        let node_now: Vec<Vec<u32>> = instrs.iter().map(|ni| flags_of(ni, false)).collect();
        let channel: Vec<Vec<u32>> = nodes_of
            .iter()
            .map(|l| {
                let mut v = with_groups(
                    l.iter()
                        .flat_map(|&n| node_now[n].iter().copied())
                        .collect(),
                );
                v.push(layout.changed);
                v
            })
            .collect();
        let clk_regs: Vec<(u32, u32)> = p
            .activity
            .clk
            .iter()
            .map(|&(_, n)| p.node_regs.get(n as usize).copied().unwrap_or((0, 0)))
            .collect();
        let clk_nodes: Vec<u32> = p.activity.clk.iter().map(|&(_, n)| n).collect();
        let marks = Marks {
            channel: &channel,
            node_next: &node_next,
            clk_regs: &clk_regs,
            clk_nodes: &clk_nodes,
        };
        let jit = ActivityJit::new(p, &marks).ok()?;
        Some(Compiled {
            jit: Box::new(jit),
            layout,
            flags: vec![0; layout.len],
            channel,
            node_next,
        })
    }
}

/// No single written channel (see [`Activity::fwd_one_write`]).
const MANY: u32 = u32::MAX;

/// Channels an instruction writes whose old values are kept on the stack (more go through
/// a vector).
const STACK_WRITES: usize = 8;

/// Registers of a node compared on the stack at a clock edge (more go through a vector).
const STACK_REGS: usize = 16;

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

    /// Bookkeeping for `p` whose function is `f`, taking over at cycle `since`, every node
    /// active in its first cycle; the passes compiled when `compile` and the code
    /// generator can.
    pub(crate) fn new(
        p: &Program,
        f: &crate::graph::Function,
        since: u64,
        compile: bool,
    ) -> Activity {
        let n_nodes = f.nodes.len();
        let regs = &p.node_regs;
        let act = &p.activity;
        let bits = Bits::new([p.fwd.len(), p.bwd.len(), act.clk.len(), p.buffers.len()]);
        let mut instrs = vec![NodeInstrs::default(); n_nodes];
        for (i, &n) in act.fwd_nodes.iter().enumerate() {
            instrs[n as usize].add(&bits, 0, i as u32);
        }
        for (i, &n) in act.bwd_nodes.iter().enumerate() {
            instrs[n as usize].add(&bits, 1, i as u32);
        }
        for (i, &(_, n)) in act.clk.iter().enumerate() {
            instrs[n as usize].add(&bits, 2, i as u32);
        }
        for (k, &(_, _, reg, _)) in p.buffers.iter().enumerate() {
            if let Some(n) = regs.iter().position(|&(a, b)| a <= reg && reg < b) {
                instrs[n].add(&bits, 3, k as u32);
            }
        }
        // Per channel, the union of its nodes' instruction words.
        let mut ch_start = Vec::with_capacity(p.n_channels + 1);
        let mut ch_masks: Vec<(u32, u64)> = Vec::new();
        let mut nodes_of = vec![Vec::new(); p.n_channels];
        for (cid, ch) in f.channels.iter() {
            let l = &mut nodes_of[cid.index()];
            l.push(ch.producer.node.index());
            l.extend(ch.consumers.iter().map(|c| c.node.index()));
        }
        for l in &nodes_of {
            let from = ch_masks.len();
            ch_start.push(from as u32);
            let mut merged = NodeInstrs::default();
            for &n in l {
                for &(w, mask) in &instrs[n].words {
                    merged.add_mask(w, mask);
                }
            }
            merged.words.sort_unstable();
            ch_masks.extend(merged.words);
        }
        ch_start.push(ch_masks.len() as u32);
        let mut clks_of = vec![0u32; n_nodes];
        for &(_, n) in &act.clk {
            clks_of[n as usize] += 1;
        }
        let mut pipes = vec![None; n_nodes];
        for &(ref c, n) in &act.clk {
            if let Clk::Pipe {
                reg, latency, ii, ..
            } = *c
                && clks_of[n as usize] == 1
            {
                pipes[n as usize] = Some((reg, latency, ii));
            }
        }
        let mut env: Vec<(u32, bool)> = p.args.iter().map(|&(_, c)| (c, true)).collect();
        env.extend(p.results.iter().map(|&c| (c, false)));
        let one = |spans: &[super::program::Span]| -> Vec<u32> {
            spans
                .iter()
                .map(|&w| match *p.span(w) {
                    [c] => c,
                    _ => MANY,
                })
                .collect()
        };
        let compiled = if compile {
            Compiled::new(p, &instrs, &nodes_of, &bits)
        } else {
            None
        };
        Activity {
            compiled,
            ch_start,
            ch_masks,
            instrs,
            next: Vec::new(),
            env_prev: vec![(false, 0); env.len()],
            env_changed: Vec::new(),
            env,
            bits,
            fwd_one_write: one(&act.fwd_writes),
            bwd_one_write: one(&act.bwd_writes),
            clk_regs: act
                .clk
                .iter()
                .map(|&(_, n)| regs.get(n as usize).copied().unwrap_or((0, 0)))
                .collect(),
            pipes,
            before: Vec::new(),
            old: Vec::new(),
            first: true,
            changed: false,
            evaluated: 0,
            since,
        }
    }

    /// Instructions evaluated so far.
    pub(crate) fn evaluated(&self) -> u64 {
        self.evaluated
    }

    /// The cycle this engine took over at.
    pub(crate) fn since(&self) -> u64 {
        self.since
    }

    /// After a clock edge ending a cycle in which nothing changed: how many more cycles
    /// will change nothing either, when the environment stays as it is. Those cycles' only
    /// work is the clock edges of the nodes whose registers changed; when every one of them
    /// is a pipelined unit whose tokens are only moving on ([`pipe_quiet_edges`]), the
    /// answer is the fewest edges before one of their outputs changes (`u64::MAX`: none
    /// ever does). `None` when another node's registers or a memory changed.
    pub(crate) fn quiet_edges(&self, st: &State) -> Option<u64> {
        let mut edges = u64::MAX;
        for &n in &self.next {
            let (reg, latency, ii) = self.pipes[n as usize]?;
            edges = edges.min(pipe_quiet_edges(&st.regs, reg, latency, ii)?);
        }
        Some(edges)
    }

    /// Applies `k` of the cycles [`Activity::quiet_edges`] allowed: the clock edges of the
    /// pipelined units among the nodes whose registers changed (which stay active).
    pub(crate) fn skip_quiet(&mut self, st: &mut State, k: u64) {
        for &n in &self.next {
            if let Some((reg, latency, _)) = self.pipes[n as usize] {
                pipe_shift(&mut st.regs, reg, latency, k, &mut self.before);
                self.evaluated += k;
            }
        }
    }

    /// Marks node `n` active for the rest of the cycle.
    #[inline(always)]
    fn mark(&mut self, n: u32) {
        for &(w, mask) in &self.instrs[n as usize].words {
            self.bits.words[w as usize] |= mask;
        }
    }

    /// Marks the nodes on channel `c` active: channel `c` changed.
    #[inline(always)]
    fn touch(&mut self, c: u32) {
        self.changed = true;
        let (a, b) = (
            self.ch_start[c as usize] as usize,
            self.ch_start[c as usize + 1] as usize,
        );
        for &(w, mask) in &self.ch_masks[a..b] {
            self.bits.words[w as usize] |= mask;
        }
    }

    /// Settles the cycle's signals, evaluating the active nodes only. The environment's
    /// channels must already be driven. Returns whether any channel's signals changed from
    /// the previous cycle.
    pub(crate) fn settle(&mut self, p: &Program, st: &mut State) -> bool {
        if self.compiled.is_some() {
            return self.settle_compiled(p, st);
        }
        self.changed = false;
        if self.first {
            self.first = false;
            self.changed = true;
            self.bits.set_all(0, p.fwd.len());
            self.bits.set_all(1, p.bwd.len());
            self.bits.set_all(2, p.activity.clk.len());
            self.bits.set_all(3, p.buffers.len());
        }
        for k in 0..self.next.len() {
            let n = self.next[k];
            self.mark(n);
        }
        self.next.clear();
        // The environment's channels: a change of what it drives makes their nodes active.
        self.env_changes(st);
        for k in 0..self.env_changed.len() {
            let c = self.env_changed[k];
            self.touch(c);
        }
        let (mut sig, _, _) = st.split();
        let s = &mut sig;
        let mut at = 0;
        while let Some(k) = self.bits.take_next(3, at) {
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
        while let Some(i) = self.bits.take_next(0, at) {
            at = i + 1;
            self.evaluated += 1;
            let c = self.fwd_one_write[i];
            if c != MANY {
                let c = c as usize;
                let was = (s.valid[c], s.data[c]);
                fwd_one(p, s, &p.fwd[i]);
                if (s.valid[c], s.data[c]) != was {
                    self.touch(c as u32);
                }
                continue;
            }
            let w = p.span(act.fwd_writes[i]);
            if w.len() <= STACK_WRITES {
                let mut old = [(false, 0u64); STACK_WRITES];
                for (o, &c) in old.iter_mut().zip(w) {
                    *o = (s.valid[c as usize], s.data[c as usize]);
                }
                fwd_one(p, s, &p.fwd[i]);
                for (o, &c) in old.iter().zip(w) {
                    if (s.valid[c as usize], s.data[c as usize]) != *o {
                        self.touch(c);
                    }
                }
                continue;
            }
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
        while let Some(i) = self.bits.take_next(1, at) {
            at = i + 1;
            self.evaluated += 1;
            let c = self.bwd_one_write[i];
            if c != MANY {
                let c = c as usize;
                let was = s.ready[c];
                bwd_one(p, s, &p.bwd[i]);
                if s.ready[c] != was {
                    self.touch(c as u32);
                }
                continue;
            }
            let w = p.span(act.bwd_writes[i]);
            if w.len() <= STACK_WRITES {
                let mut old = [false; STACK_WRITES];
                for (o, &c) in old.iter_mut().zip(w) {
                    *o = s.ready[c as usize];
                }
                bwd_one(p, s, &p.bwd[i]);
                for (o, &c) in old.iter().zip(w) {
                    if s.ready[c as usize] != *o {
                        self.touch(c);
                    }
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
        self.changed
    }

    /// The environment's channels whose driven signals (an argument's `valid`/`data`, a
    /// result's `ready`) differ from the last cycle's, into `env_changed`.
    fn env_changes(&mut self, st: &State) {
        self.env_changed.clear();
        for (k, &(c, arg)) in self.env.iter().enumerate() {
            let now = if arg {
                (st.valid[c as usize], st.data[c as usize])
            } else {
                (st.ready[c as usize], 0)
            };
            if now != self.env_prev[k] {
                self.env_prev[k] = now;
                self.env_changed.push(c);
            }
        }
    }

    /// [`Activity::settle`] by the compiled passes.
    fn settle_compiled(&mut self, p: &Program, st: &mut State) -> bool {
        self.env_changes(st);
        let Some(c) = self.compiled.as_mut() else {
            return false;
        };
        let l = c.layout;
        let (clk, next) = (l.clk as usize, l.clk_next as usize);
        let n_clk = l.buffers as usize - clk;
        let f = &mut c.flags;
        // Clock instructions marked at the last clock edge, and their groups; looked at
        // 16 at once (the next-cycle range is nearly always empty).
        for k in (0..n_clk).step_by(16) {
            let e = (k + 16).min(n_clk);
            let idle = match <[u8; 16]>::try_from(&f[next + k..next + e]) {
                Ok(b) => u128::from_ne_bytes(b) == 0,
                Err(_) => f[next + k..next + e].iter().all(|&x| x == 0),
            };
            if idle {
                continue;
            }
            for j in k..e {
                if f[next + j] != 0 {
                    f[next + j] = 0;
                    f[clk + j] = 1;
                    f[l.clock_group(j) as usize] = 1;
                }
            }
        }
        f[l.changed as usize] = 0;
        if self.first {
            self.first = false;
            f[..next].fill(1);
            f[l.changed as usize] = 1;
            f[l.groups as usize..].fill(1);
        }
        // The nodes whose registers changed were marked by the clock edge.
        self.next.clear();
        for &ch in &self.env_changed {
            for &i in &c.channel[ch as usize] {
                c.flags[i as usize] = 1;
            }
        }
        self.evaluated += c.jit.settle(p, st, &mut c.flags);
        c.flags[l.changed as usize] != 0
    }

    /// [`Activity::clock`] by the compiled passes.
    fn clock_compiled(&mut self, p: &Program, st: &mut State) {
        let Some(c) = self.compiled.as_mut() else {
            return;
        };
        let l = c.layout;
        // What the settle left set (instructions behind a pass's position) is not for the
        // next cycle; the clock edge marks that.
        c.flags[l.fwd as usize..l.clk as usize].fill(0);
        c.flags[l.buffers as usize..l.clk_next as usize].fill(0);
        c.flags[l.groups as usize..l.clock_groups as usize].fill(0);
        st.mem_writes.clear();
        self.evaluated += c.jit.clock(p, st, &mut c.flags, &mut self.next);
        for &(mem, _, _) in st.mem_writes.iter() {
            if let Some(m) = p.mems.get(mem as usize) {
                for &i in &c.node_next[m.node as usize] {
                    c.flags[i as usize] = 1;
                }
                self.next.push(m.node);
            }
        }
    }

    /// Whether the passes run as compiled code.
    pub(crate) fn is_compiled(&self) -> bool {
        self.compiled.is_some()
    }

    /// The clock edge of the active nodes; a node whose registers (or memory) changed is
    /// active in the next cycle.
    pub(crate) fn clock(&mut self, p: &Program, st: &mut State) {
        if self.compiled.is_some() {
            return self.clock_compiled(p, st);
        }
        let (mut sig, _, _) = st.split();
        let s: &mut Sig<'_> = &mut sig;
        s.mem_writes.clear();
        let mut at = 0;
        while let Some(i) = self.bits.take_next(2, at) {
            at = i + 1;
            self.evaluated += 1;
            let (instr, node) = &p.activity.clk[i];
            let (a, b) = self.clk_regs[i];
            let (a, b) = (a as usize, b as usize);
            let writes = s.mem_writes.len();
            let changed = if b - a <= STACK_REGS {
                let mut before = [0u64; STACK_REGS];
                before[..b - a].copy_from_slice(&s.regs[a..b]);
                clk_one(p, s, instr);
                s.regs[a..b] != before[..b - a]
            } else {
                self.before.clear();
                self.before.extend_from_slice(&s.regs[a..b]);
                clk_one(p, s, instr);
                s.regs[a..b] != self.before[..]
            };
            if changed || s.mem_writes.len() != writes {
                self.next.push(*node);
            }
        }
        for &(mem, _, _) in s.mem_writes.iter() {
            if let Some(m) = p.mems.get(mem as usize) {
                self.next.push(m.node);
            }
        }
        // Bits set behind a pass's position (a later pass changed a channel an earlier
        // instruction reads, which it cannot: the passes settle in one sweep) are cleared.
        self.bits.clear(0);
        self.bits.clear(1);
        self.bits.clear(3);
    }
}
