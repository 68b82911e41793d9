//! The stimulus options every running command takes (`--in`, `--mem`, `--ready`), declared
//! once and flattened into each command's arguments.

use handscope_sim::session::StimulusArgs;

/// `--in`, `--mem` and `--ready`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct StimulusFlags {
    /// Tokens for an argument: `NAME=1,2,-3`, `NAME=0..1000` (0 to 999), `NAME=@file`; for a
    /// `none` argument a count (`start=3`). Repeatable. Values must fit the argument's type.
    /// An argument not given gets no tokens, except the last `none` argument (1 token). Where
    /// a command reads the file's header stimulus (`// sim:` lines, a C kernel's first
    /// `// RUN:`), an entry given here replaces the header's entry of the same name.
    #[arg(long = "in", value_name = "NAME=TOKENS")]
    pub inputs: Vec<String>,
    /// Initial contents of an `extmemory` argument or internal `memory` (by node ID):
    /// `NAME=v0,v1,...` or `NAME=@file`. Repeatable.
    #[arg(long = "mem", value_name = "NAME=VALUES")]
    pub mems: Vec<String>,
    /// Ready policy of a result: `NAME=always|random:SEED:PROB|pattern:BITS` (default
    /// always). Repeatable.
    #[arg(long = "ready", value_name = "NAME=POLICY")]
    pub ready: Vec<String>,
}

impl StimulusFlags {
    /// The options as the session API takes them.
    pub fn args(&self) -> StimulusArgs {
        StimulusArgs {
            inputs: self.inputs.clone(),
            mems: self.mems.clone(),
            ready: self.ready.clone(),
        }
    }
}
