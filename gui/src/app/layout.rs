//! Graph layout, computed once per graph: Graphviz `dot` (JSON output, run through
//! a temporary file) when it is installed, the pure-Rust Sugiyama layout otherwise. Results are
//! cached by a hash of the DOT text and computed in a background thread for the UI.
//!
//! Coordinates are in points, y down, origin at the top left of the drawing.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

use cranelift_entity::EntityRef;
use handscope_sim::spec::{Detail, StateLayout, describe_op};
use handscope_sim::{Function, NodeId};
use rayon::prelude::*;

use super::layout_stats::{FIT_ZOOM_MAX, NODE_LABEL_UNITS, READABLE_LABEL_PX, fit_zoom};
use super::program_order;

/// A 2-D point.
pub type P2 = [f32; 2];

/// One node's box.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeBox {
    /// The node.
    pub node: NodeId,
    /// Center.
    pub center: P2,
    /// Width and height.
    pub size: P2,
}

impl NodeBox {
    /// Top-left corner.
    pub fn min(&self) -> P2 {
        [
            self.center[0] - self.size[0] / 2.0,
            self.center[1] - self.size[1] / 2.0,
        ]
    }

    /// Bottom-right corner.
    pub fn max(&self) -> P2 {
        [
            self.center[0] + self.size[0] / 2.0,
            self.center[1] + self.size[1] / 2.0,
        ]
    }
}

/// The route of one channel to one of its consumers: a cubic B-spline in Graphviz form
/// (`p0 c1 c2 p1 c1 c2 p2 ...`), ending at the arrow tip.
#[derive(Clone, Debug, PartialEq)]
pub struct EdgeRoute {
    /// Channel index.
    pub channel: usize,
    /// Consumer node.
    pub to: NodeId,
    /// Producer node.
    pub from: NodeId,
    /// Control points (`3k + 1` of them).
    pub points: Vec<P2>,
}

impl EdgeRoute {
    /// Point at parameter `t` in `0..=1` along the route.
    pub fn at(&self, t: f32) -> P2 {
        let segs = (self.points.len().saturating_sub(1)) / 3;
        if segs == 0 {
            return self.points.first().copied().unwrap_or([0.0, 0.0]);
        }
        let x = (t.clamp(0.0, 1.0) * segs as f32).min(segs as f32 - 1e-4);
        let k = x.floor() as usize;
        let u = x - k as f32;
        let p = &self.points[3 * k..3 * k + 4];
        let w = [
            (1.0 - u).powi(3),
            3.0 * u * (1.0 - u).powi(2),
            3.0 * u * u * (1.0 - u),
            u.powi(3),
        ];
        let mut r = [0.0f32; 2];
        for (pi, wi) in p.iter().zip(w) {
            r[0] += pi[0] * wi;
            r[1] += pi[1] * wi;
        }
        r
    }
}

/// What a cluster box groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClusterKind {
    /// The nodes of one basic block.
    Block,
    /// The blocks of one loop (and the loops nested in it).
    Loop,
}

/// A basic-block or loop cluster.
#[derive(Clone, Debug, PartialEq)]
pub struct ClusterBox {
    /// Block label (`bb3`), or the loop's block range (`loop bb1–bb3`).
    pub label: String,
    /// Block or loop.
    pub kind: ClusterKind,
    /// Top-left corner.
    pub min: P2,
    /// Bottom-right corner.
    pub max: P2,
}

/// A complete layout.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    /// Node boxes, indexed by node index.
    pub nodes: Vec<NodeBox>,
    /// Edge routes.
    pub edges: Vec<EdgeRoute>,
    /// Clusters.
    pub clusters: Vec<ClusterBox>,
    /// Size of the drawing.
    pub size: P2,
    /// Which engine computed it (`graphviz` or `sugiyama`).
    pub engine: &'static str,
}

/// Text shown in a node: its ID and its operation.
pub fn node_label(f: &Function, n: NodeId) -> (String, String) {
    let node = &f.nodes[n];
    let out_ty = node.outputs.first().map(|&c| &f.channels[c].ty);
    let op = describe_op(
        &node.op,
        node.inputs.len(),
        node.outputs.len(),
        out_ty,
        Detail::Short,
    );
    let id = match node.block.as_deref() {
        Some(b) => node
            .id
            .strip_prefix(b)
            .and_then(|rest| rest.strip_prefix('.'))
            .filter(|rest| !rest.is_empty())
            .unwrap_or(&node.id),
        None => &node.id,
    };
    (id.to_string(), op)
}

/// The text drawn in node `n`'s box: [`node_label`], with the count its marks show left out
/// of its operation (`fork`, not `fork [2]`; `buffer seq`, not `buffer [1] seq`).
pub fn node_text(f: &Function, n: NodeId) -> (String, String) {
    let (id, op) = node_label(f, n);
    let node = &f.nodes[n];
    let short = match node.op.spec().state {
        StateLayout::EmittedPerOutput if node.outputs.len() <= MAX_OUTPUT_MARKS => op
            .strip_suffix(&format!(" [{}]", node.outputs.len()))
            .map(str::to_string),
        StateLayout::BufferSlots { slots } | StateLayout::Fifo { slots }
            if slots as usize <= MAX_SLOT_MARKS =>
        {
            op.replacen(&format!(" [{slots}]"), "", 1).into()
        }
        _ => None,
    };
    let op = short.unwrap_or(op);
    // An ID that names the operation (`buffer3`, `control_merge0`) says its first word
    // already: the rest of the operation line is drawn (`fifo`); none for a control merge
    // (its winner's row follows the ID), and none for the usual buffer, a sequential one
    // (drawn on one line with its slots).
    let (word, rest) = op.split_once(' ').unwrap_or((&op, ""));
    let drawn = match node.op.spec().state {
        _ if !numbered(&id, word) => op.clone(),
        StateLayout::ControlMerge | StateLayout::SkidMerge if rest.is_empty() => String::new(),
        StateLayout::BufferSlots { .. } if rest == "seq" => word.to_string(),
        _ if !rest.is_empty() => rest.to_string(),
        _ => op.clone(),
    };
    (id, drawn)
}

/// Width in points of one character of the ID line (11-point text).
pub const ID_CHAR: f32 = 6.6;
/// Room left and right of a node's widest line, in points together.
pub const NODE_PAD: f32 = 12.0;
/// Width in points of one character of the operation line (9-point text).
pub const OP_CHAR: f32 = 5.4;
/// Spacing of the marks of a node's outputs (a fork's sent flags) on its operation line.
pub const OUTPUT_MARK: f32 = 8.0;
/// Most output marks drawn on one node.
pub const MAX_OUTPUT_MARKS: usize = 12;
/// Width of the mark of one buffer slot (its token's value inside).
pub const SLOT_MARK: f32 = 22.0;
/// Most slot marks drawn on one buffer.
pub const MAX_SLOT_MARKS: usize = 6;

/// The marks node `n` draws after its operation to show its state, as (count, width of
/// one): a fork's sent flags, a buffer's slots; `None` for a node whose state, if any, takes
/// a row of its own (a control merge's winner, pipeline stages, memory ports).
pub fn state_marks(f: &Function, n: NodeId) -> Option<(usize, f32)> {
    let node = &f.nodes[n];
    match node.op.spec().state {
        StateLayout::EmittedPerOutput => {
            Some((node.outputs.len().min(MAX_OUTPUT_MARKS), OUTPUT_MARK))
        }
        StateLayout::BufferSlots { slots } | StateLayout::Fifo { slots } => {
            Some(((slots as usize).min(MAX_SLOT_MARKS), SLOT_MARK))
        }
        _ => None,
    }
}

/// Width in points of the operation line of node `n` showing `op`, its state marks included.
pub fn op_line_width(f: &Function, n: NodeId, op: &str) -> f32 {
    let text = op.chars().count() as f32 * OP_CHAR;
    match state_marks(f, n) {
        Some((k, w)) => text + 4.0 + k as f32 * w,
        None => text,
    }
}

/// Width in points of the ID line of node `n` showing `id`: with its state marks when it
/// is drawn on [`one_line`].
pub fn id_line_width(f: &Function, n: NodeId, id: &str, one_line: bool) -> f32 {
    let text = id.chars().count() as f32 * ID_CHAR;
    match state_marks(f, n) {
        Some((k, w)) if one_line => text + 4.0 + k as f32 * w,
        _ => text,
    }
}

/// Size of a node's box in points: an ID line and an operation line (with the state marks of
/// [`state_marks`]), and a row for the state of other stateful nodes (a control merge's
/// winner, pipeline stages); or the ID line alone, with its marks, for a node drawn on
/// [`one_line`].
pub fn node_size(f: &Function, n: NodeId) -> P2 {
    let (id, op) = node_text(f, n);
    if one_line(f, n, &id, &op) {
        return [
            (id_line_width(f, n, &id, true) + NODE_PAD).clamp(40.0, 260.0),
            20.0,
        ];
    }
    let state_row = f.nodes[n].op.is_stateful() && state_marks(f, n).is_none();
    [
        (id_line_width(f, n, &id, false).max(op_line_width(f, n, &op)) + NODE_PAD)
            .clamp(56.0, 260.0),
        if state_row && !op.is_empty() {
            50.0
        } else {
            32.0
        },
    ]
}

/// Whether node `n`, drawing `id` and `op` ([`node_text`]), is drawn on one line: its ID is its
/// operation and a number (`mux1`, `fork0`), so an operation line would repeat it, and its
/// state, if any, fits after the ID (a fork's sent flags).
pub fn one_line(f: &Function, n: NodeId, id: &str, op: &str) -> bool {
    numbered(id, op) && (!f.nodes[n].op.is_stateful() || state_marks(f, n).is_some())
}

/// Whether `id` is `word` and a number (`mux1` of `mux`): the ID says the operation.
fn numbered(id: &str, word: &str) -> bool {
    id.strip_prefix(word)
        .is_some_and(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_digit()))
}

/// The DOT text used for layout (node names `n<index>`, edge IDs `c<channel>_<consumer>`),
/// one column.
///
/// Basic blocks are clusters in program order, each loop a cluster around its blocks
/// (nested as the loops nest), and invisible edges through one small anchor node between
/// consecutive blocks stack every block below the one before it, so the drawing reads top to
/// bottom like the program.
pub fn layout_dot(f: &Function) -> String {
    column_dot(f, &Shape::default(), 0)
}

/// The shape a drawing is given: how its loops rank and where its columns break. The
/// default is one column ranked in program order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    /// The block boundaries after which a new column starts (see [`column_cuts`]): the
    /// program is wrapped into columns read like a newspaper's, each laid out on its own and
    /// put to the right of the one before, tops aligned.
    pub breaks: Vec<usize>,
    /// Whether channels against the program order (a loop's back edges) leave the ranking
    /// to the program, so that every loop reads top to bottom (otherwise Graphviz turns
    /// around edges of its own choice to break each cycle).
    pub rank_forward: bool,
    /// Whether Graphviz draws the loops' boxes (the block stack of
    /// [`super::layout_stack`] draws its own around the blocks it stacks).
    pub loop_boxes: bool,
    /// Nodes moved away from their neighbours by a number of ranks (every channel at them
    /// that much longer): nodes of a row too wide for the panel, so that the row becomes
    /// several (see [`super::layout_stack`]).
    pub staggered: Vec<(NodeId, u32)>,
    /// How far apart the ranks are.
    pub rank_gap: RankGap,
}

impl Default for Shape {
    fn default() -> Self {
        Shape {
            breaks: Vec::new(),
            rank_forward: true,
            loop_boxes: true,
            staggered: Vec::new(),
            rank_gap: RankGap::Tight,
        }
    }
}

/// How far apart Graphviz puts the ranks of a drawing (its `ranksep`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RankGap {
    /// 8 points (Graphviz rounds `ranksep` to whole points): room for a value label on a
    /// short edge and no more, so that a kernel of 150 nodes fits a panel at a readable size.
    #[default]
    Tight,
    /// 14 points: value labels clear of the boxes, for a drawing that stays readable at fit
    /// with them (see [`compute`]).
    Roomy,
}

impl RankGap {
    /// `ranksep` in inches.
    fn inches(self) -> f32 {
        match self {
            RankGap::Tight => 0.11,
            RankGap::Roomy => 0.2,
        }
    }
}

/// Space between two nodes of a row (`nodesep`), in inches.
pub const NODE_SEP_INCHES: f32 = 0.12;

/// The start of every DOT text of a layout: ranks `gap` apart, nodes in a row
/// [`NODE_SEP_INCHES`] apart, cluster labels at the 10 points the scene draws them at, 4
/// points of margin inside each box, fixed-size boxes.
pub fn dot_header(gap: RankGap) -> String {
    format!(
        "digraph g {{\n  graph [rankdir=TB, nodesep={NODE_SEP_INCHES}, ranksep={}, \
         splines=spline, fontsize=10, margin=4];\n  node [shape=box, fixedsize=true, \
         label=\"\"];\n",
        gap.inches()
    )
}

/// The DOT text of column `column` of `f` drawn in `shape` (with no breaks, column 0 is the
/// whole graph): the column's blocks (a boundary `k` of the breaks lies between the blocks
/// `k` and `k + 1` of the program order), its loops, the nodes outside every block that it
/// uses first (see [`node_columns`]) and the channels between its nodes.
pub fn column_dot(f: &Function, shape: &Shape, column: usize) -> String {
    let breaks = &shape.breaks[..];
    let mut s = dot_header(shape.rank_gap);
    let order = program_order::blocks(f);
    let block_of = program_order::block_index(f, &order);
    let mut members: Vec<Vec<NodeId>> = vec![Vec::new(); order.len()];
    for id in f.nodes.keys() {
        if let Some(k) = block_of[id.index()] {
            members[k].push(id);
        }
    }
    let columns = node_columns(f, &block_of, breaks);
    for id in f.nodes.keys().filter(|n| columns[n.index()] == column) {
        let [w, h] = node_size(f, id);
        let _ = writeln!(
            s,
            "  n{} [width={:.3}, height={:.3}];",
            id.index(),
            w / 72.0,
            h / 72.0
        );
    }
    let start = match column {
        0 => 0,
        c => breaks.get(c - 1).map_or(order.len(), |b| b + 1),
    };
    let end = breaks.get(column).map_or(order.len(), |b| b + 1);
    let loops = program_order::loops(f, &order);
    let mut walk = Walk::default();
    let level = Level {
        order: &order,
        members: &members,
    };
    let loops = if shape.loop_boxes { &loops[..] } else { &[] };
    // How many ranks each node moves away from its row (`Shape::staggered`).
    let mut shift = vec![0u32; f.nodes.len()];
    for &(n, by) in &shape.staggered {
        shift[n.index()] += by;
    }
    level.write(&mut s, loops, start, end, &mut walk, 1);
    for (cid, ch) in f.channels.iter() {
        let from = ch.producer.node.index();
        for (k, c) in ch.consumers.iter().enumerate() {
            let to = c.node.index();
            if columns[from] != column || columns[to] != column {
                continue;
            }
            let attrs = if shape.rank_forward
                && program_order::runs_backwards(f, &block_of, ch.producer.node, c.node)
            {
                ", constraint=false"
            } else {
                ""
            };
            let by = shift[from] + shift[to];
            let minlen = if by > 0 && attrs.is_empty() {
                format!(", minlen={}", 1 + by)
            } else {
                String::new()
            };
            let _ = writeln!(
                s,
                "  n{from} -> n{to} [id=\"c{}_{k}\"{attrs}{minlen}];",
                cid.index()
            );
        }
    }
    write_stacking(&mut s, f, &block_of, &members, &walk.boundaries);
    s.push_str("}\n");
    s
}

/// The column of every node of `f` when the program is wrapped after the boundaries
/// `breaks` (see [`node_columns`]).
fn columns_of(f: &Function, breaks: &[usize]) -> Vec<usize> {
    let order = program_order::blocks(f);
    node_columns(f, &program_order::block_index(f, &order), breaks)
}

/// The column of every node when the program is wrapped after the boundaries `breaks`:
/// its block's, or for a node outside every block (an argument, a memory) the first column
/// that uses it.
pub(super) fn node_columns(
    f: &Function,
    block_of: &[Option<usize>],
    breaks: &[usize],
) -> Vec<usize> {
    let col = |k: usize| breaks.iter().filter(|&&b| b < k).count();
    let mut column: Vec<Option<usize>> = block_of.iter().map(|b| b.map(col)).collect();
    for (id, n) in f.nodes.iter() {
        if column[id.index()].is_none() {
            column[id.index()] = n
                .outputs
                .iter()
                .flat_map(|&o| &f.channels[o].consumers)
                .filter_map(|c| block_of[c.node.index()].map(col))
                .min();
        }
    }
    column.into_iter().map(|c| c.unwrap_or(0)).collect()
}

/// The block boundaries a drawing may be wrapped at: `k` (between blocks `k` and `k + 1` of
/// the program order) where no loop contains both blocks.
pub fn column_cuts(f: &Function) -> Vec<usize> {
    let order = program_order::blocks(f);
    let loops = program_order::loops(f, &order);
    (0..order.len().saturating_sub(1))
        .filter(|&k| !loops.iter().any(|l| l.first <= k && k < l.last))
        .collect()
}

/// What [`Level::write`] has written so far.
#[derive(Default)]
struct Walk {
    /// Loop clusters written (the next one's number).
    next_loop: usize,
    /// The stacking anchors written: `(k, first)` for the anchor `a<k>` below the item (a
    /// block, or a loop and everything in it) of the blocks `first..=k`.
    boundaries: Vec<(usize, usize)>,
}

/// What [`Level::write`] draws from: the blocks in program order and their nodes.
struct Level<'a> {
    order: &'a [&'a str],
    members: &'a [Vec<NodeId>],
}

impl Level<'_> {
    /// Writes the blocks `start..end` at one loop depth: each block on its own or, where a loop
    /// of `loops` starts, the loop's cluster with everything inside it; between two
    /// consecutive items, the stacking anchor of the block boundary (so an anchor sits inside
    /// every loop around both of its blocks).
    fn write(
        &self,
        s: &mut String,
        loops: &[program_order::Loop],
        start: usize,
        end: usize,
        walk: &mut Walk,
        depth: usize,
    ) {
        let pad = "  ".repeat(depth);
        // The loops of one level are in program order and do not overlap.
        let mut loops = loops.iter().peekable();
        let mut k = start;
        while k < end {
            let item;
            while loops.next_if(|l| l.first < k).is_some() {}
            if let Some(l) = loops.next_if(|l| l.first == k && l.last < end) {
                let range = if l.first == l.last {
                    self.order[l.first].to_string()
                } else {
                    format!("{}–{}", self.order[l.first], self.order[l.last])
                };
                let _ = writeln!(
                    s,
                    "{pad}subgraph \"cluster_loop{}\" {{ label=\"loop {}\"; style=dashed;",
                    walk.next_loop,
                    range.replace('"', "'"),
                );
                walk.next_loop += 1;
                self.block(s, l.first, depth + 1);
                if l.first < l.last {
                    anchor(s, l.first, depth + 1);
                    walk.boundaries.push((l.first, l.first));
                }
                self.write(s, &l.inner, l.first + 1, l.last + 1, walk, depth + 1);
                let _ = writeln!(s, "{pad}}}");
                item = l.first;
                k = l.last + 1;
            } else {
                self.block(s, k, depth);
                item = k;
                k += 1;
            }
            if k < end {
                anchor(s, k - 1, depth);
                walk.boundaries.push((k - 1, item));
            }
        }
    }

    /// Writes block `k`'s cluster.
    fn block(&self, s: &mut String, k: usize, depth: usize) {
        let _ = write!(
            s,
            "{}subgraph \"cluster_{k}\" {{ label=\"{}\"; ",
            "  ".repeat(depth),
            self.order[k].replace('"', "'")
        );
        for n in &self.members[k] {
            let _ = write!(s, "n{}; ", n.index());
        }
        s.push_str("}\n");
    }
}

/// Writes the invisible anchor node between blocks `k` and `k + 1`.
fn anchor(s: &mut String, k: usize, depth: usize) {
    let _ = writeln!(
        s,
        "{}a{k} [shape=point, width=0.01, height=0.01, style=invis];",
        "  ".repeat(depth)
    );
}

/// Invisible edges that put block `k + 1` below the item (a block, or a loop and all inside
/// it) of the blocks `first..=k`, for each anchor `(k, first)` of `boundaries`: from the
/// item's exits (its nodes with a channel to a later block) to the anchor `a<k>`, and from
/// it to the entries of `k + 1` (nodes with a channel from another block). A loop's back
/// edges are not exits: Graphviz turns them around, and an anchor tied to them would float
/// up to the loop's header. Tying exits and entries, not whole blocks, keeps the drawing
/// about as wide as the panel while the blocks still follow the program downwards. Exits or
/// entries that come out empty are all the nodes of the item or block.
fn write_stacking(
    s: &mut String,
    f: &Function,
    block_of: &[Option<usize>],
    members: &[Vec<NodeId>],
    boundaries: &[(usize, usize)],
) {
    let mut entry = vec![false; f.nodes.len()];
    // The latest block each node sends a channel to.
    let mut reach: Vec<Option<usize>> = vec![None; f.nodes.len()];
    for ch in f.channels.values() {
        let from = ch.producer.node.index();
        for c in &ch.consumers {
            let to = c.node.index();
            if block_of[from] != block_of[to] {
                entry[to] = true;
            }
            if let Some(b) = block_of[to] {
                reach[from] = Some(reach[from].map_or(b, |r: usize| r.max(b)));
            }
        }
    }
    for &(k, first) in boundaries {
        let item = || members[first..=k].iter().flatten();
        let mut exits: Vec<&NodeId> = item().filter(|n| reach[n.index()] > Some(k)).collect();
        if exits.is_empty() {
            exits = item().collect();
        }
        for n in exits {
            let _ = writeln!(s, "  n{} -> a{k} [style=invis, id=\"s\"];", n.index());
        }
        let next = &members[k + 1];
        let tied = next.iter().filter(|n| entry[n.index()]).count();
        for n in next.iter().filter(|n| tied == 0 || entry[n.index()]) {
            let _ = writeln!(s, "  a{k} -> n{} [style=invis, id=\"s\"];", n.index());
        }
    }
}

use std::fmt::Write as _;

/// FNV-1a hash of the DOT text (the cache key).
pub fn dot_hash(text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

fn cache() -> &'static Mutex<BTreeMap<u64, Arc<Layout>>> {
    static C: OnceLock<Mutex<BTreeMap<u64, Arc<Layout>>>> = OnceLock::new();
    C.get_or_init(Default::default)
}

/// Which layout engine to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// Graphviz when `dot` runs and the graph has at most [`GRAPHVIZ_MAX_NODES`] nodes,
    /// otherwise Sugiyama.
    Auto,
    /// Always the pure-Rust layout.
    Sugiyama,
}

/// Largest graph [`Engine::Auto`] gives to Graphviz. `dot`'s time grows much faster than the
/// graph with our per-block clusters (a C kernel of 125 `if` statements, 1,500 nodes, took
/// 4 s; 250 took 19 s; 500 took minutes); the pure-Rust layout stays near linear.
pub const GRAPHVIZ_MAX_NODES: usize = 1000;

/// Stack for the layout thread: the Sugiyama crate searches its spanning tree recursively,
/// one frame per node along a path (a 12,000-node graph overflowed the default 2 MiB).
/// Reserved, not committed: only the pages a deep search touches are used.
pub fn layout_stack_size(nodes: usize) -> usize {
    (16 << 20) + nodes.saturating_mul(4 << 10)
}

/// The graph panel a drawing is shaped for when the view's size is not known yet: the
/// graph view of a 1600×1000 window.
pub const DEFAULT_PANEL: P2 = [1600.0, 1000.0];

/// How much larger a zoom at fit the stacked drawing ([`super::layout_stack`]) must give to
/// be chosen over Graphviz's drawing of the whole graph, whose routes are Graphviz's own.
const STACK_MIN_GAIN: f32 = 1.05;

/// Largest graph whose drawing is tried in columns and rankings (each try is more `dot`
/// runs).
pub const SHAPE_MAX_NODES: usize = 400;

/// Most columns a drawing is wrapped into.
const MAX_COLUMNS: usize = 5;

/// How many of the partitions ranked best by their estimated size [`graphviz_shaped`] lays
/// out for real.
const SHAPE_FINALISTS: usize = 4;

/// Most block boundaries considered for column breaks (8 segments: 16 `dot` runs of one
/// segment each, then the finalists' columns).
const MAX_CANDIDATE_CUTS: usize = 7;

/// How much larger the zoom at fit must get for [`graphviz_shaped`] to take one more column,
/// or one more column not ranked in program order (one column in program order reads most
/// like the program).
const SHAPE_MIN_GAIN: f32 = 1.05;

/// Computes (or fetches from the cache) the layout of `f`, shaped for a graph panel of
/// `panel` points (width, height): with Graphviz, the better of the whole-graph drawing and
/// the block stack (readable labels at fit first), its ranks 14 points apart where it stays
/// readable so, else 8 ([`RankGap`]).
pub fn compute(f: &Function, engine: Engine, panel: P2) -> Arc<Layout> {
    let dot = layout_dot(f);
    let aspect_bucket = (panel[0] / panel[1].max(1.0) * 20.0).round() as u64;
    // Whether labels are readable at fit (which drawing is kept) depends on the panel's
    // size too: in steps of a tenth of its width.
    let size_bucket = (panel[0].max(1.0).ln() * 10.0).round() as u64;
    let key = dot_hash(&dot)
        ^ (engine as u64)
        ^ aspect_bucket.rotate_left(32)
        ^ size_bucket.rotate_left(48);
    if let Some(l) = cache().lock().ok().and_then(|c| c.get(&key).cloned()) {
        return l;
    }
    let zoom = |l: &Layout| fit_zoom(l.size, panel).min(FIT_ZOOM_MAX);
    let readable = |l: &Layout| NODE_LABEL_UNITS * zoom(l) >= READABLE_LABEL_PX;
    let graphviz = |rank_gap: RankGap| {
        let (shaped, stacked) = rayon::join(
            || graphviz_shaped(f, rank_gap, panel),
            || {
                (f.nodes.len() <= SHAPE_MAX_NODES)
                    .then(|| super::layout_stack::stacked(f, panel, rank_gap))
                    .flatten()
            },
        );
        match (shaped, stacked) {
            // Readable labels first; then the larger zoom, Graphviz's own drawing unless
            // the stack gains enough.
            (Some(a), Some(b)) if readable(&a) != readable(&b) => {
                Some(if readable(&b) { b } else { a })
            }
            (Some(a), Some(b)) if zoom(&b) > zoom(&a) * STACK_MIN_GAIN => Some(b),
            (Some(a), _) => Some(a),
            (None, b) => b,
        }
    };
    let layout = match engine {
        Engine::Auto if f.nodes.len() <= GRAPHVIZ_MAX_NODES => match graphviz(RankGap::Tight) {
            // Ranks further apart (value labels clear of the boxes) where the drawing
            // stays readable at fit with them. Tight first: a large kernel, not readable
            // either way, is laid out once.
            Some(tight) if readable(&tight) => graphviz(RankGap::Roomy)
                .filter(|l| readable(l))
                .unwrap_or(tight),
            Some(tight) => tight,
            None => super::sugiyama::layout(f),
        },
        Engine::Auto => super::sugiyama::layout(f),
        Engine::Sugiyama => super::sugiyama::layout(f),
    };
    let layout = Arc::new(layout);
    if let Ok(mut c) = cache().lock() {
        c.insert(key, layout.clone());
    }
    layout
}

/// What the view says when the layout thread ended without a layout (it panicked).
pub const LAYOUT_FAILED: &str =
    "the graph could not be laid out (the layout thread failed); the circuit still simulates";

/// A layout being computed in a background thread.
pub struct LayoutJob {
    rx: crossbeam_channel::Receiver<Arc<Layout>>,
}

impl LayoutJob {
    /// Starts computing the layout of `f`, shaped for a graph panel of `panel` points; `wake`
    /// is called when it is done.
    pub fn start(
        f: Arc<Function>,
        engine: Engine,
        panel: P2,
        wake: Box<dyn Fn() + Send>,
    ) -> LayoutJob {
        let (tx, rx) = crossbeam_channel::bounded(1);
        let _ = std::thread::Builder::new()
            .name("handscope-layout".into())
            .stack_size(layout_stack_size(f.nodes.len()))
            .spawn(move || {
                let _ = tx.send(compute(&f, engine, panel));
                wake();
            });
        LayoutJob { rx }
    }

    /// The layout once ready (`Some(Ok)`), `Some(Err)` when the layout thread died without
    /// one, `None` while it works.
    pub fn poll(&self) -> Option<Result<Arc<Layout>, String>> {
        match self.rx.try_recv() {
            Ok(l) => Some(Ok(l)),
            Err(crossbeam_channel::TryRecvError::Empty) => None,
            Err(crossbeam_channel::TryRecvError::Disconnected) => Some(Err(LAYOUT_FAILED.into())),
        }
    }

    /// Waits for the layout (`Err` when the layout thread died without one).
    pub fn wait(&self) -> Result<Arc<Layout>, String> {
        self.rx.recv().map_err(|_| LAYOUT_FAILED.to_string())
    }
}

/// The Graphviz layout of `f` that fits `panel` at the largest zoom, among the drawings of
/// its program in one column and wrapped into up to [`MAX_COLUMNS`] columns at
/// [`column_cuts`] (at most [`MAX_CANDIDATE_CUTS`] of them, spread evenly down the
/// one-column drawing), each column ranked in program order or with the loops' cycles
/// broken by Graphviz. Each segment between the cuts is laid out on its own in both
/// rankings (in parallel); every partition is scored by the size of its columns' segments
/// stacked, and the [`SHAPE_FINALISTS`] best are laid out for real (a column of several
/// segments is one `dot` run) and scored again on their drawings. Each extra column, and
/// each column not ranked in program order, must pay for itself with a zoom
/// [`SHAPE_MIN_GAIN`] times larger. Graphs over [`SHAPE_MAX_NODES`] nodes, and graphs
/// without blocks, get one run of `dot`.
fn graphviz_shaped(f: &Function, rank_gap: RankGap, panel: P2) -> Option<Layout> {
    let dot = &column_dot(
        f,
        &Shape {
            rank_gap,
            ..Shape::default()
        },
        0,
    );
    let mut cuts = column_cuts(f);
    // Without blocks (handshake MLIR) there is no program order to rank or wrap by.
    if f.nodes.len() > SHAPE_MAX_NODES || f.nodes.values().all(|n| n.block.is_none()) {
        return run_graphviz(f, dot);
    }
    if cuts.len() > MAX_CANDIDATE_CUTS {
        let one = run_graphviz(f, dot)?;
        cuts = candidate_cuts(&cuts, &block_tops(f, &one), one.size[1], MAX_CANDIDATE_CUTS);
    }
    let segments = cuts.len() + 1;
    // One `dot` process per run, as many at once as rayon has threads.
    let lay_out = |runs: &[Run]| -> Vec<Option<Part>> {
        runs.par_iter()
            .map(|r| {
                let shape = r.shape(&cuts, rank_gap);
                parse_graphviz_part(
                    f,
                    &exec_dot(&column_dot(f, &shape, usize::from(r.first > 0)))?,
                )
            })
            .collect()
    };
    // Every segment on its own, in both rankings: the sizes partitions are estimated from.
    let singles: Vec<Run> = (0..segments)
        .flat_map(|s| {
            [true, false].map(|rank_forward| Run {
                first: s,
                last: s,
                rank_forward,
            })
        })
        .collect();
    let mut parts: Vec<(Run, Option<Part>)> =
        singles.iter().copied().zip(lay_out(&singles)).collect();
    let single = |parts: &[(Run, Option<Part>)], s: usize, rank_forward: bool| {
        parts
            .iter()
            .find(|(r, _)| (r.first, r.last, r.rank_forward) == (s, s, rank_forward))
            .and_then(|(_, p)| p.as_ref().map(|p| p.size))
    };
    // Every partition into at most MAX_COLUMNS columns (bit k of `mask` breaks after segment
    // k), each column in either ranking, scored by the size its segments stacked would have.
    let mut scored: Vec<(f32, Vec<Run>)> = Vec::new();
    for mask in 0u32..1 << cuts.len() {
        if mask.count_ones() as usize >= MAX_COLUMNS {
            continue;
        }
        let mut ranges = Vec::new();
        let mut first = 0;
        for k in 0..segments {
            if k + 1 == segments || mask & (1 << k) != 0 {
                ranges.push((first, k));
                first = k + 1;
            }
        }
        'modes: for modes in 0u32..1 << ranges.len() {
            let mut size = [-COLUMN_GAP, 0.0f32];
            let mut columns = Vec::new();
            for (c, &(first, last)) in ranges.iter().enumerate() {
                let rank_forward = modes & (1 << c) == 0;
                let mut column = [0.0f32, 0.0f32];
                for s in first..=last {
                    let Some(p) = single(&parts, s, rank_forward) else {
                        continue 'modes;
                    };
                    column = [column[0].max(p[0]), column[1] + p[1]];
                }
                size = [size[0] + column[0] + COLUMN_GAP, size[1].max(column[1])];
                columns.push(Run {
                    first,
                    last,
                    rank_forward,
                });
            }
            let penalty = ranges.len() - 1 + modes.count_ones() as usize;
            scored.push((shape_score(size, panel, penalty), columns));
        }
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored.truncate(SHAPE_FINALISTS);
    // The best few laid out for real: a column of several segments is one `dot` run.
    let mut missing: Vec<Run> = Vec::new();
    for (_, columns) in &scored {
        for r in columns {
            if !parts.iter().any(|(p, _)| p == r) && !missing.contains(r) {
                missing.push(*r);
            }
        }
    }
    let more = lay_out(&missing);
    parts.extend(missing.into_iter().zip(more));
    let part = |r: &Run| {
        parts
            .iter()
            .find(|(p, _)| p == r)
            .and_then(|(_, p)| p.as_ref())
    };
    let mut best: Option<(f32, &Vec<Run>)> = None;
    for (_, columns) in &scored {
        let Some(chosen) = columns.iter().map(part).collect::<Option<Vec<&Part>>>() else {
            continue;
        };
        let width: f32 = chosen.iter().map(|p| p.size[0] + COLUMN_GAP).sum::<f32>() - COLUMN_GAP;
        let height = chosen.iter().map(|p| p.size[1]).fold(0.0, f32::max);
        let penalty = columns.len() - 1 + columns.iter().filter(|r| !r.rank_forward).count();
        let score = shape_score([width, height], panel, penalty);
        if best.is_none_or(|(b, _)| score > b) {
            best = Some((score, columns));
        }
    }
    let (_, chosen) = best?;
    let breaks: Vec<usize> = chosen[1..].iter().map(|r| cuts[r.first - 1]).collect();
    let columns = columns_of(f, &breaks);
    let chosen_parts: Vec<&Part> = chosen.iter().map(part).collect::<Option<_>>()?;
    compose(f, &chosen_parts, &columns)
}

/// How [`graphviz_shaped`] ranks a drawing of `size` with `penalty` extra columns and
/// free-ranked columns: its zoom at fit in `panel`, each penalty costing [`SHAPE_MIN_GAIN`].
fn shape_score(size: P2, panel: P2, penalty: usize) -> f32 {
    fit_zoom(size, panel) / SHAPE_MIN_GAIN.powi(penalty as i32)
}

/// One column candidate of [`graphviz_shaped`]: the segments `first..=last` between its
/// candidate cuts, in one ranking.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    first: usize,
    last: usize,
    rank_forward: bool,
}

impl Run {
    /// A shape whose column `usize::from(first > 0)` is this run.
    fn shape(&self, cuts: &[usize], rank_gap: RankGap) -> Shape {
        let mut breaks = Vec::new();
        if self.first > 0 {
            breaks.push(cuts[self.first - 1]);
        }
        if self.last < cuts.len() {
            breaks.push(cuts[self.last]);
        }
        Shape {
            breaks,
            rank_forward: self.rank_forward,
            loop_boxes: true,
            staggered: Vec::new(),
            rank_gap,
        }
    }
}

/// The top edge of every block's box in `l`, by program order (`None`: not drawn).
fn block_tops(f: &Function, l: &Layout) -> Vec<Option<f32>> {
    let order = program_order::blocks(f);
    let mut tops = vec![None; order.len()];
    for c in l.clusters.iter().filter(|c| c.kind == ClusterKind::Block) {
        if let Ok(k) = order.binary_search_by(|x| program_order::block_cmp(x, &c.label)) {
            tops[k] = Some(c.min[1]);
        }
    }
    tops
}

/// At most `n` of `cuts`, spread evenly down a drawing of height `height` whose blocks
/// start at `tops`: for each of the heights `j / (n + 1)` of the drawing, the cut whose next
/// block starts closest to it.
fn candidate_cuts(cuts: &[usize], tops: &[Option<f32>], height: f32, n: usize) -> Vec<usize> {
    let mut chosen: Vec<usize> = (1..=n)
        .filter_map(|j| {
            let target = height * j as f32 / (n + 1) as f32;
            cuts.iter()
                .filter_map(|&k| Some((k, tops.get(k + 1).copied().flatten()?)))
                .min_by(|a, b| (a.1 - target).abs().total_cmp(&(b.1 - target).abs()))
                .map(|(k, _)| k)
        })
        .collect();
    chosen.sort_unstable();
    chosen.dedup();
    chosen
}

/// Runs Graphviz `dot -Tjson` (`None` when `dot` is missing or fails).
fn run_graphviz(f: &Function, dot: &str) -> Option<Layout> {
    parse_graphviz_json(f, &exec_dot(dot)?)
}

/// `dot -Tjson` of `dot` (`None` when `dot` is missing or fails). The text goes to `dot`
/// in a temporary file rather than a pipe: the process keeps the default SIGPIPE action (for
/// `handscope ... | head`), and a `dot` that exits before reading a pipe would end it.
fn exec_dot(dot: &str) -> Option<Vec<u8>> {
    use std::io::Write as _;
    let mut file = tempfile::Builder::new()
        .prefix("handscope-layout-")
        .suffix(".dot")
        .tempfile()
        .ok()?;
    file.write_all(dot.as_bytes()).ok()?;
    file.flush().ok()?;
    let out = std::process::Command::new("dot")
        .arg("-Tjson")
        .arg(file.path())
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    out.status.success().then_some(out.stdout)
}

/// Space between two columns of a drawing, in points.
const COLUMN_GAP: f32 = 40.0;

/// The Graphviz layout of `f` in `shape`: each column laid out on its own and put together
/// by [`compose`].
#[cfg(test)]
fn graphviz_in_shape(f: &Function, shape: &Shape) -> Option<Layout> {
    let parts: Vec<Part> = (0..=shape.breaks.len())
        .map(|c| parse_graphviz_part(f, &exec_dot(&column_dot(f, shape, c))?))
        .collect::<Option<_>>()?;
    compose(
        f,
        &parts.iter().collect::<Vec<_>>(),
        &columns_of(f, &shape.breaks),
    )
}

/// The drawing of `f` from the drawings of its columns, `columns` giving each node's: the
/// columns left to right with their tops aligned, and each channel from one column to
/// another drawn as a curve from the bottom of its producer to the top of its consumer
/// (`None` when a node is in no part).
fn compose(f: &Function, parts: &[&Part], columns: &[usize]) -> Option<Layout> {
    let mut nodes: Vec<Option<NodeBox>> = vec![None; f.nodes.len()];
    let (mut edges, mut clusters) = (Vec::new(), Vec::new());
    let (mut x, mut height) = (0.0f32, 0.0f32);
    for part in parts {
        part.place_at([x, 0.0], &mut nodes, &mut edges, &mut clusters);
        x += part.size[0] + COLUMN_GAP;
        height = height.max(part.size[1]);
    }
    let nodes: Vec<NodeBox> = nodes.into_iter().collect::<Option<_>>()?;
    if parts.len() > 1 {
        for (cid, ch) in f.channels.iter() {
            let from = ch.producer.node;
            for c in &ch.consumers {
                if columns[c.node.index()] != columns[from.index()] {
                    edges.push(EdgeRoute {
                        channel: cid.index(),
                        to: c.node,
                        from,
                        points: route_between_columns(&nodes[from.index()], &nodes[c.node.index()]),
                    });
                }
            }
        }
    }
    // Outer boxes first, so that a loop's box lies under the boxes of its blocks.
    clusters.sort_by(|a, b| area(b).total_cmp(&area(a)));
    Some(Layout {
        nodes,
        edges,
        clusters,
        size: [(x - COLUMN_GAP).max(0.0), height],
        engine: "graphviz",
    })
}

/// The route of a channel between two columns: one cubic segment leaving the bottom of
/// the producer downwards and entering the top of the consumer from above.
fn route_between_columns(from: &NodeBox, to: &NodeBox) -> Vec<P2> {
    let p0 = [from.center[0], from.max()[1]];
    let p3 = [to.center[0], to.min()[1]];
    let bend = 40.0;
    vec![p0, [p0[0], p0[1] + bend], [p3[0], p3[1] - bend], p3]
}

fn area(c: &ClusterBox) -> f32 {
    (c.max[0] - c.min[0]) * (c.max[1] - c.min[1])
}

fn nums(s: &str) -> Vec<f32> {
    s.split([',', ' '])
        .filter_map(|x| x.trim().parse().ok())
        .collect()
}

/// A drawing of some of a function's nodes (one column of [`column_dot`], one block of
/// [`super::layout_stack`]).
pub(super) struct Part {
    /// Node boxes by node index (`None`: not in this part).
    pub(super) nodes: Vec<Option<NodeBox>>,
    /// Routes of the channels between the part's nodes.
    pub(super) edges: Vec<EdgeRoute>,
    /// Its block and loop boxes.
    pub(super) clusters: Vec<ClusterBox>,
    /// Size of the drawing.
    pub(super) size: P2,
}

impl Part {
    /// Adds the part's nodes, routes and boxes, moved by `off`, to a drawing's.
    pub(super) fn place_at(
        &self,
        off: P2,
        nodes: &mut [Option<NodeBox>],
        edges: &mut Vec<EdgeRoute>,
        clusters: &mut Vec<ClusterBox>,
    ) {
        let at = |q: P2| [q[0] + off[0], q[1] + off[1]];
        for nb in self.nodes.iter().flatten() {
            nodes[nb.node.index()] = Some(NodeBox {
                center: at(nb.center),
                ..nb.clone()
            });
        }
        edges.extend(self.edges.iter().map(|e| EdgeRoute {
            points: e.points.iter().map(|&q| at(q)).collect(),
            ..e.clone()
        }));
        clusters.extend(self.clusters.iter().map(|b| ClusterBox {
            min: at(b.min),
            max: at(b.max),
            ..b.clone()
        }));
    }
}

/// Graphviz's drawing of the DOT text `dot` of some of `f`'s nodes (`None` when `dot` is
/// missing or fails).
pub(super) fn graphviz_part(f: &Function, dot: &str) -> Option<Part> {
    parse_graphviz_part(f, &exec_dot(dot)?)
}

/// Reads `dot -Tjson` output of [`layout_dot`] back into a [`Layout`] (`None` when it is
/// malformed or leaves a node out).
pub fn parse_graphviz_json(f: &Function, bytes: &[u8]) -> Option<Layout> {
    let p = parse_graphviz_part(f, bytes)?;
    let nodes: Option<Vec<NodeBox>> = p.nodes.into_iter().collect();
    let mut clusters = p.clusters;
    // Outer boxes first, so that a loop's box lies under the boxes of its blocks.
    clusters.sort_by(|a, b| area(b).total_cmp(&area(a)));
    Some(Layout {
        nodes: nodes?,
        edges: p.edges,
        clusters,
        size: p.size,
        engine: "graphviz",
    })
}

/// Reads `dot -Tjson` output of [`column_dot`] (`None` when it is malformed).
fn parse_graphviz_part(f: &Function, bytes: &[u8]) -> Option<Part> {
    let v: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    let bb = nums(v.get("bb")?.as_str()?);
    let (w, h) = (*bb.get(2)?, *bb.get(3)?);
    let flip = |x: f32, y: f32| [x, h - y];
    let mut nodes: Vec<Option<NodeBox>> = vec![None; f.nodes.len()];
    let mut clusters = Vec::new();
    let mut names: BTreeMap<usize, NodeId> = BTreeMap::new();
    let blocks = program_order::blocks(f);
    for (gvid, o) in v
        .get("objects")
        .and_then(|o| o.as_array())
        .into_iter()
        .flatten()
        .enumerate()
    {
        let name = o.get("name").and_then(|n| n.as_str()).unwrap_or("");
        if let Some(k) = name.strip_prefix("cluster_") {
            let b = nums(o.get("bb").and_then(|b| b.as_str()).unwrap_or(""));
            let (kind, label) = match k.strip_prefix("loop") {
                Some(_) => (
                    ClusterKind::Loop,
                    o.get("label")
                        .and_then(|l| l.as_str())
                        .unwrap_or("loop")
                        .to_string(),
                ),
                None => (
                    ClusterKind::Block,
                    blocks
                        .get(k.parse::<usize>().ok()?)
                        .map_or(String::new(), |s| s.to_string()),
                ),
            };
            if b.len() == 4 {
                clusters.push(ClusterBox {
                    label,
                    kind,
                    min: flip(b[0], b[3]),
                    max: flip(b[2], b[1]),
                });
            }
        } else if let Some(i) = name.strip_prefix('n').and_then(|i| i.parse::<usize>().ok()) {
            let p = nums(o.get("pos")?.as_str()?);
            let id = NodeId::new(i);
            if i >= nodes.len() || p.len() < 2 {
                return None;
            }
            nodes[i] = Some(NodeBox {
                node: id,
                center: flip(p[0], p[1]),
                size: node_size(f, id),
            });
            names.insert(gvid, id);
        }
    }
    let mut edges = Vec::new();
    for e in v
        .get("edges")
        .and_then(|e| e.as_array())
        .into_iter()
        .flatten()
    {
        // Edges without a channel ID are the invisible stacking edges.
        let Some((c, k)) = e
            .get("id")
            .and_then(|i| i.as_str())
            .and_then(|id| id.strip_prefix('c')?.split_once('_'))
        else {
            continue;
        };
        let (c, k): (usize, usize) = (c.parse().ok()?, k.parse().ok()?);
        let ch = f.channels.get(handscope_sim::ChannelId::new(c))?;
        let to = ch.consumers.get(k)?.node;
        let mut points = Vec::new();
        let mut end = None;
        for tok in e
            .get("pos")
            .and_then(|p| p.as_str())
            .unwrap_or("")
            .split_whitespace()
        {
            if let Some(r) = tok.strip_prefix("e,") {
                let q = nums(r);
                end = Some(flip(q[0], q[1]));
            } else if tok.starts_with("s,") {
                continue;
            } else {
                let q = nums(tok);
                if q.len() == 2 {
                    points.push(flip(q[0], q[1]));
                }
            }
        }
        if let (Some(e), Some(&last)) = (end, points.last()) {
            let lerp = |t: f32| {
                [
                    last[0] + (e[0] - last[0]) * t,
                    last[1] + (e[1] - last[1]) * t,
                ]
            };
            points.extend([lerp(1.0 / 3.0), lerp(2.0 / 3.0), e]);
        }
        if points.len() < 4 {
            continue;
        }
        points.truncate(1 + 3 * ((points.len() - 1) / 3));
        edges.push(EdgeRoute {
            channel: c,
            to,
            from: ch.producer.node,
            points,
        });
    }
    Some(Part {
        nodes,
        edges,
        clusters,
        size: [w, h],
    })
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    #[test]
    fn both_engines_place_every_node() {
        let c = crate::app::circuit::Circuit::from_example(
            0,
            &handscope_sim::spec::timing::TimingProfile::ideal(),
        )
        .unwrap();
        for engine in [Engine::Auto, Engine::Sugiyama] {
            let l = compute(&c.func, engine, DEFAULT_PANEL);
            let want = match engine {
                Engine::Auto if dot_runs() => "graphviz",
                _ => "sugiyama",
            };
            assert_eq!(l.engine, want, "Graphviz is used when `dot` runs");
            assert_eq!(l.nodes.len(), c.func.nodes.len());
            let n_edges: usize = c.func.channels.values().map(|ch| ch.consumers.len()).sum();
            assert_eq!(l.edges.len(), n_edges, "{}", l.engine);
            for n in &l.nodes {
                assert!(n.center[0] >= 0.0 && n.center[0] <= l.size[0] + 1.0);
                assert!(n.center[1] >= 0.0 && n.center[1] <= l.size[1] + 1.0);
            }
        }
    }

    use crate::app::program_order::tests::{NESTED_LOOPS, THREE_LOOPS, compile};

    /// Whether box `i` lies inside box `o`.
    pub(crate) fn inside(i: &ClusterBox, o: &ClusterBox) -> bool {
        o.min[0] <= i.min[0] && o.min[1] <= i.min[1] && i.max[0] <= o.max[0] && i.max[1] <= o.max[1]
    }

    /// Whether box `b` comes after box `a` in reading order: it starts lower, or it lies in a
    /// column to the right.
    fn reads_after(b: &ClusterBox, a: &ClusterBox) -> bool {
        b.min[1] > a.min[1] || b.min[0] >= a.max[0]
    }

    pub(crate) fn dot_runs() -> bool {
        std::process::Command::new("dot")
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success())
    }

    /// #15 item 1: each loop is a box around its blocks, blocks are clusters in program order
    /// with stacking anchors between them, and the loops of a kernel follow one another
    /// downwards.
    #[test]
    fn loops_are_boxes_that_follow_the_program_downwards() {
        let c = compile(THREE_LOOPS);
        let dot = layout_dot(&c.func);
        for (k, b) in ["bb1", "bb3", "bb5"].iter().enumerate() {
            let open = format!("subgraph \"cluster_loop{k}\" {{ label=\"loop {b}\"");
            let at = dot
                .find(&open)
                .unwrap_or_else(|| panic!("{open} in\n{dot}"));
            let inner = &dot[at + open.len()..];
            assert!(
                inner.find(&format!("label=\"{b}\"")) < inner.find('}'),
                "block {b} is inside its loop's cluster"
            );
        }
        assert!(dot.contains("a0 [shape=point"), "{dot}");
        assert!(dot.contains("-> a0 [style=invis"), "{dot}");
        if !dot_runs() {
            // Graphviz is installed by scripts/setup-tools.sh; without it the layout is
            // Sugiyama's, which draws no loop boxes.
            return;
        }
        let l = compute(&c.func, Engine::Auto, DEFAULT_PANEL);
        let mut by_label: Vec<(String, f32)> = l
            .clusters
            .iter()
            .filter(|b| b.kind == ClusterKind::Loop)
            .map(|b| (b.label.clone(), b.min[1]))
            .collect();
        by_label.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(
            by_label.iter().map(|t| t.0.as_str()).collect::<Vec<_>>(),
            ["loop bb1", "loop bb3", "loop bb5"]
        );
        let boxes: Vec<&ClusterBox> = ["loop bb1", "loop bb3", "loop bb5"]
            .iter()
            .map(|n| l.clusters.iter().find(|b| b.label == *n).unwrap())
            .collect();
        assert!(
            boxes.windows(2).all(|w| reads_after(w[1], w[0])),
            "each loop starts below the one before, or in a later column: {boxes:?}"
        );
        let ret = c
            .func
            .nodes
            .iter()
            .find(|(_, n)| matches!(n.op, handscope_sim::Op::Return))
            .unwrap()
            .0;
        let last_loop = l.clusters.iter().find(|b| b.label == "loop bb5").unwrap();
        let r = &l.nodes[ret.index()];
        assert!(r.center[1] > last_loop.min[1] || r.center[0] > last_loop.max[0]);
        // A box is drawn before (under) every box inside it.
        for (j, b) in l.clusters.iter().enumerate() {
            for (i, a) in l.clusters.iter().enumerate() {
                if i != j && inside(b, a) {
                    assert!(i < j, "{a:?} is drawn before {b:?}");
                }
            }
        }
        let bb1 = l.clusters.iter().find(|b| b.label == "bb1").unwrap();
        let loop1 = l.clusters.iter().find(|b| b.label == "loop bb1").unwrap();
        assert!(inside(bb1, loop1));
    }

    /// A nested loop's box lies inside its outer loop's box.
    #[test]
    fn a_nested_loop_box_lies_inside_the_outer_one() {
        let c = compile(NESTED_LOOPS);
        let dot = layout_dot(&c.func);
        let outer = dot.find("cluster_loop0").unwrap();
        let inner = dot.find("cluster_loop1").unwrap();
        assert!(outer < inner, "{dot}");
        if !dot_runs() {
            return;
        }
        let l = compute(&c.func, Engine::Auto, DEFAULT_PANEL);
        // Two loops; a loop wrapped into several columns has a box in each.
        let loops: Vec<&ClusterBox> = l
            .clusters
            .iter()
            .filter(|b| b.kind == ClusterKind::Loop)
            .collect();
        let mut labels: Vec<&str> = loops.iter().map(|b| b.label.as_str()).collect();
        labels.sort_unstable();
        labels.dedup();
        assert_eq!(labels, ["loop bb1–bb3", "loop bb2"], "{:?}", l.clusters);
        for i in loops.iter().filter(|b| b.label == "loop bb2") {
            assert!(
                loops
                    .iter()
                    .any(|o| o.label == "loop bb1–bb3" && inside(i, o)),
                "no box of the outer loop contains {i:?}: {loops:?}"
            );
        }
    }

    /// #15 item 1: the program wraps into columns only between loops, never inside one.
    #[test]
    fn columns_break_between_loops_only() {
        let three = compile(THREE_LOOPS);
        let order = program_order::blocks(&three.func);
        let loops = program_order::loops(&three.func, &order);
        let cuts = column_cuts(&three.func);
        assert!(!cuts.is_empty(), "{order:?}");
        for k in &cuts {
            assert!(
                loops.iter().all(|l| !(l.first <= *k && *k < l.last)),
                "cut {k} lies inside a loop: {loops:?}"
            );
        }
        // Each of the three loops can start a column.
        for l in &loops {
            if l.first > 0 {
                assert!(cuts.contains(&(l.first - 1)), "{cuts:?} {loops:?}");
            }
        }
        let nested = compile(NESTED_LOOPS);
        let order = program_order::blocks(&nested.func);
        let outer = &program_order::loops(&nested.func, &order)[0];
        assert!(
            column_cuts(&nested.func)
                .iter()
                .all(|k| *k < outer.first || *k >= outer.last),
            "no cut inside the outer loop"
        );
    }

    /// In columns, each column is laid out on its own: the columns' DOT texts share no node
    /// and together hold all; laid out, each column lies right of the one before, tops
    /// aligned, and every channel between columns gets a route from its producer's bottom
    /// to its consumer's top.
    #[test]
    fn a_break_starts_a_new_column() {
        let c = compile(THREE_LOOPS);
        let cuts = column_cuts(&c.func);
        let k = cuts[cuts.len() / 2];
        let shape = Shape {
            breaks: vec![k],
            ..Shape::default()
        };
        let columns = columns_of(&c.func, &shape.breaks);
        for column in 0..2 {
            let dot = column_dot(&c.func, &shape, column);
            for (id, _) in c.func.nodes.iter() {
                let declared = dot.contains(&format!("  n{} [width=", id.index()));
                assert_eq!(declared, columns[id.index()] == column, "n{}", id.index());
            }
            assert!(!dot.contains(&format!(" a{k} [shape=point")), "{dot}");
        }
        assert!(columns.contains(&0) && columns.contains(&1));
        if !dot_runs() {
            return;
        }
        let l = graphviz_in_shape(&c.func, &shape).unwrap();
        let span = |col: usize| {
            let boxes = l.nodes.iter().filter(|b| columns[b.node.index()] == col);
            boxes.fold([f32::MAX, f32::MAX, f32::MIN], |a, b| {
                [
                    a[0].min(b.min()[0]),
                    a[1].min(b.min()[1]),
                    a[2].max(b.max()[0]),
                ]
            })
        };
        let (left, right) = (span(0), span(1));
        assert!(
            right[0] > left[2],
            "column 1 {right:?} lies right of column 0 {left:?}"
        );
        assert!(
            left[1] < 60.0 && right[1] < 60.0,
            "tops aligned: {left:?} {right:?}"
        );
        let n_edges: usize = c.func.channels.values().map(|ch| ch.consumers.len()).sum();
        assert_eq!(l.edges.len(), n_edges);
        let between: Vec<&EdgeRoute> = l
            .edges
            .iter()
            .filter(|e| columns[e.from.index()] != columns[e.to.index()])
            .collect();
        assert!(
            !between.is_empty(),
            "the value of v flows from one column into the next"
        );
        for e in between {
            let (p, q) = (&l.nodes[e.from.index()], &l.nodes[e.to.index()]);
            assert_eq!(e.points.first(), Some(&[p.center[0], p.max()[1]]));
            assert_eq!(e.points.last(), Some(&[q.center[0], q.min()[1]]));
        }
    }

    /// Ranked in program order, a loop's back edges do not rank their ends (so the loop
    /// reads top to bottom); left to Graphviz, every channel ranks.
    #[test]
    fn back_edges_leave_ranking_to_the_program() {
        let c = compile(NESTED_LOOPS);
        let forward = layout_dot(&c.func);
        let free = column_dot(
            &c.func,
            &Shape {
                rank_forward: false,
                ..Shape::default()
            },
            0,
        );
        let loose = |d: &str| d.lines().filter(|l| l.contains("constraint=false")).count();
        // Two loops, each with a back edge per value it carries and one for its control.
        assert!(loose(&forward) >= 4, "{forward}");
        assert_eq!(loose(&free), 0, "{free}");
    }

    /// Of many block boundaries, the candidates for breaks are spread evenly down the
    /// drawing.
    #[test]
    fn candidate_cuts_spread_down_the_drawing() {
        // Eleven blocks, ten boundaries; block k + 1 starts at 100 * (k + 1).
        let tops: Vec<Option<f32>> = (0..11).map(|k| Some(100.0 * k as f32)).collect();
        let cuts: Vec<usize> = (0..10).collect();
        // Heights 1/4, 2/4, 3/4 of 1100: 275, 550, 825; the nearest block starts are 300,
        // 500 or 600 (a tie, the first wins), 800.
        assert_eq!(candidate_cuts(&cuts, &tops, 1100.0, 3), vec![2, 4, 7]);
        // Only some boundaries may break; duplicates merge.
        assert_eq!(candidate_cuts(&[0, 9], &tops, 1100.0, 3), vec![0, 9]);
        assert_eq!(candidate_cuts(&[], &tops, 1100.0, 3), Vec::<usize>::new());
    }

    /// #15 item 1 on a tall kernel: wrapped into columns, its drawing fits the panel at a
    /// larger zoom than in one column, and its loops still read in program order.
    #[test]
    fn a_tall_program_wraps_into_columns() {
        if !dot_runs() {
            return;
        }
        let src = "unsigned k(unsigned v) {\n".to_string()
            + &(1..=6)
                .map(|i| format!("  for (int i = 0; i < 3; i++) v = (v ^ {i}) + (v >> 1);\n"))
                .collect::<String>()
            + "  return v; }\n";
        let c = compile(&src);
        let one = run_graphviz(&c.func, &layout_dot(&c.func)).unwrap();
        let shaped = compute(&c.func, Engine::Auto, DEFAULT_PANEL);
        let (z1, z) = (
            fit_zoom(one.size, DEFAULT_PANEL),
            fit_zoom(shaped.size, DEFAULT_PANEL),
        );
        assert!(
            one.size[1] > one.size[0],
            "six loops in one column are tall: {:?}",
            one.size
        );
        assert!(z > z1 * SHAPE_MIN_GAIN, "zoom {z} vs {z1} in one column");
        let mut loops: Vec<&ClusterBox> = shaped
            .clusters
            .iter()
            .filter(|b| b.kind == ClusterKind::Loop)
            .collect();
        assert_eq!(loops.len(), 6);
        loops.sort_by_key(|b| {
            b.label
                .trim_start_matches("loop bb")
                .parse::<u32>()
                .unwrap_or(0)
        });
        assert!(
            loops.windows(2).all(|w| reads_after(w[1], w[0])),
            "{loops:?}"
        );
        assert!(
            loops.windows(2).any(|w| w[1].min[0] >= w[0].max[0]),
            "some loop starts a new column to the right: {loops:?}"
        );
    }

    /// Inside a block's box a node shows its ID without the block's name.
    #[test]
    fn node_labels_leave_out_the_block_they_are_drawn_in() {
        let c = compile(THREE_LOOPS);
        for (id, n) in c.func.nodes.iter() {
            let (label, _) = node_label(&c.func, id);
            match n.block.as_deref() {
                Some(b) if n.id.starts_with(&format!("{b}.")) => {
                    assert_eq!(format!("{b}.{label}"), n.id)
                }
                _ => assert_eq!(label, n.id),
            }
        }
    }

    /// A fork's sent flags and a buffer's slots follow its operation, whose text drops the
    /// count the marks show; a fork, and a sequential buffer whose ID says `buffer`, are on
    /// one line as low as stateless nodes; other buffers keep their operation line; every
    /// node is as wide as its marks need. A control merge whose ID says what it is draws its
    /// winner's row right under the ID.
    #[test]
    fn forks_and_buffers_show_their_state_on_the_operation_line() {
        let c = compile(THREE_LOOPS);
        let f = &c.func;
        let (mut forks, mut numbered, mut named, mut merges) = (0, 0, 0, 0);
        for (id, n) in f.nodes.iter() {
            let (label, full) = node_label(f, id);
            let (_, drawn) = node_text(f, id);
            let size = node_size(f, id);
            match &n.op {
                handscope_sim::Op::Fork => {
                    forks += 1;
                    assert_eq!(format!("{drawn} [{}]", n.outputs.len()), full);
                    assert_eq!(state_marks(f, id), Some((n.outputs.len(), OUTPUT_MARK)));
                }
                handscope_sim::Op::Buffer { slots, .. } => {
                    assert_eq!(full, format!("buffer [{slots}] seq"));
                    assert_eq!(state_marks(f, id), Some((*slots as usize, SLOT_MARK)));
                    if label.starts_with("buffer") {
                        numbered += 1;
                        assert_eq!(drawn, "buffer", "{label}");
                    } else {
                        named += 1;
                        assert_eq!(drawn, "buffer seq", "{label}");
                    }
                }
                handscope_sim::Op::ControlMerge => {
                    merges += 1;
                    assert_eq!(state_marks(f, id), None);
                    assert_eq!(drawn, "", "{label}: the ID says control_merge");
                    assert_eq!(size[1], 32.0, "a control merge's winner takes a row");
                    continue;
                }
                _ => {
                    assert_eq!(drawn, full);
                    continue;
                }
            }
            let marks = state_marks(f, id).map_or(0.0, |(k, w)| k as f32 * w);
            if one_line(f, id, &label, &drawn) {
                assert_eq!(size[1], 20.0, "{full}");
                assert!(
                    size[0] >= label.len() as f32 * ID_CHAR + 4.0 + marks,
                    "{full}"
                );
            } else {
                assert!(!label.starts_with(&drawn), "{label} / {drawn}");
                assert_eq!(size[1], 32.0, "{full}");
                assert!(
                    size[0] >= op_line_width(f, id, &drawn) + NODE_PAD - 1e-3,
                    "{full}"
                );
            }
        }
        assert!(forks > 0 && numbered > 0 && named > 0 && merges > 0);
    }

    /// Ranks are 14 points apart where the drawing stays readable at fit with them (a small
    /// circuit in a window), 8 where it would not (the same circuit in a small panel).
    #[test]
    fn ranks_spread_where_the_drawing_stays_readable() {
        if !dot_runs() {
            return;
        }
        let src = include_str!("../../../examples/circuits/fork_join_diamond.mlir");
        let (m, _) = handscope_compiler::mlir::parse_mlir(src, "d.mlir").unwrap();
        let f = m.functions.last().unwrap();
        // The smallest vertical gap between the boxes of a channel's two ends, one below
        // the other.
        let gap = |l: &Layout| {
            let at = |n: NodeId| l.nodes.iter().find(|b| b.node == n).unwrap();
            l.edges
                .iter()
                .map(|e| at(e.to).min()[1] - at(e.from).max()[1])
                .filter(|&g| g > 0.0)
                .fold(f32::INFINITY, f32::min)
        };
        let window = compute(f, Engine::Auto, DEFAULT_PANEL);
        assert!(gap(&window) >= 13.5, "{}", gap(&window));
        let small = compute(f, Engine::Auto, [90.0, 120.0]);
        assert!(gap(&small) < 9.0, "{}", gap(&small));
    }

    /// An operation line says what the ID does not: a FIFO buffer named `buffer<N>` keeps
    /// `fifo` (only a sequential buffer, the usual kind, goes on one line); a buffer or a
    /// control merge with an MLIR name keeps its whole operation line (and a merge its
    /// winner's row below it).
    #[test]
    fn operation_lines_say_what_the_id_does_not() {
        let src = "handshake.func @f(%a: i32, %c: none) -> (i32, index) {\n\
                   %b = buffer [2] fifo %a : i32\n\
                   %q = buffer [1] fifo %b {handshake.name = \"q\"} : i32\n\
                   %m, %i = control_merge %c {handshake.name = \"m\"} : none, index\n\
                   sink %m : none\n\
                   return %q, %i : i32, index\n}\n";
        let (m, _) = handscope_compiler::mlir::parse_mlir(src, "t.mlir").unwrap();
        let f = &m.functions[0];
        let text = |name: &str| {
            let n = f.nodes.iter().find(|(_, n)| n.id == name).unwrap().0;
            (node_text(f, n), node_size(f, n))
        };
        let ((id, op), size) = text("buffer0");
        assert_eq!((id.as_str(), op.as_str()), ("buffer0", "fifo"));
        assert_eq!(size[1], 32.0);
        let ((_, op), _) = text("q");
        assert_eq!(op, "buffer fifo");
        let ((_, op), size) = text("m");
        assert_eq!((op.as_str(), size[1]), ("control_merge", 50.0));
    }

    /// A node whose ID is its operation and a number (`mux1`, `cond_br0`) is drawn on one
    /// line; an ID that does not say the operation (`lock.join`, a name from MLIR) keeps the
    /// operation line, and so does state that needs a row (a control merge's winner).
    #[test]
    fn nodes_named_after_their_operation_take_one_line() {
        let c = compile(THREE_LOOPS);
        let f = &c.func;
        let mut one = 0;
        for (id, n) in f.nodes.iter() {
            let (label, op) = node_text(f, id);
            let expect = label
                .strip_prefix(op.as_str())
                .is_some_and(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_digit()))
                && !matches!(n.op, handscope_sim::Op::ControlMerge);
            assert_eq!(one_line(f, id, &label, &op), expect, "{label} / {op}");
            assert_eq!(node_size(f, id)[1] == 20.0, expect, "{label} / {op}");
            one += usize::from(expect);
        }
        assert!(
            one > f.nodes.len() / 2,
            "{one} of {} on one line",
            f.nodes.len()
        );
        let join = f.nodes.iter().find(|(_, n)| n.id == "lock.join").unwrap().0;
        let (label, op) = node_text(f, join);
        assert!(!one_line(f, join, &label, &op));
    }

    #[test]
    fn route_endpoints() {
        let r = EdgeRoute {
            channel: 0,
            to: NodeId::new(1),
            from: NodeId::new(0),
            points: vec![[0.0, 0.0], [0.0, 1.0], [0.0, 2.0], [0.0, 3.0]],
        };
        assert_eq!(r.at(0.0), [0.0, 0.0]);
        assert!((r.at(1.0)[1] - 3.0).abs() < 1e-2);
    }
}
