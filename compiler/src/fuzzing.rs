//! Entry points of the coverage-guided fuzz targets (`fuzz/fuzz_targets/`), shared with the
//! tests that replay their minimized corpora (`tests/fuzz_corpus.rs`), so a corpus file runs
//! through exactly the code the fuzzer ran it through. Each function panics on a broken
//! invariant (that is how the fuzzer learns of it) and returns normally otherwise.

use crate::c::{HsOptions, compile_to_handshake};
use crate::mlir::{WriteOptions, parse_mlir, write_mlir, write_mlir_with};
use crate::render::render_diagnostic;

/// The C front end on arbitrary bytes (a nesting directive of
/// [`handscope_sim::fuzzing::unfold_nesting`] unfolded first): preprocess, parse, lower to SSA and to a handshake
/// graph. A rejection must be located inside the text and render (graphically or plainly)
/// without panicking; an accepted kernel must give a graph that verifies (what `handscope
/// check` runs) and prints as MLIR the reader accepts.
pub fn compile_c(data: &[u8]) {
    let data = &*handscope_sim::fuzzing::unfold_nesting(data);
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match compile_to_handshake(text, "fuzz.c", None, &HsOptions::default()) {
        Err(e) => {
            let lines = text.split('\n').count() as u32;
            assert!(
                e.line >= 1 && e.line <= lines + 1 && e.col >= 1,
                "bad location {}:{} for {e}",
                e.line,
                e.col
            );
            assert!(
                e.span.offset() + e.span.len() <= text.len(),
                "span out of the text: {e}"
            );
            let report = render_diagnostic(&e, Some(100));
            assert!(!report.is_empty());
        }
        Ok(module) => {
            let report = handscope_sim::verify::verify_module(&module);
            assert!(
                report.is_ok(),
                "compiled graph does not verify: {}",
                report.errors[0]
            );
            let written = write_mlir(&module);
            if let Err(e) = parse_mlir(&written, "written.mlir") {
                panic!("compiled MLIR does not read back: {e}\n{written}");
            }
        }
    }
}

/// The MLIR reader on arbitrary bytes (a nesting directive of
/// [`handscope_sim::fuzzing::unfold_nesting`] unfolded first): it never panics, its errors render, and whatever it
/// accepts the writer prints in a form the reader accepts again, unchanged by a second
/// round trip. An op the writer prints without a location (its location is unknown, e.g.
/// `loc(unknown)` or a name location) is located where it stands when read back, as MLIR
/// does; those positions in the written text are left out of the comparison (as `handscope
/// mlir` leaves them out).
pub fn parse_mlir_roundtrip(data: &[u8]) {
    const WRITTEN: &str = "handscope-fuzz-roundtrip-9f41.mlir";
    let data = &*handscope_sim::fuzzing::unfold_nesting(data);
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if crate::mlir::looks_dynamatic(text) {
        dynamatic_roundtrip(text);
        return;
    }
    if crate::stream::looks_stream(text) {
        stream_roundtrip(text);
        return;
    }
    match parse_mlir(text, "fuzz.mlir") {
        Err(e) => {
            assert!(!e.render().is_empty());
        }
        Ok((module, _warnings)) => {
            let written = write_mlir(&module);
            match parse_mlir(&written, WRITTEN) {
                Ok((again, _)) => {
                    let opts = WriteOptions {
                        omit_locations_in: Some(WRITTEN.into()),
                    };
                    assert_eq!(
                        written,
                        write_mlir_with(&again, &opts),
                        "writer output is not stable"
                    )
                }
                Err(e) => panic!("writer output rejected: {e}\n{written}"),
            }
        }
    }
}

/// Dynamatic text: the reader never panics and its errors render; what it reads, mapped
/// onto the graph, is written in Handscope's form, which the CIRCT-form reader reads back
/// to the same graph.
/// A Stream-dialect program: its errors render; an accepted program lowers to a graph that
/// verifies, whose MLIR reads back with the same nodes and keeps its stream ports.
fn stream_roundtrip(text: &str) {
    let module = match crate::stream::compile_stream(text, "fuzz.mlir") {
        Ok((m, _)) => m,
        Err(e) => {
            assert!(!e.render().is_empty());
            return;
        }
    };
    let report = handscope_sim::verify::verify_module(&module);
    assert!(
        report.is_ok(),
        "lowered stream program does not verify: {}",
        report.errors[0]
    );
    let written = write_mlir(&module);
    match parse_mlir(&written, "written.mlir") {
        Ok((again, _)) => {
            for (a, b) in module.functions.iter().zip(&again.functions) {
                let ids = |f: &handscope_sim::Function| -> Vec<String> {
                    f.nodes.values().map(|n| n.id.clone()).collect()
                };
                assert_eq!(ids(a), ids(b), "node IDs changed by the round trip");
                assert_eq!(a.stream_names(), b.stream_names());
            }
        }
        Err(e) => panic!("lowered stream program does not read back: {e}\n{written}"),
    }
}

fn dynamatic_roundtrip(text: &str) {
    use crate::mlir::dynamatic::{DynTiming, lower};
    let m = match crate::mlir::parse_dynamatic(text, "fuzz.mlir") {
        Ok((m, _)) => m,
        Err(e) => {
            assert!(!e.render().is_empty());
            return;
        }
    };
    let module = match lower(&m, text, "fuzz.mlir", &DynTiming::builtin()) {
        Ok(module) => module,
        Err(e) => {
            assert!(!e.render().is_empty());
            return;
        }
    };
    let written = write_mlir(&module);
    assert!(
        !crate::mlir::looks_dynamatic(&written),
        "Handscope's form taken for Dynamatic's:\n{written}"
    );
    match parse_mlir(&written, "written.mlir") {
        Ok((again, _)) => {
            for (a, b) in module.functions.iter().zip(&again.functions) {
                let ops = |f: &handscope_sim::Function| -> Vec<(String, handscope_sim::Op)> {
                    f.nodes
                        .values()
                        .map(|n| (n.id.clone(), n.op.clone()))
                        .collect()
                };
                assert_eq!(
                    ops(a),
                    ops(b),
                    "written form read back differently:\n{written}"
                );
                let conventions = |f: &handscope_sim::Function| -> Vec<(u64, bool)> {
                    f.args
                        .iter()
                        .map(|a| (a.offered_from, a.one_token_by_default))
                        .collect()
                };
                assert_eq!(
                    conventions(a),
                    conventions(b),
                    "argument conventions lost:\n{written}"
                );
            }
        }
        Err(e) => panic!("writer output rejected: {e}\n{written}"),
    }
}
