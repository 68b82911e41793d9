//! Per-operation syntax tests: every op in custom and generic form gives the same graph.

use crate::common;

use common::{describe_module, func, parse_ok, round_trip};
use handscope_sim::{
    ArgType, ArithClass, ArithOp, BufferKind, CmpPredicate, FloatKind, FloatPredicate, MemRefType,
    NameHint, Op, OpKind, Type,
};

/// (label, signature, custom body, generic body)
const CASES: &[(&str, &str, &str, &str)] = &[
    (
        "island",
        "%n: i32, %c: none",
        "%0:2 = island %c, %n {memories = [], pipelines = [{blocks = [0], header = 0, ii = 1, latency = 2, line = 3, ops = [[\"subi\", 3, 0, 1]]}]} : (none, i32) -> (none, i32) {\n^bb0(%s0: i32):\n%s1 = arith.constant 1 : i32\n%s2 = arith.subi %s0, %s1 : i32\n%s3 = arith.cmpi sgt, %s2, %s1 : i32\ncf.cond_br %s3, ^bb0(%s2 : i32), ^exit(%s2 : i32) {cycles = [1, 2]}\n}\nreturn %0#1, %0#0 : i32, none",
        "%0:2 = \"handshake.island\"(%c, %n) ({\n^bb0(%s0: i32):\n%s1 = arith.constant 1 : i32\n%s2 = arith.subi %s0, %s1 : i32\n%s3 = arith.cmpi sgt, %s2, %s1 : i32\ncf.cond_br %s3, ^bb0(%s2 : i32), ^exit(%s2 : i32) {cycles = [1, 2]}\n}) {memories = [], pipelines = [{blocks = [0], header = 0, ii = 1, latency = 2, line = 3, ops = [[\"subi\", 3, 0, 1]]}]} : (none, i32) -> (none, i32)\n\"handshake.return\"(%0#1, %0#0) : (i32, none) -> ()",
    ),
    (
        "fork",
        "%a: i32, %c: none",
        "%0:2 = fork [2] %a : i32\nreturn %0#0, %0#1, %c : i32, i32, none",
        "%0:2 = \"handshake.fork\"(%a) : (i32) -> (i32, i32)\n\"handshake.return\"(%0#0, %0#1, %c) : (i32, i32, none) -> ()",
    ),
    (
        "lazy_fork",
        "%a: i32, %c: none",
        "%x, %y = lazy_fork [2] %a : i32\nreturn %x, %y, %c : i32, i32, none",
        "%0:2 = \"handshake.lazy_fork\"(%a) : (i32) -> (i32, i32)\n\"handshake.return\"(%0#0, %0#1, %c) : (i32, i32, none) -> ()",
    ),
    (
        "pipeline",
        "%a: f32, %c: none",
        "%0 = pipeline [3] %a : f32\n%1 = pipeline [4] %0 {ii = 2 : i32} : f32\nreturn %1, %c : f32, none",
        "%0 = \"handshake.pipeline\"(%a) {latency = 3 : i32} : (f32) -> f32\n%1 = \"handshake.pipeline\"(%0) {ii = 2 : i32, latency = 4 : i32} : (f32) -> f32\n\"handshake.return\"(%1, %c) : (f32, none) -> ()",
    ),
    (
        "dyn_pipeline",
        "%a: f32, %c: none",
        "%0 = dyn_pipeline [9] %a : f32\nreturn %0, %c : f32, none",
        "%0 = \"handshake.dyn_pipeline\"(%a) {latency = 9 : i32} : (f32) -> f32\n\"handshake.return\"(%0, %c) : (f32, none) -> ()",
    ),
    (
        "dyn_counter_buffer",
        "%a: i32, %c: none",
        "%0 = dyn_counter_buffer [4] %a : i32\nreturn %0, %c : i32, none",
        "%0 = \"handshake.dyn_counter_buffer\"(%a) {latency = 4 : i32} : (i32) -> i32\n\"handshake.return\"(%0, %c) : (i32, none) -> ()",
    ),
    (
        "dyn_buffer",
        "%a: i32, %c: none",
        "%0 = dyn_buffer [1] ONE_SLOT_BREAK_R %a : i32\n%1 = dyn_buffer [3] FIFO_BREAK_DV %0 : i32\n%2 = dyn_buffer [1] ONE_SLOT_BREAK_DVR %1 : i32\nreturn %2, %c : i32, none",
        "%0 = \"handshake.dyn_buffer\"(%a) {bufferType = \"ONE_SLOT_BREAK_R\", slots = 1 : i32} : (i32) -> i32\n%1 = \"handshake.dyn_buffer\"(%0) {bufferType = \"FIFO_BREAK_DV\", slots = 3 : i32} : (i32) -> i32\n%2 = \"handshake.dyn_buffer\"(%1) {bufferType = \"ONE_SLOT_BREAK_DVR\", slots = 1 : i32} : (i32) -> i32\n\"handshake.return\"(%2, %c) : (i32, none) -> ()",
    ),
    (
        "dyn_select",
        "%k: i1, %a: f32, %b: f32, %c: none",
        "%0 = dyn_select %k, %a, %b : f32\nreturn %0, %c : f32, none",
        "%0 = \"handshake.dyn_select\"(%k, %a, %b) : (i1, f32, f32) -> f32\n\"handshake.return\"(%0, %c) : (f32, none) -> ()",
    ),
    (
        "dyn_load_store",
        "%a: i4, %d: f32, %c: none",
        "%0, %1 = dyn_load %a, %d : i4, f32\n%2, %3 = dyn_store %0, %1 : i4, f32\nreturn %2, %3, %c : i4, f32, none",
        "%0:2 = \"handshake.dyn_load\"(%a, %d) : (i4, f32) -> (i4, f32)\n%1:2 = \"handshake.dyn_store\"(%0#0, %0#1) : (i4, f32) -> (i4, f32)\n\"handshake.return\"(%1#0, %1#1, %c) : (i4, f32, none) -> ()",
    ),
    (
        "dyn_control_merge",
        "%a: none, %b: none",
        "%r, %i = dyn_control_merge %a, %b : none, i1\nreturn %r, %i : none, i1",
        "%0:2 = \"handshake.dyn_control_merge\"(%a, %b) : (none, none) -> (none, i1)\n\"handshake.return\"(%0#0, %0#1) : (none, i1) -> ()",
    ),
    (
        "merge",
        "%a: i32, %b: i32, %c: none",
        "%0 = merge %a, %b : i32\nreturn %0, %c : i32, none",
        "%0 = \"handshake.merge\"(%a, %b) : (i32, i32) -> i32\n\"handshake.return\"(%0, %c) : (i32, none) -> ()",
    ),
    (
        "mux",
        "%s: index, %a: i8, %b: i8, %c: none",
        "%0 = mux %s [%a, %b] : index, i8\nreturn %0, %c : i8, none",
        "%0 = \"handshake.mux\"(%s, %a, %b) : (index, i8, i8) -> i8\n\"handshake.return\"(%0, %c) : (i8, none) -> ()",
    ),
    (
        "control_merge",
        "%a: none, %b: none",
        "%r, %i = control_merge %a, %b : none, i1\nreturn %r, %i : none, i1",
        "%0:2 = \"handshake.control_merge\"(%a, %b) : (none, none) -> (none, i1)\n\"handshake.return\"(%0#0, %0#1) : (none, i1) -> ()",
    ),
    (
        "cond_br",
        "%k: i1, %a: i32, %c: none",
        "%t, %f = cond_br %k, %a : i32\nsink %f : i32\nreturn %t, %c : i32, none",
        "%0:2 = \"handshake.cond_br\"(%k, %a) : (i1, i32) -> (i32, i32)\n\"handshake.sink\"(%0#1) : (i32) -> ()\n\"handshake.return\"(%0#0, %c) : (i32, none) -> ()",
    ),
    (
        "br",
        "%a: none",
        "%0 = br %a : none\nreturn %0 : none",
        "%0 = \"handshake.br\"(%a) : (none) -> none\n\"handshake.return\"(%0) : (none) -> ()",
    ),
    (
        "join",
        "%a: i32, %b: none",
        "%0 = join %a, %b : i32, none\nreturn %0 : none",
        "%0 = \"handshake.join\"(%a, %b) : (i32, none) -> none\n\"handshake.return\"(%0) : (none) -> ()",
    ),
    (
        "sync",
        "%a: i32, %b: none",
        "%0:2 = sync %a, %b : i32, none\nreturn %0#0, %0#1 : i32, none",
        "%0:2 = \"handshake.sync\"(%a, %b) : (i32, none) -> (i32, none)\n\"handshake.return\"(%0#0, %0#1) : (i32, none) -> ()",
    ),
    (
        "pack_unpack",
        "%t: tuple<i8, i16>, %c: none",
        "%0:2 = unpack %t : tuple<i8, i16>\n%1 = pack %0#0, %0#1 : tuple<i8, i16>\nreturn %1, %c : tuple<i8, i16>, none",
        "%0:2 = \"handshake.unpack\"(%t) : (tuple<i8, i16>) -> (i8, i16)\n%1 = \"handshake.pack\"(%0#0, %0#1) : (i8, i16) -> tuple<i8, i16>\n\"handshake.return\"(%1, %c) : (tuple<i8, i16>, none) -> ()",
    ),
    (
        "buffer",
        "%a: i32, %c: none",
        "%0 = buffer [2] seq %a {initValues = [1, -2]} : i32\n%1 = buffer [3] fifo %0 : i32\nreturn %1, %c : i32, none",
        "%0 = \"handshake.buffer\"(%a) {bufferType = #handshake<buffer_type_enum seq>, initValues = [1, -2], slots = 2 : i32} : (i32) -> i32\n%1 = \"handshake.buffer\"(%0) {bufferType = #handshake<buffer_type_enum fifo>, slots = 3 : i32} : (i32) -> i32\n\"handshake.return\"(%1, %c) : (i32, none) -> ()",
    ),
    (
        "constant",
        "%c: none",
        "%0:4 = fork [4] %c : none\n%1 = constant %0#0 {value = -5 : i32} : i32\n%2 = constant %0#1 {value = true} : i1\n%3 = constant %0#2 {value = 0xFF : i8} : i8\n%4 = constant %0#3 {value = 7 : index} : index\nreturn %1, %2, %3, %4 : i32, i1, i8, index",
        "%0:4 = \"handshake.fork\"(%c) : (none) -> (none, none, none, none)\n%1 = \"handshake.constant\"(%0#0) {value = -5 : i32} : (none) -> i32\n%2 = \"handshake.constant\"(%0#1) {value = true} : (none) -> i1\n%3 = \"handshake.constant\"(%0#2) {value = -1 : i8} : (none) -> i8\n%4 = \"handshake.constant\"(%0#3) {value = 7 : index} : (none) -> index\n\"handshake.return\"(%1, %2, %3, %4) : (i32, i1, i8, index) -> ()",
    ),
    (
        "source_sink_never",
        "%a: i32",
        "sink %a : i32\n%0 = source\n%1 = never : i32\nreturn %1, %0 : i32, none",
        "\"handshake.sink\"(%a) : (i32) -> ()\n%0 = \"handshake.source\"() : () -> none\n%1 = \"handshake.never\"() : () -> i32\n\"handshake.return\"(%1, %0) : (i32, none) -> ()",
    ),
    (
        "load_store_memory",
        "%v: i32, %i: index, %c: none",
        "%cc:3 = fork [3] %c : none\n%d, %a = load [%i2] %ld, %cc#0 : index, i32\n%sd, %sa = store [%i] %v, %cc#1 : index, i32\n%ld, %sdone, %ldone = memory[ld = 1, st = 1] (%sd, %sa, %a) {id = 3 : i32, lsq = false} : memref<16xi32>, (i32, index, index) -> (i32, none, none)\n%i2 = constant %cc#2 {value = 1 : index} : index\n%j = join %sdone, %ldone : none, none\nreturn %d, %j : i32, none",
        "%cc:3 = \"handshake.fork\"(%c) : (none) -> (none, none, none)\n%d, %a = \"handshake.load\"(%i2, %ld, %cc#0) : (index, i32, none) -> (i32, index)\n%sd, %sa = \"handshake.store\"(%i, %v, %cc#1) : (index, i32, none) -> (i32, index)\n%ld, %sdone, %ldone = \"handshake.memory\"(%sd, %sa, %a) {id = 3 : i32, ldCount = 1 : i32, lsq = false, memRefType = memref<16xi32>, stCount = 1 : i32} : (i32, index, index) -> (i32, none, none)\n%i2 = \"handshake.constant\"(%cc#2) {value = 1 : index} : (none) -> index\n%j = \"handshake.join\"(%sdone, %ldone) : (none, none) -> none\n\"handshake.return\"(%d, %j) : (i32, none) -> ()",
    ),
    (
        "extmemory",
        "%mem: memref<8xi32>, %v: i32, %i: index, %c: none",
        "%done = extmemory[ld = 0, st = 1] (%mem : memref<8xi32>) (%v, %i) {id = 0 : i32} : (i32, index) -> none\n%j = join %done, %c : none, none\nreturn %j : none",
        "%done = \"handshake.extmemory\"(%mem, %v, %i) {id = 0 : i32, ldCount = 0 : i32, stCount = 1 : i32} : (memref<8xi32>, i32, index) -> none\n%j = \"handshake.join\"(%done, %c) : (none, none) -> none\n\"handshake.return\"(%j) : (none) -> ()",
    ),
    (
        "dyn_mem_controller",
        "%mem: memref<8xi32>, %n: i32, %sa: i3, %sd: i32, %la: i3, %s: none, %e: none",
        "%ld, %end = dyn_mem_controller[ctrl = 1, ld = 1, st = 1] (%mem : memref<8xi32>) (%s, %n, %la, %sa, %sd, %e) : (none, i32, i3, i3, i32, none) -> (i32, none)\nreturn %ld, %end : i32, none",
        "%0:2 = \"handshake.dyn_mem_controller\"(%mem, %s, %n, %la, %sa, %sd, %e) {ctrlCount = 1 : i32, ldCount = 1 : i32, stCount = 1 : i32} : (memref<8xi32>, none, i32, i3, i3, i32, none) -> (i32, none)\n\"handshake.return\"(%0#0, %0#1) : (i32, none) -> ()",
    ),
    (
        "addr_queue",
        "%la: index, %lo: none, %sa: index, %so: none, %sd: none",
        "%q:2 = addr_queue[ld = 1, st = 1, depth = 4] (%la, %lo, %sa, %so, %sd) : (index, none, index, none, none) -> (index, none)\nreturn %q#0, %q#1 : index, none",
        "%0:2 = \"handshake.addr_queue\"(%la, %lo, %sa, %so, %sd) {depth = 4 : i32, ld = 1 : i32, st = 1 : i32} : (index, none, index, none, none) -> (index, none)\n\"handshake.return\"(%0#0, %0#1) : (index, none) -> ()",
    ),
    (
        "dyn_lsq",
        "%mem: memref<8xi32>, %s: none, %c0: none, %c1: none, %la0: i3, %la1: i3, %sa: i3, %sd: i32, %e: none, %d: none, %sla: i3, %ssa: i3, %ssd: i32, %mcd: i32",
        "%l0, %l1, %end = dyn_lsq[groups = \"ls,l\", ldq = 4, stq = 2] (%mem : memref<8xi32>) (%s, %c0, %c1, %la0, %la1, %sa, %sd, %e) : (none, none, none, i3, i3, i3, i32, none) -> (i32, i32, none)\n%k, %ra, %wa, %wd = dyn_lsq[slave, groups = \"ls\", ldq = 2, stq = 2] (%d, %sla, %ssa, %ssd, %mcd) : (none, i3, i3, i32, i32) -> (i32, i3, i3, i32)\nreturn %l0, %l1, %end, %k, %ra, %wa, %wd : i32, i32, none, i32, i3, i3, i32",
        "%0:3 = \"handshake.dyn_lsq\"(%mem, %s, %c0, %c1, %la0, %la1, %sa, %sd, %e) {groups = \"ls,l\", ldq = 4 : i32, stq = 2 : i32} : (memref<8xi32>, none, none, none, i3, i3, i3, i32, none) -> (i32, i32, none)\n%1:4 = \"handshake.dyn_lsq\"(%d, %sla, %ssa, %ssd, %mcd) {groups = \"ls\", ldq = 2 : i32, stq = 2 : i32} : (none, i3, i3, i32, i32) -> (i32, i3, i3, i32)\n\"handshake.return\"(%0#0, %0#1, %0#2, %1#0, %1#1, %1#2, %1#3) : (i32, i32, none, i32, i3, i3, i32) -> ()",
    ),
    (
        "arith",
        "%a: i32, %b: i32, %c: none",
        "%x:7 = fork [7] %a : i32\n%y:6 = fork [6] %b : i32\n%0 = arith.addi %x#0, %y#0 : i32\n%1 = arith.cmpi uge, %x#1, %y#1 : i32\n%2 = arith.select %1, %x#2, %y#2 : i32\n%3 = arith.trunci %x#3 : i32 to i8\n%4 = arith.extui %3 : i8 to i16\n%5 = arith.extsi %4 : i16 to i64\n%6 = arith.index_cast %x#4 : i32 to index\n%7 = arith.shrsi %x#5, %y#3 : i32\n%8 = arith.divui %x#6, %y#4 : i32\n%9 = arith.xori %8, %y#5 : i32\n%j = join %0, %2, %5, %6, %7, %9 : i32, i32, i64, index, i32, i32\nreturn %j, %c : none, none",
        "%x:7 = \"handshake.fork\"(%a) : (i32) -> (i32, i32, i32, i32, i32, i32, i32)\n%y:6 = \"handshake.fork\"(%b) : (i32) -> (i32, i32, i32, i32, i32, i32)\n%0 = \"arith.addi\"(%x#0, %y#0) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32\n%1 = \"arith.cmpi\"(%x#1, %y#1) <{predicate = 9 : i64}> : (i32, i32) -> i1\n%2 = \"arith.select\"(%1, %x#2, %y#2) : (i1, i32, i32) -> i32\n%3 = \"arith.trunci\"(%x#3) : (i32) -> i8\n%4 = \"arith.extui\"(%3) : (i8) -> i16\n%5 = \"arith.extsi\"(%4) : (i16) -> i64\n%6 = \"arith.index_cast\"(%x#4) : (i32) -> index\n%7 = \"arith.shrsi\"(%x#5, %y#3) : (i32, i32) -> i32\n%8 = \"arith.divui\"(%x#6, %y#4) : (i32, i32) -> i32\n%9 = \"arith.xori\"(%8, %y#5) : (i32, i32) -> i32\n%j = \"handshake.join\"(%0, %2, %5, %6, %7, %9) : (i32, i32, i64, index, i32, i32) -> none\n\"handshake.return\"(%j, %c) : (none, none) -> ()",
    ),
];

fn generic_func(sig: &str, body: &str) -> String {
    // The generic form declares the arguments on the entry block.
    let parts: Vec<String> = sig
        .split(", %")
        .enumerate()
        .map(|(i, p)| {
            if i == 0 {
                p.to_string()
            } else {
                format!("%{p}")
            }
        })
        .collect();
    let types: Vec<&str> = parts
        .iter()
        .map(|a| a.split_once(": ").unwrap().1)
        .collect();
    let names: Vec<String> = parts
        .iter()
        .map(|a| format!("\"{}\"", &a[1..a.find(':').unwrap()]))
        .collect();
    // Result types come from the return in the body.
    let ret = body.lines().last().unwrap();
    let rt = ret
        .rsplit_once(": (")
        .unwrap()
        .1
        .trim_end_matches(") -> ()");
    format!(
        "\"handshake.func\"() ({{\n^bb0({sig}):\n{body}\n}}) {{argNames = [{}], function_type = ({}) -> ({rt}), sym_name = \"f\"}} : () -> ()\n",
        names.join(", "),
        types.join(", ")
    )
}

fn custom_func(sig: &str, body: &str) -> String {
    let ret = body.lines().last().unwrap();
    let rt = ret.rsplit_once(" : ").unwrap().1;
    format!("handshake.func @f({sig}) -> ({rt}) {{\n{body}\n}}\n")
}

/// Every operation kind the model has is covered by the syntax cases above, in custom form
/// (`<mnemonic> `) and generic form (`"handshake.<mnemonic>"`), and every arith op in both.
#[test]
fn every_op_kind_has_syntax_cases() {
    let custom: String = CASES.iter().map(|c| c.2).collect::<Vec<_>>().join("\n");
    let generic: String = CASES.iter().map(|c| c.3).collect::<Vec<_>>().join("\n");
    let module_cases = include_str!("mlir_syntax.rs");
    for k in OpKind::handshake_ops() {
        let m = k.mnemonic();
        let in_custom = custom.lines().chain(module_cases.lines()).any(|l| {
            l.split_whitespace()
                .any(|w| w.split(['[', '(']).next() == Some(m))
        });
        assert!(in_custom, "no custom-form case for `{m}`");
        assert!(
            generic.contains(&format!("\"handshake.{m}\""))
                || module_cases.contains(&format!("\\\"handshake.{m}\\\"")),
            "no generic-form case for `{m}`"
        );
    }
    // Arith and math ops: one case per op, written from its class, in both forms.
    for &(op, m) in ArithOp::SIMPLE {
        let (sig, ins, tys, out): (&str, &str, &str, &str) = match op.class() {
            ArithClass::Binary => ("%a: i32, %b: i32", "%a, %b", "i32, i32", "i32"),
            ArithClass::IntUnary => ("%a: i16", "%a", "i16", "i16"),
            ArithClass::Compare => unreachable!("cmpi is not in SIMPLE"),
            ArithClass::FloatCompare => unreachable!("cmpf is not in SIMPLE"),
            ArithClass::Select => (
                "%p: i1, %a: i32, %b: i32",
                "%p, %a, %b",
                "i1, i32, i32",
                "i32",
            ),
            ArithClass::Extend => ("%a: i8", "%a", "i8", "i32"),
            ArithClass::Truncate => ("%a: i32", "%a", "i32", "i8"),
            ArithClass::IndexCast => ("%a: i32", "%a", "i32", "index"),
            ArithClass::FloatBinary => ("%a: f32, %b: f32", "%a, %b", "f32, f32", "f32"),
            ArithClass::FloatUnary => ("%a: f64", "%a", "f64", "f64"),
            ArithClass::IntToFloat => ("%a: i16", "%a", "i16", "f32"),
            ArithClass::FloatToInt => ("%a: f64", "%a", "f64", "i64"),
            ArithClass::FloatExtend => ("%a: f32", "%a", "f32", "f64"),
            ArithClass::FloatTruncate => ("%a: f64", "%a", "f64", "f32"),
        };
        let custom_ty = if op.is_cast() {
            format!("{tys} to {out}")
        } else if op.class() == ArithClass::Select {
            "i32".to_string()
        } else {
            out.to_string()
        };
        let q = op.qualified_name();
        assert_eq!(q, format!("{}.{m}", op.dialect().name()));
        let sig = format!("{sig}, %c: none");
        let c = custom_func(
            &sig,
            &format!("%r = {q} {ins} : {custom_ty}\nreturn %r, %c : {out}, none"),
        );
        let g = generic_func(
            &sig,
            &format!(
                "%r = \"{q}\"({ins}) : ({tys}) -> {out}\n\"handshake.return\"(%r, %c) : ({out}, none) -> ()"
            ),
        );
        let (mc, mg) = (parse_ok(&c), parse_ok(&g));
        assert_eq!(
            describe_module(&mc, false),
            describe_module(&mg, false),
            "{q}"
        );
        assert!(
            mc.functions[0]
                .nodes
                .values()
                .any(|n| n.op == Op::Arith(op)),
            "{q}"
        );
        round_trip(&c);
        round_trip(&g);
    }
}

#[test]
fn custom_and_generic_forms_agree_and_round_trip() {
    for (label, sig, custom, generic) in CASES {
        let c = custom_func(sig, custom);
        let g = generic_func(sig, generic);
        let mc = parse_ok(&c);
        let mg = match handscope_compiler::mlir::parse_mlir(&g, "g.mlir") {
            Ok((m, _)) => m,
            Err(e) => panic!("{label} generic:\n{}\n{g}", e.render()),
        };
        assert_eq!(
            describe_module(&mc, false),
            describe_module(&mg, false),
            "{label}: forms differ"
        );
        round_trip(&c);
        round_trip(&g);
    }
}

fn node_ops(src: &str) -> Vec<Op> {
    let m = parse_ok(src);
    m.functions[0]
        .nodes
        .values()
        .map(|n| n.op.clone())
        .collect()
}

#[test]
fn op_details_are_decoded() {
    let c = |label: &str| {
        let (_, sig, body, _) = CASES.iter().find(|c| c.0 == label).unwrap();
        custom_func(sig, body)
    };
    let ops = node_ops(&c("buffer"));
    assert!(ops.contains(&Op::Buffer {
        slots: 2,
        kind: BufferKind::Seq,
        // Bit patterns of the channel type, like constants.
        init: Some(vec![1, 0xFFFF_FFFE])
    }));
    assert!(ops.contains(&Op::Buffer {
        slots: 3,
        kind: BufferKind::Fifo,
        init: None
    }));
    // Negative initial values are valid MLIR: the graph verifies and writes them back signed.
    let m = parse_ok(&c("buffer"));
    let report = handscope_sim::verify::verify_module(&m);
    assert!(report.is_ok(), "{:?}", report.errors);
    let text = handscope_compiler::mlir::write_mlir(&m);
    assert!(text.contains("initValues = [1, -2]"), "{text}");
    let ops = node_ops(&c("constant"));
    for v in [0xFFFF_FFFB, 1, 0xFF, 7] {
        assert!(
            ops.contains(&Op::Constant { value: v }),
            "{v:#x} in {ops:?}"
        );
    }
    let ops = node_ops(&c("load_store_memory"));
    assert!(ops.contains(&Op::Memory {
        ld: 1,
        st: 1,
        id: 3,
        memref: MemRefType {
            dims: vec![16],
            elem: Type::Int(32)
        },
        lsq: false
    }));
    let ops = node_ops(&c("arith"));
    assert!(ops.contains(&Op::Arith(ArithOp::Cmpi(CmpPredicate::Uge))));
    assert!(ops.contains(&Op::Arith(ArithOp::IndexCast)));
    // control_merge keeps its index type; load outputs are data then address.
    let m = parse_ok(&c("control_merge"));
    let f = &m.functions[0];
    let cm = f.node_by_id("control_merge0").unwrap();
    assert_eq!(f.channels[f.nodes[cm].outputs[1]].ty, Type::Int(1));
    let m = parse_ok(&c("load_store_memory"));
    let f = &m.functions[0];
    let ld = f.node_by_id("load0").unwrap();
    let tys: Vec<Type> = f.nodes[ld]
        .outputs
        .iter()
        .map(|o| f.channels[*o].ty.clone())
        .collect();
    assert_eq!(tys, [Type::Int(32), Type::Index]);
    assert_eq!(
        f.consumer_name(f.channels[f.channel_by_name("memory0.ldData0").unwrap()].consumers[0]),
        "load0.dataFromMem"
    );
}

#[test]
fn all_cmpi_predicates_custom_and_generic() {
    for (i, p) in CmpPredicate::ALL.iter().enumerate() {
        let custom = custom_func(
            "%a: i8, %b: i8",
            &format!(
                "%0 = arith.cmpi {}, %a, %b : i8\nreturn %0 : i1",
                p.keyword()
            ),
        );
        let generic = custom_func(
            "%a: i8, %b: i8",
            &format!(
                "%0 = \"arith.cmpi\"(%a, %b) <{{predicate = {i} : i64}}> : (i8, i8) -> i1\nreturn %0 : i1"
            ),
        );
        for src in [custom, generic] {
            assert!(
                node_ops(&src).contains(&Op::Arith(ArithOp::Cmpi(*p))),
                "{src}"
            );
        }
    }
}

/// `arith.cmpf` with each of MLIR's 16 predicates: the custom keyword and the generic
/// integer (MLIR's enum order) give the same op, and the writer's output reads back.
#[test]
fn all_cmpf_predicates_custom_and_generic() {
    for (i, p) in FloatPredicate::ALL.iter().enumerate() {
        let custom = custom_func(
            "%a: f64, %b: f64",
            &format!(
                "%0 = arith.cmpf {}, %a, %b : f64\nreturn %0 : i1",
                p.keyword()
            ),
        );
        let generic = custom_func(
            "%a: f64, %b: f64",
            &format!(
                "%0 = \"arith.cmpf\"(%a, %b) <{{fastmath = #arith.fastmath<none>, predicate = {i} : i64}}> : (f64, f64) -> i1\nreturn %0 : i1"
            ),
        );
        for src in [&custom, &generic] {
            assert!(
                node_ops(src).contains(&Op::Arith(ArithOp::Cmpf(*p))),
                "{src}"
            );
        }
        let w = round_trip(&generic);
        assert!(
            w.contains(&format!("arith.cmpf {}, %a, %b : f64", p.keyword())),
            "{w}"
        );
    }
    let bad = custom_func(
        "%a: f32, %b: f32",
        "%0 = \"arith.cmpf\"(%a, %b) <{predicate = 16 : i64}> : (f32, f32) -> i1\nreturn %0 : i1",
    );
    let e = handscope_compiler::mlir::parse_mlir(&bad, "p.mlir").unwrap_err();
    assert!(e.message.contains("expected 0..15"), "{}", e.message);
    let bad = custom_func(
        "%a: f32, %b: f32",
        "%0 = arith.cmpf slt, %a, %b : f32\nreturn %0 : i1",
    );
    let e = handscope_compiler::mlir::parse_mlir(&bad, "p.mlir").unwrap_err();
    assert_eq!(e.line_col(), (2, 17), "{}", e.render());
    assert!(
        e.message.contains("unknown cmpf predicate `slt`"),
        "{}",
        e.message
    );
}

/// Float constants in every spelling MLIR prints (decimal, exponent, hexadecimal bit pattern
/// for NaNs and infinities), in both forms; the writer's text reads back to the same bits.
#[test]
fn float_constants_round_trip_bit_exactly() {
    let cases: [(&str, &str, u64); 10] = [
        ("1.5", "f32", 0x3fc0_0000),
        ("1.500000e+00", "f32", 0x3fc0_0000),
        ("-0.0", "f32", 0x8000_0000),
        ("1.000000e-01", "f32", 0x3dcc_cccd),
        ("0.1", "f64", 0x3fb9_9999_9999_999a),
        ("3.40282347E+38", "f32", 0x7f7f_ffff),
        ("0x7FC00000", "f32", 0x7fc0_0000),
        ("0xFFC00001", "f32", 0xffc0_0001),
        ("0x7FF0000000000000", "f64", 0x7ff0_0000_0000_0000),
        ("1.0e-320", "f64", 1e-320f64.to_bits()),
    ];
    for (lit, ty, bits) in cases {
        let custom = custom_func(
            "%c: none",
            &format!("%0 = constant %c {{value = {lit} : {ty}}} : {ty}\nreturn %0 : {ty}"),
        );
        let generic = custom_func(
            "%c: none",
            &format!(
                "%0 = \"handshake.constant\"(%c) {{value = {lit} : {ty}}} : (none) -> {ty}\nreturn %0 : {ty}"
            ),
        );
        for src in [&custom, &generic] {
            assert!(
                node_ops(src).contains(&Op::Constant { value: bits }),
                "{lit} : {ty} -> {:?}",
                node_ops(src)
            );
            let w = round_trip(src);
            let back = node_ops(&w);
            assert!(back.contains(&Op::Constant { value: bits }), "{w}");
        }
    }
    // Integer literals are not floats; a bit pattern must fit; f16 is not supported.
    for (body, ty, msg) in [
        ("{value = 1 : f32}", "f32", "is an integer literal"),
        ("{value = 0x1FFFFFFFF : f32}", "f32", "does not fit in f32"),
        (
            "{value = 1.5 : f64}",
            "f32",
            "differs from the result type f32",
        ),
        ("{value = 1.5 : f16}", "f16", "not supported"),
    ] {
        let src = custom_func(
            "%c: none",
            &format!("%0 = constant %c {body} : {ty}\nreturn %0 : {ty}"),
        );
        let e = handscope_compiler::mlir::parse_mlir(&src, "k.mlir").unwrap_err();
        assert_eq!(e.line_col().0, 2, "{}", e.render());
        assert!(e.message.contains(msg), "{body}: {}", e.message);
    }
}

/// `f32`/`f64` memories, float buffers and tuples with float members.
#[test]
fn float_memories_buffers_and_tuples() {
    let src = custom_func(
        "%v: f64, %i: index, %t: tuple<f32, i8>, %c: none",
        "%cc:2 = fork [2] %c : none\n%sd, %sa = store [%i] %v, %cc#0 : index, f64\n%done = memory[ld = 0, st = 1] (%sd, %sa) {id = 0 : i32, lsq = false} : memref<4xf64>, (f64, index) -> none\n%u:2 = unpack %t : tuple<f32, i8>\n%b = buffer [1] seq %u#0 {initValues = [1069547520]} : f32\nsink %u#1 : i8\n%j = join %done, %cc#1 : none, none\nreturn %b, %j : f32, none",
    );
    let m = parse_ok(&src);
    let f = &m.functions[0];
    assert!(f.nodes.values().any(|n| matches!(
        &n.op,
        Op::Memory { memref, .. } if memref.elem == Type::Float(FloatKind::F64)
    )));
    assert!(f.nodes.values().any(|n| matches!(
        &n.op,
        Op::Buffer { init: Some(v), .. } if v == &[0x3fc0_0000]
    )));
    let report = handscope_sim::verify::verify_module(&m);
    assert!(report.is_ok(), "{:?}", report.errors);
    let w = round_trip(&src);
    assert!(w.contains("memref<4xf64>"), "{w}");
}

/// fastmath flags (custom `fastmath<...>`, generic `fastmath = #arith.fastmath<...>`) are
/// read and ignored with a warning; `fastmath<none>` says nothing. `truncf` accepts the
/// default rounding mode and rejects the others.
#[test]
fn fastmath_and_rounding_modes() {
    let src = custom_func(
        "%a: f32, %b: f32, %d: f64",
        "%0 = arith.addf %a, %b fastmath<fast> : f32\n%1 = \"arith.mulf\"(%0, %b) <{fastmath = #arith.fastmath<nnan,ninf>}> : (f32, f32) -> f32\n%2 = math.sqrt %1 fastmath<none> : f32\n%3 = arith.truncf %d to_nearest_even fastmath<contract> : f64 to f32\nreturn %2, %3 : f32, f32",
    );
    let (m, warnings) = handscope_compiler::mlir::parse_mlir(&src, "fm.mlir").unwrap();
    assert_eq!(
        m.functions[0].op_counts(),
        [
            ("addf", 1),
            ("mulf", 1),
            ("return", 1),
            ("sqrt", 1),
            ("truncf", 1)
        ]
    );
    let text: Vec<String> = warnings.iter().map(ToString::to_string).collect();
    assert_eq!(text.len(), 3, "{text:?}");
    assert!(
        text[0].starts_with("fm.mlir:2:24: warning: fastmath flags are ignored"),
        "{text:?}"
    );
    assert!(text[1].contains("fm.mlir:3:"), "{text:?}");
    assert!(text[2].contains("fm.mlir:5:"), "{text:?}");
    let bad = src.replace("to_nearest_even", "downward");
    let e = handscope_compiler::mlir::parse_mlir(&bad, "fm.mlir").unwrap_err();
    assert_eq!(e.line_col().0, 5);
    assert!(
        e.message.contains("rounding mode `downward`"),
        "{}",
        e.message
    );
}

/// Type errors of float ops and of floats where integers are required are located errors.
#[test]
fn float_type_errors_are_located() {
    for (sig, body, ret, line_col, msg) in [
        (
            "%a: f32, %b: f32",
            "%0 = arith.addi %a, %b : f32",
            "f32",
            (2, 26),
            "operand 0 has type f32, expected an integer or index",
        ),
        (
            "%a: i32, %b: i32",
            "%0 = arith.addf %a, %b : i32",
            "i32",
            (2, 26),
            "operand 0 has type i32, expected a float (f32 or f64)",
        ),
        (
            "%a: f64",
            "%0 = arith.extf %a : f64 to f32",
            "f32",
            (2, 22),
            "extends f64 to f32, expected f32 to f64",
        ),
        (
            "%a: index",
            "%0 = arith.sitofp %a : index to f32",
            "f32",
            (2, 24),
            "expected an integer iN",
        ),
        (
            "%a: i32",
            "%0 = math.sqrt %a : i32",
            "i32",
            (2, 21),
            "operand has type i32, expected a float (f32 or f64)",
        ),
    ] {
        let src = custom_func(sig, &format!("{body}\nreturn %0 : {ret}"));
        let e = handscope_compiler::mlir::parse_mlir(&src, "t.mlir").unwrap_err();
        assert_eq!(e.line_col(), line_col, "{body}: {}", e.render());
        assert!(e.message.contains(msg), "{body}: {}", e.message);
    }
    // An unknown math op names the supported ones; a bare float mnemonic names its dialect.
    let src = custom_func("%a: f32", "%0 = math.fma %a : f32\nreturn %0 : f32");
    let e = handscope_compiler::mlir::parse_mlir(&src, "t.mlir").unwrap_err();
    assert!(
        e.message.contains("unknown operation `math.fma`"),
        "{}",
        e.message
    );
    // The help wraps at the terminal width: compare with the line breaks removed.
    let flat = e.render().split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("math.{sqrt, absf, copysign, floor, ceil,") && flat.contains("powf, atan2}"),
        "{flat}"
    );
    let src = custom_func("%a: f32", "%0 = sqrt %a : f32\nreturn %0 : f32");
    let e = handscope_compiler::mlir::parse_mlir(&src, "t.mlir").unwrap_err();
    assert!(e.render().contains("`math.sqrt`"), "{}", e.render());
}

#[test]
fn module_wrappers_externals_instances_and_extmemory() {
    let src = r#"
// a comment
module {
  handshake.func @callee(%x: i32, %c: none) -> (i32, none)
  handshake.func @top(%v: i32, %mem: memref<8xi32>, %c: none) -> (i32, none) attributes {argNames = ["v", "mem", "ctrl"], resNames = ["out", "done"]} {
    %cc:3 = fork [3] %c : none
    %i = constant %cc#0 {value = 2 : index} : index
    %sd, %sa = handshake.store [%i] %v, %cc#1 : index, i32
    %done = extmemory[ld = 0, st = 1] (%mem : memref<8xi32>) (%sd, %sa) {id = 0 : i32} : (i32, index) -> none
    %r:2 = instance @callee(%k, %done) : (i32, none) -> (i32, none)
    %k = handshake.constant %cc#2 {value = 1 : i32} : i32
    handshake.return %r#0, %r#1 : i32, none
  }
}
"#;
    let m = parse_ok(src);
    assert_eq!(m.functions.len(), 2);
    assert!(m.functions[0].external);
    assert_eq!(m.functions[0].args[0].name, "x");
    let top = &m.functions[1];
    assert_eq!(
        top.args[1].ty,
        ArgType::MemRef(MemRefType {
            dims: vec![8],
            elem: Type::Int(32)
        })
    );
    assert_eq!(top.args[2].name, "ctrl");
    assert_eq!(top.results[0].name, "out");
    let ext = top.node_by_id("extmemory0").unwrap();
    assert!(matches!(
        top.nodes[ext].op,
        Op::ExtMemory {
            memref_arg: 1,
            ld: 0,
            st: 1,
            ..
        }
    ));
    assert_eq!(top.nodes[ext].inputs.len(), 2);
    let inst = top.node_by_id("callee0").unwrap();
    assert_eq!(
        top.nodes[inst].op,
        Op::Instance {
            callee: "callee".into()
        }
    );
    let w = round_trip(src);
    assert!(
        w.contains("handshake.func @callee(i32, none) -> (i32, none)"),
        "{w}"
    );
    assert!(
        w.contains("extmemory[ld = 0, st = 1] (%mem : memref<8xi32>)"),
        "{w}"
    );
    // The instance in generic form gives the same graph.
    let generic = src.replace(
        "%r:2 = instance @callee(%k, %done) : (i32, none) -> (i32, none)",
        "%r:2 = \"handshake.instance\"(%k, %done) {module = @callee} : (i32, none) -> (i32, none)",
    );
    assert_ne!(generic, src);
    assert_eq!(
        describe_module(&parse_ok(&generic), false),
        describe_module(&m, false)
    );
}

#[test]
fn bare_functions_and_unnamed_externals_get_default_names() {
    let src = "handshake.func @e(i32, none, ...) -> (i32, none)\nhandshake.func @f(%a: none) -> none {\n  return %a : none\n}\n";
    let m = parse_ok(src);
    let names: Vec<&str> = m.functions[0]
        .args
        .iter()
        .map(|a| a.name.as_str())
        .collect();
    assert_eq!(names, ["in0", "in1"]);
    assert_eq!(m.functions[0].results[1].name, "out1");
    round_trip(src);
}

#[test]
fn locations_in_all_forms() {
    let src = r#"
#loc1 = loc("a.c":1:1)
handshake.func @f(%a: i32 loc("a.c":9:9), %c: none) -> (i32, none) {
  %0:5 = fork [5] %a : i32 loc(#loc1)
  %1 = merge %0#0 : i32 loc(#loc9)
  %2 = merge %0#1 : i32 loc(unknown)
  %3 = merge %0#2 : i32 loc(fused[#loc9, "b.c":2:2])
  %4 = merge %0#3 : i32 loc("name"("c.c":3:3))
  %5 = merge %0#4 : i32 loc(callsite("d.c":4:4 at "e.c":5:5))
  %j = join %1, %2, %3, %4 : i32, i32, i32, i32
  sink %5 : i32
  return %j, %c : none, none
} loc("a.c":0:1)
#loc9 = loc(fused<"x">[unknown, #loc1])
"#;
    let src = src.replace("-> (i32, none)", "-> (none, none)");
    let m = parse_ok(&src);
    let f = &m.functions[0];
    let loc = |id: &str| {
        f.nodes[f.node_by_id(id).unwrap()]
            .loc
            .as_ref()
            .map(|l| l.to_string())
    };
    assert_eq!(loc("fork0").as_deref(), Some("a.c:1:1"));
    assert_eq!(loc("merge0").as_deref(), Some("a.c:1:1"));
    assert_eq!(loc("merge1"), None);
    assert_eq!(loc("merge2").as_deref(), Some("a.c:1:1"));
    assert_eq!(loc("merge3").as_deref(), Some("c.c:3:3"));
    assert_eq!(loc("merge4").as_deref(), Some("d.c:4:4"));
    assert_eq!(loc("a").as_deref(), Some("a.c:9:9"));
    assert_eq!(
        f.loc.as_ref().map(|l| l.to_string()).as_deref(),
        Some("a.c:0:1")
    );
    let w = round_trip(&src);
    assert!(w.contains("= fork [5] %a : i32 loc(\"a.c\":1:1)"), "{w}");
}

#[test]
fn name_hints_blocks_and_verbatim_attributes() {
    let src = func(
        "%a: i32, %c: none",
        "%0 = buffer [1] seq %a {handshake.name = \"pipe\", handshake.bb = \"bb2\", foo = [1, \"x\"], bar} : i32\n%1 = br %0 {handshake_id = 4 : index} : i32\nreturn %1, %c : i32, none",
    )
    .replace("none) {", "none) -> (i32, none) {");
    let m = parse_ok(&src);
    let f = &m.functions[0];
    let pipe = &f.nodes[f.node_by_id("pipe").unwrap()];
    assert_eq!(pipe.name_hint, NameHint::Name("pipe".into()));
    assert_eq!(pipe.block.as_deref(), Some("bb2"));
    assert_eq!(
        pipe.attrs,
        [
            ("foo".to_string(), "[1, \"x\"]".to_string()),
            ("bar".to_string(), String::new())
        ]
    );
    assert!(f.node_by_id("br_id4").is_some());
    let w = round_trip(&src);
    assert!(w.contains("%pipe_out0 = buffer [1] seq %a {bar, foo = [1, \"x\"], handshake.bb = \"bb2\", handshake.name = \"pipe\"} : i32"), "{w}");
    assert!(
        w.contains("br %pipe_out0 {handshake_id = 4 : index} : i32"),
        "{w}"
    );
}

#[test]
fn load_with_attributes_is_written_in_generic_form() {
    let src = func(
        "%i: index, %d: i32, %c: none",
        "%0:2 = load [%i] %d, %c {handshake.bb = \"bb1\"} : index, i32\nreturn %0#0, %0#1 : i32, index",
    )
    .replace("none) {", "none) -> (i32, index) {");
    let w = round_trip(&src);
    assert!(w.contains("\"handshake.load\"(%i, %d, %c) {handshake.bb = \"bb1\"} : (index, i32, none) -> (i32, index)"), "{w}");
}

#[test]
fn writer_prints_the_documented_normal_form() {
    let src = custom_func(
        "%arg0: i32, %c: none",
        "%0:2 = fork [2] %arg0 : i32\nsink %0#0 : i32\nreturn %0#1, %c : i32, none",
    );
    let w = round_trip(&src);
    // Ops without `loc(...)` are located where they stand in the file they were read from.
    assert!(
        w.contains("fork [2] %arg0 : i32 loc(\"test.mlir\":2:1)"),
        "{w}"
    );
    let (m, _) = handscope_compiler::mlir::parse_mlir(&src, "test.mlir").unwrap();
    let opts = handscope_compiler::mlir::WriteOptions {
        omit_locations_in: Some("test.mlir".into()),
    };
    let w = handscope_compiler::mlir::write_mlir_with(&m, &opts);
    let expected = "module {
  handshake.func @f(%arg0: i32, %c: none) -> (i32, none) attributes {argNames = [\"arg0\", \"c\"], resNames = [\"out0\", \"out1\"]} {
    %fork0_out0, %fork0_out1 = fork [2] %arg0 : i32
    sink %fork0_out0 : i32
    return %fork0_out1, %c : i32, none
  }
}
";
    assert_eq!(w, expected);
}

#[test]
fn ignored_details_are_reported_as_warnings() {
    let src = custom_func(
        "%a: i32 {foo}, %b: i32",
        "%0 = arith.addi %a, %b overflow<nsw> : i32\n%1 = \"arith.addi\"(%0, %b) <{overflowFlags = #arith.overflow<nuw>}> : (i32, i32) -> i32\nreturn %1 : i32",
    );
    let (m, warnings) = handscope_compiler::mlir::parse_mlir(&src, "w.mlir").unwrap();
    assert_eq!(m.functions[0].op_counts(), [("addi", 2), ("return", 1)]);
    let text: Vec<String> = warnings.iter().map(ToString::to_string).collect();
    assert_eq!(text.len(), 3, "{text:?}");
    assert!(
        text[0].starts_with("w.mlir:1:27: warning: argument attributes are ignored"),
        "{text:?}"
    );
    assert!(text[1].contains("overflow flags are ignored"), "{text:?}");
}

/// Type aliases at the top of a file (`!t = tuple<...>`) stand for their type everywhere.
#[test]
fn type_aliases_are_expanded() {
    let src = "!pair = tuple<i32, i8>\n!word = i32\nhandshake.func @f(%a: !word, %b: i8, %c: none) -> (!pair, none) {\n  %p = pack %a, %b : !pair\n  return %p, %c : !pair, none\n}\n";
    let m = parse_ok(src);
    let f = &m.functions[0];
    assert_eq!(f.args[0].ty, ArgType::Channel(Type::Int(32)));
    assert_eq!(
        f.results[0].ty,
        Type::Tuple(vec![Type::Int(32), Type::Int(8)])
    );
    let w = round_trip(src);
    assert!(w.contains("tuple<i32, i8>"), "{w}");
}

/// CIRCT writes `argNames = []` / `resNames = []` on external declarations: default names.
#[test]
fn empty_name_lists_mean_default_names() {
    let src = "module {\n  handshake.func private @ext(i32, none, ...) -> (i32, none) attributes {argNames = [], resNames = []}\n  handshake.func @top(%a: i32, %c: none, ...) -> (i32, none) {\n    %r:2 = instance @ext(%a, %c) : (i32, none) -> (i32, none)\n    return %r#0, %r#1 : i32, none\n  }\n}\n";
    let m = parse_ok(src);
    let ext = &m.functions[0];
    assert!(ext.external);
    let names: Vec<&str> = ext.args.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["in0", "in1"]);
    assert_eq!(ext.results[1].name, "out1");
    round_trip(src);
}

/// An `hw.module` that instantiates a handshake function through `handshake.esi_instance` (as
/// CIRCT's ESI flow writes it): the function is read and simulated, with a warning that says so.
#[test]
fn hw_module_with_esi_instance() {
    let src = r#"handshake.func @inc(%x: i8, ...) -> (i8) {
  return %x : i8
}
hw.module @top(in %clk: !seq.clock, in %rst: i1, in %a: !esi.channel<i8>, out b: !esi.channel<i8>) {
  %r = handshake.esi_instance @inc "u0" clk %clk rst %rst (%a) : (!esi.channel<i8>) -> (!esi.channel<i8>)
  hw.output %r : !esi.channel<i8>
}
"#;
    let (m, warnings) = handscope_compiler::mlir::parse_mlir(src, "esi.mlir").unwrap();
    assert_eq!(m.default_function().unwrap().name, "inc");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let w = warnings[0].to_string();
    assert!(w.contains("esi.mlir:5:"), "{w}");
    assert!(w.contains("simulates `@inc`"), "{w}");
    let bad = src.replace("esi_instance @inc", "esi_instance @nope");
    let e = handscope_compiler::mlir::parse_mlir(&bad, "esi.mlir").unwrap_err();
    assert_eq!(e.line_col().0, 5);
    assert!(
        e.message.contains("`@nope` does not reference"),
        "{}",
        e.message
    );
}

/// `!hw.struct<...>` types are tuples (field 0 in the most significant bits, names dropped)
/// and `hw.struct_create` is a `pack`.
#[test]
fn hw_structs_are_tuples() {
    let src = "!s = !hw.struct<lo: i4, hi: i8>\nhandshake.func @f(%a: i4, %b: i8) -> (!s) {\n  %v = hw.struct_create (%a, %b) : !s\n  return %v : !s\n}\n";
    let m = parse_ok(src);
    let f = &m.functions[0];
    assert_eq!(
        f.results[0].ty,
        Type::Tuple(vec![Type::Int(4), Type::Int(8)])
    );
    assert!(f.nodes.values().any(|n| n.op == Op::Pack));
    round_trip(src);
    let e = handscope_compiler::mlir::parse_mlir(
        "handshake.func @f(%a: i4) -> (i4) {\n  %v = hw.struct_create (%a) : i4\n  return %v : i4\n}\n",
        "s.mlir",
    )
    .unwrap_err();
    assert_eq!(e.line_col(), (2, 32), "{}", e.render());
    assert!(e.message.contains("needs a struct type"), "{}", e.message);
}

#[test]
fn arith_constant_is_an_always_valid_constant_in_both_forms() {
    // Newer CIRCT emits `arith.constant` inside handshake functions: no control operand, a
    // token in every cycle. Handscope builds it as `source -> constant`.
    let custom = func(
        "%x: i32, %go: none) -> (i32, i1, f32, none",
        "%c = arith.constant -5 : i32\n%t = arith.constant true\n%f = arith.constant 1.5 : f32\n%s = arith.addi %x, %c : i32\nreturn %s, %t, %f, %go : i32, i1, f32, none",
    );
    let generic = func(
        "%x: i32, %go: none) -> (i32, i1, f32, none",
        "%c = \"arith.constant\"() <{value = -5 : i32}> : () -> i32\n%t = \"arith.constant\"() {value = true} : () -> i1\n%f = \"arith.constant\"() <{value = 1.5 : f32}> : () -> f32\n%s = arith.addi %x, %c : i32\nreturn %s, %t, %f, %go : i32, i1, f32, none",
    );
    for src in [&custom, &generic] {
        let ops = node_ops(src);
        let sources = ops.iter().filter(|o| matches!(o, Op::Source)).count();
        let values: Vec<u64> = ops
            .iter()
            .filter_map(|o| match o {
                Op::Constant { value } => Some(*value),
                _ => None,
            })
            .collect();
        assert_eq!(sources, 3, "{ops:?}");
        assert_eq!(
            values,
            [(-5i64) as u64 & 0xffff_ffff, 1, u64::from(1.5f32.to_bits())],
            "{ops:?}"
        );
        assert_eq!(
            describe_module(&parse_ok(src), false),
            describe_module(&parse_ok(&custom), false)
        );
        round_trip(src);
    }
}
