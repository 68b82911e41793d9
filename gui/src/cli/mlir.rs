//! `handscope mlir`: normalized handshake MLIR.

use std::path::PathBuf;
use std::process::ExitCode;

use handscope_compiler::mlir::{WriteOptions, write_mlir_with};

/// Arguments of `handscope mlir`.
#[derive(clap::Args, Debug)]
pub struct MlirArgs {
    /// Handshake MLIR file or C kernel to read.
    pub file: PathBuf,
    /// Write here instead of standard output.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

/// Parses the file and prints it back in normalized form.
pub fn run(a: &MlirArgs) -> anyhow::Result<ExitCode> {
    let loaded = crate::load::load(&a.file)?;
    let opts = WriteOptions {
        omit_locations_in: Some(a.file.display().to_string()),
    };
    let text = write_mlir_with(&loaded.module, &opts);
    match &a.output {
        Some(out) => crate::output::write_bytes(out, text)?,
        None => out!("{text}")?,
    }
    Ok(ExitCode::SUCCESS)
}
