//! Building and running a Verilator model of generated SystemVerilog and a C++ testbench
//! (whose top module is `hs_tb`), with a build cache keyed by a content hash.
//!
//! Cache: `$HANDSCOPE_VERILATOR_CACHE`, else `<workspace>/target/handscope-verilate/`, one
//! directory per hash of (SystemVerilog, testbench, Verilator version, flags) holding the
//! executable `Vhs_tb`.
//!
//! The cache is executed from, so it must be the user's alone: its root is created with mode
//! 0700, and before a build or a run it is checked to be a directory (not a symlink) owned by
//! the user, an existing one of the user's restricted to 0700 and one of anyone else's
//! refused ([`VerilatorError::Unsafe`]). A cached model is run only when it is a regular file
//! owned by the user that no one else can write, in an entry only the user can write; every
//! build happens in a fresh private directory of this process.
//!
//! Waveforms are VCD by default; [`WaveFormat::Fst`] builds with `--trace-fst` and turns
//! the testbench's VCD writer into Verilator's FST writer ([`fst_testbench`]).

use std::path::{Path, PathBuf};
use std::process::Command;

/// Errors of building or running a model.
#[derive(Debug, thiserror::Error)]
pub enum VerilatorError {
    /// Verilator is missing.
    #[error("`verilator` is not available ({0}); install it (apt-get install verilator)")]
    Missing(String),
    /// File system trouble.
    #[error("{what} {path}: {error}")]
    Io {
        /// What was being done.
        what: &'static str,
        /// The path.
        path: PathBuf,
        /// The OS error (shown in the message, so not also a `source()`: a chain printer
        /// would repeat it).
        error: std::io::Error,
    },
    /// The build failed.
    #[error("Verilator build failed (log: {log}):\n{tail}")]
    Build {
        /// Full log.
        log: PathBuf,
        /// Its last lines.
        tail: String,
    },
    /// The design has logic Verilator can only order as a combinational loop (`UNOPTFLAT`),
    /// which it may evaluate before its inputs settle: the waveform would not be the RTL's.
    #[error(
        "Verilator found a combinational loop in the design (UNOPTFLAT; log: {log}):\n{excerpt}"
    )]
    CombLoop {
        /// Full log.
        log: PathBuf,
        /// The warning and the signals of the loop.
        excerpt: String,
    },
    /// The model failed.
    #[error("the model failed: {0}")]
    Run(String),
    /// A cache directory or model that someone else could have written: it is not run.
    #[error(
        "refusing to use {path}: {reason}; the Verilator cache must be yours alone (remove it, or set HANDSCOPE_VERILATOR_CACHE to a directory of yours)"
    )]
    Unsafe {
        /// The directory or file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
}

fn io<'a>(
    what: &'static str,
    path: &'a Path,
) -> impl FnOnce(std::io::Error) -> VerilatorError + 'a {
    move |error| VerilatorError::Io {
        what,
        path: path.to_path_buf(),
        error,
    }
}

/// Waveform format a model dumps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WaveFormat {
    /// Value change dump (`trace.vcd`).
    #[default]
    Vcd,
    /// Verilator's FST (`trace.fst`), compressed.
    Fst,
}

impl WaveFormat {
    /// File name the model writes in its work directory.
    pub fn file_name(self) -> &'static str {
        match self {
            WaveFormat::Vcd => "trace.vcd",
            WaveFormat::Fst => "trace.fst",
        }
    }
}

/// The testbench `tb` (written for VCD by `handscope_compiler::verilog::testbench`) with
/// Verilator's FST writer in place of its VCD writer.
pub fn fst_testbench(tb: &str) -> String {
    tb.replace("verilated_vcd_c.h", "verilated_fst_c.h")
        .replace("VerilatedVcdC", "VerilatedFstC")
        .replace("\"trace.vcd\"", "\"trace.fst\"")
}

/// The most statements Verilator puts in one generated C++ function in unoptimized (`-O0`)
/// builds (`--output-split-cfuncs`). Unsplit, a large model's variable resets are one
/// function that g++ compiles in time and memory far beyond its share (14 s and 3 GB for the
/// kernels' round-trip model, whose other files of similar size took under 2 s each).
pub const QUICK_SPLIT_CFUNCS: u32 = 200;

/// How a model is built.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BuildConfig<'a> {
    /// Cache directory (default: `$HANDSCOPE_VERILATOR_CACHE`, else
    /// `<workspace>/target/handscope-verilate/`).
    pub cache: Option<&'a Path>,
    /// Waveform format of the model's dump.
    pub format: WaveFormat,
    /// Compile the generated C++ without optimization (`-O0` instead of Verilator's `-Os`):
    /// builds of large designs get several times faster and simulation slower, which suits
    /// tests' short runs.
    pub quick: bool,
    /// Refuse designs in which Verilator reports a combinational loop (`UNOPTFLAT`) instead
    /// of building them with the warning silenced. Handscope's own SystemVerilog has none
    /// (valid/data and ready are computed by separate statements in every component), so its
    /// builds set this; other RTL (CIRCT's) may keep false loops that settle in practice.
    pub reject_comb_loops: bool,
}

/// The Verilator command line that builds `Vhs_tb` from `design.sv` and `tb.cpp` into `mdir`
/// with build configuration `cfg`.
pub fn build_command_for(mdir: &Path, cfg: &BuildConfig<'_>) -> Vec<String> {
    let trace = match cfg.format {
        WaveFormat::Vcd => "--trace",
        WaveFormat::Fst => "--trace-fst",
    };
    let mut v: Vec<String> = [
        "verilator",
        "--cc",
        "--exe",
        "--build",
        trace,
        "-O3",
        "--x-assign",
        "0",
        "--x-initial",
        "0",
        "-Wno-fatal",
        "-Wno-lint",
        "-Wno-style",
        if cfg.reject_comb_loops {
            "-Wwarn-UNOPTFLAT"
        } else {
            "-Wno-UNOPTFLAT"
        },
        "--top-module",
        "hs_tb",
        "-j",
        "2",
        "-o",
        "Vhs_tb",
        "--Mdir",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.push(mdir.display().to_string());
    if cfg.quick {
        // Split, the kernels' round-trip model built in 1 min 27 s instead of 2 min 31 s.
        v.push("--output-split-cfuncs".into());
        v.push(QUICK_SPLIT_CFUNCS.to_string());
        for m in ["OPT_FAST=-O0", "OPT_GLOBAL=-O0"] {
            v.push("-MAKEFLAGS".into());
            v.push(m.into());
        }
    }
    v.push("design.sv".into());
    v.push("tb.cpp".into());
    v
}

/// First line of `verilator --version`.
pub fn verilator_version() -> Result<String, VerilatorError> {
    let out = Command::new("verilator")
        .arg("--version")
        .output()
        .map_err(|e| VerilatorError::Missing(e.to_string()))?;
    if !out.status.success() {
        return Err(VerilatorError::Missing(
            "`verilator --version` failed".into(),
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap_or("")
        .trim()
        .to_string())
}

/// FNV-1a based 128-bit hex digest of length-prefixed parts.
pub fn content_hash(parts: &[&[u8]]) -> String {
    let (mut a, mut b) = (0xcbf2_9ce4_8422_2325u64, 0x6c62_272e_07bb_0142u64);
    for p in parts {
        for &x in (p.len() as u64).to_le_bytes().iter().chain(p.iter()) {
            a = (a ^ u64::from(x)).wrapping_mul(0x0000_0100_0000_01b3);
            b = (b ^ u64::from(x))
                .wrapping_mul(0x0000_0100_0000_01b3)
                .rotate_left(5);
        }
    }
    format!("{a:016x}{b:016x}")
}

/// The default cache directory.
fn cache_dir() -> PathBuf {
    if let Some(p) = std::env::var_os("HANDSCOPE_VERILATOR_CACHE").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.parent()
        .unwrap_or(here)
        .join("target")
        .join("handscope-verilate")
}

/// Builds (or takes from the cache) the model of `sv` + `tb` with configuration `cfg`;
/// returns the executable (`tb` is the VCD testbench; it is converted for FST).
fn build_with(sv: &str, tb: &str, cfg: &BuildConfig<'_>) -> Result<PathBuf, VerilatorError> {
    let tb_fst;
    let tb = match cfg.format {
        WaveFormat::Vcd => tb,
        WaveFormat::Fst => {
            tb_fst = fst_testbench(tb);
            &tb_fst
        }
    };
    let version = verilator_version()?;
    let flags = build_command_for(Path::new("obj"), cfg).join(" ");
    let key = content_hash(&[
        sv.as_bytes(),
        tb.as_bytes(),
        version.as_bytes(),
        flags.as_bytes(),
    ]);
    let root = cfg.cache.map(Path::to_path_buf).unwrap_or_else(cache_dir);
    private_dir(&root)?;
    let dir = root.join(&key);
    let exe = dir.join("Vhs_tb");
    if std::fs::symlink_metadata(&exe).is_ok() {
        // Built by an earlier run: run only if nobody else could have put it there.
        check_private(&dir, Kind::Dir)?;
        check_private(&exe, Kind::File)?;
        return Ok(exe);
    }
    let tmp = root.join(format!("{key}.tmp{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    new_private_dir(&tmp)?;
    std::fs::write(tmp.join("design.sv"), sv).map_err(io("writing", &tmp))?;
    std::fs::write(tmp.join("tb.cpp"), tb).map_err(io("writing", &tmp))?;
    let cmd = build_command_for(Path::new("obj"), cfg);
    let out = Command::new(&cmd[0])
        .args(&cmd[1..])
        .current_dir(&tmp)
        .output()
        .map_err(|e| VerilatorError::Missing(e.to_string()))?;
    let log = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let log_path = tmp.join("build.log");
    let _ = std::fs::write(&log_path, &log);
    let built = tmp.join("obj").join("Vhs_tb");
    if !out.status.success() || !built.is_file() {
        let lines: Vec<&str> = log.lines().collect();
        let tail = lines[lines.len().saturating_sub(30)..].join("\n");
        return Err(VerilatorError::Build {
            log: log_path,
            tail,
        });
    }
    if cfg.reject_comb_loops
        && let Some(at) = log.find("%Warning-UNOPTFLAT")
    {
        let excerpt: Vec<&str> = log[at..].lines().take(12).collect();
        return Err(VerilatorError::CombLoop {
            log: log_path,
            excerpt: excerpt.join("\n"),
        });
    }
    #[cfg(unix)]
    {
        // Whatever the umask, only the user may change what the cache runs.
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&built, std::fs::Permissions::from_mode(0o700))
            .map_err(io("restricting", &built))?;
    }
    std::fs::rename(&built, tmp.join("Vhs_tb")).map_err(io("moving", &built))?;
    let _ = std::fs::remove_dir_all(tmp.join("obj"));
    if std::fs::rename(&tmp, &dir).is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    if std::fs::symlink_metadata(&exe).is_ok() {
        // Ours, or another process of the user's that built the same model at once.
        check_private(&dir, Kind::Dir)?;
        check_private(&exe, Kind::File)?;
        Ok(exe)
    } else {
        Err(VerilatorError::Run(format!(
            "executable missing at {}",
            exe.display()
        )))
    }
}

/// What [`check_private`] expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Dir,
    File,
}

/// The user this process runs as.
#[cfg(unix)]
fn user() -> u32 {
    // SAFETY: `geteuid` has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// Makes the cache root `dir` (mode 0700, with its missing parents) or checks an existing
/// one: a directory, not a symlink, owned by the user; one of the user's that others may
/// enter or write is restricted to 0700.
fn private_dir(dir: &Path) -> Result<(), VerilatorError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt as _, MetadataExt as _, PermissionsExt as _};
        if std::fs::symlink_metadata(dir).is_err() {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(io("creating", dir))?;
        }
        let m = std::fs::symlink_metadata(dir).map_err(io("reading", dir))?;
        if m.is_dir() && m.uid() == user() && m.mode() & 0o077 != 0 {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
                .map_err(io("restricting", dir))?;
        }
    }
    #[cfg(not(unix))]
    std::fs::create_dir_all(dir).map_err(io("creating", dir))?;
    check_private(dir, Kind::Dir)
}

/// Creates `dir`, which must not exist, with mode 0700.
fn new_private_dir(dir: &Path) -> Result<(), VerilatorError> {
    let mut b = std::fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
    b.create(dir).map_err(io("creating", dir))?;
    check_private(dir, Kind::Dir)
}

/// Checks that `path` is a `kind` (not a symlink) that only the user can write: owned by
/// the user, no write permission for group or others.
fn check_private(path: &Path, kind: Kind) -> Result<(), VerilatorError> {
    let m = std::fs::symlink_metadata(path).map_err(io("reading", path))?;
    let unsafe_because = |reason: String| VerilatorError::Unsafe {
        path: path.to_path_buf(),
        reason,
    };
    let ft = m.file_type();
    if ft.is_symlink() {
        return Err(unsafe_because("it is a symbolic link".into()));
    }
    match kind {
        Kind::Dir if !ft.is_dir() => return Err(unsafe_because("it is not a directory".into())),
        Kind::File if !ft.is_file() => {
            return Err(unsafe_because("it is not a regular file".into()));
        }
        _ => {}
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        if m.uid() != user() {
            return Err(unsafe_because(format!(
                "it belongs to user {}, not to you (user {})",
                m.uid(),
                user()
            )));
        }
        if m.mode() & 0o022 != 0 {
            return Err(unsafe_because(format!(
                "its mode {:o} lets others {}",
                m.mode() & 0o7777,
                if kind == Kind::Dir {
                    "write in it"
                } else {
                    "change it"
                }
            )));
        }
    }
    Ok(())
}

/// Runs a model in `workdir` (where memory init files live), writing
/// `workdir/`[`WaveFormat::file_name`].
fn run_format(exe: &Path, workdir: &Path, format: WaveFormat) -> Result<PathBuf, VerilatorError> {
    let vcd = workdir.join(format.file_name());
    // The model runs inside `workdir`, so it gets the bare file name: a relative `workdir`
    // joined in again would point one level too deep.
    let exe = std::path::absolute(exe).map_err(io("locating", exe))?;
    let out = Command::new(&exe)
        .arg(format.file_name())
        .current_dir(workdir)
        .output()
        .map_err(io("running", &exe))?;
    if !out.status.success() {
        return Err(VerilatorError::Run(format!(
            "{} exited with {}: {}",
            exe.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    Ok(vcd)
}

/// Builds (cached) and runs the model of `sv` + `tb` with configuration `cfg` in `workdir`;
/// returns the waveform's path.
pub fn build_and_run_with(
    workdir: &Path,
    sv: &str,
    tb: &str,
    cfg: &BuildConfig<'_>,
) -> Result<PathBuf, VerilatorError> {
    let exe = build_with(sv, tb, cfg)?;
    run_format(&exe, workdir, cfg.format)
}

/// Builds (cached) the model of `sv` + `tb` and starts it in `workdir` without waiting: the
/// caller follows the waveform while it is written (`handscope verilate --run --live`) and
/// waits for the process. Returns the process and the waveform's path (removed first, so a
/// file from an earlier run is never mistaken for this one's).
pub fn build_and_spawn_with(
    workdir: &Path,
    sv: &str,
    tb: &str,
    cfg: &BuildConfig<'_>,
) -> Result<(std::process::Child, PathBuf), VerilatorError> {
    let exe = build_with(sv, tb, cfg)?;
    let wave = workdir.join(cfg.format.file_name());
    match std::fs::remove_file(&wave) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io("removing", &wave)(e)),
    }
    let exe = std::path::absolute(&exe).map_err(io("locating", &exe))?;
    let child = Command::new(&exe)
        .arg(cfg.format.file_name())
        .current_dir(workdir)
        .stdout(std::process::Stdio::null())
        .spawn()
        .map_err(io("running", &exe))?;
    Ok((child, wave))
}

#[cfg(all(test, unix))]
mod tests {
    //! The cache is the user's alone (issue 36, item 8): a model someone else could have put
    //! at the predictable cache path is never run.

    use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};

    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("hs-vcache-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    fn mode(p: &Path) -> u32 {
        std::fs::symlink_metadata(p).unwrap().mode() & 0o777
    }

    #[test]
    fn a_new_cache_is_private_and_an_open_one_is_restricted() {
        let d = scratch("new");
        let root = d.join("a").join("cache");
        private_dir(&root).unwrap();
        assert_eq!(mode(&root), 0o700);
        std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o777)).unwrap();
        private_dir(&root).unwrap();
        assert_eq!(mode(&root), 0o700);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_symlinked_cache_or_model_is_refused() {
        let d = scratch("link");
        let real = d.join("real");
        private_dir(&real).unwrap();
        let link = d.join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let e = private_dir(&link).unwrap_err();
        assert!(matches!(e, VerilatorError::Unsafe { .. }), "{e}");
        assert!(e.to_string().contains("symbolic link"), "{e}");
        // A planted model: a symlink to some program, or a file others may write.
        let entry = real.join("0123");
        new_private_dir(&entry).unwrap();
        let exe = entry.join("Vhs_tb");
        std::os::unix::fs::symlink("/bin/true", &exe).unwrap();
        assert!(check_private(&exe, Kind::File).is_err());
        std::fs::remove_file(&exe).unwrap();
        std::fs::write(&exe, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o777)).unwrap();
        let e = check_private(&exe, Kind::File).unwrap_err();
        assert!(e.to_string().contains("mode 777"), "{e}");
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o700)).unwrap();
        check_private(&exe, Kind::File).unwrap();
        // An entry others may write in.
        std::fs::set_permissions(&entry, std::fs::Permissions::from_mode(0o777)).unwrap();
        assert!(check_private(&entry, Kind::Dir).is_err());
        std::fs::remove_dir_all(&d).unwrap();
    }

    /// Only root can make a directory that belongs to someone else.
    #[test]
    fn a_cache_of_another_user_is_refused() {
        if user() != 0 {
            return;
        }
        let d = scratch("owner");
        let root = d.join("cache");
        std::fs::create_dir_all(&root).unwrap();
        let c = std::ffi::CString::new(root.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: `c` is a NUL-terminated path that lives across the call.
        assert_eq!(unsafe { libc::chown(c.as_ptr(), 65534, 65534) }, 0);
        let e = private_dir(&root).unwrap_err();
        assert!(e.to_string().contains("belongs to user 65534"), "{e}");
        // Not restricted either: it is not the user's to change.
        assert_eq!(std::fs::metadata(&root).unwrap().uid(), 65534);
        std::fs::remove_dir_all(&d).unwrap();
    }
}
