//! The drawing of the graph at one cycle as a list of simple items in layout coordinates.
//! The window paints it with egui and the export writes it as SVG, so both look the same.

use cranelift_entity::EntityRef;
use handscope_sim::spec::NodeState;
use handscope_sim::{ChannelId, Function, NodeId, Op};

use super::binding::Binding;
use super::cycle::CycleState;
use super::describe::{DeadlockMarks, Selection};
use super::layout::{
    ClusterKind, ID_CHAR, Layout, MAX_OUTPUT_MARKS, MAX_SLOT_MARKS, NodeBox, OP_CHAR, OUTPUT_MARK,
    P2, SLOT_MARK, id_line_width, node_text, one_line, op_line_width, state_marks,
};
use super::style::{ChanState, Palette, Radix, Rgba, format_value};

/// Text anchoring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    /// Centered on the position.
    Center,
    /// Left edge at the position, vertically centered.
    Left,
}

/// One drawing item.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// A rectangle.
    Rect {
        /// Top-left.
        min: P2,
        /// Bottom-right.
        max: P2,
        /// Fill.
        fill: Rgba,
        /// Border colour.
        stroke: Rgba,
        /// Border width (0: none).
        width: f32,
        /// Corner radius.
        radius: f32,
    },
    /// A cubic B-spline (`3k + 1` points).
    Curve {
        /// Control points.
        points: Vec<P2>,
        /// Colour.
        color: Rgba,
        /// Width.
        width: f32,
        /// Dashed (control-only channels).
        dashed: bool,
    },
    /// A filled polygon (arrow heads).
    Poly {
        /// Corners.
        points: Vec<P2>,
        /// Fill.
        fill: Rgba,
    },
    /// A circle.
    Circle {
        /// Center.
        center: P2,
        /// Radius.
        r: f32,
        /// Fill.
        fill: Rgba,
        /// Border.
        stroke: Rgba,
    },
    /// Text.
    Text {
        /// Anchor position.
        pos: P2,
        /// The text.
        text: String,
        /// Font size in points.
        size: f32,
        /// Colour.
        color: Rgba,
        /// Anchoring.
        anchor: Anchor,
        /// Background box colour, if any.
        bg: Option<Rgba>,
    },
}

impl Item {
    /// Bounding box (for culling).
    pub fn bounds(&self) -> (P2, P2) {
        let fold = |pts: &[P2]| {
            let mut lo = [f32::INFINITY; 2];
            let mut hi = [f32::NEG_INFINITY; 2];
            for p in pts {
                lo = [lo[0].min(p[0]), lo[1].min(p[1])];
                hi = [hi[0].max(p[0]), hi[1].max(p[1])];
            }
            (lo, hi)
        };
        match self {
            Item::Rect { min, max, .. } => (*min, *max),
            Item::Curve { points, .. } | Item::Poly { points, .. } => fold(points),
            Item::Circle { center, r, .. } => (
                [center[0] - r, center[1] - r],
                [center[0] + r, center[1] + r],
            ),
            Item::Text {
                pos, text, size, ..
            } => {
                let w = text.chars().count() as f32 * size * 0.6;
                ([pos[0] - w, pos[1] - size], [pos[0] + w, pos[1] + size])
            }
        }
    }
}

/// A complete drawing.
#[derive(Clone, Debug, PartialEq)]
pub struct Scene {
    /// Size of the drawing.
    pub size: P2,
    /// Background colour.
    pub background: Rgba,
    /// Items in painting order.
    pub items: Vec<Item>,
}

/// What to draw besides the cycle's state.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Colours.
    pub palette: Palette,
    /// Value format.
    pub radix: Radix,
    /// Write data values on valid channels.
    pub values: bool,
    /// The selection (outlined).
    pub selection: Option<Selection>,
    /// Deadlock marks: wait-for cycles strongly, chains lightly, step numbers on nodes.
    pub deadlock: DeadlockMarks,
    /// Nodes of the source line under the mouse or selected in the source panel.
    pub source_nodes: Vec<NodeId>,
    /// Search matches.
    pub matches: Vec<NodeId>,
    /// Nodes a lesson step points at.
    pub lesson_nodes: Vec<NodeId>,
    /// Channels a lesson step points at.
    pub lesson_channels: Vec<ChannelId>,
    /// Nodes named by `check` errors (outlined in the deadlock colour, dashed halo).
    pub problem_nodes: Vec<NodeId>,
    /// The throughput view: stall heat per channel and the critical cycle (`h`).
    pub throughput: ThroughputMarks,
}

/// What the throughput view marks: how much each channel stalls, and the channels of the
/// critical cycle (`handscope throughput`'s model).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ThroughputMarks {
    /// Per channel index, its stall cycles relative to the most stalled channel (0..=1);
    /// empty when the view is off.
    pub heat: Vec<f32>,
    /// Channels on the critical cycle.
    pub critical: Vec<ChannelId>,
}

/// Draws `layout` of `f` at the cycle `cs`.
pub fn build(f: &Function, layout: &Layout, b: &Binding, cs: &CycleState, o: &Options) -> Scene {
    let p = &o.palette;
    let mut items = Vec::with_capacity(layout.nodes.len() * 6 + layout.edges.len() * 3);
    for c in &layout.clusters {
        let (fill, stroke, width) = match c.kind {
            ClusterKind::Block => (p.cluster, p.weak_text.with_alpha(90), 1.0),
            ClusterKind::Loop => (p.loop_fill, p.weak_text.with_alpha(160), 1.5),
        };
        items.push(Item::Rect {
            min: c.min,
            max: c.max,
            fill,
            stroke,
            width,
            radius: 6.0,
        });
        items.push(Item::Text {
            pos: [c.min[0] + 6.0, c.min[1] + 9.0],
            text: c.label.clone(),
            size: 10.0,
            color: p.weak_text,
            anchor: Anchor::Left,
            bg: None,
        });
    }
    let sel_chan = match o.selection {
        Some(Selection::Channel(c)) => Some(c.index()),
        _ => None,
    };
    // Marked nodes and channels as flags by index: a search of the lists per node and edge
    // is quadratic on large graphs (a deadlock's chains, search matches).
    let flags = |len: usize, ids: &mut dyn Iterator<Item = usize>| {
        let mut v = vec![false; len];
        for i in ids {
            if let Some(x) = v.get_mut(i) {
                *x = true;
            }
        }
        v
    };
    let nn = f.nodes.len();
    let nc = f.channels.len();
    let cycle_chan = flags(nc, &mut o.deadlock.cycle_channels.iter().map(|c| c.index()));
    let chain_chan = flags(nc, &mut o.deadlock.chain_channels.iter().map(|c| c.index()));
    let cycle_node = flags(nn, &mut o.deadlock.cycle_nodes.iter().map(|n| n.index()));
    let chain_node = flags(nn, &mut o.deadlock.chain_nodes.iter().map(|n| n.index()));
    let lit_node = flags(
        nn,
        &mut o.source_nodes.iter().chain(&o.matches).map(|n| n.index()),
    );
    let flag = |v: &[bool], i: usize| v.get(i).copied().unwrap_or(false);
    let critical = flags(nc, &mut o.throughput.critical.iter().map(|c| c.index()));
    let lesson_chan = flags(nc, &mut o.lesson_channels.iter().map(|c| c.index()));
    let lesson_node = flags(nn, &mut o.lesson_nodes.iter().map(|n| n.index()));
    let problem_node = flags(nn, &mut o.problem_nodes.iter().map(|n| n.index()));
    for e in &layout.edges {
        // Throughput view, under everything else: the stall heat as a halo whose width and
        // opacity grow with the stalls, the critical cycle as a dashed band.
        if let Some(&heat) = o.throughput.heat.get(e.channel)
            && heat > 0.0
        {
            items.push(Item::Curve {
                points: e.points.clone(),
                color: p.chan[1].with_alpha((60.0 + 160.0 * heat) as u8),
                width: 3.0 + 9.0 * heat,
                dashed: false,
            });
        }
        if flag(&lesson_chan, e.channel) {
            // A lesson points at this channel: a wide halo in the selection colour.
            items.push(Item::Curve {
                points: e.points.clone(),
                color: p.selected.with_alpha(120),
                width: 10.0,
                dashed: false,
            });
        }
        if flag(&critical, e.channel) {
            items.push(Item::Curve {
                points: e.points.clone(),
                color: p.selected.with_alpha(150),
                width: 6.0,
                dashed: true,
            });
        }
    }
    for e in &layout.edges {
        let ch = &f.channels[ChannelId::new(e.channel)];
        let st = cs.chan(e.channel);
        let on_cycle = flag(&cycle_chan, e.channel);
        let on_chain = flag(&chain_chan, e.channel);
        let mut color = p.chan(st);
        let mut width = match st {
            ChanState::Transfer => 2.6,
            ChanState::Stall => 2.4,
            _ => 1.4,
        };
        if on_cycle {
            width += 1.5;
        }
        if sel_chan == Some(e.channel) {
            items.push(Item::Curve {
                points: e.points.clone(),
                color: p.selected.with_alpha(110),
                width: width + 5.0,
                dashed: false,
            });
        }
        if on_cycle {
            // The wait-for cycle: a wide halo, and idle channels drawn in the deadlock colour.
            items.push(Item::Curve {
                points: e.points.clone(),
                color: p.deadlock.with_alpha(110),
                width: width + 7.0,
                dashed: false,
            });
            if st == ChanState::Idle {
                color = p.deadlock;
            }
        } else if on_chain {
            // A wait chain: a thin dashed halo.
            items.push(Item::Curve {
                points: e.points.clone(),
                color: p.deadlock.with_alpha(90),
                width: width + 3.0,
                dashed: true,
            });
        }
        items.push(Item::Curve {
            points: e.points.clone(),
            color,
            width,
            dashed: ch.ty.is_none(),
        });
        items.push(arrow_head(&e.points, color, 4.0 + width));
    }
    for nb in &layout.nodes {
        let n = nb.node;
        let node = &f.nodes[n];
        let fires = cs.fires.get(n.index()).copied().unwrap_or(false);
        let (mut stroke, mut width) = (p.node_stroke, 1.0);
        if flag(&lit_node, n.index()) {
            (stroke, width) = (p.chan[2], 2.5);
        }
        if flag(&lesson_node, n.index()) {
            (stroke, width) = (p.selected.with_alpha(200), 4.0);
        }
        if flag(&problem_node, n.index()) {
            (stroke, width) = (p.deadlock, 3.0);
        }
        if flag(&cycle_node, n.index()) {
            (stroke, width) = (p.deadlock, 3.5);
        } else if flag(&chain_node, n.index()) {
            (stroke, width) = (p.deadlock.with_alpha(150), 2.0);
        }
        if o.selection == Some(Selection::Node(n)) {
            (stroke, width) = (p.selected, 3.5);
        }
        let radius = if matches!(node.op, Op::Argument { .. }) {
            12.0
        } else {
            3.0
        };
        items.push(Item::Rect {
            min: nb.min(),
            max: nb.max(),
            fill: if fires { p.node_fired } else { p.node_fill },
            stroke,
            width,
            radius,
        });
        let (id, op) = node_text(f, n);
        let top = nb.min()[1];
        if one_line(f, n, &id, &op) {
            // The ID says the operation (`mux1`): one line, a fork's sent flags after it.
            let id_width = id.chars().count() as f32 * ID_CHAR;
            let marks = state_marks(f, n).map_or(0.0, |(k, w)| k as f32 * w);
            let left = nb.center[0] - id_line_width(f, n, &id, true) / 2.0;
            items.push(Item::Text {
                pos: [left + id_width / 2.0, nb.center[1]],
                text: id,
                size: 11.0,
                color: p.text,
                anchor: Anchor::Center,
                bg: None,
            });
            if let Some((words, names)) = cs.node_words(b, n.index()) {
                let at = [left + id_width + 4.0 + marks / 2.0, nb.center[1]];
                node_state(&mut items, f, n, at, nb.size[0], at[1], words, names, o);
            }
            continue;
        }
        items.push(Item::Text {
            pos: [nb.center[0], top + 10.0],
            text: id,
            size: 11.0,
            color: p.text,
            anchor: Anchor::Center,
            bg: None,
        });
        // A fork's sent flags and a buffer's slots follow its operation on the same line;
        // other state gets the row at the bottom of the box.
        let (op_x, state_at) = match state_marks(f, n) {
            Some((k, w)) => {
                let text = op.chars().count() as f32 * OP_CHAR;
                let left = nb.center[0] - op_line_width(f, n, &op) / 2.0;
                let marks = k as f32 * w;
                (
                    left + text / 2.0,
                    [left + text + 4.0 + marks / 2.0, top + 23.0],
                )
            }
            None => (nb.center[0], [nb.center[0], nb.max()[1] - 9.0]),
        };
        if !op.is_empty() {
            items.push(Item::Text {
                pos: [op_x, top + 23.0],
                text: op,
                size: 9.0,
                color: p.weak_text,
                anchor: Anchor::Center,
                bg: None,
            });
        }
        if let Some((words, names)) = cs.node_words(b, n.index()) {
            node_state(
                &mut items,
                f,
                n,
                [state_at[0], nb.center[1]],
                nb.size[0],
                state_at[1],
                words,
                names,
                o,
            );
        }
    }
    let mut box_of: Vec<Option<&NodeBox>> = vec![None; nn];
    for b in &layout.nodes {
        if let Some(x) = box_of.get_mut(b.node.index()) {
            *x = Some(b);
        }
    }
    for (n, label) in &o.deadlock.badges {
        if let Some(nb) = box_of.get(n.index()).copied().flatten() {
            // The step numbers of the deadlock explanation, on the node's top-right corner.
            let w = 8.0 + 5.5 * label.chars().count() as f32;
            let center = [nb.max()[0] - 2.0, nb.min()[1]];
            items.push(Item::Rect {
                min: [center[0] - w / 2.0, center[1] - 7.0],
                max: [center[0] + w / 2.0, center[1] + 7.0],
                fill: p.deadlock,
                stroke: p.background,
                width: 1.0,
                radius: 7.0,
            });
            items.push(Item::Text {
                pos: center,
                text: label.clone(),
                size: 9.0,
                color: Rgba(255, 255, 255, 255),
                anchor: Anchor::Center,
                bg: None,
            });
        }
    }
    if o.values {
        for e in &layout.edges {
            let ch = &f.channels[ChannelId::new(e.channel)];
            if cs.valid[e.channel] && !ch.ty.is_none() {
                items.push(Item::Text {
                    pos: e.at(0.5),
                    text: elide_middle(
                        format_value(cs.data[e.channel], &ch.ty, o.radix),
                        EDGE_VALUE_CHARS,
                    ),
                    size: 9.0,
                    color: p.text,
                    anchor: Anchor::Center,
                    bg: Some(p.background.with_alpha(220)),
                });
            }
        }
    }
    // A selected island expands: its stage table beside its box, on top of everything.
    if let Some(Selection::Node(n)) = o.selection
        && let Op::Island(isl) = &f.nodes[n].op
        && let Some(nb) = layout.nodes.iter().find(|nb| nb.node == n)
    {
        let st = cs
            .node_words(b, n.index())
            .map(|(w, _)| f.nodes[n].op.spec().state.decode(w));
        island_panel(&mut items, isl, st.as_ref(), nb, p);
    }
    Scene {
        size: layout.size,
        background: p.background,
        items,
    }
}

/// An island expanded: a panel to the right of its box with one row per stage (the
/// operations that start in it, the iteration it holds now, highlighted) and, for a whole
/// function, its blocks' operations.
fn island_panel(
    items: &mut Vec<Item>,
    isl: &handscope_sim::island::Island,
    st: Option<&NodeState>,
    nb: &super::layout::NodeBox,
    p: &Palette,
) {
    use handscope_sim::spec::IslandPhase;
    let running = match st {
        Some(NodeState::Island(s)) if s.phase == IslandPhase::Running => {
            Some((s.elapsed, s.iterations))
        }
        _ => None,
    };
    let mut rows: Vec<(String, bool)> = Vec::new();
    match isl.loop_pipeline() {
        Some(pl) => {
            rows.push((
                format!(
                    "II {}, latency {}, {} stages",
                    pl.ii,
                    pl.latency,
                    pl.stages()
                ),
                false,
            ));
            for r in isl.stage_table(running) {
                let it = r
                    .iteration
                    .map_or(String::new(), |k| format!("  [iteration {k}]"));
                let ops = if r.ops.is_empty() {
                    "-".to_string()
                } else {
                    r.ops.join(", ")
                };
                rows.push((
                    format!("stage {}: {ops}{it}", r.stage),
                    r.iteration.is_some(),
                ));
            }
        }
        None => rows.extend(isl.block_listing().into_iter().map(|l| (l, false))),
    }
    let line_h = 12.0;
    let width = rows
        .iter()
        .map(|(t, _)| t.chars().count())
        .max()
        .unwrap_or(10) as f32
        * 5.6
        + 12.0;
    let min = [
        nb.center[0] + nb.size[0] / 2.0 + 8.0,
        nb.center[1] - nb.size[1] / 2.0,
    ];
    let max = [min[0] + width, min[1] + rows.len() as f32 * line_h + 8.0];
    items.push(Item::Rect {
        min,
        max,
        fill: p.background.with_alpha(240),
        stroke: p.selected,
        width: 1.5,
        radius: 4.0,
    });
    for (i, (text, lit)) in rows.into_iter().enumerate() {
        items.push(Item::Text {
            pos: [min[0] + 6.0, min[1] + 10.0 + i as f32 * line_h],
            text,
            size: 9.0,
            color: if lit { p.chan[0] } else { p.text },
            anchor: Anchor::Left,
            bg: None,
        });
    }
}

/// Tokens travelling along the channels that transferred in the previous cycle, at animation
/// phase `t` in `0..=1`: in the transfer colour, or, when tokens of several invocations move
/// at once, in the colour of their invocation ([`Palette::invocation`]).
pub fn tokens(layout: &Layout, cs: &CycleState, p: &Palette, t: f32) -> Vec<Item> {
    let moving = |e: &&super::layout::EdgeRoute| cs.moved.get(e.channel).copied().unwrap_or(false);
    let tag = |e: &super::layout::EdgeRoute| cs.moved_tags.get(e.channel).copied().flatten();
    let mut seen = layout.edges.iter().filter(moving).filter_map(tag);
    let first = seen.next();
    let several = seen.any(|x| Some(x) != first);
    layout
        .edges
        .iter()
        .filter(moving)
        .map(|e| Item::Circle {
            center: e.at(t),
            r: 4.5,
            fill: match tag(e) {
                Some(k) if several => p.invocation[k as usize % p.invocation.len()],
                _ => p.chan[0],
            },
            stroke: p.text,
        })
        .collect()
}

#[allow(clippy::too_many_arguments)]
fn node_state(
    items: &mut Vec<Item>,
    f: &Function,
    n: NodeId,
    c: P2,
    width: f32,
    y: f32,
    words: &[u64],
    names: &[String],
    o: &Options,
) {
    let p = &o.palette;
    let node = &f.nodes[n];
    match node.op.spec().state.decode(words) {
        NodeState::Buffer(slots) => {
            let k = slots.len().min(MAX_SLOT_MARKS);
            let w = SLOT_MARK;
            let x0 = c[0] - (k as f32 * w) / 2.0;
            let ty = node
                .outputs
                .first()
                .map(|&o| f.channels[o].ty.clone())
                .unwrap_or(handscope_sim::Type::None);
            for (s, slot) in slots.iter().take(k).enumerate() {
                let min = [x0 + s as f32 * w + 1.0, y - 7.0];
                let max = [min[0] + w - 2.0, y + 7.0];
                items.push(Item::Rect {
                    min,
                    max,
                    fill: if slot.main.is_some() {
                        p.chan[0].with_alpha(70)
                    } else {
                        p.background
                    },
                    stroke: p.weak_text,
                    width: 0.8,
                    radius: 1.0,
                });
                if let (Some(data), false) = (slot.main, ty.is_none()) {
                    items.push(Item::Text {
                        pos: [(min[0] + max[0]) / 2.0, y],
                        text: elide_middle(format_value(data, &ty, o.radix), EDGE_VALUE_CHARS),
                        size: 8.0,
                        color: p.text,
                        anchor: Anchor::Center,
                        bg: None,
                    });
                }
            }
        }
        NodeState::Pipeline(st) => {
            // One mark per stage (input on the left; a mark stands for several stages of a
            // long pipeline, as many marks as the box has room for), filled while it holds
            // a token, and under them the count in flight, both inside the box.
            let n = st.stages.len().max(1);
            let full: Vec<bool> = st.stages.iter().map(Option::is_some).collect();
            stage_marks(items, c, y, width, &full, p);
            let text = format!("{}/{} in flight", st.occupancy(), n);
            items.push(state_text(c, y + 2.5, fit_text(&text, width, 8.0), p));
        }
        NodeState::Island(st) => {
            // One mark per stage, filled while an iteration is in it, and under them where
            // the invocation is.
            let handscope_sim::Op::Island(isl) = &node.op else {
                return;
            };
            let running = st.phase == handscope_sim::spec::IslandPhase::Running;
            let rows = isl.stage_table(running.then_some((st.elapsed, st.iterations)));
            let full: Vec<bool> = rows.iter().map(|r| r.iteration.is_some()).collect();
            stage_marks(items, c, y, width, &full, p);
            let text = match st.phase {
                handscope_sim::spec::IslandPhase::Idle => "idle".to_string(),
                handscope_sim::spec::IslandPhase::Running => {
                    format!("cycle {}, {} it.", st.elapsed, st.iterations)
                }
                handscope_sim::spec::IslandPhase::Offering => "results out".to_string(),
            };
            items.push(state_text(c, y + 2.5, fit_text(&text, width, 8.0), p));
        }
        NodeState::Emitted(sent) => {
            let k = sent.len().min(MAX_OUTPUT_MARKS);
            for (i, &w) in sent.iter().take(k).enumerate() {
                let x = c[0] + (i as f32 - (k as f32 - 1.0) / 2.0) * OUTPUT_MARK;
                items.push(Item::Circle {
                    center: [x, y],
                    r: 3.0,
                    fill: if w { p.chan[0] } else { p.background },
                    stroke: p.weak_text,
                });
            }
        }
        NodeState::ControlMerge {
            won,
            result_emitted,
            index_emitted,
        } => {
            // `won` is the winner held until both outputs are sent (in Dynamatic's
            // `control_merge`, the token its skid register keeps while an output stalls).
            let skid = matches!(node.op, handscope_sim::Op::DynControlMerge);
            let mut text = match (won, skid) {
                (None, false) => "no winner held".to_string(),
                (None, true) => "skid empty".to_string(),
                (Some(k), false) => format!("winner in{k}"),
                (Some(k), true) => format!("keeps in{k}"),
            };
            let first = if skid { "outs" } else { "result" };
            let sent: Vec<&str> = [(result_emitted, first), (index_emitted, "index")]
                .iter()
                .filter(|(k, _)| *k)
                .map(|(_, v)| *v)
                .collect();
            if !sent.is_empty() {
                text.push_str(&format!(", sent {}", sent.join("+")));
            }
            items.push(state_text(c, y, fit_text(&text, width, 8.0), p));
        }
        NodeState::MemoryController {
            end_offered,
            remaining_stores,
            ..
        } => {
            let mut text = Vec::new();
            if remaining_stores != 0 {
                text.push(format!("{remaining_stores} stores pending"));
            }
            if end_offered {
                text.push("memEnd".to_string());
            }
            if !text.is_empty() {
                items.push(state_text(c, y, fit_text(&text.join(", "), width, 8.0), p));
            }
        }
        NodeState::Lsq(q) => {
            // One mark per entry of each queue (loads above, stores below), filled while
            // allocated, darker once its data is there.
            for (row, marks) in [
                (
                    -6.0,
                    q.loads
                        .iter()
                        .map(|e| e.map(|l| l.data.is_some()))
                        .collect::<Vec<_>>(),
                ),
                (
                    2.0,
                    q.stores
                        .iter()
                        .map(|e| e.map(|s| s.addr.is_some() && s.data.is_some()))
                        .collect::<Vec<_>>(),
                ),
            ] {
                let n = marks.len().min(32);
                let w = ((width - 10.0) / n.max(1) as f32).clamp(2.0, 7.0);
                let x0 = c[0] - n as f32 * w / 2.0;
                for (k, m) in marks.iter().take(n).enumerate() {
                    let min = [x0 + k as f32 * w + 0.5, y + row];
                    items.push(Item::Rect {
                        min,
                        max: [min[0] + w - 1.0, y + row + 4.0],
                        fill: match m {
                            Some(true) => p.chan[0].with_alpha(200),
                            Some(false) => p.chan[0].with_alpha(80),
                            None => p.background,
                        },
                        stroke: p.weak_text,
                        width: 0.6,
                        radius: 0.5,
                    });
                }
            }
        }
        NodeState::AddrQueue { entries, .. } => {
            // One mark per entry, filled while a store address waits there, and the count.
            let depth = match node.op {
                handscope_sim::Op::AddrQueue { depth, .. } => depth as usize,
                _ => entries.len(),
            };
            let n = depth.min(32);
            let w = ((width - 10.0) / n.max(1) as f32).clamp(2.0, 7.0);
            let x0 = c[0] - n as f32 * w / 2.0;
            for k in 0..n {
                let min = [x0 + k as f32 * w + 0.5, y - 9.0];
                items.push(Item::Rect {
                    min,
                    max: [min[0] + w - 1.0, y - 4.0],
                    fill: if k < entries.len() {
                        p.chan[0].with_alpha(200)
                    } else {
                        p.background
                    },
                    stroke: p.weak_text,
                    width: 0.6,
                    radius: 0.5,
                });
            }
            let addrs: Vec<String> = entries.iter().map(|e| e.0.to_string()).collect();
            let text = if addrs.is_empty() {
                format!("0/{depth} queued")
            } else {
                format!("{}/{depth}: {}", entries.len(), addrs.join(" "))
            };
            items.push(state_text(c, y + 3.0, fit_text(&text, width, 8.0), p));
        }
        NodeState::Antitokens(at) => {
            let pending: Vec<&str> = [(at[0], "trueValue"), (at[1], "falseValue")]
                .iter()
                .filter(|(a, _)| *a)
                .map(|(_, n)| *n)
                .collect();
            if !pending.is_empty() {
                let text = format!("antitoken on {}", pending.join("+"));
                items.push(state_text(c, y, fit_text(&text, width, 8.0), p));
            }
        }
        NodeState::Memory { .. } | NodeState::Stateless => {
            // Other state: the non-zero register words, as many as fit in the node.
            let text: Vec<String> = names
                .iter()
                .zip(words)
                .filter(|(_, v)| **v != 0)
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            if !text.is_empty() {
                items.push(state_text(c, y, fit_text(&text.join(" "), width, 8.0), p));
            }
        }
    }
}

/// Most characters of a value drawn on an edge or in a buffer slot: a 128-bit value in hex is
/// 34, a 4096-bit one 1,026; the inspector and the waveforms show it whole.
const EDGE_VALUE_CHARS: usize = 20;

/// `text` with its middle replaced by `…` when longer than `max` characters, keeping both
/// ends (a number's sign or radix prefix and its low digits).
fn elide_middle(text: String, max: usize) -> String {
    let n = text.chars().count();
    if n <= max {
        return text;
    }
    let head = (max - 1) / 2;
    let tail = max - 1 - head;
    let mut out: String = text.chars().take(head).collect();
    out.push('…');
    out.extend(text.chars().skip(n - tail));
    out
}

/// `text` cut to what fits in `width` points at font `size` (with an ellipsis).
fn fit_text(text: &str, width: f32, size: f32) -> String {
    let max = ((width - 6.0) / (size * 0.55)).max(4.0) as usize;
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let mut t: String = text.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// A row of stage marks above the middle of a box at `c` (`y` its state line), one per
/// stage or, when the box is narrow, per group of stages, filled where `full` says.
fn stage_marks(items: &mut Vec<Item>, c: P2, y: f32, width: f32, full: &[bool], p: &Palette) {
    let n = full.len().max(1);
    let w = 7.0;
    let marks = n.min(16).min(((width - 10.0) / w).max(1.0) as usize);
    let x0 = c[0] - (marks as f32 * w) / 2.0;
    for m in 0..marks {
        let any = full[(m * n / marks).min(full.len())..((m + 1) * n / marks).min(full.len())]
            .iter()
            .any(|&f| f);
        let min = [x0 + m as f32 * w + 0.5, y - 9.5];
        items.push(Item::Rect {
            min,
            max: [min[0] + w - 1.0, y - 3.5],
            fill: if any {
                p.chan[0].with_alpha(170)
            } else {
                p.background
            },
            stroke: p.weak_text,
            width: 0.6,
            radius: 0.5,
        });
    }
}

fn state_text(c: P2, y: f32, text: String, p: &Palette) -> Item {
    Item::Text {
        pos: [c[0], y],
        text,
        size: 8.0,
        color: p.weak_text,
        anchor: Anchor::Center,
        bg: None,
    }
}

fn arrow_head(points: &[P2], color: Rgba, size: f32) -> Item {
    let tip = points[points.len() - 1];
    let from = points
        .iter()
        .rev()
        .find(|q| (q[0] - tip[0]).abs() + (q[1] - tip[1]).abs() > 0.5)
        .copied()
        .unwrap_or([tip[0], tip[1] - 1.0]);
    let (dx, dy) = (tip[0] - from[0], tip[1] - from[1]);
    let len = (dx * dx + dy * dy).sqrt().max(1e-3);
    let (ux, uy) = (dx / len, dy / len);
    let base = [tip[0] - ux * size * 1.6, tip[1] - uy * size * 1.6];
    Item::Poly {
        points: vec![
            tip,
            [base[0] - uy * size * 0.7, base[1] + ux * size * 0.7],
            [base[0] + uy * size * 0.7, base[1] - ux * size * 0.7],
        ],
        fill: color,
    }
}

#[cfg(test)]
mod tests {
    use super::elide_middle;

    #[test]
    fn long_values_keep_both_ends() {
        assert_eq!(elide_middle("12345".into(), 20), "12345");
        let hex = format!("0x{}", "f".repeat(32));
        let e = elide_middle(hex, 20);
        assert_eq!(e.chars().count(), 20);
        assert!(e.starts_with("0xfffffff") && e.contains('…') && e.ends_with("ffffffffff"));
        assert_eq!(
            elide_middle("-123456789012345678901234".into(), 9),
            "-123…1234"
        );
    }
}
