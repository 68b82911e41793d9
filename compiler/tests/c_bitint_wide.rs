//! `_BitInt(N)` wider than 64 bits (up to 4096) in the C front end: kernels are compiled,
//! interpreted (the IR interpreter), lowered to handshake, written to MLIR and parsed back,
//! and both graphs are simulated; results are checked against values computed here (Rust
//! `u128`/`i128` arithmetic, or constants precomputed with Python's integers).

use handscope_compiler::c::ir::IrParam;
use handscope_compiler::c::{ArgValue, HsOptions, compile_to_handshake, compile_to_ir, run};
use handscope_compiler::mlir::{parse_mlir, write_mlir};
use handscope_sim::Function;
use handscope_sim::report::Status;
use handscope_sim::session::Session;
use handscope_sim::stimulus::TokenSource;
use handscope_sim::wide;

/// The word of the signed value `v` on a `bits`-bit channel.
fn word(v: i128, bits: u32) -> u64 {
    // Through decimal text: independent of the compiler's own conversion.
    wide::parse(&v.to_string(), bits).expect("fits")
}

/// The low 128 bits of the value of a word of a `bits`-bit channel.
fn low_u128(w: u64, bits: u32) -> u128 {
    let l = wide::to_limbs(w, bits);
    u128::from(l[0]) | (u128::from(l.get(1).copied().unwrap_or(0)) << 64)
}

/// The value of a word of a `bits`-bit channel (at most 128 bits), sign-extended.
fn as_i128(w: u64, bits: u32) -> i128 {
    let v = low_u128(w, bits);
    if bits >= 128 {
        v as i128
    } else {
        let sh = 128 - bits;
        ((v << sh) as i128) >> sh
    }
}

/// What a run produced: the returned word and the final words of every array parameter.
#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    ret: Option<u64>,
    arrays: Vec<Vec<u64>>,
}

/// Simulates `f` on one invocation with `args` (scalars as `ArgValue::Word`, arrays as
/// `ArgValue::Words`).
fn simulate(ir: &handscope_compiler::c::IrFunction, f: &Function, args: &[ArgValue]) -> Outcome {
    let mut s = Session::new(f.clone()).unwrap_or_else(|e| panic!("{e}"));
    for (p, a) in ir.params.iter().zip(args) {
        match (p, a) {
            (IrParam::Scalar { name, .. }, ArgValue::Word(w)) => {
                s.bind_tokens(name, TokenSource::Values(vec![*w]))
                    .unwrap_or_else(|e| panic!("{e}"));
            }
            (IrParam::Array { name, .. }, ArgValue::Words(ws)) => {
                s.bind_memory(name, ws.clone())
                    .unwrap_or_else(|e| panic!("{e}"));
            }
            _ => panic!("give words"),
        }
    }
    s.bind_tokens("start", TokenSource::None(1))
        .unwrap_or_else(|e| panic!("{e}"));
    let r = s.run(2_000_000, false).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.report.status, Status::Done, "{:?}", r.report.deadlock);
    let ret = ir.ret.map(|_| r.report.outputs["ret"][0].bits);
    let arrays = ir
        .params
        .iter()
        .filter_map(|p| match p {
            IrParam::Array { name, .. } => Some(r.memories[name].clone()),
            IrParam::Scalar { .. } => None,
        })
        .collect();
    Outcome { ret, arrays }
}

/// Compiles `src` (top `top`), interprets it on `args`, simulates its handshake graph and the
/// graph parsed back from its MLIR, checks the three agree, and returns the outcome.
fn check(src: &str, top: &str, args: &[ArgValue]) -> Outcome {
    let ir = compile_to_ir(src, "t.c", Some(top)).unwrap_or_else(|e| panic!("{e:?}"));
    let interp = run(&ir, args, 10_000_000).unwrap_or_else(|e| panic!("{e}"));
    let array_mems: Vec<usize> = ir
        .params
        .iter()
        .filter_map(|p| match p {
            IrParam::Array { mem, .. } => Some(mem.0 as usize),
            IrParam::Scalar { .. } => None,
        })
        .collect();
    let interp = Outcome {
        ret: interp.ret_word,
        arrays: array_mems
            .iter()
            .map(|m| interp.memory_words[*m].clone())
            .collect(),
    };
    let module = compile_to_handshake(src, "t.c", Some(top), &HsOptions::default())
        .unwrap_or_else(|e| panic!("{e:?}"));
    let f = &module.functions[0];
    let sim = simulate(&ir, f, args);
    assert_eq!(sim, interp, "engine vs interpreter");
    let text = write_mlir(&module);
    let (reparsed, _) = parse_mlir(&text, "t.mlir")
        .unwrap_or_else(|e| panic!("MLIR does not re-parse:\n{}\n{text}", e.render()));
    let again = simulate(&ir, &reparsed.functions[0], args);
    assert_eq!(again, interp, "re-parsed MLIR vs interpreter");
    interp
}

#[test]
fn factorial_of_30_in_unsigned_bitint_128() {
    let src = "unsigned _BitInt(128) fact(int n) {\n  unsigned _BitInt(128) r = 1;\n  for (int i = 2; i <= n; i++)\n    r *= i;\n  return r;\n}\n";
    for n in [0u32, 1, 5, 20, 21, 30, 34] {
        let want: u128 = (2..=u128::from(n)).fold(1u128, |a, i| a.wrapping_mul(i));
        let out = check(src, "fact", &[ArgValue::Word(u64::from(n))]);
        let got = out.ret.expect("ret");
        assert_eq!(low_u128(got, 128), want, "{n}!");
        assert_eq!(got, word(want as i128, 128), "{n}! canonical word");
    }
    let out = check(src, "fact", &[ArgValue::Word(30)]);
    assert_eq!(
        wide::to_decimal(out.ret.expect("ret"), 128, false),
        "265252859812191058636308480000000"
    );
}

#[test]
fn signed_bitint_128_arithmetic_shifts_casts_and_comparisons() {
    let src = r#"
_BitInt(128) mix(long long a, long long b, _BitInt(128) c) {
  _BitInt(128) x = a;
  _BitInt(128) y = (_BitInt(128))b << 70;
  _BitInt(128) z = x * y - 5;
  z = z >> 3;
  if (z < 0)
    z = -z;
  z += c / 3 - c % 7;
  z ^= ~(_BitInt(128))0x5555;
  --z;
  z <<= 1;
  unsigned _BitInt(128) u = z;
  u >>= 1;
  long long t = (long long)u;
  int small = (int)(z >> 100);
  return (z > c ? z : c) + t + small + (u > 5) + (u == (unsigned _BitInt(128))z);
}
"#;
    let model = |a: i64, b: i64, c: i128| -> i128 {
        let x = i128::from(a);
        let y = i128::from(b).wrapping_shl(70);
        let mut z = x.wrapping_mul(y).wrapping_sub(5);
        z >>= 3;
        if z < 0 {
            z = z.wrapping_neg();
        }
        z = z.wrapping_add(c / 3 - c % 7);
        z ^= !0x5555i128;
        z = z.wrapping_sub(1);
        z = z.wrapping_shl(1);
        let u = (z as u128) >> 1;
        let t = i128::from(u as u64 as i64);
        let small = i128::from((z >> 100) as i32);
        let m = if z > c { z } else { c };
        m.wrapping_add(t)
            .wrapping_add(small)
            .wrapping_add(i128::from(u > 5))
            .wrapping_add(i128::from(u == z as u128))
    };
    for (a, b, c) in [
        (3i64, -7i64, 1i128 << 100),
        (-123_456_789, 987_654_321, -(1i128 << 90) + 17),
        (i64::MIN, i64::MAX, i128::MIN),
        (0, 0, 0),
        (-1, -1, -1),
    ] {
        let args = [
            ArgValue::Word(a as u64),
            ArgValue::Word(b as u64),
            ArgValue::Word(word(c, 128)),
        ];
        let out = check(src, "mix", &args);
        let got = out.ret.expect("ret");
        assert_eq!(as_i128(got, 128), model(a, b, c), "mix({a}, {b}, {c})");
        assert_eq!(got, word(model(a, b, c), 128));
    }
}

#[test]
fn unsigned_bitint_200_power_division_and_remainder() {
    let src = r#"
unsigned _BitInt(200) pw(unsigned _BitInt(200) base, int k) {
  unsigned _BitInt(200) r = 1;
  while (k-- > 0)
    r = r * base;
  return r / 7 + r % 1000;
}
"#;
    // base = 2^150 + 12345
    let base = wide::from_limbs(&[12345, 0, 1 << 22, 0], 200);
    let out = check(src, "pw", &[ArgValue::Word(base), ArgValue::Word(5)]);
    // Python: r = (2**150 + 12345)**5 % 2**200; (r // 7 + r % 1000) % 2**200
    assert_eq!(
        wide::to_decimal(out.ret.expect("ret"), 200, false),
        "32546079639024336889305032914277603984937850684671935232882"
    );
    // With small operands the result is checked against u128 arithmetic.
    let out = check(src, "pw", &[ArgValue::Word(3), ArgValue::Word(40)]);
    let r = 3u128.pow(40);
    assert_eq!(low_u128(out.ret.expect("ret"), 200), r / 7 + r % 1000);
}

/// Python: `acc = 0; for i in range(8): acc = (acc * (a[i] << 500) + b[i]) % 2**4096`.
const MAC_4096: &str = concat!(
    "15123093522521941196339267288941467392922363583573556926174747809957643088012720",
    "26828821246960216568052639762724433989500030537714497801523861291143423404028345",
    "15996110966498113899288456704693302916931064037477700516531117417941363241451697",
    "53164465655614976241507343951120722647744551001745153933232127899502960058150034",
    "92023843335491148304588914298758456390201847332976923267481982587222101690235099",
    "53076681694517679919170337386237082086081580940057734119235728581517651722756920",
    "14880771333889831769238826637290871609421754667663382584558469002158804992002831",
    "61573978894721932793553404029850827249463500166011860912257867767176849564716467",
    "13306019664289686220246599632468087653175996769986503584776614867814268453559868",
    "97989441170253862223829630566128419249946259095091981736973358846468029008150795",
    "27351414685393491875475276803890837721270165294844989507268915076145450325236227",
    "80089352759206745517793534179925500920033075104445499225000978415038478481405956",
    "22894448127183686633093850636052696338641415603752950766562170251927299598232756",
    "495400861762509581844588",
);

#[test]
fn bitint_4096_multiply_accumulate_loop() {
    let src = r#"
unsigned _BitInt(4096) mac(unsigned long long a[8], unsigned long long b[8]) {
  unsigned _BitInt(4096) acc = 0;
  for (int i = 0; i < 8; i++)
    acc = acc * ((unsigned _BitInt(4096))a[i] << 500) + b[i];
  return acc;
}

long long neg(int k) {
  _BitInt(4096) s = -1;
  s <<= 4000;
  s >>= 3990 + k;
  _BitInt(4096) m = s * s * s;
  return (long long)(m >> 3) + (s < 0) + (m < s);
}
"#;
    let a = vec![3u64, 5, 7, 11, 13, 17, 19, 23];
    let b = vec![101u64, 102, 103, 104, 105, 106, 107, 108];
    let out = check(src, "mac", &[ArgValue::Words(a), ArgValue::Words(b)]);
    let got = wide::to_decimal(out.ret.expect("ret"), 4096, false);
    assert_eq!(got, MAC_4096);
    for k in [0i32, 1, 5] {
        let out = check(src, "neg", &[ArgValue::Word(k as u64)]);
        let s: i128 = -(1i128 << (10 - k));
        let m = s * s * s;
        let want = (m >> 3) + 1 + i128::from(m < s);
        assert_eq!(out.ret.map(|w| w as i64), Some(want as i64), "k = {k}");
    }
}

#[test]
fn array_of_bitint_96_summed_and_written() {
    let src = r#"
const unsigned _BitInt(96) G[2] = {5, 4611686018427387904};
_BitInt(96) sum(_BitInt(96) a[6], unsigned _BitInt(96) out[6]) {
  const _BitInt(96) bias[3] = {1, -2, 3};
  _BitInt(96) neg[2] = {-5, 7};
  _BitInt(96) s = 0;
  for (int i = 0; i < 6; i++) {
    s += a[i] + bias[i % 3] + neg[i & 1] + (_BitInt(96))G[i & 1];
    out[i] = (unsigned _BitInt(96))a[i] * 3u;
  }
  return s;
}
"#;
    let bits = 96;
    let wrap96 = |v: i128| (v << 32) >> 32;
    let vals: Vec<i128> = vec![
        1,
        -1,
        (1i128 << 94) + 12345,
        -(1i128 << 95),
        i128::from(i64::MAX) * 7,
        -987_654_321_987_654_321,
    ];
    let words: Vec<u64> = vals.iter().map(|v| word(*v, bits)).collect();
    let out = check(
        src,
        "sum",
        &[ArgValue::Words(words), ArgValue::Words(vec![0; 6])],
    );
    let bias = [1i128, -2, 3];
    let neg = [-5i128, 7];
    let want = (0..6).fold(0i128, |s, i| {
        wrap96(s + vals[i] + bias[i % 3] + neg[i & 1] + [5i128, 1 << 62][i & 1])
    });
    assert_eq!(as_i128(out.ret.expect("ret"), bits), want);
    let outs: Vec<u128> = out.arrays[1].iter().map(|w| low_u128(*w, bits)).collect();
    let want_out: Vec<u128> = vals
        .iter()
        .map(|v| ((*v as u128).wrapping_mul(3)) & ((1u128 << 96) - 1))
        .collect();
    assert_eq!(outs, want_out);
}

#[test]
fn wide_constants_fold_in_the_front_end() {
    let src = r#"
const _BitInt(100) K = -3;
unsigned _BitInt(130) top(_BitInt(100) x) {
  unsigned _BitInt(130) all = ((unsigned _BitInt(130))1 << 129) - 1 + ((unsigned _BitInt(130))1 << 129);
  _BitInt(100) k = K * (_BitInt(100))-(1LL << 62) / 2;
  switch (x) {
  case -1: return all;
  case 5: return (unsigned _BitInt(130))k;
  default: return x + K;
  }
}
"#;
    let ir = compile_to_ir(src, "t.c", Some("top")).unwrap_or_else(|e| panic!("{e:?}"));
    let text = ir.to_string();
    // 2^130 - 1 is folded to one constant, printed as the signed value -1.
    assert!(text.contains("const -1 : i130"), "{text}");
    let all = check(src, "top", &[ArgValue::Word(word(-1, 100))]);
    assert_eq!(all.ret, Some(word(-1, 130)));
    let k = check(src, "top", &[ArgValue::Word(5)]);
    // k = -3 * -(2^62) / 2 = 3 * 2^61, sign-extended to 130 bits.
    assert_eq!(k.ret, Some(word(3 << 61, 130)));
    let d = check(src, "top", &[ArgValue::Word(word(-(1 << 80), 100))]);
    assert_eq!(d.ret, Some(word(-(1 << 80) - 3, 130)));
}

#[test]
fn interpreter_reads_i64_arguments_and_results_of_wide_types() {
    let src = "_BitInt(300) f(_BitInt(300) a) { return a * 2; }";
    let ir = compile_to_ir(src, "t.c", None).unwrap_or_else(|e| panic!("{e:?}"));
    let r = run(&ir, &[ArgValue::Scalar(-21)], 1000).expect("runs");
    assert_eq!(r.ret, Some(-42));
    assert_eq!(r.ret_word, Some(word(-42, 300)));
}

#[test]
fn too_wide_bitint_and_float_conversions_are_located_errors() {
    let e = compile_to_ir(
        "int x;\nstatic _BitInt(5000) f(void) { return 0; }",
        "t.c",
        None,
    )
    .expect_err("too wide");
    assert!(
        e.message
            .contains("_BitInt(5000) is wider than the 4096 bits"),
        "{}",
        e.message
    );
    assert_eq!((e.line, e.col), (2, 8));
    assert!(compile_to_ir("_BitInt(4097) f(void) { return 0; }", "t.c", None).is_err());
    assert!(compile_to_ir("unsigned _BitInt(4096) f(void) { return 0; }", "t.c", None).is_ok());
    let src = "double f(_BitInt(128) a) {\n  return a;\n}\n";
    let e = compile_to_ir(src, "t.c", None).expect_err("float conversion");
    assert!(
        e.message
            .contains("'_BitInt(128)' to 'double' is not supported"),
        "{}",
        e.message
    );
    assert_eq!(e.line, 2);
    let src = "_BitInt(65) f(double d) {\n  return d * 2.0;\n}\n";
    assert!(compile_to_ir(src, "t.c", None).is_err());
    // Through a narrower integer it works.
    let src = "double f(_BitInt(128) a) {\n  return (long long)a;\n}\n";
    assert!(compile_to_ir(src, "t.c", None).is_ok());
    // A duplicate wide case names its value, not the word that holds it.
    let src = "int f(_BitInt(128) x) {\n  switch (x) {\n  case -5: return 1;\n  case (_BitInt(128))-5: return 2;\n  }\n  return 0;\n}\n";
    let e = compile_to_ir(src, "t.c", None).expect_err("duplicate case");
    assert!(
        e.message.contains("duplicate case value -5"),
        "{}",
        e.message
    );
    assert_eq!(e.line, 4);
}
