//! Malformed inputs: each error names the right line and column, with a useful message.

use crate::common;

use common::data;
use handscope_compiler::mlir::parse_mlir;

/// Parses `src`, expects an error at the first occurrence of `needle` on 1-based `line`
/// (or at the end of that line when `needle` is empty), checks the message, returns the report.
fn expect_err(src: &str, line: usize, needle: &str, fragment: &str) -> String {
    let text = src.lines().nth(line - 1).unwrap_or("");
    let (line, col) = if needle.is_empty() {
        // The end of the file: the report points at the last character.
        let before = &src[..src.len() - 1];
        (
            before.matches('\n').count() + 1,
            before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1,
        )
    } else {
        (
            line,
            text[..text
                .find(needle)
                .unwrap_or_else(|| panic!("{needle:?} not on line {line}"))]
                .chars()
                .count()
                + 1,
        )
    };
    let e = match parse_mlir(src, "bad.mlir") {
        Ok(_) => panic!("expected an error containing {fragment:?} for:\n{src}"),
        Err(e) => e,
    };
    let r = e.render();
    assert_eq!(
        e.line_col(),
        (line, col),
        "wrong position for {fragment:?}:\n{r}"
    );
    assert!(
        e.message.contains(fragment),
        "message {:?} lacks {fragment:?}",
        e.message
    );
    assert!(
        e.to_string()
            .starts_with(&format!("bad.mlir:{line}:{col}: ")),
        "{e}"
    );
    assert!(r.contains(&format!("bad.mlir:{line}:{col}")), "{r}");
    r
}

const HEAD: &str = "handshake.func @f(%a: i32, %c: none) -> (i32, none) {\n";

fn body(lines: &str) -> String {
    format!("{HEAD}{lines}\n  return %a, %c : i32, none\n}}\n")
}

#[test]
fn truncated_file() {
    let full = data("loop.mlir");
    let cut = &full[..full.find("%limloop").unwrap()];
    let lines = cut.lines().count();
    let r = expect_err(cut, lines, "", "unexpected end of file");
    assert!(r.contains("file ends here"), "{r}");
    expect_err("handshake.func @f(%a: i32", 1, "", "unexpected end of file");
    expect_err(
        "module {\n  handshake.func @f(%a: none) -> none {\n    return %a : none\n  }\n",
        4,
        "",
        "unexpected end of file",
    );
}

#[test]
fn unknown_operation() {
    let r = expect_err(
        &body("  %0:2 = frok [2] %a : i32"),
        2,
        "frok",
        "unknown operation `frok`",
    );
    assert!(r.contains("supported:"), "{r}");
    let r = expect_err(
        &body("  %0 = addi %a, %a : i32"),
        2,
        "addi",
        "unknown operation `addi`",
    );
    assert!(r.contains("arith.addi"), "{r}");
    let r = expect_err(
        &body("  %0 = arith.constant 7"),
        2,
        "7",
        "expected a typed constant value",
    );
    assert!(r.contains("arith.constant 42 : i32"), "{r}");
    expect_err(
        &body("  %0 = arith.constant 300 : i8"),
        2,
        "300",
        "does not fit in i8",
    );
    expect_err(
        &body("  %0 = \"arith.constant\"(%a) <{value = 1 : i32}> : (i32) -> i32"),
        2,
        "%a",
        "takes no operands",
    );
    expect_err(
        &body("  %0 = \"handshake.forks\"(%a) : (i32) -> i32"),
        2,
        "\"",
        "unknown operation",
    );
}

#[test]
fn type_mismatch_between_use_and_definition() {
    let r = expect_err(
        &body("  %0:2 = fork [2] %a : i16"),
        2,
        "%a",
        "type mismatch",
    );
    assert!(r.contains("defined at line 1, column 19"), "{r}");
    expect_err(
        &body("  %0:2 = cond_br %a, %a : i32"),
        2,
        "%a",
        "used as i1",
    );
    expect_err(
        &body("  %0 = \"handshake.br\"(%c) : (i32) -> i32"),
        2,
        "%c",
        "type mismatch",
    );
    expect_err(
        &format!("{HEAD}  return %c, %a : none, i32\n}}\n"),
        2,
        "return",
        "do not match the function results",
    );
    expect_err(
        &body("  %b = br %a : tuple<tuple<i32>>"),
        2,
        "%a",
        "type mismatch",
    );
}

#[test]
fn undefined_and_duplicate_values() {
    expect_err(
        &body("  %0:2 = fork [2] %nope : i32"),
        2,
        "%nope",
        "undefined value `%nope`",
    );
    expect_err(
        &body("  %0:2 = fork [2] %a : i32\n  sink %0#2 : i32"),
        3,
        "%0#2",
        "out of range",
    );
    let r = expect_err(
        &body("  %x = br %a : i32\n  %x = br %a : i32"),
        3,
        "%x",
        "redefinition of value `%x`",
    );
    assert!(r.contains("first defined at line 2, column 3"), "{r}");
    expect_err(&body("  %a = br %c : none"), 2, "%a", "redefinition");
}

#[test]
fn wrong_result_count() {
    expect_err(
        &body("  %x, %y = fork [3] %a : i32"),
        2,
        "%x",
        "produces 3 result(s) but 2 are bound",
    );
    expect_err(
        &body("  %x:2 = merge %a, %a : i32"),
        2,
        "%x",
        "produces 1 result(s) but 2",
    );
    // Results bound to no name are valid MLIR: they are unused values.
    let (m, _) =
        parse_mlir(&body("  fork [2] %c : none"), "ok.mlir").expect("unbound results parse");
    let r = handscope_sim::verify::verify(&m.functions[0]);
    let unused = r
        .errors
        .iter()
        .chain(&r.warnings)
        .filter(|p| p.rule == handscope_sim::verify::Rule::UnusedValue)
        .count();
    assert_eq!(unused, 2, "{r:?}");
}

#[test]
fn bad_attributes() {
    expect_err(
        &body("  %k = constant %c {value = \"x\"} : i32"),
        2,
        "\"x\"",
        "`value` must be an integer",
    );
    expect_err(
        &body("  %k = constant %c {value = 300 : i8} : i8"),
        2,
        "300",
        "does not fit in i8",
    );
    expect_err(
        &body("  %k = constant %c {value = 3 : i16} : i8"),
        2,
        "3 :",
        "differs from the result type",
    );
    expect_err(
        &body("  %k = constant %c : i8"),
        2,
        "constant",
        "needs a `value` attribute",
    );
    expect_err(
        &body("  %b = buffer [2] seq %a {initValues = [1]} : i32"),
        2,
        "[1]",
        "expected 2 init values",
    );
    expect_err(
        &body("  %b = buffer [1] fifo %a {initValues = [1]} : i32"),
        2,
        "initValues",
        "only `seq` buffers",
    );
    expect_err(
        &body("  %b = buffer [0] seq %a : i32"),
        2,
        "0",
        "at least one slot",
    );
    expect_err(
        &body("  %b = br %a {handshake.name = 3} : i32"),
        2,
        "3}",
        "`handshake.name` must be",
    );
    expect_err(
        &body("  %b = br %a {x = 1, x = 2} : i32"),
        2,
        "x = 2",
        "duplicate attribute",
    );
    expect_err(
        &body("  %b = arith.cmpi foo, %a, %a : i32"),
        2,
        "foo",
        "unknown cmpi predicate",
    );
    expect_err(
        &body("  %b = \"handshake.buffer\"(%a) {slots = 1 : i32} : (i32) -> i32"),
        2,
        "\"",
        "needs a `bufferType`",
    );
}

#[test]
fn unsupported_types() {
    let r = expect_err(
        "handshake.func @f(%a: i16385) {\n  return\n}\n",
        1,
        "i16385",
        "wider than 16384 bits",
    );
    assert!(r.contains("unsupported type"), "{r}");
    expect_err(
        "handshake.func @f(%a: f16) {\n  return\n}\n",
        1,
        "f16",
        "float type `f16` is not supported (floats: f32, f64)",
    );
    expect_err(
        "handshake.func @f(%a: bf16) {\n  return\n}\n",
        1,
        "bf16",
        "float type `bf16` is not supported",
    );
    expect_err(
        &body(
            "  %m:2 = memory[ld = 1, st = 0] (%a) {id = 0 : i32, lsq = false} : memref<?xi32>, (i32) -> (i32, none)",
        ),
        2,
        "memref",
        "dynamic dimensions",
    );
}

#[test]
fn missing_return_and_misplaced_return() {
    let r = expect_err(
        "handshake.func @f(%c: none) -> none {\n  sink %c : none\n}\n",
        3,
        "}",
        "missing `return`",
    );
    assert!(r.contains("help"), "{r}");
    expect_err(
        "handshake.func @f(%c: none) -> none {\n  return %c : none\n  %x = source\n}\n",
        2,
        "return",
        "must be the last",
    );
}

#[test]
fn duplicate_stable_ids() {
    let r = expect_err(
        &body(
            "  %x = br %a {handshake.name = \"b\"} : i32\n  %y = br %x {handshake.name = \"b\"} : i32",
        ),
        3,
        "br",
        "duplicate stable ID `b`",
    );
    assert!(r.contains("line 2, column 8"), "{r}");
    expect_err(
        &body("  %x = br %a {handshake.name = \"fork0\"} : i32\n  %y:2 = fork [2] %x : i32"),
        3,
        "fork",
        "duplicate stable ID `fork0`",
    );
    let two = format!("{}{}", body(""), body(""));
    expect_err(&two, 5, "@f", "redefinition of function");
}

#[test]
fn lexical_and_location_errors() {
    expect_err(
        &body("  %b = br %a {x = \"abc} : i32"),
        2,
        "\"",
        "unterminated string",
    );
    expect_err(
        &body("  %b = br %a : i32 loc(#nowhere)"),
        2,
        "#nowhere",
        "undefined location alias `#nowhere`",
    );
    expect_err(
        &body("  %b = br %a : i32 \u{7f}"),
        2,
        "\u{7f}",
        "unexpected character",
    );
    expect_err(
        "handshake.func @f() {\n  return\n^bb1:\n  return\n}\n",
        3,
        "^bb1",
        "single block",
    );
    let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
    let e = parse_mlir(
        &body(&format!("  %b = br %a {{x = {deep}}} : i32")),
        "deep.mlir",
    )
    .unwrap_err();
    assert_eq!(e.line_col().0, 2);
    assert!(e.message.contains("nesting is too deep"), "{e}");
    expect_err(
        "func.func @f() {\n}\n",
        1,
        "func.func",
        "not a handshake function",
    );
}

#[test]
fn undefined_and_redefined_type_aliases() {
    expect_err(
        &body("  %0:2 = fork [2] %a : !word"),
        2,
        "!word",
        "undefined type alias `!word`",
    );
    let src = "!t = i32\n!t = i8\nhandshake.func @f(%c: none) -> none {\n  return %c : none\n}\n";
    let e = parse_mlir(src, "bad.mlir").unwrap_err();
    assert_eq!(e.line_col(), (2, 1), "{}", e.render());
    assert!(e.message.contains("redefinition of type alias `!t`"));
}

/// What CIRCT's verifier rejects about memories is rejected at the same place.
#[test]
fn memory_rules_of_circt() {
    const G: &str = "handshake.func @f(%go: none, ...) -> none {\n";
    let two_d = format!(
        "{G}  memory [ld = 0, st = 0] () {{id = 0 : i32, lsq = false}} : memref<4x4xi8>, () -> ()\n  return %go : none\n}}\n"
    );
    expect_err(&two_d, 2, "memref<4x4xi8>", "must have one dimension");
    let no_lsq = format!(
        "{G}  memory [ld = 0, st = 0] () {{id = 0 : i32}} : memref<4xi8>, () -> ()\n  return %go : none\n}}\n"
    );
    expect_err(&no_lsq, 2, "memory", "needs an `lsq` attribute");
    let unused =
        "handshake.func @f(%m: memref<4xi8>, %go: none, ...) -> none {\n  return %go : none\n}\n";
    expect_err(
        unused,
        1,
        "%m",
        "memref argument `m` is used by no `extmemory`",
    );
    let addr = "handshake.func @f(%d: i32, %sa: i32, %la: index, %go: none, ...) -> (i32, none, none, none) {\n  %r:3 = memory [ld = 1, st = 1] (%d, %sa, %la) {id = 0 : i32, lsq = false} : memref<8xi32>, (i32, i32, index) -> (i32, none, none)\n  return %r#0, %r#1, %r#2, %go : i32, none, none, none\n}\n";
    expect_err(addr, 2, "(i32, i32, index)", "every address needs one type");
}

/// A float where an integer is required is a located type error: arithmetic, a branch
/// condition, a mux select, a memory address (custom and generic forms).
#[test]
fn floats_where_integers_are_required() {
    let f = |sig: &str, body: &str, ret: &str| {
        format!("handshake.func @f({sig}) -> ({ret}) {{\n{body}\n}}\n")
    };
    expect_err(
        &f(
            "%a: f32, %b: f32",
            "  %0 = arith.addi %a, %b : f32\n  return %0 : f32",
            "f32",
        ),
        2,
        "f32",
        "operand 0 has type f32, expected an integer or index",
    );
    expect_err(
        &f(
            "%k: f32, %a: i32",
            "  %t, %e = cond_br %k, %a : i32\n  sink %e : i32\n  return %t : i32",
            "i32",
        ),
        2,
        "%k",
        "`%k` is used as i1 but its definition has type f32",
    );
    expect_err(
        &f(
            "%k: f32, %a: i32",
            "  %t, %e = \"handshake.cond_br\"(%k, %a) : (f32, i32) -> (i32, i32)\n  sink %e : i32\n  return %t : i32",
            "i32",
        ),
        2,
        "(f32, i32)",
        "condition has type f32, expected i1",
    );
    expect_err(
        &f(
            "%s: f32, %a: i32, %b: i32",
            "  %0 = mux %s [%a, %b] : f32, i32\n  return %0 : i32",
            "i32",
        ),
        2,
        "mux",
        "select has type f32, expected an integer or index",
    );
    expect_err(
        &f(
            "%i: f32, %c: none",
            "  %cc:2 = fork [2] %c : none\n  %d, %a = load [%i] %ld, %cc#0 : f32, f32\n  %ld, %done = memory[ld = 1, st = 0] (%a) {id = 0 : i32, lsq = false} : memref<8xf32>, (f32) -> (f32, none)\n  %j = join %done, %cc#1 : none, none\n  return %d, %j : f32, none",
            "f32, none",
        ),
        3,
        "f32, f32",
        "input `addrIn0` has type f32, expected an integer or index",
    );
    expect_err(
        &f(
            "%i: f32, %c: none",
            "  %ld, %done = memory[ld = 1, st = 0] (%i) {id = 0 : i32, lsq = false} : memref<8xf32>, (f32) -> (f32, none)\n  %j = join %done, %c : none, none\n  return %ld, %j : f32, none",
            "f32, none",
        ),
        2,
        "(f32) ->",
        "input `ldAddr0` has type f32, expected an integer or index",
    );
}

/// Issue 36: 8,000 nested `module {` overflowed the stack and aborted the process (and a WCP
/// client's `load` of such a file took `serve` down); the 129th level is a located error, in
/// the custom and in the generic form, in a thread with a small stack.
#[test]
fn modules_nested_past_the_depth_limit() {
    // On a thread with Rust's default 2 MiB stack, the one a WCP `load` runs on (the main
    // thread has 8 MiB).
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let src = format!("{}{}", "module {\n".repeat(8000), "}\n".repeat(8000));
            let e = parse_mlir(&src, "deep.mlir").unwrap_err();
            assert_eq!(e.line_col(), (129, 8), "{e}");
            assert!(e.to_string().starts_with("deep.mlir:129:8: "), "{e}");
            assert!(
                e.message
                    .contains("nesting is too deep (more than 128 levels)"),
                "{e}"
            );
            let generic = "\"builtin.module\"() ({\n".repeat(8000);
            let e = parse_mlir(&generic, "deep.mlir").unwrap_err();
            assert_eq!(e.line_col(), (129, 21), "{e}");
            assert!(e.message.contains("nesting is too deep"), "{e}");
            // 128 levels are read.
            let fine = format!(
                "{}{}{}",
                "module {\n".repeat(127),
                body("  %b = br %a : i32"),
                "}\n".repeat(127)
            );
            parse_mlir(&fine, "ok.mlir").expect("128 levels parse");
        })
        .expect("thread")
        .join()
        .expect("no panic");
}

/// Issue 36: a 200 MB MLIR file took 6.8 GB while read. Operations and attribute list items
/// are counted as they are read, and one past the limit is a located error.
#[test]
fn operation_and_attribute_item_counts_are_bounded() {
    let ops = 1_048_576;
    let src = format!(
        "{HEAD}{}  sink %a : i32\n  return %a, %c : i32, none\n}}\n",
        "  sink %a : i32\n".repeat(ops)
    );
    let e = parse_mlir(&src, "big.mlir").unwrap_err();
    assert_eq!(e.line_col(), (ops + 2, 3), "{e}");
    assert!(
        e.message
            .contains("the file holds more than 1,048,576 operations (the limit)"),
        "{e}"
    );
    let items = 1 << 22;
    let src = body(&format!(
        "  %b = br %a {{x = [{}0]}} : i32",
        "0, ".repeat(items)
    ));
    let e = parse_mlir(&src, "big.mlir").unwrap_err();
    let col = "  %b = br %a {x = [".len() + 3 * items + 1;
    assert_eq!(e.line_col(), (2, col), "{e}");
    assert!(
        e.message
            .contains("attribute lists hold more than 4,194,304 items (the limit)"),
        "{e}"
    );
}
