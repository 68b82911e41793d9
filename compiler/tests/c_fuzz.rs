//! Property tests: the C front end and middle end never panic, whatever the input.

use handscope_compiler::c::ir::IrParam;
use handscope_compiler::c::{ArgValue, compile_to_ir, run};
use proptest::prelude::*;

const KERNELS: &[&str] = &[
    include_str!("../../examples/kernels/insertion_sort.c"),
    include_str!("data/c/switch_fall.c"),
    include_str!("data/c/short_circuit.c"),
    include_str!("../../examples/kernels/helper_call.c"),
    include_str!("data/c/multidim_init.c"),
    include_str!("data/c/macros.c"),
    include_str!("data/c/float_corners.c"),
    include_str!("../../examples/kernels/quantize_f32.c"),
    include_str!("../../examples/kernels/covariance_f64.c"),
    include_str!("data/c/pointers.c"),
    include_str!("data/c/structs.c"),
    include_str!("data/c/globals.c"),
    include_str!("data/c/old_style.c"),
    include_str!("../../examples/kernels/polar_f64.c"),
];

/// Compiles and, on success, runs with zero arguments and a small step limit.
fn exercise(src: &str) {
    let r = compile_to_ir(src, "fuzz.c", None);
    if let Err(e) = &r {
        // Every rejection is located inside the file: a 1-based line that exists (or the
        // line after the last, for an unexpected end of file), a 1-based column, and a span
        // within the text.
        let lines = src.split('\n').count() as u32;
        assert!(
            e.line >= 1 && e.line <= lines + 1 && e.col >= 1,
            "bad location {}:{} for {e} in {src:?}",
            e.line,
            e.col
        );
        assert!(
            e.span.offset() + e.span.len() <= src.len(),
            "span out of the text: {e}"
        );
        assert_eq!(e.file, "fuzz.c");
    }
    if let Ok(f) = r {
        let _ = f.to_string();
        let args: Vec<ArgValue> = f
            .params
            .iter()
            .map(|p| match p {
                IrParam::Scalar { .. } => ArgValue::Scalar(3),
                IrParam::Array { mem, .. } => {
                    ArgValue::Array(vec![1; f.memories[mem.0 as usize].len as usize])
                }
            })
            .collect();
        let _ = run(&f, &args, 20_000);
    }
}

#[derive(Debug, Clone)]
enum Edit {
    Delete(usize, usize),
    Insert(usize, String),
    Duplicate(usize, usize, usize),
}

fn apply(src: &str, edits: &[Edit]) -> String {
    let mut b: Vec<u8> = src.as_bytes().to_vec();
    for e in edits {
        let n = b.len().max(1);
        match e {
            Edit::Delete(at, len) => {
                let s = at % n;
                let e = (s + len % 16).min(b.len());
                b.drain(s.min(b.len())..e);
            }
            Edit::Insert(at, text) => {
                let s = (at % n).min(b.len());
                b.splice(s..s, text.bytes());
            }
            Edit::Duplicate(at, len, to) => {
                let s = (at % n).min(b.len());
                let e = (s + len % 40).min(b.len());
                let chunk: Vec<u8> = b[s..e].to_vec();
                let t = (to % n).min(b.len());
                b.splice(t..t, chunk);
            }
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), any::<usize>()).prop_map(|(a, l)| Edit::Delete(a, l)),
        (
            any::<usize>(),
            prop::sample::select(vec![
                "(",
                ")",
                "{",
                "}",
                ";",
                "[",
                "]",
                "*",
                "/*",
                "\"",
                "'",
                "#define X",
                "\n#",
                "0x",
                "1.0",
                "&&",
                "?",
                ":",
                "=",
                "++",
                "return",
                "break;",
                "case 1:",
                "int",
                "~",
                "-",
                "<<",
                "9999999999999999999999",
                "f(",
                ",",
                "\\\n",
                "for(;;)",
                "while(1)",
                "float",
                "double",
                "1.5f",
                "0x1p3",
                "1e999",
                "%",
                "sqrtf(",
                "fmax(",
                "#include <math.h>\n",
                "(double)",
            ])
            .prop_map(str::to_string)
        )
            .prop_map(|(a, t)| Edit::Insert(a, t)),
        (any::<usize>(), any::<usize>(), any::<usize>())
            .prop_map(|(a, l, t)| Edit::Duplicate(a, l, t)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        exercise(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn arbitrary_c_like_text_never_panics(s in "[a-z0-9_ (){}\\[\\];,=+*/%<>!&|^~?:#'\"\n-]{0,300}") {
        exercise(&s);
    }

    #[test]
    fn mutated_kernels_never_panic(k in 0..KERNELS.len(), edits in prop::collection::vec(edit(), 1..5)) {
        exercise(&apply(KERNELS[k], &edits));
    }
}

#[test]
fn deep_nesting_is_rejected_not_overflowing() {
    let src = format!(
        "int f(int a) {{ return {}a{}; }}",
        "(".repeat(5000),
        ")".repeat(5000)
    );
    let e = compile_to_ir(&src, "deep.c", None).unwrap_err();
    assert!(e.message.contains("nesting too deep"), "{e}");
    let src = format!("int f(int a) {{ return {}a; }}", "-".repeat(5000));
    assert!(compile_to_ir(&src, "deep.c", None).is_err());
}

#[test]
fn macro_bomb_is_rejected() {
    let mut src = String::from("#define A0 1+1\n");
    for i in 1..40 {
        src.push_str(&format!("#define A{i} A{p} + A{p}\n", p = i - 1));
    }
    src.push_str("int f(void) { return A39; }\n");
    let e = compile_to_ir(&src, "bomb.c", None).unwrap_err();
    assert!(e.message.contains("too many tokens"), "{e}");
}

/// Issue 36: `M(M(...(a)...))` nested 10,000 deep copied each level's argument, so memory
/// grew quadratically to the machine's limit. Copies count against the token limit, and
/// invocations nested in arguments stop at 256 levels; both are located errors.
#[test]
fn macro_arguments_nested_deep_are_bounded() {
    let nested = |n: usize| {
        format!(
            "#define M(x) x\nint f(int a) {{ return {}a{}; }}\n",
            "M(".repeat(n),
            ")".repeat(n)
        )
    };
    let e = compile_to_ir(&nested(10_000), "deep.c", None).unwrap_err();
    assert!(e.message.contains("too many tokens"), "{e}");
    assert_eq!(e.line, 2, "{e}");
    let e = compile_to_ir(&nested(300), "deep.c", None).unwrap_err();
    assert!(
        e.message
            .contains("macro invocations nested more than 256 deep in arguments"),
        "{e}"
    );
    // The 257th `M(` on line 2, after `int f(int a) { return `.
    assert_eq!((e.line, e.col), (2, 23 + 2 * 256), "{e}");
    compile_to_ir(&nested(256), "ok.c", None).expect("256 levels expand");
}
