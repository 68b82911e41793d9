//! A small MLIR printer for the graphs the oracle builds itself (random graphs and per-op
//! circuits), in the custom syntax CIRCT 1.62 parses. Nodes are printed in arena order, which
//! is the order both the engine's IDs and CIRCT's instance counters follow. Channels are
//! named `%a<i>` for argument `i` and `%c<k>` for channel `k`.

use std::fmt::Write as _;

use handscope_sim::{ArgType, ArithOp, ChannelId, Function, Op, Type};

fn sext_str(v: u64, ty: &Type) -> String {
    let w = ty.bit_width();
    if w == 0 || w >= 64 {
        return (v as i64).to_string();
    }
    let sh = 64 - w;
    (((v << sh) as i64) >> sh).to_string()
}

fn arg_type(t: &ArgType) -> String {
    match t {
        ArgType::Channel(t) => t.to_string(),
        ArgType::MemRef(m) => m.to_string(),
    }
}

/// Prints `f` as a `handshake.func` (supports every op the oracle generates: no instances,
/// no extmemory).
pub fn function_to_mlir(f: &Function) -> Result<String, String> {
    let name = |c: ChannelId| -> String {
        let ch = &f.channels[c];
        match f.nodes[ch.producer.node].op {
            Op::Argument { index } => format!("%a{index}"),
            _ => format!("%c{}", c.as_u32()),
        }
    };
    let names = |cs: &[ChannelId]| cs.iter().map(|&c| name(c)).collect::<Vec<_>>().join(", ");
    let ty = |c: ChannelId| f.channels[c].ty.clone();
    let types = |cs: &[ChannelId]| cs.iter().map(|&c| ty(c).to_string()).collect::<Vec<_>>().join(", ");
    let quoted = |v: Vec<&str>| v.iter().map(|s| format!("\"{s}\"")).collect::<Vec<_>>().join(", ");

    let mut s = String::new();
    let params: Vec<String> =
        f.args.iter().enumerate().map(|(i, a)| format!("%a{i}: {}", arg_type(&a.ty))).collect();
    let res: Vec<String> = f.results.iter().map(|r| r.ty.to_string()).collect();
    let _ = writeln!(
        s,
        "handshake.func @{}({}) -> ({}) attributes {{argNames = [{}], resNames = [{}]}} {{",
        f.name,
        params.join(", "),
        res.join(", "),
        quoted(f.args.iter().map(|a| a.name.as_str()).collect()),
        quoted(f.results.iter().map(|r| r.name.as_str()).collect()),
    );
    for (_, n) in f.nodes.iter() {
        let ins = &n.inputs;
        let outs = &n.outputs;
        let lhs = match outs.len() {
            0 => String::new(),
            1 => format!("{} = ", name(outs[0])),
            _ => format!("{} = ", names(outs)),
        };
        let t0 = || ty(outs[0]).to_string();
        let line = match &n.op {
            Op::Argument { .. } | Op::Return => continue,
            Op::Fork => format!("fork [{}] {} : {}", outs.len(), names(ins), t0()),
            Op::Join => format!("join {} : {}", names(ins), types(ins)),
            Op::Sync => format!("sync {} : {}", names(ins), types(ins)),
            Op::Merge => format!("merge {} : {}", names(ins), t0()),
            Op::ControlMerge => format!("control_merge {} : {}, {}", names(ins), t0(), ty(outs[1])),
            Op::Mux => format!(
                "mux {} [{}] : {}, {}",
                name(ins[0]),
                names(&ins[1..]),
                ty(ins[0]),
                t0()
            ),
            Op::CondBr => format!("cond_br {}, {} : {}", name(ins[0]), name(ins[1]), t0()),
            Op::Pack => format!("pack {} : {}", names(ins), t0()),
            Op::Unpack => format!("unpack {} : {}", names(ins), ty(ins[0])),
            Op::Buffer { slots, kind, init } => {
                let attr = match init {
                    Some(v) => {
                        let t = ty(outs[0]);
                        let vals: Vec<String> = v.iter().map(|x| sext_str(*x, &t)).collect();
                        format!(" {{initValues = [{}]}}", vals.join(", "))
                    }
                    None => String::new(),
                };
                format!("buffer [{slots}] {} {}{attr} : {}", kind.keyword(), names(ins), t0())
            }
            Op::Constant { value } => {
                let t = ty(outs[0]);
                let v = match t {
                    Type::Int(1) => if value & 1 == 1 { "true".to_string() } else { "false".to_string() },
                    _ => format!("{} : {t}", sext_str(*value, &t)),
                };
                format!("constant {} {{value = {v}}} : {t}", names(ins))
            }
            Op::Source => "source".to_string(),
            Op::Sink => format!("sink {} : {}", names(ins), types(ins)),
            Op::Load => format!(
                "load [{}] {}, {} : {}, {}",
                name(ins[0]),
                name(ins[1]),
                name(ins[2]),
                ty(ins[0]),
                ty(ins[1])
            ),
            Op::Store => format!(
                "store [{}] {}, {} : {}, {}",
                name(ins[0]),
                name(ins[1]),
                name(ins[2]),
                ty(ins[0]),
                ty(ins[1])
            ),
            Op::Memory { ld, st, id, memref, lsq } => format!(
                "memory [ld = {ld}, st = {st}] ({}) {{id = {id} : i32, lsq = {lsq}}} : {memref}, ({}) -> ({})",
                names(ins),
                types(ins),
                types(outs)
            ),
            Op::Arith(a) => {
                let m = a.mnemonic();
                match a {
                    ArithOp::Cmpi(p) => format!(
                        "arith.cmpi {}, {} : {}",
                        p.keyword(),
                        names(ins),
                        ty(ins[0])
                    ),
                    ArithOp::Select => format!("arith.select {} : {}", names(ins), t0()),
                    a if a.is_cast() => format!("arith.{m} {} : {} to {}", names(ins), ty(ins[0]), t0()),
                    _ => format!("arith.{m} {} : {}", names(ins), t0()),
                }
            }
            other => return Err(format!("cannot print `{}` nodes", other.mnemonic())),
        };
        let _ = writeln!(s, "  {lhs}{line}");
    }
    if let Some(r) = f.return_node() {
        let ins = &f.nodes[r].inputs;
        let _ = writeln!(s, "  return {} : {}", names(ins), types(ins));
    }
    s.push_str("}\n");
    Ok(s)
}
