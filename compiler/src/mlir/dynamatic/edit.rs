//! Writing Dynamatic's dialect: a file as it was read, with Handscope's buffer changes put
//! into its text.
//!
//! Dynamatic's files carry attributes Handscope does not model (`handshake.bufProps`,
//! drawing hints, `fastmath`, the eras' own spellings), and Dynamatic's flow needs every one
//! of them back. So the writer does not print the tree again: it edits the text where a
//! change falls and leaves every other byte as it was. A buffer that grows gets its kind and
//! slot count rewritten in the syntax that buffer was written in; a new buffer is a new op
//! line in the syntax of the file's other buffers, and the uses of the value it buffers read
//! its result instead.

use std::collections::HashSet;

use handscope_sim::{DynBufferKind, Function, Op};

use super::ast::{BufferForm, BufferType, DynFunc, DynModule, DynType, OpParams};
use super::era::Era;
use super::kinds::DynOpKind;
use super::lower::SourceNames;
use crate::mlir::Span;

/// One buffer change to write into a Dynamatic file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BufferEdit {
    /// An existing buffer op gets a new kind and slot count.
    Resize {
        /// The function.
        func: String,
        /// The op's index in the function body ([`DynFunc::ops`]).
        op: usize,
        /// Its new kind.
        kind: BufferType,
        /// Its new slot count.
        slots: u32,
    },
    /// A new buffer on an SSA value: every use of the value reads the buffer instead.
    Insert {
        /// The function.
        func: String,
        /// The buffered value (name without `%`, result number).
        value: (String, u32),
        /// The new op's `handshake.name`.
        name: String,
        /// Its basic block (`handshake.bb`), when known.
        bb: Option<u32>,
        /// Its kind.
        kind: BufferType,
        /// Its slot count.
        slots: u32,
    },
}

/// Why a change cannot be written into the file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// The module has no function of that name.
    #[error("the file has no function `@{0}`")]
    NoFunction(String),
    /// A changed node or channel has no counterpart in the file.
    #[error("`{0}` has no counterpart in the Dynamatic file")]
    NotInFile(String),
    /// The change is not one a Dynamatic buffer can express.
    #[error("{0}")]
    Unsupported(String),
}

/// The buffer edits that turn `orig` (lowered from the file, its names in `names`) into
/// `tuned`: buffers of `orig` whose kind or slots changed, and buffers `tuned` adds on a
/// channel of `orig`.
pub fn buffer_edits(
    orig: &Function,
    tuned: &Function,
    names: &SourceNames,
    file: &DynFunc,
) -> Result<Vec<BufferEdit>, EditError> {
    let mut edits = Vec::new();
    for (_, node) in tuned.nodes.iter() {
        let Op::DynBuffer { kind, slots } = node.op else {
            if orig.node_by_id(&node.id).is_none() {
                return Err(EditError::Unsupported(format!(
                    "`{}` is a new component, not a buffer",
                    node.id
                )));
            }
            continue;
        };
        let kind = file_kind(kind);
        match orig.node_by_id(&node.id) {
            Some(o) => {
                if orig.nodes[o].op == node.op {
                    continue;
                }
                let op = *names
                    .ops
                    .get(&node.id)
                    .ok_or_else(|| EditError::NotInFile(node.id.clone()))?;
                edits.push(BufferEdit::Resize {
                    func: file.name.clone(),
                    op,
                    kind,
                    slots,
                });
            }
            None => {
                let input = node
                    .inputs
                    .first()
                    .ok_or_else(|| EditError::Unsupported(format!("`{}` has no input", node.id)))?;
                let channel = &tuned.channels[*input].name;
                let value = names.values.get(channel).cloned().ok_or_else(|| {
                    EditError::Unsupported(format!(
                        "`{}` buffers `{channel}`, a channel inside a multi-cycle unit, which \
                         Dynamatic's files cannot buffer",
                        node.id
                    ))
                })?;
                let bb = node
                    .block
                    .as_deref()
                    .and_then(|b| b.strip_prefix("bb"))
                    .and_then(|n| n.parse().ok());
                edits.push(BufferEdit::Insert {
                    func: file.name.clone(),
                    value,
                    name: node.id.clone(),
                    bb,
                    kind,
                    slots,
                });
            }
        }
    }
    Ok(edits)
}

/// The file's buffer kind of a simulated one (the simulator's kinds are a subset).
fn file_kind(k: DynBufferKind) -> BufferType {
    match k {
        DynBufferKind::OneSlotBreakDv => BufferType::OneSlotBreakDv,
        DynBufferKind::OneSlotBreakR => BufferType::OneSlotBreakR,
        DynBufferKind::FifoBreakNone => BufferType::FifoBreakNone,
        DynBufferKind::FifoBreakDv => BufferType::FifoBreakDv,
        DynBufferKind::OneSlotBreakDvr => BufferType::OneSlotBreakDvr,
    }
}

/// `source` (parsed into `m`) with `edits` written into its text. Bytes outside the edited
/// places are kept as they are.
pub fn write_edited(
    source: &str,
    m: &DynModule,
    edits: &[BufferEdit],
) -> Result<String, EditError> {
    let mut splices: Vec<(usize, usize, String)> = Vec::new();
    for e in edits {
        match e {
            BufferEdit::Resize {
                func,
                op,
                kind,
                slots,
            } => {
                let f = find_func(m, func)?;
                let op = f
                    .ops
                    .get(*op)
                    .ok_or_else(|| EditError::NotInFile(format!("op {op} of @{func}")))?;
                let OpParams::Buffer(p) = &op.params else {
                    return Err(EditError::Unsupported(format!(
                        "`{}` is not a buffer",
                        op.name.as_deref().unwrap_or(&op.mnemonic)
                    )));
                };
                resize_splices(source, op.span, p.form, *kind, *slots, &mut splices)?;
            }
            BufferEdit::Insert {
                func,
                value,
                name,
                bb,
                kind,
                slots,
            } => {
                let f = find_func(m, func)?;
                insert_splices(
                    source,
                    m.era,
                    f,
                    value,
                    NewBuffer {
                        name,
                        bb: *bb,
                        kind: *kind,
                        slots: *slots,
                    },
                    &mut splices,
                )?;
            }
        }
    }
    splices.sort_by_key(|s| (s.0, s.1));
    for w in splices.windows(2) {
        if w[0].1 > w[1].0 {
            return Err(EditError::Unsupported(
                "two changes fall on the same text".into(),
            ));
        }
    }
    let mut out = String::with_capacity(source.len() + 256 * splices.len());
    let mut at = 0;
    for (start, end, text) in splices {
        out.push_str(&source[at..start]);
        out.push_str(&text);
        at = end;
    }
    out.push_str(&source[at..]);
    Ok(out)
}

fn find_func<'m>(m: &'m DynModule, name: &str) -> Result<&'m DynFunc, EditError> {
    m.funcs
        .iter()
        .find(|f| f.name == name)
        .ok_or_else(|| EditError::NoFunction(name.to_string()))
}

/// A buffer to write as a new op.
struct NewBuffer<'a> {
    name: &'a str,
    bb: Option<u32>,
    kind: BufferType,
    slots: u32,
}

/// The `TIMING` of E2/E3's `hw.parameters` for a kind: the cuts the reader derives the kind
/// from (`D`/`V` cut: the DV kinds; `R` cut alone with one slot: `ONE_SLOT_BREAK_R`; a
/// multi-slot FIFO without D/V cut is the transparent FIFO, printed with `R: 1` as
/// Dynamatic's E2 flow does).
fn timing_text(kind: BufferType, slots: u32) -> &'static str {
    match kind {
        BufferType::OneSlotBreakDv | BufferType::FifoBreakDv | BufferType::ShiftRegBreakDv => {
            "#handshake<timing {D: 1, V: 1, R: 0}>"
        }
        BufferType::OneSlotBreakR => "#handshake<timing {D: 0, V: 0, R: 1}>",
        BufferType::OneSlotBreakDvr => "#handshake<timing {D: 1, V: 1, R: 1}>",
        BufferType::FifoBreakNone if slots > 1 => "#handshake<timing {D: 0, V: 0, R: 1}>",
        BufferType::FifoBreakNone | BufferType::CounterBuffer => {
            "#handshake<timing {D: 0, V: 0, R: 0}>"
        }
    }
}

/// The `dvLatency` Dynamatic's E5 builder prints for a kind: its data/valid latency (one
/// for the DV-cutting register and FIFO, the slot count for the shift register, none for the
/// others; a counter buffer keeps what it was given).
fn dv_latency(kind: BufferType, slots: u32) -> u32 {
    match kind {
        BufferType::OneSlotBreakDv | BufferType::OneSlotBreakDvr | BufferType::FifoBreakDv => 1,
        BufferType::ShiftRegBreakDv => slots,
        BufferType::OneSlotBreakR | BufferType::FifoBreakNone | BufferType::CounterBuffer => 0,
    }
}

/// The splices that rewrite the kind and slots of the buffer op at `span`.
fn resize_splices(
    source: &str,
    span: Span,
    form: BufferForm,
    kind: BufferType,
    slots: u32,
    splices: &mut Vec<(usize, usize, String)>,
) -> Result<(), EditError> {
    let op_text = &source[span.start..span.end];
    let mut set = |key: &str, value: String| -> Result<(), EditError> {
        let (s, e) = value_range(op_text, key).ok_or_else(|| {
            EditError::Unsupported(format!(
                "the buffer at byte {} has no `{key}` to rewrite",
                span.start
            ))
        })?;
        splices.push((span.start + s, span.start + e, value));
        Ok(())
    };
    match form {
        BufferForm::Keywords => {
            set("bufferType", kind.keyword().to_string())?;
            set("numSlots", slots.to_string())?;
            if value_range(op_text, "dvLatency").is_some() {
                set("dvLatency", dv_latency(kind, slots).to_string())?;
            }
        }
        BufferForm::HwParametersWithType | BufferForm::HwParametersTiming => {
            if form == BufferForm::HwParametersWithType {
                set("BUFFER_TYPE", format!("\"{}\"", kind.keyword()))?;
            }
            set("NUM_SLOTS", format!("{slots} : ui32"))?;
            set("TIMING", timing_text(kind, slots).to_string())?;
        }
    }
    Ok(())
}

/// Where the value of `key = value` is written in `text`: from after `= ` to the next `,`
/// or `}` at the same nesting depth (or, for the keyword form, the next space or `{`).
fn value_range(text: &str, key: &str) -> Option<(usize, usize)> {
    let mut from = 0;
    let at = loop {
        let i = from + text[from..].find(key)?;
        let before_ok = i == 0
            || !text.as_bytes()[i - 1].is_ascii_alphanumeric() && text.as_bytes()[i - 1] != b'_';
        let rest = text[i + key.len()..].trim_start();
        if before_ok && rest.starts_with('=') {
            break i + key.len();
        }
        from = i + key.len();
    };
    let eq = at + text[at..].find('=')? + 1;
    let start = eq + (text[eq..].len() - text[eq..].trim_start().len());
    let mut depth = 0i32;
    let mut in_str = false;
    for (k, c) in text[start..].char_indices() {
        match c {
            '"' => in_str = !in_str,
            _ if in_str => {}
            '<' | '{' | '[' | '(' => depth += 1,
            '>' | ']' | ')' if depth > 0 => depth -= 1,
            '}' if depth > 0 => depth -= 1,
            ',' | '}' if depth == 0 => {
                let value = text[start..start + k].trim_end();
                return Some((start, start + value.len()));
            }
            ' ' | '\n' | '\t' if depth == 0 && key.chars().any(|c| c.is_lowercase()) => {
                return Some((start, start + k));
            }
            _ => {}
        }
    }
    Some((start, text.len()))
}

/// The splices that add a buffer op on `value` and make the value's uses read it.
fn insert_splices(
    source: &str,
    era: Era,
    f: &DynFunc,
    value: &(String, u32),
    b: NewBuffer<'_>,
    splices: &mut Vec<(usize, usize, String)>,
) -> Result<(), EditError> {
    let ty = value_type(f, value)
        .ok_or_else(|| EditError::NotInFile(format!("%{}#{}", value.0, value.1)))?;
    let ty = inline_type(&ty)?;
    let result = fresh_ssa_name(f, b.name);
    // Uses: every operand that names the value.
    let mut first_use: Option<usize> = None;
    for (i, op) in f.ops.iter().enumerate() {
        for v in &op.operands {
            if v.name == value.0 && v.index == value.1 {
                splices.push((v.span.start, v.span.end, format!("%{result}")));
                first_use.get_or_insert(i);
            }
        }
    }
    let Some(first_use) = first_use else {
        return Err(EditError::Unsupported(format!(
            "%{} is not used by any op",
            value.0
        )));
    };
    // The new op goes on its own line before the first use, indented like it.
    let use_op = &f.ops[first_use];
    let line_start = source[..use_op.span.start].rfind('\n').map_or(0, |i| i + 1);
    let indent: String = source[line_start..use_op.span.start]
        .chars()
        .take_while(|c| c.is_whitespace())
        .collect();
    let operand = if value.1 == 0 && produces_one(f, &value.0) {
        format!("%{}", value.0)
    } else {
        format!("%{}#{}", value.0, value.1)
    };
    let mut attrs = Vec::new();
    if let Some(bb) = b.bb {
        attrs.push(format!("handshake.bb = {bb} : ui32"));
    }
    attrs.push(format!("handshake.name = \"{}\"", b.name));
    let form = file_buffer_form(f, era);
    let line = match form {
        BufferForm::Keywords => format!(
            "%{result} = buffer {operand}, bufferType = {}, numSlots = {}{} {{{}}} : {ty}",
            b.kind.keyword(),
            b.slots,
            if era >= Era::E5 {
                format!(", dvLatency = {}", dv_latency(b.kind, b.slots))
            } else {
                String::new()
            },
            attrs.join(", ")
        ),
        BufferForm::HwParametersWithType | BufferForm::HwParametersTiming => {
            let kind = if form == BufferForm::HwParametersWithType {
                format!("BUFFER_TYPE = \"{}\", ", b.kind.keyword())
            } else {
                String::new()
            };
            attrs.push(format!(
                "hw.parameters = {{{kind}NUM_SLOTS = {} : ui32, TIMING = {}}}",
                b.slots,
                timing_text(b.kind, b.slots)
            ));
            format!(
                "%{result} = buffer {operand} {{{}}} : {ty}",
                attrs.join(", ")
            )
        }
    };
    splices.push((line_start, line_start, format!("{indent}{line}\n")));
    Ok(())
}

/// The buffer syntax of the function's buffers. A function without buffers gets E2's
/// `hw.parameters` in an E2 file; otherwise the keyword form: the forms that decide E3 (its
/// `mux`, `load`, `store`) are printed by E4 and E5 too, and the keyword syntax is what
/// Dynamatic reads today.
fn file_buffer_form(f: &DynFunc, era: Era) -> BufferForm {
    f.ops
        .iter()
        .find_map(|op| match &op.params {
            OpParams::Buffer(p) => Some(p.form),
            _ => None,
        })
        .unwrap_or(match era {
            Era::E2 => BufferForm::HwParametersTiming,
            Era::E3 | Era::E4 | Era::E5 => BufferForm::Keywords,
        })
}

/// Whether the SSA name `name` is an argument or a one-result group (used without `#k`).
fn produces_one(f: &DynFunc, name: &str) -> bool {
    f.args.iter().any(|a| a.ssa == name)
        || f.ops
            .iter()
            .flat_map(|op| &op.results)
            .any(|r| r.name == name && r.count == 1)
}

/// The declared type of `value`: an argument's, or its producer's result type (a memory
/// controller's unlisted last result, `memEnd`, is a control).
fn value_type(f: &DynFunc, value: &(String, u32)) -> Option<DynType> {
    if let Some(a) = f.args.iter().find(|a| a.ssa == value.0) {
        return Some(a.ty.clone());
    }
    for op in &f.ops {
        let mut k = 0u32;
        for g in &op.results {
            if g.name == value.0 {
                let i = (k + value.1) as usize;
                return op.out_types.get(i).cloned().or_else(|| {
                    (op.kind == DynOpKind::MemController && i == op.out_types.len())
                        .then(|| DynType::Control { extra: Vec::new() })
                });
            }
            k += g.count;
        }
    }
    None
}

/// A channel or control type as ops print it: `<i32>`, `<>`.
fn inline_type(t: &DynType) -> Result<String, EditError> {
    if t.has_extra_signals() {
        return Err(EditError::Unsupported(
            "buffering a channel with extra signals".into(),
        ));
    }
    match t {
        DynType::Channel { data, .. } => Ok(format!("<{data}>")),
        DynType::Control { .. } => Ok("<>".into()),
        DynType::MemRef(_) => Err(EditError::Unsupported("buffering a memref".into())),
    }
}

/// An SSA name for the new op's result, `name` unless the function already uses it.
fn fresh_ssa_name(f: &DynFunc, name: &str) -> String {
    let taken: HashSet<&str> = f
        .args
        .iter()
        .map(|a| a.ssa.as_str())
        .chain(
            f.ops
                .iter()
                .flat_map(|op| op.results.iter().map(|r| r.name.as_str())),
        )
        .collect();
    let ok = |s: &str| {
        !taken.contains(s)
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !s.is_empty()
    };
    if ok(name) {
        return name.to_string();
    }
    (0..)
        .map(|k| format!("handscope_buffer{k}"))
        .find(|s| ok(s))
        .unwrap_or_default()
}

/// One node as a written file must give it back: its ID, its op (debug-printed) and the
/// names of its input channels.
pub type NodeShape = (String, String, Vec<String>);

/// Every node of `f` as [`NodeShape`]s, sorted: two functions with equal shapes are the same
/// graph under the same names, which is what a file written from a tuned graph must read back
/// as.
pub fn graph_shape(f: &Function) -> Vec<NodeShape> {
    let mut v: Vec<NodeShape> = f
        .nodes
        .values()
        .map(|n| {
            (
                n.id.clone(),
                format!("{:?}", n.op),
                n.inputs
                    .iter()
                    .map(|&c| f.channels[c].name.clone())
                    .collect(),
            )
        })
        .collect();
    v.sort();
    v
}
