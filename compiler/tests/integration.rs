//! The integration tests of this crate, in one test binary: each file of this directory is a
//! module, so a test's full name is `FILE::TEST` (`cargo test --test integration FILE::`).
//! One binary is linked once and runs all its tests on every core, where a binary per file was
//! linked against every dependency again and ran one after the other.

mod c_addr_queue;
mod c_bitint_wide;
mod c_errors;
mod c_float_exprs;
mod c_fuzz;
mod c_handshake;
mod c_includes;
mod c_islands;
mod c_kernels;
mod c_scale;
mod c_static_islands;
mod c_struct_params;
mod circt_accepts;
mod common;
mod dynamatic_lsq;
mod dynamatic_lsq_sim;
mod dynamatic_reader;
mod dynamatic_sim;
mod dynamatic_writer;
mod engine_compiled;
mod fuzz_corpus;
mod invocation_tags;
mod mlir_errors;
mod mlir_limits;
mod mlir_proptest;
mod mlir_roundtrip;
mod mlir_syntax;
mod streams;
