//! Prints the MLIR of random graph `seed` (debugging aid): `cargo run -p handscope-oracle --example dump_random -- SEED [OPS ARGS]`.

// An example reports on standard output and error.
#![allow(clippy::print_stdout, clippy::print_stderr)]
use handscope_oracle::generator::{GenOptions, random_function};

fn main() {
    let a: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|x| x.parse().ok())
        .collect();
    let seed = a.first().copied().unwrap_or(0);
    let opts = GenOptions {
        ops: a
            .get(1)
            .map(|v| *v as usize)
            .unwrap_or(8 + (seed % 17) as usize),
        data_args: a
            .get(2)
            .map(|v| *v as usize)
            .unwrap_or(1 + (seed % 4) as usize),
    };
    let f = random_function(&format!("rand{seed}"), seed, &opts);
    print!("{}", handscope_compiler::mlir::write_function(&f));
}
