//! Abstract syntax tree of the C subset. Every node keeps its source span.

use super::span::Span;
use super::types::{CType, FloatTy, IntTy};

/// Binary operators (including the short-circuit logical ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `&`
    And,
    /// `|`
    Or,
    /// `^`
    Xor,
    /// `<`
    Lt,
    /// `>`
    Gt,
    /// `<=`
    Le,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `&&`
    LogAnd,
    /// `||`
    LogOr,
}

impl BinOp {
    /// The operator as C writes it (`<<`, `&&`), for messages.
    pub fn spelling(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::And => "&",
            BinOp::Or => "|",
            BinOp::Xor => "^",
            BinOp::Lt => "<",
            BinOp::Gt => ">",
            BinOp::Le => "<=",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::LogAnd => "&&",
            BinOp::LogOr => "||",
        }
    }

    /// True for the six relational/equality operators.
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge | BinOp::Eq | BinOp::Ne
        )
    }
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `-`
    Neg,
    /// `+`
    Plus,
    /// `!`
    Not,
    /// `~`
    BitNot,
    /// `*`: the object a pointer points to
    Deref,
    /// `&`: a pointer to an object
    AddrOf,
}

/// An expression.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Where it is.
    pub span: Span,
}

/// Expression kinds.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// Integer or character constant with its C type.
    IntLit(u64, IntTy),
    /// Floating constant: its IEEE-754 encoding in its type.
    FloatLit(u64, FloatTy),
    /// Variable reference.
    Ident(String),
    /// Unary operator.
    Unary(UnOp, Box<Expr>),
    /// `++`/`--`; `pre` for prefix form, `inc` for `++`.
    IncDec {
        /// Prefix form.
        pre: bool,
        /// Increment (else decrement).
        inc: bool,
        /// Operand (an lvalue).
        expr: Box<Expr>,
    },
    /// Binary operator.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// Assignment; `Some(op)` for compound assignment.
    Assign(Option<BinOp>, Box<Expr>, Box<Expr>),
    /// `c ? a : b`.
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `(type) e`.
    Cast(CType, Box<Expr>),
    /// `a[i]`.
    Index(Box<Expr>, Box<Expr>),
    /// Call of a named function.
    Call(String, Vec<Expr>),
    /// `a, b`.
    Comma(Box<Expr>, Box<Expr>),
    /// `sizeof e`: the size of `e`'s type in bytes (`e` is not evaluated).
    SizeOf(Box<Expr>),
    /// `s.m` (`arrow`: `p->m`).
    Member {
        /// The struct (or pointer to a struct, for `->`).
        base: Box<Expr>,
        /// The member's name.
        member: String,
        /// Written `->`.
        arrow: bool,
    },
}

impl Expr {
    /// The kind of `self`, leaving a childless placeholder behind (for consumers that take an
    /// expression apart: `Expr` has a `Drop` impl, so its fields cannot be moved out).
    pub fn take_kind(&mut self) -> ExprKind {
        std::mem::replace(&mut self.kind, ExprKind::IntLit(0, IntTy::INT))
    }

    /// The left spine of `self` made of nodes `pick` accepts, top first: `a + b + c` with
    /// `pick` accepting every binary node gives `[(a+b)+c, a+b]`; the operand below the last
    /// one is its left child. Front-end passes walk long left-associative chains (`a[0] + ... +
    /// a[99999]`) with this instead of recursing once per operator.
    pub fn left_spine(&self, pick: impl Fn(&ExprKind) -> bool) -> Vec<&Expr> {
        let mut spine = Vec::new();
        let mut cur = self;
        while pick(&cur.kind) {
            spine.push(cur);
            match cur.left() {
                Some(l) => cur = l,
                None => break,
            }
        }
        spine
    }

    /// The sub-expressions evaluated with this one, in source order (the operand of `sizeof`
    /// is not evaluated). Walkers that must not recurse (operator chains are deep) push these
    /// onto a work list.
    pub fn evaluated_children(&self) -> Vec<&Expr> {
        match &self.kind {
            ExprKind::IntLit(..)
            | ExprKind::FloatLit(..)
            | ExprKind::Ident(_)
            | ExprKind::SizeOf(_) => Vec::new(),
            ExprKind::Unary(_, a)
            | ExprKind::Cast(_, a)
            | ExprKind::IncDec { expr: a, .. }
            | ExprKind::Member { base: a, .. } => vec![a],
            ExprKind::Binary(_, a, b)
            | ExprKind::Assign(_, a, b)
            | ExprKind::Index(a, b)
            | ExprKind::Comma(a, b) => vec![a, b],
            ExprKind::Cond(a, b, c) => vec![a, b, c],
            ExprKind::Call(_, args) => args.iter().collect(),
        }
    }

    /// The left operand of a binary, comma, assignment or subscript node.
    pub fn left(&self) -> Option<&Expr> {
        match &self.kind {
            ExprKind::Binary(_, a, _)
            | ExprKind::Comma(a, _)
            | ExprKind::Assign(_, a, _)
            | ExprKind::Index(a, _) => Some(a),
            _ => None,
        }
    }
}

/// Dropping an expression tree does not recurse: a 100,000-term `+` chain is 100,000 nested
/// boxes, and the compiler-generated drop would use one stack frame per level.
impl Drop for Expr {
    fn drop(&mut self) {
        let mut stack: Vec<Expr> = Vec::new();
        push_children(self.take_kind(), &mut stack);
        while let Some(mut e) = stack.pop() {
            push_children(e.take_kind(), &mut stack);
        }
    }
}

/// Moves the sub-expressions of `kind` onto `stack`.
fn push_children(kind: ExprKind, stack: &mut Vec<Expr>) {
    match kind {
        ExprKind::IntLit(..) | ExprKind::FloatLit(..) | ExprKind::Ident(_) => {}
        ExprKind::Unary(_, a)
        | ExprKind::Cast(_, a)
        | ExprKind::IncDec { expr: a, .. }
        | ExprKind::Member { base: a, .. }
        | ExprKind::SizeOf(a) => stack.push(*a),
        ExprKind::Binary(_, a, b)
        | ExprKind::Assign(_, a, b)
        | ExprKind::Index(a, b)
        | ExprKind::Comma(a, b) => {
            stack.push(*a);
            stack.push(*b);
        }
        ExprKind::Cond(a, b, c) => {
            stack.push(*a);
            stack.push(*b);
            stack.push(*c);
        }
        ExprKind::Call(_, args) => stack.extend(args),
    }
}

/// Initializer of a declaration.
#[derive(Clone, Debug, PartialEq)]
pub enum Init {
    /// `= expr`
    Expr(Expr),
    /// `= { ... }`
    List(Vec<Init>, Span),
}

impl Init {
    /// Span of the initializer.
    pub fn span(&self) -> Span {
        match self {
            Init::Expr(e) => e.span,
            Init::List(_, s) => *s,
        }
    }
}

/// A variable declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct Decl {
    /// Declared name.
    pub name: String,
    /// Type.
    pub ty: CType,
    /// Initializer.
    pub init: Option<Init>,
    /// Declared `const`.
    pub is_const: bool,
    /// Declared `static`.
    pub is_static: bool,
    /// Span of the declarator name.
    pub span: Span,
}

/// A statement.
#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    /// What it is.
    pub kind: StmtKind,
    /// Where it is.
    pub span: Span,
}

/// Statement kinds.
#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// Expression statement.
    Expr(Expr),
    /// Declarations.
    Decl(Vec<Decl>),
    /// `{ ... }`
    Block(Vec<Stmt>),
    /// `if`
    If(Expr, Box<Stmt>, Option<Box<Stmt>>),
    /// `while`
    While(Expr, Box<Stmt>),
    /// `do ... while`
    DoWhile(Box<Stmt>, Expr),
    /// `for (init; cond; step) body`
    For(Option<Box<Stmt>>, Option<Expr>, Option<Expr>, Box<Stmt>),
    /// `switch`
    Switch(Expr, Box<Stmt>),
    /// `case value: stmt`
    Case(Expr, Box<Stmt>),
    /// `default: stmt`
    Default(Box<Stmt>),
    /// `break;`
    Break,
    /// `continue;`
    Continue,
    /// `return [e];`
    Return(Option<Expr>),
    /// `;`
    Empty,
    /// `name: stmt` (a jump target of `goto`).
    Label(String, Box<Stmt>),
    /// `goto name;`
    Goto(String),
}

impl Stmt {
    /// Calls `f` on every expression of this statement and the statements in it, in source
    /// order: conditions, steps, `case` labels, returned values and initializers included.
    pub fn for_each_expr(&self, f: &mut impl FnMut(&Expr)) {
        fn init(i: &Init, f: &mut impl FnMut(&Expr)) {
            match i {
                Init::Expr(e) => f(e),
                Init::List(items, _) => items.iter().for_each(|x| init(x, f)),
            }
        }
        match &self.kind {
            StmtKind::Expr(e) | StmtKind::Return(Some(e)) => f(e),
            StmtKind::Decl(ds) => {
                for d in ds {
                    if let Some(i) = &d.init {
                        init(i, f);
                    }
                }
            }
            StmtKind::Block(items) => items.iter().for_each(|x| x.for_each_expr(f)),
            StmtKind::If(c, t, e) => {
                f(c);
                t.for_each_expr(f);
                if let Some(e) = e {
                    e.for_each_expr(f);
                }
            }
            StmtKind::While(c, b) | StmtKind::Switch(c, b) | StmtKind::Case(c, b) => {
                f(c);
                b.for_each_expr(f);
            }
            StmtKind::DoWhile(b, c) => {
                b.for_each_expr(f);
                f(c);
            }
            StmtKind::For(i, c, st, b) => {
                if let Some(i) = i {
                    i.for_each_expr(f);
                }
                for e in [c, st].into_iter().flatten() {
                    f(e);
                }
                b.for_each_expr(f);
            }
            StmtKind::Default(b) | StmtKind::Label(_, b) => b.for_each_expr(f),
            StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Return(None)
            | StmtKind::Empty
            | StmtKind::Goto(_) => {}
        }
    }
}

/// A function parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// Name.
    pub name: String,
    /// Type (integer or array).
    pub ty: CType,
    /// Declared `const` (for an array: its elements).
    pub is_const: bool,
    /// Span of the parameter name.
    pub span: Span,
}

/// A member of a struct.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// Name.
    pub name: String,
    /// Type: arithmetic, array, struct or array of structs.
    pub ty: CType,
    /// Span of the member's name.
    pub span: Span,
}

/// A struct type's definition.
#[derive(Clone, Debug, PartialEq)]
pub struct StructDef {
    /// The tag (`struct point`), or the typedef name of an untagged struct, for messages.
    pub name: String,
    /// Members in declaration order (empty while only declared).
    pub fields: Vec<Field>,
    /// The members have been given (a definition, not only `struct tag;`).
    pub complete: bool,
    /// Declared `union`: parsed (so a file whose unused functions use one compiles), refused
    /// wherever an object of it is made.
    pub is_union: bool,
    /// Span of the tag or of the `struct` keyword.
    pub span: Span,
}

impl StructDef {
    /// The member called `name`, with its position.
    pub fn field(&self, name: &str) -> Option<(usize, &Field)> {
        self.fields.iter().enumerate().find(|(_, f)| f.name == name)
    }
}

/// A function definition or prototype.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// Name.
    pub name: String,
    /// Return type.
    pub ret: CType,
    /// Parameters.
    pub params: Vec<Param>,
    /// Body (`None` for a prototype).
    pub body: Option<Stmt>,
    /// Span of the name.
    pub span: Span,
}

/// A whole file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TranslationUnit {
    /// Functions in source order (definitions and prototypes).
    pub functions: Vec<Function>,
    /// Global variables in source order.
    pub globals: Vec<Decl>,
    /// `<math.h>` was included (its functions may be called).
    pub math_h: bool,
    /// The struct types, indexed by [`StructId`](super::types::StructId).
    pub structs: Vec<StructDef>,
    /// Functions that use what the subset does not accept (a union, say), by name, with the
    /// error: reported only if the function is the top function or called from it, as a
    /// file's unused helpers should not stop its kernel.
    pub deferred: std::collections::BTreeMap<String, super::error::RawError>,
}
