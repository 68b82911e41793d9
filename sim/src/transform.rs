//! Graph-to-graph transformations: fork/sink materialization, hierarchy flattening and timing
//! (pipelines behind timed units).

pub mod flatten;
pub mod materialize;
pub mod timing;

pub use flatten::{FlattenError, flatten, hierarchy_of};
pub use materialize::{Materialized, Placement, materialize, materialize_with};
pub use timing::{TimedUnit, apply_timing};

use cranelift_entity::packed_option::ReservedValue;
use cranelift_entity::{EntityRef, PrimaryMap, SecondaryMap};

use crate::graph::{Function, Node, NodeId};

/// Rearranges the node arena so that `order[k]` becomes the `k`-th node (textual order, which
/// decides counter-based IDs). `order` must be a permutation of the function's nodes; every
/// stored [`NodeId`] (channel producers and consumers, argument nodes) is remapped. Node IDs
/// and channel names are left as they are: call [`Function::assign_ids`] afterwards to
/// renumber. Returns the old-to-new map, or `None` (and changes nothing) if `order` is not a
/// permutation.
pub fn reorder_nodes(f: &mut Function, order: &[NodeId]) -> Option<SecondaryMap<NodeId, NodeId>> {
    if order.len() != f.nodes.len() {
        return None;
    }
    let mut seen = SecondaryMap::<NodeId, bool>::with_capacity(f.nodes.len());
    for &n in order {
        if !f.nodes.is_valid(n) || seen[n] {
            return None;
        }
        seen[n] = true;
    }
    let mut map = SecondaryMap::<NodeId, NodeId>::with_default(NodeId::reserved_value());
    let mut slots: Vec<Option<Node>> = std::mem::take(&mut f.nodes)
        .into_iter()
        .map(|(_, n)| Some(n))
        .collect();
    let mut nodes = PrimaryMap::with_capacity(order.len());
    for &n in order {
        if let Some(node) = slots[n.index()].take() {
            map[n] = nodes.push(node);
        }
    }
    f.nodes = nodes;
    for (_, ch) in f.channels.iter_mut() {
        ch.producer.node = map[ch.producer.node];
        for c in &mut ch.consumers {
            c.node = map[c.node];
        }
    }
    for a in &mut f.args {
        if let Some(n) = &mut a.node {
            *n = map[*n];
        }
    }
    Some(map)
}
