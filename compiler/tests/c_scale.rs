//! Long inputs compile without deep recursion and in time linear in their size (issue 19:
//! `return a[0] + ... + a[29];` took 42 s, 2,000 terms never finished and 50,000 overflowed
//! the stack). Each test runs on a test-harness thread (2 MiB of stack), so a pass that
//! recursed once per operator, statement or merge point would overflow here; the whole file
//! runs in seconds even unoptimized, which a quadratic pass at these sizes would not.

use handscope_compiler::bench_support::{c_functions, c_ifs, c_scalar_expr, c_sum};
use handscope_compiler::c::{CError, HsOptions, compile_to_handshake, compile_to_ir};
use handscope_sim::Module;
use handscope_sim::verify::verify_module;

fn compiles(src: &str) -> Module {
    compile_to_handshake(src, "k.c", None, &HsOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// Compiles and verifies (what `handscope check` does with a C file).
fn checks(src: &str) -> Module {
    let m = compiles(src);
    let r = verify_module(&m);
    assert!(r.is_ok(), "{:?}", r.errors.first());
    m
}

fn err(src: &str) -> CError {
    match compile_to_ir(src, "k.c", None) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e,
    }
}

/// `n` operands joined by `op`, each from `term(i)`.
fn joined(n: usize, op: &str, term: impl Fn(usize) -> String) -> String {
    (0..n).map(term).collect::<Vec<_>>().join(op)
}

#[test]
fn unrolled_sums_of_50000_and_100000_terms() {
    let m = checks(&c_sum(50_000));
    assert!(m.functions[0].nodes.len() > 150_000);
    compiles(&c_sum(100_000));
}

#[test]
fn scalar_expression_of_100000_terms_with_every_precedence_level() {
    checks(&c_scalar_expr(100_000));
}

#[test]
fn chains_of_comparisons_and_logical_operators() {
    // Speculatable operands: one `andi`/`ori` per operator.
    let src = format!(
        "int f(int x) {{\n  return {};\n}}\n",
        joined(50_000, " && ", |i| format!("x != {i}"))
    );
    checks(&src);
    // Memory reads are not speculated: every `||` becomes a branch and a merge point.
    let src = format!(
        "int f(int a[64]) {{\n  return {};\n}}\n",
        joined(5_000, " || ", |i| format!("a[{}]", i % 64))
    );
    checks(&src);
    // `a < b < c ...` compares the 0/1 result of the previous comparison.
    let src = format!(
        "int f(int x) {{\n  return {};\n}}\n",
        joined(50_000, " < ", |i| if i == 0 {
            "x".into()
        } else {
            format!("{i}")
        })
    );
    compiles(&src);
}

#[test]
fn comma_chain_of_100000_assignments() {
    let src = format!(
        "int f(int x) {{\n  {};\n  return x;\n}}\n",
        joined(100_000, ", ", |i| format!("x = x + {i}"))
    );
    compiles(&src);
}

/// Float chains stay linear: the identities GCC folds (`x * 1.0`, `a - (-b)`) are looked up
/// on each operator's operands as written, never by evaluating the chain below it, and a
/// float constant initializer of 20,000 terms folds along its spine.
#[test]
fn float_chains_of_50000_terms() {
    let prod = joined(50_000, " * ", |i| {
        if i % 3 == 0 {
            "1.0".to_string()
        } else {
            format!("a[{}]", i % 4)
        }
    });
    let diff = joined(20_000, " - ", |i| format!("(-a[{}])", i % 4));
    let k = joined(20_000, " + ", |i| format!("{}.5", i % 3));
    let src = format!(
        "const double K = {k};\ndouble f(double a[4]) {{\n  return {prod} + ({diff}) + K;\n}}\n"
    );
    compiles(&src);
}

#[test]
fn constant_expressions_of_100000_terms() {
    let sum = joined(100_000, " + ", |i| format!("{}", i % 3));
    // 0 + 1 + 2 + 0 + ... + 0 = 33,333 * 3 = 99,999.
    let src = format!(
        "const int K = {sum};\nint t[({sum}) / 10000];\nint f(int x) {{\n  switch (x) {{\n  case {sum}: return K + t[0];\n  }}\n  return 0;\n}}\n"
    );
    let f = compile_to_ir(&src, "k.c", None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(f.memories[0].len, 9);
    let r =
        handscope_compiler::c::run(&f, &[handscope_compiler::c::ArgValue::Scalar(99_999)], 1000)
            .expect("runs");
    assert_eq!(r.ret, Some(99_999));
}

#[test]
fn statements_functions_and_a_read_across_20000_merge_points() {
    checks(&c_ifs(5_000));
    checks(&c_functions(2_000));
    // The array's memory token is read after the last `if`: its value flows through every
    // merge point, so the SSA construction looks across all of them at once.
    let mut src = String::from("int f(int x, int a[4]) {\n");
    for i in 0..20_000 {
        src.push_str(&format!("  if (x == {i}) x = x + 1;\n"));
    }
    src.push_str("  return x + a[1];\n}\n");
    compiles(&src);
}

#[test]
fn deep_parenthesised_nesting_is_a_located_error() {
    let n = 50_000;
    let src = format!(
        "int f(int x) {{\n  return {}x{};\n}}\n",
        "(".repeat(n),
        ")".repeat(n)
    );
    let e = err(&src);
    assert_eq!(e.line, 2);
    assert!(e.message.contains("nesting too deep"), "{e}");
    // A long chain inside a few parentheses is fine.
    let src = format!(
        "int f(int a[64]) {{\n  return ((({})));\n}}\n",
        joined(20_000, " + ", |i| format!("a[{}]", i % 64))
    );
    compiles(&src);
}

#[test]
fn chained_postfix_increments_are_rejected_not_nested() {
    let src = format!(
        "int f(int x) {{\n  x{};\n  return x;\n}}\n",
        "++".repeat(50_000)
    );
    let e = err(&src);
    assert_eq!((e.line, e.col), (2, 6), "{e}");
    assert!(e.message.contains("not assignable"), "{e}");
}

/// The struct pass walks chains along their spines too: a file with a struct, a sum of
/// 100,000 member reads and a comma chain of 100,000 member writes.
#[test]
fn chains_of_100000_member_accesses_in_a_file_with_structs() {
    let sum = joined(100_000, " + ", |i| format!("v.m[{}]", i % 4));
    compiles(&format!(
        "struct s {{ int x; int m[4]; }};\nint f(int a) {{\n  struct s v = {{a, {{1, 2, 3, 4}}}};\n  return {sum};\n}}\n"
    ));
    let commas = joined(100_000, ", ", |i| format!("v.x = v.x + {i}"));
    compiles(&format!(
        "struct s {{ int x; }};\nint f(int a) {{\n  struct s v = {{a}};\n  {commas};\n  return v.x;\n}}\n"
    ));
}
