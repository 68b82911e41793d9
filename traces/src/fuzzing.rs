//! Entry points of this crate's fuzz targets (`fuzz/fuzz_targets/replay_vcd.rs`), shared with
//! the test that replays their minimized corpus (`tests/fuzz_corpus.rs`), so a corpus file
//! runs through exactly the code the fuzzer ran it through. Each function panics on a broken
//! invariant (that is how the fuzzer learns of it) and returns normally otherwise.

use handscope_sim::Function;
use handscope_sim::stimulus::Environment;

use crate::vcd_in::{ReplayOptions, replay_bytes, replay_file, replay_reader};

/// The VCD reader on arbitrary bytes (a nesting directive of
/// [`handscope_sim::fuzzing::unfold_nesting`] unfolded first), replayed onto `f` in `env`: it never panics, an error
/// names the file, a replay ends within the file's timestamps, and reading the bytes in
/// chunks (as `replay_file` does; the size is drawn from the first byte, 1 to 61 bytes, so
/// chunk boundaries fall everywhere) gives exactly what reading them at once gives: the same
/// report, trace length and warnings, or the same error.
pub fn replay_vcd(data: &[u8], f: &Function, env: &Environment) {
    let data = &*handscope_sim::fuzzing::unfold_nesting(data);
    let chunk = 1 + data.first().map_or(0, |b| usize::from(*b) % 61);
    let opts = ReplayOptions {
        force: chunk % 2 == 1,
        ..ReplayOptions::default()
    };
    let env = (!chunk.is_multiple_of(3)).then_some(env);
    let whole = replay_bytes(data, "f.vcd", f, env, &opts, None);
    let mut rest = data;
    let chunked = replay_reader(
        &mut rest,
        data.len() as u64,
        "f.vcd",
        f,
        env,
        &opts,
        None,
        chunk,
    );
    match (whole, chunked) {
        (Ok(a), Ok(b)) => {
            let stamps = data.iter().filter(|&&c| c == b'#').count() as u64;
            assert!(a.trace.cycles() <= stamps, "more cycles than timestamps");
            assert_eq!(a.report, b.report, "chunked read, chunk {chunk}");
            assert_eq!(a.trace.cycles(), b.trace.cycles(), "chunk {chunk}");
            assert_eq!(a.warnings, b.warnings, "chunk {chunk}");
            assert_eq!(a.edges, b.edges, "chunk {chunk}");
        }
        (Err(a), Err(b)) => {
            let (a, b) = (a.to_string(), b.to_string());
            assert!(a.starts_with("f.vcd"), "{a}");
            assert_eq!(a, b, "chunk {chunk}");
        }
        (a, b) => panic!(
            "whole and chunked reads disagree (chunk {chunk}): {:?} vs {:?}",
            a.map(|r| r.report.status),
            b.map(|r| r.report.status)
        ),
    }
}

/// The FST reader on arbitrary bytes written to `scratch` (a file the caller owns, on a RAM
/// disk when fuzzing), replayed onto `f` in `env`: it never panics (a panic inside the
/// `wellen` reader is caught and becomes an error or a warning), an error names the file,
/// and a replay is reproducible (the same bytes give the same report twice). Bytes that do
/// not start like an FST (first byte 0) are made to, so every input exercises the FST path.
pub fn replay_fst(data: &[u8], f: &Function, env: &Environment, scratch: &std::path::Path) {
    let mut bytes = Vec::with_capacity(data.len() + 1);
    if data.first() != Some(&0) {
        bytes.push(0);
    }
    bytes.extend_from_slice(data);
    std::fs::write(scratch, &bytes).expect("the scratch file is writable");
    let opts = ReplayOptions {
        force: data.len() % 2 == 1,
        ..ReplayOptions::default()
    };
    let first = replay_file(scratch, f, Some(env), &opts);
    let again = replay_file(scratch, f, Some(env), &opts);
    let name = scratch.display().to_string();
    match (first, again) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a.report, b.report, "FST replay is not reproducible");
            assert_eq!(a.trace.cycles(), b.trace.cycles());
            assert_eq!(a.warnings, b.warnings);
        }
        (Err(a), Err(b)) => {
            let (a, b) = (a.to_string(), b.to_string());
            assert!(a.starts_with(&name), "{a}");
            assert_eq!(a, b);
        }
        (a, b) => panic!(
            "two reads of the same FST disagree: {:?} vs {:?}",
            a.map(|r| r.report.status),
            b.map(|r| r.report.status)
        ),
    }
}
