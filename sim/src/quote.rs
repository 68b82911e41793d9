//! Input text quoted in messages: escaped and cut short.
//!
//! An error message that quotes what the user gave must not hand the terminal its escape
//! sequences (a file can hold `ESC [ 2 J`), nor print a 50 MB token or a whole file (`--in
//! a=@/proc/self/environ` printed the environment). [`escape_controls`] writes every control
//! character except the line break as an escape (`\x1b`, `\r`, `\u{9b}`); [`excerpt`] also
//! cuts the text to [`EXCERPT_CHARS`] characters, saying how much was left out.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Characters of input quoted in a message, at most (a cut text shows its first
/// `EXCERPT_CHARS - 20` and last 20 characters).
pub const EXCERPT_CHARS: usize = 80;

/// Characters kept from the end of a cut text.
const TAIL: usize = 20;

/// Whether `c` is shown escaped: a control character other than the line break and tab.
fn needs_escape(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\r' => out.push_str("\\r"),
        '\0' => out.push_str("\\0"),
        c if (c as u32) < 0x80 => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// `text` with every control character but the line break and tab escaped (`\x1b`, `\r`,
/// `\0`, `\u{9b}`); borrowed when there is none.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if needs_escape(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `text` as quoted in a message: control characters escaped (the line break too, as `\n`:
/// a quote is one line), and when it is longer than [`EXCERPT_CHARS`] characters its start
/// and end around `… (N characters left out) …`.
pub fn excerpt(text: &str) -> String {
    let escape = |s: &str, out: &mut String| {
        for c in s.chars() {
            if c == '\n' {
                out.push_str("\\n");
            } else if needs_escape(c) {
                push_escaped(out, c);
            } else {
                out.push(c);
            }
        }
    };
    let mut out = String::new();
    let count = text.chars().take(EXCERPT_CHARS + 1).count();
    if count <= EXCERPT_CHARS {
        escape(text, &mut out);
        return out;
    }
    let head_end = text
        .char_indices()
        .nth(EXCERPT_CHARS - TAIL)
        .map_or(text.len(), |(i, _)| i);
    let tail_start = text
        .char_indices()
        .rev()
        .nth(TAIL - 1)
        .map_or(0, |(i, _)| i)
        .max(head_end);
    let left_out = text[head_end..tail_start].chars().count();
    escape(&text[..head_end], &mut out);
    let _ = write!(
        out,
        "… ({} characters left out) …",
        crate::limits::thousands(left_out as u64)
    );
    escape(&text[tail_start..], &mut out);
    out
}

/// Longest line of a message printed whole, in characters; see [`message`].
pub const MAX_MESSAGE_LINE_CHARS: usize = 1000;

/// A message (an error, a warning) as printed for the terminal: control characters but line
/// breaks and tabs escaped, and every line longer than [`MAX_MESSAGE_LINE_CHARS`] cut to its
/// start and end (whatever quoted input a message holds, it stays a few lines long).
pub fn message(text: &str) -> Cow<'_, str> {
    let long = |l: &str| l.chars().nth(MAX_MESSAGE_LINE_CHARS).is_some();
    if !text.lines().any(long) {
        return escape_controls(text);
    }
    let mut out = String::with_capacity(MAX_MESSAGE_LINE_CHARS);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if !long(line) {
            out.push_str(&escape_controls(line));
            continue;
        }
        let head_end = line
            .char_indices()
            .nth(MAX_MESSAGE_LINE_CHARS - 200)
            .map_or(line.len(), |(i, _)| i);
        let tail_start = line
            .char_indices()
            .rev()
            .nth(99)
            .map_or(0, |(i, _)| i)
            .max(head_end);
        let left_out = line[head_end..tail_start].chars().count();
        out.push_str(&escape_controls(&line[..head_end]));
        let _ = write!(
            out,
            "… ({} characters left out) …",
            crate::limits::thousands(left_out as u64)
        );
        out.push_str(&escape_controls(&line[tail_start..]));
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped() {
        assert!(matches!(escape_controls("plain\ttext\n"), Cow::Borrowed(_)));
        assert_eq!(
            escape_controls("a\x1b[2Jb\r\0\u{9b}c\x7f\n"),
            "a\\x1b[2Jb\\r\\0\\u{9b}c\\x7f\n"
        );
        assert_eq!(excerpt("x\ny\x1b"), "x\\ny\\x1b");
    }

    #[test]
    fn long_text_is_cut_to_its_ends() {
        assert_eq!(
            excerpt(&"a".repeat(EXCERPT_CHARS)),
            "a".repeat(EXCERPT_CHARS)
        );
        let long = format!(
            "{}{}{}",
            "s".repeat(100),
            "m".repeat(50_000_000),
            "e".repeat(30)
        );
        let e = excerpt(&long);
        assert!(e.starts_with(&"s".repeat(EXCERPT_CHARS - TAIL)), "{e}");
        assert!(e.ends_with(&"e".repeat(TAIL)), "{e}");
        assert!(e.contains("… (50,000,050 characters left out) …"), "{e}");
        assert!(e.len() < 200);
        // Multi-byte characters are cut at character boundaries.
        let e = excerpt(&"é".repeat(1000));
        assert!(e.contains("(920 characters left out)"), "{e}");
    }

    #[test]
    fn messages_keep_short_lines_and_cut_long_ones() {
        assert!(matches!(message("a\nb"), Cow::Borrowed("a\nb")));
        let m = message("error: x\x1b");
        assert_eq!(m, "error: x\\x1b");
        let long = format!(
            "error: value `{}` is bad\nnext line",
            "9".repeat(10_000_000)
        );
        let m = message(&long);
        assert!(m.len() < 1200, "{} bytes", m.len());
        assert!(m.starts_with("error: value `999"), "{m}");
        assert!(m.contains("(9,999,122 characters left out)"), "{m}");
        assert!(m.ends_with("999` is bad\nnext line"), "{m}");
    }
}
