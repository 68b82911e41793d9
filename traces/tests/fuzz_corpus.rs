//! The minimized corpus of the VCD fuzz target (`fuzz/regressions/replay_vcd`, made with
//! `cargo fuzz cmin`), replayed through the entry point the fuzzer runs
//! (`handscope_traces::fuzzing::replay_vcd`) on the same circuit and stimulus.

use std::path::PathBuf;

use handscope_sim::session::Session;
use handscope_sim::session::header::Header;

const CIRCUIT: &str = include_str!("../../examples/circuits/extmem_add.mlir");

#[test]
fn replay_vcd_corpus_passes() {
    let (module, _) =
        handscope_compiler::mlir::parse_mlir(CIRCUIT, "extmem_add.mlir").expect("parses");
    let mut s = Session::open(&module, None).expect("opens");
    s.bind(&Header::parse(CIRCUIT).sim_args()).expect("binds");
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fuzz/regressions/replay_vcd"
    ));
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let data = std::fs::read(e.expect("entry").path()).expect("read");
        handscope_traces::fuzzing::replay_vcd(&data, s.function(), s.environment());
        n += 1;
    }
    assert!(n > 0, "{} is empty", dir.display());
}

/// The corpus of the FST fuzz target (`fuzz/regressions/replay_fst`: the inputs that made the
/// reader loop forever and abort on a huge allocation, our own `sim --fst` outputs whole and
/// cut, and a coverage-minimized set of the target's corpus), through the target's entry
/// point (`handscope_traces::fuzzing::replay_fst`).
#[test]
fn replay_fst_corpus_passes() {
    let (module, _) =
        handscope_compiler::mlir::parse_mlir(CIRCUIT, "extmem_add.mlir").expect("parses");
    let mut s = Session::open(&module, None).expect("opens");
    s.bind(&Header::parse(CIRCUIT).sim_args()).expect("binds");
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fuzz/regressions/replay_fst"
    ));
    let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fuzz_corpus_replay.fst");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let data = std::fs::read(e.expect("entry").path()).expect("read");
        handscope_traces::fuzzing::replay_fst(&data, s.function(), s.environment(), &scratch);
        n += 1;
    }
    assert!(n > 0, "{} is empty", dir.display());
}
