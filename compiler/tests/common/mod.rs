//! Helpers shared by the integration tests: MLIR parsing and graph comparison here, the C
//! kernel harness in [`kernels`], the CIRCT Python lookup in [`python`].
#![allow(dead_code)]

pub mod kernels;
pub mod python;

use std::collections::BTreeMap;

use handscope_compiler::mlir::{parse_mlir, write_mlir};
use handscope_sim::{Function, Module};

/// Path of a file under `tests/data`.
pub fn data_path(name: &str) -> String {
    format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Reads a file under `tests/data`.
pub fn data(name: &str) -> String {
    std::fs::read_to_string(data_path(name)).unwrap_or_else(|e| panic!("reading {name}: {e}"))
}

/// Parses or panics with the rendered report.
pub fn parse_ok(src: &str) -> Module {
    match parse_mlir(src, "test.mlir") {
        Ok((m, _)) => m,
        Err(e) => panic!("unexpected parse error:\n{}", e.render()),
    }
}

/// Wraps an op list in a function with the given signature.
pub fn func(sig: &str, body: &str) -> String {
    format!("handshake.func @f({sig}) {{\n{body}\n}}\n")
}

/// A structural description of a function keyed by stable IDs, for comparisons.
fn describe(f: &Function, with_locs: bool) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    let args: Vec<String> = f
        .args
        .iter()
        .map(|a| format!("{}:{:?}", a.name, a.ty))
        .collect();
    let res: Vec<String> = f
        .results
        .iter()
        .map(|r| format!("{}:{}", r.name, r.ty))
        .collect();
    let mut fattrs = f.attrs.clone();
    fattrs.sort();
    m.insert(
        "#func".to_string(),
        format!(
            "{} args={args:?} res={res:?} ext={} attrs={fattrs:?} loc={:?}",
            f.name,
            f.external,
            if with_locs { f.loc.clone() } else { None }
        ),
    );
    for (_, n) in f.nodes.iter() {
        let ins: Vec<String> = n
            .inputs
            .iter()
            .map(|c| f.channels[*c].name.clone())
            .collect();
        let outs: Vec<String> = n
            .outputs
            .iter()
            .map(|c| format!("{}:{}", f.channels[*c].name, f.channels[*c].ty))
            .collect();
        let mut attrs = n.attrs.clone();
        attrs.sort();
        // A location pointing into the re-read text is the implicit one the reader gives an
        // op written without `loc(...)`: it stands for "no location" in the original.
        let loc = if with_locs {
            n.loc.clone().filter(|l| &*l.file != "written.mlir")
        } else {
            None
        };
        let d = format!(
            "op={:?} hint={:?} block={:?} loc={loc:?} attrs={attrs:?} ins={ins:?} outs={outs:?}",
            n.op, n.name_hint, n.block
        );
        assert!(m.insert(n.id.clone(), d).is_none(), "duplicate id {}", n.id);
    }
    m
}

/// Describes a whole module, function by function.
pub fn describe_module(m: &Module, with_locs: bool) -> Vec<BTreeMap<String, String>> {
    m.functions.iter().map(|f| describe(f, with_locs)).collect()
}

/// True when both modules have the same graphs: same IDs, ops, types, connections, blocks,
/// attributes and (when asked) locations. Panics with a diff-friendly message otherwise.
pub fn graphs_equivalent(a: &Module, b: &Module, with_locs: bool) -> bool {
    let (da, db) = (describe_module(a, with_locs), describe_module(b, with_locs));
    assert_eq!(da.len(), db.len(), "function count differs");
    for (fa, fb) in da.iter().zip(&db) {
        for (k, v) in fa {
            assert_eq!(Some(v), fb.get(k), "node {k} differs");
        }
        assert_eq!(
            fa.len(),
            fb.len(),
            "node sets differ: {:?} vs {:?}",
            fa.keys().collect::<Vec<_>>(),
            fb.keys().collect::<Vec<_>>()
        );
    }
    true
}

/// Parse → write → parse, checking equivalence and that writing is idempotent. Returns the text.
pub fn round_trip(src: &str) -> String {
    let m1 = parse_ok(src);
    let w1 = write_mlir(&m1);
    let m2 = match parse_mlir(&w1, "written.mlir") {
        Ok((m, _)) => m,
        Err(e) => panic!("writer output does not parse:\n{}\n{w1}", e.render()),
    };
    assert!(graphs_equivalent(&m1, &m2, true));
    let opts = handscope_compiler::mlir::WriteOptions {
        omit_locations_in: Some("written.mlir".into()),
    };
    let w2 = handscope_compiler::mlir::write_mlir_with(&m2, &opts);
    assert_eq!(w1, w2, "writing is not idempotent");
    w1
}
