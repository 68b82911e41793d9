//! Syntax eras: which Dynamatic printed a file, decided from the forms it uses.

use std::fmt;

use super::reader::Reader;
use crate::mlir::Span;

/// The textual syntax generations of Dynamatic's handshake dialect (the 2024 builtin-type
/// syntax before them is not accepted).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Era {
    /// 2024-07 .. 2025-02: `mux %s [..] : <i1>, <T>`, two-type `load`/`store`,
    /// buffers with `hw.parameters = {NUM_SLOTS, TIMING}`.
    E2,
    /// 2025-02 .. 2025-07: `mux %s [..] : <i1>, [..] to <T>`, four-type `load`/`store`,
    /// buffers with `hw.parameters` (with or without `BUFFER_TYPE`).
    E3,
    /// 2025-07 .. 2026-04: `buffer %x, bufferType = K, numSlots = N`.
    E4,
    /// 2026-04 on: `dvLatency = L`, `latency = N : i64` attributes, `noti`.
    E5,
}

impl fmt::Display for Era {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            Era::E2 => "E2",
            Era::E3 => "E3",
            Era::E4 => "E4",
            Era::E5 => "E5",
        };
        f.write_str(s)
    }
}

/// A form that only some eras print.
#[derive(Clone, Debug)]
pub(crate) struct EraMark {
    /// The earliest era that prints it.
    pub(crate) min: Era,
    /// The latest era that prints it.
    pub(crate) max: Era,
    /// The form, in words.
    pub(crate) what: &'static str,
    /// Where it is written.
    pub(crate) span: Span,
}

impl Reader<'_> {
    /// Records that the form `what` at `span` is printed by eras `min..=max`.
    pub(crate) fn mark(&mut self, min: Era, max: Era, what: &'static str, span: Span) {
        // One mark per form and era range is enough to decide and to explain.
        if self
            .marks
            .iter()
            .any(|m| m.what == what && m.min == min && m.max == max)
        {
            return;
        }
        self.marks.push(EraMark {
            min,
            max,
            what,
            span,
        });
    }

    /// The era of the file and why; warns when forms of incompatible eras are mixed.
    pub(crate) fn decide_era(&mut self) -> (Era, String) {
        let Some(top) = self.marks.iter().max_by_key(|m| m.min).cloned() else {
            return (
                Era::E4,
                "no era-specific form (no buffer, mux, control_merge, load or store); \
                 assumed E4, the syntax of most published kernels"
                    .to_string(),
            );
        };
        let (l, c) = self.p.line_col(top.span.start);
        let reason = format!("{} at {l}:{c} is printed from {} on", top.what, top.min);
        if let Some(old) = self.marks.iter().find(|m| m.max < top.min).cloned() {
            let (ol, oc) = self.p.line_col(old.span.start);
            self.p.warn(
                old.span,
                format!(
                    "mixed syntax eras: {} (printed until {}) at {ol}:{oc}, but {} ({} on) at {l}:{c}",
                    old.what, old.max, top.what, top.min
                ),
            );
        }
        (top.min, reason)
    }
}
