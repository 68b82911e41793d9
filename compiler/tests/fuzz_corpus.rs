//! The minimized corpora of the C and MLIR fuzz targets (`fuzz/regressions/compile_c`,
//! `fuzz/regressions/parse_mlir`, made with `cargo fuzz cmin`), replayed through the same
//! entry points the fuzzer runs (`handscope_compiler::fuzzing`): every input that once found
//! new coverage keeps passing, in seconds, without the fuzzer.

use std::path::PathBuf;

/// The files of `fuzz/regressions/<target>`, sorted.
fn corpus(target: &str) -> Vec<PathBuf> {
    let dir =
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../fuzz/regressions")).join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{} is empty", dir.display());
    files
}

#[test]
fn compile_c_corpus_passes() {
    for p in corpus("compile_c") {
        let data = std::fs::read(&p).expect("read");
        handscope_compiler::fuzzing::compile_c(&data);
    }
}

#[test]
fn parse_mlir_corpus_passes() {
    for p in corpus("parse_mlir") {
        let data = std::fs::read(&p).expect("read");
        handscope_compiler::fuzzing::parse_mlir_roundtrip(&data);
    }
}
