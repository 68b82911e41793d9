//! Transport controls and the timeline: step, play/pause with speed, go to cycle, an activity
//! sparkline with event marks, run to breakpoints in both directions.

use egui::{Pos2, Rect, Sense, Stroke, Vec2};

use crate::app::breakpoints::Dir;
use crate::app::model::Model;

/// Transport buttons and the cycle readout.
pub fn transport(ui: &mut egui::Ui, m: &mut Model, goto_text: &mut String) {
    ui.horizontal(|ui| {
        if ui
            .button("|<")
            .on_hover_text("First cycle (Home)")
            .clicked()
        {
            m.goto(0);
        }
        if ui
            .button("<< Breakpoint")
            .on_hover_text("Run back to the previous breakpoint (Shift+Left)")
            .clicked()
        {
            m.run_to_breakpoint(Dir::Backward);
        }
        if ui
            .button("< Step back")
            .on_hover_text("One cycle back (Left)")
            .clicked()
        {
            m.step(-1);
        }
        let play = if m.playing { "Pause" } else { "Play" };
        if ui
            .button(play)
            .on_hover_text("Play or pause (Space)")
            .clicked()
        {
            m.playing = !m.playing;
        }
        if ui
            .button("Step forward >")
            .on_hover_text("One cycle forward (Right)")
            .clicked()
        {
            m.step(1);
        }
        if ui
            .button("Breakpoint >>")
            .on_hover_text("Run to the next breakpoint (Shift+Right)")
            .clicked()
        {
            m.run_to_breakpoint(Dir::Forward);
        }
        ui.add(
            egui::Slider::new(&mut m.speed, 0.5..=200.0)
                .logarithmic(true)
                .text("cycles/s"),
        );
        ui.separator();
        let total = m.cycles();
        let more = if m.complete() {
            String::new()
        } else {
            "+".into()
        };
        ui.label(format!(
            "cycle {} / {}{more}",
            m.cycle,
            total.saturating_sub(1)
        ));
        let r = ui.add(
            egui::TextEdit::singleline(goto_text)
                .desired_width(60.0)
                .hint_text("go to"),
        );
        if r.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
            if let Ok(c) = goto_text.trim().parse::<u64>() {
                m.goto(c);
            }
            goto_text.clear();
        }
        if let Some(r) = m.source.as_ref().and_then(|s| s.report()) {
            ui.label(format!(
                "run: {} after {} cycles",
                r.status.as_str(),
                r.cycles
            ));
        }
        if !m.status.is_empty() {
            ui.separator();
            // Elided to the row's end (the whole line on hover), never wrapped or cut.
            ui.add(egui::Label::new(&m.status).truncate())
                .on_hover_text(&m.status);
        }
    });
}

/// The timeline strip: activity per cycle, event marks, the cursor; click or drag to seek.
pub fn timeline(ui: &mut egui::Ui, m: &mut Model) {
    let h = 38.0;
    let (rect, resp) =
        ui.allocate_exact_size(Vec2::new(ui.available_width(), h), Sense::click_and_drag());
    let pal = m.look.palette();
    let p = ui.painter_at(rect);
    p.rect_filled(rect, 2.0, pal.cluster.egui());
    let n = m.cycles().max(1);
    let x_of = |c: u64| rect.left() + (c as f32 + 0.5) / n as f32 * rect.width();
    let max = m.activity.iter().copied().max().unwrap_or(1).max(1) as f32;
    let per_px = (n as f32 / rect.width()).max(1.0);
    let mut c = 0usize;
    while c < m.activity.len() {
        let end = ((c as f32 + per_px) as usize)
            .min(m.activity.len())
            .max(c + 1);
        let v = m.activity[c..end].iter().copied().max().unwrap_or(0) as f32;
        let x = x_of(c as u64);
        let y = rect.bottom() - 4.0 - v / max * (h - 12.0);
        p.line_segment(
            [Pos2::new(x, rect.bottom() - 4.0), Pos2::new(x, y)],
            Stroke::new(
                (rect.width() / n as f32).clamp(1.0, 6.0),
                pal.chan[0].egui(),
            ),
        );
        c = end;
    }
    // Event marks: outputs, runtime events, deadlock, breakpoint markers.
    if let Some(r) = m.source.as_ref().and_then(|s| s.report()) {
        for toks in r.outputs.values() {
            for t in toks {
                p.circle_filled(
                    Pos2::new(x_of(t.cycle), rect.top() + 5.0),
                    3.0,
                    pal.chan[2].egui(),
                );
            }
        }
        for e in &r.events {
            p.circle_filled(
                Pos2::new(x_of(e.cycle), rect.top() + 5.0),
                3.0,
                pal.chan[1].egui(),
            );
        }
        if let Some(d) = &r.deadlock {
            let x = x_of(d.since_cycle);
            p.rect_filled(
                Rect::from_min_max(
                    Pos2::new(x, rect.top()),
                    Pos2::new(rect.right(), rect.bottom()),
                ),
                0.0,
                pal.deadlock.with_alpha(40).egui(),
            );
            p.text(
                Pos2::new(x + 3.0, rect.top() + 2.0),
                egui::Align2::LEFT_TOP,
                "deadlock",
                egui::FontId::proportional(11.0),
                pal.deadlock.egui(),
            );
        }
    }
    for &mk in &m.markers {
        p.line_segment(
            [
                Pos2::new(x_of(mk), rect.top()),
                Pos2::new(x_of(mk), rect.bottom()),
            ],
            Stroke::new(1.0, pal.selected.egui()),
        );
    }
    let x = x_of(m.cycle);
    p.line_segment(
        [Pos2::new(x, rect.top()), Pos2::new(x, rect.bottom())],
        Stroke::new(2.0, pal.text.egui()),
    );
    if (resp.clicked() || resp.dragged())
        && let Some(pos) = resp.interact_pointer_pos()
    {
        let c = ((pos.x - rect.left()) / rect.width() * n as f32)
            .floor()
            .max(0.0) as u64;
        m.goto(c.min(n - 1));
    }
    resp.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Slider, true, "timeline"));
}
