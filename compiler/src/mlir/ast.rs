//! Parsed-but-unresolved form of an MLIR file: what the parser hands to the graph builder.

use std::collections::HashMap;

use handscope_sim::{MemRefType, Op, Type};

use super::diag::Span;

/// A parsed type.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum PType {
    /// A channel type the model supports.
    Chan(Type),
    /// A `memref<...>`.
    MemRef(MemRefType),
    /// A function type `(...) -> (...)`.
    Func(Vec<SType>, Vec<SType>),
    /// Syntactically valid but unsupported; the string says why.
    Other(String),
}

/// A type with its source span.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SType {
    pub(crate) ty: PType,
    pub(crate) span: Span,
}

/// A location expression, before `#alias` resolution.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum LocExpr {
    /// `"file":line:col` (optionally `to line:col`).
    File {
        file: String,
        line: u32,
        col: u32,
        end: Option<(u32, u32)>,
    },
    /// `unknown`
    Unknown,
    /// `#loc3`
    Alias(String, Span),
    /// `fused[...]`
    Fused(Vec<LocExpr>),
    /// `"name"(child)` or `"name"`
    Named(Option<Box<LocExpr>>),
    /// `callsite(callee at caller)`
    CallSite(Box<LocExpr>, Box<LocExpr>),
}

/// A parsed attribute value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum AttrValue {
    /// Integer with optional type (`-5 : i32`).
    Int { value: i128, ty: Option<SType> },
    /// Integer too large for [`AttrValue::Int`] (a constant of a wide type): its text with
    /// its sign, as written, and optional type.
    BigInt { text: String, ty: Option<SType> },
    /// Float literal with optional type (`-1.5e3 : f32`), the text as written with its sign.
    Float { text: String, ty: Option<SType> },
    /// `true` / `false`
    Bool(bool),
    /// String literal.
    Str(String),
    /// `[...]`
    Array(Vec<(AttrValue, Span)>),
    /// `{...}`
    Dict(Vec<Attr>),
    /// A type used as an attribute.
    Type(SType),
    /// `@sym`
    Symbol(String),
    /// `#dialect<body>`: the dialect name and the words inside the brackets.
    DialectAttr { dialect: String, words: Vec<String> },
    /// No value (`{foo}`).
    Unit,
    /// Anything else, kept only as raw text.
    Other,
}

/// One `name = value` entry of an attribute dictionary.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Attr {
    pub(crate) name: String,
    pub(crate) name_span: Span,
    pub(crate) value: AttrValue,
    pub(crate) value_span: Span,
    /// The value exactly as written (empty for unit attributes).
    pub(crate) raw: String,
}

/// A use of an SSA value: `%name` or `%name#k`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ValueUse {
    pub(crate) name: String,
    pub(crate) index: u32,
    pub(crate) span: Span,
}

/// A result definition: `%name` or `%name:count`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ResultGroup {
    pub(crate) name: String,
    pub(crate) count: u32,
    pub(crate) span: Span,
}

/// An operation inside a function body, normalized across custom and generic forms.
#[derive(Clone, Debug)]
pub(crate) struct OpSpec {
    pub(crate) op: Op,
    /// Operands with the type the op's annotation declares for each.
    pub(crate) operands: Vec<(ValueUse, SType)>,
    pub(crate) results: Vec<Type>,
    pub(crate) result_groups: Vec<ResultGroup>,
    /// Span of all result definitions (for count errors).
    pub(crate) results_span: Span,
    /// Attributes not consumed by the op syntax itself.
    pub(crate) attrs: Vec<Attr>,
    pub(crate) loc: Option<LocExpr>,
    /// Span of the op name.
    pub(crate) name_span: Span,
    /// Span of the entire op.
    pub(crate) span: Span,
}

/// A function argument as written.
#[derive(Clone, Debug)]
pub(crate) struct ArgAst {
    pub(crate) ssa: Option<(String, Span)>,
    pub(crate) ty: SType,
    pub(crate) loc: Option<LocExpr>,
}

/// A parsed `handshake.func`.
#[derive(Clone, Debug)]
pub(crate) struct FuncAst {
    pub(crate) name: String,
    pub(crate) name_span: Span,
    pub(crate) args: Vec<ArgAst>,
    pub(crate) results: Vec<SType>,
    pub(crate) attrs: Vec<Attr>,
    /// `None` for an external declaration.
    pub(crate) body: Option<Vec<OpSpec>>,
    /// Span of the closing brace of the body (or of the name when external).
    pub(crate) body_end: Span,
    pub(crate) loc: Option<LocExpr>,
}

/// A parsed file.
#[derive(Clone, Debug, Default)]
pub(crate) struct FileAst {
    pub(crate) funcs: Vec<FuncAst>,
    pub(crate) loc_aliases: HashMap<String, (LocExpr, Span)>,
    /// `handshake.esi_instance`s found inside `hw.module`s.
    pub(crate) esi_instances: Vec<EsiInstance>,
}

/// A `handshake.esi_instance @callee "name" ...` inside an `hw.module`: the module itself is
/// not simulated, the handshake function it instantiates is.
#[derive(Clone, Debug)]
pub(crate) struct EsiInstance {
    /// The enclosing `hw.module`.
    pub(crate) module: String,
    /// The instantiated `handshake.func`.
    pub(crate) callee: String,
    /// The instance name, if given.
    pub(crate) instance: Option<String>,
    /// Span of the callee symbol.
    pub(crate) span: Span,
}
