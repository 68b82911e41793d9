//! C-to-handshake compile time of every example kernel (`examples/kernels`), front end to
//! materialized, buffered graph. Each must stay under 100 ms.
//!
//! `cargo bench -p handscope-compiler --bench compile`

use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use handscope_compiler::c::{HsOptions, compile_to_handshake};

fn kernels() -> Vec<(String, String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/kernels");
    let mut out: Vec<(String, String, String)> = std::fs::read_dir(&dir)
        .expect("examples/kernels")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "c"))
        .map(|e| {
            let src = std::fs::read_to_string(e.path()).expect("read");
            let top = src
                .lines()
                .find_map(|l| l.strip_prefix("// TOP:"))
                .map(|s| s.trim().to_string())
                .expect("TOP line");
            (e.file_name().to_string_lossy().into_owned(), src, top)
        })
        .collect();
    out.sort();
    out
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("compile_c");
    g.sample_size(20);
    for (name, src, top) in kernels() {
        g.bench_function(name.trim_end_matches(".c"), |b| {
            b.iter(|| {
                compile_to_handshake(&src, &name, Some(&top), &HsOptions::default())
                    .expect("compiles")
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
