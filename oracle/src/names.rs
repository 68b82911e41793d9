//! Mapping the engine's channel names to the RTL signals that carry them.
//!
//! CIRCT names each component instance `<dialect>_<op><k>` (one counter per op kind, in
//! textual order, per function) or `<dialect>_<op>_id<N>` with a `handshake_id` attribute;
//! `handshake.name` is ignored. Inside a function module a channel is seen as:
//!
//! | channel | valid / data | ready |
//! |---|---|---|
//! | argument `a` | port `a_valid` / `a` | port `a_ready` |
//! | node output feeding `return` operand k | port `out<k>_valid` / `out<k>` (or the `resNames` entry) | port `out<k>_ready` |
//! | node output `p` of instance `I` feeding input `q` of instance `J` | net `_I_p_valid` / `_I_p` | net `_J_q_ready` |

use std::collections::BTreeMap;

use handscope_sim::{Function, NameHint, NodeId, Op, Type};

/// The RTL signals (in the function module's scope) of one channel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChannelProbe {
    /// Engine channel name (`fork0.out1`, `a`).
    pub channel: String,
    /// Channel type.
    pub ty: Type,
    /// Signal carrying `valid`.
    pub valid: String,
    /// Signal carrying `ready`.
    pub ready: String,
    /// Signal carrying the data (`None` for `none` channels).
    pub data: Option<String>,
}

/// CIRCT's instance name for every component node of `f` (arguments and `return` excluded).
pub fn rtl_instance_names(f: &Function) -> BTreeMap<NodeId, String> {
    let mut counters: BTreeMap<String, u32> = BTreeMap::new();
    let mut out = BTreeMap::new();
    for (id, node) in f.nodes.iter() {
        if matches!(node.op, Op::Argument { .. } | Op::Return) {
            continue;
        }
        let base = match &node.op {
            Op::Instance { callee } => callee.clone(),
            op => format!("{}_{}", op.dialect(), op.mnemonic()),
        };
        let name = match node.name_hint {
            NameHint::HandshakeId(n) => format!("{base}_id{n}"),
            _ => {
                let k = counters.entry(base.clone()).or_insert(0);
                let name = format!("{base}{k}");
                *k += 1;
                name
            }
        };
        out.insert(id, name);
    }
    out
}

/// Probes for every channel of `f`, given the base names of the function module's argument
/// ports (channel arguments only, in order) and result ports.
pub fn channel_probes(
    f: &Function,
    arg_ports: &[String],
    res_ports: &[String],
) -> Result<Vec<ChannelProbe>, String> {
    let inst = rtl_instance_names(f);
    let mut arg_base: BTreeMap<usize, &String> = BTreeMap::new();
    let mut k = 0;
    for (i, a) in f.args.iter().enumerate() {
        if a.node.is_some() {
            let p = arg_ports.get(k).ok_or_else(|| {
                format!("RTL has fewer argument ports than the function ({})", k + 1)
            })?;
            arg_base.insert(i, p);
            k += 1;
        }
    }
    if k != arg_ports.len() {
        return Err(format!(
            "RTL has {} argument ports, the function {k}",
            arg_ports.len()
        ));
    }
    if f.results.len() != res_ports.len() {
        return Err(format!(
            "RTL has {} result ports, the function {}",
            res_ports.len(),
            f.results.len()
        ));
    }
    let mut probes = Vec::new();
    for (_, ch) in f.channels.iter() {
        let [consumer] = ch.consumers.as_slice() else {
            return Err(format!(
                "channel `{}` has {} consumers",
                ch.name,
                ch.consumers.len()
            ));
        };
        let pnode = &f.nodes[ch.producer.node];
        let cnode = &f.nodes[consumer.node];
        let to_return = matches!(cnode.op, Op::Return);
        let (valid_base, ready) = match (&pnode.op, to_return) {
            (Op::Argument { index }, _) => {
                let b = arg_base
                    .get(index)
                    .ok_or_else(|| format!("argument {index} has no port"))?;
                ((*b).clone(), format!("{b}_ready"))
            }
            (_, true) => {
                let r = &res_ports[consumer.port as usize];
                (r.clone(), format!("{r}_ready"))
            }
            (_, false) => {
                let p = inst
                    .get(&ch.producer.node)
                    .ok_or("producer has no instance")?;
                let c = inst.get(&consumer.node).ok_or("consumer has no instance")?;
                let pport = pnode.op.output_port_name(ch.producer.port as usize);
                let cport = cnode.op.input_port_name(consumer.port as usize);
                (format!("_{p}_{pport}"), format!("_{c}_{cport}_ready"))
            }
        };
        probes.push(ChannelProbe {
            channel: ch.name.clone(),
            ty: ch.ty.clone(),
            valid: format!("{valid_base}_valid"),
            ready,
            data: (ch.ty.bit_width() > 0).then_some(valid_base),
        });
    }
    Ok(probes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::single::single_op;

    #[test]
    fn probes_follow_circt_net_names() {
        let f = single_op(
            "f",
            Op::Fork,
            &[Type::Int(8)],
            &[Type::Int(8), Type::Int(8)],
        );
        let p = channel_probes(&f, &["a".into()], &["out0".into(), "res1".into()]).unwrap();
        let arg = p.iter().find(|p| p.channel == "in0").unwrap();
        assert_eq!(
            (arg.valid.as_str(), arg.ready.as_str()),
            ("a_valid", "a_ready")
        );
        assert_eq!(arg.data.as_deref(), Some("a"));
        let o1 = p.iter().find(|p| p.channel == "fork0.out1").unwrap();
        assert_eq!(
            (o1.valid.as_str(), o1.ready.as_str()),
            ("res1_valid", "res1_ready")
        );

        let mut g = single_op("g", Op::Fork, &[Type::None], &[Type::None]);
        // Insert a sink-free chain: arg -> fork0 -> buffer -> return.
        let fork_out = g.nodes[g.node_by_id("fork0").unwrap()].outputs[0];
        let buf = g.add_node(
            Op::Buffer {
                slots: 1,
                kind: handscope_sim::BufferKind::Seq,
                init: None,
            },
            vec![Type::None],
        );
        let ret = g.return_node().unwrap();
        let bout = g.nodes[buf].outputs[0];
        g.replace_input(ret, 0, bout);
        g.set_inputs(buf, vec![fork_out]);
        g.assign_ids().unwrap();
        let p = channel_probes(&g, &["in0".into()], &["out0".into()]).unwrap();
        let mid = p.iter().find(|p| p.channel == "fork0.out0").unwrap();
        assert_eq!(mid.valid, "_handshake_fork0_out0_valid");
        assert_eq!(mid.ready, "_handshake_buffer0_in0_ready");
        assert_eq!(mid.data, None);
        assert_eq!(
            rtl_instance_names(&g).values().cloned().collect::<Vec<_>>(),
            ["handshake_fork0", "handshake_buffer0"]
        );
    }
}
