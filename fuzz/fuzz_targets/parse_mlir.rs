//! Fuzz target: the MLIR reader never panics, and whatever it accepts, the writer prints in a
//! form the reader accepts again. Run with `cargo +nightly fuzz run parse_mlir` in `fuzz/`.
#![no_main]

use handscope_compiler::mlir::{parse_mlir, write_mlir};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok((module, _warnings)) = parse_mlir(text, "fuzz.mlir") {
        let written = write_mlir(&module);
        match parse_mlir(&written, "written.mlir") {
            Ok((again, _)) => {
                assert_eq!(written, write_mlir(&again), "writer output is not stable")
            }
            Err(e) => panic!("writer output rejected: {e}\n{written}"),
        }
    }
});
