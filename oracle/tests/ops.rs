//! (a) Each op kind on its own, with random stimulus and random ready patterns, against
//! CIRCT's RTL in one Verilator model.

use handscope_oracle::emit::function_to_mlir;
use handscope_oracle::harness::{DesignSpec, run_designs};
use handscope_oracle::model::BuildOptions;
use handscope_oracle::require_tools;
use handscope_oracle::single::single_op;
use handscope_sim::{BufferKind, Op, Type};

const CYCLES: u32 = 1000;

fn designs() -> Vec<DesignSpec> {
    let i8t = Type::Int(8);
    let mut v: Vec<(String, handscope_sim::Function)> = Vec::new();
    let mut add = |name: &str, op: Op, ins: &[Type], outs: &[Type]| {
        v.push((name.to_string(), single_op(name, op, ins, outs)));
    };
    for slots in 1..=3u32 {
        for (k, kind) in [BufferKind::Seq, BufferKind::Fifo].into_iter().enumerate() {
            let name = format!("buffer{slots}_{k}");
            add(&name, Op::Buffer { slots, kind, init: None }, &[i8t.clone()], &[i8t.clone()]);
        }
    }
    v.into_iter()
        .enumerate()
        .map(|(k, (name, f))| {
            let mlir = function_to_mlir(&f).expect("printable");
            DesignSpec::with_random_stimulus(&name, f, mlir, 1000 + k as u64, 200)
        })
        .collect()
}

#[test]
fn each_op_matches_circt_rtl() {
    let Some(tools) = require_tools("each_op_matches_circt_rtl") else { return };
    let designs = designs();
    let summary = run_designs(&tools, &designs, CYCLES, &BuildOptions::default()).expect("oracle run");
    for m in &summary.mismatches {
        println!("{m}");
    }
    println!("{}", summary.line());
    assert!(summary.transfers > 0);
    assert!(summary.mismatches.is_empty(), "{} mismatches", summary.mismatches.len());
}
