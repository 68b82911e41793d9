//! Building and running a Verilator model of generated SystemVerilog and a C++ testbench
//! (whose top module is `hs_tb`), with a build cache keyed by a content hash.
//!
//! Cache: `$HANDSCOPE_VERILATOR_CACHE`, else `<workspace>/target/handscope-verilate/`, one
//! directory per hash of (SystemVerilog, testbench, Verilator version, flags) holding the
//! executable `Vhs_tb`.
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
    let dir = root.join(&key);
    let exe = dir.join("Vhs_tb");
    if exe.is_file() {
        return Ok(exe);
    }
    let tmp = root.join(format!("{key}.tmp{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(io("creating", &tmp))?;
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
    std::fs::rename(&built, tmp.join("Vhs_tb")).map_err(io("moving", &built))?;
    let _ = std::fs::remove_dir_all(tmp.join("obj"));
    if std::fs::rename(&tmp, &dir).is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    if exe.is_file() {
        Ok(exe)
    } else {
        Err(VerilatorError::Run(format!(
            "executable missing at {}",
            exe.display()
        )))
    }
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
