//! The typed tree of a Stream-dialect file: functions of stream operators whose bodies are
//! resolved to numbered values, with every type checked and every position kept.

use handscope_sim::{ArithOp, CmpPredicate, Type};

use crate::mlir::Span;

/// A parsed Stream-dialect file.
#[derive(Clone, Debug)]
pub struct StreamModule {
    /// The file name errors and locations name.
    pub file: String,
    /// Functions in textual order.
    pub funcs: Vec<StreamFunc>,
}

/// A `func.func` over streams.
#[derive(Clone, Debug)]
pub struct StreamFunc {
    /// Symbol name without `@`.
    pub name: String,
    /// Stream arguments: the SSA name without `%`, and the element type.
    pub args: Vec<(String, Type)>,
    /// Element types of the results.
    pub results: Vec<Type>,
    /// Names of the results (the returned value's name when it is unique, else `out<i>`).
    pub result_names: Vec<String>,
    /// Element type of every stream value of the function, by [`StreamVal`] index; the
    /// arguments come first.
    pub values: Vec<Type>,
    /// The operators in textual order.
    pub ops: Vec<StreamOp>,
    /// The streams returned, in result order.
    pub returns: Vec<StreamVal>,
    /// Line and column of `func.func`.
    pub pos: (u32, u32),
}

/// A stream value of a function (an argument or an operator's result).
pub type StreamVal = usize;

/// What a stream operator does.
#[derive(Clone, Debug, PartialEq)]
pub enum StreamOpKind {
    /// `stream.map`: one input, one output element per input element.
    Map,
    /// `stream.filter`: the body decides (`i1`) whether an element passes.
    Filter,
    /// `stream.reduce` with its `initValue`: the body folds elements into an accumulator,
    /// emitted when the input ends.
    Reduce {
        /// The accumulator's value at the start of every stream.
        init: u64,
    },
    /// `stream.split`: one input, an element on every output per input element.
    Split,
    /// `stream.combine`: one element of every input makes one output element.
    Combine,
    /// `stream.create`: a stream of constant elements (the dialect's early form).
    Create {
        /// The elements, as words of the element type.
        elements: Vec<u64>,
    },
    /// `stream.sink`: consumes a stream.
    Sink,
}

impl StreamOpKind {
    /// The mnemonic (`map`, ...).
    pub fn mnemonic(&self) -> &'static str {
        match self {
            StreamOpKind::Map => "map",
            StreamOpKind::Filter => "filter",
            StreamOpKind::Reduce { .. } => "reduce",
            StreamOpKind::Split => "split",
            StreamOpKind::Combine => "combine",
            StreamOpKind::Create { .. } => "create",
            StreamOpKind::Sink => "sink",
        }
    }
}

/// One stream operator.
#[derive(Clone, Debug)]
pub struct StreamOp {
    /// What it does.
    pub kind: StreamOpKind,
    /// Its name in the circuit: the mnemonic and a count per mnemonic (`map0`, `reduce1`).
    pub id: String,
    /// Input streams.
    pub inputs: Vec<StreamVal>,
    /// Output streams.
    pub outputs: Vec<StreamVal>,
    /// Registers: initial value (a word of the type) and type.
    pub registers: Vec<(u64, Type)>,
    /// The body (absent for `create` and `sink`).
    pub body: Option<Body>,
    /// Line and column of the op's name.
    pub pos: (u32, u32),
    /// Span of the op's name.
    pub span: Span,
}

/// A body value, numbered in definition order; the block arguments come first.
pub type BodyVal = usize;

/// The region of a stream operator: one block, or several joined by branches (`cfg`).
#[derive(Clone, Debug)]
pub struct Body {
    /// Types of every value, by [`BodyVal`].
    pub types: Vec<Type>,
    /// Number of block arguments (elements, accumulator, registers).
    pub n_args: usize,
    /// The operations in order (a body of one block).
    pub ops: Vec<BodyOp>,
    /// Operands of `stream.yield`: outputs (or accumulator, or predicate), then the
    /// registers' next values (a body of one block).
    pub yields: Vec<BodyVal>,
    /// A body of several blocks (`cf.br`, `cf.cond_br`): the blocks, the entry first;
    /// `ops` and `yields` are then empty.
    pub cfg: Option<Vec<CfgBlock>>,
}

/// One block of a body of several blocks.
#[derive(Clone, Debug)]
pub struct CfgBlock {
    /// Its arguments (the entry block's are the body's).
    pub params: Vec<BodyVal>,
    /// Its operations.
    pub ops: Vec<BodyOp>,
    /// How it ends.
    pub term: Term,
    /// Line and column of its label.
    pub pos: (u32, u32),
}

/// How a block ends.
#[derive(Clone, Debug)]
pub enum Term {
    /// `stream.yield`: the body's results.
    Yield(Vec<BodyVal>),
    /// `cf.br`: to a block (by index), with its arguments.
    Br {
        /// Successor block.
        target: usize,
        /// Its arguments.
        args: Vec<BodyVal>,
    },
    /// `cf.cond_br`: on an `i1`.
    CondBr {
        /// Condition.
        cond: BodyVal,
        /// Successor when 1.
        t: usize,
        /// Its arguments.
        t_args: Vec<BodyVal>,
        /// Successor when 0.
        f: usize,
        /// Its arguments.
        f_args: Vec<BodyVal>,
    },
}

/// What a body operation computes.
#[derive(Clone, Debug, PartialEq)]
pub enum BodyOpKind {
    /// `arith.constant` (a word of the result type).
    Constant(u64),
    /// Any `arith` operation other than `constant`.
    Arith(ArithOp),
    /// `stream.pack`: a tuple of its operands.
    Pack,
    /// `stream.unpack`: a tuple's fields.
    Unpack,
}

/// One body operation.
#[derive(Clone, Debug)]
pub struct BodyOp {
    /// What it computes.
    pub kind: BodyOpKind,
    /// Operands.
    pub operands: Vec<BodyVal>,
    /// Results (consecutive values).
    pub results: Vec<BodyVal>,
    /// Line and column of the op's name.
    pub pos: (u32, u32),
}

impl BodyOpKind {
    /// The comparison predicate of a `cmpi`.
    pub fn predicate(&self) -> Option<CmpPredicate> {
        match self {
            BodyOpKind::Arith(ArithOp::Cmpi(p)) => Some(*p),
            _ => None,
        }
    }
}
