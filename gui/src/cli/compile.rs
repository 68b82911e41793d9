//! `handscope compile`: C kernel to handshake graph, written as MLIR, DOT or a readable list.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;
use handscope_compiler::c::{BufferPolicy, HsOptions, compile_to_handshake_warned};
use handscope_compiler::dot::{DotOptions, write_dot};
use handscope_compiler::mlir::write_mlir;
use handscope_sim::{Function, Op};

/// What `compile` writes.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emit {
    /// CIRCT handshake MLIR (lowerable by CIRCT 1.62).
    Mlir,
    /// Graphviz DOT.
    Dot,
    /// A readable list: every node (stable ID, op, block, C source span) and channel.
    Graph,
}

/// Buffer placement policy.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Buffers {
    /// No buffers (loops stay combinational cycles).
    None,
    /// A buffer on every loop back edge (default).
    Cycles,
    /// A buffer on (nearly) every channel.
    All,
}

/// Arguments of `handscope compile`.
#[derive(clap::Args, Debug)]
pub struct CompileArgs {
    /// C kernel to compile.
    pub file: PathBuf,
    /// Top function (the others are inlined; default: the only function nobody calls).
    #[arg(long)]
    pub func: Option<String>,
    /// Output form.
    #[arg(long, value_enum, default_value = "mlir")]
    pub emit: Emit,
    /// Output file (`-` for standard output).
    #[arg(short, long, default_value = "-")]
    pub output: PathBuf,
    /// Buffer placement.
    #[arg(long, value_enum, default_value = "cycles")]
    pub buffers: Buffers,
    /// Task-pipelining-safe loops: several invocations in flight at once.
    #[arg(long)]
    pub task_pipelining: bool,
    /// The timing profile the circuit is built for (`--timing`): its buffers get the slots
    /// that keep the profile's latencies from throttling it. The MLIR has no latencies of its
    /// own; run it with the same `--timing`.
    #[command(flatten)]
    pub timing: super::timing_flags::TimingFlags,
}

/// Compiles the kernel and writes the chosen form.
pub fn run(a: &CompileArgs) -> anyhow::Result<ExitCode> {
    if a.file.extension().and_then(|e| e.to_str()) != Some("c") {
        bail!(
            "{}: `compile` takes a C kernel (`.c`); for handshake MLIR use `handscope mlir` or `handscope dot`",
            a.file.display()
        );
    }
    let text = handscope_sim::input::read_text(&a.file)?;
    let opts = HsOptions {
        buffers: match a.buffers {
            Buffers::None => BufferPolicy::None,
            Buffers::Cycles => BufferPolicy::Cycles,
            Buffers::All => BufferPolicy::All,
        },
        task_pipelining: a.task_pipelining,
        timing: a.timing.profile()?,
        include_dirs: crate::load::include_dirs(),
        memory: crate::load::memory_ordering(),
        lsq_depths: crate::load::lsq_depths(),
        schedule: crate::load::scheduling(),
        unit_limits: crate::load::unit_limits(),
    };
    let name = a.file.display().to_string();
    let module = match compile_to_handshake_warned(&text, &name, a.func.as_deref(), &opts) {
        Ok((m, warnings)) => {
            for w in &warnings {
                eprintln!("{}", crate::load::render_diagnostic(w));
            }
            m
        }
        Err(e) => return Err(crate::load::Rendered(crate::load::render_diagnostic(&e)).into()),
    };
    let out = match a.emit {
        Emit::Mlir => write_mlir(&module),
        Emit::Dot => {
            let f = super::select_function(&module, None)?;
            write_dot(f, &DotOptions::default())
        }
        Emit::Graph => {
            let f = super::select_function(&module, None)?;
            graph_listing(f)
        }
    };
    if a.output.as_os_str() == "-" {
        out!("{out}")?;
    } else {
        crate::output::write_bytes(&a.output, out)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// A source location as `file:line:col`, with `-line:col` when it has an end.
fn span(l: &handscope_sim::SourceLoc) -> String {
    match l.end {
        Some((line, col)) => format!("{l}-{line}:{col}"),
        None => l.to_string(),
    }
}

/// The readable listing behind `--emit graph`.
pub fn graph_listing(f: &Function) -> String {
    let mut s = String::new();
    let nodes: Vec<_> = f
        .nodes
        .values()
        .filter(|n| !matches!(n.op, Op::Argument { .. }))
        .collect();
    let _ = writeln!(
        s,
        "function @{}: {} nodes, {} channels",
        f.name,
        nodes.len(),
        f.channels.len()
    );
    let _ = writeln!(s, "\nnodes (id, op, block, source):");
    let w = nodes.iter().map(|n| n.id.len()).max().unwrap_or(0);
    for n in &nodes {
        let loc = n.loc.as_ref().map(span).unwrap_or_default();
        let _ = writeln!(
            s,
            "  {:<w$}  {:<14} {:<6} {loc}",
            n.id,
            n.op.mnemonic(),
            n.block.as_deref().unwrap_or("-"),
        );
    }
    let _ = writeln!(s, "\nchannels (name, type: producer -> consumer):");
    for (_, c) in f.channels.iter() {
        let port = |p: &handscope_sim::PortRef, input: bool| {
            let n = &f.nodes[p.node];
            let name = if input {
                n.op.input_port_name(p.port as usize)
            } else {
                n.op.output_port_name(p.port as usize)
            };
            format!("{}.{}", n.id, name)
        };
        let to: Vec<String> = c.consumers.iter().map(|p| port(p, true)).collect();
        let _ = writeln!(
            s,
            "  {}  {}: {} -> {}",
            c.name,
            c.ty,
            port(&c.producer, false),
            to.join(", ")
        );
    }
    s
}
