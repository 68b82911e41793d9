//! The window: toolbar, source panel, graph view, side panel, timeline and waveforms.

pub mod graph_view;
pub mod keyboard;
pub mod lesson_panel;
pub mod side_panel;
pub mod source_panel;
pub mod timeline;
pub mod waveform;

use handscope_sim::spec::timing::{Base, TimingProfile};
use std::time::Instant;

use crate::app::model::{Model, Start, Wake};
use crate::app::style::{Radix, Theme};

/// The debugger window's state.
pub struct DebuggerApp {
    /// The model.
    pub model: Model,
    /// Graph pan/zoom.
    pub view: graph_view::GraphView,
    /// Pan/zoom of the compare view's other graph.
    pub view2: graph_view::GraphView,
    /// Waveform range.
    pub waves: waveform::WaveView,
    bp: side_panel::BpEditor,
    goto_text: String,
    goto_open: bool,
    help_open: bool,
    focus_search: bool,
    open_text: String,
    last_frame: Option<Instant>,
    last_sel: Option<crate::app::describe::Selection>,
    applied_look: Option<(Theme, bool)>,
    log_cursor: Option<Option<u64>>,
    /// The WCP server and its hub (`handscope gui --wcp`).
    wcp: Option<(crate::wcp::server::Server, crate::wcp::hub::Hub)>,
    /// The window title last sent (it names the file and, for a replay, the trace).
    pub title: Option<String>,
    /// Which panels are open (`1` source, `2` side panel, `3` waveforms).
    pub panels: Panels,
}

/// The panels around the graph that can be collapsed (presentation mode collapses the source
/// and the waveforms).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Panels {
    /// The source panel (left).
    pub source: bool,
    /// The side panel (right): lesson, check, selection, deadlock, breakpoints.
    pub side: bool,
    /// The waveforms (bottom; the activity strip stays).
    pub waves: bool,
}

impl Default for Panels {
    fn default() -> Self {
        Panels {
            source: true,
            side: true,
            waves: true,
        }
    }
}

/// The zoom factor of the whole window in presentation mode.
pub const PRESENTATION_ZOOM: f32 = 1.25;

/// The smallest node label in presentation mode, in points (at [`PRESENTATION_ZOOM`], 17.5
/// screen pixels): fitting never zooms the graph out further than that.
pub const PRESENTATION_MIN_LABEL: f32 = 14.0;

impl DebuggerApp {
    /// A window showing `start`.
    pub fn new(start: Start, wake: Wake) -> DebuggerApp {
        DebuggerApp {
            model: Model::new(start, wake),
            view: graph_view::GraphView::default(),
            view2: graph_view::GraphView::default(),
            waves: waveform::WaveView::default(),
            bp: side_panel::BpEditor::default(),
            goto_text: String::new(),
            goto_open: false,
            help_open: false,
            focus_search: false,
            open_text: String::new(),
            last_frame: None,
            last_sel: None,
            applied_look: None,
            log_cursor: std::env::var_os("HANDSCOPE_LOG_CURSOR").map(|_| None),
            wcp: None,
            title: None,
            panels: Panels::default(),
        }
    }

    /// Answers the clients of `server` from this window's frame loop (`handscope gui
    /// --wcp`), which never waits on a client.
    pub fn attach_wcp(&mut self, server: crate::wcp::server::Server) {
        self.model.status = format!("WCP: listening on {}", server.local_addr);
        let hub = crate::wcp::hub::Hub::new(&server);
        self.wcp = Some((server, hub));
    }

    fn apply_look(&mut self, ctx: &egui::Context) {
        let look = (self.model.look.theme, self.model.look.presentation);
        if self.applied_look == Some(look) {
            return;
        }
        let presentation_changed = self.applied_look.is_some_and(|(_, p)| p != look.1)
            || (self.applied_look.is_none() && look.1);
        self.applied_look = Some(look);
        ctx.set_theme(match look.0 {
            Theme::Light => egui::Theme::Light,
            Theme::Dark => egui::Theme::Dark,
        });
        ctx.set_zoom_factor(if look.1 { PRESENTATION_ZOOM } else { 1.0 });
        if presentation_changed {
            // The graph gets the room: source and waveforms collapse (keys 1 and 3 bring
            // them back), and the view fits again.
            self.panels.source = !look.1;
            self.panels.waves = !look.1;
            self.view.fit_request = true;
        }
        self.view.min_label = if look.1 { PRESENTATION_MIN_LABEL } else { 0.0 };
    }

    /// Draws one frame into `ui` (the whole window).
    pub fn show(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        let now = Instant::now();
        let dt = self
            .last_frame
            .map_or(0.0, |t| now.duration_since(t).as_secs_f32())
            .min(0.25);
        self.last_frame = Some(now);
        if let Some(w) = &self.model.watcher
            && w.take_change()
        {
            self.model.reload();
        }
        let acts = keyboard::handle(&ctx, &mut self.model);
        self.apply_look(&ctx);
        if acts.fit {
            self.view.fit_request = true;
        }
        if acts.goto {
            self.goto_open = true;
        }
        if acts.help {
            self.help_open = !self.help_open;
        }
        if acts.search {
            self.focus_search = true;
        }
        if let Some(k) = acts.toggle_panel {
            match k {
                1 => self.panels.source = !self.panels.source,
                2 => self.panels.side = !self.panels.side,
                _ => self.panels.waves = !self.panels.waves,
            }
            self.view.fit_request = true;
        }
        if acts.escape {
            self.goto_open = false;
            self.help_open = false;
        }
        self.model.update(dt);
        if let Some((_, hub)) = &mut self.wcp {
            if hub.poll(&mut self.model) {
                ctx.request_repaint();
            }
            if hub.shutdown_requested
                && let Some((server, _)) = self.wcp.take()
            {
                // Stopping waits for the connections to close: not on the frame loop.
                std::thread::spawn(move || drop(server));
                self.model.status = "WCP: a client shut the server down".into();
            }
        }
        let title = self.model.title();
        if self.title.as_deref() != Some(title.as_str()) {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.title = Some(title);
        }
        if let Some(last) = &mut self.log_cursor
            && self.model.cycle_state().is_some()
            && self.model.layout.is_some()
            && *last != Some(self.model.cycle)
        {
            // For scripted tests of the real window (HANDSCOPE_LOG_CURSOR=1).
            *last = Some(self.model.cycle);
            let _ = outln!("cursor {}", self.model.cycle).and_then(|()| crate::stdout::flush());
        }
        let m = &mut self.model;
        let before = self.panels;
        egui::Panel::top("toolbar").show(ui, |ui| {
            toolbar(
                ui,
                m,
                &mut self.open_text,
                &mut self.focus_search,
                &mut self.view,
                &mut self.help_open,
                &mut self.panels,
            );
            timeline::transport(ui, m, &mut self.goto_text);
        });
        if self.panels != before {
            self.view.fit_request = true;
        }
        if self.panels.waves {
            egui::Panel::bottom("time")
                .resizable(true)
                .default_size(230.0)
                .show(ui, |ui| {
                    timeline::timeline(ui, m);
                    waveform::show(ui, m, &mut self.waves);
                });
        } else {
            egui::Panel::bottom("time_strip")
                .resizable(false)
                .show(ui, |ui| {
                    timeline::timeline(ui, m);
                });
        }
        let sel_changed = self.last_sel != m.selection;
        self.last_sel = m.selection;
        if self.panels.source {
            egui::Panel::left("source")
                .resizable(true)
                .default_size(360.0)
                .show(ui, |ui| {
                    source_panel::show(ui, m, sel_changed);
                });
        }
        if self.panels.side {
            egui::Panel::right("side")
                .resizable(true)
                .default_size(340.0)
                .show(ui, |ui| {
                    side_panel::show(ui, m, &mut self.bp);
                });
        }
        let font_scale = if m.look.presentation {
            graph_view::PRESENTATION_FONT
        } else {
            1.0
        };
        self.view2.min_label = self.view.min_label;
        egui::CentralPanel::default()
            .frame(egui::Frame::NONE)
            .show(ui, |ui| match m.compare.take() {
                None => self.view.show(ui, m, font_scale),
                Some(mut cmp) => {
                    // Side by side: this setting and the other, one cursor.
                    let mut close = false;
                    let (f0, f1) = match &cmp.figures {
                        Some((a, b)) => ((a.summary(), a.line()), (b.summary(), b.line())),
                        None => {
                            let r = ("running...".to_string(), String::new());
                            (r.clone(), r)
                        }
                    };
                    let figures = |ui: &mut egui::Ui, (short, all): (String, String)| {
                        let r = ui.add(egui::Label::new(short).truncate());
                        if !all.is_empty() {
                            r.on_hover_text(all);
                        }
                    };
                    ui.columns(2, |cols| {
                        cols[0].horizontal_wrapped(|ui| {
                            ui.strong(&cmp.base_label);
                            if ui.small_button("close compare (k)").clicked() {
                                close = true;
                            }
                        });
                        figures(&mut cols[0], f0);
                        cols[0].push_id("compare-main", |ui| {
                            self.view.show(ui, m, font_scale);
                        });
                        cols[1].strong(&cmp.other_label);
                        figures(&mut cols[1], f1);
                        cols[1].push_id("compare-other", |ui| {
                            self.view2.show(ui, &mut cmp.other, font_scale);
                        });
                    });
                    if !close && m.compare.is_none() {
                        m.compare = Some(cmp);
                    }
                }
            });
        if self.goto_open {
            let mut open = true;
            egui::Window::new("Go to cycle")
                .open(&mut open)
                .collapsible(false)
                .show(&ctx, |ui| {
                    let r = ui.text_edit_singleline(&mut self.goto_text);
                    r.request_focus();
                    if ui.input(|i| i.key_pressed(egui::Key::Enter)) {
                        if let Ok(c) = self.goto_text.trim().parse::<u64>() {
                            self.model.goto(c);
                        }
                        self.goto_text.clear();
                        self.goto_open = false;
                    }
                });
            self.goto_open &= open;
        }
        if self.help_open {
            let mut open = true;
            egui::Window::new("Keyboard shortcuts")
                .open(&mut open)
                .show(&ctx, |ui| {
                    egui::Grid::new("keys").striped(true).show(ui, |ui| {
                        for (k, what) in keyboard::SHEET {
                            ui.monospace(*k);
                            ui.label(*what);
                            ui.end_row();
                        }
                    });
                    ui.separator();
                    ui.strong("Mouse");
                    egui::Grid::new("mouse").striped(true).show(ui, |ui| {
                        for (k, what) in keyboard::MOUSE_SHEET {
                            ui.label(*k);
                            ui.label(*what);
                            ui.end_row();
                        }
                    });
                });
            self.help_open &= open;
        }
        if self.model.playing
            || self.model.anim < 1.0
            || self.model.searching()
            || self.model.want.is_some()
        {
            ctx.request_repaint();
        }
    }
}

/// Writes the view at the cursor as `dir/handscope-cycle{N}.{ext}` (`svg` or `png`); returns
/// the status line.
pub(crate) fn export_view(m: &mut Model, ext: &str, dir: &std::path::Path) -> String {
    let Some(picture) = crate::app::render::picture_of(m) else {
        return "nothing to export yet".into();
    };
    let name = dir
        .join(format!("handscope-cycle{}.{ext}", m.cycle))
        .display()
        .to_string();
    let bytes = if ext == "png" {
        match crate::app::png::to_png(&picture, 1.5) {
            Ok(b) => b,
            Err(e) => return format!("cannot draw {name}: {e}"),
        }
    } else {
        crate::app::svg::to_svg(&picture).into_bytes()
    };
    match crate::output::write_bytes(std::path::Path::new(&name), bytes) {
        Ok(()) => format!("wrote {name}"),
        Err(e) => format!("{e:#}"),
    }
}

fn toolbar(
    ui: &mut egui::Ui,
    m: &mut Model,
    open_text: &mut String,
    focus_search: &mut bool,
    view: &mut graph_view::GraphView,
    help: &mut bool,
    panels: &mut Panels,
) {
    // One row that fits 1280 pixels even in presentation mode: the display options live in
    // the View menu.
    let compact = m.look.presentation;
    ui.horizontal(|ui| {
        ui.strong("Handscope");
        let current = match m.circuit.as_ref().map(|c| &c.origin) {
            Some(crate::app::circuit::Origin::Example(i)) => {
                crate::examples::CIRCUITS[*i].name.to_string()
            }
            Some(crate::app::circuit::Origin::File(p)) => p
                .file_name()
                .map_or(p.display().to_string(), |n| n.to_string_lossy().into_owned()),
            None => "-".into(),
        };
        let mut pick = None;
        egui::ComboBox::from_label("example")
            .selected_text(current)
            .width(if compact { 150.0 } else { 190.0 })
            .show_ui(ui, |ui| {
                for (i, ex) in crate::examples::CIRCUITS.iter().enumerate() {
                    if ui.selectable_label(false, ex.name).clicked() {
                        pick = Some(i);
                    }
                }
            });
        if let Some(i) = pick {
            m.lesson = None;
            m.vcd = None;
            m.open_example(i);
        }
        if let Some(fl) = &mut m.follow {
            ui.checkbox(&mut fl.newest, "follow newest cycle")
                .on_hover_text("keep the cursor at the newest cycle of the file being written");
        }
        let mut timing = None;
        egui::ComboBox::from_label("timing")
            .selected_text(m.timing.name().to_string())
            .width(70.0)
            .show_ui(ui, |ui| {
                for b in [Base::Ideal, Base::Fpga] {
                    if ui
                        .selectable_label(m.timing.name() == b.name(), b.name())
                        .on_hover_text(match b {
                            Base::Ideal => "combinational units, memories answer at once (CIRCT's RTL)",
                            Base::Fpga => "pipelined arithmetic and a 1-cycle memory read (docs/timing.md)",
                        })
                        .clicked()
                    {
                        timing = Some(TimingProfile::builtin(b));
                    }
                }
            });
        if let Some(t) = timing {
            m.set_timing(t);
        }
        let mut pick_lesson = None;
        egui::ComboBox::from_label("lesson")
            .selected_text(
                m.lesson
                    .as_ref()
                    .map_or("-".to_string(), |l| l.named.lesson.title.clone()),
            )
            .width(if compact { 120.0 } else { 160.0 })
            .show_ui(ui, |ui| {
                for b in crate::lessons::BUILTIN {
                    if ui.selectable_label(false, b.name).clicked() {
                        pick_lesson = Some(b.name);
                    }
                }
            });
        if let Some(name) = pick_lesson {
            match crate::lessons::find(name) {
                Ok(l) => m.open_lesson(l, 0),
                Err(e) => m.error = Some(format!("{e:#}")),
            }
        }
        let r = ui.add(
            egui::TextEdit::singleline(open_text)
                .desired_width(if compact { 90.0 } else { 140.0 })
                .hint_text("open file..."),
        );
        if r.lost_focus()
            && ui.input(|i| i.key_pressed(egui::Key::Enter))
            && !open_text.trim().is_empty()
        {
            let p = std::path::PathBuf::from(open_text.trim());
            m.vcd = None;
            m.lesson = None;
            m.open_file(&p);
        }
        let s = ui.add(
            egui::TextEdit::singleline(&mut m.search)
                .desired_width(if compact { 80.0 } else { 120.0 })
                .hint_text("/ search"),
        );
        if *focus_search {
            s.request_focus();
            *focus_search = false;
        }
        if s.lost_focus()
            && ui.input(|i| i.key_pressed(egui::Key::Enter))
            && let Some(&n) = m.matches().first()
        {
            m.focus_node(n);
        }
        if ui
            .button("Fit")
            .on_hover_text("Fit the graph (f)")
            .clicked()
        {
            view.fit_request = true;
        }
        ui.menu_button("View", |ui| {
            egui::ComboBox::from_label("values as")
                .selected_text(m.look.radix.name())
                .width(80.0)
                .show_ui(ui, |ui| {
                    for r in Radix::ALL {
                        ui.selectable_value(&mut m.look.radix, r, r.name());
                    }
                });
            ui.checkbox(&mut m.look.values, "values on edges (v)");
            ui.checkbox(&mut m.look.colour_blind, "colour-blind palette (c)");
            ui.checkbox(&mut m.look.presentation, "presentation mode (p)");
            let mut dark = m.look.theme == Theme::Dark;
            if ui.checkbox(&mut dark, "dark theme (t)").changed() {
                m.look.theme = if dark { Theme::Dark } else { Theme::Light };
            }
            ui.separator();
            ui.label("compare with (k):");
            let current = m.compare.as_ref().map(|c| c.setting);
            let mut pick = None;
            for (set, label) in [
                (None, "off"),
                (
                    Some(crate::app::model::Setting::TaskPipelining),
                    "task pipelining toggled",
                ),
                (Some(crate::app::model::Setting::BuffersAll), "buffers: all"),
                (Some(crate::app::model::Setting::BuffersCycles), "buffers: cycles"),
                (Some(crate::app::model::Setting::BuffersNone), "buffers: none"),
                (Some(crate::app::model::Setting::Timing), "timing: the other profile"),
                (
                    Some(crate::app::model::Setting::Schedule),
                    "schedule: hybrid beside dynamic",
                ),
                (Some(crate::app::model::Setting::File), "the --compare file"),
            ] {
                if set == Some(crate::app::model::Setting::File) && m.compare_file.is_none() {
                    continue;
                }
                if ui.radio(current == set, label).clicked() {
                    pick = Some(set);
                }
            }
            if let Some(set) = pick {
                m.open_compare(set);
            }
            ui.separator();
            ui.checkbox(&mut panels.source, "source panel (1)");
            ui.checkbox(&mut panels.side, "side panel (2)");
            ui.checkbox(&mut panels.waves, "waveforms (3)");
            ui.separator();
            for (label, ext) in [("Export SVG", "svg"), ("Export PNG", "png")] {
                if ui
                    .button(label)
                    .on_hover_text(format!(
                        "Write the graph view at this cycle to handscope-cycleN.{ext} in the working directory"
                    ))
                    .clicked()
                {
                    m.status = export_view(m, ext, std::path::Path::new("."));
                    ui.close();
                }
            }
        });
        if ui
            .selectable_label(m.look.presentation, "Present")
            .on_hover_text("Presentation mode (p): larger graph labels, source and waveforms folded")
            .clicked()
        {
            m.look.presentation = !m.look.presentation;
        }
        if ui.button("?").on_hover_text("Keys and mouse actions").clicked() {
            *help = !*help;
        }
        if let Some(v) = m.replayed_trace() {
            ui.label(format!(
                "replay of {}",
                v.file_name()
                    .map_or(v.display().to_string(), |n| n.to_string_lossy().into_owned())
            ));
        }
    });
    if let Some(e) = &m.error {
        ui.colored_label(
            m.look.palette().deadlock.egui(),
            format!("error: {}", e.lines().next().unwrap_or("")),
        );
    }
}
