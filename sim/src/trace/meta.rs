//! What a trace records: channel and state metadata, the signal numbering shared by both
//! stores, memory writes, and the data-alias table.

use std::collections::BTreeMap;

use crate::types::Type;

/// Static description of one channel.
#[derive(Clone, Debug, PartialEq)]
pub struct ChannelMeta {
    /// Channel name.
    pub name: String,
    /// Data type.
    pub ty: Type,
}

/// Static description of one component's state words.
#[derive(Clone, Debug, PartialEq)]
pub struct StateMeta {
    /// Stable node ID.
    pub node: String,
    /// Name of each state word (`emitted_0`, `slot0.valid`, `won`, ...).
    pub fields: Vec<String>,
}

/// The values of one cycle, as given to [`super::TraceBuilder::push_cycle`].
#[derive(Clone, Copy, Debug)]
pub struct Sample<'a> {
    /// `valid` per channel.
    pub valid: &'a [bool],
    /// `ready` per channel.
    pub ready: &'a [bool],
    /// `data` per channel.
    pub data: &'a [u64],
    /// All state words, in [`StateMeta`] order.
    pub state: &'a [u64],
}

/// One memory write, effective at the clock edge ending `cycle`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemWrite {
    /// Cycle.
    pub cycle: u64,
    /// Memory index (see [`super::Trace::memories`]).
    pub mem: u32,
    /// Element address.
    pub addr: u64,
    /// Value written.
    pub value: u64,
}

/// One recorded signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// Control bits of a channel: `valid | ready << 1`.
    Ctrl(u32),
    /// Data of a channel.
    Data(u32),
    /// A state word (global index).
    State(u32),
}

/// One signal change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Change {
    /// Which signal.
    pub signal: Signal,
    /// Its new value.
    pub value: u64,
}

/// The static part of a trace: names, types, the signal numbering and the data aliases.
///
/// All values of a cycle form one vector of *signals*: for channel `i`, signal `i` is its
/// control word (`valid | ready << 1`) and signal `C + i` its data; signal `2C + k` is state
/// word `k`.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    pub(crate) channels: Vec<ChannelMeta>,
    pub(crate) state: Vec<StateMeta>,
    /// First state word of each [`StateMeta`].
    pub(crate) state_start: Vec<u32>,
    pub(crate) state_index: BTreeMap<String, usize>,
    pub(crate) channel_index: BTreeMap<String, usize>,
    /// Memory names, indexed by [`MemWrite::mem`].
    pub(crate) memories: Vec<String>,
    /// Number of signals.
    pub(crate) n_words: usize,
    /// `(channel, root)` for every channel whose data is its root channel's data.
    pub(crate) aliases: Vec<(u32, u32)>,
}

impl Layout {
    pub(crate) fn new(channels: Vec<ChannelMeta>, state: Vec<StateMeta>) -> Layout {
        let mut state_start = Vec::with_capacity(state.len());
        let mut n = 0u32;
        for s in &state {
            state_start.push(n);
            n += s.fields.len() as u32;
        }
        let n_words = 2 * channels.len() + n as usize;
        let state_index = state
            .iter()
            .enumerate()
            .map(|(i, s)| (s.node.clone(), i))
            .collect();
        let channel_index = channels
            .iter()
            .enumerate()
            .map(|(i, c)| (c.name.clone(), i))
            .collect();
        Layout {
            channels,
            state,
            state_start,
            state_index,
            channel_index,
            memories: Vec::new(),
            n_words,
            aliases: Vec::new(),
        }
    }

    /// Number of channels.
    #[inline]
    pub(crate) fn nc(&self) -> usize {
        self.channels.len()
    }

    /// The signal with index `i`.
    pub(crate) fn signal(&self, i: usize) -> Signal {
        let nc = self.nc();
        if i < nc {
            Signal::Ctrl(i as u32)
        } else if i < 2 * nc {
            Signal::Data((i - nc) as u32)
        } else {
            Signal::State((i - 2 * nc) as u32)
        }
    }

    /// The index of signal `s`.
    pub(crate) fn index(&self, s: Signal) -> usize {
        let nc = self.nc();
        match s {
            Signal::Ctrl(i) => i as usize,
            Signal::Data(i) => nc + i as usize,
            Signal::State(k) => 2 * nc + k as usize,
        }
    }

    /// Declares data aliases (see [`super::TraceBuilder::set_data_aliases`]); returns the
    /// channels that keep data of their own.
    pub(crate) fn set_aliases(&mut self, aliases: &[Option<u32>]) -> Vec<u32> {
        let nc = self.nc();
        let mut out = Vec::new();
        for i in 0..nc.min(aliases.len()) {
            let mut root = i;
            let mut steps = 0;
            while let Some(Some(j)) = aliases.get(root) {
                let j = *j as usize;
                if j >= nc || steps > nc {
                    root = i;
                    break;
                }
                root = j;
                steps += 1;
            }
            if root != i && steps <= nc {
                out.push((i as u32, root as u32));
            }
        }
        let mut is_alias = vec![false; nc];
        for &(a, _) in &out {
            is_alias[a as usize] = true;
        }
        self.aliases = out;
        (0..nc as u32).filter(|&i| !is_alias[i as usize]).collect()
    }

    /// Sets every alias channel's data to its root's data, reporting changes to `f`.
    pub(crate) fn resolve_aliases(&self, vals: &mut [u64], mut f: impl FnMut(usize, u64)) {
        let nc = self.nc();
        for &(a, r) in &self.aliases {
            let (a, r) = (nc + a as usize, nc + r as usize);
            if vals[a] != vals[r] {
                vals[a] = vals[r];
                f(a, vals[a]);
            }
        }
    }
}
