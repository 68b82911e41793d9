//! Handscope's compiler: front ends and back ends for handshake graphs.
//!
//! - [`mlir`] reads and writes CIRCT handshake MLIR.
//! - [`dot`] draws a function as Graphviz DOT.
//! - [`verilog`] writes SystemVerilog from Handscope's own component library.
//! - [`c`] compiles the C subset of HLS kernels to an SSA IR and on to handshake graphs.
//! - [`render`] turns diagnostics into text, with a plain fallback for very long lines.
//! - [`fuzzing`] holds the fuzz targets' entry points (replayed by the corpus tests).
//! - [`bench_support`] generates inputs of growing size for benchmarks and scale tests.

pub mod bench_support;
pub mod c;
pub mod dot;
pub mod fuzzing;
pub mod mlir;
pub mod render;
pub mod stream;
pub mod verilog;
