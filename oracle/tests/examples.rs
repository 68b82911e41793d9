//! (b) Every example circuit in `examples/circuits/*.mlir` against CIRCT's RTL.
//!
//! Convention: a file containing a line `// oracle: skip (reason)` is not run (e.g. the
//! deliberately invalid combinational-cycle circuit). Files using features the oracle does
//! not model yet (instances, extmemory) are reported as skipped with the reason. The text
//! given to CIRCT is the file itself; the engine simulates what the compiler's reader builds
//! from it. Stimulus is random (the files' `// sim:` lines are for the CLI).

use std::path::Path;

use handscope_oracle::OracleError;
use handscope_oracle::harness::{DesignSpec, parse_top, run_designs};
use handscope_oracle::model::BuildOptions;
use handscope_oracle::require_tools;
use handscope_sim::Op;
use handscope_sim::session::header::Header;

const CYCLES: u32 = 1000;

/// The reason in a `// oracle: skip (reason)` line, if any.
fn skip_reason(text: &str) -> Option<String> {
    Header::parse(text).values("oracle").find_map(|rest| {
        let reason = rest.strip_prefix("skip")?.trim();
        Some(
            reason
                .trim_start_matches('(')
                .trim_end_matches(')')
                .to_string(),
        )
    })
}

#[test]
fn skip_convention_is_parsed() {
    assert_eq!(
        skip_reason("// x\n// oracle: skip (not valid)\n"),
        Some("not valid".into())
    );
    assert_eq!(skip_reason("// oracle: run\n"), None);
}

#[test]
fn example_circuits_match_circt_rtl() {
    let Some(tools) = require_tools("example_circuits_match_circt_rtl") else {
        return;
    };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/circuits");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "mlir"));
    files.sort();
    let mut designs = Vec::new();
    for (k, path) in files.iter().enumerate() {
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("?")
            .to_string();
        let text = std::fs::read_to_string(path).expect("readable example");
        if let Some(reason) = skip_reason(&text) {
            println!("oracle: skipping example {name}: {reason}");
            continue;
        }
        let (f, mlir) = parse_top(&text, &name).expect("example parses");
        if let Some(op) = f
            .nodes
            .values()
            .find(|n| matches!(n.op, Op::Instance { .. } | Op::ExtMemory { .. }))
        {
            println!(
                "oracle: skipping example {name}: uses `{}` (not modelled by the oracle yet)",
                op.op.mnemonic()
            );
            continue;
        }
        for (j, tokens) in [CYCLES as usize + 50, 20].into_iter().enumerate() {
            let dname = format!("{name}_{j}");
            designs.push(DesignSpec::with_random_stimulus(
                &dname,
                f.clone(),
                mlir.clone(),
                500 + 2 * k as u64 + j as u64,
                tokens,
            ));
        }
    }
    if designs.is_empty() {
        println!("oracle: no example circuits to compare");
        return;
    }
    let summary = match run_designs(&tools, &designs, CYCLES, &BuildOptions::default()) {
        Ok(s) => s,
        Err(OracleError::Unsupported { design, reason }) => {
            panic!("example {design} unsupported: {reason}")
        }
        Err(e) => panic!("oracle run failed: {e}"),
    };
    for m in &summary.mismatches {
        println!("{m}");
    }
    println!("{}", summary.line());
    assert!(
        summary.mismatches.is_empty(),
        "{} mismatches",
        summary.mismatches.len()
    );
}
