//! Reversible mapping from stable IDs to SystemVerilog identifiers: the one implementation
//! lives in [`handscope_sim::rtl_names`] (the VCD replay in `handscope-traces` decodes the
//! same names); this module re-exports it under the back end's name.

pub use handscope_sim::rtl_names::{decode_instance_name, encode_instance_name};
