//! Compiles a flattened [`Function`] into a [`Program`]: flat instruction lists ordered by the
//! combinational dependencies, with strongly connected parts marked for fixed-point iteration.

use cranelift_entity::EntityRef;
use petgraph::graph::{DiGraph, NodeIndex};

use super::SimError;
use super::arith::{BinOp, CastKind};
use super::float_arith::{FBinOp, FConv, FUnOp};
use super::program::{
    AddrQueueInfo, Bwd, Clk, DynLsqInfo, DynMcInfo, Fwd, Kinded, LsqGroupInfo, MemInfo, Program,
    Seg, Span, WideOp,
};
use crate::graph::Function;
use crate::ops::{ArithOp, Op};
use crate::spec::{CountContext, RegField, SlotPart, StateLayout, slot_regs, stage_regs};
use crate::types::{MAX_DATA_WIDTH, Type};

/// An instruction plus the channels whose signal it reads and writes (for ordering).
struct Pending<I> {
    instr: I,
    node: u32,
    reads: Vec<u32>,
    writes: Vec<u32>,
}

struct Builder<'f> {
    f: &'f Function,
    p: Program,
    fwd: Vec<Pending<Fwd>>,
    bwd: Vec<Pending<Bwd>>,
    /// The node of each entry of `p.clk`, in order.
    clk_nodes: Vec<u32>,
}

fn ch(c: crate::ChannelId) -> u32 {
    c.as_u32()
}

impl Builder<'_> {
    fn span(&mut self, items: impl IntoIterator<Item = u32>) -> Span {
        let start = self.p.ports.len() as u32;
        self.p.ports.extend(items);
        Span {
            start,
            len: self.p.ports.len() as u32 - start,
        }
    }

    /// Allocates a node's registers as its op's [`StateLayout`] lists them (reset value 0,
    /// except buffer slots preloaded by `initValues`); returns the first word.
    fn alloc_regs(&mut self, node: &crate::Node, layout: StateLayout, data_mask: u64) -> u32 {
        let start = self.p.reg_init.len() as u32;
        let init = match &node.op {
            Op::Buffer {
                init: Some(init), ..
            } => init.as_slice(),
            _ => &[],
        };
        for field in layout.fields(node.outputs.len()) {
            let reset = match field {
                RegField::Slot { slot, part } => match (init.get(slot as usize), part) {
                    (Some(_), SlotPart::Valid) => 1,
                    (Some(&x), SlotPart::Data) => x & data_mask,
                    _ => 0,
                },
                _ => 0,
            };
            self.p.reg_init.push(reset);
            self.p.reg_names.push(field.to_string());
        }
        start
    }

    fn fwd(&mut self, node: u32, instr: Fwd, reads: Vec<u32>, writes: Vec<u32>) {
        self.fwd.push(Pending {
            instr,
            node,
            reads,
            writes,
        });
    }

    fn clk(&mut self, node: u32, instr: Clk) {
        self.p.clk.push(instr);
        self.clk_nodes.push(node);
    }

    fn bwd(&mut self, node: u32, instr: Bwd, reads: Vec<u32>, writes: Vec<u32>) {
        self.bwd.push(Pending {
            instr,
            node,
            reads,
            writes,
        });
    }
}

fn width(ty: &Type) -> u32 {
    ty.bit_width()
}

/// Compiles `f`. Fails on `instance` nodes, channels without exactly one consumer, channels
/// wider than [`MAX_DATA_WIDTH`] bits and malformed nodes.
pub fn compile(f: &Function) -> Result<Program, SimError> {
    // Size limits first: nothing below allocates for a graph that exceeds one.
    if let Some(e) = crate::limits::check(f).into_iter().next() {
        return Err(SimError::Malformed {
            node: e
                .node
                .map_or_else(|| format!("@{}", f.name), |n| f.nodes[n].id.clone()),
            what: e.message,
        });
    }
    let mut b = Builder {
        f,
        p: Program::default(),
        fwd: Vec::new(),
        bwd: Vec::new(),
        clk_nodes: Vec::new(),
    };
    b.p.n_channels = f.channels.len();
    let mut full = Vec::with_capacity(f.channels.len());
    for (_, c) in f.channels.iter() {
        let w = width(&c.ty);
        if w > MAX_DATA_WIDTH {
            return Err(SimError::TooWide {
                channel: c.name.clone(),
                width: w,
            });
        }
        b.p.widths.push(w.min(64) as u8);
        full.push(w);
        if c.consumers.len() != 1 {
            return Err(SimError::Consumers {
                channel: c.name.clone(),
                count: c.consumers.len(),
            });
        }
    }
    b.p.node_regs = vec![(0, 0); f.nodes.len()];
    let widths = b.p.widths.clone();
    for (nid, node) in f.nodes.iter() {
        let start = b.p.reg_init.len() as u32;
        compile_node(&mut b, &widths, &full, nid.as_u32(), node)?;
        b.p.node_regs[nid.index()] = (start, b.p.reg_init.len() as u32);
    }
    resolve_island_memories(&mut b.p, f)?;
    // Arguments and results.
    for (i, a) in f.args.iter().enumerate() {
        if let Some(n) = a.node {
            b.p.args.push((i, ch(f.nodes[n].outputs[0])));
        }
    }
    if let Some(r) = f.return_node() {
        b.p.results = f.nodes[r].inputs.iter().map(|&c| ch(c)).collect();
    }
    if b.p.results.len() != f.results.len() {
        return Err(SimError::Malformed {
            node: "return".into(),
            what: format!(
                "the return node has {} operands but the function declares {} results",
                b.p.results.len(),
                f.results.len()
            ),
        });
    }
    let n = b.p.n_channels;
    // Buffer outputs depend only on registers: `settle` drives them first. Constant signals
    // (`source`, `never`, `sink`) are driven once. Not with lazy forks, whose iteration
    // starts each cycle from "nothing ready".
    if !b.p.global_iterate {
        let (stat, dyn_): (Vec<_>, Vec<_>) = std::mem::take(&mut b.fwd)
            .into_iter()
            .filter(|p| !matches!(p.instr, Fwd::BufOut { .. }))
            .partition(|p| matches!(p.instr, Fwd::Fixed { .. }));
        b.fwd = dyn_;
        b.p.static_fwd = stat.into_iter().map(|p| p.instr).collect();
        let (stat, dyn_): (Vec<_>, Vec<_>) = std::mem::take(&mut b.bwd)
            .into_iter()
            .filter(|p| !matches!(p.instr, Bwd::BufIn { .. }))
            .partition(|p| matches!(p.instr, Bwd::Sink { .. }));
        b.bwd = dyn_;
        b.p.static_bwd = stat.into_iter().map(|p| p.instr).collect();
    }
    let fwd = std::mem::take(&mut b.fwd);
    let (fwd, fwd_segs, fwd_nodes, fwd_writes) = order(fwd, n, &mut b.p.ports);
    b.p.fwd = fwd;
    b.p.fwd_segs = fwd_segs;
    let bwd = std::mem::take(&mut b.bwd);
    let (bwd, bwd_segs, bwd_nodes, bwd_writes) = order(bwd, n, &mut b.p.ports);
    b.p.bwd = bwd;
    b.p.bwd_segs = bwd_segs;
    b.p.activity = crate::engine::program::ActivityInfo {
        fwd_nodes,
        fwd_writes,
        bwd_nodes,
        bwd_writes,
        clk: b
            .p
            .clk
            .iter()
            .cloned()
            .zip(b.clk_nodes.iter().copied())
            .collect(),
    };
    b.p.specialize();
    b.p.clk.sort_by_key(Kinded::kind);
    Ok(b.p)
}

/// Orders instructions so every signal is written before it is read. Instructions are
/// grouped by dependency level (longest path from a source) and, within a level, sorted by
/// kind so that runs of identical instructions execute back to back (predictable dispatch).
/// Strongly connected groups become [`Seg::Loop`]s at their level.
#[allow(clippy::type_complexity)]
fn order<I: Kinded>(
    items: Vec<Pending<I>>,
    n_channels: usize,
    ports: &mut Vec<u32>,
) -> (Vec<I>, Vec<Seg>, Vec<u32>, Vec<Span>) {
    let mut writer = vec![u32::MAX; n_channels];
    for (i, it) in items.iter().enumerate() {
        for &w in &it.writes {
            writer[w as usize] = i as u32;
        }
    }
    let mut g: DiGraph<(), ()> = DiGraph::with_capacity(items.len(), items.len() * 2);
    for _ in 0..items.len() {
        g.add_node(());
    }
    for (i, it) in items.iter().enumerate() {
        for &r in &it.reads {
            let w = writer[r as usize];
            if w != u32::MAX {
                g.add_edge(NodeIndex::new(w as usize), NodeIndex::new(i), ());
            }
        }
    }
    let mut sccs = crate::scc::tarjan_scc(&g);
    sccs.reverse();
    let mut scc_of = vec![0usize; items.len()];
    for (k, scc) in sccs.iter().enumerate() {
        for ix in scc {
            scc_of[ix.index()] = k;
        }
    }
    // Level of each SCC: one more than the deepest predecessor SCC.
    let mut level = vec![0usize; sccs.len()];
    for (k, scc) in sccs.iter().enumerate() {
        let mut l = 0;
        for ix in scc {
            for pred in g.neighbors_directed(*ix, petgraph::Direction::Incoming) {
                let ps = scc_of[pred.index()];
                if ps != k {
                    l = l.max(level[ps] + 1);
                }
            }
        }
        level[k] = l;
    }
    let max_level = level.iter().copied().max().unwrap_or(0);
    let mut straight: Vec<Vec<usize>> = vec![Vec::new(); max_level + 1];
    let mut loops: Vec<Vec<usize>> = vec![Vec::new(); max_level + 1];
    for (k, scc) in sccs.iter().enumerate() {
        let cyclic = scc.len() > 1 || g.contains_edge(scc[0], scc[0]);
        if cyclic {
            loops[level[k]].push(k);
        } else {
            straight[level[k]].push(scc[0].index());
        }
    }
    let mut slots: Vec<Option<Pending<I>>> = items.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(slots.len());
    let mut nodes = Vec::with_capacity(slots.len());
    let mut writes = Vec::with_capacity(slots.len());
    let span_of = |ports: &mut Vec<u32>, w: &[u32]| {
        let start = ports.len() as u32;
        ports.extend_from_slice(w);
        Span {
            start,
            len: w.len() as u32,
        }
    };
    let mut segs = Vec::new();
    for l in 0..=max_level {
        let mut ixs = std::mem::take(&mut straight[l]);
        ixs.sort_by_key(|&i| (slots[i].as_ref().map_or(0, |p| p.instr.kind()), i));
        let start = out.len() as u32;
        for i in ixs {
            let it = slots[i].take().expect("each instruction once");
            nodes.push(it.node);
            writes.push(span_of(ports, &it.writes));
            out.push(it.instr);
        }
        if start < out.len() as u32 {
            match segs.last_mut() {
                Some(Seg::Straight(_, e)) if *e == start => *e = out.len() as u32,
                _ => segs.push(Seg::Straight(start, out.len() as u32)),
            }
        }
        for &k in &loops[l] {
            let start = out.len() as u32;
            let mut chans = Vec::new();
            let mut node = u32::MAX;
            for ix in &sccs[k] {
                let it = slots[ix.index()].take().expect("each instruction once");
                chans.extend(it.writes.iter().copied());
                node = node.min(it.node);
                nodes.push(it.node);
                writes.push(span_of(ports, &it.writes));
                out.push(it.instr);
            }
            let end = out.len() as u32;
            let cstart = ports.len() as u32;
            ports.extend(chans);
            let chans = Span {
                start: cstart,
                len: ports.len() as u32 - cstart,
            };
            segs.push(Seg::Loop {
                start,
                end,
                chans,
                node,
            });
        }
    }
    (out, segs, nodes, writes)
}

fn malformed(node: &crate::Node, what: impl Into<String>) -> SimError {
    SimError::Malformed {
        node: node.id.clone(),
        what: what.into(),
    }
}

fn compile_node(
    b: &mut Builder<'_>,
    widths: &[u8],
    full: &[u32],
    nid: u32,
    node: &crate::Node,
) -> Result<(), SimError> {
    let f = b.f;
    let ins: Vec<u32> = node.inputs.iter().map(|&c| ch(c)).collect();
    let outs: Vec<u32> = node.outputs.iter().map(|&c| ch(c)).collect();
    let sp = node.op.spec();
    let cx = CountContext {
        inputs: ins.len(),
        function_results: f.results.len(),
    };
    for (what, ports, n) in [
        ("inputs", &sp.inputs, ins.len()),
        ("outputs", &sp.outputs, outs.len()),
    ] {
        if let Some(c) = ports.count().resolve(&cx)
            && !c.accepts(n)
        {
            return Err(malformed(
                node,
                format!(
                    "`{}` needs {} {what}, has {n}",
                    node.op.mnemonic(),
                    c.describe()
                ),
            ));
        }
    }
    let data_mask = outs.first().map_or(0, |&o| {
        crate::types::width_mask(u32::from(widths[o as usize]))
    });
    let reg = b.alloc_regs(node, sp.state, data_mask);
    let wch = |c: u32| u32::from(widths[c as usize]);
    // True width (wider than 64 for a channel of wide words).
    let fw = |c: u32| full[c as usize];
    let any_wide = ins
        .iter()
        .chain(&outs)
        .any(|&c| crate::wide::is_wide(fw(c)));
    match &node.op {
        Op::Argument { .. } | Op::Return => {}
        Op::Instance { callee } => {
            return Err(SimError::Instance {
                node: node.id.clone(),
                callee: callee.clone(),
            });
        }
        Op::Arith(a) => {
            let out = outs[0];
            let bin = |op: BinOp| Fwd::Bin {
                op,
                a: ins[0],
                b: ins[1],
                out,
                w: wch(out) as u8,
            };
            let (from, to) = (wch(ins[0]), wch(out));
            let cast = |kind: CastKind| Fwd::Cast {
                kind,
                a: ins[0],
                out,
                from: from as u8,
                to: to as u8,
            };
            // The float format of the first operand and of the result (f32 when not a float;
            // only float instructions read it).
            let fk = |c: u32| {
                crate::types::FloatKind::from_bits(wch(c)).unwrap_or(crate::types::FloatKind::F32)
            };
            let fbin = |op: FBinOp| Fwd::FBin {
                op,
                a: ins[0],
                b: ins[1],
                out,
                kind: fk(out),
            };
            let fun = |op: FUnOp| Fwd::FUn {
                op,
                a: ins[0],
                out,
                kind: fk(out),
            };
            let fconv = |conv: FConv| Fwd::FConv {
                conv,
                a: ins[0],
                out,
                from: from as u8,
                to: to as u8,
            };
            let instr = match a {
                ArithOp::Addi
                | ArithOp::Subi
                | ArithOp::Muli
                | ArithOp::Divsi
                | ArithOp::Divui
                | ArithOp::Remsi
                | ArithOp::Remui
                | ArithOp::Andi
                | ArithOp::Ori
                | ArithOp::Xori
                | ArithOp::Shli
                | ArithOp::Shrsi
                | ArithOp::Shrui
                | ArithOp::Maxsi
                | ArithOp::Minsi
                | ArithOp::Maxui
                | ArithOp::Minui => bin(BinOp::of(*a).expect("an integer binary op")),
                ArithOp::Select => Fwd::Select {
                    c: ins[0],
                    t: ins[1],
                    f: ins[2],
                    out,
                },
                ArithOp::Cmpi(pred) => Fwd::Cmp {
                    pred: *pred,
                    a: ins[0],
                    b: ins[1],
                    out,
                    w: wch(ins[0]) as u8,
                },
                ArithOp::Extsi
                | ArithOp::Extui
                | ArithOp::Trunci
                | ArithOp::Noti
                | ArithOp::IndexCast => cast(CastKind::of(*a, from, to).expect("a width cast")),
                ArithOp::Addf => fbin(FBinOp::Add),
                ArithOp::Subf => fbin(FBinOp::Sub),
                ArithOp::Mulf => fbin(FBinOp::Mul),
                ArithOp::Divf => fbin(FBinOp::Div),
                ArithOp::Remf => fbin(FBinOp::Rem),
                ArithOp::Maximumf => fbin(FBinOp::Maximum),
                ArithOp::Minimumf => fbin(FBinOp::Minimum),
                ArithOp::Maxnumf => fbin(FBinOp::MaxNum),
                ArithOp::Minnumf => fbin(FBinOp::MinNum),
                ArithOp::Copysign => fbin(FBinOp::CopySign),
                ArithOp::Negf => fun(FUnOp::Neg),
                ArithOp::Absf => fun(FUnOp::Abs),
                ArithOp::Sqrt => fun(FUnOp::Sqrt),
                ArithOp::Math(f) => Fwd::FMath {
                    f: *f,
                    a: ins[0],
                    b: ins.get(1).copied().unwrap_or(ins[0]),
                    out,
                    kind: fk(out),
                },
                ArithOp::Cmpf(pred) => Fwd::FCmp {
                    pred: *pred,
                    a: ins[0],
                    b: ins[1],
                    out,
                    kind: fk(ins[0]),
                },
                ArithOp::Sitofp => fconv(FConv::SiToFp),
                ArithOp::Uitofp => fconv(FConv::UiToFp),
                ArithOp::Fptosi => fconv(FConv::FpToSi),
                ArithOp::Fptoui => fconv(FConv::FpToUi),
                ArithOp::Extf => fconv(FConv::Ext),
                ArithOp::Truncf => fconv(FConv::Trunc),
            };
            // `select` only moves words, at any width.
            let instr = if any_wide && !matches!(instr, Fwd::Select { .. }) {
                let (a, bb) = (ins[0], ins.get(1).copied().unwrap_or(0));
                let op = match instr {
                    Fwd::Bin { op, .. } => WideOp::Bin {
                        op,
                        a,
                        b: bb,
                        out,
                        w: fw(out),
                    },
                    Fwd::Cmp { pred, .. } => WideOp::Cmp {
                        pred,
                        a,
                        b: bb,
                        out,
                        w: fw(a),
                    },
                    Fwd::Cast { kind, .. } => WideOp::Cast {
                        kind,
                        a,
                        out,
                        from: fw(a),
                        to: fw(out),
                    },
                    _ => {
                        return Err(malformed(
                            node,
                            format!("`{}` on data wider than 64 bits", node.op.mnemonic()),
                        ));
                    }
                };
                b.p.wide.push(op);
                Fwd::Wide {
                    op: b.p.wide.len() as u32 - 1,
                }
            } else {
                instr
            };
            if a.divides() {
                let mask = crate::spec::divisor_zero_mask(&b.f.channels[node.inputs[1]].ty);
                b.p.div_checks.push((nid, ins[1], out, mask));
            }
            b.fwd(nid, instr, ins.clone(), outs.clone());
            let sp = b.span(ins.iter().copied());
            b.bwd(nid, Bwd::Join { ins: sp, out }, vec![out], ins);
        }
        Op::Join | Op::Pack => {
            let out = outs[0];
            let sp = b.span(ins.iter().copied());
            let instr = if node.op == Op::Join {
                Fwd::Join {
                    ins: sp,
                    data_from: u32::MAX,
                    out,
                }
            } else if crate::wide::is_wide(fw(out)) {
                b.p.wide.push(WideOp::Pack {
                    fields: ins.iter().map(|&c| (c, fw(c))).collect(),
                    out,
                });
                Fwd::Wide {
                    op: b.p.wide.len() as u32 - 1,
                }
            } else {
                Fwd::Pack { ins: sp, out }
            };
            b.fwd(nid, instr, ins.clone(), outs.clone());
            b.bwd(nid, Bwd::Join { ins: sp, out }, vec![out], ins);
        }
        Op::Br => {
            b.fwd(
                nid,
                Fwd::Wire {
                    inp: ins[0],
                    out: outs[0],
                },
                ins.clone(),
                outs.clone(),
            );
            b.bwd(
                nid,
                Bwd::Wire {
                    inp: ins[0],
                    out: outs[0],
                },
                outs,
                ins,
            );
        }
        Op::CondBr => {
            let (cond, data, t, fl) = (ins[0], ins[1], outs[0], outs[1]);
            b.fwd(
                nid,
                Fwd::CondBr {
                    cond,
                    data,
                    t,
                    f: fl,
                },
                ins.clone(),
                outs.clone(),
            );
            b.bwd(
                nid,
                Bwd::CondBr {
                    cond,
                    data,
                    t,
                    f: fl,
                },
                outs,
                ins,
            );
        }
        Op::Mux => {
            let sp = b.span(ins[1..].iter().copied());
            let (sel, out) = (ins[0], outs[0]);
            b.fwd(
                nid,
                Fwd::Mux { sel, ins: sp, out },
                ins.clone(),
                outs.clone(),
            );
            b.bwd(nid, Bwd::Mux { sel, ins: sp, out }, outs, ins);
            b.p.mux_checks.push((nid, sel, sp.len));
        }
        Op::Merge => {
            let sp = b.span(ins.iter().copied());
            let out = outs[0];
            b.fwd(nid, Fwd::Merge { ins: sp, out }, ins.clone(), outs.clone());
            b.bwd(nid, Bwd::Merge { ins: sp, out }, outs, ins.clone());
            if ins.len() > 1 {
                b.p.merge_checks.push((nid, sp, out, None));
            }
        }
        Op::ControlMerge => {
            if ins.len() > 64 {
                return Err(malformed(node, "control_merge with more than 64 inputs"));
            }
            let sp = b.span(ins.iter().copied());
            let (out, idx) = (outs[0], outs[1]);
            b.fwd(
                nid,
                Fwd::Cmerge {
                    ins: sp,
                    out,
                    idx,
                    reg,
                },
                ins.clone(),
                outs.clone(),
            );
            b.bwd(
                nid,
                Bwd::Cmerge {
                    ins: sp,
                    out,
                    idx,
                    reg,
                },
                outs.clone(),
                ins.clone(),
            );
            b.clk(
                nid,
                Clk::Cmerge {
                    ins: sp,
                    out,
                    idx,
                    reg,
                },
            );
            if ins.len() > 1 {
                b.p.merge_checks.push((nid, sp, out, Some(reg)));
            }
        }
        Op::Fork | Op::Unpack => {
            let inp = ins[0];
            let sp = b.span(outs.iter().copied());
            let n = outs.len();
            let instr = if node.op == Op::Fork {
                Fwd::Fork { inp, outs: sp, reg }
            } else {
                // Field 0 sits in the most significant bits (SystemVerilog packed struct).
                let ws: Vec<u32> = outs.iter().map(|&o| fw(o)).collect();
                let total: u32 = ws.iter().sum();
                if total != fw(inp) {
                    return Err(malformed(node, "unpack field widths do not add up"));
                }
                let mut shifts = Vec::with_capacity(n);
                let mut acc = total;
                for &w in &ws {
                    acc -= w;
                    shifts.push(acc);
                }
                if crate::wide::is_wide(total) {
                    b.p.wide.push(WideOp::Unpack {
                        inp,
                        in_width: total,
                        fields: outs
                            .iter()
                            .zip(&shifts)
                            .zip(&ws)
                            .map(|((&o, &sh), &w)| (o, sh, w))
                            .collect(),
                        reg,
                    });
                    Fwd::Wide {
                        op: b.p.wide.len() as u32 - 1,
                    }
                } else {
                    let shifts = b.span(shifts);
                    Fwd::Unpack {
                        inp,
                        outs: sp,
                        shifts,
                        reg,
                    }
                }
            };
            b.fwd(nid, instr, ins.clone(), outs.clone());
            b.bwd(nid, Bwd::Fork { inp, outs: sp, reg }, outs.clone(), ins);
            b.clk(nid, Clk::Emit { outs: sp, reg });
        }
        Op::Sync => {
            let isp = b.span(ins.iter().copied());
            let osp = b.span(outs.iter().copied());
            b.fwd(
                nid,
                Fwd::Sync {
                    ins: isp,
                    outs: osp,
                    reg,
                },
                ins.clone(),
                outs.clone(),
            );
            b.bwd(
                nid,
                Bwd::Sync {
                    ins: isp,
                    outs: osp,
                    reg,
                },
                outs,
                ins,
            );
            b.clk(nid, Clk::Emit { outs: osp, reg });
        }
        Op::LazyFork => {
            let sp = b.span(outs.iter().copied());
            b.p.global_iterate = true;
            b.fwd(
                nid,
                Fwd::LazyFork {
                    inp: ins[0],
                    outs: sp,
                },
                ins.clone(),
                outs.clone(),
            );
            b.bwd(
                nid,
                Bwd::LazyFork {
                    inp: ins[0],
                    outs: sp,
                },
                outs,
                ins,
            );
        }
        Op::Buffer { slots, init, .. } => {
            if *slots == 0 {
                return Err(malformed(node, "buffer with 0 slots"));
            }
            if init.as_ref().is_some_and(|v| v.len() > *slots as usize) {
                return Err(malformed(node, "more initValues than slots"));
            }
            b.p.max_slots = b.p.max_slots.max(*slots);
            let last = reg + slot_regs::WORDS * (*slots - 1);
            b.fwd(
                nid,
                Fwd::BufOut {
                    out: outs[0],
                    reg: last,
                },
                vec![],
                outs.clone(),
            );
            b.bwd(nid, Bwd::BufIn { inp: ins[0], reg }, vec![], ins.clone());
            b.clk(
                nid,
                Clk::Buffer {
                    inp: ins[0],
                    out: outs[0],
                    reg,
                    slots: *slots,
                },
            );
            b.p.buffers.push((ins[0], outs[0], reg, *slots));
        }
        Op::Island(isl) => {
            isl.validate().map_err(|e| malformed(node, e.to_string()))?;
            if any_wide
                || isl
                    .slots
                    .iter()
                    .any(|t| crate::wide::is_wide(t.bit_width()))
            {
                return Err(malformed(node, "an island over values wider than 64 bits"));
            }
            let k = b.p.islands.len() as u32;
            // Memories are resolved by name once every node is compiled.
            b.p.islands.push(super::program::IslandInfo {
                island: (**isl).clone(),
                mems: Vec::new(),
                heads: isl.cone_heads(),
            });
            let (ins_sp, outs_sp) = (b.span(ins.iter().copied()), b.span(outs.iter().copied()));
            b.fwd(
                nid,
                Fwd::IslandOut { outs: outs_sp, reg },
                vec![],
                outs.clone(),
            );
            b.bwd(
                nid,
                Bwd::IslandIn { ins: ins_sp, reg },
                ins.clone(),
                ins.clone(),
            );
            b.clk(
                nid,
                Clk::Island {
                    ins: ins_sp,
                    outs: outs_sp,
                    reg,
                    island: k,
                },
            );
        }
        Op::Pipeline { latency, ii } => {
            let (latency, ii) = (*latency, *ii);
            if latency == 0 || ii == 0 {
                return Err(malformed(node, "pipeline with latency or interval 0"));
            }
            let last = reg + stage_regs::WORDS * (latency - 1);
            let (inp, out) = (ins[0], outs[0]);
            b.fwd(nid, Fwd::PipeOut { out, reg: last }, vec![], vec![out]);
            b.bwd(
                nid,
                Bwd::PipeIn {
                    inp,
                    out,
                    reg,
                    latency,
                    ii,
                },
                vec![out],
                vec![inp],
            );
            b.clk(
                nid,
                Clk::Pipe {
                    inp,
                    out,
                    reg,
                    latency,
                    ii,
                },
            );
        }
        Op::DynBuffer { kind, slots } => {
            let slots = *slots;
            if slots == 0 {
                return Err(malformed(node, "buffer with 0 slots"));
            }
            let (inp, out) = (ins[0], outs[0]);
            let (bypass, through) = (kind.bypass(), kind.ready_through());
            b.fwd(
                nid,
                Fwd::DynBufOut {
                    inp,
                    out,
                    reg,
                    bypass,
                },
                if bypass { vec![inp] } else { vec![] },
                vec![out],
            );
            b.bwd(
                nid,
                Bwd::DynBufIn {
                    inp,
                    out,
                    reg,
                    slots,
                    through,
                },
                if through { vec![out] } else { vec![] },
                vec![inp],
            );
            b.clk(
                nid,
                Clk::DynBuf {
                    inp,
                    out,
                    reg,
                    slots,
                    bypass,
                },
            );
        }
        Op::DynCounterBuffer { latency } => {
            let latency = *latency;
            if latency == 0 {
                return Err(malformed(node, "counter buffer with latency 0"));
            }
            let (inp, out) = (ins[0], outs[0]);
            b.fwd(nid, Fwd::DynCountOut { out, reg }, vec![], vec![out]);
            b.bwd(nid, Bwd::DynCountIn { inp, out, reg }, vec![out], vec![inp]);
            b.clk(
                nid,
                Clk::DynCount {
                    inp,
                    out,
                    reg,
                    latency,
                },
            );
        }
        Op::DynPipeline { latency } => {
            let latency = *latency;
            if latency == 0 {
                return Err(malformed(node, "pipeline with latency 0"));
            }
            let last = reg + stage_regs::WORDS * (latency - 1);
            let (inp, out) = (ins[0], outs[0]);
            b.fwd(nid, Fwd::PipeOut { out, reg: last }, vec![], vec![out]);
            b.bwd(nid, Bwd::DynPipeIn { inp, out, last }, vec![out], vec![inp]);
            b.clk(
                nid,
                Clk::DynPipe {
                    inp,
                    out,
                    reg,
                    latency,
                },
            );
        }
        Op::DynLoad => {
            // Two one-slot skid buffers (`ONE_SLOT_BREAK_R`), their FIFO words side by side.
            for path in 0..2u32 {
                let (inp, out) = (ins[path as usize], outs[path as usize]);
                let reg = reg
                    + sp.state
                        .offset(RegField::LoadPath { path, word: 0 })
                        .expect("a load path's registers");
                b.fwd(
                    nid,
                    Fwd::DynBufOut {
                        inp,
                        out,
                        reg,
                        bypass: true,
                    },
                    vec![inp],
                    vec![out],
                );
                b.bwd(
                    nid,
                    Bwd::DynBufIn {
                        inp,
                        out,
                        reg,
                        slots: 1,
                        through: false,
                    },
                    vec![],
                    vec![inp],
                );
                b.clk(
                    nid,
                    Clk::DynBuf {
                        inp,
                        out,
                        reg,
                        slots: 1,
                        bypass: true,
                    },
                );
            }
        }
        Op::DynStore => {
            for k in 0..2 {
                let (inp, out) = (ins[k], outs[k]);
                b.fwd(nid, Fwd::Wire { inp, out }, vec![inp], vec![out]);
                b.bwd(nid, Bwd::Wire { inp, out }, vec![out], vec![inp]);
            }
        }
        Op::DynMemController {
            ctrl,
            ld,
            st,
            memref_arg,
            memref,
        } => {
            let (nc, nl, ns) = (*ctrl as usize, *ld as usize, *st as usize);
            let name = f
                .args
                .get(*memref_arg)
                .map(|a| a.name.clone())
                .unwrap_or_else(|| node.id.clone());
            let mem = add_memory(b, node, nid, name, memref, true)?;
            let info = DynMcInfo {
                mem,
                start: ins[0],
                ctrl: ins[1..1 + nc].to_vec(),
                ld_addr: ins[1 + nc..1 + nc + nl].to_vec(),
                ld_data: outs[..nl].to_vec(),
                st_addr: (0..ns).map(|j| ins[1 + nc + nl + 2 * j]).collect(),
                st_data: (0..ns).map(|j| ins[2 + nc + nl + 2 * j]).collect(),
                ctrl_end: ins[ins.len() - 1],
                mem_end: outs[nl],
                reg,
            };
            for &a in &info.ld_addr {
                b.p.addr_checks.push((nid, a, mem, false));
            }
            for &a in &info.st_addr {
                b.p.addr_checks.push((nid, a, mem, true));
            }
            let mc = b.p.dyn_mcs.len() as u32;
            b.p.dyn_mcs.push(info);
            b.fwd(nid, Fwd::DynMcOut { mc }, vec![], outs.clone());
            // The grants read the load data outputs' readies.
            b.bwd(nid, Bwd::DynMcIn { mc }, outs[..nl].to_vec(), ins.clone());
            b.clk(nid, Clk::DynMc { mc });
        }
        Op::DynLsq {
            shape,
            memref_arg,
            memref,
        } => {
            let (g, nl, ns) = (
                shape.groups.len(),
                shape.load_ports() as usize,
                shape.store_ports() as usize,
            );
            let m = usize::from(memref.is_some());
            let mem = match memref {
                Some(memref) => {
                    let name = memref_arg
                        .and_then(|a| f.args.get(a))
                        .map(|a| a.name.clone())
                        .unwrap_or_else(|| node.id.clone());
                    Some(add_memory(b, node, nid, name, memref, true)?)
                }
                None => None,
            };
            let groups = (0..g)
                .map(|k| {
                    let (l0, s0) = shape.first_ports(k);
                    LsqGroupInfo {
                        ld_ports: (0..shape.loads(k)).map(|i| (l0 + i) as u32).collect(),
                        ld_order: shape.load_order(k).iter().map(|&o| o as u32).collect(),
                        st_ports: (0..shape.stores(k)).map(|j| (s0 + j) as u32).collect(),
                    }
                })
                .collect();
            let info = DynLsqInfo {
                node: nid,
                mem,
                reg,
                nl: shape.load_depth,
                ns: shape.store_depth,
                end_once: shape.end_once,
                groups,
                ctrl: ins[m..m + g].to_vec(),
                ld_addr: ins[m + g..m + g + nl].to_vec(),
                ld_data: outs[..nl].to_vec(),
                st_addr: (0..ns).map(|j| ins[m + g + nl + 2 * j]).collect(),
                st_data: (0..ns).map(|j| ins[m + g + nl + 2 * j + 1]).collect(),
                master: (m == 1).then(|| [ins[0], ins[ins.len() - 1], outs[nl]]),
                slave: (m == 0).then(|| {
                    (
                        [outs[nl], outs[nl + 1], outs[nl + 2]],
                        (nl > 0).then(|| ins[ins.len() - 1]),
                    )
                }),
            };
            if let Some(mem) = mem {
                for &a in &info.ld_addr {
                    b.p.addr_checks.push((nid, a, mem, false));
                }
                for &a in &info.st_addr {
                    b.p.addr_checks.push((nid, a, mem, true));
                }
            }
            let lsq = b.p.dyn_lsqs.len() as u32;
            b.p.dyn_lsqs.push(info);
            // Every output and every ready comes from registers.
            b.fwd(nid, Fwd::DynLsqOut { lsq }, vec![], outs.clone());
            b.bwd(nid, Bwd::DynLsqIn { lsq }, vec![], ins.clone());
            b.clk(nid, Clk::DynLsq { lsq });
        }
        Op::AddrQueue { ld, st, depth } => {
            let (nl, ns) = (*ld as usize, *st as usize);
            let info = AddrQueueInfo {
                reg,
                depth: *depth,
                ld_addr: (0..nl).map(|i| ins[2 * i]).collect(),
                ld_order: (0..nl).map(|i| ins[2 * i + 1]).collect(),
                ld_out: outs[..nl].to_vec(),
                st_addr: (0..ns).map(|j| ins[2 * nl + 3 * j]).collect(),
                st_order: (0..ns).map(|j| ins[2 * nl + 3 * j + 1]).collect(),
                st_done: (0..ns).map(|j| ins[2 * nl + 3 * j + 2]).collect(),
                st_out: outs[nl..].to_vec(),
            };
            let q = b.p.addr_queues.len() as u32;
            for i in 0..nl {
                let (a, o, out) = (info.ld_addr[i], info.ld_order[i], info.ld_out[i]);
                b.fwd(
                    nid,
                    Fwd::AqLoad { q, port: i as u32 },
                    vec![a, o],
                    vec![out],
                );
                b.bwd(nid, Bwd::Join2 { a, b: o, out }, vec![out], vec![a, o]);
            }
            if ns > 0 {
                b.fwd(nid, Fwd::AqStoreOut { q }, vec![], info.st_out.clone());
                let writes: Vec<u32> = info
                    .st_addr
                    .iter()
                    .chain(&info.st_order)
                    .chain(&info.st_done)
                    .copied()
                    .collect();
                b.bwd(nid, Bwd::AqStoreIn { q }, info.st_out.clone(), writes);
            }
            b.p.addr_queues.push(info);
            b.clk(nid, Clk::Aq { q });
        }
        Op::DynSelect => {
            let (c, t, fl, out) = (ins[0], ins[1], ins[2], outs[0]);
            b.fwd(
                nid,
                Fwd::DynSelect {
                    c,
                    t,
                    f: fl,
                    out,
                    reg,
                },
                ins.clone(),
                vec![out],
            );
            b.bwd(
                nid,
                Bwd::DynSelect {
                    c,
                    t,
                    f: fl,
                    out,
                    reg,
                },
                vec![out],
                ins.clone(),
            );
            b.clk(
                nid,
                Clk::DynSelect {
                    c,
                    t,
                    f: fl,
                    out,
                    reg,
                },
            );
        }
        Op::DynControlMerge => {
            let sp = b.span(ins.iter().copied());
            let (out, idx) = (outs[0], outs[1]);
            b.fwd(
                nid,
                Fwd::DynMerge {
                    ins: sp,
                    out,
                    idx,
                    reg,
                },
                ins.clone(),
                outs.clone(),
            );
            b.bwd(nid, Bwd::DynMerge { ins: sp, reg }, vec![], ins.clone());
            b.clk(
                nid,
                Clk::DynMerge {
                    ins: sp,
                    out,
                    idx,
                    reg,
                },
            );
        }
        Op::Constant { value } => {
            let value = value & crate::types::width_mask(wch(outs[0]));
            b.fwd(
                nid,
                Fwd::Const {
                    ctrl: ins[0],
                    out: outs[0],
                    value,
                },
                ins.clone(),
                outs.clone(),
            );
            b.bwd(
                nid,
                Bwd::Wire {
                    inp: ins[0],
                    out: outs[0],
                },
                outs,
                ins,
            );
        }
        Op::Source | Op::Never => {
            let valid = node.op == Op::Source;
            b.fwd(
                nid,
                Fwd::Fixed {
                    out: outs[0],
                    valid,
                },
                vec![],
                outs,
            );
        }
        Op::Sink => {
            b.bwd(nid, Bwd::Sink { inp: ins[0] }, vec![], ins);
        }
        Op::Load => {
            let (addr, dmem, ctrl, dout, aout) = (ins[0], ins[1], ins[2], outs[0], outs[1]);
            let sp = b.span([addr, ctrl]);
            b.fwd(
                nid,
                Fwd::Join {
                    ins: sp,
                    data_from: addr,
                    out: aout,
                },
                vec![addr, ctrl],
                vec![aout],
            );
            b.bwd(
                nid,
                Bwd::Join { ins: sp, out: aout },
                vec![aout],
                vec![addr, ctrl],
            );
            b.fwd(
                nid,
                Fwd::Wire {
                    inp: dmem,
                    out: dout,
                },
                vec![dmem],
                vec![dout],
            );
            b.bwd(
                nid,
                Bwd::Wire {
                    inp: dmem,
                    out: dout,
                },
                vec![dout],
                vec![dmem],
            );
        }
        Op::Store => {
            let (addr, data, ctrl, dout, aout) = (ins[0], ins[1], ins[2], outs[0], outs[1]);
            b.fwd(
                nid,
                Fwd::Store {
                    addr,
                    data,
                    ctrl,
                    dout,
                    aout,
                },
                ins.clone(),
                outs.clone(),
            );
            b.bwd(
                nid,
                Bwd::Store {
                    addr,
                    data,
                    ctrl,
                    dout,
                    aout,
                },
                outs,
                ins,
            );
        }
        Op::Memory { ld, st, memref, .. } | Op::ExtMemory { ld, st, memref, .. } => {
            let (ld, st) = (*ld as usize, *st as usize);
            let (name, external) = match &node.op {
                Op::ExtMemory { memref_arg, .. } => (
                    f.args
                        .get(*memref_arg)
                        .map(|a| a.name.clone())
                        .unwrap_or_else(|| node.id.clone()),
                    true,
                ),
                _ => (node.id.clone(), false),
            };
            let mem = add_memory(b, node, nid, name, memref, external)?;
            for j in 0..st {
                let (data, addr, done) = (ins[2 * j], ins[2 * j + 1], outs[ld + j]);
                let field = RegField::StoreWriteValid { port: j as u32 };
                let reg = reg + sp.state.offset(field).expect("a store port's register");
                b.p.addr_checks.push((nid, addr, mem, true));
                b.fwd(nid, Fwd::MemStDone { done, reg }, vec![], vec![done]);
                b.bwd(
                    nid,
                    Bwd::MemSt {
                        addr,
                        data,
                        done,
                        reg,
                    },
                    vec![done],
                    vec![addr, data],
                );
                b.clk(
                    nid,
                    Clk::MemSt {
                        addr,
                        data,
                        done,
                        reg,
                        mem,
                    },
                );
            }
            for i in 0..ld {
                let (addr, ldc, done) = (ins[2 * st + i], outs[i], outs[ld + st + i]);
                let field = RegField::LoadEmitted {
                    port: i as u32,
                    output: 0,
                };
                let reg = reg + sp.state.offset(field).expect("a load port's registers");
                b.p.addr_checks.push((nid, addr, mem, false));
                let sp = b.span([ldc, done]);
                b.fwd(
                    nid,
                    Fwd::MemLd {
                        addr,
                        ld: ldc,
                        done,
                        reg,
                        mem,
                    },
                    vec![addr],
                    vec![ldc, done],
                );
                b.bwd(
                    nid,
                    Bwd::Fork {
                        inp: addr,
                        outs: sp,
                        reg,
                    },
                    vec![ldc, done],
                    vec![addr],
                );
                b.clk(nid, Clk::Emit { outs: sp, reg });
            }
        }
    }
    Ok(())
}

/// Points every island's memories at the program's memories of the same name.
fn resolve_island_memories(p: &mut Program, f: &Function) -> Result<(), SimError> {
    let Program { islands, mems, .. } = p;
    for info in islands.iter_mut() {
        info.mems = info
            .island
            .memories
            .iter()
            .map(|name| {
                mems.iter()
                    .position(|m| &m.name == name)
                    .map(|i| i as u32)
                    .ok_or_else(|| SimError::Malformed {
                        node: format!("@{}", f.name),
                        what: format!(
                            "an island reads memory `{name}`, which the function does not have"
                        ),
                    })
            })
            .collect::<Result<_, _>>()?;
    }
    Ok(())
}

/// Registers the array of `node` (named `name`: its node ID, or the memref argument it
/// serves when `external`) in the program's memories; returns its index. Address bits above
/// `ceil(log2(size))` are ignored, as in CIRCT's RTL (and Dynamatic's RAM sees no more).
fn add_memory(
    b: &mut Builder<'_>,
    node: &crate::Node,
    nid: u32,
    name: String,
    memref: &crate::types::MemRefType,
    external: bool,
) -> Result<u32, SimError> {
    let size = memref.len();
    let elem_width = memref.elem.bit_width();
    if elem_width > MAX_DATA_WIDTH {
        return Err(malformed(
            node,
            format!("memory element wider than {MAX_DATA_WIDTH} bits"),
        ));
    }
    if size == 0 || size > (1 << 32) {
        return Err(malformed(
            node,
            "memory size must be between 1 and 2^32 elements",
        ));
    }
    let abits = 64 - (size - 1).leading_zeros();
    let mem = b.p.mems.len() as u32;
    b.p.mems.push(MemInfo {
        name,
        size,
        elem_width,
        elem: memref.elem.clone(),
        addr_mask: crate::types::width_mask(abits),
        external,
        node: nid,
    });
    Ok(mem)
}
