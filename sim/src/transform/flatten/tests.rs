use super::*;
use crate::graph::FuncResult;
use crate::location::SourceLoc;
use crate::ops::{ArithOp, BufferKind};
use crate::types::Type;
use crate::verify::{verify, verify_module};

const I32: Type = Type::Int(32);

fn func(name: &str, args: &[(&str, Type)], results: &[Type]) -> (Function, Vec<ChannelId>) {
    let mut f = Function::new(name);
    let chans = args
        .iter()
        .map(|(n, t)| f.add_arg(*n, ArgType::Channel(t.clone())).unwrap())
        .collect();
    f.results = results
        .iter()
        .enumerate()
        .map(|(i, t)| FuncResult {
            name: format!("out{i}"),
            ty: t.clone(),
        })
        .collect();
    (f, chans)
}

fn ret(f: &mut Function, ins: Vec<ChannelId>) {
    let r = f.add_node(Op::Return, vec![]);
    f.set_inputs(r, ins);
}

/// `@leaf(x, c) = (x + x, c)`, `@mid(p, q) = buffer(leaf(p, q).0), leaf(p, q).1`,
/// `@top(a, go) = mid(a, go)`.
fn hierarchy() -> Module {
    let (mut leaf, a) = func("leaf", &[("x", I32), ("c", Type::None)], &[I32, Type::None]);
    let k = leaf.add_node(Op::Fork, vec![I32, I32]);
    leaf.set_inputs(k, vec![a[0]]);
    let s = leaf.add_node(Op::Arith(ArithOp::Addi), vec![I32]);
    leaf.nodes[s].loc = Some(SourceLoc::new("leaf.mlir", 4, 7));
    leaf.nodes[s].block = Some("bb1".into());
    let ko = leaf.nodes[k].outputs.clone();
    leaf.set_inputs(s, ko);
    let so = leaf.nodes[s].outputs[0];
    ret(&mut leaf, vec![so, a[1]]);
    leaf.assign_ids().unwrap();

    let (mut mid, a) = func("mid", &[("p", I32), ("q", Type::None)], &[I32, Type::None]);
    let i = mid.add_node(
        Op::Instance {
            callee: "leaf".into(),
        },
        vec![I32, Type::None],
    );
    mid.set_inputs(i, a);
    let io = mid.nodes[i].outputs.clone();
    let b = mid.add_node(
        Op::Buffer {
            slots: 2,
            kind: BufferKind::Seq,
            init: None,
        },
        vec![I32],
    );
    mid.set_inputs(b, vec![io[0]]);
    let bo = mid.nodes[b].outputs[0];
    ret(&mut mid, vec![bo, io[1]]);
    mid.assign_ids().unwrap();

    let (mut top, a) = func("top", &[("a", I32), ("go", Type::None)], &[I32, Type::None]);
    let m = top.add_node(
        Op::Instance {
            callee: "mid".into(),
        },
        vec![I32, Type::None],
    );
    top.set_inputs(m, a);
    let mo = top.nodes[m].outputs.clone();
    ret(&mut top, mo);
    top.assign_ids().unwrap();
    Module {
        functions: vec![leaf, mid, top],
    }
}

#[test]
fn flattens_two_levels() {
    let m = hierarchy();
    assert!(verify_module(&m).is_ok());
    let f = flatten(&m, "top").unwrap();
    let ids: Vec<&str> = f.nodes.values().map(|n| n.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "a",
            "go",
            "mid0/leaf0/fork0",
            "mid0/leaf0/addi0",
            "mid0/buffer0",
            "return0"
        ]
    );
    assert!(
        !f.nodes
            .values()
            .any(|n| matches!(n.op, Op::Instance { .. }))
    );
    let consumer = |ch: &str| {
        let c = f
            .channel_by_name(ch)
            .unwrap_or_else(|| panic!("no channel {ch}"));
        f.channels[c]
            .consumers
            .iter()
            .map(|p| f.consumer_name(*p))
            .collect::<Vec<_>>()
    };
    assert_eq!(consumer("a"), ["mid0/leaf0/fork0.in0"]);
    assert_eq!(consumer("mid0/leaf0/fork0.out1"), ["mid0/leaf0/addi0.in1"]);
    assert_eq!(consumer("mid0/leaf0/addi0.out0"), ["mid0/buffer0.in0"]);
    assert_eq!(consumer("mid0/buffer0.out0"), ["return0.in0"]);
    // `go` passes through two returns straight to the top return.
    assert_eq!(consumer("go"), ["return0.in1"]);
    let addi = &f.nodes[f.node_by_id("mid0/leaf0/addi0").unwrap()];
    assert_eq!(
        addi.loc.as_ref().map(|l| l.to_string()).as_deref(),
        Some("leaf.mlir:4:7")
    );
    assert_eq!(addi.block.as_deref(), Some("bb1"));
    assert_eq!(addi.name_hint, NameHint::Name("mid0/leaf0/addi0".into()));
    assert_eq!(hierarchy_of(&addi.id), ["mid0", "leaf0", "addi0"]);
    assert_eq!(hierarchy_of("return0"), ["return0"]);
    let r = verify(&f);
    assert!(r.is_ok(), "{:#?}", r.errors);
    // IDs survive a later assign_ids.
    let mut g = f.clone();
    g.assign_ids().unwrap();
    assert_eq!(g, f);
}

#[test]
fn missing_callee_and_top() {
    let mut m = hierarchy();
    if let Op::Instance { callee } = &mut m.functions[1]
        .nodes
        .values_mut()
        .find(|n| n.id == "leaf0")
        .unwrap()
        .op
    {
        *callee = "gone".into();
    }
    assert_eq!(
        flatten(&m, "top"),
        Err(FlattenError::MissingCallee {
            instance: "mid0/leaf0".into(),
            callee: "gone".into()
        })
    );
    assert_eq!(
        flatten(&m, "nope"),
        Err(FlattenError::MissingTop("nope".into()))
    );
}

#[test]
fn recursion_is_an_error() {
    let mut m = hierarchy();
    if let Op::Instance { callee } = &mut m.functions[1]
        .nodes
        .values_mut()
        .find(|n| n.id == "leaf0")
        .unwrap()
        .op
    {
        *callee = "top".into();
    }
    let e = flatten(&m, "top").unwrap_err();
    assert_eq!(
        e,
        FlattenError::Recursion {
            chain: vec!["top".into(), "mid".into(), "top".into()]
        }
    );
    assert_eq!(e.to_string(), "recursive instances: @top -> @mid -> @top");
}

#[test]
fn flattening_exposes_cycles_across_instances() {
    // @pass(x) = x (a wire); @top: merge(a, pass(merge)) forms a loop through the instance.
    let (mut pass, a) = func("pass", &[("x", I32)], &[I32]);
    let b = pass.add_node(Op::Br, vec![I32]);
    pass.set_inputs(b, a);
    let bo = pass.nodes[b].outputs[0];
    ret(&mut pass, vec![bo]);
    pass.assign_ids().unwrap();
    let (mut top, a) = func("top", &[("a", I32)], &[I32]);
    let m = top.add_node(Op::Merge, vec![I32]);
    let mo = top.nodes[m].outputs[0];
    let k = top.add_node(Op::Fork, vec![I32, I32]);
    top.set_inputs(k, vec![mo]);
    let ko = top.nodes[k].outputs.clone();
    let i = top.add_node(
        Op::Instance {
            callee: "pass".into(),
        },
        vec![I32],
    );
    top.set_inputs(i, vec![ko[1]]);
    let io = top.nodes[i].outputs[0];
    top.set_inputs(m, vec![a[0], io]);
    ret(&mut top, vec![ko[0]]);
    top.assign_ids().unwrap();
    let module = Module {
        functions: vec![pass, top],
    };
    assert!(verify_module(&module).is_ok());
    let flat = flatten(&module, "top").unwrap();
    let r = verify(&flat);
    let ids: Vec<&str> = r.errors[0].nodes.iter().map(|n| n.id.as_str()).collect();
    assert_eq!(ids, ["merge0", "fork0", "pass0/br0"]);
}

/// `@f0 .. @f{levels}`: each `@fk(x: none) -> none` forks `x` into `width` instances of
/// `@f{k+1}` and joins their results; the last one is a wire through a `br`.
fn nested(levels: usize, width: usize) -> Module {
    let mut functions = Vec::new();
    for k in 0..=levels {
        let (mut f, a) = func(&format!("f{k}"), &[("x", Type::None)], &[Type::None]);
        if k == levels {
            let b = f.add_node(Op::Br, vec![Type::None]);
            f.set_inputs(b, a);
            let bo = f.nodes[b].outputs[0];
            ret(&mut f, vec![bo]);
        } else {
            let fork = f.add_node(Op::Fork, vec![Type::None; width]);
            f.set_inputs(fork, a);
            let outs = f.nodes[fork].outputs.clone();
            let mut results = Vec::new();
            for o in outs {
                let i = f.add_node(
                    Op::Instance {
                        callee: format!("f{}", k + 1),
                    },
                    vec![Type::None],
                );
                f.set_inputs(i, vec![o]);
                results.push(f.nodes[i].outputs[0]);
            }
            let j = f.add_node(Op::Join, vec![Type::None]);
            f.set_inputs(j, results);
            let jo = f.nodes[j].outputs[0];
            ret(&mut f, vec![jo]);
        }
        f.assign_ids().unwrap();
        functions.push(f);
    }
    Module { functions }
}

#[test]
fn exponential_hierarchies_are_refused_before_inlining() {
    // 2^40 copies of the leaf: refused at once instead of exhausting memory.
    let m = nested(40, 2);
    let e = flatten(&m, "f0").unwrap_err();
    assert!(matches!(e, FlattenError::TooLarge { .. }), "{e}");
    assert!(e.to_string().contains("the limit is 1,048,576"), "{e}");
    // 2^10 copies are fine.
    let f = flatten(&nested(10, 2), "f0").unwrap();
    assert!(f.nodes.len() > 2_000);
    assert!(verify(&f).is_ok());
}

#[test]
fn hierarchies_deeper_than_the_limit_are_refused() {
    let m = nested(crate::limits::MAX_HIERARCHY_DEPTH + 10, 1);
    let e = flatten(&m, "f0").unwrap_err();
    assert!(matches!(e, FlattenError::TooDeep { .. }), "{e}");
    assert!(
        e.to_string()
            .starts_with("instances nest more than 256 levels deep: @f0 -> @f1"),
        "{e}"
    );
    assert!(flatten(&nested(crate::limits::MAX_HIERARCHY_DEPTH - 1, 1), "f0").is_ok());
}
