//! The integration tests of this crate, in one test binary: each file of this directory is a
//! module, so a test's full name is `FILE::TEST` (`cargo test --test integration FILE::`).
//! One binary is linked once and runs all its tests on every core, where a binary per file was
//! linked against every dependency again and ran one after the other.

mod common;
mod deadlock;
mod dynamatic;
mod engine_ops;
mod engine_wide;
mod float_native;
mod fuzz_corpus;
mod island;
mod pipeline;
mod report_trace;
mod smoke;
