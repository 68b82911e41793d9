use super::*;
use crate::ops::{ArithOp, BufferKind, CmpPredicate, OpKind};
use crate::types::MemRefType;

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
            OpKind::Arith => {
                ops.extend(ArithOp::SIMPLE.iter().map(|&(a, _)| Op::Arith(a)));
                ops.push(Op::Arith(ArithOp::Cmpi(CmpPredicate::Slt)));
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
}
