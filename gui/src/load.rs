//! Reading input files (handshake MLIR or C kernels) into a graph module.

use std::path::Path;

use anyhow::{Context, bail};
use handscope_sim::Module;
use handscope_sim::session::StimulusArgs;
use handscope_sim::session::header::Header;

/// A parsed input file.
pub struct Loaded {
    /// The graph module.
    pub module: Module,
    /// Warnings of the reader (printed on standard error while loading).
    pub reader_warnings: usize,
    /// The file's header (`// sim:`, `// TOP:`, `// RUN:` lines).
    pub header: Header,
    /// Whether the file is a C kernel.
    pub is_c: bool,
    /// The function a run selects: `--func`, else a C kernel's `// TOP:`, else `None` (the
    /// run API's default).
    pub func: Option<String>,
}

impl Loaded {
    /// The stimulus of a run of the selected function of this file, by the one header rule
    /// ([`Header::stimulus`]): the header's, with `flags` (`--in`, `--mem`, `--ready`)
    /// replacing entries of the same name. A note on standard error says when the header
    /// gave any.
    pub fn stimulus(
        &self,
        session: &handscope_sim::session::Session,
        flags: &StimulusArgs,
        path: &Path,
    ) -> anyhow::Result<StimulusArgs> {
        let h = self
            .header
            .stimulus(session.function(), self.is_c)
            .with_context(|| format!("{}: the header's stimulus", path.display()))?;
        if let Some(from) = &h.from {
            let replaced = if flags.is_empty() {
                ""
            } else {
                ", --in/--mem/--ready replacing its entries"
            };
            eprintln!(
                "note: stimulus from the header of {}: {from}{replaced}",
                path.display()
            );
        }
        Ok(h.args.overridden_by(flags))
    }
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

/// The include directories of this process's command line (`-I`, then `CPATH`).
static INCLUDE_DIRS: std::sync::OnceLock<Vec<std::path::PathBuf>> = std::sync::OnceLock::new();

/// Sets the include directories C kernels are compiled with (once, from the command line).
pub fn set_include_dirs(dirs: Vec<std::path::PathBuf>) {
    let _ = INCLUDE_DIRS.set(dirs);
}

/// The include directories C kernels are compiled with (none unless set).
pub fn include_dirs() -> Vec<std::path::PathBuf> {
    INCLUDE_DIRS.get().cloned().unwrap_or_default()
}

/// The load-store queue depths of this process's command line (`--lsq-depth`).
static LSQ_DEPTHS: std::sync::OnceLock<handscope_compiler::mlir::dynamatic::LsqDepths> =
    std::sync::OnceLock::new();

/// Sets the queue depths Dynamatic circuits are read with (once, from the command line).
pub fn set_lsq_depths(depths: handscope_compiler::mlir::dynamatic::LsqDepths) {
    let _ = LSQ_DEPTHS.set(depths);
}

/// The queue depths Dynamatic circuits are read with (none unless set).
pub fn lsq_depths() -> handscope_compiler::mlir::dynamatic::LsqDepths {
    LSQ_DEPTHS.get().cloned().unwrap_or_default()
}

/// The memory ordering of this process's command line (`--memory`).
static MEMORY_ORDERING: std::sync::OnceLock<handscope_compiler::c::MemoryOrdering> =
    std::sync::OnceLock::new();

/// Sets how C kernels order their memory accesses (once, from the command line).
pub fn set_memory_ordering(m: handscope_compiler::c::MemoryOrdering) {
    let _ = MEMORY_ORDERING.set(m);
}

/// How C kernels order their memory accesses (serial unless set).
pub fn memory_ordering() -> handscope_compiler::c::MemoryOrdering {
    MEMORY_ORDERING.get().copied().unwrap_or_default()
}

/// The directories of a `CPATH` value: `:`-separated, an empty entry meaning the current
/// directory (as GCC and Clang read it).
pub fn cpath_dirs(cpath: Option<std::ffi::OsString>) -> Vec<std::path::PathBuf> {
    cpath
        .map(|v| {
            std::env::split_paths(&v)
                .map(|p| {
                    if p.as_os_str().is_empty() {
                        std::path::PathBuf::from(".")
                    } else {
                        p
                    }
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The scheduling and unit limits of this process's command line (`--schedule`, `--units`).
static SCHEDULING: std::sync::OnceLock<(
    handscope_compiler::c::Scheduling,
    std::collections::BTreeMap<String, u32>,
)> = std::sync::OnceLock::new();

/// Sets how C kernels are scheduled (once, from the command line).
pub fn set_scheduling(
    s: handscope_compiler::c::Scheduling,
    units: std::collections::BTreeMap<String, u32>,
) {
    let _ = SCHEDULING.set((s, units));
}

/// How C kernels are scheduled (dynamic unless set).
pub fn scheduling() -> handscope_compiler::c::Scheduling {
    SCHEDULING.get().map(|s| s.0).unwrap_or_default()
}

/// The unit limits of static schedules (none unless set).
pub fn unit_limits() -> std::collections::BTreeMap<String, u32> {
    SCHEDULING.get().map(|s| s.1.clone()).unwrap_or_default()
}

/// Default C compile options, with the command line's include directories, memory
/// ordering and scheduling.
pub fn c_options() -> handscope_compiler::c::HsOptions {
    handscope_compiler::c::HsOptions {
        include_dirs: include_dirs(),
        memory: memory_ordering(),
        lsq_depths: lsq_depths(),
        schedule: scheduling(),
        unit_limits: unit_limits(),
        ..Default::default()
    }
}

/// Reads and parses `path`, rendering syntax errors with their source excerpt; for a C file, `top` names the function to compile (the others are
/// inlined; default: the header's `// TOP:`).
pub fn load_for(path: &Path, top: Option<&str>) -> anyhow::Result<Loaded> {
    let text = handscope_sim::input::read_text(path)?;
    load_text_for(path, &text, top)
}

/// Like [`load_for`], compiling a C kernel for timing profile `timing` (its buffers sized for
/// the profile's latencies).
pub fn load_timed(
    path: &Path,
    top: Option<&str>,
    timing: &handscope_sim::spec::timing::TimingProfile,
) -> anyhow::Result<Loaded> {
    let text = handscope_sim::input::read_text(path)?;
    let opts = handscope_compiler::c::HsOptions {
        timing: timing.clone(),
        ..c_options()
    };
    load_text_with(path, &text, top, &opts)
}

/// Parses `text` as the contents of `path`; `top` as in [`load_for`].
pub fn load_text_for(path: &Path, text: &str, top: Option<&str>) -> anyhow::Result<Loaded> {
    load_text_with(path, text, top, &c_options())
}

/// Like [`load_text_for`], compiling a C kernel with `opts`.
pub fn load_text_with(
    path: &Path,
    text: &str,
    top: Option<&str>,
    opts: &handscope_compiler::c::HsOptions,
) -> anyhow::Result<Loaded> {
    let name = path.display().to_string();
    let header = Header::parse(text);
    let is_c = path.extension().is_some_and(|e| e == "c");
    let func = header.function(top, is_c).map(String::from);
    // The module and the reader's warnings, rendered.
    let (module, warnings): (Module, Vec<String>) = match path.extension().and_then(|e| e.to_str())
    {
        Some("c") => {
            match handscope_compiler::c::compile_to_handshake_warned(
                text,
                &name,
                func.as_deref(),
                opts,
            ) {
                Ok((module, ws)) => (module, ws.iter().map(|w| render_diagnostic(w)).collect()),
                Err(e) => return Err(Rendered(render_diagnostic(&e)).into()),
            }
        }
        Some("mlir") | None if crate::dynamatic::is_dynamatic(path, text) => (
            crate::dynamatic::load(path, text, &opts.timing)?,
            Vec::new(),
        ),
        Some("mlir") | None => {
            // A Stream-dialect program is lowered to handshake; a handshake file is read.
            let read = if handscope_compiler::stream::looks_stream(text) {
                handscope_compiler::stream::compile_stream(text, &name)
            } else {
                handscope_compiler::mlir::parse_mlir(text, &name)
            };
            match read {
                Ok((module, ws)) => (
                    module,
                    ws.iter()
                        .map(|w| handscope_sim::quote::message(&w.to_string()).into_owned())
                        .collect(),
                ),
                Err(e) => return Err(Rendered(e.render()).into()),
            }
        }
        Some(other) => {
            bail!(
                "{name}: unsupported input kind `.{other}` (expected a handshake `.mlir` file or a C `.c` kernel)"
            )
        }
    };
    for w in &warnings {
        eprintln!("{w}");
    }
    Ok(Loaded {
        module,
        reader_warnings: warnings.len(),
        header,
        is_c,
        func,
    })
}

/// Renders a diagnostic with its source excerpt and caret, without colours (a window of the
/// line instead of the whole line when it is very long, so no error position can break it).
pub fn render_diagnostic(e: &dyn miette::Diagnostic) -> String {
    let report = handscope_compiler::render::render_diagnostic(e, None);
    if report.starts_with(&e.to_string()) {
        report
    } else {
        format!(
            "{}\n{report}",
            handscope_sim::quote::escape_controls(&e.to_string())
        )
    }
}
