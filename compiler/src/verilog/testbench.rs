//! Verilator C++ testbench that drives a generated top module exactly like the engine's
//! environment: the same argument tokens (one per transfer, masked to the argument width),
//! the same ready policies (one splitmix64 draw per result per cycle for `random`), the same
//! latency-0 model of every `extmemory`, and the same termination rule (all results complete,
//! `deadlock_window` cycles without progress, or the cycle limit), so that the VCD it dumps
//! covers the cycles `handscope sim` simulates. When a design has float components, the
//! testbench also defines their DPI-C functions ([`super::float_dpi`]).
//!
//! Several designs can share one Verilator model: [`wrapper`] instantiates each of them in a
//! module `hs_tb` whose ports are the designs' ports prefixed `d<k>__`; all designs run in
//! lockstep, each stopping on its own. Timing in the VCD: two reset cycles, then cycle `c`'s
//! settled values at time `10 (c + 2)` with `clock` low and the rising edge at `10 (c + 2) + 5`.
//!
//! Ports wider than 64 bits are `VlWide<N>` in Verilated C++ (`N` 32-bit words, least
//! significant first): the testbench drives a wide argument from tables of 32-bit words
//! written from the tokens' limbs ([`handscope_sim::wide::to_limbs`]), a wide `start..end`
//! range as the 128-bit two's-complement `start + k` sign-extended to the width, and keeps a
//! wide `extmemory` as `N` words per element.

use std::fmt::Write as _;

use handscope_sim::stimulus::{Environment, ReadyPolicy, TokenSource};
use handscope_sim::types::width_mask;
use handscope_sim::wide::{is_wide, to_limbs};
use handscope_sim::{ArgType, Function, Op};

use super::{addr_bits, encode_instance_name};

/// One design driven by the testbench.
pub struct TbDesign<'a> {
    /// Name of its top module (as returned by [`super::VerilogBuilder::add`]).
    pub top: String,
    /// The (flattened) function.
    pub func: &'a Function,
    /// Stimulus, ready policies, memory contents, deadlock window.
    pub env: &'a Environment,
    /// Cycle limit.
    pub max_cycles: u64,
    /// True when the top module has the `hs_any_fire` net (Handscope's SystemVerilog). Other
    /// RTL (CIRCT's) counts as always active: the testbench then stops only when the results
    /// are complete or at the cycle limit, and a replay cuts the run where the engine stops.
    pub any_fire: bool,
}

/// Number of reset cycles the testbench applies before cycle 0.
pub const RESET_CYCLES: u64 = 2;

/// Number of 32-bit words of a Verilated port of `width` bits (`VlWide<N>` above 64 bits).
fn wide_words(width: u32) -> usize {
    (width as usize).div_ceil(32).max(1)
}

/// The 32-bit words (least significant first, [`wide_words`] of them) of a channel word of a
/// `width`-bit channel, as C++ literals.
fn word_literals(word: u64, width: u32) -> impl Iterator<Item = String> {
    to_limbs(word, width)
        .into_iter()
        .flat_map(|l| [l as u32, (l >> 32) as u32])
        .take(wide_words(width))
        .map(|w| format!("{w:#x}u"))
}

/// Mask of the most significant 32-bit word of a `width`-bit wide port.
fn top_word_mask(width: u32) -> u32 {
    match width % 32 {
        0 => u32::MAX,
        r => (1u32 << r) - 1,
    }
}

/// Cursor and segment types for arguments wider than 64 bits (see the module docs).
const WIDE_CURSOR: &str = r#"struct WSeg { int kind; uint64_t lo; uint64_t hi; uint64_t n; const uint32_t* vals; };
struct WCursor {
  const WSeg* segs; size_t nsegs; size_t words; uint32_t top; size_t seg = 0; uint64_t off = 0;
  void skip() { while (seg < nsegs && off >= segs[seg].n) { seg++; off = 0; } }
  bool any() const { return seg < nsegs; }
  bool peek(uint32_t* v) const {
    if (seg >= nsegs) return false;
    const WSeg& s = segs[seg];
    if (s.kind == 0) {
      for (size_t i = 0; i < words; i++) v[i] = s.vals[off * words + i];
    } else if (s.kind == 1) {
      unsigned __int128 x = (((unsigned __int128)s.hi << 64) | s.lo) + off;
      uint32_t fill = (uint32_t)(x >> 127) ? 0xffffffffu : 0u;
      for (size_t i = 0; i < words; i++) v[i] = i < 4 ? (uint32_t)(x >> (32 * i)) : fill;
    } else {
      for (size_t i = 0; i < words; i++) v[i] = 0;
    }
    v[words - 1] &= top;
    return true;
  }
  void advance() { off++; skip(); }
};

"#;

/// True when a design of `designs` has an argument or external memory wider than 64 bits.
fn any_wide(designs: &[TbDesign<'_>]) -> bool {
    designs.iter().any(|d| {
        d.func
            .args
            .iter()
            .any(|a| matches!(&a.ty, ArgType::Channel(t) if is_wide(t.bit_width())))
            || ext_memories(d.func).iter().any(|(_, m)| is_wide(m.elem))
    })
}

/// Width of channel argument `ai` of `f` (0 for a memref).
fn arg_width(f: &Function, ai: usize) -> u32 {
    match &f.args[ai].ty {
        ArgType::Channel(t) => t.bit_width(),
        ArgType::MemRef(_) => 0,
    }
}

/// The ports of a top module: `(name, is output, width)`.
fn top_ports(f: &Function) -> Vec<(String, bool, u32)> {
    let mut v = Vec::new();
    for a in &f.args {
        if let ArgType::Channel(t) = &a.ty {
            let p = encode_instance_name(&a.name);
            if t.bit_width() > 0 {
                v.push((p.clone(), false, t.bit_width()));
            }
            v.push((format!("{p}_valid"), false, 1));
            v.push((format!("{p}_ready"), true, 1));
        }
    }
    for r in &f.results {
        let p = encode_instance_name(&r.name);
        if r.ty.bit_width() > 0 {
            v.push((p.clone(), true, r.ty.bit_width()));
        }
        v.push((format!("{p}_valid"), true, 1));
        v.push((format!("{p}_ready"), false, 1));
    }
    for (_, m) in ext_memories(f) {
        let mp = encode_instance_name(&m.name);
        let ab = addr_bits(m.size).max(1);
        for i in 0..m.ld {
            v.push((format!("{mp}_ld{i}_addr"), true, ab));
            v.push((format!("{mp}_ld{i}_data"), false, m.elem));
        }
        for j in 0..m.st {
            v.push((format!("{mp}_st{j}_addr"), true, ab));
            v.push((format!("{mp}_st{j}_data"), true, m.elem));
            v.push((format!("{mp}_st{j}_en"), true, 1));
        }
    }
    v
}

struct ExtMem {
    name: String,
    size: u64,
    elem: u32,
    ld: u32,
    st: u32,
}

fn ext_memories(f: &Function) -> Vec<(usize, ExtMem)> {
    let mut v = Vec::new();
    for (_, n) in f.nodes.iter() {
        // A Dynamatic memory controller reaches its memory through one read and one write
        // port, whatever its own load and store ports.
        let (ld, st, memref_arg, memref) = match &n.op {
            Op::ExtMemory {
                ld,
                st,
                memref_arg,
                memref,
                ..
            } => (*ld, *st, *memref_arg, memref),
            Op::DynMemController {
                memref_arg, memref, ..
            } => (1, 1, *memref_arg, memref),
            // So does a master load-store queue.
            Op::DynLsq {
                memref_arg: Some(memref_arg),
                memref: Some(memref),
                ..
            } => (1, 1, *memref_arg, memref),
            _ => continue,
        };
        let name = f
            .args
            .get(memref_arg)
            .map(|a| a.name.clone())
            .unwrap_or_else(|| n.id.clone());
        v.push((
            v.len(),
            ExtMem {
                name,
                size: memref.len(),
                elem: memref.elem.bit_width(),
                ld,
                st,
            },
        ));
    }
    // A static island reaches an array through ports of its own, after the memory's.
    for (_, n) in f.nodes.iter() {
        if let Op::Island(isl) = &n.op {
            for (k, (ld, st)) in super::island::island_memory_ports(isl)
                .into_iter()
                .enumerate()
            {
                if let Some((_, m)) = v.iter_mut().find(|(_, m)| m.name == isl.memories[k]) {
                    m.ld += ld;
                    m.st += st;
                }
            }
        }
    }
    v
}

/// The wrapper module `hs_tb` that instantiates every design (instance name = its top name).
pub fn wrapper(designs: &[TbDesign<'_>]) -> String {
    let rng = |w: u32| {
        if w <= 1 {
            String::new()
        } else {
            format!("[{}:0] ", w - 1)
        }
    };
    let mut ports = vec!["input clock".to_string(), "input reset".to_string()];
    let mut body = String::new();
    for (k, d) in designs.iter().enumerate() {
        let mut conns = vec![".clock(clock)".to_string(), ".reset(reset)".to_string()];
        for (i, (p, out, w)) in top_ports(d.func).into_iter().enumerate() {
            ports.push(format!(
                "{} {}d{k}_p{i}",
                if out { "output" } else { "input" },
                rng(w)
            ));
            conns.push(format!(".{p}(d{k}_p{i})"));
        }
        ports.push(format!("output d{k}_any_fire"));
        let _ = writeln!(
            body,
            "  {} {} (\n    {}\n  );",
            d.top,
            d.top,
            conns.join(",\n    ")
        );
        if d.any_fire {
            let _ = writeln!(body, "  assign d{k}_any_fire = {}.hs_any_fire;", d.top);
        } else {
            let _ = writeln!(body, "  assign d{k}_any_fire = 1'b1;");
        }
    }
    format!(
        "module hs_tb(\n  {}\n);\n{body}endmodule\n",
        ports.join(",\n  ")
    )
}

/// Copies the literals `vals` (of C type `ty`) into the memory vector `name`, from one
/// static table rather than a statement per element: a kernel's arrays of hundreds of
/// thousands of elements compile in seconds that way (a statement each took GCC minutes).
fn memory_image(s: &mut String, name: &str, ty: &str, vals: &[String]) {
    use std::fmt::Write;
    if vals.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "  {{ static const {ty} init[] = {{{}}}; for (size_t i = 0; i < {}; i++) {name}[i] = init[i]; }}",
        vals.join(","),
        vals.len()
    );
}

/// Static token tables of a wide argument `ai` of design `k` (`d<k>_a<ai>_segs`, `WSeg`s).
fn wide_segments(s: &mut String, k: usize, ai: usize, width: u32, srcs: &[TokenSource]) {
    let mut segs = Vec::new();
    for (si, src) in srcs.iter().enumerate() {
        match src {
            TokenSource::Values(v) => {
                let words: Vec<String> = v.iter().flat_map(|&x| word_literals(x, width)).collect();
                let _ = writeln!(
                    s,
                    "static const uint32_t d{k}_a{ai}_v{si}[] = {{{}}};",
                    if words.is_empty() {
                        "0".into()
                    } else {
                        words.join(",")
                    }
                );
                segs.push(format!("{{0, 0, 0, {}ULL, d{k}_a{ai}_v{si}}}", v.len()));
            }
            TokenSource::Range { start, .. } => {
                let x = *start as u128;
                segs.push(format!(
                    "{{1, {}ULL, {}ULL, {}ULL, nullptr}}",
                    x as u64,
                    (x >> 64) as u64,
                    src.len()
                ));
            }
            TokenSource::None(n) => segs.push(format!("{{2, 0, 0, {n}ULL, nullptr}}")),
        }
    }
    if segs.is_empty() {
        segs.push("{2, 0, 0, 0, nullptr}".into());
    }
    let _ = writeln!(
        s,
        "static const WSeg d{k}_a{ai}_segs[] = {{{}}};",
        segs.join(", ")
    );
}

fn tokens_of(env: &Environment, f: &Function, ai: usize) -> Vec<TokenSource> {
    handscope_sim::stimulus::argument_tokens(f, env, ai)
}

/// The C++ expression of wrapper port `name` of design `k`.
fn port(k: usize, f: &Function, name: &str) -> String {
    match top_ports(f).iter().position(|(p, _, _)| p == name) {
        Some(i) => format!("top->d{k}_p{i}"),
        None => format!("/* no port {name} */ top->d{k}_missing"),
    }
}

/// The C++ testbench (`main`) for the model whose top is [`wrapper`]'s `hs_tb`. It takes the
/// VCD path as its first argument (default `trace.vcd`).
pub fn write_testbench(designs: &[TbDesign<'_>]) -> String {
    let mut s = String::new();
    s.push_str(
        r#"// Generated by Handscope: drives each design like `handscope sim` and dumps a VCD.
#include <cstdint>
#include <cstdio>
#include <vector>
#include "Vhs_tb.h"
#include "verilated.h"
#include "verilated_vcd_c.h"

struct Seg { int kind; uint64_t start; uint64_t n; const uint64_t* vals; };
struct Cursor {
  const Seg* segs; size_t nsegs; uint64_t mask; size_t seg = 0; uint64_t off = 0;
  void skip() { while (seg < nsegs && off >= segs[seg].n) { seg++; off = 0; } }
  bool peek(uint64_t& v) const {
    if (seg >= nsegs) return false;
    const Seg& s = segs[seg];
    v = (s.kind == 0 ? s.vals[off] : s.kind == 1 ? s.start + off : 0) & mask;
    return true;
  }
  void advance() { off++; skip(); }
};
struct ReadyGen {
  int kind; uint64_t state; uint64_t threshold; const char* pattern; uint64_t plen;
  bool next(uint64_t cycle) {
    if (kind == 0) return true;
    if (kind == 1) {
      state += 0x9E3779B97F4A7C15ULL;
      uint64_t z = state;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
      z ^= z >> 31;
      return (z >> 32) < threshold;
    }
    return pattern[cycle % plen] == '1';
  }
};

"#,
    );
    if any_wide(designs) {
        s.push_str(WIDE_CURSOR);
    }
    // The float components' DPI-C functions (see `float_dpi`), when a design has any.
    if designs
        .iter()
        .any(|d| super::float_dpi::uses_floats(d.func))
    {
        s.push_str(&super::float_dpi::c_source());
        s.push('\n');
    }
    // Per-design static data.
    for (k, d) in designs.iter().enumerate() {
        let f = d.func;
        for (ai, a) in f.args.iter().enumerate() {
            let ArgType::Channel(t) = &a.ty else { continue };
            let srcs = tokens_of(d.env, f, ai);
            let width = t.bit_width();
            if is_wide(width) {
                wide_segments(&mut s, k, ai, width, &srcs);
                continue;
            }
            let mut segs = Vec::new();
            for (si, src) in srcs.iter().enumerate() {
                match src {
                    TokenSource::Values(v) => {
                        let vals: Vec<String> = v.iter().map(|x| format!("{x}ULL")).collect();
                        let _ = writeln!(
                            s,
                            "static const uint64_t d{k}_a{ai}_v{si}[] = {{{}}};",
                            if vals.is_empty() {
                                "0".into()
                            } else {
                                vals.join(",")
                            }
                        );
                        segs.push(format!("{{0, 0, {}ULL, d{k}_a{ai}_v{si}}}", v.len()));
                    }
                    TokenSource::Range { start, end } => {
                        let n = (end - start).clamp(0, i128::from(u64::MAX)) as u64;
                        segs.push(format!("{{1, {}ULL, {n}ULL, nullptr}}", *start as u64));
                    }
                    TokenSource::None(n) => segs.push(format!("{{2, 0, {n}ULL, nullptr}}")),
                }
            }
            if segs.is_empty() {
                segs.push("{2, 0, 0, nullptr}".into());
            }
            let _ = writeln!(
                s,
                "static const Seg d{k}_a{ai}_segs[] = {{{}}};",
                segs.join(", ")
            );
        }
    }
    s.push_str("\nint main(int argc, char** argv) {\n");
    s.push_str("  const char* vcd = argc > 1 ? argv[1] : \"trace.vcd\";\n");
    s.push_str("  Verilated::traceEverOn(true);\n  Vhs_tb* top = new Vhs_tb;\n  VerilatedVcdC* tfp = new VerilatedVcdC;\n");
    s.push_str("  top->trace(tfp, 99);\n  tfp->open(vcd);\n  uint64_t t = 0;\n");
    let _ = writeln!(
        s,
        "  top->reset = 1;\n  for (int i = 0; i < {RESET_CYCLES}; i++) {{"
    );
    s.push_str("    top->clock = 0; top->eval(); tfp->dump(t);\n    top->clock = 1; top->eval(); tfp->dump(t + 5); t += 10;\n  }\n  top->reset = 0;\n");
    let mut any_max = 0u64;
    for (k, d) in designs.iter().enumerate() {
        let f = d.func;
        any_max = any_max.max(d.max_cycles);
        let chan_args: Vec<usize> = f
            .args
            .iter()
            .enumerate()
            .filter(|(_, a)| matches!(a.ty, ArgType::Channel(_)))
            .map(|(i, _)| i)
            .collect();
        let mut invocations = 1u64;
        for &ai in &chan_args {
            let total: u64 = tokens_of(d.env, f, ai).iter().map(TokenSource::len).sum();
            invocations = invocations.max(total);
            let ArgType::Channel(t) = &f.args[ai].ty else {
                continue;
            };
            let nsegs = tokens_of(d.env, f, ai).len().max(1);
            let width = t.bit_width();
            if is_wide(width) {
                let _ = writeln!(
                    s,
                    "  WCursor d{k}_c{ai}{{d{k}_a{ai}_segs, {nsegs}, {}, {:#x}u}}; d{k}_c{ai}.skip();",
                    wide_words(width),
                    top_word_mask(width)
                );
                continue;
            }
            let _ = writeln!(
                s,
                "  Cursor d{k}_c{ai}{{d{k}_a{ai}_segs, {nsegs}, {}ULL}}; d{k}_c{ai}.skip();",
                width_mask(width)
            );
        }
        for (ri, r) in f.results.iter().enumerate() {
            let pol = d
                .env
                .ready
                .get(&r.name)
                .cloned()
                .unwrap_or(ReadyPolicy::Always);
            let init = match &pol {
                ReadyPolicy::Always => "{0, 0, 0, nullptr, 1}".to_string(),
                ReadyPolicy::Random { seed, prob } => format!(
                    "{{1, {seed}ULL, {}ULL, nullptr, 1}}",
                    ReadyPolicy::threshold(*prob)
                ),
                ReadyPolicy::Pattern(p) => {
                    let bits: String = p.iter().map(|b| if *b { '1' } else { '0' }).collect();
                    format!("{{2, 0, 0, \"{bits}\", {}}}", p.len())
                }
            };
            let _ = writeln!(
                s,
                "  ReadyGen d{k}_r{ri} = {init}; uint64_t d{k}_out{ri} = 0; const bool d{k}_may{ri} = {};",
                pol.can_be_ready()
            );
        }
        for (mi, m) in ext_memories(f) {
            if is_wide(m.elem) {
                let n = wide_words(m.elem);
                let _ = writeln!(
                    s,
                    "  std::vector<uint32_t> d{k}_m{mi}({}ULL * {n}, 0);",
                    m.size
                );
                if let Some(init) = d.env.ext_memories.get(&m.name) {
                    let words: Vec<String> = init
                        .iter()
                        .take(m.size as usize)
                        .flat_map(|&v| word_literals(v, m.elem))
                        .collect();
                    memory_image(&mut s, &format!("d{k}_m{mi}"), "uint32_t", &words);
                }
                continue;
            }
            let _ = writeln!(s, "  std::vector<uint64_t> d{k}_m{mi}({}ULL, 0);", m.size);
            if let Some(init) = d.env.ext_memories.get(&m.name) {
                let vals: Vec<String> = init
                    .iter()
                    .take(m.size as usize)
                    .map(|v| format!("{}ULL", v & width_mask(m.elem)))
                    .collect();
                memory_image(&mut s, &format!("d{k}_m{mi}"), "uint64_t", &vals);
            }
        }
        // A stream function is done when its stream results have ended as often as its
        // stream arguments were ended (the engine's rule, `handscope_sim::stream`).
        if let Some(want) = handscope_sim::stream::expected_ends(f, d.env) {
            let _ = writeln!(s, "  const uint64_t d{k}_want_ends = {want}ULL;");
            for ri in 0..f.results.len() {
                let _ = writeln!(s, "  uint64_t d{k}_ends{ri} = 0;");
            }
        }
        let window = handscope_sim::deadlock::effective_window(d.env.deadlock_window, f);
        let _ = writeln!(
            s,
            "  bool d{k}_stop = false; uint64_t d{k}_idle = 0; const uint64_t d{k}_inv = {invocations}ULL; const uint64_t d{k}_window = {window}ULL; const uint64_t d{k}_max = {}ULL; uint64_t d{k}_cycles = 0;",
            d.max_cycles
        );
    }
    s.push_str("  for (uint64_t c = 0; ; c++) {\n");
    // Drive inputs.
    for (k, d) in designs.iter().enumerate() {
        let f = d.func;
        let _ = writeln!(s, "    if (!d{k}_stop) {{");
        for (ai, a) in f.args.iter().enumerate() {
            let ArgType::Channel(t) = &a.ty else { continue };
            let p = encode_instance_name(&a.name);
            let pv = port(k, f, &format!("{p}_valid"));
            let pd = port(k, f, &p);
            // An argument offered from a later cycle (Dynamatic's data arguments) offers
            // nothing before it.
            let from = match a.offered_from {
                0 => String::new(),
                n => format!("c >= {n}ULL && "),
            };
            if is_wide(t.bit_width()) {
                let n = wide_words(t.bit_width());
                let _ = writeln!(
                    s,
                    "      {{ uint32_t v[{n}]; bool ok = {from}d{k}_c{ai}.peek(v); {pv} = ok; for (int i = 0; i < {n}; i++) {pd}[i] = ok ? v[i] : 0u; }}"
                );
                continue;
            }
            let _ = writeln!(
                s,
                "      {{ uint64_t v = 0; bool ok = {from}d{k}_c{ai}.peek(v); {pv} = ok;{} }}",
                if t.bit_width() > 0 {
                    format!(" {pd} = ok ? v : 0;")
                } else {
                    String::new()
                }
            );
        }
        for (ri, r) in f.results.iter().enumerate() {
            let _ = writeln!(
                s,
                "      {} = d{k}_r{ri}.next(c);",
                port(k, f, &format!("{}_ready", encode_instance_name(&r.name)))
            );
        }
        let _ = writeln!(s, "    }} else {{");
        for a in &f.args {
            if let ArgType::Channel(_) = &a.ty {
                let _ = writeln!(
                    s,
                    "      {} = 0;",
                    port(k, f, &format!("{}_valid", encode_instance_name(&a.name)))
                );
            }
        }
        for r in &f.results {
            let _ = writeln!(
                s,
                "      {} = 0;",
                port(k, f, &format!("{}_ready", encode_instance_name(&r.name)))
            );
        }
        s.push_str("    }\n");
    }
    // Settle, with combinational memory reads.
    s.push_str("    top->clock = 0;\n    for (int it = 0; it < 64; it++) {\n      top->eval();\n      bool changed = false;\n");
    for (k, d) in designs.iter().enumerate() {
        for (mi, m) in ext_memories(d.func) {
            let mp = encode_instance_name(&m.name);
            for i in 0..m.ld {
                let pa = port(k, d.func, &format!("{mp}_ld{i}_addr"));
                let pd = port(k, d.func, &format!("{mp}_ld{i}_data"));
                if is_wide(m.elem) {
                    let n = wide_words(m.elem);
                    let _ = writeln!(
                        s,
                        "      {{ uint64_t a = {pa}; for (int j = 0; j < {n}; j++) {{ uint32_t v = a < {}ULL ? d{k}_m{mi}[a * {n} + j] : 0u; if ({pd}[j] != v) {{ {pd}[j] = v; changed = true; }} }} }}",
                        m.size
                    );
                    continue;
                }
                let _ = writeln!(
                    s,
                    "      {{ uint64_t a = {pa}; uint64_t v = a < {}ULL ? d{k}_m{mi}[a] : 0; if ((uint64_t){pd} != v) {{ {pd} = v; changed = true; }} }}",
                    m.size
                );
            }
        }
    }
    s.push_str("      if (!changed) break;\n    }\n    tfp->dump(t);\n");
    // Observe.
    for (k, d) in designs.iter().enumerate() {
        let f = d.func;
        let _ = writeln!(
            s,
            "    bool d{k}_fire = top->d{k}_any_fire; bool d{k}_prog = d{k}_fire;"
        );
        for (ai, a) in f.args.iter().enumerate() {
            if let ArgType::Channel(_) = &a.ty {
                let p = encode_instance_name(&a.name);
                let (pv, pr) = (
                    port(k, f, &format!("{p}_valid")),
                    port(k, f, &format!("{p}_ready")),
                );
                let _ = writeln!(s, "    bool d{k}_f{ai} = {pv} && {pr};");
            }
        }
        for (ri, r) in f.results.iter().enumerate() {
            let p = encode_instance_name(&r.name);
            let (pv, pr) = (
                port(k, f, &format!("{p}_valid")),
                port(k, f, &format!("{p}_ready")),
            );
            let _ = writeln!(s, "    if ({pv} && {pr}) d{k}_out{ri}++;");
            if f.stream_element(&r.name).is_some() {
                let pd = port(k, f, &p);
                let low = if is_wide(r.ty.bit_width()) {
                    format!("{pd}[0]")
                } else {
                    pd
                };
                let _ = writeln!(s, "    if ({pv} && {pr} && ({low} & 1)) d{k}_ends{ri}++;");
            }
            let _ = writeln!(
                s,
                "    if (d{k}_may{ri} && {pv} && !{pr}) d{k}_prog = true;"
            );
        }
        for (mi, m) in ext_memories(f) {
            let mp = encode_instance_name(&m.name);
            for j in 0..m.st {
                let pp = |x: &str| port(k, f, &format!("{mp}_st{j}_{x}"));
                if is_wide(m.elem) {
                    let n = wide_words(m.elem);
                    let _ = writeln!(
                        s,
                        "    bool d{k}_m{mi}_w{j} = {}; uint64_t d{k}_m{mi}_a{j} = {}; uint32_t d{k}_m{mi}_d{j}[{n}]; for (int i = 0; i < {n}; i++) d{k}_m{mi}_d{j}[i] = {}[i];",
                        pp("en"),
                        pp("addr"),
                        pp("data")
                    );
                    continue;
                }
                let _ = writeln!(
                    s,
                    "    bool d{k}_m{mi}_w{j} = {}; uint64_t d{k}_m{mi}_a{j} = {}; uint64_t d{k}_m{mi}_d{j} = {};",
                    pp("en"),
                    pp("addr"),
                    pp("data")
                );
            }
        }
    }
    s.push_str(
        "    top->clock = 1; top->eval(); tfp->dump(t + 5); t += 10;\n    bool all_stop = true;\n",
    );
    for (k, d) in designs.iter().enumerate() {
        let f = d.func;
        let _ = writeln!(s, "    if (!d{k}_stop) {{");
        for (mi, m) in ext_memories(f) {
            for j in 0..m.st {
                if is_wide(m.elem) {
                    let n = wide_words(m.elem);
                    let _ = writeln!(
                        s,
                        "      if (d{k}_m{mi}_w{j} && d{k}_m{mi}_a{j} < {}ULL) for (int i = 0; i < {n}; i++) d{k}_m{mi}[d{k}_m{mi}_a{j} * {n} + i] = d{k}_m{mi}_d{j}[i];",
                        m.size
                    );
                    continue;
                }
                let _ = writeln!(
                    s,
                    "      if (d{k}_m{mi}_w{j} && d{k}_m{mi}_a{j} < {}ULL) d{k}_m{mi}[d{k}_m{mi}_a{j}] = d{k}_m{mi}_d{j};",
                    m.size
                );
            }
        }
        let mut exhausted = Vec::new();
        for (ai, a) in f.args.iter().enumerate() {
            if let ArgType::Channel(_) = &a.ty {
                let _ = writeln!(s, "      if (d{k}_f{ai}) d{k}_c{ai}.advance();");
                if is_wide(arg_width(f, ai)) {
                    exhausted.push(format!("!d{k}_c{ai}.any()"));
                } else {
                    exhausted.push(format!("!d{k}_c{ai}.peek(tmp)"));
                }
            }
        }
        let stream_done = handscope_sim::stream::expected_ends(f, d.env).map(|_| {
            let mut terms = vec![format!("!d{k}_fire")];
            terms.extend(exhausted.iter().cloned());
            for (ri, r) in f.results.iter().enumerate() {
                if f.stream_element(&r.name).is_some() {
                    terms.push(format!("d{k}_ends{ri} >= d{k}_want_ends"));
                }
            }
            terms.join(" && ")
        });
        let done = if let Some(d) = stream_done {
            d
        } else if f.results.is_empty() {
            let ex = if exhausted.is_empty() {
                "true".into()
            } else {
                exhausted.join(" && ")
            };
            format!("!d{k}_fire && ({ex})")
        } else {
            (0..f.results.len())
                .map(|ri| format!("d{k}_out{ri} >= d{k}_inv"))
                .collect::<Vec<_>>()
                .join(" && ")
        };
        let _ = writeln!(s, "      uint64_t tmp = 0; (void)tmp;");
        let _ = writeln!(s, "      d{k}_cycles = c + 1;");
        let _ = writeln!(s, "      if (d{k}_prog) d{k}_idle = 0; else d{k}_idle++;");
        let _ = writeln!(
            s,
            "      if (({done}) || d{k}_idle >= d{k}_window || c + 1 >= d{k}_max) d{k}_stop = true;"
        );
        let _ = writeln!(s, "    }}\n    all_stop = all_stop && d{k}_stop;");
    }
    let _ = writeln!(s, "    if (all_stop || c + 1 >= {any_max}ULL) break;\n  }}");
    s.push_str("  top->clock = 0; top->eval(); tfp->dump(t);\n  tfp->close();\n");
    for (k, d) in designs.iter().enumerate() {
        let _ = writeln!(
            s,
            "  printf(\"design {} {} cycles %llu\\n\", (unsigned long long)d{k}_cycles);",
            k, d.top
        );
    }
    s.push_str("  top->final();\n  delete tfp;\n  delete top;\n  return 0;\n}\n");
    s
}

/// Contents of the `$readmemh` files for the internal memories that `env` initializes:
/// `(file name, text)`, file names as in the top module's `INIT_FILE` parameters.
pub fn memory_init_files(top: &str, f: &Function, env: &Environment) -> Vec<(String, String)> {
    let mut v = Vec::new();
    for (_, n) in f.nodes.iter() {
        if let Op::Memory { memref, .. } = &n.op
            && let Some(init) = env.memories.get(&n.id)
        {
            let ew = memref.elem.bit_width();
            let m = width_mask(ew);
            let text: String = if is_wide(ew) {
                init.iter()
                    .map(|&x| format!("{}\n", handscope_sim::wide::to_hex(x, ew)))
                    .collect()
            } else {
                init.iter().map(|x| format!("{:x}\n", x & m)).collect()
            };
            v.push((format!("{top}.{}.hex", encode_instance_name(&n.id)), text));
        }
    }
    v
}
