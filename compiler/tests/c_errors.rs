//! Malformed or out-of-subset C input must produce a located diagnostic, never a panic.

use handscope_compiler::c::{CError, compile_to_ir};
use miette::{GraphicalReportHandler, GraphicalTheme};

fn err(src: &str) -> CError {
    match compile_to_ir(src, "k.c", None) {
        Ok(f) => panic!("expected an error, got:\n{f}"),
        Err(e) => e,
    }
}

/// Asserts the error is at `line:col` and its message contains `needle`.
fn check(src: &str, line: u32, col: u32, needle: &str) {
    let e = err(src);
    assert_eq!((e.line, e.col), (line, col), "wrong location for: {e}");
    assert!(
        e.message.contains(needle),
        "message '{}' lacks '{needle}'",
        e.message
    );
    assert!(
        e.to_string().starts_with(&format!("k.c:{line}:{col}: ")),
        "{e}"
    );
}

/// A float where C requires an integer: a located error naming what needs the integer and
/// the operand's type (C11 6.5.2.1, 6.5.5, 6.5.7, 6.5.10-12, 6.5.3.3, 6.8.4.2).
#[test]
fn float_where_an_integer_is_required() {
    let cases: &[(&str, u32, u32, &str)] = &[
        (
            "int f(int a[4], float x) {\n  return a[x];\n}\n",
            2,
            12,
            "an array index must have an integer type, but this operand is 'float'",
        ),
        (
            "double f(double a) {\n  return a % 2;\n}\n",
            2,
            10,
            "the operand of '%' must have an integer type, but this operand is 'double'",
        ),
        (
            "int f(int a, float s) {\n  return a << s;\n}\n",
            2,
            15,
            "the operand of '<<' must have an integer type",
        ),
        (
            "int f(float a) {\n  return a & 1;\n}\n",
            2,
            10,
            "the operand of '&'",
        ),
        (
            "int f(float a) {\n  return ~a;\n}\n",
            2,
            11,
            "the operand of '~'",
        ),
        (
            "float f(float a) {\n  a %= 3;\n  return a;\n}\n",
            2,
            3,
            "the operand of '%'",
        ),
        (
            "int f(double d) {\n  switch (d) {\n  case 1: return 1;\n  }\n  return 0;\n}\n",
            2,
            11,
            "the controlling expression of 'switch' must have an integer type",
        ),
        (
            "int f(int i) {\n  switch (i) {\n  case 1.5: return 1;\n  }\n  return 0;\n}\n",
            3,
            8,
            "not an integer constant expression",
        ),
    ];
    for (src, line, col, needle) in cases {
        check(src, *line, *col, needle);
    }
}

/// Floating types and constants the subset does not have.
#[test]
fn unsupported_float_forms() {
    check(
        "int f(int a) {\n  long double x = a;\n  return a;\n}\n",
        2,
        3,
        "long double is not supported",
    );
    check(
        "double f(void) {\n  return 1.5L;\n}\n",
        2,
        10,
        "long double is not supported",
    );
    check(
        "double f(void) {\n  return 0x1.0000000000000001p0;\n}\n",
        2,
        10,
        "not exact in double",
    );
    check(
        "float f(void) {\n  return 1f;\n}\n",
        2,
        10,
        "invalid floating-point literal '1f'",
    );
    check(
        "double f(void) {\n  return 0x1.8;\n}\n",
        2,
        10,
        "invalid floating-point literal",
    );
    check(
        "int f(int a) {\n  _Complex double z;\n  return a;\n}\n",
        2,
        3,
        "complex types are not supported",
    );
}

/// `<math.h>` functions outside the subset are named in the error; the supported ones
/// without the header are a warning (an implicit declaration, as C compilers warn) and keep
/// their meaning.
#[test]
fn math_functions() {
    check(
        "#include <math.h>\ndouble f(double x) {\n  return x + frexp(x);\n}\n",
        3,
        14,
        "the math function 'frexp' is not supported",
    );
    check(
        "#include <math.h>\nfloat f(float x) {\n  return hypotf(x, 2.0f);\n}\n",
        3,
        10,
        "the math function 'hypotf' is not supported",
    );
    check(
        "#include <math.h>\nlong double f(double x) {\n  return x;\n}\n",
        2,
        1,
        "long double",
    );
    let (_, warnings) = handscope_compiler::c::compile_to_handshake_warned(
        "double f(double x) {\n  return sqrt(x) + sqrt(1.0) + expf(x);\n}\n",
        "k.c",
        None,
        &Default::default(),
    )
    .expect("an implicit declaration is a warning");
    let text: Vec<String> = warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(
        text,
        [
            "k.c:2:10: warning: implicit declaration of function 'sqrt': it is read as the \
             <math.h> function double sqrt(double)",
            "k.c:2:32: warning: implicit declaration of function 'expf': it is read as the \
             <math.h> function float expf(float)",
        ]
    );
    // A prototype of its own declares it: no warning.
    let (_, warnings) = handscope_compiler::c::compile_to_handshake_warned(
        "double sqrt(double);\ndouble f(double x) {\n  return sqrt(x);\n}\n",
        "k.c",
        None,
        &Default::default(),
    )
    .expect("compiles");
    assert!(warnings.is_empty());
    check(
        "#include <math.h>\ndouble f(double x) {\n  return fmax(x);\n}\n",
        3,
        10,
        "'fmax' takes 2 argument(s) but 1 were given",
    );
    // A function of the file's own with a math name is the file's.
    let src = "double sin(double x) { return x; }\ndouble f(double x) {\n  return sin(x);\n}\n";
    assert!(compile_to_ir(src, "k.c", Some("f")).is_ok());
}

/// A pointer must stay within one array (its target is resolved at compile time); pointers
/// are not numbers.
#[test]
fn pointers_outside_the_subset() {
    check(
        "int f(int a[4], int b[4], int c) {\n  int *p = a;\n  if (c) p = b;\n  return *p;\n}\n",
        3,
        10,
        "'p' points into 'a' (line 2) and here into 'b'",
    );
    check(
        "int f(int a[4], int b[4]) {\n  int *p = a, *q = b;\n  return p < q;\n}\n",
        3,
        10,
        "pointers into different arrays ('a' and 'b')",
    );
    check(
        "int f(int a[4]) {\n  int *p = a;\n  return p;\n}\n",
        3,
        10,
        "the pointer 'p' used as a number",
    );
    check(
        "#include <stdlib.h>\nint f(int a) {\n  if (a < 0)\n    exit(1);\n  return a;\n}\n",
        4,
        5,
        "'exit' cannot be called in a kernel",
    );
    check(
        "int f(int a[4]) {\n  int **p;\n  return 0;\n}\n",
        2,
        8,
        "pointers to pointers are not supported",
    );
    check(
        "int *g;\nint f(int a[4]) {\n  return *g;\n}\n",
        3,
        11,
        "the pointer 'g' is used before it points into an array",
    );
    check(
        "int f(int a[4]) {\n  int *p;\n  return *p;\n}\n",
        3,
        11,
        "'p' is used before it points into an array",
    );
    check(
        "int f(int a[4]) {\n  float *p = a;\n  return 0;\n}\n",
        2,
        14,
        "incompatible pointer",
    );
}

/// Struct errors name the struct and the member.
#[test]
fn structs_outside_the_subset() {
    check(
        "struct s { int x; };\nint f(void) {\n  struct s v = {1};\n  return v.y;\n}\n",
        4,
        10,
        "'struct s' has no member named 'y'",
    );
    check(
        "struct s { int x; };\nint f(struct s *p) {\n  return p.x;\n}\n",
        3,
        10,
        "member access with '.' on a pointer to a struct",
    );
    check(
        "union u { int x; float y; };\nint f(int a) {\n  union u v;\n  v.x = a;\n  return v.x;\n}\n",
        3,
        11,
        "'union u': union types are not supported",
    );
    // A helper that uses a union but is never called does not stop the kernel.
    let src = "union u { int x; float y; };\nstatic float pun(int a) {\n  union u v;\n  v.x = a;\n  return v.y;\n}\nint f(int a) {\n  return a + 1;\n}\n";
    assert!(compile_to_ir(src, "k.c", Some("f")).is_ok());
    check(
        "struct s { int x, y; };\nint f(int i) {\n  struct s a[4] = {{1, 2}};\n  struct s b;\n  b = a[i++];\n  return b.x;\n}\n",
        5,
        3,
        "side effects",
    );
    check(
        "struct s { int x : 3; };\n",
        1,
        18,
        "bit-fields are not supported",
    );
    check(
        "struct s;\nint f(void) {\n  struct s v;\n  return 0;\n}\n",
        3,
        12,
        "incomplete type 'struct s'",
    );
}

#[test]
fn recursion() {
    check(
        "int fact(int n) {\n  if (n <= 1) return 1;\n  return n * fact(n - 1);\n}\nint top(int n) { return fact(n); }\n",
        3,
        14,
        "recursion",
    );
}

#[test]
fn mutual_recursion() {
    let src = "int odd(int n);\nint even(int n) { return n == 0 ? 1 : odd(n - 1); }\nint odd(int n) { return n == 0 ? 0 : even(n - 1); }\n";
    let e = compile_to_ir(src, "k.c", Some("even")).unwrap_err();
    assert_eq!((e.line, e.col), (3, 38), "{e}");
    assert!(e.message.contains("recursion"));
}

#[test]
fn unknown_identifier() {
    check(
        "int f(int a) {\n  return a + bogus;\n}\n",
        2,
        14,
        "undeclared identifier 'bogus'",
    );
}

#[test]
fn unknown_function() {
    check(
        "int f(int a) {\n  return g(a);\n}\n",
        2,
        10,
        "undeclared function 'g'",
    );
}

#[test]
fn syntax_error() {
    check(
        "int f(int a) {\n  int b = a\n  return b;\n}\n",
        3,
        3,
        "expected ';'",
    );
}

#[test]
fn unterminated_comment() {
    check(
        "int f(int a) {\n  /* never closed\n  return a;\n}\n",
        2,
        3,
        "unterminated comment",
    );
}

/// A const global cannot be written (other globals can: they become memories).
#[test]
fn write_const_global() {
    check(
        "const int limit = 4;\nint f(int a) {\n  limit = a;\n  return a;\n}\n",
        1,
        11,
        "'limit' is declared const but assigned",
    );
}

#[test]
fn other_unsupported_features() {
    check(
        "#include <string.h>\nint f(void) { return 0; }\n",
        1,
        10,
        "unsupported include 'string.h'",
    );
    check("int f(int n, ...) { return n; }\n", 1, 14, "variadic");
    check(
        "int f(int a) {\n  return a + \"x\";\n}\n",
        2,
        14,
        "string literals",
    );
    check(
        "int f(int a) {\n  static int s;\n  return a;\n}\n",
        2,
        14,
        "static local",
    );
    check("int f(int a) {\n  break;\n}\n", 2, 3, "'break'");
    check(
        "int f(int a) {\n  switch (a) { case 1: case 1: break; }\n  return a;\n}\n",
        2,
        29,
        "duplicate case",
    );
    check(
        "int f(int a) {\n  return a @ 2;\n}\n",
        2,
        12,
        "unexpected character",
    );
    check(
        "#define M(x) (x)\nint f(int a) {\n  return M(a, a);\n}\n",
        3,
        10,
        "expects 1 argument",
    );
    check(
        "int f(int a) {\n  int v = 'ab';\n  return v;\n}\n",
        2,
        11,
        "exactly one character",
    );
    check("int f(int a) {\n  return a;\n", 3, 1, "expected '}'");
}

#[test]
fn stdint_names_need_the_include() {
    check(
        "uint8_t f(int a) { return a; }\n",
        1,
        1,
        "expected a declaration",
    );
    assert!(
        compile_to_ir(
            "#include <stdint.h>\nuint8_t f(int a) { return a; }\n",
            "k.c",
            None
        )
        .is_ok()
    );
}

#[test]
fn top_selection() {
    let src = "int a(int x) { return x; }\nint b(int x) { return x + 1; }\n";
    let e = compile_to_ir(src, "k.c", None).unwrap_err();
    assert!(e.message.contains("cannot choose the top function"), "{e}");
    assert_eq!(
        compile_to_ir(src, "k.c", Some("b"))
            .map(|f| f.name)
            .ok()
            .as_deref(),
        Some("b")
    );
    let e = compile_to_ir(src, "k.c", Some("zz")).unwrap_err();
    assert!(e.message.contains("'zz'"), "{e}");
}

#[test]
fn diagnostic_renders_caret_and_location() {
    let e = err("int f(int a) {\n  return a + bogus;\n}\n");
    let mut out = String::new();
    GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor())
        .render_report(&mut out, &e)
        .expect("render");
    assert!(out.contains("k.c:2:14"), "{out}");
    assert!(out.contains("return a + bogus;"), "{out}");
    assert!(
        out.contains("^") || out.contains("┬") || out.contains("▲"),
        "{out}"
    );
}

#[test]
fn recursion_without_an_uncalled_function_names_the_cycle() {
    // Issue 19: this said "no top function".
    check(
        "int f(int n) {\n  if (n == 0) return 0;\n  return f(n - 1) + 1;\n}\n",
        3,
        10,
        "recursion is not supported: f -> f",
    );
    check(
        "int g(int n);\nint f(int n) { return g(n); }\nint g(int n) { return n ? f(n - 1) : 0; }\n",
        3,
        27,
        "recursion is not supported: f -> g -> f",
    );
}

#[test]
fn a_file_without_functions_says_so() {
    for src in ["", "// nothing\n", "int g(int x);\nint k = 3;\n"] {
        let e = err(src);
        assert_eq!((e.line, e.col), (1, 1), "{e}");
        assert!(e.message.contains("defines no function"), "{e}");
    }
}

#[test]
fn writes_to_const_objects_are_rejected() {
    check(
        "int f(const int a[4]) {\n  a[0] = 1;\n  return a[1];\n}\n",
        2,
        3,
        "cannot write to an element of 'a': 'a' is declared const",
    );
    check(
        "int f(const int a[2][2], int i) {\n  a[i][1] += 2;\n  return 0;\n}\n",
        2,
        3,
        "'a' is declared const",
    );
    // Through a call: the view keeps the constness of the array it was made from.
    check(
        "void g(int b[4]) {\n  b[0]++;\n}\nvoid f(const int a[4]) {\n  g(a);\n}\n",
        2,
        3,
        "cannot write to an element of 'b': 'b' refers to 'a', which is declared const",
    );
    // A const parameter of a helper protects the caller's array inside the helper.
    check(
        "void g(const int b[4]) {\n  b[1] = 0;\n}\nvoid f(int a[4]) {\n  g(a);\n}\n",
        2,
        3,
        "'b' is declared const",
    );
    check(
        "int f(int x) {\n  const int t[2] = {1, 2};\n  t[x] = 3;\n  return t[0];\n}\n",
        3,
        3,
        "'t' is declared const",
    );
    check(
        "int f(const int n) {\n  n = 2;\n  return n;\n}\n",
        2,
        3,
        "cannot assign to 'n': it is declared const",
    );
    check(
        "int f(int x) {\n  const int k = 4;\n  k++;\n  return k + x;\n}\n",
        3,
        3,
        "cannot assign to 'k'",
    );
    // Reading them is fine.
    assert!(
        compile_to_ir(
            "int f(const int a[4], const int n) {\n  const int k = 2;\n  return a[n] + k;\n}\n",
            "k.c",
            None
        )
        .is_ok()
    );
}

#[test]
fn constant_out_of_bounds_indices_are_rejected() {
    check(
        "int f(int a[4]) {\n  return a[10];\n}\n",
        2,
        12,
        "array index 10 is past the end of 'a' (4 elements)",
    );
    check(
        "int f(int a[4]) {\n  a[-1] = 0;\n  return 0;\n}\n",
        2,
        5,
        "array index -1 is before the start of 'a'",
    );
    check(
        "int f(int a[4][3]) {\n  return a[1][3];\n}\n",
        2,
        15,
        "array index 3 is past the end of dimension 2 of 'a' (3 elements)",
    );
    // Constant expressions, macros, global constants and views of sub-arrays count.
    check(
        "#define N 4\nint f(int a[N]) {\n  return a[N - 1] + a[N];\n}\n",
        3,
        23,
        "past the end of 'a'",
    );
    check(
        "int n = 8;\nint f(int x) {\n  int b[8];\n  b[x & 7] = x;\n  return b[n];\n}\n",
        5,
        12,
        "past the end of 'b'",
    );
    check(
        "int g(int r[]) {\n  return r[5];\n}\nint f(int a[3][5]) {\n  return g(a[1]);\n}\n",
        2,
        12,
        "past the end of 'r' (5 elements)",
    );
    // Indices that are not constant expressions are checked at run time, not here.
    assert!(
        compile_to_ir(
            "int g(int r[4], int i) { return r[i]; }\nint f(int a[4]) {\n  int k = 10;\n  return a[k - 7] + g(a, 3);\n}\n",
            "k.c",
            None
        )
        .is_ok()
    );
}

#[test]
fn errors_past_column_65535_render_without_panicking() {
    // Issue 19: miette's graphical report panicked ("Formatting argument out of range").
    let mut src = String::from("int f(int a[64]) {\n  return ");
    for i in 0..20_000 {
        src.push_str(&format!("a[{}] + ", i % 64));
    }
    src.push_str("bogus;\n}\n");
    let e = err(&src);
    assert_eq!(e.line, 2);
    assert!(e.col > 65_535, "{e}");
    let r = handscope_compiler::render::render_diagnostic(&e, None);
    assert!(r.starts_with(&e.to_string()), "{r}");
    assert!(r.contains("| …") && r.contains("+ bogus;"), "{r}");
    assert!(r.len() < 2_000, "{} bytes", r.len());
}

#[test]
fn goto_and_labels() {
    check(
        "int f(int a) {\n  goto out;\n}\n",
        2,
        3,
        "label 'out' used but not defined",
    );
    check(
        "int f(int a) {\nl: a++;\nl: a++;\n  return a;\n}\n",
        3,
        1,
        "redefinition of label 'l' (first defined on line 2)",
    );
    check(
        "int f(int a) {\n  goto 3;\n}\n",
        2,
        8,
        "expected a label name after 'goto'",
    );
    // A jump into the middle of a loop gives it a second entry: named at the goto.
    check(
        "int f(int n) {\n  int s = 0;\n  if (n > 3) goto inside;\n  while (s < 100) {\n    s += 1;\n  inside:\n    s += 2;\n  }\n  return s;\n}\n",
        3,
        14,
        "enters a loop in its middle",
    );
    // Jumping to the loop's start is fine, backward and forward.
    assert!(
        compile_to_ir(
            "int f(int n) {\n  int s = 0;\n  if (n > 3) goto top;\n  s = 5;\ntop:\n  s += n;\n  if (s < 100) goto top;\n  return s;\n}\n",
            "k.c",
            None
        )
        .is_ok()
    );
}

#[test]
fn stdlib_stdio_and_limits() {
    let ok = "#include <stdlib.h>\n#include <stdio.h>\n#include <limits.h>\nint f(int a) { return abs(a) + (int)labs((long)a) + (int)llabs((long long)a) + (a > INT_MIN); }\n";
    assert!(compile_to_ir(ok, "k.c", None).is_ok());
    check(
        "int f(int a) { return abs(a, a); }\n",
        1,
        23,
        "'abs' takes 1 argument but 2 were given",
    );
    check(
        "int f(int a) { putchar(a); return a; }\n",
        1,
        16,
        "'putchar' cannot be called in a kernel",
    );
    // A file's own `abs` is used instead of the built-in one.
    let own = "int abs(int x) { return x + 1; }\nint f(int a) { return abs(a); }\n";
    assert!(compile_to_ir(own, "k.c", Some("f")).is_ok());
}

#[test]
fn token_pasting() {
    let ok = "#define CAT(a, b) a##b\n#define VAR(n) v ## n\n#define NUM 1 ## 2\nint f(int v1) { int CAT(to, tal) = VAR(1) + NUM + CAT(, 3) + CAT(4, ); return total; }\n";
    let ir = compile_to_ir(ok, "k.c", None).expect("pasting compiles");
    let r = handscope_compiler::c::run(&ir, &[handscope_compiler::c::ArgValue::Scalar(5)], 1000)
        .expect("runs");
    assert_eq!(r.ret, Some(24));
    check(
        "#define S(x) #x\nint f(void) { return 0; }\n",
        1,
        14,
        "stringification",
    );
    check(
        "#define P(x) ## x\nint f(void) { return 0; }\n",
        1,
        14,
        "either end",
    );
    check(
        "#define P(a, b) a ## b\nint f(int x) { return P(x, +); }\n",
        2,
        23,
        "does not give one token",
    );
}

/// Numbers are preprocessing numbers until translation phase 7 (C11 6.4.8, 6.10.3.3):
/// `##` pastes their spellings, as a linear-algebra suite's `SCALAR_VAL(x) x##f` needs, and
/// a pp-number that is no constant is an error only where it is used.
#[test]
fn token_pasting_of_preprocessing_numbers() {
    let ok = "#define SCALAR_VAL(x) x##f
              #define EXP(m, x) m ## e ## x
              #define BIG 1 ## e ## 5
              #define HEX(d) 0x ## d
              #define TEN 1 ## 0
              #if TEN > 5
              #define PICK 7
              #else
              #define PICK 9
              #endif
              #if 0
              int unused = 1e;
              #endif
              int f(int v) {
                return (int)(SCALAR_VAL(2.5) * 4) + (int)EXP(3, 2) + (int)BIG / 1000
                  + HEX(1F) + TEN + PICK + v;
              }
";
    let ir = compile_to_ir(ok, "k.c", None).expect("pasting numbers compiles");
    let r = handscope_compiler::c::run(&ir, &[handscope_compiler::c::ArgValue::Scalar(5)], 1000)
        .expect("runs");
    assert_eq!(r.ret, Some(10 + 300 + 100 + 31 + 10 + 7 + 5));
    // `1e` is a pp-number but no constant: an error where the macro is used.
    check(
        "#define E(a) a ## e
int f(void) { return (int)E(1); }
",
        2,
        27,
        "invalid floating-point literal '1e'",
    );
    check(
        "int f(void) {
  return 1.2.3;
}
",
        2,
        10,
        "1.2.3",
    );
}

#[test]
fn bit_precise_integers() {
    // C23 `_BitInt(N)`: exact widths, no promotion, ranks by width (the native compiler here
    // predates `_BitInt`, so the values are worked out by hand).
    let src = "unsigned _BitInt(7) f(_BitInt(12) a, unsigned _BitInt(7) b) {\n  _BitInt(12) s = a + b;\n  return s * 3;\n}\n";
    let ir = compile_to_ir(src, "k.c", None).expect("compiles");
    let run = |a: i64, b: i64| {
        handscope_compiler::c::run(
            &ir,
            &[
                handscope_compiler::c::ArgValue::Scalar(a),
                handscope_compiler::c::ArgValue::Scalar(b),
            ],
            1000,
        )
        .expect("runs")
        .ret
    };
    // 2047 + 100 wraps in 12 bits to -1949; * 3 (int) = -5847; to 7 unsigned bits: 41.
    assert_eq!(run(2047, 100), Some(41));
    // -5 + 3 = -2 in 12 bits; * 3 = -6; mod 128 = 122.
    assert_eq!(run(-5, 3), Some(122));
    // No promotion: two unsigned _BitInt(4) add in 4 bits (15 + 1 is 0, not int's 16).
    let narrow = "int g(unsigned _BitInt(4) x) { unsigned _BitInt(4) one = 1; return x + one; }\n";
    let ir = compile_to_ir(narrow, "k.c", None).expect("compiles");
    let r = handscope_compiler::c::run(&ir, &[handscope_compiler::c::ArgValue::Scalar(15)], 100)
        .expect("runs");
    assert_eq!(r.ret, Some(0));
    check(
        "int f(_BitInt(5000) a) { return 0; }\n",
        1,
        7,
        "wider than the 4096 bits",
    );
    check(
        "int f(_BitInt(1) a) { return 0; }\n",
        1,
        7,
        "at least 2 bits",
    );
    check(
        "int f(long _BitInt(8) a) { return 0; }\n",
        1,
        7,
        "invalid combination",
    );
    check(
        "int f(_BitInt(n) a) { return 0; }\n",
        1,
        15,
        "width of _BitInt",
    );
    assert!(compile_to_ir("int f(unsigned _BitInt(1) a) { return a; }\n", "k.c", None).is_ok());
}

/// C99 6.8.6.4: `return;` only in a `void` function (it used to return whatever the return
/// variable held, 0).
#[test]
fn return_without_a_value_in_a_non_void_function() {
    check(
        "int f(int x) {\n  if (x)\n    return;\n  return 1;\n}\n",
        3,
        5,
        "`return` without a value in a function returning `int`",
    );
    check(
        "float g(float x) {\n  return;\n}\n",
        2,
        3,
        "`return` without a value in a function returning `float`",
    );
}
