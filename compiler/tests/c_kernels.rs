//! Differential tests of the C front end and middle end: every kernel in `tests/data/c` is
//! compiled to IR and run in the IR interpreter, and compiled with the system C compiler
//! together with a generated driver; return values and final array contents must agree.
//!
//! Kernel files carry a header: `// TOP: name` and one or more `// RUN: args` lines, where
//! each argument is an integer (scalar), `[v v ...]` (array, zero-padded) or
//! `rand(seed,lo,hi)` (array of pseudo-random values in `[lo, hi]`).

use handscope_compiler::c::ir::{IrFunction, IrParam};
use handscope_compiler::c::{ArgValue, compile_to_ir, run};
use std::path::{Path, PathBuf};
use std::process::Command;

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/c")
}

/// The example kernels shipped with the project.
fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/kernels")
}

/// A kernel file: from `examples/kernels` when it is there, else from `tests/data/c`.
fn kernel_path(file: &str) -> PathBuf {
    let ex = examples_dir().join(file);
    if ex.exists() {
        ex
    } else {
        data_dir().join(file)
    }
}

/// Every kernel file name in both directories, sorted.
fn kernel_files() -> Vec<String> {
    let mut files: Vec<String> = [data_dir(), examples_dir()]
        .iter()
        .flat_map(|d| std::fs::read_dir(d).expect("kernel dir"))
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".c"))
        .collect();
    files.sort();
    files
}

fn rand_fill(seed: u64, lo: i64, hi: i64, n: usize) -> Vec<i64> {
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            lo + ((x >> 33) % ((hi - lo + 1) as u64)) as i64
        })
        .collect()
}

/// Splits a RUN line into argument tokens (brackets and parentheses kept together).
fn split_args(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut depth = 0;
    for ch in line.chars() {
        match ch {
            '[' | '(' => {
                depth += 1;
                cur.push(ch);
            }
            ']' | ')' => {
                depth -= 1;
                cur.push(ch);
            }
            c if c.is_whitespace() && depth == 0 => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn parse_args(f: &IrFunction, line: &str) -> Vec<ArgValue> {
    let toks = split_args(line);
    assert_eq!(toks.len(), f.params.len(), "RUN line arity: {line}");
    f.params
        .iter()
        .zip(toks)
        .map(|(p, t)| match p {
            IrParam::Scalar { .. } => ArgValue::Scalar(t.parse().expect("scalar argument")),
            IrParam::Array { mem, .. } => {
                let len = f.memories[mem.0 as usize].len as usize;
                let mut v: Vec<i64> = if let Some(r) = t.strip_prefix("rand(") {
                    let nums: Vec<i64> = r
                        .trim_end_matches(')')
                        .split(',')
                        .map(|x| x.trim().parse().expect("rand argument"))
                        .collect();
                    rand_fill(nums[0] as u64, nums[1], nums[2], len)
                } else {
                    t.trim_matches(|c| c == '[' || c == ']')
                        .split_whitespace()
                        .map(|x| x.parse().expect("array element"))
                        .collect()
                };
                assert!(v.len() <= len, "too many elements for array");
                v.resize(len, 0);
                ArgValue::Array(v)
            }
        })
        .collect()
}

fn fmt_val(v: i64, signed: bool) -> String {
    if signed {
        v.to_string()
    } else {
        (v as u64).to_string()
    }
}

/// Expected output format (shared by the driver and the interpreter side).
fn interp_output(f: &IrFunction, args: &[ArgValue]) -> String {
    let r = run(f, args, 200_000_000).unwrap_or_else(|e| panic!("interpreter failed: {e}"));
    let mut s = String::new();
    if let (Some(v), Some(t)) = (r.ret, f.ret) {
        s.push_str(&format!("ret={}\n", fmt_val(v, t.signed)));
    }
    let mut k = 0;
    for p in &f.params {
        if let IrParam::Array { name, mem } = p {
            let m = &f.memories[mem.0 as usize];
            s.push_str(name);
            s.push(':');
            for v in &r.arrays[k] {
                s.push(' ');
                s.push_str(&fmt_val(*v, m.elem.signed));
            }
            s.push('\n');
            k += 1;
        }
    }
    s
}

fn driver(f: &IrFunction, kernel: &Path, args: &[ArgValue]) -> String {
    let mut d = format!(
        "#include \"{}\"\n#include <stdio.h>\nint main(void) {{\n",
        kernel.display()
    );
    let mut call_args = Vec::new();
    for (i, (p, a)) in f.params.iter().zip(args).enumerate() {
        match (p, a) {
            (IrParam::Scalar { ty, .. }, ArgValue::Scalar(v)) => {
                call_args.push(format!("({})({}LL)", ty.c_name(), v));
            }
            (IrParam::Array { mem, .. }, ArgValue::Array(vs)) => {
                let m = &f.memories[mem.0 as usize];
                let dims: String = m.dims.iter().map(|d| format!("[{d}]")).collect();
                let vals: Vec<String> = vs
                    .iter()
                    .map(|v| format!("({})({v}LL)", m.elem.c_name()))
                    .collect();
                d.push_str(&format!(
                    "  static {} arg{i}{dims} = {{{}}};\n",
                    m.elem.c_name(),
                    vals.join(", ")
                ));
                call_args.push(format!("arg{i}"));
            }
            _ => panic!("argument kind mismatch"),
        }
    }
    let call = format!("{}({})", f.name, call_args.join(", "));
    match f.ret {
        Some(t) if t.signed => d.push_str(&format!(
            "  printf(\"ret=%lld\\n\", (long long)({call}));\n"
        )),
        Some(_) => d.push_str(&format!(
            "  printf(\"ret=%llu\\n\", (unsigned long long)({call}));\n"
        )),
        None => d.push_str(&format!("  {call};\n")),
    }
    for (i, p) in f.params.iter().enumerate() {
        if let IrParam::Array { name, mem } = p {
            let m = &f.memories[mem.0 as usize];
            let (fmtc, cast) = if m.elem.signed {
                ("%lld", "long long")
            } else {
                ("%llu", "unsigned long long")
            };
            d.push_str(&format!(
                "  printf(\"{name}:\");\n  for (unsigned long i = 0; i < {len}; i++) printf(\" {fmtc}\", ({cast})((const {ty}*)arg{i})[i]);\n  printf(\"\\n\");\n",
                len = m.len,
                ty = m.elem.c_name()
            ));
        }
    }
    d.push_str("  return 0;\n}\n");
    d
}

fn native_output(name: &str, src: &str) -> String {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("c_kernels");
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let c = dir.join(format!("{name}.c"));
    let exe = dir.join(name);
    std::fs::write(&c, src).expect("write driver");
    let out = Command::new("cc")
        .args(["-std=gnu11", "-O0", "-fwrapv", "-w", "-o"])
        .arg(&exe)
        .arg(&c)
        .output()
        .expect("run cc");
    assert!(
        out.status.success(),
        "cc failed for {name}:\n{}\n{src}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new(&exe).output().expect("run driver");
    assert!(out.status.success(), "driver {name} failed");
    String::from_utf8(out.stdout).expect("utf8")
}

fn check_kernel(file: &str) {
    let path = kernel_path(file);
    let src = std::fs::read_to_string(&path).expect("read kernel");
    let top = src
        .lines()
        .find_map(|l| l.strip_prefix("// TOP:"))
        .map(str::trim)
        .expect("TOP line");
    let f = compile_to_ir(&src, file, Some(top)).unwrap_or_else(|e| panic!("{e:?}"));
    let text = f.to_string();
    assert!(text.starts_with(&format!("func @{top}(")), "{text}");
    let runs: Vec<&str> = src
        .lines()
        .filter_map(|l| l.strip_prefix("// RUN:"))
        .collect();
    assert!(!runs.is_empty(), "no RUN lines in {file}");
    for (k, line) in runs.iter().enumerate() {
        let args = parse_args(&f, line);
        let expected = native_output(
            &format!("{}_{k}", file.trim_end_matches(".c")),
            &driver(&f, &path, &args),
        );
        let got = interp_output(&f, &args);
        assert_eq!(got, expected, "{file} RUN {k}: {line}\nIR:\n{text}");
    }
}

macro_rules! kernels {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                check_kernel(concat!(stringify!($name), ".c"));
            }
        )*
    };
}

kernels!(
    // examples/kernels
    gcd,
    dot,
    histogram,
    matmul,
    matvec,
    triangle_sum,
    insertion_sort,
    binary_search,
    prefix_sum,
    stencil1d,
    stencil2d,
    cond_accum,
    while_threshold,
    nested_loops,
    carried_dep,
    three_loops,
    collatz,
    popcount,
    bitrev,
    helper_call,
    // tests/data/c: language corners
    switch_fall,
    short_circuit,
    mixed_sign,
    char_short,
    shifts,
    divrem,
    multidim_init,
    macros,
);

#[test]
fn every_kernel_file_is_listed() {
    let files = kernel_files();
    assert_eq!(files.len(), 28, "{files:?}");
    let examples = std::fs::read_dir(examples_dir()).expect("examples").count();
    assert!(examples >= 20, "examples/kernels holds {examples} kernels");
}
