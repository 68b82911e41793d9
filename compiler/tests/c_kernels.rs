//! The kernel-by-kernel verification of the C compiler: every kernel in `examples/kernels`
//! and `tests/data/c` is run with each of its `// RUN:` inputs
//! - natively: the same C compiled by the system `cc` with a generated driver,
//! - in the IR interpreter (front and middle end),
//! - as a handshake graph in the engine, compiled with buffers on back edges, buffers
//!   everywhere, task pipelining, and load-store queues for the arrays both read and
//!   written (`--memory lsq`) (each graph must also pass `verify`),
//! - with static islands (`--schedule hybrid` and `static`) under both timing profiles,
//!
//! and the return value and final contents of every array parameter must equal the native
//! run's. The harness lives in `common/kernels.rs`.

// Test helpers say which checks they skip (missing tools) and what they measured.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use crate::common;

use common::kernels::{
    Kernel, all_kernel_files, interpreted, kernel, native, node_count, parse_args, simulate,
    simulate_timed,
};
use handscope_compiler::c::{BufferPolicy, HsOptions, MemoryOrdering, Scheduling};
use handscope_sim::spec::timing::TimingProfile;
use handscope_sim::verify::verify;

/// The handshake configurations every kernel is simulated in: buffers, task pipelining,
/// memory ordering.
const CONFIGS: [(BufferPolicy, bool, MemoryOrdering); 5] = [
    (BufferPolicy::Cycles, false, MemoryOrdering::Serial),
    (BufferPolicy::All, false, MemoryOrdering::Serial),
    (BufferPolicy::Cycles, true, MemoryOrdering::Serial),
    (BufferPolicy::Cycles, false, MemoryOrdering::Lsq),
    (BufferPolicy::Cycles, false, MemoryOrdering::Queue),
];

fn check_kernel(file: &str) {
    let k: Kernel = kernel(file);
    let ir = k.ir();
    let text = ir.to_string();
    assert!(text.starts_with(&format!("func @{}(", k.top)), "{text}");
    let inputs: Vec<_> = k.runs.iter().map(|l| parse_args(&ir, l)).collect();
    let expected: Vec<_> = inputs
        .iter()
        .enumerate()
        .map(|(r, args)| {
            let tag = format!("{}_{r}", k.stem());
            native(&ir, &k, std::slice::from_ref(args), &tag).remove(0)
        })
        .collect();
    for ((line, args), want) in k.runs.iter().zip(&inputs).zip(&expected) {
        let got = interpreted(&ir, args);
        assert_eq!(
            got, *want,
            "{file} RUN `{line}`: interpreter\n got:\n{got}\n native:\n{want}\nIR:\n{text}"
        );
    }
    for (buffers, task_pipelining, memory) in CONFIGS {
        let what = format!(
            "{file} [{buffers:?}{}{}]",
            if task_pipelining { ", pipelined" } else { "" },
            match memory {
                MemoryOrdering::Serial => "",
                MemoryOrdering::Lsq => ", lsq",
                MemoryOrdering::Queue => ", queue",
            }
        );
        let hs = k.handshake(&HsOptions {
            buffers,
            task_pipelining,
            memory,
            ..Default::default()
        });
        let rep = verify(&hs);
        assert!(rep.is_ok(), "{what}: {:#?}", rep.errors);
        let mut cycles = Vec::new();
        for ((line, args), want) in k.runs.iter().zip(&inputs).zip(&expected) {
            let run_what = format!("{what} RUN `{line}`");
            let sim = simulate(&ir, &hs, std::slice::from_ref(args), 2_000_000, &run_what);
            let got = sim.outcome();
            assert_eq!(
                got, *want,
                "{run_what}: engine\n got:\n{got}\n native:\n{want}"
            );
            cycles.push(sim.report.cycles);
        }
        println!("{what}: {} nodes, cycles {cycles:?}", node_count(&hs));
    }
    // Static islands: innermost loops (hybrid) or the whole function (static), scheduled
    // for each profile and run under it. Same answers.
    for schedule in [Scheduling::Hybrid, Scheduling::Static] {
        for timing in [TimingProfile::ideal(), TimingProfile::fpga()] {
            let name = if timing.is_ideal() { "ideal" } else { "fpga" };
            let hs = k.handshake(&HsOptions {
                timing: timing.clone(),
                schedule,
                ..Default::default()
            });
            let rep = verify(&hs);
            assert!(
                rep.is_ok(),
                "{file} [{schedule:?}, {name}]: {:#?}",
                rep.errors
            );
            let islands = hs
                .nodes
                .values()
                .filter(|n| matches!(n.op, handscope_sim::Op::Island(_)))
                .count();
            if schedule == Scheduling::Static {
                assert_eq!(islands, 1, "{file} [static]: one island for the function");
            }
            let what = format!("{file} [{schedule:?}, {name}]");
            let cycles = runs_match_native(&k, &ir, &hs, &inputs, &expected, &what, &timing);
            println!(
                "{file} [{schedule:?}, {name}]: {} nodes, {islands} islands, cycles {cycles:?}",
                node_count(&hs)
            );
        }
    }
    // The `fpga` timing profile: buffers sized for its latencies, pipelines in the run. Same
    // answers, later; with serial order and with address queues.
    let fpga = TimingProfile::fpga();
    for memory in [MemoryOrdering::Serial, MemoryOrdering::Queue] {
        let hs = k.handshake(&HsOptions {
            timing: fpga.clone(),
            memory,
            ..Default::default()
        });
        let rep = verify(&hs);
        assert!(rep.is_ok(), "{file} [fpga, {memory:?}]: {:#?}", rep.errors);
        let what = format!("{file} [fpga, {memory:?}]");
        runs_match_native(&k, &ir, &hs, &inputs, &expected, &what, &fpga);
    }
}

/// Runs `hs` on every RUN line's `inputs` under `timing` and checks each outcome against
/// the native run's; returns the cycles of each run.
fn runs_match_native(
    k: &Kernel,
    ir: &handscope_compiler::c::IrFunction,
    hs: &handscope_sim::Function,
    inputs: &[Vec<handscope_compiler::c::ArgValue>],
    expected: &[common::kernels::Outcome],
    what: &str,
    timing: &TimingProfile,
) -> Vec<u64> {
    let mut cycles = Vec::new();
    for ((line, args), want) in k.runs.iter().zip(inputs).zip(expected) {
        let run_what = format!("{what} RUN `{line}`");
        let sim = simulate_timed(
            ir,
            hs,
            std::slice::from_ref(args),
            4_000_000,
            &run_what,
            timing,
        );
        let got = sim.outcome();
        assert_eq!(
            got, *want,
            "{run_what}: engine\n got:\n{got}\n native:\n{want}"
        );
        cycles.push(sim.report.cycles);
    }
    cycles
}

macro_rules! kernels {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                check_kernel(concat!(stringify!($name), ".c"));
            }
        )*
        /// The kernels with a test above.
        const LISTED: &[&str] = &[$(concat!(stringify!($name), ".c")),*];
    };
}

kernels!(
    // examples/kernels
    gcd,
    dot,
    fir,
    histogram,
    matmul,
    matvec,
    triangle_sum,
    insertion_sort,
    binary_search,
    prefix_sum,
    stencil1d,
    stencil2d,
    cond_accum,
    while_threshold,
    nested_loops,
    carried_dep,
    three_loops,
    collatz,
    popcount,
    bitrev,
    helper_call,
    // examples/kernels: float and double
    gemm_f32,
    trisolv_f64,
    covariance_f64,
    jacobi1d_f32,
    jacobi2d_f32,
    conv2d_f32,
    norm2_f64,
    newton_sqrt_f64,
    dot_f32,
    axpy_f32,
    horner_f64,
    meanvar_f64,
    iir_f32,
    quantize_f32,
    lu_f64,
    bicg_f32,
    softclip_f64,
    activations_f32,
    polar_f64,
    // tests/data/c: language corners
    switch_fall,
    short_circuit,
    mixed_sign,
    char_short,
    shifts,
    divrem,
    multidim_init,
    macros,
    gotos,
    float_corners,
    pointers,
    structs,
    globals,
    old_style,
);

/// Every kernel file has a test above, and there are at least 20 examples.
#[test]
fn every_kernel_file_is_listed() {
    let mut listed: Vec<String> = LISTED.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(
        listed,
        all_kernel_files(),
        "add new kernel files to the `kernels!` list"
    );
    let examples = common::kernels::example_files().len();
    assert!(examples >= 20, "examples/kernels holds {examples} kernels");
}

/// The native side of the harness sees the real C: known results of two kernels.
#[test]
fn native_runs_report_real_results() {
    let k = kernel("gcd.c");
    let ir = k.ir();
    let args = parse_args(&ir, "1071 462");
    let out = native(&ir, &k, &[args], "self_gcd").remove(0);
    assert_eq!(out.ret, Some(21));
    assert!(out.arrays.is_empty());
    let k = kernel("carried_dep.c");
    let ir = k.ir();
    let args = parse_args(&ir, "[5] 3");
    let out = native(&ir, &k, &[args], "self_carried").remove(0);
    assert_eq!(out.ret, Some(32));
    assert_eq!(
        out.arrays,
        [("a".to_string(), vec![5, 8, 11, 14, 17, 20, 23, 26, 29, 32])]
    );
    // Several calls: the second starts from the array the first left.
    let k = kernel("prefix_sum.c");
    let ir = k.ir();
    let ones = parse_args(&ir, &format!("[{}]", ["1"; 20].join(" ")));
    let out = native(&ir, &k, &[ones.clone(), ones], "self_prefix");
    assert_eq!(out[0].ret, Some(20));
    assert_eq!(out[1].ret, Some(210));
    assert_eq!(out[1].to_string().lines().next(), Some("ret=210"));
    // Floats come back as bit patterns: |(3, 4)| = 5, the vector becomes (0.6, 0.8).
    let k = kernel("norm2_f64.c");
    let ir = k.ir();
    let out = native(&ir, &k, &[parse_args(&ir, "[3 4]")], "self_norm2").remove(0);
    assert_eq!(out.ret, Some(5f64.to_bits() as i64));
    let v: Vec<f64> = out.arrays[0]
        .1
        .iter()
        .map(|b| f64::from_bits(*b as u64))
        .collect();
    assert_eq!(v[..3], [3.0 / 5.0, 4.0 / 5.0, 0.0]);
}
