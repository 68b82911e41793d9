//! Invocation tags (`handscope_sim::invocation`) on every C kernel, run several times back to
//! back with and without task pipelining: the `k`-th `done` (and `ret`) token belongs to
//! invocation `k`, and on every channel the tags of the tokens that pass never go back (a
//! channel sees the invocations in order).

// The test reports which kernels overlap invocations.
#![allow(clippy::print_stdout)]

use crate::common;

use common::kernels::{all_kernel_files, kernel, parse_args, traced_run};
use handscope_compiler::c::{BufferPolicy, HsOptions};
use handscope_sim::invocation::{Tag, TraceTagger};

/// Runs `file`'s `RUN` inputs back to back (at least three invocations) and checks the tags;
/// returns the most invocations seen moving in one cycle.
fn check(file: &str, task_pipelining: bool) -> usize {
    let k = kernel(file);
    let ir = k.ir();
    let mut invocations: Vec<_> = k.runs.iter().map(|l| parse_args(&ir, l)).collect();
    while invocations.len() < 3 {
        invocations.push(invocations[0].clone());
    }
    let hs = k.handshake(&HsOptions {
        buffers: BufferPolicy::Cycles,
        task_pipelining,
        ..Default::default()
    });
    let what = format!("{file} (task pipelining {task_pipelining})");
    let run = traced_run(&ir, &hs, &invocations, 2_000_000);
    let t = run.trace.as_ref().expect("a traced run");
    let mut tagger = TraceTagger::new(&hs, t);
    let chans: Vec<Option<usize>> = hs
        .channels
        .values()
        .map(|c| t.channel_index(&c.name))
        .collect();
    let names: Vec<&str> = hs.channels.values().map(|c| c.name.as_str()).collect();
    let results: Vec<(String, usize)> = hs
        .results
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let ret = hs
                .nodes
                .values()
                .find(|n| n.op == handscope_sim::Op::Return)?;
            let name = &hs.channels[*ret.inputs.get(i)?].name;
            Some((r.name.clone(), names.iter().position(|n| n == name)?))
        })
        .collect();
    let mut last: Vec<Option<Tag>> = vec![None; hs.channels.len()];
    let mut per_result: Vec<Vec<Option<Tag>>> = vec![Vec::new(); results.len()];
    let mut most = 0;
    for c in 0..t.cycles() {
        let v = t.cycle(c).expect("a cycle");
        let tags = tagger.at(&hs, t, c).expect("tags of the cycle").to_vec();
        let mut moving = std::collections::BTreeSet::new();
        for (i, ti) in chans.iter().enumerate() {
            let Some(ti) = *ti else { continue };
            if !(v.valid(ti) && v.ready(ti)) {
                continue;
            }
            let tag = tags[i];
            assert!(
                tag.is_some(),
                "{what}: a token without a tag on {} at {c}",
                names[i]
            );
            assert!(
                last[i] <= tag,
                "{what}: channel {} goes back from invocation {:?} to {tag:?} at cycle {c}",
                names[i],
                last[i]
            );
            last[i] = tag;
            moving.insert(tag);
            for (r, (_, ch)) in results.iter().enumerate() {
                if *ch == i {
                    per_result[r].push(tag);
                }
            }
        }
        most = most.max(moving.len());
    }
    for ((name, _), tags) in results.iter().zip(&per_result) {
        let want: Vec<Option<Tag>> = (0..invocations.len() as Tag).map(Some).collect();
        assert_eq!(tags, &want, "{what}: the tokens of result {name}");
    }
    most
}

// Two tests, so that the harness runs them on two threads (the suite's longest test binary).
#[test]
fn every_kernel_s_results_carry_their_invocation() {
    for file in all_kernel_files() {
        check(&file, false);
    }
}

#[test]
fn every_kernel_s_results_carry_their_invocation_with_task_pipelining() {
    let overlapping: Vec<String> = all_kernel_files()
        .into_iter()
        .filter(|file| check(file, true) > 1)
        .collect();
    println!("kernels moving two invocations at once with task pipelining: {overlapping:?}");
    // Task pipelining lets the next invocation start while one is still running: some kernels
    // then move tokens of two invocations in the same cycle.
    assert!(
        overlapping.iter().any(|f| f == "three_loops.c"),
        "{overlapping:?}"
    );
}
