//! The built-in example gallery, embedded in the binary.

/// One embedded example: a file name and its text.
pub struct Example {
    /// File name under `examples/circuits/` (`.mlir`), `examples/dynamatic/` (`.mlir` in
    /// Dynamatic's dialect), `examples/streams/` (`.mlir` in the Stream dialect) or
    /// `examples/kernels/` (`.c`).
    pub name: &'static str,
    /// File contents.
    pub text: &'static str,
}

/// Every embedded example: the handshake circuits (the default one first), then the C kernels.
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
        name: "float_ops.mlir",
        text: include_str!("../../examples/circuits/float_ops.mlir"),
    },
    Example {
        name: "deadlock_join.mlir",
        text: include_str!("../../examples/circuits/deadlock_join.mlir"),
    },
    Example {
        name: "deadlock_join_fixed.mlir",
        text: include_str!("../../examples/circuits/deadlock_join_fixed.mlir"),
    },
    Example {
        name: "reconvergent_unbalanced.mlir",
        text: include_str!("../../examples/circuits/reconvergent_unbalanced.mlir"),
    },
    Example {
        name: "reconvergent_chain.mlir",
        text: include_str!("../../examples/circuits/reconvergent_chain.mlir"),
    },
    Example {
        name: "loop_task_slack.mlir",
        text: include_str!("../../examples/circuits/loop_task_slack.mlir"),
    },
    Example {
        name: "select_from_i1.mlir",
        text: include_str!("../../examples/circuits/select_from_i1.mlir"),
    },
    Example {
        name: "clamp_min_max.mlir",
        text: include_str!("../../examples/circuits/clamp_min_max.mlir"),
    },
    Example {
        name: "comb_cycle.mlir",
        text: include_str!("../../examples/circuits/comb_cycle.mlir"),
    },
    // A circuit in Dynamatic's dialect (examples/dynamatic).
    Example {
        name: "dynamatic_diamond.mlir",
        text: include_str!("../../examples/dynamatic/dynamatic_diamond.mlir"),
    },
    // Stream programs in CIRCT's Stream dialect (examples/streams).
    Example {
        name: "range_stats.mlir",
        text: include_str!("../../examples/streams/range_stats.mlir"),
    },
    Example {
        name: "filter_reg.mlir",
        text: include_str!("../../examples/streams/filter_reg.mlir"),
    },
    Example {
        name: "split_combine.mlir",
        text: include_str!("../../examples/streams/split_combine.mlir"),
    },
    Example {
        name: "triangle_loop.mlir",
        text: include_str!("../../examples/streams/triangle_loop.mlir"),
    },
    // C kernels (examples/kernels), stimulus from their first `// RUN:` line.
    Example {
        name: "binary_search.c",
        text: include_str!("../../examples/kernels/binary_search.c"),
    },
    Example {
        name: "bitrev.c",
        text: include_str!("../../examples/kernels/bitrev.c"),
    },
    Example {
        name: "carried_dep.c",
        text: include_str!("../../examples/kernels/carried_dep.c"),
    },
    Example {
        name: "collatz.c",
        text: include_str!("../../examples/kernels/collatz.c"),
    },
    Example {
        name: "cond_accum.c",
        text: include_str!("../../examples/kernels/cond_accum.c"),
    },
    Example {
        name: "dot.c",
        text: include_str!("../../examples/kernels/dot.c"),
    },
    Example {
        name: "fir.c",
        text: include_str!("../../examples/kernels/fir.c"),
    },
    Example {
        name: "gcd.c",
        text: include_str!("../../examples/kernels/gcd.c"),
    },
    Example {
        name: "helper_call.c",
        text: include_str!("../../examples/kernels/helper_call.c"),
    },
    Example {
        name: "histogram.c",
        text: include_str!("../../examples/kernels/histogram.c"),
    },
    Example {
        name: "insertion_sort.c",
        text: include_str!("../../examples/kernels/insertion_sort.c"),
    },
    Example {
        name: "matmul.c",
        text: include_str!("../../examples/kernels/matmul.c"),
    },
    Example {
        name: "matvec.c",
        text: include_str!("../../examples/kernels/matvec.c"),
    },
    Example {
        name: "nested_loops.c",
        text: include_str!("../../examples/kernels/nested_loops.c"),
    },
    Example {
        name: "popcount.c",
        text: include_str!("../../examples/kernels/popcount.c"),
    },
    Example {
        name: "prefix_sum.c",
        text: include_str!("../../examples/kernels/prefix_sum.c"),
    },
    Example {
        name: "stencil1d.c",
        text: include_str!("../../examples/kernels/stencil1d.c"),
    },
    Example {
        name: "stencil2d.c",
        text: include_str!("../../examples/kernels/stencil2d.c"),
    },
    Example {
        name: "three_loops.c",
        text: include_str!("../../examples/kernels/three_loops.c"),
    },
    Example {
        name: "triangle_sum.c",
        text: include_str!("../../examples/kernels/triangle_sum.c"),
    },
    Example {
        name: "while_threshold.c",
        text: include_str!("../../examples/kernels/while_threshold.c"),
    },
    // Float kernels.
    Example {
        name: "gemm_f32.c",
        text: include_str!("../../examples/kernels/gemm_f32.c"),
    },
    Example {
        name: "newton_sqrt_f64.c",
        text: include_str!("../../examples/kernels/newton_sqrt_f64.c"),
    },
    Example {
        name: "conv2d_f32.c",
        text: include_str!("../../examples/kernels/conv2d_f32.c"),
    },
    Example {
        name: "iir_f32.c",
        text: include_str!("../../examples/kernels/iir_f32.c"),
    },
];
