//! Standard output that reports a failed write: `print!` and `println!` panic when standard
//! output is a full disk or a closed terminal (`check FILE > /dev/full` ended with a panic
//! and exit 101). The commands print through [`out!`] and [`outln!`], which return the error
//! for `?`, so such a run ends with `error: cannot write to standard output: ...` and exit 1.
//! A pipe closed early (`| head`) still ends the process quietly through SIGPIPE (`main`).

use std::io::Write;

use anyhow::Context;

/// Writes `args` to standard output.
pub fn write(args: std::fmt::Arguments<'_>) -> anyhow::Result<()> {
    std::io::stdout()
        .lock()
        .write_fmt(args)
        .context("cannot write to standard output")
}

/// Flushes standard output (what `print!` left in its buffer is written now, so that its
/// failure is reported).
pub fn flush() -> anyhow::Result<()> {
    std::io::stdout()
        .lock()
        .flush()
        .context("cannot write to standard output")
}

/// Like `print!`, returning `anyhow::Result<()>` instead of panicking on a failed write.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::stdout::write(format_args!($($arg)*))
    };
}

/// Like `println!`, returning `anyhow::Result<()>` instead of panicking on a failed write.
macro_rules! outln {
    () => {
        $crate::stdout::write(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::stdout::write(format_args!("{}\n", format_args!($($arg)*)))
    };
}
