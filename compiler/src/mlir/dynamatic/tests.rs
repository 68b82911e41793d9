//! Unit tests of the Dynamatic reader: one hand-written function per era with its parsed
//! fields, located errors, detection.

use handscope_sim::{CmpPredicate, FloatKind, MemRefType, Type};

use super::*;

const E2: &str = include_str!("../../../tests/data/dynamatic/e2.mlir");
const E3: &str = include_str!("../../../tests/data/dynamatic/e3.mlir");
const E4: &str = include_str!("../../../tests/data/dynamatic/e4.mlir");
const E5: &str = include_str!("../../../tests/data/dynamatic/e5.mlir");

fn parse_ok(src: &str) -> (DynModule, Vec<crate::mlir::Diagnostic>) {
    match parse_dynamatic(src, "t.mlir") {
        Ok(r) => r,
        Err(e) => panic!("unexpected error: {e}"),
    }
}

fn op<'m>(f: &'m DynFunc, name: &str) -> &'m DynOp {
    f.ops
        .iter()
        .find(|o| o.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("no op named {name}"))
}

fn buffer(f: &DynFunc, name: &str) -> (BufferType, u32, Option<u32>, BufferForm) {
    match &op(f, name).params {
        OpParams::Buffer(b) => (b.kind, b.slots, b.dv_latency, b.form),
        p => panic!("{name}: {p:?}"),
    }
}

fn konst(f: &DynFunc, name: &str) -> ConstValue {
    match &op(f, name).params {
        OpParams::Constant(c) => *c,
        p => panic!("{name}: {p:?}"),
    }
}

fn chan(bits: u16) -> DynType {
    DynType::Channel {
        data: Type::Int(bits),
        extra: Vec::new(),
    }
}

fn ctrl() -> DynType {
    DynType::Control { extra: Vec::new() }
}

/// The error's `line:col` and message.
fn err_at(src: &str) -> ((usize, usize), String) {
    match parse_dynamatic(src, "t.mlir") {
        Ok(_) => panic!("expected an error"),
        Err(e) => (e.line_col(), e.message.clone()),
    }
}

#[test]
fn e4_function_parses_with_every_field() {
    let (m, warnings) = parse_ok(E4);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(m.era, Era::E4, "{}", m.era_reason);
    assert!(m.era_reason.contains("bufferType"), "{}", m.era_reason);
    let f = &m.funcs[0];
    assert_eq!(f.name, "k4");
    let names: Vec<&str> = f.args.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["mem", "fm", "n", "mem_start", "fm_start", "start"]);
    assert_eq!(f.args[0].ssa, "arg0");
    assert_eq!(
        f.args[1].ty,
        DynType::MemRef(MemRefType {
            dims: vec![8],
            elem: Type::Float(FloatKind::F32)
        })
    );
    assert_eq!(f.args[2].ty, chan(32));
    assert_eq!(f.results.len(), 4);
    assert_eq!(f.results[3].name, "end");
    assert_eq!(f.results[3].ty, ctrl());

    let fork = op(f, "fork0");
    assert_eq!(fork.kind, DynOpKind::Fork);
    assert_eq!(fork.params, OpParams::Fork { size: 9 });
    assert_eq!(fork.results[0].count, 9);
    assert_eq!(fork.bb, Some(0));
    assert_eq!(op(f, "lazy_fork0").kind, DynOpKind::LazyFork);

    assert_eq!(
        buffer(f, "buffer0"),
        (BufferType::FifoBreakNone, 3, None, BufferForm::Keywords)
    );
    assert_eq!(buffer(f, "buffer1").0, BufferType::OneSlotBreakDv);
    assert_eq!(op(f, "buffer1").bb, None);

    assert_eq!(
        konst(f, "constant0"),
        ConstValue::Int {
            bits: 0xFD,
            width: 8
        }
    );
    assert_eq!(
        konst(f, "constant1"),
        ConstValue::Int {
            bits: 0xFFFF_FFFF,
            width: 32
        }
    );
    assert_eq!(
        konst(f, "constant3"),
        ConstValue::Float {
            bits: u64::from(1.5f32.to_bits()),
            kind: FloatKind::F32
        }
    );
    let cmp = op(f, "cmpi0");
    assert_eq!(
        cmp.params,
        OpParams::Compare(Predicate::Int(CmpPredicate::Slt))
    );
    assert_eq!(cmp.out_types, vec![chan(1)]);
    let ext = op(f, "extsi0");
    assert_eq!(
        (ext.in_types.clone(), ext.out_types.clone()),
        (vec![chan(8)], vec![chan(32)])
    );

    let cm = op(f, "control_merge0");
    assert_eq!(cm.kind, DynOpKind::ControlMerge);
    assert_eq!(cm.operands.len(), 2);
    assert_eq!(cm.operands[1].name, "trueResult");
    assert_eq!(cm.out_types, vec![ctrl(), chan(1)]);
    let mux = op(f, "mux0");
    assert_eq!(mux.operands.len(), 3);
    assert_eq!(mux.in_types, vec![chan(1), ctrl(), ctrl()]);
    let sel = op(f, "select0");
    assert_eq!(
        sel.operands
            .iter()
            .map(|v| (v.name.as_str(), v.index))
            .collect::<Vec<_>>(),
        [("8", 1), ("6", 1), ("dataResult", 0)]
    );
    let cb = op(f, "cond_br0");
    assert_eq!(
        cb.results
            .iter()
            .map(|r| r.name.as_str())
            .collect::<Vec<_>>(),
        ["trueResult", "falseResult"]
    );

    let mul = op(f, "mulf0");
    assert_eq!(mul.internal_delay.as_deref(), Some("2_875333"));
    assert_eq!(mul.latency, None);
    assert!(
        mul.attrs
            .iter()
            .any(|a| a.name == "fpu_impl" && a.value.contains("flopoco"))
    );

    let load = op(f, "load0");
    assert_eq!(load.mem_interface, Some(MemInterfaceRef::Mc));
    assert_eq!(load.in_types, vec![chan(4), chan(32)]);
    assert!(load.attrs.iter().any(|a| a.name == "handshake.bufProps"));
    let mc = op(f, "mem_controller0");
    assert_eq!(mc.kind, DynOpKind::MemController);
    assert_eq!(mc.results.len(), 2, "printed result + memEnd");
    assert_eq!(mc.results[1].name, "memEnd");
    assert_eq!(mc.out_types, vec![chan(32)]);
    assert_eq!(
        mc.memref.as_ref().map(|m| m.value.name.as_str()),
        Some("arg0")
    );
    assert_eq!(
        mc.operands
            .iter()
            .map(|v| v.name.as_str())
            .collect::<Vec<_>>(),
        ["arg3", "addressResult", "0"]
    );
    assert_eq!(
        mc.params,
        OpParams::MemController {
            connected_blocks: vec![1]
        }
    );
    let st = op(f, "store0");
    assert_eq!(st.mem_interface, Some(MemInterfaceRef::Lsq(0)));
    let lsq = op(f, "lsq0");
    assert_eq!(
        lsq.params,
        OpParams::Lsq(LsqParams {
            mode: LsqMode::Master,
            group_sizes: vec![1],
            depth: Some((4, 6))
        })
    );
    assert_eq!(lsq.operands.len(), 5);
    assert_eq!(lsq.out_types, vec![ctrl()]);
    let end = op(f, "end0");
    assert_eq!(end.kind, DynOpKind::End);
    assert_eq!(
        end.operands
            .iter()
            .map(|v| v.name.as_str())
            .collect::<Vec<_>>(),
        ["11", "memEnd", "19", "0"]
    );
    assert_eq!(end.in_types, vec![chan(32), ctrl(), ctrl(), ctrl()]);
    assert_eq!(end.bb, Some(3));

    let s = &m.summary()[0];
    assert_eq!(s.era, Era::E4);
    assert_eq!(s.op_counts.get("constant"), Some(&5));
    assert_eq!(s.op_counts.get("sink"), Some(&2));
    assert_eq!(
        s.basic_blocks.iter().copied().collect::<Vec<_>>(),
        [0, 1, 2, 3]
    );
    assert_eq!(s.memories.len(), 2);
    assert_eq!(s.memories[0].name, "mem");
    assert_eq!(s.memories[0].interface, InterfaceKind::MemController);
    assert_eq!(
        s.memories[0].interface_name.as_deref(),
        Some("mem_controller0")
    );
    assert_eq!(s.memories[1].interface, InterfaceKind::Lsq);
    // 4 channel arguments + every result.
    let results: usize = f
        .ops
        .iter()
        .flat_map(|o| &o.results)
        .map(|r| r.count as usize)
        .sum();
    assert_eq!(s.channels, 4 + results);
}

#[test]
fn e2_function_parses_hw_parameters_and_old_forms() {
    let (m, warnings) = parse_ok(E2);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(m.era, Era::E2, "{}", m.era_reason);
    let f = &m.funcs[0];
    let t = BufferForm::HwParametersTiming;
    assert_eq!(
        buffer(f, "buffer0"),
        (BufferType::OneSlotBreakDv, 1, None, t)
    );
    assert_eq!(
        buffer(f, "buffer1"),
        (BufferType::OneSlotBreakR, 1, None, t)
    );
    assert_eq!(
        buffer(f, "buffer2"),
        (BufferType::FifoBreakNone, 3, None, t)
    );
    assert_eq!(buffer(f, "buffer3"), (BufferType::FifoBreakDv, 2, None, t));
    assert_eq!(
        buffer(f, "buffer4"),
        (BufferType::FifoBreakNone, 4, None, t)
    );
    assert_eq!(op(f, "br0").kind, DynOpKind::Br);
    let cm = op(f, "control_merge0");
    assert_eq!(cm.in_types, vec![ctrl(), ctrl()]);
    assert_eq!(cm.out_types, vec![ctrl(), chan(1)]);
    let mux = op(f, "mux0");
    assert_eq!(mux.in_types, vec![chan(1), chan(32), chan(32)]);
    assert_eq!(mux.out_types, vec![chan(32)]);
    assert_eq!(konst(f, "constant0"), ConstValue::Bool(true));
    let load = op(f, "load0");
    assert_eq!(load.in_types, vec![chan(4), chan(32)]);
    assert_eq!(load.out_types, vec![chan(4), chan(32)]);
    assert_eq!(op(f, "shli0").kind, DynOpKind::ShLI);
}

#[test]
fn e3_functions_parse_extra_signals_and_unsupported_ops() {
    let (m, warnings) = parse_ok(E3);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(m.era, Era::E3, "{}", m.era_reason);
    assert_eq!(m.funcs.len(), 2);
    let f = &m.funcs[0];
    let DynType::Channel { data, extra } = &f.args[0].ty else {
        panic!("{:?}", f.args[0].ty)
    };
    assert_eq!(*data, Type::Int(8));
    assert_eq!(
        *extra,
        vec![
            ExtraSignal {
                name: "spec".into(),
                ty: Type::Int(1),
                upstream: false
            },
            ExtraSignal {
                name: "tag".into(),
                ty: Type::Int(4),
                upstream: true
            },
        ]
    );
    assert!(f.results[0].ty.has_extra_signals());
    assert_eq!(
        buffer(f, "buffer0"),
        (
            BufferType::FifoBreakDv,
            2,
            None,
            BufferForm::HwParametersWithType
        )
    );
    assert_eq!(buffer(f, "buffer1").0, BufferType::OneSlotBreakR);
    let fork = op(f, "fork0");
    assert!(
        fork.attrs
            .iter()
            .any(|a| a.name == "ftd.imerge" && a.value.is_empty())
    );
    let not = op(f, "not0");
    assert_eq!(
        (not.kind.clone(), not.mnemonic.as_str()),
        (DynOpKind::Not, "not")
    );
    let passer = op(f, "passer0");
    assert_eq!(passer.kind, DynOpKind::Unsupported("passer".into()));
    assert_eq!(passer.operands.len(), 2);
    assert_eq!(op(f, "mux0").in_types.len(), 3);

    let g = &m.funcs[1];
    assert_eq!(g.name, "k3mem");
    let mc = op(g, "mem_controller0");
    assert_eq!(mc.results.len(), 1, "only memEnd");
    assert!(mc.out_types.is_empty());
    assert_eq!(mc.operands.len(), 5);
    assert_eq!(konst(g, "constant0"), ConstValue::Int { bits: 3, width: 2 });
    assert_eq!(
        konst(g, "constant1"),
        ConstValue::Float {
            bits: u64::from((-0.25f32).to_bits()),
            kind: FloatKind::F32
        }
    );
    let st = op(g, "store0");
    assert_eq!(
        st.in_types,
        vec![
            chan(2),
            DynType::Channel {
                data: Type::Float(FloatKind::F32),
                extra: vec![]
            }
        ]
    );
    assert_eq!(
        m.summary()[1].memories[0].interface,
        InterfaceKind::MemController
    );
}

#[test]
fn e5_function_parses_latencies_and_slave_lsq() {
    let (m, warnings) = parse_ok(E5);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(m.era, Era::E5, "{}", m.era_reason);
    let f = &m.funcs[0];
    assert_eq!(
        buffer(f, "buffer0"),
        (BufferType::CounterBuffer, 1, Some(4), BufferForm::Keywords)
    );
    assert_eq!(
        buffer(f, "buffer1"),
        (
            BufferType::ShiftRegBreakDv,
            2,
            Some(2),
            BufferForm::Keywords
        )
    );
    let mul = op(f, "muli0");
    assert_eq!(mul.latency, Some(4));
    assert_eq!(mul.internal_delay.as_deref(), Some("1_000000"));
    let not = op(f, "noti0");
    assert_eq!(
        (not.kind.clone(), not.mnemonic.as_str()),
        (DynOpKind::Not, "noti")
    );
    assert_eq!(
        op(f, "init0").params,
        OpParams::Init {
            init_token: Some(1)
        }
    );
    assert_eq!(op(f, "join0").out_types, vec![ctrl()]);
    assert_eq!(op(f, "merge0").kind, DynOpKind::Merge);
    assert_eq!(
        konst(f, "constant0"),
        ConstValue::Float {
            bits: 0.1f64.to_bits(),
            kind: FloatKind::F64
        }
    );
    let lsq = op(f, "lsq0");
    let OpParams::Lsq(p) = &lsq.params else {
        panic!()
    };
    assert_eq!(p.mode, LsqMode::Slave);
    assert!(lsq.memref.is_none());
    assert_eq!(lsq.results[0].count, 4);
    assert_eq!(op(f, "load0").mem_interface, Some(MemInterfaceRef::Lsq(0)));
    let s = &m.summary()[0];
    assert_eq!(s.memories[0].interface, InterfaceKind::MemControllerWithLsq);
}

/// A one-function file: header on line 1, `body` from line 2.
fn func(body: &str) -> String {
    format!(
        "handshake.func @f(%arg0: !handshake.channel<i32>, %arg1: !handshake.control<>, ...) -> (!handshake.channel<i32>, !handshake.control<>) attributes {{argNames = [\"x\", \"start\"], resNames = [\"out0\", \"end\"]}} {{\n{body}\n}}\n"
    )
}

#[test]
fn errors_are_located() {
    // Unknown type syntax.
    let (at, msg) = err_at(&func(
        "  %0 = buffer %arg0, bufferType = ONE_SLOT_BREAK_DV, numSlots = 1 : <q32>\n  end {} %0, %arg1 : <i32>, <>",
    ));
    assert_eq!(at, (2, 70), "{msg}");
    assert!(msg.contains("unknown type syntax"), "{msg}");
    // Wrong result count.
    let (at, msg) = err_at(&func(
        "  %0:2 = buffer %arg0, bufferType = ONE_SLOT_BREAK_DV, numSlots = 1 : <i32>\n  end {} %0#0, %arg1 : <i32>, <>",
    ));
    assert_eq!(at, (2, 3), "{msg}");
    assert!(msg.contains("defines 2 results"), "{msg}");
    // Undefined value.
    let (at, msg) = err_at(&func(
        "  sink %arg0 : <i32>\n  end {} %7, %arg1 : <i32>, <>",
    ));
    assert_eq!(at, (3, 10), "{msg}");
    assert!(msg.contains("undefined value `%7`"), "{msg}");
    // A value used twice names both uses.
    let (at, msg) = err_at(&func(
        "  sink %arg0 : <i32>\n  end {} %arg0, %arg1 : <i32>, <>",
    ));
    assert_eq!(at, (3, 10), "{msg}");
    assert!(msg.contains("used twice: first at 2:8"), "{msg}");
    // Malformed buffer parameters: unknown kind, zero slots, missing slots, bad timing.
    let (at, msg) = err_at(&func(
        "  %0 = buffer %arg0, bufferType = ONE_SLOT, numSlots = 1 : <i32>\n  end {} %0, %arg1 : <i32>, <>",
    ));
    assert_eq!(at, (2, 35), "{msg}");
    assert!(msg.contains("unknown buffer type `ONE_SLOT`"), "{msg}");
    let (at, msg) = err_at(&func(
        "  %0 = buffer %arg0, bufferType = FIFO_BREAK_NONE, numSlots = 0 : <i32>\n  end {} %0, %arg1 : <i32>, <>",
    ));
    assert_eq!(at, (2, 63), "{msg}");
    assert!(msg.contains("at least one slot"), "{msg}");
    let (at, msg) = err_at(&func(
        "  %0 = buffer %arg0, bufferType = FIFO_BREAK_NONE : <i32>\n  end {} %0, %arg1 : <i32>, <>",
    ));
    assert_eq!(at, (2, 22), "{msg}");
    assert!(msg.contains("`numSlots` is missing"), "{msg}");
    let (at, msg) = err_at(&func(
        "  %0 = buffer %arg0 {hw.parameters = {NUM_SLOTS = 1 : ui32, TIMING = #handshake<timing {D: 2}>}} : <i32>\n  end {} %0, %arg1 : <i32>, <>",
    ));
    assert_eq!(at, (2, 70), "{msg}");
    assert!(msg.contains("malformed `TIMING`"), "{msg}");
    // Operand count of a kind.
    let (at, msg) = err_at(&func(
        "  %0:2 = fork [2] %arg0 : <i32>\n  %t, %f = cond_br %0#0 : <i1>, <i32>\n  sink %0#1 : <i32>\n  end {} %t, %arg1 : <i32>, <>",
    ));
    assert_eq!(at, (3, 12), "{msg}");
    // The 2024 syntax is refused with a hint.
    let (at, msg) = err_at("handshake.func @f(%arg0: i32, %arg1: none, ...) -> i32 {\n}\n");
    assert_eq!(at, (1, 26), "{msg}");
    assert!(msg.contains("unknown type syntax"), "{msg}");
}

#[test]
fn unused_values_are_warnings() {
    let (_, w) = parse_ok(&func(
        "  %0:2 = fork [2] %arg0 : <i32>\n  end {} %0#0, %arg1 : <i32>, <>",
    ));
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!((w[0].line, w[0].col), (2, 3));
    assert!(
        w[0].message.contains("`%0#1` is never used"),
        "{}",
        w[0].message
    );
}

#[test]
fn era_without_marks_is_e4_and_mixed_eras_warn() {
    let (m, _) = parse_ok(&func("  end {} %arg0, %arg1 : <i32>, <>"));
    assert_eq!(m.era, Era::E4);
    assert!(m.era_reason.contains("assumed"), "{}", m.era_reason);
    let (m, w) = parse_ok(&func(
        "  %0 = buffer %arg0 {hw.parameters = {NUM_SLOTS = 1 : ui32, TIMING = #handshake<timing {R: 1}>}} : <i32>\n  %1 = buffer %0, bufferType = ONE_SLOT_BREAK_R, numSlots = 1 : <i32>\n  end {} %1, %arg1 : <i32>, <>",
    ));
    assert_eq!(m.era, Era::E4);
    assert!(
        w.iter().any(|d| d.message.contains("mixed syntax eras")),
        "{w:?}"
    );
}

#[test]
fn kinds_round_trip_their_mnemonics() {
    for m in [
        "fork",
        "noti",
        "mem_controller",
        "lsq",
        "cmpf",
        "uitofp",
        "end",
        "blocker",
    ] {
        let k = DynOpKind::from_mnemonic(m);
        assert!(!k.is_unsupported(), "{m}");
        assert_eq!(DynOpKind::from_mnemonic(k.mnemonic()), k);
    }
    assert_eq!(DynOpKind::from_mnemonic("not"), DynOpKind::Not);
    for m in [
        "speculator",
        "spec_commit",
        "gate",
        "tagger",
        "demux",
        "unbundle",
    ] {
        assert_eq!(
            DynOpKind::from_mnemonic(m),
            DynOpKind::Unsupported(m.into())
        );
    }
    for k in BufferType::ALL {
        assert_eq!(BufferType::from_keyword(k.keyword()), Some(k));
    }
}

#[test]
fn detection_accepts_every_era_snippet() {
    for s in [E2, E3, E4, E5] {
        assert!(looks_dynamatic(s));
    }
    assert!(!looks_dynamatic(
        "handshake.func @f(%a: i32, %ctrl: none, ...) -> (i32, none) {\n  return %a, %ctrl : i32, none\n}\n"
    ));
}

#[test]
fn declared_sizes_are_bounded() {
    let (at, msg) = err_at(&func("  %0:5000000 = fork [5000000] %arg0 : <i32>"));
    assert_eq!(at, (2, 6), "{msg}");
    assert!(msg.contains("the limit is"), "{msg}");
    let (_, msg) = err_at(&func(
        "  %0 = buffer %arg0, bufferType = FIFO_BREAK_NONE, numSlots = 100000 : <i32>",
    ));
    assert!(msg.contains("the limit is"), "{msg}");
}
