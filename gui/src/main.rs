//! `handscope`: the visual debugger and the command-line subcommands.

// The binary is where output belongs (reports, diagnostics, progress): the print lints guard
// the library crates.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod app;
mod cli;
mod examples;
mod exit;
mod lessons;
mod load;
mod output;
mod wcp;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    restore_sigpipe();
    let args = match cli::Cli::try_parse() {
        Ok(a) => a,
        Err(e) => {
            // Help and version go to stdout with 0; every other parse error is a usage
            // error with its own code (not 2, which means a deadlock).
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() {
                crate::exit::USAGE
            } else {
                crate::exit::OK
            });
        }
    };
    match cli::run(args) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(crate::exit::ERROR)
        }
    }
}

/// A command-line tool whose output is piped into `head` ends quietly when the reader goes
/// away: the default action of SIGPIPE, which Rust's runtime replaces by an error that would
/// make `println!` panic.
fn restore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: setting the default disposition of a signal, before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
