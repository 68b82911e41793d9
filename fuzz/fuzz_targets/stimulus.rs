//! Fuzz target: `--in`/`--mem` token text and `--ready` policies
//! (`handscope_sim::fuzzing::stimulus`): parsing never panics and what parses fits its type.
//! Run in `fuzz/` with `cargo fuzz run stimulus -s none`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| handscope_sim::fuzzing::stimulus(data));
