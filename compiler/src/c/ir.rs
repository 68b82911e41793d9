//! The middle-end IR: a CFG of basic blocks in SSA form with block arguments (instead of phi
//! nodes), exact fixed-width integer and IEEE-754 float operations in the style of MLIR's
//! `arith` and `math` dialects, and memories accessed by loads/stores threaded on one ordering
//! token chain per memory.

use super::span::Span;
use super::types::Scalar;
use handscope_sim::{CmpPredicate, FloatKind, FloatPredicate};
use std::fmt;

/// Index of a basic block; printed `bbN`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId(pub u32);
/// Index of an SSA value; printed `%N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ValueId(pub u32);
/// Index of a memory; printed `memN`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MemId(pub u32);

impl fmt::Display for BlockId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bb{}", self.0)
    }
}
impl fmt::Display for ValueId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{}", self.0)
    }
}
impl fmt::Display for MemId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "mem{}", self.0)
    }
}

/// Type of an SSA value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// Signless integer of the given width (1 to 64 bits, and up to 4096 for `_BitInt`).
    Int(u32),
    /// IEEE-754 float (`f32`, `f64`); values are the encodings.
    Float(FloatKind),
    /// Memory ordering token (no data).
    Token,
}

impl Type {
    /// Width in bits (0 for tokens).
    pub fn bits(self) -> u32 {
        match self {
            Type::Int(b) => b,
            Type::Float(k) => k.bits(),
            Type::Token => 0,
        }
    }

    /// The float format, for a float type.
    pub fn float(self) -> Option<FloatKind> {
        match self {
            Type::Float(k) => Some(k),
            Type::Int(_) | Type::Token => None,
        }
    }

    /// The IR type of values of the C type `t`.
    pub fn of(t: Scalar) -> Type {
        match t {
            Scalar::Int(i) => Type::Int(i.bits()),
            Scalar::Float(f) => Type::Float(f.kind()),
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Int(b) => write!(f, "i{b}"),
            Type::Float(k) => f.write_str(k.name()),
            Type::Token => f.write_str("token"),
        }
    }
}

/// Two-operand operations (operands and result have the same type): integer ones, then the
/// float ones (`addf` to `copysign`, on `f32`/`f64`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// Wrapping addition.
    AddI,
    /// Wrapping subtraction.
    SubI,
    /// Wrapping multiplication.
    MulI,
    /// Signed division (truncating).
    DivSI,
    /// Unsigned division.
    DivUI,
    /// Signed remainder (sign of the dividend).
    RemSI,
    /// Unsigned remainder.
    RemUI,
    /// Bitwise and.
    AndI,
    /// Bitwise or.
    OrI,
    /// Bitwise xor.
    XOrI,
    /// Shift left (amount < width).
    ShLI,
    /// Arithmetic shift right.
    ShRSI,
    /// Logical shift right.
    ShRUI,
    /// IEEE-754 addition.
    AddF,
    /// IEEE-754 subtraction.
    SubF,
    /// IEEE-754 multiplication.
    MulF,
    /// IEEE-754 division.
    DivF,
    /// C's `fmod` (`arith.remf`: exact, the dividend's sign).
    RemF,
    /// C's `fmax` (`arith.maxnumf`: a quiet NaN operand is ignored).
    MaxNumF,
    /// C's `fmin` (`arith.minnumf`).
    MinNumF,
    /// C's `copysign` (`math.copysign`).
    CopySign,
    /// A two-operand `<math.h>` function (`pow` as `math.powf`, `atan2`).
    Math(handscope_sim::math_fn::MathFn),
}

impl BinaryOp {
    /// Mnemonic as in MLIR's arith dialect.
    pub fn name(self) -> &'static str {
        match self {
            BinaryOp::AddI => "addi",
            BinaryOp::SubI => "subi",
            BinaryOp::MulI => "muli",
            BinaryOp::DivSI => "divsi",
            BinaryOp::DivUI => "divui",
            BinaryOp::RemSI => "remsi",
            BinaryOp::RemUI => "remui",
            BinaryOp::AndI => "andi",
            BinaryOp::OrI => "ori",
            BinaryOp::XOrI => "xori",
            BinaryOp::ShLI => "shli",
            BinaryOp::ShRSI => "shrsi",
            BinaryOp::ShRUI => "shrui",
            BinaryOp::AddF => "addf",
            BinaryOp::SubF => "subf",
            BinaryOp::MulF => "mulf",
            BinaryOp::DivF => "divf",
            BinaryOp::RemF => "remf",
            BinaryOp::MaxNumF => "maxnumf",
            BinaryOp::MinNumF => "minnumf",
            BinaryOp::CopySign => "copysign",
            BinaryOp::Math(f) => f.mnemonic(),
        }
    }

    /// True for the float operations.
    pub fn is_float(self) -> bool {
        match self {
            BinaryOp::AddF
            | BinaryOp::SubF
            | BinaryOp::MulF
            | BinaryOp::DivF
            | BinaryOp::RemF
            | BinaryOp::MaxNumF
            | BinaryOp::MinNumF
            | BinaryOp::CopySign
            | BinaryOp::Math(_) => true,
            BinaryOp::AddI
            | BinaryOp::SubI
            | BinaryOp::MulI
            | BinaryOp::DivSI
            | BinaryOp::DivUI
            | BinaryOp::RemSI
            | BinaryOp::RemUI
            | BinaryOp::AndI
            | BinaryOp::OrI
            | BinaryOp::XOrI
            | BinaryOp::ShLI
            | BinaryOp::ShRSI
            | BinaryOp::ShRUI => false,
        }
    }
}

/// One-operand float operations (operand and result have the same type).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// Flips the sign bit (C's unary `-` on a float).
    NegF,
    /// C's `fabs` (`math.absf`).
    AbsF,
    /// C's `sqrt` (`math.sqrt`).
    Sqrt,
    /// A one-operand `<math.h>` function (`exp` as `math.exp`, `floor` as `math.floor`).
    Math(handscope_sim::math_fn::MathFn),
}

impl UnaryOp {
    /// Mnemonic as in MLIR.
    pub fn name(self) -> &'static str {
        match self {
            UnaryOp::NegF => "negf",
            UnaryOp::AbsF => "absf",
            UnaryOp::Sqrt => "sqrt",
            UnaryOp::Math(f) => f.mnemonic(),
        }
    }
}

/// Comparison predicates (as `arith.cmpi`, and `arith.cmpf` for floats).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpPred {
    /// Equal.
    Eq,
    /// Not equal.
    Ne,
    /// Signed less than.
    Slt,
    /// Signed less or equal.
    Sle,
    /// Signed greater than.
    Sgt,
    /// Signed greater or equal.
    Sge,
    /// Unsigned less than.
    Ult,
    /// Unsigned less or equal.
    Ule,
    /// Unsigned greater than.
    Ugt,
    /// Unsigned greater or equal.
    Uge,
    /// A float comparison (`cmpf`) with this predicate.
    Float(FloatPredicate),
}

impl CmpPred {
    /// The predicate: `arith.cmpi`'s for an integer comparison, `arith.cmpf`'s for a float one.
    pub fn predicate(self) -> Result<CmpPredicate, FloatPredicate> {
        Ok(match self {
            CmpPred::Eq => CmpPredicate::Eq,
            CmpPred::Ne => CmpPredicate::Ne,
            CmpPred::Slt => CmpPredicate::Slt,
            CmpPred::Sle => CmpPredicate::Sle,
            CmpPred::Sgt => CmpPredicate::Sgt,
            CmpPred::Sge => CmpPredicate::Sge,
            CmpPred::Ult => CmpPredicate::Ult,
            CmpPred::Ule => CmpPredicate::Ule,
            CmpPred::Ugt => CmpPredicate::Ugt,
            CmpPred::Uge => CmpPredicate::Uge,
            CmpPred::Float(f) => return Err(f),
        })
    }

    /// Mnemonic as in MLIR's arith dialect.
    pub fn name(self) -> &'static str {
        match self {
            CmpPred::Eq => "eq",
            CmpPred::Ne => "ne",
            CmpPred::Slt => "slt",
            CmpPred::Sle => "sle",
            CmpPred::Sgt => "sgt",
            CmpPred::Sge => "sge",
            CmpPred::Ult => "ult",
            CmpPred::Ule => "ule",
            CmpPred::Ugt => "ugt",
            CmpPred::Uge => "uge",
            CmpPred::Float(p) => p.keyword(),
        }
    }

    /// The predicate with the opposite truth value.
    pub fn negate(self) -> CmpPred {
        match self {
            CmpPred::Eq => CmpPred::Ne,
            CmpPred::Ne => CmpPred::Eq,
            CmpPred::Slt => CmpPred::Sge,
            CmpPred::Sle => CmpPred::Sgt,
            CmpPred::Sgt => CmpPred::Sle,
            CmpPred::Sge => CmpPred::Slt,
            CmpPred::Ult => CmpPred::Uge,
            CmpPred::Ule => CmpPred::Ugt,
            CmpPred::Ugt => CmpPred::Ule,
            CmpPred::Uge => CmpPred::Ult,
            // MLIR's enum lists the 16 predicates so that `p` and `15 - p` are complements.
            CmpPred::Float(p) => {
                let i = FloatPredicate::ALL
                    .iter()
                    .position(|q| *q == p)
                    .unwrap_or(0);
                CmpPred::Float(FloatPredicate::ALL[15 - i])
            }
        }
    }
}

/// Conversions: integer widths, integer to/from float, float formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CastOp {
    /// Sign extension to a wider type.
    ExtSI,
    /// Zero extension to a wider type.
    ExtUI,
    /// Truncation to a narrower type.
    TruncI,
    /// Signed integer to float (round to nearest even).
    SIToFP,
    /// Unsigned integer to float.
    UIToFP,
    /// Float to signed integer (truncation toward zero).
    FPToSI,
    /// Float to unsigned integer.
    FPToUI,
    /// `float` to `double`.
    ExtF,
    /// `double` to `float` (round to nearest even).
    TruncF,
}

impl CastOp {
    /// Mnemonic as in MLIR's arith dialect.
    pub fn name(self) -> &'static str {
        match self {
            CastOp::ExtSI => "extsi",
            CastOp::ExtUI => "extui",
            CastOp::TruncI => "trunci",
            CastOp::SIToFP => "sitofp",
            CastOp::UIToFP => "uitofp",
            CastOp::FPToSI => "fptosi",
            CastOp::FPToUI => "fptoui",
            CastOp::ExtF => "extf",
            CastOp::TruncF => "truncf",
        }
    }
}

/// Instruction kinds. Result values live in [`Inst::results`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InstKind {
    /// Constant; `value` is the sign-extended bit pattern of the result width, or for a
    /// result wider than 64 bits its wide word ([`handscope_sim::wide`]) reinterpreted as
    /// `i64`.
    Const {
        /// The constant.
        value: i64,
    },
    /// Binary arithmetic/logic.
    Binary {
        /// Operation.
        op: BinaryOp,
        /// Left operand.
        lhs: ValueId,
        /// Right operand.
        rhs: ValueId,
    },
    /// One-operand float operation.
    Unary {
        /// Operation.
        op: UnaryOp,
        /// Operand.
        value: ValueId,
    },
    /// Comparison; result is `i1`.
    Cmp {
        /// Predicate.
        pred: CmpPred,
        /// Left operand.
        lhs: ValueId,
        /// Right operand.
        rhs: ValueId,
    },
    /// `cond ? t : f` without control flow (both operands already computed).
    Select {
        /// `i1` condition.
        cond: ValueId,
        /// Value if true.
        t: ValueId,
        /// Value if false.
        f: ValueId,
    },
    /// Width conversion to the result type.
    Cast {
        /// Kind of conversion.
        op: CastOp,
        /// Operand.
        value: ValueId,
    },
    /// `results = [data, token_out]`: reads `mem[index]` after `token`.
    Load {
        /// Memory.
        mem: MemId,
        /// Linear element index (`i32`).
        index: ValueId,
        /// Ordering token consumed.
        token: ValueId,
    },
    /// `results = [token_out]`: writes `value` to `mem[index]` after `token`.
    Store {
        /// Memory.
        mem: MemId,
        /// Linear element index (`i32`).
        index: ValueId,
        /// Data written.
        value: ValueId,
        /// Ordering token consumed.
        token: ValueId,
    },
}

/// One instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inst {
    /// Operation.
    pub kind: InstKind,
    /// Defined values.
    pub results: Vec<ValueId>,
    /// Source location.
    pub span: Span,
}

impl Inst {
    /// Operand values in a fixed order.
    pub fn operands(&self) -> Vec<ValueId> {
        match &self.kind {
            InstKind::Const { .. } => vec![],
            InstKind::Binary { lhs, rhs, .. } | InstKind::Cmp { lhs, rhs, .. } => vec![*lhs, *rhs],
            InstKind::Select { cond, t, f } => vec![*cond, *t, *f],
            InstKind::Cast { value, .. } | InstKind::Unary { value, .. } => vec![*value],
            InstKind::Load { index, token, .. } => vec![*index, *token],
            InstKind::Store {
                index,
                value,
                token,
                ..
            } => vec![*index, *value, *token],
        }
    }

    /// Mutable references to operand values.
    pub fn operands_mut(&mut self) -> Vec<&mut ValueId> {
        match &mut self.kind {
            InstKind::Const { .. } => vec![],
            InstKind::Binary { lhs, rhs, .. } | InstKind::Cmp { lhs, rhs, .. } => vec![lhs, rhs],
            InstKind::Select { cond, t, f } => vec![cond, t, f],
            InstKind::Cast { value, .. } | InstKind::Unary { value, .. } => vec![value],
            InstKind::Load { index, token, .. } => vec![index, token],
            InstKind::Store {
                index,
                value,
                token,
                ..
            } => vec![index, value, token],
        }
    }
}

/// Block terminators. Successor arguments bind the successor's block parameters in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Terminator {
    /// Unconditional branch.
    Br {
        /// Successor.
        target: BlockId,
        /// Arguments for the successor's parameters.
        args: Vec<ValueId>,
    },
    /// Two-way branch on an `i1`.
    CondBr {
        /// Condition.
        cond: ValueId,
        /// Successor when true.
        t: BlockId,
        /// Its arguments.
        t_args: Vec<ValueId>,
        /// Successor when false.
        f: BlockId,
        /// Its arguments.
        f_args: Vec<ValueId>,
    },
    /// Function exit: the result (if non-void) and the final token of every memory
    /// (indexed by [`MemId`]).
    Return {
        /// Returned value.
        value: Option<ValueId>,
        /// Final ordering token per memory.
        tokens: Vec<ValueId>,
    },
}

impl Terminator {
    /// Successor blocks with their arguments.
    pub fn successors(&self) -> Vec<(BlockId, &[ValueId])> {
        match self {
            Terminator::Br { target, args } => vec![(*target, args)],
            Terminator::CondBr {
                t,
                t_args,
                f,
                f_args,
                ..
            } => vec![(*t, t_args), (*f, f_args)],
            Terminator::Return { .. } => vec![],
        }
    }

    /// All values read by the terminator.
    pub fn operands(&self) -> Vec<ValueId> {
        match self {
            Terminator::Br { args, .. } => args.clone(),
            Terminator::CondBr {
                cond,
                t_args,
                f_args,
                ..
            } => std::iter::once(*cond)
                .chain(t_args.iter().copied())
                .chain(f_args.iter().copied())
                .collect(),
            Terminator::Return { value, tokens } => value
                .iter()
                .copied()
                .chain(tokens.iter().copied())
                .collect(),
        }
    }

    /// Mutable references to all values read by the terminator.
    pub fn operands_mut(&mut self) -> Vec<&mut ValueId> {
        match self {
            Terminator::Br { args, .. } => args.iter_mut().collect(),
            Terminator::CondBr {
                cond,
                t_args,
                f_args,
                ..
            } => std::iter::once(cond)
                .chain(t_args.iter_mut())
                .chain(f_args.iter_mut())
                .collect(),
            Terminator::Return { value, tokens } => {
                value.iter_mut().chain(tokens.iter_mut()).collect()
            }
        }
    }
}

/// A basic block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// Block parameters (the SSA phis of this block).
    pub params: Vec<ValueId>,
    /// Instructions in order.
    pub insts: Vec<Inst>,
    /// The terminator.
    pub term: Terminator,
    /// Source location of the terminator.
    pub term_span: Span,
}

/// Where a memory comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MemoryKind {
    /// An array parameter of the top function (external memory), with its parameter position.
    Param(usize),
    /// A local (or read-only global) array; `init` is the initial contents (all elements) if any.
    Local {
        /// Initial contents.
        init: Option<Vec<i64>>,
    },
}

/// A flattened array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Memory {
    /// Source name of the array.
    pub name: String,
    /// Element type (its width is the data width of loads/stores).
    pub elem: Scalar,
    /// Original dimensions (row-major flattening).
    pub dims: Vec<u64>,
    /// Number of elements.
    pub len: u64,
    /// Parameter or local.
    pub kind: MemoryKind,
    /// No store targets this memory.
    pub read_only: bool,
    /// Span of the array's declaration (parameter, local or constant table).
    pub span: Span,
}

/// A parameter of the top function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IrParam {
    /// Scalar parameter: bound to an entry block parameter.
    Scalar {
        /// Source name.
        name: String,
        /// C type.
        ty: Scalar,
        /// The entry block parameter holding it.
        value: ValueId,
    },
    /// Array parameter: an external memory.
    Array {
        /// Source name.
        name: String,
        /// The memory.
        mem: MemId,
    },
}

/// A lowered function: entry block is `blocks[0]`, whose parameters are the scalar parameters
/// in order followed by the start token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IrFunction {
    /// Function name.
    pub name: String,
    /// Parameters in source order.
    pub params: Vec<IrParam>,
    /// Return type (`None` for void).
    pub ret: Option<Scalar>,
    /// Memories, indexed by [`MemId`].
    pub memories: Vec<Memory>,
    /// Blocks, indexed by [`BlockId`]; `bb0` is the entry.
    pub blocks: Vec<Block>,
    /// Type of every value, indexed by [`ValueId`].
    pub value_types: Vec<Type>,
    /// Source variable name of a value, where known (block parameters, arguments).
    pub value_names: Vec<Option<String>>,
    /// The start token (last entry block parameter); every memory chain begins with it.
    pub start_token: ValueId,
    /// Span of the function name.
    pub span: Span,
}

impl IrFunction {
    /// Type of a value.
    pub fn ty(&self, v: ValueId) -> Type {
        self.value_types[v.0 as usize]
    }

    /// Predecessor blocks of every block (with multiplicity, in block order).
    pub fn predecessors(&self) -> Vec<Vec<BlockId>> {
        let mut preds = vec![Vec::new(); self.blocks.len()];
        for (i, b) in self.blocks.iter().enumerate() {
            for (s, _) in b.term.successors() {
                preds[s.0 as usize].push(BlockId(i as u32));
            }
        }
        preds
    }
}

fn list(vs: &[ValueId]) -> String {
    vs.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

impl fmt::Display for IrFunction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "func @{}(", self.name)?;
        for (i, p) in self.params.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            match p {
                IrParam::Scalar { name, ty, value } => write!(f, "{value}: {ty} {name}")?,
                IrParam::Array { name, mem } => write!(f, "{mem}: {name}")?,
            }
        }
        f.write_str(")")?;
        if let Some(r) = self.ret {
            write!(f, " -> {r}")?;
        }
        f.write_str(" {\n")?;
        for (i, m) in self.memories.iter().enumerate() {
            write!(f, "  mem{i} \"{}\": {} x {} ", m.name, m.elem, m.len)?;
            let dims: Vec<String> = m.dims.iter().map(ToString::to_string).collect();
            write!(f, "[{}]", dims.join("]["))?;
            match &m.kind {
                MemoryKind::Param(p) => write!(f, " param {p}")?,
                MemoryKind::Local { init: None } => f.write_str(" local")?,
                MemoryKind::Local { init: Some(v) } => {
                    let vals: Vec<String> = v.iter().map(ToString::to_string).collect();
                    write!(f, " local init [{}]", vals.join(", "))?
                }
            }
            if m.read_only {
                f.write_str(" readonly")?;
            }
            f.write_str("\n")?;
        }
        for (i, b) in self.blocks.iter().enumerate() {
            write!(f, "bb{i}")?;
            if !b.params.is_empty() {
                let ps: Vec<String> = b
                    .params
                    .iter()
                    .map(|p| match &self.value_names[p.0 as usize] {
                        Some(n) => format!("{p}: {} /*{n}*/", self.ty(*p)),
                        None => format!("{p}: {}", self.ty(*p)),
                    })
                    .collect();
                write!(f, "({})", ps.join(", "))?;
            }
            f.write_str(":\n")?;
            for inst in &b.insts {
                let text = self.inst_text(inst);
                writeln!(f, "  {text:<48} // {}", inst.span)?;
            }
            let t = match &b.term {
                Terminator::Br { target, args } => format!("br {}", succ(*target, args)),
                Terminator::CondBr {
                    cond,
                    t,
                    t_args,
                    f: fb,
                    f_args,
                } => format!(
                    "cond_br {cond}, {}, {}",
                    succ(*t, t_args),
                    succ(*fb, f_args)
                ),
                Terminator::Return { value, tokens } => match value {
                    Some(v) => format!("return {v} tokens({})", list(tokens)),
                    None => format!("return tokens({})", list(tokens)),
                },
            };
            writeln!(f, "  {t:<48} // {}", b.term_span)?;
        }
        f.write_str("}\n")
    }
}

fn succ(b: BlockId, args: &[ValueId]) -> String {
    if args.is_empty() {
        b.to_string()
    } else {
        format!("{b}({})", list(args))
    }
}

impl IrFunction {
    fn inst_text(&self, inst: &Inst) -> String {
        let r = list(&inst.results);
        let rty = inst.results.first().map(|v| self.ty(*v));
        let rty = rty.map_or(String::new(), |t| t.to_string());
        match &inst.kind {
            InstKind::Const { value } if rty == "i1" => {
                format!(
                    "{r} = const {} : i1",
                    if *value != 0 { "true" } else { "false" }
                )
            }
            InstKind::Const { value } => match inst.results.first().map(|v| self.ty(*v)) {
                Some(Type::Float(k)) => format!(
                    "{r} = const {} : {rty}",
                    handscope_sim::float::format_float(
                        *value as u64 & handscope_sim::types::width_mask(k.bits()),
                        k
                    )
                ),
                Some(Type::Int(b)) if b > 64 => format!(
                    "{r} = const {} : {rty}",
                    handscope_sim::wide::to_decimal(*value as u64, b, true)
                ),
                _ => format!("{r} = const {value} : {rty}"),
            },
            InstKind::Binary { op, lhs, rhs } => {
                format!("{r} = {} {lhs}, {rhs} : {rty}", op.name())
            }
            InstKind::Cmp { pred, lhs, rhs } => {
                let mnemonic = match pred {
                    CmpPred::Float(_) => "cmpf",
                    _ => "cmpi",
                };
                format!(
                    "{r} = {mnemonic} {} {lhs}, {rhs} : {}",
                    pred.name(),
                    self.ty(*lhs)
                )
            }
            InstKind::Unary { op, value } => format!("{r} = {} {value} : {rty}", op.name()),
            InstKind::Select { cond, t, f } => format!("{r} = select {cond}, {t}, {f} : {rty}"),
            InstKind::Cast { op, value } => {
                format!("{r} = {} {value} : {} to {rty}", op.name(), self.ty(*value))
            }
            InstKind::Load { mem, index, token } => {
                format!("{r} = load {mem}[{index}] after {token} : {rty}")
            }
            InstKind::Store {
                mem,
                index,
                value,
                token,
            } => format!(
                "{r} = store {value}, {mem}[{index}] after {token} : {}",
                self.ty(*value)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::c::compile_to_ir;

    #[test]
    fn dump_is_deterministic_and_readable() {
        let src = "int f(int a[4], int n) {\n  int s = 0;\n  for (int i = 0; i < n; i++)\n    s += a[i] > 0 && n > 1;\n  return s;\n}\n";
        let a = compile_to_ir(src, "t.c", None)
            .expect("compiles")
            .to_string();
        let b = compile_to_ir(src, "t.c", None)
            .expect("compiles")
            .to_string();
        assert_eq!(a, b);
        assert!(
            a.starts_with(
                "func @f(mem0: a, %0: int n) -> int {\n  mem0 \"a\": int x 4 [4] param 0 readonly\n"
            ),
            "{a}"
        );
        assert!(a.contains("load mem0["), "{a}");
        // `n > 1` is speculatable, so `&&` becomes an `andi` on i1.
        assert!(a.contains("andi"), "{a}");
        assert!(a.contains("return "), "{a}");
        assert!(a.contains("// 4:"), "{a}");
    }

    #[test]
    fn float_ops_in_the_dump() {
        let src = "#include <math.h>\nfloat f(float x, int n) {\n  if (x != 2.5f && x < n)\n    return sqrtf(-x) + (double)n;\n  return (int)x;\n}\n";
        let a = compile_to_ir(src, "t.c", None)
            .expect("compiles")
            .to_string();
        assert!(
            a.starts_with("func @f(%0: float x, %1: int n) -> float {"),
            "{a}"
        );
        for want in [
            "const 2.5 : f32",
            "cmpf une",
            "sitofp",
            "cmpf olt",
            "negf",
            "sqrt",
            "extf",
            "addf",
            "truncf",
            "fptosi",
        ] {
            assert!(a.contains(want), "{want} missing:\n{a}");
        }
    }
}
