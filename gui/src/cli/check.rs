//! `handscope check`: parse + verify, with a summary of every function.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use handscope_sim::verify::{Problem, Rule, VerifyOptions, verify_module_with, verify_with};
use handscope_sim::{ArgType, Function, transform};

/// Arguments of `handscope check`.
#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// Handshake MLIR file or C kernel to check.
    pub file: PathBuf,
    /// Also warn about constructs CIRCT 1.62's RTL gets wrong (mux with >2 inputs, merge data).
    #[arg(long)]
    pub circt_compat: bool,
    /// Treat values used never or several times (an unmaterialized circuit) as errors; by
    /// default they are warnings, since simulation inserts the forks and sinks itself.
    #[arg(long)]
    pub strict: bool,
}

/// Parses and verifies the file; exits non-zero when any error is found.
pub fn run(a: &CheckArgs) -> anyhow::Result<ExitCode> {
    let text = handscope_sim::input::read_text(&a.file)?;
    if crate::dynamatic::is_dynamatic(&a.file, &text) {
        return crate::dynamatic::check(&a.file, &text);
    }
    let loaded = crate::load::load_text_for(&a.file, &text, None)?;
    let mut sources = Sources::new(&a.file);
    let module = &loaded.module;
    let opts = VerifyOptions {
        circt_compat: a.circt_compat,
        strict: a.strict,
    };
    let mut report = verify_module_with(module, &opts);

    // Cycles can run through instances: verify each flattened hierarchy for those too.
    if report.is_ok() {
        for f in module
            .functions
            .iter()
            .filter(|f| !f.external && has_instances(f))
        {
            match transform::flatten(module, &f.name) {
                Ok(flat) => {
                    let flat_report = verify_with(&flat, &opts, Some(module));
                    report.errors.extend(
                        flat_report
                            .errors
                            .into_iter()
                            .filter(|p| matches!(p.rule, Rule::CombinationalCycle | Rule::Limit)),
                    );
                }
                // What `sim` would refuse (a hierarchy too large or too deep to inline).
                Err(e) => report.errors.push(Problem {
                    rule: Rule::Limit,
                    function: f.name.clone(),
                    message: e.to_string(),
                    nodes: Vec::new(),
                    channels: Vec::new(),
                }),
            }
        }
    }

    outln!("{}", a.file.display())?;
    for f in &module.functions {
        print_summary(f)?;
    }
    for w in &report.warnings {
        print_problem("warning", w, &mut sources)?;
    }
    for e in &report.errors {
        print_problem("error", e, &mut sources)?;
    }
    // The reader's warnings (printed while loading) count too.
    let (ne, nw) = (
        report.errors.len(),
        report.warnings.len() + loaded.reader_warnings,
    );
    let verdict = if ne == 0 { "ok" } else { "failed" };
    outln!(
        "{verdict}: {} function{}, {ne} error{}, {nw} warning{}",
        module.functions.len(),
        plural(module.functions.len()),
        plural(ne),
        plural(nw)
    )?;
    Ok(if ne == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(crate::exit::ERROR)
    })
}

/// `"s"` unless `n` is 1.
pub(crate) fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn has_instances(f: &Function) -> bool {
    f.nodes
        .values()
        .any(|n| matches!(n.op, handscope_sim::Op::Instance { .. }))
}

fn print_summary(f: &Function) -> anyhow::Result<()> {
    if f.external {
        outln!("  @{}: external", f.name)?;
        return Ok(());
    }
    let args: Vec<String> = f
        .args
        .iter()
        .map(|a| match &a.ty {
            ArgType::Channel(t) => format!("{}: {t}", a.name),
            ArgType::MemRef(m) => format!("{}: {m}", a.name),
        })
        .collect();
    let results: Vec<String> = f
        .results
        .iter()
        .map(|r| format!("{}: {}", r.name, r.ty))
        .collect();
    let counts = f.op_counts();
    let nodes: usize = counts.iter().map(|(_, n)| n).sum();
    outln!(
        "  @{}: {nodes} nodes, {} channels; arguments ({}) -> results ({})",
        f.name,
        f.channels.len(),
        args.join(", "),
        results.join(", ")
    )?;
    let ops: Vec<String> = counts.iter().map(|(op, n)| format!("{op} {n}")).collect();
    outln!("    ops: {}", ops.join(", "))
}

/// The text of the files that locations name, read once each. A location names its file as
/// written in the source (an MLIR file compiled from C says `kernel.c`): it is looked up as
/// given and next to the checked file; a file that cannot be read shows no source line.
struct Sources {
    checked: PathBuf,
    texts: BTreeMap<String, Option<String>>,
}

impl Sources {
    fn new(checked: &Path) -> Self {
        Sources {
            checked: checked.to_path_buf(),
            texts: BTreeMap::new(),
        }
    }

    fn line(&mut self, file: &str, line: u32) -> Option<String> {
        let checked = &self.checked;
        let text = self.texts.entry(file.to_string()).or_insert_with(|| {
            let given = Path::new(file).to_path_buf();
            let beside = checked.parent().map(|d| d.join(file));
            std::iter::once(given)
                .chain(beside)
                .filter(|p| p.is_file())
                .find_map(|p| handscope_sim::input::read_text(&p).ok())
        });
        text.as_ref()?
            .lines()
            .nth(line.saturating_sub(1) as usize)
            .map(str::to_string)
    }
}

/// Prints a problem as `file:line:col: error[rule]: message` plus, for each node, its location
/// with the source line (of the file the location names) and a caret.
fn print_problem(level: &str, p: &Problem, sources: &mut Sources) -> anyhow::Result<()> {
    let at = p.loc().map(|l| format!("{l}: ")).unwrap_or_default();
    // Names and messages can quote the input: escaped and cut like every message.
    let head = format!(
        "{at}{level}[{}]: @{}: {}",
        p.rule.code(),
        p.function,
        p.message
    );
    outln!("{}", handscope_sim::quote::message(&head))?;
    for n in &p.nodes {
        match &n.loc {
            Some(loc) => {
                outln!("  --> {loc}  ({})", n.id)?;
                if let Some(line) = sources.line(&loc.file, loc.line) {
                    let shown = handscope_sim::quote::message(&line);
                    outln!("   | {shown}")?;
                    // The caret only under a line shown as it is (not escaped or cut).
                    if shown == line {
                        outln!("   | {}^", " ".repeat(loc.col.saturating_sub(1) as usize))?;
                    }
                }
            }
            None => outln!("  --> {} (no source location)", n.id)?,
        }
    }
    if !p.channels.is_empty() {
        outln!("  channels: {}", p.channels.join(", "))?;
    }
    Ok(())
}
