//! The integration tests of this crate, in one test binary: each file of this directory is a
//! module, so a test's full name is `FILE::TEST` (`cargo test --test integration FILE::`).
//! One binary is linked once and runs all its tests on every core, where a binary per file was
//! linked against every dependency again and ran one after the other.

mod activity;
mod examples;
mod ops;
mod random_graphs;
mod wide;
