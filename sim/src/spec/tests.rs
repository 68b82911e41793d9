use super::*;
use crate::ops::{ArithOp, BufferKind, CmpPredicate, FloatPredicate, OpKind};
use crate::types::{FloatKind, MemRefType};

fn mem(ld: u32, st: u32) -> Op {
    Op::Memory {
        ld,
        st,
        id: 0,
        memref: MemRefType {
            dims: vec![8],
            elem: Type::Int(32),
        },
        lsq: false,
    }
}

/// One op of every kind (arith: one per class), for tests that must cover them all.
fn one_of_each() -> Vec<Op> {
    let mut ops = Vec::new();
    for &k in OpKind::ALL {
        match k {
            OpKind::Argument => ops.push(Op::Argument { index: 0 }),
            OpKind::Return => ops.push(Op::Return),
            OpKind::Fork => ops.push(Op::Fork),
            OpKind::LazyFork => ops.push(Op::LazyFork),
            OpKind::Merge => ops.push(Op::Merge),
            OpKind::Mux => ops.push(Op::Mux),
            OpKind::ControlMerge => ops.push(Op::ControlMerge),
            OpKind::CondBr => ops.push(Op::CondBr),
            OpKind::Br => ops.push(Op::Br),
            OpKind::Join => ops.push(Op::Join),
            OpKind::Sync => ops.push(Op::Sync),
            OpKind::Pack => ops.push(Op::Pack),
            OpKind::Unpack => ops.push(Op::Unpack),
            OpKind::Buffer => ops.push(Op::Buffer {
                slots: 2,
                kind: BufferKind::Seq,
                init: None,
            }),
            OpKind::Constant => ops.push(Op::Constant { value: 1 }),
            OpKind::Source => ops.push(Op::Source),
            OpKind::Sink => ops.push(Op::Sink),
            OpKind::Never => ops.push(Op::Never),
            OpKind::Load => ops.push(Op::Load),
            OpKind::Store => ops.push(Op::Store),
            OpKind::Memory => ops.push(mem(2, 1)),
            OpKind::ExtMemory => ops.push(Op::ExtMemory {
                ld: 1,
                st: 1,
                id: 0,
                memref_arg: 0,
                memref: MemRefType {
                    dims: vec![4],
                    elem: Type::Int(8),
                },
            }),
            OpKind::Instance => ops.push(Op::Instance { callee: "f".into() }),
            OpKind::Pipeline => ops.push(Op::Pipeline { latency: 3, ii: 2 }),
            OpKind::DynBuffer => ops.extend(
                crate::ops::DynBufferKind::ALL
                    .iter()
                    .map(|&kind| Op::DynBuffer { kind, slots: 2 }),
            ),
            OpKind::DynPipeline => ops.push(Op::DynPipeline { latency: 4 }),
            OpKind::DynCounterBuffer => ops.push(Op::DynCounterBuffer { latency: 3 }),
            OpKind::DynControlMerge => ops.push(Op::DynControlMerge),
            OpKind::DynSelect => ops.push(Op::DynSelect),
            OpKind::DynLoad => ops.push(Op::DynLoad),
            OpKind::DynStore => ops.push(Op::DynStore),
            OpKind::DynMemController => ops.push(Op::DynMemController {
                ctrl: 1,
                ld: 2,
                st: 1,
                memref_arg: 0,
                memref: MemRefType {
                    dims: vec![8],
                    elem: Type::Int(32),
                },
            }),
            OpKind::DynLsq => {
                use crate::ops::{LsqAccess::Load as L, LsqAccess::Store as S, LsqShape};
                let shape = LsqShape {
                    groups: vec![vec![L, S], vec![L]],
                    load_depth: 4,
                    store_depth: 2,
                    end_once: false,
                };
                ops.push(Op::DynLsq {
                    shape: shape.clone(),
                    memref_arg: Some(0),
                    memref: Some(MemRefType {
                        dims: vec![8],
                        elem: Type::Int(32),
                    }),
                });
                ops.push(Op::DynLsq {
                    shape,
                    memref_arg: None,
                    memref: None,
                });
            }
            OpKind::Island => ops.push(Op::Island(Box::new(crate::island::tests::sum_island()))),
            OpKind::AddrQueue => ops.push(Op::AddrQueue {
                ld: 2,
                st: 1,
                depth: 4,
            }),
            OpKind::Arith => {
                ops.extend(ArithOp::SIMPLE.iter().map(|&(a, _)| Op::Arith(a)));
                ops.push(Op::Arith(ArithOp::Cmpi(CmpPredicate::Slt)));
                ops.push(Op::Arith(ArithOp::Cmpf(FloatPredicate::Olt)));
            }
        }
    }
    ops
}

#[test]
fn port_names_follow_circt() {
    assert_eq!(Op::Mux.input_port_name(0), "select");
    assert_eq!(Op::Mux.input_port_name(2), "in1");
    assert_eq!(Op::CondBr.output_port_name(1), "outFalse");
    assert_eq!(Op::Load.input_port_name(1), "dataFromMem");
    assert_eq!(Op::Store.output_port_name(0), "dataToMem");
    assert_eq!(Op::Constant { value: 0 }.input_port_name(0), "ctrl");
    assert_eq!(Op::ControlMerge.output_port_name(1), "index");
    let m = mem(2, 1);
    let ins: Vec<_> = (0..4).map(|i| m.input_port_name(i)).collect();
    assert_eq!(ins, ["stData0", "stAddr0", "ldAddr0", "ldAddr1"]);
    let outs: Vec<_> = (0..5).map(|i| m.output_port_name(i)).collect();
    assert_eq!(
        outs,
        ["ldData0", "ldData1", "stDone0", "ldDone0", "ldDone1"]
    );
    // Dynamatic's memory controller, in the order its RTL lists its ports.
    let mc = Op::DynMemController {
        ctrl: 1,
        ld: 2,
        st: 1,
        memref_arg: 0,
        memref: MemRefType {
            dims: vec![8],
            elem: Type::Int(32),
        },
    };
    let ins: Vec<_> = (0..7).map(|i| mc.input_port_name(i)).collect();
    assert_eq!(
        ins,
        [
            "memStart", "ctrl0", "ldAddr0", "ldAddr1", "stAddr0", "stData0", "ctrlEnd"
        ]
    );
    let outs: Vec<_> = (0..3).map(|i| mc.output_port_name(i)).collect();
    assert_eq!(outs, ["ldData0", "ldData1", "memEnd"]);
    // A slave load-store queue: groups, then the memory controller's ports.
    let lsq = Op::DynLsq {
        shape: crate::ops::LsqShape {
            groups: vec![vec![
                crate::ops::LsqAccess::Load,
                crate::ops::LsqAccess::Store,
            ]],
            load_depth: 4,
            store_depth: 4,
            end_once: false,
        },
        memref_arg: None,
        memref: None,
    };
    let ins: Vec<_> = (0..5).map(|i| lsq.input_port_name(i)).collect();
    assert_eq!(
        ins,
        ["ctrl0", "ldAddr0", "stAddr0", "stData0", "ldDataFromMC"]
    );
    let outs: Vec<_> = (0..4).map(|i| lsq.output_port_name(i)).collect();
    assert_eq!(outs, ["ldData0", "ldAddrToMC", "stAddrToMC", "stDataToMC"]);
    assert_eq!(Op::DynSelect.input_port_name(2), "falseValue");
    assert_eq!(Op::DynLoad.output_port_name(1), "dataOut");
    assert_eq!(Op::DynControlMerge.output_port_name(0), "outs");
}

#[test]
fn every_register_field_has_one_name_and_one_offset() {
    for op in one_of_each() {
        let layout = op.spec().state;
        let fields = layout.fields(3);
        assert_eq!(fields.len() as u32, layout.words(3), "{op:?}");
        for (i, f) in fields.iter().enumerate() {
            assert_eq!(layout.offset(*f), Some(i as u32), "{op:?} {f}");
            let name = f.to_string();
            assert_eq!(RegField::parse(&name), Some(*f), "{name}");
            assert_eq!(
                RegField::parse(&name.replacen('.', "_", 1)),
                Some(*f),
                "{name}"
            );
        }
        assert_eq!(op.is_stateful(), !fields.is_empty(), "{op:?}");
    }
    assert_eq!(RegField::parse("slot"), None);
    assert_eq!(RegField::parse("ld0.emitted_2"), None);
    assert_eq!(RegField::parse("emitted_x"), None);
}

#[test]
fn typed_state_reads_the_words() {
    let cm = StateLayout::ControlMerge.decode(&[0b100, 1, 0]);
    assert_eq!(
        cm,
        NodeState::ControlMerge {
            won: Some(2),
            result_emitted: true,
            index_emitted: false
        }
    );
    let buf = StateLayout::BufferSlots { slots: 2 }.decode(&[1, 7, 0, 0, 1, 8, 1, 9]);
    let NodeState::Buffer(slots) = &buf else {
        panic!("{buf:?}")
    };
    assert_eq!(slots[0].tokens(), 1);
    assert_eq!(slots[1].front(), Some(9));
    assert!(!buf.is_empty_buffer());
    assert!(
        StateLayout::BufferSlots { slots: 1 }
            .decode(&[0, 5, 0, 3])
            .is_empty_buffer()
    );
    let m = StateLayout::MemoryPorts { ld: 1, st: 1 }.decode(&[1, 0, 1]);
    assert_eq!(
        m,
        NodeState::Memory {
            store_done_pending: vec![true],
            load_emitted: vec![[false, true]]
        }
    );
}

#[test]
fn counts_and_types_are_checked_from_the_spec() {
    const I32: Type = Type::Int(32);
    let v = check_node(&Op::CondBr, &[I32, I32], &[I32, I32], 0);
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].message, "condition has type i32, expected i1");
    let v = check_node(&Op::Mux, &[Type::Int(1)], &[I32], 0);
    assert_eq!(v[0].kind, ViolationKind::Count);
    assert_eq!(v[0].message, "has 1 inputs, expected at least 2");
    let v = check_node(&Op::Sync, &[I32, Type::None], &[I32], 0);
    assert_eq!(v[0].message, "has 1 outputs, expected 2");
    let v = check_node(&Op::Return, &[I32], &[], 2);
    assert_eq!(v[0].message, "has 1 inputs, expected 2");
    assert!(check_node(&Op::Arith(ArithOp::Addi), &[I32, I32], &[I32], 0).is_empty());
}

/// Floats are not integers: every place that needs an integer rejects them with a message
/// naming the port, and every float op checks its operand formats.
#[test]
fn float_type_rules() {
    const F32: Type = Type::Float(FloatKind::F32);
    const F64: Type = Type::Float(FloatKind::F64);
    const I32: Type = Type::Int(32);
    const I1: Type = Type::Int(1);
    let msg = |op: Op, ins: &[Type], outs: &[Type]| -> Vec<String> {
        check_node(&op, ins, outs, 0)
            .into_iter()
            .map(|v| v.message)
            .collect()
    };
    assert_eq!(
        msg(Op::Arith(ArithOp::Addi), &[F32, F32], &[F32]),
        ["operand 0 has type f32, expected an integer or index"]
    );
    assert_eq!(
        msg(Op::Arith(ArithOp::Addf), &[I32, I32], &[I32]),
        ["operand 0 has type i32, expected a float (f32 or f64)"]
    );
    assert_eq!(
        msg(Op::Arith(ArithOp::Addf), &[F32, F64], &[F32]),
        ["operand 1 has type f64, expected f32"]
    );
    assert!(msg(Op::Arith(ArithOp::Mulf), &[F64, F64], &[F64]).is_empty());
    assert!(msg(Op::Arith(ArithOp::Sqrt), &[F32], &[F32]).is_empty());
    assert_eq!(
        msg(Op::Arith(ArithOp::Negf), &[F32], &[F64]),
        ["result has type f64, expected f32"]
    );
    assert_eq!(
        msg(
            Op::Arith(ArithOp::Cmpf(FloatPredicate::Olt)),
            &[F32, F32],
            &[I32]
        ),
        ["result has type i32, expected i1"]
    );
    assert_eq!(
        msg(
            Op::Arith(ArithOp::Cmpi(CmpPredicate::Slt)),
            &[F32, F32],
            &[I1]
        ),
        ["operand 0 has type f32, expected an integer or index"]
    );
    assert!(msg(Op::Arith(ArithOp::Sitofp), &[Type::Int(8)], &[F64]).is_empty());
    assert_eq!(
        msg(Op::Arith(ArithOp::Sitofp), &[Type::Index], &[F32]),
        ["operand has type index, expected an integer iN"]
    );
    assert_eq!(
        msg(Op::Arith(ArithOp::Fptoui), &[I32], &[I32]),
        ["operand has type i32, expected a float (f32 or f64)"]
    );
    assert!(msg(Op::Arith(ArithOp::Extf), &[F32], &[F64]).is_empty());
    assert_eq!(
        msg(Op::Arith(ArithOp::Extf), &[F64], &[F32]),
        ["extends f64 to f32, expected f32 to f64"]
    );
    assert_eq!(
        msg(Op::Arith(ArithOp::Truncf), &[F32], &[F32]),
        ["truncates f32 to f32, expected f64 to f32"]
    );
    assert_eq!(
        msg(Op::Arith(ArithOp::Extsi), &[F32], &[F64]),
        ["casts f32 to f64, expected iN to iM"]
    );
    // Handshake components that need integers.
    assert_eq!(
        msg(Op::CondBr, &[F32, I32], &[I32, I32]),
        ["condition has type f32, expected i1"]
    );
    assert_eq!(
        msg(Op::Mux, &[F32, I32, I32], &[I32]),
        ["select has type f32, expected an integer or index"]
    );
    assert_eq!(
        msg(Op::Arith(ArithOp::Select), &[F32, I32, I32], &[I32]),
        ["condition has type f32, expected i1"]
    );
    assert_eq!(
        msg(Op::Load, &[F32, F32, Type::None], &[F32, F32]),
        ["input `addrIn0` has type f32, expected an integer or index"]
    );
    let fmem = Op::Memory {
        ld: 1,
        st: 0,
        id: 0,
        memref: MemRefType {
            dims: vec![8],
            elem: F32,
        },
        lsq: false,
    };
    assert!(msg(fmem.clone(), &[Type::Index], &[F32, Type::None]).is_empty());
    assert_eq!(
        msg(fmem, &[F32], &[F32, Type::None]),
        ["input `ldAddr0` has type f32, expected an integer or index"]
    );
    // Float constants: any bit pattern of the width.
    assert!(msg(Op::Constant { value: 0xffc0_0000 }, &[Type::None], &[F32]).is_empty());
    assert_eq!(
        msg(Op::Constant { value: 1 << 40 }, &[Type::None], &[F32]),
        [format!("value {} does not fit in f32", 1u64 << 40)]
    );
}

#[test]
fn comb_paths_are_within_the_ports() {
    for op in one_of_each() {
        let sp = op.spec();
        for (a, b) in sp.comb.deps(3, 3) {
            for s in [a, b] {
                let (PortSignal::Forward(p) | PortSignal::Ready(p)) = s;
                match p {
                    PortRef::In(i) | PortRef::Out(i) => assert!(i < 3, "{op:?}"),
                }
            }
        }
    }
    // A store port's ready depends on its done token's ready, but its done valid does not
    // depend on its inputs.
    let deps = Comb::Memory { ld: 0, st: 1 }.deps(2, 1);
    assert!(deps.contains(&(
        PortSignal::Ready(PortRef::Out(0)),
        PortSignal::Ready(PortRef::In(0))
    )));
    assert!(
        !deps
            .iter()
            .any(|(_, b)| matches!(b, PortSignal::Forward(_)))
    );
}

#[test]
fn labels() {
    let buf = Op::Buffer {
        slots: 2,
        kind: BufferKind::Seq,
        init: Some(vec![1, 2]),
    };
    assert_eq!(
        describe_op(&buf, 1, 1, None, Detail::Short),
        "buffer [2] seq"
    );
    assert_eq!(
        describe_op(&buf, 1, 1, None, Detail::Full),
        "buffer [2] seq init [1, 2]"
    );
    assert_eq!(
        describe_op(&Op::Fork, 1, 3, None, Detail::Short),
        "fork [3]"
    );
    assert_eq!(describe_op(&Op::Mux, 3, 1, None, Detail::Full), "mux [2]");
    assert_eq!(
        describe_op(
            &Op::Constant { value: 255 },
            1,
            1,
            Some(&Type::Int(8)),
            Detail::Full
        ),
        "constant -1 : i8"
    );
    assert_eq!(
        describe_op(
            &Op::Constant { value: 0x3fc0_0000 },
            1,
            1,
            Some(&Type::Float(FloatKind::F32)),
            Detail::Full
        ),
        "constant 1.5 : f32"
    );
    assert_eq!(
        describe_op(
            &Op::Arith(ArithOp::Cmpf(FloatPredicate::Uno)),
            2,
            1,
            None,
            Detail::Full
        ),
        "cmpf uno"
    );
    assert_eq!(
        describe_op(&Op::Arith(ArithOp::Sqrt), 1, 1, None, Detail::Full),
        "math.sqrt"
    );
    let fbuf = Op::Buffer {
        slots: 1,
        kind: BufferKind::Seq,
        init: Some(vec![0xbf80_0000]),
    };
    assert_eq!(
        describe_op(
            &fbuf,
            1,
            1,
            Some(&Type::Float(FloatKind::F32)),
            Detail::Full
        ),
        "buffer [1] seq init [-1]"
    );
}
