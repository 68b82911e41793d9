//! Address queues (`--memory queue`, issue #32): the `addr_queue` component cycle by cycle
//! (a load waits for the queued store to its address, passes a store to another address,
//! keeps offering once offered), read-after-write, write-after-read and write-after-write
//! through the same and different addresses in C, random access programs checked against
//! the sequential IR interpreter (proptest), a one-entry queue, and the deadlock sentence
//! of a store whose write never comes.

use std::collections::BTreeMap;

use handscope_compiler::c::{HsOptions, MemoryOrdering, compile_to_handshake, compile_to_ir};
use handscope_sim::engine::Simulation;
use handscope_sim::report::{RunReport, Status};
use handscope_sim::spec::timing::TimingProfile;
use handscope_sim::stimulus::{Environment, TokenSource};
use proptest::prelude::*;

use super::common::kernels::{interpreted, parse_args, simulate, simulate_timed};
use super::common::parse_ok;

/// One store port whose order token feeds the load port: the store at `st` is queued in
/// cycle 0 and offers `stOrderOut0` in cycle 1; the load (address `ld`) may go from then on.
/// The store is written (its `stDone0` arrives) after `done_delay` buffer slots.
fn queue_circuit(done_delay: u32) -> String {
    let done = if done_delay == 0 {
        "%d = merge %done : none".to_string()
    } else {
        format!("%d = buffer [{done_delay}] seq %done : none")
    };
    format!(
        "handshake.func @q(%ld: index, %st: index, %done: none, %start: none, ...) -> (index, none) attributes {{argNames = [\"ld\", \"st\", \"done\", \"start\"], resNames = [\"out\", \"fin\"]}} {{
  %s:2 = fork [2] %start : none
  %o:2 = addr_queue[ld = 1, st = 1, depth = 2] (%ld, %so, %st, %s#0, %d) : (index, none, index, none, none) -> (index, none)
  %so = buffer [1] seq %o#1 : none
  {done}
  return %o#0, %s#1 : index, none
}}
"
    )
}

fn run_queue(ld: u64, st: u64, done_delay: u32) -> RunReport {
    let m = parse_ok(&queue_circuit(done_delay));
    let f = m.default_function().expect("a function");
    let rep = handscope_sim::verify::verify(f);
    assert!(rep.is_ok(), "{rep:?}");
    let mut env = Environment::default();
    env.inputs
        .insert("ld".into(), vec![TokenSource::Values(vec![ld])]);
    env.inputs
        .insert("st".into(), vec![TokenSource::Values(vec![st])]);
    env.inputs.insert("done".into(), vec![TokenSource::None(1)]);
    env.inputs
        .insert("start".into(), vec![TokenSource::None(1)]);
    env.deadlock_window = 20;
    let mut sim = Simulation::new(f, env).expect("simulates");
    sim.run(60)
}

fn out_cycle(r: &RunReport) -> Option<u64> {
    r.outputs["out"].first().map(|t| t.cycle)
}

/// A load to the address of a queued store passes the cycle after the store's `stDone`
/// dequeues it; a load to another address passes as soon as its order token comes.
#[test]
fn a_load_waits_only_for_a_queued_store_to_its_address() {
    // The order token reaches the load in cycle 2 (stOrderOut0 in cycle 1, one slot).
    let other = run_queue(6, 5, 4);
    assert_eq!(out_cycle(&other), Some(2), "{other:?}");
    let same = run_queue(5, 5, 4);
    // stDone0 arrives in cycle 4 and dequeues; the load passes in cycle 5.
    assert_eq!(out_cycle(&same), Some(5), "{same:?}");
    let late = run_queue(5, 5, 9);
    assert_eq!(out_cycle(&late), Some(10), "{late:?}");
}

/// A store whose write never comes holds its address in the queue: a load to that address
/// waits forever, and the deadlock report follows the queue to the missing `stDone`.
#[test]
fn a_load_behind_a_store_that_is_never_written_is_explained() {
    let m = parse_ok(&queue_circuit(0));
    let f = m.default_function().expect("a function");
    let mut env = Environment::default();
    env.inputs
        .insert("ld".into(), vec![TokenSource::Values(vec![5])]);
    env.inputs
        .insert("st".into(), vec![TokenSource::Values(vec![5])]);
    env.inputs.insert("done".into(), vec![TokenSource::None(0)]);
    env.inputs
        .insert("start".into(), vec![TokenSource::None(1)]);
    env.deadlock_window = 20;
    let r = Simulation::new(f, env).expect("simulates").run(100);
    assert_eq!(r.status, Status::Deadlock, "{r:?}");
    let text = r
        .deadlock
        .as_ref()
        .expect("a report")
        .explanation
        .join("\n");
    assert!(
        text.contains("addr_queue0 waits for addr_queue0.stDone0"),
        "{text}"
    );
    assert!(text.contains("argument `done` ran out of tokens"), "{text}");
}

/// The MLIR form reads back as written.
#[test]
fn the_addr_queue_form_round_trips() {
    let src = queue_circuit(2);
    let m = parse_ok(&src);
    let text = handscope_compiler::mlir::write_mlir(&m);
    assert!(
        text.contains("addr_queue[ld = 1, st = 1, depth = 2]"),
        "{text}"
    );
    let back = parse_ok(&text);
    assert!(super::common::graphs_equivalent(&m, &back, false));
    // Depth 0 and a depth past the limit are refused where they are read.
    let e = handscope_compiler::mlir::parse_mlir(&src.replace("depth = 2", "depth = 0"), "t.mlir")
        .map(|_| ())
        .unwrap_err();
    assert!(
        e.render()
            .contains("needs between 1 and 1024 entries (found 0)"),
        "{}",
        e.render()
    );
    let e =
        handscope_compiler::mlir::parse_mlir(&src.replace("depth = 2", "depth = 5000"), "t.mlir")
            .map(|_| ())
            .unwrap_err();
    assert!(
        e.render().contains("at most 1024 entries"),
        "{}",
        e.render()
    );
}

/// Compiles `src` (top `f`) with `memory` and the queue depth `depth` (`None`: default).
fn compile(
    src: &str,
    memory: MemoryOrdering,
    depth: Option<u32>,
    fpga: bool,
) -> handscope_sim::Function {
    let mut lsq_depths = BTreeMap::new();
    if let Some(d) = depth {
        lsq_depths.insert("mem.a".to_string(), (d, d));
    }
    let opts = HsOptions {
        memory,
        lsq_depths,
        timing: if fpga {
            TimingProfile::fpga()
        } else {
            TimingProfile::ideal()
        },
        ..Default::default()
    };
    let m = compile_to_handshake(src, "q.c", Some("f"), &opts)
        .unwrap_or_else(|e| panic!("{e:?}\n{src}"));
    m.functions.into_iter().next().expect("one function")
}

/// Runs `src` on `run` under serial order and address queues (default depth, one entry,
/// `fpga` latencies); every run gives the interpreter's answer. Returns the cycles of the
/// serial and the default queue runs.
fn check(src: &str, run: &str) -> (u64, u64) {
    let ir = compile_to_ir(src, "q.c", Some("f")).unwrap_or_else(|e| panic!("{e:?}\n{src}"));
    let args = parse_args(&ir, run);
    let want = interpreted(&ir, &args);
    let mut cycles = Vec::new();
    for (memory, depth, fpga) in [
        (MemoryOrdering::Serial, None, false),
        (MemoryOrdering::Queue, None, false),
        (MemoryOrdering::Queue, Some(1), false),
        (MemoryOrdering::Queue, None, true),
    ] {
        let has_queue = |f: &handscope_sim::Function| {
            f.nodes
                .values()
                .any(|n| matches!(n.op, handscope_sim::Op::AddrQueue { .. }))
        };
        if depth.is_some() && !has_queue(&compile(src, memory, None, fpga)) {
            // Loads only or stores only: no queue to size.
            continue;
        }
        let hs = compile(src, memory, depth, fpga);
        let rep = handscope_sim::verify::verify(&hs);
        assert!(rep.is_ok(), "{rep:?}\n{src}");
        let what = format!("{memory:?} depth {depth:?} fpga {fpga}\n{src}\nRUN {run}");
        let sim = if fpga {
            simulate_timed(
                &ir,
                &hs,
                std::slice::from_ref(&args),
                200_000,
                &what,
                &TimingProfile::fpga(),
            )
        } else {
            simulate(&ir, &hs, std::slice::from_ref(&args), 200_000, &what)
        };
        assert_eq!(sim.outcome(), want, "{what}");
        cycles.push(sim.report.cycles);
    }
    (cycles[0], cycles[1])
}

/// Read-after-write, write-after-read and write-after-write through the same address and
/// through different ones, in one loop body.
#[test]
fn dependences_through_same_and_different_addresses_keep_program_order() {
    let src = "int f(int a[8], int n) {
    int s = 0;
    for (int i = 0; i < n; i++) {
        a[i & 7] = s + i;          // store
        s += a[i & 7];             // read after write, same address
        s += a[(i + 3) & 7];       // read, another address (passes the store)
        a[(i + 3) & 7] = s;        // write after read, same address
        a[(i + 3) & 7] = s * 2;    // write after write, same address
        a[(i + 5) & 7] = -s;       // write after write, another address
    }
    return s;
}";
    check(src, "[1 2 3 4 5 6 7 8] 11");
}

/// A loop whose loads go to other addresses than the stores before them is faster with the
/// queue than with serial order.
#[test]
fn loads_passing_stores_to_other_addresses_save_cycles() {
    let src = "int f(int a[16], const int b[16], int n) {
    int s = 0;
    for (int i = 0; i < n; i++) {
        a[b[i] & 15] += i;
        s += a[(i * 7) & 15];
    }
    return s;
}";
    let (serial, queue) = check(
        src,
        "[0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0] [3 1 4 1 5 9 2 6 5 3 5 8 9 7 9 3] 16",
    );
    assert!(queue < serial, "queue {queue} vs serial {serial}");
}

/// One random statement of the loop body of [`random_programs_equal_the_sequential_order`].
#[derive(Clone, Debug)]
enum Stmt {
    /// `a[A] = s + k;`
    Store(Addr, i8),
    /// `s += a[A];`
    Load(Addr),
    /// `a[A] += s;`
    Update(Addr),
    /// `if (s & 1) a[A] = k;`
    CondStore(Addr, i8),
}

/// An address expression over 8 words: a constant, the loop index or a value read from the
/// input `idx` (data-dependent), each plus an offset.
#[derive(Clone, Debug)]
enum Addr {
    Const(u8),
    Iter(u8),
    Data(u8),
}

impl Addr {
    fn text(&self) -> String {
        match self {
            Addr::Const(c) => format!("{}", c & 7),
            Addr::Iter(o) => format!("(i + {o}) & 7"),
            Addr::Data(o) => format!("(idx[i] + {o}) & 7"),
        }
    }
}

fn addr() -> impl Strategy<Value = Addr> {
    prop_oneof![
        (0u8..8).prop_map(Addr::Const),
        (0u8..8).prop_map(Addr::Iter),
        (0u8..8).prop_map(Addr::Data),
    ]
}

fn stmt() -> impl Strategy<Value = Stmt> {
    prop_oneof![
        (addr(), any::<i8>()).prop_map(|(a, k)| Stmt::Store(a, k)),
        addr().prop_map(Stmt::Load),
        addr().prop_map(Stmt::Update),
        (addr(), any::<i8>()).prop_map(|(a, k)| Stmt::CondStore(a, k)),
    ]
}

fn program(body: &[Stmt]) -> String {
    let mut s = String::from(
        "int f(int a[8], const int idx[12], int n) {\n    int s = 1;\n    for (int i = 0; i < n; i++) {\n",
    );
    for st in body {
        let line = match st {
            Stmt::Store(a, k) => format!("a[{}] = s + {k};", a.text()),
            Stmt::Load(a) => format!("s += a[{}];", a.text()),
            Stmt::Update(a) => format!("a[{}] += s;", a.text()),
            Stmt::CondStore(a, k) => format!("if (s & 1) a[{}] = {k};", a.text()),
        };
        s.push_str("        ");
        s.push_str(&line);
        s.push('\n');
    }
    s.push_str("    }\n    return s;\n}\n");
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Random loop bodies of loads and stores to 8 words (so accesses collide often), at
    /// constant, induction and data-dependent addresses, some stores conditional: under
    /// serial order, address queues of 16 entries and of one entry, and the `fpga`
    /// latencies, every run returns what the sequential interpreter does and leaves the
    /// array as it does.
    #[test]
    fn random_programs_equal_the_sequential_order(
        body in prop::collection::vec(stmt(), 1..6),
        init in prop::collection::vec(-9i32..9, 8),
        idx in prop::collection::vec(0i32..8, 12),
        n in 0i32..12,
    ) {
        let src = program(&body);
        let list = |v: &[i32]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" ");
        let run = format!("[{}] [{}] {n}", list(&init), list(&idx));
        check(&src, &run);
    }
}

/// A queue of one entry still runs every program (a store waits for the previous one's
/// write before it is queued).
#[test]
fn a_one_entry_queue_is_enough() {
    let src = program(&[
        Stmt::Store(Addr::Iter(0), 3),
        Stmt::Store(Addr::Iter(1), 4),
        Stmt::Load(Addr::Iter(1)),
        Stmt::Update(Addr::Data(2)),
    ]);
    check(&src, "[1 2 3 4 5 6 7 8] [0 1 2 3 4 5 6 7 0 1 2 3] 12");
}

/// `throughput` counts the cycles loads waited for queued stores to their address and the
/// cycles stores waited for room: the same circuit as in
/// [`a_load_waits_only_for_a_queued_store_to_its_address`] (the load waits cycles 2 to 4),
/// and none when the addresses differ.
#[test]
fn throughput_counts_the_cycles_a_load_waited_for_a_queued_store() {
    let waits = |ld: u64| {
        let m = parse_ok(&queue_circuit(4));
        let f = m.default_function().expect("a function");
        let mut env = Environment::default();
        env.inputs
            .insert("ld".into(), vec![TokenSource::Values(vec![ld])]);
        env.inputs
            .insert("st".into(), vec![TokenSource::Values(vec![5])]);
        env.inputs.insert("done".into(), vec![TokenSource::None(1)]);
        env.inputs
            .insert("start".into(), vec![TokenSource::None(1)]);
        let mut sim = Simulation::new(f, env).expect("simulates");
        sim.enable_trace();
        sim.run(60);
        let trace = sim.take_trace().expect("a trace");
        let r = handscope_sim::throughput::analyze(f, &trace);
        assert_eq!(r.queues.len(), 1);
        let q = &r.queues[0];
        assert_eq!(q.queue, "addr_queue0");
        let text = handscope_sim::throughput::render_text(&r);
        assert!(
            text.contains("memory ordering in addr_queue0: loads waited"),
            "{text}"
        );
        (
            q.load_entry_cycles_blocked,
            q.cycles_with_blocked_loads,
            q.store_cycles_blocked,
        )
    };
    assert_eq!(waits(5), (3, 3, 0));
    assert_eq!(waits(6), (0, 0, 0));
}
