use super::*;
use handscope_sim::{
    ArgType, ArithOp, BufferKind, ChannelId, CmpPredicate, FuncResult, MemRefType, NameHint,
    SourceLoc, Type,
};

const I32: Type = Type::Int(32);

fn add(f: &mut Function, op: Op, ins: Vec<ChannelId>, outs: Vec<Type>) -> (NodeId, Vec<ChannelId>) {
    let n = f.add_node(op, outs);
    f.set_inputs(n, ins);
    (n, f.nodes[n].outputs.clone())
}

/// `@small(a: i32, go: none) -> (i32, none)`: compare a with 0, branch, sink the false side.
fn small() -> Function {
    let mut f = Function::new("small");
    let a = f.add_arg("a", ArgType::Channel(I32)).unwrap();
    let go = f.add_arg("go", ArgType::Channel(Type::None)).unwrap();
    f.results = vec![
        FuncResult {
            name: "out0".into(),
            ty: I32,
        },
        FuncResult {
            name: "done".into(),
            ty: Type::None,
        },
    ];
    let (_, g) = add(&mut f, Op::Fork, vec![go], vec![Type::None, Type::None]);
    let (k, c) = add(
        &mut f,
        Op::Constant {
            value: u64::from(u32::MAX),
        },
        vec![g[0]],
        vec![I32],
    );
    f.nodes[k].block = Some("bb0".into());
    let (_, x) = add(&mut f, Op::Fork, vec![a], vec![I32, I32]);
    let (cmp, lt) = add(
        &mut f,
        Op::Arith(ArithOp::Cmpi(CmpPredicate::Slt)),
        vec![x[0], c[0]],
        vec![Type::Int(1)],
    );
    f.nodes[cmp].loc = Some(SourceLoc::new("small.c", 3, 9));
    f.nodes[cmp].block = Some("bb0".into());
    let (br, o) = add(&mut f, Op::CondBr, vec![lt[0], x[1]], vec![I32, I32]);
    f.nodes[br].block = Some("bb1".into());
    let buf = Op::Buffer {
        slots: 2,
        kind: BufferKind::Fifo,
        init: Some(vec![1, 2]),
    };
    let (b, bo) = add(&mut f, buf, vec![o[0]], vec![I32]);
    f.nodes[b].name_hint = NameHint::Name("pipe".into());
    add(&mut f, Op::Sink, vec![o[1]], vec![]);
    add(&mut f, Op::Return, vec![bo[0], g[1]], vec![]);
    f.assign_ids().unwrap();
    f
}

/// Memory, mux, control_merge, instance, and awkward IDs (quotes, slashes).
fn assorted() -> Function {
    let mut f = Function::new("odd \"name\"");
    let addr = f.add_arg("addr", ArgType::Channel(Type::Index)).unwrap();
    let d = f.add_arg("d", ArgType::Channel(I32)).unwrap();
    let s = f.add_arg("s", ArgType::Channel(Type::Index)).unwrap();
    f.results = vec![FuncResult {
        name: "pipe".into(),
        ty: I32,
    }];
    let mem = Op::Memory {
        ld: 1,
        st: 1,
        id: 0,
        memref: MemRefType {
            dims: vec![8],
            elem: I32,
        },
        lsq: false,
    };
    let (_, m) = add(
        &mut f,
        mem,
        vec![d, addr, s],
        vec![I32, Type::None, Type::None],
    );
    let (cm, cmo) = add(
        &mut f,
        Op::ControlMerge,
        vec![m[1], m[2]],
        vec![Type::None, Type::Index],
    );
    f.nodes[cm].name_hint = NameHint::Name("a/b\\\"c".into());
    let (_, mx) = add(&mut f, Op::Mux, vec![cmo[1], m[0]], vec![I32]);
    let (_, inst) = add(
        &mut f,
        Op::Instance {
            callee: "child".into(),
        },
        vec![mx[0], cmo[0]],
        vec![I32],
    );
    let (p, po) = add(
        &mut f,
        Op::Buffer {
            slots: 1,
            kind: BufferKind::Seq,
            init: None,
        },
        vec![inst[0]],
        vec![I32],
    );
    f.nodes[p].name_hint = NameHint::Name("pipe".into());
    add(&mut f, Op::Return, vec![po[0]], vec![]);
    f.assign_ids().unwrap();
    f
}

#[test]
fn snapshot_of_a_small_graph() {
    insta::assert_snapshot!(write_dot(&small(), &DotOptions::default()));
}

#[test]
fn output_is_deterministic() {
    for f in [small(), assorted()] {
        let a = write_dot(&f, &DotOptions::default());
        let b = write_dot(&f.clone(), &DotOptions::default());
        assert_eq!(a, b);
    }
}

#[test]
fn structure_of_the_output() {
    let s = write_dot(&small(), &DotOptions::default());
    assert!(s.contains("subgraph \"cluster_bb0\" {"));
    assert!(s.contains("\"constant0\" [shape=ellipse, label=\"constant0\\nconstant -1 : i32\""));
    assert!(s.contains("\"go\" -> \"fork0\" [label=\"none\", headlabel=\"in0\", style=dashed"));
    assert!(s.contains("\"pipe\" -> \"out0\" [label=\"i32\", taillabel=\"out0\", tooltip=\"pipe.out0 -> return0.in0\"];"));
    assert!(s.contains("tooltip=\"cmpi0 (arith.cmpi) at small.c:3:9\""));
    assert!(s.contains("buffer [2] fifo init [1, 2]"));
    assert!(!s.contains("\"return0\" ["));
    // A result named like a node gets a prefixed name.
    let s = write_dot(
        &assorted(),
        &DotOptions {
            clusters: false,
            ..DotOptions::default()
        },
    );
    assert!(s.contains("\"pipe\" -> \"result:pipe\""));
    assert!(s.contains("digraph \"odd \\\"name\\\"\" {"));
    assert!(s.contains("\"a/b\\\\\\\"c\" [shape=invtrapezium"));
    let plain = write_dot(
        &small(),
        &DotOptions {
            port_labels: false,
            types: false,
            ..DotOptions::default()
        },
    );
    assert!(!plain.contains("taillabel") && !plain.contains("label=\"i32\""));
}

#[test]
fn graphviz_accepts_the_output() {
    let have_dot = std::process::Command::new("dot")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !have_dot {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "Graphviz `dot` is required in CI"
        );
        eprintln!("skipping: Graphviz `dot` not found");
        return;
    }
    let opts = [
        DotOptions::default(),
        DotOptions {
            rankdir: "LR".into(),
            clusters: false,
            ..DotOptions::default()
        },
    ];
    for f in [small(), assorted()] {
        for o in &opts {
            let text = write_dot(&f, o);
            let mut child = std::process::Command::new("dot")
                .arg("-Tsvg")
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(text.as_bytes())
                .unwrap();
            let out = child.wait_with_output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                out.status.success() && stderr.trim().is_empty(),
                "dot rejected:\n{stderr}\n{text}"
            );
            assert!(String::from_utf8_lossy(&out.stdout).contains("<svg"));
        }
    }
}
