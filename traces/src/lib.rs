//! Trace files for Handscope: writing the engine's [`Trace`](handscope_sim::trace::Trace) as a
//! VCD, and (later) replaying VCDs of hardware runs back onto the graph.

pub mod vcd_out;
