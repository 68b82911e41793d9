use super::*;
use crate::graph::{ArgType, FuncResult};
use crate::ops::ArithOp;
use crate::report::Status;
use crate::types::{MemRefType, Type};

/// `@k(a: i8, m: memref<4xi8>, start: none) -> (out: i8)`: `out = a` (the memory is unused).
fn func() -> Function {
    let mut f = Function::new("k");
    let a = f.add_arg("a", ArgType::Channel(Type::Int(8))).unwrap();
    f.add_arg(
        "m",
        ArgType::MemRef(MemRefType {
            elem: Type::Int(8),
            dims: vec![4],
        }),
    );
    let start = f.add_arg("start", ArgType::Channel(Type::None)).unwrap();
    let sink = f.add_node(Op::Sink, vec![]);
    f.set_inputs(sink, vec![start]);
    f.results.push(FuncResult {
        name: "out".into(),
        ty: Type::Int(8),
    });
    let ret = f.add_node(Op::Return, vec![]);
    f.set_inputs(ret, vec![a]);
    f.assign_ids().unwrap();
    f
}

fn args(inputs: &[&str], mems: &[&str], ready: &[&str]) -> StimulusArgs {
    let v = |x: &[&str]| x.iter().map(|s| s.to_string()).collect();
    StimulusArgs {
        inputs: v(inputs),
        mems: v(mems),
        ready: v(ready),
    }
}

fn bind_err(a: StimulusArgs) -> String {
    let mut s = Session::new(func()).unwrap();
    let e = s.bind(&a).unwrap_err();
    let mut msg = e.to_string();
    let mut src = std::error::Error::source(&e);
    while let Some(x) = src {
        msg.push_str(&format!(": {x}"));
        src = x.source();
    }
    msg
}

#[test]
fn binds_and_runs() {
    let mut s = Session::new(func()).unwrap();
    s.bind(&args(&["a=1,2", "a=-1"], &[], &["out=pattern:01"]))
        .unwrap();
    let run = s.run(100, true).unwrap();
    assert_eq!(run.report.status, Status::Done);
    let outs: Vec<u64> = run.report.outputs["out"].iter().map(|t| t.bits).collect();
    assert_eq!(outs, [1, 2, 0xff], "tokens add up and are masked");
    assert_eq!(run.trace.unwrap().cycles(), run.report.cycles);
    // Memory contents are masked to the element width.
    s.bind(&args(&[], &["m=1,-2"], &[])).unwrap();
    assert_eq!(s.environment().ext_memories["m"], [1, 0xfe]);
}

#[test]
fn errors_name_the_flag_and_list_the_valid_names() {
    assert_eq!(
        bind_err(args(&["b=1"], &[], &[])),
        "--in b: @k has no argument `b` (arguments: a, m, start)"
    );
    assert_eq!(
        bind_err(args(&["m=1"], &[], &[])),
        "--in m: `m` is a memory; give its contents with --mem m=..."
    );
    assert_eq!(
        bind_err(args(&["start=x"], &[], &[])),
        "--in start: `start` has type none; give a token count, not `x`: invalid digit found in string"
    );
    assert_eq!(
        bind_err(args(&["a=1,q"], &[], &[])),
        "--in a: invalid number `q`"
    );
    assert_eq!(
        bind_err(args(&["a"], &[], &[])),
        "--in `a` is not of the form NAME=VALUE"
    );
    assert_eq!(
        bind_err(args(&[], &["x=1"], &[])),
        "--mem x: @k has no memory argument or memory node `x` (memories: m)"
    );
    assert_eq!(
        bind_err(args(&[], &["a=1"], &[])),
        "--mem a: `a` is not a memory argument; give its tokens with --in"
    );
    assert_eq!(
        bind_err(args(&[], &[], &["x=always"])),
        "--ready x: @k has no result `x` (results: out)"
    );
    assert_eq!(
        bind_err(args(&[], &[], &["out=sometimes"])),
        "--ready out: invalid ready policy `sometimes` (expected always, random:SEED:PROB or pattern:BITS)"
    );
}

#[test]
fn selects_functions_by_name() {
    let m = Module {
        functions: vec![func()],
    };
    assert_eq!(Session::open(&m, None).unwrap().function().name, "k");
    assert_eq!(
        Session::open(&m, Some("z")).unwrap_err().to_string(),
        "no function @z (the file has: k)"
    );
    assert_eq!(
        Session::open(&Module::default(), None)
            .unwrap_err()
            .to_string(),
        "the file has no function with a body"
    );
}

#[test]
fn stimulus_overrides_replace_by_name() {
    let base = args(&["a=1", "b=2"], &["m=1"], &[]);
    let over = args(&["b=5"], &[], &["out=always"]);
    let got = base.overridden_by(&over);
    assert_eq!(got, args(&["a=1", "b=5"], &["m=1"], &["out=always"]));
    assert!(StimulusArgs::default().is_empty());
}

/// A circuit with a value used twice and one never used is simulated with a fork and a sink
/// appended (existing IDs unchanged), and the session says what it inserted.
#[test]
fn unmaterialized_circuits_get_forks_and_sinks() {
    let mut f = Function::new("f");
    let x = f.add_arg("x", ArgType::Channel(Type::Int(8))).unwrap();
    f.add_arg("unused", ArgType::Channel(Type::Int(8))).unwrap();
    let go = f.add_arg("go", ArgType::Channel(Type::None)).unwrap();
    let add = f.add_node(Op::Arith(ArithOp::Addi), vec![Type::Int(8)]);
    f.set_inputs(add, vec![x, x]);
    let d = f.nodes[add].outputs[0];
    f.results = vec![
        FuncResult {
            name: "d".into(),
            ty: Type::Int(8),
        },
        FuncResult {
            name: "done".into(),
            ty: Type::None,
        },
    ];
    let ret = f.add_node(Op::Return, vec![]);
    f.set_inputs(ret, vec![d, go]);
    f.assign_ids().unwrap();
    let mut s = Session::new(f).unwrap();
    assert_eq!(
        s.inserted(),
        [
            Inserted::Fork {
                value: "x".into(),
                uses: 2
            },
            Inserted::Sink {
                value: "unused".into()
            }
        ]
    );
    assert!(s.function().node_by_id("addi0").is_some());
    assert_eq!(s.unfed_arguments(), ["x", "unused"]);
    s.bind_tokens("x", TokenSource::Values(vec![3, 4])).unwrap();
    assert_eq!(s.unfed_arguments(), ["unused"]);
    s.bind_tokens("go", TokenSource::None(2)).unwrap();
    let run = s.run(100, false).unwrap();
    let d: Vec<u64> = run.report.outputs["d"].iter().map(|t| t.bits).collect();
    assert_eq!(d, [6, 8]);
}

#[test]
fn stimulus_flags_parse_from_text() {
    let a =
        StimulusArgs::parse_flags("--in a=1,2  --mem=m=@f.txt\t--ready out=random:3:0.5").unwrap();
    assert_eq!(a.inputs, ["a=1,2"]);
    assert_eq!(a.mems, ["m=@f.txt"]);
    assert_eq!(a.ready, ["out=random:3:0.5"]);
    assert!(StimulusArgs::parse_flags("").unwrap().is_empty());
    let e = StimulusArgs::parse_flags("--in a=1 --vcd x.vcd").unwrap_err();
    assert!(e.contains("`--vcd` is not a stimulus option"), "{e}");
    let e = StimulusArgs::parse_flags("--in").unwrap_err();
    assert!(e.contains("`--in` needs a value"), "{e}");
    assert!(StimulusArgs::parse_flags("48 18").is_err());
}

proptest::proptest! {
    /// Any text parses or fails without panicking; written-out options read back the same.
    #[test]
    fn stimulus_flags_never_panic_and_round_trip(
        text in "[ -~\t]{0,80}",
        ins in proptest::collection::vec("[a-z][a-z0-9_]{0,6}=[0-9,.@a-z-]{1,10}", 0..4),
        mems in proptest::collection::vec("[a-z][a-z0-9_]{0,6}=[0-9,@a-z-]{1,10}", 0..3),
    ) {
        let _ = StimulusArgs::parse_flags(&text);
        let mut line = String::new();
        for i in &ins {
            line.push_str(&format!("--in {i} "));
        }
        for m in &mems {
            line.push_str(&format!("--mem={m} "));
        }
        let back = StimulusArgs::parse_flags(&line).unwrap();
        proptest::prop_assert_eq!(back.inputs, ins);
        proptest::prop_assert_eq!(back.mems, mems);
    }
}
