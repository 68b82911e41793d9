//! A yardstick for the engine benchmark: [`chain`](super::chain)`(n)` simulated by code
//! written by hand for that one graph, the code a per-graph compiler would emit for it at
//! best in the engine's representation.
//!
//! The engine evaluates every component's equations every cycle on per-channel signals
//! (`valid`/`ready`, which the run statistics count, and data words) and per-component
//! registers (a buffer slot is `[valid, data, skid_valid, skid_data]`). This module does the
//! same work with nothing generic left: no instruction lists, no operand tables, no dispatch,
//! one loop over the stages per pass with each stage's state in one record, the argument and
//! the result handled inline. It computes the same equations (`docs/semantics.md`: eager
//! fork, `sync`, buffer slots; a slot's clock edge and `in.ready` are the engine's own
//! functions), counts every channel with the engine's own counters (`engine::counters`), and
//! gives the engine's tokens and transfers (checked by the tests).
//! `handscope bench engine` times it next to the engine and the Verilator model: its ratio
//! to Verilator shows what an evaluator of this kind reaches on the chains.

use crate::engine::counters::Counters;
use crate::engine::{slot_ready, slot_step};
use crate::ops::Op;
use crate::report::TokenChecksum;
use crate::spec::slot_regs;

/// Words of one buffer slot, as the engine's register file holds them
/// (`crate::spec::slot_regs`: valid, data, skid valid, skid data); its clock edge and
/// `in.ready` are the engine's own (`engine::slot_step`, `engine::slot_ready`).
const SLOT: usize = slot_regs::WORDS as usize;

/// The output valid and data of the slot at `r` in `words`.
#[inline(always)]
fn slot_output(words: &[u64], r: usize) -> (u8, u64) {
    let skid = words[r + slot_regs::SKID_VALID as usize];
    let valid = (words[r + slot_regs::VALID as usize] | skid) != 0;
    let data = if skid != 0 {
        words[r + slot_regs::SKID_DATA as usize]
    } else {
        words[r + slot_regs::DATA as usize]
    };
    (u8::from(valid), data)
}

/// An eager fork's clock edge over two outputs (`valid`, `ready` of each, emitted
/// registers): returns whether every output is done (the input's `ready`).
#[inline(always)]
fn fork_edge(emitted: &mut [u64; 2], valid: [u8; 2], ready: [u8; 2]) -> u8 {
    let d0 = u64::from(valid[0] & ready[0]) | emitted[0];
    let d1 = u64::from(valid[1] & ready[1]) | emitted[1];
    let all = d0 & d1;
    *emitted = [d0 & (all ^ 1), d1 & (all ^ 1)];
    all as u8
}

/// One stage: fork, two-slot buffer on its out0, one-slot buffer on its out1, sync, sink.
#[derive(Clone, Copy, Default)]
struct Stage {
    fork_emitted: [u64; 2],
    sync_emitted: [u64; 2],
    seq: [u64; 2 * SLOT],
    fifo: [u64; SLOT],
    // This cycle's signals.
    in_data: u64,
    in_ready: u8,
    fork_valid: [u8; 2],
    seq_in_ready: u8,
    fifo_in_ready: u8,
    seq_out: (u8, u64),
    fifo_out: (u8, u64),
    sync_valid: [u8; 2],
    sync_in_ready: u8,
    next_ready: u8,
}

/// What a run of [`run`] produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdealRun {
    /// Tokens the result `out0` gave.
    pub tokens: u64,
    /// Their checksum ([`TokenChecksum`], as the run report's).
    pub checksum: TokenChecksum,
    /// The last token: `(cycle, bits)`.
    pub last: Option<(u64, u64)>,
    /// Transfers per channel, in the order of [`channel_names`].
    pub fires: Vec<u64>,
}

/// The names of the channels [`IdealRun::fires`] counts, as [`super::chain`]`(n)` names
/// them: `in0`, then per stage the fork's two outputs, the two buffers' outputs and the
/// sync's two outputs.
pub fn channel_names(n: usize) -> Vec<String> {
    let f = super::chain(n);
    let arg = f.args[0].node.expect("in0 is a channel argument");
    let mut names = vec![f.channels[f.nodes[arg].outputs[0]].name.clone()];
    let nodes: Vec<_> = f
        .nodes
        .iter()
        .map(|(_, node)| node)
        .filter(|node| !matches!(node.op, Op::Argument { .. } | Op::Return))
        .collect();
    for stage in nodes.chunks(5).take(n) {
        let [fork, seq, fifo, sync, _sink] = stage else {
            unreachable!("five nodes per stage")
        };
        for c in [
            fork.outputs[0],
            fork.outputs[1],
            seq.outputs[0],
            fifo.outputs[0],
            sync.outputs[0],
            sync.outputs[1],
        ] {
            names.push(f.channels[c].name.clone());
        }
    }
    names
}

/// Simulates `cycles` cycles of `chain(n)` (`n` at least 1) under
/// [`super::chain_environment`]: `in0` offers 0, 1, 2, ... (32-bit data) and the result is
/// always ready.
pub fn run(n: usize, cycles: u64) -> IdealRun {
    assert!(n >= 1, "a chain has at least one stage");
    let mut stages = vec![Stage::default(); n];
    let channels = 1 + 6 * n;
    let mut valid = vec![false; channels];
    let mut ready = vec![false; channels];
    let mut counters = Counters::new(channels);
    let mut next_token: u64 = 0;
    let mut out = IdealRun {
        tokens: 0,
        checksum: TokenChecksum::default(),
        last: None,
        fires: Vec::new(),
    };
    for cycle in 0..cycles {
        // Forward: register outputs, then fork and sync valids in stage order.
        let (mut v, mut d) = (1u8, next_token & 0xffff_ffff);
        for s in &mut stages {
            s.seq_out = slot_output(&s.seq, SLOT);
            s.seq_in_ready = slot_ready(&s.seq, 0) as u8;
            s.fifo_out = slot_output(&s.fifo, 0);
            s.fifo_in_ready = slot_ready(&s.fifo, 0) as u8;
            s.in_data = d;
            s.fork_valid = [
                v & u8::from(s.fork_emitted[0] == 0),
                v & u8::from(s.fork_emitted[1] == 0),
            ];
            let joined = s.seq_out.0 & s.fifo_out.0;
            s.sync_valid = [
                joined & u8::from(s.sync_emitted[0] == 0),
                joined & u8::from(s.sync_emitted[1] == 0),
            ];
            (v, d) = (s.sync_valid[1], s.fifo_out.1);
        }
        // Backward, with the forks' and syncs' clock edges.
        let mut r = 1u8;
        for s in stages.iter_mut().rev() {
            s.next_ready = r;
            let joined = s.seq_out.0 & s.fifo_out.0;
            let all = fork_edge(&mut s.sync_emitted, s.sync_valid, [1, r]);
            s.sync_in_ready = joined & all;
            s.in_ready = fork_edge(
                &mut s.fork_emitted,
                s.fork_valid,
                [s.seq_in_ready, s.fifo_in_ready],
            );
            r = s.in_ready;
        }
        // The statistics: every channel's valid and ready, counted as the engine's monitor
        // counts them.
        valid[0] = true;
        ready[0] = stages[0].in_ready != 0;
        for (k, s) in stages.iter().enumerate() {
            let c = 1 + 6 * k;
            for (j, (v, r)) in [
                (s.fork_valid[0], s.seq_in_ready),
                (s.fork_valid[1], s.fifo_in_ready),
                (s.seq_out.0, s.sync_in_ready),
                (s.fifo_out.0, s.sync_in_ready),
                (s.sync_valid[0], 1),
                (s.sync_valid[1], s.next_ready),
            ]
            .into_iter()
            .enumerate()
            {
                valid[c + j] = v != 0;
                ready[c + j] = r != 0;
            }
        }
        counters.count(cycle, &valid, &ready);
        // Transfers on the argument and the result.
        next_token += u64::from(stages[0].in_ready);
        let last = &stages[n - 1];
        if last.sync_valid[1] != 0 {
            let bits = last.fifo_out.1;
            out.tokens += 1;
            out.checksum.add(bits);
            out.last = Some((cycle, bits));
        }
        // Clock edge of the buffers.
        for s in &mut stages {
            let out_ready = u64::from(s.sync_in_ready);
            let mid_ready = slot_ready(&s.seq, SLOT);
            let (v, d) = slot_step(
                &mut s.seq,
                0,
                u64::from(s.fork_valid[0]),
                s.in_data,
                mid_ready,
            );
            slot_step(&mut s.seq, SLOT, v, d, out_ready);
            slot_step(
                &mut s.fifo,
                0,
                u64::from(s.fork_valid[1]),
                s.in_data,
                out_ready,
            );
        }
    }
    out.fires = (0..channels).map(|i| counters.fires(i)).collect();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{EngineKind, Simulation};

    /// The yardstick computes what the engine computes: the same result tokens and the same
    /// transfers on every channel, with either engine, over runs that cross the counters'
    /// chunks (255 cycles) and start with empty buffers.
    #[test]
    fn gives_the_engines_tokens_and_statistics() {
        for (n, cycles) in [(1, 700), (3, 1000), (8, 2000)] {
            let ideal = run(n, cycles);
            assert!(
                ideal.tokens > cycles / 2,
                "chain({n}): {} tokens",
                ideal.tokens
            );
            for kind in [EngineKind::Interpreter, EngineKind::Compiled] {
                let f = crate::bench_support::chain(n);
                let mut sim = Simulation::new(&f, crate::bench_support::chain_environment())
                    .expect("the chain simulates");
                sim.set_engine(kind);
                let r = sim.run(cycles);
                assert_eq!(r.cycles, cycles);
                let summary = &r.output_summaries["out0"];
                assert_eq!(
                    (summary.count, summary.checksum),
                    (ideal.tokens, ideal.checksum),
                    "chain({n}) {kind:?}"
                );
                let last = r.outputs["out0"].last().map(|t| (t.cycle, t.bits));
                assert_eq!(last, ideal.last, "chain({n}) {kind:?}");
                let names = channel_names(n);
                assert_eq!(names.len(), ideal.fires.len());
                assert_eq!(names.len(), r.stats.len(), "every channel is counted");
                for (name, &fires) in names.iter().zip(&ideal.fires) {
                    assert_eq!(r.stats[name].fires, fires, "chain({n}) {kind:?} {name}");
                }
            }
        }
    }
}
