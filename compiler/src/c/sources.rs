//! The source files of one compilation: the file compiled (index 0) and the files it
//! includes with `#include "name"`, in the order they were first read. A [`Span`]'s `file`
//! is an index here, so diagnostics quote the right file and MLIR locations name it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::error::{CError, RawError};
use super::span::{LineIndex, Span};

/// Most files one compilation may read (the main file included).
pub const MAX_FILES: usize = 1024;

/// One source file.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The name diagnostics and locations use (as given, or the include's resolved path).
    pub name: Arc<str>,
    /// Its text.
    pub text: String,
    /// Its path on disk, for resolving its own includes (`None` for text given directly,
    /// whose includes resolve against the directory its name points into).
    pub path: Option<PathBuf>,
}

/// The files of a compilation.
#[derive(Clone, Debug)]
pub struct Sources {
    files: Vec<SourceFile>,
    /// Directories searched, in order, after the including file's own (`-I`).
    include_dirs: Vec<PathBuf>,
}

impl Sources {
    /// The compilation of `text`, named `name` (a path: included files are looked for in its
    /// directory).
    pub fn new(name: &str, text: &str) -> Sources {
        Sources {
            files: vec![SourceFile {
                name: Arc::from(name),
                text: text.to_string(),
                path: None,
            }],
            include_dirs: Vec::new(),
        }
    }

    /// [`Sources::new`], also looking for included files in `dirs`, in order, after the
    /// including file's directory (a compiler's `-I`).
    pub fn with_include_dirs(name: &str, text: &str, dirs: &[PathBuf]) -> Sources {
        let mut s = Sources::new(name, text);
        s.include_dirs = dirs.to_vec();
        s
    }

    /// The include directories (`-I`), in search order.
    pub fn include_dirs(&self) -> &[PathBuf] {
        &self.include_dirs
    }

    /// File `k`.
    pub fn file(&self, k: u16) -> &SourceFile {
        &self.files[usize::from(k).min(self.files.len() - 1)]
    }

    /// The file names, by index (for MLIR locations).
    pub fn names(&self) -> Vec<Arc<str>> {
        self.files.iter().map(|f| f.name.clone()).collect()
    }

    /// A line index per file, by index.
    pub fn line_indexes(&self) -> Vec<LineIndex> {
        self.files
            .iter()
            .enumerate()
            .map(|(k, f)| LineIndex::for_file(&f.text, k as u16))
            .collect()
    }

    /// The directory `#include "..."` in file `k` searches first.
    pub fn dir_of(&self, k: u16) -> PathBuf {
        let f = self.file(k);
        let p = f
            .path
            .clone()
            .unwrap_or_else(|| PathBuf::from(f.name.as_ref()));
        p.parent()
            .filter(|d| !d.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
    }

    /// The index of the file at `path` if it was read already.
    pub fn find(&self, path: &Path) -> Option<u16> {
        let canon = std::fs::canonicalize(path).ok();
        self.files
            .iter()
            .position(|f| {
                f.path.as_deref().is_some_and(|p| {
                    p == path
                        || canon
                            .as_deref()
                            .is_some_and(|c| std::fs::canonicalize(p).ok().as_deref() == Some(c))
                })
            })
            .map(|k| k as u16)
    }

    /// Adds an included file read from `path`; its index. `None` past [`MAX_FILES`].
    pub fn add(&mut self, path: &Path, text: String) -> Option<u16> {
        if self.files.len() >= MAX_FILES {
            return None;
        }
        self.files.push(SourceFile {
            name: Arc::from(path.display().to_string()),
            text,
            path: Some(path.to_path_buf()),
        });
        Some((self.files.len() - 1) as u16)
    }

    /// The error located in the file its span names.
    pub fn error(&self, e: RawError) -> CError {
        let f = self.file(e.span.file);
        e.into_cerror(&f.text, &f.name)
    }

    /// The span of the end of the main file.
    pub fn eof_span(&self) -> Span {
        let text = &self.files[0].text;
        LineIndex::new(text).span(text.len(), text.len())
    }
}
