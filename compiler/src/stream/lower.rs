//! Lowering of a stream program to a handshake function, after the design of the published
//! Stream-to-handshake lowering: a stream is a channel of `tuple<T, i1>`, the element and its
//! end bit; every operator becomes a group of components named `<op><k>/...` in a block of
//! its own (`map0 (line 7)`), so the drawing boxes each operator under its name and line.
//!
//! Per operator (`docs/streams.md` draws each):
//! - **gate**: `unpack` splits a token into element and end bit; a `cond_br` on the end bit
//!   lets only elements into the body, and a `join` + `cond_br` turn every token into a
//!   control token for elements (`elem_ctrl`, triggers the body's constants) or for ends
//!   (`end_ctrl`, triggers the constants that an end makes);
//! - **body**: one component per `arith`, `stream.pack`/`unpack` operation;
//! - **registers** (and a reduction's accumulator): a one-slot buffer holding the value,
//!   read through a `cond_br` on the end bit (an element reads it, an end drops it) and
//!   refilled through a `mux` on the end bit (the body's next value, or after an end the
//!   initial value again);
//! - **output** of `map`, `split`, `combine`: `pack(mux(end)[result, 0], end)`; `filter`
//!   passes the input token itself through a `cond_br` whose condition is the body's
//!   predicate, or true for an end; `reduce` gives its accumulator twice on an end, first as
//!   an element, then as the end (a two-token select loop picks which);
//! - `combine` takes one token of every input together (an `ori` of their end bits);
//!   `create` is a preloaded buffer behind a `never`; `sink` a `sink`.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use handscope_sim::graph::NameHint;
use handscope_sim::{
    ArgType, ArithOp, BufferKind, ChannelId, FuncResult, Function, Module, NodeId, Op, SourceLoc,
    Type,
};

use super::ast::{Body, BodyOpKind, StreamFunc, StreamModule, StreamOp, StreamOpKind};

/// Lowers every function of `m`. Each function's stream arguments and results are named in
/// its [`handscope_sim::stream::STREAMS_ATTR`] attribute.
pub fn lower(m: &StreamModule) -> Result<Module, LowerError> {
    Ok(Module {
        functions: m
            .funcs
            .iter()
            .map(|f| lower_func(f, &m.file))
            .collect::<Result<_, _>>()?,
    })
}

/// A program the reader accepts but the lowering cannot build (a body of several blocks the
/// dataflow construction refuses), located at a line and column of the file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{col}: {message}")]
pub struct LowerError {
    /// What went wrong.
    pub message: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
}

/// The channel type of a stream of `t`.
pub fn stream_type(t: &Type) -> Type {
    Type::Tuple(vec![t.clone(), Type::Int(1)])
}

/// The function being built and the operator being lowered.
pub(super) struct Builder {
    pub(super) f: Function,
    pub(super) file: Arc<str>,
    /// The operator being lowered: its ID, block label and location.
    pub(super) group: String,
    pub(super) block: Option<String>,
    pub(super) loc: Option<SourceLoc>,
    /// Per `group/role`, the nodes named so far.
    counts: HashMap<String, usize>,
    /// Block label to group ID (for the forks and sinks materialization adds).
    groups: BTreeMap<String, String>,
}

impl Builder {
    /// Adds a node named `<group>/<role><k>` with inputs `ins` and outputs of `outs`.
    pub(super) fn node(
        &mut self,
        op: Op,
        role: &str,
        ins: Vec<ChannelId>,
        outs: Vec<Type>,
    ) -> NodeId {
        let n = self.f.add_node(op, outs);
        let key = format!("{}/{role}", self.group);
        let k = self.counts.entry(key.clone()).or_insert(0);
        let id = if self.group.is_empty() {
            role.to_string()
        } else {
            format!("{key}{k}")
        };
        *k += 1;
        let node = &mut self.f.nodes[n];
        node.name_hint = NameHint::Name(id);
        node.block = self.block.clone();
        node.loc = self.loc.clone();
        self.f.set_inputs(n, ins);
        n
    }

    fn out(&self, n: NodeId, k: usize) -> ChannelId {
        self.f.nodes[n].outputs[k]
    }

    /// A node's only output.
    pub(super) fn one(&mut self, op: Op, role: &str, ins: Vec<ChannelId>, out: Type) -> ChannelId {
        let n = self.node(op, role, ins, vec![out]);
        self.out(n, 0)
    }

    fn cond_br(&mut self, cond: ChannelId, data: ChannelId) -> (ChannelId, ChannelId) {
        let ty = self.f.channels[data].ty.clone();
        let n = self.node(
            Op::CondBr,
            "cond_br",
            vec![cond, data],
            vec![ty.clone(), ty],
        );
        (self.out(n, 0), self.out(n, 1))
    }

    pub(super) fn constant(&mut self, value: u64, ty: &Type, ctrl: ChannelId) -> ChannelId {
        self.one(Op::Constant { value }, "constant", vec![ctrl], ty.clone())
    }

    /// A value of `ty` made of zeros, once per `ctrl` token.
    fn zero(&mut self, ty: &Type, ctrl: ChannelId) -> ChannelId {
        match ty {
            Type::Tuple(fields) => {
                let parts: Vec<ChannelId> = fields.iter().map(|t| self.zero(t, ctrl)).collect();
                self.one(Op::Pack, "pack", parts, ty.clone())
            }
            _ => self.constant(0, ty, ctrl),
        }
    }

    fn mux(&mut self, sel: ChannelId, ins: Vec<ChannelId>) -> ChannelId {
        let ty = self.f.channels[ins[0]].ty.clone();
        let mut all = vec![sel];
        all.extend(ins);
        self.one(Op::Mux, "mux", all, ty)
    }

    fn enter(&mut self, op: &StreamOp) {
        self.group = op.id.clone();
        let block = handscope_sim::stream::operator_block(&op.id, op.pos.0);
        self.groups.insert(block.clone(), op.id.clone());
        self.block = Some(block);
        self.loc = Some(SourceLoc::new(self.file.clone(), op.pos.0, op.pos.1));
    }
}

/// The end-bit side of an operator's inputs, taken one token per input together.
struct Gate {
    /// The elements of every input, ends removed.
    elems: Vec<ChannelId>,
    /// The end bit, once per token.
    end: ChannelId,
    /// One `none` token per element.
    elem_ctrl: ChannelId,
    /// One `none` token per end.
    end_ctrl: ChannelId,
}

fn gate(b: &mut Builder, inputs: &[ChannelId], types: &[Type]) -> Gate {
    let mut xs = Vec::new();
    let mut ends = Vec::new();
    for (&c, t) in inputs.iter().zip(types) {
        let n = b.node(Op::Unpack, "unpack", vec![c], vec![t.clone(), Type::Int(1)]);
        xs.push(b.out(n, 0));
        ends.push(b.out(n, 1));
    }
    let mut end = ends[0];
    for &e in &ends[1..] {
        end = b.one(Op::Arith(ArithOp::Ori), "ori", vec![end, e], Type::Int(1));
    }
    let tok = b.one(Op::Join, "join", vec![end], Type::None);
    let (end_ctrl, elem_ctrl) = b.cond_br(end, tok);
    let elems = xs.into_iter().map(|x| b.cond_br(end, x).1).collect();
    Gate {
        elems,
        end,
        elem_ctrl,
        end_ctrl,
    }
}

/// A value kept across elements and reset by every end: returns the buffer (to connect once
/// the next value exists), the value an element reads, and the value at an end.
fn register(b: &mut Builder, g: &Gate, init: u64, ty: &Type) -> (NodeId, ChannelId, ChannelId) {
    let buf = b.node(
        Op::Buffer {
            slots: 1,
            kind: BufferKind::Seq,
            init: Some(vec![init]),
        },
        "buffer",
        Vec::new(),
        vec![ty.clone()],
    );
    let cur = b.out(buf, 0);
    let (at_end, for_elem) = b.cond_br(g.end, cur);
    (buf, for_elem, at_end)
}

/// Refills a register's buffer: the body's next value for an element, `init` after an end.
fn refill(b: &mut Builder, g: &Gate, buf: NodeId, next: ChannelId, init: u64, ty: &Type) {
    let reset = b.constant(init, ty, g.end_ctrl);
    let v = b.mux(g.end, vec![next, reset]);
    b.f.set_inputs(buf, vec![v]);
}

/// Lowers a body given a channel per argument; returns a channel per yielded value.
fn lower_body(
    b: &mut Builder,
    body: &Body,
    args: &[ChannelId],
    ctrl: ChannelId,
) -> Result<Vec<ChannelId>, LowerError> {
    if let Some(blocks) = &body.cfg {
        return super::cfg::lower_cfg_body(b, body, blocks, args, ctrl)
            .map_err(|(message, line, col)| LowerError { message, line, col });
    }
    let mut v: Vec<Option<ChannelId>> = vec![None; body.types.len()];
    for (k, &a) in args.iter().enumerate() {
        v[k] = Some(a);
    }
    let outer_loc = b.loc.clone();
    for op in &body.ops {
        b.loc = Some(SourceLoc::new(b.file.clone(), op.pos.0, op.pos.1));
        let ins: Vec<ChannelId> = op
            .operands
            .iter()
            .map(|&o| v[o].expect("defined"))
            .collect();
        let out_types: Vec<Type> = op.results.iter().map(|&r| body.types[r].clone()).collect();
        let n = match &op.kind {
            BodyOpKind::Constant(c) => b.node(
                Op::Constant { value: *c },
                "constant",
                vec![ctrl],
                out_types,
            ),
            BodyOpKind::Arith(a) => b.node(Op::Arith(*a), a.mnemonic(), ins, out_types),
            BodyOpKind::Pack => b.node(Op::Pack, "pack", ins, out_types),
            BodyOpKind::Unpack => b.node(Op::Unpack, "unpack", ins, out_types),
        };
        for (k, &r) in op.results.iter().enumerate() {
            v[r] = Some(b.out(n, k));
        }
    }
    b.loc = outer_loc;
    Ok(body
        .yields
        .iter()
        .map(|&y| v[y].expect("defined"))
        .collect())
}

fn lower_op(
    b: &mut Builder,
    f: &StreamFunc,
    op: &StreamOp,
    chans: &mut [Option<ChannelId>],
) -> Result<(), LowerError> {
    b.enter(op);
    let ins: Vec<ChannelId> = op
        .inputs
        .iter()
        .map(|&v| chans[v].expect("defined before use"))
        .collect();
    let in_types: Vec<Type> = op.inputs.iter().map(|&v| f.values[v].clone()).collect();
    let out_types: Vec<Type> = op.outputs.iter().map(|&v| f.values[v].clone()).collect();
    let outs: Vec<ChannelId> = match &op.kind {
        StreamOpKind::Sink => {
            b.node(Op::Sink, "sink", ins, Vec::new());
            Vec::new()
        }
        StreamOpKind::Create { elements } => {
            let t = &out_types[0];
            let st = stream_type(t);
            let never = b.one(Op::Never, "never", Vec::new(), st.clone());
            // The buffer offers its initial values last first.
            let mut init: Vec<u64> = vec![handscope_sim::stream::token_word(0, t, true)];
            init.extend(
                elements
                    .iter()
                    .rev()
                    .map(|&e| handscope_sim::stream::token_word(e, t, false)),
            );
            let n = init.len() as u32;
            let buf = b.one(
                Op::Buffer {
                    slots: n,
                    kind: BufferKind::Seq,
                    init: Some(init),
                },
                "buffer",
                vec![never],
                st,
            );
            vec![buf]
        }
        kind => {
            let body = op.body.as_ref().expect("operators with a body");
            let elem_types: Vec<Type> = in_types.clone();
            // Filter passes the input token itself: read it before the gate splits it.
            let g = gate(b, &ins, &elem_types);
            let mut args: Vec<ChannelId> = Vec::new();
            let mut acc = None;
            if let StreamOpKind::Reduce { init } = kind {
                let (buf, for_elem, at_end) = register(b, &g, *init, &out_types[0]);
                args.push(for_elem);
                acc = Some((buf, at_end, *init));
            }
            args.extend(g.elems.iter().copied());
            let mut regs = Vec::new();
            for (init, ty) in &op.registers {
                let (buf, for_elem, _) = register(b, &g, *init, ty);
                args.push(for_elem);
                regs.push((buf, *init, ty.clone()));
            }
            let ys = lower_body(b, body, &args, g.elem_ctrl)?;
            let (main, next) = ys.split_at(ys.len() - regs.len());
            for ((buf, init, ty), &n) in regs.iter().zip(next) {
                refill(b, &g, *buf, n, *init, ty);
            }
            match kind {
                StreamOpKind::Filter => {
                    let always = b.constant(1, &Type::Int(1), g.end_ctrl);
                    let keep = b.mux(g.end, vec![main[0], always]);
                    let (pass, _) = b.cond_br(keep, ins[0]);
                    vec![pass]
                }
                StreamOpKind::Reduce { .. } => {
                    let (buf, result, init) = acc.expect("reduce has an accumulator");
                    refill(b, &g, buf, main[0], init, &out_types[0]);
                    // Two tokens per end: the accumulator as an element (select 0), then
                    // as the end (select 1); the select loop's buffer offers 0 first.
                    let sel_buf = b.node(
                        Op::Buffer {
                            slots: 2,
                            kind: BufferKind::Seq,
                            init: Some(vec![1, 0]),
                        },
                        "buffer",
                        Vec::new(),
                        vec![Type::Int(1)],
                    );
                    let sel = b.out(sel_buf, 0);
                    b.f.set_inputs(sel_buf, vec![sel]);
                    let d = b.mux(sel, vec![result, result]);
                    let out = b.one(Op::Pack, "pack", vec![d, sel], stream_type(&out_types[0]));
                    vec![out]
                }
                _ => main
                    .iter()
                    .zip(&out_types)
                    .map(|(&y, t)| {
                        let zero = b.zero(t, g.end_ctrl);
                        let d = b.mux(g.end, vec![y, zero]);
                        b.one(Op::Pack, "pack", vec![d, g.end], stream_type(t))
                    })
                    .collect(),
            }
        }
    };
    for (&v, c) in op.outputs.iter().zip(outs) {
        chans[v] = Some(c);
    }
    Ok(())
}

fn lower_func(sf: &StreamFunc, file: &str) -> Result<Function, LowerError> {
    let mut b = Builder {
        f: Function::new(sf.name.clone()),
        file: Arc::from(file),
        group: String::new(),
        block: None,
        loc: None,
        counts: HashMap::new(),
        groups: BTreeMap::new(),
    };
    b.f.loc = Some(SourceLoc::new(b.file.clone(), sf.pos.0, sf.pos.1));
    let mut chans: Vec<Option<ChannelId>> = vec![None; sf.values.len()];
    for (k, (name, t)) in sf.args.iter().enumerate() {
        chans[k] = b.f.add_arg(name.clone(), ArgType::Channel(stream_type(t)));
    }
    for op in &sf.ops {
        lower_op(&mut b, sf, op, &mut chans)?;
    }
    b.group.clear();
    b.block = None;
    b.loc = b.f.loc.clone();
    let rets: Vec<ChannelId> = sf
        .returns
        .iter()
        .map(|&v| chans[v].expect("defined"))
        .collect();
    b.node(Op::Return, "return", rets, Vec::new());
    for (name, t) in sf.result_names.iter().zip(&sf.results) {
        b.f.results.push(FuncResult {
            name: name.clone(),
            ty: stream_type(t),
        });
    }
    let names: Vec<String> = sf
        .args
        .iter()
        .map(|(n, _)| n.clone())
        .chain(sf.result_names.iter().cloned())
        .collect();
    b.f.set_stream_names(names.iter().map(String::as_str));
    let mut f = b.f;
    let added = handscope_sim::transform::materialize::materialize(&mut f)
        .expect("the lowering names every node once");
    // The forks and sinks materialization adds join their producer's group.
    let mut counts: HashMap<String, usize> = HashMap::new();
    for n in added.forks.iter().chain(&added.sinks) {
        let node = &mut f.nodes[*n];
        let role = node.op.kind().mnemonic();
        let Some(group) = node.block.as_ref().and_then(|bl| b.groups.get(bl)) else {
            continue;
        };
        let key = format!("{group}/{role}");
        let k = counts.entry(key.clone()).or_insert(0);
        node.name_hint = NameHint::Name(format!("{key}{k}"));
        *k += 1;
    }
    f.assign_ids().expect("group-local names are unique");
    Ok(f)
}
