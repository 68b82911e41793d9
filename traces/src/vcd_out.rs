//! Writes a [`Trace`] as a standard VCD that GTKWave and Surfer open.
//!
//! Layout: one scope per node (nested along the `/` hierarchy of flattened IDs) holding, for
//! every output channel of the node, the signals `<port>` (data, left out for `none`),
//! `<port>_valid` and `<port>_ready`, plus the node's state words (`emitted_0`, `won`, ...;
//! characters other than letters, digits and `_` become `_`). Argument channels sit in the
//! top scope (`<name>`, `<name>_valid`, `<name>_ready`), like the top-level ports of CIRCT's
//! RTL, next to `clock` and `reset`.
//!
//! Time: 1 ns units, one cycle every 10 ns. Cycle `c`'s settled values appear at `10c` with
//! `clock` low, and `clock` rises at `10c + 5`, so sampling at rising edges gives one cycle per
//! edge. `reset` stays low: the trace starts right after reset.

use std::collections::BTreeMap;
use std::io::{self, Write};

use handscope_sim::trace::{Signal, Trace};
use vcd::{IdCode, TimescaleUnit, Value};

/// Nanoseconds per cycle.
pub const CYCLE_NS: u64 = 10;

#[derive(Default)]
struct Scope {
    vars: Vec<(String, u32, usize)>,
    children: BTreeMap<String, Scope>,
}

impl Scope {
    fn at(&mut self, path: &[&str]) -> &mut Scope {
        path.iter()
            .fold(self, |s, p| s.children.entry((*p).to_string()).or_default())
    }
}

/// A name as Handscope's VCD writer spells it: every character other than an ASCII letter,
/// digit or `_` becomes `_` (the replay's `handscope-vcd` naming scheme reads it back).
pub(crate) fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Splits a channel name `a/b/node.port` into its scope path and port; argument channels
/// (no `.`) belong to the top scope.
fn channel_place(name: &str) -> (Vec<&str>, &str) {
    match name.rsplit_once('.') {
        Some((node, port)) => (node.split('/').collect(), port),
        None => (Vec::new(), name),
    }
}

/// Writes `trace` as VCD text into `out`.
pub fn write_vcd(trace: &Trace, out: impl Write) -> io::Result<()> {
    let nc = trace.channels().len();
    // Signal slots: for channel i, valid = 3i, ready = 3i + 1, data = 3i + 2; state words follow.
    let mut widths: Vec<u32> = Vec::new();
    let mut top = Scope::default();
    for (i, ch) in trace.channels().iter().enumerate() {
        let (path, port) = channel_place(&ch.name);
        let port = sanitize(port);
        let scope = top.at(&path);
        let w = ch.ty.bit_width();
        if w > 0 {
            scope.vars.push((port.clone(), w, 3 * i + 2));
        }
        scope.vars.push((format!("{port}_valid"), 1, 3 * i));
        scope.vars.push((format!("{port}_ready"), 1, 3 * i + 1));
        widths.extend([1, 1, w]);
    }
    for meta in trace.state_meta() {
        let path: Vec<&str> = meta.node.split('/').collect();
        let scope = top.at(&path);
        for f in &meta.fields {
            scope.vars.push((sanitize(f), 64, widths.len()));
            widths.push(64);
        }
    }

    let mut w = vcd::Writer::new(out);
    w.version(concat!("Handscope ", env!("CARGO_PKG_VERSION")))?;
    w.timescale(1, TimescaleUnit::NS)?;
    w.add_module("handscope")?;
    let clock = w.add_wire(1, "clock")?;
    let reset = w.add_wire(1, "reset")?;
    let mut ids: Vec<Option<IdCode>> = vec![None; widths.len()];
    declare(&mut w, &top, &mut ids)?;
    w.upscope()?;
    w.enddefinitions()?;

    let mut vals: Vec<u64> = vec![0; widths.len()];
    let mut replay = trace.replay();
    while let Some(cc) = replay.next_cycle() {
        let t = cc.cycle * CYCLE_NS;
        w.timestamp(t)?;
        w.change_scalar(clock, Value::V0)?;
        if cc.cycle == 0 {
            w.change_scalar(reset, Value::V0)?;
            for (slot, id) in ids.iter().enumerate() {
                if let Some(id) = id {
                    emit(&mut w, *id, widths[slot], 0)?;
                }
            }
        }
        for ch in cc.changes {
            let updates: [(usize, u64); 2] = match ch.signal {
                Signal::Ctrl(i) => [
                    (3 * i as usize, ch.value & 1),
                    (3 * i as usize + 1, ch.value >> 1 & 1),
                ],
                Signal::Data(i) => [(3 * i as usize + 2, ch.value), (usize::MAX, 0)],
                Signal::State(k) => [(3 * nc + k as usize, ch.value), (usize::MAX, 0)],
            };
            for (slot, v) in updates {
                if slot == usize::MAX || vals[slot] == v {
                    continue;
                }
                vals[slot] = v;
                if let Some(id) = ids[slot] {
                    emit(&mut w, id, widths[slot], v)?;
                }
            }
        }
        w.timestamp(t + CYCLE_NS / 2)?;
        w.change_scalar(clock, Value::V1)?;
    }
    w.timestamp(trace.cycles() * CYCLE_NS)?;
    w.change_scalar(clock, Value::V0)?;
    w.flush()
}

fn declare<W: Write>(
    w: &mut vcd::Writer<W>,
    scope: &Scope,
    ids: &mut [Option<IdCode>],
) -> io::Result<()> {
    for (name, width, slot) in &scope.vars {
        ids[*slot] = Some(w.add_wire(*width, name)?);
    }
    for (name, child) in &scope.children {
        w.add_module(&sanitize(name))?;
        declare(w, child, ids)?;
        w.upscope()?;
    }
    Ok(())
}

fn emit<W: Write>(w: &mut vcd::Writer<W>, id: IdCode, width: u32, v: u64) -> io::Result<()> {
    if width == 1 {
        w.change_scalar(id, if v & 1 == 1 { Value::V1 } else { Value::V0 })
    } else {
        w.change_vector(
            id,
            (0..width).rev().map(|b| {
                if v >> b & 1 == 1 {
                    Value::V1
                } else {
                    Value::V0
                }
            }),
        )
    }
}
