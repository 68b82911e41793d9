//! Port names and counts.
//!
//! Names are the ones CIRCT 1.62's RTL gives the ports of each component, so that a VCD of
//! CIRCT's RTL maps back onto the graph by name.

/// How many ports a list has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Count {
    /// Exactly this many.
    Exactly(usize),
    /// At least this many.
    AtLeast(usize),
    /// As many as the node has inputs, and at least one (`sync` outputs).
    SameAsInputs,
    /// As many as the function has results (`return` operands).
    FunctionResults,
    /// As the called function's signature says (`instance`); the verifier checks it.
    Callee,
}

/// A count made concrete for one node: exactly `n`, or at least `n`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolved {
    /// Exactly this many.
    Exactly(usize),
    /// At least this many.
    AtLeast(usize),
}

impl Resolved {
    /// True when `n` ports satisfy the count.
    pub fn accepts(self, n: usize) -> bool {
        match self {
            Resolved::Exactly(k) => n == k,
            Resolved::AtLeast(k) => n >= k,
        }
    }

    /// `2` or `at least 1`, for messages.
    pub fn describe(self) -> String {
        match self {
            Resolved::Exactly(k) => format!("{k}"),
            Resolved::AtLeast(k) => format!("at least {k}"),
        }
    }
}

/// What a count depends on besides the op.
#[derive(Clone, Copy, Debug)]
pub struct CountContext {
    /// The node's number of inputs.
    pub inputs: usize,
    /// The function's number of results.
    pub function_results: usize,
}

impl Count {
    /// The concrete count for a node, or `None` for [`Count::Callee`] (which needs the module).
    pub fn resolve(self, cx: &CountContext) -> Option<Resolved> {
        Some(match self {
            Count::Exactly(k) => Resolved::Exactly(k),
            Count::AtLeast(k) => Resolved::AtLeast(k),
            Count::SameAsInputs => Resolved::Exactly(cx.inputs.max(1)),
            Count::FunctionResults => Resolved::Exactly(cx.function_results),
            Count::Callee => return None,
        })
    }
}

/// A list of ports: their names and how many there are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ports {
    /// No ports.
    None,
    /// Exactly these ports, by name.
    Named(&'static [&'static str]),
    /// `<prefix>0`, `<prefix>1`, ...
    Numbered {
        /// `in` or `out`.
        prefix: &'static str,
        /// How many.
        count: Count,
    },
    /// `select`, then the data inputs `in0`, `in1`, ... (at least one): a `mux`'s inputs.
    SelectThenData,
    /// A memory's inputs: `stData<j>`, `stAddr<j>` for each store port `j`, then `ldAddr<i>`
    /// for each load port `i`.
    MemoryInputs {
        /// Load ports.
        ld: u32,
        /// Store ports.
        st: u32,
    },
    /// A memory's outputs: `ldData<i>` for each load port, `stDone<j>` for each store port,
    /// then `ldDone<i>` for each load port.
    MemoryOutputs {
        /// Load ports.
        ld: u32,
        /// Store ports.
        st: u32,
    },
    /// A Dynamatic memory controller's inputs: `memStart`, `ctrl<k>`, `ldAddr<i>`, then
    /// `stAddr<j>`, `stData<j>` for each store port, then `ctrlEnd`.
    DynMcInputs {
        /// Block controls.
        ctrl: u32,
        /// Load ports.
        ld: u32,
        /// Store ports.
        st: u32,
    },
    /// A Dynamatic memory controller's outputs: `ldData<i>`, then `memEnd`.
    DynMcOutputs {
        /// Load ports.
        ld: u32,
    },
    /// An address queue's inputs: `ldAddr<i>`, `ldOrder<i>` for each load port, then
    /// `stAddr<j>`, `stOrder<j>`, `stDone<j>` for each store port.
    AddrQueueInputs {
        /// Load ports.
        ld: u32,
        /// Store ports.
        st: u32,
    },
    /// An address queue's outputs: `ldAddrOut<i>` for each load port, then `stOrderOut<j>`
    /// for each store port.
    AddrQueueOutputs {
        /// Load ports.
        ld: u32,
        /// Store ports.
        st: u32,
    },
    /// A slave load-store queue's inputs: `ctrl<g>`, `ldAddr<i>`, then `stAddr<j>`,
    /// `stData<j>` for each store port, then (with load ports) `ldDataFromMC`.
    DynLsqSlaveInputs {
        /// Groups.
        groups: u32,
        /// Load ports.
        ld: u32,
        /// Store ports.
        st: u32,
    },
    /// A slave load-store queue's outputs: `ldData<i>`, then `ldAddrToMC`, `stAddrToMC`,
    /// `stDataToMC`.
    DynLsqSlaveOutputs {
        /// Load ports.
        ld: u32,
    },
}

impl Ports {
    /// How many ports the list has.
    pub fn count(&self) -> Count {
        match *self {
            Ports::None => Count::Exactly(0),
            Ports::Named(names) => Count::Exactly(names.len()),
            Ports::Numbered { count, .. } => count,
            Ports::SelectThenData => Count::AtLeast(2),
            Ports::MemoryInputs { ld, st } => Count::Exactly(2 * st as usize + ld as usize),
            Ports::MemoryOutputs { ld, st } => Count::Exactly(2 * ld as usize + st as usize),
            Ports::DynMcInputs { ctrl, ld, st } => {
                Count::Exactly(2 + ctrl as usize + ld as usize + 2 * st as usize)
            }
            Ports::DynMcOutputs { ld } => Count::Exactly(ld as usize + 1),
            Ports::DynLsqSlaveInputs { groups, ld, st } => Count::Exactly(
                groups as usize + ld as usize + 2 * st as usize + usize::from(ld > 0),
            ),
            Ports::DynLsqSlaveOutputs { ld } => Count::Exactly(ld as usize + 3),
            Ports::AddrQueueInputs { ld, st } => Count::Exactly(2 * ld as usize + 3 * st as usize),
            Ports::AddrQueueOutputs { ld, st } => Count::Exactly(ld as usize + st as usize),
        }
    }

    /// Name of port `i`. Positions past a fixed list get `in?`-style placeholders (a
    /// malformed node still gets printable names).
    pub fn name(&self, i: usize) -> String {
        match *self {
            Ports::None => format!("port{i}"),
            Ports::Named(names) => names
                .get(i)
                .map_or_else(|| format!("port{i}"), |n| n.to_string()),
            Ports::Numbered { prefix, .. } => format!("{prefix}{i}"),
            Ports::SelectThenData => {
                if i == 0 {
                    "select".into()
                } else {
                    format!("in{}", i - 1)
                }
            }
            Ports::MemoryInputs { st, .. } => {
                let st = st as usize;
                if i < 2 * st {
                    if i.is_multiple_of(2) {
                        format!("stData{}", i / 2)
                    } else {
                        format!("stAddr{}", i / 2)
                    }
                } else {
                    format!("ldAddr{}", i - 2 * st)
                }
            }
            Ports::MemoryOutputs { ld, st } => {
                let (ld, st) = (ld as usize, st as usize);
                if i < ld {
                    format!("ldData{i}")
                } else if i < ld + st {
                    format!("stDone{}", i - ld)
                } else {
                    format!("ldDone{}", i - ld - st)
                }
            }
            Ports::DynMcInputs { ctrl, ld, st } => {
                let (c, l, s) = (ctrl as usize, ld as usize, st as usize);
                match i {
                    0 => "memStart".into(),
                    i if i <= c => format!("ctrl{}", i - 1),
                    i if i <= c + l => format!("ldAddr{}", i - 1 - c),
                    i if i <= c + l + 2 * s => {
                        let k = i - 1 - c - l;
                        if k.is_multiple_of(2) {
                            format!("stAddr{}", k / 2)
                        } else {
                            format!("stData{}", k / 2)
                        }
                    }
                    _ => "ctrlEnd".into(),
                }
            }
            Ports::DynMcOutputs { ld } => {
                if i < ld as usize {
                    format!("ldData{i}")
                } else {
                    "memEnd".into()
                }
            }
            Ports::DynLsqSlaveInputs { groups, ld, st } => {
                let (g, l, s) = (groups as usize, ld as usize, st as usize);
                match i {
                    i if i < g => format!("ctrl{i}"),
                    i if i < g + l => format!("ldAddr{}", i - g),
                    i if i < g + l + 2 * s => {
                        let k = i - g - l;
                        if k.is_multiple_of(2) {
                            format!("stAddr{}", k / 2)
                        } else {
                            format!("stData{}", k / 2)
                        }
                    }
                    _ => "ldDataFromMC".into(),
                }
            }
            Ports::AddrQueueInputs { ld, .. } => match i.checked_sub(2 * ld as usize) {
                None if i.is_multiple_of(2) => format!("ldAddr{}", i / 2),
                None => format!("ldOrder{}", i / 2),
                Some(k) => match k % 3 {
                    0 => format!("stAddr{}", k / 3),
                    1 => format!("stOrder{}", k / 3),
                    _ => format!("stDone{}", k / 3),
                },
            },
            Ports::AddrQueueOutputs { ld, .. } => match i.checked_sub(ld as usize) {
                None => format!("ldAddrOut{i}"),
                Some(j) => format!("stOrderOut{j}"),
            },
            Ports::DynLsqSlaveOutputs { ld } => match i.checked_sub(ld as usize) {
                None => format!("ldData{i}"),
                Some(0) => "ldAddrToMC".into(),
                Some(1) => "stAddrToMC".into(),
                Some(_) => "stDataToMC".into(),
            },
        }
    }
}

/// A port of a node: input or output `i`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PortRef {
    /// Input `i`.
    In(usize),
    /// Output `i`.
    Out(usize),
}
