//! The visual debugger: a window (eframe/egui) around a [`model::Model`] that reads a
//! [`handscope_sim::trace::Trace`] from a live engine in a worker thread or from a replayed
//! VCD, plus the headless renderer behind `handscope render`.

pub mod binding;
pub mod breakpoints;
pub mod circuit;
pub mod cycle;
pub mod describe;
pub mod follow_job;
pub mod frame_bench;
pub mod history;
pub mod inspect;
pub mod layout;
pub mod layout_stack;
pub mod layout_stats;
pub mod model;
pub mod picture;
pub mod png;
pub mod program_order;
pub mod reload;
pub mod render;
pub mod scene;
pub mod style;
pub mod sugiyama;
pub mod svg;
pub mod trace_source;
pub mod ui;
pub mod worker;

#[cfg(test)]
mod tests;

use std::process::ExitCode;
use std::sync::Arc;

use model::Start;

/// The environment variables naming a display this build can open a window on: X11's, and
/// Wayland's when built with the `wayland` feature (without it, Wayland desktops serve the
/// window through XWayland, which sets `DISPLAY`).
const DISPLAY_VARS: &[&str] = if cfg!(feature = "wayland") {
    &["DISPLAY", "WAYLAND_DISPLAY"]
} else {
    &["DISPLAY"]
};

fn env_set(var: &str) -> bool {
    std::env::var_os(var).is_some_and(|x| !x.is_empty())
}

/// True when a display server this build can use is reachable (X11, or Wayland with the
/// `wayland` feature).
pub fn have_display() -> bool {
    DISPLAY_VARS.iter().any(|v| env_set(v))
}

/// Why no window can open: no display, or only a Wayland one in a build without Wayland.
fn no_display_message() -> String {
    if !cfg!(feature = "wayland") && env_set("WAYLAND_DISPLAY") {
        "handscope: only a Wayland display is set (WAYLAND_DISPLAY, no DISPLAY), and this build opens its window through X11: start XWayland (it sets DISPLAY), or build the native Wayland window with `cargo run --release --features wayland`.".to_owned()
    } else if cfg!(feature = "wayland") {
        "handscope: no display available (neither DISPLAY nor WAYLAND_DISPLAY is set), so the debugger window cannot open.".to_owned()
    } else {
        "handscope: no display available (DISPLAY is not set), so the debugger window cannot open."
            .to_owned()
    }
}

const RENDER_HINT: &str = "Draw the view at a cycle without a window instead:\n    handscope render FILE [--in NAME=TOKENS ...] --cycle N -o view.svg   (or view.png)";

/// A VCD for the window to follow while it is written.
pub struct Follow {
    /// The file.
    pub path: std::path::PathBuf,
    /// How to map it onto the circuit (scope of the design in a testbench's VCD).
    pub opts: handscope_traces::vcd_in::ReplayOptions,
    /// Set once the writer ended.
    pub writer_done: Arc<std::sync::atomic::AtomicBool>,
}

/// Opens the debugger window on `start` (serving WCP with `wcp`). Without a display, says so
/// and points to `render`.
/// With `follow`, the view follows that VCD while it is written (the flag says when it is
/// complete). With `compare`, the compare view opens with that file beside the circuit.
pub fn run(
    start: Start,
    wcp: Option<crate::wcp::server::ServerOptions>,
    follow: Option<Follow>,
    compare: Option<std::path::PathBuf>,
) -> ExitCode {
    if !have_display() {
        eprintln!("{}\n{RENDER_HINT}", no_display_message());
        return ExitCode::from(crate::exit::NO_DISPLAY);
    }
    // The WCP server starts before the window so that a port in use is a plain error; it
    // wakes the window once the window exists.
    let ctx_slot: Arc<std::sync::OnceLock<egui::Context>> = Arc::default();
    let server = match wcp {
        None => None,
        Some(opts) => {
            let slot = ctx_slot.clone();
            let wake: model::Wake = Arc::new(move || {
                if let Some(ctx) = slot.get() {
                    ctx.request_repaint();
                }
            });
            match crate::wcp::server::Server::start(&opts, wake) {
                Ok(s) => {
                    if let Err(e) = outln!("WCP: listening on {}", s.local_addr)
                        .and_then(|()| outln!("WCP: token {}", s.token))
                    {
                        eprintln!("error: {e:#}");
                        return ExitCode::from(crate::exit::ERROR);
                    }
                    Some(s)
                }
                Err(e) => {
                    eprintln!("error: {e:#}");
                    return ExitCode::from(crate::exit::ERROR);
                }
            }
        }
    };
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_inner_size([1400.0, 900.0])
            .with_title("Handscope"),
        ..Default::default()
    };
    let result = eframe::run_native(
        "Handscope",
        options,
        Box::new(move |cc| {
            let ctx = cc.egui_ctx.clone();
            let _ = ctx_slot.set(ctx.clone());
            let wake: model::Wake = Arc::new(move || ctx.request_repaint());
            let mut app = ui::DebuggerApp::new(start, wake);
            if let Some(f) = follow {
                app.model.follow_vcd(&f.path, f.opts, f.writer_done);
            }
            if let Some(p) = compare {
                app.model.compare_file = Some(p);
                app.model
                    .open_compare(Some(crate::app::model::Setting::File));
            }
            if let Some(server) = server {
                app.attach_wcp(server);
            }
            Ok(Box::new(Window(app)))
        }),
    );
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let display = DISPLAY_VARS
                .iter()
                .filter_map(|v| std::env::var(v).ok().filter(|x| !x.is_empty()))
                .map(|x| format!("`{x}`"))
                .collect::<Vec<_>>()
                .join(" / ");
            eprintln!(
                "handscope: cannot open the debugger window on display {display}: {e}\n{RENDER_HINT}"
            );
            ExitCode::from(crate::exit::NO_DISPLAY)
        }
    }
}

struct Window(ui::DebuggerApp);

impl eframe::App for Window {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.0.show(ui);
    }
}
