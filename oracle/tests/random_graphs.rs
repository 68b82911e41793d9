//! (c) Random well-formed graphs against CIRCT's RTL, in two Verilator models (the two halves of the
//! seeds, built and run on both cores at once).
//!
//! `ORACLE_RANDOM_GRAPHS` (default 120) and `ORACLE_CYCLES` (default 1000) override the size.
//! Every fifth graph has data wider than 64 bits (`suite_options`).

// The counts and mismatches are printed for `--nocapture`.
#![allow(clippy::print_stdout)]

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

/// The random designs of seeds `seeds`, as the engine and CIRCT see them.
fn designs(seeds: std::ops::Range<u64>, cycles: u32) -> Vec<DesignSpec> {
    let mut designs = Vec::new();
    for seed in seeds {
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
    designs
}

/// The suite's size: `ORACLE_RANDOM_GRAPHS` designs of `ORACLE_CYCLES` cycles.
fn size() -> (u64, u32) {
    (
        env_num("ORACLE_RANDOM_GRAPHS", 120),
        env_num("ORACLE_CYCLES", 1000) as u32,
    )
}

/// The generator covers what the comparison must see: over all the suite's designs, muxes
/// whose select fired with a value outside 0..2 (only its low bit counts) in the engine, and
/// channels wider than 64 bits.
#[test]
fn random_graphs_cover_out_of_range_selects_and_wide_data() {
    let (n, cycles) = size();
    let designs = designs(0..n, cycles);
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
}

/// The designs of seeds `seeds` in one Verilator model of CIRCT's RTL equal the engine on
/// every channel every cycle.
fn matches_circt_rtl(test: &str, seeds: std::ops::Range<u64>) {
    let Some(tools) = require_tools(test) else {
        return;
    };
    let (_, cycles) = size();
    let designs = designs(seeds, cycles);
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

/// The first half of the suite's designs (the two halves run on both cores at once).
#[test]
fn random_graphs_match_circt_rtl_first_half() {
    let (n, _) = size();
    matches_circt_rtl("random_graphs_match_circt_rtl_first_half", 0..n / 2);
}

/// The second half of the suite's designs.
#[test]
fn random_graphs_match_circt_rtl_second_half() {
    let (n, _) = size();
    matches_circt_rtl("random_graphs_match_circt_rtl_second_half", n / 2..n);
}
