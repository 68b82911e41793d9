//! Differential test oracle: runs circuits both in Handscope's engine and, lowered by CIRCT
//! 1.62 to SystemVerilog, in one combined Verilator model, and compares every channel's
//! valid, ready and data in every cycle.
//!
//! Pipeline: [`lower`] (one `scripts/lower.py` process per design) -> [`rtl::combine`]
//! (merge into one source) -> [`model::build_model`] (wrapper + C++ testbench, cached) ->
//! [`model::run_model`] (VCD) -> [`vcd::Waves`] -> [`compare`], all driven by
//! [`harness::run_designs`]. [`generator`] (file `gen.rs`; `gen` is a keyword in edition 2024) makes random
//! well-formed graphs.

pub mod compare;
pub mod error;
#[path = "gen.rs"]
pub mod generator;
pub mod harness;
pub mod hash;
pub mod lower;
pub mod model;
pub mod names;
pub mod prng;
pub mod rtl;
pub mod single;
pub mod tools;
pub mod vcd;

pub use error::OracleError;
pub use tools::{Tools, find_tools, require_tools};
