//! `handscope`: the visual debugger and the command-line subcommands.

// The binary is where output belongs (reports, diagnostics, progress): the print lints guard
// the library crates.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod app;
mod cli;
mod examples;
mod load;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}
