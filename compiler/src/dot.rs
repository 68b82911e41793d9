//! Graphviz DOT output for handshake graphs.
//!
//! [`write_dot`] draws one [`Function`]: one Graphviz node per graph node, named by its stable
//! ID; one edge per (channel, consumer) pair. Arguments are `house` nodes, results `invhouse`
//! nodes named after the result (the `return` node itself is not drawn). Nodes with a basic
//! block label are grouped in `subgraph "cluster_<block>"`. Control-only (`none`) channels are
//! dashed. The output is deterministic: nodes in arena (textual) order, clusters by block
//! name.
//!
//! The DOT text is written directly rather than through the `graphviz-rust` crate: the subset
//! needed (quoted IDs, attribute lists, clusters) is small, and that crate pulls in a parser
//! generator and process-spawning dependencies that the compiler crate does not otherwise need.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use handscope_sim::spec::{Detail, DisplayClass, describe_op};
use handscope_sim::{Function, NodeId, Op};

/// Knobs for [`write_dot`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DotOptions {
    /// Graphviz `rankdir` (`TB` or `LR`).
    pub rankdir: String,
    /// Label edges with their producer and consumer port names (`taillabel`/`headlabel`).
    pub port_labels: bool,
    /// Label edges with their data type.
    pub types: bool,
    /// Group nodes by basic block in clusters.
    pub clusters: bool,
}

impl Default for DotOptions {
    fn default() -> Self {
        DotOptions {
            rankdir: "TB".into(),
            port_labels: true,
            types: true,
            clusters: true,
        }
    }
}

/// Renders `f` as a DOT digraph.
pub fn write_dot(f: &Function, opts: &DotOptions) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph {} {{", quote(&f.name));
    let _ = writeln!(
        out,
        "  graph [rankdir={}, label={}, labelloc=t, fontname=\"Helvetica\"];",
        quote(&opts.rankdir),
        quote(&format!("@{}", f.name))
    );
    out.push_str(
        "  node [fontname=\"Helvetica\", fontsize=10, style=filled, fillcolor=\"#ffffff\"];\n",
    );
    out.push_str("  edge [fontname=\"Helvetica\", fontsize=8];\n");

    // Nodes, grouped by block.
    let mut top: Vec<NodeId> = Vec::new();
    let mut blocks: BTreeMap<&str, Vec<NodeId>> = BTreeMap::new();
    for (id, n) in f.nodes.iter() {
        if n.op == Op::Return {
            continue;
        }
        match (&n.block, opts.clusters) {
            (Some(b), true) => blocks.entry(b.as_str()).or_default().push(id),
            _ => top.push(id),
        }
    }
    for n in top {
        let _ = writeln!(out, "  {}", node_stmt(f, n));
    }
    for (block, nodes) in &blocks {
        let _ = writeln!(out, "  subgraph {} {{", quote(&format!("cluster_{block}")));
        let _ = writeln!(
            out,
            "    label={}; style=rounded; color=\"#999999\";",
            quote(block)
        );
        for &n in nodes {
            let _ = writeln!(out, "    {}", node_stmt(f, n));
        }
        out.push_str("  }\n");
    }

    // Result nodes, named after the result unless a node already has that ID.
    let result_names: Vec<String> = f
        .results
        .iter()
        .map(|r| {
            if f.node_by_id(&r.name).is_some() {
                format!("result:{}", r.name)
            } else {
                r.name.clone()
            }
        })
        .collect();
    for (r, name) in f.results.iter().zip(&result_names) {
        let label = format!("{}\\n{}", escape(&r.name), escape(&r.ty.to_string()));
        let _ = writeln!(
            out,
            "  {} [shape=invhouse, label=\"{label}\", fillcolor=\"#cfe8ff\", tooltip={}];",
            quote(name),
            quote(&format!("result {}", r.name))
        );
    }

    // Edges, one per consumer, in channel order.
    for (_, ch) in f.channels.iter() {
        let Some(producer) = f.nodes.get(ch.producer.node) else {
            continue;
        };
        for c in &ch.consumers {
            let Some(consumer) = f.nodes.get(c.node) else {
                continue;
            };
            let to = if consumer.op == Op::Return {
                match result_names.get(c.port as usize) {
                    Some(r) => r.clone(),
                    None => continue,
                }
            } else {
                consumer.id.clone()
            };
            let mut attrs: Vec<String> = Vec::new();
            if opts.types {
                attrs.push(format!("label={}", quote(&ch.ty.to_string())));
            }
            if opts.port_labels {
                if !matches!(producer.op, Op::Argument { .. }) {
                    let p = producer.op.output_port_name(ch.producer.port as usize);
                    attrs.push(format!("taillabel={}", quote(&p)));
                }
                if consumer.op != Op::Return {
                    attrs.push(format!(
                        "headlabel={}",
                        quote(&consumer.op.input_port_name(c.port as usize))
                    ));
                }
            }
            if ch.ty.is_none() {
                attrs.push("style=dashed".into());
            }
            attrs.push(format!(
                "tooltip={}",
                quote(&format!("{} -> {}", ch.name, f.consumer_name(*c)))
            ));
            let _ = writeln!(
                out,
                "  {} -> {} [{}];",
                quote(&producer.id),
                quote(&to),
                attrs.join(", ")
            );
        }
    }
    out.push_str("}\n");
    out
}

/// The statement declaring node `n`.
fn node_stmt(f: &Function, n: NodeId) -> String {
    let node = &f.nodes[n];
    let (shape, color, extra) = style(&node.op);
    let mut label = escape(&node.id);
    let detail = describe(f, n);
    if !detail.is_empty() && detail != node.id {
        label.push_str("\\n");
        label.push_str(&escape(&detail));
    }
    let mut tooltip = format!("{} ({})", node.id, qualified(&node.op));
    if let Some(loc) = &node.loc {
        let _ = write!(tooltip, " at {loc}");
    }
    format!(
        "{} [shape={shape}, label=\"{label}\", fillcolor=\"{color}\"{extra}, tooltip={}];",
        quote(&node.id),
        quote(&tooltip)
    )
}

/// `dialect.mnemonic`, or just the mnemonic for arguments.
fn qualified(op: &Op) -> String {
    match op.dialect() {
        "" => op.mnemonic().to_string(),
        d => format!("{d}.{}", op.mnemonic()),
    }
}

/// Shape, fill colour and extra attributes per display class.
fn style(op: &Op) -> (&'static str, &'static str, &'static str) {
    const SMALL: &str = ", fontsize=8, width=0.3, height=0.2, margin=\"0.04,0.02\"";
    match op.spec().display {
        DisplayClass::Argument => ("house", "#cfe8ff", ""),
        DisplayClass::Result => ("invhouse", "#cfe8ff", ""),
        DisplayClass::Fork => ("oval", "#fff3c4", SMALL),
        DisplayClass::Join => ("oval", "#e6f0c8", SMALL),
        DisplayClass::Merge => ("invtrapezium", "#e0d4ff", ""),
        DisplayClass::Branch => ("diamond", "#ffd6d6", ""),
        DisplayClass::Wire => ("box", "#f2f2f2", SMALL),
        DisplayClass::Tuple => ("box", "#f2f2f2", ""),
        DisplayClass::Buffer => ("box", "#d4f4dd", ", peripheries=2"),
        DisplayClass::Constant => ("ellipse", "#eeeeee", ""),
        DisplayClass::Endpoint => ("circle", "#dddddd", SMALL),
        DisplayClass::MemoryAccess => ("box", "#ffe9cc", ", style=\"rounded,filled\""),
        DisplayClass::Memory => ("cylinder", "#ffe0b3", ""),
        DisplayClass::Instance => ("component", "#e8e8ff", ""),
        DisplayClass::Compute => ("box", "#ffffff", ""),
        DisplayClass::Pipeline => (
            "box",
            "#d8ecff",
            ", peripheries=2, style=\"rounded,filled\"",
        ),
        DisplayClass::Island => ("box3d", "#e4f7e4", ""),
    }
}

/// Second label line: the op and its key attributes.
fn describe(f: &Function, n: NodeId) -> String {
    let node = &f.nodes[n];
    let out_ty = node
        .outputs
        .first()
        .and_then(|c| f.channels.get(*c))
        .map(|c| &c.ty);
    describe_op(
        &node.op,
        node.inputs.len(),
        node.outputs.len(),
        out_ty,
        Detail::Full,
    )
}

/// Escapes text for a double-quoted DOT string (newlines become `\n`).
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c => out.push(c),
        }
    }
    out
}

/// A double-quoted DOT string.
fn quote(s: &str) -> String {
    format!("\"{}\"", escape(s))
}

#[cfg(test)]
mod tests;
