//! Type and attribute rules over a node's port types.
//!
//! [`check`] returns every broken rule as a [`Violation`] whose message names the port the way
//! the verifier reports it (`input `stData0` has type i8, expected i32`); the MLIR reader shows
//! the same messages at the operation's type annotation.

use super::ComponentSpec;
use super::ports::{PortRef, Ports};
use crate::ops::{ArithClass, Op};
use crate::types::{FloatKind, Type};

/// The type rule of a component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Typing {
    /// Checked against the function's signature or the callee's by the verifier (arguments,
    /// `return`, `instance`).
    Signature,
    /// Every output has the input's type (`fork`, `lazy_fork`, `br`, `buffer`).
    OutputsLikeInput,
    /// Every input has the output's type (`merge`).
    InputsLikeOutput,
    /// `mux`: an integer select wide enough for the data inputs, data inputs of the output type.
    Mux,
    /// `control_merge`: inputs of the `dataOut` type, an integer `index` wide enough.
    ControlMerge,
    /// `cond_br`: an `i1` condition, both outputs of the data type.
    CondBr,
    /// The output is `none` (`join`, `source`).
    NoneOutput,
    /// Output `i` has input `i`'s type (`sync`).
    Pairwise,
    /// The output is the tuple of the input types (`pack`).
    Pack,
    /// The outputs are the members of the input tuple (`unpack`).
    Unpack,
    /// A `none` control input and an integer or float output that the value fits (`constant`).
    Constant,
    /// Any types (`sink`, `never`).
    Any,
    /// `island`: a `none` control token in and out (port 0), inputs `1..` of the loop
    /// header's parameter types and outputs `1..` of its result types.
    Island,
    /// `load`/`store`: integer address, `none` control, outputs of the data and address types.
    MemoryAccess,
    /// `memory`/`extmemory`: element-typed data, integer addresses, `none` done tokens.
    Memory,
    /// Dynamatic's memory controller: `none` start and end controls, integer block counts
    /// and addresses, element-typed data.
    DynMemory,
    /// Dynamatic's load-store queue: `none` group controls (and, master, start and end),
    /// integer addresses, data of one element type (the array's, master).
    DynLsq,
    /// An address queue: integer addresses of one type, `ldAddrOut<i>` of `ldAddr<i>`'s
    /// type, `none` ordering and done tokens.
    AddrQueue,
    /// An `arith` operation of the class.
    Arith(ArithClass),
}

/// What kind of rule a [`Violation`] breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViolationKind {
    /// A port has the wrong number of ports (or tuple members).
    Count,
    /// A port has the wrong type.
    Type,
    /// An attribute is invalid (buffer slots and initial values, constant value).
    Attribute,
}

/// One broken rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// Which kind of rule.
    pub kind: ViolationKind,
    /// What is wrong, naming the port (`condition has type i32, expected i1`).
    pub message: String,
}

struct Checker<'a> {
    ports: (&'a Ports, &'a Ports),
    out: Vec<Violation>,
}

impl Checker<'_> {
    fn push(&mut self, kind: ViolationKind, message: String) {
        self.out.push(Violation { kind, message });
    }

    fn port(&self, p: PortRef) -> String {
        match p {
            PortRef::In(i) => format!("input `{}`", self.ports.0.name(i)),
            PortRef::Out(i) => format!("output `{}`", self.ports.1.name(i)),
        }
    }

    fn expect(&mut self, what: &str, actual: &Type, expected: &Type) {
        if actual != expected {
            self.push(
                ViolationKind::Type,
                format!("{what} has type {actual}, expected {expected}"),
            );
        }
    }

    fn expect_port(&mut self, p: PortRef, actual: &Type, expected: &Type) {
        let what = self.port(p);
        self.expect(&what, actual, expected);
    }

    fn expect_integer(&mut self, what: &str, t: &Type) {
        if !t.is_integer() {
            self.push(
                ViolationKind::Type,
                format!("{what} has type {t}, expected an integer or index"),
            );
        }
    }

    fn expect_float(&mut self, what: &str, t: &Type) {
        if !t.is_float() {
            self.push(
                ViolationKind::Type,
                format!("{what} has type {t}, expected a float (f32 or f64)"),
            );
        }
    }

    /// An `iN` (not `index`: MLIR's int/float casts take signless integers).
    fn expect_int_n(&mut self, what: &str, t: &Type) {
        if !matches!(t, Type::Int(_)) {
            self.push(
                ViolationKind::Type,
                format!("{what} has type {t}, expected an integer iN"),
            );
        }
    }
}

/// True when an index of type `t` can name `count` inputs.
fn wide_enough(t: &Type, count: usize) -> bool {
    match t {
        Type::Index => true,
        Type::Int(w) => *w >= 64 || (1u128 << *w) >= count as u128,
        _ => false,
    }
}

/// Checks `op`'s type and attribute rules; port counts must already be right.
pub(super) fn check(op: &Op, sp: &ComponentSpec, ins: &[Type], outs: &[Type]) -> Vec<Violation> {
    let mut c = Checker {
        ports: (&sp.inputs, &sp.outputs),
        out: Vec::new(),
    };
    match sp.typing {
        // Checked against the function's or the callee's signature by the verifier.
        Typing::Signature => {}
        Typing::OutputsLikeInput => {
            for (i, t) in outs.iter().enumerate() {
                c.expect_port(PortRef::Out(i), t, &ins[0]);
            }
        }
        Typing::InputsLikeOutput => {
            for (i, t) in ins.iter().enumerate() {
                c.expect_port(PortRef::In(i), t, &outs[0]);
            }
        }
        Typing::Mux => {
            let data = ins.len() - 1;
            if !ins[0].is_integer() {
                c.push(
                    ViolationKind::Type,
                    format!("select has type {}, expected an integer or index", ins[0]),
                );
            } else if !wide_enough(&ins[0], data) {
                c.push(
                    ViolationKind::Type,
                    format!("select type {} cannot index {data} data inputs", ins[0]),
                );
            }
            for (i, t) in ins.iter().enumerate().skip(1) {
                c.expect_port(PortRef::In(i), t, &outs[0]);
            }
        }
        Typing::ControlMerge => {
            for (i, t) in ins.iter().enumerate() {
                c.expect_port(PortRef::In(i), t, &outs[0]);
            }
            if !outs[1].is_integer() || !wide_enough(&outs[1], ins.len()) {
                c.push(
                    ViolationKind::Type,
                    format!("index type {} cannot index {} inputs", outs[1], ins.len()),
                );
            }
        }
        Typing::CondBr => {
            c.expect("condition", &ins[0], &Type::Int(1));
            for (i, t) in outs.iter().enumerate() {
                c.expect_port(PortRef::Out(i), t, &ins[1]);
            }
        }
        Typing::NoneOutput => c.expect("output", &outs[0], &Type::None),
        Typing::Pairwise => {
            for (i, (o, t)) in outs.iter().zip(ins).enumerate() {
                c.expect_port(PortRef::Out(i), o, t);
            }
        }
        Typing::Pack => c.expect("output", &outs[0], &Type::Tuple(ins.to_vec())),
        Typing::Unpack => match &ins[0] {
            Type::Tuple(members) if members.len() != outs.len() => c.push(
                ViolationKind::Count,
                format!(
                    "has {} outputs for a {}-member tuple",
                    outs.len(),
                    members.len()
                ),
            ),
            Type::Tuple(members) => {
                for (i, (o, t)) in outs.iter().zip(members).enumerate() {
                    c.expect_port(PortRef::Out(i), o, t);
                }
            }
            other => c.push(
                ViolationKind::Type,
                format!("input has type {other}, expected a tuple"),
            ),
        },
        Typing::Constant => {
            c.expect("input `ctrl`", &ins[0], &Type::None);
            if !outs[0].is_float() {
                c.expect_integer("output", &outs[0]);
            }
        }
        Typing::Any => {}
        Typing::Island => {
            if let Op::Island(isl) = op {
                c.expect("input `ctrl`", &ins[0], &Type::None);
                c.expect("output `ctrl`", &outs[0], &Type::None);
                let params = &isl.slots[..(isl.params as usize).min(isl.slots.len())];
                if ins.len() != params.len() + 1 || outs.len() != isl.results() + 1 {
                    c.push(
                        ViolationKind::Count,
                        format!(
                            "an island over {} parameters and {} results has {} inputs and {} outputs, expected {} and {}",
                            params.len(),
                            isl.results(),
                            ins.len(),
                            outs.len(),
                            params.len() + 1,
                            isl.results() + 1
                        ),
                    );
                } else {
                    for (i, t) in params.iter().enumerate() {
                        c.expect_port(PortRef::In(i + 1), &ins[i + 1], t);
                    }
                    for (i, t) in isl.result_types().iter().enumerate() {
                        c.expect_port(PortRef::Out(i + 1), &outs[i + 1], t);
                    }
                }
            }
        }
        Typing::MemoryAccess => {
            c.expect_integer("input `addrIn0`", &ins[0]);
            c.expect("output `addrOut0`", &outs[1], &ins[0]);
            c.expect_port(PortRef::Out(0), &outs[0], &ins[1]);
            c.expect("input `ctrl`", &ins[2], &Type::None);
        }
        Typing::Memory => {
            if let Op::Memory { ld, st, memref, .. } | Op::ExtMemory { ld, st, memref, .. } = op {
                let (ld, st) = (*ld as usize, *st as usize);
                for i in 0..st {
                    c.expect_port(PortRef::In(2 * i), &ins[2 * i], &memref.elem);
                    let what = c.port(PortRef::In(2 * i + 1));
                    c.expect_integer(&what, &ins[2 * i + 1]);
                    c.expect_port(PortRef::Out(ld + i), &outs[ld + i], &Type::None);
                }
                for i in 0..ld {
                    let what = c.port(PortRef::In(2 * st + i));
                    c.expect_integer(&what, &ins[2 * st + i]);
                    c.expect_port(PortRef::Out(i), &outs[i], &memref.elem);
                    c.expect_port(PortRef::Out(ld + st + i), &outs[ld + st + i], &Type::None);
                }
                // One address type for every port (CIRCT's verifier requires it).
                let addrs: Vec<(usize, &Type)> = (0..st)
                    .map(|j| 2 * j + 1)
                    .chain((0..ld).map(|i| 2 * st + i))
                    .map(|k| (k, &ins[k]))
                    .collect();
                if let Some(&(k, t)) = addrs.iter().find(|(_, t)| *t != addrs[0].1) {
                    let (first, other) = (c.port(PortRef::In(addrs[0].0)), c.port(PortRef::In(k)));
                    c.push(
                        ViolationKind::Type,
                        format!(
                            "{other} has type {t} but {first} has type {}: every address needs one type",
                            addrs[0].1
                        ),
                    );
                }
            }
        }
        Typing::DynMemory => {
            if let Op::DynMemController {
                ctrl,
                ld,
                st,
                memref,
                ..
            } = op
            {
                let (nc, nl, ns) = (*ctrl as usize, *ld as usize, *st as usize);
                c.expect_port(PortRef::In(0), &ins[0], &Type::None);
                for (k, t) in ins.iter().enumerate().take(nc + 1).skip(1) {
                    let what = c.port(PortRef::In(k));
                    c.expect_integer(&what, t);
                }
                for i in 0..nl {
                    let what = c.port(PortRef::In(1 + nc + i));
                    c.expect_integer(&what, &ins[1 + nc + i]);
                    c.expect_port(PortRef::Out(i), &outs[i], &memref.elem);
                }
                for j in 0..ns {
                    let a = 1 + nc + nl + 2 * j;
                    let what = c.port(PortRef::In(a));
                    c.expect_integer(&what, &ins[a]);
                    c.expect_port(PortRef::In(a + 1), &ins[a + 1], &memref.elem);
                }
                let last = ins.len() - 1;
                c.expect_port(PortRef::In(last), &ins[last], &Type::None);
                c.expect_port(PortRef::Out(nl), &outs[nl], &Type::None);
            }
        }
        Typing::AddrQueue => {
            if let Op::AddrQueue { ld, st, .. } = op {
                let (nl, ns) = (*ld as usize, *st as usize);
                let mut addrs: Vec<usize> = Vec::new();
                for i in 0..nl {
                    let what = c.port(PortRef::In(2 * i));
                    c.expect_integer(&what, &ins[2 * i]);
                    c.expect_port(PortRef::In(2 * i + 1), &ins[2 * i + 1], &Type::None);
                    c.expect_port(PortRef::Out(i), &outs[i], &ins[2 * i]);
                    addrs.push(2 * i);
                }
                for j in 0..ns {
                    let a = 2 * nl + 3 * j;
                    let what = c.port(PortRef::In(a));
                    c.expect_integer(&what, &ins[a]);
                    c.expect_port(PortRef::In(a + 1), &ins[a + 1], &Type::None);
                    c.expect_port(PortRef::In(a + 2), &ins[a + 2], &Type::None);
                    c.expect_port(PortRef::Out(nl + j), &outs[nl + j], &Type::None);
                    addrs.push(a);
                }
                // Addresses are compared: one type for all of them.
                if let Some(&k) = addrs.iter().find(|&&k| ins[k] != ins[addrs[0]]) {
                    let (first, other) = (c.port(PortRef::In(addrs[0])), c.port(PortRef::In(k)));
                    c.push(
                        ViolationKind::Type,
                        format!(
                            "{other} has type {} but {first} has type {}: every address needs one type",
                            ins[k], ins[addrs[0]]
                        ),
                    );
                }
            }
        }
        Typing::DynLsq => {
            if let Op::DynLsq { shape, memref, .. } = op {
                let master = usize::from(memref.is_some());
                let (g, nl, ns) = (
                    shape.groups.len(),
                    shape.load_ports() as usize,
                    shape.store_ports() as usize,
                );
                // The element type: the array's, else the first data port's.
                let elem = memref.as_ref().map(|m| m.elem.clone()).or_else(|| {
                    outs.first()
                        .filter(|_| nl > 0)
                        .or(ins.get(master + g + nl + 1))
                        .cloned()
                });
                for k in 0..g {
                    c.expect_port(PortRef::In(master + k), &ins[master + k], &Type::None);
                }
                for (i, out) in outs.iter().enumerate().take(nl) {
                    let a = master + g + i;
                    let what = c.port(PortRef::In(a));
                    c.expect_integer(&what, &ins[a]);
                    if let Some(e) = &elem {
                        c.expect_port(PortRef::Out(i), out, e);
                    }
                }
                for j in 0..ns {
                    let a = master + g + nl + 2 * j;
                    let what = c.port(PortRef::In(a));
                    c.expect_integer(&what, &ins[a]);
                    if let Some(e) = &elem {
                        c.expect_port(PortRef::In(a + 1), &ins[a + 1], e);
                    }
                }
                if master == 1 {
                    c.expect_port(PortRef::In(0), &ins[0], &Type::None);
                    let last = ins.len() - 1;
                    c.expect_port(PortRef::In(last), &ins[last], &Type::None);
                    c.expect_port(PortRef::Out(nl), &outs[nl], &Type::None);
                } else {
                    if nl > 0
                        && let Some(e) = &elem
                    {
                        let last = ins.len() - 1;
                        c.expect_port(PortRef::In(last), &ins[last], e);
                    }
                    let what = c.port(PortRef::Out(nl));
                    c.expect_integer(&what, &outs[nl]);
                    let what = c.port(PortRef::Out(nl + 1));
                    c.expect_integer(&what, &outs[nl + 1]);
                    if let Some(e) = &elem {
                        c.expect_port(PortRef::Out(nl + 2), &outs[nl + 2], e);
                    }
                }
            }
        }
        Typing::Arith(class) => check_arith(&mut c, class, ins, &outs[0]),
    }
    check_attributes(&mut c, op, ins, outs);
    c.out
}

/// Operand and result rules of `arith` ops.
fn check_arith(c: &mut Checker<'_>, class: ArithClass, ins: &[Type], out: &Type) {
    match class {
        ArithClass::Compare => {
            c.expect_integer("operand 0", &ins[0]);
            c.expect("operand 1", &ins[1], &ins[0]);
            c.expect("result", out, &Type::Int(1));
        }
        ArithClass::IntUnary => {
            c.expect_integer("operand", &ins[0]);
            c.expect("result", out, &ins[0]);
        }
        ArithClass::Select => {
            c.expect("condition", &ins[0], &Type::Int(1));
            c.expect("true value", &ins[1], out);
            c.expect("false value", &ins[2], out);
        }
        ArithClass::Extend | ArithClass::Truncate => {
            let (Type::Int(from), Type::Int(to)) = (&ins[0], out) else {
                c.push(
                    ViolationKind::Type,
                    format!("casts {} to {out}, expected iN to iM", ins[0]),
                );
                return;
            };
            if class == ArithClass::Extend && to <= from {
                c.push(
                    ViolationKind::Type,
                    format!("extends i{from} to i{to}, which is not wider"),
                );
            } else if class == ArithClass::Truncate && to >= from {
                c.push(
                    ViolationKind::Type,
                    format!("truncates i{from} to i{to}, which is not narrower"),
                );
            }
        }
        ArithClass::IndexCast => {
            let ok = matches!(
                (&ins[0], out),
                (Type::Index, Type::Int(_)) | (Type::Int(_), Type::Index)
            );
            if !ok {
                c.push(
                    ViolationKind::Type,
                    format!(
                        "casts {} to {out}, expected index to iN or iN to index",
                        ins[0]
                    ),
                );
            }
        }
        ArithClass::Binary => {
            c.expect_integer("operand 0", &ins[0]);
            c.expect("operand 1", &ins[1], &ins[0]);
            c.expect("result", out, &ins[0]);
        }
        ArithClass::FloatBinary => {
            c.expect_float("operand 0", &ins[0]);
            c.expect("operand 1", &ins[1], &ins[0]);
            c.expect("result", out, &ins[0]);
        }
        ArithClass::FloatUnary => {
            c.expect_float("operand", &ins[0]);
            c.expect("result", out, &ins[0]);
        }
        ArithClass::FloatCompare => {
            c.expect_float("operand 0", &ins[0]);
            c.expect("operand 1", &ins[1], &ins[0]);
            c.expect("result", out, &Type::Int(1));
        }
        ArithClass::IntToFloat => {
            c.expect_int_n("operand", &ins[0]);
            c.expect_float("result", out);
        }
        ArithClass::FloatToInt => {
            c.expect_float("operand", &ins[0]);
            c.expect_int_n("result", out);
        }
        ArithClass::FloatExtend | ArithClass::FloatTruncate => {
            let (from, to) = match class {
                ArithClass::FloatExtend => (FloatKind::F32, FloatKind::F64),
                _ => (FloatKind::F64, FloatKind::F32),
            };
            let ok = (ins[0].float_kind(), out.float_kind()) == (Some(from), Some(to));
            if !ok {
                let what = if class == ArithClass::FloatExtend {
                    "extends"
                } else {
                    "truncates"
                };
                c.push(
                    ViolationKind::Type,
                    format!(
                        "{what} {} to {out}, expected {} to {}",
                        ins[0],
                        from.name(),
                        to.name()
                    ),
                );
            }
        }
    }
}

/// Attribute rules: the ops whose attributes constrain their values.
fn check_attributes(c: &mut Checker<'_>, op: &Op, ins: &[Type], outs: &[Type]) {
    match op {
        Op::Buffer { slots, init, .. } => {
            if *slots == 0 {
                c.push(ViolationKind::Attribute, "buffer has 0 slots".into());
            }
            if let Some(init) = init {
                if init.len() != *slots as usize {
                    c.push(
                        ViolationKind::Attribute,
                        format!("has {} initial values for {slots} slots", init.len()),
                    );
                }
                let mask = ins[0].mask();
                if let Some(v) = init.iter().find(|v| **v & !mask != 0) {
                    c.push(
                        ViolationKind::Attribute,
                        format!("initial value {v} does not fit in {}", ins[0]),
                    );
                }
            }
        }
        Op::Pipeline { latency, ii } => {
            if *latency == 0 {
                c.push(ViolationKind::Attribute, "pipeline has latency 0".into());
            }
            if *ii == 0 {
                c.push(
                    ViolationKind::Attribute,
                    "pipeline has initiation interval 0".into(),
                );
            }
        }
        Op::DynBuffer { kind, slots } => {
            if *slots == 0 {
                c.push(ViolationKind::Attribute, "buffer has 0 slots".into());
            }
            if *slots > 1 && kind.one_slot() {
                c.push(
                    ViolationKind::Attribute,
                    format!("{} holds one slot, not {slots}", kind.name()),
                );
            }
        }
        Op::DynLsq { shape, .. } => {
            if shape.groups.is_empty() || shape.groups.iter().any(Vec::is_empty) {
                c.push(
                    ViolationKind::Attribute,
                    "a load-store queue needs groups of at least one access".into(),
                );
            }
            for (what, d) in [("load", shape.load_depth), ("store", shape.store_depth)] {
                if d == 0 || d > crate::limits::MAX_LSQ_DEPTH {
                    c.push(
                        ViolationKind::Attribute,
                        format!(
                            "the {what} queue needs between 1 and {} entries (found {d})",
                            crate::limits::MAX_LSQ_DEPTH
                        ),
                    );
                }
            }
        }
        Op::AddrQueue { depth, .. } => {
            if *depth == 0 || *depth > crate::limits::MAX_ADDR_QUEUE_DEPTH {
                c.push(
                    ViolationKind::Attribute,
                    format!(
                        "an address queue needs between 1 and {} entries (found {depth})",
                        crate::limits::MAX_ADDR_QUEUE_DEPTH
                    ),
                );
            }
        }
        Op::Island(isl) => {
            if let Err(e) = isl.validate() {
                c.push(ViolationKind::Attribute, e.to_string());
            }
        }
        Op::DynPipeline { latency } | Op::DynCounterBuffer { latency } => {
            if *latency == 0 {
                c.push(ViolationKind::Attribute, "pipeline has latency 0".into());
            }
        }
        Op::Constant { value } => {
            let t = &outs[0];
            if (t.is_integer() || t.is_float()) && value & !t.mask() != 0 {
                c.push(
                    ViolationKind::Attribute,
                    format!("value {value} does not fit in {t}"),
                );
            }
        }
        Op::Argument { .. }
        | Op::Return
        | Op::Fork
        | Op::LazyFork
        | Op::Merge
        | Op::Mux
        | Op::ControlMerge
        | Op::DynControlMerge
        | Op::DynSelect
        | Op::DynLoad
        | Op::DynStore
        | Op::DynMemController { .. }
        | Op::CondBr
        | Op::Br
        | Op::Join
        | Op::Sync
        | Op::Pack
        | Op::Unpack
        | Op::Source
        | Op::Sink
        | Op::Never
        | Op::Load
        | Op::Store
        | Op::Memory { .. }
        | Op::ExtMemory { .. }
        | Op::Instance { .. }
        | Op::Arith(_) => {}
    }
}
