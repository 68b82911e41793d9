//! Writes a run's signals as a standard VCD that GTKWave and Surfer open: from a recorded
//! [`Trace`] ([`write_vcd`]) or cycle by cycle while the engine runs ([`VcdWriter`] fed by
//! [`Simulation::run_tapped`](handscope_sim::engine::Simulation::run_tapped)), in constant
//! memory.
//!
//! Layout: one scope per node (nested along the `/` hierarchy of flattened IDs) holding, for
//! every output channel of the node, the signals `<port>` (data, left out for `none`),
//! `<port>_valid` and `<port>_ready`, plus the node's state words (`emitted_0`, `won`, ...;
//! characters other than letters, digits and `_` become `_`). Argument channels sit in the
//! top scope (`<name>`, `<name>_valid`, `<name>_ready`), like the top-level ports of CIRCT's
//! RTL, next to `clock` and `reset`.
//!
//! Widths: a data signal is as wide as its channel's type, also beyond 64 bits (an `i128`, a
//! `tuple` of 96 bits, up to [`MAX_DATA_WIDTH`](handscope_sim::types::MAX_DATA_WIDTH)): its
//! wide words (see [`handscope_sim::wide`]) are written as their full binary value. State
//! words are 64 bits, except the registers holding a token of a node wider than 64 bits (a
//! buffer slot's `data`, a pipeline stage's `data`), which are as wide as the node's output.
//!
//! Time: 1 ns units, one cycle every 10 ns. Cycle `c`'s settled values appear at `10c` with
//! `clock` low, and `clock` rises at `10c + 5`, so sampling at rising edges gives one cycle per
//! edge. `reset` stays low: the trace starts right after reset.
//!
//! The text is written by hand rather than through the `vcd` crate's writer: vectors go out
//! without leading zeros (`b101`, as the VCD standard allows) from a table of ready-made
//! identifier codes, which makes the file about a third of the size and the writer many times
//! faster (see the `waveform` benchmark).

use std::collections::BTreeMap;
use std::io::{self, Write};

use handscope_sim::spec::RegField;
use handscope_sim::trace::{ChannelMeta, Signal, StateMeta, Trace};
use handscope_sim::wide;

/// Nanoseconds per cycle.
pub const CYCLE_NS: u64 = 10;

/// A scope of the waveform hierarchy: its variables `(name, width, slot)` and sub-scopes.
#[derive(Default)]
pub(crate) struct Scope {
    pub(crate) vars: Vec<(String, u32, usize)>,
    pub(crate) children: BTreeMap<String, Scope>,
}

impl Scope {
    pub(crate) fn at(&mut self, path: &[&str]) -> &mut Scope {
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

/// The full hierarchical names of channel `name`'s signals in a VCD or FST Handscope writes,
/// as waveform viewers (Surfer's `add_variables`) spell them: `valid`, `ready`, then data
/// unless `has_data` is false (a `none` channel): `handscope.fork3.out1_valid`, ...
pub fn channel_signal_names(name: &str, has_data: bool) -> Vec<String> {
    let (path, port) = channel_place(name);
    let mut prefix = String::from("handscope.");
    for p in path {
        prefix.push_str(&sanitize(p));
        prefix.push('.');
    }
    let port = sanitize(port);
    let mut v = vec![
        format!("{prefix}{port}_valid"),
        format!("{prefix}{port}_ready"),
    ];
    if has_data {
        v.push(format!("{prefix}{port}"));
    }
    v
}

/// Splits a channel name `a/b/node.port` into its scope path and port; argument channels
/// (no `.`) belong to the top scope.
pub(crate) fn channel_place(name: &str) -> (Vec<&str>, &str) {
    match name.rsplit_once('.') {
        Some((node, port)) => (node.split('/').collect(), port),
        None => (Vec::new(), name),
    }
}

/// The VCD identifier code of variable `n`: base 94 over the printable characters `!`..`~`.
fn id_code(mut n: usize) -> Vec<u8> {
    let mut s = Vec::new();
    loop {
        s.push(b'!' + (n % 94) as u8);
        n /= 94;
        if n == 0 {
            return s;
        }
        n -= 1;
    }
}

/// A streaming VCD writer over a run's signal words (the order of a trace's signals: per
/// channel a control word `valid | ready << 1`, then per channel its data, then the state
/// words). Feed it every cycle in order with [`VcdWriter::cycle`] (the words and which of
/// them changed: a tap's [`TapCycle`](handscope_sim::engine::TapCycle)), then
/// [`VcdWriter::finish`].
pub struct VcdWriter<W: Write> {
    out: W,
    nc: usize,
    /// Per signal word: (identifier code, width) of the VCD variables it drives. Control
    /// words drive two (valid, ready); a data word of a `none` channel none.
    valid_ids: Vec<Vec<u8>>,
    ready_ids: Vec<Vec<u8>>,
    data_ids: Vec<Option<(Vec<u8>, u32)>>,
    state_ids: Vec<(Vec<u8>, u32)>,
    prev: Vec<u64>,
    started: bool,
    next_cycle: u64,
    buf: Vec<u8>,
}

impl<W: Write> VcdWriter<W> {
    /// Writes the header for these channels and state words. The data variable of a
    /// channel in `aliases` (`(alias, root)`: its data is always the root's, see
    /// [`Trace::data_aliases`]) is declared with its root's identifier code, as VCD allows
    /// for signals that are always equal: its values are written once, under the root.
    pub fn new(
        channels: &[ChannelMeta],
        state: &[StateMeta],
        aliases: &[(u32, u32)],
        mut out: W,
    ) -> io::Result<Self> {
        let nc = channels.len();
        let n_state: usize = state.iter().map(|s| s.fields.len()).sum();
        // The root whose code each channel's data variable takes (itself when none).
        let mut root: Vec<usize> = (0..nc).collect();
        for &(a, r) in aliases {
            let (a, r) = (a as usize, r as usize);
            if a < nc && r < nc && channels[a].ty.bit_width() == channels[r].ty.bit_width() {
                root[a] = r;
            }
        }
        // Variables 0 and 1 are clock and reset; slot `s` of the hierarchy is variable s + 2,
        // except an alias's data slot, which is its root's.
        let code = |slot: usize| {
            let slot = if slot < 3 * nc && slot % 3 == 2 {
                3 * root[slot / 3] + 2
            } else {
                slot
            };
            id_code(slot + 2)
        };
        let top = hierarchy(channels, state);
        let valid_ids = (0..nc).map(|i| code(3 * i)).collect();
        let ready_ids = (0..nc).map(|i| code(3 * i + 1)).collect();
        let data_ids = channels
            .iter()
            .enumerate()
            .map(|(i, ch)| {
                let w = ch.ty.bit_width();
                (w > 0 && root[i] == i).then(|| (code(3 * i + 2), w))
            })
            .collect();
        let state_ids = state_widths(channels, state)
            .into_iter()
            .enumerate()
            .map(|(k, w)| (code(3 * nc + k), w))
            .collect();
        let mut head = Vec::new();
        head.extend_from_slice(b"$version Handscope ");
        head.extend_from_slice(env!("CARGO_PKG_VERSION").as_bytes());
        head.extend_from_slice(b" $end\n$timescale 1ns $end\n$scope module handscope $end\n");
        head.extend_from_slice(b"$var wire 1 ! clock $end\n$var wire 1 \" reset $end\n");
        declare(&mut head, &top, &code);
        head.extend_from_slice(b"$upscope $end\n$enddefinitions $end\n");
        out.write_all(&head)?;
        Ok(VcdWriter {
            out,
            nc,
            valid_ids,
            ready_ids,
            data_ids,
            state_ids,
            prev: vec![0; 2 * nc + n_state],
            started: false,
            next_cycle: 0,
            buf: Vec::with_capacity(1 << 16),
        })
    }

    /// Writes cycle `cycle`'s signal words (cycles must come in order from 0); `changed`
    /// lists the indices of the words that may differ from the cycle before (the first
    /// cycle writes every word, whatever `changed` says). Work and output are per change.
    pub fn cycle(&mut self, cycle: u64, words: &[u64], changed: &[u32]) -> io::Result<()> {
        let t = cycle * CYCLE_NS;
        let b = &mut self.buf;
        b.push(b'#');
        push_dec(b, t);
        b.extend_from_slice(b"\n0!\n");
        let nc = self.nc;
        if !self.started {
            // Every variable's first value.
            b.extend_from_slice(b"0\"\n");
            for i in 0..nc {
                let c = words.get(i).copied().unwrap_or(0);
                scalar(b, c & 1, &self.valid_ids[i]);
                scalar(b, c >> 1 & 1, &self.ready_ids[i]);
                if let Some((id, w)) = &self.data_ids[i] {
                    value(b, words.get(nc + i).copied().unwrap_or(0), *w, id);
                }
            }
            for (k, (id, w)) in self.state_ids.iter().enumerate() {
                value(b, words.get(2 * nc + k).copied().unwrap_or(0), *w, id);
            }
            let n = self.prev.len().min(words.len());
            self.prev[..n].copy_from_slice(&words[..n]);
            self.started = true;
        } else {
            let n = self.prev.len().min(words.len());
            for &s in changed {
                let s = s as usize;
                if s >= n {
                    continue;
                }
                let (new, old) = (words[s], &mut self.prev[s]);
                if new == *old {
                    continue;
                }
                let diff = new ^ *old;
                *old = new;
                if s < nc {
                    if diff & 1 != 0 {
                        scalar(b, new & 1, &self.valid_ids[s]);
                    }
                    if diff & 2 != 0 {
                        scalar(b, new >> 1 & 1, &self.ready_ids[s]);
                    }
                } else if s < 2 * nc {
                    if let Some((id, w)) = &self.data_ids[s - nc] {
                        value(b, new, *w, id);
                    }
                } else {
                    let (id, w) = &self.state_ids[s - 2 * nc];
                    value(b, new, *w, id);
                }
            }
        }
        b.push(b'#');
        push_dec(b, t + CYCLE_NS / 2);
        b.extend_from_slice(b"\n1!\n");
        self.next_cycle = cycle + 1;
        if self.buf.len() >= 1 << 16 {
            self.out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    /// Ends the file after the last cycle written and returns the output.
    pub fn finish(mut self) -> io::Result<W> {
        let b = &mut self.buf;
        b.push(b'#');
        push_dec(b, self.next_cycle * CYCLE_NS);
        b.extend_from_slice(b"\n0!\n");
        self.out.write_all(&self.buf)?;
        self.out.flush()?;
        Ok(self.out)
    }
}

/// The waveform hierarchy of a run: per channel the variables `<port>` (data, unless
/// `none`), `<port>_valid`, `<port>_ready` in its node's scope (slots `3i + 2`, `3i`,
/// `3i + 1`), then per node its state words (slots `3C + k`).
pub(crate) fn hierarchy(channels: &[ChannelMeta], state: &[StateMeta]) -> Scope {
    let nc = channels.len();
    let mut top = Scope::default();
    for (i, ch) in channels.iter().enumerate() {
        let (path, port) = channel_place(&ch.name);
        let port = sanitize(port);
        let scope = top.at(&path);
        let w = ch.ty.bit_width();
        if w > 0 {
            scope.vars.push((port.clone(), w, 3 * i + 2));
        }
        scope.vars.push((format!("{port}_valid"), 1, 3 * i));
        scope.vars.push((format!("{port}_ready"), 1, 3 * i + 1));
    }
    let mut widths = state_widths(channels, state).into_iter();
    let mut k = 0;
    for meta in state {
        let path: Vec<&str> = meta.node.split('/').collect();
        let scope = top.at(&path);
        for f in &meta.fields {
            let w = widths.next().unwrap_or(64);
            scope.vars.push((sanitize(f), w, 3 * nc + k));
            k += 1;
        }
    }
    top
}

/// The width of every state word, in [`StateMeta`] order: 64 bits, except a register that
/// holds a token ([`RegField::holds_data`]) of a node whose output is wider than 64 bits,
/// which carries that output's wide words and is as wide.
pub(crate) fn state_widths(channels: &[ChannelMeta], state: &[StateMeta]) -> Vec<u32> {
    let mut out = Vec::with_capacity(state.iter().map(|s| s.fields.len()).sum());
    // Wide outputs only: most graphs have none, and then this is one pass over the channels.
    let mut wide_nodes: BTreeMap<&str, u32> = BTreeMap::new();
    for ch in channels {
        let w = ch.ty.bit_width();
        if wide::is_wide(w)
            && let Some((node, _)) = ch.name.rsplit_once('.')
        {
            let e = wide_nodes.entry(node).or_default();
            *e = (*e).max(w);
        }
    }
    for meta in state {
        let node_width = wide_nodes.get(meta.node.as_str()).copied();
        for f in &meta.fields {
            let w = match node_width {
                Some(w) if RegField::parse(f).is_some_and(RegField::holds_data) => w,
                _ => 64,
            };
            out.push(w);
        }
    }
    out
}

/// Writes `trace` as VCD text into `out`.
pub fn write_vcd(trace: &Trace, out: impl Write) -> io::Result<()> {
    let mut w = VcdWriter::new(
        trace.channels(),
        trace.state_meta(),
        trace.data_aliases(),
        out,
    )?;
    for_each_cycle_words(trace, |cycle, words, changed| {
        w.cycle(cycle, words, changed)
    })?;
    w.finish()?;
    Ok(())
}

/// Replays `trace` and hands `f` every cycle's signal words, in the order the waveform
/// writers take them ([`VcdWriter`]), and the indices of those that changed; stops at the
/// first error.
pub(crate) fn for_each_cycle_words<E>(
    trace: &Trace,
    mut f: impl FnMut(u64, &[u64], &[u32]) -> Result<(), E>,
) -> Result<(), E> {
    let nc = trace.channels().len();
    let n_state: usize = trace.state_meta().iter().map(|s| s.fields.len()).sum();
    let mut words = vec![0u64; 2 * nc + n_state];
    let mut changed = Vec::new();
    let mut replay = trace.replay();
    while let Some(cc) = replay.next_cycle() {
        changed.clear();
        for ch in cc.changes {
            let slot = match ch.signal {
                Signal::Ctrl(i) => i as usize,
                Signal::Data(i) => nc + i as usize,
                Signal::State(k) => 2 * nc + k as usize,
            };
            words[slot] = ch.value;
            changed.push(slot as u32);
        }
        f(cc.cycle, &words, &changed)?;
    }
    Ok(())
}

fn declare(out: &mut Vec<u8>, scope: &Scope, code: &dyn Fn(usize) -> Vec<u8>) {
    for (name, width, slot) in &scope.vars {
        out.extend_from_slice(b"$var wire ");
        push_dec(out, u64::from(*width));
        out.push(b' ');
        out.extend_from_slice(&code(*slot));
        out.push(b' ');
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b" $end\n");
    }
    for (name, child) in &scope.children {
        out.extend_from_slice(b"$scope module ");
        out.extend_from_slice(sanitize(name).as_bytes());
        out.extend_from_slice(b" $end\n");
        declare(out, child, code);
        out.extend_from_slice(b"$upscope $end\n");
    }
}

#[inline]
fn push_dec(b: &mut Vec<u8>, v: u64) {
    let mut tmp = [0u8; 20];
    let mut i = tmp.len();
    let mut v = v;
    loop {
        i -= 1;
        tmp[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    b.extend_from_slice(&tmp[i..]);
}

/// An identifier code (one to three characters for any waveform of a sane size): byte by
/// byte, where `extend_from_slice` of a slice of unknown length would call `memcpy` for a
/// few bytes on every value change.
#[inline(always)]
fn push_id(b: &mut Vec<u8>, id: &[u8]) {
    for &c in id {
        b.push(c);
    }
}

#[inline]
fn scalar(b: &mut Vec<u8>, bit: u64, id: &[u8]) {
    b.push(if bit & 1 == 1 { b'1' } else { b'0' });
    push_id(b, id);
    b.push(b'\n');
}

/// The eight binary digits of every byte value, most significant first.
static BYTE_BITS: [[u8; 8]; 256] = {
    let mut t = [[b'0'; 8]; 256];
    let mut v = 0;
    while v < 256 {
        let mut k = 0;
        while k < 8 {
            if v >> (7 - k) & 1 == 1 {
                t[v][k] = b'1';
            }
            k += 1;
        }
        v += 1;
    }
    t
};

/// `b<bits> <id>`: a vector without leading zeros (width 1: a scalar). A signal wider than
/// 64 bits whose word is a handle to an interned value goes through [`wide_value`]; its
/// words below 2^63 are the value itself and take the narrow path.
#[inline]
fn value(b: &mut Vec<u8>, v: u64, width: u32, id: &[u8]) {
    if width == 1 {
        scalar(b, v, id);
        return;
    }
    let v = if width < 64 {
        v & ((1u64 << width) - 1)
    } else if width == 64 || v >> 63 == 0 {
        v
    } else {
        wide_value(b, v, width, id);
        return;
    };
    b.push(b'b');
    if v == 0 {
        b.push(b'0');
    } else {
        push_bits(b, v);
    }
    b.push(b' ');
    push_id(b, id);
    b.push(b'\n');
}

/// The binary digits of `v > 0` without leading zeros.
#[inline(always)]
fn push_bits(b: &mut Vec<u8>, v: u64) {
    let nbits = 64 - v.leading_zeros();
    // The leading partial byte, then whole bytes from the table.
    let lead = nbits % 8;
    let mut bytes = nbits / 8;
    if lead > 0 {
        let top = (v >> (8 * bytes)) as usize;
        b.extend_from_slice(&BYTE_BITS[top][(8 - lead) as usize..]);
    }
    while bytes > 0 {
        bytes -= 1;
        b.extend_from_slice(&BYTE_BITS[(v >> (8 * bytes) & 0xff) as usize]);
    }
}

/// [`value`] of a wide word that is a handle: its value's limbs, most significant first,
/// the top one without leading zeros.
#[cold]
#[inline(never)]
fn wide_value(b: &mut Vec<u8>, word: u64, width: u32, id: &[u8]) {
    let limbs = wide::to_limbs(word, width);
    b.push(b'b');
    match limbs.iter().rposition(|&l| l != 0) {
        None => b.push(b'0'),
        Some(top) => {
            push_bits(b, limbs[top]);
            for &l in limbs[..top].iter().rev() {
                for k in (0..8).rev() {
                    b.extend_from_slice(&BYTE_BITS[(l >> (8 * k) & 0xff) as usize]);
                }
            }
        }
    }
    b.push(b' ');
    push_id(b, id);
    b.push(b'\n');
}

#[cfg(test)]
mod tests {
    use handscope_sim::wide;

    use super::value;

    fn written(v: u64, w: u32) -> String {
        let mut b = Vec::new();
        value(&mut b, v, w, b"!");
        String::from_utf8(b).unwrap()
    }

    #[test]
    fn wide_vectors_are_written_in_full() {
        for w in [65u32, 96, 128, 512, 4096] {
            assert_eq!(written(0, w), "b0 !\n");
            assert_eq!(written(5, w), "b101 !\n");
            // 2^63: one limb, but interned.
            let h = wide::from_limbs(&[1 << 63], w);
            assert_ne!(h >> 63, 0);
            assert_eq!(written(h, w), format!("b1{} !\n", "0".repeat(63)));
            let ones = wide::from_limbs(&vec![u64::MAX; wide::limb_count(w)], w);
            assert_eq!(written(ones, w), format!("b{} !\n", "1".repeat(w as usize)));
            assert_eq!(
                written(ones, w),
                format!("b{} !\n", wide::to_binary(ones, w))
            );
        }
        // Limbs below the top one keep their leading zeros.
        let v = wide::from_limbs(&[0x5, 0x1, 0x3], 160);
        let want = format!("b11{:064b}{:064b} !\n", 1u64, 5u64);
        assert_eq!(written(v, 160), want);
        assert_eq!(written(v, 160), format!("b{} !\n", wide::to_binary(v, 160)));
    }

    #[test]
    fn vectors_are_written_without_leading_zeros() {
        for (v, w, want) in [
            (0u64, 8, "b0 !\n"),
            (5, 8, "b101 !\n"),
            (0x80, 8, "b10000000 !\n"),
            (0x1ff, 8, "b11111111 !\n"),
            (u64::MAX, 64, &format!("b{} !\n", "1".repeat(64))),
            (0x1_0000_0001, 64, "b100000000000000000000000000000001 !\n"),
            (1, 1, "1!\n"),
        ] {
            let mut b = Vec::new();
            value(&mut b, v, w, b"!");
            assert_eq!(String::from_utf8(b).unwrap(), want, "{v:#x} width {w}");
        }
    }
}
