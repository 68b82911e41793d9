//! Handscope's compiler: front ends and back ends for handshake graphs.
//!
//! - [`mlir`] reads and writes CIRCT handshake MLIR.
//! - [`dot`] draws a function as Graphviz DOT.
//! - [`verilog`] writes SystemVerilog from Handscope's own component library.
//! - [`c`] compiles the C subset of HLS kernels to an SSA IR (handshake lowering to come).

pub mod c;
pub mod dot;
pub mod mlir;
pub mod verilog;
