//! Fuzz target: the MLIR reader never panics, its errors render, and whatever it accepts,
//! the writer prints in a form the reader accepts again
//! (`handscope_compiler::fuzzing::parse_mlir_roundtrip`). Run in `fuzz/` with
//! `cargo fuzz run parse_mlir -s none` (stable works without a sanitizer).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| handscope_compiler::fuzzing::parse_mlir_roundtrip(data));
