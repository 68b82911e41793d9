//! The visual debugger: a window (eframe/egui) around a [`model::Model`] that reads a
//! [`handscope_sim::trace::Trace`] from a live engine in a worker thread or from a replayed
//! VCD, plus the headless renderer behind `handscope render`.

pub mod binding;
pub mod breakpoints;
pub mod circuit;
pub mod cycle;
pub mod describe;
pub mod frame_bench;
pub mod history;
pub mod inspect;
pub mod layout;
pub mod model;
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

/// True when a display server is reachable (X11 or Wayland).
pub fn have_display() -> bool {
    ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|x| !x.is_empty()))
}

const NO_DISPLAY: &str = "handscope: no display available (neither DISPLAY nor WAYLAND_DISPLAY is set), so the debugger window cannot open.";

const RENDER_HINT: &str = "Draw the view at a cycle without a window instead:\n    handscope render FILE [--in NAME=TOKENS ...] --cycle N -o view.svg   (or view.png)";

/// Opens the debugger window on `start`. Without a display, says so and points to `render`.
pub fn run(start: Start) -> ExitCode {
    if !have_display() {
        eprintln!("{NO_DISPLAY}\n{RENDER_HINT}");
        return ExitCode::from(crate::cli::exit::NO_DISPLAY);
    }
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
            let wake: model::Wake = Arc::new(move || ctx.request_repaint());
            Ok(Box::new(Window(ui::DebuggerApp::new(start, wake))))
        }),
    );
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let display = ["WAYLAND_DISPLAY", "DISPLAY"]
                .iter()
                .filter_map(|v| std::env::var(v).ok().filter(|x| !x.is_empty()))
                .map(|x| format!("`{x}`"))
                .collect::<Vec<_>>()
                .join(" / ");
            eprintln!(
                "handscope: cannot open the debugger window on display {display}: {e}\n{RENDER_HINT}"
            );
            ExitCode::from(crate::cli::exit::NO_DISPLAY)
        }
    }
}

struct Window(ui::DebuggerApp);

impl eframe::App for Window {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.0.show(ui);
    }
}
