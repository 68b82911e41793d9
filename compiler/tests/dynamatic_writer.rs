//! Writing Dynamatic's dialect back (`mlir`, `tune -o`): a file with buffer changes put into
//! its text must read back as exactly the changed graph, in the syntax of the file's era,
//! with every other byte as it was. Every channel of Handscope's own Dynamatic test circuits
//! (eras E2 to E5) takes a buffer in turn.

use handscope_compiler::mlir::dynamatic::{
    BufferEdit, BufferType, DynModule, DynTiming, EditError, Era, SourceNames, buffer_edits,
    graph_shape, lower, lower_with_names, write_edited,
};
use handscope_compiler::mlir::parse_dynamatic;
use handscope_sim::engine::Simulation;
use handscope_sim::stimulus::{Environment, TokenSource};
use handscope_sim::throughput::tune::{SlotChange, apply};
use handscope_sim::{Function, Module, Op};

/// Handscope's own circuits, one or more per era, that the engine simulates.
const FILES: [(&str, &str); 6] = [
    ("e2", include_str!("data/dynamatic/e2.mlir")),
    ("inc_e3", include_str!("data/dynamatic/inc_e3.mlir")),
    ("inc_e4", include_str!("data/dynamatic/inc_e4.mlir")),
    ("mem_e4", include_str!("data/dynamatic/mem_e4.mlir")),
    ("inc_e5", include_str!("data/dynamatic/inc_e5.mlir")),
    ("diamond_e4", include_str!("data/dynamatic/diamond_e4.mlir")),
];

fn read(src: &str) -> (DynModule, Module, Vec<SourceNames>) {
    let (m, _) = parse_dynamatic(src, "t.mlir").unwrap_or_else(|e| panic!("{}", e.render()));
    let (module, names) = lower_with_names(
        &m,
        src,
        "t.mlir",
        &DynTiming::builtin(),
        &Default::default(),
    )
    .unwrap_or_else(|e| panic!("{}", e.render()));
    (m, module, names)
}

fn reread(src: &str) -> Module {
    let (m, _) = parse_dynamatic(src, "out.mlir")
        .unwrap_or_else(|e| panic!("written file does not parse:\n{}\n{src}", e.render()));
    lower(&m, src, "out.mlir", &DynTiming::builtin())
        .unwrap_or_else(|e| panic!("written file does not lower:\n{}\n{src}", e.render()))
}

/// The inside of a multi-cycle unit: from its combinational node to its pipeline.
fn unit_internal(f: &Function, name: &str) -> bool {
    let c = &f.channels[f.channel_by_name(name).unwrap()];
    matches!(f.nodes[c.producer.node].op, Op::Arith(_))
        && c.consumers
            .iter()
            .all(|k| matches!(f.nodes[k.node].op, Op::DynPipeline { .. }))
}

#[test]
fn the_files_are_of_the_eras_they_stand_for() {
    let eras: Vec<Era> = FILES.iter().map(|(_, s)| read(s).0.era).collect();
    // mem_e4 has no buffer: its `load`/`store` forms say "E3 or later".
    assert_eq!(eras, [Era::E2, Era::E3, Era::E4, Era::E3, Era::E5, Era::E4]);
}

#[test]
fn an_unchanged_file_is_written_byte_for_byte() {
    for (name, src) in FILES {
        let (m, _, _) = read(src);
        assert_eq!(write_edited(src, &m, &[]).unwrap(), src, "{name}");
    }
}

/// Two slots on each channel in turn (a new buffer, or a grown one where the channel's
/// producer or only consumer is a buffer): the written file lowers to the changed graph, and
/// every line of the file that the change does not touch is still there.
#[test]
fn every_channel_takes_a_buffer_and_reads_back_as_the_changed_graph() {
    let mut written = 0;
    for (file, src) in FILES {
        let (m, module, names) = read(src);
        for ((f, names), df) in module.functions.iter().zip(&names).zip(&m.funcs) {
            for (_, ch) in f.channels.iter() {
                let tuned = apply(
                    f,
                    &[SlotChange {
                        channel: ch.name.clone(),
                        slots: 2,
                    }],
                )
                .unwrap();
                let edits = buffer_edits(f, &tuned, names, df);
                if unit_internal(f, &ch.name) {
                    assert!(
                        matches!(edits, Err(EditError::Unsupported(ref m)) if m.contains("multi-cycle unit")),
                        "{file}: {} {edits:?}",
                        ch.name
                    );
                    continue;
                }
                let edits = edits.unwrap_or_else(|e| panic!("{file}: {}: {e}", ch.name));
                assert_eq!(edits.len(), 1, "{file}: {}", ch.name);
                let out = write_edited(src, &m, &edits).unwrap();
                let back = reread(&out);
                let again = back.function(&f.name).unwrap();
                assert_eq!(
                    graph_shape(again),
                    graph_shape(&tuned),
                    "{file}: {}\n{out}",
                    ch.name
                );
                let kept = src.lines().filter(|l| out.lines().any(|o| o == *l)).count();
                let touched = src.lines().count() - kept;
                assert!(
                    touched <= 2,
                    "{file}: {}: {touched} lines changed\n{out}",
                    ch.name
                );
                written += 1;
            }
        }
    }
    assert!(written >= 70, "{written} channels written");
}

fn op_index(m: &DynModule, name: &str) -> (String, usize) {
    for f in &m.funcs {
        if let Some(i) = f.ops.iter().position(|o| o.name.as_deref() == Some(name)) {
            return (f.name.clone(), i);
        }
    }
    panic!("no op {name}")
}

fn resized(src: &str, op: &str, kind: BufferType, slots: u32) -> String {
    let (m, _, _) = read(src);
    let (func, op) = op_index(&m, op);
    let out = write_edited(
        src,
        &m,
        &[BufferEdit::Resize {
            func,
            op,
            kind,
            slots,
        }],
    )
    .unwrap();
    reread(&out);
    out
}

/// Each era's buffer syntax is rewritten in place: E2's `TIMING` alone, E3's `BUFFER_TYPE`
/// with its `TIMING`, E4's keywords, E5's keywords with the kind's `dvLatency`.
#[test]
fn a_grown_buffer_is_rewritten_in_its_own_syntax() {
    let e2 = resized(FILES[0].1, "buffer1", BufferType::FifoBreakNone, 3);
    assert!(e2.contains(
        "handshake.name = \"buffer1\", hw.parameters = {NUM_SLOTS = 3 : ui32, TIMING = #handshake<timing {D: 0, V: 0, R: 1}>}}"
    ));
    let e2 = resized(FILES[0].1, "buffer0", BufferType::FifoBreakDv, 2);
    assert!(e2.contains(
        "handshake.name = \"buffer0\", hw.parameters = {NUM_SLOTS = 2 : ui32, TIMING = #handshake<timing {D: 1, V: 1, R: 0}>}}"
    ));
    let e3 = resized(FILES[1].1, "buffer0", BufferType::FifoBreakNone, 4);
    assert!(e3.contains(
        "hw.parameters = {BUFFER_TYPE = \"FIFO_BREAK_NONE\", NUM_SLOTS = 4 : ui32, TIMING = #handshake<timing {D: 0, V: 0, R: 1}>}}"
    ));
    let e4 = resized(FILES[2].1, "buffer0", BufferType::FifoBreakDv, 3);
    assert!(e4.contains("%3 = buffer %2, bufferType = FIFO_BREAK_DV, numSlots = 3 {"));
    let e5 = resized(FILES[4].1, "buffer1", BufferType::FifoBreakNone, 5);
    assert!(e5.contains("bufferType = FIFO_BREAK_NONE, numSlots = 5, dvLatency = 0 {"));
    let e5 = resized(FILES[4].1, "buffer1", BufferType::FifoBreakDv, 5);
    assert!(e5.contains("bufferType = FIFO_BREAK_DV, numSlots = 5, dvLatency = 1 {"));
    // Only the buffer's parameters change.
    let before: Vec<&str> = FILES[2].1.lines().collect();
    let after: Vec<&str> = e4.lines().collect();
    assert_eq!(before.len(), after.len());
    let differ = before.iter().zip(&after).filter(|(a, b)| a != b).count();
    assert_eq!(differ, 1);
}

fn inserted(src: &str, value: (&str, u32), name: &str) -> String {
    let (m, _, _) = read(src);
    let out = write_edited(
        src,
        &m,
        &[BufferEdit::Insert {
            func: m.funcs[0].name.clone(),
            value: (value.0.to_string(), value.1),
            name: name.to_string(),
            bb: Some(0),
            kind: BufferType::FifoBreakNone,
            slots: 2,
        }],
    )
    .unwrap();
    reread(&out);
    out
}

/// A new buffer is written like the file's other buffers, on its own line before the value's
/// use, and takes a fresh SSA name when its name is taken.
#[test]
fn a_new_buffer_is_written_in_the_files_syntax() {
    let e2 = inserted(FILES[0].1, ("7", 0), "tune0");
    assert!(e2.contains(
        "    %tune0 = buffer %7 {handshake.bb = 0 : ui32, handshake.name = \"tune0\", hw.parameters = {NUM_SLOTS = 2 : ui32, TIMING = #handshake<timing {D: 0, V: 0, R: 1}>}} : <i32>\n    %10 = trunci %tune0 "
    ), "{e2}");
    let e3 = inserted(FILES[1].1, ("0", 1), "tune0");
    assert!(e3.contains(
        "%tune0 = buffer %0#1 {handshake.bb = 0 : ui32, handshake.name = \"tune0\", hw.parameters = {BUFFER_TYPE = \"FIFO_BREAK_NONE\", NUM_SLOTS = 2 : ui32, TIMING = #handshake<timing {D: 0, V: 0, R: 1}>}} : <>"
    ), "{e3}");
    let e5 = inserted(FILES[4].1, ("arg0", 0), "tune0");
    assert!(e5.contains(
        "%tune0 = buffer %arg0, bufferType = FIFO_BREAK_NONE, numSlots = 2, dvLatency = 0 {handshake.bb = 0 : ui32, handshake.name = \"tune0\"} : <i32>\n    %2 = muli %tune0, %1"
    ), "{e5}");
    // `outputs` is an SSA name of mem_e4 already: the new result gets another.
    let mem = inserted(FILES[3].1, ("outputs", 0), "outputs");
    assert!(mem.contains(
        "%handscope_buffer0 = buffer %outputs, bufferType = FIFO_BREAK_NONE, numSlots = 2 {handshake.bb = 0 : ui32, handshake.name = \"outputs\"} : <i32>"
    ), "{mem}");
    // The memory controller's `memEnd`, which its printed type does not list, is a control.
    let end = inserted(FILES[3].1, ("memEnd", 0), "tune1");
    assert!(
        end.contains(
            "numSlots = 2 {handshake.bb = 0 : ui32, handshake.name = \"tune1\"} : <>\n    end {"
        ),
        "{end}"
    );
}

/// The written file of a tuned circuit simulates as the tuned graph does.
#[test]
fn a_written_file_simulates_like_the_changed_graph() {
    let src = FILES[2].1;
    let (m, module, names) = read(src);
    let f = module.default_function().unwrap();
    let tuned = apply(
        f,
        &[
            SlotChange {
                channel: "fork0.out1".into(),
                slots: 3,
            },
            SlotChange {
                channel: "buffer0.out0".into(),
                slots: 2,
            },
        ],
    )
    .unwrap();
    let edits = buffer_edits(f, &tuned, &names[0], &m.funcs[0]).unwrap();
    assert_eq!(edits.len(), 2);
    let out = write_edited(src, &m, &edits).unwrap();
    let back = reread(&out);
    let run = |f: &Function| {
        let mut env = Environment::default();
        env.push_tokens("x", TokenSource::Values(vec![7]));
        let mut sim = Simulation::new(f, env).unwrap();
        let r = sim.run(100);
        r.outputs
            .iter()
            .map(|(k, v)| (k.clone(), v.iter().map(|t| (t.cycle, t.bits)).collect()))
            .collect::<Vec<(String, Vec<_>)>>()
    };
    assert_eq!(run(back.default_function().unwrap()), run(&tuned));
    assert!(
        out.contains("bufferType = FIFO_BREAK_DV, numSlots = 3 {"),
        "{out}"
    );
    assert!(out.contains("%tune0 = buffer %0#1, bufferType = FIFO_BREAK_NONE, numSlots = 3"));
}

/// A change the file cannot say is refused, not written half.
#[test]
fn what_a_file_cannot_say_is_refused() {
    let (m, module, names) = read(FILES[2].1);
    let f = module.default_function().unwrap();
    let mut tuned = f.clone();
    let n = tuned.add_node(Op::Sink, vec![]);
    tuned.nodes[n].id = "stray".into();
    let e = buffer_edits(f, &tuned, &names[0], &m.funcs[0]).unwrap_err();
    assert!(e.to_string().contains("`stray` is a new component"), "{e}");
    let e = write_edited(
        FILES[2].1,
        &m,
        &[BufferEdit::Insert {
            func: "nope".into(),
            value: ("2".into(), 0),
            name: "b".into(),
            bb: None,
            kind: BufferType::FifoBreakNone,
            slots: 1,
        }],
    )
    .unwrap_err();
    assert_eq!(e, EditError::NoFunction("nope".into()));
}
