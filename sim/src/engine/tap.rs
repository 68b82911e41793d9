//! Streaming a run's signals out cycle by cycle, without recording a trace: what a waveform
//! written while simulating needs (constant memory, one pass).
//!
//! Each cycle's *signal words* have the order and meaning of a [`Trace`](crate::trace::Trace)'s
//! signals: per channel `i`, word `i` is `valid | ready << 1` and word `C + i` the data the
//! channel last held while valid; then the state words (registers before the cycle's clock
//! edge). A replay of a recorded trace and a tapped run give the same words.

use crate::trace::{ChannelMeta, Layout, StateMeta};

/// What a [`Simulation::run_tapped`](super::Simulation::run_tapped) hands its sink each
/// cycle, and the names and types that describe those words.
#[derive(Clone, Debug)]
pub struct SignalTap {
    pub(super) layout: Layout,
    pub(super) held: Vec<u64>,
    pub(super) words: Vec<u64>,
    /// The registers at the start of the cycle (before its clock edge).
    pub(super) regs: Vec<u64>,
}

impl SignalTap {
    pub(super) fn new(layout: Layout) -> Self {
        let nc = layout.nc();
        let n = layout.n_words;
        SignalTap {
            layout,
            held: vec![0; nc],
            words: vec![0; n],
            regs: Vec::new(),
        }
    }

    /// The channels, in signal order.
    pub fn channels(&self) -> &[ChannelMeta] {
        &self.layout.channels
    }

    /// The nodes with state words and the names of their words, in signal order.
    pub fn state_meta(&self) -> &[StateMeta] {
        &self.layout.state
    }

    /// Fills the words of the cycle just settled.
    pub(super) fn capture(&mut self, valid: &[bool], ready: &[bool], data: &[u64]) {
        let nc = self.layout.nc();
        for ((h, &v), &d) in self.held.iter_mut().zip(valid).zip(data) {
            if v {
                *h = d;
            }
        }
        let w = &mut self.words;
        for ((x, &v), &r) in w[..nc].iter_mut().zip(valid).zip(ready) {
            *x = u64::from(v) | u64::from(r) << 1;
        }
        w[nc..2 * nc].copy_from_slice(&self.held);
        let n = (w.len() - 2 * nc).min(self.regs.len());
        w[2 * nc..2 * nc + n].copy_from_slice(&self.regs[..n]);
        self.layout.resolve_aliases(w, |_, _| {});
    }
}
