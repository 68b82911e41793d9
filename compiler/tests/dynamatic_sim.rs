//! Dynamatic circuits simulated end to end (reader, lowering, engine) on circuits written for
//! these tests, with cycle counts worked out by hand from `docs/semantics.md` ("Dynamatic's
//! components"), and the refusals of what is not simulated yet (load-store queues:
//! `dynamatic_lsq_sim.rs`).

use handscope_compiler::mlir::dynamatic::{DynTiming, lower};
use handscope_compiler::mlir::parse_dynamatic;
use handscope_sim::engine::Simulation;
use handscope_sim::report::{RunReport, Status, Value};
use handscope_sim::stimulus::{Environment, TokenSource};
use handscope_sim::{Module, Op};

const INC: &str = include_str!("data/dynamatic/inc_e4.mlir");
const MEM: &str = include_str!("data/dynamatic/mem_e4.mlir");

fn module(src: &str, timing: &DynTiming) -> Module {
    let (m, _) = parse_dynamatic(src, "t.mlir").unwrap_or_else(|e| panic!("{}", e.render()));
    lower(&m, src, "t.mlir", timing).unwrap_or_else(|e| panic!("{}", e.render()))
}

fn run(m: &Module, env: Environment) -> RunReport {
    let f = m.default_function().expect("a function");
    let mut sim = Simulation::new(f, env).expect("simulates");
    sim.run(1000)
}

fn cycles(r: &RunReport, result: &str) -> Vec<u64> {
    r.outputs[result].iter().map(|t| t.cycle).collect()
}

/// `x` arrives in cycle 1 (a cycle after `start`), `muli` takes 4 cycles (the built-in
/// table) and the ONE_SLOT_BREAK_DV buffer one more: 3 * 7 leaves in cycle 6.
#[test]
fn a_multi_cycle_unit_and_a_buffer_take_their_cycles() {
    let m = module(INC, &DynTiming::builtin());
    let f = m.default_function().unwrap();
    let pipe = f.node_by_id("muli0_pipe").expect("the unit's pipeline");
    assert_eq!(f.nodes[pipe].op, Op::DynPipeline { latency: 4 });
    assert_eq!(f.nodes[pipe].block.as_deref(), Some("bb0"));
    let x = f.args.iter().find(|a| a.name == "x").unwrap();
    assert_eq!(x.offered_from, 1);
    let mut env = Environment::default();
    env.push_tokens("x", TokenSource::Values(vec![7]));
    let r = run(&m, env);
    assert_eq!(r.status, Status::Done);
    assert_eq!(cycles(&r, "out0"), [6]);
    assert_eq!(r.outputs["out0"][0].value, Some(Value::Signed(21)));
    assert_eq!(cycles(&r, "end"), [0]);
}

/// The latencies of another `components.json`: a 2-cycle `muli` leaves in cycle 4.
#[test]
fn a_components_json_gives_other_latencies() {
    let json = r#"{"handshake.muli": {"latency": {"64": {"1.0": 2.0}}}}"#;
    let t = DynTiming::from_components_json(json, "c.json").unwrap();
    let mut env = Environment::default();
    env.push_tokens("x", TokenSource::Values(vec![7]));
    let r = run(&module(INC, &t), env);
    assert_eq!(cycles(&r, "out0"), [4]);
}

/// The memory controller: the load is granted in cycle 0 (its data buffer is empty) and
/// answered in cycle 1, when the store writes a[2] = a[1] + 10; the store count drops to 0 at
/// that edge, so `memEnd` is raised at the edge of cycle 2 and taken in cycle 3.
#[test]
fn the_memory_controller_reads_writes_and_ends() {
    let m = module(MEM, &DynTiming::builtin());
    let mut env = Environment::default();
    env.ext_memories.insert("a".into(), vec![1, 2, 3, 4]);
    let r = run(&m, env);
    assert_eq!(r.status, Status::Done);
    assert_eq!(cycles(&r, "a_end"), [3]);
    let a: Vec<String> = r.memories["a"].iter().map(|v| v.to_string()).collect();
    assert_eq!(a, ["1", "2", "12", "4"]);
}

/// What is not simulated yet is refused at the op, naming it.
#[test]
fn what_is_not_simulated_is_refused_at_the_op() {
    // A research-branch op.
    let spec = MEM.replace(
        "%6 = addi %dataResult, %5",
        "%6 = speculator %dataResult, %5",
    );
    let (m, _) = parse_dynamatic(&spec, "s.mlir").unwrap();
    let e = lower(&m, &spec, "s.mlir", &DynTiming::builtin()).unwrap_err();
    assert!(e.message.contains("`speculator`"), "{}", e.render());
    // A signature whose result type is not what `end` gives (found by the byte-mutation
    // proptest): located at the operand.
    let sig = INC.replacen(
        "-> (!handshake.channel<i32>, !handshake.control<>)",
        "-> (!handshake.channel<i3>, !handshake.control<>)",
        1,
    );
    let (m, _) = parse_dynamatic(&sig, "r.mlir").unwrap();
    let e = lower(&m, &sig, "r.mlir", &DynTiming::builtin()).unwrap_err();
    assert!(
        e.message.contains(
            "`end` gives result `out0` a value of type i32, but the function declares i3"
        ),
        "{}",
        e.render()
    );
    // Types that do not fit the component (a fuzzed file): a load whose address result is
    // printed wider than its address.
    let wide = MEM.replacen(
        "handshake.name = \"load0\"} : <i2>, <i32>, <i2>, <i32>",
        "handshake.name = \"load0\"} : <i2>, <i32>, <i23>, <i32>",
        1,
    );
    assert_ne!(wide, MEM);
    let (m, _) = parse_dynamatic(&wide, "w.mlir").unwrap_or_else(|e| panic!("{}", e.render()));
    let e = lower(&m, &wide, "w.mlir", &DynTiming::builtin()).unwrap_err();
    assert!(e.message.starts_with("`load`:"), "{}", e.render());
    let line = wide.lines().position(|l| l.contains("= load[")).unwrap() + 1;
    assert_eq!(e.line_col().0, line, "{}", e.render());
    // A float unit whose delay the table does not know.
    let odd = INC
        .replace("muli %arg0, %1", "addf %arg0, %1")
        .replace(
            "handshake.name = \"muli0\"",
            "handshake.name = \"addf0\", internal_delay = \"7_500000\"",
        )
        .replace("<i32>", "<f32>")
        .replace("value = 3 : i32", "value = 3.0 : f32");
    let (m, _) = parse_dynamatic(&odd, "f.mlir").unwrap_or_else(|e| panic!("{}", e.render()));
    let e = lower(&m, &odd, "f.mlir", &DynTiming::builtin()).unwrap_err();
    assert!(
        e.message.contains("internal_delay = \"7_500000\""),
        "{}",
        e.render()
    );
    assert!(e.render().contains("--timing dynamatic="), "{}", e.render());
}

/// Handscope's written form of a Dynamatic circuit (what `mlir` and `tune -o` write) keeps
/// the testbench's argument conventions: read back, it runs the same cycles.
#[test]
fn the_written_form_runs_the_same_cycles() {
    let m = module(INC, &DynTiming::builtin());
    let written = handscope_compiler::mlir::write_mlir(&m);
    assert!(
        written.contains("handscope.offered_from = [1, 0]"),
        "{written}"
    );
    assert!(written.contains("handscope.token_by_default"), "{written}");
    let (again, _) = handscope_compiler::mlir::parse_mlir(&written, "w.mlir")
        .unwrap_or_else(|e| panic!("{}", e.render()));
    let mut env = Environment::default();
    env.push_tokens("x", TokenSource::Values(vec![7]));
    let r = run(&again, env);
    assert_eq!(cycles(&r, "out0"), [6]);
}

/// A block control that announces more stores than happen: the memory controller never
/// offers `memEnd`, and the deadlock explanation names the announced store that never came
/// (not a wait-for cycle through the load and the store, which both did their work).
#[test]
fn a_missing_announced_store_is_named_as_the_cause() {
    let two = MEM.replace(
        "handshake.name = \"constant2\", value = 1 : i32",
        "handshake.name = \"constant2\", value = 2 : i32",
    );
    assert_ne!(two, MEM);
    let m = module(&two, &DynTiming::builtin());
    let mut env = Environment::default();
    env.ext_memories.insert("a".into(), vec![1, 2, 3, 4]);
    let r = run(&m, env);
    assert_eq!(r.status, Status::Deadlock);
    let d = r.deadlock.expect("a deadlock report");
    assert!(
        d.causes
            .first()
            .is_some_and(|c| c.contains("announced 1 store more than its store ports delivered")),
        "{:?}",
        d.causes
    );
    assert!(d.cycles.is_empty(), "{:?}", d.cycles);
}

/// E5's other buffer kinds: a SHIFT_REG_BREAK_DV of 3 is the 3 stages of a unit's pipeline
/// (x enters in cycle 1 and leaves in cycle 4), a ONE_SLOT_BREAK_DVR a register (one cycle
/// more: cycle 5), a COUNTER_BUFFER of 4 in its place holds x from cycle 4 to 8; a DVR of two
/// slots and a COUNTER_BUFFER without `dvLatency` are refused at the op.
#[test]
fn the_shift_register_and_the_dvr_buffer_take_their_cycles() {
    let src = INC.replace(
        "%3 = buffer %2, bufferType = ONE_SLOT_BREAK_DV, numSlots = 1 {handshake.bb = 0 : ui32, handshake.name = \"buffer0\"} : <i32>",
        "%4 = buffer %2, bufferType = SHIFT_REG_BREAK_DV, numSlots = 3, dvLatency = 3 {handshake.bb = 0 : ui32, handshake.name = \"shift0\"} : <i32>\n    %3 = buffer %4, bufferType = ONE_SLOT_BREAK_DVR, numSlots = 1, dvLatency = 1 {handshake.bb = 0 : ui32, handshake.name = \"dvr0\"} : <i32>",
    )
    .replace("%2 = muli %arg0, %1", "%2 = addi %arg0, %1");
    assert!(src.contains("SHIFT_REG_BREAK_DV"));
    let m = module(&src, &DynTiming::builtin());
    let f = m.default_function().unwrap();
    let shift = f.node_by_id("shift0").unwrap();
    assert_eq!(f.nodes[shift].op, Op::DynPipeline { latency: 3 });
    let dvr = f.node_by_id("dvr0").unwrap();
    assert_eq!(
        f.nodes[dvr].op,
        Op::DynBuffer {
            kind: handscope_sim::DynBufferKind::OneSlotBreakDvr,
            slots: 1
        }
    );
    let mut env = Environment::default();
    env.push_tokens("x", TokenSource::Values(vec![7]));
    let r = run(&m, env);
    assert_eq!(r.status, Status::Done);
    assert_eq!(cycles(&r, "out0"), [5]);
    assert_eq!(r.outputs["out0"][0].value, Some(Value::Signed(10)));
    let counter = src.replace(
        "bufferType = ONE_SLOT_BREAK_DVR, numSlots = 1, dvLatency = 1",
        "bufferType = COUNTER_BUFFER, numSlots = 1, dvLatency = 4",
    );
    let m = module(&counter, &DynTiming::builtin());
    let f = m.default_function().unwrap();
    let n = f.node_by_id("dvr0").unwrap();
    assert_eq!(f.nodes[n].op, Op::DynCounterBuffer { latency: 4 });
    let mut env = Environment::default();
    env.push_tokens("x", TokenSource::Values(vec![7]));
    let r = run(&m, env);
    assert_eq!(cycles(&r, "out0"), [8]);
    for (from, to, why) in [
        (
            "bufferType = ONE_SLOT_BREAK_DVR, numSlots = 1",
            "bufferType = ONE_SLOT_BREAK_DVR, numSlots = 2",
            "ONE_SLOT_BREAK_DVR holds one slot, not 2",
        ),
        (
            "bufferType = ONE_SLOT_BREAK_DVR, numSlots = 1, dvLatency = 1",
            "bufferType = COUNTER_BUFFER, numSlots = 1, dvLatency = 0",
            "a COUNTER_BUFFER needs `dvLatency` of at least 1",
        ),
    ] {
        let bad = src.replace(from, to);
        let (dm, _) = parse_dynamatic(&bad, "b.mlir").unwrap();
        let e = lower(&dm, &bad, "b.mlir", &DynTiming::builtin()).unwrap_err();
        assert!(e.message.contains(why), "{}", e.render());
    }
}

/// `noti` (and its E4 name `not`) inverts every bit: out0 = ~(3 * 7) = -22.
#[test]
fn noti_inverts_every_bit() {
    for mnemonic in ["noti", "not"] {
        let src = INC
            .replace(
                "%3 = buffer %2,",
                &format!(
                    "%4 = {mnemonic} %2 {{handshake.bb = 0 : ui32, handshake.name = \"noti0\"}} : <i32>\n    %3 = buffer %4,"
                ),
            );
        let m = module(&src, &DynTiming::builtin());
        let f = m.default_function().unwrap();
        let n = f.node_by_id("noti0").unwrap();
        assert_eq!(f.nodes[n].op, Op::Arith(handscope_sim::ArithOp::Noti));
        let mut env = Environment::default();
        env.push_tokens("x", TokenSource::Values(vec![7]));
        let r = run(&m, env);
        assert_eq!(
            r.outputs["out0"][0].value,
            Some(Value::Signed(-22)),
            "{mnemonic}"
        );
        assert_eq!(cycles(&r, "out0"), [6]);
    }
}
