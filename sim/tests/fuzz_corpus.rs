//! The minimized corpus of the stimulus fuzz target (`fuzz/regressions/stimulus`, made with
//! `cargo fuzz cmin`), replayed through the entry point the fuzzer runs
//! (`handscope_sim::fuzzing::stimulus`), in well under a second.

use std::path::PathBuf;

#[test]
fn stimulus_corpus_passes() {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fuzz/regressions/stimulus"
    ));
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let data = std::fs::read(e.expect("entry").path()).expect("read");
        handscope_sim::fuzzing::stimulus(&data);
        n += 1;
    }
    assert!(n > 0, "{} is empty", dir.display());
}
