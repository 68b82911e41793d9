//! One combined Verilator model for many designs: a generated SystemVerilog wrapper
//! (`oracle_top`) that instantiates every design's top module as `dut<k>` and exposes its
//! ports as `o<k>_<port>`, and one generated C++ testbench.
//!
//! The testbench reads a stimulus file at run time (so new stimuli never need a rebuild):
//!
//! ```text
//! A <arg#> <n> <tok_1> ... <tok_n>      tokens of one argument (global numbering)
//! R <res#> <bits>                       ready of one result for cycles 0.., as 0/1 chars
//! ```
//!
//! Tokens are decimal for arguments of at most 64 bits and hexadecimal digits (no prefix)
//! for wider ones, whose ports are `VlWide` arrays of 32-bit words in the Verilated model.
//!
//! Protocol per cycle `c` (after `reset` was held high for a few clock cycles): drive every
//! argument (`valid` while tokens remain, data = the current token, else 0) and every result
//! ready (`bits[c]`, 0 past the end), `eval()`, dump the VCD at time `c` (so the VCD holds
//! exactly the settled values of each cycle, one timestamp per cycle), advance every argument
//! whose `valid & ready`, then a rising and a falling clock edge.
//!
//! The model is built with `-O3 --x-assign 0 --x-initial 0 -j 2 --trace` and cached under
//! `<workspace>/target/oracle-cache/model-<hash>/`, keyed by every input of the build.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use crate::error::{OracleError, io};
use crate::hash::StableHasher;
use crate::lower::cache_root;
use crate::tools::Tools;

/// Number of clock cycles `reset` is held high before cycle 0.
pub const RESET_CYCLES: u32 = 3;

/// A channel port of a design's top module: base name and data width (0 for `none`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopPort {
    /// Base name (`a`, `out0`); the module has `<base>`, `<base>_valid`, `<base>_ready`.
    pub base: String,
    /// Data bits (0: no data port).
    pub width: u32,
}

/// One design inside the combined model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelDesign {
    /// Name of its (renamed) top module.
    pub module: String,
    /// Argument channel ports, in order.
    pub args: Vec<TopPort>,
    /// Result channel ports, in order.
    pub results: Vec<TopPort>,
}

/// Stimulus of one design for one run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DesignDrive {
    /// Tokens per argument (already masked to the argument's width).
    pub tokens: Vec<Vec<u64>>,
    /// Ready per result per cycle.
    pub ready: Vec<Vec<bool>>,
}

/// Build options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildOptions {
    /// Verilator's own optimisation flag (`-O3`).
    pub verilator_opt: String,
    /// C++ optimisation flag for the generated code. `-O0` by default: the model runs for
    /// seconds only, while optimising the C++ of 200 designs takes minutes.
    pub cxx_opt: String,
    /// Parallel jobs for Verilator and make.
    pub jobs: u32,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            verilator_opt: "-O3".into(),
            cxx_opt: "-O0".into(),
            jobs: 2,
        }
    }
}

/// A built model.
#[derive(Clone, Debug)]
pub struct Model {
    /// The executable.
    pub exe: PathBuf,
    /// The designs, in order (design `k` is instance `dut<k>`).
    pub designs: Vec<ModelDesign>,
    /// True if it came from the cache.
    pub cached: bool,
    /// Seconds spent building (0 when cached).
    pub build_seconds: f64,
}

fn data_decl(width: u32) -> String {
    if width <= 1 {
        String::new()
    } else {
        format!("[{}:0] ", width - 1)
    }
}

/// The wrapper module `oracle_top`.
pub fn wrapper_sv(designs: &[ModelDesign]) -> String {
    let mut ports = vec!["input clock".to_string(), "input reset".to_string()];
    let mut body = String::new();
    for (k, d) in designs.iter().enumerate() {
        let mut conns = vec![".clock(clock)".to_string(), ".reset(reset)".to_string()];
        for (p, inward) in d
            .args
            .iter()
            .map(|p| (p, true))
            .chain(d.results.iter().map(|p| (p, false)))
        {
            let (din, dout) = if inward {
                ("input", "output")
            } else {
                ("output", "input")
            };
            let b = &p.base;
            if p.width > 0 {
                ports.push(format!("{din} {}o{k}_{b}", data_decl(p.width)));
                conns.push(format!(".{b}(o{k}_{b})"));
            }
            ports.push(format!("{din} o{k}_{b}_valid"));
            ports.push(format!("{dout} o{k}_{b}_ready"));
            conns.push(format!(".{b}_valid(o{k}_{b}_valid)"));
            conns.push(format!(".{b}_ready(o{k}_{b}_ready)"));
        }
        let _ = writeln!(
            body,
            "  {} dut{k} (\n    {}\n  );",
            d.module,
            conns.join(",\n    ")
        );
    }
    format!(
        "module oracle_top(\n  {}\n);\n{body}endmodule\n",
        ports.join(",\n  ")
    )
}

/// The C++ testbench.
pub fn testbench_cpp(designs: &[ModelDesign]) -> String {
    let mut drive = String::new();
    let mut advance = String::new();
    let mut idle = String::new();
    let mut words = Vec::new();
    let (mut na, mut nr) = (0usize, 0usize);
    for (k, d) in designs.iter().enumerate() {
        for p in &d.args {
            let b = format!("o{k}_{}", p.base);
            let _ = writeln!(
                drive,
                "  {{ Arg& a = A[{na}]; bool v = a.pos < a.n; t->{b}_valid = v;"
            );
            let wide = handscope_sim::wide::is_wide(p.width);
            let nw = if wide { p.width.div_ceil(32) } else { 0 };
            words.push(nw.to_string());
            if wide {
                let _ = writeln!(
                    drive,
                    "    for (int i = 0; i < {nw}; i++) t->{b}[i] = v ? a.wide[a.pos * {nw} + i] : 0u;"
                );
                let _ = writeln!(idle, "  for (int i = 0; i < {nw}; i++) t->{b}[i] = 0u;");
            } else if p.width > 0 {
                let _ = writeln!(drive, "    t->{b} = v ? a.toks[a.pos] : 0;");
                let _ = writeln!(idle, "  t->{b} = 0;");
            }
            let _ = writeln!(drive, "  }}");
            let _ = writeln!(
                advance,
                "  if (t->{b}_valid && t->{b}_ready) A[{na}].pos++;"
            );
            let _ = writeln!(idle, "  t->{b}_valid = 0;");
            na += 1;
        }
        for p in &d.results {
            let _ = writeln!(
                drive,
                "  t->o{k}_{}_ready = c < R[{nr}].size() ? R[{nr}][c] : 0;",
                p.base
            );
            let _ = writeln!(idle, "  t->o{k}_{}_ready = 0;", p.base);
            nr += 1;
        }
    }
    format!(
        r#"// Generated by handscope-oracle.
#include "Voracle_top.h"
#include "verilated.h"
#include "verilated_vcd_c.h"
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

struct Arg {{ std::vector<uint64_t> toks; std::vector<uint32_t> wide; size_t n = 0; size_t pos = 0; }};
static Arg A[{na_len}];
static std::vector<uint8_t> R[{nr_len}];
static const size_t NA = {na}, NR = {nr};
// 32-bit words per token of each argument wider than 64 bits (0: a narrow argument).
static const size_t W[{na_len}] = {{{words}}};

// Hexadecimal digits `h` into `n` 32-bit words at `w`, least significant first.
static void parse_hex(const std::string& h, uint32_t* w, size_t n) {{
  for (size_t i = 0; i < n; i++) w[i] = 0;
  for (size_t k = 0; k < h.size(); k++) {{
    char c = h[h.size() - 1 - k];
    uint32_t d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 0;
    if (k / 8 < n) w[k / 8] |= d << (4 * (k % 8));
  }}
}}

static void drive(Voracle_top* t, size_t c) {{
{drive}}}

static void advance(Voracle_top* t) {{
{advance}}}

static void idle(Voracle_top* t) {{
{idle}}}

int main(int argc, char** argv) {{
  if (argc != 5) {{ std::fprintf(stderr, "usage: %s STIM VCD CYCLES RESET\n", argv[0]); return 2; }}
  std::ifstream in(argv[1]);
  if (!in) {{ std::fprintf(stderr, "cannot open %s\n", argv[1]); return 2; }}
  std::string line;
  while (std::getline(in, line)) {{
    std::istringstream ls(line);
    std::string kind; size_t idx; ls >> kind >> idx;
    if (kind == "A" && idx < NA) {{
      size_t n; ls >> n; A[idx].n = n;
      if (W[idx]) {{
        A[idx].wide.assign(n * W[idx], 0);
        for (size_t i = 0; i < n; i++) {{ std::string h; ls >> h; parse_hex(h, &A[idx].wide[i * W[idx]], W[idx]); }}
      }} else {{
        A[idx].toks.resize(n);
        for (size_t i = 0; i < n; i++) {{ unsigned long long v; ls >> v; A[idx].toks[i] = v; }}
      }}
    }} else if (kind == "R" && idx < NR) {{
      std::string bits; ls >> bits;
      for (char ch : bits) R[idx].push_back(ch == '1');
    }} else if (!kind.empty()) {{ std::fprintf(stderr, "bad stimulus line: %s\n", line.c_str()); return 2; }}
  }}
  size_t cycles = std::strtoull(argv[3], nullptr, 10);
  size_t reset_cycles = std::strtoull(argv[4], nullptr, 10);
  Verilated::traceEverOn(true);
  Voracle_top* t = new Voracle_top;
  VerilatedVcdC* tfp = new VerilatedVcdC;
  t->trace(tfp, 99);
  tfp->open(argv[2]);
  idle(t);
  t->clock = 0; t->reset = 1; t->eval();
  for (size_t r = 0; r < reset_cycles; r++) {{ t->clock = 1; t->eval(); t->clock = 0; t->eval(); }}
  t->reset = 0; t->eval();
  for (size_t c = 0; c < cycles; c++) {{
    drive(t, c);
    t->eval();
    tfp->dump((uint64_t)c);
    advance(t);
    t->clock = 1; t->eval();
    t->clock = 0; t->eval();
  }}
  tfp->close();
  t->final();
  delete tfp;
  delete t;
  return 0;
}}
"#,
        na_len = na.max(1),
        nr_len = nr.max(1),
        words = if words.is_empty() {
            "0".to_string()
        } else {
            words.join(", ")
        },
    )
}

fn tail(text: &str, lines: usize) -> String {
    let v: Vec<&str> = text.lines().collect();
    v[v.len().saturating_sub(lines)..].join("\n")
}

/// Verilator's command line (without file names and output directory).
pub fn verilator_args(opts: &BuildOptions) -> Vec<String> {
    let mut a: Vec<String> = [
        "--cc",
        "--exe",
        "--build",
        "--trace",
        "--trace-underscore",
        "--x-assign",
        "0",
        "--x-initial",
        "0",
        "--top-module",
        "oracle_top",
        "-Wno-fatal",
        "-Wno-lint",
        "-Wno-style",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    a.push(opts.verilator_opt.clone());
    a.extend(["-j".to_string(), opts.jobs.to_string()]);
    a.extend(["-CFLAGS".to_string(), format!("{} -w", opts.cxx_opt)]);
    for var in ["OPT_FAST", "OPT_SLOW", "OPT_GLOBAL"] {
        a.extend(["-MAKEFLAGS".to_string(), format!("{var}={}", opts.cxx_opt)]);
    }
    // Compile the split C++ files separately so `make -j` can use both cores.
    a.extend(["-MAKEFLAGS".to_string(), "VM_PARALLEL_BUILDS=1".to_string()]);
    a.extend(["--output-split".to_string(), "20000".to_string()]);
    // Unoptimized builds (the tests'): generated functions split like Handscope's own quick
    // builds.
    if opts.cxx_opt == "-O0" {
        a.extend([
            "--output-split-cfuncs".to_string(),
            handscope_traces::verilator::QUICK_SPLIT_CFUNCS.to_string(),
        ]);
    }
    a
}

/// Builds (or fetches from the cache) the model for `designs` whose component and function
/// modules are in `rtl` (from [`crate::rtl::combine`]).
pub fn build_model(
    tools: &Tools,
    rtl: &str,
    designs: Vec<ModelDesign>,
    opts: &BuildOptions,
) -> Result<Model, OracleError> {
    let wrapper = wrapper_sv(&designs);
    let tb = testbench_cpp(&designs);
    let mut h = StableHasher::default();
    h.update(tools.verilator_version.as_bytes())
        .update(verilator_args(opts).join(" ").as_bytes())
        .update(rtl.as_bytes())
        .update(wrapper.as_bytes())
        .update(tb.as_bytes());
    let root = cache_root(tools);
    let dir = root.join(format!("model-{}", h.hex()));
    let exe = dir.join("Voracle_top");
    if exe.is_file() {
        return Ok(Model {
            exe,
            designs,
            cached: true,
            build_seconds: 0.0,
        });
    }
    let start = Instant::now();
    let tmp = root.join(format!("model-{}.tmp{}", h.hex(), std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(io("creating", &tmp))?;
    let write = |name: &str, text: &str| -> Result<PathBuf, OracleError> {
        let p = tmp.join(name);
        std::fs::write(&p, text).map_err(io("writing", &p))?;
        Ok(p)
    };
    let designs_sv = write("designs.sv", rtl)?;
    let top_sv = write("oracle_top.sv", &wrapper)?;
    let tb_cpp = write("tb.cpp", &tb)?;
    let obj = tmp.join("obj");
    let out = Command::new(&tools.verilator)
        .args(verilator_args(opts))
        .arg("--Mdir")
        .arg(&obj)
        .args(["-o", "Voracle_top"])
        .arg(&designs_sv)
        .arg(&top_sv)
        .arg(&tb_cpp)
        .output()
        .map_err(io("running", &tools.verilator))?;
    let log = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let log_path = tmp.join("build.log");
    let _ = std::fs::write(&log_path, &log);
    let built = obj.join("Voracle_top");
    if !out.status.success() || !built.is_file() {
        return Err(OracleError::Build {
            log: log_path,
            tail: tail(&log, 30),
        });
    }
    std::fs::rename(&built, tmp.join("Voracle_top")).map_err(io("moving", &built))?;
    let _ = std::fs::remove_dir_all(&obj);
    if std::fs::rename(&tmp, &dir).is_err() {
        // Another process built the same model meanwhile; use theirs.
        let _ = std::fs::remove_dir_all(&tmp);
    }
    if !exe.is_file() {
        return Err(OracleError::Run(format!(
            "model executable missing at {}",
            exe.display()
        )));
    }
    Ok(Model {
        exe,
        designs,
        cached: false,
        build_seconds: start.elapsed().as_secs_f64(),
    })
}

/// Writes the stimulus file for `drives` (one per design of `designs`, in model order).
pub fn stimulus_text(designs: &[ModelDesign], drives: &[DesignDrive]) -> String {
    let mut s = String::new();
    let (mut na, mut nr) = (0usize, 0usize);
    for (m, d) in designs.iter().zip(drives) {
        for (toks, p) in d.tokens.iter().zip(&m.args) {
            let _ = write!(s, "A {na} {}", toks.len());
            for &t in toks {
                if handscope_sim::wide::is_wide(p.width) {
                    let _ = write!(s, " {}", handscope_sim::wide::to_hex(t, p.width));
                } else {
                    let _ = write!(s, " {t}");
                }
            }
            s.push('\n');
            na += 1;
        }
        for bits in &d.ready {
            let _ = write!(s, "R {nr} ");
            s.extend(bits.iter().map(|b| if *b { '1' } else { '0' }));
            s.push('\n');
            nr += 1;
        }
    }
    s
}

/// Runs the model for `cycles` cycles and returns the path of the VCD it wrote (in `workdir`).
pub fn run_model(
    model: &Model,
    drives: &[DesignDrive],
    cycles: u32,
    workdir: &Path,
) -> Result<PathBuf, OracleError> {
    if drives.len() != model.designs.len() {
        return Err(OracleError::Run(format!(
            "{} stimuli for {} designs",
            drives.len(),
            model.designs.len()
        )));
    }
    for (k, (d, m)) in drives.iter().zip(&model.designs).enumerate() {
        if d.tokens.len() != m.args.len() || d.ready.len() != m.results.len() {
            return Err(OracleError::Run(format!(
                "design {k}: stimulus does not match its ports"
            )));
        }
    }
    std::fs::create_dir_all(workdir).map_err(io("creating", workdir))?;
    let stim = workdir.join("stimulus.txt");
    std::fs::write(&stim, stimulus_text(&model.designs, drives)).map_err(io("writing", &stim))?;
    let vcd = workdir.join("trace.vcd");
    let out = Command::new(&model.exe)
        .arg(&stim)
        .arg(&vcd)
        .arg(cycles.to_string())
        .arg(RESET_CYCLES.to_string())
        .output()
        .map_err(io("running", &model.exe))?;
    if !out.status.success() {
        return Err(OracleError::Run(format!(
            "{} exited with {}: {}",
            model.exe.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    Ok(vcd)
}
