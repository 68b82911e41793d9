//! The graph view: paints the scene with pan, zoom and fit; nodes and channels are clickable
//! (each visible node gets an interaction response labelled with its ID, so tests and screen
//! readers can find it).

use cranelift_entity::EntityRef;
use egui::{Color32, Pos2, Rect, Sense, Shape, Stroke, Vec2, epaint::CubicBezierShape};

use crate::app::describe::Selection;
use crate::app::layout::P2;
use crate::app::model::Model;
use crate::app::scene::{Anchor, Item, tokens};

/// Pan and zoom of the graph view.
pub struct GraphView {
    /// Screen offset of layout point (0, 0) relative to the view's top-left.
    pub offset: Vec2,
    /// Screen points per layout point.
    pub zoom: f32,
    fitted: Option<u64>,
    /// The drawing (its address) and the view size of the last fit.
    fitted_drawing: usize,
    fitted_size: Vec2,
    /// Fit on the next frame.
    pub fit_request: bool,
    /// The node a focus request centered (a deadlock step's link, the search, the side
    /// panel): kept in the center when a new drawing of the graph arrives or the panel is
    /// resized, which fit the view again, until the user pans, zooms or asks for a fit.
    centered: Option<handscope_sim::NodeId>,
    /// Items painted in the last frame (for measurements).
    pub painted: usize,
    /// Screen rectangle of the view in the last frame.
    pub rect: Rect,
    /// The smallest node label fitting may give, in points (0: none; presentation mode):
    /// a graph too big for that is fitted to its width or height at this scale instead, from
    /// its top-left corner.
    pub min_label: f32,
}

impl Default for GraphView {
    fn default() -> Self {
        GraphView {
            offset: Vec2::ZERO,
            zoom: 1.0,
            fitted: None,
            fitted_drawing: 0,
            fitted_size: Vec2::ZERO,
            fit_request: false,
            centered: None,
            painted: 0,
            rect: Rect::NOTHING,
            min_label: 0.0,
        }
    }
}

/// The size of a node's label in layout units (the scene's).
const NODE_LABEL: f32 = 11.0;

/// How much larger graph text is drawn in presentation mode.
pub const PRESENTATION_FONT: f32 = 1.3;

fn to_screen(origin: Pos2, offset: Vec2, zoom: f32, p: P2) -> Pos2 {
    origin + offset + Vec2::new(p[0], p[1]) * zoom
}

impl GraphView {
    /// Fits the drawing into `rect`.
    pub fn fit(&mut self, size: P2, rect: Rect) {
        let margin = 20.0;
        let z = ((rect.width() - 2.0 * margin) / size[0].max(1.0))
            .min((rect.height() - 2.0 * margin) / size[1].max(1.0));
        // Node labels are 11 layout units, drawn 1.3 times larger in presentation mode.
        let floor = self.min_label / (NODE_LABEL * PRESENTATION_FONT);
        self.zoom = z
            .max(floor)
            .clamp(0.02, crate::app::layout_stats::FIT_ZOOM_MAX);
        self.offset = Vec2::new(
            ((rect.width() - size[0] * self.zoom) / 2.0).max(margin),
            ((rect.height() - size[1] * self.zoom) / 2.0).max(margin),
        );
    }

    /// The size on screen (points) of a node label at the current zoom.
    #[cfg(test)]
    pub fn label_points(&self, presentation: bool) -> f32 {
        NODE_LABEL * self.zoom * if presentation { PRESENTATION_FONT } else { 1.0 }
    }

    /// Centers layout point `p` in `rect`, zooming in to a readable scale if needed.
    pub fn center_on(&mut self, p: P2, rect: Rect) {
        self.zoom = self.zoom.max(0.8);
        self.offset = rect.size() / 2.0 - Vec2::new(p[0], p[1]) * self.zoom;
    }

    /// Screen position of layout point `p` (as of the last frame).
    #[cfg(test)]
    pub fn screen_of(&self, p: P2) -> Pos2 {
        to_screen(self.rect.min, self.offset, self.zoom, p)
    }

    /// Draws the view in the remaining space of `ui`.
    pub fn show(&mut self, ui: &mut egui::Ui, m: &mut Model, font_scale: f32) {
        let (rect, resp) = ui.allocate_exact_size(ui.available_size(), Sense::click_and_drag());
        self.rect = rect;
        if rect.width() >= 1.0 && rect.height() >= 1.0 {
            m.reshape_for([rect.width(), rect.height()]);
        }
        let painter = ui.painter_at(rect);
        let pal = m.look.palette();
        painter.rect_filled(rect, 0.0, pal.background.egui());
        let Some(layout) = m.layout.clone() else {
            // Say why there is no graph; "laying out" only while a layout is being computed.
            let (text, colour) = match (&m.circuit, &m.error, &m.layout_error) {
                (None, Some(e), _) => (
                    format!(
                        "cannot open: {}\n(the full message is in the side panel)",
                        e.lines().next().unwrap_or("")
                    ),
                    pal.deadlock,
                ),
                (None, None, _) => ("no circuit open".to_string(), pal.text),
                (Some(_), _, Some(e)) => (e.clone(), pal.deadlock),
                (Some(_), _, None) => ("laying out the graph...".to_string(), pal.text),
            };
            painter.text(
                rect.center(),
                egui::Align2::CENTER_CENTER,
                text,
                egui::FontId::proportional(16.0),
                colour.egui(),
            );
            return;
        };
        // A new drawing of the same graph (shaped for this panel), or a panel much smaller or
        // larger than the one fitted (the compare view opened or closed): fit again.
        let drawing = std::sync::Arc::as_ptr(&layout) as usize;
        let resized = |a: f32, b: f32| a > b * 1.25 || b > a * 1.25;
        let refit = self.fitted == Some(m.generation)
            && !self.fit_request
            && (self.fitted_drawing != drawing
                || resized(rect.width(), self.fitted_size.x)
                || resized(rect.height(), self.fitted_size.y));
        if self.fitted != Some(m.generation) || self.fit_request || refit {
            if self.fitted.is_some() && !self.fit_request && !refit && m.want.is_some() {
                // Reload keeps the view.
            } else {
                self.fit(layout.size, rect);
            }
            // A drawing that arrives after a node was centered (the layout runs in the
            // background, and opening a panel starts a new one) keeps that node centered.
            match self
                .centered
                .filter(|_| refit)
                .and_then(|n| layout.nodes.iter().find(|b| b.node == n))
            {
                Some(nb) => self.center_on(nb.center, rect),
                None => self.centered = None,
            }
            self.fitted = Some(m.generation);
            self.fit_request = false;
            self.fitted_drawing = drawing;
            self.fitted_size = rect.size();
        }
        if let Some(n) = m.focus.take()
            && let Some(nb) = layout.nodes.iter().find(|b| b.node == n)
        {
            self.center_on(nb.center, rect);
            self.centered = Some(n);
        }
        // Pan and zoom.
        if resp.dragged() {
            self.offset += resp.drag_delta();
            self.centered = None;
        }
        if resp.hovered() {
            let (scroll, zoom_delta, pointer) =
                ui.input(|i| (i.smooth_scroll_delta, i.zoom_delta(), i.pointer.hover_pos()));
            let factor = zoom_delta * (scroll.y / 300.0).exp();
            if (factor - 1.0).abs() > 1e-4
                && let Some(p) = pointer
            {
                self.centered = None;
                let new_zoom = (self.zoom * factor).clamp(0.02, 6.0);
                let local = p - rect.min;
                let layout_p = (local - self.offset) / self.zoom;
                self.zoom = new_zoom;
                self.offset = local - layout_p * self.zoom;
            }
        }
        let Some(scene) = m.scene() else {
            painter.text(
                rect.center(),
                egui::Align2::CENTER_CENTER,
                match m.source.as_ref().and_then(|s| s.error()) {
                    Some(e) => format!("simulation failed: {e}"),
                    None => "simulating...".to_string(),
                },
                egui::FontId::proportional(16.0),
                pal.text.egui(),
            );
            return;
        };
        let (origin, offset, zoom) = (rect.min, self.offset, self.zoom);
        let clip = rect.expand(20.0);
        let detail = zoom > 0.3;
        let mut shapes: Vec<Shape> = Vec::with_capacity(scene.items.len());
        let token_items = if m.anim < 1.0 {
            m.cycle_state()
                .map(|cs| tokens(&layout, cs, &pal, m.anim))
                .unwrap_or_default()
        } else {
            Vec::new()
        };
        for it in scene.items.iter().chain(&token_items) {
            let (lo, hi) = it.bounds();
            let r = Rect::from_min_max(
                to_screen(origin, offset, zoom, lo),
                to_screen(origin, offset, zoom, hi),
            );
            if !r.intersects(clip) {
                continue;
            }
            paint_item(
                ui,
                &mut shapes,
                it,
                origin,
                offset,
                zoom,
                detail,
                font_scale,
            );
        }
        self.painted = shapes.len();
        painter.extend(shapes);

        // Interaction: nodes (one response each, labelled by ID), then channels.
        let mut clicked_node = None;
        for nb in &layout.nodes {
            let r = Rect::from_min_max(
                to_screen(origin, offset, zoom, nb.min()),
                to_screen(origin, offset, zoom, nb.max()),
            );
            // Nodes too small to click are picked by the canvas click below instead.
            if !r.intersects(rect) || r.width() < 8.0 {
                continue;
            }
            let id = m
                .circuit
                .as_ref()
                .map_or(String::new(), |c| c.func.nodes[nb.node].id.clone());
            let nr = ui.interact(
                r.intersect(rect),
                ui.scope_id().with(("handscope-node", nb.node.index())),
                Sense::click(),
            );
            let selected = m.selection == Some(Selection::Node(nb.node));
            nr.widget_info(|| egui::WidgetInfo::selected(egui::Role::Button, true, selected, &id));
            if nr.clicked() {
                clicked_node = Some(nb.node);
            }
            if nr.hovered() {
                nr.on_hover_text(&id);
            }
        }
        if let Some(n) = clicked_node {
            m.select(Some(Selection::Node(n)));
        } else if resp.clicked()
            && let Some(p) = resp.interact_pointer_pos()
        {
            let lp = (p - origin - offset) / zoom;
            let hit = layout.nodes.iter().find(|nb| {
                let (lo, hi) = (nb.min(), nb.max());
                lp.x >= lo[0] && lp.x <= hi[0] && lp.y >= lo[1] && lp.y <= hi[1]
            });
            let mut best: Option<(f32, usize)> = None;
            for e in &layout.edges {
                for k in 0..=16 {
                    let q = e.at(k as f32 / 16.0);
                    let d = ((q[0] - lp.x).powi(2) + (q[1] - lp.y).powi(2)).sqrt();
                    if best.is_none_or(|(bd, _)| d < bd) {
                        best = Some((d, e.channel));
                    }
                }
            }
            match best {
                _ if hit.is_some() => m.select(hit.map(|nb| Selection::Node(nb.node))),
                Some((d, ch)) if d * zoom < 8.0 => {
                    m.select(Some(Selection::Channel(handscope_sim::ChannelId::new(ch))))
                }
                _ => m.select(None),
            }
        }
        self.legend(ui, rect, m);
        self.banner(ui, rect, m);
    }

    /// A line over the top of the graph when the circuit is drawn but cannot be simulated,
    /// or when `check` finds errors in it.
    fn banner(&self, ui: &egui::Ui, rect: Rect, m: &Model) {
        let pal = m.look.palette();
        let errors = m
            .circuit
            .as_ref()
            .map_or(0, |c| c.problems.iter().filter(|p| p.error).count());
        let text = match m.why_no_run() {
            Some(w) => format!("{w} (the graph is drawn without a run)"),
            None if errors > 0 => format!(
                "`check` finds {errors} error{} (marked in red; listed in the side panel): the run may be unreliable",
                if errors == 1 { "" } else { "s" }
            ),
            None => return,
        };
        let painter = ui.painter_at(rect);
        let g = painter.layout(
            text,
            egui::FontId::proportional(14.0),
            pal.deadlock.egui(),
            rect.width() - 20.0,
        );
        let at = Pos2::new(rect.left() + 10.0, rect.top() + 8.0);
        painter.rect_filled(
            Rect::from_min_size(at, g.size()).expand(4.0),
            3.0,
            pal.background.egui(),
        );
        painter.galley(at, g, pal.deadlock.egui());
    }

    fn legend(&self, ui: &egui::Ui, rect: Rect, m: &Model) {
        let pal = m.look.palette();
        let painter = ui.painter_at(rect);
        let mut x = rect.left() + 10.0;
        let y = rect.bottom() - 16.0;
        for st in crate::app::style::ChanState::ALL {
            painter.line_segment(
                [Pos2::new(x, y), Pos2::new(x + 20.0, y)],
                Stroke::new(3.0, pal.chan(st).egui()),
            );
            let g = painter.text(
                Pos2::new(x + 24.0, y),
                egui::Align2::LEFT_CENTER,
                st.name(),
                egui::FontId::proportional(12.0),
                pal.text.egui(),
            );
            x = g.right() + 14.0;
        }
        painter.text(
            Pos2::new(x, y),
            egui::Align2::LEFT_CENTER,
            format!(
                "dashed: control (none)   zoom {:.0}%   layout: {}",
                self.zoom * 100.0,
                m.layout.as_ref().map_or("", |l| l.engine)
            ),
            egui::FontId::proportional(12.0),
            pal.weak_text.egui(),
        );
    }
}

#[allow(clippy::too_many_arguments)]
fn paint_item(
    ui: &egui::Ui,
    out: &mut Vec<Shape>,
    it: &Item,
    origin: Pos2,
    offset: Vec2,
    zoom: f32,
    detail: bool,
    font_scale: f32,
) {
    let s = |p: P2| to_screen(origin, offset, zoom, p);
    match it {
        Item::Rect {
            min,
            max,
            fill,
            stroke,
            width,
            radius,
        } => {
            out.push(Shape::rect_filled(
                Rect::from_min_max(s(*min), s(*max)),
                radius * zoom,
                fill.egui(),
            ));
            if *width > 0.0 {
                out.push(Shape::rect_stroke(
                    Rect::from_min_max(s(*min), s(*max)),
                    radius * zoom,
                    Stroke::new((width * zoom).max(0.6), stroke.egui()),
                    egui::StrokeKind::Inside,
                ));
            }
        }
        Item::Curve {
            points,
            color,
            width,
            dashed,
        } => {
            let stroke = Stroke::new((width * zoom).max(0.7), color.egui());
            if *dashed || !detail {
                let mut pts = Vec::with_capacity(points.len() * 3);
                for c in points.windows(4).step_by(3) {
                    let b = CubicBezierShape::from_points_stroke(
                        [s(c[0]), s(c[1]), s(c[2]), s(c[3])],
                        false,
                        Color32::TRANSPARENT,
                        stroke,
                    );
                    pts.extend(b.flatten(Some(if detail { 0.5 } else { 4.0 })));
                }
                if *dashed && detail {
                    out.extend(Shape::dashed_line(
                        &pts,
                        stroke,
                        6.0 * zoom.max(0.3),
                        4.0 * zoom.max(0.3),
                    ));
                } else {
                    out.push(Shape::line(pts, stroke));
                }
            } else {
                for c in points.windows(4).step_by(3) {
                    out.push(Shape::CubicBezier(CubicBezierShape::from_points_stroke(
                        [s(c[0]), s(c[1]), s(c[2]), s(c[3])],
                        false,
                        Color32::TRANSPARENT,
                        stroke,
                    )));
                }
            }
        }
        Item::Poly { points, fill } => {
            out.push(Shape::convex_polygon(
                points.iter().map(|p| s(*p)).collect(),
                fill.egui(),
                Stroke::NONE,
            ));
        }
        Item::Circle {
            center,
            r,
            fill,
            stroke,
        } => {
            out.push(Shape::circle_filled(
                s(*center),
                r * zoom.max(0.5),
                fill.egui(),
            ));
            out.push(Shape::circle_stroke(
                s(*center),
                r * zoom.max(0.5),
                Stroke::new(0.8, stroke.egui()),
            ));
        }
        Item::Text {
            pos,
            text,
            size,
            color,
            anchor,
            bg,
        } => {
            let px = size * zoom * font_scale.min(1.3);
            if !detail || px < 4.0 {
                return;
            }
            let font = egui::FontId::proportional(px);
            let galley = ui
                .ctx()
                .fonts_mut(|f| f.layout_no_wrap(text.clone(), font, color.egui()));
            let p = s(*pos);
            let at = match anchor {
                Anchor::Center => p - galley.size() / 2.0,
                Anchor::Left => Pos2::new(p.x, p.y - galley.size().y / 2.0),
            };
            if let Some(bg) = bg {
                out.push(Shape::rect_filled(
                    Rect::from_min_size(at, galley.size()).expand(1.5),
                    2.0,
                    bg.egui(),
                ));
            }
            out.push(Shape::galley(at, galley, color.egui()));
        }
    }
}
