//! VCD replay without Verilator: the engine's own VCD replays to the engine's trace;
//! truncated files replay a prefix with a warning; corrupted files give clear errors and
//! never panic.

use crate::common;

use handscope_traces::vcd_in::{ReplayOptions, VcdError, replay_bytes, replay_file};
use proptest::prelude::*;

use common::*;

fn engine_vcd(name: &str) -> (Example, handscope_sim::trace::Trace, Vec<u8>) {
    let ex = examples().into_iter().find(|e| e.name == name).unwrap();
    let (_, trace) = engine_run(&ex.func, &ex.env, 2000);
    let mut out = Vec::new();
    handscope_traces::vcd_out::write_vcd(&trace, &mut out).unwrap();
    (ex, trace, out)
}

#[test]
fn engine_vcds_replay_to_the_engine_trace() {
    for ex in examples() {
        let (report, trace) = engine_run(&ex.func, &ex.env, 2000);
        let mut out = Vec::new();
        handscope_traces::vcd_out::write_vcd(&trace, &mut out).unwrap();
        let r = replay_bytes(
            &out,
            &ex.name,
            &ex.func,
            Some(&ex.env),
            &ReplayOptions::default(),
            None,
        )
        .unwrap();
        assert!(r.mapping.unmatched_channels.is_empty(), "{}", ex.name);
        assert!(r.warnings.is_empty(), "{}: {:?}", ex.name, r.warnings);
        assert_same_trace(&ex.name, &trace, &r.trace, true);
        assert_eq!(report, r.report, "{}", ex.name);
        // The report from the engine trace itself agrees too.
        assert_eq!(
            report,
            handscope_sim::analysis::report_from_trace(&ex.func, &trace, Some(&ex.env)).unwrap()
        );
    }
}

#[test]
fn truncated_file_replays_a_prefix_with_a_warning() {
    let (ex, trace, vcd) = engine_vcd("counter_loop");
    // Two thirds into the value changes (the header is a large part of a short run's file).
    let body = vcd
        .windows(15)
        .position(|w| w == b"$enddefinitions")
        .expect("a header");
    let cut = &vcd[..body + (vcd.len() - body) * 2 / 3];
    let cut = if cut.ends_with(b"\n") {
        &cut[..cut.len() - 1]
    } else {
        cut
    };
    let r = replay_bytes(
        cut,
        "cut.vcd",
        &ex.func,
        Some(&ex.env),
        &ReplayOptions::default(),
        None,
    )
    .unwrap();
    assert!(
        r.warnings.iter().any(|w| w.contains("truncated")),
        "{:?}",
        r.warnings
    );
    assert!(r.trace.cycles() > 0 && r.trace.cycles() < trace.cycles());
    for c in 0..r.trace.cycles() {
        let (a, b) = (trace.cycle(c).unwrap(), r.trace.cycle(c).unwrap());
        for i in 0..trace.channels().len() {
            assert_eq!(
                (a.valid(i), a.ready(i)),
                (b.valid(i), b.ready(i)),
                "cycle {c}"
            );
        }
    }
}

#[test]
fn corrupt_files_give_located_errors() {
    let (ex, _, vcd) = engine_vcd("sync_align");
    let text = String::from_utf8(vcd).unwrap();
    let pos = text.find("\n#20\n").unwrap() + 1;
    let bad = format!("{}#2x0\n{}", &text[..pos], &text[pos..]);
    let e = replay_bytes(
        bad.as_bytes(),
        "bad.vcd",
        &ex.func,
        None,
        &ReplayOptions::default(),
        None,
    )
    .unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, VcdError::Syntax { .. }), "{msg}");
    let line = 1 + text[..pos].matches('\n').count();
    assert!(msg.starts_with(&format!("bad.vcd:{line}:")), "{msg}");
    assert!(msg.contains("invalid timestamp"), "{msg}");
    let e = replay_bytes(
        b"$var wire 1 ! a",
        "h.vcd",
        &ex.func,
        None,
        &ReplayOptions::default(),
        None,
    )
    .unwrap_err();
    assert!(e.to_string().contains("h.vcd:1:"), "{e}");
    let e = replay_bytes(
        b"",
        "empty.vcd",
        &ex.func,
        None,
        &ReplayOptions::default(),
        None,
    )
    .unwrap_err();
    assert!(e.to_string().contains("enddefinitions"), "{e}");
    let no_clock = text.replace(" clock ", " clk_x ");
    let e = replay_bytes(
        no_clock.as_bytes(),
        "c.vcd",
        &ex.func,
        None,
        &ReplayOptions::default(),
        None,
    )
    .unwrap_err();
    assert!(e.to_string().contains("no clock"), "{e}");
}

/// Issue 36: a VCD of 100,000 nested `$scope`s ran past 60 s and 1.7 GB (every scope kept
/// its dotted path). Scopes nest at most 1,024 deep, and the paths kept take at most 256 MiB;
/// past either the header is a located error, read from bytes or from a file in chunks.
#[test]
fn deep_and_wide_headers_are_bounded() {
    let (ex, _, _) = engine_vcd("sync_align");
    let replay = |bytes: &[u8], name: &str| {
        let whole = replay_bytes(bytes, name, &ex.func, None, &ReplayOptions::default(), None)
            .unwrap_err()
            .to_string();
        let path = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
        std::fs::write(&path, bytes).unwrap();
        let chunked = replay_file(&path, &ex.func, None, &ReplayOptions::default())
            .unwrap_err()
            .to_string();
        std::fs::remove_file(&path).ok();
        assert_eq!(whole, chunked.replace(&path.display().to_string(), name));
        whole
    };
    let deep = "$scope module a $end\n".repeat(100_000);
    let e = replay(deep.as_bytes(), "deep.vcd");
    assert!(
        e.starts_with("deep.vcd:1025:") && e.contains("`$scope` nested more than 1024 deep"),
        "{e}"
    );
    // 1,024 levels are read (the file then lacks a clock, which is another error).
    let fine = format!(
        "{}$var wire 1 ! clock $end\n{}$enddefinitions $end\n#0\n",
        "$scope module a $end\n".repeat(1024),
        "$upscope $end\n".repeat(1024)
    );
    let e = replay(fine.as_bytes(), "fine.vcd");
    assert!(!e.contains("nested more than"), "{e}");
    // Variables 1,000 scopes deep with long names: each keeps a path of about 100 KB.
    let name = "n".repeat(100);
    let mut wide = format!("$scope module {name} $end\n").repeat(1000);
    let vars = 3000;
    for _ in 0..vars {
        wide.push_str("$var wire 1 ! v $end\n");
    }
    let e = replay(wide.as_bytes(), "wide.vcd");
    assert!(
        e.contains("the header's scope and variable paths take more than 256 MiB together"),
        "{e}"
    );
    let line: usize = e.split(':').nth(1).unwrap().parse().unwrap();
    assert!(line > 1000 && line <= 1000 + vars, "{e}");
}

#[test]
fn a_vcd_on_one_line_is_not_truncated() {
    let (ex, trace, vcd) = engine_vcd("counter_loop");
    let one: Vec<u8> = vcd
        .iter()
        .map(|&c| if c == b'\n' { b' ' } else { c })
        .collect();
    let one = one.trim_ascii_end();
    let r = replay_bytes(
        one,
        "one.vcd",
        &ex.func,
        Some(&ex.env),
        &ReplayOptions::default(),
        None,
    )
    .unwrap();
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    assert_same_trace("one.vcd", &trace, &r.trace, true);
}

#[test]
fn an_all_x_vcd_says_why_nothing_was_replayed() {
    let (ex, _, vcd) = engine_vcd("counter_loop");
    let text = String::from_utf8(vcd).unwrap();
    let (head, body) = text.split_at(text.find("$enddefinitions").unwrap());
    let body: String = body
        .lines()
        .map(|l| {
            if let Some(rest) = l.strip_prefix('b') {
                let id = rest.split_once(' ').map_or("", |(_, id)| id);
                format!("bx {id}\n")
            } else if (l.starts_with('0') || l.starts_with('1')) && l.len() > 1 {
                format!("x{}\n", &l[1..])
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    let allx = format!("{head}{body}");
    let r = replay_bytes(
        allx.as_bytes(),
        "allx.vcd",
        &ex.func,
        Some(&ex.env),
        &ReplayOptions::default(),
        None,
    )
    .unwrap();
    assert_eq!(r.trace.cycles(), 0);
    let w = r.warnings.join("\n");
    assert!(
        w.contains(
            "never rises from 0 to 1 in the file (its values are x or z): nothing was replayed"
        ),
        "{w}"
    );
    assert!(
        w.contains("hold x or z values at some time (read as 0)"),
        "{w}"
    );
}

#[test]
fn files_replay_like_bytes_and_survive_being_rewritten_while_read() {
    let (ex, trace, vcd) = engine_vcd("counter_loop");
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("vcd_robustness");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("rewritten.vcd");
    // A larger file: the same run written several times over, one timestamp after another.
    let text = String::from_utf8(vcd.clone()).unwrap();
    let (head, body) = text.split_at(text.find("#0\n").unwrap());
    let mut big = head.to_string();
    for k in 0..200u64 {
        for line in body.lines() {
            match line.strip_prefix('#').and_then(|t| t.parse::<u64>().ok()) {
                Some(t) => big.push_str(&format!("#{}\n", t + k * 1_000_000)),
                None => {
                    big.push_str(line);
                    big.push('\n');
                }
            }
        }
    }
    std::fs::write(&path, &vcd).unwrap();
    let opts = ReplayOptions::default();
    let r = replay_file(&path, &ex.func, Some(&ex.env), &opts).unwrap();
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    assert_same_trace("file", &trace, &r.trace, true);
    // Another process truncates and rewrites the file while it is read: with a memory map
    // that was a SIGBUS (exit 135, no message); now the replay ends with a result or an
    // error, and the test process lives on.
    std::fs::write(&path, &big).unwrap();
    for round in 0..20 {
        let p2 = path.clone();
        let big2 = big.clone();
        let writer = std::thread::spawn(move || {
            for _ in 0..5 {
                let f = std::fs::OpenOptions::new().write(true).open(&p2).unwrap();
                f.set_len(big2.len() as u64 / (2 + round % 3)).unwrap();
                std::thread::yield_now();
                std::fs::write(&p2, &big2).unwrap();
            }
        });
        match replay_file(&path, &ex.func, None, &opts) {
            Ok(r) => assert!(r.trace.cycles() <= 1_000_000),
            Err(e) => assert!(e.to_string().contains("rewritten.vcd"), "{e}"),
        }
        writer.join().unwrap();
    }
    // Devices and FIFOs are refused at once (`/dev/zero` never ended).
    if std::path::Path::new("/dev/zero").exists() {
        let e = replay_file(std::path::Path::new("/dev/zero"), &ex.func, None, &opts).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
    }
}

#[derive(Debug, Clone)]
enum Mutation {
    Set(usize, u8),
    Delete(usize, usize),
    Insert(usize, Vec<u8>),
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let byte = prop_oneof![
        Just(b'#'),
        Just(b'$'),
        Just(b'b'),
        Just(b'\n'),
        Just(b' '),
        Just(b'x'),
        Just(b'1'),
        any::<u8>()
    ];
    prop_oneof![
        (any::<usize>(), byte.clone()).prop_map(|(i, b)| Mutation::Set(i, b)),
        (any::<usize>(), 0usize..40).prop_map(|(i, n)| Mutation::Delete(i, n)),
        (any::<usize>(), proptest::collection::vec(byte, 0..12))
            .prop_map(|(i, v)| Mutation::Insert(i, v)),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]
    #[test]
    fn mutated_vcds_never_panic(muts in proptest::collection::vec(mutation(), 1..5)) {
        static BASE: std::sync::OnceLock<(Example, Vec<u8>)> = std::sync::OnceLock::new();
        let (ex, vcd) = BASE.get_or_init(|| {
            let (ex, _, vcd) = engine_vcd("fork_join_diamond");
            (ex, vcd)
        });
        let mut v = vcd.clone();
        for m in muts {
            let n = v.len().max(1);
            match m {
                Mutation::Set(i, b) => { let i = i % n; if i < v.len() { v[i] = b; } }
                Mutation::Delete(i, k) => { let i = i % n; let j = (i + k).min(v.len()); if i < j { v.drain(i..j); } }
                Mutation::Insert(i, bytes) => { let i = i % (v.len() + 1); v.splice(i..i, bytes); }
                Mutation::Truncate(i) => { let i = i % n; v.truncate(i); }
            }
        }
        match replay_bytes(&v, "m.vcd", &ex.func, Some(&ex.env), &ReplayOptions::default(), None) {
            Ok(r) => prop_assert!(r.trace.cycles() <= 10_000),
            Err(e) => prop_assert!(e.to_string().starts_with("m.vcd")),
        }
    }
}

/// `sim --vcd` streams the waveform while the engine runs (no trace recorded): the file is
/// byte for byte the one written from a recorded trace of the same run, for every example
/// and every engine (the activity-driven one hands out its quiet cycles without looking at
/// the channels); every word that differs from the cycle before is among the tap's changed
/// words, in ascending order.
#[test]
fn streamed_vcd_equals_the_vcd_of_the_recorded_trace() {
    use handscope_sim::engine::{EngineKind, Simulation};
    use handscope_traces::vcd_out::VcdWriter;
    use std::sync::atomic::AtomicBool;
    for ex in examples() {
        let (report, trace) = engine_run(&ex.func, &ex.env, 2000);
        let mut recorded = Vec::new();
        handscope_traces::vcd_out::write_vcd(&trace, &mut recorded).unwrap();
        for engine in [
            EngineKind::Auto,
            EngineKind::Interpreter,
            EngineKind::Compiled,
            EngineKind::Activity,
        ] {
            let mut sim = Simulation::new(&ex.func, ex.env.clone()).unwrap();
            sim.set_engine(engine);
            let mut tap = sim.signal_tap();
            let mut w = VcdWriter::new(
                tap.channels(),
                tap.state_meta(),
                tap.data_aliases(),
                Vec::new(),
            )
            .unwrap();
            let mut cycles = 0;
            let mut prev: Vec<u64> = Vec::new();
            let streamed_report =
                sim.run_tapped(2000, &AtomicBool::new(false), &mut tap, &mut |c| {
                    assert_eq!(c.cycle, cycles, "{}: cycles in order", ex.name);
                    cycles += 1;
                    prev.resize(c.words.len(), 0);
                    assert!(
                        c.changed.is_sorted(),
                        "{} {engine:?}: changes in order",
                        ex.name
                    );
                    for (i, (&now, &before)) in c.words.iter().zip(&prev).enumerate() {
                        assert!(
                            now == before || c.changed.contains(&(i as u32)),
                            "{} {engine:?}: word {i} changed in cycle {} but is not listed",
                            ex.name,
                            c.cycle
                        );
                    }
                    prev.copy_from_slice(c.words);
                    w.cycle(c.cycle, c.words, c.changed).unwrap();
                });
            let streamed = w.finish().unwrap();
            assert_eq!(streamed_report, report, "{}", ex.name);
            assert_eq!(cycles, trace.cycles(), "{}", ex.name);
            if streamed != recorded {
                let (a, b) = (
                    String::from_utf8_lossy(&streamed),
                    String::from_utf8_lossy(&recorded),
                );
                let first = a
                    .lines()
                    .zip(b.lines())
                    .enumerate()
                    .find(|(_, (x, y))| x != y);
                panic!(
                    "{}: streamed VCD differs from the recorded trace's at line {:?}",
                    ex.name, first
                );
            }
        }
    }
}

/// `sim --fst` streams the same waveform as FST: read back (through `wellen`, as `replay`
/// reads any waveform), it gives the engine's trace and report, for every example.
#[test]
fn streamed_fst_replays_to_the_engine_trace() {
    use handscope_sim::engine::Simulation;
    use handscope_traces::fst_out::FstWriter;
    use std::sync::atomic::AtomicBool;
    for ex in examples() {
        let (report, trace) = engine_run(&ex.func, &ex.env, 2000);
        let mut sim = Simulation::new(&ex.func, ex.env.clone()).unwrap();
        let mut tap = sim.signal_tap();
        let out = std::io::Cursor::new(Vec::new());
        let mut w = FstWriter::new(out, tap.channels(), tap.state_meta()).unwrap();
        sim.run_tapped(2000, &AtomicBool::new(false), &mut tap, &mut |c| {
            w.cycle(c.cycle, c.words, c.changed).unwrap();
        });
        let fst = w.finish().unwrap().into_inner();
        let path =
            std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{}.fst", ex.name));
        std::fs::write(&path, &fst).unwrap();
        let r = handscope_traces::vcd_in::replay_file(
            &path,
            &ex.func,
            Some(&ex.env),
            &ReplayOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{}: {e}", ex.name));
        assert!(r.mapping.unmatched_channels.is_empty(), "{}", ex.name);
        assert_same_trace(&ex.name, &trace, &r.trace, true);
        assert_eq!(report, r.report, "{}", ex.name);
    }
}

/// An FST whose block chain points backwards (a block length below 8, or above `i64::MAX`,
/// which the FST reader seeks by as a negative number) made the reader under `wellen` loop
/// forever checking the format (found by the `replay_fst` fuzz target); it is an error naming
/// the block, as fast as any other damaged file.
#[test]
fn fst_block_lengths_that_point_backwards_are_errors() {
    let ex = &examples()[0];
    for (bad_len, what) in [(u64::MAX, "18446744073709551615"), (3, "length 3 ")] {
        // A header block of 16 bytes (its length counts itself), then a skip block.
        let mut bytes = vec![0u8];
        bytes.extend_from_slice(&16u64.to_be_bytes());
        bytes.extend_from_slice(&[0u8; 8]);
        bytes.push(255);
        bytes.extend_from_slice(&bad_len.to_be_bytes());
        bytes.extend_from_slice(&[7u8; 40]);
        let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("backwards.fst");
        std::fs::write(&path, &bytes).unwrap();
        let Err(e) = replay_file(&path, &ex.func, Some(&ex.env), &ReplayOptions::default()) else {
            panic!("a damaged FST is an error");
        };
        let msg = e.to_string();
        assert!(msg.contains("the block at byte 17 (type 255) has"), "{msg}");
        assert!(msg.contains(what), "{msg}");
        assert!(msg.starts_with(&path.display().to_string()), "{msg}");
    }
}

/// Counts in an FST that size the reader's allocations are checked against the file first
/// (a damaged geometry block asked for 1 PB and aborted the process, found by the
/// `replay_fst` fuzz target); a file cut inside its last block is read up to the blocks
/// before it, with a warning.
#[test]
fn fst_counts_are_checked_and_cut_files_read_their_complete_blocks() {
    use handscope_sim::engine::Simulation;
    use handscope_traces::fst_out::FstWriter;
    use std::sync::atomic::AtomicBool;
    let ex = &examples()[0];
    let mut sim = Simulation::new(&ex.func, ex.env.clone()).unwrap();
    let mut tap = sim.signal_tap();
    let mut w = FstWriter::new(
        std::io::Cursor::new(Vec::new()),
        tap.channels(),
        tap.state_meta(),
    )
    .unwrap();
    sim.run_tapped(200, &AtomicBool::new(false), &mut tap, &mut |c| {
        w.cycle(c.cycle, c.words, c.changed).unwrap();
    });
    let fst = w.finish().unwrap().into_inner();
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    // Walk the blocks; make the geometry block (type 3) claim 2^50 signals.
    let mut at = 0usize;
    let mut geometry = None;
    let mut blocks = Vec::new();
    while at + 9 <= fst.len() {
        let len = u64::from_be_bytes(fst[at + 1..at + 9].try_into().unwrap()) as usize;
        blocks.push(at);
        if fst[at] == 3 {
            geometry = Some(at);
        }
        at += 1 + len;
    }
    let g = geometry.expect("a geometry block");
    let mut damaged = fst.clone();
    damaged[g + 17..g + 25].copy_from_slice(&(1u64 << 50).to_be_bytes());
    let path = dir.join("huge_geometry.fst");
    std::fs::write(&path, &damaged).unwrap();
    let Err(e) = replay_file(&path, &ex.func, Some(&ex.env), &ReplayOptions::default()) else {
        panic!("an impossible signal count is an error");
    };
    assert!(
        e.to_string().contains(&format!(
            "the block at byte {g} (type 3) declares 1125899906842624 signals"
        )),
        "{e}"
    );
    // Cut inside the last block: the blocks before it are read, with a warning.
    let last = *blocks.last().unwrap();
    let path = dir.join("cut_last_block.fst");
    std::fs::write(&path, &fst[..last + 12]).unwrap();
    let r = replay_file(&path, &ex.func, Some(&ex.env), &ReplayOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("incomplete block") && w.contains(&format!("up to byte {last}"))),
        "{:?}",
        r.warnings
    );
}

/// Issue 36, item 6: a timestamp smaller than the one before it is a located error. Before:
/// accepted silently (a cycle lost: 600 reported for 601); after: `goes back in time`, with
/// the line.
#[test]
fn timestamps_that_go_back_are_errors() {
    let (ex, _, vcd) = engine_vcd("sync_align");
    let text = String::from_utf8(vcd).unwrap();
    let pos = text.find("\n#30\n").unwrap() + 1;
    let bad = format!("{}#15\n{}", &text[..pos], &text[pos + 4..]);
    for env in [None, Some(&ex.env)] {
        let e = replay_bytes(
            bad.as_bytes(),
            "back.vcd",
            &ex.func,
            env,
            &ReplayOptions::default(),
            None,
        )
        .unwrap_err();
        let msg = e.to_string();
        let line = 1 + text[..pos].matches('\n').count();
        assert!(msg.starts_with(&format!("back.vcd:{line}:")), "{msg}");
        assert!(
            msg.contains("`#15` goes back in time (after `#25`)"),
            "{msg}"
        );
    }
    // The same timestamp twice is no step back.
    let twice = format!("{}#30\n{}", &text[..pos], &text[pos..]);
    replay_bytes(
        twice.as_bytes(),
        "twice.vcd",
        &ex.func,
        Some(&ex.env),
        &ReplayOptions::default(),
        None,
    )
    .unwrap();
}

/// Issue 36, item 6: a data signal declared with another width than its channel is an
/// error unless forced. Before: a 32-bit run replayed onto the circuit declared `i8`
/// reported `count=44` for 300 with exit 0; after: [`VcdError::Width`] naming the channels,
/// and with `force` a warning.
#[test]
fn data_signals_of_another_width_are_errors_unless_forced() {
    let (ex, _, _) = engine_vcd("counter_loop");
    let mut env = ex.env.clone();
    env.inputs.insert(
        "n".into(),
        vec![handscope_sim::stimulus::TokenSource::Values(vec![300])],
    );
    let (report, trace) = engine_run(&ex.func, &env, 100_000);
    assert_eq!(report.outputs["count"][0].bits, 300);
    let mut vcd = Vec::new();
    handscope_traces::vcd_out::write_vcd(&trace, &mut vcd).unwrap();
    for narrow in ["i8", "i64"] {
        let text = ex.text.replace("i32", narrow);
        let (module, _) = handscope_compiler::mlir::parse_mlir(&text, "narrow").unwrap();
        let f = handscope_sim::session::flat_function(&module, None).unwrap();
        for env in [None, Some(&env)] {
            let e =
                replay_bytes(&vcd, "w.vcd", &f, env, &ReplayOptions::default(), None).unwrap_err();
            let msg = e.to_string();
            assert!(matches!(e, VcdError::Width { .. }), "{msg}");
            assert!(
                msg.contains(&format!("`n`: 32-bit signal, type {narrow}")),
                "{msg}"
            );
            assert!(msg.contains("--force"), "{msg}");
        }
        let forced = ReplayOptions {
            force: true,
            ..ReplayOptions::default()
        };
        let r = replay_bytes(&vcd, "w.vcd", &f, None, &forced, None).unwrap();
        // Read at the signal's width and brought to the channel's: 300 cut to 8 bits is
        // 44 (what was reported silently before), kept whole at 64.
        let want = if narrow == "i8" { 300 & 0xff } else { 300 };
        assert_eq!(r.report.outputs["count"][0].bits, want, "{narrow}");
        assert!(
            r.warnings
                .iter()
                .any(|w| w.contains("not as wide as their channels")),
            "{:?}",
            r.warnings
        );
    }
}

/// Issue 36, item 6: without a stimulus a replay takes it from the trace and ends as the
/// engine's run did. Before: a run `sim` reported done (its results all out, or drained)
/// replayed as `deadlock`; after: every example's status and cycle count are the engine's.
#[test]
fn replays_without_stimulus_end_as_the_run_did() {
    for ex in examples() {
        let (report, trace) = engine_run(&ex.func, &ex.env, 2000);
        let mut out = Vec::new();
        handscope_traces::vcd_out::write_vcd(&trace, &mut out).unwrap();
        let r = replay_bytes(
            &out,
            &ex.name,
            &ex.func,
            None,
            &ReplayOptions::default(),
            None,
        )
        .unwrap();
        assert_eq!(
            (r.report.status, r.report.cycles),
            (report.status, report.cycles),
            "{}",
            ex.name
        );
        assert_eq!(r.report.outputs, report.outputs, "{}", ex.name);
    }
}
