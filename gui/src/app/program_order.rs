//! The program structure a layout follows: basic blocks in program order (`bb2` before
//! `bb10`) and the loops they form, as nested block ranges. Both come from the graph alone:
//! a block's number is its place in the program, and a channel from a block back into a
//! merge-like node of an earlier block (or of itself, from its own `cond_br`) is a loop's
//! back edge, the earlier block its header.

use std::cmp::Ordering;

use cranelift_entity::EntityRef;
use handscope_sim::{Function, NodeId, Op};

/// A loop: the blocks `first..=last` of [`blocks`]' order (one block when the loop's body
/// is a single block), with the loops nested in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loop {
    /// Index of the header block.
    pub first: usize,
    /// Index of the last block of the loop (the latest block with a back edge to the header).
    pub last: usize,
    /// Loops inside this one, in program order.
    pub inner: Vec<Loop>,
}

/// Orders block labels as a program lists them: by the number after a `bb` prefix (so `bb2`
/// comes before `bb10`), or by the source line of a stream operator's group (`map0 (line 7)`);
/// labels without either after those, by name.
pub fn block_cmp(a: &str, b: &str) -> Ordering {
    let num = |s: &str| {
        s.strip_prefix("bb")
            .filter(|d| !d.is_empty() && d.bytes().all(|c| c.is_ascii_digit()))
            .and_then(|d| d.parse::<u64>().ok())
            .or_else(|| handscope_sim::stream::operator_line(s))
    };
    match (num(a), num(b)) {
        (Some(x), Some(y)) => x.cmp(&y).then_with(|| a.cmp(b)),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => a.cmp(b),
    }
}

/// The distinct block labels of `f`'s nodes, in program order.
pub fn blocks(f: &Function) -> Vec<&str> {
    let mut b: Vec<&str> = f
        .nodes
        .values()
        .filter_map(|n| n.block.as_deref())
        .collect();
    b.sort_unstable_by(|x, y| block_cmp(x, y));
    b.dedup();
    b
}

/// The loops of `f` over the block order `blocks`, outermost first. Each header gets one
/// loop reaching its latest back edge; a range that overlaps another without nesting in it
/// (an irreducible shape) is dropped, so the result always nests. A stream program (a
/// function with stream arguments or results) has none.
pub fn loops(f: &Function, blocks: &[&str]) -> Vec<Loop> {
    // A stream program's blocks are its operators, each box its own unit: the feedback of
    // its registers is inside one operator, and no operator runs again after a later one.
    if !f.stream_names().is_empty() {
        return Vec::new();
    }
    let block_of = block_index(f, blocks);
    let mut reach: Vec<Option<usize>> = vec![None; blocks.len()];
    for ch in f.channels.values() {
        let Some(from) = block_of[ch.producer.node.index()] else {
            continue;
        };
        for c in &ch.consumers {
            // A channel back to an earlier block, or a block's own branch back into it
            // (a loop of one block), that ends in a merge-like node of its block.
            if let Some(to) = block_of[c.node.index()]
                && runs_backwards(f, &block_of, ch.producer.node, c.node)
                && enters_merge(f, c.node)
            {
                let r = &mut reach[to];
                *r = Some(r.map_or(from, |x| x.max(from)));
            }
        }
    }
    // Ranges by start, longest first, then nested with a stack of open ranges.
    let mut roots: Vec<Loop> = Vec::new();
    let mut open: Vec<Loop> = Vec::new();
    let close = |open: &mut Vec<Loop>, roots: &mut Vec<Loop>| {
        if let Some(done) = open.pop() {
            match open.last_mut() {
                Some(parent) => parent.inner.push(done),
                None => roots.push(done),
            }
        }
    };
    for (first, last) in reach
        .iter()
        .enumerate()
        .filter_map(|(h, r)| r.map(|l| (h, l)))
    {
        while open.last().is_some_and(|o| o.last < first) {
            close(&mut open, &mut roots);
        }
        if open.last().is_some_and(|o| o.last < last) {
            continue;
        }
        open.push(Loop {
            first,
            last,
            inner: Vec::new(),
        });
    }
    while !open.is_empty() {
        close(&mut open, &mut roots);
    }
    roots
}

/// Each node's block as its index in `blocks` (the order of [`blocks`]), by node index;
/// `None` for a node outside every block.
pub fn block_index(f: &Function, blocks: &[&str]) -> Vec<Option<usize>> {
    f.nodes
        .values()
        .map(|n| {
            n.block
                .as_deref()
                .and_then(|b| blocks.binary_search_by(|x| block_cmp(x, b)).ok())
        })
        .collect()
}

/// Whether the channel from `producer` to `consumer` runs against the program order: into an
/// earlier block, or from a block's `cond_br` back into a merge-like node of the same block
/// (a loop of one block). `block_of` gives each node's index in [`blocks`]' order.
pub fn runs_backwards(
    f: &Function,
    block_of: &[Option<usize>],
    producer: NodeId,
    consumer: NodeId,
) -> bool {
    match (block_of[producer.index()], block_of[consumer.index()]) {
        (Some(from), Some(to)) => {
            to < from
                || (to == from
                    && matches!(f.nodes[producer].op, Op::CondBr)
                    && enters_merge(f, consumer))
        }
        _ => false,
    }
}

/// Whether a token reaching `n` goes on to a merge-like node (`mux`, `merge`,
/// `control_merge`) of `n`'s block, through buffers and forks of that block: the shape of a
/// loop's back edge into its header. (A function's invocation lock, a buffer feeding a join,
/// is not one.)
fn enters_merge(f: &Function, n: NodeId) -> bool {
    let block = &f.nodes[n].block;
    let mut todo = vec![n];
    let mut seen = std::collections::BTreeSet::new();
    while let Some(n) = todo.pop() {
        if !seen.insert(n) {
            continue;
        }
        let node = &f.nodes[n];
        match node.op {
            Op::Mux | Op::Merge | Op::ControlMerge | Op::DynControlMerge => return true,
            Op::Buffer { .. } | Op::DynBuffer { .. } | Op::Fork => {
                for &o in &node.outputs {
                    todo.extend(
                        f.channels[o]
                            .consumers
                            .iter()
                            .map(|c| c.node)
                            .filter(|&c| f.nodes[c].block == *block),
                    );
                }
            }
            _ => {}
        }
    }
    false
}

#[cfg(test)]
pub(crate) mod tests;
