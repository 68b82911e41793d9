//! Stream programs (CIRCT's Stream dialect): the lowering simulated against the reference
//! interpreter, on the examples under `examples/streams/`, on hand-written programs of every
//! operator, and on random programs with random inputs and back-pressure; the reader's
//! located errors; the reader never panics on mutated input.

use handscope_compiler::stream::interp::{self, Token, Val};
use handscope_compiler::stream::{StreamModule, compile_stream, lower, parse_stream};
use handscope_sim::Type;
use handscope_sim::report::Status;
use handscope_sim::session::Session;
use handscope_sim::session::StimulusArgs;
use handscope_sim::session::header::Header;
use handscope_sim::stream::Element;
use proptest::prelude::*;

/// Streams of elements, one list per stream, each ended.
type Streams = Vec<Vec<i64>>;

/// Per result, its streams: elements and whether it ended.
type Results = Vec<Vec<(Vec<Element>, bool)>>;

/// The `--in` text of `streams`.
fn in_text(streams: &Streams) -> String {
    streams
        .iter()
        .map(|s| {
            s.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect::<Vec<_>>()
        .join(";")
}

/// The interpreter's tokens for `streams` of elements of `ty`.
fn tokens(streams: &Streams, ty: &Type) -> Vec<Token> {
    let mut out = Vec::new();
    for s in streams {
        for &e in s {
            out.push(Token::Elem(Val::Int((e as u64) & ty.mask())));
        }
        out.push(Token::End);
    }
    out
}

/// Runs the lowered circuit of `m` (one function) with `--in` texts `ins` and `--ready`
/// policies `ready`; returns per result its streams as (elements, ended).
fn simulate(m: &StreamModule, ins: &[String], ready: &[String]) -> (Status, Results) {
    let module = lower(m).expect("lowers");
    let mut s = Session::open(&module, None).expect("opens");
    s.bind(&StimulusArgs {
        inputs: ins.to_vec(),
        mems: Vec::new(),
        ready: ready.to_vec(),
    })
    .expect("binds");
    let run = s.run(200_000, false).expect("runs");
    let f = &m.funcs[0];
    let got = f
        .result_names
        .iter()
        .map(|n| {
            run.report.streams[n]
                .iter()
                .map(|r| (r.elements.clone(), r.ended_at.is_some()))
                .collect()
        })
        .collect();
    (run.report.status, got)
}

/// What the interpreter gives `m` for `inputs` (token lists per argument), per result.
fn reference(m: &StreamModule, inputs: &[Vec<Token>]) -> Results {
    let f = &m.funcs[0];
    interp::run(f, inputs)
        .iter()
        .zip(&f.results)
        .map(|(toks, ty)| interp::streams(toks, ty))
        .collect()
}

/// Checks a program on streams per argument, with every result always ready and with
/// random back-pressure.
fn check_program(text: &str, args: &[Streams]) {
    let (m, _) = parse_stream(text, "t.mlir").unwrap_or_else(|e| panic!("{}\n{text}", e.render()));
    let f = &m.funcs[0];
    let ins: Vec<String> = f
        .args
        .iter()
        .zip(args)
        .map(|((n, _), s)| format!("{n}={}", in_text(s)))
        .collect();
    let toks: Vec<Vec<Token>> = f
        .args
        .iter()
        .zip(args)
        .map(|((_, t), s)| tokens(s, t))
        .collect();
    let want = reference(&m, &toks);
    for (k, ready) in [
        Vec::new(),
        f.result_names
            .iter()
            .map(|n| format!("{n}=random:7:0.4"))
            .collect::<Vec<_>>(),
    ]
    .into_iter()
    .enumerate()
    {
        let (status, got) = simulate(&m, &ins, &ready);
        assert_eq!(got, want, "run {k} of\n{text}\ninputs {ins:?}");
        assert_eq!(status, Status::Done, "run {k} of\n{text}\ninputs {ins:?}");
    }
}

fn workspace() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn examples_equal_the_interpreter() {
    let dir = workspace().join("examples/streams");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "mlir") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let (m, warnings) = parse_stream(&text, &path.display().to_string()).unwrap();
        assert!(warnings.is_empty(), "{}: {warnings:?}", path.display());
        let header = Header::parse(&text);
        let args = header.sim_args();
        assert!(
            !args.inputs.is_empty(),
            "{} has a `// sim:` line",
            path.display()
        );
        let f = &m.funcs[0];
        let toks: Vec<Vec<Token>> = f
            .args
            .iter()
            .map(|(name, ty)| {
                let text = args
                    .inputs
                    .iter()
                    .find_map(|i| i.strip_prefix(&format!("{name}=")))
                    .expect("every argument fed");
                let streams: Vec<Vec<Val>> = text
                    .split(';')
                    .map(|s| {
                        s.split(',')
                            .filter(|x| !x.trim().is_empty())
                            .map(|x| {
                                Val::Int((x.trim().parse::<i64>().unwrap() as u64) & ty.mask())
                            })
                            .collect()
                    })
                    .collect();
                let mut t = Vec::new();
                for s in streams {
                    t.extend(s.into_iter().map(Token::Elem));
                    t.push(Token::End);
                }
                t
            })
            .collect();
        let want = reference(&m, &toks);
        let (status, got) = simulate(&m, &args.inputs, &[]);
        assert_eq!(status, Status::Done, "{}", path.display());
        assert_eq!(got, want, "{}", path.display());
        // Every stream ends, and none is empty of elements in these examples.
        assert!(
            got.iter()
                .flatten()
                .all(|(e, ended)| *ended && !e.is_empty())
        );
        n += 1;
    }
    assert_eq!(n, 4, "the four examples of examples/streams");
}

/// The programs of the published Stream-to-handshake tests, written again: every operator,
/// registers on each, tuples.
const OPERATORS: &[(&str, &str)] = &[
    (
        "map",
        "func.func @top(%in: !stream.stream<i64>) -> !stream.stream<i64> {
  %out = stream.map(%in) : (!stream.stream<i64>) -> !stream.stream<i64> {
  ^0(%val : i64):
    %0 = arith.constant 10 : i64
    %r = arith.addi %0, %val : i64
    stream.yield %r : i64
  }
  return %out : !stream.stream<i64>
}",
    ),
    (
        "filter with a register (every other element)",
        "func.func @top(%in: !stream.stream<i64>) -> !stream.stream<i64> {
  %out = stream.filter(%in) {registers = [0 : i1]}: (!stream.stream<i64>) -> !stream.stream<i64> {
  ^bb0(%val: i64, %reg: i1):
    %c1 = arith.constant 1 : i1
    %nReg = arith.xori %c1, %reg : i1
    stream.yield %reg, %nReg : i1, i1
  }
  return %out : !stream.stream<i64>
}",
    ),
    (
        "reduce with a register",
        "func.func @top(%in: !stream.stream<i64>) -> !stream.stream<i64> {
  %out = stream.reduce(%in) {initValue = 0 : i64, registers = [10 : i64]}: (!stream.stream<i64>) -> !stream.stream<i64> {
  ^0(%acc: i64, %val: i64, %reg: i64):
    %r = arith.addi %acc, %val : i64
    %res = arith.addi %r, %reg : i64
    stream.yield %res, %reg : i64, i64
  }
  return %out : !stream.stream<i64>
}",
    ),
    (
        "split with a register",
        "func.func @top(%in: !stream.stream<i64>) -> (!stream.stream<i64>, !stream.stream<i64>) {
  %res0, %res1 = stream.split(%in) {registers = [0 : i64]}: (!stream.stream<i64>) -> (!stream.stream<i64>, !stream.stream<i64>) {
    ^0(%val: i64, %reg: i64):
    %snd = arith.addi %val, %reg : i64
    stream.yield %val, %snd, %val : i64, i64, i64
  }
  return %res0, %res1 : !stream.stream<i64>, !stream.stream<i64>
}",
    ),
    (
        "split, two reductions, combine",
        "func.func @top(%in: !stream.stream<i64>) -> !stream.stream<i64> {
  %left, %right = stream.split(%in) : (!stream.stream<i64>) -> (!stream.stream<i64>, !stream.stream<i64>) {
  ^0(%val : i64):
    stream.yield %val, %val : i64, i64
  }
  %leftR = stream.reduce(%left) {initValue = 0 : i64}: (!stream.stream<i64>) -> !stream.stream<i64> {
  ^0(%acc: i64, %val: i64):
    %r = arith.addi %acc, %val : i64
    stream.yield %r : i64
  }
  %rightR = stream.reduce(%right) {initValue = 1 : i64}: (!stream.stream<i64>) -> !stream.stream<i64> {
  ^0(%acc: i64, %val: i64):
    %r = arith.muli %acc, %val : i64
    stream.yield %r : i64
  }
  %out = stream.combine(%leftR, %rightR) : (!stream.stream<i64>, !stream.stream<i64>) -> (!stream.stream<i64>) {
  ^0(%val0: i64, %val1: i64):
    %0 = arith.addi %val0, %val1 : i64
    stream.yield %0 : i64
  }
  return %out : !stream.stream<i64>
}",
    ),
    (
        "combine with a register",
        "func.func @top(%in0: !stream.stream<i64>, %in1: !stream.stream<i64>) -> (!stream.stream<i64>) {
  %res = stream.combine(%in0, %in1) {registers = [0 : i64]} : (!stream.stream<i64>, !stream.stream<i64>) -> (!stream.stream<i64>) {
  ^0(%val0: i64, %val1: i64, %reg: i64):
    %0 = arith.addi %val0, %val1 : i64
    %nReg = arith.addi %0, %reg : i64
    stream.yield %nReg, %nReg : i64, i64
  }
  return %res : !stream.stream<i64>
}",
    ),
    (
        "tuples: pack in a map, unpack in a filter",
        "!T = tuple<i8, i8>
func.func @top(%in: !stream.stream<i8>) -> !stream.stream<!T> {
  %m = stream.map(%in) : (!stream.stream<i8>) -> !stream.stream<!T> {
  ^0(%v : i8):
    %c3 = arith.constant 3 : i8
    %p = arith.muli %v, %c3 : i8
    %t = stream.pack %v, %p : !T
    stream.yield %t : !T
  }
  %out = stream.filter(%m) : (!stream.stream<!T>) -> !stream.stream<!T> {
  ^0(%t : !T):
    %a, %b = stream.unpack %t : !T
    %c = arith.cmpi slt, %a, %b : i8
    stream.yield %c : i1
  }
  return %out : !stream.stream<!T>
}",
    ),
];

#[test]
fn every_operator_equals_the_interpreter() {
    let inputs: Vec<Streams> = vec![
        vec![vec![1, 2, 3]],
        vec![vec![5, -7, 0, 9], vec![], vec![2]],
        vec![vec![1, 2, 3]; 5],
        vec![(0..40).map(|x| x * 37 % 101 - 50).collect(), vec![3, 3]],
    ];
    for (what, text) in OPERATORS {
        let (m, _) =
            parse_stream(text, "t.mlir").unwrap_or_else(|e| panic!("{what}: {}", e.render()));
        let n_args = m.funcs[0].args.len();
        for s in &inputs {
            let _ = what;
            check_program(text, &vec![s.clone(); n_args]);
        }
    }
}

#[test]
fn reports_speak_streams() {
    let (m, _) = parse_stream(OPERATORS[2].1, "t.mlir").unwrap();
    let module = lower(&m).unwrap();
    assert_eq!(
        module.functions[0]
            .stream_names()
            .into_iter()
            .collect::<Vec<_>>(),
        ["in", "out"]
    );
    let mut s = Session::open(&module, None).unwrap();
    s.bind(&StimulusArgs {
        inputs: vec!["in=1,2;;4".into()],
        ..Default::default()
    })
    .unwrap();
    let r = s.run(1000, false).unwrap().report;
    assert_eq!(r.status, Status::Done);
    let text = handscope_sim::report::render_human(&r);
    // The reduction gives the sum plus its register (10) per element, then its
    // initial value for the empty stream.
    assert!(text.contains("out stream 1: [23] ended at cycle"), "{text}");
    assert!(text.contains("out stream 2: [0] ended at cycle"), "{text}");
    assert!(text.contains("out stream 3: [14] ended at cycle"), "{text}");
    // A stream that never ends is said so: a stimulus of raw tokens without the end bit.
    let mut s = Session::open(&module, None).unwrap();
    s.bind_tokens(
        "in",
        handscope_sim::stimulus::TokenSource::Values(vec![2, 4]),
    )
    .unwrap();
    let r = s.run(200, false).unwrap().report;
    let text = handscope_sim::report::render_human(&r);
    assert!(text.contains("out: [] never ended"), "{text}");
}

/// Bodies of several blocks: a loop inside a map (the triangle number of each element, by
/// counting up), and branches that rejoin with a tuple and a register across them.
const CFG_PROGRAMS: &[&str] = &[
    "func.func @tri(%in: !stream.stream<i32>) -> !stream.stream<i32> {
  %out = stream.map(%in) : (!stream.stream<i32>) -> !stream.stream<i32> {
  ^bb0(%n: i32):
    %c0 = arith.constant 0 : i32
    %neg = arith.cmpi slt, %n, %c0 : i32
    cf.cond_br %neg, ^done(%c0 : i32), ^loop(%c0, %c0 : i32, i32)
  ^loop(%i: i32, %acc: i32):
    %end = arith.cmpi sgt, %i, %n : i32
    cf.cond_br %end, ^done(%acc : i32), ^step
  ^step:
    %c1 = arith.constant 1 : i32
    %next = arith.addi %i, %c1 : i32
    %sum = arith.addi %acc, %i : i32
    cf.br ^loop(%next, %sum : i32, i32)
  ^done(%r: i32):
    stream.yield %r : i32
  }
  return %out : !stream.stream<i32>
}",
    "!P = tuple<i8, i8>
func.func @branchy(%in: !stream.stream<i8>) -> !stream.stream<!P> {
  %out = stream.map(%in) {registers = [0 : i8]} : (!stream.stream<i8>) -> !stream.stream<!P> {
  ^bb0(%v: i8, %r: i8):
    %c3 = arith.constant 3 : i8
    %big = arith.cmpi sgt, %v, %c3 : i8
    cf.cond_br %big, ^hi, ^lo
  ^hi:
    %d = arith.subi %v, %c3 : i8
    %p = stream.pack %d, %r : !P
    cf.br ^join(%p, %v : !P, i8)
  ^lo:
    %m = arith.maxsi %v, %r : i8
    %q = stream.pack %m, %v : !P
    cf.br ^join(%q, %m : !P, i8)
  ^join(%t: !P, %n: i8):
    stream.yield %t, %n : !P, i8
  }
  return %out : !stream.stream<!P>
}",
];

#[test]
fn bodies_of_several_blocks_equal_the_interpreter() {
    for text in CFG_PROGRAMS {
        for s in [
            vec![vec![0, 1, 5, -3, 10], vec![], vec![7]],
            vec![vec![2, 9, 4, 4, 1]; 3],
        ] {
            check_program(text, &[s]);
        }
    }
    let (m, _) = parse_stream(CFG_PROGRAMS[0], "t.mlir").unwrap();
    let (_, got) = simulate(&m, &["in=3,0,-1,4".to_string()], &[]);
    let want: Vec<Element> = [6, 0, 0, 10].into_iter().map(Element::Int).collect();
    assert_eq!(got[0], vec![(want, true)]);
}

#[test]
fn create_makes_one_stream() {
    let text = "func.func @top() -> !stream.stream<i32> {
  %s = stream.create !stream.stream<i32> [1, 2, -3]
  %r = stream.map(%s) : (!stream.stream<i32>) -> !stream.stream<i32> {
  ^0(%v: i32):
    %c = arith.constant 2 : i32
    %m = arith.muli %v, %c : i32
    stream.yield %m : i32
  }
  return %r : !stream.stream<i32>
}";
    check_program(text, &[]);
    let (m, _) = parse_stream(text, "t.mlir").unwrap();
    let (_, got) = simulate(&m, &[], &[]);
    assert_eq!(
        got[0],
        vec![(
            vec![Element::Int(2), Element::Int(4), Element::Int(-6)],
            true
        )]
    );
}

#[test]
fn sink_consumes_a_stream() {
    let text =
        "func.func @top(%a: !stream.stream<i32>, %b: !stream.stream<i32>) -> !stream.stream<i32> {
  stream.sink %a : !stream.stream<i32>
  return %b : !stream.stream<i32>
}";
    check_program(text, &[vec![vec![1, 2]], vec![vec![7]]]);
}

/// Each malformed program, and the line, column and words of its error.
const ERRORS: &[(&str, (usize, usize), &str)] = &[
    (
        "func.func @f(%in: !stream.stream<i64>) -> !stream.stream<i64> {\n  %o = stream.map(%in) : (!stream.stream<i64>) -> !stream.stream<i64> {\n  ^0(%v: i32):\n    stream.yield %v : i32\n  }\n  return %o : !stream.stream<i64>\n}",
        (3, 10),
        "argument 0 of `stream.map`'s body is i64, not i32",
    ),
    (
        "func.func @f(%in: !stream.stream<i64>) -> !stream.stream<i64> {\n  %o = stream.reduce(%in) : (!stream.stream<i64>) -> !stream.stream<i64> {\n  ^0(%a: i64, %v: i64):\n    stream.yield %a : i64\n  }\n  return %o : !stream.stream<i64>\n}",
        (2, 8),
        "needs an `initValue`",
    ),
    (
        "func.func @f(%in: !stream.stream<i64>) -> !stream.stream<i64> {\n  %o = stream.map(%in) {registers = [0 : i64]} : (!stream.stream<i64>) -> !stream.stream<i64> {\n  ^0(%v: i64, %r: i64):\n    stream.yield %v : i64\n  }\n  return %o : !stream.stream<i64>\n}",
        (4, 5),
        "yields 1 values, then the 1 registers' next values; this yields 1",
    ),
    (
        "func.func @f(%in: !stream.stream<i64>) -> !stream.stream<i64> {\n  %o = stream.map(%in) : (!stream.stream<i64>) -> !stream.stream<i64> {\n  ^0(%v: i64):\n    %x = arith.addf %v, %v : i64\n    stream.yield %x : i64\n  }\n  return %o : !stream.stream<i64>\n}",
        (4, 10),
        "`arith.addf` is not an integer `arith` operation",
    ),
    (
        "func.func @f(%in: !stream.stream<i64>) -> (!stream.stream<i64>, !stream.stream<i64>) {\n  return %in, %in : !stream.stream<i64>, !stream.stream<i64>\n}",
        (2, 15),
        "a stream has one reader",
    ),
    (
        "func.func @f(%in: !stream.stream<f32>) -> !stream.stream<f32> {\n  return %in : !stream.stream<f32>\n}",
        (1, 34),
        "stream elements are integers",
    ),
    (
        "func.func @f(%in: !stream.stream<i64>) -> !stream.stream<i64> {\n  %o = stream.map(%in) : (!stream.stream<i64>) -> !stream.stream<i64> {\n  ^0(%v: i64):\n    stream.yield %w : i64\n  }\n  return %o : !stream.stream<i64>\n}",
        (4, 18),
        "`%w` is not defined here",
    ),
    (
        "func.func @f(%in: !stream.stream<i64>) -> !stream.stream<i64> {\n  %o = stream.map(%in) : (!stream.stream<i64>) -> !stream.stream<i64> {\n  ^0(%v: i64):\n    cf.br ^2(%v : i64)\n  ^1(%w: i64):\n    stream.yield %w : i64\n  }\n  return %o : !stream.stream<i64>\n}",
        (4, 11),
        "no block `^2` in this body",
    ),
    (
        "func.func @f(%in: !stream.stream<i64>) -> !stream.stream<i64> {\n  %o = stream.map(%in) : (!stream.stream<i64>) -> !stream.stream<i64> {\n  ^0(%v: i64):\n    cf.br ^1(%v : i64)\n  ^1(%w: i32):\n    %x = arith.extsi %w : i32 to i64\n    stream.yield %x : i64\n  }\n  return %o : !stream.stream<i64>\n}",
        (4, 14),
        "`%v` is i64, `^1`'s argument is i32",
    ),
    (
        "func.func @f(%in: !stream.stream<i64>) -> !stream.stream<i64> {\n  %o = stream.frobnicate(%in)\n  return %o : !stream.stream<i64>\n}",
        (2, 8),
        "unknown stream operation `stream.frobnicate`",
    ),
    (
        "func.func @f(%a: i32, %b: i64) -> i32 {\n  %t = stream.pack %a, %b : tuple<i32, i64>\n  return %a : i32\n}",
        (1, 18),
        "expected a stream type, found `i32`",
    ),
    (
        "func.func @f(%in: !stream.stream<i64>) -> !stream.stream<i32> {\n  return %in : !stream.stream<i32>\n}",
        (2, 10),
        "`%in` is a stream of i64, result 0 is declared a stream of i32",
    ),
];

#[test]
fn errors_are_located() {
    for (text, _, _) in ERRORS {
        assert!(
            handscope_compiler::stream::looks_stream(text),
            "taken for handshake MLIR:\n{text}"
        );
    }
    for (text, (line, col), words) in ERRORS {
        let e = match parse_stream(text, "bad.mlir") {
            Ok(_) => panic!("accepted:\n{text}"),
            Err(e) => e,
        };
        let msg = e.to_string();
        assert!(
            msg.contains(&format!("bad.mlir:{line}:{col}:")) && msg.contains(words),
            "{msg}\nexpected {line}:{col} and `{words}` for\n{text}"
        );
    }
}

// ----- random programs -----

/// The project's splitmix64 generator, drawing below a bound.
struct Rng(handscope_sim::stimulus::SplitMix64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0.next() % n
    }
}

/// A stream of the program being generated: its name and its rate tag (streams of equal
/// tags give their tokens in step, so `combine` may pair them).
struct Open {
    name: String,
    tag: u64,
}

/// Writes a random body computation over `vars` into `out`; returns the result's name.
fn expr(
    r: &mut Rng,
    ty: &str,
    vars: &mut Vec<String>,
    out: &mut String,
    fresh: &mut u32,
) -> String {
    let steps = 1 + r.below(3);
    for _ in 0..steps {
        let a = vars[r.below(vars.len() as u64) as usize].clone();
        let b = if r.below(3) == 0 {
            *fresh += 1;
            let c = format!("%c{fresh}");
            let v = r.below(7) as i64 - 3;
            out.push_str(&format!("    {c} = arith.constant {v} : {ty}\n"));
            c
        } else {
            vars[r.below(vars.len() as u64) as usize].clone()
        };
        *fresh += 1;
        let name = format!("%t{fresh}");
        match r.below(7) {
            0 => out.push_str(&format!("    {name} = arith.addi {a}, {b} : {ty}\n")),
            1 => out.push_str(&format!("    {name} = arith.subi {a}, {b} : {ty}\n")),
            2 => out.push_str(&format!("    {name} = arith.muli {a}, {b} : {ty}\n")),
            3 => out.push_str(&format!("    {name} = arith.xori {a}, {b} : {ty}\n")),
            4 => out.push_str(&format!("    {name} = arith.andi {a}, {b} : {ty}\n")),
            5 => out.push_str(&format!("    {name} = arith.maxsi {a}, {b} : {ty}\n")),
            _ => {
                *fresh += 1;
                let c = format!("%p{fresh}");
                let pred = ["slt", "sgt", "eq", "ne", "ule", "uge"][r.below(6) as usize];
                out.push_str(&format!("    {c} = arith.cmpi {pred}, {a}, {b} : {ty}\n"));
                out.push_str(&format!("    {name} = arith.select {c}, {a}, {b} : {ty}\n"));
            }
        }
        vars.push(name);
    }
    vars.last().unwrap().clone()
}

/// A random well-formed stream program of one or two arguments and its argument count.
fn random_program(seed: u64) -> (String, usize) {
    let mut r = Rng(handscope_sim::stimulus::SplitMix64::new(seed));
    let ty = ["i8", "i32"][r.below(2) as usize];
    let st = format!("!stream.stream<{ty}>");
    let n_args = 1 + r.below(2) as usize;
    let mut open: Vec<Open> = (0..n_args)
        .map(|k| Open {
            name: format!("%in{k}"),
            tag: 0,
        })
        .collect();
    let mut body = String::new();
    let mut fresh = 0u32;
    let mut tag = 1u64;
    let n_ops = 1 + r.below(5);
    for _ in 0..n_ops {
        // A combine when two open streams are in step, else a one-input operator.
        let pair = (0..open.len())
            .flat_map(|i| (0..open.len()).map(move |j| (i, j)))
            .find(|&(i, j)| i < j && open[i].tag == open[j].tag);
        let kind = match pair {
            Some(_) if r.below(2) == 0 => 5,
            _ => r.below(5),
        };
        fresh += 1;
        let res = format!("%s{fresh}");
        let regs = if kind != 5 && r.below(2) == 0 { 1 } else { 0 };
        let reg_attr = if regs == 1 {
            format!("registers = [{} : {ty}]", r.below(5) as i64 - 2)
        } else {
            String::new()
        };
        let mut text = String::new();
        match kind {
            5 => {
                let (i, j) = pair.unwrap();
                let b = open.remove(j);
                let a = open.remove(i);
                let mut vars = vec!["%x".to_string(), "%y".to_string()];
                text.push_str(&format!(
                    "  {res} = stream.combine({}, {}) : ({st}, {st}) -> ({st}) {{\n  ^bb0(%x: {ty}, %y: {ty}):\n",
                    a.name, b.name
                ));
                let y = expr(&mut r, ty, &mut vars, &mut text, &mut fresh);
                text.push_str(&format!("    stream.yield {y} : {ty}\n  }}\n"));
                open.push(Open {
                    name: res,
                    tag: a.tag,
                });
            }
            _ => {
                let i = r.below(open.len() as u64) as usize;
                let a = open.remove(i);
                let mut vars = vec!["%v".to_string()];
                let mut header_args = format!("%v: {ty}");
                if kind == 2 {
                    vars.push("%acc".into());
                    header_args = format!("%acc: {ty}, %v: {ty}");
                }
                if regs == 1 {
                    vars.push("%r".into());
                    header_args.push_str(&format!(", %r: {ty}"));
                }
                let attrs = match (kind, regs) {
                    (2, 1) => format!(" {{initValue = {} : {ty}, {reg_attr}}}", r.below(3)),
                    (2, _) => format!(" {{initValue = {} : {ty}}}", r.below(3)),
                    (_, 1) => format!(" {{{reg_attr}}}"),
                    _ => String::new(),
                };
                let (mn, outs) = match kind {
                    0 => ("map", st.clone()),
                    1 => ("filter", st.clone()),
                    2 => ("reduce", st.clone()),
                    3 => ("split", format!("({st}, {st})")),
                    _ => ("map", st.clone()),
                };
                let second = (kind == 3).then(|| {
                    fresh += 1;
                    format!("%s{fresh}")
                });
                let results = match &second {
                    Some(b) => format!("{res}, {b}"),
                    None => res.clone(),
                };
                text.push_str(&format!(
                    "  {results} = stream.{mn}({}){attrs} : ({st}) -> {outs} {{\n  ^bb0({header_args}):\n",
                    a.name
                ));
                let mut ys = Vec::new();
                let mut yts = Vec::new();
                match kind {
                    1 => {
                        let e = expr(&mut r, ty, &mut vars, &mut text, &mut fresh);
                        fresh += 1;
                        let pred = ["slt", "sgt", "ne"][r.below(3) as usize];
                        text.push_str(&format!(
                            "    %k{fresh} = arith.cmpi {pred}, {e}, %v : {ty}\n"
                        ));
                        ys.push(format!("%k{fresh}"));
                        yts.push("i1".to_string());
                    }
                    3 => {
                        for _ in 0..2 {
                            ys.push(expr(&mut r, ty, &mut vars, &mut text, &mut fresh));
                            yts.push(ty.to_string());
                        }
                    }
                    _ => {
                        ys.push(expr(&mut r, ty, &mut vars, &mut text, &mut fresh));
                        yts.push(ty.to_string());
                    }
                }
                if regs == 1 {
                    ys.push(expr(&mut r, ty, &mut vars, &mut text, &mut fresh));
                    yts.push(ty.to_string());
                }
                text.push_str(&format!(
                    "    stream.yield {} : {}\n  }}\n",
                    ys.join(", "),
                    yts.join(", ")
                ));
                let new_tag = match kind {
                    0 | 4 => a.tag,
                    3 => a.tag,
                    2 => a.tag * 1000 + 7,
                    _ => {
                        tag += 1;
                        10_000 + tag
                    }
                };
                open.push(Open {
                    name: res.clone(),
                    tag: new_tag,
                });
                if let Some(b) = second {
                    open.push(Open {
                        name: b,
                        tag: new_tag,
                    });
                }
            }
        }
        body.push_str(&text);
    }
    let sig: Vec<String> = (0..n_args).map(|k| format!("%in{k}: {st}")).collect();
    let rets: Vec<String> = open.iter().map(|o| o.name.clone()).collect();
    let rtys: Vec<String> = open.iter().map(|_| st.clone()).collect();
    (
        format!(
            "func.func @top({}) -> ({}) {{\n{body}  return {} : {}\n}}\n",
            sig.join(", "),
            rtys.join(", "),
            rets.join(", "),
            rtys.join(", ")
        ),
        n_args,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Random programs on random streams (arguments in step: the same lengths), with and
    /// without back-pressure, give what the interpreter gives.
    #[test]
    fn random_programs_equal_the_interpreter(
        seed in any::<u64>(),
        lens in prop::collection::vec(0usize..6, 1..4),
        values in prop::collection::vec(-128i64..128, 24),
    ) {
        let (text, n_args) = random_program(seed);
        let mut k = 0;
        let streams: Vec<Streams> = (0..n_args)
            .map(|_| {
                lens.iter()
                    .map(|&n| {
                        (0..n)
                            .map(|_| {
                                k += 1;
                                values[k % values.len()]
                            })
                            .collect()
                    })
                    .collect()
            })
            .collect();
        check_program(&text, &streams);
    }

    /// The reader returns an error, never panics, on any cut or byte change of a program.
    #[test]
    fn mutated_programs_never_panic(
        which in 0usize..7,
        cut in 0usize..2000,
        at in 0usize..2000,
        byte in any::<u8>(),
    ) {
        let text = OPERATORS[which].1;
        let cut = cut % (text.len() + 1);
        let truncated = String::from_utf8_lossy(&text.as_bytes()[..cut]).into_owned();
        let _ = compile_stream(&truncated, "m.mlir");
        let mut bytes = text.as_bytes().to_vec();
        let at = at % bytes.len();
        bytes[at] = byte;
        let changed = String::from_utf8_lossy(&bytes).into_owned();
        let _ = compile_stream(&changed, "m.mlir");
    }
}
