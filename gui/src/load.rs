//! Reading input files (handshake MLIR; C kernels later) into a graph module.

use std::path::Path;

use anyhow::{Context, bail};
use handscope_sim::Module;

/// A parsed input file.
pub struct Loaded {
    /// The graph module.
    pub module: Module,
}

/// An input error that was already rendered for the user (with its source excerpt); the CLI
/// prints it as it is.
#[derive(Debug)]
pub struct Rendered(pub String);

impl std::fmt::Display for Rendered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.trim_end())
    }
}

impl std::error::Error for Rendered {}

/// Reads and parses `path`, rendering syntax errors with their source excerpt.
pub fn load(path: &Path) -> anyhow::Result<Loaded> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    load_text(path, &text)
}

/// Parses `text` as the contents of `path`.
pub fn load_text(path: &Path, text: &str) -> anyhow::Result<Loaded> {
    let name = path.display().to_string();
    match path.extension().and_then(|e| e.to_str()) {
        Some("mlir") | None => {}
        Some(other) => bail!("{name}: unsupported input kind `.{other}` (expected a handshake `.mlir` file)"),
    }
    match handscope_compiler::mlir::parse_mlir(text, &name) {
        Ok((module, warnings)) => {
            for w in warnings {
                eprintln!("{w}");
            }
            Ok(Loaded { module })
        }
        Err(e) => Err(Rendered(e.render()).into()),
    }
}
