//! Source spans: byte ranges plus 1-based line/column of the start.

use std::fmt;

/// A region of the source text: byte range `[start, end)` and the line/column of `start`, in
/// file `file` (0: the file compiled; others: files it includes, see `Sources`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    /// Byte offset of the first character.
    pub start: u32,
    /// Byte offset one past the last character.
    pub end: u32,
    /// 1-based line of `start`.
    pub line: u32,
    /// 1-based column (in bytes) of `start`.
    pub col: u32,
    /// Which source file: 0 for the file compiled, `k` for the `k`-th file it includes.
    pub file: u16,
}

impl Span {
    /// Smallest span covering `self` and `other` (line/col of the earlier one).
    pub fn to(self, other: Span) -> Span {
        let (first, _) = if self.start <= other.start {
            (self, other)
        } else {
            (other, self)
        };
        let end = if self.file == other.file {
            self.end.max(other.end)
        } else {
            first.end
        };
        Span {
            start: first.start,
            end,
            line: first.line,
            col: first.col,
            file: first.file,
        }
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.end.saturating_sub(self.start) as usize
    }

    /// True when the span covers no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// Maps byte offsets to line/column positions.
#[derive(Clone, Debug)]
pub struct LineIndex {
    line_starts: Vec<u32>,
    file: u16,
}

impl LineIndex {
    /// Builds the index of line starts of `src`, the file compiled.
    pub fn new(src: &str) -> Self {
        Self::for_file(src, 0)
    }

    /// Builds the index of line starts of `src`, source file `file`.
    pub fn for_file(src: &str, file: u16) -> Self {
        let mut line_starts = vec![0];
        for (i, b) in src.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(i as u32 + 1);
            }
        }
        LineIndex { line_starts, file }
    }

    /// Span for byte range `[start, end)`.
    pub fn span(&self, start: usize, end: usize) -> Span {
        let start = start as u32;
        let line = match self.line_starts.binary_search(&start) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        Span {
            start,
            end: end as u32,
            line: line as u32 + 1,
            col: start - self.line_starts[line] + 1,
            file: self.file,
        }
    }
}
