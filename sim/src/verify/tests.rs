use super::*;
use crate::graph::{ArgType, ChannelId, FuncResult};
use crate::ops::{ArithOp, BufferKind, CmpPredicate};
use crate::types::{MemRefType, Type};

const I32: Type = Type::Int(32);

/// Small graph builder for the tests.
struct B {
    f: Function,
}

impl B {
    fn new() -> Self {
        B {
            f: Function::new("f"),
        }
    }

    fn arg(&mut self, name: &str, ty: Type) -> ChannelId {
        self.f.add_arg(name, ArgType::Channel(ty)).unwrap()
    }

    fn node(&mut self, op: Op, ins: Vec<ChannelId>, outs: Vec<Type>) -> (NodeId, Vec<ChannelId>) {
        let n = self.f.add_node(op, outs);
        self.f.set_inputs(n, ins);
        (n, self.f.nodes[n].outputs.clone())
    }

    fn out(&mut self, op: Op, ins: Vec<ChannelId>, ty: Type) -> ChannelId {
        self.node(op, ins, vec![ty]).1[0]
    }

    fn ret(&mut self, ins: Vec<ChannelId>) {
        self.f.results = ins
            .iter()
            .enumerate()
            .map(|(i, c)| FuncResult {
                name: format!("out{i}"),
                ty: self.f.channels[*c].ty.clone(),
            })
            .collect();
        self.node(Op::Return, ins, vec![]);
    }

    fn done(mut self) -> Function {
        self.f.assign_ids().unwrap();
        self.f
    }
}

fn rules(r: &[Problem]) -> Vec<Rule> {
    r.iter().map(|p| p.rule).collect()
}

/// Verifies a graph in which one node `op` reads `ins` and writes `outs`, each output
/// returned and each input an argument, and returns the errors other than use-count ones.
fn single(op: Op, ins: Vec<Type>, outs: Vec<Type>) -> Vec<Problem> {
    let mut b = B::new();
    let args: Vec<_> = ins
        .into_iter()
        .enumerate()
        .map(|(i, t)| b.arg(&format!("a{i}"), t))
        .collect();
    let (_, o) = b.node(op, args, outs);
    b.ret(o);
    verify(&b.done()).errors
}

#[test]
fn well_formed_graph_passes() {
    let mut b = B::new();
    let a = b.arg("a", I32);
    let c = b.arg("c", Type::Int(1));
    let (_, br) = b.node(Op::CondBr, vec![c, a], vec![I32, I32]);
    b.node(Op::Sink, vec![br[1]], vec![]);
    b.ret(vec![br[0]]);
    let f = b.done();
    let r = verify(&f);
    assert!(r.is_ok(), "{:#?}", r.errors);
    assert!(r.warnings.is_empty());
}

#[test]
fn unused_and_multiply_used_values() {
    let mut b = B::new();
    let a = b.arg("a", I32);
    let _unused = b.arg("u", I32);
    let s = b.out(Op::Arith(ArithOp::Addi), vec![a, a], I32);
    b.ret(vec![s]);
    let f = b.done();
    // By default an unmaterialized circuit is only warned about (simulation materializes it).
    let r = verify(&f);
    assert!(r.is_ok());
    assert_eq!(rules(&r.warnings), [Rule::MultipleUses, Rule::UnusedValue]);
    let strict = VerifyOptions {
        strict: true,
        ..Default::default()
    };
    let r = verify_with(&f, &strict, None);
    assert!(r.warnings.is_empty());
    assert_eq!(rules(&r.errors), [Rule::MultipleUses, Rule::UnusedValue]);
    assert_eq!(r.errors[1].message, "`u` is an unused value, needs a sink");
    assert_eq!(r.errors[1].channels, ["u"]);
    assert_eq!(r.errors[0].message, "`a` is used 2 times, needs a fork");
    let ids: Vec<&str> = r.errors[0].nodes.iter().map(|n| n.id.as_str()).collect();
    assert_eq!(ids, ["a", "addi0", "addi0"]);
}

#[test]
fn problems_carry_locations() {
    let mut b = B::new();
    let a = b.arg("a", I32);
    let (n, o) = b.node(Op::Fork, vec![a], vec![I32, Type::Int(8)]);
    b.f.nodes[n].loc = Some(SourceLoc::new("x.mlir", 3, 5));
    b.ret(o);
    let r = verify(&b.done());
    assert_eq!(rules(&r.errors), [Rule::TypeMismatch]);
    let p = &r.errors[0];
    assert_eq!(p.nodes[0].id, "fork0");
    assert_eq!(
        p.loc().map(|l| l.to_string()).as_deref(),
        Some("x.mlir:3:5")
    );
    assert_eq!(
        p.to_string(),
        "x.mlir:3:5: [type-mismatch] @f: fork `fork0`: output `out1` has type i8, expected i32"
    );
}

#[test]
fn port_counts() {
    let e = single(Op::CondBr, vec![Type::Int(1)], vec![I32, I32]);
    assert_eq!(rules(&e), [Rule::PortCount]);
    assert!(
        e[0].message.contains("has 1 inputs, expected 2"),
        "{}",
        e[0].message
    );
    let e = single(Op::Mux, vec![Type::Index], vec![I32]);
    assert_eq!(rules(&e), [Rule::PortCount]);
    let mem = Op::Memory {
        ld: 1,
        st: 1,
        id: 0,
        memref: MemRefType {
            dims: vec![4],
            elem: I32,
        },
        lsq: false,
    };
    let e = single(
        mem,
        vec![I32, Type::Index],
        vec![I32, Type::None, Type::None],
    );
    assert_eq!(rules(&e), [Rule::PortCount]);
    assert!(e[0].message.contains("expected 3"));
}

#[test]
fn fork_merge_mux_types() {
    assert!(single(Op::Fork, vec![I32], vec![I32, I32]).is_empty());
    assert_eq!(
        rules(&single(Op::Merge, vec![I32, Type::Int(8)], vec![I32])),
        [Rule::TypeMismatch]
    );
    assert!(single(Op::Mux, vec![Type::Int(1), I32, I32], vec![I32]).is_empty());
    let e = single(Op::Mux, vec![Type::Int(1), I32, I32, I32], vec![I32]);
    assert_eq!(rules(&e), [Rule::TypeMismatch]);
    assert!(
        e[0].message
            .contains("select type i1 cannot index 3 data inputs")
    );
    assert!(single(Op::Mux, vec![Type::Index, I32, I32, I32], vec![I32]).is_empty());
    assert_eq!(
        rules(&single(
            Op::Mux,
            vec![Type::Int(2), I32, Type::Int(8)],
            vec![I32]
        )),
        [Rule::TypeMismatch]
    );
}

#[test]
fn cond_br_and_control_merge_types() {
    let e = single(Op::CondBr, vec![I32, I32], vec![I32, I32]);
    assert_eq!(rules(&e), [Rule::TypeMismatch]);
    assert!(e[0].message.contains("condition has type i32, expected i1"));
    assert_eq!(
        rules(&single(
            Op::CondBr,
            vec![Type::Int(1), I32],
            vec![I32, Type::Int(8)]
        )),
        [Rule::TypeMismatch]
    );
    assert!(
        single(
            Op::ControlMerge,
            vec![Type::None, Type::None],
            vec![Type::None, Type::Index]
        )
        .is_empty()
    );
    assert_eq!(
        rules(&single(
            Op::ControlMerge,
            vec![Type::None, I32],
            vec![Type::None, Type::Index]
        )),
        [Rule::TypeMismatch]
    );
    assert_eq!(
        rules(&single(
            Op::ControlMerge,
            vec![Type::None, Type::None],
            vec![Type::None, Type::None]
        )),
        [Rule::TypeMismatch]
    );
}

#[test]
fn join_sync_pack_unpack_types() {
    assert!(single(Op::Join, vec![I32, Type::None], vec![Type::None]).is_empty());
    assert_eq!(
        rules(&single(Op::Join, vec![I32], vec![I32])),
        [Rule::TypeMismatch]
    );
    assert!(single(Op::Sync, vec![I32, Type::None], vec![I32, Type::None]).is_empty());
    assert_eq!(
        rules(&single(
            Op::Sync,
            vec![I32, Type::None],
            vec![Type::None, I32]
        ))
        .len(),
        2
    );
    let tup = Type::Tuple(vec![I32, Type::Int(1)]);
    assert!(single(Op::Pack, vec![I32, Type::Int(1)], vec![tup.clone()]).is_empty());
    assert_eq!(
        rules(&single(
            Op::Pack,
            vec![Type::Int(1), I32],
            vec![tup.clone()]
        )),
        [Rule::TypeMismatch]
    );
    assert!(single(Op::Unpack, vec![tup.clone()], vec![I32, Type::Int(1)]).is_empty());
    assert_eq!(
        rules(&single(Op::Unpack, vec![tup], vec![I32])),
        [Rule::PortCount]
    );
    assert_eq!(
        rules(&single(Op::Unpack, vec![I32], vec![I32])),
        [Rule::TypeMismatch]
    );
}

#[test]
fn buffer_and_constant_attributes() {
    let buf = |slots, init| Op::Buffer {
        slots,
        kind: BufferKind::Fifo,
        init,
    };
    assert!(single(buf(2, Some(vec![1, 2])), vec![I32], vec![I32]).is_empty());
    let e = single(buf(2, Some(vec![1])), vec![I32], vec![I32]);
    assert_eq!(rules(&e), [Rule::Attribute]);
    assert!(e[0].message.contains("1 initial values for 2 slots"));
    assert_eq!(
        rules(&single(
            buf(1, Some(vec![300])),
            vec![Type::Int(8)],
            vec![Type::Int(8)]
        )),
        [Rule::Attribute]
    );
    assert_eq!(
        rules(&single(buf(0, None), vec![I32], vec![I32])),
        [Rule::Attribute]
    );
    assert_eq!(
        rules(&single(buf(1, None), vec![I32], vec![Type::Int(8)])),
        [Rule::TypeMismatch]
    );
    assert!(
        single(
            Op::Constant { value: 255 },
            vec![Type::None],
            vec![Type::Int(8)]
        )
        .is_empty()
    );
    let e = single(
        Op::Constant { value: 256 },
        vec![Type::None],
        vec![Type::Int(8)],
    );
    assert_eq!(rules(&e), [Rule::Attribute]);
    assert!(e[0].message.contains("value 256 does not fit in i8"));
    assert_eq!(
        rules(&single(Op::Constant { value: 0 }, vec![I32], vec![I32])),
        [Rule::TypeMismatch]
    );
}

#[test]
fn load_store_memory_types() {
    let none = Type::None;
    assert!(
        single(
            Op::Load,
            vec![Type::Index, I32, none.clone()],
            vec![I32, Type::Index]
        )
        .is_empty()
    );
    assert_eq!(
        rules(&single(
            Op::Load,
            vec![Type::Index, I32, none.clone()],
            vec![Type::Int(8), Type::Index]
        )),
        [Rule::TypeMismatch]
    );
    assert_eq!(
        rules(&single(
            Op::Store,
            vec![Type::Index, I32, I32],
            vec![I32, Type::Index]
        )),
        [Rule::TypeMismatch]
    );
    let mem = || Op::Memory {
        ld: 1,
        st: 1,
        id: 0,
        memref: MemRefType {
            dims: vec![4],
            elem: I32,
        },
        lsq: false,
    };
    let good_in = vec![I32, Type::Index, Type::Index];
    let good_out = vec![I32, none.clone(), none.clone()];
    assert!(single(mem(), good_in.clone(), good_out.clone()).is_empty());
    let e = single(
        mem(),
        vec![Type::Int(8), Type::Index, Type::Index],
        good_out.clone(),
    );
    assert_eq!(rules(&e), [Rule::TypeMismatch]);
    assert!(
        e[0].message
            .contains("input `stData0` has type i8, expected i32"),
        "{}",
        e[0].message
    );
    let e = single(mem(), good_in, vec![I32, I32, none.clone()]);
    assert!(
        e[0].message.contains("output `stDone0`"),
        "{}",
        e[0].message
    );
    // extmemory must point at a matching memref argument.
    let mut b = B::new();
    let m = MemRefType {
        dims: vec![4],
        elem: I32,
    };
    b.f.add_arg(
        "m",
        ArgType::MemRef(MemRefType {
            dims: vec![8],
            elem: I32,
        }),
    );
    let addr = b.arg("addr", Type::Index);
    let (_, o) = b.node(
        Op::ExtMemory {
            ld: 1,
            st: 0,
            id: 0,
            memref_arg: 0,
            memref: m,
        },
        vec![addr],
        vec![I32, none],
    );
    b.ret(o);
    let e = verify(&b.done()).errors;
    assert_eq!(rules(&e), [Rule::TypeMismatch]);
    assert!(
        e[0].message
            .contains("memref<8xi32>, expected memref<4xi32>")
    );
}

#[test]
fn arith_types() {
    let i1 = Type::Int(1);
    let bin = Op::Arith(ArithOp::Addi);
    assert!(single(bin.clone(), vec![I32, I32], vec![I32]).is_empty());
    assert_eq!(
        rules(&single(bin.clone(), vec![I32, Type::Int(8)], vec![I32])),
        [Rule::TypeMismatch]
    );
    assert_eq!(
        rules(&single(bin, vec![Type::None, Type::None], vec![Type::None])),
        [Rule::TypeMismatch]
    );
    let cmp = Op::Arith(ArithOp::Cmpi(CmpPredicate::Slt));
    assert!(single(cmp.clone(), vec![I32, I32], vec![i1.clone()]).is_empty());
    assert_eq!(
        rules(&single(cmp, vec![I32, I32], vec![I32])),
        [Rule::TypeMismatch]
    );
    let sel = Op::Arith(ArithOp::Select);
    assert!(single(sel.clone(), vec![i1.clone(), I32, I32], vec![I32]).is_empty());
    assert_eq!(
        rules(&single(sel, vec![I32, I32, I32], vec![I32])),
        [Rule::TypeMismatch]
    );
    assert!(single(Op::Arith(ArithOp::Extsi), vec![Type::Int(8)], vec![I32]).is_empty());
    assert_eq!(
        rules(&single(Op::Arith(ArithOp::Extui), vec![I32], vec![I32])),
        [Rule::TypeMismatch]
    );
    assert!(single(Op::Arith(ArithOp::Trunci), vec![I32], vec![Type::Int(8)]).is_empty());
    assert_eq!(
        rules(&single(
            Op::Arith(ArithOp::Trunci),
            vec![Type::Int(8)],
            vec![I32]
        )),
        [Rule::TypeMismatch]
    );
    assert!(single(Op::Arith(ArithOp::IndexCast), vec![Type::Index], vec![I32]).is_empty());
    assert!(single(Op::Arith(ArithOp::IndexCast), vec![I32], vec![Type::Index]).is_empty());
    assert_eq!(
        rules(&single(Op::Arith(ArithOp::IndexCast), vec![I32], vec![I32])),
        [Rule::TypeMismatch]
    );
}

#[test]
fn return_types_follow_results() {
    let mut b = B::new();
    let a = b.arg("a", I32);
    b.ret(vec![a]);
    b.f.results[0].ty = Type::Int(8);
    let e = verify(&b.done()).errors;
    assert_eq!(rules(&e), [Rule::TypeMismatch]);
    assert!(
        e[0].message
            .contains("operand 0 (result `out0`) has type i32, expected i8")
    );
    let mut b = B::new();
    let a = b.arg("a", I32);
    b.node(Op::Sink, vec![a], vec![]);
    assert_eq!(rules(&verify(&b.done()).errors), [Rule::Return]);
}

/// `@child(x: i32) -> i32` and `@top` instantiating it.
fn module_with_instance(arg_ty: Type, callee: &str) -> Module {
    let mut c = B::new();
    c.f.name = "child".into();
    let x = c.arg("x", I32);
    c.ret(vec![x]);
    let mut t = B::new();
    t.f.name = "top".into();
    let a = t.arg("a", arg_ty);
    let o = t.out(
        Op::Instance {
            callee: callee.into(),
        },
        vec![a],
        I32,
    );
    t.ret(vec![o]);
    Module {
        functions: vec![c.done(), t.done()],
    }
}

#[test]
fn instances_checked_against_callees() {
    assert!(verify_module(&module_with_instance(I32, "child")).is_ok());
    let r = verify_module(&module_with_instance(Type::Int(8), "child"));
    assert_eq!(rules(&r.errors), [Rule::TypeMismatch]);
    assert!(
        r.errors[0]
            .message
            .contains("operand 0 (@child argument `x`) has type i8, expected i32")
    );
    let r = verify_module(&module_with_instance(I32, "nowhere"));
    assert_eq!(rules(&r.errors), [Rule::MissingCallee]);
    // Without the module, instances are not checked.
    assert!(verify(&module_with_instance(I32, "nowhere").functions[1]).is_ok());
}

#[test]
fn recursive_instances_are_errors() {
    let mut m = module_with_instance(I32, "child");
    // Make the child call top.
    let child = &mut m.functions[0];
    let x = child.args[0]
        .node
        .map(|n| child.nodes[n].outputs[0])
        .unwrap();
    let ret = child.return_node().unwrap();
    let inst = child.add_node(
        Op::Instance {
            callee: "top".into(),
        },
        vec![I32],
    );
    child.set_inputs(inst, vec![x]);
    let o = child.nodes[inst].outputs[0];
    child.replace_input(ret, 0, o);
    child.assign_ids().unwrap();
    let r = verify_module(&m);
    assert_eq!(rules(&r.errors), [Rule::RecursiveInstance]);
    assert!(
        r.errors[0].message.contains("@child, @top"),
        "{}",
        r.errors[0].message
    );
    assert_eq!(r.errors[0].nodes.len(), 2);
}

#[test]
fn circt_warnings() {
    let mut b = B::new();
    let a = b.arg("a", I32);
    let s = b.arg("s", Type::Index);
    let z = b.arg("z", Type::None);
    let (_, k) = b.node(Op::Fork, vec![a], vec![I32, I32, I32]);
    let m = b.out(Op::Mux, vec![s, k[0], k[1], k[2]], I32);
    let br = b.out(Op::Br, vec![m], I32);
    let lf = b.out(Op::LazyFork, vec![z], Type::None);
    b.ret(vec![br, lf]);
    let f = b.done();
    let plain = verify(&f);
    assert!(plain.is_ok(), "{:#?}", plain.errors);
    assert_eq!(
        rules(&plain.warnings),
        [Rule::CirctUnsupported, Rule::CirctUnsupported]
    );
    assert_eq!(plain.warnings[0].nodes[0].id, "br0");
    assert_eq!(plain.warnings[1].nodes[0].id, "lazy_fork0");
    let compat = verify_with(
        &f,
        &VerifyOptions {
            circt_compat: true,
            ..Default::default()
        },
        None,
    );
    assert_eq!(
        rules(&compat.warnings),
        [
            Rule::CirctBug,
            Rule::CirctUnsupported,
            Rule::CirctUnsupported
        ]
    );
    assert!(
        compat.warnings[0]
            .message
            .contains("mux with 3 data inputs")
    );
}

#[test]
fn control_merge_i1_and_merge_bug_warnings() {
    let mut b = B::new();
    let a = b.arg("a", I32);
    let c = b.arg("c", I32);
    let (_, cm) = b.node(Op::ControlMerge, vec![a, c], vec![I32, Type::Int(1)]);
    b.ret(cm);
    let f = b.done();
    let r = verify(&f);
    assert_eq!(rules(&r.warnings), [Rule::CirctUnsupported]);
    assert!(r.warnings[0].message.contains("i1 index"));
    let r = verify_with(
        &f,
        &VerifyOptions {
            circt_compat: true,
            ..Default::default()
        },
        None,
    );
    assert_eq!(rules(&r.warnings), [Rule::CirctUnsupported, Rule::CirctBug]);
}

/// `merge(a, fb) -> fork -> [return, addi(., b) -> (buffer?) -> fb]`.
fn loop_graph(with_buffer: bool) -> Function {
    let mut b = B::new();
    let a = b.arg("a", I32);
    let bb = b.arg("b", I32);
    let m = b.f.add_node(Op::Merge, vec![I32]);
    let mo = b.f.nodes[m].outputs[0];
    let (_, k) = b.node(Op::Fork, vec![mo], vec![I32, I32]);
    let mut fb = b.out(Op::Arith(ArithOp::Addi), vec![k[1], bb], I32);
    if with_buffer {
        fb = b.out(
            Op::Buffer {
                slots: 1,
                kind: BufferKind::Seq,
                init: None,
            },
            vec![fb],
            I32,
        );
    }
    b.f.set_inputs(m, vec![a, fb]);
    b.ret(vec![k[0]]);
    b.done()
}

#[test]
fn combinational_loop_is_reported_in_cycle_order() {
    let f = loop_graph(false);
    let r = verify(&f);
    assert_eq!(rules(&r.errors), [Rule::CombinationalCycle]);
    let p = &r.errors[0];
    let ids: Vec<&str> = p.nodes.iter().map(|n| n.id.as_str()).collect();
    assert_eq!(ids, ["merge0", "fork0", "addi0"]);
    assert_eq!(p.channels, ["merge0.out0", "fork0.out1", "addi0.out0"]);
    assert!(
        p.message.contains("(valid and ready paths)"),
        "{}",
        p.message
    );
    assert!(
        p.message.ends_with("merge0 -> fork0 -> addi0 -> merge0"),
        "{}",
        p.message
    );
    assert!(verify(&loop_graph(true)).is_ok());
}

#[test]
fn store_port_closes_a_ready_only_loop() {
    // memory.stDone0 -> join(., go) -> constant -> memory.stAddr0: the valid path is cut by
    // the write-valid register, the ready path is not.
    let mut b = B::new();
    let d = b.arg("d", I32);
    let go = b.arg("go", Type::None);
    let memop = Op::Memory {
        ld: 0,
        st: 1,
        id: 0,
        memref: MemRefType {
            dims: vec![4],
            elem: I32,
        },
        lsq: false,
    };
    let mem = b.f.add_node(memop, vec![Type::None]);
    let done = b.f.nodes[mem].outputs[0];
    let j = b.out(Op::Join, vec![done, go], Type::None);
    let addr = b.out(Op::Constant { value: 0 }, vec![j], Type::Index);
    b.f.set_inputs(mem, vec![d, addr]);
    b.ret(vec![]);
    let f = b.done();
    let cycles = comb::find_cycles(&f);
    assert_eq!(cycles.len(), 1);
    assert!(cycles[0].ready && !cycles[0].valid);
    let r = verify(&f);
    assert_eq!(rules(&r.errors), [Rule::CombinationalCycle]);
    let ids: Vec<&str> = r.errors[0].nodes.iter().map(|n| n.id.as_str()).collect();
    assert_eq!(ids, ["memory0", "join0", "constant0"]);
    assert_eq!(
        r.errors[0].channels,
        ["memory0.stDone0", "join0.out0", "constant0.out0"]
    );
    assert!(r.errors[0].message.contains("(ready path)"));
}

#[test]
fn load_port_loop_is_combinational_but_store_valid_path_is_not() {
    let mut b = B::new();
    let memop = Op::Memory {
        ld: 1,
        st: 0,
        id: 0,
        memref: MemRefType {
            dims: vec![4],
            elem: I32,
        },
        lsq: false,
    };
    let mem = b.f.add_node(memop, vec![I32, Type::None]);
    let (data, done) = (b.f.nodes[mem].outputs[0], b.f.nodes[mem].outputs[1]);
    let addr = b.out(Op::Arith(ArithOp::IndexCast), vec![data], Type::Index);
    b.f.set_inputs(mem, vec![addr]);
    b.ret(vec![done]);
    let f = b.done();
    let c = comb::find_cycles(&f);
    assert_eq!(c.len(), 1);
    assert!(c[0].valid && c[0].ready);
    // The same shape through a store port's data input has no cycle: stDone does not
    // depend on stData's ready... but here stData is fed from stDone, the valid path is
    // registered and stData.ready depends only on stDone.ready, not on its own consumer.
    let mut b = B::new();
    let addr = b.arg("addr", Type::Index);
    let memop = Op::Memory {
        ld: 0,
        st: 1,
        id: 0,
        memref: MemRefType {
            dims: vec![4],
            elem: Type::None,
        },
        lsq: false,
    };
    let mem = b.f.add_node(memop, vec![Type::None]);
    let done = b.f.nodes[mem].outputs[0];
    let buf = b.out(
        Op::Buffer {
            slots: 1,
            kind: BufferKind::Seq,
            init: None,
        },
        vec![done],
        Type::None,
    );
    b.f.set_inputs(mem, vec![buf, addr]);
    b.ret(vec![]);
    assert!(comb::find_cycles(&b.done()).is_empty());
}

#[test]
fn lazy_fork_into_join_mixes_valid_and_ready() {
    let mut b = B::new();
    let a = b.arg("a", Type::None);
    let (_, lf) = b.node(Op::LazyFork, vec![a], vec![Type::None, Type::None]);
    let j = b.out(Op::Join, lf, Type::None);
    b.ret(vec![j]);
    let f = b.done();
    let r = verify(&f);
    assert_eq!(rules(&r.errors), [Rule::CombinationalCycle]);
    let ids: Vec<&str> = r.errors[0].nodes.iter().map(|n| n.id.as_str()).collect();
    assert_eq!(ids, ["lazy_fork0", "join0"]);
    // A lazy fork into independent consumers is fine.
    let mut b = B::new();
    let a = b.arg("a", Type::None);
    let (_, lf) = b.node(Op::LazyFork, vec![a], vec![Type::None, Type::None]);
    b.node(Op::Sink, vec![lf[1]], vec![]);
    b.ret(vec![lf[0]]);
    assert!(verify(&b.done()).is_ok());
}

#[test]
fn cycle_report_is_deterministic() {
    let f = loop_graph(false);
    let a = verify(&f);
    for _ in 0..5 {
        assert_eq!(verify(&f.clone()), a);
    }
}

#[test]
fn out_of_range_mux_selects_are_warned() {
    // index_cast of an i1: true becomes -1.
    let mut b = B::new();
    let c = b.arg("c", Type::Int(1));
    let d: Vec<_> = (0..3).map(|i| b.arg(&format!("d{i}"), I32)).collect();
    let s = b.out(Op::Arith(ArithOp::IndexCast), vec![c], Type::Index);
    let m = b.out(Op::Mux, [vec![s], d].concat(), I32);
    b.ret(vec![m]);
    let r = verify(&b.done());
    assert!(r.is_ok(), "{:?}", r.errors);
    assert_eq!(rules(&r.warnings), [Rule::SelectRange]);
    let msg = &r.warnings[0].message;
    assert!(msg.contains("true becomes -1"), "{msg}");
    assert!(msg.contains("takes nothing"), "{msg}");
    // A constant select of 5 for 2 inputs: low bit 1 takes in1.
    let mut b = B::new();
    let go = b.arg("go", Type::None);
    let d: Vec<_> = (0..2).map(|i| b.arg(&format!("d{i}"), I32)).collect();
    let s = b.out(Op::Constant { value: 5 }, vec![go], Type::Index);
    let m = b.out(Op::Mux, [vec![s], d].concat(), I32);
    b.ret(vec![m]);
    let r = verify(&b.done());
    assert_eq!(rules(&r.warnings), [Rule::SelectRange]);
    assert!(
        r.warnings[0].message.contains("takes in1"),
        "{}",
        r.warnings[0].message
    );
    // An in-range constant is fine.
    let mut b = B::new();
    let go = b.arg("go", Type::None);
    let d: Vec<_> = (0..2).map(|i| b.arg(&format!("d{i}"), I32)).collect();
    let s = b.out(Op::Constant { value: 1 }, vec![go], Type::Index);
    let m = b.out(Op::Mux, [vec![s], d].concat(), I32);
    b.ret(vec![m]);
    assert!(verify(&b.done()).warnings.is_empty());
}

#[test]
fn wide_joins_are_checked_in_linear_time_and_their_cycles_found() {
    // A join of 20,000 inputs has 4 * 10^8 input-to-input dependencies; through a hub the
    // search sees 40,000 edges.
    let n = 20_000;
    let mut b = B::new();
    let a = b.arg("a", Type::None);
    let (_, copies) = b.node(Op::Fork, vec![a], vec![Type::None; n]);
    let j = b.out(Op::Join, copies, Type::None);
    b.ret(vec![j]);
    assert!(verify(&b.done()).is_ok());
    // The lazy fork + join loop of `lazy_fork_into_join_mixes_valid_and_ready`, 100 wide:
    // found through the hubs, reported with the same nodes.
    let mut b = B::new();
    let a = b.arg("a", Type::None);
    let (_, lf) = b.node(Op::LazyFork, vec![a], vec![Type::None; 100]);
    let j = b.out(Op::Join, lf, Type::None);
    b.ret(vec![j]);
    let r = verify(&b.done());
    assert_eq!(rules(&r.errors), [Rule::CombinationalCycle]);
    let ids: Vec<&str> = r.errors[0].nodes.iter().map(|n| n.id.as_str()).collect();
    assert_eq!(ids, ["lazy_fork0", "join0"]);
}
