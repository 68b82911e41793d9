//! SystemVerilog of Dynamatic's components, with the equations of `docs/semantics.md`
//! ("Dynamatic's components") and the register names of their state layouts.

use handscope_sim::DynBufferKind;

use super::{Gen, sig};

/// A buffer of `kind` with `n` slots between `in0` and `out0` of width `w`: a FIFO
/// (`count`, `head`, `entry<k>`), with a bypass and a ready-through path as the kind says.
pub(super) fn buffer(g: &mut Gen, kind: DynBufferKind, n: u32, w: u32) -> Result<String, String> {
    if n == 0 {
        return Err("buffer with 0 slots".into());
    }
    let dw = w.max(1);
    g.line("logic [31:0] count;");
    g.line("logic [31:0] head;");
    for k in 0..n {
        g.line(format!("logic [{}:0] entry{k};", dw - 1));
    }
    g.line(format!("logic [{}:0] head_data;", dw - 1));
    g.line("always_comb begin");
    g.line("  head_data = entry0;");
    for k in 1..n {
        g.line(format!("  if (head == 32'd{k}) head_data = entry{k};"));
    }
    g.line("end");
    g.line("wire held = count != 32'd0;");
    let ind = if w > 0 { "in0" } else { "1'b0" };
    if kind.bypass() {
        g.line("assign out0_valid = held | in0_valid;");
        if w > 0 {
            g.line("assign out0 = held ? head_data : in0;");
        }
    } else {
        g.line("assign out0_valid = held;");
        if w > 0 {
            g.line("assign out0 = head_data;");
        }
    }
    let through = if kind.ready_through() {
        " | out0_ready"
    } else {
        ""
    };
    g.line(format!("assign in0_ready = (count != 32'd{n}){through};"));
    g.line("wire leave = held & out0_ready;");
    g.line(format!(
        "wire enter = in0_valid & in0_ready{};",
        if kind.bypass() {
            " & !(!held & out0_ready)"
        } else {
            ""
        }
    ));
    g.line("wire [31:0] tail_sum = head + count;");
    g.line(format!(
        "wire [31:0] tail = tail_sum >= 32'd{n} ? tail_sum - 32'd{n} : tail_sum;"
    ));
    g.line("always_ff @(posedge clock) begin");
    g.line("  if (reset) begin");
    g.line("    count <= '0; head <= '0;");
    for k in 0..n {
        g.line(format!("    entry{k} <= '0;"));
    }
    g.line("  end else begin");
    for k in 0..n {
        g.line(format!(
            "    if (enter && tail == 32'd{k}) entry{k} <= {ind};"
        ));
    }
    g.line("    count <= count + {31'd0, enter} - {31'd0, leave};");
    g.line(format!(
        "    if (leave) head <= (head == 32'd{}) ? 32'd0 : head + 32'd1;",
        n - 1
    ));
    g.line("  end");
    g.line("end");
    Ok(format!(
        "hs_dyn_buffer_{}_s{n}_i{}_o{}",
        kind.name().to_ascii_lowercase(),
        w,
        w
    ))
}

/// A `COUNTER_BUFFER` of `latency` cycles between `in0` and `out0` of width `w`, in the
/// registers of a one-slot FIFO: `count` (holds a token), `head` (cycles still to wait) and
/// `entry0` (the token).
pub(super) fn counter_buffer(g: &mut Gen, latency: u32, w: u32) -> Result<String, String> {
    if latency == 0 {
        return Err("counter buffer with latency 0".into());
    }
    let dw = w.max(1);
    g.line("logic [31:0] count;");
    g.line("logic [31:0] head;");
    g.line(format!("logic [{}:0] entry0;", dw - 1));
    g.line("wire busy = count != 32'd0;");
    g.line("wire done = busy & (head == 32'd0);");
    g.line("assign out0_valid = done;");
    if w > 0 {
        g.line(format!("assign out0 = done ? entry0 : {w}'d0;"));
    }
    g.line("assign in0_ready = !busy | (done & out0_ready);");
    g.line("wire taken = in0_valid & in0_ready;");
    g.line("always_ff @(posedge clock) begin");
    g.line("  if (reset) begin");
    g.line("    count <= '0; head <= '0; entry0 <= '0;");
    g.line("  end else if (taken) begin");
    g.line(format!(
        "    count <= 32'd1; head <= 32'd{}; entry0 <= {};",
        latency - 1,
        if w > 0 { "in0" } else { "1'b0" }
    ));
    g.line("  end else if (done & out0_ready) begin");
    g.line("    count <= '0;");
    g.line("  end else if (busy & !done) begin");
    g.line("    head <= head - 32'd1;");
    g.line("  end");
    g.line("end");
    Ok(format!("hs_dyn_counter_buffer_l{latency}_i{w}_o{w}"))
}

/// A stalling pipeline of `n` stages (`stage<k>_valid`, `stage<k>_data`): every stage
/// shifts while the last is empty or taken.
pub(super) fn pipeline(g: &mut Gen, n: u32, w: u32) -> Result<String, String> {
    if n == 0 {
        return Err("pipeline with latency 0".into());
    }
    let dw = w.max(1);
    for k in 0..n {
        g.line(format!("logic stage{k}_valid;"));
        g.line(format!("logic [{}:0] stage{k}_data;", dw - 1));
    }
    let last = n - 1;
    g.line(format!("wire advance = !stage{last}_valid | out0_ready;"));
    g.line("assign in0_ready = advance;");
    g.line(format!("assign out0_valid = stage{last}_valid;"));
    if w > 0 {
        g.line(format!("assign out0 = stage{last}_data;"));
    }
    let ind = if w > 0 { "in0" } else { "1'b0" };
    g.line("always_ff @(posedge clock) begin");
    g.line("  if (reset) begin");
    for k in 0..n {
        g.line(format!("    stage{k}_valid <= 1'b0; stage{k}_data <= '0;"));
    }
    g.line("  end else if (advance) begin");
    g.line(format!(
        "    stage0_valid <= in0_valid; if (in0_valid) stage0_data <= {ind};"
    ));
    for k in 1..n {
        let p = k - 1;
        g.line(format!(
            "    stage{k}_valid <= stage{p}_valid; if (stage{p}_valid) stage{k}_data <= stage{p}_data;"
        ));
    }
    g.line("  end");
    g.line("end");
    Ok(format!("hs_dyn_pipeline_l{n}_i{w}_o{w}"))
}

/// Dynamatic's `control_merge` of `ni` inputs: a priority choice into a skid register
/// (`skid_full`, `skid_index`, `skid_data`) and an eager fork (`emitted_0`, `emitted_1`)
/// onto `outs` (width `w`) and `index` (width `iw`).
pub(super) fn control_merge(g: &mut Gen, ni: usize, w: u32, iw: u32) -> Result<String, String> {
    if ni == 0 {
        return Err("`control_merge` needs at least one input".into());
    }
    let (dw, xw) = (w.max(1), iw.max(1));
    g.line("logic skid_full;");
    g.line(format!("logic [{}:0] skid_index;", xw - 1));
    g.line(format!("logic [{}:0] skid_data;", dw - 1));
    g.line("logic emitted_0, emitted_1;");
    g.line(format!("logic [{}:0] prio;", ni - 1));
    g.line(format!("logic [{}:0] win_index;", xw - 1));
    g.line(format!("logic [{}:0] win_data;", dw - 1));
    g.line("always_comb begin");
    g.line(format!("  prio = {ni}'d0; win_index = '0; win_data = '0;"));
    for k in 0..ni {
        g.line(format!(
            "  {}if (in{k}_valid) begin prio[{k}] = 1'b1; win_index = {xw}'({k}); {}end",
            if k > 0 { "else " } else { "" },
            if w > 0 {
                format!("win_data = in{k}; ")
            } else {
                String::new()
            }
        ));
    }
    g.line("end");
    g.line("wire t_valid = skid_full | (|prio);");
    g.line(format!(
        "wire [{}:0] t_index = skid_full ? skid_index : win_index;",
        xw - 1
    ));
    g.line(format!(
        "wire [{}:0] t_data = skid_full ? skid_data : win_data;",
        dw - 1
    ));
    g.line("assign outs_valid = t_valid & !emitted_0;");
    g.line("assign index_valid = t_valid & !emitted_1;");
    if w > 0 {
        g.line("assign outs = t_data;");
    }
    if iw > 0 {
        g.line("assign index = t_index;");
    }
    g.line("wire done0 = (outs_valid & outs_ready) | emitted_0;");
    g.line("wire done1 = (index_valid & index_ready) | emitted_1;");
    g.line("wire all_done = t_valid & done0 & done1;");
    for k in 0..ni {
        g.line(format!("assign in{k}_ready = !skid_full & prio[{k}];"));
    }
    g.line("always_ff @(posedge clock) begin");
    g.line("  if (reset) begin");
    g.line("    skid_full <= 1'b0; skid_index <= '0; skid_data <= '0;");
    g.line("    emitted_0 <= 1'b0; emitted_1 <= 1'b0;");
    g.line("  end else begin");
    g.line("    emitted_0 <= t_valid & done0 & !all_done;");
    g.line("    emitted_1 <= t_valid & done1 & !all_done;");
    g.line("    skid_full <= t_valid & !all_done;");
    g.line("    if (t_valid & !all_done) begin skid_index <= t_index; skid_data <= t_data; end");
    g.line("  end");
    g.line("end");
    let ins: Vec<u32> = vec![w; ni];
    Ok(format!(
        "hs_dyn_control_merge_i{}_o{}",
        sig(&ins),
        sig(&[w, iw])
    ))
}

/// Dynamatic's eager `select` on data of width `w`: `condition` (1 bit), `trueValue`,
/// `falseValue` onto `result`, with an antitoken register per data input (`antitoken_0` for
/// `trueValue`, `antitoken_1` for `falseValue`).
pub(super) fn select(g: &mut Gen, w: u32) -> String {
    g.line("logic antitoken_0, antitoken_1;");
    g.line("wire chosen_valid = condition ? trueValue_valid : falseValue_valid;");
    g.line("assign result_valid = condition_valid & chosen_valid & !(antitoken_0 | antitoken_1);");
    if w > 0 {
        g.line("assign result = condition ? trueValue : falseValue;");
    }
    g.line("wire fire = result_valid & result_ready;");
    g.line("wire kill_0 = (!trueValue_valid & fire) | antitoken_0;");
    g.line("wire kill_1 = (!falseValue_valid & fire) | antitoken_1;");
    g.line("assign condition_ready = !condition_valid | fire;");
    g.line("assign trueValue_ready = !trueValue_valid | fire | kill_0;");
    g.line("assign falseValue_ready = !falseValue_valid | fire | kill_1;");
    g.line("always_ff @(posedge clock) begin");
    g.line("  if (reset) begin");
    g.line("    antitoken_0 <= 1'b0; antitoken_1 <= 1'b0;");
    g.line("  end else begin");
    g.line("    antitoken_0 <= !trueValue_valid & kill_0;");
    g.line("    antitoken_1 <= !falseValue_valid & kill_1;");
    g.line("  end");
    g.line("end");
    format!("hs_dyn_select_i1_{w}_{w}_o{w}")
}

/// One `ONE_SLOT_BREAK_R` path of a `load` from `input` to `output` (width `w`), its
/// registers `<prefix>_count`, `<prefix>_head` (always 0) and `<prefix>_entry0`.
fn skid_path(g: &mut Gen, prefix: &str, input: &str, output: &str, w: u32) {
    let dw = w.max(1);
    g.line(format!("logic [31:0] {prefix}_count;"));
    g.line(format!("logic [31:0] {prefix}_head;"));
    g.line(format!("logic [{}:0] {prefix}_entry0;", dw - 1));
    g.line(format!("wire {prefix}_full = {prefix}_count != 32'd0;"));
    g.line(format!(
        "assign {output}_valid = {prefix}_full | {input}_valid;"
    ));
    if w > 0 {
        g.line(format!(
            "assign {output} = {prefix}_full ? {prefix}_entry0 : {input};"
        ));
    }
    g.line(format!("assign {input}_ready = !{prefix}_full;"));
    let ind = if w > 0 { input } else { "1'b0" };
    g.line("always_ff @(posedge clock) begin");
    g.line("  if (reset) begin");
    g.line(format!(
        "    {prefix}_count <= '0; {prefix}_head <= '0; {prefix}_entry0 <= '0;"
    ));
    g.line("  end else begin");
    g.line(format!(
        "    if ({prefix}_full & {output}_ready) {prefix}_count <= 32'd0;"
    ));
    g.line(format!(
        "    else if (!{prefix}_full & {input}_valid & !{output}_ready) begin {prefix}_count <= 32'd1; {prefix}_entry0 <= {ind}; end"
    ));
    g.line("  end");
    g.line("end");
}

/// Dynamatic's `load`: a skid buffer on the address (`addrIn` to `addrOut`, width `aw`) and
/// one on the data (`dataFromMem` to `dataOut`, width `dw`).
pub(super) fn load(g: &mut Gen, aw: u32, dw: u32) -> String {
    skid_path(g, "addr", "addrIn", "addrOut", aw);
    skid_path(g, "data", "dataFromMem", "dataOut", dw);
    format!("hs_dyn_load_i{aw}_{dw}_o{aw}_{dw}")
}

/// Dynamatic's `store`: wires from `addrIn`/`dataIn` to `addrOut`/`dataToMem`.
pub(super) fn store(g: &mut Gen, aw: u32, dw: u32) -> String {
    for (i, o, w) in [("addrIn", "addrOut", aw), ("dataIn", "dataToMem", dw)] {
        g.line(format!("assign {o}_valid = {i}_valid;"));
        if w > 0 {
            g.line(format!("assign {o} = {i};"));
        }
        g.line(format!("assign {i}_ready = {o}_ready;"));
    }
    format!("hs_dyn_store_i{aw}_{dw}_o{aw}_{dw}")
}

/// Dynamatic's memory controller (`docs/semantics.md` "Memory") with `ctrl` block controls,
/// `ld` load ports and `st` store ports on a memory of `size` elements of `ew` bits, which
/// sits outside the module behind one read port (`ld0_addr` out, `ld0_data` in, read in the
/// same cycle) and one write port (`st0_addr`, `st0_data`, `st0_en`, written at the edge),
/// the interface of an external memory. `ins`/`outs` are the port widths in the spec's
/// order. The registers are the state words of its layout: `start_taken`, `end_valid`,
/// `ctrl_end_ready`, `remaining_stores` and each load port's `ld<i>_out_valid`/`_out_data`.
pub(super) fn mem_controller(
    g: &mut Gen,
    ex: &mut super::InstanceExtras,
    (ctrl, ld, st): (usize, usize, usize),
    (size, ew): (u64, u32),
    ins: &[u32],
    outs: &[u32],
) -> Result<String, String> {
    if size == 0 || size > (1 << 32) {
        return Err("memory size must be between 1 and 2^32 elements".into());
    }
    if ew == 0 || ew > 64 {
        return Err("memory elements must have 1 to 64 bits".into());
    }
    let ab = super::addr_bits(size).max(1);
    let am = super::addr_bits(size);
    let addr = |e: &str, w: u32| -> String {
        if am == 0 || w == 0 {
            format!("{ab}'d0")
        } else {
            super::resize(e, w, am, false)
        }
    };
    array_ports(g, ex, ab, ew);
    g.line("logic start_taken, end_valid, ctrl_end_ready;");
    g.line("logic [31:0] remaining_stores;");
    // Fixed-priority arbiters: the lowest load port with a valid address and a ready data
    // output; the lowest store port with a valid address and data.
    for (i, &ow) in outs.iter().enumerate().take(ld) {
        let dw = ow.max(1);
        g.line(format!("logic ld{i}_out_valid;"));
        g.line(format!("logic [{}:0] ld{i}_out_data;", dw - 1));
        g.line(format!(
            "wire ld{i}_req = ldAddr{i}_valid & ldData{i}_ready;"
        ));
        let lower: Vec<String> = (0..i).map(|k| format!(" & !ld{k}_req")).collect();
        g.line(format!("wire ld{i}_grant = ld{i}_req{};", lower.concat()));
        g.line(format!("assign ldAddr{i}_ready = ld{i}_grant;"));
        g.line(format!("assign ldData{i}_valid = ld{i}_out_valid;"));
        if ow > 0 {
            g.line(format!("assign ldData{i} = ld{i}_out_data;"));
        }
    }
    for j in 0..st {
        g.line(format!(
            "wire st{j}_req = stAddr{j}_valid & stData{j}_valid;"
        ));
        let lower: Vec<String> = (0..j).map(|k| format!(" & !st{k}_req")).collect();
        g.line(format!("wire st{j}_grant = st{j}_req{};", lower.concat()));
        g.line(format!("assign stAddr{j}_ready = st{j}_grant;"));
        g.line(format!("assign stData{j}_ready = st{j}_grant;"));
    }
    let any = |p: &str, n: usize| -> String {
        if n == 0 {
            "1'b0".into()
        } else {
            (0..n)
                .map(|k| format!("{p}{k}_grant"))
                .collect::<Vec<_>>()
                .join(" | ")
        }
    };
    g.line(format!("wire any_ld = {};", any("ld", ld)));
    g.line(format!("wire any_st = {};", any("st", st)));
    // The granted addresses and data (0 when none).
    let mux = |parts: Vec<String>, w: u32| -> String {
        if parts.is_empty() {
            format!("{w}'d0")
        } else {
            parts.join(" | ")
        }
    };
    let ld_a: Vec<String> = (0..ld)
        .map(|i| {
            let a = addr(&format!("ldAddr{i}"), ins[1 + ctrl + i]);
            format!("({{{ab}{{ld{i}_grant}}}} & {a})")
        })
        .collect();
    g.line(format!("assign ld0_addr = {};", mux(ld_a, ab)));
    let st_a: Vec<String> = (0..st)
        .map(|j| {
            let a = addr(&format!("stAddr{j}"), ins[1 + ctrl + ld + 2 * j]);
            format!("({{{ab}{{st{j}_grant}}}} & {a})")
        })
        .collect();
    g.line(format!("assign st0_addr = {};", mux(st_a, ab)));
    let st_d: Vec<String> = (0..st)
        .map(|j| {
            let dwi = ins[1 + ctrl + ld + 2 * j + 1];
            let d = if dwi == 0 {
                format!("{ew}'d0")
            } else {
                super::resize(&format!("stData{j}"), dwi, ew, false)
            };
            format!("({{{ew}{{st{j}_grant}}}} & {d})")
        })
        .collect();
    g.line(format!("assign st0_data = {};", mux(st_d, ew)));
    g.line("assign st0_en = any_st & !reset;");
    // A load and a store to one address in one cycle: the load reads the stored value (the
    // engine writes before it reads, like the testbench's RAM it models).
    read_word(g, "any_st", size, ew);
    for k in 0..ctrl {
        g.line(format!("assign ctrl{k}_ready = 1'b1;"));
    }
    g.line("assign memStart_ready = !start_taken;");
    g.line("assign ctrlEnd_ready = ctrl_end_ready;");
    g.line("assign memEnd_valid = end_valid;");
    let counts: Vec<String> = (0..ctrl)
        .map(|k| {
            let cw = ins[1 + k];
            let v = if cw == 0 {
                "32'd0".to_string()
            } else {
                super::resize(&format!("ctrl{k}"), cw, 32, false)
            };
            format!(" + (ctrl{k}_valid ? {v} : 32'd0)")
        })
        .collect();
    let counting: Vec<String> = (0..ctrl).map(|k| format!("ctrl{k}_valid")).collect();
    g.line(format!(
        "wire counting = {};",
        if counting.is_empty() {
            "1'b0".into()
        } else {
            counting.join(" | ")
        }
    ));
    g.line("wire done = remaining_stores == 32'd0 && !counting;");
    g.line("always_ff @(posedge clock) begin");
    g.line("  if (reset) begin");
    g.line("    start_taken <= 1'b0; end_valid <= 1'b0; ctrl_end_ready <= 1'b0;");
    g.line("    remaining_stores <= 32'd0;");
    for i in 0..ld {
        g.line(format!(
            "    ld{i}_out_valid <= 1'b0; ld{i}_out_data <= '0;"
        ));
    }
    g.line("  end else begin");
    for (i, &dw) in outs.iter().enumerate().take(ld) {
        let v = if dw == 0 {
            "'0".to_string()
        } else {
            super::resize("rd", ew, dw, false)
        };
        g.line(format!(
            "    if (ld{i}_grant) begin ld{i}_out_valid <= 1'b1; ld{i}_out_data <= {v}; end"
        ));
        g.line(format!(
            "    else if (ldData{i}_ready) ld{i}_out_valid <= 1'b0;"
        ));
    }
    g.line(format!(
        "    remaining_stores <= remaining_stores{} - {{31'd0, any_st}};",
        counts.concat()
    ));
    // memEnd once ctrlEnd is offered with nothing pending; ctrlEnd is taken the cycle after.
    g.line("    if (end_valid && memEnd_ready) begin start_taken <= 1'b0; end_valid <= 1'b0; end");
    g.line("    else begin");
    g.line("      if (ctrlEnd_valid && done) end_valid <= 1'b1;");
    g.line("      if (memStart_valid && !start_taken) start_taken <= 1'b1;");
    g.line("    end");
    g.line("    if (ctrlEnd_valid && ctrl_end_ready) ctrl_end_ready <= 1'b0;");
    g.line("    else if (ctrlEnd_valid && done) ctrl_end_ready <= 1'b1;");
    g.line("  end");
    g.line("end");
    Ok(format!(
        "hs_dyn_mem_controller_c{ctrl}_l{ld}_s{st}_n{size}_e{ew}_i{}_o{}",
        super::sig(ins),
        super::sig(outs)
    ))
}

/// The ports to an array outside the module (one read port, read in the same cycle, and one
/// write port), as the testbench's RAM serves them: `ab` address bits, `ew`-bit words.
fn array_ports(g: &mut Gen, ex: &mut super::InstanceExtras, ab: u32, ew: u32) {
    ex.mem_ports.push(("ld0_addr".into(), true, ab));
    ex.mem_ports.push(("ld0_data".into(), false, ew));
    ex.mem_ports.push(("st0_addr".into(), true, ab));
    ex.mem_ports.push(("st0_data".into(), true, ew));
    ex.mem_ports.push(("st0_en".into(), true, 1));
    g.ports
        .push(format!("output logic [{}:0] ld0_addr", ab - 1));
    g.ports.push(format!("input [{}:0] ld0_data", ew - 1));
    g.ports
        .push(format!("output logic [{}:0] st0_addr", ab - 1));
    g.ports
        .push(format!("output logic [{}:0] st0_data", ew - 1));
    g.ports.push("output logic st0_en".into());
}

/// `rd`, the word a read gets: the stored value when `writing` writes the address read in
/// the same cycle (the testbench's RAM), 0 past the array's `size` words.
fn read_word(g: &mut Gen, writing: &str, size: u64, ew: u32) {
    let ab = super::addr_bits(size).max(1);
    let in_range = |e: &str| format!("({{{}'d0, {e}}} < 65'd{size})", 65 - ab);
    g.line(format!(
        "wire [{}:0] rd = ({writing} && st0_addr == ld0_addr && {}) ? st0_data : ({} ? ld0_data : {ew}'d0);",
        ew - 1,
        in_range("st0_addr"),
        in_range("ld0_addr")
    ));
}

/// The shape of a load-store queue's module: its groups and depths, its array (master) and
/// its port widths.
pub(super) struct LsqModule<'a> {
    /// Groups and depths.
    pub shape: &'a handscope_sim::LsqShape,
    /// Master: the array's elements and element width.
    pub array: Option<(u64, u32)>,
    /// Input and output widths, in the simulator's port order.
    pub ins: &'a [u32],
    /// Output widths.
    pub outs: &'a [u32],
}

/// Dynamatic's load-store queue (`docs/semantics.md`, "The load-store queue"): the engine's
/// registers under their trace names, every output and ready from them, the rest at the
/// clock edge. A master reaches its array through one read port (read in the cycle the load
/// issues, the word kept in `read_data`) and one write port.
pub(super) fn lsq(
    g: &mut Gen,
    ex: &mut super::InstanceExtras,
    m: &LsqModule<'_>,
) -> Result<String, String> {
    let shape = m.shape;
    let (nl, ns) = (shape.load_depth as usize, shape.store_depth as usize);
    if nl == 0 || ns == 0 || nl > 64 || ns > 64 {
        return Err("a load-store queue needs 1 to 64 entries per queue".into());
    }
    let groups = shape.groups.len();
    let (pl, ps) = (shape.load_ports() as usize, shape.store_ports() as usize);
    let master = m.array.is_some();
    let first = usize::from(master);
    let ins = m.ins;
    let outs = m.outs;
    // Address and data widths: the widest address port, the element.
    let aw = (0..pl)
        .map(|p| ins[first + groups + p])
        .chain((0..ps).map(|q| ins[first + groups + pl + 2 * q]))
        .max()
        .unwrap_or(1)
        .max(1);
    let dw = match m.array {
        Some((_, ew)) => ew,
        None => (0..ps)
            .map(|q| ins[first + groups + pl + 2 * q + 1])
            .chain(outs.iter().take(pl).copied())
            .max()
            .unwrap_or(1),
    }
    .max(1);
    let ext = |e: &str, w: u32, to: u32| -> String {
        if w == 0 {
            format!("{to}'d0")
        } else {
            super::resize(e, w, to, false)
        }
    };
    g.line(format!("localparam int NL = {nl};"));
    g.line(format!("localparam int NS = {ns};"));
    // Registers, named as the engine's state words.
    g.line("logic [31:0] ldq_tail, ldq_head, stq_tail, stq_head, stq_issue, read_id;");
    g.line("logic mem_start_taken, mem_end_valid, end_ctrl_ready, read_valid, write_ack;");
    g.line(format!("logic [{}:0] read_data;", dw - 1));
    for i in 0..nl {
        g.line(format!(
            "logic ldq{i}_alloc, ldq{i}_issued, ldq{i}_addr_valid, ldq{i}_data_valid;"
        ));
        g.line(format!("logic [{}:0] ldq{i}_addr;", aw - 1));
        g.line(format!("logic [{}:0] ldq{i}_data;", dw - 1));
        g.line(format!("logic [31:0] ldq{i}_port;"));
        g.line(format!("logic [{}:0] ldq{i}_older_stores;", ns - 1));
    }
    for j in 0..ns {
        g.line(format!(
            "logic stq{j}_alloc, stq{j}_addr_valid, stq{j}_data_valid;"
        ));
        g.line(format!("logic [{}:0] stq{j}_addr;", aw - 1));
        g.line(format!("logic [{}:0] stq{j}_data;", dw - 1));
        g.line(format!("logic [31:0] stq{j}_port;"));
    }
    // The registers as arrays.
    g.line("logic [NL-1:0] al, isd, avl, dvl;");
    g.line(format!("logic [{}:0] adl [NL];", aw - 1));
    g.line(format!("logic [{}:0] dtl [NL];", dw - 1));
    g.line("logic [31:0] ptl [NL];");
    g.line("logic [NS-1:0] old [NL];");
    g.line("logic [NS-1:0] as_, avs, dvs;");
    g.line(format!("logic [{}:0] ads [NS];", aw - 1));
    g.line(format!("logic [{}:0] dts [NS];", dw - 1));
    g.line("logic [31:0] pts [NS];");
    g.line("always_comb begin");
    for i in 0..nl {
        g.line(format!(
            "  al[{i}] = ldq{i}_alloc; isd[{i}] = ldq{i}_issued; avl[{i}] = ldq{i}_addr_valid; dvl[{i}] = ldq{i}_data_valid;"
        ));
        g.line(format!(
            "  adl[{i}] = ldq{i}_addr; dtl[{i}] = ldq{i}_data; ptl[{i}] = ldq{i}_port; old[{i}] = ldq{i}_older_stores;"
        ));
    }
    for j in 0..ns {
        g.line(format!(
            "  as_[{j}] = stq{j}_alloc; avs[{j}] = stq{j}_addr_valid; dvs[{j}] = stq{j}_data_valid;"
        ));
        g.line(format!(
            "  ads[{j}] = stq{j}_addr; dts[{j}] = stq{j}_data; pts[{j}] = stq{j}_port;"
        ));
    }
    g.line("end");
    // Free entries and the groups' readies.
    g.line("wire l_empty = al == '0;");
    g.line("wire s_empty = !as_[stq_head];");
    g.line("wire [31:0] free_l = l_empty ? NL : (ldq_head + NL - ldq_tail) % NL;");
    g.line("wire [31:0] free_s = s_empty ? NS : (stq_head + NS - stq_tail) % NS;");
    for k in 0..groups {
        g.line(format!(
            "assign ctrl{k}_ready = free_l >= 32'd{} && free_s >= 32'd{};",
            shape.loads(k),
            shape.stores(k)
        ));
    }
    // Conflicts, issue, forwarding, store issue, load ports.
    g.line("logic [NS-1:0] cf [NL];");
    g.line("logic [NL-1:0] pend, can, byp, leave;");
    g.line(format!("logic [{}:0] byd [NL];", dw - 1));
    g.line("logic load_en, store_en, blocked;");
    g.line("logic [31:0] sel, si, jj, ii;");
    g.line(format!(
        "logic [{}:0] st_addr_x, st_data_x;",
        aw.max(dw) - 1
    ));
    g.line("always_comb begin");
    g.line("  for (int i = 0; i < NL; i++) begin");
    g.line("    for (int j = 0; j < NS; j++)");
    g.line("      cf[i][j] = as_[j] && old[i][j] && (!avs[j] || ads[j] == adl[i]);");
    g.line("    pend[i] = al[i] && !isd[i] && avl[i];");
    g.line("    can[i] = pend[i] && cf[i] == '0;");
    g.line("  end");
    g.line("  load_en = 1'b0; sel = 32'd0;");
    g.line("  for (int k = 0; k < NL; k++) begin");
    g.line("    ii = (ldq_head + k) % NL;");
    g.line("    if (!load_en && can[ii]) begin load_en = 1'b1; sel = ii; end");
    g.line("  end");
    // Forwarding: the youngest conflicting older store, if it has the address and the data.
    g.line("  for (int i = 0; i < NL; i++) begin");
    g.line("    byp[i] = 1'b0; byd[i] = '0; blocked = 1'b0;");
    g.line("    for (int k = 0; k < NS; k++) begin");
    g.line("      jj = (stq_tail + 2 * NS - 1 - k) % NS;");
    g.line("      if (pend[i] && !blocked && cf[i][jj]) begin");
    g.line("        blocked = 1'b1;");
    g.line("        if (avs[jj] && dvs[jj] && ads[jj] == adl[i]) begin byp[i] = 1'b1; byd[i] = dts[jj]; end");
    g.line("      end");
    g.line("    end");
    g.line("  end");
    g.line("  si = stq_issue; blocked = 1'b0;");
    g.line("  for (int i = 0; i < NL; i++)");
    g.line("    if (al[i] && !old[i][si] && (!avl[i] || adl[i] == ads[si])) blocked = 1'b1;");
    g.line("  store_en = as_[si] && avs[si] && dvs[si] && !blocked;");
    g.line("end");
    // Load data out: each port's oldest allocated entry.
    for (p, &ow) in outs.iter().enumerate().take(pl) {
        g.line(format!("logic [31:0] oldest{p}; logic has{p};"));
        g.line("always_comb begin");
        g.line(format!("  has{p} = 1'b0; oldest{p} = 32'd0;"));
        g.line("  for (int k = 0; k < NL; k++) begin");
        g.line(format!(
            "    if (!has{p} && al[(ldq_head + k) % NL] && ptl[(ldq_head + k) % NL] == 32'd{p}) begin has{p} = 1'b1; oldest{p} = (ldq_head + k) % NL; end"
        ));
        g.line("  end");
        g.line("end");
        g.line(format!(
            "assign ldData{p}_valid = has{p} && dvl[oldest{p}];"
        ));
        // 0 while the port has no entry, as the engine drives it.
        if ow > 0 {
            g.line(format!(
                "assign ldData{p} = has{p} ? {} : '0;",
                ext(&format!("dtl[oldest{p}]"), dw, ow)
            ));
        }
        // An address port is ready while an entry of its port waits for an address.
        g.line(format!("logic wait_ld{p};"));
        g.line("always_comb begin");
        g.line(format!("  wait_ld{p} = 1'b0;"));
        g.line(format!(
            "  for (int i = 0; i < NL; i++) if (al[i] && !avl[i] && ptl[i] == 32'd{p}) wait_ld{p} = 1'b1;"
        ));
        g.line("end");
        g.line(format!("assign ldAddr{p}_ready = wait_ld{p};"));
    }
    g.line("always_comb begin");
    g.line("  leave = '0;");
    for p in 0..pl {
        g.line(format!(
            "  if (has{p} && dvl[oldest{p}] && ldData{p}_ready) leave[oldest{p}] = 1'b1;"
        ));
    }
    g.line("end");
    for q in 0..ps {
        for (what, flag) in [("Addr", "avs"), ("Data", "dvs")] {
            g.line(format!("logic wait_st{what}{q};"));
            g.line("always_comb begin");
            g.line(format!("  wait_st{what}{q} = 1'b0;"));
            g.line(format!(
                "  for (int j = 0; j < NS; j++) if (as_[j] && !{flag}[j] && pts[j] == 32'd{q}) wait_st{what}{q} = 1'b1;"
            ));
            g.line("end");
            g.line(format!("assign st{what}{q}_ready = wait_st{what}{q};"));
        }
    }
    // The memory side.
    let (read_ready, write_ready, answer_v, answer_d) = match m.array {
        Some((size, ew)) => {
            if size == 0 || size > (1 << 32) {
                return Err("memory size must be between 1 and 2^32 elements".into());
            }
            let ab = super::addr_bits(size).max(1);
            let am = super::addr_bits(size);
            array_ports(g, ex, ab, ew);
            let cut = |e: &str| {
                if am == 0 {
                    format!("{ab}'d0")
                } else {
                    super::resize(e, aw, am, false)
                }
            };
            g.line(format!("assign ld0_addr = {};", cut("adl[sel]")));
            g.line(format!("assign st0_addr = {};", cut("ads[si]")));
            g.line("assign st0_data = dts[si];");
            g.line("assign st0_en = store_en & !reset;");
            read_word(g, "store_en", size, ew);
            g.line("assign memStart_ready = !mem_start_taken;");
            g.line("assign ctrlEnd_ready = end_ctrl_ready;");
            g.line("assign memEnd_valid = mem_end_valid;");
            (
                "1'b1".to_string(),
                "1'b1".to_string(),
                "read_valid".to_string(),
                "read_data".to_string(),
            )
        }
        None => {
            // Slave: requests to the memory controller, the answer from it.
            g.line("assign ldAddrToMC_valid = load_en;");
            if outs[pl] > 0 {
                g.line(format!(
                    "assign ldAddrToMC = load_en ? {} : '0;",
                    ext("adl[sel]", aw, outs[pl])
                ));
            }
            g.line("assign stAddrToMC_valid = store_en;");
            g.line("assign stDataToMC_valid = store_en;");
            if outs[pl + 1] > 0 {
                g.line(format!(
                    "assign stAddrToMC = {};",
                    ext("ads[si]", aw, outs[pl + 1])
                ));
            }
            if outs[pl + 2] > 0 {
                g.line(format!(
                    "assign stDataToMC = {};",
                    ext("dts[si]", dw, outs[pl + 2])
                ));
            }
            let (v, d) = if pl > 0 {
                g.line("assign ldDataFromMC_ready = 1'b1;");
                let w = ins[ins.len() - 1];
                ("ldDataFromMC_valid".to_string(), ext("ldDataFromMC", w, dw))
            } else {
                ("1'b0".to_string(), format!("{dw}'d0"))
            };
            (
                "ldAddrToMC_ready".to_string(),
                "(stAddrToMC_ready & stDataToMC_ready)".to_string(),
                v,
                d,
            )
        }
    };
    // Group allocation: every group whose control transfers (their counts, ports and
    // orders OR-ed together, as Dynamatic's RTL does).
    g.line("logic [31:0] n_ld, n_st;");
    g.line("logic [31:0] new_ld_port [NL];");
    g.line("logic [31:0] new_ld_order [NL];");
    g.line("logic [31:0] new_st_port [NS];");
    g.line("always_comb begin");
    g.line("  n_ld = 32'd0; n_st = 32'd0;");
    g.line(
        "  for (int k = 0; k < NL; k++) begin new_ld_port[k] = 32'd0; new_ld_order[k] = 32'd0; end",
    );
    g.line("  for (int k = 0; k < NS; k++) new_st_port[k] = 32'd0;");
    for k in 0..groups {
        let (l0, s0) = shape.first_ports(k);
        let order = shape.load_order(k);
        g.line(format!("  if (ctrl{k}_valid && ctrl{k}_ready) begin"));
        g.line(format!(
            "    n_ld = n_ld | 32'd{}; n_st = n_st | 32'd{};",
            shape.loads(k),
            shape.stores(k)
        ));
        for (x, o) in order.iter().enumerate().take(nl) {
            g.line(format!(
                "    new_ld_port[{x}] = new_ld_port[{x}] | 32'd{}; new_ld_order[{x}] = new_ld_order[{x}] | 32'd{o};",
                l0 + x
            ));
        }
        for y in 0..shape.stores(k).min(ns) {
            g.line(format!(
                "    new_st_port[{y}] = new_st_port[{y}] | 32'd{};",
                s0 + y
            ));
        }
        g.line("  end");
    }
    g.line("  if (n_ld > NL) n_ld = NL;");
    g.line("  if (n_st > NS) n_st = NS;");
    g.line("end");
    // Addresses and data arriving: each port fills its oldest entry waiting for one.
    g.line("logic [NL-1:0] ld_in;");
    g.line(format!("logic [{}:0] ld_in_addr [NL];", aw - 1));
    g.line("logic [NS-1:0] sa_in, sd_in;");
    g.line(format!("logic [{}:0] sa_in_addr [NS];", aw - 1));
    g.line(format!("logic [{}:0] sd_in_data [NS];", dw - 1));
    g.line("logic taken;");
    g.line("always_comb begin");
    g.line("  ld_in = '0; sa_in = '0; sd_in = '0;");
    g.line("  for (int i = 0; i < NL; i++) ld_in_addr[i] = '0;");
    g.line("  for (int j = 0; j < NS; j++) begin sa_in_addr[j] = '0; sd_in_data[j] = '0; end");
    for p in 0..pl {
        let a = ext(&format!("ldAddr{p}"), ins[first + groups + p], aw);
        g.line("  taken = 1'b0;");
        g.line("  for (int k = 0; k < NL; k++) begin");
        g.line("    ii = (ldq_head + k) % NL;");
        g.line(format!(
            "    if (ldAddr{p}_valid && !taken && al[ii] && !avl[ii] && ptl[ii] == 32'd{p}) begin taken = 1'b1; ld_in[ii] = 1'b1; ld_in_addr[ii] = {a}; end"
        ));
        g.line("  end");
    }
    for q in 0..ps {
        let ai = first + groups + pl + 2 * q;
        let a = ext(&format!("stAddr{q}"), ins[ai], aw);
        let d = ext(&format!("stData{q}"), ins[ai + 1], dw);
        for (what, flag, mask, dst, val) in [
            ("Addr", "avs", "sa_in", "sa_in_addr", a),
            ("Data", "dvs", "sd_in", "sd_in_data", d),
        ] {
            g.line("  taken = 1'b0;");
            g.line("  for (int k = 0; k < NS; k++) begin");
            g.line("    jj = (stq_head + k) % NS;");
            g.line(format!(
                "    if (st{what}{q}_valid && !taken && as_[jj] && !{flag}[jj] && pts[jj] == 32'd{q}) begin taken = 1'b1; {mask}[jj] = 1'b1; {dst}[jj] = {val}; end"
            ));
            g.line("  end");
        }
    }
    g.line("end");
    // The new load head: the oldest entry that stays, scanning from the old tail.
    g.line("logic [31:0] new_head; logic stays;");
    g.line("always_comb begin");
    g.line("  stays = 1'b0; new_head = ldq_tail;");
    g.line("  for (int k = 0; k < NL; k++) begin");
    g.line("    ii = (ldq_tail + k) % NL;");
    g.line("    if (!stays && al[ii] && !leave[ii]) begin stays = 1'b1; new_head = ii; end");
    g.line("  end");
    g.line("end");
    g.line(format!("wire read_ready = {read_ready};"));
    g.line(format!("wire write_ready = {write_ready};"));
    g.line(format!("wire answer = {answer_v};"));
    g.line(format!("wire [{}:0] answer_data = {answer_d};", dw - 1));
    g.line("wire [NS-1:0] freed = write_ack ? (NS'(1) << stq_head) : '0;");
    if master {
        let once = if shape.end_once {
            " && !(end_ctrl_ready || mem_end_valid)"
        } else {
            ""
        };
        g.line(format!("wire ctrlEnd_valid_m = ctrlEnd_valid{once};"));
        g.line("wire end_taken = mem_end_valid && memEnd_ready;");
    } else {
        g.line("wire ctrlEnd_valid_m = 1'b0;");
    }
    g.line("wire t_end = ctrlEnd_valid_m && l_empty && s_empty;");
    g.line("always_ff @(posedge clock) begin");
    g.line("  if (reset) begin");
    g.line("    ldq_tail <= 32'd0; ldq_head <= 32'd0; stq_tail <= 32'd0; stq_head <= 32'd0; stq_issue <= 32'd0;");
    g.line("    read_id <= 32'd0; read_data <= '0; read_valid <= 1'b0; write_ack <= 1'b0;");
    g.line("    mem_start_taken <= 1'b0; mem_end_valid <= 1'b0; end_ctrl_ready <= 1'b0;");
    for i in 0..nl {
        g.line(format!(
            "    ldq{i}_alloc <= 1'b0; ldq{i}_issued <= 1'b0; ldq{i}_addr_valid <= 1'b0; ldq{i}_data_valid <= 1'b0; ldq{i}_addr <= '0; ldq{i}_data <= '0; ldq{i}_port <= 32'd0; ldq{i}_older_stores <= '0;"
        ));
    }
    for j in 0..ns {
        g.line(format!(
            "    stq{j}_alloc <= 1'b0; stq{j}_addr_valid <= 1'b0; stq{j}_data_valid <= 1'b0; stq{j}_addr <= '0; stq{j}_data <= '0; stq{j}_port <= 32'd0;"
        ));
    }
    g.line("  end else begin");
    for i in 0..nl {
        g.line(format!(
            "    if ((32'd{i} + NL - ldq_tail) % NL < n_ld) begin"
        ));
        g.line(format!(
            "      ldq{i}_alloc <= 1'b1; ldq{i}_issued <= 1'b0; ldq{i}_addr_valid <= 1'b0; ldq{i}_data_valid <= 1'b0;"
        ));
        g.line(format!(
            "      ldq{i}_port <= new_ld_port[(32'd{i} + NL - ldq_tail) % NL];"
        ));
        g.line("      for (int j = 0; j < NS; j++)");
        g.line(format!(
            "        ldq{i}_older_stores[j] <= !freed[j] && (as_[j] || ((j + NS - stq_tail) % NS < n_st && (j + NS - stq_tail) % NS < new_ld_order[(32'd{i} + NL - ldq_tail) % NL]));"
        ));
        g.line("    end else begin");
        g.line(format!("      ldq{i}_alloc <= al[{i}] && !leave[{i}];"));
        g.line(format!(
            "      ldq{i}_issued <= isd[{i}] || (load_en && sel == 32'd{i} && read_ready) || byp[{i}];"
        ));
        g.line(format!(
            "      if (ld_in[{i}]) begin ldq{i}_addr_valid <= 1'b1; ldq{i}_addr <= ld_in_addr[{i}]; end"
        ));
        g.line(format!(
            "      if (answer && read_id == 32'd{i}) begin ldq{i}_data_valid <= 1'b1; ldq{i}_data <= answer_data; end"
        ));
        g.line(format!(
            "      else if (byp[{i}]) begin ldq{i}_data_valid <= 1'b1; ldq{i}_data <= byd[{i}]; end"
        ));
        g.line(format!("      ldq{i}_older_stores <= old[{i}] & ~freed;"));
        g.line("    end");
    }
    for j in 0..ns {
        g.line(format!(
            "    if ((32'd{j} + NS - stq_tail) % NS < n_st) begin"
        ));
        g.line(format!(
            "      stq{j}_alloc <= 1'b1; stq{j}_addr_valid <= 1'b0; stq{j}_data_valid <= 1'b0;"
        ));
        g.line(format!(
            "      stq{j}_port <= new_st_port[(32'd{j} + NS - stq_tail) % NS];"
        ));
        g.line("    end else begin");
        g.line(format!("      if (freed[{j}]) stq{j}_alloc <= 1'b0;"));
        g.line(format!(
            "      if (sa_in[{j}]) begin stq{j}_addr_valid <= 1'b1; stq{j}_addr <= sa_in_addr[{j}]; end"
        ));
        g.line(format!(
            "      if (sd_in[{j}]) begin stq{j}_data_valid <= 1'b1; stq{j}_data <= sd_in_data[{j}]; end"
        ));
        g.line("    end");
    }
    g.line("    ldq_tail <= (ldq_tail + n_ld) % NL;");
    g.line("    ldq_head <= new_head;");
    g.line("    stq_tail <= (stq_tail + n_st) % NS;");
    g.line("    stq_head <= (stq_head + {31'd0, write_ack}) % NS;");
    g.line("    stq_issue <= (stq_issue + {31'd0, store_en && write_ready}) % NS;");
    g.line("    if (load_en) read_id <= sel;");
    g.line("    read_valid <= load_en && read_ready;");
    if master {
        g.line("    if (load_en) read_data <= rd;");
    }
    g.line("    write_ack <= store_en;");
    if master {
        let keep = if shape.end_once {
            "mem_end_valid && !end_taken"
        } else {
            "mem_end_valid"
        };
        g.line("    mem_start_taken <= !(end_taken || (!mem_start_taken && !memStart_valid));");
        g.line(format!("    mem_end_valid <= ({keep}) || t_end;"));
        g.line(
            "    end_ctrl_ready <= (t_end || end_ctrl_ready) && !(ctrlEnd_valid && end_ctrl_ready);",
        );
    }
    g.line("  end");
    g.line("end");
    let groups_text: String = shape
        .groups_text()
        .chars()
        .map(|c| if c == ',' { '_' } else { c })
        .collect();
    Ok(format!(
        "hs_dyn_lsq_{}_g{groups_text}_l{nl}_s{ns}{}_a{}_i{}_o{}",
        if master { "m" } else { "s" },
        if shape.end_once { "_once" } else { "" },
        m.array.map_or(0, |a| a.0),
        sig(ins),
        sig(outs)
    ))
}
