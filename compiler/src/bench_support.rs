//! Generated inputs of growing size, for the growth benchmark (`benches/growth.rs`) and the
//! scale tests (`tests/c_scale.rs`, `tests/mlir_scale.rs`): long expressions, many statements,
//! many functions (C) and long graphs (MLIR). Every generator returns source text that
//! compiles; the size parameter counts operators, statements, functions or nodes.

use std::fmt::Write;

/// `int f(int a[64]) { return a[0] + a[1] + ... ; }` with `terms` operands (`a[i % 64]`):
/// an unrolled sum, one load and one `+` per term.
pub fn c_sum(terms: usize) -> String {
    let mut s = String::with_capacity(terms * 10 + 64);
    s.push_str("int f(int a[64]) {\n  return ");
    for i in 0..terms {
        if i > 0 {
            s.push_str(if i % 3 == 2 { " - " } else { " + " });
        }
        let _ = write!(s, "a[{}]", i % 64);
    }
    s.push_str(";\n}\n");
    s
}

/// `int f(int x, int y) { return x * 3 + y ^ x ... ; }`: `terms` scalar operands combined
/// by arithmetic operators of every precedence level, without memory accesses.
pub fn c_scalar_expr(terms: usize) -> String {
    const OPS: [&str; 6] = [" + ", " * ", " - ", " ^ ", " & ", " | "];
    let mut s = String::with_capacity(terms * 8 + 64);
    s.push_str("int f(int x, int y) {\n  return ");
    for i in 0..terms {
        if i > 0 {
            s.push_str(OPS[i % OPS.len()]);
        }
        s.push_str(match i % 3 {
            0 => "x",
            1 => "y",
            _ => "7",
        });
    }
    s.push_str(";\n}\n");
    s
}

/// `statements` lines of `if (x == i) x = x + 1;` in one function: many blocks, merges and
/// conditional branches.
pub fn c_ifs(statements: usize) -> String {
    let mut s = String::with_capacity(statements * 28 + 64);
    s.push_str("int f(int x) {\n");
    for i in 0..statements {
        let _ = writeln!(s, "  if (x == {i}) x = x + 1;");
    }
    s.push_str("  return x;\n}\n");
    s
}

/// `functions` small functions `int gK(int x)` and a top function calling each once (the
/// front end inlines every call).
pub fn c_functions(functions: usize) -> String {
    let mut s = String::with_capacity(functions * 80 + 64);
    for k in 0..functions {
        let _ = writeln!(
            s,
            "int g{k}(int x) {{\n  if (x > {k}) return x - {k};\n  return x + 1;\n}}"
        );
    }
    s.push_str("int top(int x) {\n  int s = 0;\n");
    for k in 0..functions {
        let _ = writeln!(s, "  s = s + g{k}(x);");
    }
    s.push_str("  return s;\n}\n");
    s
}

/// A handshake function of about `nodes` nodes in custom MLIR form: a pipeline of stages
/// (two `fork`s, a `constant`, an `arith` op, a `buffer`, a `join` and a `sink`: 7 nodes), argument `in0`
/// and result `out0`.
pub fn mlir_chain(nodes: usize) -> String {
    let stages = nodes.div_ceil(7).max(1);
    let mut s = String::with_capacity(stages * 400 + 256);
    s.push_str(
        "handshake.func @chain(%in0: i32, %start: none, ...) -> (i32, none) \
         attributes {argNames = [\"in0\", \"start\"], resNames = [\"out0\", \"done\"]} {\n",
    );
    let mut cur = "%in0".to_string();
    let mut ctl = "%start".to_string();
    for k in 0..stages {
        let _ = writeln!(s, "  %f{k}:3 = fork [3] {cur} : i32");
        let _ = writeln!(s, "  %c{k}:2 = fork [2] {ctl} : none");
        let _ = writeln!(
            s,
            "  %k{k} = constant %c{k}#0 {{value = {} : i32}} : i32",
            k % 97
        );
        let op = ["addi", "xori", "muli"][k % 3];
        let _ = writeln!(s, "  %a{k} = arith.{op} %f{k}#0, %k{k} : i32");
        let _ = writeln!(s, "  %b{k} = buffer [2] seq %a{k} : i32");
        let _ = writeln!(s, "  %j{k} = join %c{k}#1, %f{k}#1 : none, i32");
        let _ = writeln!(s, "  sink %f{k}#2 : i32");
        cur = format!("%b{k}");
        ctl = format!("%j{k}");
    }
    let _ = writeln!(s, "  return {cur}, {ctl} : i32, none\n}}");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_inputs_compile() {
        use crate::c::{HsOptions, compile_to_handshake};
        for src in [c_sum(5), c_scalar_expr(7), c_ifs(3), c_functions(3)] {
            if let Err(e) = compile_to_handshake(&src, "g.c", None, &HsOptions::default()) {
                panic!("{e}\n{src}");
            }
        }
        let (m, _) = crate::mlir::parse_mlir(&mlir_chain(30), "g.mlir")
            .unwrap_or_else(|e| panic!("{}", e.render()));
        let f = &m.functions[0];
        assert!(f.nodes.len() >= 30, "{} nodes", f.nodes.len());
        let report = handscope_sim::verify::verify_module(&m);
        assert!(report.is_ok(), "{:?}", report.errors);
    }
}
