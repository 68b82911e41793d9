//! The C kernel harness shared by the C tests: kernel files and their headers, RUN-line
//! arguments, and the three ways to run a kernel whose outcomes must agree: natively (the
//! system C compiler with a generated driver), in the IR interpreter, and as a handshake
//! graph in the engine.
//!
//! Kernel files carry a header (read by `handscope_sim::session::header`): `// TOP: name` and
//! one or more `// RUN: args` lines, where each argument is an integer (scalar), `[v v ...]`
//! (array, zero-padded) or `rand(seed,lo,hi)` (array of pseudo-random values in `[lo, hi]`);
//! for `float`/`double` parameters also `1.5`, lists with such numbers and
//! `frand(seed,lo,hi)` (see `handscope_sim::session::header::RunArg`).
//!
//! Float values travel as their IEEE-754 bit patterns everywhere: the driver writes and reads
//! them with `memcpy`, so the native results compare bit for bit, NaN payloads included. The
//! native build uses `-ffp-contract=off` (no fused multiply-add, as the circuit has none).

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

use handscope_compiler::c::ir::{IrFunction, IrParam};
use handscope_compiler::c::{
    ArgValue, FloatTy, HsOptions, Scalar, compile_to_handshake, compile_to_ir, run,
};
use handscope_sim::report::{RunReport, Status};
use handscope_sim::session::Session;
use handscope_sim::session::header::{Header, parse_run_line};
use handscope_sim::stimulus::TokenSource;
use handscope_sim::{Function, Op};

/// `examples/kernels`: the example kernels shipped with the project.
pub fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/kernels")
}

/// `tests/data/c`: kernels for language corners that are not examples.
pub fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/c")
}

/// The `.c` file names in `dir`, sorted.
fn c_files(dir: &Path) -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".c"))
        .collect();
    files.sort();
    files
}

/// The example kernel file names, sorted.
pub fn example_files() -> Vec<String> {
    c_files(&examples_dir())
}

/// Every kernel file name (examples and `tests/data/c`), sorted.
pub fn all_kernel_files() -> Vec<String> {
    let mut files = example_files();
    files.extend(c_files(&data_dir()));
    files.sort();
    files
}

/// A kernel file and its header.
pub struct Kernel {
    /// File name (also the name diagnostics and locations use).
    pub file: String,
    /// Full path.
    pub path: PathBuf,
    /// Source text.
    pub src: String,
    /// The `// TOP:` function.
    pub top: String,
    /// The `// RUN:` argument lines.
    pub runs: Vec<String>,
}

/// Reads a kernel from `examples/kernels` when it is there, else from `tests/data/c`.
pub fn kernel(file: &str) -> Kernel {
    let ex = examples_dir().join(file);
    let path = if ex.exists() {
        ex
    } else {
        data_dir().join(file)
    };
    let src = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let header = Header::parse(&src);
    let top = header
        .top()
        .unwrap_or_else(|| panic!("{file}: no `// TOP:` line"))
        .to_string();
    let runs: Vec<String> = header.runs().into_iter().map(String::from).collect();
    assert!(!runs.is_empty(), "{file}: no `// RUN:` line");
    Kernel {
        file: file.to_string(),
        path,
        src,
        top,
        runs,
    }
}

impl Kernel {
    /// The kernel's IR (front and middle end).
    pub fn ir(&self) -> IrFunction {
        compile_to_ir(&self.src, &self.file, Some(&self.top))
            .unwrap_or_else(|e| panic!("{}: {e:?}", self.file))
    }

    /// The kernel's handshake function with `opts`.
    pub fn handshake(&self, opts: &HsOptions) -> Function {
        let m = compile_to_handshake(&self.src, &self.file, Some(&self.top), opts)
            .unwrap_or_else(|e| panic!("{}: {e:?}", self.file));
        assert_eq!(m.functions.len(), 1, "{}", self.file);
        m.functions.into_iter().next().expect("one function")
    }

    /// Short name for temporary files: the file name without `.c`.
    pub fn stem(&self) -> &str {
        self.file.trim_end_matches(".c")
    }
}

/// The arguments of one RUN line, for `f`'s parameters.
pub fn parse_args(f: &IrFunction, line: &str) -> Vec<ArgValue> {
    let args = parse_run_line(line).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(args.len(), f.params.len(), "RUN line arity: {line}");
    f.params
        .iter()
        .zip(args)
        .map(|(p, a)| match p {
            IrParam::Scalar {
                ty: Scalar::Float(t),
                ..
            } => {
                let bits = a
                    .float_scalar(t.kind())
                    .unwrap_or_else(|| panic!("scalar argument `{a}`"))
                    .unwrap_or_else(|e| panic!("{line}: {e}"));
                ArgValue::Scalar(bits as i64)
            }
            IrParam::Scalar { .. } => match a {
                handscope_sim::session::header::RunArg::Scalar(v) => ArgValue::Scalar(v),
                _ => panic!("scalar argument `{a}`"),
            },
            IrParam::Array { mem, .. } => {
                let m = &f.memories[mem.0 as usize];
                let len = m.len as usize;
                let v = match m.elem {
                    Scalar::Float(t) => a
                        .float_array(len, t.kind())
                        .map(|r| r.map(|v| v.into_iter().map(|b| b as i64).collect::<Vec<i64>>())),
                    Scalar::Int(_) => a.array(len),
                }
                .unwrap_or_else(|| panic!("array argument `{a}`"))
                .unwrap_or_else(|e| panic!("{line}: {e}"));
                ArgValue::Array(v)
            }
        })
        .collect()
}

/// Sign-extends the low `bits` of `v`.
pub fn sext(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        ((v << (64 - bits)) as i64) >> (64 - bits)
    }
}

/// `v` reduced to a C integer type of `bits` bits (sign-extended when `signed`).
pub fn norm(v: i64, bits: u32, signed: bool) -> i64 {
    let m = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let u = (v as u64) & m;
    if signed { sext(u, bits) } else { u as i64 }
}

/// What one invocation of a kernel leaves behind: its return value and the final contents
/// of every array parameter, each reduced to its C type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Return value (`None` for a void function).
    pub ret: Option<i64>,
    /// Array parameters by name, in parameter order.
    pub arrays: Vec<(String, Vec<i64>)>,
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(r) = self.ret {
            writeln!(f, "ret={r}")?;
        }
        for (name, vs) in &self.arrays {
            write!(f, "{name}:")?;
            for v in vs {
                write!(f, " {v}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

/// Names and reduces raw array contents, one per array parameter in parameter order.
fn named_arrays(f: &IrFunction, raw: &[Vec<i64>]) -> Vec<(String, Vec<i64>)> {
    let mut it = raw.iter();
    f.params
        .iter()
        .filter_map(|p| match p {
            IrParam::Array { name, mem } => {
                let m = &f.memories[mem.0 as usize];
                let vs = it.next().expect("array contents");
                Some((
                    name.clone(),
                    vs.iter()
                        .map(|v| norm(*v, m.elem.bits(), m.elem.signed()))
                        .collect(),
                ))
            }
            IrParam::Scalar { .. } => None,
        })
        .collect()
}

/// Builds an [`Outcome`] from raw values: the return value (if any) and one array of raw
/// values per array parameter, in parameter order.
fn outcome(f: &IrFunction, ret: Option<i64>, arrays: &[Vec<i64>]) -> Outcome {
    Outcome {
        ret: f
            .ret
            .map(|t| norm(ret.expect("return value"), t.bits(), t.signed())),
        arrays: named_arrays(f, arrays),
    }
}

/// Runs one invocation in the IR interpreter.
pub fn interpreted(f: &IrFunction, args: &[ArgValue]) -> Outcome {
    let r = run(f, args, 200_000_000).unwrap_or_else(|e| panic!("interpreter failed: {e}"));
    outcome(f, r.ret, &r.arrays)
}

/// C helpers of the driver: float values from and to their bit patterns, through `memcpy`
/// (no float operation touches them, so NaN payloads survive).
const FLOAT_HELPERS: &str = "#include <string.h>
static float hs_f32(unsigned long long b) { unsigned int u = (unsigned int)b; float x; memcpy(&x, &u, 4); return x; }
static double hs_f64(unsigned long long b) { double x; memcpy(&x, &b, 8); return x; }
static unsigned long long hs_b32(float x) { unsigned int u; memcpy(&u, &x, 4); return u; }
static unsigned long long hs_b64(double x) { unsigned long long u; memcpy(&u, &x, 8); return u; }
";

/// The driver's helper reading a float of type `t` from its bits, and writing its bits.
fn float_fns(t: FloatTy) -> (&'static str, &'static str) {
    match t {
        FloatTy::Float => ("hs_f32", "hs_b32"),
        FloatTy::Double => ("hs_f64", "hs_b64"),
    }
}

/// The C driver: array arguments from the first invocation, scalars from each; arrays carry
/// over from one call to the next; prints every call's outcome (floats as bit patterns).
fn driver(f: &IrFunction, kernel: &Path, invocations: &[Vec<ArgValue>]) -> String {
    let mut d = format!(
        "#include \"{}\"\n#include <stdio.h>\n{FLOAT_HELPERS}int main(void) {{\n",
        kernel.display()
    );
    for (i, (p, a)) in f.params.iter().zip(&invocations[0]).enumerate() {
        if let (IrParam::Array { mem, .. }, ArgValue::Array(vs)) = (p, a) {
            let m = &f.memories[mem.0 as usize];
            let dims: String = m.dims.iter().map(|d| format!("[{d}]")).collect();
            match m.elem {
                Scalar::Float(t) => {
                    let bits: Vec<String> =
                        vs.iter().map(|v| format!("{}ULL", *v as u64)).collect();
                    d.push_str(&format!(
                        "  static {} arg{i}{dims};\n  {{\n    static const unsigned long long init[] = {{{}}};\n    for (unsigned long k = 0; k < {}; k++) {{ unsigned long long b = init[k]; memcpy((char *)arg{i} + k * {}, &b, {}); }}\n  }}\n",
                        t.c_name(),
                        bits.join(", "),
                        vs.len(),
                        t.bits() / 8,
                        t.bits() / 8,
                    ));
                }
                Scalar::Int(_) => {
                    let vals: Vec<String> = vs
                        .iter()
                        .map(|v| format!("({})({v}LL)", m.elem.c_name()))
                        .collect();
                    d.push_str(&format!(
                        "  static {} arg{i}{dims} = {{{}}};\n",
                        m.elem.c_name(),
                        vals.join(", ")
                    ));
                }
            }
        }
    }
    for args in invocations {
        let call_args: Vec<String> = f
            .params
            .iter()
            .zip(args)
            .enumerate()
            .map(|(i, (p, a))| match (p, a) {
                (
                    IrParam::Scalar {
                        ty: Scalar::Float(t),
                        ..
                    },
                    ArgValue::Scalar(v),
                ) => format!("{}({}ULL)", float_fns(*t).0, *v as u64),
                (IrParam::Scalar { ty, .. }, ArgValue::Scalar(v)) => {
                    format!("({})({v}LL)", ty.c_name())
                }
                (IrParam::Array { .. }, ArgValue::Array(_)) => format!("arg{i}"),
                _ => panic!("argument kind mismatch"),
            })
            .collect();
        let call = format!("{}({})", f.name, call_args.join(", "));
        match f.ret {
            Some(Scalar::Float(t)) => d.push_str(&format!(
                "  printf(\"ret=%llu\\n\", {}({call}));\n",
                float_fns(t).1
            )),
            Some(t) if t.signed() => d.push_str(&format!(
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
                let (fmtc, cast) = match m.elem {
                    Scalar::Float(t) => ("%llu", float_fns(t).1),
                    _ if m.elem.signed() => ("%lld", "(long long)"),
                    _ => ("%llu", "(unsigned long long)"),
                };
                d.push_str(&format!(
                    "  printf(\"{name}:\");\n  for (unsigned long i = 0; i < {len}; i++) printf(\" {fmtc}\", {cast}(((const {ty}*)arg{i})[i]));\n  printf(\"\\n\");\n",
                    len = m.len,
                    ty = m.elem.c_name()
                ));
            }
        }
    }
    d.push_str("  return 0;\n}\n");
    d
}

/// Compiles the kernel with the system C compiler (`cc`) and a generated driver that calls
/// it once per invocation (array contents carry over between calls), runs it and returns
/// every call's outcome. `tag` names the temporary files.
pub fn native(
    f: &IrFunction,
    k: &Kernel,
    invocations: &[Vec<ArgValue>],
    tag: &str,
) -> Vec<Outcome> {
    let src = driver(f, &k.path, invocations);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("c_native");
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let c = dir.join(format!("{tag}.c"));
    let exe = dir.join(tag);
    std::fs::write(&c, &src).expect("write driver");
    let out = Command::new("cc")
        .args([
            "-std=gnu11",
            "-O0",
            "-fwrapv",
            "-ffp-contract=off",
            "-w",
            "-o",
        ])
        .arg(&exe)
        .arg(&c)
        .arg("-lm")
        .output()
        .expect("run cc");
    assert!(
        out.status.success(),
        "cc failed for {tag}:\n{}\n{src}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new(&exe).output().expect("run driver");
    assert!(out.status.success(), "driver {tag} failed");
    let text = String::from_utf8(out.stdout).expect("utf8");
    let n_arrays = f
        .params
        .iter()
        .filter(|p| matches!(p, IrParam::Array { .. }))
        .count();
    let mut lines = text.lines();
    let mut outs = Vec::new();
    for _ in invocations {
        let ret = f.ret.map(|_| {
            let l = lines.next().expect("ret line");
            let v = l.strip_prefix("ret=").expect("ret=");
            v.parse::<i128>().expect("ret value") as i64
        });
        let arrays: Vec<Vec<i64>> = (0..n_arrays)
            .map(|_| {
                let l = lines.next().expect("array line");
                let (_, vs) = l.split_once(':').expect("name:");
                vs.split_whitespace()
                    .map(|x| x.parse::<i128>().expect("element") as i64)
                    .collect()
            })
            .collect();
        outs.push(outcome(f, ret, &arrays));
    }
    outs
}

/// The run of one or more back-to-back invocations: one token per invocation on every
/// scalar argument and on `start`; array parameters hold the first invocation's contents;
/// internal memories their initializers.
pub fn session(
    ir: &IrFunction,
    hs: &Function,
    invocations: &[Vec<ArgValue>],
    timing: &handscope_sim::spec::timing::TimingProfile,
) -> Session {
    let mut s = Session::new(hs.clone()).unwrap_or_else(|e| panic!("@{}: {e}", hs.name));
    s.apply_timing(timing)
        .unwrap_or_else(|e| panic!("@{}: {e}", hs.name));
    s.set_deadlock_window(64);
    for (i, p) in ir.params.iter().enumerate() {
        let bound = match p {
            IrParam::Scalar { name, .. } => {
                let vals = invocations
                    .iter()
                    .map(|args| match &args[i] {
                        ArgValue::Scalar(v) => *v as u64,
                        ArgValue::Word(w) => *w,
                        ArgValue::Array(_) | ArgValue::Words(_) => panic!("array for scalar"),
                    })
                    .collect();
                s.bind_tokens(name, TokenSource::Values(vals))
            }
            IrParam::Array { name, .. } => match &invocations[0][i] {
                ArgValue::Array(v) => s.bind_memory(name, v.iter().map(|x| *x as u64).collect()),
                ArgValue::Words(v) => s.bind_memory(name, v.clone()),
                ArgValue::Scalar(_) | ArgValue::Word(_) => panic!("scalar for array"),
            },
        };
        bound.unwrap_or_else(|e| panic!("{e}"));
    }
    s.bind_tokens("start", TokenSource::None(invocations.len() as u64))
        .unwrap_or_else(|e| panic!("{e}"));
    s
}

/// A traced run of `invocations` back to back in the engine (ideal timing), as it ended.
pub fn traced_run(
    ir: &IrFunction,
    hs: &Function,
    invocations: &[Vec<ArgValue>],
    max_cycles: u64,
) -> handscope_sim::session::Run {
    session(
        ir,
        hs,
        invocations,
        &handscope_sim::spec::timing::TimingProfile::ideal(),
    )
    .run(max_cycles, true)
    .unwrap_or_else(|e| panic!("@{}: {e}", hs.name))
}

/// What the engine produced for a run of back-to-back invocations.
pub struct Simulated {
    /// Return values in the order they left (one per invocation; empty for void).
    pub rets: Vec<i64>,
    /// Final contents of every array parameter, by name, in parameter order.
    pub arrays: Vec<(String, Vec<i64>)>,
    /// The engine's report.
    pub report: RunReport,
}

impl Simulated {
    /// The outcome of a single invocation.
    pub fn outcome(&self) -> Outcome {
        assert!(self.rets.len() <= 1, "several results");
        Outcome {
            ret: self.rets.first().copied(),
            arrays: self.arrays.clone(),
        }
    }
}

/// Simulates `invocations` back to back in the engine (`what` names the run in failures):
/// the run must finish, with one `done` (and one `ret`) per invocation.
pub fn simulate(
    ir: &IrFunction,
    hs: &Function,
    invocations: &[Vec<ArgValue>],
    max_cycles: u64,
    what: &str,
) -> Simulated {
    simulate_timed(
        ir,
        hs,
        invocations,
        max_cycles,
        what,
        &handscope_sim::spec::timing::TimingProfile::ideal(),
    )
}

/// [`simulate`] under a timing profile (its pipelines applied to `hs`).
pub fn simulate_timed(
    ir: &IrFunction,
    hs: &Function,
    invocations: &[Vec<ArgValue>],
    max_cycles: u64,
    what: &str,
    timing: &handscope_sim::spec::timing::TimingProfile,
) -> Simulated {
    let run = session(ir, hs, invocations, timing)
        .run(max_cycles, false)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let report = run.report;
    assert_eq!(
        report.status,
        Status::Done,
        "{what}: {:?}\n{:?}",
        report.status,
        report.deadlock
    );
    assert_eq!(report.outputs["done"].len(), invocations.len(), "{what}");
    let rets: Vec<i64> = match ir.ret {
        Some(t) => report.outputs["ret"]
            .iter()
            .map(|o| norm(o.bits as i64, t.bits(), t.signed()))
            .collect(),
        None => Vec::new(),
    };
    let raw: Vec<Vec<i64>> = ir
        .params
        .iter()
        .filter_map(|p| match p {
            IrParam::Array { name, .. } => Some(
                run.memories
                    .get(name)
                    .unwrap_or_else(|| panic!("{what}: no memory `{name}`"))
                    .iter()
                    .map(|v| *v as i64)
                    .collect(),
            ),
            IrParam::Scalar { .. } => None,
        })
        .collect();
    let arrays = named_arrays(ir, &raw);
    Simulated {
        rets,
        arrays,
        report,
    }
}

/// Nodes of a handshake function, not counting argument nodes.
pub fn node_count(f: &Function) -> usize {
    f.nodes
        .values()
        .filter(|n| !matches!(n.op, Op::Argument { .. }))
        .count()
}
