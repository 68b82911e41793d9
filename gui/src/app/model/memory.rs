//! A memory's contents at the cursor, as the run shows them: the initial contents when the
//! run's stimulus is known (a simulation, or a replay given `--mem`), else unknown until the
//! trace reads (a load) or writes (a store) an element.

use handscope_sim::NodeId;

use super::Model;

/// A memory's elements at the start of a cycle (`None`: not known from the run).
#[derive(Clone, Debug, PartialEq)]
pub struct MemoryContents {
    /// The memory's name (the node ID, or the array argument of an `extmemory`).
    pub name: String,
    /// The cycle.
    pub cycle: u64,
    /// The elements (at most [`MAX_SHOWN`]).
    pub values: Vec<Option<u64>>,
    /// True when the initial contents are known (else only what the trace read or wrote).
    pub initial_known: bool,
}

/// The most elements shown.
pub const MAX_SHOWN: usize = 4096;

impl Model {
    /// The contents of memory node `n` at the start of the cursor's cycle (`None` for other
    /// nodes). Cached per node and cycle.
    pub fn memory_contents(&mut self, n: NodeId) -> Option<MemoryContents> {
        if let Some((k, m)) = &self.mem_cache
            && *k == n
            && m.cycle == self.cycle
        {
            return Some(m.clone());
        }
        let c = self.circuit.as_ref()?;
        let node = &c.func.nodes[n];
        let array = node.op.array()?;
        let (memref, external) = (array.memref, array.memref_arg.is_some());
        let name = array
            .memref_arg
            .and_then(|k| c.func.args.get(k))
            .map_or(node.id.clone(), |a| a.name.clone());
        let size = (memref.len() as usize).min(MAX_SHOWN);
        let env = c.session.environment();
        let given = env
            .memories
            .get(&name)
            .or_else(|| env.ext_memories.get(&name));
        // A replay knows an array argument's initial contents only when `--mem` gave them;
        // an internal memory starts from the graph's contents (or zeros), as the hardware does.
        let initial_known = !(self.replaying() && external && given.is_none());
        let mut values: Vec<Option<u64>> = (0..size)
            .map(|i| initial_known.then(|| given.and_then(|v| v.get(i)).copied().unwrap_or(0)))
            .collect();
        let cycle = self.cycle;
        if let Some(t) = self.trace() {
            let mi = t.memories().iter().position(|x| *x == name);
            let writes: Vec<_> = t
                .mem_writes()
                .iter()
                .filter(|w| Some(w.mem as usize) == mi && w.cycle < cycle)
                .collect();
            // Loads seen before the cursor tell unknown elements: (address, data) channels.
            let loads: Vec<(usize, usize)> = if initial_known {
                Vec::new()
            } else {
                (0..node.inputs.len())
                    .filter_map(|k| {
                        let port = node.op.input_port_name(k);
                        let i = port.strip_prefix("ldAddr")?;
                        let out = (0..node.outputs.len())
                            .find(|&o| node.op.output_port_name(o) == format!("ldData{i}"))?;
                        let a = t.channel_index(&c.func.channels[node.inputs[k]].name)?;
                        let d = t.channel_index(&c.func.channels[node.outputs[out]].name)?;
                        Some((a, d))
                    })
                    .collect()
            };
            let mut wi = 0;
            let mut rp = t.replay_from(0);
            for k in 0..cycle {
                if !loads.is_empty() {
                    if rp.next_cycle().is_none() {
                        break;
                    }
                    let v = rp.view();
                    for &(a, d) in &loads {
                        if v.valid(a) && v.ready(a) && v.valid(d) {
                            let addr = v.data(a) as usize;
                            if let Some(slot) = values.get_mut(addr)
                                && slot.is_none()
                            {
                                *slot = Some(v.data(d));
                            }
                        }
                    }
                }
                while let Some(w) = writes.get(wi).filter(|w| w.cycle == k) {
                    if let Some(slot) = values.get_mut(w.addr as usize) {
                        *slot = Some(w.value);
                    }
                    wi += 1;
                }
                if loads.is_empty() && wi >= writes.len() {
                    break;
                }
            }
            // Writes out of cycle order (none expected) still land.
            for w in &writes[wi.min(writes.len())..] {
                if let Some(slot) = values.get_mut(w.addr as usize) {
                    *slot = Some(w.value);
                }
            }
        }
        let m = MemoryContents {
            name,
            cycle,
            values,
            initial_known,
        };
        self.mem_cache = Some((n, m.clone()));
        Some(m)
    }
}
