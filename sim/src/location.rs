//! Source locations attached to nodes (from MLIR `loc(...)` or the C front end).

use std::fmt;
use std::sync::Arc;

/// A position in a source file: file name, 1-based line and column, optional end.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SourceLoc {
    /// File name as written in the source (not canonicalized).
    pub file: Arc<str>,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
    /// Optional 1-based end position (line, column), exclusive.
    pub end: Option<(u32, u32)>,
}

impl SourceLoc {
    /// A location without an end position.
    pub fn new(file: impl Into<Arc<str>>, line: u32, col: u32) -> Self {
        SourceLoc {
            file: file.into(),
            line,
            col,
            end: None,
        }
    }
}

impl fmt::Display for SourceLoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}
