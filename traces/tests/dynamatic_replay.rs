//! Waveforms in Dynamatic's RTL naming (what GHDL or ModelSim dump for its generated VHDL:
//! nets `<handshake.name>_<port>`, `clk`, `rst`) replay onto the graph read from the same
//! Dynamatic file without a mapping file. The VCDs are written here from the engine's own
//! trace, in that naming.

use std::fmt::Write as _;

use handscope_compiler::mlir::dynamatic::{DynTiming, lower};
use handscope_compiler::mlir::parse_dynamatic;
use handscope_sim::stimulus::{Environment, TokenSource};
use handscope_sim::{ArgType, Function};
use handscope_traces::dynamatic_names::channel_net;
use handscope_traces::vcd_in::{ReplayOptions, replay_file};

use crate::common::{assert_same_trace, engine_run};

fn function(src: &str) -> Function {
    let (m, _) = parse_dynamatic(src, "k.mlir").unwrap();
    let mut module = lower(&m, src, "k.mlir", &DynTiming::builtin()).unwrap();
    module.functions.remove(0)
}

/// A VCD of `trace` in Dynamatic's naming: scope `tb.duv_inst` with `clk` and `rst` (two
/// reset edges, then reset falling at the timestamp of the first working edge, 10 ns, as in
/// Dynamatic's testbench), argument ports named as the arguments, every channel its net; a
/// unit's internal channel has none.
fn dynamatic_vcd(f: &Function, trace: &handscope_sim::trace::Trace) -> String {
    let mut signals = Vec::new();
    for (i, meta) in trace.channels().iter().enumerate() {
        let cid = f.channel_by_name(&meta.name).unwrap();
        let ch = &f.channels[cid];
        let net = match &f.nodes[ch.producer.node].op {
            handscope_sim::Op::Argument { index } => Some(f.args[*index].name.clone()),
            _ => channel_net(f, cid),
        };
        if let Some(net) = net {
            signals.push((i, net, ch.ty.bit_width()));
        }
    }
    let mut v =
        String::from("$timescale 1ns $end\n$scope module tb $end\n$scope module duv_inst $end\n");
    v.push_str("$var wire 1 c clk $end\n$var wire 1 r rst $end\n");
    for (k, (_, net, w)) in signals.iter().enumerate() {
        let _ = writeln!(v, "$var wire 1 v{k} {net}_valid $end");
        let _ = writeln!(v, "$var wire 1 r{k} {net}_ready $end");
        if *w > 0 {
            let _ = writeln!(v, "$var wire {w} d{k} {net} [{}:0] $end", w - 1);
        }
    }
    v.push_str("$upscope $end\n$upscope $end\n$enddefinitions $end\n#0\n0c\n1r\n");
    for (k, (_, _, w)) in signals.iter().enumerate() {
        let _ = writeln!(v, "0v{k}\n0r{k}");
        if *w > 0 {
            let _ = writeln!(v, "b0 d{k}");
        }
    }
    // Reset edges at 2 and 6 ns; cycle c's values from 9 + 4c, its edge at 10 + 4c.
    for t in [2, 4, 6, 8] {
        let _ = writeln!(v, "#{t}\n{}c", u8::from(t % 4 == 2));
    }
    for c in 0..trace.cycles() {
        let view = trace.cycle(c).unwrap();
        let t = 9 + 4 * c;
        let _ = writeln!(v, "#{t}");
        for (k, (i, _, w)) in signals.iter().enumerate() {
            let _ = writeln!(v, "{}v{k}", u8::from(view.valid(*i)));
            let _ = writeln!(v, "{}r{k}", u8::from(view.ready(*i)));
            if *w > 0 {
                let _ = writeln!(v, "b{:b} d{k}", view.data(*i));
            }
        }
        // Reset falls with the first working edge (10 ns), as in Dynamatic's testbench.
        let _ = writeln!(
            v,
            "#{}\n1c{}\n#{}\n0c",
            t + 1,
            if c == 0 { "\n0r" } else { "" },
            t + 3
        );
    }
    v
}

/// A Dynamatic kernel with a memory controller and one with a multi-cycle unit: every
/// channel but a unit's internal one maps by Dynamatic's names, and the replayed trace and
/// report are the engine's.
#[test]
fn dynamatic_named_waveforms_replay_without_a_mapping_file() {
    let cases = [
        (
            include_str!("../../compiler/tests/data/dynamatic/mem_e4.mlir"),
            ("a", vec![1u64, 2, 3, 4]),
        ),
        (
            include_str!("../../compiler/tests/data/dynamatic/inc_e4.mlir"),
            ("x", vec![7]),
        ),
    ];
    let dir = std::env::temp_dir().join(format!("hs-dyn-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (k, (src, (name, values))) in cases.into_iter().enumerate() {
        let f = function(src);
        let mut env = Environment::default();
        match f.args.iter().find(|a| a.name == name).map(|a| &a.ty) {
            Some(ArgType::MemRef(_)) => {
                env.ext_memories.insert(name.into(), values);
            }
            _ => {
                env.push_tokens(name, TokenSource::Values(values));
            }
        }
        let (want_report, want) = engine_run(&f, &env, 1000);
        let path = dir.join(format!("k{k}.vcd"));
        std::fs::write(&path, dynamatic_vcd(&f, &want)).unwrap();
        let r = replay_file(&path, &f, Some(&env), &ReplayOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", f.name));
        let internal: Vec<String> = f
            .channels
            .iter()
            .filter(|(cid, c)| {
                !matches!(
                    f.nodes[c.producer.node].op,
                    handscope_sim::Op::Argument { .. }
                ) && channel_net(&f, *cid).is_none()
            })
            .map(|(_, c)| c.name.clone())
            .collect();
        assert!(r.mapping.unmatched_channels.is_empty(), "{}", f.name);
        assert_eq!(r.mapping.unit_internal_channels, internal, "{}", f.name);
        // Where Dynamatic's port name is Handscope's too (`load0_addrOut`), the first scheme
        // tried names the same net.
        assert!(
            r.mapping
                .matched
                .iter()
                .all(|m| ["dynamatic", "argument", "handscope-sv"].contains(&m.scheme)),
            "{}: {:?}",
            f.name,
            r.mapping.matched
        );
        assert!(
            r.mapping
                .matched
                .iter()
                .any(|m| m.valid.ends_with("_outs_0_valid")),
            "{}: a fork's first output",
            f.name
        );
        assert_eq!(want_report.outputs, r.report.outputs, "{}", f.name);
        if internal.is_empty() {
            assert_same_trace(&f.name, &want, &r.trace, false);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
