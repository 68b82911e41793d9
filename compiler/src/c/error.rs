//! Diagnostics of the C front end (file:line:col with a caret, via miette).

use super::span::Span;
use miette::{Diagnostic, NamedSource, SourceSpan};
use std::sync::Arc;
use thiserror::Error;

/// A front-end or middle-end error located in the C source.
#[derive(Debug, Error, Diagnostic)]
#[error("{file}:{line}:{col}: {message}")]
#[diagnostic(code(handscope::c))]
pub struct CError {
    /// Human-readable message (without location).
    pub message: String,
    /// File name as given to the compiler.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
    /// The source text, for rendering the caret.
    #[source_code]
    pub src: Arc<NamedSource<String>>,
    /// The offending region.
    #[label("{label}")]
    pub span: SourceSpan,
    /// Label text printed under the caret.
    pub label: &'static str,
    /// Optional hint.
    #[help]
    pub help: Option<String>,
}

/// A located warning of the C front end (an implicitly declared math function): rendered like
/// a [`CError`], with warning severity and `warning:` after the location.
#[derive(Debug)]
pub struct CWarning(pub CError);

impl std::fmt::Display for CWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let e = &self.0;
        write!(f, "{}:{}:{}: warning: {}", e.file, e.line, e.col, e.message)
    }
}

impl std::error::Error for CWarning {}

impl Diagnostic for CWarning {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.0.code()
    }
    fn severity(&self) -> Option<miette::Severity> {
        Some(miette::Severity::Warning)
    }
    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.0.help()
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        self.0.source_code()
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        self.0.labels()
    }
}

/// Location-only error produced inside the front end; turned into a [`CError`] at the API boundary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawError {
    /// Message.
    pub message: String,
    /// Location.
    pub span: Span,
    /// Optional hint.
    pub help: Option<String>,
}

impl RawError {
    /// New error at `span`.
    pub fn new(span: Span, message: impl Into<String>) -> Self {
        RawError {
            message: message.into(),
            span,
            help: None,
        }
    }

    /// Adds a hint.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Attaches the source text and file name.
    pub fn into_cerror(self, src: &str, file: &str) -> CError {
        let start = (self.span.start as usize).min(src.len());
        let len = self
            .span
            .len()
            .min(src.len() - start)
            .max(usize::from(start < src.len()));
        CError {
            label: "here",
            message: self.message,
            file: file.to_string(),
            line: self.span.line.max(1),
            col: self.span.col.max(1),
            src: Arc::new(NamedSource::new(file, src.to_string())),
            span: SourceSpan::new(start.into(), len),
            help: self.help,
        }
    }
}

/// Result type used inside the front end.
pub type CResult<T> = Result<T, RawError>;
