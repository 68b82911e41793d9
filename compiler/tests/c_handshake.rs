//! End-to-end tests of the C-to-handshake lowering: every kernel in `tests/data/c` is
//! compiled to a handshake graph, verified, simulated cycle by cycle with the RUN lines'
//! inputs, and its return value and final array contents are compared with the IR
//! interpreter (which `c_kernels.rs` checks against the system C compiler). Also: CIRCT
//! accepts the MLIR, compiling twice is byte-identical, and task pipelining keeps results.

use std::path::{Path, PathBuf};
use std::process::Command;

use handscope_compiler::c::handshake::memory_inits;
use handscope_compiler::c::ir::{IrFunction, IrParam};
use handscope_compiler::c::{
    ArgValue, BufferPolicy, HsOptions, compile_to_handshake, compile_to_ir, run,
};
use handscope_compiler::mlir::write_mlir;
use handscope_sim::engine::Simulation;
use handscope_sim::report::Status;
use handscope_sim::stimulus::{Environment, TokenSource};
use handscope_sim::verify::{Rule, verify};
use handscope_sim::{Function, Op};

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

/// Same RUN-line syntax as `c_kernels.rs`.
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
                v.resize(len, 0);
                ArgValue::Array(v)
            }
        })
        .collect()
}

struct Kernel {
    file: String,
    src: String,
    top: String,
    runs: Vec<String>,
}

fn kernel(file: &str) -> Kernel {
    let src = std::fs::read_to_string(kernel_path(file)).expect("read kernel");
    let top = src
        .lines()
        .find_map(|l| l.strip_prefix("// TOP:"))
        .map(|s| s.trim().to_string())
        .expect("TOP line");
    let runs = src
        .lines()
        .filter_map(|l| l.strip_prefix("// RUN:"))
        .map(str::to_string)
        .collect();
    Kernel {
        file: file.to_string(),
        src,
        top,
        runs,
    }
}

fn compile(k: &Kernel, opts: &HsOptions) -> Function {
    let m = compile_to_handshake(&k.src, &k.file, Some(&k.top), opts)
        .unwrap_or_else(|e| panic!("{}: {e:?}", k.file));
    assert_eq!(m.functions.len(), 1);
    m.functions.into_iter().next().expect("one function")
}

fn sext(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        ((v << (64 - bits)) as i64) >> (64 - bits)
    }
}

fn norm(v: i64, bits: u32, signed: bool) -> i64 {
    let m = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let u = (v as u64) & m;
    if signed { sext(u, bits) } else { u as i64 }
}

/// Environment for one or more invocations (scalars become one token per invocation).
fn environment(ir: &IrFunction, hs: &Function, invocations: &[Vec<ArgValue>]) -> Environment {
    let mut env = Environment {
        deadlock_window: 64,
        ..Environment::default()
    };
    env.memories = memory_inits(hs);
    for (i, p) in ir.params.iter().enumerate() {
        match p {
            IrParam::Scalar { name, .. } => {
                let vals = invocations
                    .iter()
                    .map(|args| match &args[i] {
                        ArgValue::Scalar(v) => *v as u64,
                        ArgValue::Array(_) => panic!("array for scalar"),
                    })
                    .collect();
                env.push_tokens(name.clone(), TokenSource::Values(vals));
            }
            IrParam::Array { name, .. } => {
                if let ArgValue::Array(v) = &invocations[0][i] {
                    env.ext_memories
                        .insert(name.clone(), v.iter().map(|x| *x as u64).collect());
                }
            }
        }
    }
    env.push_tokens("start", TokenSource::None(invocations.len() as u64));
    env
}

/// Simulates one invocation and compares with the interpreter; returns the cycle count.
fn check_run(k: &Kernel, ir: &IrFunction, hs: &Function, line: &str, what: &str) -> u64 {
    let args = parse_args(ir, line);
    let expected = run(ir, &args, 200_000_000).expect("interpreter");
    let env = environment(ir, hs, std::slice::from_ref(&args));
    let mut sim = Simulation::new(hs, env).unwrap_or_else(|e| panic!("{}: {e}", k.file));
    let report = sim.run(2_000_000);
    assert_eq!(
        report.status,
        Status::Done,
        "{} ({what}) RUN `{line}`: {:?}\n{:?}",
        k.file,
        report.status,
        report.deadlock
    );
    if let Some(t) = ir.ret {
        let out = &report.outputs["ret"];
        assert_eq!(out.len(), 1, "{} ({what})", k.file);
        let got = norm(out[0].bits as i64, t.bits(), t.signed);
        let want = norm(expected.ret.expect("ret"), t.bits(), t.signed);
        assert_eq!(got, want, "{} ({what}) RUN `{line}`: return value", k.file);
    }
    assert_eq!(report.outputs["done"].len(), 1);
    let mut a = 0;
    for p in &ir.params {
        if let IrParam::Array { name, mem } = p {
            let m = &ir.memories[mem.0 as usize];
            let (bits, signed) = (m.elem.bits(), m.elem.signed);
            let got: Vec<i64> = sim
                .memory(name)
                .expect("extmemory contents")
                .iter()
                .map(|v| norm(*v as i64, bits, signed))
                .collect();
            let want: Vec<i64> = expected.arrays[a]
                .iter()
                .map(|v| norm(*v, bits, signed))
                .collect();
            assert_eq!(
                got, want,
                "{} ({what}) RUN `{line}`: array `{name}`",
                k.file
            );
            a += 1;
        }
    }
    report.cycles
}

fn check_kernel(file: &str) {
    let k = kernel(file);
    let ir = compile_to_ir(&k.src, &k.file, Some(&k.top)).expect("IR");
    for (policy, pipelined) in [
        (BufferPolicy::Cycles, false),
        (BufferPolicy::All, false),
        (BufferPolicy::Cycles, true),
    ] {
        let opts = HsOptions {
            buffers: policy,
            task_pipelining: pipelined,
        };
        let what = format!("{policy:?}{}", if pipelined { ", pipelined" } else { "" });
        let hs = compile(&k, &opts);
        let rep = verify(&hs);
        assert!(rep.is_ok(), "{} ({what}): {:#?}", k.file, rep.errors);
        let mut cycles = Vec::new();
        for line in &k.runs {
            cycles.push(check_run(&k, &ir, &hs, line, &what));
        }
        let nodes = hs
            .nodes
            .values()
            .filter(|n| !matches!(n.op, Op::Argument { .. }))
            .count();
        println!("{file} [{what}]: {nodes} nodes, cycles {cycles:?}");
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

const KERNEL_COUNT: usize = 28;

fn all_kernels() -> Vec<String> {
    kernel_files()
}

#[test]
fn every_kernel_file_is_listed() {
    assert_eq!(all_kernels().len(), KERNEL_COUNT);
}

#[test]
fn without_buffers_loops_are_combinational_cycles() {
    let k = kernel("gcd.c");
    let hs = compile(
        &k,
        &HsOptions {
            buffers: BufferPolicy::None,
            task_pipelining: false,
        },
    );
    let rep = verify(&hs);
    assert!(
        rep.errors_of(Rule::CombinationalCycle).count() > 0,
        "{rep:#?}"
    );
    assert!(
        rep.errors
            .iter()
            .all(|p| p.rule == Rule::CombinationalCycle),
        "{rep:#?}"
    );
}

#[test]
fn compiling_twice_is_byte_identical() {
    for file in all_kernels() {
        let k = kernel(&file);
        for opts in [
            HsOptions::default(),
            HsOptions {
                buffers: BufferPolicy::All,
                task_pipelining: true,
            },
        ] {
            let a = compile_to_handshake(&k.src, &k.file, Some(&k.top), &opts).expect("a");
            let b = compile_to_handshake(&k.src, &k.file, Some(&k.top), &opts).expect("b");
            assert_eq!(write_mlir(&a), write_mlir(&b), "{file}");
        }
    }
}

#[test]
fn ids_are_readable_and_located() {
    let k = kernel("gcd.c");
    let hs = compile(&k, &HsOptions::default());
    for n in hs.nodes.values() {
        if matches!(n.op, Op::Argument { .. }) {
            continue;
        }
        if n.id == "return" {
            continue;
        }
        let block = n
            .block
            .as_deref()
            .unwrap_or_else(|| panic!("{} has no block", n.id));
        assert!(
            n.id.starts_with(&format!("{block}.")) || n.id.starts_with("lock."),
            "{}",
            n.id
        );
        let loc = n
            .loc
            .as_ref()
            .unwrap_or_else(|| panic!("{} has no location", n.id));
        assert_eq!(&*loc.file, "gcd.c");
    }
    // The loop header of Euclid's loop merges the entry and the latch.
    assert!(hs.node_by_id("bb1.control_merge0").is_some() || hs.node_by_id("bb1.mux0").is_some());
    let text = write_mlir(&handscope_sim::Module {
        functions: vec![hs],
    });
    assert!(text.contains("handshake.name = \"bb1.cmpi0\""), "{text}");
    assert!(
        text.contains("argNames = [\"a\", \"b\", \"start\"]"),
        "{text}"
    );
    assert!(text.contains("resNames = [\"ret\", \"done\"]"), "{text}");
}

#[test]
fn editing_one_block_keeps_other_ids() {
    let a = "int f(int a, int b) {\n  int s = a + b;\n  for (int i = 0; i < b; i++)\n    s += i;\n  return s;\n}\n";
    let b = "int f(int a, int b) {\n  int s = a + b;\n  for (int i = 0; i < b; i++)\n    s += i * 3;\n  return s;\n}\n";
    let ids = |src: &str| -> Vec<String> {
        let m = compile_to_handshake(src, "f.c", None, &HsOptions::default()).expect("compiles");
        m.functions[0]
            .nodes
            .values()
            .filter(|n| n.block.as_deref() == Some("bb1"))
            .map(|n| n.id.clone())
            .collect()
    };
    assert_eq!(ids(a), ids(b));
}

#[test]
fn local_array_initializers_become_memory_attributes() {
    let k = kernel("multidim_init.c");
    let hs = compile(&k, &HsOptions::default());
    let inits = memory_inits(&hs);
    assert_eq!(inits["mem.coef"], vec![1, 0xfffe, 3, 0xfffc, 5, 0xfffa]);
    assert_eq!(inits["mem.small"], vec![250, 251, 252, 0, 0]);
    let text = write_mlir(&handscope_sim::Module {
        functions: vec![hs],
    });
    assert!(
        text.contains("handshake.init = [1, 65534, 3, 65532, 5, 65530]"),
        "{text}"
    );
}

/// Several invocations in one run: with the function lock they are serialized; with task
/// pipelining they may overlap. Either way every result matches the interpreter run on the
/// invocations one after the other (array contents carried over), in order.
#[test]
fn several_invocations() {
    for (file, lines) in [
        ("gcd.c", vec!["48 18", "17 5", "0 9", "1071 462"]),
        ("collatz.c", vec!["27", "1", "97"]),
        (
            "shifts.c",
            vec!["-12345 4000000000 5", "77 1 31", "-1 255 0", "5 6 7"],
        ),
        (
            "divrem.c",
            vec!["-7 2 []", "7 -2 []", "-7 -2 []", "-100 7 []"],
        ),
        ("short_circuit.c", vec!["0 5 []", "3 0 []", "-2 -2 []"]),
        (
            "histogram.c",
            vec![
                "[1 1 1 2 3 250 250] [] 7",
                "[1 1 1 2 3 250 250] [] 3",
                "[9] [] 1",
            ],
        ),
        (
            "binary_search.c",
            vec![
                "[1 3 5 7 9 11 13 15 17 19 21 23 25 27 29 31] 21",
                "[] 4",
                "[] 1",
            ],
        ),
    ] {
        let k = kernel(file);
        let ir = compile_to_ir(&k.src, &k.file, Some(&k.top)).expect("IR");
        let invs: Vec<Vec<ArgValue>> = lines.iter().map(|l| parse_args(&ir, l)).collect();
        // Sequential reference: arrays carry over from one invocation to the next.
        let mut want_ret = Vec::new();
        let mut arrays: Option<Vec<Vec<i64>>> = None;
        for inv in &invs {
            let mut args = inv.clone();
            if let Some(prev) = &arrays {
                let mut it = prev.iter();
                for a in args.iter_mut() {
                    if let ArgValue::Array(v) = a {
                        *v = it.next().expect("array").clone();
                    }
                }
            }
            let r = run(&ir, &args, 10_000_000).expect("interp");
            want_ret.extend(r.ret);
            arrays = Some(r.arrays);
        }
        let want_arrays = arrays.expect("ran");
        let mut cycles = Vec::new();
        for pipelined in [false, true] {
            let what = format!("{file} pipelined={pipelined}");
            let hs = compile(
                &k,
                &HsOptions {
                    buffers: BufferPolicy::Cycles,
                    task_pipelining: pipelined,
                },
            );
            assert!(verify(&hs).is_ok(), "{what}: {:#?}", verify(&hs).errors);
            let env = environment(&ir, &hs, &invs);
            let mut sim = Simulation::new(&hs, env).expect("sim");
            let rep = sim.run(1_000_000);
            assert_eq!(rep.status, Status::Done, "{what}: {:?}", rep.deadlock);
            assert_eq!(rep.outputs["done"].len(), invs.len(), "{what}");
            if let Some(t) = ir.ret {
                let got: Vec<i64> = rep.outputs["ret"]
                    .iter()
                    .map(|o| norm(o.bits as i64, t.bits(), t.signed))
                    .collect();
                let want: Vec<i64> = want_ret
                    .iter()
                    .map(|v| norm(*v, t.bits(), t.signed))
                    .collect();
                assert_eq!(got, want, "{what}");
            }
            let mut a = 0;
            for p in &ir.params {
                if let IrParam::Array { name, mem } = p {
                    let m = &ir.memories[mem.0 as usize];
                    let (bits, signed) = (m.elem.bits(), m.elem.signed);
                    let got: Vec<i64> = sim
                        .memory(name)
                        .expect("memory")
                        .iter()
                        .map(|v| norm(*v as i64, bits, signed))
                        .collect();
                    let want: Vec<i64> = want_arrays[a]
                        .iter()
                        .map(|v| norm(*v, bits, signed))
                        .collect();
                    assert_eq!(got, want, "{what}: array {name}");
                    a += 1;
                }
            }
            cycles.push(rep.cycles);
        }
        println!(
            "{file}: {} invocations, serialized {} cycles, pipelined {} cycles",
            invs.len(),
            cycles[0],
            cycles[1]
        );
    }
}

// ----- CIRCT acceptance -----------------------------------------------------------------

const CHECKER: &str = r#"
import sys, circt
from circt.ir import Context, Module
import circt.passmanager as pm
ctx = Context()
circt.register_dialects(ctx)
with ctx:
    empty = Module.parse("module {}")
    pm.PassManager.parse("builtin.module(handshake-lower-extmem-to-hw)").run(empty.operation)
    for path in sys.argv[1:]:
        m = Module.parse(open(path).read())
        assert m.operation.verify(), path
print("circt-ok")
"#;

fn python() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("HANDSCOPE_PYTHON").map(PathBuf::from),
        Some(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.venv/bin/python")),
        Some(PathBuf::from("/tmp/circt-venv/bin/python")),
    ];
    candidates.into_iter().flatten().find(|p| {
        p.exists()
            && Command::new(p)
                .args(["-c", "import circt"])
                .output()
                .map(|o| o.status.success())
                .unwrap_or(false)
    })
}

#[test]
fn circt_accepts_compiled_kernels() {
    let Some(py) = python() else {
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "no Python with circt under CI"
        );
        eprintln!("skipping: no Python that can import circt");
        return;
    };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("c_handshake");
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let mut paths = Vec::new();
    for file in all_kernels() {
        let k = kernel(&file);
        for (i, opts) in [
            HsOptions::default(),
            HsOptions {
                buffers: BufferPolicy::All,
                task_pipelining: true,
            },
        ]
        .iter()
        .enumerate()
        {
            let m = compile_to_handshake(&k.src, &k.file, Some(&k.top), opts).expect("compiles");
            let p = dir.join(format!("{}_{i}.mlir", file.trim_end_matches(".c")));
            std::fs::write(&p, write_mlir(&m)).expect("write");
            paths.push(p);
        }
    }
    let script = dir.join("check.py");
    std::fs::write(&script, CHECKER).expect("write checker");
    let out = Command::new(py)
        .arg(&script)
        .args(&paths)
        .output()
        .expect("run python");
    assert!(
        out.status.success() && String::from_utf8_lossy(&out.stdout).contains("circt-ok"),
        "CIRCT rejected the output:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// With task pipelining, an invocation on a short path must not overtake an earlier one on a
/// long path (region locks keep control merges outside loops in order).
#[test]
fn pipelining_keeps_invocation_order() {
    let src = "int f(int a) {\n  int r = 0;\n  if (a > 0) {\n    for (int i = 0; i < a; i++)\n      r += i;\n  } else {\n    r = -1;\n  }\n  return r;\n}\n";
    let args = [10i64, 0, 5, -3, 7, -8];
    for pipelined in [false, true] {
        let m = compile_to_handshake(
            src,
            "order.c",
            None,
            &HsOptions {
                buffers: BufferPolicy::Cycles,
                task_pipelining: pipelined,
            },
        )
        .expect("compiles");
        let f = &m.functions[0];
        assert!(verify(f).is_ok(), "{:#?}", verify(f).errors);
        let mut env = Environment::default();
        env.push_tokens(
            "a",
            TokenSource::Values(args.iter().map(|v| *v as u64).collect()),
        );
        env.push_tokens("start", TokenSource::None(args.len() as u64));
        let mut sim = Simulation::new(f, env).expect("sim");
        let rep = sim.run(10_000);
        assert_eq!(rep.status, Status::Done);
        let got: Vec<i64> = rep.outputs["ret"]
            .iter()
            .map(|o| sext(o.bits, 32))
            .collect();
        assert_eq!(got, vec![45, -1, 10, -1, 21, -1], "pipelined={pipelined}");
    }
}

/// True when CIRCT 1.62's `handshake-lower-extmem-to-hw` cannot lower `f`: it records the
/// memref argument positions before rewriting and does not shift them, so every `extmemory`
/// whose argument is followed by another memref argument must have exactly one port
/// (otherwise it rejects the function, "block argument #N is used by an 'extmemory'
/// operation", or crashes).
fn hits_circt_extmem_index_bug(f: &Function) -> bool {
    let mut ports: Vec<(usize, u32)> = f
        .nodes
        .values()
        .filter_map(|n| match n.op {
            Op::ExtMemory {
                ld, st, memref_arg, ..
            } => Some((memref_arg, ld + st)),
            _ => None,
        })
        .collect();
    ports.sort();
    ports.iter().rev().skip(1).any(|&(_, p)| p > 1)
}

/// The MLIR of every kernel goes through CIRCT 1.62's whole lowering to SystemVerilog
/// (`oracle/scripts/lower.py`, the pipeline of SEMANTICS.md). Kernels that hit CIRCT's
/// extmemory argument-index bug must fail there, so a fixed CIRCT shows up here.
#[test]
fn circt_lowers_kernels_to_systemverilog() {
    let Some(py) = python() else {
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "no Python with circt under CI"
        );
        eprintln!("skipping: no Python that can import circt");
        return;
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../oracle/scripts/lower.py");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("c_lower");
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let (mut lowered, mut bug) = (Vec::new(), Vec::new());
    for file in all_kernels() {
        let k = kernel(&file);
        let m = compile_to_handshake(&k.src, &k.file, Some(&k.top), &HsOptions::default())
            .expect("compiles");
        let stem = file.trim_end_matches(".c");
        let (mlir, sv) = (
            dir.join(format!("{stem}.mlir")),
            dir.join(format!("{stem}.sv")),
        );
        std::fs::write(&mlir, write_mlir(&m)).expect("write");
        let _ = std::fs::remove_file(&sv);
        let out = Command::new(&py)
            .arg(&script)
            .arg(&mlir)
            .arg(&sv)
            .output()
            .expect("run lower.py");
        let ok = out.status.success()
            && std::fs::read_to_string(&sv).is_ok_and(|t| t.contains(&format!("module {}", k.top)));
        if hits_circt_extmem_index_bug(&m.functions[0]) {
            assert!(
                !ok,
                "{file}: expected CIRCT's extmemory index bug, but it lowered"
            );
            bug.push(file);
        } else {
            assert!(
                ok,
                "{file}: CIRCT did not lower it to SystemVerilog:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
            lowered.push(file);
        }
    }
    eprintln!("lowered to SystemVerilog: {lowered:?}\nCIRCT extmemory bug: {bug:?}");
    assert!(lowered.len() >= 20, "{lowered:?}");
}

/// A committed table of every example kernel's size and speed (default options, first RUN
/// line), so that compiler changes show up in review. `UPDATE_SNAPSHOTS=1` rewrites it.
#[test]
fn kernel_snapshot_table() {
    let mut table = String::from(
        "# Example kernels: size and cycles\n\n\
         Generated by `UPDATE_SNAPSHOTS=1 cargo test -p handscope-compiler --test c_handshake \
         kernel_snapshot_table`; the test fails when a compiler change alters a figure.\n\
         Default options (buffers on loop back edges, no task pipelining); cycles for the first \
         `// RUN:` line, until the result token leaves.\n\n\
         | kernel | top | nodes | channels | buffers | memories | cycles |\n\
         |---|---|---:|---:|---:|---:|---:|\n",
    );
    let mut files: Vec<String> = std::fs::read_dir(examples_dir())
        .expect("examples")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".c"))
        .collect();
    files.sort();
    for file in &files {
        let k = kernel(file);
        let ir = compile_to_ir(&k.src, &k.file, Some(&k.top)).expect("IR");
        let hs = compile(&k, &HsOptions::default());
        let cycles = check_run(&k, &ir, &hs, &k.runs[0], "snapshot");
        let count = |p: fn(&Op) -> bool| hs.nodes.values().filter(|n| p(&n.op)).count();
        let nodes = count(|o| !matches!(o, Op::Argument { .. }));
        let buffers = count(|o| matches!(o, Op::Buffer { .. }));
        let mems = count(|o| matches!(o, Op::Memory { .. } | Op::ExtMemory { .. }));
        table.push_str(&format!(
            "| {file} | {} | {nodes} | {} | {buffers} | {mems} | {cycles} |\n",
            k.top,
            hs.channels.len()
        ));
    }
    let path = examples_dir().join("SNAPSHOT.md");
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, &table).expect("write snapshot");
        return;
    }
    let old = std::fs::read_to_string(&path).unwrap_or_default();
    if old != table {
        let diff: Vec<String> = table
            .lines()
            .filter(|l| !old.lines().any(|o| o == *l))
            .map(|l| format!("  now: {l}"))
            .collect();
        panic!(
            "{} is out of date; changed rows:\n{}\nrerun with UPDATE_SNAPSHOTS=1 to accept",
            path.display(),
            diff.join("\n")
        );
    }
}

/// The three-loops kernel with ten back-to-back invocations: every result correct and in
/// order; prints the initiation interval (cycles between consecutive results in steady
/// state) with and without task pipelining, and checks the function lock serializes.
#[test]
fn three_loops_initiation_interval() {
    let k = kernel("three_loops.c");
    let ir = compile_to_ir(&k.src, &k.file, Some(&k.top)).expect("IR");
    let inputs: Vec<u32> = (0..10)
        .map(|i| 0x1234_5678u32.wrapping_mul(i + 1))
        .collect();
    let native = |mut v: u32| {
        for _ in 0..9 {
            v = (v ^ 0x1234) ^ (v >> 16);
        }
        v
    };
    let mut iis = Vec::new();
    for pipelined in [false, true] {
        let hs = compile(
            &k,
            &HsOptions {
                buffers: BufferPolicy::Cycles,
                task_pipelining: pipelined,
            },
        );
        let inv: Vec<Vec<ArgValue>> = inputs
            .iter()
            .map(|&v| vec![ArgValue::Scalar(i64::from(v))])
            .collect();
        let env = environment(&ir, &hs, &inv);
        let mut sim = Simulation::new(&hs, env).expect("sim");
        let report = sim.run(100_000);
        assert_eq!(report.status, Status::Done, "pipelined={pipelined}");
        let out = &report.outputs["ret"];
        let got: Vec<u32> = out.iter().map(|t| t.bits as u32).collect();
        let want: Vec<u32> = inputs.iter().map(|&v| native(v)).collect();
        assert_eq!(
            got, want,
            "pipelined={pipelined}: results in invocation order"
        );
        let cycles: Vec<u64> = out.iter().map(|t| t.cycle).collect();
        let gaps: Vec<u64> = cycles.windows(2).map(|w| w[1] - w[0]).collect();
        let ii = *gaps[3..].iter().max().expect("steady state");
        eprintln!(
            "three_loops, task pipelining {pipelined}: results at cycles {cycles:?}, II {ii}, total {} cycles",
            report.cycles
        );
        iis.push(ii);
    }
    // Measured figures, pinned so that changes show up: without task pipelining the
    // function lock serializes (II = whole latency, 10); with it the three loops hold
    // three invocations (II 4). The reference flow reaches 9 and 3: each loop still
    // spends one cycle between its exit and the next invocation's entry.
    assert_eq!(
        iis,
        [10, 4],
        "initiation intervals (without, with task pipelining)"
    );
}
