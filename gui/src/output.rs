//! Output files written whole or not at all: every file a command writes (`.sv`, `.mlir`,
//! `.dot`, `.svg`, `.png`, `.vcd`, testbench files, exported views) goes through
//! [`write_file`], which writes a temporary file in the target's directory and renames it
//! over the target only once everything was written and flushed to disk. A full disk, a
//! failing writer or an interrupted run leaves the previous file (or none), never a
//! truncated one, and no temporary file.
//!
//! Only a regular file (or a new path) is replaced by renaming. A target that exists and is
//! not a regular file (`/dev/stdout`, `/dev/null`, `/dev/full`, a FIFO, a terminal) is
//! written directly: renaming over it would replace the device or pipe for every program on
//! the machine; a failed write into it is an error. A symbolic link is followed: the file it
//! names is replaced and the link stays.

use std::fs::File;
use std::io::{self, BufWriter, Seek, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// Where and how an output is written.
enum Target {
    /// A new path or a regular file (the one a symbolic link names): a temporary file in its
    /// directory, renamed over it.
    Replace(PathBuf),
    /// An existing file that is no regular file (a device, a FIFO), or a dangling symbolic
    /// link: written in place.
    Direct,
}

/// How `path` is written; a directory is refused.
fn target(path: &Path) -> anyhow::Result<Target> {
    let shown = path.display();
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => bail!("cannot write {shown}: it is a directory"),
        Ok(m) if !m.is_file() => Ok(Target::Direct),
        Ok(_) => {
            let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_symlink());
            if is_link {
                // Replace the file the link names, not the link.
                let real =
                    std::fs::canonicalize(path).with_context(|| format!("cannot write {shown}"))?;
                Ok(Target::Replace(real))
            } else {
                Ok(Target::Replace(path.to_path_buf()))
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let dangling = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_symlink());
            Ok(if dangling {
                Target::Direct
            } else {
                Target::Replace(path.to_path_buf())
            })
        }
        Err(e) => Err(e).with_context(|| format!("cannot write {shown}")),
    }
}

/// Opens `path` (no regular file, or a dangling link) to write into it in place.
fn open_direct(path: &Path) -> anyhow::Result<File> {
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)
        .with_context(|| format!("cannot open {}", path.display()))
}

/// A temporary file beside `real` (same directory, so the rename stays on one file system).
fn temporary_beside(real: &Path, shown: &Path) -> anyhow::Result<tempfile::NamedTempFile> {
    let dir = match real.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = real
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        // The mode a plain `create` gives (0666 less the umask), not the temporary file's
        // private 0600.
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(dir).with_context(|| {
        format!(
            "cannot create a temporary file for {} in {}",
            shown.display(),
            dir.display()
        )
    })
}

/// Syncs `tmp` and renames it to `real`.
fn commit(tmp: tempfile::NamedTempFile, real: &Path, shown: &Path) -> anyhow::Result<()> {
    let err = || format!("cannot write {}", shown.display());
    tmp.as_file().sync_all().with_context(err)?;
    tmp.persist(real).map_err(|e| e.error).with_context(err)?;
    Ok(())
}

/// Writes `path` with what `fill` writes, atomically (see the module documentation).
pub fn write_file(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> anyhow::Result<()> {
    let shown = path.display();
    let real = match target(path)? {
        Target::Direct => {
            let mut w = BufWriter::new(open_direct(path)?);
            fill(&mut w)
                .and_then(|()| w.flush())
                .with_context(|| format!("cannot write {shown}"))?;
            return Ok(());
        }
        Target::Replace(real) => real,
    };
    let tmp = temporary_beside(&real, path)?;
    // On any error below `tmp` is dropped, which deletes the temporary file.
    let mut w = BufWriter::new(tmp);
    fill(&mut w)
        .and_then(|()| w.flush())
        .with_context(|| format!("cannot write {shown}"))?;
    let tmp = w
        .into_inner()
        .map_err(|e| e.into_error())
        .with_context(|| format!("cannot write {shown}"))?;
    commit(tmp, &real, path)
}

/// Like [`write_file`] for a writer that seeks (FST): `fill` writes into a file. A regular
/// target gets a temporary file renamed over it; any other target (a device, a FIFO) gets
/// the finished contents copied into it from an unnamed temporary file.
pub fn write_seekable(
    path: &Path,
    fill: impl FnOnce(File) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let shown = path.display();
    match target(path)? {
        Target::Direct => {
            let mut scratch = tempfile::tempfile()
                .with_context(|| format!("cannot create a temporary file for {shown}"))?;
            let copy = scratch
                .try_clone()
                .with_context(|| format!("cannot write {shown}"))?;
            fill(copy)?;
            scratch
                .seek(io::SeekFrom::Start(0))
                .with_context(|| format!("cannot write {shown}"))?;
            let mut out = open_direct(path)?;
            io::copy(&mut scratch, &mut out)
                .and_then(|_| out.flush())
                .with_context(|| format!("cannot write {shown}"))?;
            Ok(())
        }
        Target::Replace(real) => {
            let tmp = temporary_beside(&real, path)?;
            let file = tmp
                .as_file()
                .try_clone()
                .with_context(|| format!("cannot write {shown}"))?;
            fill(file)?;
            commit(tmp, &real, path)
        }
    }
}

/// [`write_file`] with bytes already in memory.
pub fn write_bytes(path: &Path, bytes: impl AsRef<[u8]>) -> anyhow::Result<()> {
    write_file(path, |w| w.write_all(bytes.as_ref()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("hs-output-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn entries(d: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_failing_writer_leaves_neither_a_partial_file_nor_a_temporary_one() {
        let d = scratch("fail");
        let p = d.join("out.sv");
        let e = write_file(&p, |w| {
            w.write_all(&vec![b'x'; 100_000])?;
            Err(io::Error::other("disk full (injected)"))
        })
        .unwrap_err();
        assert!(format!("{e:#}").contains("disk full (injected)"), "{e:#}");
        assert!(entries(&d).is_empty(), "{:?}", entries(&d));
        // An existing file keeps its old contents.
        std::fs::write(&p, "old").unwrap();
        assert!(write_file(&p, |_| Err(io::Error::other("injected"))).is_err());
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "old");
        assert_eq!(entries(&d), ["out.sv"]);
        write_bytes(&p, "new").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new");
        assert_eq!(entries(&d), ["out.sv"]);
        std::fs::remove_dir_all(&d).ok();
    }

    #[test]
    fn devices_are_written_directly_and_directories_refused() {
        let d = scratch("dev");
        assert!(format!("{:#}", write_bytes(&d, "x").unwrap_err()).contains("is a directory"));
        std::fs::remove_dir_all(&d).ok();
        if Path::new("/dev/null").exists() {
            write_bytes(Path::new("/dev/null"), "x").unwrap();
        }
        if Path::new("/dev/full").exists() {
            let e = write_bytes(Path::new("/dev/full"), vec![0u8; 1 << 16]).unwrap_err();
            assert!(format!("{e:#}").contains("cannot write /dev/full"), "{e:#}");
        }
    }
}
