//! Dynamatic's types: `<T>`, `<>`, `<T, [extra]>`, `!handshake.channel<...>`,
//! `!handshake.control<...>`, `memref<...>`, and the type lists printed after an op's `:`.

use handscope_sim::{FloatKind, Type};

use super::ast::{DynType, ExtraSignal};
use super::reader::Reader;
use crate::mlir::Span;
use crate::mlir::ast::PType;
use crate::mlir::diag::ErrExt;
use crate::mlir::lexer::Tok;
use crate::mlir::parser::PResult;

/// One element of a printed type list.
#[derive(Clone, Debug)]
pub(crate) enum TypeElem {
    /// A single type.
    Ty(DynType),
    /// `[T, ...]` or `(T, ...)`.
    List(Vec<DynType>),
    /// `_` (printed by some branch-only ops for "no type").
    Blank,
}

/// A printed type signature: comma-separated elements, in segments split by `to` or `->`.
#[derive(Clone, Debug, Default)]
pub(crate) struct TypeSig {
    /// The segments, in order (one when there is no `to`/`->`).
    pub(crate) segs: Vec<Vec<TypeElem>>,
    /// The whole signature.
    pub(crate) span: Span,
}

impl TypeSig {
    /// Every type of every segment, lists flattened, blanks skipped.
    pub(crate) fn flatten_seg(seg: &[TypeElem]) -> Vec<DynType> {
        let mut v = Vec::new();
        for e in seg {
            match e {
                TypeElem::Ty(t) => v.push(t.clone()),
                TypeElem::List(l) => v.extend(l.iter().cloned()),
                TypeElem::Blank => {}
            }
        }
        v
    }
}

const TYPE_HELP: &str = "Dynamatic types are `<i32>`, `<f32>`, `<>`, `<i1, [spec: i1]>`, \
`!handshake.channel<i32>`, `!handshake.control<>` or `memref<NxT>`";

impl Reader<'_> {
    /// Parses one type.
    pub(crate) fn parse_dyn_type(&mut self) -> PResult<(DynType, Span)> {
        let start = self.p.next_start()?;
        let sp = self.p.peek_span()?;
        let ty = match self.p.peek()? {
            Tok::Less => {
                self.p.bump()?;
                let t = self.parse_type_body()?;
                self.p.expect(&Tok::Greater)?;
                t
            }
            Tok::Bang(w) if w == "handshake.channel" => {
                self.p.bump()?;
                self.p.expect(&Tok::Less)?;
                let t = self.parse_type_body()?;
                if t.is_control() {
                    return Err(self
                        .p
                        .err(self.p.span_from(start), "a channel type needs a data type")
                        .with_help("write `!handshake.control<>` for a data-less channel"));
                }
                self.p.expect(&Tok::Greater)?;
                t
            }
            Tok::Bang(w) if w == "handshake.control" => {
                self.p.bump()?;
                self.p.expect(&Tok::Less)?;
                let extra = if self.p.at(&Tok::LBracket)? {
                    self.parse_extra_signals()?
                } else {
                    Vec::new()
                };
                self.p.expect(&Tok::Greater)?;
                DynType::Control { extra }
            }
            Tok::Ident(w) if w == "memref" => {
                let t = self.p.parse_type()?;
                match t.ty {
                    PType::MemRef(m) => DynType::MemRef(m),
                    PType::Other(why) => {
                        return Err(self.p.err(t.span, format!("unsupported memref: {why}")));
                    }
                    _ => return Err(self.p.err(t.span, "expected a memref type")),
                }
            }
            Tok::Ident(w) if is_builtin_type(&w) => {
                return Err(self
                    .p
                    .err(
                        sp,
                        format!(
                            "unknown type syntax `{w}`: Dynamatic prints `{}` here",
                            if w == "none" { "<>".to_string() } else { format!("<{w}>") }
                        ),
                    )
                    .with_help(
                        "builtin types (`i32`, `none`) are Dynamatic's 2024 syntax (before 2024-07), \
                         which this reader does not accept; re-export the circuit with a newer Dynamatic",
                    ));
            }
            _ => {
                let found = self.p.peek()?.describe();
                return Err(self
                    .p
                    .err(
                        sp,
                        format!("unknown type syntax: expected a type, found {found}"),
                    )
                    .with_help(TYPE_HELP));
            }
        };
        Ok((ty, self.p.span_from(start)))
    }

    /// The inside of `<...>`: empty, `[extra]`, `T` or `T, [extra]`.
    fn parse_type_body(&mut self) -> PResult<DynType> {
        match self.p.peek()? {
            Tok::Greater => Ok(DynType::Control { extra: Vec::new() }),
            Tok::LBracket => Ok(DynType::Control {
                extra: self.parse_extra_signals()?,
            }),
            _ => {
                let data = self.parse_data_type()?.0;
                let extra = if self.p.eat(&Tok::Comma)? {
                    self.parse_extra_signals()?
                } else {
                    Vec::new()
                };
                Ok(DynType::Channel { data, extra })
            }
        }
    }

    /// A channel's data type: `iN`, `f32`, `f64` or `index`.
    pub(crate) fn parse_data_type(&mut self) -> PResult<(Type, Span)> {
        let sp = self.p.peek_span()?;
        let Tok::Ident(w) = self.p.peek()? else {
            let found = self.p.peek()?.describe();
            return Err(self
                .p
                .err(
                    sp,
                    format!("unknown type syntax: expected a data type, found {found}"),
                )
                .with_help(TYPE_HELP));
        };
        let t = match w.as_str() {
            "f32" => Type::Float(FloatKind::F32),
            "f64" => Type::Float(FloatKind::F64),
            "index" => Type::Index,
            _ => match w
                .strip_prefix('i')
                .filter(|b| !b.is_empty() && b.bytes().all(|c| c.is_ascii_digit()))
                .map(str::parse::<u32>)
            {
                Some(Ok(n)) if n <= handscope_sim::types::MAX_INT_WIDTH => Type::Int(n as u16),
                Some(_) => {
                    return Err(self.p.err(
                        sp,
                        format!(
                            "integer type `{w}` is wider than {} bits",
                            handscope_sim::types::MAX_INT_WIDTH
                        ),
                    ));
                }
                None => {
                    return Err(self
                        .p
                        .err(sp, format!("unknown type syntax: unknown data type `{w}`"))
                        .with_help("data types are `iN`, `f32`, `f64` and `index`"));
                }
            },
        };
        self.p.bump()?;
        Ok((t, sp))
    }

    /// `[name: type (U)?, ...]`.
    fn parse_extra_signals(&mut self) -> PResult<Vec<ExtraSignal>> {
        self.p.expect(&Tok::LBracket)?;
        let mut v: Vec<ExtraSignal> = Vec::new();
        if self.p.eat(&Tok::RBracket)? {
            return Ok(v);
        }
        loop {
            let sp = self.p.peek_span()?;
            let Tok::Ident(name) = self.p.peek()? else {
                return Err(self.p.expected("an extra signal name"));
            };
            self.p.bump()?;
            if v.iter().any(|s| s.name == name) {
                return Err(self
                    .p
                    .err(sp, format!("extra signal `{name}` is given twice")));
            }
            self.p.expect(&Tok::Colon)?;
            let ty = self.parse_data_type()?.0;
            let mut upstream = false;
            if self.p.eat(&Tok::LParen)? {
                if !self.p.eat_word("U")? {
                    return Err(self.p.expected("`U` (an upstream signal)"));
                }
                self.p.expect(&Tok::RParen)?;
                upstream = true;
            }
            v.push(ExtraSignal { name, ty, upstream });
            if !self.p.eat(&Tok::Comma)? {
                break;
            }
        }
        self.p.expect(&Tok::RBracket)?;
        Ok(v)
    }

    /// A list of types up to (not including) `close`.
    fn parse_type_list_to(&mut self, close: &Tok) -> PResult<Vec<DynType>> {
        let mut v = Vec::new();
        if self.p.at(close)? {
            return Ok(v);
        }
        loop {
            v.push(self.parse_dyn_type()?.0);
            if !self.p.eat(&Tok::Comma)? {
                return Ok(v);
            }
        }
    }

    /// Parses a type signature after an op's `:`.
    pub(crate) fn parse_type_sig(&mut self) -> PResult<TypeSig> {
        let start = self.p.next_start()?;
        let mut segs = Vec::new();
        loop {
            let mut seg = Vec::new();
            loop {
                let elem = match self.p.peek()? {
                    Tok::LBracket | Tok::LParen => {
                        let open = self.p.bump()?.0;
                        let close = if open == Tok::LBracket {
                            Tok::RBracket
                        } else {
                            Tok::RParen
                        };
                        let l = self.parse_type_list_to(&close)?;
                        self.p.expect(&close)?;
                        TypeElem::List(l)
                    }
                    Tok::Ident(w) if w == "_" => {
                        self.p.bump()?;
                        TypeElem::Blank
                    }
                    _ => TypeElem::Ty(self.parse_dyn_type()?.0),
                };
                seg.push(elem);
                if !self.p.eat(&Tok::Comma)? {
                    break;
                }
            }
            segs.push(seg);
            if !(self.p.eat_word("to")? || self.p.eat(&Tok::Arrow)?) {
                break;
            }
        }
        Ok(TypeSig {
            segs,
            span: self.p.span_from(start),
        })
    }
}

fn is_builtin_type(w: &str) -> bool {
    matches!(w, "none" | "f32" | "f64" | "index")
        || w.strip_prefix('i')
            .is_some_and(|b| !b.is_empty() && b.bytes().all(|c| c.is_ascii_digit()))
}
