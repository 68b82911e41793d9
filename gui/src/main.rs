//! `handscope`: the visual debugger and the command-line subcommands.

// The binary is where output belongs (reports, diagnostics, progress): the print lints guard
// the library crates.
#![allow(clippy::print_stdout, clippy::print_stderr)]

// First: the `out!`/`outln!` macros are used by the modules below.
#[macro_use]
mod stdout;

mod app;
mod cli;
mod dynamatic;
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
            let printed = e.print();
            if e.use_stderr() {
                return ExitCode::from(crate::exit::USAGE);
            }
            return match printed {
                Ok(()) => ExitCode::from(crate::exit::OK),
                Err(err) => {
                    eprintln!("error: cannot write to standard output: {err}");
                    ExitCode::from(crate::exit::ERROR)
                }
            };
        }
    };
    // What the command left in standard output's buffer is written before the exit, so that
    // a failed write is reported (`stdout`).
    match cli::run(args).and_then(|code| stdout::flush().map(|()| code)) {
        Ok(code) => code,
        Err(err) => {
            // Escaped and cut: input quoted in a message must not drive the terminal or
            // fill the screen (`handscope_sim::quote`).
            let text = format!("{err:#}");
            eprintln!("error: {}", handscope_sim::quote::message(&text));
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
