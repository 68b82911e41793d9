//! Mapping the engine's channel names to the RTL signals of CIRCT 1.62 that carry them: the
//! one implementation lives in [`handscope_traces::circt_names`] (the VCD replay maps CIRCT
//! VCDs with it too); re-exported here under the oracle's names.

pub use handscope_traces::circt_names::{
    ChannelProbe, channel_probes, instance_names as rtl_instance_names,
};
