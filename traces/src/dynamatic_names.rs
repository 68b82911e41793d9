//! The signal names of Dynamatic's generated RTL, for replaying waveforms of Dynamatic's
//! circuits (GHDL, ModelSim): every channel is the net `<instance>_<port>` with `_valid` and
//! `_ready` beside it, where the instance is the component's `handshake.name` and the port is
//! the name Dynamatic's unit generators give the output (`outs` or `outs_<k>`, `result`,
//! `trueOut`/`falseOut`, `index`, `addrOut`/`dataOut`/`dataToMem`, `ldData_<i>`/`memEnd`).

use handscope_sim::{ArithClass, ChannelId, Function, Op};

/// The net that carries channel `cid` in Dynamatic's RTL (without the `_valid`/`_ready`
/// suffix), when its producer is one of Dynamatic's components; `None` for an argument (a
/// top port, named like the argument) and for the channel inside a multi-cycle unit (from its
/// combinational node to its pipeline), which the RTL has no net for.
pub fn channel_net(f: &Function, cid: ChannelId) -> Option<String> {
    let ch = &f.channels[cid];
    let node = &f.nodes[ch.producer.node];
    let k = ch.producer.port as usize;
    let port = match &node.op {
        Op::Argument { .. } | Op::Return | Op::Sink | Op::Instance { .. } => return None,
        // The unit's result comes out of its pipeline: named after the unit.
        Op::DynPipeline { .. } => {
            let unit = f.channels[*node.inputs.first()?].producer.node;
            let u = &f.nodes[unit];
            return Some(format!("{}_{}", u.id, arith_port(&u.op)?));
        }
        Op::Arith(_) if is_unit_internal(f, cid) => return None,
        Op::Arith(_) => arith_port(&node.op)?.to_string(),
        Op::Fork | Op::LazyFork => format!("outs_{k}"),
        Op::CondBr => ["trueOut", "falseOut"].get(k)?.to_string(),
        Op::DynMemController { ld, .. } => {
            if k < *ld as usize {
                format!("ldData_{k}")
            } else {
                "memEnd".into()
            }
        }
        Op::DynLsq { shape, memref, .. } => {
            let ld = shape.load_ports() as usize;
            match (k.checked_sub(ld), memref.is_some()) {
                (None, _) => format!("ldData_{k}"),
                (Some(_), true) => "memEnd".into(),
                (Some(r), false) => ["ldAddrToMC", "stAddrToMC", "stDataToMC"]
                    .get(r)?
                    .to_string(),
            }
        }
        Op::DynControlMerge | Op::DynLoad | Op::DynStore | Op::DynSelect => {
            node.op.output_port_name(k)
        }
        Op::Merge
        | Op::Mux
        | Op::Br
        | Op::Join
        | Op::Constant { .. }
        | Op::Source
        | Op::DynBuffer { .. }
        | Op::DynCounterBuffer { .. } => "outs".into(),
        // CIRCT's components: not in Dynamatic's RTL.
        Op::ControlMerge
        | Op::Sync
        | Op::Pack
        | Op::Unpack
        | Op::Buffer { .. }
        | Op::Never
        | Op::Load
        | Op::Store
        | Op::Memory { .. }
        | Op::ExtMemory { .. }
        | Op::AddrQueue { .. }
        | Op::Island(_)
        | Op::Pipeline { .. } => return None,
    };
    Some(format!("{}_{port}", node.id))
}

/// Whether channel `cid` runs inside one of Dynamatic's multi-cycle units, from its
/// combinational node to its pipeline: Dynamatic's RTL has no net for it.
pub fn is_unit_internal(f: &Function, cid: ChannelId) -> bool {
    let ch = &f.channels[cid];
    matches!(f.nodes[ch.producer.node].op, Op::Arith(_))
        && !ch.consumers.is_empty()
        && ch
            .consumers
            .iter()
            .all(|c| matches!(f.nodes[c.node].op, Op::DynPipeline { .. }))
}

/// The output port of an arithmetic unit in Dynamatic's RTL: `outs` for one operand
/// (conversions, `absf`, `negf`, `noti`), `result` for two or more.
fn arith_port(op: &Op) -> Option<&'static str> {
    let Op::Arith(a) = op else { return None };
    Some(match a.class() {
        ArithClass::Binary
        | ArithClass::Compare
        | ArithClass::Select
        | ArithClass::FloatBinary
        | ArithClass::FloatCompare => "result",
        ArithClass::IntUnary
        | ArithClass::Extend
        | ArithClass::Truncate
        | ArithClass::IndexCast
        | ArithClass::FloatUnary
        | ArithClass::IntToFloat
        | ArithClass::FloatToInt
        | ArithClass::FloatExtend
        | ArithClass::FloatTruncate => "outs",
    })
}
