//! A per-function overview of a parsed file: op counts, channels, basic blocks, memories.

use std::collections::{BTreeMap, BTreeSet};

use handscope_sim::MemRefType;

use super::ast::{DynFunc, DynModule, DynType, LsqMode, OpParams};
use super::era::Era;
use super::kinds::DynOpKind;

/// What one function contains.
#[derive(Clone, Debug, PartialEq)]
pub struct FuncSummary {
    /// The function's name.
    pub name: String,
    /// The file's syntax era.
    pub era: Era,
    /// How many ops of each mnemonic (as printed).
    pub op_counts: BTreeMap<String, usize>,
    /// Channels: non-memref arguments plus every op result.
    pub channels: usize,
    /// The basic blocks (`handshake.bb`) that occur.
    pub basic_blocks: BTreeSet<u32>,
    /// The memories (memref arguments), in argument order.
    pub memories: Vec<MemorySummary>,
}

/// One memory of a function and the interface that serves it.
#[derive(Clone, Debug, PartialEq)]
pub struct MemorySummary {
    /// The argument's name (from `argNames`).
    pub name: String,
    /// Its type.
    pub ty: MemRefType,
    /// The kind of interface bound to it.
    pub interface: InterfaceKind,
    /// The bound interface's `handshake.name`, if it has one.
    pub interface_name: Option<String>,
}

/// How a memory is accessed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InterfaceKind {
    /// A `mem_controller` alone.
    MemController,
    /// A `mem_controller` with a slave `lsq[MC]` feeding it.
    MemControllerWithLsq,
    /// A master `lsq`.
    Lsq,
    /// Nothing binds the memory.
    Unused,
}

impl DynModule {
    /// One summary per function, in file order.
    pub fn summary(&self) -> Vec<FuncSummary> {
        self.funcs.iter().map(|f| summarize(f, self.era)).collect()
    }
}

fn summarize(f: &DynFunc, era: Era) -> FuncSummary {
    let mut op_counts = BTreeMap::new();
    let mut basic_blocks = BTreeSet::new();
    let mut channels = f
        .args
        .iter()
        .filter(|a| !matches!(a.ty, DynType::MemRef(_)))
        .count();
    // Results of slave LSQs, to see which controllers serve one.
    let mut slave_results = BTreeSet::new();
    for op in &f.ops {
        *op_counts.entry(op.mnemonic.clone()).or_insert(0) += 1;
        basic_blocks.extend(op.bb);
        channels += op.results.iter().map(|r| r.count as usize).sum::<usize>();
        if let OpParams::Lsq(p) = &op.params
            && p.mode == LsqMode::Slave
        {
            slave_results.extend(op.results.iter().map(|r| r.name.as_str()));
        }
    }
    let memories = f
        .args
        .iter()
        .filter_map(|a| {
            let DynType::MemRef(ty) = &a.ty else {
                return None;
            };
            let op = f
                .ops
                .iter()
                .find(|op| op.memref.as_ref().is_some_and(|m| m.value.name == a.ssa));
            let interface = match op.map(|o| &o.kind) {
                Some(DynOpKind::MemController) => {
                    let fed = op.is_some_and(|o| {
                        o.operands
                            .iter()
                            .any(|u| slave_results.contains(u.name.as_str()))
                    });
                    if fed {
                        InterfaceKind::MemControllerWithLsq
                    } else {
                        InterfaceKind::MemController
                    }
                }
                Some(DynOpKind::Lsq) => InterfaceKind::Lsq,
                _ => InterfaceKind::Unused,
            };
            Some(MemorySummary {
                name: a.name.clone(),
                ty: ty.clone(),
                interface,
                interface_name: op.and_then(|o| o.name.clone()),
            })
        })
        .collect();
    FuncSummary {
        name: f.name.clone(),
        era,
        op_counts,
        channels,
        basic_blocks,
        memories,
    }
}
