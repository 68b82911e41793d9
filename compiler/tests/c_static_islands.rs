//! Static islands in the C flow (issue #35): `--schedule hybrid|static` and the per-loop
//! pragmas choose which regions become `island` nodes; islands round-trip through the MLIR
//! Handscope writes; a damaged island op is a located error. (That every kernel gives the
//! native answers under every schedule is `c_kernels`.)

use handscope_compiler::c::{HsOptions, Scheduling, compile_to_handshake};
use handscope_compiler::mlir::{parse_mlir, write_mlir};
use handscope_sim::spec::timing::TimingProfile;
use handscope_sim::{Function, Module, Op};

use crate::common::kernels::{all_kernel_files, kernel};

fn compile(src: &str, schedule: Scheduling) -> Result<Module, String> {
    let opts = HsOptions {
        timing: TimingProfile::fpga(),
        schedule,
        ..Default::default()
    };
    compile_to_handshake(src, "k.c", None, &opts).map_err(|e| e.to_string())
}

fn islands(f: &Function) -> Vec<&handscope_sim::island::Island> {
    f.nodes
        .values()
        .filter_map(|n| match &n.op {
            Op::Island(i) => Some(&**i),
            _ => None,
        })
        .collect()
}

/// Two innermost loops one after the other, each a static schedule fits.
fn two_loops(first: &str, second: &str) -> String {
    format!(
        "int f(int a[8], int b[8]) {{
  int s = 0, t = 0;
{first}
  for (int i = 0; i < 8; i++) s += a[i];
{second}
  for (int j = 0; j < 8; j++) t += a[j] * b[j];
  return s + t;
}}"
    )
}

#[test]
fn schedules_and_pragmas_choose_the_islands() {
    let plain = two_loops("", "");
    let count = |src: &str, s: Scheduling| islands(&compile(src, s).unwrap().functions[0]).len();
    assert_eq!(count(&plain, Scheduling::Dynamic), 0);
    assert_eq!(count(&plain, Scheduling::Hybrid), 2);
    // The whole function: one island, its two loops pipelined inside.
    let m = compile(&plain, Scheduling::Static).unwrap();
    let isl = islands(&m.functions[0]);
    assert_eq!(isl.len(), 1);
    assert_eq!(isl[0].pipelines.len(), 2);
    // A pragma before a loop makes it static under `dynamic`, or keeps it dynamic under
    // `hybrid`; it applies to the next innermost loop only.
    let marked = two_loops("", "#pragma handscope static");
    let m = compile(&marked, Scheduling::Dynamic).unwrap();
    let isl = islands(&m.functions[0]);
    assert_eq!(isl.len(), 1);
    assert_eq!(isl[0].loop_pipeline().unwrap().line, 6);
    let kept = two_loops("#pragma handscope dynamic", "");
    let m = compile(&kept, Scheduling::Hybrid).unwrap();
    let isl = islands(&m.functions[0]);
    assert_eq!(isl.len(), 1);
    assert_eq!(isl[0].loop_pipeline().unwrap().line, 6);
    // Under `static`, a loop kept dynamic by its pragma is not pipelined inside.
    let m = compile(&kept, Scheduling::Static).unwrap();
    assert_eq!(islands(&m.functions[0])[0].pipelines.len(), 1);
}

#[test]
fn a_pragma_that_cannot_be_honoured_is_an_error() {
    let breaks = "int f(int a[8]) {
  int s = 0;
#pragma handscope static
  for (int i = 0; i < 8; i++) { if (a[i] < 0) break; s += a[i]; }
  return s;
}";
    let e = compile(breaks, Scheduling::Dynamic).unwrap_err();
    assert!(
        e.contains("line 3") && e.contains("line 4") && e.contains("leaves from"),
        "{e}"
    );
    let dangling = "int f(int a[8]) {
  int s = 0;
  for (int i = 0; i < 8; i++) s += a[i];
#pragma handscope static
  return s;
}";
    let e = compile(dangling, Scheduling::Dynamic).unwrap_err();
    assert!(e.contains("followed by no innermost loop"), "{e}");
}

#[test]
fn islands_round_trip_through_mlir() {
    let mut n = 0;
    for file in all_kernel_files() {
        let k = kernel(&file);
        for schedule in [Scheduling::Hybrid, Scheduling::Static] {
            for timing in [TimingProfile::ideal(), TimingProfile::fpga()] {
                let f = k.handshake(&HsOptions {
                    timing,
                    schedule,
                    ..Default::default()
                });
                let want: Vec<_> = islands(&f).into_iter().cloned().collect();
                n += want.len();
                let m = Module { functions: vec![f] };
                let text = write_mlir(&m);
                let (back, _) = parse_mlir(&text, &file)
                    .unwrap_or_else(|e| panic!("{file} [{schedule:?}]: {e}\n{text}"));
                let got: Vec<_> = islands(&back.functions[0]).into_iter().cloned().collect();
                assert_eq!(got, want, "{file} [{schedule:?}]");
                assert_eq!(write_mlir(&back), text, "{file} [{schedule:?}]");
            }
        }
    }
    assert!(n > 100, "only {n} islands");
}

/// The text of `dot.c`'s loop island under `hybrid`, and where its op starts.
fn dot_island_text() -> (String, usize) {
    let k = kernel("dot.c");
    let f = k.handshake(&HsOptions {
        schedule: Scheduling::Hybrid,
        ..Default::default()
    });
    let text = write_mlir(&Module { functions: vec![f] });
    let at = text.find("= island ").expect("an island");
    (text, at)
}

#[test]
fn damaged_island_text_is_a_located_error() {
    let (text, _) = dot_island_text();
    let cases = [
        (
            "handshake.island.load \"a\"",
            "handshake.island.load \"zz\"",
            "not in the island's `memories`",
        ),
        ("%s7 = arith.extsi", "%x7 = arith.extsi", "named `%s<slot>`"),
        ("{cycles = [", "{cyclez = [", "cycles"),
        ("^bb0(", "^head(", "`^bb<k>`"),
        ("arith.extsi", "arith.frob", "arith.frob"),
    ];
    for (from, to, want) in cases {
        assert!(text.contains(from), "{from}");
        let bad = text.replacen(from, to, 1);
        let e = parse_mlir(&bad, "dot.mlir").unwrap_err().to_string();
        assert!(e.contains(want), "{from} -> {to}: {e}");
        assert!(e.contains("dot.mlir:"), "{e}");
    }
}

#[test]
fn every_truncation_of_an_island_is_an_error_not_a_panic() {
    let (text, at) = dot_island_text();
    let end = text[at..].find("\n    }").expect("the region's end") + at;
    for cut in (at..end).step_by(3) {
        let mut t = text[..cut].to_string();
        t.push_str("\n}\n");
        assert!(parse_mlir(&t, "cut.mlir").is_err(), "cut at {cut}");
    }
}

#[test]
fn values_wider_than_64_bits_stay_dynamic() {
    let src = "unsigned _BitInt(128) f(int n) {
  unsigned _BitInt(128) s = 1;
  for (int i = 0; i < n; i++) s = s * 3;
  return s;
}";
    // `hybrid` keeps the loop dynamic; `static` says why it cannot.
    let m = compile(src, Scheduling::Hybrid).unwrap();
    assert!(islands(&m.functions[0]).is_empty());
    let e = compile(src, Scheduling::Static).unwrap_err();
    assert!(e.contains("wider than 64 bits"), "{e}");
}
