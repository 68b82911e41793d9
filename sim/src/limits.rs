//! Size limits of the graphs Handscope verifies and simulates.
//!
//! A few bytes of MLIR can ask for gigabytes: `fork [1000000000]`, `buffer [100000000]`,
//! `memref<1000000000xi32>`, or instances nested two per level forty levels deep. Each limit
//! below is far above what real circuits use and low enough that a graph at the limit
//! simulates on a machine with a few GiB to spare:
//!
//! | limit | value | why |
//! |---|---|---|
//! | [`MAX_PORTS`] inputs or outputs of one node | 2^20 = 1,048,576 | an unrolled C sum of 10^5 terms forks its block's control token 10^5 ways; hand-written graphs use a handful |
//! | [`MAX_BUFFER_SLOTS`] slots of one buffer | 2^16 = 65,536 | real FIFOs hold tens to thousands of tokens; each slot costs the simulator 4 named registers (about 200 bytes) |
//! | [`MAX_TOTAL_BUFFER_SLOTS`] slots of all buffers of a function | 2^20 | about 200 MiB of simulator state |
//! | [`MAX_MEMORY_ELEMENTS`] elements of all memories of a function | 2^24 = 16,777,216 | 64 MiB of 32-bit data, more than the on-chip RAM of any FPGA; the simulator keeps 8 bytes per element plus a copy in the trace's first snapshot (256 MiB at the limit) |
//! | [`MAX_NODES`] nodes of a function, instances inlined | 2^20 = 1,048,576 | a 10^5-term C sum is 4 * 10^5 nodes; a graph takes about 1 KiB per node (IDs, ports, locations) in memory, more while verified or simulated |
//! | [`MAX_HIERARCHY_DEPTH`] levels of nested instances | 256 | hierarchies are a few levels deep; inlining recurses once per level |
//!
//! Channels and memory elements wider than [`MAX_WIDTH`] = 16,384 bits are not simulated
//! either (values above 64 bits are interned, see [`crate::wide`]; every width CIRCT's
//! tests and generated kernels use is far below). [`check`] lists what a function exceeds: `verify` reports each as a
//! [`crate::verify::Rule::Limit`] error, so `handscope check` passing means `sim` can start;
//! the engine refuses such a function with an error instead of aborting on allocation; the
//! MLIR reader rejects a count over a limit where it reads it, before allocating for it.

use crate::graph::{Function, NodeId};
use crate::ops::Op;

/// Most input ports, and most output ports, of one node.
pub const MAX_PORTS: usize = 1 << 20;
/// Most slots of one buffer.
pub const MAX_BUFFER_SLOTS: u64 = 1 << 16;
/// Most buffer slots of one function in total.
pub const MAX_TOTAL_BUFFER_SLOTS: u64 = 1 << 20;
/// Largest latency and initiation interval of a `pipeline` (and of a timing profile's unit).
pub const MAX_LATENCY: u32 = 1 << 12;
/// Most entries of a load-store queue's load or store queue (each load entry keeps one bit
/// per store entry in a 64-bit word; Dynamatic's default is 16).
pub const MAX_LSQ_DEPTH: u32 = 64;
/// Most store addresses one address queue holds (every load compares its address with each
/// of them every cycle).
pub const MAX_ADDR_QUEUE_DEPTH: u32 = 1 << 10;
/// Most elements of all memories (`memory` and `extmemory`) of one function together.
pub const MAX_MEMORY_ELEMENTS: u64 = 1 << 24;
/// Most nodes of one function (after inlining its instances).
pub const MAX_NODES: usize = 1 << 20;
/// Most levels of instances inside instances.
pub const MAX_HIERARCHY_DEPTH: usize = 256;
/// Widest channel or memory element the simulator handles, in bits.
pub const MAX_WIDTH: u32 = crate::types::MAX_DATA_WIDTH;

/// One limit a function exceeds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Excess {
    /// The node to blame (for a total: the largest contributor), if any.
    pub node: Option<NodeId>,
    /// What is over which limit.
    pub message: String,
}

/// Formats `n` with thousands separators (`16,777,216`).
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Every limit `f` exceeds, in node order, totals last. Linear in the size of `f`.
pub fn check(f: &Function) -> Vec<Excess> {
    let mut out = Vec::new();
    if f.external {
        return out;
    }
    if f.nodes.len() > MAX_NODES {
        out.push(Excess {
            node: None,
            message: format!(
                "@{} has {} nodes; the limit is {}",
                f.name,
                thousands(f.nodes.len() as u64),
                thousands(MAX_NODES as u64)
            ),
        });
    }
    let (mut slots, mut biggest_buffer) = (0u64, None::<(u64, NodeId)>);
    let (mut elements, mut biggest_memory) = (0u64, None::<(u64, NodeId)>);
    for (id, node) in f.nodes.iter() {
        let mut over = |message: String| {
            out.push(Excess {
                node: Some(id),
                message,
            })
        };
        for (what, n) in [
            ("inputs", node.inputs.len()),
            ("outputs", node.outputs.len()),
        ] {
            if n > MAX_PORTS {
                over(format!(
                    "{} {what}; the limit is {}",
                    thousands(n as u64),
                    thousands(MAX_PORTS as u64)
                ));
            }
        }
        match &node.op {
            Op::Buffer { slots: s, .. } | Op::DynBuffer { slots: s, .. } => {
                let s = u64::from(*s);
                if s > MAX_BUFFER_SLOTS {
                    over(format!(
                        "a buffer of {} slots; the limit is {}",
                        thousands(s),
                        thousands(MAX_BUFFER_SLOTS)
                    ));
                }
                slots = slots.saturating_add(s);
                if biggest_buffer.is_none_or(|(b, _)| s > b) {
                    biggest_buffer = Some((s, id));
                }
            }
            Op::Pipeline { latency, ii } if *latency > MAX_LATENCY || *ii > MAX_LATENCY => {
                over(format!(
                    "a pipeline of latency {latency} and interval {ii}; the limit is {MAX_LATENCY}"
                ));
            }
            Op::DynPipeline { latency } if *latency > MAX_LATENCY => {
                over(format!(
                    "a pipeline of latency {latency}; the limit is {MAX_LATENCY}"
                ));
            }
            Op::DynCounterBuffer { latency } if *latency > MAX_LATENCY => {
                over(format!(
                    "a counter buffer of latency {latency}; the limit is {MAX_LATENCY}"
                ));
            }
            Op::Memory { memref, .. } | Op::ExtMemory { memref, .. } => {
                let len = memref
                    .dims
                    .iter()
                    .try_fold(1u64, |a, &d| a.checked_mul(d))
                    .unwrap_or(u64::MAX);
                if len == 0 {
                    over("a memory of 0 elements".to_string());
                }
                let w = memref.elem.bit_width();
                if w > MAX_WIDTH {
                    over(format!(
                        "memory elements of {w} bits; the simulator handles at most {MAX_WIDTH}"
                    ));
                }
                elements = elements.saturating_add(len);
                if biggest_memory.is_none_or(|(b, _)| len > b) {
                    biggest_memory = Some((len, id));
                }
            }
            _ => {}
        }
    }
    for (_, c) in f.channels.iter() {
        let w = c.ty.bit_width();
        if w > MAX_WIDTH {
            out.push(Excess {
                node: f.nodes.get(c.producer.node).map(|_| c.producer.node),
                message: format!(
                    "channel `{}` is {w} bits wide; the simulator handles at most {MAX_WIDTH}",
                    c.name
                ),
            });
        }
    }
    if slots > MAX_TOTAL_BUFFER_SLOTS {
        out.push(Excess {
            node: biggest_buffer.map(|(_, n)| n),
            message: format!(
                "the buffers of @{} hold {} slots together; the limit is {}",
                f.name,
                thousands(slots),
                thousands(MAX_TOTAL_BUFFER_SLOTS)
            ),
        });
    }
    if elements > MAX_MEMORY_ELEMENTS {
        let shown = if elements == u64::MAX {
            "more than 2^64".to_string()
        } else {
            thousands(elements)
        };
        out.push(Excess {
            node: biggest_memory.map(|(_, n)| n),
            message: format!(
                "the memories of @{} hold {shown} elements together; the limit is {}",
                f.name,
                thousands(MAX_MEMORY_ELEMENTS)
            ),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::ArgType;
    use crate::ops::BufferKind;
    use crate::types::{MemRefType, Type};

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(16_777_216), "16,777,216");
    }

    fn buffer(slots: u32) -> Op {
        Op::Buffer {
            slots,
            kind: BufferKind::Fifo,
            init: None,
        }
    }

    #[test]
    fn buffers_memories_and_widths_over_the_limits() {
        let mut f = Function::new("f");
        let a = f.add_arg("a", ArgType::Channel(Type::Int(32))).unwrap();
        let b = f.add_node(buffer(MAX_BUFFER_SLOTS as u32), vec![Type::Int(32)]);
        f.set_inputs(b, vec![a]);
        assert!(check(&f).is_empty());
        let big = f.add_node(buffer(MAX_BUFFER_SLOTS as u32 + 1), vec![Type::Int(32)]);
        let e = check(&f);
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].node, Some(big));
        assert_eq!(
            e[0].message,
            "a buffer of 65,537 slots; the limit is 65,536"
        );
        let mem = |dims: Vec<u64>, bits| Op::Memory {
            ld: 0,
            st: 0,
            id: 0,
            memref: MemRefType {
                dims,
                elem: Type::Int(bits),
            },
            lsq: false,
        };
        let mut f = Function::new("g");
        f.add_node(mem(vec![1 << 23], 32), vec![]);
        let m2 = f.add_node(mem(vec![1 << 12, 1 << 12], 32), vec![]);
        let e = check(&f);
        assert_eq!(e.len(), 1, "{e:?}");
        assert_eq!(e[0].node, Some(m2));
        assert!(
            e[0].message.contains("hold 25,165,824 elements together"),
            "{e:?}"
        );
        let mut f = Function::new("h");
        f.add_node(mem(vec![1 << 40, 1 << 40], 32), vec![]);
        f.add_node(mem(vec![0], 16_385), vec![]);
        let msgs: Vec<String> = check(&f).into_iter().map(|e| e.message).collect();
        assert_eq!(msgs.len(), 3, "{msgs:?}");
        assert!(msgs[0].contains("0 elements"));
        assert!(msgs[1].contains("16385 bits"), "{msgs:?}");
        assert!(msgs[2].contains("more than 2^64"));
        let mut f = Function::new("t");
        f.add_node(
            Op::Source,
            vec![Type::Tuple(vec![Type::Int(16_384), Type::Int(1)])],
        );
        let e = check(&f);
        assert!(e[0].message.contains("16385 bits wide"), "{e:?}");
    }
}
