//! The reference interpreter of the Stream dialect: streams of elements in, streams of
//! elements out, straight from the dialect's meaning and without any circuit. Every operator
//! reads whole token sequences (elements and ends) and writes its own; an operator's
//! registers and a reduction's accumulator start again after every end. The lowering is
//! checked against it (`tests/streams.rs`).

use handscope_sim::engine::arith;
use handscope_sim::stream::Element;
use handscope_sim::{ArithOp, Type};

use super::ast::{Body, BodyOpKind, StreamFunc, StreamOpKind, Term};

/// A value: an integer word, or a tuple's fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Val {
    /// An integer, masked to its width.
    Int(u64),
    /// A tuple's fields.
    Tuple(Vec<Val>),
}

impl Val {
    /// The value as a report shows an element of type `ty`.
    pub fn element(&self, ty: &Type) -> Element {
        match (self, ty) {
            (Val::Tuple(vs), Type::Tuple(ts)) => {
                Element::Tuple(vs.iter().zip(ts).map(|(v, t)| v.element(t)).collect())
            }
            (Val::Int(w), Type::Int(1)) => Element::Int((*w & 1) as i64),
            (Val::Int(w), t) => Element::Int(arith::sext(*w, t.bit_width())),
            (Val::Tuple(_), _) => Element::Int(0),
        }
    }

    /// The word of this value as a channel of type `ty` carries it.
    pub fn word(&self, ty: &Type) -> u64 {
        match (self, ty) {
            (Val::Tuple(vs), Type::Tuple(ts)) => handscope_sim::wide::concat(
                vs.iter().zip(ts).map(|(v, t)| (v.word(t), t.bit_width())),
            ),
            (Val::Int(w), _) => *w,
            (Val::Tuple(_), _) => 0,
        }
    }

    /// The value of word `w` of type `ty`.
    pub fn from_word(w: u64, ty: &Type) -> Val {
        match ty {
            Type::Tuple(ts) => {
                let total = ty.bit_width();
                let mut shift = total;
                Val::Tuple(
                    ts.iter()
                        .map(|t| {
                            shift -= t.bit_width();
                            Val::from_word(
                                handscope_sim::wide::extract(w, total, shift, t.bit_width()),
                                t,
                            )
                        })
                        .collect(),
                )
            }
            _ => Val::Int(w & ty.mask()),
        }
    }

    fn int(&self) -> u64 {
        match self {
            Val::Int(w) => *w,
            Val::Tuple(_) => 0,
        }
    }
}

/// A token of a stream: an element, or the end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Token {
    /// An element.
    Elem(Val),
    /// The end of a stream.
    End,
}

/// Runs `f` on one token sequence per argument; returns one per result. A consumed stream
/// that is not returned (a `sink`) is dropped.
pub fn run(f: &StreamFunc, inputs: &[Vec<Token>]) -> Vec<Vec<Token>> {
    let mut vals: Vec<Option<Vec<Token>>> = vec![None; f.values.len()];
    for (k, t) in inputs.iter().enumerate().take(f.args.len()) {
        vals[k] = Some(t.clone());
    }
    for op in &f.ops {
        let mut ins: Vec<Vec<Token>> = op
            .inputs
            .iter()
            .map(|&v| vals[v].take().unwrap_or_default())
            .collect();
        let outs: Vec<Vec<Token>> = match &op.kind {
            StreamOpKind::Sink => Vec::new(),
            StreamOpKind::Create { elements } => {
                let t = &f.values[op.outputs[0]];
                let mut s: Vec<Token> = elements
                    .iter()
                    .map(|&w| Token::Elem(Val::from_word(w, t)))
                    .collect();
                s.push(Token::End);
                vec![s]
            }
            kind => {
                let body = op.body.as_ref().expect("operators with a body");
                let init_regs: Vec<Val> = op.registers.iter().map(|(v, _)| Val::Int(*v)).collect();
                let n_out = op.outputs.len();
                let mut outs = vec![Vec::new(); n_out];
                let mut regs = init_regs.clone();
                let mut acc = match kind {
                    StreamOpKind::Reduce { init } => Val::Int(*init),
                    _ => Val::Int(0),
                };
                // One step per token of the inputs (taken together from every input).
                let steps = ins.iter().map(Vec::len).min().unwrap_or(0);
                let columns: Vec<Vec<Token>> = std::mem::take(&mut ins);
                for i in 0..steps {
                    let toks: Vec<&Token> = columns.iter().map(|c| &c[i]).collect();
                    let end = toks.iter().any(|t| matches!(t, Token::End));
                    if end {
                        match kind {
                            StreamOpKind::Reduce { init } => {
                                outs[0].push(Token::Elem(acc.clone()));
                                outs[0].push(Token::End);
                                acc = Val::Int(*init);
                            }
                            _ => {
                                for o in &mut outs {
                                    o.push(Token::End);
                                }
                            }
                        }
                        regs = init_regs.clone();
                        continue;
                    }
                    let elems: Vec<Val> = toks
                        .iter()
                        .map(|t| match t {
                            Token::Elem(v) => v.clone(),
                            Token::End => unreachable!("ends handled above"),
                        })
                        .collect();
                    let mut args = Vec::new();
                    if matches!(kind, StreamOpKind::Reduce { .. }) {
                        args.push(acc.clone());
                    }
                    args.extend(elems.iter().cloned());
                    args.extend(regs.iter().cloned());
                    let Some(ys) = eval_body(body, &args) else {
                        // The body never answers: nothing more leaves the operator.
                        break;
                    };
                    let (main, next_regs) = ys.split_at(ys.len() - regs.len());
                    regs = next_regs.to_vec();
                    match kind {
                        StreamOpKind::Filter => {
                            if main[0].int() & 1 == 1 {
                                outs[0].push(Token::Elem(elems[0].clone()));
                            }
                        }
                        StreamOpKind::Reduce { .. } => acc = main[0].clone(),
                        _ => {
                            for (o, y) in outs.iter_mut().zip(main) {
                                o.push(Token::Elem(y.clone()));
                            }
                        }
                    }
                }
                outs
            }
        };
        for (&v, o) in op.outputs.iter().zip(outs) {
            vals[v] = Some(o);
        }
    }
    f.returns
        .iter()
        .map(|&v| vals[v].clone().unwrap_or_default())
        .collect()
}

/// Most operations one body evaluation runs (a body of several blocks may loop): past it
/// the evaluation gives up, as a circuit would never answer.
pub const MAX_BODY_STEPS: u64 = 1 << 20;

/// Evaluates a body on its arguments; returns the yielded values, or `None` when a body of
/// several blocks runs more than [`MAX_BODY_STEPS`] operations.
pub fn eval_body(body: &Body, args: &[Val]) -> Option<Vec<Val>> {
    let mut v: Vec<Val> = vec![Val::Int(0); body.types.len()];
    v[..args.len()].clone_from_slice(args);
    let Some(blocks) = &body.cfg else {
        for op in &body.ops {
            eval_op(body, op, &mut v);
        }
        return Some(body.yields.iter().map(|&y| v[y].clone()).collect());
    };
    let mut b = 0;
    let mut steps = 0u64;
    loop {
        let block = &blocks[b];
        for op in &block.ops {
            eval_op(body, op, &mut v);
        }
        steps += block.ops.len() as u64 + 1;
        if steps > MAX_BODY_STEPS {
            return None;
        }
        let (next, args) = match &block.term {
            Term::Yield(ys) => return Some(ys.iter().map(|&y| v[y].clone()).collect()),
            Term::Br { target, args } => (*target, args),
            Term::CondBr {
                cond,
                t,
                t_args,
                f,
                f_args,
            } => {
                if v[*cond].int() & 1 == 1 {
                    (*t, t_args)
                } else {
                    (*f, f_args)
                }
            }
        };
        let vals: Vec<Val> = args.iter().map(|&a| v[a].clone()).collect();
        for (&p, x) in blocks[next].params.iter().zip(vals) {
            v[p] = x;
        }
        b = next;
    }
}

/// Evaluates one operation into `v`.
fn eval_op(body: &Body, op: &super::ast::BodyOp, v: &mut [Val]) {
    let ty = |k: usize| &body.types[op.operands[k]];
    let x = |v: &[Val], k: usize| v[op.operands[k]].int();
    let out_ty = &body.types[op.results[0]];
    match &op.kind {
        BodyOpKind::Constant(c) => v[op.results[0]] = Val::Int(*c),
        BodyOpKind::Pack => {
            v[op.results[0]] = Val::Tuple(op.operands.iter().map(|&o| v[o].clone()).collect())
        }
        BodyOpKind::Unpack => {
            let Val::Tuple(fields) = v[op.operands[0]].clone() else {
                unreachable!("unpack of a tuple")
            };
            for (&r, f) in op.results.iter().zip(fields) {
                v[r] = f;
            }
        }
        BodyOpKind::Arith(a) => {
            let w = ty(0).bit_width();
            let r = match a {
                ArithOp::Select => {
                    let pick = if x(v, 0) & 1 == 1 { 1 } else { 2 };
                    v[op.results[0]] = v[op.operands[pick]].clone();
                    return;
                }
                op => {
                    let args: Vec<u64> = (0..op.arity()).map(|k| x(v, k)).collect();
                    arith::apply(*op, &args, w, out_ty.bit_width())
                }
            };
            v[op.results[0]] = Val::Int(r);
        }
    }
}

/// A token sequence as streams: each stream's elements and whether it ended.
pub fn streams(tokens: &[Token], ty: &Type) -> Vec<(Vec<Element>, bool)> {
    let mut out = Vec::new();
    let mut cur = Vec::new();
    for t in tokens {
        match t {
            Token::Elem(v) => cur.push(v.element(ty)),
            Token::End => out.push((std::mem::take(&mut cur), true)),
        }
    }
    if !cur.is_empty() || out.is_empty() {
        out.push((cur, false));
    }
    out
}
