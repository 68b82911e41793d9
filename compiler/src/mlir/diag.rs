//! Error and warning types of the MLIR reader, with file:line:col positions.

use std::fmt;

use miette::{NamedSource, SourceSpan};

/// A byte range in the source text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// A span from `start` to `end` (bytes).
    pub fn new(start: usize, end: usize) -> Self {
        Span {
            start,
            end: end.max(start),
        }
    }

    /// The smallest span covering both.
    pub fn join(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }
}

/// 1-based line and column (in characters) of byte offset `offset` in `src`.
pub fn line_col(src: &str, offset: usize) -> (usize, usize) {
    let mut off = offset.min(src.len());
    while !src.is_char_boundary(off) {
        off -= 1;
    }
    let before = &src[..off];
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = before[line_start..].chars().count() + 1;
    (line, col)
}

/// Line starts of a text, for [`line_col`] in logarithmic time: the builder locates every op
/// of a file, and counting newlines from the start each time made reading quadratic (10,000
/// nodes took 5 s, 100,000 would have taken minutes).
#[derive(Debug, Default)]
pub(crate) struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    /// The index of `src`.
    pub(crate) fn new(src: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(
            src.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex { starts }
    }

    /// [`line_col`] of `offset` in `src` (the text the index was built from).
    pub(crate) fn line_col(&self, src: &str, offset: usize) -> (usize, usize) {
        let mut off = offset.min(src.len());
        while !src.is_char_boundary(off) {
            off -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= off);
        let start = self.starts[line - 1];
        (line, src[start..off].chars().count() + 1)
    }
}

/// A fatal error while reading an MLIR file: what went wrong and exactly where.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("{file}:{line}:{col}: {message}")]
pub struct ParseError {
    /// The file being read.
    #[source_code]
    pub src: NamedSource<String>,
    /// The offending text.
    #[label("{label}")]
    pub span: SourceSpan,
    /// What went wrong.
    pub message: String,
    /// Short text shown under the caret.
    pub label: String,
    /// How to fix it, when there is a useful hint.
    #[help]
    pub help: Option<String>,
    file: String,
    line: usize,
    col: usize,
}

impl ParseError {
    /// Builds an error at `span` of `src`.
    pub fn new(src: &str, file: &str, span: Span, message: impl Into<String>) -> Self {
        let (line, col) = line_col(src, span.start);
        let message = message.into();
        ParseError {
            src: NamedSource::new(file, src.to_string()),
            span: SourceSpan::new(span.start.into(), span.end - span.start),
            label: "here".into(),
            message,
            help: None,
            file: file.to_string(),
            line,
            col,
        }
    }

    /// Adds a help text.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Replaces the label shown under the caret.
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    /// 1-based line and column of the error.
    pub fn line_col(&self) -> (usize, usize) {
        (self.line, self.col)
    }

    /// Name of the file being read.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// A miette graphical report without colors (for tests and plain terminals); a plain
    /// report with a window of the line when the line is very long (see
    /// [`crate::render::render_diagnostic`]).
    pub fn render(&self) -> String {
        crate::render::render_diagnostic(self, Some(100))
    }
}

/// Builder-style helpers on boxed errors (the parser passes errors boxed).
pub(crate) trait ErrExt {
    /// Adds a help text.
    fn with_help(self, help: impl Into<String>) -> Self;
    /// Replaces the caret label.
    fn with_label(self, label: impl Into<String>) -> Self;
}

impl ErrExt for Box<ParseError> {
    fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }
}

/// A non-fatal problem found while reading (the input was still accepted).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// File name.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub col: usize,
    /// Byte range in the source.
    pub span: Span,
    /// What was noticed.
    pub message: String,
}

impl Diagnostic {
    /// A warning at `span` of `src`.
    pub fn warning(src: &str, file: &str, span: Span, message: impl Into<String>) -> Self {
        let (line, col) = line_col(src, span.start);
        Diagnostic {
            file: file.to_string(),
            line,
            col,
            span,
            message: message.into(),
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: warning: {}",
            self.file, self.line, self.col, self.message
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_one_based() {
        let src = "ab\ncdé f";
        assert_eq!(line_col(src, 0), (1, 1));
        assert_eq!(line_col(src, 3), (2, 1));
        assert_eq!(line_col(src, 8), (2, 5));
        let idx = LineIndex::new(src);
        for off in 0..=src.len() + 2 {
            assert_eq!(idx.line_col(src, off), line_col(src, off), "{off}");
        }
        let e = ParseError::new(src, "x.mlir", Span::new(3, 4), "bad").with_help("fix it");
        assert_eq!(e.to_string(), "x.mlir:2:1: bad");
        let r = e.render();
        assert!(r.contains("x.mlir:2:1"), "{r}");
        assert!(r.contains("fix it"), "{r}");
    }
}
