//! Dynamatic circuits at the command line: what Handscope can do with them today.
//!
//! Files in Dynamatic's dialect are recognized wherever a `.mlir` file is accepted. `check`
//! reads and checks them and prints what they contain; commands that simulate or draw say
//! that Dynamatic's components are not simulated yet (issue #31), instead of failing on the
//! first type CIRCT's reader does not know.

use std::path::Path;

use anyhow::Context;

use handscope_compiler::mlir::dynamatic::{
    DynModule, DynTiming, DynType, FuncSummary, InterfaceKind, lower, lower_with_depths,
};
use handscope_compiler::mlir::{Diagnostic, parse_dynamatic};

use crate::cli::check::plural;

/// Whether `path`'s text is read as Dynamatic's dialect: an MLIR file (or one without an
/// extension) that looks like it.
pub fn is_dynamatic(path: &Path, text: &str) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("mlir") | None
    ) && handscope_compiler::mlir::looks_dynamatic(text)
}

/// Parses a Dynamatic file, rendering a syntax or graph error with its excerpt.
pub fn read(path: &Path, text: &str) -> anyhow::Result<(DynModule, Vec<Diagnostic>)> {
    let name = path.display().to_string();
    parse_dynamatic(text, &name).map_err(|e| crate::load::Rendered(e.render()).into())
}

/// Reads a Dynamatic file into the simulator's graph, its units' latencies from `timing`'s
/// `components.json` (`--timing dynamatic=FILE`) or the built-in table. A CIRCT timing
/// profile is refused: Dynamatic's units carry their own latencies.
pub fn load(
    path: &Path,
    text: &str,
    timing: &handscope_sim::spec::timing::TimingProfile,
) -> anyhow::Result<handscope_sim::Module> {
    if !timing.is_ideal() {
        anyhow::bail!(
            "{}: a Dynamatic circuit takes its units' latencies from Dynamatic's tables, not \
             from the `{}` profile; use `--timing dynamatic` (the default) or \
             `--timing dynamatic=PATH/components.json`",
            path.display(),
            timing.name()
        );
    }
    let (m, warnings) = read(path, text)?;
    for w in &warnings {
        eprintln!("{}", handscope_sim::quote::message(&w.to_string()));
    }
    let table = match timing.dynamatic_components() {
        Some((name, body)) => DynTiming::from_components_json(body, name)?,
        None => DynTiming::builtin(),
    };
    let name = path.display().to_string();
    lower_with_depths(&m, text, &name, &table, &crate::load::lsq_depths())
        .map_err(|e| crate::load::Rendered(e.render()).into())
}

/// `check` on a Dynamatic file: the summary of every function, the reader's warnings, and a
/// verdict line like CIRCT files get.
pub fn check(path: &Path, text: &str) -> anyhow::Result<std::process::ExitCode> {
    let (m, warnings) = read(path, text)?;
    let mut notes = Vec::new();
    outln!("{}", path.display())?;
    outln!(
        "  Dynamatic's dialect, syntax era {} ({})",
        m.era,
        m.era_reason
    )?;
    for (f, s) in m.funcs.iter().zip(m.summary()) {
        let args: Vec<String> = f
            .args
            .iter()
            .map(|p| format!("{}: {}", p.name, type_text(&p.ty)))
            .collect();
        let results: Vec<String> = f
            .results
            .iter()
            .map(|p| format!("{}: {}", p.name, type_text(&p.ty)))
            .collect();
        print_function(&s, &args, &results)?;
        print_lsqs(f, &mut notes)?;
        notes.extend(beyond_mainline(f));
    }
    for w in &warnings {
        eprintln!("{}", handscope_sim::quote::message(&w.to_string()));
    }
    // What `sim` and the debugger will make of it.
    let name = path.display().to_string();
    match lower(&m, text, &name, &DynTiming::builtin()) {
        Ok(module) => {
            for f in &module.functions {
                let report = handscope_sim::verify::verify(f);
                let pipes = f
                    .nodes
                    .values()
                    .filter(|n| matches!(n.op, handscope_sim::Op::DynPipeline { .. }))
                    .count();
                if report.is_ok() {
                    outln!(
                        "  @{}: simulates as {} components, {} multi-cycle unit{} (latencies \
                         from the file, else Dynamatic 1f61d1c3's table)",
                        f.name,
                        f.nodes.len() - f.args.len() - pipes,
                        pipes,
                        plural(pipes)
                    )?;
                } else {
                    let first = report
                        .errors
                        .first()
                        .map(|p| p.to_string())
                        .unwrap_or_default();
                    notes.push(format!("@{} does not verify: {first}", f.name));
                }
            }
        }
        Err(e) => notes.push(format!(
            "`handscope sim` refuses it: {} (line {})",
            e.message,
            e.line_col().0
        )),
    }
    for n in &notes {
        outln!("  note: {n}")?;
    }
    let n = m.funcs.len();
    outln!(
        "ok: {n} function{}, 0 errors, {} warning{}",
        plural(n),
        warnings.len(),
        plural(warnings.len())
    )?;
    Ok(std::process::ExitCode::SUCCESS)
}

/// What in `f` needs more than Dynamatic's mainline semantics: operations of its research
/// branches (speculation, out-of-order tagging, LSQ replacement) and channels with extra
/// signals. Such a circuit will be refused by `sim` even once Dynamatic's components are
/// simulated.
fn beyond_mainline(f: &handscope_compiler::mlir::dynamatic::DynFunc) -> Vec<String> {
    use handscope_compiler::mlir::dynamatic::DynOpKind;
    let mut unsupported: std::collections::BTreeMap<&str, usize> = Default::default();
    let mut extra = 0usize;
    for op in &f.ops {
        if let DynOpKind::Unsupported(m) = &op.kind {
            *unsupported.entry(m.as_str()).or_default() += 1;
        }
        extra += op
            .out_types
            .iter()
            .filter(|t| t.has_extra_signals())
            .count();
    }
    extra += f
        .args
        .iter()
        .chain(&f.results)
        .filter(|p| p.ty.has_extra_signals())
        .count();
    let mut notes = Vec::new();
    if !unsupported.is_empty() {
        let list: Vec<String> = unsupported
            .iter()
            .map(|(m, n)| format!("{m} {n}"))
            .collect();
        notes.push(format!(
            "@{} uses operations of Dynamatic's research branches (speculation, out-of-order \
             tagging, LSQ replacement) that Handscope does not simulate: {}",
            f.name,
            list.join(", ")
        ));
    }
    if extra > 0 {
        notes.push(format!(
            "@{} has {extra} channel type{} with extra signals (speculation or tags), whose \
             semantics Handscope does not simulate",
            f.name,
            plural(extra)
        ));
    }
    notes
}

/// Each load-store queue's configuration as the IR gives it (groups, each load's place among
/// its group's stores, queue depths); a queue whose operands make no configuration is a note.
fn print_lsqs(
    f: &handscope_compiler::mlir::dynamatic::DynFunc,
    notes: &mut Vec<String>,
) -> anyhow::Result<()> {
    use handscope_compiler::mlir::dynamatic::{DynOpKind, LsqMode, lsq_config};
    for op in f.ops.iter().filter(|o| o.kind == DynOpKind::Lsq) {
        let name = op.name.as_deref().unwrap_or("lsq");
        match lsq_config(f, op) {
            Ok(c) => {
                let mode = match c.mode {
                    LsqMode::Master => "master",
                    LsqMode::Slave => "behind the memory controller",
                };
                outln!("    lsq {name} ({mode}): {c}")?;
                let orders: Vec<String> = (0..c.groups.len())
                    .filter(|&g| c.loads(g) > 0 && c.stores(g) > 0)
                    .map(|g| {
                        let o: Vec<String> =
                            c.load_order(g).iter().map(|n| n.to_string()).collect();
                        format!("group {g} [{}]", o.join(", "))
                    })
                    .collect();
                if !orders.is_empty() {
                    outln!(
                        "      stores before each load of a group: {}",
                        orders.join("; ")
                    )?;
                }
            }
            Err(e) => notes.push(format!("{name}: {}", e.message)),
        }
    }
    Ok(())
}

fn print_function(s: &FuncSummary, args: &[String], results: &[String]) -> anyhow::Result<()> {
    let ops: usize = s.op_counts.values().sum();
    let blocks = match (s.basic_blocks.first(), s.basic_blocks.last()) {
        (Some(a), Some(b)) if a != b => format!("basic blocks {a} to {b}"),
        (Some(a), _) => format!("basic block {a}"),
        _ => "no basic blocks".into(),
    };
    outln!(
        "  @{}: {ops} operations, {} channels, {blocks}; arguments ({}) -> results ({})",
        s.name,
        s.channels,
        args.join(", "),
        results.join(", ")
    )?;
    let counts: Vec<String> = s
        .op_counts
        .iter()
        .map(|(op, n)| format!("{op} {n}"))
        .collect();
    outln!("    ops: {}", counts.join(", "))?;
    for mem in &s.memories {
        let how = match mem.interface {
            InterfaceKind::MemController => "a memory controller",
            InterfaceKind::MemControllerWithLsq => "a memory controller and a load-store queue",
            InterfaceKind::Lsq => "a load-store queue",
            InterfaceKind::Unused => "nothing (unused)",
        };
        let name = mem
            .interface_name
            .as_deref()
            .map(|n| format!(" `{n}`"))
            .unwrap_or_default();
        outln!("    memory {}: {} through {how}{name}", mem.name, mem.ty)?;
    }
    Ok(())
}

fn type_text(t: &DynType) -> String {
    let extra = |e: &[handscope_compiler::mlir::dynamatic::ExtraSignal]| {
        if e.is_empty() {
            String::new()
        } else {
            let parts: Vec<String> = e.iter().map(|x| format!("{}: {}", x.name, x.ty)).collect();
            format!(" [{}]", parts.join(", "))
        }
    };
    match t {
        DynType::Channel { data, extra: e } => format!("{data}{}", extra(e)),
        DynType::Control { extra: e } => format!("control{}", extra(e)),
        DynType::MemRef(m) => m.to_string(),
    }
}

/// `tuned` (the tuned version of `orig`, which was read from the Dynamatic file `path`)
/// written back into the file's own text and dialect: the buffers tune grew get their new
/// kind and slots, the ones it added are new `buffer` ops, every other byte is as it was.
/// The written text is read back and must lower to the tuned circuit; anything else is an
/// error, never a file that says something else.
pub fn write_tuned(
    path: &Path,
    text: &str,
    timing: &handscope_sim::spec::timing::TimingProfile,
    orig: &handscope_sim::Function,
    tuned: &handscope_sim::Function,
) -> anyhow::Result<String> {
    use handscope_compiler::mlir::dynamatic::{
        buffer_edits, graph_shape, lower_with_names, write_edited,
    };
    let name = path.display().to_string();
    let (m, _) = read(path, text)?;
    let table = match timing.dynamatic_components() {
        Some((n, body)) => DynTiming::from_components_json(body, n)?,
        None => DynTiming::builtin(),
    };
    let (_, names) = lower_with_names(&m, text, &name, &table, &crate::load::lsq_depths())
        .map_err(|e| anyhow::Error::from(crate::load::Rendered(e.render())))?;
    let (file_func, func_names) = m
        .funcs
        .iter()
        .zip(&names)
        .find(|(f, _)| f.name == tuned.name)
        .with_context(|| format!("{name} has no function `@{}`", tuned.name))?;
    let edits = buffer_edits(orig, tuned, func_names, file_func)
        .with_context(|| format!("the tuned circuit cannot be written in {name}'s dialect"))?;
    let out = write_edited(text, &m, &edits)
        .with_context(|| format!("the tuned circuit cannot be written in {name}'s dialect"))?;
    // Read it back: the file must say exactly the tuned circuit.
    let back = parse_dynamatic(&out, &name)
        .map_err(|e| anyhow::anyhow!("the written file does not read back: {}", e.message))?;
    let module = lower(&back.0, &out, &name, &table)
        .map_err(|e| anyhow::anyhow!("the written file does not lower: {}", e.message))?;
    let again = module
        .function(&tuned.name)
        .context("the written file lost the tuned function")?;
    if graph_shape(again) != graph_shape(tuned) {
        anyhow::bail!(
            "internal error: the written file reads back as a different circuit than the tuned \
             one; nothing is written"
        );
    }
    Ok(out)
}
