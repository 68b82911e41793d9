//! SystemVerilog of the address queue (`docs/semantics.md` "The address queue"), its
//! registers named as the engine's state words (`queued`, `st<j>_order_pending`,
//! `ld<i>_offered`, `q<k>_addr`, `q<k>_port`).

use super::Gen;

/// The address queue with `ld` load ports, `st` store ports and `depth` entries, addresses
/// of `aw` bits; returns the module name.
pub(super) fn addr_queue(g: &mut Gen, ld: usize, st: usize, depth: usize, aw: u32) -> String {
    let w = aw.max(1);
    let addr = |p: &str| {
        if aw == 0 {
            format!("1'b0 /* {p} */")
        } else {
            p.to_string()
        }
    };
    g.line(format!("localparam int D = {depth};"));
    g.line("logic [31:0] queued;");
    for j in 0..st {
        g.line(format!("logic st{j}_order_pending;"));
    }
    for i in 0..ld {
        g.line(format!("logic ld{i}_offered;"));
    }
    for k in 0..depth {
        g.line(format!("logic [{}:0] q{k}_addr;", w - 1));
        g.line(format!("logic [31:0] q{k}_port;"));
    }
    // A load passes while no queued store has its address; once offered, until taken.
    for i in 0..ld {
        let hits: Vec<String> = (0..depth)
            .map(|k| {
                format!(
                    "(queued > 32'd{k} && q{k}_addr == {})",
                    addr(&format!("ldAddr{i}"))
                )
            })
            .collect();
        g.line(format!("wire ld{i}_hit = {};", hits.join(" | ")));
        g.line(format!(
            "assign ldAddrOut{i}_valid = ldAddr{i}_valid & ldOrder{i}_valid & (ld{i}_offered | !ld{i}_hit);"
        ));
        if aw > 0 {
            g.line(format!("assign ldAddrOut{i} = ldAddr{i};"));
        }
        g.line(format!(
            "assign ldAddr{i}_ready = ldAddrOut{i}_valid & ldAddrOut{i}_ready;"
        ));
        g.line(format!(
            "assign ldOrder{i}_ready = ldAddrOut{i}_valid & ldAddrOut{i}_ready;"
        ));
    }
    // Stores enqueue in port order while there is room.
    g.line("wire [31:0] room = D - queued;");
    for j in 0..st {
        g.line(format!("assign stOrderOut{j}_valid = st{j}_order_pending;"));
        g.line(format!(
            "wire want{j} = stAddr{j}_valid & stOrder{j}_valid & (!st{j}_order_pending | stOrderOut{j}_ready);"
        ));
        let before: Vec<String> = (0..j).map(|k| format!("{{31'd0, enq{k}}}")).collect();
        g.line(format!(
            "wire [31:0] before{j} = 32'd0{};",
            before.iter().map(|b| format!(" + {b}")).collect::<String>()
        ));
        g.line(format!("wire enq{j} = want{j} & (before{j} < room);"));
        g.line(format!("assign stAddr{j}_ready = enq{j};"));
        g.line(format!("assign stOrder{j}_ready = enq{j};"));
        g.line(format!(
            "assign stDone{j}_ready = (queued != 32'd0) & (q0_port == 32'd{j});"
        ));
    }
    let dones: Vec<String> = (0..st)
        .map(|j| format!("(stDone{j}_valid & stDone{j}_ready)"))
        .collect();
    g.line(format!(
        "wire deq = {};",
        if dones.is_empty() {
            "1'b0".to_string()
        } else {
            dones.join(" | ")
        }
    ));
    g.line("wire [31:0] base = queued - {31'd0, deq};");
    let total: String = (0..st).map(|j| format!(" + {{31'd0, enq{j}}}")).collect();
    g.line("always_ff @(posedge clock) begin");
    g.line("  if (reset) begin");
    g.line("    queued <= '0;");
    for j in 0..st {
        g.line(format!("    st{j}_order_pending <= 1'b0;"));
    }
    for i in 0..ld {
        g.line(format!("    ld{i}_offered <= 1'b0;"));
    }
    for k in 0..depth {
        g.line(format!("    q{k}_addr <= '0; q{k}_port <= '0;"));
    }
    g.line("  end else begin");
    for k in 0..depth.saturating_sub(1) {
        g.line(format!(
            "    if (deq && 32'd{} < queued) begin q{k}_addr <= q{}_addr; q{k}_port <= q{}_port; end",
            k + 1,
            k + 1,
            k + 1
        ));
    }
    for j in 0..st {
        for k in 0..depth {
            g.line(format!(
                "    if (enq{j} && base + before{j} == 32'd{k}) begin q{k}_addr <= {}; q{k}_port <= 32'd{j}; end",
                if aw == 0 { "1'b0".to_string() } else { format!("stAddr{j}") }
            ));
        }
        g.line(format!(
            "    st{j}_order_pending <= enq{j} | (st{j}_order_pending & !stOrderOut{j}_ready);"
        ));
    }
    g.line(format!("    queued <= base{total};"));
    for i in 0..ld {
        g.line(format!(
            "    ld{i}_offered <= ldAddrOut{i}_valid & !ldAddrOut{i}_ready;"
        ));
    }
    g.line("  end");
    g.line("end");
    format!("hs_addr_queue_l{ld}_s{st}_d{depth}_a{aw}")
}
