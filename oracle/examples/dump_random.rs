//! Prints the MLIR of random graph `seed` (debugging aid): `cargo run -p handscope-oracle --example dump_random -- SEED [OPS ARGS WIDE_PERCENT]`
//! (defaults: the random-graph test's options of that seed, `suite_options`).

// An example reports on standard output and error.
#![allow(clippy::print_stdout, clippy::print_stderr)]
use handscope_oracle::generator::{GenOptions, random_function, suite_options};

fn main() {
    let a: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|x| x.parse().ok())
        .collect();
    let seed = a.first().copied().unwrap_or(0);
    let d = suite_options(seed);
    let opts = GenOptions {
        ops: a.get(1).map(|v| *v as usize).unwrap_or(d.ops),
        data_args: a.get(2).map(|v| *v as usize).unwrap_or(d.data_args),
        wide_percent: a.get(3).map(|v| *v as u32).unwrap_or(d.wide_percent),
    };
    let f = random_function(&format!("rand{seed}"), seed, &opts);
    print!("{}", handscope_compiler::mlir::write_function(&f));
}
