//! The C kernels of `examples/kernels` (`// TOP:` and `// RUN:` header lines, as in
//! `compiler/tests/c_kernels.rs`), compiled to handshake with the default options, with the
//! environment of their first RUN line.

use std::path::PathBuf;

use handscope_compiler::c::handshake::memory_inits;
use handscope_compiler::c::{HsOptions, compile_to_handshake};
use handscope_sim::stimulus::{Environment, TokenSource};
use handscope_sim::{ArgType, Function, Type};

use super::{Example, workspace};

/// The kernels' pseudo-random array contents (`rand(seed,lo,hi)`, a 64-bit LCG).
fn rand_values(seed: u64, lo: i64, hi: i64, n: usize) -> Vec<u64> {
    const MUL: u64 = 6364136223846793005;
    const INC: u64 = 1442695040888963407;
    let mut x = seed.wrapping_mul(MUL).wrapping_add(INC);
    let span = (hi - lo + 1).max(1) as u64;
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        x = x.wrapping_mul(MUL).wrapping_add(INC);
        out.push((lo + ((x >> 33) % span) as i64) as u64);
    }
    out
}

/// RUN-line words: `[...]` and `(...)` groups stay together.
fn words(line: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut depth = 0i32;
    let mut fresh = true;
    for ch in line.chars() {
        depth += match ch {
            '[' | '(' => 1,
            ']' | ')' => -1,
            _ => 0,
        };
        if ch.is_whitespace() && depth == 0 {
            fresh = true;
            continue;
        }
        if fresh {
            out.push(String::new());
            fresh = false;
        }
        out.last_mut().expect("a word").push(ch);
    }
    out
}

/// The environment of one RUN line for handshake function `f`: its non-`none` arguments
/// take the words in order (scalars as one token, arrays as extmemory contents).
fn environment(f: &Function, line: &str) -> Environment {
    let mut env = Environment {
        deadlock_window: 64,
        ..Environment::default()
    };
    env.memories = memory_inits(f);
    let params: Vec<_> = f
        .args
        .iter()
        .filter(|a| !matches!(a.ty, ArgType::Channel(Type::None)))
        .collect();
    let ws = words(line);
    assert_eq!(ws.len(), params.len(), "@{}: RUN `{line}`", f.name);
    for (p, w) in params.iter().zip(&ws) {
        match &p.ty {
            ArgType::Channel(_) => {
                let v: i64 = w.parse().expect("scalar argument");
                env.push_tokens(p.name.clone(), TokenSource::Values(vec![v as u64]));
            }
            ArgType::MemRef(m) => {
                let len = m.dims.iter().product::<u64>() as usize;
                let mut vals: Vec<u64> = match w.strip_prefix("rand(") {
                    Some(r) => {
                        let n: Vec<i64> = r
                            .trim_end_matches(')')
                            .split(',')
                            .map(|x| x.trim().parse().expect("rand argument"))
                            .collect();
                        rand_values(n[0] as u64, n[1], n[2], len)
                    }
                    None => w
                        .trim_matches(|c| c == '[' || c == ']')
                        .split_whitespace()
                        .map(|x| x.parse::<i64>().expect("array element") as u64)
                        .collect(),
                };
                vals.resize(len, 0);
                env.ext_memories.insert(p.name.clone(), vals);
            }
        }
    }
    env
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
            let header = |key: &str| {
                text.lines()
                    .find_map(|l| l.strip_prefix(key))
                    .map(|s| s.trim().to_string())
            };
            let top = header("// TOP:").unwrap_or_else(|| panic!("{file}: no TOP line"));
            let run = header("// RUN:").unwrap_or_else(|| panic!("{file}: no RUN line"));
            let m = compile_to_handshake(&text, &file, Some(&top), &HsOptions::default())
                .unwrap_or_else(|e| panic!("{file}: {e:?}"));
            let func = m.functions.into_iter().next().expect("one function");
            let env = environment(&func, &run);
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
