//! `handscope dot`: Graphviz drawing of a function.

use std::path::PathBuf;
use std::process::ExitCode;

use handscope_compiler::dot::{DotOptions, write_dot};

/// Arguments of `handscope dot`.
#[derive(clap::Args, Debug)]
pub struct DotArgs {
    /// Handshake MLIR file or C kernel to draw.
    pub file: PathBuf,
    /// Function to draw (default: the last function with a body).
    #[arg(long)]
    pub func: Option<String>,
    /// Output file (`-` for standard output).
    #[arg(short, long, default_value = "-")]
    pub output: PathBuf,
    /// Draw instances inlined (flattened hierarchy) instead of as single nodes.
    #[arg(long)]
    pub flatten: bool,
    /// Leave out port names on edges.
    #[arg(long)]
    pub no_port_labels: bool,
    /// Leave out data types on edges.
    #[arg(long)]
    pub no_types: bool,
}

/// Writes the DOT text of the chosen function.
pub fn run(a: &DotArgs) -> anyhow::Result<ExitCode> {
    let loaded = crate::load::load_for(&a.file, a.func.as_deref())?;
    let f = super::select_function(&loaded.module, a.func.as_deref())?;
    let flat;
    let f = if a.flatten {
        flat = handscope_sim::transform::flatten(&loaded.module, &f.name)?;
        &flat
    } else {
        f
    };
    let opts = DotOptions {
        port_labels: !a.no_port_labels,
        types: !a.no_types,
        ..DotOptions::default()
    };
    let text = write_dot(f, &opts);
    if a.output.as_os_str() == "-" {
        out!("{text}")?;
    } else {
        crate::output::write_bytes(&a.output, text)?;
    }
    Ok(ExitCode::SUCCESS)
}
