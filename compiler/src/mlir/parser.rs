//! Recursive-descent parser core: token helpers, types, attributes and locations.

use handscope_sim::{FloatKind, MemRefType, Type};

use super::ast::{Attr, AttrValue, LocExpr, PType, SType, ValueUse};
use super::diag::{Diagnostic, ErrExt, ParseError, Span};
use super::lexer::{LexError, Lexer, Tok};

/// Deepest nesting of modules, types, attributes and locations accepted (guards the stack).
pub(crate) const MAX_DEPTH: u32 = 128;

/// Parser state shared by all syntax modules.
pub(crate) struct Parser<'a> {
    pub(crate) lex: Lexer<'a>,
    pub(crate) file: &'a str,
    pub(crate) warnings: Vec<Diagnostic>,
    /// Type aliases (`!name = type` at the top of the file), by name without the `!`.
    pub(crate) type_aliases: std::collections::BTreeMap<String, PType>,
    depth: u32,
    /// Operations read so far in the file (against [`MAX_OPS`]).
    pub(crate) ops_read: u64,
    /// Items of attribute lists read so far in the file (against [`MAX_ATTR_ITEMS`]).
    attr_items: u64,
    lines: std::cell::OnceCell<super::diag::LineIndex>,
}

/// Most operations a file may hold, all functions together: a function may have at most
/// [`handscope_sim::limits::MAX_NODES`] nodes, and each operation read costs a few hundred
/// bytes before the graph is built, so a 200 MB file of operations would otherwise take
/// gigabytes before any limit is checked.
pub(crate) const MAX_OPS: u64 = handscope_sim::limits::MAX_NODES as u64;

/// Most items of attribute lists (`[0, 0, ...]`, e.g. a memory's `handshake.init`) a file
/// may hold together, 4,194,304: each item read costs about a hundred bytes, so a 200 MB
/// list of zeros would otherwise take gigabytes (a memory initialized by a list is far
/// smaller than [`handscope_sim::limits::MAX_MEMORY_ELEMENTS`] in practice).
pub(crate) const MAX_ATTR_ITEMS: u64 = 1 << 22;

/// Result type of parsing functions.
pub(crate) type PResult<T> = Result<T, Box<ParseError>>;

impl<'a> Parser<'a> {
    /// A parser over `src`, reported as `file`.
    pub(crate) fn new(src: &'a str, file: &'a str) -> Self {
        Parser {
            lex: Lexer::new(src),
            file,
            warnings: Vec::new(),
            type_aliases: std::collections::BTreeMap::new(),
            depth: 0,
            ops_read: 0,
            attr_items: 0,
            lines: std::cell::OnceCell::new(),
        }
    }

    /// The file name diagnostics and implicit locations use.
    pub(crate) fn file(&self) -> &'a str {
        self.file
    }

    /// The source text.
    pub(crate) fn src(&self) -> &'a str {
        self.lex.src()
    }

    /// 1-based line and column of byte `offset` of the source (through a line index built
    /// on first use, so locating every op stays linear).
    pub(crate) fn line_col(&self, offset: usize) -> (usize, usize) {
        self.lines
            .get_or_init(|| super::diag::LineIndex::new(self.src()))
            .line_col(self.src(), offset)
    }

    /// An error at `span`.
    pub(crate) fn err(&self, span: Span, msg: impl Into<String>) -> Box<ParseError> {
        Box::new(ParseError::new(self.src(), self.file, span, msg))
    }

    /// Records a warning at `span`.
    pub(crate) fn warn(&mut self, span: Span, msg: impl Into<String>) {
        let d = Diagnostic::warning(self.src(), self.file, span, msg);
        self.warnings.push(d);
    }

    fn lex_err(&self, e: LexError) -> Box<ParseError> {
        self.err(e.span, e.message)
    }

    /// The next token.
    pub(crate) fn peek(&mut self) -> PResult<Tok> {
        match self.lex.peek() {
            Ok((t, _)) => Ok(t.clone()),
            Err(e) => Err(self.lex_err(e)),
        }
    }

    /// The span of the next token.
    pub(crate) fn peek_span(&mut self) -> PResult<Span> {
        match self.lex.peek() {
            Ok((_, s)) => Ok(*s),
            Err(e) => Err(self.lex_err(e)),
        }
    }

    /// True when the next token equals `t`.
    pub(crate) fn at(&mut self, t: &Tok) -> PResult<bool> {
        Ok(&self.peek()? == t)
    }

    /// True when the next token is the bare word `w`.
    pub(crate) fn at_word(&mut self, w: &str) -> PResult<bool> {
        Ok(matches!(self.peek()?, Tok::Ident(ref s) if s == w))
    }

    /// Consumes the next token.
    pub(crate) fn bump(&mut self) -> PResult<(Tok, Span)> {
        self.lex.next_tok().map_err(|e| self.lex_err(e))
    }

    /// Consumes the next token if it equals `t`.
    pub(crate) fn eat(&mut self, t: &Tok) -> PResult<bool> {
        if self.at(t)? {
            self.bump()?;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    /// Consumes the bare word `w` if it is next.
    pub(crate) fn eat_word(&mut self, w: &str) -> PResult<bool> {
        if self.at_word(w)? {
            self.bump()?;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    /// "expected X" error at the next token.
    pub(crate) fn expected(&mut self, what: &str) -> Box<ParseError> {
        match self.lex.peek() {
            Ok((Tok::Eof, _)) => {
                let s = self.eof_span();
                self.err(s, format!("unexpected end of file: expected {what}"))
                    .with_label("file ends here")
            }
            Ok((t, s)) => {
                let (d, s) = (t.describe(), *s);
                self.err(s, format!("expected {what}, found {d}"))
            }
            Err(e) => self.lex_err(e),
        }
    }

    /// Span of the last character of the file (where "unexpected end of file" points).
    pub(crate) fn eof_span(&self) -> Span {
        let src = self.src();
        match src.char_indices().next_back() {
            Some((i, c)) => Span::new(i, i + c.len_utf8()),
            None => Span::new(0, 0),
        }
    }

    /// Consumes `t` or fails with "expected `what`".
    pub(crate) fn expect(&mut self, t: &Tok) -> PResult<Span> {
        if self.at(t)? {
            Ok(self.bump()?.1)
        } else {
            Err(self.expected(&t.describe()))
        }
    }

    /// Consumes the bare word `w` or fails.
    pub(crate) fn expect_word(&mut self, w: &str) -> PResult<Span> {
        if self.at_word(w)? {
            Ok(self.bump()?.1)
        } else {
            Err(self.expected(&format!("`{w}`")))
        }
    }

    /// Consumes an unsigned integer literal.
    pub(crate) fn expect_uint(&mut self, what: &str) -> PResult<(u128, Span)> {
        match self.peek()? {
            Tok::Int(v) => {
                let s = self.bump()?.1;
                Ok((v, s))
            }
            _ => Err(self.expected(what)),
        }
    }

    /// Consumes an unsigned integer that fits in a `u32`.
    pub(crate) fn expect_u32(&mut self, what: &str) -> PResult<(u32, Span)> {
        let (v, s) = self.expect_uint(what)?;
        let v = u32::try_from(v).map_err(|_| self.err(s, format!("{what} is too large")))?;
        Ok((v, s))
    }

    /// Fails at `span` when `n` is over `max`, one of the size limits of
    /// [`handscope_sim::limits`] ("{what} {n} {unit}; the limit is {max}"); checked where a
    /// count is read, before anything is allocated for it. `u64::MAX` stands for an overflow.
    pub(crate) fn within_limit(
        &self,
        n: u64,
        max: u64,
        (what, unit): (&str, &str),
        span: Span,
    ) -> PResult<()> {
        if n <= max {
            return Ok(());
        }
        use handscope_sim::limits::thousands;
        let n = if n == u64::MAX {
            "more than 2^64".to_string()
        } else {
            thousands(n)
        };
        Err(self
            .err(
                span,
                format!("{what} {n} {unit}; the limit is {}", thousands(max)),
            )
            .with_label("over the limit")
            .with_help(
                "Handscope's size limits keep simulations within memory; real circuits stay far below them",
            ))
    }

    /// Byte offset where the next token starts.
    pub(crate) fn next_start(&mut self) -> PResult<usize> {
        self.lex.next_start().map_err(|e| self.lex_err(e))
    }

    /// Span from `start` to the end of the last consumed token.
    pub(crate) fn span_from(&self, start: usize) -> Span {
        Span::new(start, self.lex.raw_pos())
    }

    /// One level deeper into nested syntax opened at `span`; an error past [`MAX_DEPTH`].
    pub(crate) fn enter(&mut self, span: Span) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self
                .err(
                    span,
                    format!("nesting is too deep (more than {MAX_DEPTH} levels)"),
                )
                .with_label("one level too many")
                .with_help(format!(
                    "modules, types, attributes and locations nest at most {MAX_DEPTH} deep"
                )));
        }
        Ok(())
    }

    /// Back out of the level [`Parser::enter`] opened.
    pub(crate) fn leave(&mut self) {
        self.depth -= 1;
    }

    // ----- values -----

    /// Reads a `module` (or `builtin.module`) up to its opening brace: the keyword, an
    /// optional `@name` and `attributes {...}`, then `{`, whose span it returns.
    pub(crate) fn module_open(&mut self) -> PResult<Span> {
        self.bump()?;
        if let Tok::At(_) = self.peek()? {
            self.bump()?;
        }
        if self.eat_word("attributes")? {
            self.parse_attr_dict()?;
        }
        self.expect(&Tok::LBrace)
    }

    /// Parses `%name` or `%name#k`.
    pub(crate) fn parse_value_use(&mut self) -> PResult<ValueUse> {
        match self.peek()? {
            Tok::Value { name, index } => {
                let span = self.bump()?.1;
                Ok(ValueUse {
                    name,
                    index: index.unwrap_or(0),
                    span,
                })
            }
            _ => Err(self.expected("an SSA value (`%name`)")),
        }
    }

    /// Parses a possibly empty comma-separated list of value uses.
    pub(crate) fn parse_operand_list(&mut self) -> PResult<Vec<ValueUse>> {
        let mut v = Vec::new();
        if !matches!(self.peek()?, Tok::Value { .. }) {
            return Ok(v);
        }
        loop {
            v.push(self.parse_value_use()?);
            if !self.eat(&Tok::Comma)? {
                return Ok(v);
            }
        }
    }

    // ----- types -----

    /// Parses a type.
    pub(crate) fn parse_type(&mut self) -> PResult<SType> {
        let span0 = self.peek_span()?;
        self.enter(span0)?;
        let r = self.parse_type_inner();
        self.leave();
        r
    }

    fn parse_type_inner(&mut self) -> PResult<SType> {
        let start = self.next_start()?;
        let tok = self.peek()?;
        let ty = match tok {
            Tok::Ident(w) => {
                self.bump()?;
                match w.as_str() {
                    "index" => PType::Chan(Type::Index),
                    "none" => PType::Chan(Type::None),
                    "tuple" => {
                        self.expect(&Tok::Less)?;
                        let mut elems = Vec::new();
                        if !self.at(&Tok::Greater)? {
                            loop {
                                elems.push(self.parse_type()?);
                                if !self.eat(&Tok::Comma)? {
                                    break;
                                }
                            }
                        }
                        self.expect(&Tok::Greater)?;
                        let mut out = Vec::new();
                        let mut bad = None;
                        for e in elems {
                            match e.ty {
                                PType::Chan(t) => out.push(t),
                                _ => {
                                    bad.get_or_insert(e.span);
                                }
                            }
                        }
                        match bad {
                            None => PType::Chan(Type::Tuple(out)),
                            Some(_) => PType::Other(
                                "tuple members must be integer, index, float or none types".into(),
                            ),
                        }
                    }
                    "memref" => self.parse_memref_body()?,
                    "f32" => PType::Chan(Type::Float(FloatKind::F32)),
                    "f64" => PType::Chan(Type::Float(FloatKind::F64)),
                    "f16" | "bf16" | "tf32" | "f80" | "f128" => PType::Other(format!(
                        "float type `{w}` is not supported (floats: f32, f64)"
                    )),
                    _ if w.starts_with("f8E") || w.starts_with("f6E") || w.starts_with("f4E") => {
                        PType::Other(format!(
                            "float type `{w}` is not supported (floats: f32, f64)"
                        ))
                    }
                    _ => {
                        if let Some(bits) = w
                            .strip_prefix('i')
                            .filter(|b| !b.is_empty() && b.bytes().all(|c| c.is_ascii_digit()))
                        {
                            match bits.parse::<u32>() {
                                Ok(n) if n <= handscope_sim::types::MAX_INT_WIDTH => {
                                    PType::Chan(Type::Int(n as u16))
                                }
                                _ => PType::Other(format!(
                                    "integer type `{w}` is wider than {} bits",
                                    handscope_sim::types::MAX_INT_WIDTH
                                )),
                            }
                        } else {
                            if self.at(&Tok::Less)? {
                                self.skip_balanced()?;
                            }
                            PType::Other(format!(
                                "type `{w}` is not supported (use iN with N <= 16384, index, f32, f64, none, tuple or memref)"
                            ))
                        }
                    }
                }
            }
            Tok::Bang(w) if w == "hw.struct" => {
                // `!hw.struct<name: type, ...>`: packed like a tuple, field 0 in the most
                // significant bits; the field names are not kept.
                self.bump()?;
                self.expect(&Tok::Less)?;
                let mut fields = Vec::new();
                let mut bad = None;
                if !self.at(&Tok::Greater)? {
                    loop {
                        match self.bump()? {
                            (Tok::Ident(_) | Tok::Str(_), _) => {}
                            (_, fs) => return Err(self.err(fs, "expected a struct field name")),
                        }
                        self.expect(&Tok::Colon)?;
                        let t = self.parse_type()?;
                        match t.ty {
                            PType::Chan(c) => fields.push(c),
                            _ => {
                                bad.get_or_insert(t.span);
                            }
                        }
                        if !self.eat(&Tok::Comma)? {
                            break;
                        }
                    }
                }
                self.expect(&Tok::Greater)?;
                match bad {
                    None => PType::Chan(Type::Tuple(fields)),
                    Some(_) => PType::Other(
                        "struct fields must be integer, index, float, none or tuple types".into(),
                    ),
                }
            }
            Tok::Bang(w) => {
                let sp = self.bump()?.1;
                if self.at(&Tok::Less)? {
                    self.skip_balanced()?;
                    PType::Other(format!("dialect type `!{w}<...>` is not supported"))
                } else if let Some(t) = self.type_aliases.get(&w) {
                    t.clone()
                } else {
                    return Err(self
                        .err(sp, format!("undefined type alias `!{w}`"))
                        .with_help("define it at the top of the file: `!name = tuple<i32, i32>`"));
                }
            }
            Tok::LParen => {
                self.bump()?;
                let ins = self.parse_type_list_until(&Tok::RParen)?;
                self.expect(&Tok::RParen)?;
                self.expect(&Tok::Arrow)?;
                let outs = if self.eat(&Tok::LParen)? {
                    let o = self.parse_type_list_until(&Tok::RParen)?;
                    self.expect(&Tok::RParen)?;
                    o
                } else {
                    vec![self.parse_type()?]
                };
                PType::Func(ins, outs)
            }
            _ => return Err(self.expected("a type")),
        };
        Ok(SType {
            ty,
            span: self.span_from(start),
        })
    }

    fn parse_memref_body(&mut self) -> PResult<PType> {
        self.expect(&Tok::Less)?;
        let dims_start = self.next_start()?;
        let (dims, dynamic) = self.lex.scan_dims().map_err(|e| self.lex_err(e))?;
        let elements = dims
            .iter()
            .try_fold(1u64, |a, &d| a.checked_mul(d))
            .unwrap_or(u64::MAX);
        self.within_limit(
            elements,
            handscope_sim::limits::MAX_MEMORY_ELEMENTS,
            ("a memref of", "elements"),
            // The dimensions, without the `x` before the element type.
            Span::new(dims_start, self.lex.raw_pos().saturating_sub(1)),
        )?;
        let elem = self.parse_type()?;
        let mut layout = false;
        while self.eat(&Tok::Comma)? {
            layout = true;
            self.parse_attr_value()?;
        }
        self.expect(&Tok::Greater)?;
        if dynamic.is_some() {
            return Ok(PType::Other(
                "memrefs with dynamic dimensions are not supported".into(),
            ));
        }
        if layout {
            return Ok(PType::Other(
                "memrefs with a layout or memory space are not supported".into(),
            ));
        }
        match elem.ty {
            PType::Chan(t @ (Type::Int(_) | Type::Index | Type::Float(_))) => {
                Ok(PType::MemRef(MemRefType { dims, elem: t }))
            }
            _ => Ok(PType::Other(
                "memref element type must be an integer, index, f32 or f64".into(),
            )),
        }
    }

    /// Parses types separated by commas until (not including) `end`.
    pub(crate) fn parse_type_list_until(&mut self, end: &Tok) -> PResult<Vec<SType>> {
        let mut v = Vec::new();
        if self.at(end)? {
            return Ok(v);
        }
        loop {
            v.push(self.parse_type()?);
            // Argument/result attribute dictionaries are tolerated and dropped.
            if self.at(&Tok::LBrace)? {
                let s = self.peek_span()?;
                self.parse_attr_dict()?;
                self.warn(s, "argument/result attributes are ignored");
            }
            if !self.eat(&Tok::Comma)? {
                return Ok(v);
            }
        }
    }

    /// Parses a non-empty comma-separated type list (no brackets).
    pub(crate) fn parse_type_list(&mut self) -> PResult<Vec<SType>> {
        let mut v = vec![self.parse_type()?];
        while self.eat(&Tok::Comma)? {
            v.push(self.parse_type()?);
        }
        Ok(v)
    }

    /// Requires a supported channel type.
    pub(crate) fn chan_type(&self, t: &SType) -> PResult<Type> {
        match &t.ty {
            PType::Chan(c) => Ok(c.clone()),
            PType::Other(why) => Err(self.err(t.span, format!("unsupported type: {why}"))),
            PType::MemRef(_) => Err(self.err(
                t.span,
                "a memref is not allowed here: expected a channel type",
            )),
            PType::Func(..) => Err(self.err(
                t.span,
                "a function type is not allowed here: expected a channel type",
            )),
        }
    }

    /// Parses a type and requires a supported channel type.
    pub(crate) fn parse_chan_type(&mut self) -> PResult<(Type, SType)> {
        let t = self.parse_type()?;
        Ok((self.chan_type(&t)?, t))
    }

    /// Skips a balanced `<...>`, `(...)`, `[...]` or `{...}` group starting at the next token.
    pub(crate) fn skip_balanced(&mut self) -> PResult<Span> {
        let start = self.next_start()?;
        let mut stack: Vec<Tok> = Vec::new();
        loop {
            let (t, s) = self.bump()?;
            let close = match t {
                Tok::Less => Some(Tok::Greater),
                Tok::LParen => Some(Tok::RParen),
                Tok::LBracket => Some(Tok::RBracket),
                Tok::LBrace => Some(Tok::RBrace),
                _ => None,
            };
            if let Some(c) = close {
                if stack.len() as u32 > MAX_DEPTH {
                    return Err(self.err(s, "nesting is too deep"));
                }
                stack.push(c);
            } else if t == Tok::Eof {
                let _ = s;
                return Err(self
                    .err(
                        self.eof_span(),
                        "unexpected end of file: unbalanced brackets",
                    )
                    .with_label("file ends here"));
            } else if matches!(t, Tok::Greater | Tok::RParen | Tok::RBracket | Tok::RBrace) {
                if stack.last() == Some(&t) {
                    stack.pop();
                } else {
                    return Err(self.err(s, format!("unbalanced {}", t.describe())));
                }
            }
            if stack.is_empty() {
                return Ok(self.span_from(start));
            }
        }
    }

    // ----- attributes -----

    /// Parses `{name = value, ...}`.
    pub(crate) fn parse_attr_dict(&mut self) -> PResult<Vec<Attr>> {
        let open = self.expect(&Tok::LBrace)?;
        self.enter(open)?;
        let mut attrs: Vec<Attr> = Vec::new();
        if !self.at(&Tok::RBrace)? {
            loop {
                let (name, name_span) = match self.peek()? {
                    Tok::Ident(n) | Tok::Str(n) => (n, self.bump()?.1),
                    _ => return Err(self.expected("an attribute name")),
                };
                if attrs.iter().any(|a| a.name == name) {
                    return Err(self.err(name_span, format!("duplicate attribute `{name}`")));
                }
                let (value, value_span, raw) = if self.eat(&Tok::Equal)? {
                    let start = self.next_start()?;
                    let v = self.parse_attr_value()?;
                    let sp = self.span_from(start);
                    (v, sp, self.src()[sp.start..sp.end].to_string())
                } else {
                    (AttrValue::Unit, name_span, String::new())
                };
                attrs.push(Attr {
                    name,
                    name_span,
                    value,
                    value_span,
                    raw,
                });
                if !self.eat(&Tok::Comma)? {
                    break;
                }
            }
        }
        self.expect(&Tok::RBrace)?;
        self.leave();
        Ok(attrs)
    }

    /// Parses an optional attribute dictionary.
    pub(crate) fn parse_opt_attr_dict(&mut self) -> PResult<Vec<Attr>> {
        if self.at(&Tok::LBrace)? {
            self.parse_attr_dict()
        } else {
            Ok(Vec::new())
        }
    }

    /// Parses an attribute value.
    pub(crate) fn parse_attr_value(&mut self) -> PResult<AttrValue> {
        let s = self.peek_span()?;
        self.enter(s)?;
        let r = self.parse_attr_value_inner();
        self.leave();
        r
    }

    fn opt_colon_type(&mut self) -> PResult<Option<SType>> {
        if self.eat(&Tok::Colon)? {
            Ok(Some(self.parse_type()?))
        } else {
            Ok(None)
        }
    }

    fn parse_attr_value_inner(&mut self) -> PResult<AttrValue> {
        match self.peek()? {
            Tok::Int(v) => {
                self.bump()?;
                let ty = self.opt_colon_type()?;
                Ok(match i128::try_from(v) {
                    Ok(value) => AttrValue::Int { value, ty },
                    Err(_) => AttrValue::BigInt {
                        text: v.to_string(),
                        ty,
                    },
                })
            }
            Tok::BigInt(text) => {
                self.bump()?;
                let ty = self.opt_colon_type()?;
                Ok(AttrValue::BigInt { text, ty })
            }
            Tok::Minus => {
                self.bump()?;
                match self.peek()? {
                    Tok::Int(v) => {
                        self.bump()?;
                        let ty = self.opt_colon_type()?;
                        Ok(match i128::try_from(v) {
                            Ok(v) => AttrValue::Int { value: -v, ty },
                            Err(_) => AttrValue::BigInt {
                                text: format!("-{v}"),
                                ty,
                            },
                        })
                    }
                    Tok::BigInt(text) => {
                        self.bump()?;
                        let ty = self.opt_colon_type()?;
                        Ok(AttrValue::BigInt {
                            text: format!("-{text}"),
                            ty,
                        })
                    }
                    Tok::Float(f) => {
                        self.bump()?;
                        let ty = self.opt_colon_type()?;
                        Ok(AttrValue::Float {
                            text: format!("-{f}"),
                            ty,
                        })
                    }
                    _ => Err(self.expected("a number after `-`")),
                }
            }
            Tok::Float(f) => {
                self.bump()?;
                let ty = self.opt_colon_type()?;
                Ok(AttrValue::Float { text: f, ty })
            }
            Tok::Str(s) => {
                self.bump()?;
                self.opt_colon_type()?;
                Ok(AttrValue::Str(s))
            }
            Tok::LBracket => {
                self.bump()?;
                let mut items = Vec::new();
                if !self.at(&Tok::RBracket)? {
                    loop {
                        let start = self.next_start()?;
                        self.attr_items += 1;
                        if self.attr_items > MAX_ATTR_ITEMS {
                            let at = self.peek_span()?;
                            return Err(self
                                .err(
                                    at,
                                    format!(
                                        "the file's attribute lists hold more than {} items (the limit)",
                                        handscope_sim::limits::thousands(MAX_ATTR_ITEMS)
                                    ),
                                )
                                .with_label("over the limit")
                                .with_help(format!(
                                    "attribute lists (a memory's `handshake.init`) hold at most {} items in one file; initialize larger memories with `--mem NAME=@FILE`",
                                    handscope_sim::limits::thousands(MAX_ATTR_ITEMS)
                                )));
                        }
                        let v = self.parse_attr_value()?;
                        items.push((v, self.span_from(start)));
                        if !self.eat(&Tok::Comma)? {
                            break;
                        }
                    }
                }
                self.expect(&Tok::RBracket)?;
                Ok(AttrValue::Array(items))
            }
            Tok::LBrace => Ok(AttrValue::Dict(self.parse_attr_dict()?)),
            Tok::At(s) => {
                self.bump()?;
                // Nested references `@a::@b` are kept as raw text only.
                Ok(AttrValue::Symbol(s))
            }
            Tok::Hash(name) => {
                self.bump()?;
                if self.at(&Tok::Less)? {
                    let sp = self.skip_balanced()?;
                    let inner =
                        &self.src()[sp.start + 1..sp.end.saturating_sub(1).max(sp.start + 1)];
                    let words = inner
                        .split(|c: char| c.is_whitespace() || c == ',')
                        .filter(|w| !w.is_empty())
                        .map(str::to_string)
                        .collect();
                    Ok(AttrValue::DialectAttr {
                        dialect: name,
                        words,
                    })
                } else {
                    Ok(AttrValue::Other)
                }
            }
            Tok::Ident(w) => match w.as_str() {
                "true" | "false" => {
                    self.bump()?;
                    Ok(AttrValue::Bool(w == "true"))
                }
                "unit" => {
                    self.bump()?;
                    Ok(AttrValue::Unit)
                }
                "dense" | "array" | "sparse" | "affine_map" | "affine_set" | "strided"
                | "distinct" | "dense_resource" | "opaque" => {
                    self.bump()?;
                    if self.at(&Tok::Less)? {
                        self.skip_balanced()?;
                    }
                    if self.at(&Tok::LBracket)? {
                        self.skip_balanced()?;
                    }
                    self.opt_colon_type()?;
                    Ok(AttrValue::Other)
                }
                "loc" => {
                    self.parse_loc()?;
                    Ok(AttrValue::Other)
                }
                _ => Ok(AttrValue::Type(self.parse_type()?)),
            },
            Tok::Bang(_) | Tok::LParen => Ok(AttrValue::Type(self.parse_type()?)),
            _ => Err(self.expected("an attribute value")),
        }
    }

    // ----- locations -----

    /// Parses an optional trailing `loc(...)`.
    pub(crate) fn parse_opt_loc(&mut self) -> PResult<Option<LocExpr>> {
        if self.at_word("loc")? {
            Ok(Some(self.parse_loc()?))
        } else {
            Ok(None)
        }
    }

    /// Parses `loc(...)`.
    pub(crate) fn parse_loc(&mut self) -> PResult<LocExpr> {
        self.expect_word("loc")?;
        self.expect(&Tok::LParen)?;
        let l = self.parse_loc_inner()?;
        self.expect(&Tok::RParen)?;
        Ok(l)
    }

    fn parse_loc_inner(&mut self) -> PResult<LocExpr> {
        let s = self.peek_span()?;
        self.enter(s)?;
        let r = self.parse_loc_inner2();
        self.leave();
        r
    }

    fn parse_loc_inner2(&mut self) -> PResult<LocExpr> {
        match self.peek()? {
            Tok::Hash(name) => {
                let sp = self.bump()?.1;
                Ok(LocExpr::Alias(name, sp))
            }
            Tok::Ident(w) if w == "unknown" => {
                self.bump()?;
                Ok(LocExpr::Unknown)
            }
            Tok::Ident(w) if w == "fused" => {
                self.bump()?;
                if self.at(&Tok::Less)? {
                    self.skip_balanced()?;
                }
                self.expect(&Tok::LBracket)?;
                let mut v = Vec::new();
                if !self.at(&Tok::RBracket)? {
                    loop {
                        v.push(self.parse_loc_inner()?);
                        if !self.eat(&Tok::Comma)? {
                            break;
                        }
                    }
                }
                self.expect(&Tok::RBracket)?;
                Ok(LocExpr::Fused(v))
            }
            Tok::Ident(w) if w == "callsite" => {
                self.bump()?;
                self.expect(&Tok::LParen)?;
                let callee = self.parse_loc_inner()?;
                self.expect_word("at")?;
                let caller = self.parse_loc_inner()?;
                self.expect(&Tok::RParen)?;
                Ok(LocExpr::CallSite(Box::new(callee), Box::new(caller)))
            }
            Tok::Str(file) => {
                self.bump()?;
                if self.eat(&Tok::Colon)? {
                    let (line, _) = self.expect_u32("a line number")?;
                    self.expect(&Tok::Colon)?;
                    let (col, _) = self.expect_u32("a column number")?;
                    let mut end = None;
                    if self.eat_word("to")? {
                        let mut eline = line;
                        if let Tok::Int(_) = self.peek()? {
                            eline = self.expect_u32("a line number")?.0;
                        }
                        self.expect(&Tok::Colon)?;
                        let (ecol, _) = self.expect_u32("a column number")?;
                        end = Some((eline, ecol));
                    }
                    Ok(LocExpr::File {
                        file,
                        line,
                        col,
                        end,
                    })
                } else if self.eat(&Tok::LParen)? {
                    let child = self.parse_loc_inner()?;
                    self.expect(&Tok::RParen)?;
                    Ok(LocExpr::Named(Some(Box::new(child))))
                } else {
                    Ok(LocExpr::Named(None))
                }
            }
            _ => Err(self.expected("a location (`\"file\":line:col`, `#alias`, `unknown`, ...)")),
        }
    }
}

/// Removes and returns the attribute called `name`.
pub(crate) fn take_attr(attrs: &mut Vec<Attr>, name: &str) -> Option<Attr> {
    let i = attrs.iter().position(|a| a.name == name)?;
    Some(attrs.remove(i))
}
