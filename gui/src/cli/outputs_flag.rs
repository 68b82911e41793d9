//! `--outputs`: how much of the output token lists a report prints, shared by `sim`,
//! `replay` and `verilate --run`.

use handscope_sim::engine::{KEPT_OUTPUTS, MAX_ALL_OUTPUTS};
use handscope_sim::limits::thousands;
use handscope_sim::report::{OutputDetail, RunReport, SUMMARY_ENDS, render_human_with};

/// Which output tokens a report shows.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputsMode {
    /// Per result the token count and checksum, and the first and last few tokens when there
    /// are many (memory stays bounded however long the run).
    Summary,
    /// Every token (kept in memory for the whole run), up to 4,194,304 per result
    /// (`handscope_sim::engine::MAX_ALL_OUTPUTS`; past it the first that many and the last
    /// 65,536, with a warning).
    All,
}

/// The `--outputs` flag.
#[derive(clap::Args, Debug, Clone, Copy, Default)]
pub struct OutputsFlag {
    /// Output tokens in the report: `summary` (count, checksum, first and last tokens of long
    /// lists) or `all`. Default: `summary` for text, `all` for --json.
    #[arg(long, value_enum, value_name = "summary|all")]
    pub outputs: Option<OutputsMode>,
}

impl OutputsFlag {
    /// The mode in effect for a text (`json == false`) or JSON report.
    pub fn mode(&self, json: bool) -> OutputsMode {
        self.outputs.unwrap_or(if json {
            OutputsMode::All
        } else {
            OutputsMode::Summary
        })
    }

    /// Whether the run must keep every output token.
    pub fn keep_all(&self, json: bool) -> bool {
        self.mode(json) == OutputsMode::All
    }

    /// Prints `report` as JSON or text in the mode in effect, naming the timing profile it
    /// ran under unless that is `ideal`.
    pub fn print(
        &self,
        report: &mut RunReport,
        json: bool,
        timing: &handscope_sim::spec::timing::TimingProfile,
    ) -> anyhow::Result<()> {
        report.timing = (!timing.is_ideal()).then(|| timing.name().to_string());
        let report = &*report;
        let mode = self.mode(json);
        if mode == OutputsMode::All {
            for (name, left_out) in &report.omitted_outputs {
                eprintln!(
                    "warning: result `{name}` gave more than {} tokens, the most a report keeps with --outputs all; it lists the first {} and the last {}, {} left out between them (`omitted_outputs`); counts and checksums cover every token",
                    thousands(MAX_ALL_OUTPUTS as u64),
                    thousands(MAX_ALL_OUTPUTS as u64),
                    thousands(KEPT_OUTPUTS as u64),
                    thousands(*left_out)
                );
            }
        }
        if json {
            if mode == OutputsMode::Summary {
                let mut cut = report.clone();
                cut.cut_outputs(SUMMARY_ENDS);
                outln!("{}", serde_json::to_string_pretty(&cut)?)?;
            } else {
                outln!("{}", serde_json::to_string_pretty(report)?)?;
            }
        } else {
            let detail = match mode {
                OutputsMode::Summary => OutputDetail::Summary,
                OutputsMode::All => OutputDetail::All,
            };
            out!("{}", render_human_with(report, detail))?;
        }
        Ok(())
    }
}
