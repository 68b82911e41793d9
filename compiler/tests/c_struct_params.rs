//! The top function's struct and pointer parameters: an array of structs becomes one memory
//! per member (`nodes.begin`, `nodes.end`), a struct passed by value one argument per member
//! (`origin.x`), a pointer to a struct one one-element memory per member (`acc.count`), and a
//! pointer to a number a one-element memory. The kernel runs in the IR interpreter and in the
//! engine and must match the same C compiled natively with a driver that fills the structs
//! with the same values.

// Test helpers say which checks they skip (missing tools) and what they measured.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use crate::common::kernels::{interpreted, simulate};
use handscope_compiler::c::ir::IrParam;
use handscope_compiler::c::{ArgValue, HsOptions, compile_to_handshake, compile_to_ir};
use std::process::Command;

const KERNEL: &str = r#"#include <stdint.h>
#define N 6
typedef struct { uint32_t begin, end; } node_t;
typedef struct { int16_t x, y; } point;
struct stats { int count; int64_t sum; int hist[4]; };
int64_t walk(node_t nodes[N], point origin, struct stats *acc, int *best) {
    int64_t total = 0;
    for (int i = 0; i < N; i++) {
        int len = (int)(nodes[i].end - nodes[i].begin);
        total += len * origin.x - origin.y;
        acc->count++;
        acc->sum += len;
        acc->hist[len & 3] += 1;
        if (len > *best)
            *best = len;
        nodes[i].begin += (uint32_t)i;
    }
    return total;
}
"#;

const DRIVER: &str = r#"
#include <stdio.h>
int main(void) {
    node_t nodes[N] = {{1, 5}, {2, 9}, {4, 4}, {10, 17}, {3, 6}, {0, 2}};
    point origin = {3, -2};
    struct stats acc = {7, 100, {1, 0, 2, 0}};
    int best = 1;
    long long t = (long long)walk(nodes, origin, &acc, &best);
    printf("ret=%lld\n", t);
    printf("nodes.begin:"); for (int i = 0; i < N; i++) printf(" %u", nodes[i].begin); printf("\n");
    printf("nodes.end:"); for (int i = 0; i < N; i++) printf(" %u", nodes[i].end); printf("\n");
    printf("acc.count: %d\n", acc.count);
    printf("acc.sum: %lld\n", (long long)acc.sum);
    printf("acc.hist:"); for (int i = 0; i < 4; i++) printf(" %d", acc.hist[i]); printf("\n");
    printf("best: %d\n", best);
    return 0;
}
"#;

/// The arguments, by the parameter names the front end gives the members.
fn args(f: &handscope_compiler::c::IrFunction) -> Vec<ArgValue> {
    f.params
        .iter()
        .map(|p| match p {
            IrParam::Scalar { name, .. } => ArgValue::Scalar(match name.as_str() {
                "origin.x" => 3,
                "origin.y" => -2,
                other => panic!("unexpected scalar parameter {other}"),
            }),
            IrParam::Array { name, .. } => ArgValue::Array(match name.as_str() {
                "nodes.begin" => vec![1, 2, 4, 10, 3, 0],
                "nodes.end" => vec![5, 9, 4, 17, 6, 2],
                "acc.count" => vec![7],
                "acc.sum" => vec![100],
                "acc.hist" => vec![1, 0, 2, 0],
                "best" => vec![1],
                other => panic!("unexpected array parameter {other}"),
            }),
        })
        .collect()
}

#[test]
fn struct_and_pointer_parameters_of_the_top_function_match_native_c() {
    let ir = compile_to_ir(KERNEL, "walk.c", None).expect("compiles");
    let names: Vec<String> = ir
        .params
        .iter()
        .map(|p| match p {
            IrParam::Scalar { name, .. } | IrParam::Array { name, .. } => name.clone(),
        })
        .collect();
    assert_eq!(
        names,
        [
            "nodes.begin",
            "nodes.end",
            "origin.x",
            "origin.y",
            "acc.count",
            "acc.sum",
            "acc.hist",
            "best"
        ]
    );
    let a = args(&ir);
    let got = interpreted(&ir, &a);
    let hs = compile_to_handshake(KERNEL, "walk.c", None, &HsOptions::default())
        .expect("compiles")
        .functions
        .remove(0);
    let sim = simulate(&ir, &hs, std::slice::from_ref(&a), 100_000, "walk").outcome();
    assert_eq!(sim, got, "engine against interpreter");

    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("c_struct_params");
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let src = dir.join("walk.c");
    std::fs::write(&src, format!("{KERNEL}{DRIVER}")).expect("write");
    let exe = dir.join("walk");
    let cc = Command::new("cc")
        .args(["-std=gnu11", "-O0", "-w", "-o"])
        .arg(&exe)
        .arg(&src)
        .output();
    let Ok(cc) = cc else {
        eprintln!("skipped the native comparison: no C compiler (cc)");
        return;
    };
    assert!(
        cc.status.success(),
        "{}",
        String::from_utf8_lossy(&cc.stderr)
    );
    let out = Command::new(&exe).output().expect("run");
    let native = String::from_utf8(out.stdout).expect("utf8");
    let mut ours = format!("ret={}\n", got.ret.expect("a return value"));
    for (name, vs) in &got.arrays {
        ours.push_str(&format!("{name}:"));
        for v in vs {
            ours.push_str(&format!(" {v}"));
        }
        ours.push('\n');
    }
    assert_eq!(ours, native);
}
