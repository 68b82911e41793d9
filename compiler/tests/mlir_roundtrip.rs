//! Read → write → read round trips over the sample files, and agreement between the forms
//! CIRCT prints (custom, generic, with and without debug locations).

use crate::common;

use common::{data, describe_module, graphs_equivalent, parse_ok, round_trip};
use handscope_compiler::mlir::{parse_mlir, write_function, write_mlir};

const SAMPLES: &[&str] = &[
    "all_ops.mlir",
    "all_ops.circt_custom.mlir",
    "all_ops.circt_loc.mlir",
    "all_ops.circt_generic.mlir",
    "all_ops.circt_gloc.mlir",
    "loop.mlir",
];

#[test]
fn every_sample_round_trips() {
    for s in SAMPLES {
        let w = round_trip(&data(s));
        assert!(w.starts_with("module {\n"), "{s}");
    }
}

#[test]
fn circt_printed_forms_give_the_same_graph() {
    let base = parse_ok(&data("all_ops.mlir"));
    for s in &SAMPLES[1..5] {
        let m = parse_ok(&data(s));
        assert!(graphs_equivalent(&base, &m, false), "{s}");
    }
    // With debug info, custom and generic forms carry identical locations.
    let a = parse_ok(&data("all_ops.circt_loc.mlir"));
    let b = parse_ok(&data("all_ops.circt_gloc.mlir"));
    assert!(graphs_equivalent(&a, &b, true));
    let f = &a.functions[0];
    let br = f.node_by_id("br0").unwrap();
    assert_eq!(f.nodes[br].loc.as_ref().unwrap().to_string(), "f.c:3:5");
    let add = f.node_by_id("addi0").unwrap();
    assert_eq!(f.nodes[add].loc.as_ref().unwrap().to_string(), "f.c:7:2");
}

#[test]
fn forward_references_build_the_loop() {
    let m = parse_ok(&data("loop.mlir"));
    let f = &m.functions[0];
    assert_eq!(f.args[1].name, "start");
    assert_eq!(f.results[0].name, "sum");
    // The first mux reads the addi defined later in the text.
    let mux = f.node_by_id("mux0").unwrap();
    let back = f.nodes[mux].inputs[2];
    assert_eq!(f.channels[back].name, "addi0.out0");
    let cm = f.node_by_id("control_merge0").unwrap();
    assert_eq!(f.nodes[cm].block.as_deref(), Some("bb1"));
    assert_eq!(f.channels[f.nodes[cm].inputs[1]].name, "buffer1.out0");
    let cmp = f.node_by_id("cmpi0").unwrap();
    assert_eq!(f.nodes[cmp].loc.as_ref().unwrap().to_string(), "sum.c:3:16");
    assert_eq!(
        f.op_counts().iter().find(|(k, _)| *k == "fork").unwrap().1,
        6
    );
}

#[test]
fn writer_is_deterministic_and_function_printer_is_parseable() {
    let m = parse_ok(&data("loop.mlir"));
    let a = write_mlir(&m);
    let b = write_mlir(&m.clone());
    assert_eq!(a, b);
    let single = write_function(&m.functions[0]);
    assert!(single.starts_with("handshake.func @sum("), "{single}");
    let (m2, _) = parse_mlir(&single, "single.mlir").unwrap();
    assert_eq!(describe_module(&m, true), describe_module(&m2, true));
}
