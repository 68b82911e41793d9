//! The built-in example gallery, embedded in the binary.

/// One embedded example: a file name and its text.
pub struct Example {
    /// File name under `examples/circuits/`.
    pub name: &'static str,
    /// File contents.
    pub text: &'static str,
}

/// Every embedded example circuit, the default one first.
pub const CIRCUITS: &[Example] = &[
    Example {
        name: "counter_loop.mlir",
        text: include_str!("../../examples/circuits/counter_loop.mlir"),
    },
    Example {
        name: "fork_join_diamond.mlir",
        text: include_str!("../../examples/circuits/fork_join_diamond.mlir"),
    },
    Example {
        name: "buffer_ring.mlir",
        text: include_str!("../../examples/circuits/buffer_ring.mlir"),
    },
    Example {
        name: "memory_roundtrip.mlir",
        text: include_str!("../../examples/circuits/memory_roundtrip.mlir"),
    },
    Example {
        name: "extmem_add.mlir",
        text: include_str!("../../examples/circuits/extmem_add.mlir"),
    },
    Example {
        name: "sync_align.mlir",
        text: include_str!("../../examples/circuits/sync_align.mlir"),
    },
    Example {
        name: "pack_unpack.mlir",
        text: include_str!("../../examples/circuits/pack_unpack.mlir"),
    },
    Example {
        name: "instance_hierarchy.mlir",
        text: include_str!("../../examples/circuits/instance_hierarchy.mlir"),
    },
    Example {
        name: "deadlock_join.mlir",
        text: include_str!("../../examples/circuits/deadlock_join.mlir"),
    },
    Example {
        name: "comb_cycle.mlir",
        text: include_str!("../../examples/circuits/comb_cycle.mlir"),
    },
];
