//! Figures that say how readable a layout is at fit: the drawing's aspect ratio, the zoom at
//! which it fits a window, the size of a node label at that zoom, and edge crossings.
//! `handscope layout-stats` prints them; tests assert the readable-label goal with them.

use super::layout::{Layout, P2};

/// Size of the node label text in layout units (the graph view's `NODE_LABEL`).
pub const NODE_LABEL_UNITS: f32 = 11.0;

/// Margin the graph view keeps around a fitted drawing, in screen points.
const FIT_MARGIN: f32 = 20.0;

/// The largest zoom the graph view fits a drawing at (small graphs are not blown up further).
pub const FIT_ZOOM_MAX: f32 = 2.5;

/// The smallest label (screen pixels at fit) that counts as readable.
pub const READABLE_LABEL_PX: f32 = 11.0;

/// How readable one layout is in one graph panel.
#[derive(Clone, Debug, PartialEq)]
pub struct LayoutStats {
    /// Nodes drawn.
    pub nodes: usize,
    /// Edge routes drawn.
    pub edges: usize,
    /// Width / height of the drawing.
    pub aspect: f32,
    /// Zoom factor at which the drawing fits the panel (as the graph view's fit computes it,
    /// without its 2.5 upper clamp so that small graphs stay comparable).
    pub fit_zoom: f32,
    /// Height of a node label in screen pixels at that zoom.
    pub label_px: f32,
    /// Pairs of edge routes that cross (routes sharing an end node are not counted).
    pub crossings: usize,
}

/// The zoom at which a drawing of `size` fits a graph panel of `panel` screen points (as the
/// graph view's fit computes it, without its 2.5 upper clamp).
pub fn fit_zoom(size: P2, panel: P2) -> f32 {
    ((panel[0] - 2.0 * FIT_MARGIN) / size[0].max(1.0))
        .min((panel[1] - 2.0 * FIT_MARGIN) / size[1].max(1.0))
        .max(0.02)
}

/// Measures `l` fitted into a graph panel of `panel` screen points.
pub fn measure(l: &Layout, panel: P2) -> LayoutStats {
    let fit_zoom = fit_zoom(l.size, panel);
    LayoutStats {
        nodes: l.nodes.len(),
        edges: l.edges.len(),
        aspect: l.size[0] / l.size[1].max(1.0),
        fit_zoom,
        label_px: NODE_LABEL_UNITS * fit_zoom.min(FIT_ZOOM_MAX),
        crossings: crossings(l),
    }
}

/// Counts crossing pairs of edge routes, each route flattened to a polyline of 8 samples per
/// Bézier segment. Routes that share a producer or consumer node meet at that node by design
/// and are skipped.
pub fn crossings(l: &Layout) -> usize {
    let lines: Vec<(Vec<P2>, [f32; 4])> = l
        .edges
        .iter()
        .map(|e| {
            let segs = (e.points.len().saturating_sub(1) / 3).max(1);
            let n = segs * 8;
            let pts: Vec<P2> = (0..=n).map(|i| e.at(i as f32 / n as f32)).collect();
            let mut bb = [f32::MAX, f32::MAX, f32::MIN, f32::MIN];
            for p in &pts {
                bb = [
                    bb[0].min(p[0]),
                    bb[1].min(p[1]),
                    bb[2].max(p[0]),
                    bb[3].max(p[1]),
                ];
            }
            (pts, bb)
        })
        .collect();
    let mut count = 0;
    for i in 0..lines.len() {
        for j in i + 1..lines.len() {
            let (a, b) = (&l.edges[i], &l.edges[j]);
            if a.from == b.from || a.to == b.to || a.from == b.to || a.to == b.from {
                continue;
            }
            let (ba, bb) = (lines[i].1, lines[j].1);
            if ba[2] < bb[0] || bb[2] < ba[0] || ba[3] < bb[1] || bb[3] < ba[1] {
                continue;
            }
            if polylines_cross(&lines[i].0, &lines[j].0) {
                count += 1;
            }
        }
    }
    count
}

fn polylines_cross(a: &[P2], b: &[P2]) -> bool {
    a.windows(2)
        .any(|s| b.windows(2).any(|t| segments_cross(s[0], s[1], t[0], t[1])))
}

fn segments_cross(p1: P2, p2: P2, q1: P2, q2: P2) -> bool {
    let orient =
        |a: P2, b: P2, c: P2| (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
    let d1 = orient(q1, q2, p1);
    let d2 = orient(q1, q2, p2);
    let d3 = orient(p1, p2, q1);
    let d4 = orient(p1, p2, q2);
    (d1 > 0.0) != (d2 > 0.0)
        && (d3 > 0.0) != (d4 > 0.0)
        && d1 != 0.0
        && d2 != 0.0
        && d3 != 0.0
        && d4 != 0.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crossing_segments() {
        assert!(segments_cross(
            [0.0, 0.0],
            [2.0, 2.0],
            [0.0, 2.0],
            [2.0, 0.0]
        ));
        assert!(!segments_cross(
            [0.0, 0.0],
            [1.0, 0.0],
            [0.0, 1.0],
            [1.0, 1.0]
        ));
    }
}
