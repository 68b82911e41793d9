//! The C kernels of `examples/kernels` (`// TOP:` and `// RUN:` header lines, as in
//! `compiler/tests/c_kernels.rs`), compiled to handshake with the default options, with the
//! environment of their first RUN line.

use std::path::PathBuf;

use handscope_compiler::c::{HsOptions, compile_to_handshake};
use handscope_sim::Function;
use handscope_sim::session::Session;
use handscope_sim::session::header::{Header, run_stimulus};
use handscope_sim::stimulus::Environment;

use super::{Example, workspace};

/// The environment of one RUN line for handshake function `f`: its non-`none` arguments
/// take the words in order (scalars as one token, arrays as extmemory contents).
fn environment(f: &Function, line: &str) -> Environment {
    let stimulus = run_stimulus(f, line).unwrap_or_else(|e| panic!("@{}: {e}", f.name));
    let mut s = Session::new(f.clone()).unwrap_or_else(|e| panic!("@{}: {e}", f.name));
    s.set_deadlock_window(64)
        .bind(&stimulus)
        .unwrap_or_else(|e| panic!("@{}: RUN `{line}`: {e}", f.name));
    s.environment().clone()
}

/// Every kernel of `examples/kernels`, sorted by file name.
pub fn kernels() -> Vec<Example> {
    let dir = workspace().join("examples").join("kernels");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("examples/kernels")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("kernel");
            let file = path.file_name().unwrap().to_string_lossy().into_owned();
            let header = Header::parse(&text);
            let top = header
                .top()
                .unwrap_or_else(|| panic!("{file}: no TOP line"));
            let run = *header
                .runs()
                .first()
                .unwrap_or_else(|| panic!("{file}: no RUN line"));
            let m = compile_to_handshake(&text, &file, Some(top), &HsOptions::default())
                .unwrap_or_else(|e| panic!("{file}: {e:?}"));
            let func = m.functions.into_iter().next().expect("one function");
            let env = environment(&func, run);
            Example {
                name: path.file_stem().unwrap().to_string_lossy().into_owned(),
                path,
                text,
                func,
                env,
            }
        })
        .collect()
}

/// Every kernel of `examples/kernels` as [`kernels`] gives it, compiled for timing profile
/// `timing` (its buffers sized for the latencies) and with the profile's pipelines in the graph.
pub fn timed_kernels(timing: &handscope_sim::spec::timing::TimingProfile) -> Vec<Example> {
    kernels()
        .into_iter()
        .map(|mut k| {
            let header = Header::parse(&k.text);
            let top = header.top().expect("TOP line");
            let run = *header.runs().first().expect("RUN line");
            let file = k.path.file_name().unwrap().to_string_lossy().into_owned();
            let opts = HsOptions {
                timing: timing.clone(),
                ..Default::default()
            };
            let m = compile_to_handshake(&k.text, &file, Some(top), &opts)
                .unwrap_or_else(|e| panic!("{file}: {e:?}"));
            let func = m.functions.into_iter().next().expect("one function");
            let mut s = Session::new(func).unwrap_or_else(|e| panic!("{file}: {e}"));
            s.apply_timing(timing)
                .unwrap_or_else(|e| panic!("{file}: {e}"));
            k.func = s.function().clone();
            k.env = environment(&k.func, run);
            k
        })
        .collect()
}
