//! The waveform panel: valid/ready/data of the chosen channels over time, cursor synced with
//! the graph. Surfer/GTKWave habits: the view fits the whole run until you zoom or pan, drag
//! to zoom into a range, scroll to pan, Ctrl+scroll to zoom, click to move the cursor,
//! right-click to drop a marker (markers are numbered; the distance between the last two and
//! from the last one to the cursor are shown).

use egui::{Pos2, Rect, Sense, Stroke, Vec2};

use crate::app::history;
use crate::app::model::Model;
use crate::app::style::{ChanState, format_value};

/// The visible range of the waveform panel.
pub struct WaveView {
    /// First visible cycle.
    pub start: f64,
    /// One past the last visible cycle.
    pub end: f64,
    /// The user zoomed or panned: stop fitting the run.
    pub touched: bool,
    generation: Option<u64>,
    last_cursor: Option<u64>,
    drag_from: Option<f32>,
}

impl Default for WaveView {
    fn default() -> Self {
        WaveView {
            start: 0.0,
            end: 64.0,
            touched: false,
            generation: None,
            last_cursor: None,
            drag_from: None,
        }
    }
}

const NAME_W: f32 = 150.0;
const ROW_H: f32 = 22.0;

/// Draws the panel.
pub fn show(ui: &mut egui::Ui, m: &mut Model, wv: &mut WaveView) {
    // A range a remote client asked for (WCP `set_viewport_range`, `zoom_to_fit`).
    match m.wave_range.take() {
        Some(Some((first, last))) => {
            wv.start = first as f64;
            wv.end = last as f64 + 1.0;
            wv.touched = true;
        }
        Some(None) => wv.touched = false,
        None => {}
    }
    let pal = m.look.palette();
    ui.horizontal(|ui| {
        ui.label(egui::RichText::new("Waveforms").strong());
        if ui
            .small_button("fit")
            .on_hover_text("show the whole run")
            .clicked()
        {
            wv.touched = false;
        }
        if ui.small_button("marker at cursor").clicked() {
            m.markers.push(m.cycle);
        }
        if !m.markers.is_empty() && ui.small_button("clear markers").clicked() {
            m.markers.clear();
        }
        if m.markers.len() >= 2 {
            let (a, b) = (
                m.markers[m.markers.len() - 2],
                m.markers[m.markers.len() - 1],
            );
            ui.label(format!(
                "M{}-M{}: {} cycles",
                m.markers.len() - 1,
                m.markers.len(),
                a.abs_diff(b)
            ));
        }
        if let Some(&last) = m.markers.last() {
            ui.label(format!(
                "M{}-cursor: {} cycles",
                m.markers.len(),
                last.abs_diff(m.cycle)
            ));
        }
        if m.waves.is_empty() {
            ui.label("(select a channel and press \"Add to waveforms\", or w)");
        }
    });
    if wv.generation != Some(m.generation) {
        wv.generation = Some(m.generation);
        wv.touched = false;
    }
    if !wv.touched {
        // Fit the whole run (it grows while the engine extends it).
        wv.start = 0.0;
        wv.end = m.cycles().max(8) as f64;
    }
    let rows = m.waves.clone();
    let height = (rows.len() as f32 * ROW_H + 18.0).max(40.0);
    let (rect, resp) = ui.allocate_exact_size(
        Vec2::new(ui.available_width(), height),
        Sense::click_and_drag(),
    );
    let p = ui.painter_at(rect);
    p.rect_filled(rect, 0.0, pal.background.egui());
    let plot = Rect::from_min_max(Pos2::new(rect.left() + NAME_W, rect.top()), rect.max);
    let (start0, span) = (wv.start, (wv.end - wv.start).max(1.0));
    let c_of = |x: f32| start0 + f64::from((x - plot.left()) / plot.width()) * span;
    // Interaction.
    if resp.hovered() {
        let (scroll, ctrl, hover) = ui.input(|i| {
            (
                i.smooth_scroll_delta,
                i.modifiers.command,
                i.pointer.hover_pos(),
            )
        });
        if ctrl {
            let f = f64::from((-scroll.y / 200.0).exp());
            let at = hover.map_or(f64::from(m.cycle as u32), |h| c_of(h.x));
            if (f - 1.0).abs() > 1e-6 {
                wv.start = at - (at - wv.start) * f;
                wv.end = at + (wv.end - at) * f;
                wv.touched = true;
            }
        } else if scroll.y != 0.0 || scroll.x != 0.0 {
            let d = f64::from((scroll.x + scroll.y) / plot.width()) * span;
            wv.start -= d;
            wv.end -= d;
            wv.touched = true;
        }
    }
    if resp.drag_started() {
        // Where the button went down, not where the drag was recognised.
        wv.drag_from = ui
            .input(|i| i.pointer.press_origin())
            .or(resp.interact_pointer_pos())
            .map(|p| p.x);
    }
    if let (Some(a), Some(b)) = (wv.drag_from, resp.interact_pointer_pos())
        && resp.dragged()
    {
        let r = Rect::from_min_max(
            Pos2::new(a.min(b.x), plot.top()),
            Pos2::new(a.max(b.x), plot.bottom()),
        );
        p.rect_filled(r, 0.0, pal.selected.with_alpha(40).egui());
    }
    if resp.drag_stopped() {
        if let (Some(a), Some(b)) = (wv.drag_from, resp.interact_pointer_pos())
            && (a - b.x).abs() > 6.0
        {
            let (s, e) = (c_of(a.min(b.x)), c_of(a.max(b.x)));
            wv.start = s.floor();
            wv.end = e.ceil().max(wv.start + 2.0);
            wv.touched = true;
        }
        wv.drag_from = None;
    } else if resp.clicked()
        && let Some(pos) = resp.interact_pointer_pos()
        && pos.x > plot.left()
    {
        m.goto(c_of(pos.x).floor().max(0.0) as u64);
    }
    if resp.secondary_clicked()
        && let Some(pos) = resp.interact_pointer_pos()
    {
        m.markers.push(c_of(pos.x).floor().max(0.0) as u64);
    }
    wv.start = wv.start.max(0.0);
    if wv.end <= wv.start + 1.0 {
        wv.end = wv.start + 2.0;
    }
    // Follow the cursor when it moves out of view (not when the view moves off the cursor).
    let cur = m.cycle as f64;
    let moved = wv.last_cursor != Some(m.cycle);
    wv.last_cursor = Some(m.cycle);
    if wv.touched && moved && (cur < wv.start || cur >= wv.end) {
        let w = wv.end - wv.start;
        wv.start = (cur - w / 2.0).max(0.0);
        wv.end = wv.start + w;
    }
    let (start, span) = (wv.start, (wv.end - wv.start).max(1.0));
    let x_of = |c: f64| plot.left() + ((c - start) / span) as f32 * plot.width();
    // Rows.
    let radix = m.look.radix;
    let font = egui::FontId::monospace(11.0);
    let char_w = ui.fonts_mut(|f| f.glyph_width(&font, 'M')).max(1.0);
    let name_chars = ((NAME_W - 8.0) / char_w).floor().max(4.0) as usize;
    for (k, &ch) in rows.iter().enumerate() {
        let y0 = rect.top() + k as f32 * ROW_H + 2.0;
        let (name, ty) = match &m.circuit {
            Some(c) => (
                c.func.channels[ch].name.clone(),
                c.func.channels[ch].ty.clone(),
            ),
            None => continue,
        };
        p.text(
            Pos2::new(rect.left() + 4.0, y0 + ROW_H / 2.0),
            egui::Align2::LEFT_CENTER,
            fit_name(&name, name_chars),
            font.clone(),
            pal.text.egui(),
        );
        let (s, e) = (wv.start.floor() as u64, wv.end.ceil() as u64);
        let n = m.cycles();
        let segs: Vec<(u64, u64, ChanState, bool, u64)> = m
            .with_history(ch, |h| {
                let mut out = Vec::new();
                let first = history::at(h, s).unwrap_or(0);
                for i in first..h.len() {
                    let (c0, smp) = h[i];
                    if c0 >= e {
                        break;
                    }
                    let c1 = h.get(i + 1).map_or(n, |x| x.0);
                    out.push((
                        c0.max(s),
                        c1.min(e),
                        ChanState::of(smp.valid, smp.ready),
                        smp.valid,
                        smp.data,
                    ));
                }
                out
            })
            .unwrap_or_default();
        for (a, b, st, valid, data) in segs {
            let (xa, xb) = (x_of(a as f64), x_of(b as f64));
            let col = pal.chan(st).egui();
            let r = Rect::from_min_max(Pos2::new(xa, y0 + 3.0), Pos2::new(xb, y0 + ROW_H - 3.0));
            if valid {
                p.rect_filled(r, 1.0, pal.chan(st).with_alpha(60).egui());
                p.rect_stroke(r, 1.0, Stroke::new(1.0, col), egui::StrokeKind::Inside);
                if xb - xa > 24.0 {
                    p.text(
                        r.center(),
                        egui::Align2::CENTER_CENTER,
                        format_value(data, &ty, radix),
                        egui::FontId::monospace(10.0),
                        pal.text.egui(),
                    );
                }
            } else {
                let y = if st == ChanState::Accept {
                    y0 + 6.0
                } else {
                    y0 + ROW_H / 2.0
                };
                p.line_segment([Pos2::new(xa, y), Pos2::new(xb, y)], Stroke::new(1.2, col));
            }
        }
    }
    // Ticks, markers, cursor.
    let step = (span / 8.0).max(1.0).round() as u64;
    let mut t = (wv.start as u64 / step) * step;
    while (t as f64) < wv.end {
        let x = x_of(t as f64);
        if x >= plot.left() {
            p.text(
                Pos2::new(x, rect.bottom() - 2.0),
                egui::Align2::CENTER_BOTTOM,
                t.to_string(),
                egui::FontId::proportional(9.0),
                pal.weak_text.egui(),
            );
        }
        t += step;
    }
    for (k, &mk) in m.markers.iter().enumerate() {
        let x = x_of(mk as f64 + 0.5);
        if x < plot.left() || x > plot.right() {
            continue;
        }
        p.line_segment(
            [Pos2::new(x, plot.top()), Pos2::new(x, plot.bottom())],
            Stroke::new(1.0, pal.selected.egui()),
        );
        p.text(
            Pos2::new(x + 2.0, plot.top()),
            egui::Align2::LEFT_TOP,
            format!("M{}", k + 1),
            egui::FontId::proportional(9.0),
            pal.selected.egui(),
        );
    }
    let x = x_of(cur + 0.5);
    p.line_segment(
        [Pos2::new(x, plot.top()), Pos2::new(x, plot.bottom())],
        Stroke::new(2.0, pal.text.egui()),
    );
    resp.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Canvas, true, "waveforms"));
}

/// `name` cut to at most `max` characters so that it stays left of the waves: the end (node
/// and port, the part that tells channels apart) is kept behind an ellipsis.
fn fit_name(name: &str, max: usize) -> String {
    let n = name.chars().count();
    if n <= max {
        return name.to_string();
    }
    let keep = max.saturating_sub(1);
    let tail: String = name.chars().skip(n - keep).collect();
    format!("…{tail}")
}

#[cfg(test)]
mod name_tests {
    use super::fit_name;

    #[test]
    fn long_names_keep_their_end() {
        assert_eq!(fit_name("fork0.out0", 21), "fork0.out0");
        let long = "bb3.loop_body/control_merge12.dataOut";
        let fitted = fit_name(long, 21);
        assert_eq!(fitted.chars().count(), 21);
        assert!(
            fitted.starts_with('…')
                && fitted.ends_with("control_merge12.dataOut".get(4..).unwrap())
        );
    }
}
