//! Combinational dependencies between a component's port signals.
//!
//! Every channel carries a forward group (valid and data, which travel together) and a ready
//! signal. A dependency `(a, b)` says that `b` is computed in the same cycle from `a`. The
//! cycle checker (`verify::comb`) builds its signal graph from these, and the dependencies are
//! exactly those of the equations in `docs/semantics.md`.

use super::ports::PortRef;

/// One signal group of a port.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PortSignal {
    /// `valid` and `data` of the port's channel.
    Forward(PortRef),
    /// `ready` of the port's channel.
    Ready(PortRef),
}

/// The shape of a component's combinational paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comb {
    /// None: registered in both directions (`buffer`) or driven from outside the graph
    /// (arguments, `return`, `source`, `sink`, `never`, opaque `instance`s).
    None,
    /// Join-like: every output's forward group depends on every input's; every input's ready
    /// depends on every output's ready and on every input's forward group (an input is taken
    /// only together with the others, a select or priority decides which). Eager forks,
    /// `sync`, `unpack` and `control_merge` are join-like too: their registers are all clear
    /// after a transfer, so nothing registered stands between input and output.
    Join,
    /// `load`: two independent joins, `{addrIn0, ctrl} -> addrOut0` and
    /// `dataFromMem -> dataOut`.
    Load,
    /// `lazy_fork`: in -> every out, every out's ready -> in's ready, and each output's valid
    /// depends on the *other* outputs' ready (the only forward signal that reads a ready).
    LazyFork,
    /// `pipeline`: valid and data come from the last stage's register; only the input's ready
    /// reads the output's ready (a full pipeline passes its last token on and takes a new one
    /// in the same cycle).
    Pipeline,
    /// A Dynamatic buffer with a bypass (`ONE_SLOT_BREAK_R`, `FIFO_BREAK_NONE`): the input's
    /// forward group reaches the output (an empty buffer passes a token through); the output's
    /// ready reaches the input's only when `ready_through` (`FIFO_BREAK_NONE`).
    Bypass {
        /// `in.ready` reads `out.ready`.
        ready_through: bool,
    },
    /// Dynamatic's `control_merge`: the inputs' forward groups reach both outputs and the
    /// inputs' readies (the priority choice), but no output's ready reaches an input (the skid
    /// register takes the winner whatever the outputs do).
    SkidMerge,
    /// Independent paths, input `i` to output `i`: with a bypass and no ready path
    /// (Dynamatic's `load`: a skid buffer on each path), or as wires (its `store`).
    Parallel {
        /// Ready goes through (wires) or not (skid buffers).
        ready_through: bool,
    },
    /// Dynamatic's memory controller: outputs come from registers; a load port's address is
    /// taken when it wins its arbiter (the valid addresses of the ports before it, and the
    /// readiness of their data outputs and its own decide), a store port's address and data
    /// when they win theirs (the valid store requests before it decide).
    DynMc {
        /// Block controls.
        ctrl: u32,
        /// Load ports.
        ld: u32,
        /// Store ports.
        st: u32,
    },
    /// An address queue: load port `i` is a join of `ldAddr<i>` and `ldOrder<i>` onto
    /// `ldAddrOut<i>` (gated by the queued addresses, registers); store port `j` takes
    /// `stAddr<j>` and `stOrder<j>` together when `stOrderOut<j>` is free or taken now (its
    /// valid is a register) and there is room after the store ports before it; `stDone<j>`
    /// reads registers only.
    AddrQueue {
        /// Load ports.
        ld: u32,
        /// Store ports.
        st: u32,
    },
    /// `island`: outputs come from registers; every input's ready depends on every input's
    /// forward group (the inputs are taken together, when the island is idle).
    Island,
    /// `memory`/`extmemory`: each load port is an eager fork of `ldAddr<i>` onto `ldData<i>`
    /// and `ldDone<i>`; a store port writes on the clock edge and raises `stDone<j>` from a
    /// register, so only its ready depends on `stDone<j>`'s ready.
    Memory {
        /// Load ports.
        ld: u32,
        /// Store ports.
        st: u32,
    },
}

impl Comb {
    /// The dependencies of a node with `n_in` inputs and `n_out` outputs.
    pub fn deps(self, n_in: usize, n_out: usize) -> Vec<(PortSignal, PortSignal)> {
        use PortSignal::{Forward, Ready};
        let mut deps = Vec::new();
        let mut join = |ins: &[usize], outs: &[usize]| {
            for &i in ins {
                for &o in outs {
                    deps.push((Forward(PortRef::In(i)), Forward(PortRef::Out(o))));
                    deps.push((Ready(PortRef::Out(o)), Ready(PortRef::In(i))));
                }
                for &j in ins {
                    deps.push((Forward(PortRef::In(j)), Ready(PortRef::In(i))));
                }
            }
        };
        let all = |n: usize| (0..n).collect::<Vec<_>>();
        let only =
            |list: &[usize], n: usize| list.iter().copied().filter(|&i| i < n).collect::<Vec<_>>();
        match self {
            Comb::None => {}
            Comb::Join => join(&all(n_in), &all(n_out)),
            Comb::Island => {
                for i in 0..n_in {
                    for j in 0..n_in {
                        deps.push((Forward(PortRef::In(j)), Ready(PortRef::In(i))));
                    }
                }
            }
            Comb::Pipeline => {
                if n_in > 0 && n_out > 0 {
                    deps.push((Ready(PortRef::Out(0)), Ready(PortRef::In(0))));
                }
            }
            Comb::Bypass { ready_through } => {
                if n_in > 0 && n_out > 0 {
                    deps.push((Forward(PortRef::In(0)), Forward(PortRef::Out(0))));
                    if ready_through {
                        deps.push((Ready(PortRef::Out(0)), Ready(PortRef::In(0))));
                    }
                }
            }
            Comb::Parallel { ready_through } => {
                for k in 0..n_in.min(n_out) {
                    deps.push((Forward(PortRef::In(k)), Forward(PortRef::Out(k))));
                    if ready_through {
                        deps.push((Ready(PortRef::Out(k)), Ready(PortRef::In(k))));
                    }
                }
            }
            Comb::DynMc { ctrl, ld, st } => {
                let (c, l, s) = (ctrl as usize, ld as usize, st as usize);
                for i in 0..l {
                    for k in 0..=i {
                        deps.push((
                            Forward(PortRef::In(1 + c + k)),
                            Ready(PortRef::In(1 + c + i)),
                        ));
                        deps.push((Ready(PortRef::Out(k)), Ready(PortRef::In(1 + c + i))));
                    }
                }
                for j in 0..s {
                    for k in 0..=j {
                        for a in [0, 1] {
                            for b in [0, 1] {
                                deps.push((
                                    Forward(PortRef::In(1 + c + l + 2 * k + a)),
                                    Ready(PortRef::In(1 + c + l + 2 * j + b)),
                                ));
                            }
                        }
                    }
                }
                // Only ports the node has (a malformed node may have fewer).
                deps.retain(|&(from, to)| {
                    [from, to].into_iter().all(|p| match p {
                        Forward(PortRef::In(i)) | Ready(PortRef::In(i)) => i < n_in,
                        Forward(PortRef::Out(o)) | Ready(PortRef::Out(o)) => o < n_out,
                    })
                });
            }
            Comb::SkidMerge => {
                for i in 0..n_in {
                    for o in 0..n_out {
                        deps.push((Forward(PortRef::In(i)), Forward(PortRef::Out(o))));
                    }
                    for j in 0..n_in {
                        deps.push((Forward(PortRef::In(j)), Ready(PortRef::In(i))));
                    }
                }
            }
            Comb::Load => {
                join(&only(&[0, 2], n_in), &only(&[1], n_out));
                join(&only(&[1], n_in), &only(&[0], n_out));
            }
            Comb::LazyFork => {
                for i in 0..n_in {
                    for o in 0..n_out {
                        deps.push((Forward(PortRef::In(i)), Forward(PortRef::Out(o))));
                        deps.push((Ready(PortRef::Out(o)), Ready(PortRef::In(i))));
                    }
                }
                for a in 0..n_out {
                    for b in 0..n_out {
                        if a != b {
                            deps.push((Ready(PortRef::Out(b)), Forward(PortRef::Out(a))));
                        }
                    }
                }
            }
            Comb::AddrQueue { ld, st } => {
                let (ld, st) = (ld as usize, st as usize);
                for i in 0..ld {
                    join(&only(&[2 * i, 2 * i + 1], n_in), &only(&[i], n_out));
                }
                for j in 0..st {
                    let pair = |k: usize| only(&[2 * ld + 3 * k, 2 * ld + 3 * k + 1], n_in);
                    for c in pair(j) {
                        if ld + j < n_out {
                            deps.push((Ready(PortRef::Out(ld + j)), Ready(PortRef::In(c))));
                        }
                        // Taken together, after the ports before it (room).
                        for k in 0..=j {
                            for e in pair(k) {
                                deps.push((Forward(PortRef::In(e)), Ready(PortRef::In(c))));
                            }
                        }
                    }
                }
            }
            Comb::Memory { ld, st } => {
                let (ld, st) = (ld as usize, st as usize);
                for i in 0..ld {
                    join(&only(&[2 * st + i], n_in), &only(&[i, ld + st + i], n_out));
                }
                for j in 0..st {
                    if ld + j < n_out {
                        for c in only(&[2 * j, 2 * j + 1], n_in) {
                            deps.push((Ready(PortRef::Out(ld + j)), Ready(PortRef::In(c))));
                        }
                    }
                }
            }
        }
        deps
    }
}
