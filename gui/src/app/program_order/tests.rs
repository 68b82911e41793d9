use super::*;
use crate::app::circuit::{Circuit, Origin};
use handscope_sim::spec::timing::TimingProfile;

/// Compiles the C kernel `src` (also used by the layout tests).
pub(crate) fn compile(src: &str) -> Circuit {
    Circuit::from_text(
        Origin::File("k.c".into()),
        "k.c",
        src.to_string(),
        &Default::default(),
        None,
        &TimingProfile::ideal(),
    )
    .unwrap()
}

/// Three loops in series (also used by the layout tests).
pub(crate) const THREE_LOOPS: &str = "unsigned k(unsigned v) {\n\
    for (int i = 0; i < 3; i++) v = v ^ 1;\n\
    for (int i = 0; i < 3; i++) v = v ^ 2;\n\
    for (int i = 0; i < 3; i++) v = v ^ 3;\n\
    return v; }\n";

/// A loop nested in another (also used by the layout tests).
pub(crate) const NESTED_LOOPS: &str = "int k(int n) { int s = 0;\n\
    for (int i = 0; i < n; i++)\n\
      for (int j = 0; j < n; j++) s = s + i * j;\n\
    return s; }\n";

#[test]
fn block_numbers_compare_as_numbers() {
    let mut v = vec!["bb10", "x", "bb2", "bb1", "entry", "bb02"];
    v.sort_by(|a, b| block_cmp(a, b));
    assert_eq!(v, ["bb1", "bb02", "bb2", "bb10", "entry", "x"]);
    // Stream operators' groups follow their source lines.
    let mut v = vec!["reduce1 (line 20)", "split0 (line 3)", "map0 (line 12)"];
    v.sort_by(|a, b| block_cmp(a, b));
    assert_eq!(
        v,
        ["split0 (line 3)", "map0 (line 12)", "reduce1 (line 20)"]
    );
}

#[test]
fn three_loops_in_series_are_three_sibling_loops() {
    let c = compile(THREE_LOOPS);
    let b = blocks(&c.func);
    assert!(b.windows(2).all(|w| block_cmp(w[0], w[1]).is_lt()), "{b:?}");
    let l = loops(&c.func, &b);
    assert_eq!(l.len(), 3, "{l:?} over {b:?}");
    assert!(l.iter().all(|x| x.inner.is_empty() && x.first <= x.last));
    assert!(l.windows(2).all(|w| w[0].last < w[1].first), "{l:?}");
}

#[test]
fn a_nested_loop_sits_inside_its_outer_loop() {
    let c = compile(NESTED_LOOPS);
    let b = blocks(&c.func);
    let l = loops(&c.func, &b);
    assert_eq!(l.len(), 1, "{l:?} over {b:?}");
    assert_eq!(l[0].inner.len(), 1, "{l:?}");
    let (o, i) = (&l[0], &l[0].inner[0]);
    assert!(o.first < i.first && i.last <= o.last, "{l:?}");
    assert!(
        o.first < o.last,
        "the outer loop spans several blocks: {l:?}"
    );
}

#[test]
fn straight_line_code_has_no_loops() {
    let c = compile("int k(int a, int b) { if (a < b) a = b; return a + 1; }\n");
    let b = blocks(&c.func);
    assert!(b.len() > 1, "{b:?}");
    assert_eq!(loops(&c.func, &b), Vec::<Loop>::new());
}
