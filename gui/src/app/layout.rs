//! Graph layout, computed once per graph: Graphviz `dot` (JSON output, run through
//! `graphviz-rust`) when it is installed, the pure-Rust Sugiyama layout otherwise. Results are
//! cached by a hash of the DOT text and computed in a background thread for the UI.
//!
//! Coordinates are in points, y down, origin at the top left of the drawing.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

use cranelift_entity::EntityRef;
use handscope_sim::spec::{Detail, describe_op};
use handscope_sim::{Function, NodeId};

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
    (node.id.clone(), op)
}

/// Size of a node's box in points.
pub fn node_size(f: &Function, n: NodeId) -> P2 {
    let (id, op) = node_label(f, n);
    let chars = id.chars().count().max(op.chars().count()) as f32;
    let stateful = f.nodes[n].op.is_stateful();
    [
        (chars * 6.6 + 18.0).clamp(64.0, 260.0),
        if stateful { 50.0 } else { 36.0 },
    ]
}

/// The DOT text used for layout (node names `n<index>`, edge IDs `c<channel>_<consumer>`).
///
/// Basic blocks are clusters in program order, each loop a cluster around its blocks
/// (nested as the loops nest), and invisible edges through one small anchor node between
/// consecutive blocks stack every block below the one before it, so the drawing reads top to
/// bottom like the program.
pub fn layout_dot(f: &Function) -> String {
    let mut s = String::from(
        "digraph g {\n  graph [rankdir=TB, nodesep=0.12, ranksep=0.25, splines=spline];\n  node [shape=box, fixedsize=true, label=\"\"];\n",
    );
    let order = program_order::blocks(f);
    let mut members: Vec<Vec<NodeId>> = vec![Vec::new(); order.len()];
    for (id, n) in f.nodes.iter() {
        let [w, h] = node_size(f, id);
        let _ = writeln!(
            s,
            "  n{} [width={:.3}, height={:.3}];",
            id.index(),
            w / 72.0,
            h / 72.0
        );
        if let Some(k) = n.block.as_deref().and_then(|b| {
            order
                .binary_search_by(|x| program_order::block_cmp(x, b))
                .ok()
        }) {
            members[k].push(id);
        }
    }
    let loops = program_order::loops(f, &order);
    let mut next_loop = 0;
    let level = Level {
        order: &order,
        members: &members,
    };
    level.write(&mut s, &loops, 0, order.len(), &mut next_loop, 1);
    for (cid, ch) in f.channels.iter() {
        for (k, c) in ch.consumers.iter().enumerate() {
            let _ = writeln!(
                s,
                "  n{} -> n{} [id=\"c{}_{k}\"];",
                ch.producer.node.index(),
                c.node.index(),
                cid.index()
            );
        }
    }
    write_stacking(&mut s, f, &members);
    s.push_str("}\n");
    s
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
        next_loop: &mut usize,
        depth: usize,
    ) {
        let pad = "  ".repeat(depth);
        // The loops of one level are in program order and do not overlap.
        let mut loops = loops.iter().peekable();
        let mut k = start;
        while k < end {
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
                    *next_loop,
                    range.replace('"', "'"),
                );
                *next_loop += 1;
                self.block(s, l.first, depth + 1);
                if l.first < l.last {
                    anchor(s, l.first, depth + 1);
                }
                self.write(s, &l.inner, l.first + 1, l.last + 1, next_loop, depth + 1);
                let _ = writeln!(s, "{pad}}}");
                k = l.last + 1;
            } else {
                self.block(s, k, depth);
                k += 1;
            }
            if k < end {
                anchor(s, k - 1, depth);
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

/// Invisible edges that put block `k + 1` below block `k`: from the exits of `k` (nodes with
/// a channel to another block) to the anchor `a<k>`, and from it to the entries of `k + 1`
/// (nodes with a channel from another block). Tying exits and entries, not whole blocks, keeps
/// the drawing about as wide as the panel while the blocks still follow the program downwards.
fn write_stacking(s: &mut String, f: &Function, members: &[Vec<NodeId>]) {
    let mut exit = vec![false; f.nodes.len()];
    let mut entry = vec![false; f.nodes.len()];
    for ch in f.channels.values() {
        let from = ch.producer.node;
        for c in &ch.consumers {
            if f.nodes[from].block != f.nodes[c.node].block {
                exit[from.index()] = true;
                entry[c.node.index()] = true;
            }
        }
    }
    for k in 1..members.len() {
        for n in members[k - 1].iter().filter(|n| exit[n.index()]) {
            let _ = writeln!(s, "  n{} -> a{} [style=invis, id=\"s\"];", n.index(), k - 1);
        }
        for n in members[k].iter().filter(|n| entry[n.index()]) {
            let _ = writeln!(s, "  a{} -> n{} [style=invis, id=\"s\"];", k - 1, n.index());
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

/// Computes (or fetches from the cache) the layout of `f`.
pub fn compute(f: &Function, engine: Engine) -> Arc<Layout> {
    let dot = layout_dot(f);
    let key = dot_hash(&dot) ^ (engine as u64);
    if let Some(l) = cache().lock().ok().and_then(|c| c.get(&key).cloned()) {
        return l;
    }
    let layout = match engine {
        Engine::Auto if f.nodes.len() <= GRAPHVIZ_MAX_NODES => {
            run_graphviz(f, &dot).unwrap_or_else(|| super::sugiyama::layout(f))
        }
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
    /// Starts computing the layout of `f`; `wake` is called when it is done.
    pub fn start(f: Arc<Function>, engine: Engine, wake: Box<dyn Fn() + Send>) -> LayoutJob {
        let (tx, rx) = crossbeam_channel::bounded(1);
        let _ = std::thread::Builder::new()
            .name("handscope-layout".into())
            .stack_size(layout_stack_size(f.nodes.len()))
            .spawn(move || {
                let _ = tx.send(compute(&f, engine));
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

/// Runs Graphviz `dot -Tjson` through `graphviz-rust` (`None` when `dot` is missing or fails).
fn run_graphviz(f: &Function, dot: &str) -> Option<Layout> {
    use graphviz_rust::cmd::{CommandArg, Format};
    let out =
        graphviz_rust::exec_dot(dot.to_string(), vec![CommandArg::Format(Format::Json)]).ok()?;
    parse_graphviz_json(f, &out)
}

fn area(c: &ClusterBox) -> f32 {
    (c.max[0] - c.min[0]) * (c.max[1] - c.min[1])
}

fn nums(s: &str) -> Vec<f32> {
    s.split([',', ' '])
        .filter_map(|x| x.trim().parse().ok())
        .collect()
}

/// Reads `dot -Tjson` output of [`layout_dot`] back into a [`Layout`].
pub fn parse_graphviz_json(f: &Function, bytes: &[u8]) -> Option<Layout> {
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
    let nodes: Option<Vec<NodeBox>> = nodes.into_iter().collect();
    // Outer boxes first, so that a loop's box lies under the boxes of its blocks.
    clusters.sort_by(|a, b| area(b).total_cmp(&area(a)));
    Some(Layout {
        nodes: nodes?,
        edges,
        clusters,
        size: [w, h],
        engine: "graphviz",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_engines_place_every_node() {
        let c = crate::app::circuit::Circuit::from_example(
            0,
            &handscope_sim::spec::timing::TimingProfile::ideal(),
        )
        .unwrap();
        for engine in [Engine::Auto, Engine::Sugiyama] {
            let l = compute(&c.func, engine);
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
    fn inside(i: &ClusterBox, o: &ClusterBox) -> bool {
        o.min[0] <= i.min[0] && o.min[1] <= i.min[1] && i.max[0] <= o.max[0] && i.max[1] <= o.max[1]
    }

    fn dot_runs() -> bool {
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
        let l = compute(&c.func, Engine::Auto);
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
        assert!(
            by_label.windows(2).all(|w| w[0].1 < w[1].1),
            "each loop starts below the one before: {by_label:?}"
        );
        let ret = c
            .func
            .nodes
            .iter()
            .find(|(_, n)| matches!(n.op, handscope_sim::Op::Return))
            .unwrap()
            .0;
        let last_loop = l.clusters.iter().find(|b| b.label == "loop bb5").unwrap();
        assert!(l.nodes[ret.index()].center[1] > last_loop.min[1]);
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
        let l = compute(&c.func, Engine::Auto);
        let loops: Vec<&ClusterBox> = l
            .clusters
            .iter()
            .filter(|b| b.kind == ClusterKind::Loop)
            .collect();
        assert_eq!(loops.len(), 2, "{:?}", l.clusters);
        let (o, i) = (loops[0], loops[1]);
        assert!(inside(i, o), "{o:?} contains {i:?}");
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
