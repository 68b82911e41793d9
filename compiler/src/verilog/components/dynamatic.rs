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
    let in_range = |e: &str| format!("({{{}'d0, {e}}} < 65'd{size})", 65 - ab);
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
    g.line(format!(
        "wire [{}:0] rd = (any_st && st0_addr == ld0_addr && {}) ? st0_data : ({} ? ld0_data : {ew}'d0);",
        ew - 1,
        in_range("st0_addr"),
        in_range("ld0_addr")
    ));
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
