//! Following a VCD while it is written: the file grows in chunks whose boundaries fall
//! anywhere (inside value-change lines and inside `#` timestamp lines); after each chunk the
//! follower shows a prefix of the final trace (never a cycle that the finished file does
//! not have, with the same values), it only grows, and once the writer finished it equals
//! the replay of the whole file.

use crate::common;

use std::io::Write;

use handscope_traces::vcd_in::follow::Follower;
use handscope_traces::vcd_in::{ReplayOptions, replay_bytes};

use common::*;

/// Cycles `0..got.cycles()` of `got` equal those of `want`.
fn assert_prefix(
    what: &str,
    want: &handscope_sim::trace::Trace,
    got: &handscope_sim::trace::Trace,
) {
    assert!(
        got.cycles() <= want.cycles(),
        "{what}: {} cycles shown, the finished run has {}",
        got.cycles(),
        want.cycles()
    );
    for c in 0..got.cycles() {
        let (a, b) = (want.cycle(c).unwrap(), got.cycle(c).unwrap());
        for (i, ch) in want.channels().iter().enumerate() {
            assert_eq!(
                (a.valid(i), a.ready(i), a.valid(i).then(|| a.data(i))),
                (b.valid(i), b.ready(i), b.valid(i).then(|| b.data(i))),
                "{what}: cycle {c} channel {}",
                ch.name
            );
        }
        assert_eq!(a.state_words(), b.state_words(), "{what}: cycle {c} state");
    }
}

/// Chunk sizes from a small deterministic generator (1 to 97 bytes).
fn chunk_sizes(seed: u64) -> impl Iterator<Item = usize> {
    let mut x = seed;
    std::iter::from_fn(move || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        Some(1 + (x >> 33) as usize % 97)
    })
}

#[test]
fn a_growing_vcd_shows_only_complete_cycles() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("vcd_follow");
    std::fs::create_dir_all(&dir).unwrap();
    let mut inside_timestamp_line = 0;
    for (k, ex) in examples()
        .into_iter()
        .filter(|e| {
            ["counter_loop", "deadlock_join", "fork_join_diamond"].contains(&e.name.as_str())
        })
        .enumerate()
    {
        let (_, trace) = engine_run(&ex.func, &ex.env, 2000);
        let mut vcd = Vec::new();
        handscope_traces::vcd_out::write_vcd(&trace, &mut vcd).unwrap();
        let opts = ReplayOptions::default();
        let full = replay_bytes(&vcd, &ex.name, &ex.func, Some(&ex.env), &opts, None).unwrap();
        assert!(full.trace.cycles() > 3, "{}", ex.name);

        let path = dir.join(format!("{}.vcd", ex.name));
        let _ = std::fs::remove_file(&path);
        let mut follower = Follower::new(&path, &ex.func, Some(&ex.env), &opts).unwrap();
        // Nothing there yet.
        assert!(!follower.poll().unwrap());
        assert!(follower.trace().is_none());
        let mut file = std::fs::File::create(&path).unwrap();
        let mut at = 0;
        let mut shown = 0;
        for n in chunk_sizes(k as u64 + 1) {
            if at >= vcd.len() {
                break;
            }
            let end = (at + n).min(vcd.len());
            file.write_all(&vcd[at..end]).unwrap();
            file.flush().unwrap();
            at = end;
            // Is the file's last line a timestamp cut short?
            let last_line = vcd[..at].rsplit(|&b| b == b'\n').next().unwrap_or(&[]);
            if last_line.first() == Some(&b'#') && vcd.get(at) != Some(&b'\n') {
                inside_timestamp_line += 1;
            }
            follower.poll().unwrap();
            let Some(t) = follower.trace() else {
                continue;
            };
            let what = format!("{} after {at} of {} bytes", ex.name, vcd.len());
            assert_prefix(&what, &full.trace, &t);
            assert!(t.cycles() >= shown, "{what}: the trace shrank");
            assert_eq!(t.cycles(), follower.cycles());
            // Only the unparsed tail is held, never the file: at most the newest
            // timestamp's lines (and the header until it is complete).
            if t.cycles() > 0 {
                assert!(
                    follower.bytes_read() <= at as u64,
                    "{what}: read past the end"
                );
            }
            shown = t.cycles();
        }
        // The whole file is there, but the writer has not said it is done: the last
        // timestamp may still be incomplete, so at most one cycle is held back.
        assert!(shown + 1 >= full.trace.cycles(), "{}: {shown}", ex.name);
        let r = follower.finish().unwrap();
        assert_same_trace(&ex.name, &full.trace, &r.trace, true);
        assert_eq!(r.report, full.report, "{}", ex.name);
    }
    assert!(
        inside_timestamp_line > 0,
        "no chunk ended inside a timestamp line; the test lost its point"
    );
}

#[test]
fn a_rewritten_file_is_read_again_from_the_start() {
    let ex = examples()
        .into_iter()
        .find(|e| e.name == "counter_loop")
        .unwrap();
    let (_, trace) = engine_run(&ex.func, &ex.env, 2000);
    let mut vcd = Vec::new();
    handscope_traces::vcd_out::write_vcd(&trace, &mut vcd).unwrap();
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("vcd_follow");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("rewritten.vcd");
    std::fs::write(&path, &vcd).unwrap();
    let opts = ReplayOptions::default();
    let mut f = Follower::new(&path, &ex.func, Some(&ex.env), &opts).unwrap();
    assert!(f.poll().unwrap());
    let before = f.trace().unwrap();
    // A new run starts writing the file again: shorter than what was read.
    std::fs::write(&path, &vcd[..vcd.len() * 9 / 10]).unwrap();
    assert!(f.poll().unwrap(), "a rewritten file is a change");
    let after = f.trace().unwrap();
    assert!(after.cycles() < before.cycles());
    let full = replay_bytes(&vcd, "x", &ex.func, Some(&ex.env), &opts, None).unwrap();
    assert_prefix("rewritten", &full.trace, &after);
}
