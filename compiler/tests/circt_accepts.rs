//! The writer's output is accepted by CIRCT 1.62 (the `circt` Python package).
//!
//! Python is taken from `HANDSCOPE_PYTHON`, else `<workspace>/.venv/bin/python`; without a
//! Python that can import `circt` the test is skipped with a message, except under `CI=true`
//! where that is a failure.

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::python::python;
use common::{data, parse_ok};
use handscope_compiler::mlir::write_mlir;
use handscope_sim::{ArgType, BufferKind, Function, Module, NameHint, Op, SourceLoc, Type};

/// Parses every file given on the command line; with `--lower`, also runs
/// `lower-handshake-to-hw` and checks that named instances exist.
const CHECKER: &str = r#"
import sys, circt
from circt.ir import Context, Module
import circt.passmanager as pm
ctx = Context()
circt.register_dialects(ctx)
lower = sys.argv[1] == "--lower"
with ctx:
    # The package does not register `arith`; running a pass that depends on it loads it.
    empty = Module.parse("module {}")
    pm.PassManager.parse("builtin.module(handshake-lower-extmem-to-hw)").run(empty.operation)
    for path in sys.argv[2:]:
        m = Module.parse(open(path).read())
        assert m.operation.verify(), path
        if lower:
            pm.PassManager.parse("builtin.module(lower-handshake-to-hw)").run(m.operation)
            text = str(m)
            assert "hw.module @" in text, text
print("circt-ok")
"#;

/// A graph built through the model API (not parsed), with names, blocks and locations.
fn built_graph() -> Module {
    let mut f = Function::new("built");
    let a = f.add_arg("in a", ArgType::Channel(Type::Int(16))).unwrap();
    let c = f.add_arg("start", ArgType::Channel(Type::None)).unwrap();
    let buf = f.add_node(
        Op::Buffer {
            slots: 2,
            kind: BufferKind::Seq,
            init: Some(vec![3, u64::MAX]),
        },
        vec![Type::Int(16)],
    );
    f.set_inputs(buf, vec![a]);
    f.nodes[buf].name_hint = NameHint::Name("pipe.stage".into());
    f.nodes[buf].block = Some("bb1".into());
    f.nodes[buf].loc = Some(SourceLoc::new("src/my \"file\".c", 4, 2));
    let k = f.add_node(Op::Constant { value: 0xFFFF }, vec![Type::Int(16)]);
    f.set_inputs(k, vec![c]);
    f.nodes[k].name_hint = NameHint::HandshakeId(9);
    let add = f.add_node(Op::Arith(handscope_sim::ArithOp::Addi), vec![Type::Int(16)]);
    let (o0, o1) = (f.nodes[buf].outputs[0], f.nodes[k].outputs[0]);
    f.set_inputs(add, vec![o0, o1]);
    let src = f.add_node(Op::Source, vec![Type::None]);
    let ret = f.add_node(Op::Return, vec![]);
    let (r0, r1) = (f.nodes[add].outputs[0], f.nodes[src].outputs[0]);
    f.set_inputs(ret, vec![r0, r1]);
    f.results.push(handscope_sim::FuncResult {
        name: "sum".into(),
        ty: Type::Int(16),
    });
    f.results.push(handscope_sim::FuncResult {
        name: "done".into(),
        ty: Type::None,
    });
    f.assign_ids().unwrap();
    Module { functions: vec![f] }
}

#[test]
fn circt_parses_the_writer_output() {
    let Some(py) = python("circt_accepts") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("handscope-circt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut modules: Vec<(String, Module)> =
        ["all_ops.mlir", "all_ops.circt_gloc.mlir", "loop.mlir"]
            .iter()
            .map(|s| (s.to_string(), parse_ok(&data(s))))
            .collect();
    modules.push(("built".into(), built_graph()));
    let mut files = Vec::new();
    for (name, m) in &modules {
        let path = dir.join(format!("{}.out.mlir", name.replace('.', "_")));
        std::fs::write(&path, write_mlir(m)).unwrap();
        files.push(path);
    }
    let run = |mode: &str, paths: &[PathBuf]| {
        let out = Command::new(&py)
            .arg("-c")
            .arg(CHECKER)
            .arg(mode)
            .args(paths)
            .output()
            .expect("running python");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && stdout.contains("circt-ok"),
            "circt rejected the writer output:\n{stdout}\n{stderr}"
        );
    };
    run("--parse", &files);
    // Graphs without ops CIRCT 1.62 cannot lower also survive `lower-handshake-to-hw`,
    // including their `handshake.bb` / `handshake.name` / `handshake_id` attributes.
    run("--lower", &files[2..]);
    let _ = std::fs::remove_dir_all(&dir);
}
