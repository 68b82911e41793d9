//! Channels wider than 64 bits in waveforms (#13 item 2): VCD and FST files declare their
//! full width and carry their full value, `wellen` reads back exactly what was traced, and
//! the replay turns wide signals back into the same wide words.

use crate::common;

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use handscope_sim::Function;
use handscope_sim::engine::Simulation;
use handscope_sim::report::RunReport;
use handscope_sim::stimulus::{Environment, TokenSource};
use handscope_sim::trace::{ChannelMeta, Sample, StateMeta, Trace, TraceBuilder};
use handscope_sim::types::Type;
use handscope_sim::wide;
use handscope_traces::fst_out::{FstWriter, write_fst};
use handscope_traces::vcd_in::{ReplayOptions, VcdError, replay_bytes, replay_file};
use handscope_traces::vcd_out::write_vcd;

/// Arguments passed through a buffer, a fork and a join to the results: nothing computes
/// with the wide values, so only the waveform paths are under test.
const SRC: &str = r#"
handshake.func @wide(%a: i128, %b: i512, %c: i4096, %t: tuple<i32, i64>, %n: i64, %start: none, ...) -> (i128, i512, i4096, tuple<i32, i64>, i64, none) attributes {argNames = ["a", "b", "c", "t", "n", "start"], resNames = ["ra", "rb", "rc", "rt", "rn", "done"]} {
  %ab = buffer [2] seq %a : i128
  %bf:2 = fork [2] %b : i512
  %s = join %start, %bf#1 : none, i512
  return %ab, %bf#0, %c, %t, %n, %s : i128, i512, i4096, tuple<i32, i64>, i64, none
}
"#;

fn scratch(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(name)
}

/// The values each width is tested with: 0, small ones, around 2^63 and 2^64, all ones,
/// only the top bit, and a pattern in every limb.
fn values(width: u32) -> Vec<u64> {
    let n = wide::limb_count(width);
    let mut v = vec![
        0,
        1,
        5,
        (1 << 63) - 1,
        wide::from_limbs(&[1 << 63], width),
        wide::from_limbs(&[u64::MAX], width),
        wide::from_limbs(&vec![u64::MAX; n], width),
    ];
    if wide::is_wide(width) {
        v.push(wide::from_limbs(&[0, 1], width));
        let mut top = vec![0; n];
        top[n - 1] = 1 << ((width - 1) % 64);
        v.push(wide::from_limbs(&top, width));
        let pattern: Vec<u64> = (0..n as u64)
            .map(|k| 0x0123_4567_89ab_cdef_u64.rotate_left(k as u32 * 7) ^ k)
            .collect();
        v.push(wide::from_limbs(&pattern, width));
    }
    v
}

/// The full-width binary digits of a word, as `wellen` prints a value.
fn bits(word: u64, width: u32) -> String {
    let b = wide::to_binary(word, width);
    format!("{}{b}", "0".repeat(width as usize - b.len()))
}

/// A trace of these channels and state words, cycle `c` holding `values[i][c % len]` on
/// channel `i` (every channel valid) and state word `k` taking `state[k][c % len]`.
fn handmade_trace(
    channels: &[ChannelMeta],
    state: &[StateMeta],
    data: &[Vec<u64>],
    state_values: &[Vec<u64>],
    cycles: usize,
) -> Trace {
    let mut tb = TraceBuilder::new(channels.to_vec(), state.to_vec());
    let nc = channels.len();
    for c in 0..cycles {
        let d: Vec<u64> = data.iter().map(|v| v[c % v.len()]).collect();
        let s: Vec<u64> = state_values.iter().map(|v| v[c % v.len()]).collect();
        tb.push_cycle(Sample {
            valid: &vec![true; nc],
            ready: &vec![c % 2 == 0; nc],
            data: &d,
            state: &s,
        });
    }
    tb.finish()
}

/// Every value of variable `scope.name` in `path` at the start of every cycle (time `10c`),
/// as `wellen` reads the file (VCD or FST), with its declared width.
fn wellen_values(path: &Path, scope: &[&str], name: &str, cycles: usize) -> (u32, Vec<String>) {
    let mut w = wellen::simple::read(path).unwrap();
    let h = w.hierarchy();
    let var = h
        .lookup_var(scope, name)
        .unwrap_or_else(|| panic!("{}: no {scope:?}.{name}", path.display()));
    let width = h[var].length(h).unwrap();
    let sig = h[var].signal_ref();
    w.load_signals(&[sig]);
    let tt = w.time_table().to_vec();
    let s = w.get_signal(sig).unwrap();
    let mut out = Vec::new();
    for c in 0..cycles as u64 {
        let idx = tt.iter().position(|&t| t == 10 * c).unwrap() as u32;
        let off = s.get_offset(idx).unwrap();
        match s.get_value_at(&off, 0) {
            wellen::SignalValueRef::BitVec(b) => out.push(b.bit_string()),
            v => panic!("{name}: not a bit vector: {v:?}"),
        }
    }
    (width, out)
}

/// The writers alone (no engine run): a hand-made trace with channels of 128, 512, 4096 and
/// 96 (a tuple) bits next to a 64-bit one, and a buffer whose slot registers hold wide
/// tokens; VCD and FST read back through `wellen` give every value exactly, at full width.
#[test]
fn wide_values_round_trip_through_vcd_and_fst_in_wellen() {
    let tuple = Type::Tuple(vec![Type::Int(32), Type::Int(64)]);
    let types = [
        ("a", Type::Int(128)),
        ("b", Type::Int(512)),
        ("c", Type::Int(4096)),
        ("t", tuple),
        ("n", Type::Int(64)),
        ("buf0.out0", Type::Int(128)),
    ];
    let channels: Vec<ChannelMeta> = types
        .iter()
        .map(|(n, ty)| ChannelMeta {
            name: (*n).into(),
            ty: ty.clone(),
        })
        .collect();
    let state = vec![StateMeta {
        node: "buf0".into(),
        fields: vec![
            "slot0.valid".into(),
            "slot0.data".into(),
            "slot0.skid_valid".into(),
            "slot0.skid_data".into(),
        ],
    }];
    let data: Vec<Vec<u64>> = types.iter().map(|(_, ty)| values(ty.bit_width())).collect();
    let state_values = vec![vec![0, 1], values(128), vec![1, 0, 0], values(128)];
    let cycles = 23;
    let trace = handmade_trace(&channels, &state, &data, &state_values, cycles);

    let vcd_path = scratch("wide_handmade.vcd");
    let mut vcd = Vec::new();
    write_vcd(&trace, &mut vcd).unwrap();
    std::fs::write(&vcd_path, &vcd).unwrap();
    let fst_path = scratch("wide_handmade.fst");
    write_fst(&trace, &fst_path).unwrap();

    for path in [&vcd_path, &fst_path] {
        let mut checks: Vec<(Vec<&str>, String, u32, &Vec<u64>)> = types
            .iter()
            .zip(&data)
            .map(|((name, ty), v)| {
                let (scope, port) = match name.split_once('.') {
                    Some((node, port)) => (vec!["handscope", node], port.to_string()),
                    None => (vec!["handscope"], (*name).to_string()),
                };
                (scope, port, ty.bit_width(), v)
            })
            .collect();
        checks.push((
            vec!["handscope", "buf0"],
            "slot0_data".into(),
            128,
            &state_values[1],
        ));
        checks.push((
            vec!["handscope", "buf0"],
            "slot0_valid".into(),
            64,
            &state_values[0],
        ));
        for (scope, name, width, v) in checks {
            let (declared, got) = wellen_values(path, &scope, &name, cycles);
            assert_eq!(declared, width, "{}: width of {name}", path.display());
            for (c, g) in got.iter().enumerate() {
                assert_eq!(
                    *g,
                    bits(v[c % v.len()], width),
                    "{}: {name} in cycle {c}",
                    path.display()
                );
            }
        }
    }
}

fn wide_function() -> Function {
    let (module, _) = handscope_compiler::mlir::parse_mlir(SRC, "wide").unwrap();
    handscope_sim::session::flat_function(&module, None).unwrap()
}

fn wide_environment() -> Environment {
    let mut env = Environment::default();
    for (name, width) in [("a", 128), ("b", 512), ("c", 4096), ("t", 96), ("n", 64)] {
        env.push_tokens(name, TokenSource::Values(values(width)));
    }
    env.push_tokens("start", TokenSource::None(10));
    env
}

/// The engine's run of [`SRC`] and its VCD and FST files (streamed as `sim --vcd` and
/// `sim --fst` write them).
fn engine_files(tag: &str) -> (Function, Environment, RunReport, Trace, Vec<u8>, PathBuf) {
    let f = wide_function();
    let env = wide_environment();
    let (report, trace) = common::engine_run(&f, &env, 200);
    let mut vcd = Vec::new();
    write_vcd(&trace, &mut vcd).unwrap();
    let mut sim = Simulation::new(&f, env.clone()).unwrap();
    let fst_path = scratch(&format!("wide_engine_{tag}.fst"));
    let mut tap = sim.signal_tap();
    let mut w = FstWriter::create(&fst_path, tap.channels(), tap.state_meta()).unwrap();
    sim.run_tapped(200, &AtomicBool::new(false), &mut tap, &mut |c| {
        w.cycle(c.cycle, c.words, c.changed).unwrap();
    });
    w.finish().unwrap();
    (f, env, report, trace, vcd, fst_path)
}

/// End to end: the engine's run over wide channels, written as VCD and FST and replayed,
/// gives the engine's trace (data and state words) exactly, and the values the arguments
/// were given.
#[test]
fn wide_channels_replay_exactly_from_vcd_and_fst() {
    let (f, env, report, trace, vcd, fst_path) = engine_files("replay");
    // The run carried every value through.
    for (name, width) in [("a", 128), ("b", 512), ("c", 4096), ("t", 96), ("n", 64)] {
        let i = trace.channel_index(name).unwrap();
        let seen: Vec<u64> = (0..trace.cycles())
            .map(|c| trace.cycle(c).unwrap().sample(i))
            .filter(|s| s.valid && s.ready)
            .map(|s| s.data)
            .collect();
        assert_eq!(seen, values(width), "tokens of `{name}`");
    }
    // The buffer's slot registers hold its 128-bit tokens and are declared that wide.
    let text = String::from_utf8_lossy(&vcd);
    assert!(
        text.lines()
            .any(|l| l.starts_with("$var wire 128 ") && l.ends_with(" slot0_data $end")),
        "no 128-bit slot0_data"
    );
    let buffer = trace
        .state_meta()
        .iter()
        .find(|m| m.fields.iter().any(|f| f == "slot0.data"))
        .expect("the buffer's state")
        .node
        .clone();
    assert!(
        (0..trace.cycles()).any(|c| trace
            .cycle(c)
            .unwrap()
            .state(&buffer)
            .unwrap()
            .iter()
            .any(|&w| w >> 63 != 0)),
        "the buffer never held a value of 2^63 or more"
    );
    let vcd_path = scratch("wide_engine.vcd");
    std::fs::write(&vcd_path, &vcd).unwrap();
    let opts = ReplayOptions::default();
    for path in [&vcd_path, &fst_path] {
        let r = replay_file(path, &f, Some(&env), &opts).unwrap();
        assert!(
            r.warnings.is_empty(),
            "{}: {:?}",
            path.display(),
            r.warnings
        );
        common::assert_same_trace(&path.display().to_string(), &trace, &r.trace, true);
        assert_eq!(r.report, report, "{}", path.display());
    }
}

/// A damaged wide value is a located error (or, cut at the very end, a truncation warning),
/// never a panic or a silently wrong value.
#[test]
fn malformed_wide_values_are_located_errors() {
    let (f, env, _, _, vcd, _) = engine_files("errors");
    let text = String::from_utf8(vcd).unwrap();
    let opts = ReplayOptions::default();
    let replay = |t: &str| replay_bytes(t.as_bytes(), "wide.vcd", &f, Some(&env), &opts, None);
    // The first value of `c` (the 4096-bit channel) that is all ones.
    let ones = format!("b{} ", "1".repeat(4096));
    let at = text.find(&ones).expect("an all-ones value of c");
    let line = 1 + text[..at].matches('\n').count() as u64;

    // A bad digit in the middle of the value.
    let mut bad = text.clone();
    bad.replace_range(at + 2000..at + 2001, "2");
    match replay(&bad) {
        Err(VcdError::Syntax {
            line: l, message, ..
        }) => {
            assert_eq!(l, line);
            assert!(message.contains("invalid binary value"), "{message}");
        }
        other => panic!("bad digit: {other:?}"),
    }

    // The value cut (its identifier code lost) and the file going on.
    let end = at + text[at..].find('\n').unwrap();
    let mut cut = text.clone();
    cut.replace_range(at + 3000..end, "");
    match replay(&cut) {
        Err(VcdError::Syntax {
            line: l, message, ..
        }) => {
            // VCD lets a value's identifier code follow on a later line: the next line's
            // first token is taken for it, and is none.
            assert_eq!(l, line + 1, "value on line {line}");
            assert!(message.contains("unknown identifier code"), "{message}");
        }
        other => panic!("cut value: {other:?}"),
    }

    // The file ending inside the value: replayed up to there, with a warning.
    let r = replay(&text[..at + 3000]).unwrap();
    assert!(
        r.warnings.iter().any(|w| w.contains("truncated")),
        "{:?}",
        r.warnings
    );

    // The file ending after the value, before its identifier code.
    let dangling = format!("{}\n", &text[..at + ones.len() - 1]);
    match replay(&dangling) {
        Err(VcdError::Syntax {
            line: l, message, ..
        }) => {
            assert_eq!(l, line);
            assert!(message.contains("without an identifier code"), "{message}");
        }
        other => panic!("dangling value: {other:?}"),
    }
}
