//! Reading the files a user names: the circuit, `--in a=@f`, `--mem m=@f`, `--batch`,
//! `--map`, `--timing FILE`, traces, lessons and `#include`d headers all go through here.
//!
//! Only regular files are read (symbolic links are followed). A FIFO would block the reader
//! until some other program writes into it, a device such as `/dev/zero` never ends, a
//! directory or socket holds no text: each is refused with an error naming the path and what
//! it is, before it is opened. Text is read up to a size bound ([`MAX_TEXT_BYTES`] unless the
//! caller gives another); a file over it is refused before it is read, and a file that grows
//! past it while read (or one such as `/proc/self/environ` whose size the system does not
//! tell) stops at the bound with an error. Readers that stream (VCD and FST traces, which may
//! be many gigabytes) open the file with [`open_regular`] and bound what they keep themselves.

use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Largest text file read whole (a circuit, a header, a `--batch` or `--map` file, a timing
/// profile, a lesson, a stimulus `@file`): 512 MiB, far above any real input and low enough
/// that holding it (and the tokens or nodes it describes) fits a machine with a few GiB.
pub const MAX_TEXT_BYTES: u64 = 512 << 20;

/// A file that cannot be read, naming the file.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The operating system refused (missing file, no permission, ...).
    /// The reason is part of the message, not a `source` (reports that print the chain
    /// would name it twice).
    #[error("cannot read {path}: {error}")]
    Io {
        /// The file as named.
        path: String,
        /// The error.
        error: std::io::Error,
    },
    /// Not a regular file.
    #[error("cannot read {path}: it is {kind}, not a regular file")]
    NotRegular {
        /// The file as named.
        path: String,
        /// What it is (`a directory`, `a FIFO`, `a character device`, ...).
        kind: &'static str,
    },
    /// Larger than the bound.
    #[error("cannot read {path}: {size} bytes; the limit is {limit} bytes")]
    TooLarge {
        /// The file as named.
        path: String,
        /// Its size, with thousands separators.
        size: String,
        /// The bound, with thousands separators.
        limit: String,
    },
    /// It grew past the bound while read, or the system gave no size and it holds more.
    #[error("cannot read {path}: it holds more than the limit of {limit} bytes")]
    GrewPastLimit {
        /// The file as named.
        path: String,
        /// The bound, with thousands separators.
        limit: String,
    },
    /// Not UTF-8 text.
    #[error("cannot read {path}: not UTF-8 text (byte {offset})")]
    NotUtf8 {
        /// The file as named.
        path: String,
        /// Offset of the first byte that is not UTF-8.
        offset: usize,
    },
}

impl InputError {
    /// The reason alone, without the leading `cannot read PATH: `.
    pub fn reason(&self) -> String {
        let full = self.to_string();
        let path = match self {
            InputError::Io { path, .. }
            | InputError::NotRegular { path, .. }
            | InputError::TooLarge { path, .. }
            | InputError::GrewPastLimit { path, .. }
            | InputError::NotUtf8 { path, .. } => path,
        };
        full.strip_prefix(&format!("cannot read {path}: "))
            .map(str::to_string)
            .unwrap_or(full)
    }
}

/// What `meta` describes, in words, when it is not a regular file.
pub fn kind_of(meta: &std::fs::Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() {
        return None;
    }
    if t.is_dir() {
        return Some("a directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a FIFO (named pipe)");
        }
        if t.is_char_device() {
            return Some("a character device");
        }
        if t.is_block_device() {
            return Some("a block device");
        }
        if t.is_socket() {
            return Some("a socket");
        }
    }
    Some("not a regular file")
}

fn shown(path: &Path) -> String {
    path.display().to_string()
}

/// Opens regular file `path` for reading, with its metadata; anything else is refused before
/// it is opened (opening a FIFO would block).
pub fn open_regular(path: &Path) -> Result<(File, std::fs::Metadata), InputError> {
    let io = |error| InputError::Io {
        path: shown(path),
        error,
    };
    let check = |meta: &std::fs::Metadata| match kind_of(meta) {
        Some(kind) => Err(InputError::NotRegular {
            path: shown(path),
            kind,
        }),
        None => Ok(()),
    };
    check(&std::fs::metadata(path).map_err(io)?)?;
    let file = File::open(path).map_err(io)?;
    // Again on what was opened: the path may have been replaced in between.
    let meta = file.metadata().map_err(io)?;
    check(&meta)?;
    Ok((file, meta))
}

/// The bytes of regular file `path`, refused when it holds more than `limit` bytes.
pub fn read_bytes(path: &Path, limit: u64) -> Result<Vec<u8>, InputError> {
    let (file, meta) = open_regular(path)?;
    let len = meta.len();
    let thousands = crate::limits::thousands;
    if len > limit {
        return Err(InputError::TooLarge {
            path: shown(path),
            size: thousands(len),
            limit: thousands(limit),
        });
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|error| InputError::Io {
            path: shown(path),
            error,
        })?;
    if bytes.len() as u64 > limit {
        return Err(InputError::GrewPastLimit {
            path: shown(path),
            limit: thousands(limit),
        });
    }
    Ok(bytes)
}

/// The text of regular file `path`, at most `limit` bytes of UTF-8.
pub fn read_text_limited(path: &Path, limit: u64) -> Result<String, InputError> {
    String::from_utf8(read_bytes(path, limit)?).map_err(|e| InputError::NotUtf8 {
        path: shown(path),
        offset: e.utf8_error().valid_up_to(),
    })
}

/// The text of regular file `path`, at most [`MAX_TEXT_BYTES`].
pub fn read_text(path: &Path) -> Result<String, InputError> {
    read_text_limited(path, MAX_TEXT_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("hs-input-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn regular_files_are_read_within_the_bound() {
        let d = scratch("regular");
        let p = d.join("a.txt");
        std::fs::write(&p, "hello").unwrap();
        assert_eq!(read_text(&p).unwrap(), "hello");
        let e = read_text_limited(&p, 4).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("cannot read {}: 5 bytes; the limit is 4 bytes", p.display())
        );
        assert_eq!(e.reason(), "5 bytes; the limit is 4 bytes");
        std::fs::write(&p, [b'a', 0xff]).unwrap();
        assert!(
            read_text(&p)
                .unwrap_err()
                .to_string()
                .ends_with("not UTF-8 text (byte 1)")
        );
        let e = read_text(&d).unwrap_err();
        assert!(
            e.to_string()
                .ends_with("it is a directory, not a regular file")
        );
        let e = read_text(&d.join("missing")).unwrap_err();
        assert!(matches!(e, InputError::Io { .. }), "{e}");
        std::fs::remove_dir_all(&d).ok();
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_and_a_link_to_it_are_refused_without_blocking() {
        let d = scratch("fifo");
        let fifo = d.join("f");
        let ok = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            return; // no mkfifo here
        }
        let link = d.join("link");
        std::os::unix::fs::symlink(&fifo, &link).unwrap();
        for p in [&fifo, &link] {
            let e = read_text(p).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!(
                    "cannot read {}: it is a FIFO (named pipe), not a regular file",
                    p.display()
                )
            );
            assert!(open_regular(p).is_err());
        }
        // A link to a regular file is followed.
        let file = d.join("real");
        std::fs::write(&file, "x").unwrap();
        let link2 = d.join("link2");
        std::os::unix::fs::symlink(&file, &link2).unwrap();
        assert_eq!(read_text(&link2).unwrap(), "x");
        std::fs::remove_dir_all(&d).ok();
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn files_without_a_size_stop_at_the_bound() {
        // /proc files say 0 bytes and hold more: read only up to the bound.
        let p = Path::new("/proc/self/status");
        if p.exists() {
            let e = read_text_limited(p, 16).unwrap_err();
            assert!(matches!(e, InputError::GrewPastLimit { .. }), "{e}");
        }
    }
}
