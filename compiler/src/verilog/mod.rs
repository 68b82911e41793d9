//! SystemVerilog back end: a flattened [`Function`] becomes a top module that instantiates
//! Handscope's own component library ([`components`]), whose cycle behaviour is that of
//! `docs/semantics.md` and of the engine.
//!
//! # Top module
//! `module <function name>` (encoded with [`encode_instance_name`]) with ports, in order:
//! - `clock`, `reset` (synchronous, active high; hold it for at least one rising edge);
//! - per channel argument `a`: `a` (data, absent for `none`), `a_valid`, `a_ready`;
//! - per result `r`: `r`, `r_valid`, `r_ready`;
//! - per `extmemory` on memref argument `m`, the memory port interface (latency 0, i.e.
//!   the memory the engine models): per load port `i`: output `m_ld<i>_addr` and input
//!   `m_ld<i>_data`, which must be driven combinationally with the element at that address
//!   (0 outside the memory); per store port `j`: outputs `m_st<j>_addr`, `m_st<j>_data`,
//!   `m_st<j>_en`; the memory writes `data` at `addr` on every rising edge where `en` is 1
//!   (for several store ports writing one address in one edge, the highest port wins).
//!   Addresses have `ceil(log2(size))` bits (at least 1); higher address bits of the
//!   channel are ignored.
//!
//! # Names
//! Instances are named after the stable IDs with [`encode_instance_name`] (reversible:
//! [`decode_instance_name`]). The channel produced by output port `p` of node `n` is carried
//! by the nets `<n>_<p>`, `<n>_<p>_valid`, `<n>_<p>_ready` (with `<n>` encoded); argument
//! channels are the argument ports themselves. The net `hs_any_fire` is 1 in cycles where any
//! channel transfers (testbenches use it to detect deadlocks like the engine does).
//! Internal `memory` nodes hold a register array `mem` that starts at 0 and, when the file
//! named by the instance's `INIT_FILE` parameter (`<top>.<instance>.hex`) exists in the
//! working directory at time 0, is loaded from it with `$readmemh`.
//!
//! # Wide data
//! Channels of any width up to the type model's limit get full-width ports and nets.
//! Constants and buffer initial values are written from every limb of their words
//! ([`components::literal`]: `{w}'h...` above 64 bits), memories may have elements of any
//! width (their `$readmemh` files hold full-width hexadecimal), and tuples wider than 64 bits
//! are packed and unpacked like narrow ones (field 0 in the most significant bits).
//! Divisions and remainders wider than [`components::MAX_NATIVE_DIVISION`] bits are written
//! as long divisions, which Verilator 5.006 simulates (its own wide division does not).
//!
//! # Floats
//! Float components (`addf`, `cmpf`, `math.sqrt`, ...) are a **simulation model, not
//! synthesizable**: they compute through DPI-C functions ([`float_dpi`]) that the Verilator
//! testbench implements in C with the engine's IEEE-754 rules.

pub mod components;
pub mod float_dpi;
pub mod island;
pub mod names;
pub mod testbench;

use std::collections::BTreeMap;
use std::fmt::Write as _;

use handscope_sim::{ArgType, Function, Op};

pub use components::addr_bits;
pub use names::{decode_instance_name, encode_instance_name};

/// Why a function cannot be written as SystemVerilog.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VerilogError {
    /// The function still contains instances.
    #[error("node `{0}` is an instance; flatten the function before writing SystemVerilog")]
    Instance(String),
    /// A channel does not have exactly one consumer.
    #[error("channel `{0}` has {1} consumers; every channel needs exactly one")]
    Consumers(String, usize),
    /// A node has the wrong shape.
    #[error("node `{0}`: {1}")]
    Malformed(String, String),
}

/// Collects the modules of one or more functions (component modules shared).
#[derive(Default)]
pub struct VerilogBuilder {
    components: BTreeMap<String, String>,
    tops: Vec<String>,
}

/// Name of a channel's net (without `_valid`/`_ready`).
fn channel_net(f: &Function, ch: handscope_sim::ChannelId) -> String {
    let c = &f.channels[ch];
    let p = &f.nodes[c.producer.node];
    match p.op {
        Op::Argument { index } => encode_instance_name(&f.args[index].name),
        _ => format!(
            "{}_{}",
            encode_instance_name(&p.id),
            p.op.output_port_name(c.producer.port as usize)
        ),
    }
}

impl VerilogBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// The names of the component modules written so far (one per distinct component:
    /// op, parameters and port widths), sorted.
    pub fn component_names(&self) -> impl Iterator<Item = &str> {
        self.components.keys().map(String::as_str)
    }

    /// Adds the top module of `f`, named `top` (default: the encoded function name).
    pub fn add(&mut self, f: &Function, top: Option<&str>) -> Result<String, VerilogError> {
        let top = top
            .map(str::to_string)
            .unwrap_or_else(|| encode_instance_name(&f.name));
        for (_, c) in f.channels.iter() {
            if c.consumers.len() != 1 {
                return Err(VerilogError::Consumers(c.name.clone(), c.consumers.len()));
            }
        }
        let w = |ch: handscope_sim::ChannelId| f.channels[ch].ty.bit_width();
        let rng = |w: u32| {
            if w <= 1 {
                String::new()
            } else {
                format!("[{}:0] ", w - 1)
            }
        };
        let mut ports: Vec<String> = vec!["input clock".into(), "input reset".into()];
        let mut body = String::new();
        for a in &f.args {
            if let (ArgType::Channel(t), Some(n)) = (&a.ty, a.node) {
                let p = encode_instance_name(&a.name);
                let _ = n;
                if t.bit_width() > 0 {
                    ports.push(format!("input {}{p}", rng(t.bit_width())));
                }
                ports.push(format!("input {p}_valid"));
                ports.push(format!("output {p}_ready"));
            }
        }
        for r in &f.results {
            let p = encode_instance_name(&r.name);
            if r.ty.bit_width() > 0 {
                ports.push(format!("output {}{p}", rng(r.ty.bit_width())));
            }
            ports.push(format!("output {p}_valid"));
            ports.push(format!("input {p}_ready"));
        }
        // Static islands: their memories (array arguments), their ports on each after the
        // memory's own, and their `busy` nets (a running island is progress).
        let mut next_port: BTreeMap<String, (u32, u32)> = BTreeMap::new();
        let mut arrays: BTreeMap<String, (u32, u32)> = BTreeMap::new();
        for (_, node) in f.nodes.iter() {
            if let Op::ExtMemory {
                ld,
                st,
                memref_arg,
                memref,
                ..
            } = &node.op
                && let Some(a) = f.args.get(*memref_arg)
            {
                next_port.insert(a.name.clone(), (*ld, *st));
                arrays.insert(
                    a.name.clone(),
                    (
                        components::addr_bits(memref.len()).max(1),
                        memref.elem.bit_width(),
                    ),
                );
            }
        }
        // Internal memories an island reaches: their extra ports, by node ID.
        let mut internal: BTreeMap<String, (u32, u32)> = BTreeMap::new();
        for (_, node) in f.nodes.iter() {
            if let Op::Memory { memref, .. } = &node.op {
                arrays.insert(
                    node.id.clone(),
                    (
                        components::addr_bits(memref.len()).max(1),
                        memref.elem.bit_width(),
                    ),
                );
                internal.insert(node.id.clone(), (0, 0));
            }
        }
        for (_, node) in f.nodes.iter() {
            if let Op::Island(isl) = &node.op {
                for (k, (ld, st)) in island::island_memory_ports(isl).into_iter().enumerate() {
                    if let Some(x) = internal.get_mut(&isl.memories[k]) {
                        x.0 += ld;
                        x.1 += st;
                    }
                }
            }
        }
        let mut internal_next: BTreeMap<String, (u32, u32)> = BTreeMap::new();
        for (id, &(ld, st)) in &internal {
            let inst = encode_instance_name(id);
            let (ab, ew) = arrays[id];
            for j in 0..ld {
                let _ = writeln!(body, "  logic {}{inst}_xld{j}_addr;", rng(ab));
                let _ = writeln!(body, "  logic {}{inst}_xld{j}_data;", rng(ew));
            }
            for j in 0..st {
                let _ = writeln!(body, "  logic {}{inst}_xst{j}_addr;", rng(ab));
                let _ = writeln!(body, "  logic {}{inst}_xst{j}_data;", rng(ew));
                let _ = writeln!(body, "  logic {inst}_xst{j}_en;");
            }
        }
        let mut fires = Vec::new();
        for (_, node) in f.nodes.iter() {
            if let Op::Island(_) = node.op {
                let net = format!("{}_busy", encode_instance_name(&node.id));
                let _ = writeln!(body, "  logic {net};");
                fires.push(net);
            }
        }
        // Nets of non-argument channels.
        for (cid, c) in f.channels.iter() {
            let net = channel_net(f, cid);
            fires.push(format!("{net}_valid & {net}_ready"));
            if matches!(f.nodes[c.producer.node].op, Op::Argument { .. }) {
                continue;
            }
            let cw = c.ty.bit_width();
            if cw > 0 {
                let _ = writeln!(body, "  logic {}{net};", rng(cw));
            }
            let _ = writeln!(body, "  logic {net}_valid;");
            let _ = writeln!(body, "  logic {net}_ready;");
        }
        let _ = writeln!(
            body,
            "  wire hs_any_fire /*verilator public_flat_rd*/ = {};",
            if fires.is_empty() {
                "1'b0".into()
            } else {
                fires.join("\n    | ")
            }
        );
        let mut island_conns: Vec<String>;
        for (_, node) in f.nodes.iter() {
            match &node.op {
                Op::Argument { .. } => continue,
                Op::Instance { .. } => return Err(VerilogError::Instance(node.id.clone())),
                Op::Return => {
                    if node.inputs.len() != f.results.len() {
                        return Err(VerilogError::Malformed(
                            node.id.clone(),
                            "return operand count differs from the results".into(),
                        ));
                    }
                    for (k, &ch) in node.inputs.iter().enumerate() {
                        let p = encode_instance_name(&f.results[k].name);
                        let net = channel_net(f, ch);
                        if w(ch) > 0 {
                            let _ = writeln!(body, "  assign {p} = {net};");
                        }
                        let _ = writeln!(body, "  assign {p}_valid = {net}_valid;");
                        let _ = writeln!(body, "  assign {net}_ready = {p}_ready;");
                    }
                    continue;
                }
                _ => {}
            }
            let ins_w: Vec<u32> = node.inputs.iter().map(|&c| w(c)).collect();
            let outs_w: Vec<u32> = node.outputs.iter().map(|&c| w(c)).collect();
            let inst = encode_instance_name(&node.id);
            let (m, mut ex) = if let Op::Island(isl) = &node.op {
                let mut mems = Vec::new();
                for name in &isl.memories {
                    let Some(&shape) = arrays.get(name) else {
                        return Err(VerilogError::Malformed(
                            node.id.clone(),
                            format!(
                                "the island reaches memory `{name}`, which the function does not have"
                            ),
                        ));
                    };
                    mems.push(shape);
                }
                let (m, subs) = island::island_module(isl, &ins_w, &outs_w, &mems)
                    .map_err(|e| VerilogError::Malformed(node.id.clone(), e))?;
                for sm in subs {
                    self.components.entry(sm.name.clone()).or_insert(sm.text);
                }
                // Its memory ports, after the memory's own and earlier islands'.
                let mut extra = Vec::new();
                for (k, (ld, st)) in island::island_memory_ports(isl).into_iter().enumerate() {
                    let name = &isl.memories[k];
                    let (ab, ew) = mems[k];
                    let mp = encode_instance_name(name);
                    if internal.contains_key(name) {
                        // A `memory` node's extra ports, by nets of the top module.
                        let base = internal_next.entry(name.clone()).or_insert((0, 0));
                        for j in 0..ld {
                            let t = base.0 + j;
                            extra.push(format!(".m{k}_ld{j}_addr({mp}_xld{t}_addr)"));
                            extra.push(format!(".m{k}_ld{j}_data({mp}_xld{t}_data)"));
                        }
                        for j in 0..st {
                            let t = base.1 + j;
                            extra.push(format!(".m{k}_st{j}_addr({mp}_xst{t}_addr)"));
                            extra.push(format!(".m{k}_st{j}_data({mp}_xst{t}_data)"));
                            extra.push(format!(".m{k}_st{j}_en({mp}_xst{t}_en)"));
                        }
                        base.0 += ld;
                        base.1 += st;
                        continue;
                    }
                    let base = next_port.entry(name.clone()).or_insert((0, 0));
                    for j in 0..ld {
                        let t = base.0 + j;
                        ports.push(format!("output {}{mp}_ld{t}_addr", rng(ab)));
                        ports.push(format!("input {}{mp}_ld{t}_data", rng(ew)));
                        extra.push(format!(".m{k}_ld{j}_addr({mp}_ld{t}_addr)"));
                        extra.push(format!(".m{k}_ld{j}_data({mp}_ld{t}_data)"));
                    }
                    for j in 0..st {
                        let t = base.1 + j;
                        ports.push(format!("output {}{mp}_st{t}_addr", rng(ab)));
                        ports.push(format!("output {}{mp}_st{t}_data", rng(ew)));
                        ports.push(format!("output {mp}_st{t}_en"));
                        extra.push(format!(".m{k}_st{j}_addr({mp}_st{t}_addr)"));
                        extra.push(format!(".m{k}_st{j}_data({mp}_st{t}_data)"));
                        extra.push(format!(".m{k}_st{j}_en({mp}_st{t}_en)"));
                    }
                    base.0 += ld;
                    base.1 += st;
                }
                extra.push(format!(".busy({inst}_busy)"));
                island_conns = extra;
                (
                    m,
                    components::InstanceExtras {
                        clocked: true,
                        ..Default::default()
                    },
                )
            } else {
                // A memory islands reach gets their ports.
                let xp = internal.get(&node.id).copied().unwrap_or((0, 0));
                island_conns = Vec::new();
                if matches!(node.op, Op::Memory { .. }) {
                    for j in 0..xp.0 {
                        island_conns.push(format!(".xld{j}_addr({inst}_xld{j}_addr)"));
                        island_conns.push(format!(".xld{j}_data({inst}_xld{j}_data)"));
                    }
                    for j in 0..xp.1 {
                        island_conns.push(format!(".xst{j}_addr({inst}_xst{j}_addr)"));
                        island_conns.push(format!(".xst{j}_data({inst}_xst{j}_data)"));
                        island_conns.push(format!(".xst{j}_en({inst}_xst{j}_en)"));
                    }
                }
                let shape = components::Shape {
                    op: &node.op,
                    ins: ins_w,
                    outs: outs_w,
                    island_ports: xp,
                };
                components::component(&shape)
                    .map_err(|e| VerilogError::Malformed(node.id.clone(), e))?
            };
            if let Op::Memory { .. } = node.op {
                ex.params
                    .push(("INIT_FILE".into(), format!("\"{top}.{inst}.hex\"")));
            }
            self.components.entry(m.name.clone()).or_insert(m.text);
            let mut conns = Vec::new();
            if ex.clocked {
                conns.push(".clock(clock)".to_string());
                conns.push(".reset(reset)".to_string());
            }
            for (i, &ch) in node.inputs.iter().enumerate() {
                let p = node.op.input_port_name(i);
                let net = channel_net(f, ch);
                if w(ch) > 0 {
                    conns.push(format!(".{p}({net})"));
                }
                conns.push(format!(".{p}_valid({net}_valid)"));
                conns.push(format!(".{p}_ready({net}_ready)"));
            }
            for (i, &ch) in node.outputs.iter().enumerate() {
                let p = node.op.output_port_name(i);
                let net = channel_net(f, ch);
                if w(ch) > 0 {
                    conns.push(format!(".{p}({net})"));
                }
                conns.push(format!(".{p}_valid({net}_valid)"));
                conns.push(format!(".{p}_ready({net}_ready)"));
            }
            conns.append(&mut island_conns);
            let array_arg = match node.op {
                Op::ExtMemory { memref_arg, .. } | Op::DynMemController { memref_arg, .. } => {
                    Some(memref_arg)
                }
                Op::DynLsq {
                    memref_arg: Some(a),
                    ..
                } => Some(a),
                _ => None,
            };
            if let Some(memref_arg) = array_arg {
                let mname = f
                    .args
                    .get(memref_arg)
                    .map(|a| a.name.clone())
                    .unwrap_or_else(|| node.id.clone());
                let mp = encode_instance_name(&mname);
                for (port, out, pw) in &ex.mem_ports {
                    let dir = if *out { "output" } else { "input" };
                    ports.push(format!("{dir} {}{mp}_{port}", rng(*pw)));
                    conns.push(format!(".{port}({mp}_{port})"));
                }
            }
            let params = if ex.params.is_empty() {
                String::new()
            } else {
                let ps: Vec<String> = ex
                    .params
                    .iter()
                    .map(|(k, v)| format!(".{k}({v})"))
                    .collect();
                format!(" #({})", ps.join(", "))
            };
            let _ = writeln!(
                body,
                "  {}{params} {inst} (\n    {}\n  );",
                m.name,
                conns.join(",\n    ")
            );
        }
        let mut t = format!(
            "// Generated by Handscope from handshake.func @{}\nmodule {top}(\n",
            f.name
        );
        let n = ports.len();
        for (i, p) in ports.iter().enumerate() {
            let _ = writeln!(t, "  {p}{}", if i + 1 < n { "," } else { "" });
        }
        t.push_str(");\n");
        t.push_str(&body);
        t.push_str("endmodule\n");
        self.tops.push(t);
        Ok(top)
    }

    /// All modules: component modules sorted by name, then the top modules in order added.
    pub fn finish(self) -> String {
        let mut s = String::from(
            "// Handscope component library and circuits (SystemVerilog)\n`default_nettype wire\n\n",
        );
        for text in self.components.values() {
            s.push_str(text);
            s.push('\n');
        }
        for t in &self.tops {
            s.push_str(t);
            s.push('\n');
        }
        s
    }
}

/// SystemVerilog for a flattened function: the component modules it uses and its top module.
pub fn write_verilog(f: &Function) -> Result<String, VerilogError> {
    let mut b = VerilogBuilder::new();
    b.add(f, None)?;
    Ok(b.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chain_is_deterministic_and_shares_components() {
        let f = handscope_sim::bench_support::chain(3);
        let a = write_verilog(&f).unwrap();
        assert_eq!(a, write_verilog(&f).unwrap());
        // One module per kind and signature, however many instances.
        assert_eq!(a.matches("module hs_fork_i32_o32_32(").count(), 1);
        assert_eq!(a.matches("hs_fork_i32_o32_32 fork").count(), 3);
        assert!(a.contains("module chain3("));
        assert!(a.contains("input [31:0] in0,"));
        assert!(a.contains("output [31:0] out0,"));
        assert!(a.contains("logic slot1_valid, slot1_skid_valid;"));
        assert!(a.contains("wire hs_any_fire"));
        // Nets carry the channel names: fork0.out1 -> fork0_out1.
        assert!(a.contains("logic fork0_out1_valid;"));
    }

    /// Wide data: an `i128` adder behind a buffer with wide initial values, a wide compare,
    /// multiply and truncation, a wide constant, a `tuple<i32, i64, i64>` (160 bits) unpacked
    /// and packed again, and a memory of `i96` elements.
    const WIDE: &str = include_str!("../../../testdata/wide_ops.mlir");

    fn wide_function() -> Function {
        let (m, _) = crate::mlir::parse_mlir(WIDE, "wide.mlir").expect("wide.mlir parses");
        m.default_function().expect("a function").clone()
    }

    #[test]
    fn wide_channels_get_full_width_ports_constants_and_memories() {
        let f = wide_function();
        let sv = write_verilog(&f).expect("wide channels are written");
        for want in [
            "input [127:0] a,",
            "input [159:0] t,",
            "output [127:0] sum,",
            "output [95:0] ld,",
            "logic [127:0] addi0_out0;",
            // Constants and initial values from all limbs, never cut to 64 bits.
            ".VALUE(128'h10000000000000000000000005)",
            "128'hffffffffffffffffffffffffffffffff, 128'h10000000000000001",
            "logic [95:0] mem [0:3];",
            "assign out0 = {in0, in1, in2};",
            "assign out2 = in0[63:0];",
            "assign out0 = in0[159:128];",
            "assign out0 = in0[95:0];",
            "assign out0 = in0 * in1;",
        ] {
            assert!(sv.contains(want), "no `{want}` in\n{sv}");
        }
        // The tuple ports are 160 bits wide on both sides of the unpack/pack pair.
        assert!(sv.contains("module hs_unpack_i160_o32_64_64("), "{sv}");
        assert!(sv.contains("module hs_pack_i32_64_64_o160("), "{sv}");
    }

    #[test]
    fn literals_use_every_limb_of_wide_words() {
        use handscope_sim::wide;
        assert_eq!(components::literal(300, 8), "8'd44");
        assert_eq!(
            components::literal(u64::MAX, 64),
            "64'd18446744073709551615"
        );
        let w = wide::parse("-2", 200).unwrap();
        assert_eq!(
            components::literal(w, 200),
            format!("200'hff{}e", "f".repeat(47))
        );
        assert_eq!(components::literal(5, 4096), "4096'h5");
        assert_eq!(components::literal(0, 0), "1'd0");
    }

    /// Verilator accepts the SystemVerilog of wide channels (and the testbench that drives
    /// them compiles: `oracle/tests/wide.rs` runs it).
    #[test]
    fn verilator_lints_wide_channels() {
        let Ok(out) = std::process::Command::new("verilator")
            .arg("--version")
            .output()
        else {
            eprintln!("skipping verilator_lints_wide_channels: no verilator");
            return;
        };
        assert!(out.status.success());
        let sv = write_verilog(&wide_function()).unwrap();
        let dir = std::env::temp_dir().join(format!("hs-wide-lint-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("wide.sv");
        std::fs::write(&path, &sv).unwrap();
        let out = std::process::Command::new("verilator")
            .args(["--lint-only", "-Wall", "-Wno-fatal"])
            .args(["--top-module", "wide"])
            .arg(&path)
            .output()
            .unwrap();
        let log = String::from_utf8_lossy(&out.stderr);
        let _ = std::fs::remove_dir_all(&dir);
        assert!(out.status.success(), "{log}");
        assert!(!log.contains("%Error"), "{log}");
        // Every wide expression has the width of its target (the memory's initial loop
        // indexes with a `longint`, which Verilator also reports, at any element width).
        let width: Vec<&str> = log
            .lines()
            .filter(|l| l.starts_with("%Warning-WIDTH") && !l.contains("Bit extraction of array"))
            .collect();
        assert!(width.is_empty(), "{width:#?}");
    }

    #[test]
    fn rejects_unflattened_and_badly_connected_graphs() {
        let mut f = handscope_sim::bench_support::chain(1);
        let sink = f
            .nodes
            .iter()
            .find(|(_, n)| n.op == Op::Sink)
            .map(|(i, _)| i)
            .unwrap();
        f.set_inputs(sink, vec![]);
        assert!(matches!(
            write_verilog(&f),
            Err(VerilogError::Consumers(..))
        ));
    }
}
