//! CIRCT 1.62's RTL names for a function's channels and components (the one implementation,
//! used by the VCD replay's mapping and by the differential oracle).
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
//!
//! Registers inside a component instance (see [`state_register_names`]): buffer slot `k`
//! holds `valid<k>_reg`, `data<k>_reg` (main register) and `ready<k>_reg`,
//! `ctrl_data<k>_reg` (skid register); fork `emitted_<i>`; control_merge `won_reg`,
//! `result_emitted_reg`, `index_emitted_reg`; memory store ports `writeValidBuffer`.

use std::collections::BTreeMap;

use handscope_sim::spec::{RegField, SlotPart};
use handscope_sim::{ChannelId, Function, NameHint, NodeId, Op, Type};

/// CIRCT's instance name for every component node of `f` (arguments and `return` excluded).
pub fn instance_names(f: &Function) -> BTreeMap<NodeId, String> {
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

/// Where a channel is visible in CIRCT's function module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChannelSite {
    /// The module's input port of function argument `index` (`f.args` index).
    Argument(usize),
    /// The module's output port of result `index`.
    Result(usize),
    /// An internal net: `<base>_valid` and `<base>` (data), with `ready` on its own net.
    Net {
        /// Base name `_<producer instance>_<output port>`.
        base: String,
        /// The ready net `_<consumer instance>_<input port>_ready`.
        ready: String,
    },
}

/// Where channel `cid` of `f` is visible, given [`instance_names`] of `f`; `Err` with a
/// reason when CIRCT has no single net for it (several consumers, missing instance).
pub fn channel_site(
    f: &Function,
    cid: ChannelId,
    inst: &BTreeMap<NodeId, String>,
) -> Result<ChannelSite, String> {
    let ch = &f.channels[cid];
    let pnode = &f.nodes[ch.producer.node];
    if let Op::Argument { index } = pnode.op {
        return Ok(ChannelSite::Argument(index));
    }
    let [consumer] = ch.consumers.as_slice() else {
        return Err(format!(
            "channel `{}` has {} consumers",
            ch.name,
            ch.consumers.len()
        ));
    };
    let cnode = &f.nodes[consumer.node];
    if cnode.op == Op::Return {
        return Ok(ChannelSite::Result(consumer.port as usize));
    }
    let p = inst
        .get(&ch.producer.node)
        .ok_or_else(|| format!("producer of `{}` has no instance", ch.name))?;
    let c = inst
        .get(&consumer.node)
        .ok_or_else(|| format!("consumer of `{}` has no instance", ch.name))?;
    let pport = pnode.op.output_port_name(ch.producer.port as usize);
    let cport = cnode.op.input_port_name(consumer.port as usize);
    Ok(ChannelSite::Net {
        base: format!("_{p}_{pport}"),
        ready: format!("_{c}_{cport}_ready"),
    })
}

/// CIRCT's register names (in the component's instance scope) that may hold the register
/// field `field`, most likely first; empty when CIRCT has no such register (fork `emitted_<i>`
/// keeps the engine's name; CIRCT's memory load ports keep no registers of their own).
pub fn state_register_names(field: RegField) -> Vec<String> {
    match field {
        RegField::Slot { slot, part } => {
            let reg = match part {
                SlotPart::Valid => "valid",
                SlotPart::Data => "data",
                SlotPart::SkidValid => "ready",
                SlotPart::SkidData => "ctrl_data",
            };
            vec![format!("{reg}{slot}_reg")]
        }
        RegField::Won | RegField::ResultEmitted | RegField::IndexEmitted => {
            vec![format!("{field}_reg")]
        }
        RegField::StoreWriteValid { .. } => vec!["writeValidBuffer".into()],
        // CIRCT has no pipeline component (a Handscope timing extension) and none of
        // Dynamatic's components.
        RegField::Emitted(_)
        | RegField::LoadEmitted { .. }
        | RegField::StageValid(_)
        | RegField::StageData(_)
        | RegField::Cooldown
        | RegField::FifoCount
        | RegField::FifoHead
        | RegField::FifoEntry(_)
        | RegField::SkidFull
        | RegField::SkidIndex
        | RegField::SkidData
        | RegField::Antitoken(_)
        | RegField::LoadPath { .. }
        | RegField::Lsq(_)
        | RegField::LsqLoad { .. }
        | RegField::LsqStore { .. }
        | RegField::McStartTaken
        | RegField::McEndValid
        | RegField::McCtrlEndReady
        | RegField::McRemainingStores
        | RegField::McLoadValid(_)
        | RegField::McLoadData(_)
        | RegField::AqCount
        | RegField::AqPending(_)
        | RegField::AqOffered(_)
        | RegField::AqAddr(_)
        | RegField::AqPort(_)
        | RegField::IslandPhase
        | RegField::IslandSched
        | RegField::IslandHead
        | RegField::IslandWalked
        | RegField::IslandSlot(_)
        | RegField::IslandIterations
        | RegField::IslandElapsed
        | RegField::IslandResult(_) => Vec::new(),
    }
}

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

/// Probes for every channel of `f`, given the base names of the function module's argument
/// ports (channel arguments only, in order) and result ports.
pub fn channel_probes(
    f: &Function,
    arg_ports: &[String],
    res_ports: &[String],
) -> Result<Vec<ChannelProbe>, String> {
    let inst = instance_names(f);
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
    for (cid, ch) in f.channels.iter() {
        if ch.consumers.len() != 1 {
            return Err(format!(
                "channel `{}` has {} consumers",
                ch.name,
                ch.consumers.len()
            ));
        }
        let (base, ready) = match channel_site(f, cid, &inst)? {
            ChannelSite::Argument(index) => {
                let b = arg_base
                    .get(&index)
                    .ok_or_else(|| format!("argument {index} has no port"))?;
                ((*b).clone(), format!("{b}_ready"))
            }
            ChannelSite::Result(k) => {
                let r = res_ports
                    .get(k)
                    .ok_or_else(|| format!("result {k} has no port"))?;
                (r.clone(), format!("{r}_ready"))
            }
            ChannelSite::Net { base, ready } => (base, ready),
        };
        probes.push(ChannelProbe {
            channel: ch.name.clone(),
            ty: ch.ty.clone(),
            valid: format!("{base}_valid"),
            ready,
            data: (ch.ty.bit_width() > 0).then_some(base),
        });
    }
    Ok(probes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use handscope_sim::{ArgType, BufferKind, FuncResult};

    /// `arg -> fork [2] -> (buffer -> out0, out1)`.
    fn fork_buffer(ty: Type) -> Function {
        let mut f = Function::new("g");
        let a = f.add_arg("a", ArgType::Channel(ty.clone()));
        let fork = f.add_node(Op::Fork, vec![ty.clone(), ty.clone()]);
        f.set_inputs(fork, a.into_iter().collect());
        let buf = f.add_node(
            Op::Buffer {
                slots: 1,
                kind: BufferKind::Seq,
                init: None,
            },
            vec![ty.clone()],
        );
        f.set_inputs(buf, vec![f.nodes[fork].outputs[0]]);
        for i in 0..2 {
            f.results.push(FuncResult {
                name: format!("out{i}"),
                ty: ty.clone(),
            });
        }
        let ret = f.add_node(Op::Return, vec![]);
        f.set_inputs(ret, vec![f.nodes[buf].outputs[0], f.nodes[fork].outputs[1]]);
        f.assign_ids().unwrap();
        f
    }

    #[test]
    fn probes_follow_circt_net_names() {
        let f = fork_buffer(Type::Int(8));
        let p = channel_probes(&f, &["a".into()], &["res0".into(), "res1".into()]).unwrap();
        let arg = p.iter().find(|p| p.channel == "a").unwrap();
        assert_eq!(
            (arg.valid.as_str(), arg.ready.as_str(), arg.data.as_deref()),
            ("a_valid", "a_ready", Some("a"))
        );
        let o1 = p.iter().find(|p| p.channel == "fork0.out1").unwrap();
        assert_eq!(
            (o1.valid.as_str(), o1.ready.as_str()),
            ("res1_valid", "res1_ready")
        );
        let mid = p.iter().find(|p| p.channel == "fork0.out0").unwrap();
        assert_eq!(mid.valid, "_handshake_fork0_out0_valid");
        assert_eq!(mid.ready, "_handshake_buffer0_in0_ready");
        assert_eq!(mid.data.as_deref(), Some("_handshake_fork0_out0"));
        assert_eq!(
            instance_names(&f).values().cloned().collect::<Vec<_>>(),
            ["handshake_fork0", "handshake_buffer0"]
        );
        let g = fork_buffer(Type::None);
        let p = channel_probes(&g, &["a".into()], &["out0".into(), "out1".into()]).unwrap();
        assert!(p.iter().all(|p| p.data.is_none()));
        assert!(channel_probes(&g, &[], &["out0".into(), "out1".into()]).is_err());
    }

    #[test]
    fn register_names() {
        let names = |f: &str| state_register_names(RegField::parse(f).expect("a field name"));
        assert_eq!(names("slot0.valid"), ["valid0_reg"]);
        assert_eq!(names("slot12.data"), ["data12_reg"]);
        assert_eq!(names("slot1.skid_valid"), ["ready1_reg"]);
        assert_eq!(names("slot1.skid_data"), ["ctrl_data1_reg"]);
        assert_eq!(names("won"), ["won_reg"]);
        assert_eq!(names("st0.write_valid_buffer"), ["writeValidBuffer"]);
        assert!(names("emitted_0").is_empty());
        assert_eq!(RegField::parse("slotx.valid"), None);
    }
}
