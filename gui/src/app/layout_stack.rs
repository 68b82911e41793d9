//! Block stacking: a C kernel drawn as its program reads. Each basic block is laid out on
//! its own by Graphviz; the blocks are stacked top to bottom in program order, left-aligned
//! and indented one step per enclosing loop, each loop a box around its blocks; the stack is
//! wrapped into columns (read like a newspaper's) to fit the panel. Channels between blocks
//! are routed here, along the sides of the stack: a loop's back edges up its left side, a
//! value that skips blocks (one passing through a loop) down its right side, each on a lane
//! of its own, and a channel to the next block straight down. A block whose widest rows
//! are much wider than the rest (a loop header's buffers, a row of branches) may be drawn
//! with those rows staggered into two or three, where the drawing is not readable at fit
//! without.
//!
//! Compared with one Graphviz run over the whole graph (`layout::graphviz_shaped`), this
//! keeps Graphviz from drifting each block to the right of the one before (the drawings of
//! C kernels became diagonal staircases, mostly empty), and it can wrap the program inside a
//! loop. [`super::layout::compute`] keeps whichever of the two fits the panel with readable
//! labels, or else at the larger zoom.

use cranelift_entity::EntityRef;
use handscope_sim::{Function, NodeId};
use rayon::prelude::*;

use super::layout::{
    ClusterBox, ClusterKind, EdgeRoute, Layout, NODE_SEP_INCHES, NodeBox, P2, Part, RankGap, Shape,
};
use super::layout_stats::{FIT_ZOOM_MAX, NODE_LABEL_UNITS, READABLE_LABEL_PX, fit_zoom};
use super::program_order::{self, Loop};

/// Space between two stacked items (blocks, loop boxes), in points.
const ITEM_GAP: f32 = 5.0;
/// Indentation of a loop's contents inside its box, and the box's margin on the right and
/// at the bottom.
const LOOP_PAD: f32 = 8.0;
/// Room for a loop box's label above its first block.
const LOOP_LABEL: f32 = 13.0;
/// Space between two side lanes, and between the lanes and the stack.
const LANE_GAP: f32 = 3.0;
/// Space between two columns.
const COLUMN_GAP: f32 = 14.0;
/// The zoom an extra column must gain to be chosen (as a factor).
const EXTRA_COLUMN_COST: f32 = 1.03;
/// The zoom cutting a loop's box in two (across columns) must gain.
const SPLIT_LOOP_COST: f32 = 1.04;
/// Most blocks for which every placement of two column breaks is tried.
const EXHAUSTIVE_BLOCKS: usize = 40;
/// How many of the best candidates are refined block by block (each block drawn as
/// Graphviz drew it or staggered).
const REFINED: usize = 8;
/// Most columns tried.
const MAX_COLUMNS: usize = 5;
/// Space Graphviz leaves between two nodes of a row, in points.
const NODE_SEP: f32 = NODE_SEP_INCHES * 72.0;
/// A row at least this share of its block's widest row is staggered.
const WIDE_ROW: f32 = 0.75;
/// Most rows a wide row is staggered into.
const STAGGERED_ROWS: u32 = 3;
/// Fewest nodes in a row that is staggered.
const MIN_STAGGERED_ROW: usize = 4;
/// How far a route leaves its producer downwards (and enters its consumer from above)
/// before it turns.
const STUB: f32 = 6.0;

/// A loop of the stack: its blocks `first..=last`, how many loops enclose it, its label.
struct LoopSpan {
    first: usize,
    last: usize,
    depth: usize,
    label: String,
}

/// The part of a loop's box in one column: the loop (index into the [`LoopSpan`]s), its
/// top and bottom, the column.
struct LoopPiece {
    span: usize,
    top: f32,
    bottom: f32,
    column: usize,
}

/// The stacked drawing of `f` shaped to `panel` (`None` when `f` has fewer than two
/// blocks, or Graphviz is missing or fails).
pub fn stacked(f: &Function, panel: P2, rank_gap: RankGap) -> Option<Layout> {
    let order = program_order::blocks(f);
    if order.len() < 2 {
        return None;
    }
    // Every block boundary a break: each block is a column of its own to Graphviz, with
    // the arguments and memories it uses first (its nodes' `home`).
    let anywhere: Vec<usize> = (0..order.len() - 1).collect();
    let block_of = program_order::block_index(f, &order);
    let home = super::layout::node_columns(f, &block_of, &anywhere);
    let shape = Shape {
        breaks: anywhere.clone(),
        rank_forward: true,
        loop_boxes: false,
        staggered: Vec::new(),
        rank_gap,
    };
    let lay_out = |k: usize, shape: &Shape| {
        super::layout::graphviz_part(f, &super::layout::column_dot(f, shape, k))
    };
    let pieces: Vec<Part> = (0..order.len())
        .into_par_iter()
        .map(|k| lay_out(k, &shape))
        .collect::<Option<_>>()?;
    let loops = program_order::loops(f, &order);
    let mut depth = vec![0usize; order.len()];
    let mut spans: Vec<LoopSpan> = Vec::new();
    collect_loops(&loops, 0, &order, &mut depth, &mut spans);

    // The best wrapping: for each number of columns, the breaks that balance the heights,
    // breaking anywhere or only between loops; each extra column and each loop cut in two
    // must pay for itself in zoom.
    let heights: Vec<f32> = pieces.iter().map(|p| p.size[1] + ITEM_GAP).collect();
    let between_loops = super::layout::column_cuts(f);
    let mut candidates: Vec<Vec<usize>> = Vec::new();
    for allowed in [&anywhere, &between_loops] {
        // Units: the runs of blocks between the allowed boundaries.
        let mut units = vec![0.0f32; allowed.len() + 1];
        for (k, h) in heights.iter().enumerate() {
            units[allowed.iter().filter(|&&b| b < k).count()] += h;
        }
        for columns in 1..=MAX_COLUMNS.min(units.len()) {
            candidates.push(
                balanced_breaks(&units, columns)
                    .into_iter()
                    .map(|u| allowed[u])
                    .collect(),
            );
        }
    }
    // Two or three columns: every way (the greedy balance misses a tall block's best place).
    for (i, &a) in anywhere.iter().enumerate() {
        candidates.push(vec![a]);
        if anywhere.len() <= EXHAUSTIVE_BLOCKS {
            candidates.extend(anywhere[i + 1..].iter().map(|&b| vec![a, b]));
        }
    }
    candidates.sort_by(|a, b| a.len().cmp(&b.len()).then(a.cmp(b)));
    candidates.dedup();
    let score = |breaks: &[usize], chosen: &[&Part]| -> Option<(Score, Layout)> {
        let split = breaks
            .iter()
            .map(|&b| spans.iter().filter(|l| l.first <= b && b < l.last).count())
            .sum::<usize>();
        let l = place(f, chosen, &depth, &spans, breaks, &home)?;
        let zoom = fit_zoom(l.size, panel);
        let s = Score {
            readable: NODE_LABEL_UNITS * zoom >= READABLE_LABEL_PX,
            tidy: zoom.min(FIT_ZOOM_MAX)
                / EXTRA_COLUMN_COST.powi(breaks.len() as i32)
                / SPLIT_LOOP_COST.powi(split as i32),
        };
        Some((s, l))
    };
    // With each block as Graphviz drew it or as one of `narrow[k]`: each candidate with every
    // block as drawn, and with every block at its narrowest; then the best candidates try
    // each block's other drawings in turn, keeping each change that pays.
    let choose = |narrow: &[Vec<Part>]| -> Option<(Score, Layout)> {
        let plain: Vec<&Part> = pieces.iter().collect();
        let narrowest: Vec<&Part> = pieces
            .iter()
            .zip(narrow)
            .map(|(p, n)| n.last().unwrap_or(p))
            .collect();
        let sets = if narrow.iter().all(Vec::is_empty) {
            vec![&plain]
        } else {
            vec![&plain, &narrowest]
        };
        let mut scored: Vec<(Score, usize, &Vec<&Part>)> = Vec::new();
        for (i, breaks) in candidates.iter().enumerate() {
            for &chosen in &sets {
                scored.push((score(breaks, chosen)?.0, i, chosen));
            }
        }
        // Candidates come with fewer breaks first, so a tie keeps fewer columns.
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut best: Option<(Score, Layout)> = None;
        for &(_, i, chosen) in scored.iter().take(REFINED) {
            let breaks = &candidates[i];
            let mut chosen = chosen.clone();
            let (mut top, mut layout) = score(breaks, &chosen)?;
            for k in 0..pieces.len() {
                for other_part in std::iter::once(&pieces[k]).chain(&narrow[k]) {
                    if std::ptr::eq(other_part, chosen[k]) {
                        continue;
                    }
                    let mut other = chosen.clone();
                    other[k] = other_part;
                    let (s, l) = score(breaks, &other)?;
                    if s > top {
                        (top, chosen, layout) = (s, other, l);
                    }
                }
            }
            if best.as_ref().is_none_or(|b| top > b.0) {
                best = Some((top, layout));
            }
        }
        best
    };
    let unstaggered: Vec<Vec<Part>> = pieces.iter().map(|_| Vec::new()).collect();
    let plain = choose(&unstaggered)?;
    // Staggering squeezes, as tight ranks do: none where the ranks are roomy (a drawing
    // that needs squeezing gets tight ranks instead, `layout::compute`).
    if plain.0.readable || rank_gap == RankGap::Roomy {
        return Some(plain.1);
    }
    // Not readable so: each block's wide rows staggered into two or three, where that makes
    // the block narrower (the narrower drawings of each block, widest first).
    let narrow: Vec<Vec<Part>> = (0..order.len())
        .into_par_iter()
        .map(|k| {
            let mut out: Vec<Part> = Vec::new();
            for rows in 2..=STAGGERED_ROWS {
                let staggered = stagger(f, &pieces[k], rows);
                if staggered.is_empty() {
                    break;
                }
                let shape = Shape {
                    staggered,
                    ..shape.clone()
                };
                let widest = out.last().unwrap_or(&pieces[k]).size[0];
                if let Some(p) = lay_out(k, &shape).filter(|p| p.size[0] < widest - 1.0) {
                    out.push(p);
                }
            }
            out
        })
        .collect();
    let staggered = choose(&narrow)?;
    let best = if staggered.0 > plain.0 {
        staggered
    } else {
        plain
    };
    Some(best.1)
}

/// How good a wrapping is: first whether its labels are readable at fit, then its zoom at
/// fit (up to the view's cap) less what its extra columns and cut loops cost.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Score {
    /// Labels of at least [`READABLE_LABEL_PX`] at fit.
    readable: bool,
    /// Zoom at fit, capped, divided by the costs of columns and cut loops.
    tidy: f32,
}

impl Eq for Score {}

impl PartialOrd for Score {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Score {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.readable
            .cmp(&other.readable)
            .then(self.tidy.total_cmp(&other.tidy))
    }
}

/// The nodes of `part` (one block's drawing) to move away from their row, and by how many
/// ranks, so that each row nearly as wide as the widest becomes `rows` rows: of the row's
/// nodes whose neighbours in the block all lie above them or all below them (a loop
/// header's buffers, a block's branches), left to right, the second moves one rank away,
/// the third two, and so on in turn.
fn stagger(f: &Function, part: &Part, rows: u32) -> Vec<(NodeId, u32)> {
    let mut row_list: Vec<(f32, f32, Vec<&NodeBox>)> = Vec::new();
    for nb in part.nodes.iter().flatten() {
        let y = nb.center[1];
        match row_list.iter_mut().find(|r| (r.0 - y).abs() < 1.0) {
            Some(r) => {
                r.1 += nb.size[0] + NODE_SEP;
                r.2.push(nb);
            }
            None => row_list.push((y, nb.size[0] + NODE_SEP, vec![nb])),
        }
    }
    let widest = row_list.iter().map(|r| r.1).fold(0.0f32, f32::max);
    // Whether each node has neighbours in the block above it, and below it.
    let mut above = vec![false; f.nodes.len()];
    let mut below = vec![false; f.nodes.len()];
    for ch in f.channels.values() {
        let Some(a) = &part.nodes[ch.producer.node.index()] else {
            continue;
        };
        for c in &ch.consumers {
            let Some(b) = &part.nodes[c.node.index()] else {
                continue;
            };
            let (ya, yb) = (a.center[1], b.center[1]);
            if (ya - yb).abs() < 1.0 {
                continue;
            }
            let (up, down) = if ya < yb { (a, b) } else { (b, a) };
            below[up.node.index()] = true;
            above[down.node.index()] = true;
        }
    }
    let mut out = Vec::new();
    for (_, width, mut row) in row_list {
        if width < WIDE_ROW * widest || row.len() < MIN_STAGGERED_ROW {
            continue;
        }
        row.sort_by(|a, b| a.center[0].total_cmp(&b.center[0]));
        let movable = row
            .iter()
            .map(|nb| nb.node)
            .filter(|n| above[n.index()] != below[n.index()]);
        out.extend(movable.zip((0..rows).cycle()).filter(|&(_, by)| by > 0));
    }
    out
}

/// Walks the loop tree: each block's loop depth, and every loop as a [`LoopSpan`].
fn collect_loops(
    loops: &[Loop],
    d: usize,
    order: &[&str],
    depth: &mut [usize],
    out: &mut Vec<LoopSpan>,
) {
    for l in loops {
        for x in &mut depth[l.first..=l.last] {
            *x = (*x).max(d + 1);
        }
        let label = if l.first == l.last {
            format!("loop {}", order[l.first])
        } else {
            format!("loop {}–{}", order[l.first], order[l.last])
        };
        out.push(LoopSpan {
            first: l.first,
            last: l.last,
            depth: d,
            label,
        });
        collect_loops(&l.inner, d + 1, order, depth, out);
    }
}

/// The units after which a new column starts, for `columns` columns of about equal height
/// (greedy: a column ends once it reaches its share of what is left), given each unit's
/// height. Every column gets at least one unit.
fn balanced_breaks(heights: &[f32], columns: usize) -> Vec<usize> {
    let n = heights.len();
    let columns = columns.clamp(1, n.max(1));
    let mut breaks = Vec::new();
    let mut left: f32 = heights.iter().sum();
    let mut k = 0;
    // `c`: the columns still to fill after this one.
    for c in (1..columns).rev() {
        let target = left / (c + 1) as f32;
        let mut acc = heights[k];
        k += 1;
        while k < n - c && acc + heights[k] / 2.0 <= target {
            acc += heights[k];
            k += 1;
        }
        breaks.push(k - 1);
        left -= acc;
    }
    breaks
}

/// A route's way along a side of its column: the lane's side and its vertical extent.
struct SideRoute {
    /// Channel index, producer, consumer.
    edge: (usize, NodeId, NodeId),
    /// The column whose side it runs along.
    column: usize,
    /// Left side (a back edge), or right side.
    left: bool,
    /// The heights it runs between.
    top: f32,
    bottom: f32,
}

/// The drawing with the blocks in columns after `breaks`.
fn place(
    f: &Function,
    pieces: &[&Part],
    depth: &[usize],
    loops: &[LoopSpan],
    breaks: &[usize],
    home: &[usize],
) -> Option<Layout> {
    let n = pieces.len();
    let column_of = |k: usize| breaks.iter().filter(|&&b| b < k).count();
    let columns = breaks.len() + 1;
    // Vertical placement inside each column: a loop opening adds room for its label, a
    // loop closing its bottom margin.
    let mut top = vec![0.0f32; n];
    let mut loop_boxes: Vec<LoopPiece> = Vec::new();
    let mut col_height = vec![0.0f32; columns];
    let mut col_width = vec![0.0f32; columns];
    for c in 0..columns {
        let first = if c == 0 { 0 } else { breaks[c - 1] + 1 };
        let last = breaks.get(c).copied().unwrap_or(n - 1);
        let mut y = 0.0f32;
        let mut open: Vec<(usize, f32)> = Vec::new();
        for k in first..=last {
            // Loops around k that start here, or that continue from the previous column.
            let mut starting: Vec<usize> = (0..loops.len())
                .filter(|&i| {
                    let l = &loops[i];
                    l.first <= k && k <= l.last && (l.first == k || k == first)
                })
                .collect();
            starting.sort_by_key(|&i| loops[i].depth);
            for i in starting {
                open.push((i, y));
                y += LOOP_LABEL;
            }
            top[k] = y;
            y += pieces[k].size[1];
            col_width[c] = col_width[c]
                .max(depth[k] as f32 * LOOP_PAD + pieces[k].size[0] + depth[k] as f32 * LOOP_PAD);
            // Loops that end here, or that the column ends inside of, innermost first.
            while let Some(&(i, y0)) = open.last() {
                if loops[i].last != k && k != last {
                    break;
                }
                open.pop();
                y += LOOP_PAD;
                loop_boxes.push(LoopPiece {
                    span: i,
                    top: y0,
                    bottom: y,
                    column: c,
                });
            }
            y += ITEM_GAP;
        }
        col_height[c] = (y - ITEM_GAP).max(0.0);
    }

    // Routes between blocks: which go along a side, and their lanes.
    let mut side: Vec<SideRoute> = Vec::new();
    let mut direct: Vec<(usize, NodeId, NodeId)> = Vec::new();
    for (cid, ch) in f.channels.iter() {
        let from = ch.producer.node;
        for c in &ch.consumers {
            let (a, b) = (home[from.index()], home[c.node.index()]);
            if a == b {
                continue;
            }
            let e = (cid.index(), from, c.node);
            let (ca, cb) = (column_of(a), column_of(b));
            // The heights the route runs between: below its producer, above its consumer.
            let y = |n: NodeId, k: usize, bottom: bool| {
                pieces[k].nodes[n.index()].as_ref().map_or(top[k], |nb| {
                    top[k] + if bottom { nb.max()[1] } else { nb.min()[1] }
                })
            };
            let (y0, y1) = (y(from, a, true) + STUB, y(c.node, b, false) - STUB);
            if ca == cb && b == a + 1 {
                direct.push(e);
            } else {
                // Within a column: back up the left side, or down the right side past the
                // blocks between. Between columns: through the gap right of the earlier
                // column.
                side.push(SideRoute {
                    edge: e,
                    column: ca.min(cb),
                    left: ca == cb && b < a,
                    top: y0.min(y1),
                    bottom: y0.max(y1),
                });
            }
        }
    }
    // Lanes: the routes of one producer along one side share a lane (they leave it
    // together); lanes are given by interval colouring of their vertical extents, per
    // column and side.
    let mut groups: Vec<((NodeId, usize, bool), f32, f32)> = Vec::new();
    let mut group_of = vec![0usize; side.len()];
    for (i, r) in side.iter().enumerate() {
        let key = (r.edge.1, r.column, r.left);
        group_of[i] = match groups.iter().position(|g| g.0 == key) {
            Some(g) => {
                groups[g].1 = groups[g].1.min(r.top);
                groups[g].2 = groups[g].2.max(r.bottom);
                g
            }
            None => {
                groups.push((key, r.top, r.bottom));
                groups.len() - 1
            }
        };
    }
    let mut group_lane = vec![0usize; groups.len()];
    let mut lanes = vec![[0usize; 2]; columns];
    let mut idx: Vec<usize> = (0..groups.len()).collect();
    idx.sort_by(|&i, &j| groups[i].1.total_cmp(&groups[j].1));
    let mut ends: Vec<[Vec<f32>; 2]> = vec![[Vec::new(), Vec::new()]; columns];
    for g in idx {
        let ((_, column, left), y0, y1) = groups[g];
        let s = usize::from(!left);
        let free = &mut ends[column][s];
        let l = match free.iter().position(|&e| e + LANE_GAP < y0) {
            Some(l) => l,
            None => {
                free.push(0.0);
                free.len() - 1
            }
        };
        free[l] = y1;
        group_lane[g] = l;
        lanes[column][s] = lanes[column][s].max(l + 1);
    }
    let lane: Vec<usize> = group_of.iter().map(|&g| group_lane[g]).collect();
    // Columns left to right: left lanes, the stack, right lanes.
    let mut col_x = vec![0.0f32; columns];
    let mut x = 0.0f32;
    for c in 0..columns {
        col_x[c] = x + lanes[c][0] as f32 * LANE_GAP;
        x = col_x[c] + col_width[c] + lanes[c][1] as f32 * LANE_GAP + COLUMN_GAP;
    }
    let width = x - COLUMN_GAP;
    let height = col_height.iter().fold(0.0f32, |a, &b| a.max(b));

    let mut nodes: Vec<Option<NodeBox>> = vec![None; f.nodes.len()];
    let mut edges = Vec::new();
    let mut clusters = Vec::new();
    for (k, p) in pieces.iter().enumerate() {
        let c = column_of(k);
        let off = [col_x[c] + depth[k] as f32 * LOOP_PAD, top[k]];
        p.place_at(off, &mut nodes, &mut edges, &mut clusters);
    }
    for lp in &loop_boxes {
        let c = lp.column;
        let first = if c == 0 { 0 } else { breaks[c - 1] + 1 };
        let last = breaks.get(c).copied().unwrap_or(n - 1);
        let LoopSpan {
            first: a,
            last: b,
            depth: d,
            ref label,
        } = loops[lp.span];
        let inside = a.max(first)..=b.min(last);
        // Right of its widest block and of the right margins of the loops between.
        let right = inside
            .map(|k| {
                col_x[c]
                    + depth[k] as f32 * LOOP_PAD
                    + pieces[k].size[0]
                    + depth[k].saturating_sub(d) as f32 * LOOP_PAD
            })
            .fold(0.0f32, f32::max);
        clusters.push(ClusterBox {
            label: label.clone(),
            kind: ClusterKind::Loop,
            min: [col_x[c] + d as f32 * LOOP_PAD, lp.top],
            max: [right, lp.bottom],
        });
    }
    // Every node is in the part of its home block (`None`: Graphviz left one out).
    let nodes: Vec<NodeBox> = nodes.into_iter().collect::<Option<_>>()?;
    for (cid, from, to) in direct {
        edges.push(EdgeRoute {
            channel: cid,
            to,
            from,
            points: straight_down(&nodes[from.index()], &nodes[to.index()]),
        });
    }
    for (r, &l) in side.iter().zip(&lane) {
        let (cid, from, to) = r.edge;
        let c = r.column;
        let lane_x = if r.left {
            col_x[c] - (l + 1) as f32 * LANE_GAP
        } else {
            col_x[c] + col_width[c] + (l + 1) as f32 * LANE_GAP
        };
        edges.push(EdgeRoute {
            channel: cid,
            to,
            from,
            points: along_side(&nodes[from.index()], &nodes[to.index()], lane_x),
        });
    }
    // Outer boxes first, so that a loop's box lies under the boxes of its blocks.
    clusters.sort_by(|a, b| {
        let area = |c: &ClusterBox| (c.max[0] - c.min[0]) * (c.max[1] - c.min[1]);
        area(b).total_cmp(&area(a))
    });
    Some(Layout {
        nodes,
        edges,
        clusters,
        size: [width.max(1.0), height.max(1.0)],
        engine: "graphviz",
    })
}

/// A cubic segment per straight piece of the polyline `pts`.
fn polyline(pts: &[P2]) -> Vec<P2> {
    let mut out = vec![pts[0]];
    for w in pts.windows(2) {
        let (a, b) = (w[0], w[1]);
        let lerp = |t: f32| [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];
        out.extend([lerp(1.0 / 3.0), lerp(2.0 / 3.0), b]);
    }
    out
}

/// From the bottom of `from` to the top of `to` in the next block: one curve.
fn straight_down(from: &NodeBox, to: &NodeBox) -> Vec<P2> {
    let p0 = [from.center[0], from.max()[1]];
    let p3 = [to.center[0], to.min()[1]];
    let bend = ((p3[1] - p0[1]).abs() / 2.0).clamp(12.0, 40.0);
    vec![p0, [p0[0], p0[1] + bend], [p3[0], p3[1] - bend], p3]
}

/// From the bottom of `from` out to the lane at `lane_x`, along it, and into the top of
/// `to`.
fn along_side(from: &NodeBox, to: &NodeBox, lane_x: f32) -> Vec<P2> {
    let p0 = [from.center[0], from.max()[1]];
    let p3 = [to.center[0], to.min()[1]];
    polyline(&[
        p0,
        [p0[0], p0[1] + STUB],
        [lane_x, p0[1] + STUB],
        [lane_x, p3[1] - STUB],
        [p3[0], p3[1] - STUB],
        p3,
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::layout::tests::{dot_runs, inside};
    use crate::app::program_order::tests::{NESTED_LOOPS, THREE_LOOPS, compile};

    #[test]
    fn balanced_breaks_split_heights_evenly() {
        assert_eq!(balanced_breaks(&[10.0; 6], 1), Vec::<usize>::new());
        assert_eq!(balanced_breaks(&[10.0; 6], 2), vec![2]);
        assert_eq!(balanced_breaks(&[10.0; 6], 3), vec![1, 3]);
        // One tall block: it gets a column of its own.
        assert_eq!(balanced_breaks(&[100.0, 10.0, 10.0, 10.0], 2), vec![0]);
        // Never an empty column.
        assert_eq!(balanced_breaks(&[10.0, 10.0], 5), vec![0]);
        assert_eq!(balanced_breaks(&[10.0], 3), Vec::<usize>::new());
    }

    /// #15 item 1: blocks stacked top to bottom in program order (a later column to the
    /// right), left-aligned and indented per loop, each loop's box around its blocks,
    /// every node inside its block's box, no two nodes overlapping.
    #[test]
    fn blocks_stack_in_program_order_inside_their_loops() {
        if !dot_runs() {
            return;
        }
        for (src, panel) in [
            (NESTED_LOOPS, [1600.0, 1000.0]),
            (THREE_LOOPS, [1600.0, 1000.0]),
            // A tall panel: one column.
            (THREE_LOOPS, [400.0, 4000.0]),
        ] {
            let c = compile(src);
            let f = &c.func;
            let l = stacked(f, panel, RankGap::Tight).expect("a stacked layout");
            let order = program_order::blocks(f);
            let blocks: Vec<&ClusterBox> = order
                .iter()
                .map(|b| {
                    l.clusters
                        .iter()
                        .find(|c| c.kind == ClusterKind::Block && c.label == *b)
                        .expect("every block has a box")
                })
                .collect();
            for w in blocks.windows(2) {
                let (a, b) = (w[0], w[1]);
                assert!(
                    b.min[1] >= a.max[1] || b.min[0] >= a.max[0],
                    "{} does not follow {}: {a:?} {b:?}",
                    b.label,
                    a.label
                );
            }
            if panel[0] < panel[1] {
                // One column: every block lies below the first one.
                let first = blocks[0];
                for b in &blocks {
                    assert!(
                        b.min[0] < first.max[0] && first.min[0] < b.max[0],
                        "{b:?} is not in the first column: {blocks:?}"
                    );
                }
            }
            let block_of = program_order::block_index(f, &order);
            for nb in &l.nodes {
                if let Some(k) = block_of[nb.node.index()] {
                    let b = blocks[k];
                    let (lo, hi) = (nb.min(), nb.max());
                    assert!(
                        b.min[0] <= lo[0]
                            && b.min[1] <= lo[1]
                            && hi[0] <= b.max[0]
                            && hi[1] <= b.max[1],
                        "{nb:?} outside {b:?}"
                    );
                }
                assert!(nb.max()[0] <= l.size[0] + 0.5 && nb.max()[1] <= l.size[1] + 0.5);
            }
            for (i, a) in l.nodes.iter().enumerate() {
                for b in &l.nodes[i + 1..] {
                    let apart = a.max()[0] <= b.min()[0]
                        || b.max()[0] <= a.min()[0]
                        || a.max()[1] <= b.min()[1]
                        || b.max()[1] <= a.min()[1];
                    assert!(apart, "{a:?} overlaps {b:?}");
                }
            }
            // Each loop's blocks lie in a box of that loop.
            for lp in program_order::loops(f, &order) {
                let label = if lp.first == lp.last {
                    format!("loop {}", order[lp.first])
                } else {
                    format!("loop {}–{}", order[lp.first], order[lp.last])
                };
                for b in &blocks[lp.first..=lp.last] {
                    assert!(
                        l.clusters.iter().any(|o| o.label == label && inside(b, o)),
                        "{} outside {label}: {:?}",
                        b.label,
                        l.clusters
                    );
                }
            }
            // Every channel has a route, and each route starts at its producer.
            let routes: usize = f.channels.values().map(|c| c.consumers.len()).sum();
            assert_eq!(l.edges.len(), routes);
        }
    }

    /// Back edges between blocks run up the left side of the stack; channels to the next
    /// block go straight down.
    #[test]
    fn back_edges_run_up_the_left_side() {
        if !dot_runs() {
            return;
        }
        let c = compile(NESTED_LOOPS);
        let f = &c.func;
        let l = stacked(f, [400.0, 4000.0], RankGap::Tight).expect("a stacked layout");
        let order = program_order::blocks(f);
        let block_of = program_order::block_index(f, &order);
        let left = l
            .clusters
            .iter()
            .filter(|c| c.kind == ClusterKind::Block)
            .map(|c| c.min[0])
            .fold(f32::MAX, f32::min);
        let mut backs = 0;
        for e in &l.edges {
            let (a, b) = (block_of[e.from.index()], block_of[e.to.index()]);
            if let (Some(a), Some(b)) = (a, b)
                && b < a
            {
                backs += 1;
                let min_x = e.points.iter().map(|p| p[0]).fold(f32::MAX, f32::min);
                assert!(
                    min_x < left,
                    "{e:?} does not run left of the blocks ({left})"
                );
            }
        }
        assert!(
            backs >= 1,
            "the outer loop's back edges run from bb3 to bb1"
        );
    }

    /// A loop carrying eight values: its header's buffers and multiplexers make rows far
    /// wider than the rest of the drawing.
    const EIGHT_LIVE: &str = "int k(int n) {\n\
        int a = 0, b = 1, c = 2, d = 3, e = 4, g = 5, h = 6, m = 7;\n\
        for (int i = 0; i < n; i++) {\n\
            a += i; b += a; c += b; d += c; e += d; g += e; h += g; m += h;\n\
        }\n\
        return a + b + c + d + e + g + h + m;\n\
    }\n";

    /// #15 item 1: a block's widest row, staggered into two or three rows, makes the block
    /// narrower; the nodes moved are those whose neighbours all lie on one side, in turn
    /// one rank away, two ranks away (for three rows), and they leave their row.
    #[test]
    fn wide_rows_are_staggered_into_rows() {
        if !dot_runs() {
            return;
        }
        let c = compile(EIGHT_LIVE);
        let f = &c.func;
        let order = program_order::blocks(f);
        let shape = Shape {
            breaks: (0..order.len() - 1).collect(),
            rank_forward: true,
            loop_boxes: false,
            staggered: Vec::new(),
            rank_gap: RankGap::Tight,
        };
        let part = |shape: &Shape, k: usize| {
            super::super::layout::graphviz_part(f, &super::super::layout::column_dot(f, shape, k))
                .expect("dot")
        };
        let parts: Vec<Part> = (0..order.len()).map(|k| part(&shape, k)).collect();
        let k = (0..parts.len())
            .max_by(|&a, &b| parts[a].size[0].total_cmp(&parts[b].size[0]))
            .unwrap();
        let rows_of = |p: &Part, nodes: &[NodeId]| {
            let mut ys: Vec<f32> = nodes
                .iter()
                .map(|n| p.nodes[n.index()].as_ref().unwrap().center[1])
                .collect();
            ys.sort_by(f32::total_cmp);
            ys.dedup_by(|a, b| (*a - *b).abs() < 1.0);
            ys.len()
        };
        for rows in 2..=STAGGERED_ROWS {
            let moved = stagger(f, &parts[k], rows);
            assert!(moved.len() >= 4, "{moved:?}");
            for by in 1..rows {
                assert!(moved.iter().any(|m| m.1 == by), "{rows} rows: {moved:?}");
            }
            assert!(moved.iter().all(|m| m.1 < rows));
            // The row of the first node moved, before and after.
            let y = parts[k].nodes[moved[0].0.index()].as_ref().unwrap().center[1];
            let row: Vec<NodeId> = parts[k]
                .nodes
                .iter()
                .flatten()
                .filter(|nb| (nb.center[1] - y).abs() < 1.0)
                .map(|nb| nb.node)
                .collect();
            assert_eq!(rows_of(&parts[k], &row), 1);
            let staggered = part(
                &Shape {
                    staggered: moved.clone(),
                    ..shape.clone()
                },
                k,
            );
            assert_eq!(
                staggered.nodes.iter().flatten().count(),
                parts[k].nodes.iter().flatten().count()
            );
            assert!(rows_of(&staggered, &row) >= rows as usize, "{rows} rows");
            assert!(
                staggered.size[0] < parts[k].size[0],
                "{rows} rows: {:?} against {:?}",
                staggered.size,
                parts[k].size
            );
        }
    }

    /// A wrapping with readable labels at fit beats any without, however tidy.
    #[test]
    fn readable_wrappings_come_first() {
        let readable = Score {
            readable: true,
            tidy: 0.5,
        };
        let small = Score {
            readable: false,
            tidy: 2.0,
        };
        assert!(readable > small);
        assert!(
            Score {
                tidy: 0.6,
                ..readable
            } > readable
        );
    }
}
