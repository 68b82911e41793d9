//! (c) Random well-formed graphs against CIRCT's RTL in one Verilator model.
//!
//! `ORACLE_RANDOM_GRAPHS` (default 200) and `ORACLE_CYCLES` (default 1000) override the size.
//! Every fifth graph has data wider than 64 bits (`suite_options`).

use handscope_oracle::generator::{random_function, suite_options};
use handscope_oracle::harness::{DesignSpec, engine_waves, run_designs, through_mlir};
use handscope_oracle::model::BuildOptions;
use handscope_oracle::require_tools;
use handscope_sim::Op;

fn env_num(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn random_graphs_match_circt_rtl() {
    let Some(tools) = require_tools("random_graphs_match_circt_rtl") else {
        return;
    };
    let n = env_num("ORACLE_RANDOM_GRAPHS", 200);
    let cycles = env_num("ORACLE_CYCLES", 1000) as u32;
    let mut designs = Vec::new();
    for seed in 0..n {
        let name = format!("rand{seed}");
        let f = random_function(&name, seed, &suite_options(seed));
        // Printed by the compiler's writer and read back by its reader: the engine simulates
        // the parsed function, CIRCT lowers the text.
        let (f, mlir) = through_mlir(&f).expect("writer output parses");
        // Half of the designs get far more start tokens than cycles, so they never finish.
        let tokens = if seed % 2 == 0 {
            40
        } else {
            cycles as usize + 10
        };
        designs.push(DesignSpec::with_random_stimulus(
            &name, f, mlir, seed, tokens,
        ));
    }
    // The comparison covers muxes whose select fired with a value outside 0..2 (only its low
    // bit counts): count the designs where that happened in the engine.
    let out_of_range = designs
        .iter()
        .filter(|d| {
            let (waves, _) = engine_waves(d, cycles).expect("engine runs");
            d.func.nodes.values().any(|n| {
                n.op == Op::Mux && {
                    let w = &waves[n.inputs[0].as_u32() as usize];
                    (0..w.valid.len()).any(|c| w.valid[c] && w.ready[c] && w.data[c] >= 2)
                }
            })
        })
        .count();
    println!("{out_of_range} designs fire a mux with an out-of-range select");
    assert!(
        n < 50 || out_of_range >= 3,
        "only {out_of_range} designs exercise out-of-range mux selects"
    );
    let wide: Vec<&str> = designs
        .iter()
        .filter(|d| d.func.channels.values().any(|c| c.ty.bit_width() > 64))
        .map(|d| d.name.as_str())
        .collect();
    println!("{} designs have channels wider than 64 bits", wide.len());
    assert!(
        n < 50 || wide.len() as u64 >= n / 8,
        "only {} designs have wide channels",
        wide.len()
    );
    let summary =
        run_designs(&tools, &designs, cycles, &BuildOptions::default()).expect("oracle run");
    for m in &summary.mismatches {
        println!("{m}");
    }
    println!("{}", summary.line());
    assert!(
        summary.mismatches.is_empty(),
        "{} mismatches",
        summary.mismatches.len()
    );
}
