//! Per-component waveforms checked against hand computation from docs/semantics.md.

use crate::common;

use common::*;
use handscope_sim::engine::Simulation;
use handscope_sim::report::{EventKind, Status, Value};
use handscope_sim::stimulus::{Environment, ReadyPolicy, TokenSource};
use handscope_sim::{ArithOp, BufferKind, CmpPredicate, MemRefType, Op, Type};

fn env(tokens: &[(&str, Vec<u64>)]) -> Environment {
    let mut e = Environment::default();
    for (n, v) in tokens {
        e.push_tokens(*n, TokenSource::Values(v.clone()));
    }
    e
}

#[test]
fn fork_with_a_stalling_output() {
    let mut f = handscope_sim::Function::new("t");
    let a = arg(&mut f, "a", Type::Int(8));
    let fk = node(&mut f, Op::Fork, vec![a], vec![Type::Int(8), Type::Int(8)]);
    let (o0, o1) = (out(&f, fk, 0), out(&f, fk, 1));
    ret(&mut f, vec![o0, o1]);
    let mut e = env(&[("a", vec![5, 6])]);
    e.set_ready("r1", ReadyPolicy::Pattern(vec![false, false, true]));
    let mut sim = Simulation::new(&f, e).unwrap();
    let w = fmt_wave(&wave(&mut sim, &["a", "fork0.out0", "fork0.out1"], 6));
    assert_eq!(
        w,
        [
            "V5 F5 V5", // out0 taken, out1 stalls, input held
            "V5 R V5",  // out0 already emitted
            "F5 R F5",  // out1 taken: allDone, input consumed
            "V6 F6 V6", "V6 R V6", "F6 R F6",
        ]
    );
    let r = sim.report();
    assert_eq!(r.status, Status::Done);
    let cyc: Vec<u64> = r.outputs["r1"].iter().map(|t| t.cycle).collect();
    assert_eq!(cyc, [2, 5]);
    assert_eq!(r.stats["fork0.out1"].stall_cycles, 4);
    assert_eq!(r.stats["fork0.out0"].accept_cycles, 4);
}

#[test]
fn control_merge_holds_its_winner() {
    let mut f = handscope_sim::Function::new("t");
    let a = arg(&mut f, "a", Type::Int(8));
    let b = arg(&mut f, "b", Type::Int(8));
    let buf = node(
        &mut f,
        Op::Buffer {
            slots: 1,
            kind: BufferKind::Seq,
            init: None,
        },
        vec![a],
        vec![Type::Int(8)],
    );
    let ba = out(&f, buf, 0);
    let cm = node(
        &mut f,
        Op::ControlMerge,
        vec![ba, b],
        vec![Type::Int(8), Type::Index],
    );
    let (d, i) = (out(&f, cm, 0), out(&f, cm, 1));
    ret(&mut f, vec![d, i]);
    let mut e = env(&[("a", vec![10, 11]), ("b", vec![20])]);
    e.set_ready(
        "r0",
        ReadyPolicy::Pattern(vec![false, false, true, true, false]),
    );
    let mut sim = Simulation::new(&f, e).unwrap();
    let cmid = f.node_by_id("control_merge0").unwrap();
    let mut won = Vec::new();
    let mut rows = Vec::new();
    for _ in 0..4 {
        let r = wave(
            &mut sim,
            &[
                "buffer0.out0",
                "b",
                "control_merge0.dataOut",
                "control_merge0.index",
            ],
            1,
        );
        rows.extend(r);
        won.push(sim.registers(cmid).0.to_vec());
    }
    assert_eq!(
        fmt_wave(&rows),
        [
            ". V20 V20 F1",  // only b valid: b wins, index taken at once
            "V10 V20 V20 R", // a arrives, but the held winner stays b
            "V10 F20 F20 R", // dataOut taken: b consumed
            "F10 . F10 F0",  // a wins now
        ]
    );
    // registers after each clock edge: won (one-hot), result_emitted, index_emitted
    assert_eq!(
        won,
        [vec![2, 0, 1], vec![2, 0, 1], vec![0, 0, 0], vec![0, 0, 0]]
    );
    assert_eq!(sim.status(), Some(Status::Done));
}

#[test]
fn buffer1_takes_two_tokens_and_not_while_draining() {
    let mut f = handscope_sim::Function::new("t");
    let a = arg(&mut f, "a", Type::Int(8));
    let buf = node(
        &mut f,
        Op::Buffer {
            slots: 1,
            kind: BufferKind::Fifo,
            init: None,
        },
        vec![a],
        vec![Type::Int(8)],
    );
    let o = out(&f, buf, 0);
    ret(&mut f, vec![o]);
    let mut e = env(&[("a", vec![10, 11, 12])]);
    e.set_ready(
        "r0",
        ReadyPolicy::Pattern(vec![false, false, false, true, true, true, true]),
    );
    let mut sim = Simulation::new(&f, e).unwrap();
    let w = fmt_wave(&wave(&mut sim, &["a", "buffer0.out0"], 6));
    assert_eq!(
        w,
        [
            "F10 .", "F11 V10", // main full, output stalls: still accepts (goes to skid)
            "V12 V10", // two tokens: not ready
            "V12 F10", // drained this cycle, but still not ready (no comb path)
            "F12 F11", "R F12",
        ]
    );
    assert_eq!(sim.status(), Some(Status::Done));
}

#[test]
fn buffer_init_values_leave_last_first() {
    let mut f = handscope_sim::Function::new("t");
    let a = arg(&mut f, "a", Type::Int(8));
    let buf = node(
        &mut f,
        Op::Buffer {
            slots: 3,
            kind: BufferKind::Seq,
            init: Some(vec![1, 2, 3]),
        },
        vec![a],
        vec![Type::Int(8)],
    );
    let o = out(&f, buf, 0);
    ret(&mut f, vec![o]);
    let mut sim = Simulation::new(&f, env(&[("a", vec![7, 8, 9, 10, 11, 12])])).unwrap();
    let r = sim.run(100);
    assert_eq!(r.status, Status::Done);
    let v: Vec<u64> = r.outputs["r0"].iter().map(|t| t.bits).collect();
    assert_eq!(v, [3, 2, 1, 7, 8, 9]);
    assert_eq!(r.outputs["r0"][0].cycle, 0);
}

fn memory_graph(load_delay: u32) -> handscope_sim::Function {
    let mut f = handscope_sim::Function::new("t");
    let sd = arg(&mut f, "sd", Type::Int(8));
    let sa = arg(&mut f, "sa", Type::Index);
    let la = arg(&mut f, "la", Type::Index);
    let la = if load_delay > 0 {
        let b = node(
            &mut f,
            Op::Buffer {
                slots: load_delay,
                kind: BufferKind::Seq,
                init: None,
            },
            vec![la],
            vec![Type::Index],
        );
        out(&f, b, 0)
    } else {
        la
    };
    let memref = MemRefType {
        dims: vec![4],
        elem: Type::Int(8),
    };
    let m = node(
        &mut f,
        Op::Memory {
            ld: 1,
            st: 1,
            id: 0,
            memref,
            lsq: false,
        },
        vec![sd, sa, la],
        vec![Type::Int(8), Type::None, Type::None],
    );
    let outs = (0..3).map(|i| out(&f, m, i)).collect();
    ret(&mut f, outs);
    f
}

#[test]
fn memory_store_then_load() {
    let f = memory_graph(2);
    // store 42 at address 6 (bits above log2(4) ignored -> 2), load address 2 two cycles later
    let mut sim = Simulation::new(
        &f,
        env(&[("sd", vec![42]), ("sa", vec![6]), ("la", vec![2])]),
    )
    .unwrap();
    let w = fmt_wave(&wave(
        &mut sim,
        &[
            "sa",
            "memory0.ldData0",
            "memory0.stDone0",
            "memory0.ldDone0",
        ],
        3,
    ));
    assert_eq!(w, ["F6 R R R", "R R F0 R", "R F42 R F0"]);
    assert_eq!(sim.memory("memory0").unwrap(), &[0, 0, 42, 0]);
    let r = sim.report();
    assert_eq!(r.status, Status::Done);
    assert_eq!(r.outputs["r0"][0].value, Some(Value::Signed(42)));
    assert_eq!(r.memories["memory0"][2], Value::Signed(42));
    // Without the delay the load reads the old contents in cycle 0.
    let f = memory_graph(0);
    let mut sim = Simulation::new(
        &f,
        env(&[("sd", vec![42]), ("sa", vec![2]), ("la", vec![2])]),
    )
    .unwrap();
    let r = sim.run(50);
    assert_eq!(r.outputs["r0"][0].bits, 0);
    assert_eq!(r.outputs["r0"][0].cycle, 0);
}

#[test]
fn division_by_zero_is_an_event() {
    let mut f = handscope_sim::Function::new("t");
    let a = arg(&mut f, "a", Type::Int(16));
    let b = arg(&mut f, "b", Type::Int(16));
    let d = node(
        &mut f,
        Op::Arith(ArithOp::Divsi),
        vec![a, b],
        vec![Type::Int(16)],
    );
    let o = out(&f, d, 0);
    ret(&mut f, vec![o]);
    let mut sim = Simulation::new(
        &f,
        env(&[("a", vec![7, 0x8000, 9]), ("b", vec![0, 0xffff, 2])]),
    )
    .unwrap();
    let r = sim.run(20);
    let vals: Vec<_> = r.outputs["r0"].iter().map(|t| t.value.clone()).collect();
    assert_eq!(
        vals,
        [
            Some(Value::Signed(0)),
            Some(Value::Signed(-32768)),
            Some(Value::Signed(4))
        ]
    );
    assert_eq!(r.events.len(), 1);
    assert_eq!(r.events[0].kind, EventKind::DivisionByZero);
    assert_eq!(r.events[0].node, "divsi0");
    assert_eq!(r.events[0].cycle, 0);
}

/// A float division and remainder by +0 and -0: the IEEE results (signed infinities, the
/// default NaN `-nan`) and one division-by-zero event per firing, with the result in words;
/// a float chain through `sitofp`, `mulf`, `cmpf` and `fptosi` computes what C would.
#[test]
fn float_division_by_zero_and_a_float_chain() {
    use handscope_sim::FloatKind::F32;
    use handscope_sim::float::FloatValue;
    let f32t = Type::Float(F32);
    let mut f = handscope_sim::Function::new("t");
    let a = arg(&mut f, "a", f32t.clone());
    let b = arg(&mut f, "b", f32t.clone());
    let n = arg(&mut f, "n", Type::Int(8));
    let fa = node(&mut f, Op::Fork, vec![a], vec![f32t.clone(); 3]);
    let fb = node(&mut f, Op::Fork, vec![b], vec![f32t.clone(); 2]);
    let ins = vec![out(&f, fa, 0), out(&f, fb, 0)];
    let d = node(&mut f, Op::Arith(ArithOp::Divf), ins, vec![f32t.clone()]);
    let ins = vec![out(&f, fa, 1), out(&f, fb, 1)];
    let r = node(&mut f, Op::Arith(ArithOp::Remf), ins, vec![f32t.clone()]);
    let nf = node(
        &mut f,
        Op::Arith(ArithOp::Sitofp),
        vec![n],
        vec![f32t.clone()],
    );
    let ins = vec![out(&f, fa, 2), out(&f, nf, 0)];
    let p = node(&mut f, Op::Arith(ArithOp::Mulf), ins, vec![f32t.clone()]);
    let ins = vec![out(&f, p, 0)];
    let fp = node(&mut f, Op::Fork, ins, vec![f32t.clone(); 3]);
    let ins = vec![out(&f, fp, 0), out(&f, fp, 1)];
    let ogt = Op::Arith(ArithOp::Cmpf(handscope_sim::FloatPredicate::Ogt));
    let c = node(&mut f, ogt, ins, vec![Type::Int(1)]);
    let ins = vec![out(&f, fp, 2)];
    let i = node(&mut f, Op::Arith(ArithOp::Fptosi), ins, vec![Type::Int(32)]);
    let outs = vec![out(&f, d, 0), out(&f, r, 0), out(&f, c, 0), out(&f, i, 0)];
    ret(&mut f, outs);
    let bits = |x: f32| u64::from(x.to_bits());
    let mut sim = Simulation::new(
        &f,
        env(&[
            ("a", vec![bits(3.0), bits(-3.0), bits(0.0), bits(7.5)]),
            ("b", vec![bits(0.0), bits(0.0), bits(-0.0), bits(2.0)]),
            ("n", vec![0xfe, 3, 100, 0x80]),
        ]),
    )
    .unwrap();
    let rep = sim.run(20);
    assert_eq!(rep.status, Status::Done);
    let fv = |x: u64| Some(Value::Float(FloatValue { kind: F32, bits: x }));
    let vals = |k: &str| -> Vec<_> { rep.outputs[k].iter().map(|t| t.value.clone()).collect() };
    assert_eq!(
        vals("r0"),
        [
            fv(0x7f80_0000),
            fv(0xff80_0000),
            fv(0xffc0_0000),
            fv(bits(3.75))
        ]
    );
    assert_eq!(
        vals("r1"),
        [
            fv(0xffc0_0000),
            fv(0xffc0_0000),
            fv(0xffc0_0000),
            fv(bits(1.5))
        ]
    );
    // a * n: -6, -9, 0, -960 (n is signed).
    assert_eq!(
        vals("r3"),
        [
            Some(Value::Signed(-6)),
            Some(Value::Signed(-9)),
            Some(Value::Signed(0)),
            Some(Value::Signed(-960))
        ]
    );
    assert_eq!(vals("r2"), [const { Some(Value::Unsigned(0)) }; 4]);
    let ev: Vec<(u64, &str, &str)> = rep
        .events
        .iter()
        .map(|e| (e.cycle, e.node.as_str(), e.message.as_str()))
        .collect();
    assert_eq!(
        ev,
        [
            (0, "divf0", "division by zero; the IEEE result is inf"),
            (0, "remf0", "division by zero; the IEEE result is -nan"),
            (1, "divf0", "division by zero; the IEEE result is -inf"),
            (1, "remf0", "division by zero; the IEEE result is -nan"),
            (2, "divf0", "division by zero; the IEEE result is -nan"),
            (2, "remf0", "division by zero; the IEEE result is -nan"),
        ]
    );
    assert!(
        rep.events
            .iter()
            .all(|e| e.kind == EventKind::DivisionByZero)
    );
    // JSON: finite floats are numbers, the others strings.
    let json = serde_json::to_value(&rep).unwrap();
    assert_eq!(json["outputs"]["r0"][0]["value"], "inf");
    assert_eq!(json["outputs"]["r0"][3]["value"], 3.75);
    assert_eq!(json["outputs"]["r1"][0]["value"], "-nan");
}

fn binop_graph(op: ArithOp, w: u16, out_ty: Type) -> handscope_sim::Function {
    let mut f = handscope_sim::Function::new("t");
    let a = arg(&mut f, "a", Type::Int(w));
    let b = arg(&mut f, "b", Type::Int(w));
    let n = node(&mut f, Op::Arith(op), vec![a, b], vec![out_ty]);
    let o = out(&f, n, 0);
    ret(&mut f, vec![o]);
    f
}

fn eval_bin(op: ArithOp, w: u16, out_ty: Type, a: u64, b: u64) -> u64 {
    let f = binop_graph(op, w, out_ty);
    let mut sim = Simulation::new(&f, env(&[("a", vec![a]), ("b", vec![b])])).unwrap();
    sim.run(10).outputs["r0"][0].bits
}

#[test]
fn signed_compare_and_shift_at_widths_1_7_33_64() {
    for w in [1u16, 7, 33, 64] {
        let m = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
        let min = 1u64 << (w - 1); // INT_MIN bit pattern
        let slt = |a, b| eval_bin(ArithOp::Cmpi(CmpPredicate::Slt), w, Type::Int(1), a, b);
        let ult = |a, b| eval_bin(ArithOp::Cmpi(CmpPredicate::Ult), w, Type::Int(1), a, b);
        assert_eq!(slt(min, 0), 1, "w={w}: INT_MIN < 0 signed");
        assert_eq!(ult(min, 0), 0, "w={w}: INT_MIN > 0 unsigned");
        assert_eq!(slt(m, 0), 1, "w={w}: -1 < 0");
        let shrs = |a, b| eval_bin(ArithOp::Shrsi, w, Type::Int(w), a, b);
        let shru = |a, b| eval_bin(ArithOp::Shrui, w, Type::Int(w), a, b);
        let shl = |a, b| eval_bin(ArithOp::Shli, w, Type::Int(w), a, b);
        assert_eq!(shrs(min, u64::from(w) - 1), m, "w={w}: sign fill");
        assert_eq!(
            shrs(min, u64::from(w)),
            m,
            "w={w}: shift >= width fills with sign"
        );
        assert_eq!(shru(min, u64::from(w)), 0, "w={w}");
        assert_eq!(shl(1, u64::from(w)), 0, "w={w}");
        assert_eq!(shl(1, u64::from(w) - 1), min, "w={w}");
    }
    // INT_MIN / -1 wraps at width 33
    let m33 = (1u64 << 33) - 1;
    assert_eq!(
        eval_bin(ArithOp::Divsi, 33, Type::Int(33), 1 << 32, m33),
        1 << 32
    );
}

#[test]
fn cond_br_mux_merge_and_pack_unpack() {
    // cond_br routes by condition; mux selects; pack/unpack keep field 0 in the high bits.
    let mut f = handscope_sim::Function::new("t");
    let c = arg(&mut f, "c", Type::Int(1));
    let d = arg(&mut f, "d", Type::Int(8));
    let cb = node(
        &mut f,
        Op::CondBr,
        vec![c, d],
        vec![Type::Int(8), Type::Int(8)],
    );
    let (t, fl) = (out(&f, cb, 0), out(&f, cb, 1));
    let mg = node(&mut f, Op::Merge, vec![t, fl], vec![Type::Int(8)]);
    let m = out(&f, mg, 0);
    let k = arg(&mut f, "k", Type::Int(4));
    let pk = node(
        &mut f,
        Op::Pack,
        vec![m, k],
        vec![Type::Tuple(vec![Type::Int(8), Type::Int(4)])],
    );
    let p = out(&f, pk, 0);
    let fk = node(&mut f, Op::Fork, vec![p], vec![p_ty(), p_ty()]);
    let (p0, p1) = (out(&f, fk, 0), out(&f, fk, 1));
    let up = node(
        &mut f,
        Op::Unpack,
        vec![p1],
        vec![Type::Int(8), Type::Int(4)],
    );
    let (u0, u1) = (out(&f, up, 0), out(&f, up, 1));
    ret(&mut f, vec![p0, u0, u1]);
    let mut sim = Simulation::new(
        &f,
        env(&[
            ("c", vec![1, 0]),
            ("d", vec![0xab, 0x12]),
            ("k", vec![0x5, 0xf]),
        ]),
    )
    .unwrap();
    let r = sim.run(20);
    assert_eq!(r.status, Status::Done);
    let bits = |n: &str| r.outputs[n].iter().map(|t| t.bits).collect::<Vec<_>>();
    assert_eq!(bits("r0"), [0xab5, 0x12f]);
    assert_eq!(bits("r1"), [0xab, 0x12]);
    assert_eq!(bits("r2"), [0x5, 0xf]);
    assert_eq!(r.stats["cond_br0.outTrue"].fires, 1);
    assert_eq!(r.stats["cond_br0.outFalse"].fires, 1);

    fn p_ty() -> Type {
        Type::Tuple(vec![Type::Int(8), Type::Int(4)])
    }
}

#[test]
fn mux_selects_and_merge_prefers_lowest() {
    let mut f = handscope_sim::Function::new("t");
    let s = arg(&mut f, "s", Type::Index);
    let a = arg(&mut f, "a", Type::Int(8));
    let b = arg(&mut f, "b", Type::Int(8));
    let c = arg(&mut f, "c", Type::Int(8));
    let mx = node(&mut f, Op::Mux, vec![s, a, b, c], vec![Type::Int(8)]);
    let o = out(&f, mx, 0);
    ret(&mut f, vec![o]);
    let mut sim = Simulation::new(
        &f,
        env(&[
            ("s", vec![2, 0, 1]),
            ("a", vec![1]),
            ("b", vec![2]),
            ("c", vec![3]),
        ]),
    )
    .unwrap();
    let r = sim.run(20);
    let v: Vec<u64> = r.outputs["r0"].iter().map(|t| t.bits).collect();
    assert_eq!(
        v,
        [3, 1, 2],
        "mux with 3 data inputs selects in[sel] (no CIRCT reversal)"
    );

    let mut f = handscope_sim::Function::new("t");
    let a = arg(&mut f, "a", Type::Int(8));
    let b = arg(&mut f, "b", Type::Int(8));
    let mg = node(&mut f, Op::Merge, vec![a, b], vec![Type::Int(8)]);
    let o = out(&f, mg, 0);
    ret(&mut f, vec![o]);
    let mut sim = Simulation::new(&f, env(&[("a", vec![0, 5]), ("b", vec![9])])).unwrap();
    let r = sim.run(20);
    let v: Vec<u64> = r.outputs["r0"].iter().map(|t| t.bits).collect();
    assert_eq!(v, [0, 5], "input 0 wins with its real data (no data-0 bug)");
    assert!(
        r.events
            .iter()
            .any(|e| e.kind == EventKind::Nondeterminism && e.node == "merge0")
    );
}

/// Out-of-range selects: only the low ceil(log2 N) bits count (CIRCT's RTL); an `i1` true cast
/// to `index` (-1) takes the last input of a 2-input mux; low bits that name no input (N not a
/// power of two) take nothing. Each mux reports its first out-of-range select once.
#[test]
fn mux_uses_the_low_select_bits() {
    let mux = |n: usize, sels: Vec<u64>| {
        let mut f = handscope_sim::Function::new("t");
        let s = arg(&mut f, "s", Type::Index);
        let mut ins = vec![s];
        let mut tokens = vec![("s".to_string(), sels)];
        for i in 0..n {
            let name = format!("d{i}");
            ins.push(arg(&mut f, &name, Type::Int(8)));
            tokens.push((name, vec![10 + i as u64; 4]));
        }
        let mx = node(&mut f, Op::Mux, ins, vec![Type::Int(8)]);
        let o = out(&f, mx, 0);
        ret(&mut f, vec![o]);
        let mut e = Environment::default();
        for (n, v) in tokens {
            e.push_tokens(n, TokenSource::Values(v));
        }
        let mut sim = Simulation::new(&f, e).unwrap();
        sim.run(40)
    };
    let minus_one = u64::MAX;
    let r = mux(2, vec![minus_one, 0, 5]);
    let v: Vec<u64> = r.outputs["r0"].iter().map(|t| t.bits).collect();
    assert_eq!(v, [11, 10, 11], "-1 and 5 have low bit 1: in1");
    let ev: Vec<_> = r
        .events
        .iter()
        .filter(|e| e.kind == EventKind::SelectOutOfRange)
        .collect();
    assert_eq!(ev.len(), 1, "reported once: {:?}", r.events);
    assert_eq!(ev[0].cycle, 0);
    assert!(ev[0].message.contains("select -1"), "{}", ev[0].message);
    assert!(ev[0].message.contains("takes in1"), "{}", ev[0].message);

    let r = mux(3, vec![6, 3]);
    let v: Vec<u64> = r.outputs["r0"].iter().map(|t| t.bits).collect();
    assert_eq!(v, [12], "6 = 0b110: low bits 2 take in2; 3 names no input");
    assert_eq!(r.status, Status::Deadlock);
    let ev: Vec<_> = r
        .events
        .iter()
        .filter(|e| e.kind == EventKind::SelectOutOfRange)
        .collect();
    assert_eq!(ev.len(), 1);
    assert!(ev[0].message.contains("takes in2"), "{}", ev[0].message);
    let chain = r.deadlock.expect("deadlock report").explanation.join("\n");
    assert!(chain.contains("mux0"), "{chain}");
}

#[test]
fn constant_source_sink_join_sync_lazy_fork_store_load() {
    // source -> constant -> result; lazy_fork feeding two results.
    let mut f = handscope_sim::Function::new("t");
    let start = arg(&mut f, "start", Type::None);
    let k = node(
        &mut f,
        Op::Constant { value: 0x1ff },
        vec![start],
        vec![Type::Int(8)],
    );
    let kc = out(&f, k, 0);
    let lf = node(
        &mut f,
        Op::LazyFork,
        vec![kc],
        vec![Type::Int(8), Type::Int(8)],
    );
    let (l0, l1) = (out(&f, lf, 0), out(&f, lf, 1));
    ret(&mut f, vec![l0, l1]);
    let mut e = Environment::default();
    e.set_ready("r1", ReadyPolicy::Pattern(vec![false, true]));
    let mut sim = Simulation::new(&f, e).unwrap();
    let w = fmt_wave(&wave(
        &mut sim,
        &["start", "lazy_fork0.out0", "lazy_fork0.out1"],
        2,
    ));
    // cycle 0: out1 not ready -> out0 not valid (lazy), nothing consumed
    assert_eq!(w, ["V0 R V255", "F0 F255 F255"]);
    assert_eq!(sim.status(), Some(Status::Done));

    // load/store through an extmemory with initial contents.
    let mut f = handscope_sim::Function::new("t");
    let memref = MemRefType {
        dims: vec![8],
        elem: Type::Int(16),
    };
    f.add_arg("mem", handscope_sim::ArgType::MemRef(memref.clone()));
    let la = arg(&mut f, "la", Type::Index);
    let sa = arg(&mut f, "sa", Type::Index);
    let sv = arg(&mut f, "sv", Type::Int(16));
    let ctrl = arg(&mut f, "ctrl", Type::None);
    let cf = node(&mut f, Op::Fork, vec![ctrl], vec![Type::None, Type::None]);
    let (c0, c1) = (out(&f, cf, 0), out(&f, cf, 1));
    // memory outputs: ldData0, stDone0, ldDone0; inputs: stData0, stAddr0, ldAddr0
    let mem = f.add_node(
        Op::ExtMemory {
            ld: 1,
            st: 1,
            id: 0,
            memref_arg: 0,
            memref,
        },
        vec![Type::Int(16), Type::None, Type::None],
    );
    let m0 = out(&f, mem, 0);
    let ld = node(
        &mut f,
        Op::Load,
        vec![la, m0, c0],
        vec![Type::Int(16), Type::Index],
    );
    let st = node(
        &mut f,
        Op::Store,
        vec![sa, sv, c1],
        vec![Type::Int(16), Type::Index],
    );
    let ins = vec![out(&f, st, 0), out(&f, st, 1), out(&f, ld, 1)];
    f.set_inputs(mem, ins);
    let (m1, m2) = (out(&f, mem, 1), out(&f, mem, 2));
    let jn = node(&mut f, Op::Join, vec![m1, m2], vec![Type::None]);
    let outs = vec![out(&f, ld, 0), out(&f, jn, 0)];
    ret(&mut f, outs);
    let mut e = env(&[("la", vec![3]), ("sa", vec![5]), ("sv", vec![0xfffe])]);
    e.ext_memories.insert("mem".into(), vec![0, 1, 2, 33, 4]);
    let mut sim = Simulation::new(&f, e).unwrap();
    let r = sim.run(30);
    assert_eq!(
        r.status,
        Status::Done,
        "{}",
        handscope_sim::report::render_human(&r)
    );
    assert_eq!(r.outputs["r0"][0].value, Some(Value::Signed(33)));
    assert_eq!(r.memories["mem"][5], Value::Signed(-2));
    assert_eq!(r.outputs["r1"].len(), 1);
}

#[test]
fn sync_and_join_wait_for_all_inputs() {
    let mut f = handscope_sim::Function::new("t");
    let a = arg(&mut f, "a", Type::Int(8));
    let b = arg(&mut f, "b", Type::Int(8));
    let buf = node(
        &mut f,
        Op::Buffer {
            slots: 2,
            kind: BufferKind::Seq,
            init: None,
        },
        vec![b],
        vec![Type::Int(8)],
    );
    let bb = out(&f, buf, 0);
    let sy = node(
        &mut f,
        Op::Sync,
        vec![a, bb],
        vec![Type::Int(8), Type::Int(8)],
    );
    let (s0, s1) = (out(&f, sy, 0), out(&f, sy, 1));
    ret(&mut f, vec![s0, s1]);
    let mut sim = Simulation::new(&f, env(&[("a", vec![1]), ("b", vec![2])])).unwrap();
    let w = fmt_wave(&wave(
        &mut sim,
        &["a", "buffer0.out0", "sync0.out0", "sync0.out1"],
        3,
    ));
    assert_eq!(w, ["V1 . R R", "V1 . R R", "F1 F2 F1 F2"]);
}
