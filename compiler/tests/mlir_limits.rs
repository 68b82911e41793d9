//! Size limits (issue 19): a few bytes of MLIR asking for gigabytes get a located error, where
//! the count is read when the reader can tell (`fork [1000000000]` took 129 s and 23 GB
//! before its error), otherwise from `verify` (what `handscope check` runs), so a graph that
//! verifies can be simulated; the engine refuses the others with an error instead of
//! aborting on allocation (`buffer [100000000]` passed `check` and `sim` aborted on 9.6 GB).

use handscope_compiler::mlir::{ParseError, parse_mlir};
use handscope_sim::engine::Simulation;
use handscope_sim::limits::{MAX_BUFFER_SLOTS, MAX_MEMORY_ELEMENTS};
use handscope_sim::stimulus::Environment;
use handscope_sim::verify::{Rule, verify_module};
use handscope_sim::{Module, transform};

/// A function of `body` with an `i32` argument `a`, a `none` argument `start` and the results
/// `(i32, none)`.
fn func(body: &str) -> String {
    format!(
        "handshake.func @f(%a: i32, %start: none, ...) -> (i32, none) attributes {{argNames = [\"a\", \"start\"], resNames = [\"d\", \"done\"]}} {{\n{body}}}\n"
    )
}

fn parse_err(src: &str) -> ParseError {
    match parse_mlir(src, "l.mlir") {
        Ok(_) => panic!("expected an error:\n{src}"),
        Err(e) => e,
    }
}

/// The error is at `line:col` with `needle` in its message, and renders.
fn located(src: &str, line: usize, col: usize, needle: &str) {
    let t = std::time::Instant::now();
    let e = parse_err(src);
    assert_eq!(e.line_col(), (line, col), "{e}");
    assert!(e.to_string().contains(needle), "{e}");
    assert!(e.render().contains("over the limit"), "{}", e.render());
    // Nothing was allocated for the count: the error comes at once.
    assert!(t.elapsed().as_secs() < 5, "{:?}", t.elapsed());
}

#[test]
fn counts_over_a_limit_are_rejected_where_they_are_read() {
    located(
        &func("  %b:2 = fork [1000000000] %a : i32\n  return %b#0, %start : i32, none\n"),
        2,
        16,
        "a `fork` of 1,000,000,000 outputs; the limit is 1,048,576",
    );
    located(
        &func("  %b:4000000 = lazy_fork [2] %a : i32\n  return %b#0, %start : i32, none\n"),
        2,
        6,
        "a result group of 4,000,000 results",
    );
    located(
        &func("  %b = buffer [100000000] seq %a : i32\n  return %b, %start : i32, none\n"),
        2,
        16,
        "a buffer of 100,000,000 slots; the limit is 65,536",
    );
    let mem = |memref: &str| {
        format!(
            "handshake.func @m(%x: index, %go: none, ...) -> (i32, none) {{\n  %d, %done = memory [ld = 1, st = 0] (%x) {{id = 0 : i32, lsq = false}} : {memref}, (index) -> (i32, none)\n  %j = join %done, %go : none, none\n  return %d, %j : i32, none\n}}\n"
        )
    };
    located(
        &mem("memref<1000000000xi32>"),
        2,
        81,
        "a memref of 1,000,000,000 elements; the limit is 16,777,216",
    );
    located(
        &mem("memref<4294967296x4294967296xi32>"),
        2,
        81,
        "a memref of more than 2^64 elements",
    );
    // The generic form's buffer count goes through the same check.
    let generic = "\"handshake.func\"() ({\n^bb0(%a: i32):\n  %0 = \"handshake.buffer\"(%a) {bufferType = #handshake<buffer_type_enum seq>, slots = 70000 : i32} : (i32) -> i32\n  \"handshake.return\"(%0) : (i32) -> ()\n}) {function_type = (i32) -> i32, sym_name = \"g\"} : () -> ()\n";
    let e = parse_err(generic);
    assert!(e.to_string().contains("a buffer of 70,000 slots"), "{e}");
    // At the limit is fine.
    let ok = func(&format!(
        "  %b = buffer [{MAX_BUFFER_SLOTS}] fifo %a : i32\n  return %b, %start : i32, none\n"
    ));
    let (m, _) = parse_mlir(&ok, "l.mlir").unwrap_or_else(|e| panic!("{}", e.render()));
    assert!(verify_module(&m).is_ok());
}

/// `verify` reports `rule`, and the engine refuses the function with an error.
fn refused(m: &Module, needle: &str) {
    let r = verify_module(m);
    let limits: Vec<String> = r.errors_of(Rule::Limit).map(|p| p.to_string()).collect();
    assert!(
        limits.iter().any(|p| p.contains(needle)),
        "{needle} not in {limits:?}"
    );
    let f = &m.functions[0];
    match Simulation::new(f, Environment::default()) {
        Ok(_) => panic!("the engine accepted a graph over a limit"),
        Err(e) => assert!(e.to_string().contains(needle), "{e}"),
    }
}

#[test]
fn totals_over_a_limit_fail_check_and_sim_start() {
    // Two memories, each within the limit, together over it; blamed on the larger, at its
    // line in the file.
    let half = MAX_MEMORY_ELEMENTS / 2;
    let src = format!(
        "handshake.func @m(%x: index, %y: index, %go: none, ...) -> (i32, i32, none) {{\n  %d0, %e0 = memory [ld = 1, st = 0] (%x) {{id = 0 : i32, lsq = false}} : memref<{half}xi32>, (index) -> (i32, none)\n  %d1, %e1 = memory [ld = 1, st = 0] (%y) {{id = 1 : i32, lsq = false}} : memref<{}xi32>, (index) -> (i32, none)\n  %j = join %e0, %e1, %go : none, none, none\n  return %d0, %d1, %j : i32, i32, none\n}}\n",
        half + 1
    );
    let (m, _) = parse_mlir(&src, "l.mlir").unwrap_or_else(|e| panic!("{}", e.render()));
    refused(
        &m,
        "hold 16,777,217 elements together; the limit is 16,777,216",
    );
    let p = verify_module(&m)
        .errors_of(Rule::Limit)
        .next()
        .cloned()
        .expect("limit");
    assert_eq!(p.loc().map(|l| l.line), Some(3), "{p}");
    assert!(p.to_string().starts_with("l.mlir:3:"), "{p}");

    // Seventeen buffers of 65,536 slots: each fine, together over 2^20.
    let mut body = String::from("  %c0 = buffer [65536] fifo %a : i32\n");
    for k in 1..17 {
        body.push_str(&format!(
            "  %c{k} = buffer [65536] fifo %c{} : i32\n",
            k - 1
        ));
    }
    body.push_str("  return %c16, %start : i32, none\n");
    let (m, _) = parse_mlir(&func(&body), "l.mlir").unwrap_or_else(|e| panic!("{}", e.render()));
    refused(
        &m,
        "the buffers of @f hold 1,114,112 slots together; the limit is 1,048,576",
    );

    // A tuple wider than the simulator's 16,384 bits although each field is within it.
    let src = "handshake.func @p(%a: i16384, %b: i1, ...) -> (tuple<i16384, i1>) {\n  %t = pack %a, %b : tuple<i16384, i1>\n  return %t : tuple<i16384, i1>\n}\n";
    let (m, _) = parse_mlir(src, "l.mlir").unwrap_or_else(|e| panic!("{}", e.render()));
    refused(&m, "channel `pack0.out0` is 16385 bits wide");
}

#[test]
fn instances_doubling_at_every_level_are_refused_before_flattening() {
    // @f0 instantiates @f1 twice, ..., @f39 twice: 2^40 nodes once inlined.
    let mut src = String::new();
    for k in (0..40).rev() {
        let callee = if k == 39 {
            "  %0:2 = fork [2] %x : none\n  %j = join %0#0, %0#1 : none, none\n  return %j : none\n"
                .to_string()
        } else {
            format!(
                "  %0:2 = fork [2] %x : none\n  %a = instance @f{n}(%0#0) : (none) -> (none)\n  %b = instance @f{n}(%0#1) : (none) -> (none)\n  %j = join %a, %b : none, none\n  return %j : none\n",
                n = k + 1
            )
        };
        src.push_str(&format!(
            "handshake.func @f{k}(%x: none, ...) -> (none) {{\n{callee}}}\n"
        ));
    }
    let (m, _) = parse_mlir(&src, "l.mlir").unwrap_or_else(|e| panic!("{}", e.render()));
    assert!(verify_module(&m).is_ok());
    let t = std::time::Instant::now();
    let e = transform::flatten(&m, "f0").unwrap_err();
    assert!(e.to_string().contains("the limit is 1,048,576"), "{e}");
    assert!(t.elapsed().as_secs() < 5);
}

#[test]
fn a_file_without_functions_is_an_error() {
    for (src, at) in [
        ("", (1, 1)),
        ("// only a comment\n", (1, 1)),
        ("\n\nmodule {\n}\n", (3, 1)),
    ] {
        let e = parse_err(src);
        assert_eq!(e.line_col(), at, "{e}");
        assert!(e.to_string().contains("defines no `handshake.func`"), "{e}");
        assert!(!e.render().is_empty());
    }
}
