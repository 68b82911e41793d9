//! The writer's output is accepted by CIRCT 1.62 (the `circt` Python package).
//!
//! Python is taken from `HANDSCOPE_PYTHON`, else `<workspace>/.venv/bin/python`; without a
//! Python that can import `circt` the test is skipped with a message, except under `CI=true`
//! where that is a failure.

use crate::common;

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

/// Prints each file given on the command line as CIRCT 1.62 reads it (custom form).
const PRINTER: &str = r#"
import sys, circt
from circt.ir import Context, Module
import circt.passmanager as pm
ctx = Context()
circt.register_dialects(ctx)
with ctx:
    empty = Module.parse("module {}")
    pm.PassManager.parse("builtin.module(handshake-lower-extmem-to-hw)").run(empty.operation)
    for path in sys.argv[1:]:
        m = Module.parse(open(path).read())
        assert m.operation.verify(), path
        print(str(m))
"#;

/// Floats through CIRCT 1.62: the writer's float ops (every `arith` float op and `cmpf`
/// predicate; the package has no `math` dialect) and constants parse in CIRCT, and what CIRCT
/// prints back reads to the same graph with every constant's bits unchanged (specials, NaN
/// payloads, subnormals, random patterns).
#[test]
fn circt_reads_float_ops_and_constants_to_the_same_bits() {
    let Some(py) = python("circt_accepts") else {
        return;
    };
    use handscope_sim::{ArithClass, ArithOp, Dialect, FloatKind, FloatPredicate};
    let mut consts: Vec<(FloatKind, u64)> = Vec::new();
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for kind in FloatKind::ALL {
        let m = handscope_sim::types::width_mask(kind.bits());
        let sign = 1u64 << (kind.bits() - 1);
        let pats = [
            0,
            sign,
            1,
            m >> 1,
            handscope_sim::float::positive_nan(kind),
            handscope_sim::float::positive_nan(kind) | sign | 5,
            handscope_sim::float::positive_nan(kind) ^ handscope_sim::float::quiet_bit(kind) | 1,
        ];
        consts.extend(pats.iter().map(|&p| (kind, p & m)));
        for _ in 0..40 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            consts.push((kind, x & m));
        }
    }
    let mut body = String::new();
    let mut rets = Vec::new();
    let n = consts.len();
    body.push_str(&format!("  %cc:{n} = fork [{n}] %c : none\n"));
    for (i, (k, bits)) in consts.iter().enumerate() {
        let lit = handscope_compiler::mlir::float_literal(*bits, *k);
        body.push_str(&format!(
            "  %k{i} = constant %cc#{i} {{value = {lit} : {0}}} : {0}\n",
            k.name()
        ));
        rets.push((format!("%k{i}"), k.name().to_string()));
    }
    // One op of each arith float class and every cmpf predicate; every use of an argument
    // takes its own output of a fork (`%xf#k`).
    let mut uses = [0usize; 3];
    let mut arg = |i: usize| {
        uses[i] += 1;
        format!("%{}f#{}", ["x", "d", "i"][i], uses[i] - 1)
    };
    let mut ops: Vec<(String, &str)> = Vec::new();
    for &(a, m) in ArithOp::SIMPLE {
        if a.dialect() != Dialect::Arith || !a.class().is_float() {
            continue;
        }
        ops.push(match a.class() {
            ArithClass::FloatBinary => (format!("arith.{m} {}, {} : f32", arg(0), arg(0)), "f32"),
            ArithClass::FloatUnary => (format!("arith.{m} {} : f32", arg(0)), "f32"),
            ArithClass::IntToFloat => (format!("arith.{m} {} : i32 to f64", arg(2)), "f64"),
            ArithClass::FloatToInt => (format!("arith.{m} {} : f32 to i32", arg(0)), "i32"),
            ArithClass::FloatExtend => (format!("arith.{m} {} : f32 to f64", arg(0)), "f64"),
            ArithClass::FloatTruncate => (format!("arith.{m} {} : f64 to f32", arg(1)), "f32"),
            other => panic!("{other:?}"),
        });
    }
    for p in FloatPredicate::ALL {
        ops.push((
            format!("arith.cmpf {}, {}, {} : f64", p.keyword(), arg(1), arg(1)),
            "i1",
        ));
    }
    for (j, (text, ty)) in ops.iter().enumerate() {
        body.push_str(&format!("  %v{j} = {text}\n"));
        rets.push((format!("%v{j}"), ty.to_string()));
    }
    for (i, (a, t)) in [("x", "f32"), ("d", "f64"), ("i", "i32")]
        .iter()
        .enumerate()
    {
        body.insert_str(
            0,
            &format!("  %{a}f:{0} = fork [{0}] %{a} : {t}\n", uses[i]),
        );
    }
    let names: Vec<&str> = rets.iter().map(|r| r.0.as_str()).collect();
    let tys: Vec<&str> = rets.iter().map(|r| r.1.as_str()).collect();
    let src = format!(
        "handshake.func @floats(%x: f32, %d: f64, %i: i32, %c: none) -> ({}) {{\n{body}  return {} : {}\n}}\n",
        tys.join(", "),
        names.join(", "),
        tys.join(", ")
    );
    let m = parse_ok(&src);
    let written = write_mlir(&m);
    let dir = std::env::temp_dir().join(format!("handscope-circt-f-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("floats.mlir");
    std::fs::write(&path, &written).unwrap();
    let out = Command::new(&py)
        .arg("-c")
        .arg(PRINTER)
        .arg(&path)
        .output()
        .expect("running python");
    let printed = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "circt rejected:\n{written}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let back = parse_ok(&printed);
    let consts_of = |m: &handscope_sim::Module| -> Vec<u64> {
        let f = &m.functions[0];
        let mut v: Vec<(String, u64)> = f
            .nodes
            .values()
            .filter_map(|n| match n.op {
                Op::Constant { value } => Some((n.id.clone(), value)),
                _ => None,
            })
            .collect();
        v.sort_by_key(|(id, _)| id[8..].parse::<usize>().unwrap_or(0));
        v.into_iter().map(|(_, b)| b).collect()
    };
    let want: Vec<u64> = consts.iter().map(|c| c.1).collect();
    assert_eq!(consts_of(&m), want);
    assert_eq!(consts_of(&back), want, "CIRCT printed:\n{printed}");
    let ops = |m: &handscope_sim::Module| m.functions[0].op_counts();
    assert_eq!(ops(&back), ops(&m));
    let _ = std::fs::remove_dir_all(&dir);
}
