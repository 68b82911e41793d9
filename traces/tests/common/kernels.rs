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

/// The kernels of `examples/kernels` named in `names`, compiled with `--memory lsq` (their
/// arrays both read and written behind load-store queues), with their first RUN line.
pub fn lsq_kernels(names: &[&str]) -> Vec<Example> {
    kernels_with_memory(names, handscope_compiler::c::MemoryOrdering::Lsq)
}

/// The kernels of `examples/kernels` named in `names`, compiled with `opts`, with their
/// first RUN line (the graph runs as compiled: a profile in `opts` sizes buffers and
/// schedules islands, its pipelines are not added).
pub fn kernels_with_options(names: &[&str], opts: &HsOptions) -> Vec<Example> {
    kernels()
        .into_iter()
        .filter(|k| names.contains(&k.name.as_str()))
        .map(|mut k| {
            let header = Header::parse(&k.text);
            let top = header.top().expect("TOP line");
            let run = *header.runs().first().expect("RUN line");
            let file = k.path.file_name().unwrap().to_string_lossy().into_owned();
            let m = compile_to_handshake(&k.text, &file, Some(top), opts)
                .unwrap_or_else(|e| panic!("{file}: {e:?}"));
            k.func = m.functions.into_iter().next().expect("one function");
            k.env = environment(&k.func, run);
            k
        })
        .collect()
}

/// The kernels of `examples/kernels` named in `names`, compiled with memory ordering
/// `memory`, with their first RUN line.
pub fn kernels_with_memory(
    names: &[&str],
    memory: handscope_compiler::c::MemoryOrdering,
) -> Vec<Example> {
    kernels_with_options(
        names,
        &HsOptions {
            memory,
            ..Default::default()
        },
    )
}

/// The fewest of `ks` (greedily: most new modules first, then file order) whose SystemVerilog
/// instantiates every kind of component module that any of `ks` does: every component (op and
/// parameters) any kernel needs, at every class of width it is used at (0, 1, 2 to 63, 64, or
/// more bits: the cases the generated code distinguishes), is checked against the engine in
/// at least one kernel, in a Verilator model a fraction of the size of all kernels' (the
/// suite's time budget).
pub fn covering(ks: Vec<Example>) -> Vec<Example> {
    covering_beyond(ks, &Default::default())
}

/// The kinds of component module (see [`covering`]) that `ks` instantiate.
pub fn module_kinds(ks: &[Example]) -> std::collections::BTreeSet<String> {
    ks.iter().flat_map(kernel_module_kinds).collect()
}

fn kernel_module_kinds(k: &Example) -> std::collections::BTreeSet<String> {
    let mut b = handscope_compiler::verilog::VerilogBuilder::new();
    b.add(&k.func, None)
        .unwrap_or_else(|e| panic!("{}: {e}", k.name));
    b.component_names().map(width_classes).collect()
}

/// [`covering`] for the kinds of module not in `done` (checked by another round trip).
pub fn covering_beyond(
    ks: Vec<Example>,
    done: &std::collections::BTreeSet<String>,
) -> Vec<Example> {
    use std::collections::BTreeSet;
    let modules: Vec<BTreeSet<String>> = ks
        .iter()
        .map(|k| kernel_module_kinds(k).difference(done).cloned().collect())
        .collect();
    let mut covered: BTreeSet<String> = BTreeSet::new();
    let mut chosen = vec![false; ks.len()];
    loop {
        let best = (0..ks.len())
            .filter(|&i| !chosen[i])
            .map(|i| (modules[i].difference(&covered).count(), i))
            .filter(|&(n, _)| n > 0)
            .max_by_key(|&(n, i)| (n, std::cmp::Reverse(i)));
        let Some((_, i)) = best else { break };
        chosen[i] = true;
        covered.extend(modules[i].iter().cloned());
    }
    let all: BTreeSet<&String> = modules.iter().flatten().collect();
    assert_eq!(covered.len(), all.len(), "every module is covered");
    ks.into_iter()
        .zip(chosen)
        .filter_map(|(k, c)| c.then_some(k))
        .collect()
}

/// A module name with every number replaced by its class: `0`, `1`, `w` (2 to 63), `64` or `W`
/// (more): widths, slot counts and sizes at which the generated code is the same; repeated
/// ports of one class count once.
fn width_classes(name: &str) -> String {
    let mut out = String::new();
    let mut digits = String::new();
    let flush = |digits: &mut String, out: &mut String| {
        if digits.is_empty() {
            return;
        }
        let class = match digits.parse::<u64>() {
            Ok(0) => "0",
            Ok(1) => "1",
            Ok(2..=63) => "w",
            Ok(64) => "64",
            _ => "W",
        };
        out.push_str(class);
        digits.clear();
    };
    for c in name.chars() {
        if c.is_ascii_digit() {
            digits.push(c);
        } else {
            flush(&mut digits, &mut out);
            out.push(c);
        }
    }
    flush(&mut digits, &mut out);
    // Port lists of any length (a fork of 2 or 5 outputs) are one kind.
    let mut parts: Vec<&str> = Vec::new();
    for p in out.split('_') {
        if parts.last() != Some(&p) {
            parts.push(p);
        }
    }
    parts.join("_")
}
