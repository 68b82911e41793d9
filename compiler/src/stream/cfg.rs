//! A body of several blocks (`cf.br`, `cf.cond_br`): written as a function of the C front
//! end's SSA IR and lowered by the same dataflow construction as C (merges and muxes at block
//! entries, a `cond_br` per live value at block exits, constants triggered by block control,
//! a function lock so one element is in the body at a time), then copied into the operator's
//! group. Tuples are carried as their integer fields; the yields leave as one integer, the
//! fields concatenated (the first in the most significant bits), which the operator cuts
//! apart again with `shrui`/`trunci`.

use std::collections::HashMap;

use handscope_sim::graph::NameHint;
use handscope_sim::{ArithOp, ChannelId, CmpPredicate, Op, Type};

use super::ast::{Body, BodyOpKind, CfgBlock, Term};
use crate::c::ir::{
    BinaryOp, Block, BlockId, CastOp, CmpPred, Inst, InstKind, IrFunction, IrParam, Terminator,
    Type as IrType, ValueId,
};
use crate::c::{IntKind, IntTy, Scalar, Span};

/// Widest concatenation of a body's yields.
const MAX_YIELD_BITS: u32 = 4096;

/// The integer fields of a value of type `t`, in order.
fn leaf_widths(t: &Type, out: &mut Vec<u32>) {
    match t {
        Type::Tuple(fs) => fs.iter().for_each(|f| leaf_widths(f, out)),
        t => out.push(t.bit_width()),
    }
}

fn scalar(w: u32) -> Scalar {
    Scalar::Int(IntTy {
        kind: IntKind::BitInt(w as u16),
        signed: true,
    })
}

fn cmp_pred(p: CmpPredicate) -> CmpPred {
    match p {
        CmpPredicate::Eq => CmpPred::Eq,
        CmpPredicate::Ne => CmpPred::Ne,
        CmpPredicate::Slt => CmpPred::Slt,
        CmpPredicate::Sle => CmpPred::Sle,
        CmpPredicate::Sgt => CmpPred::Sgt,
        CmpPredicate::Sge => CmpPred::Sge,
        CmpPredicate::Ult => CmpPred::Ult,
        CmpPredicate::Ule => CmpPred::Ule,
        CmpPredicate::Ugt => CmpPred::Ugt,
        CmpPredicate::Uge => CmpPred::Uge,
    }
}

/// Builds the IR of a body of several blocks.
struct IrBuild {
    value_types: Vec<IrType>,
    blocks: Vec<Block>,
}

impl IrBuild {
    fn value(&mut self, w: u32) -> ValueId {
        self.value_types.push(IrType::Int(w));
        ValueId(self.value_types.len() as u32 - 1)
    }

    fn token(&mut self) -> ValueId {
        self.value_types.push(IrType::Token);
        ValueId(self.value_types.len() as u32 - 1)
    }

    fn inst(&mut self, b: usize, kind: InstKind, w: u32, span: Span) -> ValueId {
        let r = self.value(w);
        self.blocks[b].insts.push(Inst {
            kind,
            results: vec![r],
            span,
        });
        r
    }
}

fn span_at(pos: (u32, u32)) -> Span {
    Span {
        start: 0,
        end: 0,
        line: pos.0,
        col: pos.1,
        file: 0,
    }
}

/// The IR function of `body` (whose blocks are `blocks`), with the types of its yields.
fn build_ir(
    body: &Body,
    blocks: &[CfgBlock],
    name: &str,
) -> Result<(IrFunction, Vec<Type>), String> {
    let mut ir = IrBuild {
        value_types: Vec::new(),
        blocks: Vec::new(),
    };
    // Every body value as its fields' IR values.
    let mut leaves: HashMap<usize, Vec<ValueId>> = HashMap::new();
    let widths = |t: &Type| {
        let mut w = Vec::new();
        leaf_widths(t, &mut w);
        w
    };
    let mut params = Vec::new();
    for (bi, b) in blocks.iter().enumerate() {
        let mut ps = Vec::new();
        for &p in &b.params {
            let vs: Vec<ValueId> = widths(&body.types[p])
                .into_iter()
                .map(|w| ir.value(w))
                .collect();
            if bi == 0 {
                for (k, &v) in vs.iter().enumerate() {
                    params.push(IrParam::Scalar {
                        name: format!("a{}_{k}", p),
                        ty: scalar(ir.value_types[v.0 as usize].bits()),
                        value: v,
                    });
                }
            }
            ps.extend(vs.iter().copied());
            leaves.insert(p, vs);
        }
        ir.blocks.push(Block {
            params: ps,
            insts: Vec::new(),
            term: Terminator::Return {
                value: None,
                tokens: Vec::new(),
            },
            term_span: span_at(b.pos),
        });
    }
    let start = ir.token();
    ir.blocks[0].params.push(start);
    // One exit block takes every yield's fields and returns them concatenated.
    let yield_types: Vec<Type> = blocks
        .iter()
        .find_map(|b| match &b.term {
            Term::Yield(ys) => Some(ys.iter().map(|&y| body.types[y].clone()).collect()),
            _ => None,
        })
        .ok_or("the body never yields")?;
    let yield_widths: Vec<u32> = yield_types.iter().flat_map(&widths).collect();
    let total: u32 = yield_widths.iter().sum();
    if total > MAX_YIELD_BITS {
        return Err(format!(
            "the yields of a body of several blocks take {total} bits, more than {MAX_YIELD_BITS}"
        ));
    }
    let exit = ir.blocks.len();
    let exit_params: Vec<ValueId> = yield_widths.iter().map(|&w| ir.value(w)).collect();
    ir.blocks.push(Block {
        params: exit_params.clone(),
        insts: Vec::new(),
        term: Terminator::Return {
            value: None,
            tokens: Vec::new(),
        },
        term_span: span_at(blocks[0].pos),
    });
    for (bi, b) in blocks.iter().enumerate() {
        for op in &b.ops {
            let sp = span_at(op.pos);
            let ins: Vec<Vec<ValueId>> = op.operands.iter().map(|o| leaves[o].clone()).collect();
            let w = |r: usize| body.types[op.results[r]].bit_width();
            match &op.kind {
                BodyOpKind::Constant(c) => {
                    let width = w(0);
                    let value = handscope_sim::engine::arith::sext(*c, width);
                    let r = ir.inst(bi, InstKind::Const { value }, width, sp);
                    leaves.insert(op.results[0], vec![r]);
                }
                BodyOpKind::Pack => {
                    leaves.insert(op.results[0], ins.concat());
                }
                BodyOpKind::Unpack => {
                    let mut at = 0;
                    for &r in &op.results {
                        let n = widths(&body.types[r]).len();
                        leaves.insert(r, ins[0][at..at + n].to_vec());
                        at += n;
                    }
                }
                BodyOpKind::Arith(a) => {
                    let width = w(0);
                    let (x, y) = (
                        ins[0].first().copied(),
                        ins.get(1).and_then(|v| v.first().copied()),
                    );
                    let bin = |op| InstKind::Binary {
                        op,
                        lhs: x.expect("operand"),
                        rhs: y.expect("operand"),
                    };
                    let minmax = |pred| (pred, x.expect("operand"), y.expect("operand"));
                    let r = match a {
                        ArithOp::Select => {
                            // Field by field for tuples.
                            let out: Vec<ValueId> = ins[1]
                                .iter()
                                .zip(&ins[2])
                                .map(|(&t, &f)| {
                                    let fw = ir.value_types[t.0 as usize].bits();
                                    ir.inst(
                                        bi,
                                        InstKind::Select {
                                            cond: ins[0][0],
                                            t,
                                            f,
                                        },
                                        fw,
                                        sp,
                                    )
                                })
                                .collect();
                            leaves.insert(op.results[0], out);
                            continue;
                        }
                        ArithOp::Cmpi(p) => InstKind::Cmp {
                            pred: cmp_pred(*p),
                            lhs: x.expect("operand"),
                            rhs: y.expect("operand"),
                        },
                        ArithOp::Extsi | ArithOp::Extui | ArithOp::Trunci => InstKind::Cast {
                            op: match a {
                                ArithOp::Extsi => CastOp::ExtSI,
                                ArithOp::Extui => CastOp::ExtUI,
                                _ => CastOp::TruncI,
                            },
                            value: x.expect("operand"),
                        },
                        ArithOp::Maxsi | ArithOp::Minsi | ArithOp::Maxui | ArithOp::Minui => {
                            let (pred, l, rr) = minmax(match a {
                                ArithOp::Maxsi => CmpPred::Sgt,
                                ArithOp::Minsi => CmpPred::Slt,
                                ArithOp::Maxui => CmpPred::Ugt,
                                _ => CmpPred::Ult,
                            });
                            let c = ir.inst(
                                bi,
                                InstKind::Cmp {
                                    pred,
                                    lhs: l,
                                    rhs: rr,
                                },
                                1,
                                sp,
                            );
                            InstKind::Select {
                                cond: c,
                                t: l,
                                f: rr,
                            }
                        }
                        other => bin(match other {
                            ArithOp::Addi => BinaryOp::AddI,
                            ArithOp::Subi => BinaryOp::SubI,
                            ArithOp::Muli => BinaryOp::MulI,
                            ArithOp::Divsi => BinaryOp::DivSI,
                            ArithOp::Divui => BinaryOp::DivUI,
                            ArithOp::Remsi => BinaryOp::RemSI,
                            ArithOp::Remui => BinaryOp::RemUI,
                            ArithOp::Andi => BinaryOp::AndI,
                            ArithOp::Ori => BinaryOp::OrI,
                            ArithOp::Xori => BinaryOp::XOrI,
                            ArithOp::Shli => BinaryOp::ShLI,
                            ArithOp::Shrsi => BinaryOp::ShRSI,
                            ArithOp::Shrui => BinaryOp::ShRUI,
                            o => {
                                return Err(format!(
                                    "`arith.{}` in a body of several blocks",
                                    o.mnemonic()
                                ));
                            }
                        }),
                    };
                    let width = match a {
                        ArithOp::Cmpi(_) => 1,
                        _ => width,
                    };
                    let v = ir.inst(bi, r, width, sp);
                    leaves.insert(op.results[0], vec![v]);
                }
            }
        }
        let flat =
            |vs: &[usize]| -> Vec<ValueId> { vs.iter().flat_map(|v| leaves[v].clone()).collect() };
        ir.blocks[bi].term = match &b.term {
            Term::Yield(ys) => Terminator::Br {
                target: BlockId(exit as u32),
                args: flat(ys),
            },
            Term::Br { target, args } => Terminator::Br {
                target: BlockId(*target as u32),
                args: flat(args),
            },
            Term::CondBr {
                cond,
                t,
                t_args,
                f,
                f_args,
            } => Terminator::CondBr {
                cond: leaves[cond][0],
                t: BlockId(*t as u32),
                t_args: flat(t_args),
                f: BlockId(*f as u32),
                f_args: flat(f_args),
            },
        };
    }
    // The exit: the fields concatenated, the first in the most significant bits.
    let sp = span_at(blocks[0].pos);
    let mut acc: Option<ValueId> = None;
    for (&v, &w) in exit_params.iter().zip(&yield_widths) {
        let wide = if w == total {
            v
        } else {
            ir.inst(
                exit,
                InstKind::Cast {
                    op: CastOp::ExtUI,
                    value: v,
                },
                total,
                sp,
            )
        };
        acc = Some(match acc {
            None => wide,
            Some(a) => {
                let sh = ir.inst(
                    exit,
                    InstKind::Const {
                        value: i64::from(w),
                    },
                    total,
                    sp,
                );
                let shifted = ir.inst(
                    exit,
                    InstKind::Binary {
                        op: BinaryOp::ShLI,
                        lhs: a,
                        rhs: sh,
                    },
                    total,
                    sp,
                );
                ir.inst(
                    exit,
                    InstKind::Binary {
                        op: BinaryOp::OrI,
                        lhs: shifted,
                        rhs: wide,
                    },
                    total,
                    sp,
                )
            }
        });
    }
    ir.blocks[exit].term = Terminator::Return {
        value: acc,
        tokens: Vec::new(),
    };
    let n = ir.value_types.len();
    Ok((
        IrFunction {
            name: name.to_string(),
            params,
            ret: Some(scalar(total)),
            memories: Vec::new(),
            blocks: ir.blocks,
            value_types: ir.value_types,
            value_names: vec![None; n],
            start_token: start,
            span: span_at(blocks[0].pos),
        },
        yield_types,
    ))
}

/// Lowers a body of several blocks into builder `b`'s operator group; returns a channel per
/// yielded value, like the lowering of a body of one block.
pub(super) fn lower_cfg_body(
    b: &mut super::lower::Builder,
    body: &Body,
    blocks: &[CfgBlock],
    args: &[ChannelId],
    ctrl: ChannelId,
) -> Result<Vec<ChannelId>, (String, u32, u32)> {
    let at = blocks[0].pos;
    let (ir, yield_types) = build_ir(body, blocks, &b.group).map_err(|m| (m, at.0, at.1))?;
    let mut yield_widths = Vec::new();
    for t in &yield_types {
        leaf_widths(t, &mut yield_widths);
    }
    let file = b.file.to_string();
    let g = crate::c::lower_ir_to_handshake(&ir, &file)?;
    // The arguments' fields, then the element's control token as `start`.
    let mut provided: Vec<ChannelId> = Vec::new();
    for (&a, &p) in args.iter().zip(&blocks[0].params) {
        fields(b, a, &body.types[p], &mut provided);
    }
    provided.push(ctrl);
    // Copy every node but the arguments and the return, named inside the group.
    let mut map: HashMap<ChannelId, ChannelId> = HashMap::new();
    let mut copied = Vec::new();
    let mut ret = None;
    for (_, node) in g.nodes.iter() {
        match node.op {
            Op::Argument { index } => {
                map.insert(node.outputs[0], provided[index]);
            }
            Op::Return => ret = Some(node.inputs[0]),
            _ => {
                let outs: Vec<Type> = node
                    .outputs
                    .iter()
                    .map(|&c| g.channels[c].ty.clone())
                    .collect();
                let n = b.f.add_node(node.op.clone(), outs);
                for (k, &o) in node.outputs.iter().enumerate() {
                    map.insert(o, b.f.nodes[n].outputs[k]);
                }
                let new = &mut b.f.nodes[n];
                new.name_hint = NameHint::Name(format!("{}/{}", b.group, node.id));
                new.block = b.block.clone();
                new.loc = node.loc.clone().or_else(|| b.loc.clone());
                new.attrs = node.attrs.clone();
                copied.push((n, node.inputs.clone()));
            }
        }
    }
    for (n, ins) in copied {
        let ins: Vec<ChannelId> = ins.iter().map(|c| map[c]).collect();
        b.f.set_inputs(n, ins);
    }
    let ret = map[&ret.expect("the body function returns")];
    // Cut the concatenation apart again: each field, then the tuples.
    let total: u32 = yield_widths.iter().sum();
    let mut after = total;
    let mut leaves = Vec::new();
    for &w in &yield_widths {
        after -= w;
        let mut v = ret;
        if after > 0 {
            let sh = b.constant(u64::from(after), &Type::Int(total as u16), ctrl);
            v = b.one(
                Op::Arith(ArithOp::Shrui),
                "shrui",
                vec![v, sh],
                Type::Int(total as u16),
            );
        }
        if w < total {
            v = b.one(
                Op::Arith(ArithOp::Trunci),
                "trunci",
                vec![v],
                Type::Int(w as u16),
            );
        }
        leaves.push(v);
    }
    let mut it = leaves.into_iter();
    Ok(yield_types
        .iter()
        .map(|t| assemble(b, t, &mut it))
        .collect())
}

/// The integer fields of channel `c` of type `t` (tuples unpacked, nested ones too).
fn fields(b: &mut super::lower::Builder, c: ChannelId, t: &Type, out: &mut Vec<ChannelId>) {
    match t {
        Type::Tuple(fs) => {
            let n = b.node(Op::Unpack, "unpack", vec![c], fs.clone());
            for (k, f) in fs.iter().enumerate() {
                let o = b.f.nodes[n].outputs[k];
                fields(b, o, f, out);
            }
        }
        _ => out.push(c),
    }
}

/// A value of type `t` packed from the next fields of `it`.
fn assemble(
    b: &mut super::lower::Builder,
    t: &Type,
    it: &mut impl Iterator<Item = ChannelId>,
) -> ChannelId {
    match t {
        Type::Tuple(fs) => {
            let parts: Vec<ChannelId> = fs.iter().map(|f| assemble(b, f, it)).collect();
            b.one(Op::Pack, "pack", parts, t.clone())
        }
        _ => it.next().expect("one field per leaf"),
    }
}
