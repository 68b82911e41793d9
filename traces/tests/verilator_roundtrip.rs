//! Every example circuit: graph -> Handscope SystemVerilog -> Verilator -> VCD -> replayed
//! Trace, identical to the engine's trace (channels, state words) and report; likewise every
//! C kernel of `examples/kernels` and, once, an FST instead of a VCD. All examples share one
//! Verilator build and all kernels another (cached by content hash under
//! `target/handscope-verilate/`).

use crate::common;

use handscope_compiler::verilog::testbench::{
    TbDesign, memory_init_files, wrapper, write_testbench,
};
use handscope_compiler::verilog::{VerilogBuilder, encode_instance_name};
use handscope_traces::vcd_in::{ReplayOptions, replay_file};
use handscope_traces::verilator::WaveFormat;

use common::*;

const MAX_CYCLES: u64 = 5000;

#[test]
fn examples_round_trip_through_verilator() {
    if !have_verilator("examples_round_trip_through_verilator") {
        return;
    }
    let exs = examples();
    assert!(exs.len() >= 8, "examples found: {}", exs.len());
    round_trip("ex", &exs);
}

/// The stream programs of `examples/streams` (tuples of 33 and 65 bits on their channels,
/// the select loop of a reduction, registers), always ready and under random back-pressure.
#[test]
fn streams_round_trip_through_verilator() {
    if !have_verilator("streams_round_trip_through_verilator") {
        return;
    }
    let mut exs = stream_examples(None);
    assert_eq!(exs.len(), 4);
    for mut ex in stream_examples(Some("random:11:0.5")) {
        ex.name.push_str("_backpressure");
        exs.push(ex);
    }
    round_trip("st", &exs);
}

/// The C kernels of `examples/kernels` (compiled with the default options, first RUN line)
/// that together instantiate every component module any kernel needs
/// ([`kernels::covering`]), and three compiled with `--memory lsq` (load-store queues: one
/// group of a load and a store in histogram, two groups with three loads in prefix sum, five
/// groups of loads, stores and both in insertion sort, whose loads wait for older stores):
/// one shared Verilator model, like the examples; the queues' registers and writes replay to
/// the engine's.
#[test]
fn kernels_round_trip_through_verilator() {
    if !have_verilator("kernels_round_trip_through_verilator") {
        return;
    }
    let t = std::time::Instant::now();
    let all = kernels::kernels();
    assert!(all.len() >= 10, "kernels found: {}", all.len());
    let n = all.len();
    let mut ks = kernels::covering(all);
    eprintln!("{} of {n} kernels cover every component module", ks.len());
    let lsq = kernels::lsq_kernels(&["histogram", "prefix_sum", "insertion_sort"]);
    assert_eq!(lsq.len(), 3);
    for mut k in lsq {
        assert!(
            k.func
                .nodes
                .values()
                .any(|n| matches!(n.op, handscope_sim::Op::DynLsq { .. })),
            "{}",
            k.name
        );
        k.name.push_str("_lsq");
        ks.push(k);
    }
    // Address queues (`--memory queue`): the queue and the transparent FIFOs of the
    // completion chains.
    let queue = kernels::kernels_with_memory(
        &["histogram", "prefix_sum"],
        handscope_compiler::c::MemoryOrdering::Queue,
    );
    assert_eq!(queue.len(), 2);
    for mut k in queue {
        assert!(
            k.func
                .nodes
                .values()
                .any(|n| matches!(n.op, handscope_sim::Op::AddrQueue { .. })),
            "{}",
            k.name
        );
        k.name.push_str("_queue");
        ks.push(k);
    }
    round_trip("k", &ks);
    eprintln!(
        "{} kernels round-tripped in {:.1} s",
        ks.len(),
        t.elapsed().as_secs_f64()
    );
}

/// Static islands (`--schedule hybrid` and `static`, scheduled for the `fpga` profile):
/// every kind of island (loop islands that read arrays, that store, with an `if` inside,
/// with a recurrence through memory, several in one kernel; whole functions with nested
/// loops, branches and floats) runs in Verilator exactly as in the engine: channels,
/// registers (the controller's state, slot by slot), memory writes and report.
#[test]
fn islands_round_trip_through_verilator() {
    use handscope_compiler::c::{HsOptions, Scheduling};
    if !have_verilator("islands_round_trip_through_verilator") {
        return;
    }
    let fpga = handscope_sim::spec::timing::TimingProfile::fpga();
    let mut ks = Vec::new();
    for (schedule, names, tag) in [
        (
            Scheduling::Hybrid,
            &[
                "dot",
                "histogram",
                "prefix_sum",
                "collatz",
                "fir",
                "conv2d_f32",
                "insertion_sort",
            ][..],
            "hybrid",
        ),
        (
            Scheduling::Static,
            &[
                "gcd",
                "matmul",
                "cond_accum",
                "binary_search",
                "dot_f32",
                "stencil2d",
            ][..],
            "static",
        ),
    ] {
        let opts = HsOptions {
            timing: fpga.clone(),
            schedule,
            ..Default::default()
        };
        let found = kernels::kernels_with_options(names, &opts);
        assert_eq!(found.len(), names.len());
        for mut k in found {
            let n = k
                .func
                .nodes
                .values()
                .filter(|n| matches!(n.op, handscope_sim::Op::Island(_)))
                .count();
            assert!(n > 0, "{}: no island", k.name);
            k.name.push('_');
            k.name.push_str(tag);
            ks.push(k);
        }
    }
    round_trip("i", &ks);
}

/// The float kernels of `examples/kernels` (a float channel anywhere) under the `fpga` timing
/// profile (buffers sized for its latencies, pipelines behind every timed unit and memory
/// read) that together instantiate every kind of component module any of them needs beyond
/// those the `ideal` round trip checks (pipelines, mostly): our
/// SystemVerilog pipelines and float units in Verilator equal the engine channel by channel,
/// cycle by cycle (the `ideal` profile is [`kernels_round_trip_through_verilator`]). Integer
/// kernels are left out to keep the suite's Verilator build short; their pipelines are the
/// same component.
#[test]
fn kernels_round_trip_through_verilator_fpga() {
    if !have_verilator("kernels_round_trip_through_verilator_fpga") {
        return;
    }
    let fpga = handscope_sim::spec::timing::TimingProfile::fpga();
    let ks: Vec<Example> = kernels::timed_kernels(&fpga)
        .into_iter()
        .filter(|k| k.func.channels.values().any(|c| c.ty.is_float()))
        .collect();
    assert!(ks.len() >= 15, "float kernels: {}", ks.len());
    let pipes = ks
        .iter()
        .flat_map(|k| k.func.nodes.values())
        .filter(|n| matches!(n.op, handscope_sim::Op::Pipeline { .. }))
        .count();
    assert!(pipes > 100, "pipelines in the kernels: {pipes}");
    // The kinds of module the `ideal` round trip checks need no second check here.
    let ideal = kernels::module_kinds(&kernels::covering(kernels::kernels()));
    let n = ks.len();
    let ks = kernels::covering_beyond(ks, &ideal);
    eprintln!(
        "{} of {n} float kernels cover every component module the ideal ones do not",
        ks.len()
    );
    round_trip("kf", &ks);
}

/// Dynamatic's components in our SystemVerilog (every buffer kind, the stalling pipeline,
/// `control_merge`, `select` with antitokens, a data argument offered from cycle 1, the
/// memory controller), under
/// random back-pressure: Verilator's VCD replays to the engine's trace, state words included.
#[test]
fn dynamatic_components_round_trip_through_verilator() {
    if !have_verilator("dynamatic_components_round_trip_through_verilator") {
        return;
    }
    let mem = dynamatic_memory();
    let mut sim = handscope_sim::engine::Simulation::new(&mem.func, mem.env.clone()).unwrap();
    let r = sim.run(MAX_CYCLES);
    assert_eq!(r.status, handscope_sim::report::Status::Done, "{r:?}");
    let m: Vec<String> = r.memories["m"].iter().map(|v| v.to_string()).collect();
    assert_eq!(m, ["1", "30", "20", "4"]);
    assert_eq!(r.outputs["m_end"].len(), 1);
    round_trip("dyn", &[dynamatic_components(), mem]);
}

/// Dynamatic's memory controller on a memory of 4 words: two load ports (the lower wins a
/// cycle both ask for), one store port fed three stores that one block control announces, a
/// load and a store to one address in one cycle (the load reads the stored value), `memEnd`
/// once `ctrlEnd` came and the three stores are written; load results ready at random.
fn dynamatic_memory() -> Example {
    use handscope_sim::stimulus::{ReadyPolicy, TokenSource};
    use handscope_sim::{ArgType, FuncResult, MemRefType, Op, Type};
    let mut f = handscope_sim::Function::new("dyn_mem");
    let i2 = Type::Int(2);
    let i32t = Type::Int(32);
    let mem = f
        .add_arg(
            "m",
            ArgType::MemRef(MemRefType {
                dims: vec![4],
                elem: i32t.clone(),
            }),
        )
        .is_none();
    assert!(mem, "a memref argument has no channel");
    let mut chan = |name: &str, t: &Type| f.add_arg(name, ArgType::Channel(t.clone())).unwrap();
    let start = chan("m_start", &Type::None);
    let count = chan("count", &i32t);
    let la0 = chan("la0", &i2);
    let la1 = chan("la1", &i2);
    let sa = chan("sa", &i2);
    let sd = chan("sd", &i32t);
    let end = chan("ctrl_end", &Type::None);
    let mc = f.add_node(
        Op::DynMemController {
            ctrl: 1,
            ld: 2,
            st: 1,
            memref_arg: 0,
            memref: MemRefType {
                dims: vec![4],
                elem: i32t.clone(),
            },
        },
        vec![i32t.clone(), i32t.clone(), Type::None],
    );
    f.set_inputs(mc, vec![start, count, la0, la1, sa, sd, end]);
    let outs = f.nodes[mc].outputs.clone();
    for (name, t) in [("ld0", &i32t), ("ld1", &i32t), ("m_end", &Type::None)] {
        f.results.push(FuncResult {
            name: name.into(),
            ty: t.clone(),
        });
    }
    let r = f.add_node(Op::Return, vec![]);
    f.set_inputs(r, outs);
    f.assign_ids().unwrap();
    let mut env = handscope_sim::stimulus::Environment::default();
    env.ext_memories.insert("m".into(), vec![1, 2, 3, 4]);
    env.push_tokens("count", TokenSource::Values(vec![3]));
    env.push_tokens("la0", TokenSource::Values(vec![1, 1, 2, 3, 0, 1]));
    env.push_tokens("la1", TokenSource::Values(vec![1, 3, 2, 0]));
    env.push_tokens("sa", TokenSource::Values(vec![1, 2, 1]));
    env.push_tokens("sd", TokenSource::Values(vec![10, 20, 30]));
    env.push_tokens("m_start", TokenSource::None(1));
    env.push_tokens("ctrl_end", TokenSource::None(1));
    env.set_ready(
        "ld0",
        ReadyPolicy::Random {
            seed: 17,
            prob: 0.7,
        },
    );
    env.set_ready(
        "ld1",
        ReadyPolicy::Random {
            seed: 19,
            prob: 0.5,
        },
    );
    Example {
        name: "dyn_mem".into(),
        path: std::path::PathBuf::from("dyn_mem"),
        text: String::new(),
        func: f,
        env,
    }
}

/// A circuit of Dynamatic's components: `a` (11 down to 0) through a skid buffer into a fork
/// feeding a ONE_SLOT_BREAK_DV and a ONE_SLOT_BREAK_DVR, a 3-stage pipeline and a
/// COUNTER_BUFFER into a FIFO_BREAK_DV and a comparison
/// (`a < 5`, inverted by a `noti`) that chooses between `b` (late: through a 4-stage pipeline and a
/// FIFO_BREAK_NONE) and `c` in a `select`; two controls (one through a dataless
/// COUNTER_BUFFER) into a `control_merge`. Results are
/// ready at random.
fn dynamatic_components() -> Example {
    use handscope_sim::stimulus::{ReadyPolicy, TokenSource};
    use handscope_sim::{ArgType, CmpPredicate, DynBufferKind as K, FuncResult, Op, Type};
    let mut f = handscope_sim::Function::new("dyn_parts");
    let i8t = Type::Int(8);
    let a = f.add_arg("a", ArgType::Channel(i8t.clone())).unwrap();
    let b = f.add_arg("b", ArgType::Channel(i8t.clone())).unwrap();
    let c = f.add_arg("c", ArgType::Channel(i8t.clone())).unwrap();
    let x = f.add_arg("x", ArgType::Channel(Type::None)).unwrap();
    let y = f.add_arg("y", ArgType::Channel(Type::None)).unwrap();
    f.args[0].offered_from = 1;
    let node = |f: &mut handscope_sim::Function, op: Op, ins: Vec<_>, outs: Vec<Type>| {
        let n = f.add_node(op, outs);
        f.set_inputs(n, ins);
        f.nodes[n].outputs.clone()
    };
    let buf = |kind, slots| Op::DynBuffer { kind, slots };
    let r = node(&mut f, buf(K::OneSlotBreakR, 1), vec![a], vec![i8t.clone()]);
    let fk = node(&mut f, Op::Fork, vec![r[0]], vec![i8t.clone(); 3]);
    let dv = node(
        &mut f,
        buf(K::OneSlotBreakDv, 1),
        vec![fk[0]],
        vec![i8t.clone()],
    );
    let o0 = node(
        &mut f,
        buf(K::OneSlotBreakDvr, 1),
        vec![dv[0]],
        vec![i8t.clone()],
    );
    let p = node(
        &mut f,
        Op::DynPipeline { latency: 3 },
        vec![fk[1]],
        vec![i8t.clone()],
    );
    let held = node(
        &mut f,
        Op::DynCounterBuffer { latency: 2 },
        vec![p[0]],
        vec![i8t.clone()],
    );
    let o1 = node(
        &mut f,
        buf(K::FifoBreakDv, 3),
        vec![held[0]],
        vec![i8t.clone()],
    );
    let k5 = node(&mut f, Op::Source, vec![], vec![Type::None]);
    let five = node(
        &mut f,
        Op::Constant { value: 5 },
        vec![k5[0]],
        vec![i8t.clone()],
    );
    let cmp = node(
        &mut f,
        Op::Arith(handscope_sim::ArithOp::Cmpi(CmpPredicate::Slt)),
        vec![fk[2], five[0]],
        vec![Type::Int(1)],
    );
    // `b` arrives late: the first selections of `c` leave antitokens on `trueValue`.
    let bp = node(
        &mut f,
        Op::DynPipeline { latency: 4 },
        vec![b],
        vec![i8t.clone()],
    );
    let bq = node(
        &mut f,
        buf(K::FifoBreakNone, 2),
        vec![bp[0]],
        vec![i8t.clone()],
    );
    // Dynamatic's `noti` turns the choice around (`a >= 5` picks `b`).
    let not = node(
        &mut f,
        Op::Arith(handscope_sim::ArithOp::Noti),
        vec![cmp[0]],
        vec![Type::Int(1)],
    );
    let sel = node(
        &mut f,
        Op::DynSelect,
        vec![not[0], bq[0], c],
        vec![i8t.clone()],
    );
    let xc = node(
        &mut f,
        Op::DynCounterBuffer { latency: 3 },
        vec![x],
        vec![Type::None],
    );
    let cm = node(
        &mut f,
        Op::DynControlMerge,
        vec![xc[0], y],
        vec![Type::None, Type::Int(1)],
    );
    let outs = [o0[0], o1[0], sel[0], cm[0], cm[1]];
    for (i, &o) in outs.iter().enumerate() {
        let ty = f.channels[o].ty.clone();
        f.results.push(FuncResult {
            name: format!("r{i}"),
            ty,
        });
    }
    node(&mut f, Op::Return, outs.to_vec(), vec![]);
    f.assign_ids().unwrap();
    let mut env = handscope_sim::stimulus::Environment::default();
    env.push_tokens("a", TokenSource::Values((0..12).rev().collect()));
    env.push_tokens("b", TokenSource::Values((20..32).collect()));
    env.push_tokens("c", TokenSource::Values((40..52).collect()));
    env.push_tokens("x", TokenSource::None(6));
    env.push_tokens("y", TokenSource::None(6));
    for (i, seed) in [3u64, 5, 7, 11, 13].into_iter().enumerate() {
        env.set_ready(format!("r{i}"), ReadyPolicy::Random { seed, prob: 0.6 });
    }
    Example {
        name: "dyn_parts".into(),
        path: std::path::PathBuf::from("dyn_parts"),
        text: String::new(),
        func: f,
        env,
    }
}

/// Builds one model of all `exs` (top modules `<prefix>_<name>`), runs it, and checks every
/// design's replayed trace, memory writes and report against the engine's.
fn round_trip(prefix: &str, exs: &[Example]) {
    let mut b = VerilogBuilder::new();
    let mut tops = Vec::new();
    for ex in exs {
        let top = format!("{prefix}_{}", encode_instance_name(&ex.name));
        tops.push(b.add(&ex.func, Some(&top)).unwrap());
    }
    let designs: Vec<TbDesign<'_>> = exs
        .iter()
        .zip(&tops)
        .map(|(ex, top)| TbDesign {
            top: top.clone(),
            func: &ex.func,
            env: &ex.env,
            max_cycles: MAX_CYCLES,
            any_fire: true,
        })
        .collect();
    let mut sv = b.finish();
    sv.push_str(&wrapper(&designs));
    let tb = write_testbench(&designs);
    let work = std::env::temp_dir().join(format!("hs-roundtrip-{prefix}-{}", std::process::id()));
    std::fs::create_dir_all(&work).unwrap();
    for (ex, top) in exs.iter().zip(&tops) {
        for (name, text) in memory_init_files(top, &ex.func, &ex.env) {
            std::fs::write(work.join(name), text).unwrap();
        }
    }
    let vcd = quick_build_and_run(&work, &sv, &tb, WaveFormat::Vcd);
    // Each design's check reads the whole VCD: two workers, designs dealt out in turn.
    let check = |ex: &Example, top: &String| {
        let (want_report, want) = engine_run(&ex.func, &ex.env, MAX_CYCLES);
        let opts = ReplayOptions {
            scope: Some(format!("hs_tb.{top}")),
            ..Default::default()
        };
        let r = replay_file(&vcd, &ex.func, Some(&ex.env), &opts)
            .unwrap_or_else(|e| panic!("{}: {e}", ex.name));
        assert!(
            r.mapping.unmatched_channels.is_empty(),
            "{}: {:?}",
            ex.name,
            r.mapping.unmatched_channels
        );
        assert_eq!(
            r.mapping.state_words.0, r.mapping.state_words.1,
            "{}: state words",
            ex.name
        );
        assert_same_trace(&ex.name, &want, &r.trace, true);
        assert_eq!(
            want.mem_writes(),
            r.trace.mem_writes(),
            "{}: memory writes",
            ex.name
        );
        assert_eq!(want_report, r.report, "{}: report", ex.name);
        // Without the stimulus, the replay still finds the same outputs.
        let r2 = replay_file(&vcd, &ex.func, None, &opts).unwrap();
        assert_eq!(
            r2.report.outputs, want_report.outputs,
            "{}: outputs without stimulus",
            ex.name
        );
    };
    let pairs: Vec<(&Example, &String)> = exs.iter().zip(&tops).collect();
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..2)
            .map(|w| {
                let (pairs, check) = (&pairs, &check);
                s.spawn(move || {
                    for (ex, top) in pairs.iter().skip(w).step_by(2) {
                        check(ex, top);
                    }
                })
            })
            .collect();
        for h in workers {
            if let Err(e) = h.join() {
                std::panic::resume_unwind(e);
            }
        }
    });
    let _ = std::fs::remove_dir_all(&work);
}

/// FST input through `wellen`: one example built with `--trace-fst` replays to the engine's
/// trace (channels, state words, memory writes) and report, like its VCD.
#[test]
fn fst_replays_like_the_engine() {
    if !have_verilator("fst_replays_like_the_engine") {
        return;
    }
    let ex = examples()
        .into_iter()
        .find(|e| e.name == "counter_loop")
        .expect("counter_loop example");
    let mut b = VerilogBuilder::new();
    let top = b.add(&ex.func, None).unwrap();
    let designs = [TbDesign {
        top: top.clone(),
        func: &ex.func,
        env: &ex.env,
        max_cycles: MAX_CYCLES,
        any_fire: true,
    }];
    let mut sv = b.finish();
    sv.push_str(&wrapper(&designs));
    let tb = write_testbench(&designs);
    let work = std::env::temp_dir().join(format!("hs-fst-{}", std::process::id()));
    std::fs::create_dir_all(&work).unwrap();
    let fst = quick_build_and_run(&work, &sv, &tb, WaveFormat::Fst);
    assert!(handscope_traces::vcd_in::fst::is_fst(&fst).unwrap());
    let (want_report, want) = engine_run(&ex.func, &ex.env, MAX_CYCLES);
    let opts = ReplayOptions {
        scope: Some(format!("hs_tb.{top}")),
        ..Default::default()
    };
    let r = replay_file(&fst, &ex.func, Some(&ex.env), &opts).unwrap();
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    assert!(r.mapping.unmatched_channels.is_empty());
    assert_eq!(r.mapping.state_words.0, r.mapping.state_words.1);
    assert!(want.cycles() > 5);
    assert_same_trace("counter_loop (FST)", &want, &r.trace, true);
    assert_eq!(want_report, r.report);
    // Damaged FST files (cut short, or with corrupted bytes) give an error or a partial
    // replay with a warning, never a panic.
    let bytes = std::fs::read(&fst).unwrap();
    let cut = work.join("cut.fst");
    for len in [1, 40, bytes.len() / 2, bytes.len() - 7] {
        std::fs::write(&cut, &bytes[..len]).unwrap();
        match replay_file(&cut, &ex.func, Some(&ex.env), &opts) {
            Ok(p) => assert!(p.trace.cycles() <= want.cycles()),
            Err(e) => assert!(e.to_string().contains("cut.fst"), "{e}"),
        }
    }
    let mut bad = bytes.clone();
    for i in (bytes.len() / 3..bytes.len()).step_by(97) {
        bad[i] ^= 0x5a;
    }
    std::fs::write(&cut, &bad).unwrap();
    if let Ok(p) = replay_file(&cut, &ex.func, Some(&ex.env), &opts) {
        assert!(p.trace.cycles() <= want.cycles() + MAX_CYCLES);
    }
    let _ = std::fs::remove_dir_all(&work);
}
