//! Command-line interface: argument definitions and dispatch.

mod check;
mod dot;
mod mlir;
mod sim;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Handscope: cycle-accurate simulator and visual debugger for handshake dataflow circuits.
#[derive(Parser, Debug)]
#[command(name = "handscope", version, about, long_about = None)]
pub struct Cli {
    /// What to do; without a subcommand Handscope opens on its built-in example gallery.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Parse and verify a circuit: op counts, channels, warnings and errors with locations.
    Check(check::CheckArgs),
    /// Write a Graphviz DOT drawing of a circuit.
    Dot(dot::DotArgs),
    /// Print a circuit as normalized CIRCT handshake MLIR.
    Mlir(mlir::MlirArgs),
    /// Simulate a function cycle by cycle: outputs, memories, statistics, deadlocks.
    Sim(sim::SimArgs),
}

/// Input-file argument shared by the subcommands.
#[derive(clap::Args, Debug)]
pub struct InputArgs {
    /// Handshake MLIR file to read.
    pub file: PathBuf,
    /// Function to use (default: the last non-external function in the file).
    #[arg(long)]
    pub func: Option<String>,
}

/// Runs the parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Some(Command::Check(a)) => check::run(&a),
        Some(Command::Dot(a)) => dot::run(&a),
        Some(Command::Mlir(a)) => mlir::run(&a),
        Some(Command::Sim(a)) => sim::run(&a),
        None => gallery_summary(),
    }
}

/// Until the debugger window exists: a summary of the built-in examples.
fn gallery_summary() -> anyhow::Result<ExitCode> {
    println!("Handscope {} — built-in example gallery\n", env!("CARGO_PKG_VERSION"));
    for ex in crate::examples::CIRCUITS {
        let loaded = crate::load::load_text(std::path::Path::new(ex.name), ex.text)?;
        let summary = ex.text.lines().take_while(|l| l.starts_with("//")).next().unwrap_or("");
        for f in &loaded.module.functions {
            println!(
                "{:<26} @{:<14} {:>3} nodes {:>3} channels  {}",
                ex.name,
                f.name,
                f.nodes.len() - f.args.iter().filter(|a| a.node.is_some()).count(),
                f.channels.len(),
                summary.trim_start_matches("//").trim()
            );
        }
    }
    println!("\nTry: handscope check examples/circuits/counter_loop.mlir   (handscope --help for more)");
    Ok(ExitCode::SUCCESS)
}

/// Picks the function a subcommand works on.
pub fn select_function<'m>(
    module: &'m handscope_sim::Module,
    name: Option<&str>,
) -> anyhow::Result<&'m handscope_sim::Function> {
    match name {
        Some(n) => module.function(n).ok_or_else(|| {
            let names: Vec<_> = module.functions.iter().map(|f| f.name.as_str()).collect();
            anyhow::anyhow!("no function @{n} (the file has: {})", names.join(", "))
        }),
        None => module.default_function().ok_or_else(|| anyhow::anyhow!("the file has no function with a body")),
    }
}
