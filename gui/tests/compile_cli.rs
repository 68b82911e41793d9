//! `handscope compile`: C kernels to MLIR, DOT and the readable listing; located errors.

use std::process::Command;

fn handscope(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_handscope"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .output()
        .expect("run handscope");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn emits_mlir_dot_and_graph() {
    let (ok, mlir, err) = handscope(&["compile", "examples/kernels/gcd.c"]);
    assert!(ok, "{err}");
    assert!(mlir.contains("handshake.func @gcd("), "{mlir}");
    assert!(
        mlir.contains("handshake.name = \"bb1.control_merge0\""),
        "{mlir}"
    );
    let (ok2, mlir2, _) = handscope(&["compile", "examples/kernels/gcd.c"]);
    assert!(ok2);
    assert_eq!(mlir, mlir2, "compiling twice is byte-identical");

    let (ok, dot, err) = handscope(&["compile", "examples/kernels/gcd.c", "--emit", "dot"]);
    assert!(ok, "{err}");
    assert!(dot.starts_with("digraph"), "{dot}");
    assert!(dot.contains("\"bb1.control_merge0\""), "{dot}");

    let (ok, g, err) = handscope(&["compile", "examples/kernels/gcd.c", "--emit", "graph"]);
    assert!(ok, "{err}");
    assert!(g.starts_with("function @gcd: 22 nodes"), "{g}");
    // Every node line names its block and C source position.
    let line = g
        .lines()
        .find(|l| l.trim_start().starts_with("bb1.control_merge0"))
        .expect("listed");
    assert!(
        line.contains("control_merge") && line.contains("bb1"),
        "{line}"
    );
    assert!(line.contains("examples/kernels/gcd.c:"), "{line}");
}

#[test]
fn options_change_the_graph() {
    let count = |args: &[&str]| {
        let (ok, g, err) = handscope(args);
        assert!(ok, "{err}");
        g.lines().filter(|l| l.contains(" buffer ")).count()
    };
    let base = [
        "compile",
        "examples/kernels/three_loops.c",
        "--emit",
        "graph",
    ];
    let none = count(&[&base[..], &["--buffers", "none"]].concat());
    let cycles = count(&base);
    let all = count(&[&base[..], &["--buffers", "all"]].concat());
    assert!(none < cycles && cycles < all, "{none} {cycles} {all}");
    let (ok, tp, _) = handscope(&[&base[..], &["--task-pipelining"]].concat());
    let (_, plain, _) = handscope(&base);
    assert!(ok);
    assert_ne!(tp, plain, "task pipelining changes the graph");
}

#[test]
fn bad_c_gets_a_located_error() {
    let dir = std::env::temp_dir().join(format!("hs-compile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("bad.c");
    std::fs::write(&f, "int f(int a) {\n  float x = 1;\n  return a;\n}\n").unwrap();
    let (ok, _, err) = handscope(&["compile", f.to_str().unwrap()]);
    assert!(!ok);
    assert!(err.contains("bad.c:2:"), "{err}");
    let (ok, _, err) = handscope(&["compile", "examples/circuits/counter_loop.mlir"]);
    assert!(!ok);
    assert!(err.contains("takes a C kernel"), "{err}");
}

#[test]
fn sim_names_c_parameters_and_reports_arrays() {
    let (ok, out, err) = handscope(&[
        "sim",
        "examples/kernels/carried_dep.c",
        "--in",
        "k=3",
        "--mem",
        "a=5",
        "--json",
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["status"], "done");
    assert_eq!(v["outputs"]["ret"][0]["value"], 32, "{out}");
    let a: Vec<i64> = v["memories"]["a"]
        .as_array()
        .expect("array parameter in memories")
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect();
    assert_eq!(a, [5, 8, 11, 14, 17, 20, 23, 26, 29, 32]);
}
