//! Trace files for Handscope: writing the engine's [`Trace`](handscope_sim::trace::Trace) as a
//! VCD ([`vcd_out`]), replaying VCDs of hardware runs back onto the graph ([`vcd_in`]), and
//! building/running Verilator models ([`verilator`]); CIRCT 1.62's RTL names
//! ([`circt_names`]).

pub mod circt_names;
pub mod dynamatic_names;
pub mod fst_out;
pub mod fuzzing;
pub mod vcd_in;
pub mod vcd_out;
pub mod verilator;
