//! Handshake-only examples lowered by CIRCT 1.62 (`oracle/scripts/lower.py`), run in
//! Verilator: the replayed trace of CIRCT's RTL, mapped by CIRCT's own names (no mapping
//! file), equals the engine's trace channel by channel and cycle by cycle.
//!
//! Examples are chosen to avoid CIRCT 1.62's known bugs (docs/semantics.md): no mux with more than
//! two data inputs, no merge/control_merge carrying data, no division, no memories (whose
//! lowered interface differs), no instances.

use crate::common;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

use handscope_compiler::verilog::testbench::{TbDesign, wrapper, write_testbench};
use handscope_sim::trace::Trace;
use handscope_sim::{Function, Op};
use handscope_traces::vcd_in::{ReplayOptions, replay_file};
use handscope_traces::verilator::WaveFormat;

use common::*;

const CHOSEN: &[&str] = &[
    "buffer_ring",
    "counter_loop",
    "deadlock_join",
    "fork_join_diamond",
    "pack_unpack",
    "sync_align",
];
const MAX_CYCLES: u64 = 300;

fn python() -> Option<PathBuf> {
    let cands = [
        std::env::var_os("HANDSCOPE_PYTHON").map(PathBuf::from),
        Some(workspace().join(".venv/bin/python")),
        Some(PathBuf::from("/tmp/circt-venv/bin/python")),
    ];
    cands.into_iter().flatten().find(|p| {
        Command::new(p)
            .args(["-c", "import circt"])
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
    })
}

/// Lowers one MLIR text with CIRCT (cached by content hash).
fn lower(py: &PathBuf, name: &str, mlir: &str) -> String {
    let script = workspace().join("oracle/scripts/lower.py");
    let script_text = std::fs::read(&script).unwrap();
    let key = handscope_traces::verilator::content_hash(&[&script_text, mlir.as_bytes()]);
    let dir = workspace().join("target/handscope-verilate/circt");
    std::fs::create_dir_all(&dir).unwrap();
    let sv = dir.join(format!("{key}.sv"));
    if let Ok(t) = std::fs::read_to_string(&sv) {
        return t;
    }
    let input = dir.join(format!("{key}.{}.mlir", std::process::id()));
    std::fs::write(&input, mlir).unwrap();
    let tmp = dir.join(format!("{key}.{}.sv", std::process::id()));
    let out = Command::new(py)
        .arg(&script)
        .arg(&input)
        .arg(&tmp)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&input);
    assert!(
        out.status.success(),
        "{name}: lowering failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::rename(&tmp, &sv).unwrap();
    std::fs::read_to_string(&sv).unwrap()
}

/// Keeps the first definition of every module name (CIRCT names component modules after
/// their kind and types, so equal names mean equal modules here).
fn merge_modules(texts: &[String]) -> String {
    let mut seen: BTreeMap<String, ()> = BTreeMap::new();
    let mut out = String::new();
    for t in texts {
        let mut cur: Option<(String, String)> = None;
        for line in t.split_inclusive('\n') {
            if cur.is_none() {
                if let Some(rest) = line.strip_prefix("module ") {
                    let name: String = rest
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    cur = Some((name, String::new()));
                } else {
                    continue;
                }
            }
            if let Some((_, body)) = cur.as_mut() {
                body.push_str(line);
            }
            if line.trim_end() == "endmodule" {
                let (name, body) = cur.take().unwrap();
                if seen.insert(name, ()).is_none() {
                    out.push_str(&body);
                }
            }
        }
    }
    out
}

/// Asserts that every buffer's state words (slot occupancy and values), rebuilt from CIRCT's
/// `valid<k>_reg`/`data<k>_reg`/`ready<k>_reg`/`ctrl_data<k>_reg`, equal the engine's in
/// every cycle; returns how many buffers were compared.
fn assert_same_buffer_state(what: &str, f: &Function, want: &Trace, got: &Trace) -> usize {
    let ids: Vec<&str> = f
        .nodes
        .values()
        .filter(|n| matches!(n.op, Op::Buffer { .. }))
        .map(|n| n.id.as_str())
        .collect();
    for c in 0..want.cycles() {
        let (a, b) = (want.cycle(c).unwrap(), got.cycle(c).unwrap());
        for id in &ids {
            assert_eq!(
                a.state(id),
                b.state(id),
                "{what}: cycle {c} buffer {id} state (slot<k>.valid, data, skid_valid, skid_data)"
            );
        }
    }
    ids.len()
}

#[test]
fn circt_rtl_replays_like_the_engine() {
    if !have_verilator("circt_rtl_replays_like_the_engine") {
        return;
    }
    let Some(py) = python() else {
        println!(
            "skipping circt_rtl_replays_like_the_engine: no Python with the `circt` package (set HANDSCOPE_PYTHON)"
        );
        return;
    };
    let exs: Vec<Example> = examples()
        .into_iter()
        .filter(|e| CHOSEN.contains(&e.name.as_str()))
        .collect();
    assert_eq!(exs.len(), CHOSEN.len());
    let lowered: Vec<String> = exs.iter().map(|e| lower(&py, &e.name, &e.text)).collect();
    let designs: Vec<TbDesign<'_>> = exs
        .iter()
        .map(|e| TbDesign {
            top: e.func.name.clone(),
            func: &e.func,
            env: &e.env,
            max_cycles: MAX_CYCLES,
            any_fire: false,
        })
        .collect();
    let mut sv = merge_modules(&lowered);
    sv.push_str(&wrapper(&designs));
    let tb = write_testbench(&designs);
    let work = std::env::temp_dir().join(format!("hs-circt-{}", std::process::id()));
    std::fs::create_dir_all(&work).unwrap();
    let vcd = quick_build_and_run(&work, &sv, &tb, WaveFormat::Vcd);
    for e in &exs {
        let (want_report, want) = engine_run(&e.func, &e.env, MAX_CYCLES);
        let opts = ReplayOptions {
            scope: Some(format!("hs_tb.{}", e.func.name)),
            ..Default::default()
        };
        let r = replay_file(&vcd, &e.func, Some(&e.env), &opts)
            .unwrap_or_else(|err| panic!("{}: {err}", e.name));
        assert!(
            r.mapping.unmatched_channels.is_empty(),
            "{}: unmatched {:?}",
            e.name,
            r.mapping.unmatched_channels
        );
        assert!(
            r.mapping
                .matched
                .iter()
                .all(|m| m.scheme.starts_with("circt") || m.scheme == "argument"),
            "{}",
            e.name
        );
        assert_same_trace(&e.name, &want, &r.trace, false);
        let buffers = assert_same_buffer_state(&e.name, &e.func, &want, &r.trace);
        if ["buffer_ring", "counter_loop"].contains(&e.name.as_str()) {
            assert!(buffers > 0, "{}: no buffer state compared", e.name);
        }
        assert_eq!(want_report.outputs, r.report.outputs, "{}: outputs", e.name);
        assert_eq!(want_report.stats, r.report.stats, "{}: statistics", e.name);
        assert_eq!(want_report.status, r.report.status, "{}: status", e.name);
        eprintln!(
            "{}: {} cycles, state words from registers {}/{}",
            e.name,
            r.trace.cycles(),
            r.mapping.state_words.0,
            r.mapping.state_words.1
        );
    }
    let _ = std::fs::remove_dir_all(&work);
}
