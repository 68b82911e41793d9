//! The integration tests of this crate, in one test binary: each file of this directory is a
//! module, so a test's full name is `FILE::TEST` (`cargo test --test integration FILE::`).
//! One binary is linked once and runs all its tests on every core, where a binary per file was
//! linked against every dependency again and ran one after the other.

mod compile_cli;
mod deadlock_cli;
mod examples_cli;
mod examples_sim;
mod lessons_cli;
mod robust_cli;
mod run_cli;
mod throughput_cli;
mod timing_cli;
mod verilog_cli;
mod wcp_cli;
mod xvfb_smoke;
