//! Strongly connected components without recursion.
//!
//! `petgraph::algo::tarjan_scc` recurses once per node along a path, so a chain of 100,000
//! nodes (a long unrolled expression, a generated pipeline) overflows the stack of the thread
//! that verifies or simulates it. [`tarjan_scc`] is the same algorithm (Pearce's
//! space-efficient variant of Tarjan's, the one petgraph implements) with the depth-first
//! search kept on an explicit stack; it visits nodes and neighbours in the same order, so it
//! returns exactly what petgraph's function returns: the components in reverse topological
//! order, each in the same internal order.

use petgraph::visit::{IntoNeighbors, IntoNodeIdentifiers, NodeIndexable};

/// The strongly connected components of `g`, in reverse topological order (a component comes
/// before every component with an edge into it); a drop-in replacement for
/// `petgraph::algo::tarjan_scc` whose stack use does not grow with the graph.
pub fn tarjan_scc<G>(g: G) -> Vec<Vec<G::NodeId>>
where
    G: IntoNodeIdentifiers + IntoNeighbors + NodeIndexable,
{
    // `root[i]`: 0 while unvisited; the smallest visit index reachable while on the stack;
    // a value counting down from `usize::MAX` once the node's component is complete (larger
    // than every visit index, so finished components never lower anything).
    let mut root = vec![0usize; g.node_bound()];
    let mut index = 1usize;
    let mut component = usize::MAX;
    // Nodes visited but not yet assigned to a component, pushed when their visit ends.
    let mut stack: Vec<G::NodeId> = Vec::new();
    // The depth-first search path: node, its remaining neighbours, "is its own root so far".
    let mut path: Vec<(G::NodeId, G::Neighbors, bool)> = Vec::new();
    let mut sccs = Vec::new();
    for start in g.node_identifiers() {
        if root[g.to_index(start)] != 0 {
            continue;
        }
        root[g.to_index(start)] = index;
        index += 1;
        path.push((start, g.neighbors(start), true));
        while let Some((v, neighbours, local_root)) = path.last_mut() {
            let (v, vi) = (*v, g.to_index(*v));
            if let Some(w) = neighbours.next() {
                let wi = g.to_index(w);
                if root[wi] == 0 {
                    root[wi] = index;
                    index += 1;
                    path.push((w, g.neighbors(w), true));
                } else if root[wi] < root[vi] {
                    root[vi] = root[wi];
                    *local_root = false;
                }
                continue;
            }
            let local_root = *local_root;
            path.pop();
            if local_root {
                // `v` closes a component: it and every node above it on the stack whose
                // root is not older than `v`'s.
                let mut retired = 1;
                let start = stack
                    .iter()
                    .rposition(|&w| {
                        let wi = g.to_index(w);
                        if root[vi] > root[wi] {
                            true
                        } else {
                            root[wi] = component;
                            retired += 1;
                            false
                        }
                    })
                    .map_or(0, |p| p + 1);
                root[vi] = component;
                stack.push(v);
                sccs.push(stack[start..].to_vec());
                stack.truncate(start);
                index -= retired;
                component -= 1;
            } else {
                stack.push(v);
            }
            // Back in the parent: what `v` reaches, the parent reaches.
            if let Some((p, _, p_root)) = path.last_mut() {
                let pi = g.to_index(*p);
                if root[vi] < root[pi] {
                    root[pi] = root[vi];
                    *p_root = false;
                }
            }
        }
    }
    sccs
}

#[cfg(test)]
mod tests {
    use super::*;
    use petgraph::graph::DiGraph;
    use proptest::prelude::*;

    proptest! {
        /// Same components in the same order as petgraph's recursive implementation.
        #[test]
        fn same_as_petgraph(n in 1usize..40, edges in prop::collection::vec((0usize..40, 0usize..40), 0..120)) {
            let mut g: DiGraph<(), ()> = DiGraph::new();
            let ids: Vec<_> = (0..n).map(|_| g.add_node(())).collect();
            for (a, b) in edges {
                g.add_edge(ids[a % n], ids[b % n], ());
            }
            prop_assert_eq!(tarjan_scc(&g), petgraph::algo::tarjan_scc(&g));
        }
    }

    #[test]
    fn a_long_chain_and_a_long_cycle_take_no_stack() {
        let n = 1_000_000;
        let mut g: DiGraph<(), ()> = DiGraph::new();
        let ids: Vec<_> = (0..n).map(|_| g.add_node(())).collect();
        for w in ids.windows(2) {
            g.add_edge(w[0], w[1], ());
        }
        let sccs = tarjan_scc(&g);
        assert_eq!(sccs.len(), n);
        assert_eq!(sccs[0], vec![ids[n - 1]]);
        g.add_edge(ids[n - 1], ids[0], ());
        let sccs = tarjan_scc(&g);
        assert_eq!(sccs.len(), 1);
        assert_eq!(sccs[0].len(), n);
    }
}
