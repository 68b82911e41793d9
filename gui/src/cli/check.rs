//! `handscope check`: parse + verify, with a summary of every function.

use std::path::PathBuf;
use std::process::ExitCode;

use handscope_sim::verify::{Problem, Rule, VerifyOptions, verify_module_with, verify_with};
use handscope_sim::{ArgType, Function, transform};

/// Arguments of `handscope check`.
#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// Handshake MLIR file to check.
    pub file: PathBuf,
    /// Also warn about constructs CIRCT 1.62's RTL gets wrong (mux with >2 inputs, merge data).
    #[arg(long)]
    pub circt_compat: bool,
}

/// Parses and verifies the file; exits non-zero when any error is found.
pub fn run(a: &CheckArgs) -> anyhow::Result<ExitCode> {
    let loaded = crate::load::load(&a.file)?;
    let source = std::fs::read_to_string(&a.file).unwrap_or_default();
    let module = &loaded.module;
    let opts = VerifyOptions {
        circt_compat: a.circt_compat,
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
                    report.errors.extend(flat_report.errors.into_iter().filter(|p| {
                        matches!(p.rule, Rule::CombinationalCycle | Rule::Limit)
                    }));
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

    println!("{}", a.file.display());
    for f in &module.functions {
        print_summary(f);
    }
    for w in &report.warnings {
        print_problem("warning", w, &source);
    }
    for e in &report.errors {
        print_problem("error", e, &source);
    }
    let (ne, nw) = (report.errors.len(), report.warnings.len());
    let verdict = if ne == 0 { "ok" } else { "failed" };
    println!(
        "{verdict}: {} function{}, {ne} error{}, {nw} warning{}",
        module.functions.len(),
        plural(module.functions.len()),
        plural(ne),
        plural(nw)
    );
    Ok(if ne == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn has_instances(f: &Function) -> bool {
    f.nodes
        .values()
        .any(|n| matches!(n.op, handscope_sim::Op::Instance { .. }))
}

fn print_summary(f: &Function) {
    if f.external {
        println!("  @{}: external", f.name);
        return;
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
    println!(
        "  @{}: {nodes} nodes, {} channels; arguments ({}) -> results ({})",
        f.name,
        f.channels.len(),
        args.join(", "),
        results.join(", ")
    );
    let ops: Vec<String> = counts.iter().map(|(op, n)| format!("{op} {n}")).collect();
    println!("    ops: {}", ops.join(", "));
}

/// Prints a problem as `file:line:col: error[rule]: message` plus the source line and a caret
/// when the location is in the checked file.
fn print_problem(level: &str, p: &Problem, source: &str) {
    let at = p.loc().map(|l| format!("{l}: ")).unwrap_or_default();
    println!(
        "{at}{level}[{}]: @{}: {}",
        p.rule.code(),
        p.function,
        p.message
    );
    for n in &p.nodes {
        match &n.loc {
            Some(loc) => {
                println!("  --> {loc}  ({})", n.id);
                if let Some(line) = source.lines().nth(loc.line.saturating_sub(1) as usize) {
                    println!("   | {line}");
                    println!("   | {}^", " ".repeat(loc.col.saturating_sub(1) as usize));
                }
            }
            None => println!("  --> {} (no source location)", n.id),
        }
    }
    if !p.channels.is_empty() {
        println!("  channels: {}", p.channels.join(", "));
    }
}
