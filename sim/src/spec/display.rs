//! How drawings show a component: its display class and the text of its label.

use std::fmt::Write as _;

use crate::ops::{ArithOp, Op};
use crate::types::Type;

/// The family a component belongs to for drawing (shape and colour in DOT and the debugger).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DisplayClass {
    /// A function argument.
    Argument,
    /// The function's results (`return`).
    Result,
    /// Eager or lazy fork.
    Fork,
    /// `join`, `sync`.
    Join,
    /// `merge`, `mux`, `control_merge`.
    Merge,
    /// `cond_br`.
    Branch,
    /// `br`.
    Wire,
    /// `pack`, `unpack`.
    Tuple,
    /// `buffer`.
    Buffer,
    /// `constant`.
    Constant,
    /// `source`, `sink`, `never`.
    Endpoint,
    /// `load`, `store`.
    MemoryAccess,
    /// `memory`, `extmemory`.
    Memory,
    /// `instance`.
    Instance,
    /// `arith` operations.
    Compute,
    /// `pipeline`: the latency stages of a timed unit.
    Pipeline,
    /// `island`: a statically scheduled loop, drawn as one box with its stage table.
    Island,
}

/// How much a label says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detail {
    /// One short line: the op and its shape (`fork [2]`, `buffer [1] seq`).
    Short,
    /// Everything that distinguishes the node: values, types, memory shapes (may be two lines).
    Full,
}

/// A constant's bit pattern printed as a signed value of its type (MLIR's convention), except
/// for `i1` and `index`, printed unsigned, and floats, printed in their shortest round-trip
/// form ([`crate::float::format_float`]).
pub fn signed_value(bits: u64, t: &Type) -> String {
    match t {
        Type::Float(k) => crate::float::format_float(bits, *k),
        Type::Int(w) if crate::wide::is_wide(u32::from(*w)) => {
            crate::wide::to_decimal(bits, u32::from(*w), true)
        }
        _ if crate::wide::is_wide(t.bit_width()) => {
            crate::wide::to_decimal(bits, t.bit_width(), false)
        }
        Type::Int(w) if *w > 1 && *w < 64 && bits >> (w - 1) & 1 == 1 => {
            format!("{}", (bits | !t.mask()) as i64)
        }
        Type::Int(64) => format!("{}", bits as i64),
        _ => bits.to_string(),
    }
}

/// The label text of a node with op `op`, `n_in` inputs, `n_out` outputs and first output
/// type `out_ty`.
pub fn describe_op(
    op: &Op,
    n_in: usize,
    n_out: usize,
    out_ty: Option<&Type>,
    detail: Detail,
) -> String {
    let full = detail == Detail::Full;
    match op {
        Op::Argument { index } => match out_ty {
            Some(t) if full => format!("arg {index} : {t}"),
            _ if full => format!("arg {index}"),
            _ => "arg".into(),
        },
        Op::Fork | Op::LazyFork => format!("{} [{n_out}]", op.mnemonic()),
        Op::Pipeline { latency, ii } => match (ii, full) {
            (1, _) | (_, false) => format!("pipeline [{latency}]"),
            (ii, true) => format!("pipeline [{latency}] ii={ii}"),
        },
        Op::Buffer { slots, kind, init } => {
            let mut s = format!("buffer [{slots}] {}", kind.keyword());
            if let (Some(init), true) = (init, full) {
                let vals: Vec<String> = init
                    .iter()
                    .map(|v| match out_ty {
                        Some(t @ Type::Float(_)) => signed_value(*v, t),
                        _ => v.to_string(),
                    })
                    .collect();
                let _ = write!(s, " init [{}]", vals.join(", "));
            }
            s
        }
        Op::DynBuffer { kind, slots } => format!("buffer [{slots}] {}", kind.name()),
        Op::DynPipeline { latency } => format!("pipeline [{latency}] stalling"),
        Op::Island(isl) => match (isl.pipelines.as_slice(), full) {
            ([p], true) => format!(
                "island ii={} latency={}\n{} stages, {} ops",
                p.ii,
                p.latency,
                p.stages(),
                p.ops.len()
            ),
            ([p], false) => format!("island ii={}", p.ii),
            (ps, _) => format!(
                "island [{} blocks, {} pipelined loops]",
                isl.blocks.len(),
                ps.len()
            ),
        },
        Op::DynCounterBuffer { latency } => format!("buffer COUNTER_BUFFER, {latency} cycles"),
        Op::DynControlMerge if full => format!("control_merge [{n_in}]"),
        Op::DynControlMerge => "control_merge".into(),
        Op::DynSelect => "select".into(),
        Op::DynLoad => "load".into(),
        Op::DynStore => "store".into(),
        Op::DynMemController {
            ctrl,
            ld,
            st,
            memref,
            ..
        } if full => {
            format!("mem_controller [ld={ld}, st={st}, ctrl={ctrl}]\n{memref}")
        }
        Op::DynMemController { .. } => "mem_controller".into(),
        Op::DynLsq { shape, memref, .. } if full => format!(
            "lsq [{}] {}/{}{}",
            shape.groups_text(),
            shape.load_depth,
            shape.store_depth,
            memref
                .as_ref()
                .map_or_else(|| " (slave)".to_string(), |m| format!("\n{m}"))
        ),
        Op::DynLsq { .. } => "lsq".into(),
        Op::AddrQueue { ld, st, depth } if full => {
            format!("addr_queue [ld={ld}, st={st}, depth={depth}]")
        }
        Op::AddrQueue { depth, .. } => format!("addr_queue [{depth}]"),
        Op::Constant { value } if full => match out_ty {
            Some(t) => format!("constant {} : {t}", signed_value(*value, t)),
            None => format!("constant {value}"),
        },
        Op::Memory { ld, st, memref, .. } if full => {
            format!("memory [ld={ld}, st={st}]\n{memref}")
        }
        Op::ExtMemory { ld, st, memref, .. } if full => {
            format!("extmemory [ld={ld}, st={st}]\n{memref}")
        }
        Op::Instance { callee } if full => format!("instance @{callee}"),
        Op::Arith(ArithOp::Cmpi(p)) if full => format!("cmpi {}", p.keyword()),
        Op::Arith(ArithOp::Cmpf(p)) if full => format!("cmpf {}", p.keyword()),
        Op::Arith(a) if full && a.dialect() != crate::ops::Dialect::Arith => a.qualified_name(),
        Op::ControlMerge | Op::Merge if full => format!("{} [{n_in}]", op.mnemonic()),
        Op::Mux if full => format!("mux [{}]", n_in.saturating_sub(1)),
        Op::Return
        | Op::Merge
        | Op::Mux
        | Op::ControlMerge
        | Op::CondBr
        | Op::Br
        | Op::Join
        | Op::Sync
        | Op::Pack
        | Op::Unpack
        | Op::Constant { .. }
        | Op::Source
        | Op::Sink
        | Op::Never
        | Op::Load
        | Op::Store
        | Op::Memory { .. }
        | Op::ExtMemory { .. }
        | Op::Instance { .. }
        | Op::Arith(_) => op.mnemonic().to_string(),
    }
}
