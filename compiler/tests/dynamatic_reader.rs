//! The Dynamatic reader through the public API: detection against every CIRCT file of the
//! repository, and robustness (truncations and byte mutations never panic).

use std::path::{Path, PathBuf};

use handscope_compiler::mlir::dynamatic::{DynOpKind, DynTiming, lower};
use handscope_compiler::mlir::{looks_dynamatic, parse_dynamatic, parse_mlir};
use proptest::prelude::*;

const SNIPPETS: [&str; 12] = [
    include_str!("data/dynamatic/lsq3_e4.mlir"),
    include_str!("../../examples/dynamatic/dynamatic_diamond.mlir"),
    include_str!("../../examples/dynamatic/dynamatic_diamond_tuned.mlir"),
    include_str!("data/dynamatic/diamond_e4.mlir"),
    include_str!("data/dynamatic/e2.mlir"),
    include_str!("data/dynamatic/e3.mlir"),
    include_str!("data/dynamatic/e4.mlir"),
    include_str!("data/dynamatic/e5.mlir"),
    include_str!("data/dynamatic/inc_e3.mlir"),
    include_str!("data/dynamatic/inc_e4.mlir"),
    include_str!("data/dynamatic/inc_e5.mlir"),
    include_str!("data/dynamatic/mem_e4.mlir"),
];

fn mlir_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            mlir_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "mlir") {
            out.push(p);
        }
    }
}

#[test]
fn detection_tells_circt_files_from_dynamatic_ones() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for d in ["examples", "compiler/tests", "testdata", "fuzz/regressions"] {
        mlir_files(&root.join(d), &mut files);
    }
    let ours = |p: &Path| p.components().any(|c| c.as_os_str() == "dynamatic");
    let circt = files.iter().filter(|p| !ours(p)).count();
    assert!(circt >= 20, "only {circt} CIRCT files found");
    for p in &files {
        let text = std::fs::read_to_string(p).unwrap_or_default();
        assert_eq!(looks_dynamatic(&text), ours(p), "{}", p.display());
    }
    assert_eq!(files.iter().filter(|p| ours(p)).count(), SNIPPETS.len());
}

#[test]
fn every_snippet_parses_and_circt_reader_refuses_them_cleanly() {
    for s in SNIPPETS {
        let (m, w) = parse_dynamatic(s, "s.mlir").unwrap_or_else(|e| panic!("{}", e.render()));
        assert!(w.is_empty(), "{w:?}");
        // The circuits that map are written in Handscope's form and read back alike.
        read_lower_and_run(s);
        let unsupported: Vec<_> = m
            .funcs
            .iter()
            .flat_map(|f| &f.ops)
            .filter(|o| matches!(o.kind, DynOpKind::Unsupported(_)))
            .map(|o| o.mnemonic.clone())
            .collect();
        assert!(unsupported.iter().all(|m| m == "passer"), "{unsupported:?}");
        // The CIRCT reader does not panic on Dynamatic text either.
        let _ = parse_mlir(s, "s.mlir");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn truncations_never_panic(which in 0..SNIPPETS.len(), cut in 0.0f64..1.0) {
        let s = SNIPPETS[which];
        let mut at = (s.len() as f64 * cut) as usize;
        while !s.is_char_boundary(at) {
            at -= 1;
        }
        read_lower_and_run(&s[..at]);
    }

    #[test]
    fn byte_mutations_never_panic(
        which in 0..SNIPPETS.len(),
        edits in prop::collection::vec((0.0f64..1.0, any::<u8>(), 0u8..3), 1..6),
    ) {
        let mut b = SNIPPETS[which].as_bytes().to_vec();
        for (pos, byte, how) in edits {
            let i = ((b.len() as f64) * pos) as usize;
            match how {
                0 if i < b.len() => b[i] = byte,
                1 => b.insert(i.min(b.len()), byte),
                _ if i < b.len() => {
                    b.remove(i);
                }
                _ => {}
            }
        }
        let text = String::from_utf8_lossy(&b);
        read_lower_and_run(&text);
        let _ = looks_dynamatic(&text);
    }
}

/// Reads `text`; what reads is mapped onto the simulator's graph, and what maps and passes
/// the verifier runs a few cycles: none of it may panic. What maps is written in
/// Handscope's form and read back to the same graph (the fuzz target's check).
fn read_lower_and_run(text: &str) {
    handscope_compiler::fuzzing::parse_mlir_roundtrip(text.as_bytes());
    let Ok((m, _)) = parse_dynamatic(text, "t.mlir") else {
        return;
    };
    let Ok(module) = lower(&m, text, "t.mlir", &DynTiming::builtin()) else {
        return;
    };
    for f in &module.functions {
        if handscope_sim::verify::verify(f).is_ok()
            && let Ok(mut sim) = handscope_sim::engine::Simulation::new(
                f,
                handscope_sim::stimulus::Environment::default(),
            )
        {
            sim.run(50);
        }
    }
}
