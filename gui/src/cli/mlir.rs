//! `handscope mlir`: normalized handshake MLIR.
//!
//! A file in Dynamatic's dialect is written back in that dialect, as it was read (it has
//! checked and lowered first): Handscope keeps Dynamatic's text, attributes and all, so the
//! output goes back into Dynamatic's flow. `--handscope-form` writes the simulated graph in
//! Handscope's own form instead (its `dyn_*` components, re-simulating with the same cycles).

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
    /// For a Dynamatic file: write the simulated graph in Handscope's form (`dyn_*`
    /// components) instead of Dynamatic's dialect.
    #[arg(long)]
    pub handscope_form: bool,
}

/// Parses the file and prints it back in normalized form.
pub fn run(a: &MlirArgs) -> anyhow::Result<ExitCode> {
    let source = handscope_sim::input::read_text(&a.file)?;
    let loaded = crate::load::load_text_for(&a.file, &source, None)?;
    let text = if !a.handscope_form && crate::dynamatic::is_dynamatic(&a.file, &source) {
        source
    } else {
        let opts = WriteOptions {
            omit_locations_in: Some(a.file.display().to_string()),
        };
        write_mlir_with(&loaded.module, &opts)
    };
    match &a.output {
        Some(out) => crate::output::write_bytes(out, text)?,
        None => out!("{text}")?,
    }
    Ok(ExitCode::SUCCESS)
}
