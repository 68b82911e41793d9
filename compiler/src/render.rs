//! Rendering diagnostics for people: miette's graphical report (source excerpt, caret, help)
//! when the excerpt is of a readable size, otherwise a plain report that shows a window of
//! the offending line around the error.
//!
//! The fallback exists because a graphical report prints whole lines and pads to the error's
//! column: on a generated file with a line of a million characters it would print the whole
//! line, and miette's padding panics past column 65,535 (Rust's formatting widths are 16-bit).
//! A diagnostic must never take the process down, so every front end renders through
//! [`render_diagnostic`].
//!
//! Nor may it hand the terminal the input's escape sequences: control characters (other than
//! line breaks and tabs) in the message or the excerpt are printed escaped (`\x1b`, see
//! [`handscope_sim::quote`]); an excerpt holding one gets the plain report, whose window is
//! escaped before the caret is placed, so the caret still points at the error.

use handscope_sim::quote::escape_controls;
use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme, SourceSpan};

/// Longest line (in bytes) of a graphical excerpt; a label on or next to a longer line gets
/// the plain report.
pub const MAX_EXCERPT_LINE: usize = 1000;

/// Characters of the offending line shown on each side of the error in a plain report.
const WINDOW: usize = 60;

/// Renders `d` without colours: miette's graphical report (wrapped at `width` columns when
/// given) when every line it would show is at most [`MAX_EXCERPT_LINE`] bytes long, the plain
/// report of [`render_plain`] otherwise.
pub fn render_diagnostic(d: &dyn Diagnostic, width: Option<usize>) -> String {
    if !excerpt_is_small(d) {
        return render_plain(d);
    }
    let mut handler = GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor());
    if let Some(w) = width {
        handler = handler.with_width(w);
    }
    let mut out = String::new();
    if handler.render_report(&mut out, d).is_err() {
        return render_plain(d);
    }
    // Line ends of a CRLF file are no control characters to show.
    escape_controls(&out.replace("\r\n", "\n")).into_owned()
}

/// Whether `c` would reach the terminal as a control character (see the module
/// documentation).
fn is_unsafe_control(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

/// True when every line a graphical report of `d` would print (the labelled lines and one
/// line of context on each side) is short.
fn excerpt_is_small(d: &dyn Diagnostic) -> bool {
    let (Some(src), Some(labels)) = (d.source_code(), d.labels()) else {
        return true;
    };
    for l in labels {
        let Ok(contents) = src.read_span(l.inner(), 1, 1) else {
            return false;
        };
        if contents
            .data()
            .split(|&b| b == b'\n')
            .any(|line| line.len() > MAX_EXCERPT_LINE)
        {
            return false;
        }
        // The graphical report prints the lines as they are: escaping them afterwards
        // would move the caret off the error.
        if String::from_utf8_lossy(contents.data())
            .chars()
            .any(|c| is_unsafe_control(c) && c != '\r')
        {
            return false;
        }
    }
    true
}

/// A plain report: the diagnostic's own message (which names file:line:col), then for each
/// label a window of at most `2 * 60` characters of its line with a caret under the labelled
/// column, then the help text.
pub fn render_plain(d: &dyn Diagnostic) -> String {
    let mut out = format!("{}\n", escape_controls(&d.to_string()));
    if let (Some(src), Some(labels)) = (d.source_code(), d.labels()) {
        for l in labels {
            if let Some(w) = window(src, l.inner()) {
                out.push_str(&w);
            }
            if let Some(label) = l.label() {
                out.push_str(&format!("  = {}\n", escape_controls(label)));
            }
        }
    }
    if let Some(help) = d.help() {
        out.push_str(&format!("  help: {}\n", escape_controls(&help.to_string())));
    }
    out
}

/// The excerpt of the line holding `span`'s start: up to [`WINDOW`] characters on each side,
/// with `…` where the line was cut, and a caret line.
fn window(src: &dyn miette::SourceCode, span: &SourceSpan) -> Option<String> {
    // One line of context on each side makes the contents start and end at line boundaries.
    let contents = src.read_span(span, 1, 1).ok()?;
    let data = contents.data();
    let rel = span
        .offset()
        .checked_sub(contents.span().offset())?
        .min(data.len());
    let line_start = data[..rel]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let line_end = data[rel..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(data.len(), |p| rel + p);
    let line_no = contents.line() + 1 + data[..line_start].iter().filter(|&&b| b == b'\n').count();
    let before = String::from_utf8_lossy(&data[line_start..rel]);
    let after = String::from_utf8_lossy(&data[rel..line_end]);
    let before: Vec<char> = before.chars().collect();
    let after: Vec<char> = after.trim_end_matches('\r').chars().collect();
    let skip = before.len().saturating_sub(WINDOW);
    let keep_after = after.len().min(WINDOW);
    let mut shown = String::new();
    if skip > 0 {
        shown.push('…');
    }
    let escaped = |cs: &[char]| escape_controls(&cs.iter().collect::<String>()).into_owned();
    let shown_before = escaped(&before[skip..]);
    shown.push_str(&shown_before);
    shown.push_str(&escaped(&after[..keep_after]));
    if keep_after < after.len() {
        shown.push('…');
    }
    let caret = usize::from(skip > 0) + shown_before.chars().count();
    let col = before.len() + 1;
    let total = before.len() + after.len();
    Some(format!(
        "  line {line_no}, column {col} of {total}:\n  | {shown}\n  | {}^\n",
        " ".repeat(caret)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use miette::NamedSource;

    #[derive(Debug, thiserror::Error, Diagnostic)]
    #[error("x.c:1:{col}: bad thing")]
    struct E {
        col: usize,
        #[source_code]
        src: NamedSource<String>,
        #[label("here")]
        span: SourceSpan,
        #[help]
        help: Option<String>,
    }

    fn err(src: String, at: usize) -> E {
        E {
            col: at + 1,
            src: NamedSource::new("x.c", src),
            span: SourceSpan::new(at.into(), 1),
            help: Some("fix it".into()),
        }
    }

    #[test]
    fn short_lines_get_the_graphical_report() {
        let r = render_diagnostic(&err("int x = y;\n".into(), 8), None);
        assert!(r.contains("int x = y;"), "{r}");
        assert!(r.contains("here"), "{r}");
        assert!(r.contains("fix it"), "{r}");
    }

    #[test]
    fn errors_past_column_65535_get_a_window_of_their_line() {
        let mut line = "a+".repeat(50_000);
        line.push_str("@@");
        line.push_str(&"+b".repeat(100));
        let at = 100_000;
        let r = render_diagnostic(&err(format!("{line}\nnext\n"), at), Some(100));
        assert!(r.starts_with("x.c:1:100001: bad thing\n"), "{r}");
        assert!(r.contains("line 1, column 100001 of 100202"), "{r}");
        let shown = r.lines().nth(2).expect("excerpt");
        assert!(
            shown.starts_with("  | …a+a+") && shown.ends_with("+b…"),
            "{r}"
        );
        let caret = r.lines().nth(3).expect("caret");
        let col = caret.find('^').expect("caret");
        assert_eq!(
            &shown[shown.char_indices().nth(col).unwrap().0..][..2],
            "@@"
        );
        assert!(r.contains("help: fix it"), "{r}");
        assert!(r.len() < 1000, "{} bytes", r.len());
    }

    /// Issue 36, item 8: an escape sequence in the input reached the terminal in the excerpt
    /// and the message. It is printed escaped, and the caret still points at the error.
    #[test]
    fn control_characters_in_the_excerpt_are_escaped() {
        let src = "int x\x1b[2J = @;\n".to_string();
        let at = src.find('@').unwrap();
        let mut e = err(src, at);
        e.help = Some("see \x1b]0;title\x07".into());
        let r = render_diagnostic(&e, None);
        assert!(!r.chars().any(|c| c.is_control() && c != '\n'), "{r:?}");
        assert!(r.contains("  | int x\\x1b[2J = @;"), "{r}");
        let shown = r.lines().find(|l| l.starts_with("  | int")).unwrap();
        let caret = r
            .lines()
            .find(|l| l.trim_start_matches("  | ").trim() == "^")
            .unwrap();
        assert_eq!(shown.find('@'), caret.find('^'), "{r}");
        assert!(r.contains("help: see \\x1b]0;title\\x07"), "{r}");
    }

    #[test]
    fn windows_near_the_ends_of_a_long_line_are_not_cut_there() {
        let line = "z".repeat(5000);
        let r = render_plain(&err(line.clone(), 0));
        assert!(r.contains("  | zzz"), "{r}");
        assert!(r.contains("\n  | ^\n"), "{r}");
        let r = render_plain(&err(line, 4999));
        assert!(r.contains("column 5000 of 5000"), "{r}");
        assert!(!r.contains("z…"), "{r}");
    }
}
