//! `handscope bench frame`: frame time of the debugger window on a large graph, measured
//! without a display against a small baseline in the same run (see `app::frame_bench`).
//! `handscope bench render`: growth of `handscope render`'s time with the graph size
//! (issue 19: time per node roughly constant), layout and drawing apart.
//! `handscope bench engine`: `sim` against Verilator on four workloads (see `bench_engine`).

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
    /// Time of `handscope render` (SVG at cycle 0) on the engine benchmark's chain at growing
    /// sizes (5 nodes per stage, 10 to 20,000 stages = 50 to 100,000 nodes): the layout
    /// (Graphviz up to 1,000 nodes, the pure-Rust layout above) and the rest (model, run to
    /// the cycle, scene, SVG), each per node.
    Render {
        /// Largest number of stages (the sizes are 10, 100, 1,000, 10,000, 20,000 up to it).
        #[arg(long, default_value_t = 20_000)]
        max_stages: usize,
    },
    /// `handscope sim` against a Verilator `-O3` model of the same circuit (Handscope's
    /// SystemVerilog) on chain(50), chain(200), a sum of squares and a repeated 8x8 matrix
    /// product, with and without a VCD (chains); medians and ratios (docs/bench-engine.md).
    Engine {
        /// Tiny sizes (seconds, for the tests); the default takes millions of cycles.
        #[arg(long)]
        tiny: bool,
        /// Rounds per measurement (the median is printed).
        #[arg(long, default_value_t = 3)]
        rounds: usize,
        /// Skip the runs with waves.
        #[arg(long)]
        no_waves: bool,
        /// Working directory: sources, waveforms and the cached Verilator models (default:
        /// `handscope-bench-engine` in the system temporary directory).
        #[arg(long)]
        dir: Option<std::path::PathBuf>,
        /// C kernels to measure too (repeatable; a directory stands for its `.c` files), each
        /// with its stimulus in its header (`// TOP:`, `// RUN:`), at every timing of
        /// `--timings`: cycles, activity, instructions per cycle, and the engine before and
        /// after activity-driven evaluation against Verilator (docs/bench-engine.md).
        #[arg(long, value_name = "PATH")]
        kernels: Vec<std::path::PathBuf>,
        /// Timing profiles of the kernel runs, comma-separated.
        #[arg(
            long,
            value_delimiter = ',',
            default_value = "ideal,fpga",
            requires = "kernels"
        )]
        timings: Vec<String>,
        /// Only the kernels of `--kernels` (not the chains, sum of squares and matrix product).
        #[arg(long, requires = "kernels")]
        only_kernels: bool,
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
            out!("{}", frame_bench::render(&big, &base))?;
            Ok(ExitCode::SUCCESS)
        }
        BenchWhat::Render { max_stages } => render_growth(max_stages),
        BenchWhat::Engine {
            tiny,
            rounds,
            no_waves,
            ref dir,
            ref kernels,
            ref timings,
            only_kernels,
        } => {
            let sizes = if tiny {
                super::bench_engine::Sizes::TINY
            } else {
                super::bench_engine::Sizes::FULL
            };
            let dir = dir
                .clone()
                .unwrap_or_else(|| std::env::temp_dir().join("handscope-bench-engine"));
            let kernels = super::bench_engine::Kernels {
                files: super::bench_kernels::kernel_files(kernels)?,
                timings: timings.clone(),
                only: only_kernels,
            };
            super::bench_engine::run(sizes, rounds, !no_waves, &dir, &kernels)
        }
    }
}

/// `bench render`: one run per size, one line per size.
fn render_growth(max_stages: usize) -> anyhow::Result<ExitCode> {
    use std::time::Instant;
    let dir = std::env::temp_dir().join(format!("handscope-bench-{}", std::process::id()));
    outln!("growth of `handscope render` time with graph size (one run per size)")?;
    outln!(
        "  {:>7} {:>7} {:>10} {:>11} {:>10} {:>11} {:>10} {:>11} {:>6}",
        "stages",
        "nodes",
        "layout",
        "us/node",
        "draw",
        "us/node",
        "total",
        "us/node",
        "ratio"
    )?;
    let mut prev: Option<f64> = None;
    let sizes = [10, 100, 1_000, 10_000, 20_000];
    for &stages in sizes.iter().filter(|&&s| s <= max_stages) {
        let f = handscope_sim::bench_support::chain(stages);
        let nodes = f.nodes.len();
        let start = frame_bench::chain_start(stages, &dir)?;
        let t = Instant::now();
        // On a thread with the layout's stack, as the debugger runs it (the pure-Rust layout
        // recurses once per node along a path).
        let f2 = f.clone();
        std::thread::Builder::new()
            .stack_size(crate::app::layout::layout_stack_size(nodes))
            .spawn(move || {
                let engine = crate::app::layout::Engine::Auto;
                std::hint::black_box(crate::app::layout::compute(
                    &f2,
                    engine,
                    crate::app::layout::DEFAULT_PANEL,
                ));
            })?
            .join()
            .map_err(|_| anyhow::anyhow!("the layout thread panicked"))?;
        let layout = t.elapsed().as_secs_f64();
        // The layout is cached now: what follows is the rest of `render`.
        let t = Instant::now();
        let svg = crate::app::render::render_svg(start, 0, Default::default())?;
        let draw = t.elapsed().as_secs_f64();
        std::hint::black_box(svg);
        let per = |s: f64| s * 1e6 / nodes as f64;
        let total = per(layout + draw);
        outln!(
            "  {:>7} {:>7} {:>8.1}ms {:>11.1} {:>8.1}ms {:>11.1} {:>8.1}ms {:>11.1} {:>6}",
            stages,
            nodes,
            layout * 1e3,
            per(layout),
            draw * 1e3,
            per(draw),
            (layout + draw) * 1e3,
            total,
            prev.map_or("-".to_string(), |p| format!("{:.2}", total / p))
        )?;
        prev = Some(total);
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(ExitCode::SUCCESS)
}
