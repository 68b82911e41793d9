//! The link between a function and a trace: trace channel index per channel, state-word range
//! per node. A trace replayed from a VCD names channels the same way, so the binding is made
//! by name.

use std::ops::Range;

use cranelift_entity::EntityRef;
use handscope_sim::Function;
use handscope_sim::trace::Trace;

/// Channel and state indices of one function inside one trace.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Binding {
    /// Trace channel index per channel index.
    pub chan: Vec<Option<usize>>,
    /// State-word range and field names per node index.
    pub state: Vec<Option<(Range<usize>, Vec<String>)>>,
}

impl Binding {
    /// Binds `f` to `t` by channel names and node IDs.
    pub fn new(f: &Function, t: &Trace) -> Binding {
        let chan = f
            .channels
            .values()
            .map(|c| t.channel_index(&c.name))
            .collect();
        let mut state = vec![None; f.nodes.len()];
        let mut at = 0usize;
        for m in t.state_meta() {
            let r = at..at + m.fields.len();
            at = r.end;
            if let Some(n) = f.node_by_id(&m.node) {
                state[n.index()] = Some((r, m.fields.clone()));
            }
        }
        Binding { chan, state }
    }
}
