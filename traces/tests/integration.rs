//! The integration tests of this crate, in one test binary: each file of this directory is a
//! module, so a test's full name is `FILE::TEST` (`cargo test --test integration FILE::`).
//! One binary is linked once and runs all its tests on every core, where a binary per file was
//! linked against every dependency again and ran one after the other.

mod circt_replay;
mod common;
mod dynamatic_replay;
mod fuzz_corpus;
mod vcd_follow;
mod vcd_robustness;
mod verilator_roundtrip;
mod wide_waveforms;
