//! Every example circuit: graph -> Handscope SystemVerilog -> Verilator -> VCD -> replayed
//! Trace, identical to the engine's trace (channels, state words) and report. All examples
//! share one Verilator build (cached by content hash under `target/handscope-verilate/`).

mod common;

use handscope_compiler::verilog::testbench::{
    TbDesign, memory_init_files, wrapper, write_testbench,
};
use handscope_compiler::verilog::{VerilogBuilder, encode_instance_name};
use handscope_traces::vcd_in::{ReplayOptions, replay_file};

use common::*;

const MAX_CYCLES: u64 = 5000;

#[test]
fn examples_round_trip_through_verilator() {
    if !have_verilator("examples_round_trip_through_verilator") {
        return;
    }
    let exs = examples();
    assert!(exs.len() >= 8, "examples found: {}", exs.len());
    let mut b = VerilogBuilder::new();
    let mut tops = Vec::new();
    for ex in &exs {
        let top = format!("ex_{}", encode_instance_name(&ex.name));
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
    let work = std::env::temp_dir().join(format!("hs-roundtrip-{}", std::process::id()));
    std::fs::create_dir_all(&work).unwrap();
    for (ex, top) in exs.iter().zip(&tops) {
        for (name, text) in memory_init_files(top, &ex.func, &ex.env) {
            std::fs::write(work.join(name), text).unwrap();
        }
    }
    let vcd = handscope_traces::verilator::build_and_run(&work, &sv, &tb, None).unwrap();
    for (ex, top) in exs.iter().zip(&tops) {
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
    }
    let _ = std::fs::remove_dir_all(&work);
}
