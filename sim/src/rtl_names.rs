//! Reversible mapping from stable IDs (any string) to SystemVerilog identifiers, shared by
//! the SystemVerilog back end (which names instances, nets and ports with it) and the VCD
//! replay (which looks those names up again).
//!
//! # Scheme
//! Encoding works character by character on the ID:
//!
//! | source | encoded |
//! |---|---|
//! | ASCII letter or digit | itself |
//! | `_` followed by an ASCII letter or digit | `_` |
//! | `_` anywhere else (before a non-alphanumeric character or at the end) | `__U` |
//! | `/` (hierarchy separator of flattened IDs) | `__S` |
//! | `.` | `__D` |
//! | any other character | `__X` + two lowercase hex digits per UTF-8 byte |
//!
//! A leading digit is written as `__X3<d>`, and an ID that is a SystemVerilog keyword gets
//! its first character hex-escaped too, so the result is always a legal simple identifier.
//! The empty ID is `__E`. Every escape starts with `__` and has a fixed length, while a
//! literal single `_` is always followed by a letter or digit, so decoding is unambiguous:
//! `scale_add0/muli0` -> `scale_add0__Smuli0`, `a__b` -> `a__U_b`.

/// SystemVerilog keywords that an encoded ID must not be: every reserved word of IEEE
/// 1800-2017 (Annex B), so a port named `tagged` or `bins` stays legal.
const KEYWORDS: &[&str] = &[
    "accept_on",
    "alias",
    "always",
    "always_comb",
    "always_ff",
    "always_latch",
    "and",
    "assert",
    "assign",
    "assume",
    "automatic",
    "before",
    "begin",
    "bind",
    "bins",
    "binsof",
    "bit",
    "break",
    "buf",
    "bufif0",
    "bufif1",
    "byte",
    "case",
    "casex",
    "casez",
    "cell",
    "chandle",
    "checker",
    "class",
    "clocking",
    "cmos",
    "config",
    "const",
    "constraint",
    "context",
    "continue",
    "cover",
    "covergroup",
    "coverpoint",
    "cross",
    "deassign",
    "default",
    "defparam",
    "design",
    "disable",
    "dist",
    "do",
    "edge",
    "else",
    "end",
    "endcase",
    "endchecker",
    "endclass",
    "endclocking",
    "endconfig",
    "endfunction",
    "endgenerate",
    "endgroup",
    "endinterface",
    "endmodule",
    "endpackage",
    "endprimitive",
    "endprogram",
    "endproperty",
    "endsequence",
    "endspecify",
    "endtable",
    "endtask",
    "enum",
    "event",
    "eventually",
    "expect",
    "export",
    "extends",
    "extern",
    "final",
    "first_match",
    "for",
    "force",
    "foreach",
    "forever",
    "fork",
    "forkjoin",
    "function",
    "generate",
    "genvar",
    "global",
    "highz0",
    "highz1",
    "if",
    "iff",
    "ifnone",
    "ignore_bins",
    "illegal_bins",
    "implements",
    "implies",
    "import",
    "incdir",
    "include",
    "initial",
    "inout",
    "input",
    "inside",
    "instance",
    "int",
    "integer",
    "interconnect",
    "interface",
    "intersect",
    "join",
    "join_any",
    "join_none",
    "large",
    "let",
    "liblist",
    "library",
    "local",
    "localparam",
    "logic",
    "longint",
    "macromodule",
    "matches",
    "medium",
    "modport",
    "module",
    "nand",
    "negedge",
    "nettype",
    "new",
    "nexttime",
    "nmos",
    "nor",
    "noshowcancelled",
    "not",
    "notif0",
    "notif1",
    "null",
    "or",
    "output",
    "package",
    "packed",
    "parameter",
    "pmos",
    "posedge",
    "primitive",
    "priority",
    "program",
    "property",
    "protected",
    "pull0",
    "pull1",
    "pulldown",
    "pullup",
    "pulsestyle_ondetect",
    "pulsestyle_onevent",
    "pure",
    "rand",
    "randc",
    "randcase",
    "randsequence",
    "rcmos",
    "real",
    "realtime",
    "ref",
    "reg",
    "reject_on",
    "release",
    "repeat",
    "restrict",
    "return",
    "rnmos",
    "rpmos",
    "rtran",
    "rtranif0",
    "rtranif1",
    "s_always",
    "s_eventually",
    "s_nexttime",
    "s_until",
    "s_until_with",
    "scalared",
    "sequence",
    "shortint",
    "shortreal",
    "showcancelled",
    "signed",
    "small",
    "soft",
    "solve",
    "specify",
    "specparam",
    "static",
    "string",
    "strong",
    "strong0",
    "strong1",
    "struct",
    "super",
    "supply0",
    "supply1",
    "sync_accept_on",
    "sync_reject_on",
    "table",
    "tagged",
    "task",
    "this",
    "throughout",
    "time",
    "timeprecision",
    "timeunit",
    "tran",
    "tranif0",
    "tranif1",
    "tri",
    "tri0",
    "tri1",
    "triand",
    "trior",
    "trireg",
    "type",
    "typedef",
    "union",
    "unique",
    "unique0",
    "unsigned",
    "until",
    "until_with",
    "untyped",
    "use",
    "uwire",
    "var",
    "vectored",
    "virtual",
    "void",
    "wait",
    "wait_order",
    "wand",
    "weak",
    "weak0",
    "weak1",
    "while",
    "wildcard",
    "wire",
    "with",
    "within",
    "wor",
    "xnor",
    "xor",
];

fn push_hex(out: &mut String, c: char) {
    let mut buf = [0u8; 4];
    for b in c.encode_utf8(&mut buf).bytes() {
        out.push_str(&format!("__X{b:02x}"));
    }
}

/// Encodes a stable ID (or argument name) as a SystemVerilog identifier (see the module docs).
pub fn encode_instance_name(id: &str) -> String {
    let chars: Vec<char> = id.chars().collect();
    let escape_first = chars.first().is_some_and(|c| c.is_ascii_digit()) || KEYWORDS.contains(&id);
    let mut out = String::with_capacity(id.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if i == 0 && escape_first {
            push_hex(&mut out, c);
            continue;
        }
        match c {
            c if c.is_ascii_alphanumeric() => out.push(c),
            '_' if chars.get(i + 1).is_some_and(|n| n.is_ascii_alphanumeric()) => out.push('_'),
            '_' => out.push_str("__U"),
            '/' => out.push_str("__S"),
            '.' => out.push_str("__D"),
            c => push_hex(&mut out, c),
        }
    }
    if out.is_empty() {
        out.push_str("__E");
    }
    out
}

/// Decodes an identifier made by [`encode_instance_name`]; `None` if it is not a valid encoding.
pub fn decode_instance_name(name: &str) -> Option<String> {
    let b = name.as_bytes();
    if b == b"__E" {
        return Some(String::new());
    }
    let mut bytes = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_alphanumeric() {
            bytes.push(c);
            i += 1;
        } else if c == b'_' && b.get(i + 1) == Some(&b'_') {
            match b.get(i + 2)? {
                b'U' => bytes.push(b'_'),
                b'S' => bytes.push(b'/'),
                b'D' => bytes.push(b'.'),
                b'X' => {
                    let hex = std::str::from_utf8(b.get(i + 3..i + 5)?).ok()?;
                    bytes.push(u8::from_str_radix(hex, 16).ok()?);
                    i += 2;
                }
                _ => return None,
            }
            i += 3;
        } else if c == b'_' && b.get(i + 1).is_some_and(|n| n.is_ascii_alphanumeric()) {
            bytes.push(b'_');
            i += 1;
        } else {
            return None;
        }
    }
    let s = String::from_utf8(bytes).ok()?;
    (encode_instance_name(&s) == name).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn examples() {
        assert_eq!(encode_instance_name("fork0"), "fork0");
        assert_eq!(encode_instance_name("cond_br3"), "cond_br3");
        assert_eq!(
            encode_instance_name("scale_add0/muli0"),
            "scale_add0__Smuli0"
        );
        assert_eq!(encode_instance_name("a__b"), "a__U_b");
        assert_eq!(encode_instance_name("x_"), "x__U");
        assert_eq!(encode_instance_name("fork"), "__X66ork");
        // Reserved words of SystemVerilog that are not Verilog keywords too.
        assert_eq!(encode_instance_name("tagged"), "__X74agged");
        assert_eq!(encode_instance_name("bins"), "__X62ins");
        assert!(
            KEYWORDS.windows(2).all(|w| w[0] < w[1]),
            "sorted, no duplicates"
        );
        assert_eq!(encode_instance_name("0a"), "__X30a");
        assert_eq!(encode_instance_name("a.b-c"), "a__Db__X2dc");
        assert_eq!(encode_instance_name(""), "__E");
        for s in ["fork0", "a__b", "x_", "fork", "0a", "a.b-c", "", "é/_."] {
            assert_eq!(
                decode_instance_name(&encode_instance_name(s)).as_deref(),
                Some(s)
            );
        }
        assert_eq!(decode_instance_name("a__Q"), None);
        assert_eq!(decode_instance_name("a-b"), None);
    }

    proptest! {
        #[test]
        fn round_trip(s in "[a-z_/.0-9A-Z\\-é ]{0,12}") {
            let e = encode_instance_name(&s);
            prop_assert!(e.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
            prop_assert!(!e.starts_with(|c: char| c.is_ascii_digit()));
            prop_assert_eq!(decode_instance_name(&e), Some(s));
        }
    }
}
