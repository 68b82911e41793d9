//! Per-op port count, port type and attribute rules.

use super::{Cx, Rule, VerifyOptions};
use crate::graph::{ArgType, Module, NodeId};
use crate::ops::{ArithOp, Op};
use crate::types::Type;

/// Allowed number of ports: exactly `n`, or at least `n`.
#[derive(Clone, Copy)]
enum Count {
    Exactly(usize),
    AtLeast(usize),
}

impl Count {
    fn accepts(self, n: usize) -> bool {
        match self {
            Count::Exactly(k) => n == k,
            Count::AtLeast(k) => n >= k,
        }
    }

    fn describe(self) -> String {
        match self {
            Count::Exactly(k) => format!("{k}"),
            Count::AtLeast(k) => format!("at least {k}"),
        }
    }
}

/// Runs the port rules on every node.
pub(super) fn check_ports(cx: &mut Cx<'_>, opts: &VerifyOptions, module: Option<&Module>) {
    let ids: Vec<NodeId> = cx.f.nodes.keys().collect();
    for n in ids {
        if check_counts(cx, n, module) {
            check_types(cx, n, module);
        }
        check_compat(cx, n, opts);
    }
}

/// Checks port counts; returns false (and reports) when they are wrong.
fn check_counts(cx: &mut Cx<'_>, n: NodeId, module: Option<&Module>) -> bool {
    use Count::*;
    let f = cx.f;
    let node = &f.nodes[n];
    let (ins, outs) = match &node.op {
        Op::Argument { .. } => (Exactly(0), Exactly(1)),
        Op::Return => (Exactly(f.results.len()), Exactly(0)),
        Op::Fork | Op::LazyFork | Op::Unpack => (Exactly(1), AtLeast(1)),
        Op::Merge | Op::Join | Op::Pack => (AtLeast(1), Exactly(1)),
        Op::Mux => (AtLeast(2), Exactly(1)),
        Op::ControlMerge => (AtLeast(1), Exactly(2)),
        Op::CondBr => (Exactly(2), Exactly(2)),
        Op::Br | Op::Buffer { .. } | Op::Constant { .. } => (Exactly(1), Exactly(1)),
        Op::Sync => (AtLeast(1), Exactly(node.inputs.len().max(1))),
        Op::Source | Op::Never => (Exactly(0), Exactly(1)),
        Op::Sink => (Exactly(1), Exactly(0)),
        Op::Load | Op::Store => (Exactly(3), Exactly(2)),
        Op::Memory { ld, st, .. } | Op::ExtMemory { ld, st, .. } => {
            let (ld, st) = (*ld as usize, *st as usize);
            (Exactly(2 * st + ld), Exactly(2 * ld + st))
        }
        Op::Instance { callee } => match module {
            None => (AtLeast(0), AtLeast(0)),
            Some(m) => match m.function(callee) {
                None => {
                    cx.error(
                        Rule::MissingCallee,
                        n,
                        format!("calls @{callee}, which the module does not define"),
                    );
                    return false;
                }
                Some(g) => {
                    let args = g
                        .args
                        .iter()
                        .filter(|a| matches!(a.ty, ArgType::Channel(_)))
                        .count();
                    (Exactly(args), Exactly(g.results.len()))
                }
            },
        },
        Op::Arith(a) => (Exactly(a.arity()), Exactly(1)),
    };
    let mut ok = true;
    if !ins.accepts(node.inputs.len()) {
        ok = false;
        cx.error(
            Rule::PortCount,
            n,
            format!(
                "has {} inputs, expected {}",
                node.inputs.len(),
                ins.describe()
            ),
        );
    }
    if !outs.accepts(node.outputs.len()) {
        ok = false;
        cx.error(
            Rule::PortCount,
            n,
            format!(
                "has {} outputs, expected {}",
                node.outputs.len(),
                outs.describe()
            ),
        );
    }
    ok
}

/// Reports a type mismatch unless `actual == expected`.
fn expect(cx: &mut Cx<'_>, n: NodeId, what: &str, actual: &Type, expected: &Type) {
    if actual != expected {
        cx.error(
            Rule::TypeMismatch,
            n,
            format!("{what} has type {actual}, expected {expected}"),
        );
    }
}

/// Reports unless `t` is `iN` or `index`.
fn expect_integer(cx: &mut Cx<'_>, n: NodeId, what: &str, t: &Type) {
    if !t.is_integer() {
        cx.error(
            Rule::TypeMismatch,
            n,
            format!("{what} has type {t}, expected an integer or index"),
        );
    }
}

/// True when an index of type `t` can name `count` inputs.
fn wide_enough(t: &Type, count: usize) -> bool {
    match t {
        Type::Index => true,
        Type::Int(w) => *w >= 64 || (1u128 << *w) >= count as u128,
        _ => false,
    }
}

/// Checks port types and attributes (port counts are known to be right).
fn check_types(cx: &mut Cx<'_>, n: NodeId, module: Option<&Module>) {
    let f = cx.f;
    let node = &f.nodes[n];
    let ty_in: Vec<Type> = node
        .inputs
        .iter()
        .map(|c| f.channels[*c].ty.clone())
        .collect();
    let ty_out: Vec<Type> = node
        .outputs
        .iter()
        .map(|c| f.channels[*c].ty.clone())
        .collect();
    let in_name = |i: usize| format!("input `{}`", node.op.input_port_name(i));
    let out_name = |i: usize| format!("output `{}`", node.op.output_port_name(i));
    match &node.op {
        Op::Argument { index } => match f.args.get(*index).map(|a| &a.ty) {
            Some(ArgType::Channel(t)) => expect(cx, n, "argument channel", &ty_out[0], t),
            _ => cx.error(
                Rule::Structure,
                n,
                format!("argument node refers to argument {index}, which is not a channel"),
            ),
        },
        Op::Return => {
            for (i, r) in f.results.iter().enumerate() {
                expect(
                    cx,
                    n,
                    &format!("operand {i} (result `{}`)", r.name),
                    &ty_in[i],
                    &r.ty,
                );
            }
        }
        Op::Fork | Op::LazyFork | Op::Br | Op::Buffer { .. } => {
            for (i, t) in ty_out.iter().enumerate() {
                expect(cx, n, &out_name(i), t, &ty_in[0]);
            }
        }
        Op::Merge => {
            for (i, t) in ty_in.iter().enumerate() {
                expect(cx, n, &in_name(i), t, &ty_out[0]);
            }
        }
        Op::Mux => {
            let data = ty_in.len() - 1;
            if !wide_enough(&ty_in[0], data) {
                cx.error(
                    Rule::TypeMismatch,
                    n,
                    format!("select type {} cannot index {data} data inputs", ty_in[0]),
                );
            }
            for (i, t) in ty_in.iter().enumerate().skip(1) {
                expect(cx, n, &in_name(i), t, &ty_out[0]);
            }
        }
        Op::ControlMerge => {
            for (i, t) in ty_in.iter().enumerate() {
                expect(cx, n, &in_name(i), t, &ty_out[0]);
            }
            if !wide_enough(&ty_out[1], ty_in.len()) {
                cx.error(
                    Rule::TypeMismatch,
                    n,
                    format!(
                        "index type {} cannot index {} inputs",
                        ty_out[1],
                        ty_in.len()
                    ),
                );
            }
        }
        Op::CondBr => {
            expect(cx, n, "condition", &ty_in[0], &Type::Int(1));
            for (i, t) in ty_out.iter().enumerate() {
                expect(cx, n, &out_name(i), t, &ty_in[1]);
            }
        }
        Op::Join => expect(cx, n, "output", &ty_out[0], &Type::None),
        Op::Sync => {
            for (i, (o, t)) in ty_out.iter().zip(&ty_in).enumerate() {
                expect(cx, n, &out_name(i), o, t);
            }
        }
        Op::Pack => expect(cx, n, "output", &ty_out[0], &Type::Tuple(ty_in.clone())),
        Op::Unpack => {
            let members = match &ty_in[0] {
                Type::Tuple(ms) => ms.clone(),
                other => {
                    cx.error(
                        Rule::TypeMismatch,
                        n,
                        format!("input has type {other}, expected a tuple"),
                    );
                    return;
                }
            };
            if members.len() != ty_out.len() {
                cx.error(
                    Rule::PortCount,
                    n,
                    format!(
                        "has {} outputs for a {}-member tuple",
                        ty_out.len(),
                        members.len()
                    ),
                );
                return;
            }
            for (i, (o, t)) in ty_out.iter().zip(&members).enumerate() {
                expect(cx, n, &out_name(i), o, t);
            }
        }
        Op::Constant { value } => {
            expect(cx, n, "input `ctrl`", &ty_in[0], &Type::None);
            let t = &ty_out[0];
            if !t.is_integer() {
                cx.error(
                    Rule::TypeMismatch,
                    n,
                    format!("output has type {t}, expected an integer or index"),
                );
            } else if value & !t.mask() != 0 {
                cx.error(
                    Rule::Attribute,
                    n,
                    format!("value {value} does not fit in {t}"),
                );
            }
        }
        Op::Source | Op::Sink | Op::Never => {}
        Op::Load | Op::Store => {
            expect_integer(cx, n, "input `addrIn0`", &ty_in[0]);
            expect(cx, n, "output `addrOut0`", &ty_out[1], &ty_in[0]);
            expect(cx, n, &out_name(0), &ty_out[0], &ty_in[1]);
            expect(cx, n, "input `ctrl`", &ty_in[2], &Type::None);
        }
        Op::Memory { ld, st, memref, .. } | Op::ExtMemory { ld, st, memref, .. } => {
            if let Op::ExtMemory { memref_arg, .. } = &node.op {
                match f.args.get(*memref_arg).map(|a| &a.ty) {
                    Some(ArgType::MemRef(m)) if m == memref => {}
                    Some(ArgType::MemRef(m)) => cx.error(
                        Rule::TypeMismatch,
                        n,
                        format!("argument {memref_arg} is {m}, expected {memref}"),
                    ),
                    _ => cx.error(
                        Rule::Attribute,
                        n,
                        format!("argument {memref_arg} is not a memref"),
                    ),
                }
            }
            let (ld, st) = (*ld as usize, *st as usize);
            for i in 0..st {
                expect(cx, n, &in_name(2 * i), &ty_in[2 * i], &memref.elem);
                expect_integer(cx, n, &in_name(2 * i + 1), &ty_in[2 * i + 1]);
                expect(cx, n, &out_name(ld + i), &ty_out[ld + i], &Type::None);
            }
            for i in 0..ld {
                expect_integer(cx, n, &in_name(2 * st + i), &ty_in[2 * st + i]);
                expect(cx, n, &out_name(i), &ty_out[i], &memref.elem);
                expect(
                    cx,
                    n,
                    &out_name(ld + st + i),
                    &ty_out[ld + st + i],
                    &Type::None,
                );
            }
        }
        Op::Instance { callee } => {
            let Some(g) = module.and_then(|m| m.function(callee)) else {
                return;
            };
            let args = g.args.iter().filter_map(|a| match &a.ty {
                ArgType::Channel(t) => Some((a, t)),
                ArgType::MemRef(_) => None,
            });
            for (i, (a, t)) in args.enumerate() {
                expect(
                    cx,
                    n,
                    &format!("operand {i} (@{callee} argument `{}`)", a.name),
                    &ty_in[i],
                    t,
                );
            }
            for (i, r) in g.results.iter().enumerate() {
                expect(
                    cx,
                    n,
                    &format!("result {i} (@{callee} result `{}`)", r.name),
                    &ty_out[i],
                    &r.ty,
                );
            }
        }
        Op::Arith(a) => check_arith(cx, n, *a, &ty_in, &ty_out[0]),
    }
    if let Op::Buffer { slots, init, .. } = &node.op {
        if *slots == 0 {
            cx.error(Rule::Attribute, n, "buffer has 0 slots".into());
        }
        if let Some(init) = init {
            if init.len() != *slots as usize {
                cx.error(
                    Rule::Attribute,
                    n,
                    format!("has {} initial values for {slots} slots", init.len()),
                );
            }
            let mask = ty_in[0].mask();
            if let Some(v) = init.iter().find(|v| **v & !mask != 0) {
                cx.error(
                    Rule::Attribute,
                    n,
                    format!("initial value {v} does not fit in {}", ty_in[0]),
                );
            }
        }
    }
}

/// Operand and result rules of `arith` ops.
fn check_arith(cx: &mut Cx<'_>, n: NodeId, a: ArithOp, ins: &[Type], out: &Type) {
    match a {
        ArithOp::Cmpi(_) => {
            expect_integer(cx, n, "operand 0", &ins[0]);
            expect(cx, n, "operand 1", &ins[1], &ins[0]);
            expect(cx, n, "result", out, &Type::Int(1));
        }
        ArithOp::Select => {
            expect(cx, n, "condition", &ins[0], &Type::Int(1));
            expect(cx, n, "true value", &ins[1], out);
            expect(cx, n, "false value", &ins[2], out);
        }
        ArithOp::Extsi | ArithOp::Extui | ArithOp::Trunci => {
            let (Type::Int(from), Type::Int(to)) = (&ins[0], out) else {
                cx.error(
                    Rule::TypeMismatch,
                    n,
                    format!("casts {} to {out}, expected iN to iM", ins[0]),
                );
                return;
            };
            let extends = !matches!(a, ArithOp::Trunci);
            if extends && to <= from {
                cx.error(
                    Rule::TypeMismatch,
                    n,
                    format!("extends i{from} to i{to}, which is not wider"),
                );
            } else if !extends && to >= from {
                cx.error(
                    Rule::TypeMismatch,
                    n,
                    format!("truncates i{from} to i{to}, which is not narrower"),
                );
            }
        }
        ArithOp::IndexCast => {
            let ok = matches!(
                (&ins[0], out),
                (Type::Index, Type::Int(_)) | (Type::Int(_), Type::Index)
            );
            if !ok {
                cx.error(
                    Rule::TypeMismatch,
                    n,
                    format!(
                        "casts {} to {out}, expected index to iN or iN to index",
                        ins[0]
                    ),
                );
            }
        }
        _ => {
            expect_integer(cx, n, "operand 0", &ins[0]);
            expect(cx, n, "operand 1", &ins[1], &ins[0]);
            expect(cx, n, "result", out, &ins[0]);
        }
    }
}

/// Warnings about what CIRCT 1.62 cannot lower (always) or lowers wrongly (with
/// `circt_compat`).
fn check_compat(cx: &mut Cx<'_>, n: NodeId, opts: &VerifyOptions) {
    let f = cx.f;
    let node = &f.nodes[n];
    match &node.op {
        Op::Br | Op::LazyFork | Op::Never => cx.warning(
            Rule::CirctUnsupported,
            n,
            "CIRCT 1.62 cannot lower this op to hardware".into(),
        ),
        Op::ControlMerge => {
            let index_ty = node
                .outputs
                .get(1)
                .and_then(|c| f.channels.get(*c))
                .map(|c| &c.ty);
            if index_ty == Some(&Type::Int(1)) {
                cx.warning(
                    Rule::CirctUnsupported,
                    n,
                    "CIRCT 1.62 cannot lower a control_merge with an i1 index".into(),
                );
            }
        }
        _ => {}
    }
    if !opts.circt_compat {
        return;
    }
    match &node.op {
        Op::Mux if node.inputs.len() > 3 => cx.warning(
            Rule::CirctBug,
            n,
            format!(
                "CIRCT 1.62's RTL selects the wrong input of a mux with {} data inputs",
                node.inputs.len() - 1
            ),
        ),
        Op::Merge | Op::ControlMerge => {
            let data = node
                .outputs
                .first()
                .and_then(|c| f.channels.get(*c))
                .is_some_and(|c| !c.ty.is_none());
            if data {
                cx.warning(
                    Rule::CirctBug,
                    n,
                    "CIRCT 1.62's RTL outputs data 0 when input 0 wins".into(),
                );
            }
        }
        _ => {}
    }
}
