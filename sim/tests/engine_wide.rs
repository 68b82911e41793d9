//! Data wider than 64 bits through the engine: arithmetic at 128 bits checked against Rust's
//! own `u128`/`i128` (an independent reference), tuples of 96 and 160 bits through forks and
//! buffers, widths up to 4096 bits, and the rendering of wide results.

use crate::common;

use common::*;
use handscope_sim::engine::Simulation;
use handscope_sim::report::{Status, Value};
use handscope_sim::stimulus::{Environment, TokenSource};
use handscope_sim::wide;
use handscope_sim::{ArithOp, BufferKind, CmpPredicate, Op, Type};
use proptest::prelude::*;

fn word128(v: u128) -> u64 {
    wide::from_limbs(&[v as u64, (v >> 64) as u64], 128)
}

fn value128(word: u64) -> u128 {
    let l = wide::to_limbs(word, 128);
    u128::from(l[0]) | (u128::from(l[1]) << 64)
}

/// Runs `a op b` on one 128-bit node; returns the output word.
fn run_bin(op: ArithOp, a: u128, b: u128, out_ty: Type) -> u64 {
    let mut f = handscope_sim::Function::new("t");
    let x = arg(&mut f, "a", Type::Int(128));
    let y = arg(&mut f, "b", Type::Int(128));
    let n = node(&mut f, Op::Arith(op), vec![x, y], vec![out_ty]);
    let o = out(&f, n, 0);
    ret(&mut f, vec![o]);
    let mut e = Environment::default();
    e.push_tokens("a", TokenSource::Values(vec![word128(a)]));
    e.push_tokens("b", TokenSource::Values(vec![word128(b)]));
    let mut sim = Simulation::new(&f, e).unwrap();
    let r = sim.run(10);
    assert_eq!(r.status, Status::Done);
    r.outputs["r0"][0].bits
}

/// What CIRCT's `comb` lowering computes at 128 bits, from Rust's native 128-bit arithmetic.
fn reference(op: ArithOp, a: u128, b: u128) -> u128 {
    let (sa, sb) = (a as i128, b as i128);
    match op {
        ArithOp::Addi => a.wrapping_add(b),
        ArithOp::Subi => a.wrapping_sub(b),
        ArithOp::Muli => a.wrapping_mul(b),
        ArithOp::Divui => a.checked_div(b).unwrap_or(0),
        ArithOp::Remui => a.checked_rem(b).unwrap_or(0),
        ArithOp::Divsi => sa.checked_div(sb).unwrap_or(if sb == 0 { 0 } else { sa }) as u128,
        ArithOp::Remsi => sa.checked_rem(sb).unwrap_or(0) as u128,
        ArithOp::Andi => a & b,
        ArithOp::Ori => a | b,
        ArithOp::Xori => a ^ b,
        ArithOp::Shli => a.checked_shl(b.try_into().unwrap_or(u32::MAX)).unwrap_or(0),
        ArithOp::Shrui => a.checked_shr(b.try_into().unwrap_or(u32::MAX)).unwrap_or(0),
        ArithOp::Shrsi => {
            let k = u32::try_from(b).unwrap_or(u32::MAX).min(127);
            (sa >> k) as u128
        }
        ArithOp::Maxsi => sa.max(sb) as u128,
        ArithOp::Minsi => sa.min(sb) as u128,
        ArithOp::Maxui => a.max(b),
        ArithOp::Minui => a.min(b),
        _ => unreachable!("not a binary integer op"),
    }
}

const BIN_OPS: [ArithOp; 17] = [
    ArithOp::Addi,
    ArithOp::Subi,
    ArithOp::Muli,
    ArithOp::Divui,
    ArithOp::Remui,
    ArithOp::Divsi,
    ArithOp::Remsi,
    ArithOp::Andi,
    ArithOp::Ori,
    ArithOp::Xori,
    ArithOp::Shli,
    ArithOp::Shrui,
    ArithOp::Shrsi,
    ArithOp::Maxsi,
    ArithOp::Minsi,
    ArithOp::Maxui,
    ArithOp::Minui,
];

/// Operands that hit the edges: 0, 1, -1, INT_MIN, INT_MAX, 2^63, 2^64, shift amounts.
fn edge_values() -> Vec<u128> {
    vec![
        0,
        1,
        5,
        127,
        128,
        u128::MAX,
        1 << 127,
        (1 << 127) - 1,
        1 << 63,
        1 << 64,
        u128::from(u64::MAX),
        0x0123_4567_89ab_cdef_fedc_ba98_7654_3210,
    ]
}

#[test]
fn every_binary_op_at_128_bits_matches_native_arithmetic_on_edge_values() {
    let vals = edge_values();
    for op in BIN_OPS {
        for &a in &vals {
            for &b in &vals {
                let got = value128(run_bin(op, a, b, Type::Int(128)));
                assert_eq!(got, reference(op, a, b), "{op:?} {a:#x} {b:#x}");
            }
        }
    }
}

#[test]
fn compares_at_128_bits() {
    let vals = edge_values();
    for pred in CmpPredicate::ALL {
        for &a in &vals {
            for &b in &vals {
                let (sa, sb) = (a as i128, b as i128);
                let want = match pred {
                    CmpPredicate::Eq => a == b,
                    CmpPredicate::Ne => a != b,
                    CmpPredicate::Slt => sa < sb,
                    CmpPredicate::Sle => sa <= sb,
                    CmpPredicate::Sgt => sa > sb,
                    CmpPredicate::Sge => sa >= sb,
                    CmpPredicate::Ult => a < b,
                    CmpPredicate::Ule => a <= b,
                    CmpPredicate::Ugt => a > b,
                    CmpPredicate::Uge => a >= b,
                };
                let got = run_bin(ArithOp::Cmpi(pred), a, b, Type::Int(1));
                assert_eq!(got, u64::from(want), "{pred:?} {a:#x} {b:#x}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn random_operands_at_128_bits(a: u128, b: u128, k in 0usize..17) {
        let op = BIN_OPS[k];
        prop_assert_eq!(value128(run_bin(op, a, b, Type::Int(128))), reference(op, a, b));
    }
}

#[test]
fn casts_between_narrow_and_wide() {
    // i8 -> i4096 (sign and zero), i4096 -> i64 and i65 truncations.
    let mut f = handscope_sim::Function::new("t");
    let a = arg(&mut f, "a", Type::Int(8));
    let fk = node(&mut f, Op::Fork, vec![a], vec![Type::Int(8), Type::Int(8)]);
    let ins = vec![out(&f, fk, 0)];
    let s = node(
        &mut f,
        Op::Arith(ArithOp::Extsi),
        ins,
        vec![Type::Int(4096)],
    );
    let ins = vec![out(&f, fk, 1)];
    let z = node(
        &mut f,
        Op::Arith(ArithOp::Extui),
        ins,
        vec![Type::Int(4096)],
    );
    let ins = vec![out(&f, s, 0)];
    let sf = node(
        &mut f,
        Op::Fork,
        ins,
        vec![Type::Int(4096), Type::Int(4096)],
    );
    let ins = vec![out(&f, sf, 0)];
    let t64 = node(&mut f, Op::Arith(ArithOp::Trunci), ins, vec![Type::Int(64)]);
    let ins = vec![out(&f, sf, 1)];
    let t65 = node(&mut f, Op::Arith(ArithOp::Trunci), ins, vec![Type::Int(65)]);
    let outs = vec![out(&f, z, 0), out(&f, t64, 0), out(&f, t65, 0)];
    ret(&mut f, outs);
    let mut e = Environment::default();
    e.push_tokens("a", TokenSource::Values(vec![0x80, 0x7f]));
    let mut sim = Simulation::new(&f, e).unwrap();
    let r = sim.run(20);
    assert_eq!(r.status, Status::Done);
    let vals = |k: &str| -> Vec<Value> {
        r.outputs[k]
            .iter()
            .map(|t| t.value.clone().unwrap())
            .collect()
    };
    // i4096 values are signed decimal strings; an i64 stays a JSON number.
    assert_eq!(
        vals("r0"),
        [Value::Wide("128".into()), Value::Wide("127".into())]
    );
    assert_eq!(vals("r1"), [Value::Signed(-128), Value::Signed(127)]);
    assert_eq!(
        vals("r2"),
        [Value::Wide("-128".into()), Value::Wide("127".into())]
    );
    assert_eq!(
        wide::to_limbs(r.outputs["r2"][0].bits, 65),
        [u64::MAX - 127, 1],
        "-128 at 65 bits"
    );
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(json["outputs"]["r0"][0]["value"], "128");
    assert_eq!(json["outputs"]["r1"][0]["value"], -128);
}

#[test]
fn tuples_of_96_and_160_bits_through_a_buffer() {
    // tuple<i32, i64, i64> (160 bits) unpacked, its fields repacked as tuple<i32, i64>
    // (96 bits) and tuple<i64, i32, i64>, each after a 2-slot buffer.
    let t160 = Type::Tuple(vec![Type::Int(32), Type::Int(64), Type::Int(64)]);
    let t96 = Type::Tuple(vec![Type::Int(32), Type::Int(64)]);
    let mut f = handscope_sim::Function::new("t");
    let a = arg(&mut f, "a", t160.clone());
    let buf = |f: &mut handscope_sim::Function, c, ty: Type| {
        let n = node(
            f,
            Op::Buffer {
                slots: 2,
                kind: BufferKind::Seq,
                init: None,
            },
            vec![c],
            vec![ty],
        );
        out(f, n, 0)
    };
    let a = buf(&mut f, a, t160.clone());
    let up = node(
        &mut f,
        Op::Unpack,
        vec![a],
        vec![Type::Int(32), Type::Int(64), Type::Int(64)],
    );
    let ins = vec![out(&f, up, 2)];
    let f2 = node(&mut f, Op::Fork, ins, vec![Type::Int(64), Type::Int(64)]);
    let ins = vec![out(&f, up, 0), out(&f, f2, 0)];
    let p96 = node(&mut f, Op::Pack, ins, vec![t96.clone()]);
    let p96 = out(&f, p96, 0);
    let p96 = buf(&mut f, p96, t96);
    let outs = vec![p96, out(&f, up, 1), out(&f, f2, 1)];
    ret(&mut f, outs);
    // field 0 = 0xdeadbeef, field 1 = 2^63 + 1, field 2 = u64::MAX.
    let v = wide::concat([(0xdead_beef, 32), ((1 << 63) | 1, 64), (u64::MAX, 64)]);
    let mut e = Environment::default();
    e.push_tokens("a", TokenSource::Values(vec![v, 0]));
    let mut sim = Simulation::new(&f, e).unwrap();
    let r = sim.run(30);
    assert_eq!(r.status, Status::Done);
    let p = &r.outputs["r0"];
    assert_eq!(wide::to_limbs(p[0].bits, 96), [u64::MAX, 0xdead_beef]);
    assert_eq!(
        p[0].value,
        Some(Value::Wide(
            ((0xdead_beefu128 << 64) | u128::from(u64::MAX)).to_string()
        ))
    );
    assert_eq!(p[1].bits, 0);
    assert_eq!(r.outputs["r1"][0].bits, (1 << 63) | 1);
    assert_eq!(r.outputs["r2"][0].bits, u64::MAX);
}

#[test]
fn wide_tokens_parse_from_text_and_ranges() {
    let ty = Type::Int(200);
    let TokenSource::Values(v) = TokenSource::parse("-1, 0x1_0000_0000_0000_0000, 7", &ty).unwrap()
    else {
        panic!("a list")
    };
    assert_eq!(wide::to_hex(v[0], 200), "f".repeat(50));
    assert_eq!(wide::to_decimal(v[1], 200, false), "18446744073709551616");
    assert_eq!(v[2], 7);
    let r = TokenSource::parse("-2..1", &ty).unwrap();
    assert_eq!(r.len(), 3);
    assert_eq!(wide::to_decimal(r.word(0, 200), 200, true), "-2");
    assert_eq!(r.word(2, 200), 0);
    let e = TokenSource::parse(&format!("0x1{}", "0".repeat(50)), &ty).unwrap_err();
    assert!(e.to_string().contains("does not fit i200"), "{e}");
}
