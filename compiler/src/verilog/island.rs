//! The SystemVerilog controller of a static island (`docs/static-islands.md`,
//! `docs/semantics.md` "Static islands"): one module per island, cycle for cycle the
//! engine's ([`handscope_sim::island::Island::cone`]).
//!
//! Per cone head `h` (block 0 and every back edge's target) the module has the cone's
//! blocks as combinational logic: an `active` signal per block (its head, or a taken edge
//! into it), its parameters multiplexed by the edge taken, its operations as instances of
//! the component library's `arith` modules (valid tied high: a static schedule has no
//! handshakes inside), loads and stores on the island's memory ports (a load after a store
//! of the same cone to the same address takes the stored value, as the engine's sequential
//! evaluation does), and the cycles the schedule spends on the path taken. The registers
//! are the engine's, by the same names (`phase`, `sched`, `iterations`, `elapsed`,
//! `cone_head`, `walked`, `emitted_<i>`, `result_<i>`, `slot_<k>`), so a waveform replays
//! onto the engine's trace state word for state word.
//!
//! Memory ports: per memory `k` of the island, as many load (store) ports as the cone with
//! the most loads (stores) of it has, named `m<k>_ld<j>_addr`/`_data` and
//! `m<k>_st<j>_addr`/`_data`/`_en`, with the external memory interface's timing (a load's
//! data combinational from its address, a store written at the clock edge).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use handscope_sim::Op;
use handscope_sim::island::{EdgeTarget, Island, IslandEdge, IslandExit, StepOp};

use super::components::{ComponentModule, Shape, component, literal};

/// Load and store ports of each of the island's memories: the most loads (stores) of the
/// memory one cone evaluates.
pub fn island_memory_ports(isl: &Island) -> Vec<(u32, u32)> {
    let mut ports = vec![(0u32, 0u32); isl.memories.len()];
    for cone in cones(isl) {
        let mut here = vec![(0u32, 0u32); isl.memories.len()];
        for &b in &cone.blocks {
            for st in &isl.blocks[b as usize].steps {
                match st.op {
                    StepOp::Load(m) => here[m as usize].0 += 1,
                    StepOp::Store(m) => here[m as usize].1 += 1,
                    _ => {}
                }
            }
        }
        for (p, h) in ports.iter_mut().zip(here) {
            p.0 = p.0.max(h.0);
            p.1 = p.1.max(h.1);
        }
    }
    ports
}

/// A store port's use by a cone: (cone head, address, data, enable).
type StoreUse = (u32, String, String, String);

/// An edge out of a cone: (its taken signal, its source block, the edge).
type ConeExit<'a> = (String, u32, &'a IslandEdge);

/// One cone: its head and its blocks in evaluation order (ascending: edges inside a cone
/// go forward).
struct Cone {
    head: u32,
    blocks: Vec<u32>,
}

fn cones(isl: &Island) -> Vec<Cone> {
    let heads = isl.cone_heads();
    (0..isl.blocks.len() as u32)
        .filter(|&h| heads[h as usize])
        .map(|h| {
            let mut seen = std::collections::BTreeSet::from([h]);
            let mut stack = vec![h];
            while let Some(b) = stack.pop() {
                for e in isl.blocks[b as usize].exit.edges() {
                    if let EdgeTarget::Block(t) = e.to
                        && !heads[t as usize]
                        && seen.insert(t)
                    {
                        stack.push(t);
                    }
                }
            }
            Cone {
                head: h,
                blocks: seen.into_iter().collect(),
            }
        })
        .collect()
}

/// The module of an island whose inputs and outputs have widths `ins` and `outs` and whose
/// memory `k` has `mems[k] = (address bits, element width)`; also the component modules
/// it instantiates.
pub fn island_module(
    isl: &Island,
    ins: &[u32],
    outs: &[u32],
    mems: &[(u32, u32)],
) -> Result<(ComponentModule, Vec<ComponentModule>), String> {
    isl.validate().map_err(|e| e.to_string())?;
    if ins.len() != isl.params as usize + 1 || outs.len() != isl.results() + 1 {
        return Err("an island's ports do not match its region".into());
    }
    if mems.len() != isl.memories.len() {
        return Err("an island's memories do not match its region".into());
    }
    let w = |s: u32| isl.slots[s as usize].bit_width();
    let rng = |w: u32| {
        if w <= 1 {
            String::new()
        } else {
            format!("[{}:0] ", w - 1)
        }
    };
    let nout = outs.len();
    let mem_ports = island_memory_ports(isl);
    let cones = cones(isl);
    let hb = 32 - (isl.blocks.len() as u32).leading_zeros().min(31);
    let mut ports: Vec<String> = vec!["input clock".into(), "input reset".into()];
    for (i, &iw) in ins.iter().enumerate() {
        if iw > 0 {
            ports.push(format!("input {}in{i}", rng(iw)));
        }
        ports.push(format!("input in{i}_valid"));
        ports.push(format!("output logic in{i}_ready"));
    }
    for (i, &ow) in outs.iter().enumerate() {
        if ow > 0 {
            ports.push(format!("output logic {}out{i}", rng(ow)));
        }
        ports.push(format!("output logic out{i}_valid"));
        ports.push(format!("input out{i}_ready"));
    }
    for (k, &(ld, st)) in mem_ports.iter().enumerate() {
        let (ab, ew) = mems[k];
        for j in 0..ld {
            ports.push(format!("output logic {}m{k}_ld{j}_addr", rng(ab)));
            ports.push(format!("input {}m{k}_ld{j}_data", rng(ew)));
        }
        for j in 0..st {
            ports.push(format!("output logic {}m{k}_st{j}_addr", rng(ab)));
            ports.push(format!("output logic {}m{k}_st{j}_data", rng(ew)));
            ports.push(format!("output logic m{k}_st{j}_en"));
        }
    }
    ports.push("output logic busy".into());

    let mut b = String::new();
    let mut subs: BTreeMap<String, ComponentModule> = BTreeMap::new();
    let line = |b: &mut String, s: String| {
        b.push_str("  ");
        b.push_str(&s);
        b.push('\n');
    };
    // Registers, named as the engine's fields.
    line(&mut b, "logic [1:0] phase;".into());
    for r in ["sched", "iterations", "elapsed"] {
        line(&mut b, format!("logic [63:0] {r};"));
    }
    line(&mut b, format!("logic [{}:0] cone_head;", hb.max(1) - 1));
    line(&mut b, "logic walked;".into());
    for i in 0..nout {
        line(&mut b, format!("logic emitted_{i};"));
    }
    for (i, &ow) in outs.iter().enumerate().skip(1) {
        line(&mut b, format!("logic {}result_{};", rng(ow), i - 1));
    }
    for k in 0..isl.slots.len() as u32 {
        line(&mut b, format!("logic {}slot_{k};", rng(w(k))));
    }
    // Handshakes at the border.
    let all_in: Vec<String> = (0..ins.len()).map(|i| format!("in{i}_valid")).collect();
    line(
        &mut b,
        format!("wire take = (phase == 2'd0) & {};", all_in.join(" & ")),
    );
    for i in 0..ins.len() {
        line(&mut b, format!("assign in{i}_ready = take;"));
    }
    line(
        &mut b,
        "wire go = take | ((phase == 2'd1) & ~walked);".into(),
    );
    line(
        &mut b,
        format!(
            "wire [{}:0] cur = (phase == 2'd0) ? '0 : cone_head;",
            hb.max(1) - 1
        ),
    );
    line(&mut b, "assign busy = (phase == 2'd1);".into());
    for (i, &ow) in outs.iter().enumerate() {
        line(
            &mut b,
            format!("assign out{i}_valid = (phase == 2'd2) & ~emitted_{i};"),
        );
        if i > 0 && ow > 0 {
            // The engine's: the result while offered, else 0.
            line(
                &mut b,
                format!("assign out{i} = out{i}_valid ? result_{} : '0;", i - 1),
            );
        }
    }

    // The cones.
    let v = |h: u32, s: u32| format!("c{h}_s{s}");
    // Per memory port: (cone, address expression, data expression or enable) to multiplex.
    let mut ld_uses: BTreeMap<(usize, u32), Vec<(u32, String)>> = BTreeMap::new();
    let mut st_uses: BTreeMap<(usize, u32), Vec<StoreUse>> = BTreeMap::new();
    // Per cone: its exits (edge-taken signal, edge).
    let mut exits: Vec<(u32, Vec<ConeExit<'_>>)> = Vec::new();
    let mut defined: Vec<Vec<(u32, u32)>> = Vec::new();
    for cone in &cones {
        let h = cone.head;
        let inside: std::collections::BTreeSet<u32> = cone.blocks.iter().copied().collect();
        let mut writes: Vec<(u32, u32)> = Vec::new();
        // Declarations: every slot the cone names.
        let mut named: std::collections::BTreeSet<u32> = std::collections::BTreeSet::new();
        for &bi in &cone.blocks {
            let blk = &isl.blocks[bi as usize];
            named.extend(blk.params.iter().copied());
            for st in &blk.steps {
                named.insert(st.result);
                named.extend(st.args.iter().copied());
            }
            for e in blk.exit.edges() {
                named.extend(e.args.iter().copied());
            }
            if let IslandExit::Branch { cond, .. } = blk.exit {
                named.insert(cond);
            }
        }
        for &s in &named {
            if w(s) > 0 {
                line(&mut b, format!("logic {}{};", rng(w(s)), v(h, s)));
            }
        }
        // In-cone edges into each block: (source block, edge index).
        let mut into: BTreeMap<u32, Vec<(u32, usize)>> = BTreeMap::new();
        let mut cone_exits = Vec::new();
        for &bi in &cone.blocks {
            let blk = &isl.blocks[bi as usize];
            line(&mut b, format!("logic c{h}_a{bi};"));
            line(&mut b, format!("logic [63:0] c{h}_t{bi};"));
            for (k, e) in blk.exit.edges().into_iter().enumerate() {
                line(&mut b, format!("logic c{h}_e{bi}_{k};"));
                match e.to {
                    EdgeTarget::Block(t) if inside.contains(&t) && t != h => {
                        into.entry(t).or_default().push((bi, k));
                    }
                    _ => cone_exits.push((format!("c{h}_e{bi}_{k}"), bi, e)),
                }
            }
        }
        // The cone's next load and store port per memory, and its stores so far (block,
        // index slot, value slot) for forwarding.
        let mut ld_next: BTreeMap<u32, u32> = BTreeMap::new();
        let mut st_next: BTreeMap<u32, u32> = BTreeMap::new();
        let mut stored: BTreeMap<u32, Vec<(u32, u32, u32)>> = BTreeMap::new();
        for &bi in &cone.blocks {
            let blk = &isl.blocks[bi as usize];
            if bi == h {
                line(&mut b, format!("assign c{h}_a{bi} = 1'b1;"));
                line(&mut b, format!("assign c{h}_t{bi} = 64'd0;"));
                for &p in &blk.params {
                    if w(p) == 0 {
                        continue;
                    }
                    if h == 0 {
                        line(
                            &mut b,
                            format!(
                                "assign {} = (phase == 2'd0) ? in{} : slot_{p};",
                                v(h, p),
                                p + 1
                            ),
                        );
                    } else {
                        line(&mut b, format!("assign {} = slot_{p};", v(h, p)));
                    }
                }
            } else {
                let ins_ = into.get(&bi).cloned().unwrap_or_default();
                let act: Vec<String> = ins_
                    .iter()
                    .map(|(src, k)| format!("c{h}_e{src}_{k}"))
                    .collect();
                line(
                    &mut b,
                    format!(
                        "assign c{h}_a{bi} = {};",
                        if act.is_empty() {
                            "1'b0".to_string()
                        } else {
                            act.join(" | ")
                        }
                    ),
                );
                // The path's cycles and the parameters, by the edge taken.
                let mut t = "64'd0".to_string();
                for (src, k) in ins_.iter().rev() {
                    let e = isl.blocks[*src as usize].exit.edges()[*k];
                    t = format!("c{h}_e{src}_{k} ? c{h}_t{src} + 64'd{} : {t}", e.cycles);
                }
                line(&mut b, format!("assign c{h}_t{bi} = {t};"));
                for (pi, &p) in blk.params.iter().enumerate() {
                    if w(p) == 0 {
                        continue;
                    }
                    let mut x = format!("{}'d0", w(p));
                    for (src, k) in ins_.iter().rev() {
                        let e = isl.blocks[*src as usize].exit.edges()[*k];
                        x = format!("c{h}_e{src}_{k} ? {} : {x}", sv_val(&v, h, e.args[pi], w));
                    }
                    line(&mut b, format!("assign {} = {x};", v(h, p)));
                    writes.push((bi, p));
                }
            }
            // Operations.
            for (si, st) in blk.steps.iter().enumerate() {
                let next_port = |ports: &mut BTreeMap<u32, u32>, m: u32| {
                    let c = ports.entry(m).or_insert(0);
                    *c += 1;
                    *c - 1
                };
                let r = st.result;
                writes.push((bi, r));
                match st.op {
                    StepOp::Const(c) => {
                        if w(r) > 0 {
                            line(
                                &mut b,
                                format!("assign {} = {};", v(h, r), literal(c, w(r))),
                            );
                        }
                    }
                    StepOp::Arith(a) => {
                        let shape_ins: Vec<u32> = st.args.iter().map(|&s| w(s)).collect();
                        let op = Op::Arith(a);
                        let (m, _) = component(&Shape {
                            op: &op,
                            ins: shape_ins.clone(),
                            outs: vec![w(r)],
                            island_ports: (0, 0),
                        })?;
                        let mut conns = Vec::new();
                        for (i, &s) in st.args.iter().enumerate() {
                            let pn = op.input_port_name(i);
                            if w(s) > 0 {
                                conns.push(format!(".{pn}({})", v(h, s)));
                            }
                            conns.push(format!(".{pn}_valid(1'b1)"));
                            conns.push(format!(".{pn}_ready()"));
                        }
                        let pn = op.output_port_name(0);
                        if w(r) > 0 {
                            conns.push(format!(".{pn}({})", v(h, r)));
                        }
                        conns.push(format!(".{pn}_valid()"));
                        conns.push(format!(".{pn}_ready(1'b1)"));
                        line(
                            &mut b,
                            format!("{} u_c{h}_b{bi}_{si} ({});", m.name, conns.join(", ")),
                        );
                        subs.entry(m.name.clone()).or_insert(m);
                    }
                    StepOp::Load(m) => {
                        let k = m as usize;
                        let (ab, ew) = mems[k];
                        let j = next_port(&mut ld_next, m);
                        let addr = fit(&v(h, st.args[0]), w(st.args[0]), ab);
                        ld_uses.entry((k, j)).or_default().push((h, addr.clone()));
                        // Forwarding from this cone's earlier stores of the memory.
                        let mut data = format!("m{k}_ld{j}_data");
                        for &(sb, sv_idx, sv_val_slot) in stored.get(&m).into_iter().flatten() {
                            let sa = fit(&v(h, sv_idx), w(sv_idx), ab);
                            let sd = fit_data(&v, h, sv_val_slot, w, ew);
                            data = format!("(c{h}_a{sb} & ({sa} == {addr})) ? {sd} : {data}");
                        }
                        if w(r) > 0 {
                            line(&mut b, format!("assign {} = {data};", v(h, r)));
                        }
                    }
                    StepOp::Store(m) => {
                        let k = m as usize;
                        let (ab, ew) = mems[k];
                        let j = next_port(&mut st_next, m);
                        stored
                            .entry(m)
                            .or_default()
                            .push((bi, st.args[0], st.args[1]));
                        let addr = fit(&v(h, st.args[0]), w(st.args[0]), ab);
                        let data = fit_data(&v, h, st.args[1], w, ew);
                        st_uses.entry((k, j)).or_default().push((
                            h,
                            addr,
                            data,
                            format!("c{h}_a{bi}"),
                        ));
                    }
                }
            }
            // Edges.
            match &blk.exit {
                IslandExit::Goto(_) => {
                    line(&mut b, format!("assign c{h}_e{bi}_0 = c{h}_a{bi};"));
                }
                IslandExit::Branch { cond, .. } => {
                    let c = sv_val(&v, h, *cond, w);
                    line(&mut b, format!("assign c{h}_e{bi}_0 = c{h}_a{bi} & {c};"));
                    line(&mut b, format!("assign c{h}_e{bi}_1 = c{h}_a{bi} & ~{c};"));
                }
            }
        }
        exits.push((h, cone_exits));
        defined.push(writes);
    }
    // Memory ports, multiplexed by the cone evaluated.
    for (k, &(ld, st)) in mem_ports.iter().enumerate() {
        for j in 0..ld {
            let mut a = "'0".to_string();
            for (h, addr) in ld_uses.get(&(k, j)).into_iter().flatten().rev() {
                a = format!("(cur == {h}) ? {addr} : {a}");
            }
            line(&mut b, format!("assign m{k}_ld{j}_addr = {a};"));
        }
        for j in 0..st {
            let uses = st_uses.get(&(k, j)).cloned().unwrap_or_default();
            let (mut a, mut d, mut en) = ("'0".to_string(), "'0".to_string(), "1'b0".to_string());
            for (h, addr, data, act) in uses.iter().rev() {
                a = format!("(cur == {h}) ? {addr} : {a}");
                d = format!("(cur == {h}) ? {data} : {d}");
                en = format!("((cur == {h}) & {act}) | {en}");
            }
            line(&mut b, format!("assign m{k}_st{j}_addr = {a};"));
            line(&mut b, format!("assign m{k}_st{j}_data = {d};"));
            line(&mut b, format!("assign m{k}_st{j}_en = go & ({en});"));
        }
    }
    // The cone's outcome: whether it leaves, its cycles, the next head.
    let mut left = "1'b0".to_string();
    let mut cyc = "64'd0".to_string();
    let mut next = "cone_head".to_string();
    let mut to_zero = "1'b0".to_string();
    for (h, ex) in exits.iter().rev() {
        for (sig, src, e) in ex.iter().rev() {
            let here = format!("(cur == {h}) & {sig}");
            cyc = format!("{here} ? c{h}_t{src} + 64'd{} : {cyc}", e.cycles);
            match e.to {
                EdgeTarget::Leave => left = format!("({here}) | {left}"),
                EdgeTarget::Block(t) => {
                    next = format!("{here} ? {}'d{t} : {next}", hb.max(1));
                    if t == 0 {
                        to_zero = format!("({here}) | {to_zero}");
                    }
                }
            }
        }
    }
    line(&mut b, format!("wire cone_left = {left};"));
    line(&mut b, format!("wire [63:0] cone_cycles = {cyc};"));
    line(
        &mut b,
        format!("wire [{}:0] cone_next = {next};", hb.max(1) - 1),
    );
    line(&mut b, format!("wire cone_first = {to_zero};"));
    line(
        &mut b,
        "wire [63:0] sched_n = go ? ((phase == 2'd0) ? 64'd0 : sched) + cone_cycles : sched;"
            .into(),
    );
    line(&mut b, "wire walked_n = go ? cone_left : walked;".into());
    line(
        &mut b,
        "wire [63:0] elapsed_n = (phase == 2'd0) ? 64'd1 : elapsed + 64'd1;".into(),
    );
    let taken: Vec<String> = (0..nout)
        .map(|i| format!("(emitted_{i} | out{i}_ready)"))
        .collect();
    line(&mut b, format!("wire all_out = {};", taken.join(" & ")));

    // The clock edge.
    let mut ff = String::new();
    let fl = |ff: &mut String, s: String| {
        let _ = writeln!(ff, "  {s}");
    };
    fl(&mut ff, "always_ff @(posedge clock) begin".into());
    fl(&mut ff, "  if (reset) begin".into());
    fl(
        &mut ff,
        "    phase <= 2'd0; sched <= '0; iterations <= '0; elapsed <= '0; cone_head <= '0; walked <= 1'b0;".into(),
    );
    for i in 0..nout {
        fl(&mut ff, format!("    emitted_{i} <= 1'b0;"));
    }
    for i in 1..nout {
        fl(&mut ff, format!("    result_{} <= '0;", i - 1));
    }
    for k in 0..isl.slots.len() {
        fl(&mut ff, format!("    slot_{k} <= '0;"));
    }
    fl(&mut ff, "  end else begin".into());
    fl(&mut ff, "    if (go) begin".into());
    fl(
        &mut ff,
        "      sched <= sched_n; walked <= cone_left;".into(),
    );
    fl(
        &mut ff,
        "      iterations <= ((phase == 2'd0) ? 64'd1 : iterations) + {63'd0, cone_first & ~cone_left};"
            .into(),
    );
    fl(
        &mut ff,
        "      if (~cone_left) cone_head <= cone_next; else if (phase == 2'd0) cone_head <= '0;"
            .into(),
    );
    // The slots the cone wrote (its active blocks' results and parameters), then the next
    // head's parameters and the results.
    for (ci, cone) in cones.iter().enumerate() {
        let h = cone.head;
        if h == 0 {
            // The inputs, when taken.
            for p in 0..isl.params {
                if w(p) > 0 {
                    fl(
                        &mut ff,
                        format!("      if (phase == 2'd0) slot_{p} <= in{};", p + 1),
                    );
                }
            }
        }
        for &(bi, s) in &defined[ci] {
            if w(s) > 0 {
                fl(
                    &mut ff,
                    format!(
                        "      if ((cur == {h}) & c{h}_a{bi}) slot_{s} <= {};",
                        v(h, s)
                    ),
                );
            }
        }
        for (sig, _, e) in &exits[ci].1 {
            match e.to {
                EdgeTarget::Block(t) => {
                    for (&p, &a) in isl.blocks[t as usize].params.iter().zip(&e.args) {
                        if w(p) > 0 {
                            fl(
                                &mut ff,
                                format!(
                                    "      if ((cur == {h}) & {sig}) slot_{p} <= {};",
                                    sv_val(&v, h, a, w)
                                ),
                            );
                        }
                    }
                }
                EdgeTarget::Leave => {
                    for (i, &a) in e.args.iter().enumerate() {
                        if w(a) > 0 {
                            fl(
                                &mut ff,
                                format!(
                                    "      if ((cur == {h}) & {sig}) result_{i} <= {};",
                                    sv_val(&v, h, a, w)
                                ),
                            );
                        }
                    }
                }
            }
        }
    }
    fl(&mut ff, "    end".into());
    fl(&mut ff, "    case (phase)".into());
    fl(
        &mut ff,
        "      2'd0: if (take) begin elapsed <= 64'd1; phase <= (walked_n & (64'd1 >= sched_n)) ? 2'd2 : 2'd1; end".into(),
    );
    fl(
        &mut ff,
        "      2'd1: begin elapsed <= elapsed_n; phase <= (walked_n & (elapsed_n >= sched_n)) ? 2'd2 : 2'd1; end".into(),
    );
    fl(&mut ff, "      default: begin".into());
    fl(&mut ff, "        elapsed <= elapsed + 64'd1;".into());
    fl(&mut ff, "        if (all_out) begin".into());
    fl(&mut ff, "          phase <= 2'd0;".into());
    for i in 0..nout {
        fl(&mut ff, format!("          emitted_{i} <= 1'b0;"));
    }
    fl(&mut ff, "        end else begin".into());
    for i in 0..nout {
        fl(
            &mut ff,
            format!("          if (out{i}_valid & out{i}_ready) emitted_{i} <= 1'b1;"),
        );
    }
    fl(&mut ff, "        end".into());
    fl(&mut ff, "      end".into());
    fl(&mut ff, "    endcase".into());
    fl(&mut ff, "  end".into());
    fl(&mut ff, "end".into());
    b.push_str(&ff);

    let sig: Vec<String> = ins
        .iter()
        .chain(outs)
        .chain(mems.iter().flat_map(|(a, e)| [a, e]))
        .map(u32::to_string)
        .collect();
    let name = format!(
        "hs_island_{:016x}",
        fnv(&format!("{isl:?}|{}", sig.join(",")))
    );
    let mut t = format!("module {name}(\n");
    let n = ports.len();
    for (i, p) in ports.iter().enumerate() {
        let _ = writeln!(t, "  {p}{}", if i + 1 < n { "," } else { "" });
    }
    t.push_str(");\n");
    t.push_str(&b);
    t.push_str("endmodule\n");
    Ok((
        ComponentModule { name, text: t },
        subs.into_values().collect(),
    ))
}

/// Slot `s` of cone `h` as a value (a `none` slot reads as `1'b0`).
fn sv_val(v: &dyn Fn(u32, u32) -> String, h: u32, s: u32, w: impl Fn(u32) -> u32) -> String {
    if w(s) == 0 { "1'b0".into() } else { v(h, s) }
}

/// `x` (`from` bits) as an address of `ab` bits: its low bits, or zero-extended.
fn fit(x: &str, from: u32, ab: u32) -> String {
    if from == 0 {
        format!("{ab}'d0")
    } else if from > ab {
        if ab == 1 {
            format!("{x}[0]")
        } else {
            format!("{x}[{}:0]", ab - 1)
        }
    } else if from < ab {
        format!("{{{}'d0, {x}}}", ab - from)
    } else {
        x.to_string()
    }
}

/// Slot `s` of cone `h` as an element of `ew` bits.
fn fit_data(
    v: &dyn Fn(u32, u32) -> String,
    h: u32,
    s: u32,
    w: impl Fn(u32) -> u32,
    ew: u32,
) -> String {
    fit(&v(h, s), w(s), ew)
}

/// FNV-1a of `s`: a stable name for an island's module.
fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}
