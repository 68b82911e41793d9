//! Pure-Rust layered layout (`rust-sugiyama`) for machines without Graphviz and for graphs
//! too large for Graphviz to lay out quickly. Node positions
//! come from the crate; edges are routed as simple cubic curves from the producer's bottom to
//! the consumer's top, and clusters are the bounding boxes of their nodes.

use std::collections::BTreeMap;

use cranelift_entity::EntityRef;
use handscope_sim::{Function, NodeId};
use rust_sugiyama::configure::{Config, RankingType};

use super::layout::{ClusterBox, ClusterKind, EdgeRoute, Layout, NodeBox, P2, node_size};

const MARGIN: f32 = 16.0;
const LAYER_GAP: f32 = 36.0;

/// Largest graph laid out with the crate's full effort (edge-length-minimizing ranks,
/// transposition sweeps); larger ones get cheaper settings.
pub const FULL_EFFORT_MAX_NODES: usize = 2000;

/// Lays out `f` without Graphviz.
pub fn layout(f: &Function) -> Layout {
    let n = f.nodes.len();
    let sizes: Vec<P2> = f.nodes.keys().map(|id| node_size(f, id)).collect();
    let vertices: Vec<(u32, (f64, f64))> = (0..n)
        .map(|i| (i as u32, (f64::from(sizes[i][0]), f64::from(sizes[i][1]))))
        .collect();
    let mut edges: Vec<(u32, u32)> = Vec::new();
    // Deduplicated through a set: a search of the list per edge made large graphs quadratic.
    let mut seen: std::collections::BTreeSet<(u32, u32)> = std::collections::BTreeSet::new();
    for ch in f.channels.values() {
        for c in &ch.consumers {
            let (a, b) = (ch.producer.node.index() as u32, c.node.index() as u32);
            if a != b && seen.insert((a, b)) {
                edges.push((a, b));
            }
        }
    }
    let config = if n <= FULL_EFFORT_MAX_NODES {
        Config {
            vertex_spacing: 24.0,
            ..Config::default()
        }
    } else {
        // Longest-path layering and no transposition sweeps: the network-simplex ranking and
        // the sweeps grow quadratically (a 12,000-node graph took 4 s, 48,000 nodes 75 s).
        Config {
            vertex_spacing: 24.0,
            ranking_type: RankingType::Up,
            transpose: false,
            ..Config::default()
        }
    };
    let comps = std::panic::catch_unwind(|| {
        rust_sugiyama::from_vertices_and_edges(&vertices, &edges, &config)
    })
    .unwrap_or_default();

    // Row and x per vertex; components side by side.
    let mut pos: Vec<Option<(f32, f32)>> = vec![None; n];
    let mut x_off = 0.0f32;
    for (coords, width, _h) in &comps {
        let min_x = coords
            .iter()
            .map(|(_, (x, _))| *x as f32)
            .fold(f32::INFINITY, f32::min);
        let mut max_x = x_off;
        for &(v, (x, y)) in coords {
            if v < n {
                let px = x as f32 - min_x + x_off;
                pos[v] = Some((px, y as f32));
                max_x = max_x.max(px + sizes[v][0]);
            }
        }
        x_off = max_x.max(x_off + *width as f32) + 40.0;
    }
    // Vertices the crate left out (isolated): a row at the end.
    for (v, p) in pos.iter_mut().enumerate() {
        if p.is_none() {
            *p = Some((x_off, 0.0));
            x_off += sizes[v][0] + 24.0;
        }
    }
    // Rows: distinct y values in order; each row as tall as its tallest node.
    let mut ys: Vec<i64> = pos
        .iter()
        .map(|p| p.map_or(0, |(_, y)| y.round() as i64))
        .collect();
    let mut rows: Vec<i64> = ys.clone();
    rows.sort_unstable();
    rows.dedup();
    let row_of: BTreeMap<i64, usize> = rows.iter().enumerate().map(|(i, &y)| (y, i)).collect();
    let mut row_h = vec![0.0f32; rows.len()];
    for (v, y) in ys.iter_mut().enumerate() {
        let r = row_of[y];
        row_h[r] = row_h[r].max(sizes[v][1]);
        *y = r as i64;
    }
    let mut row_y = Vec::with_capacity(rows.len());
    let mut acc = MARGIN;
    for h in &row_h {
        row_y.push(acc + h / 2.0);
        acc += h + LAYER_GAP;
    }
    let nodes: Vec<NodeBox> = (0..n)
        .map(|v| {
            let (x, _) = pos[v].unwrap_or((0.0, 0.0));
            NodeBox {
                node: NodeId::new(v),
                center: [x + MARGIN + sizes[v][0] / 2.0, row_y[ys[v] as usize]],
                size: sizes[v],
            }
        })
        .collect();
    let mut edges_out = Vec::new();
    for (cid, ch) in f.channels.iter() {
        let from = &nodes[ch.producer.node.index()];
        for c in &ch.consumers {
            let to = &nodes[c.node.index()];
            edges_out.push(EdgeRoute {
                channel: cid.index(),
                to: c.node,
                from: ch.producer.node,
                points: route(from, to),
            });
        }
    }
    let mut blocks: BTreeMap<&str, (P2, P2)> = BTreeMap::new();
    for (id, node) in f.nodes.iter() {
        if let Some(b) = &node.block {
            let nb = &nodes[id.index()];
            let (lo, hi) = (nb.min(), nb.max());
            let e = blocks.entry(b).or_insert((lo, hi));
            e.0 = [e.0[0].min(lo[0]), e.0[1].min(lo[1])];
            e.1 = [e.1[0].max(hi[0]), e.1[1].max(hi[1])];
        }
    }
    let clusters = blocks
        .into_iter()
        .map(|(b, (lo, hi))| ClusterBox {
            label: b.to_string(),
            kind: ClusterKind::Block,
            min: [lo[0] - 8.0, lo[1] - 18.0],
            max: [hi[0] + 8.0, hi[1] + 8.0],
        })
        .collect();
    let w = nodes.iter().map(|b| b.max()[0]).fold(0.0, f32::max) + MARGIN;
    let h = nodes.iter().map(|b| b.max()[1]).fold(0.0, f32::max) + MARGIN;
    Layout {
        nodes,
        edges: edges_out,
        clusters,
        size: [w, h],
        engine: "sugiyama",
    }
}

fn route(from: &NodeBox, to: &NodeBox) -> Vec<P2> {
    let a = [from.center[0], from.max()[1]];
    let b = [to.center[0], to.min()[1]];
    if b[1] > a[1] {
        let d = (b[1] - a[1]) / 2.0;
        vec![a, [a[0], a[1] + d], [b[0], b[1] - d], b]
    } else {
        // Back edge: leave downwards, loop around the side, enter from above.
        let side = from.max()[0].max(to.max()[0]) + 30.0;
        vec![a, [side, a[1] + 40.0], [side, b[1] - 40.0], b]
    }
}
