//! Shared helpers: loading the example circuits with their `// sim:` environments and
//! comparing traces.
#![allow(dead_code)]

pub mod kernels;

use std::path::{Path, PathBuf};

use handscope_sim::engine::Simulation;
use handscope_sim::report::RunReport;
use handscope_sim::stimulus::{Environment, ReadyPolicy, TokenSource};
use handscope_sim::trace::Trace;
use handscope_sim::{ArgType, Function, Op};

/// One runnable example.
pub struct Example {
    pub name: String,
    pub path: PathBuf,
    pub text: String,
    pub func: Function,
    pub env: Environment,
}

pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn environment(f: &Function, args: &str) -> Environment {
    let mut env = Environment::default();
    let toks: Vec<&str> = args.split_whitespace().collect();
    let mut i = 0;
    while i + 1 < toks.len() {
        let (flag, val) = (toks[i], toks[i + 1]);
        i += 2;
        let (name, v) = val.split_once('=').expect("NAME=VALUE");
        match flag {
            "--in" => {
                let a = f.args.iter().find(|a| a.name == name).expect("argument");
                let ArgType::Channel(t) = &a.ty else {
                    panic!("memref")
                };
                let src = if t.is_none() {
                    TokenSource::None(v.parse().unwrap())
                } else {
                    TokenSource::parse(v, t).unwrap()
                };
                env.push_tokens(name, src);
            }
            "--ready" => {
                env.set_ready(name, ReadyPolicy::parse(v).unwrap());
            }
            "--mem" => {
                let elem = match f.args.iter().find(|a| a.name == name) {
                    Some(a) => match &a.ty {
                        ArgType::MemRef(m) => m.elem.clone(),
                        _ => panic!("not a memory"),
                    },
                    None => match &f.nodes[f.node_by_id(name).unwrap()].op {
                        Op::Memory { memref, .. } => memref.elem.clone(),
                        _ => panic!("not a memory"),
                    },
                };
                let src = TokenSource::parse(v, &elem).unwrap();
                let vals = (0..src.len()).map(|k| src.get(k) & elem.mask()).collect();
                if f.args.iter().any(|a| a.name == name) {
                    env.ext_memories.insert(name.into(), vals);
                } else {
                    env.memories.insert(name.into(), vals);
                }
            }
            other => panic!("unknown flag {other}"),
        }
    }
    env
}

/// Every example circuit except those that must fail `check`.
pub fn examples() -> Vec<Example> {
    let dir = workspace().join("examples").join("circuits");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mlir"))
        .collect();
    paths.sort();
    let mut out = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        if text.lines().any(|l| l.starts_with("// check: error")) {
            continue;
        }
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let (module, _) = handscope_compiler::mlir::parse_mlir(&text, &name)
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let f = module.default_function().unwrap();
        let func = if f
            .nodes
            .values()
            .any(|n| matches!(n.op, Op::Instance { .. }))
        {
            handscope_sim::transform::flatten(&module, &f.name).unwrap()
        } else {
            f.clone()
        };
        let args = text
            .lines()
            .find_map(|l| l.strip_prefix("// sim:"))
            .unwrap_or("");
        let env = environment(&func, args);
        out.push(Example {
            name,
            path,
            text,
            func,
            env,
        });
    }
    out
}

/// The engine's report and trace.
pub fn engine_run(f: &Function, env: &Environment, max_cycles: u64) -> (RunReport, Trace) {
    let mut sim = Simulation::new(f, env.clone()).unwrap();
    sim.enable_trace();
    let r = sim.run(max_cycles);
    (r, sim.take_trace().unwrap())
}

/// Asserts that two traces agree channel by channel and cycle by cycle (valid and ready
/// always, data whenever valid), and in the state words when `state` is set.
pub fn assert_same_trace(what: &str, want: &Trace, got: &Trace, state: bool) {
    assert_eq!(want.channels(), got.channels(), "{what}: channel layout");
    // The first differing cycle and channel says more than a differing length.
    for c in 0..want.cycles().min(got.cycles()) {
        let (a, b) = (want.cycle(c).unwrap(), got.cycle(c).unwrap());
        for (i, ch) in want.channels().iter().enumerate() {
            assert_eq!(
                (a.valid(i), a.ready(i)),
                (b.valid(i), b.ready(i)),
                "{what}: cycle {c} channel {} valid/ready",
                ch.name
            );
            if a.valid(i) {
                assert_eq!(
                    a.data(i),
                    b.data(i),
                    "{what}: cycle {c} channel {} data",
                    ch.name
                );
            }
        }
        if state {
            assert_eq!(
                a.state_words(),
                b.state_words(),
                "{what}: cycle {c} state words"
            );
        }
    }
    assert_eq!(want.cycles(), got.cycles(), "{what}: cycle counts");
}

/// True when Verilator is usable; prints why not otherwise (fails under `CI=true`).
pub fn have_verilator(test: &str) -> bool {
    match handscope_traces::verilator::verilator_version() {
        Ok(_) => true,
        Err(e) if std::env::var("CI").is_ok_and(|v| v == "true") => panic!("{test}: {e}"),
        Err(e) => {
            println!("skipping {test}: {e}");
            false
        }
    }
}

/// Builds (quick C++ build, cached) and runs a model in `work`; returns the waveform path.
pub fn quick_build_and_run(
    work: &Path,
    sv: &str,
    tb: &str,
    format: handscope_traces::verilator::WaveFormat,
) -> PathBuf {
    let cfg = handscope_traces::verilator::BuildConfig {
        cache: None,
        format,
        quick: true,
        reject_comb_loops: true,
    };
    handscope_traces::verilator::build_and_run_with(work, sv, tb, &cfg)
        .unwrap_or_else(|e| panic!("{e}"))
}
