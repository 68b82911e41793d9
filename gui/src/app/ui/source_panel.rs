//! The source panel: the MLIR or C text with line numbers; the selected node's line is
//! highlighted, lines whose nodes fire this cycle are marked (`*`), lines of the nodes on a
//! deadlock's wait-for cycle or chain are marked (`!`, in the deadlock colour) while the
//! deadlock view is open, clicking a line selects its nodes.

use crate::app::describe::Selection;
use crate::app::model::Model;

/// Draws the panel.
pub fn show(ui: &mut egui::Ui, m: &mut Model, scroll_to_selection: bool) {
    let stuck_lines: std::collections::BTreeSet<u32> = match m.deadlock() {
        Some(d) if m.deadlock_view && m.cycle >= d.since_cycle => m
            .deadlock_explanation()
            .iter()
            .flat_map(|x| &x.sections)
            .flat_map(|s| &s.steps)
            .filter_map(|s| s.line)
            .collect(),
        _ => Default::default(),
    };
    let Some(c) = &m.circuit else { return };
    let pal = m.look.palette();
    let firing = m.firing_lines();
    let sel_line = match m.selection {
        Some(Selection::Node(n)) => c.lines_of(n),
        _ => None,
    }
    .or(m.source_line);
    let mut clicked = None;
    ui.label(egui::RichText::new(&c.name).strong());
    let n = c.source.lines().count();
    let row_h = ui.text_style_height(&egui::TextStyle::Monospace) + ui.spacing().item_spacing.y;
    let mut area = egui::ScrollArea::both().auto_shrink([false, false]);
    if scroll_to_selection && let Some(l) = sel_line {
        area = area.vertical_scroll_offset(((l as f32 - 8.0).max(0.0)) * row_h);
    }
    // Only the visible rows are laid out (sources of big circuits have thousands of lines).
    area.show_rows(ui, row_h - ui.spacing().item_spacing.y, n, |ui, rows| {
        for (i, line) in c
            .source
            .lines()
            .enumerate()
            .skip(rows.start)
            .take(rows.len())
        {
            let ln = i as u32 + 1;
            let has_nodes = c.line_nodes.contains_key(&ln);
            let fires = firing.contains(&ln);
            let stuck = stuck_lines.contains(&ln);
            let mark = if stuck {
                "!"
            } else if fires {
                "*"
            } else {
                " "
            };
            let mut rt = egui::RichText::new(format!("{mark}{ln:>4} {line}")).monospace();
            if stuck {
                rt = rt.color(pal.deadlock.egui());
            } else if fires {
                rt = rt.color(pal.chan[0].egui());
            }
            if sel_line == Some(ln) {
                rt = rt.background_color(pal.selected.with_alpha(60).egui());
            }
            let r = ui.add(egui::Label::new(rt).extend().sense(if has_nodes {
                egui::Sense::click()
            } else {
                egui::Sense::hover()
            }));
            if r.clicked() {
                clicked = Some(ln);
            }
        }
    });
    if let Some(l) = clicked {
        m.select_line(l);
    }
}
