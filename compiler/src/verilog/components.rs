//! The component library: one SystemVerilog module per node kind and signature (port
//! widths, counts and kind-specific parameters), with the cycle behaviour of
//! `docs/semantics.md` (and of Handscope's engine), without CIRCT 1.62's bugs.
//!
//! Module ports use the CIRCT port names of [`Op::input_port_name`] and
//! [`Op::output_port_name`]: for each port `p`, data `p` (left out when the channel has no
//! data bits), `p_valid` and `p_ready`; stateful components also get `clock` and `reset`
//! (synchronous, active high). Register names match the engine's state words with `.`
//! written as `_` (`emitted_0`, `won`, `slot0_skid_valid`, `st0_write_valid_buffer`, ...), so
//! a VCD of this RTL rebuilds component state.

use std::fmt::Write as _;

use handscope_sim::engine::float_arith::FloatOp;
use handscope_sim::spec::{CountContext, mux_select_bits};
use handscope_sim::{ArithOp, CmpPredicate, Op};

use super::float_dpi;

/// A generated module: its name and text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComponentModule {
    /// Module name (unique per kind and signature).
    pub name: String,
    /// Full `module ... endmodule` text.
    pub text: String,
}

/// What an instance of a component needs besides its handshake ports.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InstanceExtras {
    /// Parameter overrides `(name, value)`.
    pub params: Vec<(String, String)>,
    /// True when the module has `clock` and `reset`.
    pub clocked: bool,
    /// Extra ports `(port, direction is output, width)` (external memory interface).
    pub mem_ports: Vec<(String, bool, u32)>,
}

/// Widths of a node's ports (0 = no data) and its op.
pub struct Shape<'a> {
    /// The op.
    pub op: &'a Op,
    /// Data width of each input channel.
    pub ins: Vec<u32>,
    /// Data width of each output channel.
    pub outs: Vec<u32>,
    /// A `memory`'s extra load and store ports for static islands (`xld<i>_addr`/`_data`,
    /// `xst<j>_addr`/`_data`/`_en`, the external memory interface's timing); `(0, 0)` for
    /// everything else.
    pub island_ports: (u32, u32),
}

fn range(w: u32) -> String {
    if w <= 1 {
        String::new()
    } else {
        format!("[{}:0] ", w - 1)
    }
}

/// A `width`-bit literal of the channel word `word` (the bit pattern for `width <= 64`, a
/// wide word of [`handscope_sim::wide`] above): decimal up to 64 bits, hexadecimal from all
/// of the value's limbs above, never truncated to 64 bits.
pub fn literal(word: u64, width: u32) -> String {
    let width = width.max(1);
    if handscope_sim::wide::is_wide(width) {
        format!("{width}'h{}", handscope_sim::wide::to_hex(word, width))
    } else {
        format!(
            "{width}'d{}",
            word & handscope_sim::types::width_mask(width)
        )
    }
}

/// Number of address bits a memory of `size` elements uses (the engine's mask width).
pub fn addr_bits(size: u64) -> u32 {
    64 - size.saturating_sub(1).leading_zeros()
}

mod addr_queue;
mod dynamatic;

struct Gen {
    ports: Vec<String>,
    body: String,
}

impl Gen {
    fn new(clocked: bool) -> Self {
        let mut ports = Vec::new();
        if clocked {
            ports.push("input clock".into());
            ports.push("input reset".into());
        }
        Gen {
            ports,
            body: String::new(),
        }
    }
    fn input(&mut self, p: &str, w: u32) {
        if w > 0 {
            self.ports.push(format!("input {}{p}", range(w)));
        }
        self.ports.push(format!("input {p}_valid"));
        self.ports.push(format!("output logic {p}_ready"));
    }
    fn output(&mut self, p: &str, w: u32) {
        if w > 0 {
            self.ports.push(format!("output logic {}{p}", range(w)));
        }
        self.ports.push(format!("output logic {p}_valid"));
        self.ports.push(format!("input {p}_ready"));
    }
    fn line(&mut self, s: impl AsRef<str>) {
        self.body.push_str("  ");
        self.body.push_str(s.as_ref());
        self.body.push('\n');
    }
    fn finish(self, name: &str, params: &str) -> String {
        let mut t = format!("module {name}{params}(\n");
        let n = self.ports.len();
        for (i, p) in self.ports.iter().enumerate() {
            let _ = writeln!(t, "  {p}{}", if i + 1 < n { "," } else { "" });
        }
        t.push_str(");\n");
        t.push_str(&self.body);
        t.push_str("endmodule\n");
        t
    }
}

fn sig(ws: &[u32]) -> String {
    ws.iter()
        .map(|w| w.to_string())
        .collect::<Vec<_>>()
        .join("_")
}

fn in_name(op: &Op, i: usize) -> String {
    op.input_port_name(i)
}
fn out_name(op: &Op, i: usize) -> String {
    op.output_port_name(i)
}

/// A cast of expression `e` from `from` to `to` bits, sign- or zero-extending.
fn resize(e: &str, from: u32, to: u32, signed: bool) -> String {
    if to == from {
        e.to_string()
    } else if to < from {
        if to == 1 && from >= 1 {
            format!("{e}[0]")
        } else {
            format!("{e}[{}:0]", to - 1)
        }
    } else if signed && from == 1 {
        // A 1-bit port has no range to select from: replicate it.
        format!("{{{to}{{{e}}}}}")
    } else if signed && from > 0 {
        format!("{{{{{}{{{e}[{}]}}}}, {e}}}", to - from, from - 1)
    } else if from == 0 {
        format!("{to}'d0")
    } else {
        format!("{{{}'d0, {e}}}", to - from)
    }
}

/// Widest division Verilator 5.006 computes natively: its wide division and modulo
/// (`_vl_moddiv_w`, `VL_DIVS_WWW`, `VL_MODDIVS_WWW`) keep operands in fixed 16-word stack
/// buffers and overflow them above 512 bits.
pub const MAX_NATIVE_DIVISION: u32 = 512;

/// Declares `quo` and `rem`, the quotient and remainder of `in0` by `in1` (`w` bits, `w`
/// above [`MAX_NATIVE_DIVISION`]), by restoring long division over the magnitudes; signed:
/// the quotient negative when the signs differ, the remainder with the sign of `in0`
/// (truncating division, like `$signed(in0) / $signed(in1)`; `x / 0` is left to the caller).
fn long_division(g: &mut Gen, w: u32, signed: bool) {
    g.line(format!(
        "function automatic logic [{}:0] udivrem(input logic [{}:0] n, input logic [{}:0] d);",
        2 * w - 1,
        w - 1,
        w - 1
    ));
    g.line(format!("  logic [{w}:0] r;"));
    g.line(format!("  logic [{}:0] q;", w - 1));
    g.line("  r = '0; q = '0;");
    g.line(format!("  for (int i = {}; i >= 0; i--) begin", w - 1));
    g.line(format!("    r = {{r[{}:0], n[i]}};", w - 1));
    g.line("    if (r >= {1'b0, d}) begin r = r - {1'b0, d}; q[i] = 1'b1; end");
    g.line("  end");
    g.line(format!("  return {{q, r[{}:0]}};", w - 1));
    g.line("endfunction");
    let top = w - 1;
    if signed {
        g.line(format!("wire na = in0[{top}], nb = in1[{top}];"));
        g.line(format!(
            "wire [{top}:0] ua = na ? {w}'d0 - in0 : in0, ub = nb ? {w}'d0 - in1 : in1;"
        ));
        g.line(format!("wire [{}:0] qr = udivrem(ua, ub);", 2 * w - 1));
        g.line(format!(
            "wire [{top}:0] quo = (na ^ nb) ? {w}'d0 - qr[{}:{w}] : qr[{}:{w}];",
            2 * w - 1,
            2 * w - 1
        ));
        g.line(format!(
            "wire [{top}:0] rem = na ? {w}'d0 - qr[{top}:0] : qr[{top}:0];"
        ));
    } else {
        g.line(format!("wire [{}:0] qr = udivrem(in0, in1);", 2 * w - 1));
        g.line(format!("wire [{top}:0] quo = qr[{}:{w}];", 2 * w - 1));
        g.line(format!("wire [{top}:0] rem = qr[{top}:0];"));
    }
}

/// Generates the module for a node of shape `s` (not `Argument`, `Return` or `Instance`).
pub fn component(s: &Shape<'_>) -> Result<(ComponentModule, InstanceExtras), String> {
    let op = s.op;
    let (ni, no) = (s.ins.len(), s.outs.len());
    let mn = op.mnemonic();
    let base_name = format!("hs_{mn}_i{}_o{}", sig(&s.ins), sig(&s.outs));
    let mut ex = InstanceExtras {
        clocked: op.is_stateful(),
        ..Default::default()
    };
    let mut g = Gen::new(ex.clocked);
    for (i, &w) in s.ins.iter().enumerate() {
        g.input(&in_name(op, i), w);
    }
    for (i, &w) in s.outs.iter().enumerate() {
        g.output(&out_name(op, i), w);
    }
    // Port counts, as the op's spec states them.
    let sp = op.spec();
    let cx = CountContext {
        inputs: ni,
        function_results: 0,
    };
    for (what, ports, n) in [("inputs", &sp.inputs, ni), ("outputs", &sp.outputs, no)] {
        if let Some(c) = ports.count().resolve(&cx)
            && !c.accepts(n)
        {
            return Err(format!("`{mn}` needs {} {what}, has {n}", c.describe()));
        }
    }
    let mut name = base_name.clone();
    let mut params = String::new();
    // Join-like: out valid when all inputs valid, inputs ready when the output fires.
    let join_ready = |g: &mut Gen, ins: &[String], out: &str| {
        let all: Vec<String> = ins.iter().map(|p| format!("{p}_valid")).collect();
        g.line(format!(
            "assign {out}_valid = {};",
            if all.is_empty() {
                "1'b1".into()
            } else {
                all.join(" & ")
            }
        ));
        for p in ins {
            g.line(format!("assign {p}_ready = {out}_valid & {out}_ready;"));
        }
    };
    match op {
        Op::DynLsq { shape, memref, .. } => {
            name = dynamatic::lsq(
                &mut g,
                &mut ex,
                &dynamatic::LsqModule {
                    shape,
                    array: memref.as_ref().map(|m| (m.len(), m.elem.bit_width())),
                    ins: &s.ins,
                    outs: &s.outs,
                },
            )?;
        }
        Op::Arith(a) => {
            let float = FloatOp::of(*a);
            if let Some(f) = float {
                g.line("// Float simulation model, not synthesizable: computes through a DPI-C function that Handscope's Verilator testbench (tb.cpp) implements.");
                g.line(float_dpi::sv_import(f));
            }
            let ins: Vec<String> = (0..ni).map(|i| in_name(op, i)).collect();
            join_ready(&mut g, &ins, "out0");
            let w = s.outs[0];
            let wi = s.ins[0];
            let long = w > MAX_NATIVE_DIVISION
                && matches!(
                    a,
                    ArithOp::Divui | ArithOp::Remui | ArithOp::Divsi | ArithOp::Remsi
                );
            if long {
                long_division(&mut g, w, matches!(a, ArithOp::Divsi | ArithOp::Remsi));
            }
            let expr = match a {
                ArithOp::Divui | ArithOp::Divsi if long => {
                    format!("(in1 == {w}'d0) ? {w}'d0 : quo")
                }
                ArithOp::Remui | ArithOp::Remsi if long => {
                    format!("(in1 == {w}'d0) ? {w}'d0 : rem")
                }
                ArithOp::Addi => "in0 + in1".to_string(),
                ArithOp::Subi => "in0 - in1".into(),
                ArithOp::Muli => "in0 * in1".into(),
                ArithOp::Andi => "in0 & in1".into(),
                ArithOp::Ori => "in0 | in1".into(),
                ArithOp::Xori => "in0 ^ in1".into(),
                ArithOp::Noti => "~in0".into(),
                ArithOp::Divui => format!("(in1 == {w}'d0) ? {w}'d0 : in0 / in1"),
                ArithOp::Remui => format!("(in1 == {w}'d0) ? {w}'d0 : in0 % in1"),
                // x / -1 is written as a negation: it wraps like the engine and avoids the
                // overflowing division of the most negative value.
                ArithOp::Divsi => format!(
                    "(in1 == {w}'d0) ? {w}'d0 : (in1 == {{{w}{{1'b1}}}}) ? {w}'d0 - in0 : {w}'($signed(in0) / $signed(in1))"
                ),
                ArithOp::Remsi => format!(
                    "(in1 == {w}'d0 || in1 == {{{w}{{1'b1}}}}) ? {w}'d0 : {w}'($signed(in0) % $signed(in1))"
                ),
                ArithOp::Shli => format!("(in1 >= {w}) ? {w}'d0 : in0 << in1"),
                ArithOp::Shrui => format!("(in1 >= {w}) ? {w}'d0 : in0 >> in1"),
                ArithOp::Shrsi => format!("{w}'($signed(in0) >>> in1)"),
                ArithOp::Maxsi => "($signed(in0) > $signed(in1)) ? in0 : in1".into(),
                ArithOp::Minsi => "($signed(in0) < $signed(in1)) ? in0 : in1".into(),
                ArithOp::Maxui => "(in0 > in1) ? in0 : in1".into(),
                ArithOp::Minui => "(in0 < in1) ? in0 : in1".into(),
                ArithOp::Cmpi(p) => {
                    name = format!("hs_cmpi_{}_i{}_o{}", p.keyword(), sig(&s.ins), sig(&s.outs));
                    let (x, y) = if wi == 0 {
                        ("1'b0".to_string(), "1'b0".to_string())
                    } else if matches!(
                        p,
                        CmpPredicate::Slt
                            | CmpPredicate::Sle
                            | CmpPredicate::Sgt
                            | CmpPredicate::Sge
                    ) {
                        ("$signed(in0)".into(), "$signed(in1)".into())
                    } else {
                        ("in0".into(), "in1".into())
                    };
                    let o = match p {
                        CmpPredicate::Eq => "==",
                        CmpPredicate::Ne => "!=",
                        CmpPredicate::Slt | CmpPredicate::Ult => "<",
                        CmpPredicate::Sle | CmpPredicate::Ule => "<=",
                        CmpPredicate::Sgt | CmpPredicate::Ugt => ">",
                        CmpPredicate::Sge | CmpPredicate::Uge => ">=",
                    };
                    format!("{x} {o} {y}")
                }
                ArithOp::Select => "in0 ? in1 : in2".into(),
                ArithOp::Extsi => resize("in0", wi, w, true),
                ArithOp::Extui => resize("in0", wi, w, false),
                ArithOp::Trunci => resize("in0", wi, w, false),
                ArithOp::IndexCast => resize("in0", wi, w, w > wi),
                ArithOp::Cmpf(p) => {
                    name = format!("hs_cmpf_{}_i{}_o{}", p.keyword(), sig(&s.ins), sig(&s.outs));
                    float_dpi::sv_expr(FloatOp::Cmp(*p), &s.ins, w)
                }
                ArithOp::Addf
                | ArithOp::Subf
                | ArithOp::Mulf
                | ArithOp::Divf
                | ArithOp::Remf
                | ArithOp::Maximumf
                | ArithOp::Minimumf
                | ArithOp::Maxnumf
                | ArithOp::Minnumf
                | ArithOp::Negf
                | ArithOp::Sitofp
                | ArithOp::Uitofp
                | ArithOp::Fptosi
                | ArithOp::Fptoui
                | ArithOp::Extf
                | ArithOp::Truncf
                | ArithOp::Sqrt
                | ArithOp::Absf
                | ArithOp::Copysign
                | ArithOp::Math(_) => match float {
                    Some(f) => float_dpi::sv_expr(f, &s.ins, w),
                    None => return Err(format!("`{mn}` has no float computation")),
                },
            };
            if w > 0 {
                if wi == 0 && !a.is_cast() && !matches!(a, ArithOp::Select) {
                    g.line(format!("assign out0 = {w}'d0;"));
                } else {
                    g.line(format!("assign out0 = {expr};"));
                }
            }
        }
        Op::Join | Op::Pack => {
            let ins: Vec<String> = (0..ni).map(|i| in_name(op, i)).collect();
            join_ready(&mut g, &ins, "out0");
            if s.outs[0] > 0 {
                if *op == Op::Join {
                    g.line(format!("assign out0 = {}'d0;", s.outs[0]));
                } else {
                    let fields: Vec<String> = ins
                        .iter()
                        .zip(&s.ins)
                        .filter(|(_, w)| **w > 0)
                        .map(|(p, _)| p.clone())
                        .collect();
                    g.line(format!("assign out0 = {{{}}};", fields.join(", ")));
                }
            }
        }
        Op::Br => {
            g.line("assign out0_valid = in0_valid;");
            g.line("assign in0_ready = out0_ready;");
            if s.outs[0] > 0 {
                g.line("assign out0 = in0;");
            }
        }
        Op::CondBr => {
            g.line("wire j = cond_valid & data_valid;");
            g.line("assign outTrue_valid = j & cond;");
            g.line("assign outFalse_valid = j & !cond;");
            g.line("assign cond_ready = j & (cond ? outTrue_ready : outFalse_ready);");
            g.line("assign data_ready = cond_ready;");
            if s.ins[1] > 0 {
                g.line("assign outTrue = data;");
                g.line("assign outFalse = data;");
            }
        }
        Op::Mux => {
            let w = s.outs[0];
            let sw = s.ins[0];
            // Valid and data in one block, readies from the fire signal: a block that wrote
            // both would look like a combinational loop to Verilator (valid out, ready in).
            // The low ceil(log2 N) select bits name the input (docs/semantics.md, `mux`).
            let bits = mux_select_bits(ni - 1).min(sw);
            let sel = |k: usize| {
                if bits == 0 {
                    if k == 1 {
                        "1'b1".to_string()
                    } else {
                        "1'b0".into()
                    }
                } else if sw == 1 {
                    // A 1-bit port has no range to select from (Dynamatic's `i1` selects).
                    format!("select == 1'd{}", k - 1)
                } else {
                    format!("select[{}:0] == {bits}'d{}", bits - 1, k - 1)
                }
            };
            g.line("always_comb begin");
            g.line("  out0_valid = 1'b0;");
            if w > 0 {
                g.line(format!("  out0 = {w}'d0;"));
            }
            for k in 1..ni {
                let p = in_name(op, k);
                g.line(format!(
                    "  {}if ({}) begin",
                    if k > 1 { "else " } else { "" },
                    sel(k)
                ));
                g.line(format!("    out0_valid = select_valid & {p}_valid;"));
                if w > 0 {
                    g.line(format!("    out0 = {p};"));
                }
                g.line("  end");
            }
            g.line("end");
            g.line("wire fire = out0_valid & out0_ready;");
            g.line("assign select_ready = fire;");
            for k in 1..ni {
                g.line(format!(
                    "assign {}_ready = fire & ({});",
                    in_name(op, k),
                    sel(k)
                ));
            }
        }
        Op::Merge => {
            let w = s.outs[0];
            // Valid and data first (priority to the lowest input), readies apart (see `mux`).
            g.line("always_comb begin");
            g.line("  out0_valid = 1'b0;");
            if w > 0 {
                g.line(format!("  out0 = {w}'d0;"));
            }
            for k in 0..ni {
                g.line(format!(
                    "  {}if (in{k}_valid) begin",
                    if k > 0 { "else " } else { "" }
                ));
                g.line("    out0_valid = 1'b1;");
                if w > 0 {
                    g.line(format!("    out0 = in{k};"));
                }
                g.line("  end");
            }
            g.line("end");
            for k in 0..ni {
                let earlier: String = (0..k).map(|j| format!(" & !in{j}_valid")).collect();
                g.line(format!(
                    "assign in{k}_ready = out0_ready & in{k}_valid{earlier};"
                ));
            }
        }
        Op::ControlMerge => {
            if ni > 64 {
                return Err("`control_merge` supports at most 64 inputs".into());
            }
            let (w, iw) = (s.outs[0], s.outs[1]);
            g.line(format!("logic [{}:0] won, prio, win;", ni - 1));
            g.line("logic result_emitted, index_emitted;");
            g.line("always_comb begin");
            g.line(format!("  prio = {ni}'d0;"));
            for k in 0..ni {
                g.line(format!(
                    "  {}if (in{k}_valid) prio[{k}] = 1'b1;",
                    if k > 0 { "else " } else { "" }
                ));
            }
            g.line("end");
            g.line(format!("assign win = (won != {ni}'d0) ? won : prio;"));
            g.line("wire any = |win;");
            g.line("assign dataOut_valid = any & !result_emitted;");
            g.line("assign index_valid = any & !index_emitted;");
            g.line("wire doneR = (dataOut_valid & dataOut_ready) | result_emitted;");
            g.line("wire doneI = (index_valid & index_ready) | index_emitted;");
            g.line("wire all_done = doneR & doneI;");
            for k in 0..ni {
                g.line(format!("assign in{k}_ready = all_done & win[{k}];"));
            }
            g.line("always_comb begin");
            if w > 0 {
                g.line(format!("  dataOut = {w}'d0;"));
            }
            if iw > 0 {
                g.line(format!("  index = {iw}'d0;"));
            }
            for k in 0..ni {
                g.line(format!(
                    "  {}if (win[{k}]) begin",
                    if k > 0 { "else " } else { "" }
                ));
                if w > 0 {
                    g.line(format!("    dataOut = in{k};"));
                }
                if iw > 0 {
                    g.line(format!("    index = {iw}'({k});"));
                }
                g.line("  end");
            }
            g.line("end");
            g.line("always_ff @(posedge clock) begin");
            g.line("  if (reset) begin");
            g.line(format!(
                "    won <= {ni}'d0; result_emitted <= 1'b0; index_emitted <= 1'b0;"
            ));
            g.line("  end else begin");
            g.line(format!("    won <= all_done ? {ni}'d0 : win;"));
            g.line("    result_emitted <= doneR & !all_done;");
            g.line("    index_emitted <= doneI & !all_done;");
            g.line("  end");
            g.line("end");
        }
        Op::Fork | Op::Unpack | Op::Sync => {
            let sync = *op == Op::Sync;
            let ins: Vec<String> = (0..ni).map(|i| in_name(op, i)).collect();
            let j = if sync {
                ins.iter()
                    .map(|p| format!("{p}_valid"))
                    .collect::<Vec<_>>()
                    .join(" & ")
            } else {
                "in0_valid".into()
            };
            g.line(format!("wire j = {j};"));
            let mut shift = s.ins[0];
            for k in 0..no {
                g.line(format!("logic emitted_{k};"));
                g.line(format!("assign out{k}_valid = j & !emitted_{k};"));
                g.line(format!(
                    "wire done_{k} = (out{k}_valid & out{k}_ready) | emitted_{k};"
                ));
                let w = s.outs[k];
                if w > 0 {
                    let src = match op {
                        Op::Sync => format!("in{k}"),
                        Op::Fork => "in0".into(),
                        _ => {
                            shift -= w;
                            format!("in0[{}:{}]", shift + w - 1, shift)
                        }
                    };
                    g.line(format!("assign out{k} = {src};"));
                }
            }
            let all: Vec<String> = (0..no).map(|k| format!("done_{k}")).collect();
            g.line(format!("wire all_done = {};", all.join(" & ")));
            for p in &ins {
                g.line(format!(
                    "assign {p}_ready = {};",
                    if sync { "j & all_done" } else { "all_done" }
                ));
            }
            g.line("always_ff @(posedge clock) begin");
            for k in 0..no {
                g.line(format!(
                    "  emitted_{k} <= reset ? 1'b0 : done_{k} & !all_done;"
                ));
            }
            g.line("end");
        }
        Op::LazyFork => {
            for k in 0..no {
                let others: Vec<String> = (0..no)
                    .filter(|&j| j != k)
                    .map(|j| format!(" & out{j}_ready"))
                    .collect();
                g.line(format!(
                    "assign out{k}_valid = in0_valid{};",
                    others.concat()
                ));
                if s.outs[k] > 0 {
                    g.line(format!("assign out{k} = in0;"));
                }
            }
            let all: Vec<String> = (0..no).map(|k| format!("out{k}_ready")).collect();
            g.line(format!("assign in0_ready = {};", all.join(" & ")));
        }
        Op::DynBuffer { kind, slots } => {
            name = dynamatic::buffer(&mut g, *kind, *slots, s.outs[0])?;
        }
        Op::DynPipeline { latency } => {
            name = dynamatic::pipeline(&mut g, *latency, s.outs[0])?;
        }
        Op::DynCounterBuffer { latency } => {
            name = dynamatic::counter_buffer(&mut g, *latency, s.outs[0])?;
        }
        Op::DynControlMerge => {
            name = dynamatic::control_merge(&mut g, ni, s.outs[0], s.outs[1])?;
        }
        Op::DynSelect => {
            name = dynamatic::select(&mut g, s.outs[0]);
        }
        Op::AddrQueue { ld, st, depth } => {
            let (ld, st) = (*ld as usize, *st as usize);
            // Every address has one width (the verifier checks it).
            let aw = s.ins.first().copied().unwrap_or(0);
            name = addr_queue::addr_queue(&mut g, ld, st, *depth as usize, aw);
        }
        Op::DynLoad => {
            name = dynamatic::load(&mut g, s.ins[0], s.ins[1]);
        }
        Op::DynStore => {
            name = dynamatic::store(&mut g, s.ins[0], s.ins[1]);
        }
        Op::DynMemController {
            ctrl,
            ld,
            st,
            memref,
            ..
        } => {
            name = dynamatic::mem_controller(
                &mut g,
                &mut ex,
                (*ctrl as usize, *ld as usize, *st as usize),
                (memref.len(), memref.elem.bit_width()),
                &s.ins,
                &s.outs,
            )?;
        }
        Op::Pipeline { latency, ii } => {
            // `docs/semantics.md` "Pipelined units": stage k is free when it is empty or the
            // stage after it is free (the one after the last is `out0_ready`); a free stage
            // takes the previous stage's token, stage 0 the input's transfer.
            let (n, ii) = (*latency as usize, *ii);
            if n == 0 || ii == 0 {
                return Err("pipeline with latency or interval 0".into());
            }
            let w = s.outs[0];
            let dw = w.max(1);
            name = format!("hs_pipeline_l{n}_ii{ii}_i{}_o{}", sig(&s.ins), sig(&s.outs));
            let cw = 32 - ii.leading_zeros();
            for k in 0..n {
                g.line(format!("logic stage{k}_valid;"));
                g.line(format!("logic [{}:0] stage{k}_data;", dw - 1));
            }
            if ii > 1 {
                g.line(format!("logic [{}:0] cooldown;", cw - 1));
            }
            g.line(format!("wire free{n} = out0_ready;"));
            for k in (0..n).rev() {
                g.line(format!("wire free{k} = !stage{k}_valid | free{};", k + 1));
            }
            if ii > 1 {
                g.line("assign in0_ready = free0 & (cooldown == '0);");
            } else {
                g.line("assign in0_ready = free0;");
            }
            g.line("wire take = in0_valid & in0_ready;");
            g.line(format!("assign out0_valid = stage{}_valid;", n - 1));
            if w > 0 {
                g.line(format!("assign out0 = stage{}_data;", n - 1));
            }
            let ind = if w > 0 { "in0" } else { "1'b0" };
            g.line("always_ff @(posedge clock) begin");
            g.line("  if (reset) begin");
            for k in 0..n {
                g.line(format!("    stage{k}_valid <= 1'b0; stage{k}_data <= '0;"));
            }
            if ii > 1 {
                g.line("    cooldown <= '0;");
            }
            g.line("  end else begin");
            for k in 0..n {
                let (pv, pd) = if k == 0 {
                    ("take".to_string(), ind.to_string())
                } else {
                    (
                        format!("stage{}_valid", k - 1),
                        format!("stage{}_data", k - 1),
                    )
                };
                g.line(format!(
                    "    if (free{k}) begin stage{k}_valid <= {pv}; if ({pv}) stage{k}_data <= {pd}; end"
                ));
            }
            if ii > 1 {
                g.line(format!(
                    "    cooldown <= take ? {cw}'d{} : (cooldown != '0 ? cooldown - {cw}'d1 : '0);",
                    ii - 1
                ));
            }
            g.line("  end");
            g.line("end");
        }
        Op::Buffer { slots, init, .. } => {
            let n = *slots as usize;
            if n == 0 {
                return Err("buffer with 0 slots".into());
            }
            let w = s.outs[0];
            let dw = w.max(1);
            name = format!("hs_buffer_s{n}_i{}_o{}", sig(&s.ins), sig(&s.outs));
            params = format!(
                " #(parameter logic [{}:0] INIT_VALID = '0, parameter logic [{}:0] INIT_DATA = '0)",
                n - 1,
                n as u32 * dw - 1
            );
            if let Some(init) = init {
                if init.len() > n {
                    return Err("more initValues than slots".into());
                }
                let mut v = String::new();
                let mut d = Vec::new();
                for k in (0..n).rev() {
                    v.push(if k < init.len() { '1' } else { '0' });
                    // A slot of a `none` buffer holds one bit, always 0.
                    let word = if w == 0 {
                        0
                    } else {
                        init.get(k).copied().unwrap_or(0)
                    };
                    d.push(literal(word, dw));
                }
                ex.params.push(("INIT_VALID".into(), format!("{n}'b{v}")));
                ex.params
                    .push(("INIT_DATA".into(), format!("{{{}}}", d.join(", "))));
            }
            let ind = if w > 0 {
                "in0".to_string()
            } else {
                "1'b0".into()
            };
            for k in 0..n {
                g.line(format!("logic slot{k}_valid, slot{k}_skid_valid;"));
                g.line(format!(
                    "logic [{}:0] slot{k}_data, slot{k}_skid_data;",
                    dw - 1
                ));
                g.line(format!(
                    "wire ir{k} = !slot{k}_valid | !slot{k}_skid_valid;"
                ));
                g.line(format!("wire ov{k} = slot{k}_skid_valid | slot{k}_valid;"));
                g.line(format!(
                    "wire [{}:0] od{k} = slot{k}_skid_valid ? slot{k}_skid_data : slot{k}_data;",
                    dw - 1
                ));
            }
            g.line("assign in0_ready = ir0;");
            g.line(format!("assign out0_valid = ov{};", n - 1));
            if w > 0 {
                g.line(format!("assign out0 = od{};", n - 1));
            }
            g.line("always_ff @(posedge clock) begin");
            g.line("  if (reset) begin");
            for k in 0..n {
                g.line(format!(
                    "    slot{k}_valid <= INIT_VALID[{k}]; slot{k}_data <= INIT_DATA[{}:{}]; slot{k}_skid_valid <= 1'b0; slot{k}_skid_data <= '0;",
                    (k as u32 + 1) * dw - 1,
                    k as u32 * dw
                ));
            }
            g.line("  end else begin");
            for k in 0..n {
                let (iv, id) = if k == 0 {
                    ("in0_valid".to_string(), ind.clone())
                } else {
                    (format!("ov{}", k - 1), format!("od{}", k - 1))
                };
                let or = if k + 1 == n {
                    "out0_ready".to_string()
                } else {
                    format!("ir{}", k + 1)
                };
                g.line(format!(
                    "    if (ir{k}) begin slot{k}_valid <= {iv}; slot{k}_data <= {id}; end"
                ));
                g.line(format!(
                    "    slot{k}_skid_valid <= !({or} & slot{k}_skid_valid) & ((!{or} & !slot{k}_skid_valid) ? slot{k}_valid : slot{k}_skid_valid);"
                ));
                g.line(format!(
                    "    slot{k}_skid_data <= ({or} & slot{k}_skid_valid) ? '0 : (!{or} & !slot{k}_skid_valid) ? slot{k}_data : slot{k}_skid_data;"
                ));
            }
            g.line("  end");
            g.line("end");
        }
        Op::Constant { value } => {
            let w = s.outs[0];
            g.line("assign out0_valid = ctrl_valid;");
            g.line("assign ctrl_ready = out0_ready;");
            if w > 0 {
                params = format!(" #(parameter logic [{}:0] VALUE = '0)", w - 1);
                ex.params.push(("VALUE".into(), literal(*value, w)));
                g.line("assign out0 = VALUE;");
            }
        }
        Op::Source | Op::Never => {
            g.line(format!(
                "assign out0_valid = 1'b{};",
                u8::from(*op == Op::Source)
            ));
            if s.outs[0] > 0 {
                g.line(format!("assign out0 = {}'d0;", s.outs[0]));
            }
        }
        Op::Sink => {
            g.line("assign in0_ready = 1'b1;");
        }
        Op::Load => {
            g.line("assign addrOut0_valid = addrIn0_valid & ctrl_valid;");
            g.line("assign addrIn0_ready = addrOut0_valid & addrOut0_ready;");
            g.line("assign ctrl_ready = addrOut0_valid & addrOut0_ready;");
            if s.outs[1] > 0 {
                g.line(format!(
                    "assign addrOut0 = {};",
                    resize("addrIn0", s.ins[0], s.outs[1], false)
                ));
            }
            g.line("assign dataOut_valid = dataFromMem_valid;");
            g.line("assign dataFromMem_ready = dataOut_ready;");
            if s.outs[0] > 0 {
                g.line(format!(
                    "assign dataOut = {};",
                    resize("dataFromMem", s.ins[1], s.outs[0], false)
                ));
            }
        }
        Op::Store => {
            g.line("wire v = addrIn0_valid & dataIn_valid & ctrl_valid;");
            g.line("assign dataToMem_valid = v;");
            g.line("assign addrOut0_valid = v;");
            g.line("wire r = dataToMem_valid & dataToMem_ready & addrOut0_ready;");
            g.line("assign addrIn0_ready = r;");
            g.line("assign dataIn_ready = r;");
            g.line("assign ctrl_ready = r;");
            if s.outs[0] > 0 {
                g.line(format!(
                    "assign dataToMem = {};",
                    resize("dataIn", s.ins[1], s.outs[0], false)
                ));
            }
            if s.outs[1] > 0 {
                g.line(format!(
                    "assign addrOut0 = {};",
                    resize("addrIn0", s.ins[0], s.outs[1], false)
                ));
            }
        }
        Op::Memory { ld, st, memref, .. } | Op::ExtMemory { ld, st, memref, .. } => {
            let external = matches!(op, Op::ExtMemory { .. });
            let (ld, st) = (*ld as usize, *st as usize);
            let size = memref.len();
            if size == 0 || size > (1 << 32) {
                return Err("memory size must be between 1 and 2^32 elements".into());
            }
            let ew = memref.elem.bit_width();
            if ew == 0 {
                return Err("memory elements must have at least 1 bit".into());
            }
            let ab = addr_bits(size).max(1);
            let am = addr_bits(size);
            let (xld, xst) = if external { (0, 0) } else { s.island_ports };
            name = format!(
                "hs_{mn}_l{ld}_s{st}_n{size}_e{ew}_i{}_o{}",
                sig(&s.ins),
                sig(&s.outs)
            );
            if xld + xst > 0 {
                name.push_str(&format!("_x{xld}_{xst}"));
            }
            if !external {
                params = " #(parameter INIT_FILE = \"\")".into();
                g.line(format!("logic [{}:0] mem [0:{}];", ew - 1, size - 1));
                g.line("initial begin");
                g.line("  integer fd;");
                g.line(format!(
                    "  for (longint i = 0; i < {size}; i++) mem[i] = '0;"
                ));
                g.line("  if (INIT_FILE != \"\") begin");
                g.line("    fd = $fopen(INIT_FILE, \"r\");");
                g.line("    if (fd != 0) begin $fclose(fd); $readmemh(INIT_FILE, mem); end");
                g.line("  end");
                g.line("end");
            }
            // Keep the low `am` address bits (no bits: always address 0), as a `ab`-bit value.
            let amask = |e: &str, w: u32| -> String {
                if am == 0 || w == 0 {
                    format!("{ab}'d0")
                } else {
                    resize(e, w, am, false)
                }
            };
            for i in 0..ld {
                let a = format!("ldAddr{i}");
                let aw = s.ins[2 * st + i];
                g.line(format!("logic ld{i}_emitted_0, ld{i}_emitted_1;"));
                g.line(format!("wire [{}:0] ld{i}_a = {};", ab - 1, amask(&a, aw)));
                g.line(format!(
                    "assign ldData{i}_valid = {a}_valid & !ld{i}_emitted_0;"
                ));
                g.line(format!(
                    "assign ldDone{i}_valid = {a}_valid & !ld{i}_emitted_1;"
                ));
                let dw = s.outs[i];
                if external {
                    ex.mem_ports.push((format!("ld{i}_addr"), true, ab));
                    ex.mem_ports.push((format!("ld{i}_data"), false, ew));
                    g.ports
                        .push(format!("output logic [{}:0] ld{i}_addr", ab - 1));
                    g.ports.push(format!("input [{}:0] ld{i}_data", ew - 1));
                    g.line(format!("assign ld{i}_addr = ld{i}_a;"));
                    if dw > 0 {
                        g.line(format!(
                            "assign ldData{i} = {};",
                            resize(&format!("ld{i}_data"), ew, dw, false)
                        ));
                    }
                } else if dw > 0 {
                    let rd = format!(
                        "({{{}'d0, ld{i}_a}} < 65'd{size}) ? mem[ld{i}_a] : {ew}'d0",
                        65 - ab
                    );
                    g.line(format!("wire [{}:0] ld{i}_rd = {rd};", ew - 1));
                    g.line(format!(
                        "assign ldData{i} = {};",
                        resize(&format!("ld{i}_rd"), ew, dw, false)
                    ));
                }
                if s.outs[ld + st + i] > 0 {
                    g.line(format!("assign ldDone{i} = '0;"));
                }
                g.line(format!(
                    "wire ld{i}_d0 = (ldData{i}_valid & ldData{i}_ready) | ld{i}_emitted_0;"
                ));
                g.line(format!(
                    "wire ld{i}_d1 = (ldDone{i}_valid & ldDone{i}_ready) | ld{i}_emitted_1;"
                ));
                g.line(format!("assign {a}_ready = ld{i}_d0 & ld{i}_d1;"));
                g.line("always_ff @(posedge clock) begin");
                g.line(format!(
                    "  ld{i}_emitted_0 <= reset ? 1'b0 : ld{i}_d0 & !{a}_ready;"
                ));
                g.line(format!(
                    "  ld{i}_emitted_1 <= reset ? 1'b0 : ld{i}_d1 & !{a}_ready;"
                ));
                g.line("end");
            }
            for j in 0..st {
                let (d, a) = (format!("stData{j}"), format!("stAddr{j}"));
                let (dwi, awi) = (s.ins[2 * j], s.ins[2 * j + 1]);
                g.line(format!("logic st{j}_write_valid_buffer;"));
                g.line(format!(
                    "assign stDone{j}_valid = st{j}_write_valid_buffer;"
                ));
                if s.outs[ld + j] > 0 {
                    g.line(format!("assign stDone{j} = '0;"));
                }
                g.line(format!(
                    "wire st{j}_r = !st{j}_write_valid_buffer | stDone{j}_ready;"
                ));
                g.line(format!("assign {a}_ready = st{j}_r;"));
                g.line(format!("assign {d}_ready = st{j}_r;"));
                g.line(format!("wire st{j}_wv = {a}_valid & {d}_valid;"));
                g.line(format!("wire [{}:0] st{j}_a = {};", ab - 1, amask(&a, awi)));
                let dv = if dwi == 0 {
                    format!("{ew}'d0")
                } else {
                    resize(&d, dwi, ew, false)
                };
                g.line(format!("wire [{}:0] st{j}_d = {dv};", ew - 1));
                if external {
                    ex.mem_ports.push((format!("st{j}_addr"), true, ab));
                    ex.mem_ports.push((format!("st{j}_data"), true, ew));
                    ex.mem_ports.push((format!("st{j}_en"), true, 1));
                    g.ports
                        .push(format!("output logic [{}:0] st{j}_addr", ab - 1));
                    g.ports
                        .push(format!("output logic [{}:0] st{j}_data", ew - 1));
                    g.ports.push(format!("output logic st{j}_en"));
                    g.line(format!("assign st{j}_addr = st{j}_a;"));
                    g.line(format!("assign st{j}_data = st{j}_d;"));
                    g.line(format!("assign st{j}_en = st{j}_wv & !reset;"));
                }
                g.line("always_ff @(posedge clock) begin");
                g.line(format!(
                    "  st{j}_write_valid_buffer <= reset ? 1'b0 : st{j}_r ? st{j}_wv : st{j}_write_valid_buffer;"
                ));
                if !external {
                    g.line(format!(
                        "  if (!reset && st{j}_wv && {{{}'d0, st{j}_a}} < 65'd{size}) mem[st{j}_a] <= st{j}_d;",
                        65 - ab
                    ));
                }
                g.line("end");
            }
            // Static islands' ports: a load's data combinational from its address, a store
            // written at the clock edge.
            let inside = |a: &str| format!("({{{}'d0, {a}}} < 65'd{size})", 65 - ab);
            for i in 0..xld {
                g.ports.push(format!("input [{}:0] xld{i}_addr", ab - 1));
                g.ports
                    .push(format!("output logic [{}:0] xld{i}_data", ew - 1));
                g.line(format!(
                    "assign xld{i}_data = {} ? mem[xld{i}_addr] : {ew}'d0;",
                    inside(&format!("xld{i}_addr"))
                ));
            }
            for j in 0..xst {
                g.ports.push(format!("input [{}:0] xst{j}_addr", ab - 1));
                g.ports.push(format!("input [{}:0] xst{j}_data", ew - 1));
                g.ports.push(format!("input xst{j}_en"));
                g.line("always_ff @(posedge clock) begin");
                g.line(format!(
                    "  if (!reset && xst{j}_en && {}) mem[xst{j}_addr] <= xst{j}_data;",
                    inside(&format!("xst{j}_addr"))
                ));
                g.line("end");
            }
        }
        Op::Argument { .. } | Op::Return | Op::Instance { .. } => {
            return Err(format!("`{mn}` is not a component"));
        }
        Op::Island(_) => return Err("`island`: SystemVerilog not written yet".into()),
    }
    if name == base_name && matches!(op, Op::Arith(_)) {
        name = format!("hs_{mn}_i{}_o{}", sig(&s.ins), sig(&s.outs));
    }
    Ok((
        ComponentModule {
            text: g.finish(&name, &params),
            name,
        },
        ex,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use handscope_sim::{BufferKind, MemRefType, Type};

    /// Divisions above 512 bits are long divisions (Verilator 5.006 cannot divide them);
    /// narrower ones stay native.
    #[test]
    fn wide_divisions_beyond_verilator_are_long_divisions() {
        for (op, w, long) in [
            (ArithOp::Divsi, 600, true),
            (ArithOp::Remui, 4096, true),
            (ArithOp::Remsi, 512, false),
            (ArithOp::Divui, 128, false),
        ] {
            let (m, _) = component(&Shape {
                op: &Op::Arith(op),
                ins: vec![w, w],
                outs: vec![w],
                island_ports: (0, 0),
            })
            .unwrap();
            assert_eq!(m.text.contains("function automatic"), long, "{op:?} {w}");
        }
    }

    /// Every register the engine's state layout names is a register of the SystemVerilog
    /// component, under the same name (`.` written `_`), so a VCD of our RTL rebuilds the state.
    #[test]
    fn registers_carry_the_spec_names() {
        let mem = Op::Memory {
            ld: 2,
            st: 1,
            id: 0,
            memref: MemRefType {
                dims: vec![8],
                elem: Type::Int(8),
            },
            lsq: false,
        };
        let buffer = Op::Buffer {
            slots: 3,
            kind: BufferKind::Seq,
            init: None,
        };
        let shapes = [
            (Op::Fork, vec![8], vec![8, 8, 8]),
            (Op::Sync, vec![8, 0], vec![8, 0]),
            (Op::Unpack, vec![12], vec![4, 8]),
            (Op::ControlMerge, vec![0, 0, 0], vec![0, 2]),
            (buffer, vec![8], vec![8]),
            (Op::Pipeline { latency: 3, ii: 2 }, vec![8], vec![8]),
            (mem, vec![8, 3, 3, 3], vec![8, 8, 0, 0, 0]),
        ];
        for (op, ins, outs) in shapes {
            let (m, ex) = component(&Shape {
                op: &op,
                ins,
                outs: outs.clone(),
                island_ports: (0, 0),
            })
            .expect("component");
            assert!(ex.clocked, "{op:?}");
            let fields = op.spec().state.fields(outs.len());
            assert!(!fields.is_empty());
            for f in fields {
                let name = f.to_string().replace('.', "_");
                let declared = m.text.lines().any(|l| {
                    let l = l.trim();
                    l.starts_with("logic")
                        && l.trim_end_matches(';').split([' ', ',']).any(|w| w == name)
                });
                assert!(declared, "{op:?}: no register `{name}` in\n{}", m.text);
            }
        }
    }
}
