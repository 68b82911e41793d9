//! A load-store queue's configuration, from the IR alone: its groups (one per control
//! operand, the group's loads and stores in program order), each load's place among the
//! group's stores, and the depths of its two queues (`docs/dynamatic.md`, "Load-store
//! queues"). What the LSQ then does with them is the engine's (issue #32).

use std::collections::HashMap;
use std::fmt;

use super::ast::{DynFunc, DynOp, DynValue, LsqMode, OpParams};
use super::kinds::DynOpKind;

/// Dynamatic's queue depth when the file gives none (`handshake.lsqDepth` absent).
pub const DEFAULT_DEPTH: u32 = 16;

pub use handscope_sim::LsqAccess;

/// Queue depths given on the command line (`--lsq-depth NAME=LOADS/STORES`), by the LSQ's
/// `handshake.name`: (load entries, store entries).
pub type LsqDepths = std::collections::BTreeMap<String, (u32, u32)>;

/// Where a queue depth came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DepthSource {
    /// The file's `handshake.lsqDepth`.
    File,
    /// The command line (`--lsq-depth NAME=LOADS/STORES`).
    Given,
    /// Dynamatic's default, [`DEFAULT_DEPTH`].
    Default,
}

/// An LSQ's configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LsqConfig {
    /// Its `handshake.name` (empty when it has none).
    pub name: String,
    /// Master (owns its memory) or slave (behind a memory controller).
    pub mode: LsqMode,
    /// The groups in operand order, each its accesses in program order.
    pub groups: Vec<Vec<LsqAccess>>,
    /// Load queue entries (from [`LsqConfig::depth_source`], raised to one more than the
    /// largest group's loads when not deeper, as Dynamatic does).
    pub load_depth: u32,
    /// Store queue entries.
    pub store_depth: u32,
    /// Where the depths come from.
    pub depth_source: DepthSource,
}

/// Why an LSQ's operands do not make a configuration.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct LsqConfigError {
    /// What is wrong.
    pub message: String,
    /// The operand it concerns, when one does.
    pub at: Option<DynValue>,
}

impl LsqConfig {
    /// Loads of group `g` (the simulator's [`handscope_sim::LsqShape`] counts them).
    pub fn loads(&self, g: usize) -> usize {
        self.shape().loads(g)
    }

    /// Stores of group `g`.
    pub fn stores(&self, g: usize) -> usize {
        self.shape().stores(g)
    }

    /// For each load of group `g`, how many of the group's stores come before it in program
    /// order (Dynamatic's `ldOrder`).
    pub fn load_order(&self, g: usize) -> Vec<usize> {
        self.shape().load_order(g)
    }

    /// The configuration with the queue depths `loads`/`stores` given on the command line.
    pub fn with_depths(mut self, loads: u32, stores: u32) -> LsqConfig {
        self.load_depth = loads;
        self.store_depth = stores;
        self.depth_source = DepthSource::Given;
        self
    }

    /// The simulator's shape of the queue: its groups and depths.
    pub fn shape(&self) -> handscope_sim::LsqShape {
        handscope_sim::LsqShape {
            groups: self.groups.clone(),
            load_depth: self.load_depth,
            store_depth: self.store_depth,
            end_once: false,
        }
    }

    /// The largest group's loads and stores: a queue needs at least that many entries to
    /// allocate the group at all.
    pub fn largest_group(&self) -> (usize, usize) {
        self.shape().largest_group()
    }
}

impl fmt::Display for LsqConfig {
    /// `2 groups: (load, store), (load, load, store); queues 16 loads / 16 stores (Dynamatic's
    /// default)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let groups: Vec<String> = self
            .groups
            .iter()
            .map(|g| {
                let a: Vec<&str> = g
                    .iter()
                    .map(|a| match a {
                        LsqAccess::Load => "load",
                        LsqAccess::Store => "store",
                    })
                    .collect();
                format!("({})", a.join(", "))
            })
            .collect();
        let n = self.groups.len();
        write!(
            f,
            "{n} group{}: {}; queues of {} loads / {} stores ({})",
            if n == 1 { "" } else { "s" },
            groups.join(", "),
            self.load_depth,
            self.store_depth,
            match self.depth_source {
                DepthSource::File => "the file's handshake.lsqDepth",
                DepthSource::Given => "given with --lsq-depth",
                DepthSource::Default => "Dynamatic's default: the file gives no handshake.lsqDepth",
            }
        )
    }
}

/// The configuration of `op`, an `lsq` of function `f`. Which operand is a load's address,
/// a store's address or a store's data follows from what produces it (through buffers), as
/// for the memory controller; `groupSizes` says how many accesses each group has.
pub fn lsq_config(f: &DynFunc, op: &DynOp) -> Result<LsqConfig, LsqConfigError> {
    let err = |message: String, at: Option<&DynValue>| LsqConfigError {
        message,
        at: at.cloned(),
    };
    let OpParams::Lsq(p) = &op.params else {
        return Err(err("not a load-store queue".into(), None));
    };
    let producers = producers(f);
    let origin = |v: &DynValue| -> Option<(DynOpKind, usize)> {
        let mut key = (v.name.clone(), v.index);
        for _ in 0..=f.ops.len() {
            let &(i, k) = producers.get(&key)?;
            let o = &f.ops[i];
            if o.kind != DynOpKind::Buffer {
                return Some((o.kind.clone(), k));
            }
            let input = o.operands.first()?;
            key = (input.name.clone(), input.index);
        }
        None
    };
    // Master: memStart first and ctrlEnd last; slave: the groups, then the load data that
    // come back from the memory controller.
    let ops = &op.operands;
    let mut at = usize::from(p.mode == LsqMode::Master);
    let mut groups = Vec::new();
    for (g, &size) in p.group_sizes.iter().enumerate() {
        let Some(ctrl) = ops.get(at) else {
            return Err(err(format!("group {g} has no control operand"), None));
        };
        if matches!(origin(ctrl), Some((DynOpKind::Load | DynOpKind::Store, _))) {
            return Err(err(
                format!("group {g}'s control operand is a memory access"),
                Some(ctrl),
            ));
        }
        at += 1;
        let mut accesses = Vec::new();
        for _ in 0..size {
            let Some(v) = ops.get(at) else {
                return Err(err(
                    format!("group {g} lists {size} accesses; the operands end before them"),
                    None,
                ));
            };
            match origin(v) {
                Some((DynOpKind::Load, 0)) => {
                    accesses.push(LsqAccess::Load);
                    at += 1;
                }
                Some((DynOpKind::Store, 0)) => {
                    match ops.get(at + 1).and_then(&origin) {
                        Some((DynOpKind::Store, 1)) => {}
                        _ => {
                            return Err(err(
                                "a store address not followed by a store's data".into(),
                                Some(v),
                            ));
                        }
                    }
                    accesses.push(LsqAccess::Store);
                    at += 2;
                }
                _ => {
                    return Err(err(
                        format!("group {g}: expected a load or store address"),
                        Some(v),
                    ));
                }
            }
        }
        groups.push(accesses);
    }
    let rest = ops.len() - at.min(ops.len());
    let has_loads = groups.iter().flatten().any(|a| *a == LsqAccess::Load);
    let expected_rest = match p.mode {
        LsqMode::Master => 1,
        LsqMode::Slave => usize::from(has_loads),
    };
    if rest != expected_rest {
        return Err(err(
            format!(
                "{} operands after the groups, expected {expected_rest} ({})",
                rest,
                match p.mode {
                    LsqMode::Master => "ctrlEnd",
                    LsqMode::Slave => "the memory controller's load data",
                }
            ),
            ops.get(at),
        ));
    }
    let mut config = LsqConfig {
        name: op.name.clone().unwrap_or_default(),
        mode: p.mode,
        groups,
        load_depth: DEFAULT_DEPTH,
        store_depth: DEFAULT_DEPTH,
        depth_source: DepthSource::Default,
    };
    if let Some((l, s)) = p.depth {
        config.load_depth = l;
        config.store_depth = s;
        config.depth_source = DepthSource::File;
    }
    // Dynamatic raises a queue no deeper than its largest group to one entry more (a group
    // must fit, and the generator needs the spare entry).
    let (l, s) = config.largest_group();
    config.load_depth = config.load_depth.max(l as u32 + 1);
    config.store_depth = config.store_depth.max(s as u32 + 1);
    Ok(config)
}

/// Every SSA value's producing op (its index) and result number.
fn producers(f: &DynFunc) -> HashMap<(String, u32), (usize, usize)> {
    let mut m = HashMap::new();
    for (i, op) in f.ops.iter().enumerate() {
        let mut k = 0;
        for g in &op.results {
            for j in 0..g.count {
                m.insert((g.name.clone(), j), (i, k));
                k += 1;
            }
        }
    }
    m
}
