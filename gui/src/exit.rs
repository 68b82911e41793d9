//! The exit codes of `handscope`, one meaning each, shared by the command line and the
//! debugger window (the table is in `--help` and the README).

use std::process::ExitCode;

/// The command did what was asked; a run is `done`.
pub const OK: u8 = 0;
/// An error: unreadable or invalid input, `check` found errors, a stimulus that does not
/// fit, an output that cannot be written.
pub const ERROR: u8 = 1;
/// A run (`sim`, `replay`, `verilate --run`) deadlocked.
pub const DEADLOCK: u8 = 2;
/// A run reached `--max-cycles` before it was done.
pub const MAX_CYCLES: u8 = 3;
/// Ctrl-C stopped a run; its report was still printed (the shell's code for SIGINT).
pub const INTERRUPTED: u8 = 130;
/// The command line is wrong: an unknown subcommand or option, a missing or malformed
/// argument (sysexits' `EX_USAGE`).
pub const USAGE: u8 = 64;
/// The debugger window cannot open: no display (sysexits' `EX_UNAVAILABLE`).
pub const NO_DISPLAY: u8 = 69;
/// The exit-code table shown at the end of `handscope --help`.
pub const TABLE: &str = "Exit codes:
  0   done (a run: every result produced its tokens)
  1   error: bad or unreadable input, `check` found errors, an output could not be written
  2   a run deadlocked
  3   a run reached --max-cycles
  64  usage error: unknown subcommand or option, missing or malformed argument
  69  the debugger window cannot open (no display); use `handscope render`
  130 Ctrl-C stopped a run (its report is still printed)";

/// The exit code of a run: 0 when it is done, 2 on a deadlock, 3 at the cycle limit, 130
/// (the shell's code for SIGINT) when Ctrl-C stopped it.
pub fn of_run(status: handscope_sim::report::Status) -> ExitCode {
    use handscope_sim::report::Status;
    ExitCode::from(match status {
        Status::Done => OK,
        Status::Deadlock => DEADLOCK,
        Status::MaxCycles => MAX_CYCLES,
        Status::Interrupted => INTERRUPTED,
    })
}
