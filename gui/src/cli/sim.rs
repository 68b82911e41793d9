//! `handscope sim`: run a function in the cycle-accurate engine and report what happened.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use handscope_sim::engine::Simulation;
use handscope_sim::report::{Status, render_human};
use handscope_sim::stimulus::{Environment, ReadyPolicy, TokenSource};
use handscope_sim::{ArgType, FuncArg, Function, Op};

/// Arguments of `handscope sim`.
#[derive(clap::Args, Debug)]
pub struct SimArgs {
    /// Handshake MLIR file to simulate.
    pub file: PathBuf,
    /// Function to run (default: the only or the last function with a body).
    #[arg(long)]
    pub func: Option<String>,
    /// Tokens for an argument: `NAME=1,2,-3`, `NAME=0..1000` (0 to 999), `NAME=@file`; for a
    /// `none` argument a count (`start=3`). Repeatable. The last `none` argument defaults to 1
    /// token, other arguments to none.
    #[arg(long = "in", value_name = "NAME=TOKENS")]
    pub inputs: Vec<String>,
    /// Initial contents of an `extmemory` argument or internal `memory` (by node ID):
    /// `NAME=v0,v1,...` or `NAME=@file`. Repeatable.
    #[arg(long = "mem", value_name = "NAME=VALUES")]
    pub mems: Vec<String>,
    /// Ready policy of a result: `NAME=always|random:SEED:PROB|pattern:BITS` (default always).
    #[arg(long = "ready", value_name = "NAME=POLICY")]
    pub ready: Vec<String>,
    /// Stop after this many cycles.
    #[arg(long, default_value_t = 1_000_000)]
    pub max_cycles: u64,
    /// Cycles without any transfer after which the run is declared deadlocked.
    #[arg(long, default_value_t = 16)]
    pub deadlock_window: u64,
    /// Write a VCD of every channel (and component state) to this file.
    #[arg(long, value_name = "OUT.vcd")]
    pub vcd: Option<PathBuf>,
    /// Print the report as JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

fn split_assignment<'a>(what: &str, s: &'a str) -> anyhow::Result<(&'a str, &'a str)> {
    match s.split_once('=') {
        Some((n, v)) if !n.trim().is_empty() => Ok((n.trim(), v.trim())),
        _ => bail!("{what} `{s}` is not of the form NAME=VALUE"),
    }
}

/// Builds the environment from the command line, checking every name against the function.
pub fn environment(
    f: &Function,
    inputs: &[String],
    mems: &[String],
    ready: &[String],
    deadlock_window: u64,
) -> anyhow::Result<Environment> {
    let mut env = Environment {
        deadlock_window,
        ..Environment::default()
    };
    // Initial contents written into the graph (C local arrays with initializers).
    env.memories = handscope_compiler::c::handshake::memory_inits(f);
    let arg_names = || {
        f.args
            .iter()
            .map(|a| a.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    for s in inputs {
        let (name, tokens) = split_assignment("--in", s)?;
        let arg = f.args.iter().find(|a| a.name == name).with_context(|| {
            format!(
                "--in {name}: @{} has no argument `{name}` (arguments: {})",
                f.name,
                arg_names()
            )
        })?;
        let ArgType::Channel(ty) = &arg.ty else {
            bail!("--in {name}: `{name}` is a memory; give its contents with --mem {name}=...")
        };
        let src = if ty.is_none() {
            let n: u64 = tokens.parse().with_context(|| {
                format!("--in {name}: `{name}` has type none; give a token count, not `{tokens}`")
            })?;
            TokenSource::None(n)
        } else {
            TokenSource::parse(tokens, ty).with_context(|| format!("--in {name}"))?
        };
        env.push_tokens(name, src);
    }
    for s in mems {
        let (name, values) = split_assignment("--mem", s)?;
        let (elem, internal) = match f.args.iter().find(|a| a.name == name) {
            Some(FuncArg {
                ty: ArgType::MemRef(m),
                ..
            }) => (m.elem.clone(), false),
            Some(_) => {
                bail!("--mem {name}: `{name}` is not a memory argument; give its tokens with --in")
            }
            None => match f.node_by_id(name).map(|n| &f.nodes[n].op) {
                Some(Op::Memory { memref, .. }) => (memref.elem.clone(), true),
                _ => bail!(
                    "--mem {name}: @{} has no memory argument or memory node `{name}`",
                    f.name
                ),
            },
        };
        let src = TokenSource::parse(values, &elem).with_context(|| format!("--mem {name}"))?;
        let contents: Vec<u64> = (0..src.len()).map(|k| src.get(k) & elem.mask()).collect();
        if internal {
            env.memories.insert(name.to_string(), contents);
        } else {
            env.ext_memories.insert(name.to_string(), contents);
        }
    }
    for s in ready {
        let (name, policy) = split_assignment("--ready", s)?;
        if !f.results.iter().any(|r| r.name == name) {
            let names: Vec<_> = f.results.iter().map(|r| r.name.as_str()).collect();
            bail!(
                "--ready {name}: @{} has no result `{name}` (results: {})",
                f.name,
                names.join(", ")
            );
        }
        env.set_ready(
            name,
            ReadyPolicy::parse(policy).with_context(|| format!("--ready {name}"))?,
        );
    }
    Ok(env)
}

/// Flattens instances away (simulation needs a flat graph).
pub fn flat_function(module: &handscope_sim::Module, f: &Function) -> anyhow::Result<Function> {
    if f.nodes
        .values()
        .any(|n| matches!(n.op, Op::Instance { .. }))
    {
        Ok(handscope_sim::transform::flatten(module, &f.name)?)
    } else {
        Ok(f.clone())
    }
}

/// Runs the simulation and prints the report. Exit code 0 when the run is `done`, 2 on a
/// deadlock, 3 when the cycle limit was reached.
pub fn run(a: &SimArgs) -> anyhow::Result<ExitCode> {
    let loaded = crate::load::load_for(&a.file, a.func.as_deref())?;
    let f = super::select_function(&loaded.module, a.func.as_deref())?;
    let flat = flat_function(&loaded.module, f)?;
    let env = environment(&flat, &a.inputs, &a.mems, &a.ready, a.deadlock_window)?;
    let mut sim = Simulation::new(&flat, env)?;
    if a.vcd.is_some() {
        sim.enable_trace();
    }
    let report = sim.run(a.max_cycles);
    if let Some(path) = &a.vcd {
        let trace = sim.take_trace().context("the engine recorded no trace")?;
        let file = std::fs::File::create(path)
            .with_context(|| format!("cannot create {}", path.display()))?;
        handscope_traces::vcd_out::write_vcd(&trace, std::io::BufWriter::new(file))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if a.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", render_human(&report));
    }
    Ok(match report.status {
        Status::Done => ExitCode::SUCCESS,
        Status::Deadlock => ExitCode::from(2),
        Status::MaxCycles => ExitCode::from(3),
    })
}
