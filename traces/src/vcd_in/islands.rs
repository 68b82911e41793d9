//! The memory writes of static islands in a replayed waveform. An island writes its arrays
//! through ports of its own, not through channels; its registers (the cone head, the slots,
//! the phase) are state words of the trace, so every cycle in which its controller evaluates
//! a cone, the replay evaluates the same cone ([`handscope_sim::island::Island::cone`]) on
//! a shadow of the memories and records the stores, as the engine does.

use handscope_sim::Function;
use handscope_sim::island::{Island, IslandMemory};
use handscope_sim::stimulus::Environment;
use handscope_sim::trace::StateMeta;
use handscope_sim::types::width_mask;

/// The memories as the replay tracks them: contents, address and element masks.
pub(super) struct Shadow {
    mems: Vec<Vec<u64>>,
    addr_masks: Vec<u64>,
    elem_masks: Vec<u64>,
}

impl Shadow {
    /// The memories of `f` (`Op::array` nodes in order, as the replay numbers them) with the
    /// environment's contents, else a `memory` node's initial values, else zeros.
    pub(super) fn new(f: &Function, env: Option<&Environment>) -> Shadow {
        let inits = handscope_sim::stimulus::graph_memory_inits(f).unwrap_or_default();
        let mut s = Shadow {
            mems: Vec::new(),
            addr_masks: Vec::new(),
            elem_masks: Vec::new(),
        };
        for (name, _, memref) in memory_names(f) {
            let size = memref.len();
            let mut m = vec![0u64; usize::try_from(size).unwrap_or(0).min(1 << 26)];
            let given = env
                .and_then(|e| e.ext_memories.get(&name).or_else(|| e.memories.get(&name)))
                .or_else(|| inits.get(&name));
            let em = width_mask(memref.elem.bit_width());
            if let Some(vals) = given {
                for (slot, v) in m.iter_mut().zip(vals) {
                    *slot = v & em;
                }
            }
            s.mems.push(m);
            s.addr_masks
                .push(width_mask(64 - (size.max(1) - 1).leading_zeros()));
            s.elem_masks.push(em);
        }
        s
    }

    /// Records a write of memory `mem` (a store port's or an island's).
    pub(super) fn write(&mut self, mem: u32, addr: u64, value: u64) {
        if let Some(slot) = self
            .mems
            .get_mut(mem as usize)
            .and_then(|m| m.get_mut(usize::try_from(addr).ok()?))
        {
            *slot = value;
        }
    }
}

/// Every array of `f` as the replay numbers them: (its name as the engine knows it, the node
/// index, its shape).
fn memory_names(f: &Function) -> Vec<(String, usize, handscope_sim::MemRefType)> {
    use cranelift_entity::EntityRef;
    f.nodes
        .iter()
        .filter_map(|(id, n)| {
            let a = n.op.array()?;
            let name = match a.memref_arg {
                Some(k) => f
                    .args
                    .get(k)
                    .map_or_else(|| n.id.clone(), |x| x.name.clone()),
                None => n.id.clone(),
            };
            Some((name, id.index(), a.memref.clone()))
        })
        .collect()
}

/// One island of the replayed function.
pub(super) struct IslandReplay {
    /// Its node's index (writes are recorded in node order, as the engine's clock edge
    /// makes them).
    pub(super) node: usize,
    isl: Island,
    heads: Vec<bool>,
    /// Its first state word.
    base: usize,
    outputs: u32,
    /// Its input channels, by index.
    ins: Vec<usize>,
    /// Its memories, as the replay numbers them.
    mems: Vec<u32>,
}

/// The islands of `f`, their state words found in `meta` (the trace's state layout).
pub(super) fn islands(f: &Function, meta: &[StateMeta]) -> Vec<IslandReplay> {
    use cranelift_entity::EntityRef;
    let names = memory_names(f);
    let mut out = Vec::new();
    let mut base = 0usize;
    let mut bases = std::collections::BTreeMap::new();
    for m in meta {
        bases.insert(m.node.clone(), base);
        base += m.fields.len();
    }
    for (id, n) in f.nodes.iter() {
        let handscope_sim::Op::Island(isl) = &n.op else {
            continue;
        };
        let Some(&base) = bases.get(&n.id) else {
            continue;
        };
        let mems = isl
            .memories
            .iter()
            .map(|m| {
                names
                    .iter()
                    .position(|(x, _, _)| x == m)
                    .map_or(u32::MAX, |k| k as u32)
            })
            .collect();
        out.push(IslandReplay {
            node: id.index(),
            heads: isl.cone_heads(),
            isl: (**isl).clone(),
            base,
            outputs: n.outputs.len() as u32,
            ins: n.inputs.iter().map(|c| c.index()).collect(),
            mems,
        });
    }
    out
}

/// The shadow seen through an island's numbering, its writes kept.
struct View<'a> {
    shadow: &'a mut Shadow,
    mems: &'a [u32],
    writes: Vec<(u32, u64, u64)>,
}

impl IslandMemory for View<'_> {
    fn load(&mut self, k: u32, index: u64) -> u64 {
        let m = self.mems[k as usize] as usize;
        let (Some(mem), Some(&am)) = (self.shadow.mems.get(m), self.shadow.addr_masks.get(m))
        else {
            return 0;
        };
        mem.get((index & am) as usize).copied().unwrap_or(0)
    }

    fn store(&mut self, k: u32, index: u64, value: u64) {
        let m = self.mems[k as usize];
        let (Some(&am), Some(&em)) = (
            self.shadow.addr_masks.get(m as usize),
            self.shadow.elem_masks.get(m as usize),
        ) else {
            return;
        };
        let (a, v) = (index & am, value & em);
        if self
            .shadow
            .mems
            .get(m as usize)
            .is_some_and(|x| (a as usize) < x.len())
        {
            self.shadow.write(m, a, v);
            self.writes.push((m, a, v));
        }
    }
}

impl IslandReplay {
    /// The writes of the cone the island evaluates in a cycle with these state words and
    /// channel signals (none when it evaluates none), applied to `shadow`.
    pub(super) fn writes(
        &self,
        state: &[u64],
        valid: &[bool],
        ready: &[bool],
        data: &[u64],
        shadow: &mut Shadow,
    ) -> Vec<(u32, u64, u64)> {
        let words = state.get(self.base..).unwrap_or(&[]);
        let inputs: Option<Vec<u64>> = self
            .ins
            .iter()
            .all(|&c| valid[c] && ready[c])
            .then(|| self.ins.iter().map(|&c| data[c]).collect());
        let mut view = View {
            shadow,
            mems: &self.mems,
            writes: Vec::new(),
        };
        self.isl.replay_cycle(
            words,
            self.outputs,
            &self.heads,
            inputs.as_deref(),
            &mut view,
        );
        view.writes
    }
}
