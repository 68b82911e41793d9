//! `handscope layout-stats`: how readable each file's graph is at fit (aspect ratio, zoom,
//! label size, edge crossings), one table row per file.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::app::circuit::Circuit;
use crate::app::layout::{Engine, compute};
use crate::app::layout_stats::{READABLE_LABEL_PX, measure};

/// Arguments of `handscope layout-stats`.
#[derive(clap::Args, Debug)]
pub struct LayoutStatsArgs {
    /// C kernels or handshake MLIR files.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Graph panel width in screen points.
    #[arg(long, default_value_t = 1600.0)]
    pub width: f32,
    /// Graph panel height in screen points.
    #[arg(long, default_value_t = 1000.0)]
    pub height: f32,
    /// Function to measure in each file (default: the only or the last function with a
    /// body), as `render --func`: the kernel of a C file whose `main` is a test harness.
    #[arg(long)]
    pub func: Option<String>,
}

/// Lays out every file and prints the table (Markdown); files that do not load are reported
/// and make the exit code 1.
pub fn run(a: &LayoutStatsArgs) -> anyhow::Result<ExitCode> {
    outln!("| file | nodes | engine | aspect | zoom at fit | label px | crossings |")?;
    outln!("|---|---:|---|---:|---:|---:|---:|")?;
    let mut failed = false;
    for f in &a.files {
        let c = match Circuit::from_file(
            f,
            &Default::default(),
            a.func.as_deref(),
            &handscope_sim::spec::timing::TimingProfile::ideal(),
        ) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("{}: {e:#}", f.display());
                failed = true;
                continue;
            }
        };
        let l = compute(&c.func, Engine::Auto, [a.width, a.height]);
        let s = measure(&l, [a.width, a.height]);
        let name = f
            .file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into_owned());
        outln!(
            "| {name} | {} | {} | {:.2} | {:.0}% | {:.1}{} | {} |",
            s.nodes,
            l.engine,
            s.aspect,
            s.fit_zoom * 100.0,
            s.label_px,
            if s.label_px < READABLE_LABEL_PX {
                " (small)"
            } else {
                ""
            },
            s.crossings
        )?;
    }
    Ok(if failed {
        ExitCode::from(crate::exit::ERROR)
    } else {
        ExitCode::SUCCESS
    })
}
