//! Random well-formed handshake graphs, deterministic from a seed.
//!
//! [`random_function`] builds a [`Function`] through the graph API (`add_arg`, `add_node`,
//! `set_inputs`, `assign_ids`). Construction keeps a pool of *open* channels (produced, not
//! yet consumed): each new node takes its inputs out of the pool and puts its outputs in, so
//! every channel ends up with exactly one producer and one consumer. When an op needs a type
//! the pool lacks, a cast (`extsi`/`extui`/`trunci`/`index_cast`) or a `join` converts an open
//! channel, or a `source` -> `constant` pair makes one. At the end a few open channels become
//! results (plus a final `none` result, a `join` of whatever control is left) and the rest go
//! to `sink`s. Arguments and results end with a `none` (`start` / `done`).
//!
//! Cycles: every edge goes from an earlier node to a later one, except the inputs of "loop"
//! buffers, which are connected last to an open channel of the buffer's type, often one that
//! depends on the buffer's own output. So every cycle passes through a buffer and there is no
//! combinational cycle.
//!
//! CIRCT 1.62 bugs avoided (see docs/semantics.md, "Differences from CIRCT 1.62"):
//! 1. `mux` always has exactly 2 data inputs; an `i1` select comes from anything, an `index`
//!    select mostly from a 2-input `control_merge`'s index (values 0/1) and sometimes from any
//!    index value or an `i1` sign-extended by `index_cast` (true is -1): out-of-range selects,
//!    of which the RTL reads only the low bit.
//! 2. `merge` and `control_merge` only merge `none` channels, so the data they output is never
//!    compared (the index of `control_merge` is correct in the RTL).
//! 3. `divui`/`divsi` are never generated (`remui`/`remsi` are; both sides give 0 for a zero
//!    divisor).
//! 4. No `br`, `lazy_fork`, `never`; `control_merge` indices are always `index`.
//!
//! 5. CIRCT 1.62 names the module of a `join`/`sync` after its non-`none` operand types only,
//!    so two of them that differ only in `none` operands (`join(i8, none)` and
//!    `join(none, i8)`, `sync(none, i1)` and `sync(i1)`, two all-`none` syncs of different
//!    arity) get one module name and the lowering fails. Generated joins have either only
//!    `none` inputs (named by count) or only data inputs; syncs only integer/index inputs.
//!    (A `sync` with a tuple operand among several fails to lower too.)
//! 6. Only `seq` buffers get `initValues` (CIRCT rejects them on `fifo` buffers).
//! 7. Not CIRCT but Verilator 5.006: constant-folding a shift by a constant of 2^32 or more
//!    crashes it ("Value too wide for 32-bits"), so a shift amount is never computed from
//!    constants alone (such a shift becomes an `xori`).
//!
//! 8. CIRCT 1.62 names a `constant`'s module after the low 64 bits of its value only
//!    (`handshake_constant_c0_out_ui96` for both 2^90 and 2^91 : i96), so two constants of
//!    one width wider than 64 bits whose values differ only above bit 63 share a module and
//!    one of them silently outputs the other's value. Within a graph, wide constants of one
//!    width either are equal or differ in their low 64 bits.
//! 9. `initValues` is an array of 64-bit integers in CIRCT 1.62 (a larger one fails to parse:
//!    "integer constant out of range for attribute"), and it zero-extends a negative one to a
//!    wider channel; initial values of wide buffers are below 2^63.
//! 10. Not CIRCT but Verilator 5.006: its wide division and modulo (`_vl_moddiv_w`,
//!     `VL_MODDIVS_WWW`) keep operands in fixed 16-word stack buffers and crash (SIGSEGV)
//!     above 512 bits, so `remui`/`remsi` wider than 512 bits become `xori`.
//!
//! Wide data ([`GenOptions::wide_percent`] > 0): fresh data types are then sometimes wider
//! than 64 bits ([`WIDE_INT_WIDTHS`]), and tuples may be wider than 64 bits (up to
//! [`MAX_WIDE_TUPLE`] bits, sometimes of three fields). Without it the generator draws
//! exactly the graphs it drew before wide data existed: tuples are at most 64 bits wide.
//! No memories or instances (the per-op tests cover memories).

use std::collections::BTreeSet;

use std::collections::BTreeMap;

use crate::prng::SplitMix64;
use handscope_sim::wide;
use handscope_sim::{
    ArgType, ArithOp, BufferKind, ChannelId, CmpPredicate, Function, NodeId, Op, Type,
};

/// Widths of the wide integer types the generator uses with [`GenOptions::wide_percent`].
pub const WIDE_INT_WIDTHS: [u16; 6] = [65, 96, 128, 200, 512, 4096];

/// Largest tuple the generator packs with [`GenOptions::wide_percent`] (narrow mode: 64).
pub const MAX_WIDE_TUPLE: u32 = 8192;

/// Knobs of the generator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenOptions {
    /// Number of component nodes to add before closing the graph (casts, sinks and the final
    /// join come on top).
    pub ops: usize,
    /// Number of data arguments (the `none` start argument comes on top).
    pub data_args: usize,
    /// Percentage (0 to 100) of fresh data types that are wider than 64 bits
    /// ([`WIDE_INT_WIDTHS`]); above 0, tuples may also be wider than 64 bits. 0 (the
    /// default) gives the narrow graphs of the same seeds as before wide data existed.
    pub wide_percent: u32,
}

impl Default for GenOptions {
    fn default() -> Self {
        GenOptions {
            ops: 16,
            data_args: 3,
            wide_percent: 0,
        }
    }
}

/// The options of graph `seed` in the oracle's random-graph test (and `dump_random`):
/// 8 to 24 ops, 1 to 4 data arguments, and wide data ([`GenOptions::wide_percent`] 35) in
/// every fifth graph (seeds 3, 8, 13, ...); the others are the narrow graphs of before.
pub fn suite_options(seed: u64) -> GenOptions {
    GenOptions {
        ops: 8 + (seed % 17) as usize,
        data_args: 1 + (seed % 4) as usize,
        wide_percent: if seed % 5 == 3 { 35 } else { 0 },
    }
}

/// Small deterministic random source.
#[derive(Clone, Debug)]
pub struct Rng(SplitMix64);

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(SplitMix64::new(seed ^ 0x05EE_D0F0_AC1E))
    }

    /// Next raw 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }

    /// A random element.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// A data value for a channel of type `ty`: often small, sometimes extreme, sometimes
    /// any bit pattern; masked to the width. For a type wider than 64 bits, a wide word
    /// ([`handscope_sim::wide`]).
    pub fn value(&mut self, ty: &Type) -> u64 {
        let w = ty.bit_width();
        if wide::is_wide(w) {
            return self.wide_value(w);
        }
        let raw = match self.below(8) {
            0..=3 => self.below(8) as u64,
            4 => u64::MAX,                            // -1
            5 => 1u64 << (ty.bit_width().max(1) - 1), // INT_MIN
            _ => self.next_u64(),
        };
        raw & ty.mask()
    }

    /// A wide word of a `width`-bit channel (`width > 64`): small, -1, INT_MIN, a 64-bit
    /// pattern, only the top limb set, or all limbs random.
    fn wide_value(&mut self, width: u32) -> u64 {
        let n = wide::limb_count(width);
        let mut limbs = vec![0u64; n];
        match self.below(8) {
            0..=2 => limbs[0] = self.below(8) as u64,
            3 => limbs.fill(u64::MAX),
            4 => limbs[n - 1] = 1u64 << ((width - 1) % 64),
            5 => limbs[0] = self.next_u64(),
            6 => limbs[n - 1] = self.next_u64(),
            _ => limbs.iter_mut().for_each(|l| *l = self.next_u64()),
        }
        wide::from_limbs(&limbs, width)
    }
}

const INT_TYPES: [Type; 7] = [
    Type::Int(1),
    Type::Int(3),
    Type::Int(8),
    Type::Int(13),
    Type::Int(16),
    Type::Int(32),
    Type::Int(64),
];

/// A random scalar data type (integers and `index`); wider than 64 bits in `wide_percent`
/// percent of the draws (no draw at all when it is 0).
fn data_type(rng: &mut Rng, wide_percent: u32) -> Type {
    if wide_percent > 0 && (rng.below(100) as u32) < wide_percent {
        return Type::Int(*rng.pick(&WIDE_INT_WIDTHS));
    }
    if rng.chance(0.1) {
        Type::Index
    } else {
        rng.pick(&INT_TYPES).clone()
    }
}

/// An open channel with a flag telling whether its values are known to be 0 or 1 (usable as
/// an `index` mux select).
#[derive(Clone, Copy, Debug)]
struct Open {
    ch: ChannelId,
    zero_one: bool,
}

struct Builder<'r> {
    f: Function,
    rng: &'r mut Rng,
    pool: Vec<Open>,
    /// Loop buffers whose input is still to be connected.
    loops: Vec<NodeId>,
    /// Channels whose data Verilator can constant-fold (computed from constants only,
    /// without a register in between).
    constant: BTreeSet<ChannelId>,
    /// Percentage of wide fresh types ([`GenOptions::wide_percent`]).
    wide_percent: u32,
    /// Values of the wide constants so far by (width, low 64 bits): see CIRCT bug 8.
    wide_constants: BTreeMap<(u32, u64), u64>,
}

impl Builder<'_> {
    fn ty(&self, ch: ChannelId) -> &Type {
        &self.f.channels[ch].ty
    }

    fn node(&mut self, op: Op, inputs: Vec<ChannelId>, outs: Vec<Type>) -> Vec<ChannelId> {
        let folds = match op {
            Op::Constant { .. } | Op::Source => true,
            Op::Buffer { .. } => false,
            _ => inputs.iter().all(|c| self.constant.contains(c)),
        };
        let n = self.f.add_node(op, outs);
        self.f.set_inputs(n, inputs);
        let outs = self.f.nodes[n].outputs.clone();
        for &ch in &outs {
            self.pool.push(Open {
                ch,
                zero_one: false,
            });
            if folds {
                self.constant.insert(ch);
            }
        }
        outs
    }

    fn take_at(&mut self, i: usize) -> ChannelId {
        self.pool.swap_remove(i).ch
    }

    /// Removes a random open channel satisfying `pred`.
    fn take_where(&mut self, pred: impl Fn(&Type, bool) -> bool) -> Option<ChannelId> {
        let idx: Vec<usize> = (0..self.pool.len())
            .filter(|&i| pred(&self.f.channels[self.pool[i].ch].ty, self.pool[i].zero_one))
            .collect();
        if idx.is_empty() {
            return None;
        }
        let i = *self.rng.pick(&idx);
        Some(self.take_at(i))
    }

    /// Removes a random open channel of type `ty`, converting another one if needed.
    fn take(&mut self, ty: &Type) -> ChannelId {
        if let Some(c) = self.take_where(|t, _| t == ty) {
            return c;
        }
        if let Type::Tuple(fields) = ty {
            let ins: Vec<ChannelId> = fields.iter().map(|t| self.take(t)).collect();
            let out = self.node(Op::Pack, ins, vec![ty.clone()]);
            return self.pop(out[0]);
        }
        if ty.is_none() {
            if let Some(c) = self.take_where(|t, _| !matches!(t, Type::Tuple(_))) {
                let out = self.node(Op::Join, vec![c], vec![Type::None]);
                return self.pop(out[0]);
            }
            let out = self.node(Op::Source, vec![], vec![Type::None]);
            return self.pop(out[0]);
        }
        if let Some(c) = self.take_where(|t, _| t.is_integer()) {
            let from = self.ty(c).clone();
            let op = match (&from, ty) {
                (Type::Index, _) | (_, Type::Index) => ArithOp::IndexCast,
                (Type::Int(a), Type::Int(b)) if a > b => ArithOp::Trunci,
                _ => {
                    if self.rng.chance(0.5) {
                        ArithOp::Extsi
                    } else {
                        ArithOp::Extui
                    }
                }
            };
            let out = self.node(Op::Arith(op), vec![c], vec![ty.clone()]);
            return self.pop(out[0]);
        }
        let src = self.node(Op::Source, vec![], vec![Type::None]);
        let src = self.pop(src[0]);
        let value = self.constant_value(ty);
        let out = self.node(Op::Constant { value }, vec![src], vec![ty.clone()]);
        self.pop(out[0])
    }

    /// A value for a `constant` of type `ty`; for a wide type, the value of an earlier
    /// constant of the same width with the same low 64 bits if there is one (CIRCT bug 8).
    fn constant_value(&mut self, ty: &Type) -> u64 {
        let value = self.rng.value(ty);
        let w = ty.bit_width();
        if !wide::is_wide(w) {
            return value;
        }
        let low = wide::to_limbs(value, w)[0];
        *self.wide_constants.entry((w, low)).or_insert(value)
    }

    /// A fresh data type (see [`data_type`]).
    fn fresh_type(&mut self) -> Type {
        data_type(self.rng, self.wide_percent)
    }

    /// Largest total width of a generated tuple.
    fn max_tuple(&self) -> u32 {
        if self.wide_percent > 0 {
            MAX_WIDE_TUPLE
        } else {
            64
        }
    }

    /// Removes a just-created channel from the pool again (it is consumed right away).
    fn pop(&mut self, ch: ChannelId) -> ChannelId {
        if let Some(i) = self.pool.iter().position(|o| o.ch == ch) {
            self.pool.swap_remove(i);
        }
        ch
    }

    /// Type of a random open channel (or a fresh data type).
    fn some_type(&mut self) -> Type {
        if self.pool.is_empty() || self.rng.chance(0.15) {
            return self.fresh_type();
        }
        let i = self.rng.below(self.pool.len());
        self.ty(self.pool[i].ch).clone()
    }

    /// A type carrying data (integer, index or tuple).
    fn some_value_type(&mut self) -> Type {
        let t = self.some_type();
        if t.is_none() { self.fresh_type() } else { t }
    }

    /// An integer or `index` type.
    fn some_data_type(&mut self) -> Type {
        let t = self.some_type();
        if t.is_integer() { t } else { self.fresh_type() }
    }

    fn add_random_op(&mut self) {
        match self.rng.below(20) {
            0 | 1 => {
                let t = self.some_type();
                let n = 2 + self.rng.below(2);
                let c = self.take(&t);
                self.node(Op::Fork, vec![c], vec![t; n]);
            }
            2 => {
                // Either all inputs `none` or none of them (see the module docs).
                let n = 1 + self.rng.below(3);
                let control = self.rng.chance(0.4);
                let ins: Vec<_> = (0..n)
                    .map(|_| {
                        let t = if control {
                            Type::None
                        } else {
                            self.some_value_type()
                        };
                        self.take(&t)
                    })
                    .collect();
                self.node(Op::Join, ins, vec![Type::None]);
            }
            3 => {
                let n = 1 + self.rng.below(3);
                // Data inputs only, no tuples (see the module docs).
                let tys: Vec<Type> = (0..n).map(|_| self.some_data_type()).collect();
                let ins: Vec<_> = tys.iter().map(|t| self.take(t)).collect();
                self.node(Op::Sync, ins, tys);
            }
            4 | 5 => {
                let t = self.some_type();
                let slots = 1 + self.rng.below(3) as u32;
                let kind = if self.rng.chance(0.5) {
                    BufferKind::Seq
                } else {
                    BufferKind::Fifo
                };
                // Wide initial values below 2^63 (CIRCT bug 9).
                let init_ty = if wide::is_wide(t.bit_width()) {
                    Type::Int(63)
                } else {
                    t.clone()
                };
                let init = (kind == BufferKind::Seq && t.is_integer() && self.rng.chance(0.4))
                    .then(|| (0..slots).map(|_| self.rng.value(&init_ty)).collect());
                let op = Op::Buffer { slots, kind, init };
                if self.rng.chance(0.35) {
                    // A loop buffer: its input is connected at the end.
                    let n = self.f.add_node(op, vec![t]);
                    let out = self.f.nodes[n].outputs[0];
                    self.pool.push(Open {
                        ch: out,
                        zero_one: false,
                    });
                    self.loops.push(n);
                } else {
                    let c = self.take(&t);
                    self.node(op, vec![c], vec![t]);
                }
            }
            6 => {
                let t = self.some_type();
                let cond = self.take(&Type::Int(1));
                let data = self.take(&t);
                self.node(Op::CondBr, vec![cond, data], vec![t.clone(), t]);
            }
            7 | 8 => {
                let t = self.some_type();
                // Out-of-range selects: any index value, or an i1 sign-extended to index (true
                // is -1, as CIRCT's own `lower-cf-to-handshake` produces); only the low select
                // bit counts.
                let any_index = self.rng.chance(0.25);
                let sel = match self.take_where(|ty, z| *ty == Type::Index && (z || any_index)) {
                    Some(s) if any_index || self.rng.chance(0.8) => s,
                    Some(s) => {
                        self.pool.push(Open {
                            ch: s,
                            zero_one: true,
                        });
                        self.take(&Type::Int(1))
                    }
                    None if any_index => {
                        let c = self.take(&Type::Int(1));
                        let out =
                            self.node(Op::Arith(ArithOp::IndexCast), vec![c], vec![Type::Index]);
                        self.pop(out[0])
                    }
                    None => self.take(&Type::Int(1)),
                };
                let a = self.take(&t);
                let b = self.take(&t);
                self.node(Op::Mux, vec![sel, a, b], vec![t]);
            }
            9 => {
                let n = 2 + self.rng.below(2);
                let ins: Vec<_> = (0..n).map(|_| self.take(&Type::None)).collect();
                self.node(Op::Merge, ins, vec![Type::None]);
            }
            10 => {
                let n = 2 + self.rng.below(2);
                let ins: Vec<_> = (0..n).map(|_| self.take(&Type::None)).collect();
                let outs = self.node(Op::ControlMerge, ins, vec![Type::None, Type::Index]);
                if n == 2
                    && let Some(o) = self.pool.iter_mut().find(|o| o.ch == outs[1])
                {
                    o.zero_one = true;
                }
            }
            11 => {
                let t = self.some_data_type();
                let ctrl = self.take(&Type::None);
                let value = self.constant_value(&t);
                self.node(Op::Constant { value }, vec![ctrl], vec![t]);
            }
            12..=15 => {
                const BIN: [ArithOp; 11] = [
                    ArithOp::Addi,
                    ArithOp::Subi,
                    ArithOp::Muli,
                    ArithOp::Remsi,
                    ArithOp::Remui,
                    ArithOp::Andi,
                    ArithOp::Ori,
                    ArithOp::Xori,
                    ArithOp::Shli,
                    ArithOp::Shrsi,
                    ArithOp::Shrui,
                ];
                let t = self.some_data_type();
                let a = self.take(&t);
                let b = self.take(&t);
                let mut op = *self.rng.pick(&BIN);
                // Verilator 5.006 crashes constant-folding a shift by a constant >= 2^32, so
                // a shift amount must not be foldable.
                if matches!(op, ArithOp::Shli | ArithOp::Shrsi | ArithOp::Shrui)
                    && self.constant.contains(&b)
                {
                    op = ArithOp::Xori;
                }
                // Verilator 5.006 cannot divide more than 512 bits (see the module docs).
                if matches!(op, ArithOp::Remsi | ArithOp::Remui) && t.bit_width() > 512 {
                    op = ArithOp::Xori;
                }
                self.node(Op::Arith(op), vec![a, b], vec![t]);
            }
            16 => {
                let t = self.some_data_type();
                let a = self.take(&t);
                let b = self.take(&t);
                let p = *self.rng.pick(&CmpPredicate::ALL);
                self.node(Op::Arith(ArithOp::Cmpi(p)), vec![a, b], vec![Type::Int(1)]);
            }
            17 => {
                let t = self.some_data_type();
                let c = self.take(&Type::Int(1));
                let a = self.take(&t);
                let b = self.take(&t);
                self.node(Op::Arith(ArithOp::Select), vec![c, a, b], vec![t]);
            }
            18 => {
                let tuple = self.take_where(|t, _| matches!(t, Type::Tuple(_)));
                match tuple {
                    Some(c) => {
                        let Type::Tuple(fields) = self.ty(c).clone() else {
                            return;
                        };
                        self.node(Op::Unpack, vec![c], fields);
                    }
                    None => {
                        let max = self.max_tuple();
                        let a = self.some_data_type();
                        let mut b = self.some_data_type();
                        if a.bit_width() + b.bit_width() > max {
                            b = Type::Int(8);
                        }
                        if a.bit_width() + b.bit_width() > max {
                            return;
                        }
                        let mut fields = vec![a, b];
                        // Wide mode: sometimes a third field (`tuple<i32, i64, i64>`-like).
                        if self.wide_percent > 0 && self.rng.chance(0.3) {
                            let c = self.some_data_type();
                            if fields.iter().map(Type::bit_width).sum::<u32>() + c.bit_width()
                                <= max
                            {
                                fields.push(c);
                            }
                        }
                        let ins: Vec<ChannelId> = fields.iter().map(|t| self.take(t)).collect();
                        self.node(Op::Pack, ins, vec![Type::Tuple(fields)]);
                    }
                }
            }
            _ => {
                if self.pool.len() > 3 {
                    let i = self.rng.below(self.pool.len());
                    let c = self.take_at(i);
                    self.node(Op::Sink, vec![c], vec![]);
                } else {
                    let s = self.node(Op::Source, vec![], vec![Type::None]);
                    let _ = s;
                }
            }
        }
    }

    fn finish(mut self) -> Function {
        // Close the loops: each loop buffer reads an open channel of its type.
        for n in std::mem::take(&mut self.loops) {
            let t = self.f.channels[self.f.nodes[n].outputs[0]].ty.clone();
            let c = self.take(&t);
            self.f.set_inputs(n, vec![c]);
        }
        // Results: up to three open data channels, then a `none` done token.
        let mut results = Vec::new();
        let n_data = 1 + self.rng.below(3);
        for _ in 0..n_data {
            if let Some(c) = self.take_where(|t, _| !t.is_none()) {
                results.push(c);
            }
        }
        // Untupled tuple channels are fine as results; everything else left goes to the
        // done join or to sinks.
        let nones: Vec<ChannelId> = {
            let mut v = Vec::new();
            while let Some(c) = self.take_where(|t, _| t.is_none()) {
                v.push(c);
                if v.len() == 3 {
                    break;
                }
            }
            v
        };
        let done = if nones.is_empty() {
            self.take(&Type::None)
        } else {
            let out = self.node(Op::Join, nones, vec![Type::None]);
            self.pop(out[0])
        };
        while let Some(o) = self.pool.pop() {
            let n = self.f.add_node(Op::Sink, vec![]);
            self.f.set_inputs(n, vec![o.ch]);
        }
        results.push(done);
        for (i, &c) in results.iter().enumerate() {
            let ty = self.f.channels[c].ty.clone();
            let name = if i + 1 == results.len() {
                "done".to_string()
            } else {
                format!("out{i}")
            };
            self.f.results.push(handscope_sim::FuncResult { name, ty });
        }
        let ret = self.f.add_node(Op::Return, vec![]);
        self.f.set_inputs(ret, results);
        self.f
    }
}

/// Builds a random well-formed function named `name` from `seed` (see the module docs).
pub fn random_function(name: &str, seed: u64, opts: &GenOptions) -> Function {
    let mut rng = Rng::new(seed);
    let mut f = Function::new(name);
    let mut pool = Vec::new();
    let wp = opts.wide_percent.min(100);
    let max_tuple = if wp > 0 { MAX_WIDE_TUPLE } else { 64 };
    for i in 0..opts.data_args {
        let t = if rng.chance(0.15) {
            let a = data_type(&mut rng, wp);
            let b = data_type(&mut rng, wp);
            if a.bit_width() + b.bit_width() <= max_tuple {
                Type::Tuple(vec![a, b])
            } else {
                a
            }
        } else {
            data_type(&mut rng, wp)
        };
        if let Some(ch) = f.add_arg(format!("in{i}"), ArgType::Channel(t)) {
            pool.push(Open {
                ch,
                zero_one: false,
            });
        }
    }
    if let Some(ch) = f.add_arg("start", ArgType::Channel(Type::None)) {
        pool.push(Open {
            ch,
            zero_one: false,
        });
    }
    let mut b = Builder {
        f,
        rng: &mut rng,
        pool,
        loops: Vec::new(),
        constant: BTreeSet::new(),
        wide_percent: wp,
        wide_constants: BTreeMap::new(),
    };
    for _ in 0..opts.ops {
        b.add_random_op();
    }
    let mut f = b.finish();
    // IDs cannot clash: every node gets a counter-based ID.
    let _ = f.assign_ids();
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn graphs_are_well_formed_and_deterministic() {
        for seed in 0..200 {
            let f = random_function("g", seed, &GenOptions::default());
            let g = random_function("g", seed, &GenOptions::default());
            assert_eq!(f, g, "seed {seed} not deterministic");
            for (_, ch) in f.channels.iter() {
                assert_eq!(
                    ch.consumers.len(),
                    1,
                    "seed {seed}: channel {} consumers",
                    ch.name
                );
            }
            let report = handscope_sim::verify::verify(&f);
            assert!(report.is_ok(), "seed {seed}: {:?}", report.errors);
            assert!(
                f.args
                    .last()
                    .is_some_and(|a| a.ty == ArgType::Channel(Type::None))
            );
            assert!(f.results.last().is_some_and(|r| r.ty.is_none()));
            for (_, n) in f.nodes.iter() {
                if let Op::Mux = n.op {
                    assert_eq!(n.inputs.len(), 3);
                }
                if matches!(n.op, Op::Merge | Op::ControlMerge) {
                    assert!(f.channels[n.outputs[0]].ty.is_none());
                }
                assert!(!matches!(n.op, Op::Arith(ArithOp::Divsi | ArithOp::Divui)));
            }
        }
    }

    #[test]
    fn narrow_mode_never_draws_wide_data() {
        for seed in 0..200 {
            let f = random_function("g", seed, &GenOptions::default());
            assert!(
                f.channels.values().all(|c| c.ty.bit_width() <= 64),
                "seed {seed}"
            );
        }
    }

    #[test]
    fn wide_mode_draws_wide_data_within_circt_limits() {
        let opts = GenOptions {
            wide_percent: 35,
            ..GenOptions::default()
        };
        let (mut wide_arith, mut wide_tuples, mut wide_consts) = (0, 0, 0);
        for seed in 0..200 {
            let f = random_function("g", seed, &opts);
            assert_eq!(f, random_function("g", seed, &opts), "seed {seed}");
            let report = handscope_sim::verify::verify(&f);
            assert!(report.is_ok(), "seed {seed}: {:?}", report.errors);
            // CIRCT bug 8: wide constants of one width differ in their low 64 bits.
            let mut low: BTreeMap<(u32, u64), u64> = BTreeMap::new();
            for (_, n) in f.nodes.iter() {
                let w = n
                    .outputs
                    .first()
                    .map_or(0, |&c| f.channels[c].ty.bit_width());
                match &n.op {
                    Op::Constant { value } if wide::is_wide(w) => {
                        wide_consts += 1;
                        let l = wide::to_limbs(*value, w)[0];
                        let v = *low.entry((w, l)).or_insert(*value);
                        assert_eq!(v, *value, "seed {seed}: constants clash in CIRCT");
                    }
                    // CIRCT bug 9: wide initial values below 2^63.
                    Op::Buffer { init: Some(v), .. } if wide::is_wide(w) => {
                        assert!(v.iter().all(|x| *x < 1 << 63), "seed {seed}");
                    }
                    Op::Arith(ArithOp::Remsi | ArithOp::Remui) => assert!(w <= 512),
                    Op::Arith(_) if wide::is_wide(w) => wide_arith += 1,
                    Op::Pack if wide::is_wide(w) => wide_tuples += 1,
                    _ => {}
                }
                assert!(w <= MAX_WIDE_TUPLE, "seed {seed}");
            }
        }
        assert!(wide_arith > 100, "{wide_arith} wide arith ops");
        assert!(wide_tuples > 10, "{wide_tuples} wide packs");
        assert!(wide_consts > 20, "{wide_consts} wide constants");
    }
}
