//! Buffer insertion.
//!
//! Every inserted buffer is `buffer [1] seq` (no initial values): one slot, which in CIRCT's
//! RTL holds up to two tokens, adds one cycle of latency, passes one token per cycle and
//! cuts every combinational path (valid/data forward and ready backward).
//!
//! * [`BufferPolicy::None`]: no buffers. Loops then form combinational cycles (`verify`
//!   reports them); such graphs are for inspection only.
//! * [`BufferPolicy::Cycles`] (default): one buffer on every channel that closes a CFG back
//!   edge (the inputs of a loop header's `control_merge`/`mux`es coming from the loop's
//!   latches). Every cycle of the graph follows a CFG cycle and thus crosses a back edge, so
//!   no combinational cycle remains; the function lock and the loop-priming select already
//!   hold a buffer.
//! * [`BufferPolicy::All`]: additionally a buffer on every other channel, except the
//!   channels into a `memory`/`extmemory` (a store's address and data must reach the memory
//!   in the same cycle) and channels that already start or end at a buffer.

use handscope_sim::{BufferKind, ChannelId, Function, Op};

use super::build::Built;

/// Where [`super::compile_to_handshake`] inserts buffers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BufferPolicy {
    /// No buffers.
    None,
    /// One buffer per CFG back-edge channel (breaks every combinational cycle).
    #[default]
    Cycles,
    /// A buffer on (nearly) every channel.
    All,
}

fn buffer_op() -> Op {
    Op::Buffer {
        slots: 1,
        kind: BufferKind::Seq,
        init: None,
    }
}

/// Puts a buffer on every back-edge input recorded by the builder.
pub(crate) fn buffer_back_edges(b: &mut Built) {
    for &(node, at) in &b.back_edges {
        let g = &mut b.g;
        if g.nodes[node].dead {
            continue;
        }
        let src = g.nodes[node].ins[at];
        let ty = g.ty(src);
        let (block, span) = (g.nodes[node].block.clone(), g.nodes[node].span);
        let buf = g.add(buffer_op(), vec![src], vec![ty], block.as_deref(), span);
        g.nodes[node].ins[at] = super::hgraph::Port::new(buf, 0);
    }
}

/// Puts a buffer on every channel of a materialized function (see [`BufferPolicy::All`]).
/// New buffers take the block and location of their consumer.
pub(crate) fn buffer_all(f: &mut Function) {
    let chans: Vec<ChannelId> = f.channels.keys().collect();
    for c in chans {
        let ch = &f.channels[c];
        let [consumer] = ch.consumers[..] else {
            continue;
        };
        let producer = &f.nodes[ch.producer.node].op;
        let cons = &f.nodes[consumer.node];
        if matches!(producer, Op::Buffer { .. })
            || matches!(
                cons.op,
                Op::Buffer { .. } | Op::Memory { .. } | Op::ExtMemory { .. }
            )
        {
            continue;
        }
        let (ty, block, loc) = (ch.ty.clone(), cons.block.clone(), cons.loc.clone());
        let buf = f.add_node(buffer_op(), vec![ty]);
        f.nodes[buf].block = block;
        f.nodes[buf].loc = loc;
        let out = f.nodes[buf].outputs[0];
        f.replace_input(consumer.node, consumer.port as usize, out);
        f.set_inputs(buf, vec![c]);
    }
}

/// Adds the slots that keep `profile`'s latencies from throttling `f`
/// ([`handscope_sim::throughput::balance`]); new buffers (`buffer [k] fifo`) get the block and
/// location of the channel's producer and a fresh `<block>.buffer<k>` ID from the caller.
pub(crate) fn balance_latencies(
    f: &mut Function,
    profile: &handscope_sim::spec::timing::TimingProfile,
) -> Result<(), String> {
    use handscope_sim::throughput::{balance, tune};
    let changes = balance::balance(f, profile, balance::BalanceOptions::default());
    if changes.is_empty() {
        return Ok(());
    }
    let before: std::collections::HashSet<String> =
        f.nodes.values().map(|n| n.id.clone()).collect();
    let mut g = tune::apply(f, &changes).map_err(|e| e.to_string())?;
    for (_, n) in g.nodes.iter_mut() {
        if !before.contains(&n.id) {
            n.name_hint = handscope_sim::NameHint::Counter;
        }
    }
    *f = g;
    Ok(())
}
