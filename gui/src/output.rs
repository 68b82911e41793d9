//! Output files written whole or not at all: every file a command writes (`.sv`, `.mlir`,
//! `.dot`, `.svg`, `.png`, `.vcd`, testbench files, exported views) goes through
//! [`write_file`], which writes a temporary file in the target's directory and renames it
//! over the target only once everything was written and flushed to disk. A full disk, a
//! failing writer or an interrupted run leaves the previous file (or none), never a
//! truncated one, and no temporary file.
//!
//! A target that exists and is not a regular file (`/dev/stdout`, `/dev/null`, a FIFO) is
//! written directly: renaming over it would replace the device or pipe.

use std::io::{self, BufWriter, Write};
use std::path::Path;

use anyhow::{Context, bail};

/// Writes `path` with what `fill` writes, atomically (see the module documentation).
pub fn write_file(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> anyhow::Result<()> {
    let shown = path.display();
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => bail!("cannot write {shown}: it is a directory"),
        Ok(m) if !m.is_file() => {
            // A device or pipe: no rename possible (or wanted).
            let f = std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .with_context(|| format!("cannot open {shown}"))?;
            let mut w = BufWriter::new(f);
            fill(&mut w)
                .and_then(|()| w.flush())
                .with_context(|| format!("cannot write {shown}"))?;
            return Ok(());
        }
        _ => {}
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
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
    let tmp = builder.tempfile_in(dir).with_context(|| {
        format!(
            "cannot create a temporary file for {shown} in {}",
            dir.display()
        )
    })?;
    // On any error below `tmp` is dropped, which deletes the temporary file.
    let mut w = BufWriter::new(tmp);
    fill(&mut w)
        .and_then(|()| w.flush())
        .with_context(|| format!("cannot write {shown}"))?;
    let tmp = w
        .into_inner()
        .map_err(|e| e.into_error())
        .with_context(|| format!("cannot write {shown}"))?;
    tmp.as_file()
        .sync_all()
        .with_context(|| format!("cannot write {shown}"))?;
    tmp.persist(path)
        .map_err(|e| e.error)
        .with_context(|| format!("cannot write {shown}"))?;
    Ok(())
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
