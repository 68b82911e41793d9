//! Reading the model's VCD back with `wellen`: one timestamp per cycle (the testbench dumps
//! the settled values of cycle `c` at time `c`), signals looked up per design scope
//! (`oracle_top.dut<k>`).

use std::collections::BTreeMap;
use std::path::Path;

use wellen::simple::Waveform;
use wellen::{Hierarchy, ScopeRef, SignalRef, SignalValueRef, TimeTableIdx};

use crate::error::OracleError;

/// A loaded VCD.
pub struct Waves {
    wave: Waveform,
    /// For each cycle, the time-table index of the last dump at or before it.
    cycle_idx: Vec<Option<TimeTableIdx>>,
}

/// Sampled values of one signal, one per cycle (`x`/`z` bits read as 0).
pub type Samples = Vec<u64>;

fn find_scope(h: &Hierarchy, name: &str) -> Option<ScopeRef> {
    let mut stack: Vec<ScopeRef> = h.scopes().collect();
    while let Some(s) = stack.pop() {
        if h[s].name(h) == name {
            return Some(s);
        }
        stack.extend(h[s].scopes(h));
    }
    None
}

impl Waves {
    /// Opens a VCD written by the oracle testbench for `cycles` cycles.
    pub fn open(path: &Path, cycles: u32) -> Result<Waves, OracleError> {
        Self::open_at(path, 0..u64::from(cycles))
    }

    /// Opens a VCD and samples it at `times` (increasing), one sample per "cycle": the
    /// values of the last dump at or before each time (e.g. `10 (c + 2)` for the
    /// testbench of `handscope_compiler::verilog::testbench`).
    pub fn open_at(
        path: &Path,
        times: impl IntoIterator<Item = u64>,
    ) -> Result<Waves, OracleError> {
        let wave = wellen::simple::read(path)
            .map_err(|e| OracleError::Vcd(format!("{}: {e}", path.display())))?;
        let tt = wave.time_table();
        let mut cycle_idx = Vec::new();
        let mut j = 0usize;
        for c in times {
            while j + 1 < tt.len() && tt[j + 1] <= c {
                j += 1;
            }
            cycle_idx.push((tt.get(j).is_some_and(|t| *t <= c)).then_some(j as TimeTableIdx));
        }
        Ok(Waves { wave, cycle_idx })
    }

    /// All variables directly inside the scope `path` (dotted, e.g. `hs_tb`), by name.
    pub fn scope_vars(&self, path: &str) -> Result<BTreeMap<String, SignalRef>, OracleError> {
        let h = self.wave.hierarchy();
        let mut names = path.split('.');
        let first = names.next().unwrap_or_default();
        let mut scope =
            find_scope(h, first).ok_or_else(|| OracleError::Vcd(format!("no scope `{first}`")))?;
        for n in names {
            scope = h[scope]
                .scopes(h)
                .find(|s| h[*s].name(h) == n)
                .ok_or_else(|| OracleError::Vcd(format!("no scope `{path}`")))?;
        }
        Ok(h[scope]
            .vars(h)
            .map(|v| (h[v].name(h).to_string(), h[v].signal_ref()))
            .collect())
    }

    /// All variables directly inside the scope of design `k` (`oracle_top.dut<k>`), by name.
    pub fn design_vars(&self, k: usize) -> Result<BTreeMap<String, SignalRef>, OracleError> {
        let h = self.wave.hierarchy();
        let top = find_scope(h, "oracle_top")
            .ok_or_else(|| OracleError::Vcd("no scope `oracle_top`".into()))?;
        let want = format!("dut{k}");
        let scope = h[top]
            .scopes(h)
            .find(|s| h[*s].name(h) == want)
            .ok_or_else(|| OracleError::Vcd(format!("no scope `oracle_top.{want}`")))?;
        Ok(h[scope]
            .vars(h)
            .map(|v| (h[v].name(h).to_string(), h[v].signal_ref()))
            .collect())
    }

    /// Loads signals' data (call before [`Waves::samples`]).
    pub fn load(&mut self, signals: &[SignalRef]) {
        self.wave.load_signals_multi_threaded(signals);
    }

    /// Frees loaded signals' data.
    pub fn unload(&mut self, signals: &[SignalRef]) {
        self.wave.unload_signals(signals);
    }

    /// Values of a loaded signal in each cycle (bit 0 = LSB): the bit pattern for signals of
    /// at most 64 bits, the wide word ([`handscope_sim::wide`]) of the signal's width above.
    pub fn samples(&self, sig: SignalRef) -> Result<Samples, OracleError> {
        let s = self
            .wave
            .get_signal(sig)
            .ok_or_else(|| OracleError::Vcd("signal not loaded".into()))?;
        let mut out = Vec::with_capacity(self.cycle_idx.len());
        for idx in &self.cycle_idx {
            let v = match idx.and_then(|i| s.get_offset(i)) {
                Some(off) => match s.get_value_at(&off, 0) {
                    SignalValueRef::BitVec(bv) => {
                        let width = bv.width();
                        let mut limbs = vec![0u64; handscope_sim::wide::limb_count(width)];
                        for (i, b) in bv.iter_lsb_to_msb().enumerate() {
                            if u8::from(b) == 1 {
                                limbs[i / 64] |= 1u64 << (i % 64);
                            }
                        }
                        if handscope_sim::wide::is_wide(width) {
                            handscope_sim::wide::from_limbs(&limbs, width)
                        } else {
                            limbs[0]
                        }
                    }
                    _ => 0,
                },
                None => 0,
            };
            out.push(v);
        }
        Ok(out)
    }
}
