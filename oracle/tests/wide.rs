//! Data wider than 64 bits through Handscope's own SystemVerilog: two small circuits (an
//! `i128` adder behind a buffer with wide initial values, wide compare, multiply, truncation
//! and constant, a `tuple<i32, i64, i64>` unpacked and packed again, an internal memory of
//! `i96` elements with a `$readmemh` file, and an `extmemory` of `i96` elements) are written
//! as SystemVerilog, driven by the Verilator testbench of `handscope verilate` (wide ports
//! are `VlWide` arrays; tokens from value lists and from `start..end` ranges with negative
//! values), and every argument and result port is compared with the engine, cycle by cycle.
//! (The random graphs of `random_graphs.rs` compare wide data against CIRCT's RTL.)

use handscope_compiler::verilog::testbench::{
    TbDesign, memory_init_files, wrapper, write_testbench,
};
use handscope_compiler::verilog::{VerilogBuilder, encode_instance_name};
use handscope_oracle::vcd::Waves;
use handscope_sim::engine::Simulation;
use handscope_sim::stimulus::{Environment, ReadyPolicy, TokenSource};
use handscope_sim::{ArgType, ChannelId, Function, Op, wide};

const WIDE: &str = include_str!("../../testdata/wide_ops.mlir");

const WEXT: &str = r#"
handshake.func @wext(%mem: memref<4xi96>, %i: index, %k: index, %v: i96, %start: none, ...) -> (i96, i96, none) attributes {argNames = ["mem", "i", "k", "v", "start"], resNames = ["old", "sum", "done"]} {
  %ld0, %stDone, %ldDone0 = extmemory [ld = 1, st = 1] (%mem : memref<4xi96>) (%stData, %stAddr, %la0) {id = 0 : i32} : (i96, index, index) -> (i96, none, none)
  %sf:2 = fork [2] %start : none
  %v0, %la0 = load [%i] %ld0, %sf#0 : index, i96
  %vf:2 = fork [2] %v0 : i96
  %s = arith.addi %vf#1, %v : i96
  %sk:2 = fork [2] %s : i96
  %ctl = join %sf#1, %ldDone0 : none, none
  %stData, %stAddr = store [%k] %sk#1, %ctl : index, i96
  return %vf#0, %sk#0, %stDone : i96, i96, none
}
"#;

const MAX_CYCLES: u64 = 400;

fn parse(text: &str, name: &str) -> Function {
    let (m, _) = handscope_compiler::mlir::parse_mlir(text, name).expect("parses");
    m.default_function().expect("a function").clone()
}

/// Words of `width` bits: small, -1, 2^(width-1), and values with bits above bit 63.
fn wide_values(width: u32, count: usize) -> Vec<u64> {
    let n = wide::limb_count(width);
    let mut int_min = vec![0u64; n];
    int_min[n - 1] = 1 << ((width - 1) % 64);
    let mut v = vec![
        3,
        wide::from_limbs(&vec![u64::MAX; n], width),
        wide::from_limbs(&int_min, width),
    ];
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    while v.len() < count {
        let limbs: Vec<u64> = (0..wide::limb_count(width))
            .map(|_| {
                x = x
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                x ^ (x >> 29)
            })
            .collect();
        v.push(wide::from_limbs(&limbs, width));
    }
    v
}

fn environments(wide_f: &Function) -> (Environment, Environment) {
    let mut e1 = Environment::default();
    e1.inputs
        .insert("a".into(), vec![TokenSource::Values(wide_values(128, 12))]);
    e1.inputs.insert(
        "b".into(),
        vec![
            TokenSource::Range { start: -5, end: 3 },
            TokenSource::Values(wide_values(128, 6)),
        ],
    );
    let tuples: Vec<u64> = (0..14u64)
        .map(|k| wide::concat([(k, 32), (u64::MAX - k, 64), (k << 40, 64)]))
        .collect();
    e1.inputs
        .insert("t".into(), vec![TokenSource::Values(tuples)]);
    e1.inputs
        .insert("start".into(), vec![TokenSource::None(10)]);
    e1.ready
        .insert("sum".into(), ReadyPolicy::Random { seed: 7, prob: 0.6 });
    e1.ready
        .insert("t2".into(), ReadyPolicy::Pattern(vec![true, false, true]));
    let mem = wide_f
        .nodes
        .values()
        .find(|n| matches!(n.op, Op::Memory { .. }))
        .expect("memory")
        .id
        .clone();
    e1.memories.insert(mem, wide_values(96, 4));

    let mut e2 = Environment::default();
    e2.inputs.insert(
        "i".into(),
        vec![TokenSource::Values(vec![0, 1, 2, 3, 1, 1, 0, 2])],
    );
    e2.inputs.insert(
        "k".into(),
        vec![TokenSource::Values(vec![1, 2, 3, 0, 1, 3, 2, 0])],
    );
    e2.inputs
        .insert("v".into(), vec![TokenSource::Range { start: -3, end: 5 }]);
    e2.inputs.insert("start".into(), vec![TokenSource::None(8)]);
    e2.ready
        .insert("old".into(), ReadyPolicy::Pattern(vec![false, true]));
    e2.ext_memories.insert("mem".into(), wide_values(96, 4));
    (e1, e2)
}

/// Port names of a top module in the testbench wrapper's order (`d<k>_p<i>` is port `i`),
/// with the channel each carries and its role (memory ports come last and are left out).
fn top_ports(f: &Function) -> Vec<(String, ChannelId, &'static str)> {
    let mut v = Vec::new();
    for a in &f.args {
        if let (ArgType::Channel(t), Some(n)) = (&a.ty, a.node) {
            let ch = f.nodes[n].outputs[0];
            if t.bit_width() > 0 {
                v.push((encode_instance_name(&a.name), ch, "data"));
            }
            v.push((a.name.clone(), ch, "valid"));
            v.push((a.name.clone(), ch, "ready"));
        }
    }
    let ret = f
        .nodes
        .values()
        .find(|n| n.op == Op::Return)
        .expect("return");
    for (r, &ch) in f.results.iter().zip(&ret.inputs) {
        if r.ty.bit_width() > 0 {
            v.push((encode_instance_name(&r.name), ch, "data"));
        }
        v.push((r.name.clone(), ch, "valid"));
        v.push((r.name.clone(), ch, "ready"));
    }
    v
}

#[test]
fn handscope_sv_of_wide_channels_matches_the_engine() {
    if let Err(e) = handscope_traces::verilator::verilator_version() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "verilator is required under CI: {e}"
        );
        println!("skipping handscope_sv_of_wide_channels_matches_the_engine: {e}");
        return;
    }
    let fw = parse(WIDE, "wide");
    let fx = parse(WEXT, "wext");
    let (e1, e2) = environments(&fw);
    let mut b = VerilogBuilder::new();
    let tw = b.add(&fw, None).expect("wide SystemVerilog");
    let tx = b.add(&fx, None).expect("wext SystemVerilog");
    let designs = [
        TbDesign {
            top: tw.clone(),
            func: &fw,
            env: &e1,
            max_cycles: MAX_CYCLES,
            any_fire: true,
        },
        TbDesign {
            top: tx.clone(),
            func: &fx,
            env: &e2,
            max_cycles: MAX_CYCLES,
            any_fire: true,
        },
    ];
    let mut sv = b.finish();
    sv.push_str(&wrapper(&designs));
    let tb = write_testbench(&designs);
    assert!(tb.contains("WCursor"), "wide arguments use the wide cursor");
    let work = std::env::temp_dir().join(format!("hs-oracle-wide-{}", std::process::id()));
    std::fs::create_dir_all(&work).unwrap();
    let inits = memory_init_files(&tw, &fw, &e1);
    assert_eq!(inits.len(), 1);
    // Every element in full: 96-bit hexadecimal, no 64-bit truncation.
    assert!(inits[0].1.lines().any(|l| l.len() == 24), "{}", inits[0].1);
    for (name, text) in &inits {
        std::fs::write(work.join(name), text).unwrap();
    }
    let cfg = handscope_traces::verilator::BuildConfig {
        quick: true,
        reject_comb_loops: true,
        ..Default::default()
    };
    let vcd = handscope_traces::verilator::build_and_run_with(&work, &sv, &tb, &cfg)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut big_transfers = 0usize;
    for (k, (f, env)) in [(&fw, &e1), (&fx, &e2)].into_iter().enumerate() {
        let mut sim = Simulation::new(f, env.clone()).expect("the engine takes wide channels");
        sim.enable_trace();
        let report = sim.run(MAX_CYCLES);
        let trace = sim.take_trace().expect("trace");
        let cycles = trace.cycles();
        assert!(cycles > 8, "{}: {cycles} cycles ({report:?})", f.name);
        let mut waves = Waves::open_at(&vcd, (0..cycles).map(|c| 10 * (c + 2))).expect("VCD reads");
        let vars = waves.scope_vars("hs_tb").expect("scope hs_tb");
        let ports = top_ports(f);
        let refs: Vec<_> = (0..ports.len())
            .map(|i| {
                *vars
                    .get(&format!("d{k}_p{i}"))
                    .unwrap_or_else(|| panic!("no port d{k}_p{i}"))
            })
            .collect();
        waves.load(&refs);
        for ((name, ch, role), r) in ports.iter().zip(&refs) {
            let width = f.channels[*ch].ty.bit_width();
            let ch = ch.as_u32() as usize;
            let rtl = waves.samples(*r).expect("samples");
            for (c, got) in rtl.iter().enumerate() {
                let cy = trace.cycle(c as u64).expect("cycle");
                let (want, check) = match *role {
                    "valid" => (u64::from(cy.valid(ch)), true),
                    "ready" => (u64::from(cy.ready(ch)), true),
                    _ => (cy.data(ch), cy.valid(ch)),
                };
                if !check {
                    continue;
                }
                assert_eq!(
                    want,
                    *got,
                    "{}: cycle {c}, channel {} {role} `{name}`: engine {}, RTL {}",
                    f.name,
                    ch,
                    wide::to_hex(want, width.max(1)),
                    wide::to_hex(*got, width.max(1)),
                );
                if *role == "data"
                    && cy.ready(ch)
                    && wide::is_wide(width)
                    && wide::to_biguint(want, width).bits() > 64
                {
                    big_transfers += 1;
                }
            }
        }
        waves.unload(&refs);
    }
    assert!(
        big_transfers > 20,
        "only {big_transfers} transfers of values above 64 bits"
    );
    let _ = std::fs::remove_dir_all(&work);
}
