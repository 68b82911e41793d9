//! Fuzz target: the C front end (preprocessor, parser, SSA lowering, handshake lowering) never
//! panics, its errors are located and render, and what it accepts verifies and prints as
//! readable MLIR (`handscope_compiler::fuzzing::compile_c`). Run in `fuzz/` with
//! `cargo fuzz run compile_c -s none -- -dict=fuzz/c.dict` (stable works without a sanitizer).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| handscope_compiler::fuzzing::compile_c(data));
