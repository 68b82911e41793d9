//! `handscope render`: draw the debugger's view of a circuit at one cycle, without a window.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};

use crate::app::model::{Look, Start};
use crate::app::style::{Radix, Theme};

/// Arguments of `handscope render`.
#[derive(clap::Args, Debug)]
pub struct RenderArgs {
    /// C kernel or handshake MLIR file, or the name of a gallery example (`deadlock_join`).
    pub file: PathBuf,
    /// The stimulus: `--in`, `--mem`, `--ready`.
    #[command(flatten)]
    pub stimulus: super::stimulus_flags::StimulusFlags,
    /// Function to draw (default: the only or the last function with a body).
    #[arg(long)]
    pub func: Option<String>,
    /// The timing profile: `--timing`.
    #[command(flatten)]
    pub timing: super::timing_flags::TimingFlags,
    /// A VCD of a run to show instead of simulating.
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// The cycle to draw (past the end of the run: its last cycle).
    #[arg(long, default_value_t = 0)]
    pub cycle: u64,
    /// Output file: `.svg` or `.png`.
    #[arg(short, long)]
    pub output: PathBuf,
    /// `light` or `dark`.
    #[arg(long, default_value = "light")]
    pub theme: String,
    /// Colour-blind-safe channel colours.
    #[arg(long)]
    pub colour_blind: bool,
    /// Value format: `auto` (signed decimal, hex above 64 bits), `signed`, `unsigned`, `hex`
    /// or `binary`.
    #[arg(long, default_value = "auto")]
    pub radix: String,
    /// PNG scale factor.
    #[arg(long, default_value_t = 1.5)]
    pub scale: f32,
}

/// Renders and writes the file.
pub fn run(a: &RenderArgs) -> anyhow::Result<ExitCode> {
    let theme = match a.theme.as_str() {
        "light" => Theme::Light,
        "dark" => Theme::Dark,
        t => bail!("--theme {t}: expected `light` or `dark`"),
    };
    let radix = Radix::ALL
        .into_iter()
        .find(|r| {
            r.name() == a.radix
                || (a.radix == "bin" && *r == Radix::Bin)
                || (a.radix == "dec" && *r == Radix::Dec)
        })
        .with_context(|| {
            format!(
                "--radix {}: expected auto, signed, unsigned, hex or binary",
                a.radix
            )
        })?;
    let look = Look {
        theme,
        colour_blind: a.colour_blind,
        radix,
        ..Look::default()
    };
    let over = a.stimulus.args();
    // A gallery example with other stimulus is written to a temporary directory, removed
    // when `_scratch` goes out of scope (on success and on every error).
    let mut _scratch = None;
    let start = match super::gui::gallery_index(&a.file) {
        Some(i) if !a.file.exists() && over.is_empty() && a.trace.is_none() => {
            Start::TimedExample(i, a.timing.profile()?)
        }
        Some(i) if !a.file.exists() => {
            let ex = &crate::examples::CIRCUITS[i];
            let dir = tempfile::Builder::new()
                .prefix("handscope-render-")
                .tempdir()
                .context("cannot create a temporary directory")?;
            let p = dir.path().join(ex.name);
            std::fs::write(&p, ex.text).with_context(|| format!("cannot write {}", p.display()))?;
            _scratch = Some(dir);
            Start::File(
                p,
                a.trace.clone(),
                over,
                a.func.clone(),
                a.timing.profile()?,
            )
        }
        _ => Start::File(
            a.file.clone(),
            a.trace.clone(),
            over,
            a.func.clone(),
            a.timing.profile()?,
        ),
    };
    let picture = crate::app::render::render_picture_noting(start, a.cycle, look, &mut |note| {
        eprintln!("warning: {note}");
    })?;
    let ext = a
        .output
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let bytes = match ext.as_str() {
        "svg" => crate::app::svg::to_svg(&picture).into_bytes(),
        "png" => crate::app::png::to_png(&picture, a.scale)?,
        _ => bail!(
            "{}: the output must end in .svg or .png",
            a.output.display()
        ),
    };
    crate::output::write_bytes(&a.output, bytes)?;
    eprintln!("wrote {}", a.output.display());
    Ok(ExitCode::SUCCESS)
}
