//! Tests of the C-to-handshake lowering beyond the kernel-by-kernel verification of
//! `c_kernels.rs`: buffer policies, stable IDs (byte-identical output, edits that leave other
//! IDs alone), several invocations in flight compared with native C, CIRCT 1.62 accepting
//! and lowering every kernel to SystemVerilog, the committed snapshot table of the examples
//! (`examples/kernels/SNAPSHOT.md`) and the three-loops initiation interval.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use common::kernels::{
    all_kernel_files, example_files, kernel, native, node_count, parse_args, sext, simulate,
    simulate_timed,
};
use common::python::python;
use handscope_compiler::c::{ArgValue, BufferPolicy, HsOptions, compile_to_handshake};
use handscope_compiler::mlir::write_mlir;
use handscope_sim::engine::Simulation;
use handscope_sim::report::Status;
use handscope_sim::stimulus::{Environment, TokenSource, graph_memory_inits};
use handscope_sim::verify::{Rule, verify};
use handscope_sim::{Function, Module, Op};

/// Compiles `src` (top `top`) with default options and returns its one function.
fn compile_src(src: &str, top: &str) -> Function {
    let m = compile_to_handshake(src, "f.c", Some(top), &HsOptions::default())
        .unwrap_or_else(|e| panic!("{e:?}"));
    m.functions.into_iter().next().expect("one function")
}

/// Loops are rotated (a guard, then the body with the test at its end); a guard the front
/// end can decide becomes an unconditional branch, and a body it never enters disappears.
#[test]
fn rotated_loops_fold_constant_guards() {
    let ops = |f: &Function, block: &str| -> Vec<&'static str> {
        f.nodes
            .values()
            .filter(|n| n.block.as_deref() == Some(block))
            .map(|n| n.op.mnemonic())
            .collect()
    };
    // Constant trip count: the entry block steers nothing; the loop block is its own latch.
    let f = compile_src(
        "unsigned f(unsigned v) {\n  for (int i = 0; i < 3; i++)\n    v = v * 3 + 1;\n  return v;\n}\n",
        "f",
    );
    assert!(!ops(&f, "bb0").contains(&"cond_br"), "{:?}", ops(&f, "bb0"));
    assert!(ops(&f, "bb1").contains(&"cond_br"), "{:?}", ops(&f, "bb1"));
    let cmerge = f.node_by_id("bb1.control_merge0").expect("loop header");
    let latch = f.channels[f.nodes[cmerge].inputs[1]].producer.node;
    assert_eq!(f.nodes[latch].block.as_deref(), Some("bb1"), "self loop");
    // Unknown trip count: the guard stays, so a zero-trip call skips the body.
    let g = compile_src(
        "unsigned f(unsigned v, int n) {\n  for (int i = 0; i < n; i++)\n    v = v * 3 + 1;\n  return v;\n}\n",
        "f",
    );
    assert!(ops(&g, "bb0").contains(&"cond_br"), "{:?}", ops(&g, "bb0"));
    // A loop that never runs leaves no trace.
    let h = compile_src(
        "unsigned f(unsigned v) {\n  while (0)\n    v = v * 3 + 1;\n  return v + 2;\n}\n",
        "f",
    );
    let loop_ops: Vec<&str> = h
        .nodes
        .values()
        .filter(|n| !n.id.starts_with("lock."))
        .map(|n| n.op.mnemonic())
        .filter(|m| ["muli", "control_merge", "mux", "cond_br", "buffer"].contains(m))
        .collect();
    assert!(loop_ops.is_empty(), "{loop_ops:?}");
}

/// A load's data is latched in a buffer only when the function also stores to the memory
/// (a store released by the load's done token could otherwise change a value the memory
/// still re-reads); loads of a read-only array take the memory's data directly, and their
/// done token is the memory's `ldDone`. With default buffers the graph has no combinational
/// cycle either way.
#[test]
fn only_written_memories_latch_load_data() {
    let hs = kernel("histogram.c").handshake(&HsOptions::default());
    // The consumer kinds of every `ldData` output of a memory node, by memory.
    let ld_data_consumers = |mem: &str| -> Vec<&'static str> {
        let n = hs.node_by_id(mem).unwrap_or_else(|| panic!("no {mem}"));
        let Op::ExtMemory { ld, .. } = hs.nodes[n].op else {
            panic!("{mem} is not an extmemory");
        };
        hs.nodes[n].outputs[..ld as usize]
            .iter()
            .flat_map(|&c| hs.channels[c].consumers.iter())
            .map(|p| hs.nodes[p.node].op.mnemonic())
            .collect()
    };
    // `data` is only read, `hist` is read and written (`hist[data[i]]++`).
    assert_eq!(ld_data_consumers("mem.data"), ["load"]);
    assert_eq!(ld_data_consumers("mem.hist"), ["buffer"]);
    let rep = verify(&hs);
    assert!(rep.errors.is_empty(), "{rep:#?}");
}

#[test]
fn without_buffers_loops_are_combinational_cycles() {
    let hs = kernel("gcd.c").handshake(&HsOptions {
        buffers: BufferPolicy::None,
        task_pipelining: false,
        ..Default::default()
    });
    let rep = verify(&hs);
    assert!(
        rep.errors_of(Rule::CombinationalCycle).count() > 0,
        "{rep:#?}"
    );
    assert!(
        rep.errors
            .iter()
            .all(|p| p.rule == Rule::CombinationalCycle),
        "{rep:#?}"
    );
}

#[test]
fn compiling_twice_is_byte_identical() {
    for file in all_kernel_files() {
        let k = kernel(&file);
        for opts in [
            HsOptions::default(),
            HsOptions {
                buffers: BufferPolicy::All,
                task_pipelining: true,
                ..Default::default()
            },
        ] {
            let a = compile_to_handshake(&k.src, &k.file, Some(&k.top), &opts).expect("a");
            let b = compile_to_handshake(&k.src, &k.file, Some(&k.top), &opts).expect("b");
            assert_eq!(write_mlir(&a), write_mlir(&b), "{file}");
        }
    }
}

#[test]
fn ids_are_readable_and_located() {
    let hs = kernel("gcd.c").handshake(&HsOptions::default());
    for n in hs.nodes.values() {
        if matches!(n.op, Op::Argument { .. }) {
            continue;
        }
        if n.id == "return" {
            continue;
        }
        let block = n
            .block
            .as_deref()
            .unwrap_or_else(|| panic!("{} has no block", n.id));
        assert!(
            n.id.starts_with(&format!("{block}.")) || n.id.starts_with("lock."),
            "{}",
            n.id
        );
        let loc = n
            .loc
            .as_ref()
            .unwrap_or_else(|| panic!("{} has no location", n.id));
        assert_eq!(&*loc.file, "gcd.c");
    }
    // The loop header of Euclid's loop merges the entry and the latch.
    assert!(hs.node_by_id("bb1.control_merge0").is_some() || hs.node_by_id("bb1.mux0").is_some());
    let text = write_mlir(&Module {
        functions: vec![hs],
    });
    assert!(text.contains("handshake.name = \"bb1.cmpi0\""), "{text}");
    assert!(
        text.contains("argNames = [\"a\", \"b\", \"start\"]"),
        "{text}"
    );
    assert!(text.contains("resNames = [\"ret\", \"done\"]"), "{text}");
}

/// Every node of every kernel (plain and task-pipelined) has a basic block, a location in
/// the kernel's file, and an ID that starts with its block (or names the lock, memory or
/// return it is).
#[test]
fn every_node_of_every_kernel_has_a_block_and_a_location() {
    for file in all_kernel_files() {
        let k = kernel(&file);
        for tp in [false, true] {
            let hs = k.handshake(&HsOptions {
                task_pipelining: tp,
                ..HsOptions::default()
            });
            for n in hs.nodes.values() {
                if matches!(n.op, Op::Argument { .. }) {
                    continue;
                }
                let what = format!("{file} (task pipelining {tp}): {}", n.id);
                let block = n
                    .block
                    .as_deref()
                    .unwrap_or_else(|| panic!("{what}: no block"));
                assert!(
                    block.starts_with("bb") && block[2..].parse::<u32>().is_ok(),
                    "{what}: block {block}"
                );
                let loc = n
                    .loc
                    .as_ref()
                    .unwrap_or_else(|| panic!("{what}: no location"));
                assert_eq!(&*loc.file, file.as_str(), "{what}");
                assert!(loc.line >= 1, "{what}");
                let prefixed = n.id.starts_with(&format!("{block}."))
                    || ["lock.", "memlock.", "mem."]
                        .iter()
                        .any(|p| n.id.starts_with(p))
                    || n.id == "return";
                assert!(prefixed, "{what}: ID does not name its block");
                if matches!(n.op, Op::Memory { .. } | Op::ExtMemory { .. }) {
                    assert_eq!(block, "bb0", "{what}: memories belong to the entry block");
                }
            }
        }
    }
}

#[test]
fn editing_one_block_keeps_other_ids() {
    let a = "int f(int a, int b) {\n  int s = a + b;\n  for (int i = 0; i < b; i++)\n    s += i;\n  return s;\n}\n";
    let b = "int f(int a, int b) {\n  int s = a + b;\n  for (int i = 0; i < b; i++)\n    s += i * 3;\n  return s;\n}\n";
    // Node IDs grouped by block.
    let ids = |src: &str| -> BTreeMap<String, Vec<String>> {
        let m = compile_to_handshake(src, "f.c", None, &HsOptions::default()).expect("compiles");
        let mut by_block: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for n in m.functions[0].nodes.values() {
            if let Some(b) = &n.block {
                by_block.entry(b.clone()).or_default().push(n.id.clone());
            }
        }
        by_block
    };
    let (x, y) = (ids(a), ids(b));
    assert_eq!(x.keys().collect::<Vec<_>>(), y.keys().collect::<Vec<_>>());
    // Only the edited loop block changes; the entry and exit blocks keep every ID.
    let changed: Vec<&String> = x.keys().filter(|k| x[*k] != y[*k]).collect();
    assert_eq!(changed.len(), 1, "changed blocks: {changed:?}");
    assert!(x.len() >= 3, "{x:?}");
}

#[test]
fn local_array_initializers_become_memory_attributes() {
    let hs = kernel("multidim_init.c").handshake(&HsOptions::default());
    let inits = graph_memory_inits(&hs).unwrap();
    assert_eq!(inits["mem.coef"], vec![1, 0xfffe, 3, 0xfffc, 5, 0xfffa]);
    assert_eq!(inits["mem.small"], vec![250, 251, 252, 0, 0]);
    let text = write_mlir(&Module {
        functions: vec![hs],
    });
    assert!(
        text.contains("handshake.init = [1, 65534, 3, 65532, 5, 65530]"),
        "{text}"
    );
}

/// Node IDs with their op and block, and channel names, of `f`: what must stay put.
fn id_table(f: &Function) -> (Vec<String>, Vec<String>) {
    let nodes = f
        .nodes
        .values()
        .map(|n| format!("{} {} {:?}", n.id, n.op.mnemonic(), n.block))
        .collect();
    let channels = f.channels.values().map(|c| c.name.clone()).collect();
    (nodes, channels)
}

/// Editing one function of a file (its body and length, so every later line moves) leaves
/// the IDs, ops, blocks and channel names of the other functions' graphs unchanged.
#[test]
fn editing_one_function_keeps_other_functions_ids() {
    let helper = "static int mix(int x, int y) {\n  return (x ^ y) + (x >> 1);\n}\n";
    let g_before = "int g(int a[8], int n) {\n  int m = 0;\n  for (int i = 0; i < n; i++)\n    if (a[i] > m)\n      m = a[i];\n  return m;\n}\n";
    let g_after = "int g(int a[8], int n) {\n  int m = a[0];\n  int i = 1;\n  while (i < n) {\n    m = a[i] < m ? a[i] : m;\n    a[i] = m;\n    i++;\n  }\n  return m;\n}\n";
    let f_before = "int f(int x, int y) {\n  int s = 0;\n  for (int i = 0; i < x; i++)\n    s += mix(i, y);\n  if (s > y)\n    s--;\n  return s;\n}\n";
    let f_after = "int f(int x, int y) {\n  int s = 1;\n  do {\n    s = mix(s, x) * 3;\n  } while (s < y);\n  return s;\n}\n";
    let file = |g: &str, f: &str| format!("{helper}{g}{f}");
    // `g` edited: `f` (which inlines `mix`) keeps its IDs although all its lines moved.
    let (f1, f2) = (
        compile_src(&file(g_before, f_before), "f"),
        compile_src(&file(g_after, f_before), "f"),
    );
    assert_eq!(id_table(&f1), id_table(&f2));
    let line = |f: &Function| {
        f.nodes
            .values()
            .filter_map(|n| n.loc.as_ref().map(|l| l.line))
            .max()
            .expect("a located node")
    };
    assert_ne!(line(&f1), line(&f2), "the edit moved f's lines");
    // `f` edited: `g` keeps its IDs; so does `g` when the helper changes.
    let g1 = compile_src(&file(g_before, f_before), "g");
    let g2 = compile_src(&file(g_before, f_after), "g");
    assert_eq!(id_table(&g1), id_table(&g2));
    let other_helper = "static int mix(int x, int y) {\n  return x - y;\n}\n";
    let g3 = compile_src(&format!("{other_helper}{g_before}{f_before}"), "g");
    assert_eq!(id_table(&g1), id_table(&g3));
    // And the edits did change the edited functions.
    assert_ne!(
        id_table(&compile_src(&file(g_after, f_before), "g")),
        id_table(&g1)
    );
    assert_ne!(
        id_table(&compile_src(&file(g_before, f_after), "f")),
        id_table(&f1)
    );
}

/// Several invocations in one run: with the function lock they are serialized; with task
/// pipelining they may overlap. Either way the results, in order, and the final array
/// contents equal those of the native C called the same number of times in a row (array
/// contents carry over from one call to the next).
#[test]
fn several_invocations_match_native() {
    for (file, lines) in [
        ("gcd.c", vec!["48 18", "17 5", "0 9", "1071 462"]),
        ("collatz.c", vec!["27", "1", "97"]),
        (
            "shifts.c",
            vec!["-12345 4000000000 5", "77 1 31", "-1 255 0", "5 6 7"],
        ),
        (
            "divrem.c",
            vec!["-7 2 []", "7 -2 []", "-7 -2 []", "-100 7 []"],
        ),
        ("short_circuit.c", vec!["0 5 []", "3 0 []", "-2 -2 []"]),
        (
            "histogram.c",
            vec![
                "[1 1 1 2 3 250 250] [] 7",
                "[1 1 1 2 3 250 250] [] 3",
                "[9] [] 1",
            ],
        ),
        (
            "binary_search.c",
            vec![
                "[1 3 5 7 9 11 13 15 17 19 21 23 25 27 29 31] 21",
                "[] 4",
                "[] 1",
            ],
        ),
        ("carried_dep.c", vec!["[5] 3", "[] -2", "[] 7"]),
    ] {
        let k = kernel(file);
        let ir = k.ir();
        let invs: Vec<Vec<ArgValue>> = lines.iter().map(|l| parse_args(&ir, l)).collect();
        let want = native(&ir, &k, &invs, &format!("{}_several", k.stem()));
        let want_rets: Vec<i64> = want.iter().filter_map(|o| o.ret).collect();
        let want_arrays = &want.last().expect("invocations").arrays;
        let mut cycles = Vec::new();
        for pipelined in [false, true] {
            let what = format!("{file} pipelined={pipelined}");
            let hs = k.handshake(&HsOptions {
                buffers: BufferPolicy::Cycles,
                task_pipelining: pipelined,
                ..Default::default()
            });
            assert!(verify(&hs).is_ok(), "{what}: {:#?}", verify(&hs).errors);
            let sim = simulate(&ir, &hs, &invs, 1_000_000, &what);
            assert_eq!(sim.rets, want_rets, "{what}: results in invocation order");
            assert_eq!(&sim.arrays, want_arrays, "{what}: final arrays");
            cycles.push(sim.report.cycles);
        }
        println!(
            "{file}: {} invocations, serialized {} cycles, pipelined {} cycles",
            invs.len(),
            cycles[0],
            cycles[1]
        );
    }
}

/// With task pipelining, an invocation on a short path must not overtake an earlier one on a
/// long path (region locks keep control merges outside loops in order).
#[test]
fn pipelining_keeps_invocation_order() {
    let src = "int f(int a) {\n  int r = 0;\n  if (a > 0) {\n    for (int i = 0; i < a; i++)\n      r += i;\n  } else {\n    r = -1;\n  }\n  return r;\n}\n";
    let args = [10i64, 0, 5, -3, 7, -8];
    for pipelined in [false, true] {
        let m = compile_to_handshake(
            src,
            "order.c",
            None,
            &HsOptions {
                buffers: BufferPolicy::Cycles,
                task_pipelining: pipelined,
                ..Default::default()
            },
        )
        .expect("compiles");
        let f = &m.functions[0];
        assert!(verify(f).is_ok(), "{:#?}", verify(f).errors);
        let mut env = Environment::default();
        env.push_tokens(
            "a",
            TokenSource::Values(args.iter().map(|v| *v as u64).collect()),
        );
        env.push_tokens("start", TokenSource::None(args.len() as u64));
        let mut sim = Simulation::new(f, env).expect("sim");
        let rep = sim.run(10_000);
        assert_eq!(rep.status, Status::Done);
        let got: Vec<i64> = rep.outputs["ret"]
            .iter()
            .map(|o| sext(o.bits, 32))
            .collect();
        assert_eq!(got, vec![45, -1, 10, -1, 21, -1], "pipelined={pipelined}");
    }
}

// ----- CIRCT ----------------------------------------------------------------------------

/// Parses and verifies every file given on the command line.
const CHECKER: &str = r#"
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
print("circt-ok")
"#;

/// True when `f` has a `math` dialect op (`math.sqrt`, `math.absf`, `math.copysign`): the
/// `circt` 1.62 Python package registers no `math` dialect, so it cannot parse such MLIR.
fn has_math_op(f: &Function) -> bool {
    f.nodes
        .values()
        .any(|n| matches!(n.op, Op::Arith(a) if a.dialect() == handscope_sim::Dialect::Math))
}

/// True when `f` has an op CIRCT 1.62's `lower-handshake-to-hw` does not lower (the float
/// operations): such a kernel is checked against our own SystemVerilog instead
/// (`traces/tests/verilator_roundtrip.rs`).
fn circt_cannot_lower(f: &Function) -> bool {
    f.nodes.values().any(|n| {
        handscope_sim::spec::spec(&n.op).circt == handscope_sim::spec::CirctLowering::NotLowered
    })
}

/// CIRCT parses and verifies the MLIR of every kernel, with default options and with
/// buffers everywhere and task pipelining (every kernel without `math` ops, which CIRCT's
/// Python package cannot parse).
#[test]
fn circt_accepts_compiled_kernels() {
    let Some(py) = python("circt_accepts_compiled_kernels") else {
        return;
    };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("c_handshake");
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let mut paths = Vec::new();
    for file in all_kernel_files() {
        let k = kernel(&file);
        for (i, opts) in [
            HsOptions::default(),
            HsOptions {
                buffers: BufferPolicy::All,
                task_pipelining: true,
                ..Default::default()
            },
        ]
        .iter()
        .enumerate()
        {
            let m = compile_to_handshake(&k.src, &k.file, Some(&k.top), opts).expect("compiles");
            if has_math_op(&m.functions[0]) {
                continue;
            }
            let p = dir.join(format!("{}_{i}.mlir", k.stem()));
            std::fs::write(&p, write_mlir(&m)).expect("write");
            paths.push(p);
        }
    }
    let script = dir.join("check.py");
    std::fs::write(&script, CHECKER).expect("write checker");
    let out = Command::new(py)
        .arg(&script)
        .args(&paths)
        .output()
        .expect("run python");
    assert!(
        out.status.success() && String::from_utf8_lossy(&out.stdout).contains("circt-ok"),
        "CIRCT rejected the output:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// True when CIRCT 1.62's `handshake-lower-extmem-to-hw` cannot lower `f`: it records the
/// memref argument positions before rewriting and does not shift them, so every `extmemory`
/// whose argument is followed by another memref argument must have exactly one port
/// (otherwise it rejects the function, "block argument #N is used by an 'extmemory'
/// operation", or crashes).
fn hits_circt_extmem_index_bug(f: &Function) -> bool {
    let mut ports: Vec<(usize, u32)> = f
        .nodes
        .values()
        .filter_map(|n| match n.op {
            Op::ExtMemory {
                ld, st, memref_arg, ..
            } => Some((memref_arg, ld + st)),
            _ => None,
        })
        .collect();
    ports.sort();
    ports.iter().rev().skip(1).any(|&(_, p)| p > 1)
}

/// A kernel that hits CIRCT 1.62's extmemory index bug: `a` has two ports and `b` follows.
const EXTMEM_BUG_KERNEL: &str = "void two(const int a[4], int b[4]) {\n  b[0] = a[0] + a[1];\n}\n";

/// Runs `oracle/scripts/lower.py` (CIRCT 1.62's lowering, the pipeline in `oracle/scripts/lower.py`) on
/// `m`; true when it wrote SystemVerilog with a module named `top`.
fn lowers(py: &Path, m: &Module, stem: &str, top: &str) -> (bool, String) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../oracle/scripts/lower.py");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("c_lower");
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let (mlir, sv) = (
        dir.join(format!("{stem}.mlir")),
        dir.join(format!("{stem}.sv")),
    );
    std::fs::write(&mlir, write_mlir(m)).expect("write");
    let _ = std::fs::remove_file(&sv);
    let out = Command::new(py)
        .arg(&script)
        .arg(&mlir)
        .arg(&sv)
        .output()
        .expect("run lower.py");
    let ok = out.status.success()
        && std::fs::read_to_string(&sv).is_ok_and(|t| t.contains(&format!("module {top}")));
    (ok, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// The MLIR of every kernel goes through CIRCT 1.62's whole lowering to SystemVerilog. No
/// example may hit CIRCT's extmemory argument-index bug (their array parameters are ordered
/// around it); a kernel that does must still fail, so a fixed CIRCT shows up here. Kernels
/// with float operations, which CIRCT 1.62 does not lower, must fail too (those CIRCT can
/// parse), and are listed.
#[test]
fn circt_lowers_kernels_to_systemverilog() {
    let Some(py) = python("circt_lowers_kernels_to_systemverilog") else {
        return;
    };
    let examples = example_files();
    let mut lowered = Vec::new();
    let mut float = Vec::new();
    for file in all_kernel_files() {
        let k = kernel(&file);
        let m = compile_to_handshake(&k.src, &k.file, Some(&k.top), &HsOptions::default())
            .expect("compiles");
        if circt_cannot_lower(&m.functions[0]) {
            if !has_math_op(&m.functions[0]) {
                let (ok, _) = lowers(&py, &m, k.stem(), &k.top);
                assert!(!ok, "{file}: CIRCT 1.62 lowered float operations");
            }
            float.push(file);
            continue;
        }
        let bug = hits_circt_extmem_index_bug(&m.functions[0]);
        assert!(
            !(bug && examples.contains(&file)),
            "{file}: the example hits CIRCT 1.62's extmemory index bug (an array parameter \
             with several accesses followed by another array parameter); reorder its parameters"
        );
        let (ok, err) = lowers(&py, &m, k.stem(), &k.top);
        assert_eq!(
            ok,
            !bug,
            "{file}: CIRCT lowering {} (extmemory index bug expected: {bug}):\n{err}",
            if ok { "succeeded" } else { "failed" }
        );
        lowered.push(file);
    }
    eprintln!("lowered to SystemVerilog: {lowered:?}");
    eprintln!("float kernels CIRCT 1.62 cannot lower: {float:?}");
    assert_eq!(lowered.len() + float.len(), all_kernel_files().len());
    assert!(
        lowered.len() >= 20,
        "integer kernels lowered: {}",
        lowered.len()
    );
    let m = compile_to_handshake(EXTMEM_BUG_KERNEL, "two.c", None, &HsOptions::default())
        .expect("compiles");
    assert!(hits_circt_extmem_index_bug(&m.functions[0]));
    let (ok, _) = lowers(&py, &m, "extmem_bug", "two");
    assert!(
        !ok,
        "CIRCT's extmemory index bug is fixed: drop hits_circt_extmem_index_bug"
    );
}

// ----- snapshot and initiation interval -------------------------------------------------

/// One row per example kernel: size and cycles with default options, first RUN line.
fn snapshot_table() -> String {
    let mut table = String::from(
        "# Example kernels: size and cycles\n\n\
         Generated by `UPDATE_SNAPSHOTS=1 cargo test -p handscope-compiler --test c_handshake \
         kernel_snapshot_table`; the test fails when a compiler change alters a figure.\n\
         Default options (buffers on loop back edges, no task pipelining); cycles for the first \
         `// RUN:` line, until the result token leaves, under the `ideal` timing profile (as \
         CIRCT's RTL) and the `fpga` one (`docs/timing.md`: pipelined units, 1-cycle memory \
         reads, compiled with `--timing fpga` so buffers get the slots its latencies need; \
         `+slots` counts those slots, `unsized` the cycles without them).\n\n\
         | kernel | top | nodes | channels | buffers | memories | cycles | fpga | +slots | unsized |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let fpga = handscope_sim::spec::timing::TimingProfile::fpga();
    let slots = |f: &handscope_sim::Function| -> u64 {
        f.nodes
            .values()
            .map(|n| match n.op {
                Op::Buffer { slots, .. } => u64::from(slots),
                _ => 0,
            })
            .sum()
    };
    for file in example_files() {
        let k = kernel(&file);
        let ir = k.ir();
        let hs = k.handshake(&HsOptions::default());
        let args = parse_args(&ir, &k.runs[0]);
        let sim = simulate(&ir, &hs, &[args], 2_000_000, &format!("{file} snapshot"));
        let count = |p: fn(&Op) -> bool| hs.nodes.values().filter(|n| p(&n.op)).count();
        let buffers = count(|o| matches!(o, Op::Buffer { .. }));
        let mems = count(|o| matches!(o, Op::Memory { .. } | Op::ExtMemory { .. }));
        let hs_fpga = k.handshake(&HsOptions {
            timing: fpga.clone(),
            ..Default::default()
        });
        let run = |h: &handscope_sim::Function, what: &str| {
            let args = parse_args(&ir, &k.runs[0]);
            simulate_timed(&ir, h, &[args], 4_000_000, &format!("{file} {what}"), &fpga)
                .report
                .cycles
        };
        table.push_str(&format!(
            "| {file} | {} | {} | {} | {buffers} | {mems} | {} | {} | {} | {} |\n",
            k.top,
            node_count(&hs),
            hs.channels.len(),
            sim.report.cycles,
            run(&hs_fpga, "fpga snapshot"),
            slots(&hs_fpga) - slots(&hs),
            run(&hs, "fpga unsized snapshot"),
        ));
    }
    table
}

/// The rows of `new` that differ from `old`, as `- old` / `+ new` lines keyed by kernel.
fn table_diff(old: &str, new: &str) -> String {
    let key = |l: &str| l.split('|').nth(1).map(str::trim).unwrap_or("").to_string();
    let rows = |t: &str| -> Vec<(String, String)> {
        t.lines()
            .filter(|l| l.starts_with("| ") && l.contains(".c "))
            .map(|l| (key(l), l.to_string()))
            .collect()
    };
    let (o, n) = (rows(old), rows(new));
    let mut keys: Vec<&String> = o.iter().chain(&n).map(|(k, _)| k).collect();
    keys.sort();
    keys.dedup();
    let mut out = String::new();
    for k in keys {
        let find = |v: &[(String, String)]| v.iter().find(|(x, _)| x == k).map(|(_, l)| l.clone());
        let (a, b) = (find(&o), find(&n));
        if a != b {
            if let Some(a) = a {
                out.push_str(&format!("  - {a}\n"));
            }
            if let Some(b) = b {
                out.push_str(&format!("  + {b}\n"));
            }
        }
    }
    if out.is_empty() {
        out.push_str("  (only the text around the table differs)\n");
    }
    out
}

/// A committed table of every example kernel's size and speed (default options, first RUN
/// line), so that compiler changes show up in review. `UPDATE_SNAPSHOTS=1` rewrites it.
#[test]
fn kernel_snapshot_table() {
    let table = snapshot_table();
    let path = common::kernels::examples_dir().join("SNAPSHOT.md");
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, &table).expect("write snapshot");
        return;
    }
    let old = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        old == table,
        "{} is out of date (- committed, + now):\n{}\
         If the change is intended, rerun with UPDATE_SNAPSHOTS=1:\n  \
         UPDATE_SNAPSHOTS=1 cargo test -p handscope-compiler --test c_handshake kernel_snapshot_table",
        path.display(),
        table_diff(&old, &table)
    );
}

#[test]
fn snapshot_diff_names_changed_rows() {
    let old = "| a.c | a | 1 | 2 | 0 | 0 | 5 |\n| b.c | b | 1 | 2 | 0 | 0 | 5 |\n";
    let new = "| a.c | a | 1 | 2 | 0 | 0 | 6 |\n| b.c | b | 1 | 2 | 0 | 0 | 5 |\n| c.c | c | 1 | 1 | 0 | 0 | 1 |\n";
    assert_eq!(
        table_diff(old, new),
        "  - | a.c | a | 1 | 2 | 0 | 0 | 5 |\n  + | a.c | a | 1 | 2 | 0 | 0 | 6 |\n  + | c.c | c | 1 | 1 | 0 | 0 | 1 |\n"
    );
}

/// The three-loops kernel with ten back-to-back invocations: every result correct and in
/// order; prints the initiation interval (cycles between consecutive results in steady
/// state) with and without task pipelining, and checks the function lock serializes.
#[test]
fn three_loops_initiation_interval() {
    let k = kernel("three_loops.c");
    let ir = k.ir();
    let inputs: Vec<u32> = (0..10)
        .map(|i| 0x1234_5678u32.wrapping_mul(i + 1))
        .collect();
    let native = |mut v: u32| {
        for _ in 0..9 {
            v = (v ^ 0x1234) ^ (v >> 16);
        }
        v
    };
    let mut iis = Vec::new();
    for pipelined in [false, true] {
        let hs = k.handshake(&HsOptions {
            buffers: BufferPolicy::Cycles,
            task_pipelining: pipelined,
            ..Default::default()
        });
        let inv: Vec<Vec<ArgValue>> = inputs
            .iter()
            .map(|&v| vec![ArgValue::Scalar(i64::from(v))])
            .collect();
        let what = format!("three_loops pipelined={pipelined}");
        let sim = simulate(&ir, &hs, &inv, 100_000, &what);
        let got: Vec<u32> = sim.rets.iter().map(|&v| v as u32).collect();
        let want: Vec<u32> = inputs.iter().map(|&v| native(v)).collect();
        assert_eq!(got, want, "{what}: results in invocation order");
        let cycles: Vec<u64> = sim.report.outputs["ret"].iter().map(|t| t.cycle).collect();
        let gaps: Vec<u64> = cycles.windows(2).map(|w| w[1] - w[0]).collect();
        let ii = *gaps[3..].iter().max().expect("steady state");
        eprintln!(
            "three_loops, task pipelining {pipelined}: results at cycles {cycles:?}, II {ii}, total {} cycles",
            sim.report.cycles
        );
        if !pipelined {
            // One invocation live at a time: each starts when the previous one is done.
            assert!(
                gaps.iter().all(|&g| g == cycles[0] + 1),
                "{what}: serialized invocations are one latency ({} cycles) apart: {gaps:?}",
                cycles[0] + 1
            );
        }
        iis.push(ii);
    }
    // Measured figures, pinned so that changes show up. Loops are rotated (guard, body,
    // test at the end), so a loop of three iterations spends two cycles on its back edge
    // and hands its value to the next loop in the cycle of its last iteration: one
    // invocation takes cycles 0..=6 (results at 6). Without task pipelining the function
    // lock admits the next invocation in the cycle after `done`: II 7 = the whole latency,
    // i.e. strictly one invocation live at a time. With it, each loop holds one invocation
    // for its two iterating cycles plus the cycle in which the exit refills the priming
    // buffer: II 3, three invocations in flight. (The issue's "9 without" counts a cycle
    // per iteration for every loop, i.e. a registered hand-over between loops.)
    assert_eq!(
        iis,
        [7, 3],
        "initiation intervals (without, with task pipelining)"
    );
}
