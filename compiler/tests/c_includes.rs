//! `#include "file"`, as HLS benchmark code uses it (a kernel next to its header of typedefs,
//! sizes and prototypes): files are read from the including file's directory, guards and
//! `#pragma once` work, diagnostics and MLIR locations name the file a token came from.

use std::path::{Path, PathBuf};

use handscope_compiler::c::{ArgValue, HsOptions, compile_to_handshake, compile_to_ir, run};

/// A fresh directory under the test target's scratch space with `files` written into it.
fn tree(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("c_includes")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    for (path, text) in files {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().expect("a parent")).expect("mkdir");
        std::fs::write(&p, text).expect("write");
    }
    dir
}

fn compile(path: &Path, top: Option<&str>) -> Result<handscope_compiler::c::IrFunction, String> {
    let text = std::fs::read_to_string(path).expect("read");
    compile_to_ir(&text, &path.display().to_string(), top).map_err(|e| e.to_string())
}

const KERNEL: &str = "#include \"defs.h\"\n#include \"defs.h\"\n#include \"once.h\"\n\
    data_t sum(data_t a[N]) {\n  data_t s = 0;\n  for (int i = 0; i < N; i++)\n    s += twice(a[i]);\n  return s + ONCE;\n}\n";
const DEFS: &str = "#ifndef DEFS_H\n#define DEFS_H\n#include \"sub/more.h\"\ntypedef int data_t;\n#define N SIZE\n\
    static data_t twice(data_t x) { return 2 * x; }\ndata_t sum(data_t a[N]);\n#endif\n";
// Included from `defs.h` as "sub/more.h": relative to `defs.h`'s directory.
const MORE: &str = "#define SIZE 4\n";
const ONCE: &str = "#pragma once\n#define ONCE 100\n";

#[test]
fn headers_next_to_the_kernel_are_read_once_per_guard() {
    let dir = tree(
        "kernel",
        &[
            ("k.c", KERNEL),
            ("defs.h", DEFS),
            ("sub/more.h", MORE),
            ("once.h", ONCE),
        ],
    );
    let f = compile(&dir.join("k.c"), Some("sum")).expect("compiles");
    let r = run(&f, &[ArgValue::Array(vec![1, 2, 3, 4])], 100_000).expect("runs");
    assert_eq!(r.ret, Some(2 * (1 + 2 + 3 + 4) + 100));
    // `#pragma once` keeps a second include out, as a guard does (a redefinition of ONCE
    // with another body would be an error otherwise).
    let twice_once = tree(
        "twice_once",
        &[
            (
                "k.c",
                "#include \"once.h\"\n#include \"once.h\"\nint f(void) { return ONCE; }\n",
            ),
            ("once.h", ONCE),
        ],
    );
    assert!(compile(&twice_once.join("k.c"), None).is_ok());
}

#[test]
fn nodes_from_a_header_are_located_in_it() {
    let dir = tree(
        "locs",
        &[
            ("k.c", KERNEL),
            ("defs.h", DEFS),
            ("sub/more.h", MORE),
            ("once.h", ONCE),
        ],
    );
    let path = dir.join("k.c");
    let text = std::fs::read_to_string(&path).expect("read");
    let name = path.display().to_string();
    let m =
        compile_to_handshake(&text, &name, Some("sum"), &HsOptions::default()).expect("compiles");
    let f = &m.functions[0];
    let files: Vec<String> = f
        .nodes
        .values()
        .filter_map(|n| n.loc.as_ref().map(|l| l.file.to_string()))
        .collect();
    let header = dir.join("defs.h").display().to_string();
    // `2 * x` of `twice`, inlined, is on line 6 of defs.h.
    assert!(
        f.nodes.values().any(|n| n
            .loc
            .as_ref()
            .is_some_and(|l| l.file.as_ref() == header && l.line == 6)),
        "no node located in {header}:6 among {files:?}"
    );
    assert!(files.contains(&name), "{files:?}");
}

#[test]
fn include_errors_name_the_file_and_line() {
    // A missing file: the include line, and where it was looked for.
    let dir = tree(
        "missing",
        &[("k.c", "#include \"nope.h\"\nint f(void) { return 0; }\n")],
    );
    let e = compile(&dir.join("k.c"), None).unwrap_err();
    assert!(
        e.contains("k.c:1:10: cannot find include file 'nope.h' (looked in"),
        "{e}"
    );
    // An error inside a header is located in the header.
    let dir = tree(
        "bad_header",
        &[
            ("k.c", "#include \"bad.h\"\nint f(void) { return X; }\n"),
            (
                "bad.h",
                "// a comment\n#define X 1\nint g(void) { return 1 +; }\n",
            ),
        ],
    );
    let e = compile(&dir.join("k.c"), None).unwrap_err();
    assert!(e.contains("bad.h:3:25: expected an expression"), "{e}");
    // A header that includes itself without a guard stops with a located error.
    let dir = tree(
        "itself",
        &[
            ("k.c", "#include \"loop.h\"\nint f(void) { return 0; }\n"),
            ("loop.h", "#include \"loop.h\"\n"),
        ],
    );
    let e = compile(&dir.join("k.c"), None).unwrap_err();
    assert!(
        e.contains("loop.h:1:10: #include nested more than 64 deep"),
        "{e}"
    );
    // Angle brackets name only the built-in headers.
    let dir = tree(
        "angle",
        &[
            ("k.c", "#include <mine.h>\nint f(void) { return 0; }\n"),
            ("mine.h", "\n"),
        ],
    );
    let e = compile(&dir.join("k.c"), None).unwrap_err();
    assert!(e.contains("unsupported include 'mine.h'"), "{e}");
}

/// Compiles `src` (no includes of files) and runs its top function `f` on `args`.
fn run_src(src: &str, args: &[ArgValue]) -> Result<Option<i64>, String> {
    let f = compile_to_ir(src, "k.c", Some("f")).map_err(|e| e.to_string())?;
    run(&f, args, 100_000)
        .map(|r| r.ret)
        .map_err(|e| e.to_string())
}

#[test]
fn variadic_macros_take_the_extra_arguments_as_va_args() {
    // Dynamatic's testbench header shape: a variadic call macro that expands to nothing in the
    // kernel, and one that forwards its arguments.
    let src = "#define CALL_KERNEL(func, ...) \n\
        #define ADD3(a, ...) add3(a, __VA_ARGS__)\n\
        #define FIRST(...) first(__VA_ARGS__)\n\
        #define OPT(a, ...) opt(a, ## __VA_ARGS__)\n\
        #define GNU(kernel, args...) kernel(args)\n\
        #define GNU_OPT(a, rest...) opt(a, ##rest)\n\
        static int add3(int a, int b, int c) { return a + b + c; }\n\
        static int first(int a, int b) { return a - b; }\n\
        static int opt(int a) { return 10 * a; }\n\
        int f(int x) {\n  CALL_KERNEL(f, x, (x, 2), 3);\n\
          return ADD3(x, (x + 1), 2) + FIRST(x, 1) + OPT(x) + GNU(add3, x, 1, 1) + GNU_OPT(x);\n}\n";
    let x = 5;
    assert_eq!(
        run_src(src, &[ArgValue::Scalar(x)]),
        Ok(Some((x + x + 1 + 2) + (x - 1) + 10 * x + (x + 2) + 10 * x))
    );
}

#[test]
fn variadic_macro_errors_are_located() {
    for (src, want) in [
        (
            "#define F(a, b, ...) a\nint f(int x) { return F(1); }\n",
            "macro 'F' expects at least 2 argument(s), got 1",
        ),
        (
            "#define F(a) __VA_ARGS__\nint f(int x) { return 0; }\n",
            "`__VA_ARGS__` is only allowed in a macro declared with `...`",
        ),
        (
            "#define F(..., a) a\nint f(int x) { return 0; }\n",
            "expected ')' after '...'",
        ),
    ] {
        let e = run_src(src, &[ArgValue::Scalar(1)]).expect_err(src);
        assert!(e.contains(want), "{src}: {e}");
        assert!(e.contains("k.c:1:") || e.contains("k.c:2:"), "{src}: {e}");
    }
}

#[test]
fn assert_h_is_built_in_and_drops_assertions() {
    // As with NDEBUG: the argument is not evaluated (a division by zero in it is harmless).
    for include in ["<assert.h>", "\"assert.h\""] {
        let src = format!(
            "#include {include}\nint f(int x) {{\n  assert(x > 0 && 1 / (x - x) == 0);\n  return x + 1;\n}}\n"
        );
        assert_eq!(
            run_src(&src, &[ArgValue::Scalar(-4)]),
            Ok(Some(-3)),
            "{include}"
        );
    }
}
