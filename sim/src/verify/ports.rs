//! Per-node port count, port type and attribute rules, read from each op's
//! [`spec`](crate::spec).

use super::{Cx, Rule, VerifyOptions};
use crate::graph::{ArgType, Module, NodeId};
use crate::ops::ArithOp;
use crate::ops::Op;
use crate::spec::{CirctLowering, ViolationKind, check_node, mux_input, mux_select_bits};
use crate::types::Type;

/// Runs the port rules on every node.
pub(super) fn check_ports(cx: &mut Cx<'_>, opts: &VerifyOptions, module: Option<&Module>) {
    let ids: Vec<NodeId> = cx.f.nodes.keys().collect();
    for n in ids {
        check_node_ports(cx, n, module);
        check_mux_select(cx, n);
        check_compat(cx, n, opts);
    }
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

/// Checks one node: the spec's counts and type rules, then what depends on the function or
/// the module (arguments, `return`, `extmemory`'s memref argument, `instance` callees).
fn check_node_ports(cx: &mut Cx<'_>, n: NodeId, module: Option<&Module>) {
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
    let violations = check_node(&node.op, &ty_in, &ty_out, f.results.len());
    let counts_ok = !violations.iter().any(|v| v.kind == ViolationKind::Count);
    for v in violations {
        let rule = match v.kind {
            ViolationKind::Count => Rule::PortCount,
            ViolationKind::Type => Rule::TypeMismatch,
            ViolationKind::Attribute => Rule::Attribute,
        };
        cx.error(rule, n, v.message);
    }
    if !counts_ok {
        return;
    }
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
        Op::ExtMemory { .. } | Op::DynMemController { .. } | Op::DynLsq { .. } => {
            // A slave load-store queue holds no array.
            if let Some(crate::ops::ArrayPorts {
                memref,
                memref_arg: Some(memref_arg),
                ..
            }) = node.op.array()
            {
                match f.args.get(memref_arg).map(|a| &a.ty) {
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
        }
        Op::Instance { callee } => check_instance(cx, n, callee, &ty_in, &ty_out, module),
        Op::Fork
        | Op::LazyFork
        | Op::Merge
        | Op::Mux
        | Op::ControlMerge
        | Op::CondBr
        | Op::Br
        | Op::Join
        | Op::Sync
        | Op::Pack
        | Op::Unpack
        | Op::Buffer { .. }
        | Op::Pipeline { .. }
        | Op::Island(_)
        | Op::DynBuffer { .. }
        | Op::DynPipeline { .. }
        | Op::DynCounterBuffer { .. }
        | Op::DynControlMerge
        | Op::DynSelect
        | Op::DynLoad
        | Op::DynStore
        | Op::Constant { .. }
        | Op::Source
        | Op::Sink
        | Op::Never
        | Op::Load
        | Op::Store
        | Op::Memory { .. }
        | Op::AddrQueue { .. }
        | Op::Arith(_) => {}
    }
}

/// An `instance` against its callee's signature (skipped without a module).
fn check_instance(
    cx: &mut Cx<'_>,
    n: NodeId,
    callee: &str,
    ty_in: &[Type],
    ty_out: &[Type],
    module: Option<&Module>,
) {
    let Some(m) = module else { return };
    let Some(g) = m.function(callee) else {
        cx.error(
            Rule::MissingCallee,
            n,
            format!("calls @{callee}, which the module does not define"),
        );
        return;
    };
    let args: Vec<_> = g
        .args
        .iter()
        .filter_map(|a| match &a.ty {
            ArgType::Channel(t) => Some((a, t)),
            ArgType::MemRef(_) => None,
        })
        .collect();
    let mut ok = true;
    for (what, have, want) in [
        ("inputs", ty_in.len(), args.len()),
        ("outputs", ty_out.len(), g.results.len()),
    ] {
        if have != want {
            ok = false;
            cx.error(
                Rule::PortCount,
                n,
                format!("has {have} {what}, expected {want}"),
            );
        }
    }
    if !ok {
        return;
    }
    for (i, (a, t)) in args.into_iter().enumerate() {
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

/// Warns when a `mux`'s select visibly takes values outside `0..N`: a constant out of range,
/// or an `i1` sign-extended (`extsi`, `index_cast`) so that true becomes all ones.
fn check_mux_select(cx: &mut Cx<'_>, n: NodeId) {
    let f = cx.f;
    let node = &f.nodes[n];
    if node.op != Op::Mux || node.inputs.len() < 2 {
        return;
    }
    let n_data = node.inputs.len() - 1;
    let bits = mux_select_bits(n_data);
    let outcome = |v: u64| match mux_input(v, n_data) {
        Some(i) => format!("takes in{i}"),
        None => "takes nothing (the mux never fires)".to_string(),
    };
    let producer = &f.nodes[f.channels[node.inputs[0]].producer.node];
    let from_ty = |i: usize| producer.inputs.get(i).map(|c| &f.channels[*c].ty);
    let message = match &producer.op {
        Op::Constant { value } if *value >= n_data as u64 => Some(format!(
            "the select is the constant {value}, out of range for {n_data} data inputs; its low {bits} bit(s) count, so the mux {}",
            outcome(*value)
        )),
        Op::Arith(ArithOp::Extsi | ArithOp::IndexCast) if from_ty(0) == Some(&Type::Int(1)) => {
            Some(format!(
                "the select sign-extends an i1, so true becomes -1, out of range for {n_data} data inputs; its low {bits} bit(s) count, so on true the mux {}",
                outcome(u64::MAX)
            ))
        }
        _ => None,
    };
    if let Some(m) = message {
        cx.warning(Rule::SelectRange, n, m);
    }
}

/// Warnings about what CIRCT 1.62 cannot lower (always) or lowers wrongly (with
/// `circt_compat`).
fn check_compat(cx: &mut Cx<'_>, n: NodeId, opts: &VerifyOptions) {
    let f = cx.f;
    let node = &f.nodes[n];
    if node.op.spec().circt == CirctLowering::NotLowered {
        cx.warning(
            Rule::CirctUnsupported,
            n,
            "CIRCT 1.62 cannot lower this op to hardware".into(),
        );
    }
    let out_ty = |i: usize| {
        node.outputs
            .get(i)
            .and_then(|c| f.channels.get(*c))
            .map(|c| &c.ty)
    };
    if node.op == Op::ControlMerge && out_ty(1) == Some(&Type::Int(1)) {
        cx.warning(
            Rule::CirctUnsupported,
            n,
            "CIRCT 1.62 cannot lower a control_merge with an i1 index".into(),
        );
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
        Op::Merge | Op::ControlMerge if out_ty(0).is_some_and(|t| !t.is_none()) => cx.warning(
            Rule::CirctBug,
            n,
            "CIRCT 1.62's RTL outputs data 0 when input 0 wins".into(),
        ),
        _ => {}
    }
}
