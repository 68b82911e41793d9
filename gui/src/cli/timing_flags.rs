//! The timing option every command that builds or runs a circuit takes (`--timing`), declared
//! once and flattened into each command's arguments.

use handscope_sim::spec::timing::{Base, TimingProfile};

/// `--timing`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct TimingFlags {
    /// Timing profile: `ideal` (every unit combinational and memories answering in the same
    /// cycle, as CIRCT 1.62's RTL; the default for MLIR and C input), `fpga` (pipelined
    /// arithmetic and a 1-cycle memory read, latencies of HLS tools on FPGAs at 200-300 MHz;
    /// docs/timing.md) or a TOML file of your own (`base`, `memory_read`, `[ops]`). Dynamatic
    /// circuits use `dynamatic` (the default for them: the latencies of Dynamatic's published
    /// kernels) or `dynamatic=PATH/components.json` (the latency tables of the Dynamatic that
    /// generated the file).
    #[arg(long = "timing", value_name = "NAME|FILE.toml|dynamatic[=FILE]")]
    pub timing: Option<String>,
}

impl TimingFlags {
    /// The chosen profile (`ideal` when none is given).
    pub fn profile(&self) -> anyhow::Result<TimingProfile> {
        match self.timing.as_deref() {
            None => Ok(TimingProfile::ideal()),
            Some(t) => resolve(t),
        }
    }
}

/// A built-in profile by name, else a TOML file.
pub fn resolve(text: &str) -> anyhow::Result<TimingProfile> {
    if let Some(b) = Base::from_name(text) {
        return Ok(TimingProfile::builtin(b));
    }
    if text == "dynamatic" {
        return Ok(TimingProfile::dynamatic(None));
    }
    if let Some(file) = text.strip_prefix("dynamatic=") {
        let body = handscope_sim::input::read_text(std::path::Path::new(file))?;
        // Checked here, so a bad file is reported before anything is loaded.
        handscope_compiler::mlir::dynamatic::DynTiming::from_components_json(&body, file)?;
        return Ok(TimingProfile::dynamatic(Some((file.to_string(), body))));
    }
    let path = std::path::Path::new(text);
    if !path.exists() && !text.ends_with(".toml") {
        anyhow::bail!(
            "unknown timing profile `{text}`: use `ideal`, `fpga`, a TOML file (docs/timing.md), or for Dynamatic's circuits `dynamatic` or `dynamatic=PATH/components.json`"
        );
    }
    let body = handscope_sim::input::read_text(path)?;
    Ok(TimingProfile::from_toml(&body, text)?)
}
