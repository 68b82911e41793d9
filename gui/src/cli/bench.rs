//! `handscope bench frame`: frame time of the debugger window on a large graph, measured
//! without a display against a small baseline in the same run (see `app::frame_bench`).

use std::process::ExitCode;

use crate::app::frame_bench;
use crate::app::model::Start;

/// Arguments of `handscope bench`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// What to measure.
    #[command(subcommand)]
    pub what: BenchWhat,
}

/// The benchmarks.
#[derive(clap::Subcommand, Debug)]
pub enum BenchWhat {
    /// Frame time (egui pass + tessellation) of the whole window on the engine benchmark's
    /// chain (5 nodes per stage; 400 stages = 2,000 nodes) against the first gallery example.
    Frame {
        /// Stages of the chain.
        #[arg(long, default_value_t = 400)]
        stages: usize,
        /// Measured frames per scenario.
        #[arg(long, default_value_t = 60)]
        frames: usize,
    },
}

/// Runs the benchmark and prints the table.
pub fn run(a: &BenchArgs) -> anyhow::Result<ExitCode> {
    match a.what {
        BenchWhat::Frame { stages, frames } => {
            let dir = std::env::temp_dir().join(format!("handscope-bench-{}", std::process::id()));
            let big_start = frame_bench::chain_start(stages, &dir)?;
            let base = frame_bench::measure(Start::Example(0), 0, frames)?;
            let big = frame_bench::measure(big_start, 100, frames)?;
            let _ = std::fs::remove_dir_all(&dir);
            print!("{}", frame_bench::render(&big, &base));
            Ok(ExitCode::SUCCESS)
        }
    }
}
