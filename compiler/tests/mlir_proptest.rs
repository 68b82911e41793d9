//! Robustness: arbitrary bytes and random mutations of valid inputs never panic the reader, and
//! whatever it accepts, the writer prints in a form the reader accepts again.

use crate::common;

use common::{data, describe_module};
use handscope_compiler::mlir::{parse_mlir, write_mlir};
use proptest::prelude::*;

const SAMPLES: &[&str] = &[
    "all_ops.mlir",
    "all_ops.circt_gloc.mlir",
    "all_ops.circt_custom.mlir",
    "loop.mlir",
];

/// Snippets that are likely to produce interesting near-valid inputs.
const SNIPPETS: &[&str] = &[
    "%",
    "%0",
    "%x#1",
    ":",
    ":2",
    ",",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "<",
    ">",
    "->",
    "=",
    "\"",
    "@f",
    "#loc3",
    "loc(",
    "i32",
    "i65",
    "none",
    "index",
    "tuple<i8>",
    "memref<4xi32>",
    "fork [2]",
    "return",
    " ",
    "\n",
    "-",
    "0x",
    "99999999999999999999999",
    "{value = 1 : i32}",
    "handshake.func",
    "^bb0:",
    "...",
    "//",
    "true",
];

#[derive(Debug, Clone)]
enum Mutation {
    Delete(usize, usize),
    Insert(usize, usize),
    Swap(usize, usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1usize..12).prop_map(|(a, n)| Mutation::Delete(a, n)),
        (any::<usize>(), 0..SNIPPETS.len()).prop_map(|(a, s)| Mutation::Insert(a, s)),
        (any::<usize>(), any::<usize>(), 1usize..16).prop_map(|(a, b, n)| Mutation::Swap(a, b, n)),
    ]
}

fn apply(src: &str, muts: &[Mutation]) -> String {
    let mut b = src.as_bytes().to_vec();
    for m in muts {
        let len = b.len().max(1);
        match *m {
            Mutation::Delete(a, n) => {
                let a = a % len;
                let e = (a + n).min(b.len());
                if a < e {
                    b.drain(a..e);
                }
            }
            Mutation::Insert(a, s) => {
                let a = a % (b.len() + 1);
                b.splice(a..a, SNIPPETS[s].bytes());
            }
            Mutation::Swap(x, y, n) => {
                let (x, y) = (x % len, y % len);
                let (x, y) = (x.min(y), x.max(y));
                if x + n <= y && y + n <= b.len() {
                    for i in 0..n {
                        b.swap(x + i, y + i);
                    }
                }
            }
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

/// Whatever parses must print, re-parse and print identically.
fn check(src: &str) {
    if let Ok((m, _)) = parse_mlir(src, "fuzz.mlir") {
        let w = write_mlir(&m);
        match parse_mlir(&w, "written.mlir") {
            Ok((m2, _)) => {
                assert_eq!(describe_module(&m, true), describe_module(&m2, true));
                assert_eq!(w, write_mlir(&m2));
            }
            Err(e) => panic!(
                "writer output rejected:\n{}\n--- input ---\n{src}\n--- written ---\n{w}",
                e.render()
            ),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        check(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn mutated_samples_never_panic(sample in 0..SAMPLES.len(), muts in proptest::collection::vec(mutation(), 1..6)) {
        let src = data(SAMPLES[sample]);
        check(&apply(&src, &muts));
    }
}

#[test]
fn unmutated_samples_pass_the_check() {
    for s in SAMPLES {
        let src = data(s);
        assert!(parse_mlir(&src, s).is_ok(), "{s}");
        check(&src);
    }
}
