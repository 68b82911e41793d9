//! Writes a run's signals as FST (the compressed waveform format of GTKWave, read by Surfer
//! and `wellen`), streamed like [`VcdWriter`](crate::vcd_out::VcdWriter): the same
//! hierarchy, names, time axis (10 ns per cycle, clock rising at mid-cycle) and signal words,
//! through the `fst-writer` crate; signals wider than 64 bits carry their full value. Value
//! changes are flushed to the file in blocks, so memory stays bounded however long the run.

use std::fs::File;
use std::io::{BufWriter, Seek, Write};
use std::path::Path;

use fst_writer::{
    FstBodyWriter, FstFileType, FstHeaderWriter, FstInfo, FstScopeType, FstSignalId, FstSignalType,
    FstVarDirection, FstVarType,
};
use handscope_sim::trace::{ChannelMeta, StateMeta, Trace};
use handscope_sim::wide;

use crate::vcd_out::{CYCLE_NS, Scope, hierarchy, sanitize};

/// A failure writing an FST file.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct FstError(String);

impl From<fst_writer::FstWriteError> for FstError {
    fn from(e: fst_writer::FstWriteError) -> Self {
        FstError(e.to_string())
    }
}

impl From<std::io::Error> for FstError {
    fn from(e: std::io::Error) -> Self {
        FstError(e.to_string())
    }
}

/// Value changes buffered before a block is compressed and written (bytes, estimated).
const FLUSH_BYTES: usize = 32 << 20;

/// A streaming FST writer over a run's signal words (see
/// [`VcdWriter`](crate::vcd_out::VcdWriter) for their order).
pub struct FstWriter<W: Write + Seek> {
    body: FstBodyWriter<W>,
    clock: FstSignalId,
    /// Per slot (`3i` valid, `3i + 1` ready, `3i + 2` data, `3C + k` state): id and width.
    slots: Vec<Option<(FstSignalId, u32)>>,
    nc: usize,
    prev: Vec<u64>,
    started: bool,
    next_cycle: u64,
    bits: Vec<u8>,
}

impl FstWriter<BufWriter<File>> {
    /// Creates `path` with the header for these channels and state words.
    pub fn create(
        path: &Path,
        channels: &[ChannelMeta],
        state: &[StateMeta],
    ) -> Result<Self, FstError> {
        let file = BufWriter::with_capacity(1 << 20, File::create(path)?);
        Self::new(file, channels, state)
    }
}

/// Writes `trace` as an FST file at `path`.
pub fn write_fst(trace: &Trace, path: &Path) -> Result<(), FstError> {
    let mut w = FstWriter::create(path, trace.channels(), trace.state_meta())?;
    crate::vcd_out::for_each_cycle_words(trace, |cycle, words, changed| {
        w.cycle(cycle, words, changed)
    })?;
    w.finish()?;
    Ok(())
}

impl<W: Write + Seek> FstWriter<W> {
    /// Writes the header for these channels and state words into `out`.
    pub fn new(out: W, channels: &[ChannelMeta], state: &[StateMeta]) -> Result<Self, FstError> {
        let info = FstInfo {
            start_time: 0,
            timescale_exponent: -9,
            version: concat!("Handscope ", env!("CARGO_PKG_VERSION")).into(),
            date: String::new(),
            file_type: FstFileType::Verilog,
        };
        let mut h = FstHeaderWriter::new(out, &info)?;
        h.scope("handscope", "", FstScopeType::Module)?;
        let wire = |h: &mut FstHeaderWriter<W>, name: &str, w: u32| {
            h.var(
                name,
                FstSignalType::bit_vec(w),
                FstVarType::Wire,
                FstVarDirection::Implicit,
                None,
            )
        };
        let clock = wire(&mut h, "clock", 1)?;
        let reset = wire(&mut h, "reset", 1)?;
        let nc = channels.len();
        let n_state: usize = state.iter().map(|s| s.fields.len()).sum();
        let mut slots = vec![None; 3 * nc + n_state];
        declare(&mut h, &hierarchy(channels, state), &mut slots)?;
        h.up_scope()?;
        let mut body = h.finish()?;
        body.time_change(0)?;
        body.signal_change(reset, b"0")?;
        Ok(FstWriter {
            body,
            clock,
            slots,
            nc,
            prev: vec![0; 2 * nc + n_state],
            started: false,
            next_cycle: 0,
            bits: Vec::with_capacity(64),
        })
    }

    /// Signal word `s` is `new` now: writes the variables it drives that changed.
    fn word(&mut self, s: usize, new: u64) -> Result<(), FstError> {
        let old = self.prev[s];
        if new == old {
            return Ok(());
        }
        self.prev[s] = new;
        let nc = self.nc;
        if s < nc {
            if (new ^ old) & 1 != 0 {
                self.set(3 * s, new & 1)?;
            }
            if (new ^ old) & 2 != 0 {
                self.set(3 * s + 1, new >> 1 & 1)?;
            }
        } else if s < 2 * nc {
            self.set(3 * (s - nc) + 2, new)?;
        } else {
            self.set(3 * nc + (s - 2 * nc), new)?;
        }
        Ok(())
    }

    fn set(&mut self, slot: usize, v: u64) -> Result<(), FstError> {
        if let Some((id, w)) = self.slots[slot] {
            self.bits.clear();
            if wide::is_wide(w) && v >> 63 != 0 {
                // A handle to an interned value: its limbs, most significant bit first.
                let limbs = wide::to_limbs(v, w);
                self.bits.extend((0..w).rev().map(|b| {
                    if limbs[(b / 64) as usize] >> (b % 64) & 1 == 1 {
                        b'1'
                    } else {
                        b'0'
                    }
                }));
            } else {
                self.bits.extend((0..w).rev().map(|b| {
                    if b < 64 && v >> b & 1 == 1 {
                        b'1'
                    } else {
                        b'0'
                    }
                }));
            }
            self.body.signal_change(id, &self.bits)?;
        }
        Ok(())
    }

    /// Writes cycle `cycle`'s signal words (cycles must come in order from 0); `changed`
    /// lists the indices of the words that may differ from the cycle before (the first
    /// cycle writes every word, whatever `changed` says).
    pub fn cycle(&mut self, cycle: u64, words: &[u64], changed: &[u32]) -> Result<(), FstError> {
        let t = cycle * CYCLE_NS;
        self.body.time_change(t)?;
        self.body.signal_change(self.clock, b"0")?;
        let n = self.prev.len().min(words.len());
        if self.started {
            for &s in changed {
                let s = s as usize;
                if s < n {
                    self.word(s, words[s])?;
                }
            }
        } else {
            for (s, &new) in words[..n].iter().enumerate() {
                self.prev[s] = !new;
                self.word(s, new)?;
            }
        }
        self.started = true;
        self.body.time_change(t + CYCLE_NS / 2)?;
        self.body.signal_change(self.clock, b"1")?;
        self.next_cycle = cycle + 1;
        if self.body.size() > FLUSH_BYTES {
            self.body.flush()?;
        }
        Ok(())
    }

    /// Ends the file after the last cycle written and returns the output.
    pub fn finish(mut self) -> Result<W, FstError> {
        self.body.time_change(self.next_cycle * CYCLE_NS)?;
        self.body.signal_change(self.clock, b"0")?;
        let mut out = self.body.finish()?;
        out.flush()?;
        Ok(out)
    }
}

fn declare<W: Write + Seek>(
    h: &mut FstHeaderWriter<W>,
    scope: &Scope,
    slots: &mut [Option<(FstSignalId, u32)>],
) -> Result<(), FstError> {
    for (name, width, slot) in &scope.vars {
        let id = h.var(
            name,
            FstSignalType::bit_vec(*width),
            FstVarType::Wire,
            FstVarDirection::Implicit,
            None,
        )?;
        slots[*slot] = Some((id, *width));
    }
    for (name, child) in &scope.children {
        h.scope(sanitize(name), "", FstScopeType::Module)?;
        declare(h, child, slots)?;
        h.up_scope()?;
    }
    Ok(())
}
