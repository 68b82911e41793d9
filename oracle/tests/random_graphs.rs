//! (c) Random well-formed graphs against CIRCT's RTL in one Verilator model.
//!
//! `ORACLE_RANDOM_GRAPHS` (default 200) and `ORACLE_CYCLES` (default 1000) override the size.

use handscope_oracle::generator::{GenOptions, random_function};
use handscope_oracle::harness::{DesignSpec, run_designs, through_mlir};
use handscope_oracle::model::BuildOptions;
use handscope_oracle::require_tools;

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
        let opts = GenOptions {
            ops: 8 + (seed % 17) as usize,
            data_args: 1 + (seed % 4) as usize,
        };
        let f = random_function(&name, seed, &opts);
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
