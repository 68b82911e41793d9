//! Shared helpers: loading the example circuits with their `// sim:` environments and
//! comparing traces.

// Test helpers say which checks they skip (missing tools) and what they measured.
#![allow(clippy::print_stdout, clippy::print_stderr)]
#![allow(dead_code)]

pub mod kernels;

use std::path::{Path, PathBuf};

use handscope_sim::Function;
use handscope_sim::engine::Simulation;
use handscope_sim::report::RunReport;
use handscope_sim::session::Session;
use handscope_sim::session::header::Header;
use handscope_sim::stimulus::Environment;
use handscope_sim::trace::Trace;

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

/// The `.mlir` files of `dir`, sorted.
fn mlir_files(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mlir"))
        .collect();
    paths.sort();
    paths
}

/// The example in `path` read by `read` (text, name) and flattened, with the stimulus of its
/// `// sim:` header (deadlock window 16) and, when `ready` is given, that policy on every
/// result.
fn example(
    path: PathBuf,
    text: String,
    read: impl Fn(&str, &str) -> handscope_sim::Module,
    ready: Option<&str>,
) -> Example {
    let name = path.file_stem().unwrap().to_string_lossy().into_owned();
    let func = handscope_sim::session::flat_function(&read(&text, &name), None)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut args = Header::parse(&text).sim_args();
    if let Some(p) = ready {
        args.ready = func
            .results
            .iter()
            .map(|r| format!("{}={p}", r.name))
            .collect();
    }
    let mut s = Session::new(func.clone()).unwrap_or_else(|e| panic!("{name}: {e}"));
    s.bind(&args).unwrap_or_else(|e| panic!("{name}: {e}"));
    let env = s.environment().clone();
    Example {
        name,
        path,
        text,
        func,
        env,
    }
}

/// Every example circuit except those that must fail `check`.
pub fn examples() -> Vec<Example> {
    mlir_files(&workspace().join("examples").join("circuits"))
        .into_iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            let header = Header::parse(&text);
            if header.values("check").any(|v| v.starts_with("error")) {
                return None;
            }
            let read = |text: &str, name: &str| {
                handscope_compiler::mlir::parse_mlir(text, name)
                    .unwrap_or_else(|e| panic!("{name}: {e:?}"))
                    .0
            };
            Some(example(path, text, read, None))
        })
        .collect()
}

/// The stream programs of `examples/streams`, lowered, with the stimulus of their headers
/// and, when `ready` is given, that policy on every result.
pub fn stream_examples(ready: Option<&str>) -> Vec<Example> {
    mlir_files(&workspace().join("examples").join("streams"))
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            let read = |text: &str, name: &str| {
                handscope_compiler::stream::compile_stream(text, name)
                    .unwrap_or_else(|e| panic!("{name}: {e:?}"))
                    .0
            };
            example(path, text, read, ready)
        })
        .collect()
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
        if state && a.state_words() != b.state_words() {
            // Name the first register that differs.
            let names: Vec<String> = want
                .state_meta()
                .iter()
                .flat_map(|m| m.fields.iter().map(move |f| format!("{}.{f}", m.node)))
                .collect();
            let k = a
                .state_words()
                .iter()
                .zip(b.state_words())
                .position(|(x, y)| x != y)
                .unwrap_or(0);
            panic!(
                "{what}: cycle {c} state word {} differs: {} against {}",
                names.get(k).map_or("?", String::as_str),
                a.state_words().get(k).copied().unwrap_or(0),
                b.state_words().get(k).copied().unwrap_or(0),
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
