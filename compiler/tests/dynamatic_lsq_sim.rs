//! Dynamatic's load-store queue simulated (issue #32): circuits written for these tests in
//! Dynamatic's dialect (era E4), read, lowered and run. Hand-worked cycles from
//! `docs/semantics.md` ("The load-store queue") for read-after-write, write-after-read and
//! write-after-write through the same and different addresses; random access programs
//! checked against a sequential model of the program (proptest); a queue too shallow for its
//! group named by the deadlock report; a slave queue behind a memory controller; loads only,
//! stores only.

use std::fmt::Write;

use handscope_compiler::mlir::dynamatic::{DynTiming, LsqDepths, lower_with_depths};
use handscope_compiler::mlir::parse_dynamatic;
use handscope_sim::engine::Simulation;
use handscope_sim::report::{RunReport, Status, Value};
use handscope_sim::stimulus::Environment;
use proptest::prelude::*;

/// One access of a test program.
#[derive(Clone, Debug)]
enum Access {
    /// `a[addr]`, its address arriving after `delay` extra buffers.
    Load { addr: u8, delay: u8 },
    /// `a[addr] = data`, address and data after their own delays.
    Store {
        addr: u8,
        data: i32,
        addr_delay: u8,
        data_delay: u8,
    },
}

/// Words of the test memory `a`.
const WORDS: usize = 8;

/// A function in Dynamatic's dialect whose groups (one per basic block, run one after the
/// other) make the accesses of `groups` through one queue of `depth` (master), or through a
/// slave queue behind a memory controller; the load results are `out<k>` in program order.
fn program(groups: &[Vec<Access>], depth: (u32, u32), slave: bool) -> String {
    // A slave queue without loads has no read path: the tests use the master form then.
    let slave = slave
        && groups
            .iter()
            .flatten()
            .any(|a| matches!(a, Access::Load { .. }));
    let mut body = String::new();
    let mut n = 0usize;
    let mut fresh = |p: &str| {
        n += 1;
        format!("{p}{n}")
    };
    let attrs = |name: &str, bb: usize| {
        format!("{{handshake.bb = {bb} : ui32, handshake.name = \"{name}\"}}")
    };
    // The group's control chain: c_g -> fork (triggers) -> lazy_fork -> (lsq ctrl, buffer ->
    // c_{g+1}); the lazy fork hands the next group its token only once the queue took this
    // group's, as basic blocks run one after the other.
    let mut ctrl = "%arg2".to_string();
    let mut lsq_operands: Vec<(String, &str)> = Vec::new();
    let mut group_sizes = Vec::new();
    let mut load_results = Vec::new();
    let mut loads = 0usize;
    let mut stores = 0usize;
    for (g, accesses) in groups.iter().enumerate() {
        let triggers: usize = accesses
            .iter()
            .map(|a| match a {
                Access::Load { .. } => 1,
                Access::Store { .. } => 2,
            })
            .sum();
        let f = fresh("%f");
        let _ = writeln!(
            body,
            "    {f}:{} = fork [{}] {ctrl} {} : <>",
            triggers + 1,
            triggers + 1,
            attrs(&f[1..], g)
        );
        let lf = fresh("%lf");
        let _ = writeln!(
            body,
            "    {lf}:2 = lazy_fork [2] {f}#0 {} : <>",
            attrs(&lf[1..], g)
        );
        let b = fresh("%b");
        let _ = writeln!(
            body,
            "    {b} = buffer {lf}#1, bufferType = ONE_SLOT_BREAK_DV, numSlots = 1 {} : <>",
            attrs(&b[1..], g)
        );
        lsq_operands.push((format!("{lf}#0"), "!handshake.control<>"));
        let mut t = 1;
        let mut delayed = |body: &mut String, value: i64, ty: &str, delay: u8, trig: &str| {
            let c = fresh("%c");
            let _ = writeln!(
                body,
                "    {c} = constant {trig} {{handshake.bb = {g} : ui32, handshake.name = \"{}\", value = {value} : {ty}}} : <>, <{ty}>",
                &c[1..]
            );
            let mut v = c;
            for _ in 0..delay {
                let d = fresh("%d");
                let _ = writeln!(
                    body,
                    "    {d} = buffer {v}, bufferType = ONE_SLOT_BREAK_DV, numSlots = 1 {} : <{ty}>",
                    attrs(&d[1..], g)
                );
                v = d;
            }
            v
        };
        for a in accesses {
            match a {
                Access::Load { addr, delay } => {
                    let av = delayed(
                        &mut body,
                        i64::from(*addr),
                        "i3",
                        *delay,
                        &format!("{f}#{t}"),
                    );
                    t += 1;
                    let k = loads;
                    loads += 1;
                    let _ = writeln!(
                        body,
                        "    %la{k}, %ld{k} = load[{av}] %q#{k} {{handshake.bb = {g} : ui32, handshake.mem_interface = #handshake.mem_interface<LSQ: {g}>, handshake.name = \"load{k}\"}} : <i3>, <i32>, <i3>, <i32>"
                    );
                    lsq_operands.push((format!("%la{k}"), "!handshake.channel<i3>"));
                    load_results.push(format!("%ld{k}"));
                }
                Access::Store {
                    addr,
                    data,
                    addr_delay,
                    data_delay,
                } => {
                    let av = delayed(
                        &mut body,
                        i64::from(*addr),
                        "i3",
                        *addr_delay,
                        &format!("{f}#{t}"),
                    );
                    let dv = delayed(
                        &mut body,
                        i64::from(*data),
                        "i32",
                        *data_delay,
                        &format!("{f}#{}", t + 1),
                    );
                    t += 2;
                    let k = stores;
                    stores += 1;
                    let _ = writeln!(
                        body,
                        "    %sa{k}, %sd{k} = store[{av}] {dv} {{handshake.bb = {g} : ui32, handshake.mem_interface = #handshake.mem_interface<LSQ: {g}>, handshake.name = \"store{k}\"}} : <i3>, <i32>, <i3>, <i32>"
                    );
                    lsq_operands.push((format!("%sa{k}"), "!handshake.channel<i3>"));
                    lsq_operands.push((format!("%sd{k}"), "!handshake.channel<i32>"));
                }
            }
        }
        group_sizes.push(format!("{} : i32", accesses.len()));
        ctrl = b;
    }
    let last = groups.len();
    let _ = writeln!(
        body,
        "    %fe:3 = fork [3] {ctrl} {} : <>",
        attrs("fork_end", last)
    );
    let sizes = group_sizes.join(", ");
    let depth_attr = format!(
        "handshake.lsqDepth = #handshake<lsqDepth[{}, {}]>",
        depth.0, depth.1
    );
    let mut results: Vec<String> = load_results.clone();
    let mut result_types: Vec<&str> = vec!["<i32>"; loads];
    if slave {
        // The controller announces every store through one block count; the queue's
        // requests are its only ports.
        let _ = writeln!(
            body,
            "    %cnt = constant %fe#2 {{handshake.bb = {last} : ui32, handshake.name = \"store_count\", value = {stores} : i32}} : <>, <i32>"
        );
        let ops: Vec<&str> = lsq_operands.iter().map(|(v, _)| v.as_str()).collect();
        let tys: Vec<&str> = lsq_operands.iter().map(|(_, t)| *t).collect();
        let mut outs = vec!["!handshake.channel<i32>"; loads];
        outs.extend([
            "!handshake.channel<i3>",
            "!handshake.channel<i3>",
            "!handshake.channel<i32>",
        ]);
        let from_mc = if loads > 0 { ", %mcd" } else { "" };
        let from_mc_t = if loads > 0 {
            ", !handshake.channel<i32>"
        } else {
            ""
        };
        let _ = writeln!(
            body,
            "    %q:{} = lsq[MC] ({}{from_mc}) {{groupSizes = [{sizes}], {depth_attr}, handshake.name = \"lsq0\"}} : ({}{from_mc_t}) -> ({})",
            loads + 3,
            ops.join(", "),
            tys.join(", "),
            outs.join(", ")
        );
        let (mc_out, mc_out_t) = if loads > 0 {
            ("%mcd, %mem_end", "!handshake.channel<i32>")
        } else {
            ("%mem_end", "")
        };
        let mc_ld = if loads > 0 {
            format!(", %q#{loads}")
        } else {
            String::new()
        };
        let mc_ld_t = if loads > 0 {
            ", !handshake.channel<i3>"
        } else {
            ""
        };
        let _ = writeln!(
            body,
            "    {mc_out} = mem_controller[%arg0 : memref<8xi32>] %arg1 (%cnt{mc_ld}, %q#{}, %q#{}) %fe#0 {{connectedBlocks = [0 : i32], handshake.name = \"mem_controller0\"}} :    (!handshake.channel<i32>{mc_ld_t}, !handshake.channel<i3>, !handshake.channel<i32>) -> {mc_out_t}",
            loads + 1,
            loads + 2
        );
        results.push("%mem_end".into());
    } else {
        let _ = writeln!(
            body,
            "    %ignored = sink %fe#2 {} : <>",
            attrs("sink_end", last)
        );
        let ops: Vec<&str> = lsq_operands.iter().map(|(v, _)| v.as_str()).collect();
        let tys: Vec<&str> = lsq_operands.iter().map(|(_, t)| *t).collect();
        let mut outs = vec!["!handshake.channel<i32>"; loads];
        outs.push("!handshake.control<>");
        let _ = writeln!(
            body,
            "    %q:{} = lsq[%arg0 : memref<8xi32>] (%arg1, {}, %fe#0) {{groupSizes = [{sizes}], {depth_attr}, handshake.name = \"lsq0\"}} : (!handshake.control<>, {}, !handshake.control<>) -> ({})",
            loads + 1,
            ops.join(", "),
            tys.join(", "),
            outs.join(", ")
        );
        results.push(format!("%q#{loads}"));
    }
    results.push("%fe#1".into());
    result_types.push("<>");
    result_types.push("<>");
    let _ = writeln!(
        body,
        "    end {} {} : {}",
        attrs("end0", last),
        results.join(", "),
        result_types.join(", ")
    );
    let mut res_names: Vec<String> = (0..loads).map(|k| format!("\"out{k}\"")).collect();
    res_names.push("\"a_end\"".into());
    res_names.push("\"end\"".into());
    let mut sig_results = vec!["!handshake.channel<i32>"; loads];
    sig_results.push("!handshake.control<>");
    sig_results.push("!handshake.control<>");
    let body = body.replace("%ignored = sink", "sink");
    format!(
        "module {{\n  handshake.func @t(%arg0: memref<8xi32>, %arg1: !handshake.control<>, %arg2: !handshake.control<>, ...) -> ({}) attributes {{argNames = [\"a\", \"a_start\", \"start\"], resNames = [{}]}} {{\n{body}  }}\n}}\n",
        sig_results.join(", "),
        res_names.join(", ")
    )
}

/// The program run in order: each load's value, and the memory at the end.
fn sequential(groups: &[Vec<Access>], init: &[i32]) -> (Vec<i32>, Vec<i32>) {
    let mut mem = init.to_vec();
    let mut loads = Vec::new();
    for a in groups.iter().flatten() {
        match *a {
            Access::Load { addr, .. } => loads.push(mem[addr as usize]),
            Access::Store { addr, data, .. } => mem[addr as usize] = data,
        }
    }
    (loads, mem)
}

/// Reads, lowers and runs `text` with the memory `a` starting as `init`.
fn simulate(text: &str, init: &[i32], depths: &LsqDepths) -> RunReport {
    let (m, _) =
        parse_dynamatic(text, "t.mlir").unwrap_or_else(|e| panic!("{}\n{text}", e.render()));
    let module = lower_with_depths(&m, text, "t.mlir", &DynTiming::builtin(), depths)
        .unwrap_or_else(|e| panic!("{}\n{text}", e.render()));
    let f = module.default_function().expect("a function");
    let report = handscope_sim::verify::verify(f);
    assert!(report.is_ok(), "{report:?}\n{text}");
    let mut env = Environment::default();
    env.ext_memories
        .insert("a".into(), init.iter().map(|&v| v as u32 as u64).collect());
    let mut sim = Simulation::new(f, env).expect("simulates");
    sim.run(2000)
}

/// The value and cycle of each `out<k>`.
fn loads_of(r: &RunReport, n: usize) -> Vec<(i32, u64)> {
    (0..n)
        .map(|k| {
            let t = &r.outputs[&format!("out{k}")];
            assert_eq!(t.len(), 1, "out{k}: {t:?}");
            let v = match t[0].value {
                Some(Value::Signed(v)) => v as i32,
                ref other => panic!("out{k}: {other:?}"),
            };
            (v, t[0].cycle)
        })
        .collect()
}

fn memory_of(r: &RunReport) -> Vec<i32> {
    r.memories["a"]
        .iter()
        .map(|v| match v {
            Value::Signed(v) => *v as i32,
            other => panic!("{other:?}"),
        })
        .collect()
}

const INIT: [i32; WORDS] = [10, 11, 12, 13, 14, 15, 16, 17];

fn ld(addr: u8) -> Access {
    Access::Load { addr, delay: 0 }
}

fn st(addr: u8, data: i32) -> Access {
    Access::Store {
        addr,
        data,
        addr_delay: 0,
        data_delay: 0,
    }
}

/// One group (load a[2], store a[2] = 7), the load first in program order: the group is
/// allocated in cycle 0, both addresses arrive in cycle 1, the load goes to memory in cycle 2
/// and its data (12) leaves in cycle 4; the store, blocked by the older load to its address
/// until that load's data is taken, writes in cycle 5, is acknowledged in cycle 6 and frees
/// its entry; with both queues empty and `ctrlEnd` there, `memEnd` is offered from cycle 8.
#[test]
fn write_after_read_waits_for_the_load() {
    let groups = vec![vec![ld(2), st(2, 7)]];
    let r = simulate(&program(&groups, (4, 4), false), &INIT, &LsqDepths::new());
    assert_eq!(r.status, Status::Done, "{r:?}");
    assert_eq!(loads_of(&r, 1), [(12, 4)]);
    assert_eq!(memory_of(&r)[2], 7);
    assert_eq!(r.outputs["a_end"][0].cycle, 8);
}

/// Store a[2] = 7 then load a[2] in one group: the load takes the store's data (forwarding)
/// in cycle 2, the cycle after both addresses and the data arrived, and leaves in cycle 3,
/// a cycle earlier than a read from memory; the store writes in cycle 2 too.
#[test]
fn read_after_write_to_the_same_address_is_forwarded() {
    let groups = vec![vec![st(2, 7), ld(2)]];
    let r = simulate(&program(&groups, (4, 4), false), &INIT, &LsqDepths::new());
    assert_eq!(r.status, Status::Done, "{r:?}");
    assert_eq!(loads_of(&r, 1), [(7, 3)]);
    assert_eq!(memory_of(&r)[2], 7);
}

/// Store a[3] = 7 then load a[2]: once the store's address is known and differs, the load
/// passes it and reads memory in cycle 2 (data out in cycle 4), the old value.
#[test]
fn read_after_write_to_another_address_passes_the_store() {
    let groups = vec![vec![st(3, 7), ld(2)]];
    let r = simulate(&program(&groups, (4, 4), false), &INIT, &LsqDepths::new());
    assert_eq!(loads_of(&r, 1), [(12, 4)]);
    assert_eq!(memory_of(&r)[3], 7);
}

/// A load whose older store's address comes late waits for it: two buffers make the store's
/// address arrive in cycle 2 instead of 1, so the load, conflicting with an unknown address
/// until then, takes the forwarded value in cycle 3 and leaves in cycle 4.
#[test]
fn a_load_waits_for_an_older_store_without_address() {
    let groups = vec![vec![
        Access::Store {
            addr: 2,
            data: 7,
            addr_delay: 2,
            data_delay: 0,
        },
        ld(2),
    ]];
    let r = simulate(&program(&groups, (4, 4), false), &INIT, &LsqDepths::new());
    assert_eq!(loads_of(&r, 1), [(7, 4)]);
}

/// `throughput` counts what the order cost: here the load waited one cycle (2) for the older
/// store whose address came late (in cycle 3 the store forwards its data), and the queue's
/// group never waited for room.
#[test]
fn throughput_counts_the_cycles_a_load_waited_for_an_older_store() {
    let groups = vec![vec![
        Access::Store {
            addr: 2,
            data: 7,
            addr_delay: 2,
            data_delay: 0,
        },
        ld(2),
    ]];
    let text = program(&groups, (4, 4), false);
    let (m, _) = parse_dynamatic(&text, "t.mlir").unwrap();
    let module = lower_with_depths(
        &m,
        &text,
        "t.mlir",
        &DynTiming::builtin(),
        &LsqDepths::new(),
    )
    .unwrap();
    let f = module.default_function().unwrap();
    let mut env = Environment::default();
    env.ext_memories
        .insert("a".into(), INIT.iter().map(|&v| v as u64).collect());
    let mut sim = Simulation::new(f, env).unwrap();
    sim.enable_trace();
    sim.run(100);
    let trace = sim.take_trace().unwrap();
    let r = handscope_sim::throughput::analyze(f, &trace);
    assert_eq!(r.queues.len(), 1);
    let q = &r.queues[0];
    assert_eq!(q.queue, "lsq0");
    assert_eq!(
        (
            q.load_entry_cycles_blocked,
            q.cycles_with_blocked_loads,
            q.store_cycles_blocked,
            q.group_cycles_waiting
        ),
        (1, 1, 0, 0),
        "{q:?}"
    );
    assert!(handscope_sim::throughput::render_text(&r).contains("memory ordering in lsq0"));
}

/// Two stores to one address in two groups, then a load: the stores write in order and the
/// load gets the younger one's data (write after write).
#[test]
fn write_after_write_keeps_program_order() {
    let groups = vec![vec![st(5, 1)], vec![st(5, 2)], vec![ld(5)]];
    let r = simulate(&program(&groups, (2, 2), false), &INIT, &LsqDepths::new());
    assert_eq!(r.status, Status::Done, "{r:?}");
    assert_eq!(loads_of(&r, 1)[0].0, 2);
    assert_eq!(memory_of(&r)[5], 2);
}

/// Loads only and stores only: queues of one kind.
#[test]
fn loads_only_and_stores_only() {
    let groups = vec![vec![ld(0), ld(1)], vec![ld(7)]];
    let r = simulate(&program(&groups, (2, 1), false), &INIT, &LsqDepths::new());
    assert_eq!(r.status, Status::Done, "{r:?}");
    let v: Vec<i32> = loads_of(&r, 3).iter().map(|l| l.0).collect();
    assert_eq!(v, [10, 11, 17]);
    let groups = vec![vec![st(0, 5), st(1, 6)], vec![st(0, 9)]];
    let r = simulate(&program(&groups, (1, 2), false), &INIT, &LsqDepths::new());
    assert_eq!(r.status, Status::Done, "{r:?}");
    assert_eq!(&memory_of(&r)[..2], [9, 6]);
}

/// A slave queue behind a memory controller: its reads and writes go through the
/// controller's ports, a read answered the cycle after the controller takes it.
#[test]
fn a_slave_queue_goes_through_the_memory_controller() {
    let groups = vec![vec![ld(2), st(2, 7)], vec![st(4, 8), ld(4)], vec![ld(2)]];
    let r = simulate(&program(&groups, (4, 4), true), &INIT, &LsqDepths::new());
    assert_eq!(r.status, Status::Done, "{r:?}");
    let v: Vec<i32> = loads_of(&r, 3).iter().map(|l| l.0).collect();
    assert_eq!(v, [12, 8, 7]);
    assert_eq!(memory_of(&r)[2], 7);
    assert_eq!(memory_of(&r)[4], 8);
}

/// `--lsq-depth` overrides the file's depths; a queue too shallow for a group never
/// allocates it, and the deadlock report says so.
#[test]
fn a_queue_too_shallow_for_its_group_is_named() {
    let groups = vec![vec![ld(0), ld(1), st(2, 3)]];
    let text = program(&groups, (4, 4), false);
    let mut depths = LsqDepths::new();
    depths.insert("lsq0".into(), (1, 4));
    let r = simulate(&text, &INIT, &depths);
    assert_eq!(r.status, Status::Deadlock, "{r:?}");
    let d = r.deadlock.as_ref().expect("a deadlock report");
    let cause = d.explanation.join("\n");
    assert!(
        cause.contains(
            "Most likely cause: lsq0's queues (1 load / 4 store entries) are too shallow for \
             its largest group (2 loads, 1 stores)"
        ),
        "{cause}"
    );
    // A name that is not a queue of the file is an error, naming the queues it has.
    let mut wrong = LsqDepths::new();
    wrong.insert("lsq9".into(), (4, 4));
    let src = program(&groups, (4, 4), false);
    let (m, _) = parse_dynamatic(&src, "t.mlir").unwrap();
    let e = lower_with_depths(&m, &src, "t.mlir", &DynTiming::builtin(), &wrong).unwrap_err();
    assert!(e.message.contains("`lsq0`"), "{}", e.message);
}

fn access() -> impl Strategy<Value = Access> {
    prop_oneof![
        (0u8..4, 0u8..3).prop_map(|(addr, delay)| Access::Load { addr, delay }),
        (0u8..4, -50i32..50, 0u8..3, 0u8..4).prop_map(|(addr, data, addr_delay, data_delay)| {
            Access::Store {
                addr,
                data,
                addr_delay,
                data_delay,
            }
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Random programs over four addresses (so accesses collide often), with addresses and
    /// data arriving late at random, through queues from just deep enough to 4 entries,
    /// master and slave: every load gets the value the program order gives, memory ends as
    /// in order, and the run ends.
    #[test]
    fn random_programs_equal_the_sequential_order(
        groups in prop::collection::vec(prop::collection::vec(access(), 1..4), 1..5),
        extra in (0u32..3, 0u32..3),
        slave in any::<bool>(),
    ) {
        let count = |g: &Vec<Access>, load: bool| {
            g.iter().filter(|a| matches!(a, Access::Load { .. }) == load).count() as u32
        };
        let big_l = groups.iter().map(|g| count(g, true)).max().unwrap_or(0);
        let big_s = groups.iter().map(|g| count(g, false)).max().unwrap_or(0);
        let depth = ((big_l + extra.0).max(1), (big_s + extra.1).max(1));
        let text = program(&groups, depth, slave);
        let r = simulate(&text, &INIT, &LsqDepths::new());
        prop_assert_eq!(r.status, Status::Done, "{:?}\n{}", r.deadlock, text);
        let (want_loads, want_mem) = sequential(&groups, &INIT);
        let got: Vec<i32> = loads_of(&r, want_loads.len()).iter().map(|l| l.0).collect();
        prop_assert_eq!(got, want_loads, "{}", text);
        prop_assert_eq!(memory_of(&r), want_mem, "{}", text);
        prop_assert!(r.events.is_empty(), "{:?}", r.events);
    }
}

/// Three groups whose controls come from one fork arrive in the same cycle: Dynamatic's RTL
/// (and the engine) takes all three tokens and allocates the bitwise OR of their counts, and
/// the run reports it once as a `lsq-groups-together` event.
#[test]
fn groups_allocated_together_are_reported() {
    let text = include_str!("data/dynamatic/lsq3_e4.mlir");
    let r = simulate(text, &INIT, &LsqDepths::new());
    let kinds: Vec<_> = r
        .events
        .iter()
        .map(|e| (e.cycle, e.node.as_str(), e.kind))
        .collect();
    assert_eq!(
        kinds,
        [(
            0,
            "lsq0",
            handscope_sim::report::EventKind::LsqGroupsTogether
        )]
    );
    assert!(
        r.events[0].message.contains("groups 0 and 1 and 2"),
        "{:?}",
        r.events
    );
}

/// A queue whose memref type is not its argument's is refused at the memref (found by the
/// byte-mutation proptest: the writer wrote the queue's type, which the reader then refused).
#[test]
fn a_queue_memref_of_another_type_is_refused() {
    let text = program(&[vec![ld(1)]], (2, 2), false)
        .replace("lsq[%arg0 : memref<8xi32>]", "lsq[%arg0 : memref<1xi32>]");
    let (m, _) = parse_dynamatic(&text, "t.mlir").unwrap_or_else(|e| panic!("{}", e.render()));
    let e = lower_with_depths(
        &m,
        &text,
        "t.mlir",
        &DynTiming::builtin(),
        &LsqDepths::new(),
    )
    .unwrap_err();
    assert!(
        e.message.contains(
            "`%arg0` is a memref<8xi32>, but the memory interface declares it as memref<1xi32>"
        ),
        "{}",
        e.render()
    );
}
