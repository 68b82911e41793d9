//! Deterministic MLIR printer: custom form as CIRCT 1.62 prints it, with SSA names derived
//! from stable IDs so that read → write → read gives the same graph.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;

use handscope_sim::{
    ArgType, ArithClass, ArithOp, ChannelId, Function, Module, NameHint, Node, Op, SourceLoc, Type,
};

/// Prints a whole module (`module { ... }`) with every function.
pub fn write_mlir(module: &Module) -> String {
    let mut out = String::from("module {\n");
    for f in &module.functions {
        write_function_into(&mut out, f, "  ");
    }
    out.push_str("}\n");
    out
}

/// Options of [`write_mlir_with`].
#[derive(Clone, Debug, Default)]
pub struct WriteOptions {
    /// Leave out locations that point into this file. Ops read from a file without an
    /// explicit `loc(...)` are located in that file itself; such positions mean nothing once
    /// the text is normalized, so the CLI omits them.
    pub omit_locations_in: Option<String>,
}

/// Prints a whole module like [`write_mlir`], with options.
pub fn write_mlir_with(module: &Module, opts: &WriteOptions) -> String {
    let Some(file) = &opts.omit_locations_in else {
        return write_mlir(module);
    };
    let mut m = module.clone();
    let keep = |l: &Option<SourceLoc>| l.as_ref().filter(|l| &*l.file != file.as_str()).cloned();
    for f in &mut m.functions {
        f.loc = keep(&f.loc);
        for n in f.nodes.values_mut() {
            n.loc = keep(&n.loc);
        }
    }
    write_mlir(&m)
}

/// Prints one `handshake.func` (without a `module` wrapper).
pub fn write_function(f: &Function) -> String {
    let mut out = String::new();
    write_function_into(&mut out, f, "");
    out
}

/// Makes `s` a valid MLIR SSA suffix identifier (`.` becomes `_`).
fn sanitize(s: &str) -> String {
    let mut o: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if o.is_empty() {
        o.push('v');
    } else if o.as_bytes()[0].is_ascii_digit() && !o.bytes().all(|b| b.is_ascii_digit()) {
        o.insert(0, 'v');
    }
    o
}

/// Quotes a string for MLIR.
fn quote(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for b in s.bytes() {
        match b {
            b'"' => o.push_str("\\\""),
            b'\\' => o.push_str("\\\\"),
            0x20..=0x7e => o.push(b as char),
            _ => {
                let _ = write!(o, "\\{b:02X}");
            }
        }
    }
    o.push('"');
    o
}

fn is_bare_ident(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && (b[0].is_ascii_alphabetic() || b[0] == b'_')
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.'))
}

fn symbol(s: &str) -> String {
    let ok = !s.is_empty()
        && s.bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.' | b'-'));
    if ok && !s.as_bytes()[0].is_ascii_digit() {
        format!("@{s}")
    } else {
        format!("@{}", quote(s))
    }
}

fn attr_name(s: &str) -> String {
    if is_bare_ident(s) {
        s.to_string()
    } else {
        quote(s)
    }
}

fn loc_text(l: &SourceLoc) -> String {
    format!(" loc({}:{}:{})", quote(&l.file), l.line, l.col)
}

/// Value of a bit pattern of width `w` read as a signed integer (how MLIR prints it).
/// A float attribute value MLIR reads back to the same bits: the shortest decimal that
/// round-trips, always with a `.` (`1.5`, `-0.0`, `1.0e300`), or, for infinities and NaNs, the
/// bit pattern in hex as MLIR prints it (`0x7FC00000`).
pub fn float_literal(bits: u64, kind: handscope_sim::FloatKind) -> String {
    let bits = bits & handscope_sim::types::width_mask(kind.bits());
    let text = handscope_sim::float::format_float(bits, kind);
    if text.contains("inf") || text.contains("nan") {
        return format!("0x{bits:0w$X}", w = kind.bits() as usize / 4);
    }
    let (mantissa, exp) = match text.split_once('e') {
        Some((m, e)) => (m, format!("e{e}")),
        None => (text.as_str(), String::new()),
    };
    if mantissa.contains('.') {
        format!("{mantissa}{exp}")
    } else {
        format!("{mantissa}.0{exp}")
    }
}

/// The signed reading of word `v` of a `w`-bit channel, as decimal text.
fn signed(v: u64, w: u32) -> String {
    if handscope_sim::wide::is_wide(w) {
        return handscope_sim::wide::to_decimal(v, w, true);
    }
    signed_narrow(v, w).to_string()
}

fn signed_narrow(v: u64, w: u32) -> i128 {
    match w {
        0 => 0,
        w if w >= 64 => i128::from(v as i64),
        w => {
            let v = v & ((1u64 << w) - 1);
            if (v >> (w - 1)) & 1 == 1 {
                i128::from(v) - (1i128 << w)
            } else {
                i128::from(v)
            }
        }
    }
}

fn types(ts: &[Type]) -> String {
    ts.iter()
        .map(Type::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

fn fn_type(ins: &[Type], outs: &[Type]) -> String {
    let outs_s = if outs.len() == 1 && !matches!(outs[0], Type::Tuple(_)) {
        outs[0].to_string()
    } else {
        format!("({})", types(outs))
    };
    format!("({}) -> {outs_s}", types(ins))
}

struct Names {
    of: HashMap<ChannelId, String>,
    memref: HashMap<usize, String>,
    used: HashSet<String>,
}

impl Names {
    fn fresh(&mut self, base: &str) -> String {
        let base = sanitize(base);
        let mut cand = base.clone();
        let mut k = 1;
        while !self.used.insert(cand.clone()) {
            cand = format!("{base}_{k}");
            k += 1;
        }
        cand
    }

    fn get(&self, c: ChannelId) -> String {
        self.of
            .get(&c)
            .map_or_else(|| "%undefined".to_string(), |n| format!("%{n}"))
    }
}

fn write_function_into(out: &mut String, f: &Function, ind: &str) {
    let mut names = Names {
        of: HashMap::new(),
        memref: HashMap::new(),
        used: HashSet::new(),
    };
    for (i, a) in f.args.iter().enumerate() {
        let n = names.fresh(&a.name);
        match (&a.ty, a.node) {
            (ArgType::Channel(_), Some(node)) => {
                if let Some(&c) = f.nodes[node].outputs.first() {
                    names.of.insert(c, n);
                }
            }
            _ => {
                names.memref.insert(i, n);
            }
        }
    }
    for (_, node) in f.nodes.iter() {
        if matches!(node.op, Op::Argument { .. }) {
            continue;
        }
        for &c in &node.outputs {
            let base = if f.channels[c].name.is_empty() {
                format!("{}_out", node.id)
            } else {
                f.channels[c].name.clone()
            };
            let n = names.fresh(&base);
            names.of.insert(c, n);
        }
    }

    // Header.
    let mut attrs = f.attrs.clone();
    let keyword = ["private", "public", "nested"];
    let vis = attrs
        .iter()
        .position(|(k, v)| {
            k == "sym_visibility" && keyword.iter().any(|w| v == &format!("\"{w}\""))
        })
        .map(|i| attrs.remove(i).1);
    let _ = write!(out, "{ind}handshake.func ");
    if let Some(v) = vis {
        let _ = write!(out, "{} ", v.trim_matches('"'));
    }
    let _ = write!(out, "{}(", symbol(&f.name));
    for (i, a) in f.args.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let ty = match &a.ty {
            ArgType::Channel(t) => t.to_string(),
            ArgType::MemRef(m) => m.to_string(),
        };
        let loc = a
            .node
            .and_then(|n| f.nodes[n].loc.as_ref())
            .map(loc_text)
            .unwrap_or_default();
        if f.external {
            let _ = write!(out, "{ty}{loc}");
        } else {
            let name = match a.node {
                Some(n) => f.nodes[n]
                    .outputs
                    .first()
                    .map(|c| names.get(*c))
                    .unwrap_or_default(),
                None => format!("%{}", names.memref.get(&i).cloned().unwrap_or_default()),
            };
            let _ = write!(out, "{name}: {ty}{loc}");
        }
    }
    out.push(')');
    let res: Vec<Type> = f.results.iter().map(|r| r.ty.clone()).collect();
    if !res.is_empty() {
        if res.len() == 1 && !matches!(res[0], Type::Tuple(_)) {
            let _ = write!(out, " -> {}", res[0]);
        } else {
            let _ = write!(out, " -> ({})", types(&res));
        }
    }
    let mut fattrs: BTreeMap<String, String> = BTreeMap::new();
    let list = |v: Vec<&str>| {
        format!(
            "[{}]",
            v.into_iter().map(quote).collect::<Vec<_>>().join(", ")
        )
    };
    fattrs.insert(
        "argNames".into(),
        list(f.args.iter().map(|a| a.name.as_str()).collect()),
    );
    fattrs.insert(
        "resNames".into(),
        list(f.results.iter().map(|r| r.name.as_str()).collect()),
    );
    // The environment's conventions per argument, when any differs from the default
    // (circuits read from Dynamatic's dialect: its testbench's).
    let ints = |v: Vec<u64>| {
        format!(
            "[{}]",
            v.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
        )
    };
    if f.args.iter().any(|a| a.offered_from != 0) {
        fattrs.insert(
            "handscope.offered_from".into(),
            ints(f.args.iter().map(|a| a.offered_from).collect()),
        );
    }
    if f.args.iter().any(|a| a.one_token_by_default) {
        fattrs.insert(
            "handscope.token_by_default".into(),
            ints(
                f.args
                    .iter()
                    .map(|a| u64::from(a.one_token_by_default))
                    .collect(),
            ),
        );
    }
    for (k, v) in attrs {
        fattrs.entry(k).or_insert(v);
    }
    let _ = write!(out, " attributes {}", dict(&fattrs).trim_start());
    if f.external {
        let _ = writeln!(out, "{}", f.loc.as_ref().map(loc_text).unwrap_or_default());
        return;
    }
    out.push_str(" {\n");
    let body = f
        .nodes
        .iter()
        .filter(|(_, n)| !matches!(n.op, Op::Argument { .. } | Op::Return));
    let rets = f.nodes.iter().filter(|(_, n)| n.op == Op::Return);
    let mut any_return = false;
    for (_, node) in body.chain(rets) {
        any_return |= node.op == Op::Return;
        let _ = writeln!(out, "{ind}  {}", op_text(f, node, &names));
    }
    if !any_return {
        let _ = writeln!(out, "{ind}  return");
    }
    let _ = writeln!(
        out,
        "{ind}}}{}",
        f.loc.as_ref().map(loc_text).unwrap_or_default()
    );
}

/// An `arith` op's text after its result: name, operands `ops`, attributes `attrs` and
/// types (`in_t` the operands', `out` the result's).
fn arith_text(a: ArithOp, ops: &str, attrs: &str, in_t: &[Type], out: &Type) -> String {
    let name = a.qualified_name();
    let first_in = in_t.first().cloned().unwrap_or(Type::None);
    match (a.class(), a) {
        (ArithClass::Compare, ArithOp::Cmpi(p)) => {
            format!("arith.cmpi {}, {ops}{attrs} : {first_in}", p.keyword())
        }
        (ArithClass::FloatCompare, ArithOp::Cmpf(p)) => {
            format!("arith.cmpf {}, {ops}{attrs} : {first_in}", p.keyword())
        }
        (ArithClass::Select, _) => {
            let t = in_t.get(1).cloned().unwrap_or(Type::None);
            format!("{name} {ops}{attrs} : {t}")
        }
        (
            ArithClass::Extend
            | ArithClass::Truncate
            | ArithClass::IndexCast
            | ArithClass::IntToFloat
            | ArithClass::FloatToInt
            | ArithClass::FloatExtend
            | ArithClass::FloatTruncate,
            _,
        ) => format!("{name} {ops}{attrs} : {first_in} to {out}"),
        (
            ArithClass::Binary
            | ArithClass::IntUnary
            | ArithClass::Compare
            | ArithClass::FloatBinary
            | ArithClass::FloatUnary
            | ArithClass::FloatCompare,
            _,
        ) => format!("{name} {ops}{attrs} : {out}"),
    }
}

/// An island's attributes: the memories it uses and its pipelines' schedules
/// (`docs/static-islands.md` "In MLIR").
fn island_attrs(isl: &handscope_sim::island::Island, attrs: &mut BTreeMap<String, String>) {
    let mems: Vec<String> = isl.memories.iter().map(|m| quote(m)).collect();
    attrs.insert("memories".into(), format!("[{}]", mems.join(", ")));
    let pipes: Vec<String> = isl
        .pipelines
        .iter()
        .map(|p| {
            let ops: Vec<String> = p
                .ops
                .iter()
                .map(|o| {
                    format!(
                        "[{}, {}, {}, {}]",
                        quote(&o.name),
                        o.line,
                        o.start,
                        o.latency
                    )
                })
                .collect();
            let blocks: Vec<String> = p.blocks.iter().map(u32::to_string).collect();
            format!(
                "{{blocks = [{}], header = {}, ii = {}, latency = {}, line = {}, ops = [{}]}}",
                blocks.join(", "),
                p.header,
                p.ii,
                p.latency,
                p.line,
                ops.join(", ")
            )
        })
        .collect();
    attrs.insert("pipelines".into(), format!("[{}]", pipes.join(", ")));
}

/// An island's body: its blocks `^bb<k>`, values `%s<slot>`, edges out to `^exit` with the
/// results, each terminator's edges' cycles in `{cycles = [..]}`.
fn island_region(isl: &handscope_sim::island::Island) -> String {
    use handscope_sim::island::{EdgeTarget, IslandEdge, IslandExit, StepOp};
    let ty = |s: u32| isl.slots.get(s as usize).cloned().unwrap_or(Type::None);
    let v = |s: u32| format!("%s{s}");
    let list = |ss: &[u32]| ss.iter().map(|&s| v(s)).collect::<Vec<_>>().join(", ");
    let types = |ss: &[u32]| {
        ss.iter()
            .map(|&s| ty(s).to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let succ = |e: &IslandEdge| {
        let label = match e.to {
            EdgeTarget::Block(k) => format!("^bb{k}"),
            EdgeTarget::Leave => "^exit".to_string(),
        };
        if e.args.is_empty() {
            label
        } else {
            format!("{label}({} : {})", list(&e.args), types(&e.args))
        }
    };
    let mut out = String::from("{");
    for (k, b) in isl.blocks.iter().enumerate() {
        let params: Vec<String> = b
            .params
            .iter()
            .map(|&s| format!("{}: {}", v(s), ty(s)))
            .collect();
        if params.is_empty() {
            let _ = write!(out, "\n    ^bb{k}:");
        } else {
            let _ = write!(out, "\n    ^bb{k}({}):", params.join(", "));
        }
        for st in &b.steps {
            let r = v(st.result);
            let rt = ty(st.result);
            let line = match st.op {
                StepOp::Const(c) => {
                    let val = match &rt {
                        Type::Int(1) => if c & 1 == 1 { "true" } else { "false" }.to_string(),
                        Type::Float(k) => format!("{} : {rt}", float_literal(c, *k)),
                        t => format!("{} : {t}", signed(c, t.bit_width())),
                    };
                    format!("{r} = arith.constant {val}")
                }
                StepOp::Arith(a) => {
                    let in_t: Vec<Type> = st.args.iter().map(|&s| ty(s)).collect();
                    format!("{r} = {}", arith_text(a, &list(&st.args), "", &in_t, &rt))
                }
                StepOp::Load(m) => format!(
                    "{r} = handshake.island.load {}[{}] : {} -> {rt}",
                    quote(isl.memories.get(m as usize).map_or("", String::as_str)),
                    v(st.args[0]),
                    ty(st.args[0])
                ),
                StepOp::Store(m) => format!(
                    "{r} = handshake.island.store {}, {}[{}] : {}, {}",
                    v(st.args[1]),
                    quote(isl.memories.get(m as usize).map_or("", String::as_str)),
                    v(st.args[0]),
                    ty(st.args[1]),
                    ty(st.args[0])
                ),
            };
            let _ = write!(out, "\n      {line}");
        }
        let term = match &b.exit {
            IslandExit::Goto(e) => format!("cf.br {} {{cycles = [{}]}}", succ(e), e.cycles),
            IslandExit::Branch { cond, t, f } => format!(
                "cf.cond_br {}, {}, {} {{cycles = [{}, {}]}}",
                v(*cond),
                succ(t),
                succ(f),
                t.cycles,
                f.cycles
            ),
        };
        let _ = write!(out, "\n      {term}");
    }
    out.push_str("\n    }");
    out
}

fn dict(m: &BTreeMap<String, String>) -> String {
    if m.is_empty() {
        return String::new();
    }
    let items: Vec<String> = m
        .iter()
        .map(|(k, v)| {
            if v.is_empty() {
                attr_name(k)
            } else {
                format!("{} = {v}", attr_name(k))
            }
        })
        .collect();
    format!(" {{{}}}", items.join(", "))
}

fn op_text(f: &Function, node: &Node, names: &Names) -> String {
    let ty = |c: ChannelId| f.channels[c].ty.clone();
    let ins: Vec<String> = node.inputs.iter().map(|c| names.get(*c)).collect();
    let in_t: Vec<Type> = node.inputs.iter().map(|c| ty(*c)).collect();
    let out_t: Vec<Type> = node.outputs.iter().map(|c| ty(*c)).collect();
    let first_in = in_t.first().cloned().unwrap_or(Type::None);
    let first_out = out_t.first().cloned().unwrap_or(Type::None);
    let results = if node.outputs.is_empty() {
        String::new()
    } else {
        let r: Vec<String> = node.outputs.iter().map(|c| names.get(*c)).collect();
        format!("{} = ", r.join(", "))
    };

    let mut attrs: BTreeMap<String, String> = BTreeMap::new();
    for (k, v) in &node.attrs {
        attrs.entry(k.clone()).or_insert_with(|| v.clone());
    }
    match &node.name_hint {
        NameHint::Counter => {}
        NameHint::Name(n) => {
            attrs.insert("handshake.name".into(), quote(n));
        }
        NameHint::HandshakeId(n) => {
            attrs.insert("handshake_id".into(), format!("{n} : index"));
        }
    }
    if let Some(b) = &node.block {
        attrs.insert("handshake.bb".into(), quote(b));
    }
    let loc = node.loc.as_ref().map(loc_text).unwrap_or_default();
    let ops = ins.join(", ");
    let body = match &node.op {
        Op::Argument { .. } => String::new(),
        Op::Island(isl) => {
            island_attrs(isl, &mut attrs);
            let ins_t: Vec<String> = in_t.iter().map(Type::to_string).collect();
            let outs_t: Vec<String> = out_t.iter().map(Type::to_string).collect();
            format!(
                "island {ops}{} : ({}) -> ({}) {}",
                dict(&attrs),
                ins_t.join(", "),
                outs_t.join(", "),
                island_region(isl)
            )
        }
        Op::Fork | Op::LazyFork => {
            format!(
                "{} [{}] {ops}{} : {first_in}",
                node.op.mnemonic(),
                node.outputs.len(),
                dict(&attrs)
            )
        }
        Op::Merge | Op::Br | Op::Sink => {
            format!("{} {ops}{} : {first_in}", node.op.mnemonic(), dict(&attrs))
        }
        Op::Mux => {
            let sel = ins.first().cloned().unwrap_or_default();
            let data = ins.get(1..).unwrap_or_default().join(", ");
            format!(
                "mux {sel} [{data}]{} : {first_in}, {first_out}",
                dict(&attrs)
            )
        }
        Op::ControlMerge => {
            let idx = out_t.get(1).cloned().unwrap_or(Type::Index);
            format!("control_merge {ops}{} : {first_out}, {idx}", dict(&attrs))
        }
        Op::CondBr => format!("cond_br {ops}{} : {first_out}", dict(&attrs)),
        Op::Join | Op::Sync => format!(
            "{} {ops}{} : {}",
            node.op.mnemonic(),
            dict(&attrs),
            types(&in_t)
        ),
        Op::Pack => format!("pack {ops}{} : {first_out}", dict(&attrs)),
        Op::Unpack => format!("unpack {ops}{} : {first_in}", dict(&attrs)),
        Op::Buffer { slots, kind, init } => {
            if let Some(v) = init {
                let w = first_out.bit_width();
                let vals: Vec<String> = v.iter().map(|x| signed(*x, w)).collect();
                attrs.insert("initValues".into(), format!("[{}]", vals.join(", ")));
            }
            format!(
                "buffer [{slots}] {} {ops}{} : {first_out}",
                kind.keyword(),
                dict(&attrs)
            )
        }
        Op::DynBuffer { kind, slots } => format!(
            "dyn_buffer [{slots}] {} {ops}{} : {first_out}",
            kind.name(),
            dict(&attrs)
        ),
        Op::DynPipeline { latency } => {
            format!(
                "dyn_pipeline [{latency}] {ops}{} : {first_out}",
                dict(&attrs)
            )
        }
        Op::DynCounterBuffer { latency } => {
            format!(
                "dyn_counter_buffer [{latency}] {ops}{} : {first_out}",
                dict(&attrs)
            )
        }
        Op::DynSelect => format!("dyn_select {ops}{} : {first_out}", dict(&attrs)),
        Op::DynControlMerge => {
            let idx = out_t.get(1).cloned().unwrap_or(Type::Index);
            format!(
                "dyn_control_merge {ops}{} : {first_out}, {idx}",
                dict(&attrs)
            )
        }
        Op::Pipeline { latency, ii } => {
            if *ii != 1 {
                attrs.insert("ii".into(), format!("{ii} : i32"));
            }
            format!("pipeline [{latency}] {ops}{} : {first_out}", dict(&attrs))
        }
        Op::Constant { value } => {
            let v = match &first_out {
                Type::Int(1) => if value & 1 == 1 { "true" } else { "false" }.to_string(),
                Type::Float(k) => format!("{} : {first_out}", float_literal(*value, *k)),
                t => format!("{} : {t}", signed(*value, t.bit_width())),
            };
            attrs.insert("value".into(), v);
            format!("constant {ops}{} : {first_out}", dict(&attrs))
        }
        Op::Source => format!("source{}", dict(&attrs)),
        Op::Never => format!("never{} : {first_out}", dict(&attrs)),
        Op::Load | Op::Store => {
            if attrs.is_empty() && ins.len() == 3 {
                format!(
                    "{} [{}] {}, {} : {}, {}",
                    node.op.mnemonic(),
                    ins[0],
                    ins[1],
                    ins[2],
                    in_t[0],
                    in_t[1]
                )
            } else {
                // The custom form of load/store has no attribute dictionary.
                format!(
                    "\"handshake.{}\"({ops}){} : {}",
                    node.op.mnemonic(),
                    dict(&attrs),
                    fn_type(&in_t, &out_t)
                )
            }
        }
        Op::Memory {
            ld,
            st,
            id,
            memref,
            lsq,
        } => {
            attrs.insert("id".into(), format!("{id} : i32"));
            attrs.insert("lsq".into(), lsq.to_string());
            format!(
                "memory[ld = {ld}, st = {st}] ({ops}){} : {memref}, {}",
                dict(&attrs),
                fn_type(&in_t, &out_t)
            )
        }
        Op::ExtMemory {
            ld,
            st,
            id,
            memref_arg,
            memref,
        } => {
            attrs.insert("id".into(), format!("{id} : i32"));
            let mem = names
                .memref
                .get(memref_arg)
                .map_or_else(|| "%undefined".to_string(), |n| format!("%{n}"));
            format!(
                "extmemory[ld = {ld}, st = {st}] ({mem} : {memref}) ({ops}){} : {}",
                dict(&attrs),
                fn_type(&in_t, &out_t)
            )
        }
        Op::DynMemController {
            ctrl,
            ld,
            st,
            memref_arg,
            memref,
        } => {
            let mem = names
                .memref
                .get(memref_arg)
                .map_or_else(|| "%undefined".to_string(), |n| format!("%{n}"));
            format!(
                "dyn_mem_controller[ctrl = {ctrl}, ld = {ld}, st = {st}] ({mem} : {memref}) ({ops}){} : {}",
                dict(&attrs),
                fn_type(&in_t, &out_t)
            )
        }
        Op::DynLsq {
            shape,
            memref_arg,
            memref,
        } => {
            let head = format!(
                "groups = \"{}\", ldq = {}, stq = {}{}",
                shape.groups_text(),
                shape.load_depth,
                shape.store_depth,
                if shape.end_once { ", end_once" } else { "" }
            );
            match (memref, memref_arg) {
                (Some(memref), Some(arg)) => {
                    let mem = names
                        .memref
                        .get(arg)
                        .map_or_else(|| "%undefined".to_string(), |n| format!("%{n}"));
                    format!(
                        "dyn_lsq[{head}] ({mem} : {memref}) ({ops}){} : {}",
                        dict(&attrs),
                        fn_type(&in_t, &out_t)
                    )
                }
                _ => format!(
                    "dyn_lsq[slave, {head}] ({ops}){} : {}",
                    dict(&attrs),
                    fn_type(&in_t, &out_t)
                ),
            }
        }
        Op::AddrQueue { ld, st, depth } => format!(
            "addr_queue[ld = {ld}, st = {st}, depth = {depth}] ({ops}){} : {}",
            dict(&attrs),
            fn_type(&in_t, &out_t)
        ),
        Op::DynLoad | Op::DynStore => format!(
            "{} {ops}{} : {}",
            node.op.mnemonic(),
            dict(&attrs),
            types(&in_t)
        ),
        Op::Instance { callee } => format!(
            "instance {}({ops}){} : {}",
            symbol(callee),
            dict(&attrs),
            fn_type(&in_t, &out_t)
        ),
        Op::Return => {
            if ins.is_empty() {
                format!("return{}", dict(&attrs))
            } else {
                format!("return{} {ops} : {}", dict(&attrs), types(&in_t))
            }
        }
        Op::Arith(a) => arith_text(*a, &ops, &dict(&attrs), &in_t, &first_out),
    };
    format!("{results}{body}{loc}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitizes_names() {
        assert_eq!(sanitize("fork0.out1"), "fork0_out1");
        assert_eq!(sanitize("0"), "0");
        assert_eq!(sanitize("3a"), "v3a");
        assert_eq!(sanitize("a b"), "a_b");
        assert_eq!(sanitize(""), "v");
        assert_eq!(signed(0xFF, 8), "-1");
        assert_eq!(signed(5, 32), "5");
        assert_eq!(signed(u64::MAX, 64), "-1");
        let minus_two = handscope_sim::wide::parse("-2", 200).unwrap();
        assert_eq!(signed(minus_two, 200), "-2");
        assert_eq!(quote("a\"b"), "\"a\\\"b\"");
        assert_eq!(symbol("f"), "@f");
        assert_eq!(symbol("my func"), "@\"my func\"");
        use handscope_sim::FloatKind::{F32, F64};
        assert_eq!(float_literal(0x3fc0_0000, F32), "1.5");
        assert_eq!(float_literal(0x8000_0000, F32), "-0.0");
        assert_eq!(float_literal(1e300f64.to_bits(), F64), "1.0e300");
        assert_eq!(float_literal(0x7fc0_0000, F32), "0x7FC00000");
        assert_eq!(
            float_literal(0xfff0_0000_0000_0000, F64),
            "0xFFF0000000000000"
        );
        assert_eq!(float_literal(100f64.to_bits(), F64), "100.0");
    }
}
