//! Recursive-descent parser for the C subset (after preprocessing).

use super::ast::*;
use super::consteval::eval_const;
use super::error::{CResult, RawError};
use super::lexer::{TokKind, Token};
use super::span::Span;
use super::types::{
    CType, FloatTy, IntKind, IntTy, MAX_BITINT_WIDTH, Scalar, StructId, literal_type,
};
use std::collections::BTreeMap;

/// Maximum nesting of expressions/statements (keeps recursion bounded).
pub(super) const MAX_NESTING: usize = 100;

/// Parses a preprocessed token stream into a translation unit.
pub fn parse(toks: &[Token], stdint: bool, eof: Span) -> CResult<TranslationUnit> {
    let mut typedefs = BTreeMap::new();
    if stdint {
        for (kind, bits) in [
            (IntKind::Char, 8),
            (IntKind::Short, 16),
            (IntKind::Int, 32),
            (IntKind::Long, 64),
        ] {
            typedefs.insert(format!("int{bits}_t"), CType::int(IntTy::new(kind, true)));
            typedefs.insert(format!("uint{bits}_t"), CType::int(IntTy::new(kind, false)));
        }
        typedefs.insert("intptr_t".into(), CType::int(IntTy::LONG));
        typedefs.insert("uintptr_t".into(), CType::int(IntTy::ULONG));
    }
    typedefs.insert("size_t".into(), CType::int(IntTy::ULONG));
    typedefs.insert("ptrdiff_t".into(), CType::int(IntTy::LONG));
    let mut p = Parser {
        toks,
        pos: 0,
        typedefs,
        depth: 0,
        eof,
        structs: Vec::new(),
        tags: BTreeMap::new(),
        enum_consts: BTreeMap::new(),
        knr_params: false,
    };
    let mut tu = p.translation_unit()?;
    tu.structs = p.structs;
    Ok(tu)
}

/// Largest number of elements of an array.
pub const MAX_ARRAY_ELEMENTS: u64 = 1 << 20;

fn check_size(dims: &[Option<u64>], span: Span) -> CResult<()> {
    let mut total: u64 = 1;
    for d in dims.iter().flatten() {
        total = total.saturating_mul(*d);
    }
    if total > MAX_ARRAY_ELEMENTS {
        return Err(RawError::new(
            span,
            format!("array has more than {MAX_ARRAY_ELEMENTS} elements"),
        ));
    }
    Ok(())
}

struct Parser<'a> {
    toks: &'a [Token],
    pos: usize,
    typedefs: BTreeMap<String, CType>,
    depth: usize,
    eof: Span,
    /// Struct types, indexed by [`StructId`].
    structs: Vec<StructDef>,
    /// Struct tags (`struct point`) in scope (file-wide: the subset does not scope tags).
    tags: BTreeMap<String, StructId>,
    /// Enumeration constants and their values (file-wide).
    enum_consts: BTreeMap<String, i64>,
    /// The last parameter list was an old-style (K&R) identifier list, whose types follow
    /// the declarator.
    knr_params: bool,
}

/// Parsed declaration specifiers.
struct Specs {
    ty: CType,
    is_const: bool,
    is_static: bool,
    is_typedef: bool,
}

/// A parsed declarator.
struct Declarator {
    name: String,
    span: Span,
    /// Declared with `*`: a pointer to the specifiers' type.
    ptr: bool,
    /// Declared `(*name)[N]...`: a pointer to arrays of these dimensions.
    ptr_dims: Vec<Option<u64>>,
    dims: Vec<Option<u64>>,
    params: Option<Vec<Param>>,
}

/// The type a declarator gives the specifiers' type `base`.
fn compose(base: &CType, d: &Declarator) -> CResult<CType> {
    if !d.ptr_dims.is_empty() {
        return match base {
            CType::Scalar(s) if d.dims.is_empty() && !d.ptr => Ok(CType::Pointer(Box::new(
                CType::Array(*s, d.ptr_dims.clone()),
            ))),
            _ => Err(RawError::new(
                d.span,
                "only pointers to arrays of numbers are supported in '(*p)[N]' declarators",
            )),
        };
    }
    if d.ptr {
        if !d.dims.is_empty() {
            return Err(RawError::new(
                d.span,
                "arrays of pointers are not supported",
            ));
        }
        return match base {
            CType::Scalar(_) | CType::Struct(_) => Ok(CType::Pointer(Box::new(base.clone()))),
            CType::Void => Err(RawError::new(d.span, "'void *' pointers are not supported")
                .with_help("a pointer must point to an arithmetic type or a struct")),
            _ => Err(RawError::new(
                d.span,
                "pointers to pointers are not supported",
            )),
        };
    }
    if d.dims.is_empty() {
        return Ok(base.clone());
    }
    match base {
        CType::Scalar(t) => Ok(CType::Array(*t, d.dims.clone())),
        CType::Struct(id) => Ok(CType::StructArray(*id, d.dims.clone())),
        CType::Void => Err(RawError::new(d.span, "array of void")),
        _ => Err(RawError::new(
            d.span,
            "arrays of pointers are not supported",
        )),
    }
}

const TYPE_WORDS: &[&str] = &[
    "void",
    "char",
    "short",
    "int",
    "long",
    "signed",
    "unsigned",
    "_Bool",
    "const",
    "volatile",
    "static",
    "extern",
    "inline",
    "register",
    "restrict",
    "typedef",
    "auto",
    "float",
    "double",
    "struct",
    "union",
    "enum",
    "_Complex",
    "__inline",
    "__restrict",
    "_BitInt",
];

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<&'a Token> {
        self.toks.get(self.pos)
    }

    fn peek_at(&self, k: usize) -> Option<&'a Token> {
        self.toks.get(self.pos + k)
    }

    fn span(&self) -> Span {
        self.peek().map_or(self.eof, |t| t.span)
    }

    fn prev_span(&self) -> Span {
        if self.pos == 0 {
            self.span()
        } else {
            self.toks[self.pos - 1].span
        }
    }

    fn at(&self, p: &str) -> bool {
        self.peek().is_some_and(|t| t.is_punct(p))
    }

    fn at_word(&self, w: &str) -> bool {
        self.peek().and_then(Token::ident) == Some(w)
    }

    fn eat(&mut self, p: &str) -> bool {
        if self.at(p) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn found(&self) -> String {
        self.peek()
            .map_or("end of file".to_string(), Token::describe)
    }

    fn expect(&mut self, p: &str) -> CResult<Span> {
        if self.at(p) {
            self.pos += 1;
            Ok(self.prev_span())
        } else {
            Err(RawError::new(
                self.span(),
                format!("expected '{p}', found {}", self.found()),
            ))
        }
    }

    fn enter(&mut self) -> CResult<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(RawError::new(self.span(), "nesting too deep"));
        }
        Ok(())
    }

    fn is_decl_start(&self) -> bool {
        match self.peek().and_then(Token::ident) {
            Some(w) => {
                TYPE_WORDS.contains(&w)
                    || (self.typedefs.contains_key(w)
                        && !self
                            .peek_at(1)
                            .is_some_and(|t| t.is_punct("=") || t.is_punct("(") || t.is_punct(";")))
            }
            None => false,
        }
    }

    fn translation_unit(&mut self) -> CResult<TranslationUnit> {
        let mut tu = TranslationUnit::default();
        while self.peek().is_some() {
            if self.eat(";") {
                continue;
            }
            if !self.is_decl_start() {
                return Err(RawError::new(
                    self.span(),
                    format!("expected a declaration, found {}", self.found()),
                ));
            }
            let specs = self.decl_specs()?;
            if specs.is_typedef {
                self.typedef_rest(&specs)?;
                continue;
            }
            if self.eat(";") {
                // `struct tag { ... };` or `enum { ... };`: only the type.
                continue;
            }
            let first = self.declarator(true, false)?;
            if let Some(mut params) = first.params {
                if std::mem::take(&mut self.knr_params) {
                    self.knr_declarations(&mut params)?;
                }
                let ret = specs.ty.clone();
                let body = if self.at("{") {
                    Some(self.compound()?)
                } else {
                    self.expect(";")?;
                    None
                };
                tu.functions.push(Function {
                    name: first.name,
                    ret,
                    params,
                    body,
                    span: first.span,
                });
                continue;
            }
            let mut d = first;
            loop {
                let decl = self.finish_decl(&specs, d)?;
                tu.globals.push(decl);
                if self.eat(",") {
                    d = self.declarator(false, false)?;
                } else {
                    self.expect(";")?;
                    break;
                }
            }
        }
        Ok(tu)
    }

    fn typedef_rest(&mut self, specs: &Specs) -> CResult<()> {
        loop {
            let d = self.declarator(false, false)?;
            let ty = compose(&specs.ty, &d)?;
            match ty {
                CType::Scalar(_) | CType::Pointer(_) => {
                    self.typedefs.insert(d.name, ty);
                }
                CType::Struct(id) => {
                    let def = &mut self.structs[id.0 as usize];
                    if def.name.is_empty() {
                        def.name = d.name.clone();
                    }
                    self.typedefs.insert(d.name, ty);
                }
                _ => {
                    return Err(RawError::new(
                        d.span,
                        "typedefs of array types are not supported",
                    ));
                }
            }
            if !self.eat(",") {
                self.expect(";")?;
                return Ok(());
            }
        }
    }

    fn finish_decl(&mut self, specs: &Specs, d: Declarator) -> CResult<Decl> {
        let ty = compose(&specs.ty, &d)?;
        if ty == CType::Void {
            return Err(RawError::new(d.span, "variable declared void"));
        }
        if let CType::Struct(id) | CType::StructArray(id, _) = &ty
            && !self.structs[id.0 as usize].complete
        {
            return Err(RawError::new(
                d.span,
                format!(
                    "variable has incomplete type 'struct {}'",
                    self.structs[id.0 as usize].name
                ),
            ));
        }
        let init = if self.eat("=") {
            Some(self.initializer()?)
        } else {
            None
        };
        let ty = match (ty, &init) {
            (CType::Array(t, mut dims), Some(Init::List(items, _))) if dims[0].is_none() => {
                dims[0] = Some(items.len() as u64);
                CType::Array(t, dims)
            }
            (CType::StructArray(t, mut dims), Some(Init::List(items, _))) if dims[0].is_none() => {
                dims[0] = Some(items.len() as u64);
                CType::StructArray(t, dims)
            }
            (CType::Array(_, dims) | CType::StructArray(_, dims), _)
                if dims.iter().any(Option::is_none) =>
            {
                return Err(RawError::new(d.span, "array size missing"));
            }
            (t, _) => t,
        };
        Ok(Decl {
            name: d.name,
            ty,
            init,
            is_const: specs.is_const,
            is_static: specs.is_static,
            span: d.span,
        })
    }

    fn initializer(&mut self) -> CResult<Init> {
        if self.at("{") {
            self.enter()?;
            let start = self.expect("{")?;
            let mut items = Vec::new();
            while !self.at("}") {
                if self.at(".") || self.at("[") {
                    return Err(RawError::new(
                        self.span(),
                        "designated initializers are not supported",
                    ));
                }
                items.push(self.initializer()?);
                if !self.eat(",") {
                    break;
                }
            }
            let end = self.expect("}")?;
            self.depth -= 1;
            Ok(Init::List(items, start.to(end)))
        } else {
            Ok(Init::Expr(self.assign()?))
        }
    }

    fn decl_specs(&mut self) -> CResult<Specs> {
        let start = self.span();
        let mut counts: BTreeMap<&'static str, u32> = BTreeMap::new();
        let mut typedef_ty = None;
        let mut bit_int: Option<(u64, Span)> = None;
        let (mut is_const, mut is_static, mut is_typedef) = (false, false, false);
        while let Some(t) = self.peek() {
            let Some(w) = t.ident() else { break };
            match w {
                "_BitInt" => {
                    let at = t.span;
                    self.pos += 1;
                    self.expect("(")?;
                    let n = match self.peek().map(|t| &t.kind) {
                        Some(TokKind::Int { value, .. }) => *value,
                        _ => {
                            return Err(RawError::new(
                                self.span(),
                                "expected the width of _BitInt (an integer constant)",
                            ));
                        }
                    };
                    self.pos += 1;
                    let end = self.expect(")")?;
                    if bit_int.is_some() {
                        return Err(RawError::new(at, "duplicate _BitInt"));
                    }
                    bit_int = Some((n, at.to(end)));
                    continue;
                }
                "_Complex" => {
                    return Err(RawError::new(t.span, "complex types are not supported")
                        .with_help("the C subset has integer types, float and double"));
                }
                "struct" | "union" | "enum" if counts.is_empty() && typedef_ty.is_none() => {
                    self.pos += 1;
                    typedef_ty = Some(if w == "enum" {
                        self.enum_specifier(t.span)?
                    } else {
                        self.struct_specifier(t.span, w == "union")?
                    });
                    continue;
                }
                "struct" | "union" | "enum" => {
                    return Err(RawError::new(
                        t.span,
                        "invalid combination of type specifiers",
                    ));
                }
                "const" => is_const = true,
                "static" => is_static = true,
                "typedef" => is_typedef = true,
                "volatile" | "extern" | "inline" | "register" | "restrict" | "auto"
                | "__inline" | "__restrict" => {}
                "void" | "char" | "short" | "int" | "long" | "signed" | "unsigned" | "_Bool"
                | "float" | "double" => {
                    let key = TYPE_WORDS
                        .iter()
                        .find(|k| **k == w)
                        .copied()
                        .unwrap_or("int");
                    *counts.entry(key).or_default() += 1;
                }
                _ => {
                    if counts.is_empty()
                        && typedef_ty.is_none()
                        && let Some(ty) = self.typedefs.get(w)
                    {
                        typedef_ty = Some(ty.clone());
                        self.pos += 1;
                        continue;
                    }
                    break;
                }
            }
            self.pos += 1;
        }
        let span = start.to(self.prev_span());
        let c = |k: &str| counts.get(k).copied().unwrap_or(0);
        let ty = if let Some((n, at)) = bit_int {
            let (signed, unsigned) = (c("signed"), c("unsigned"));
            if counts.values().sum::<u32>() != signed + unsigned || signed + unsigned > 1 {
                return Err(RawError::new(
                    span,
                    "invalid combination of type specifiers",
                ));
            }
            let min = if unsigned == 1 { 1 } else { 2 };
            if n < min {
                return Err(RawError::new(
                    at,
                    format!(
                        "_BitInt({n}) is too narrow: a signed _BitInt needs at least 2 bits, an unsigned one 1"
                    ),
                ));
            }
            if n > u64::from(MAX_BITINT_WIDTH) {
                return Err(RawError::new(
                    at,
                    format!(
                        "_BitInt({n}) is wider than the {MAX_BITINT_WIDTH} bits Handscope supports"
                    ),
                )
                .with_help(format!("use _BitInt(N) with N <= {MAX_BITINT_WIDTH}")));
            }
            CType::int(IntTy::new(IntKind::BitInt(n as u16), unsigned == 0))
        } else if let Some(t) = typedef_ty {
            if !counts.is_empty() {
                return Err(RawError::new(
                    span,
                    "invalid combination of type specifiers",
                ));
            }
            t
        } else if c("float") + c("double") > 0 {
            let others = counts.values().sum::<u32>() - c("float") - c("double");
            match (c("float"), c("double"), c("long"), others - c("long")) {
                (1, 0, 0, 0) => CType::Scalar(Scalar::Float(FloatTy::Float)),
                (0, 1, 0, 0) => CType::Scalar(Scalar::Float(FloatTy::Double)),
                (0, 1, 1, 0) => {
                    return Err(RawError::new(span, "long double is not supported")
                        .with_help("use double (IEEE-754 binary64) or float (binary32)"));
                }
                _ => {
                    return Err(RawError::new(
                        span,
                        "invalid combination of type specifiers",
                    ));
                }
            }
        } else {
            let (signed, unsigned) = (c("signed"), c("unsigned"));
            if signed + unsigned > 1 {
                return Err(RawError::new(span, "conflicting signedness specifiers"));
            }
            let sign = unsigned == 0;
            let total: u32 = counts.values().sum::<u32>() - signed - unsigned;
            let kind = match (
                c("void"),
                c("_Bool"),
                c("char"),
                c("short"),
                c("long"),
                c("int"),
            ) {
                (1, 0, 0, 0, 0, 0) if total == 1 && signed + unsigned == 0 => None,
                (0, 1, 0, 0, 0, 0) if total == 1 && signed + unsigned == 0 => Some(IntKind::Bool),
                (0, 0, 1, 0, 0, 0) if total == 1 => Some(IntKind::Char),
                (0, 0, 0, 1, 0, i) if i <= 1 && total == 1 + i => Some(IntKind::Short),
                (0, 0, 0, 0, 1, i) if i <= 1 && total == 1 + i => Some(IntKind::Long),
                (0, 0, 0, 0, 2, i) if i <= 1 && total == 2 + i => Some(IntKind::LongLong),
                (0, 0, 0, 0, 0, i)
                    if i <= 1 && total == i && (i == 1 || signed + unsigned == 1) =>
                {
                    Some(IntKind::Int)
                }
                _ => {
                    return Err(RawError::new(
                        span,
                        if counts.is_empty() {
                            "expected a type".to_string()
                        } else {
                            "invalid combination of type specifiers".to_string()
                        },
                    ));
                }
            };
            match kind {
                None => CType::Void,
                Some(k) => CType::int(IntTy::new(k, sign)),
            }
        };
        Ok(Specs {
            ty,
            is_const,
            is_static,
            is_typedef,
        })
    }

    /// After `struct`: a tag, a member list, or both; the struct type.
    fn struct_specifier(&mut self, at: Span, is_union: bool) -> CResult<CType> {
        let tag = self.peek().and_then(Token::ident).map(str::to_string);
        let tag_span = if tag.is_some() {
            let sp = self.span();
            self.pos += 1;
            sp
        } else {
            at
        };
        let id = match tag.as_ref().and_then(|t| self.tags.get(t)) {
            Some(id) if !(self.at("{") && self.structs[id.0 as usize].complete) => *id,
            Some(_) => {
                return Err(RawError::new(
                    tag_span,
                    format!("redefinition of 'struct {}'", tag.unwrap_or_default()),
                ));
            }
            None => {
                if tag.is_none() && !self.at("{") {
                    return Err(RawError::new(
                        self.span(),
                        format!("expected a struct tag or '{{', found {}", self.found()),
                    ));
                }
                let id = StructId(self.structs.len() as u32);
                self.structs.push(StructDef {
                    name: tag.clone().unwrap_or_default(),
                    fields: Vec::new(),
                    complete: false,
                    is_union,
                    span: tag_span,
                });
                if let Some(t) = tag {
                    self.tags.insert(t, id);
                }
                id
            }
        };
        if !self.eat("{") {
            return Ok(CType::Struct(id));
        }
        self.enter()?;
        let mut fields: Vec<Field> = Vec::new();
        while !self.eat("}") {
            if !self.is_decl_start() {
                return Err(RawError::new(
                    self.span(),
                    format!("expected a member declaration, found {}", self.found()),
                ));
            }
            let specs = self.decl_specs()?;
            if specs.is_typedef || specs.is_static {
                return Err(RawError::new(self.prev_span(), "invalid struct member"));
            }
            loop {
                let d = self.declarator(false, false)?;
                if self.at(":") {
                    return Err(RawError::new(self.span(), "bit-fields are not supported"));
                }
                let ty = compose(&specs.ty, &d)?;
                match &ty {
                    CType::Void => return Err(RawError::new(d.span, "member declared void")),
                    CType::Pointer(_) => {
                        return Err(RawError::new(d.span, "pointer members are not supported")
                            .with_help("a pointer must be resolved to one array at compile time"));
                    }
                    CType::Struct(f) | CType::StructArray(f, _)
                        if !self.structs[f.0 as usize].complete =>
                    {
                        return Err(RawError::new(d.span, "member has incomplete type"));
                    }
                    CType::Array(_, dims) | CType::StructArray(_, dims)
                        if dims.iter().any(Option::is_none) =>
                    {
                        return Err(RawError::new(
                            d.span,
                            "flexible array members are not supported",
                        ));
                    }
                    _ => {}
                }
                if fields.iter().any(|f| f.name == d.name) {
                    return Err(RawError::new(
                        d.span,
                        format!("duplicate member '{}'", d.name),
                    ));
                }
                fields.push(Field {
                    name: d.name,
                    ty,
                    span: d.span,
                });
                if !self.eat(",") {
                    break;
                }
            }
            self.expect(";")?;
        }
        self.depth -= 1;
        if fields.is_empty() {
            return Err(RawError::new(
                tag_span,
                "a struct needs at least one member",
            ));
        }
        let def = &mut self.structs[id.0 as usize];
        def.fields = fields;
        def.complete = true;
        Ok(CType::Struct(id))
    }

    /// After `enum`: a tag, an enumerator list, or both; the type (`int`). The constants
    /// become integer literals wherever they are used.
    fn enum_specifier(&mut self, at: Span) -> CResult<CType> {
        if self.peek().and_then(Token::ident).is_some() {
            self.pos += 1;
        }
        if !self.eat("{") {
            if self.prev_span() == at {
                return Err(RawError::new(
                    self.span(),
                    format!("expected an enum tag or '{{', found {}", self.found()),
                ));
            }
            return Ok(CType::int(IntTy::INT));
        }
        let mut next: i64 = 0;
        while !self.eat("}") {
            let Some(name) = self.peek().and_then(Token::ident) else {
                return Err(RawError::new(
                    self.span(),
                    format!("expected an enumerator, found {}", self.found()),
                ));
            };
            let sp = self.span();
            self.pos += 1;
            if self.eat("=") {
                let e = self.cond()?;
                next = eval_const(&e)?.0;
            }
            if i32::try_from(next).is_err() {
                return Err(RawError::new(
                    sp,
                    format!("enumerator value {next} does not fit 'int'"),
                ));
            }
            if self.enum_consts.insert(name.to_string(), next).is_some() {
                return Err(RawError::new(
                    sp,
                    format!("redefinition of enumerator '{name}'"),
                ));
            }
            next += 1;
            if !self.eat(",") {
                self.expect("}")?;
                break;
            }
        }
        Ok(CType::int(IntTy::INT))
    }

    /// Skips the qualifiers after a `*` (`const`, `restrict`, `volatile`).
    fn skip_qualifiers(&mut self) {
        while matches!(
            self.peek().and_then(Token::ident),
            Some("const" | "restrict" | "__restrict" | "volatile")
        ) {
            self.pos += 1;
        }
    }

    /// An array dimension after its `[`: a positive integer constant, then `]`.
    fn array_size(&mut self) -> CResult<u64> {
        let e = self.assign()?;
        let (v, _) = eval_const(&e)?;
        if v <= 0 || v > (1 << 30) {
            return Err(RawError::new(e.span, format!("invalid array size {v}")));
        }
        self.expect("]")?;
        Ok(v as u64)
    }

    /// A declarator: `*`s, a name (none where `allow_abstract`, as in a prototype's
    /// parameters), then array dimensions or (where `allow_function`) a parameter list.
    fn declarator(&mut self, allow_function: bool, allow_abstract: bool) -> CResult<Declarator> {
        let mut ptr = false;
        while self.at("*") {
            if ptr {
                return Err(RawError::new(
                    self.span(),
                    "pointers to pointers are not supported",
                ));
            }
            ptr = true;
            self.pos += 1;
            self.skip_qualifiers();
        }
        let mut ptr_dims = Vec::new();
        let paren = self.at("(") && self.peek_at(1).is_some_and(|t| t.is_punct("*"));
        if self.at("(") && !paren {
            return Err(RawError::new(
                self.span(),
                "parenthesized declarators (function pointers) are not supported",
            ));
        }
        if paren {
            self.pos += 2;
            self.skip_qualifiers();
        }
        let span = self.span();
        let name = match self.peek().and_then(Token::ident) {
            Some(name) if !TYPE_WORDS.contains(&name) => {
                self.pos += 1;
                name.to_string()
            }
            Some(name) => return Err(RawError::new(span, format!("unexpected '{name}'"))),
            None if allow_abstract && (self.at(",") || self.at(")") || self.at("[")) => {
                String::new()
            }
            None => {
                return Err(RawError::new(
                    span,
                    format!("expected an identifier, found {}", self.found()),
                ));
            }
        };
        if paren {
            self.expect(")")?;
            if !self.at("[") {
                return Err(RawError::new(
                    self.span(),
                    "parenthesized declarators (function pointers) are not supported",
                ));
            }
            while self.eat("[") {
                ptr_dims.push(Some(self.array_size()?));
            }
        }
        let mut d = Declarator {
            name,
            span,
            ptr,
            ptr_dims,
            dims: Vec::new(),
            params: None,
        };
        if self.at("(") {
            if !allow_function {
                return Err(RawError::new(self.span(), "unexpected '(' in declaration"));
            }
            self.pos += 1;
            d.params = Some(self.params()?);
            return Ok(d);
        }
        while self.eat("[") {
            if self.eat("]") {
                d.dims.push(None);
                continue;
            }
            d.dims.push(Some(self.array_size()?));
        }
        check_size(&d.dims, span)?;
        if d.dims.iter().skip(1).any(Option::is_none) {
            return Err(RawError::new(
                span,
                "only the first array dimension may be omitted",
            ));
        }
        Ok(d)
    }

    /// The declarations of an old-style definition's parameters (`int f(a, b) int a; int
    /// *b; { ... }`), up to the body; a parameter not declared is an `int`.
    fn knr_declarations(&mut self, params: &mut [Param]) -> CResult<()> {
        while !self.at("{") && !self.at(";") {
            if !self.is_decl_start() {
                return Err(RawError::new(
                    self.span(),
                    format!(
                        "expected a parameter declaration or '{{', found {}",
                        self.found()
                    ),
                ));
            }
            let specs = self.decl_specs()?;
            loop {
                let d = self.declarator(false, false)?;
                let ty = compose(&specs.ty, &d)?;
                let Some(p) = params.iter_mut().find(|p| p.name == d.name) else {
                    return Err(RawError::new(
                        d.span,
                        format!("'{}' is not a parameter of this function", d.name),
                    ));
                };
                p.ty = ty;
                p.is_const = specs.is_const;
                if !self.eat(",") {
                    break;
                }
            }
            self.expect(";")?;
        }
        Ok(())
    }

    fn params(&mut self) -> CResult<Vec<Param>> {
        let mut ps = Vec::new();
        if self.eat(")") {
            return Ok(ps);
        }
        if !self.is_decl_start()
            && self.peek().and_then(Token::ident).is_some()
            && self
                .peek_at(1)
                .is_some_and(|t| t.is_punct(",") || t.is_punct(")"))
        {
            // An old-style identifier list: the types come after the ')'.
            loop {
                let Some(name) = self.peek().and_then(Token::ident) else {
                    return Err(RawError::new(
                        self.span(),
                        format!("expected a parameter name, found {}", self.found()),
                    ));
                };
                ps.push(Param {
                    name: name.to_string(),
                    ty: CType::int(IntTy::INT),
                    is_const: false,
                    span: self.span(),
                });
                self.pos += 1;
                if !self.eat(",") {
                    self.expect(")")?;
                    self.knr_params = true;
                    return Ok(ps);
                }
            }
        }
        if self.at_word("void") && self.peek_at(1).is_some_and(|t| t.is_punct(")")) {
            self.pos += 2;
            return Ok(ps);
        }
        loop {
            if self.at("...") {
                return Err(RawError::new(
                    self.span(),
                    "variadic functions are not supported",
                ));
            }
            if !self.is_decl_start() {
                return Err(RawError::new(
                    self.span(),
                    format!("expected a parameter declaration, found {}", self.found()),
                ));
            }
            let specs = self.decl_specs()?;
            let d = self.declarator(false, true)?;
            let ty = compose(&specs.ty, &d)?;
            if ty == CType::Void {
                return Err(RawError::new(d.span, "parameter declared void"));
            }
            let name = if d.name.is_empty() {
                format!("arg{}", ps.len())
            } else {
                d.name
            };
            ps.push(Param {
                name,
                ty,
                is_const: specs.is_const,
                span: d.span,
            });
            if !self.eat(",") {
                self.expect(")")?;
                return Ok(ps);
            }
        }
    }

    fn compound(&mut self) -> CResult<Stmt> {
        self.enter()?;
        let start = self.expect("{")?;
        let mut items = Vec::new();
        while !self.at("}") {
            if self.peek().is_none() {
                return Err(RawError::new(self.eof, "expected '}' at end of input"));
            }
            items.push(self.block_item()?);
        }
        let end = self.expect("}")?;
        self.depth -= 1;
        Ok(Stmt {
            kind: StmtKind::Block(items),
            span: start.to(end),
        })
    }

    fn block_item(&mut self) -> CResult<Stmt> {
        if !self.is_decl_start() {
            return self.stmt();
        }
        let start = self.span();
        let specs = self.decl_specs()?;
        if specs.is_typedef {
            self.typedef_rest(&specs)?;
            return Ok(Stmt {
                kind: StmtKind::Empty,
                span: start,
            });
        }
        let mut decls = Vec::new();
        if self.at(";") {
            // `struct tag { ... };` inside a function: only the type.
            let end = self.expect(";")?;
            return Ok(Stmt {
                kind: StmtKind::Empty,
                span: start.to(end),
            });
        }
        loop {
            let d = self.declarator(false, false)?;
            decls.push(self.finish_decl(&specs, d)?);
            if !self.eat(",") {
                break;
            }
        }
        let end = self.expect(";")?;
        Ok(Stmt {
            kind: StmtKind::Decl(decls),
            span: start.to(end),
        })
    }

    fn stmt(&mut self) -> CResult<Stmt> {
        self.enter()?;
        let s = self.stmt_inner();
        self.depth -= 1;
        s
    }

    fn paren_expr(&mut self) -> CResult<Expr> {
        self.expect("(")?;
        let e = self.expr()?;
        self.expect(")")?;
        Ok(e)
    }

    fn stmt_inner(&mut self) -> CResult<Stmt> {
        let start = self.span();
        if self.at("{") {
            return self.compound();
        }
        if self.eat(";") {
            return Ok(Stmt {
                kind: StmtKind::Empty,
                span: start,
            });
        }
        let word = self.peek().and_then(Token::ident).unwrap_or("");
        let mk = |kind, end: Span| Stmt {
            kind,
            span: start.to(end),
        };
        match word {
            "if" => {
                self.pos += 1;
                let c = self.paren_expr()?;
                let t = self.stmt()?;
                let e = if self.at_word("else") {
                    self.pos += 1;
                    Some(Box::new(self.stmt()?))
                } else {
                    None
                };
                let end = self.prev_span();
                Ok(mk(StmtKind::If(c, Box::new(t), e), end))
            }
            "while" => {
                self.pos += 1;
                let c = self.paren_expr()?;
                let b = self.stmt()?;
                Ok(mk(StmtKind::While(c, Box::new(b)), self.prev_span()))
            }
            "do" => {
                self.pos += 1;
                let b = self.stmt()?;
                if !self.at_word("while") {
                    return Err(RawError::new(
                        self.span(),
                        format!("expected 'while', found {}", self.found()),
                    ));
                }
                self.pos += 1;
                let c = self.paren_expr()?;
                let end = self.expect(";")?;
                Ok(mk(StmtKind::DoWhile(Box::new(b), c), end))
            }
            "for" => {
                self.pos += 1;
                self.expect("(")?;
                let init = if self.eat(";") {
                    None
                } else if self.is_decl_start() {
                    Some(Box::new(self.block_item()?))
                } else {
                    let e = self.expr()?;
                    let sp = e.span;
                    self.expect(";")?;
                    Some(Box::new(Stmt {
                        kind: StmtKind::Expr(e),
                        span: sp,
                    }))
                };
                let cond = if self.at(";") {
                    None
                } else {
                    Some(self.expr()?)
                };
                self.expect(";")?;
                let step = if self.at(")") {
                    None
                } else {
                    Some(self.expr()?)
                };
                self.expect(")")?;
                let body = self.stmt()?;
                Ok(mk(
                    StmtKind::For(init, cond, step, Box::new(body)),
                    self.prev_span(),
                ))
            }
            "switch" => {
                self.pos += 1;
                let c = self.paren_expr()?;
                let b = self.stmt()?;
                Ok(mk(StmtKind::Switch(c, Box::new(b)), self.prev_span()))
            }
            "case" => {
                self.pos += 1;
                let v = self.cond()?;
                if self.at("...") {
                    return Err(RawError::new(self.span(), "case ranges are not supported"));
                }
                self.expect(":")?;
                let s = self.case_body()?;
                Ok(mk(StmtKind::Case(v, Box::new(s)), start))
            }
            "default" => {
                self.pos += 1;
                self.expect(":")?;
                let s = self.case_body()?;
                Ok(mk(StmtKind::Default(Box::new(s)), start))
            }
            "break" => {
                self.pos += 1;
                let end = self.expect(";")?;
                Ok(mk(StmtKind::Break, end))
            }
            "continue" => {
                self.pos += 1;
                let end = self.expect(";")?;
                Ok(mk(StmtKind::Continue, end))
            }
            "return" => {
                self.pos += 1;
                let e = if self.at(";") {
                    None
                } else {
                    Some(self.expr()?)
                };
                let end = self.expect(";")?;
                Ok(mk(StmtKind::Return(e), end))
            }
            "goto" => {
                self.pos += 1;
                let Some(name) = self.peek().and_then(Token::ident).map(str::to_string) else {
                    return Err(RawError::new(
                        self.span(),
                        "expected a label name after 'goto'",
                    ));
                };
                self.pos += 1;
                let end = self.expect(";")?;
                Ok(mk(StmtKind::Goto(name), end))
            }
            "else" => Err(RawError::new(start, "'else' without a previous 'if'")),
            _ => {
                if !word.is_empty() && self.peek_at(1).is_some_and(|t| t.is_punct(":")) {
                    let name = word.to_string();
                    self.pos += 2;
                    let s = self.case_body()?;
                    return Ok(Stmt {
                        kind: StmtKind::Label(name, Box::new(s)),
                        span: start,
                    });
                }
                let e = self.expr()?;
                let end = self.expect(";")?;
                Ok(mk(StmtKind::Expr(e), end))
            }
        }
    }

    /// Statement after a `case`/`default` label; a declaration there is a C error.
    fn case_body(&mut self) -> CResult<Stmt> {
        if self.at("}") {
            // `case X: }` — label at the end of a block: treat as an empty statement.
            return Ok(Stmt {
                kind: StmtKind::Empty,
                span: self.span(),
            });
        }
        if self.is_decl_start() {
            return Err(RawError::new(
                self.span(),
                "a label must be followed by a statement, not a declaration",
            ));
        }
        self.stmt()
    }

    // ---- expressions ----

    /// `expr` (with comma operator).
    fn expr(&mut self) -> CResult<Expr> {
        let mut e = self.assign()?;
        while self.eat(",") {
            let r = self.assign()?;
            let span = e.span.to(r.span);
            e = Expr {
                kind: ExprKind::Comma(Box::new(e), Box::new(r)),
                span,
            };
        }
        Ok(e)
    }

    fn assign(&mut self) -> CResult<Expr> {
        let lhs = self.cond()?;
        let op = match self.peek().map(|t| &t.kind) {
            Some(TokKind::Punct(p)) => match *p {
                "=" => Some(None),
                "+=" => Some(Some(BinOp::Add)),
                "-=" => Some(Some(BinOp::Sub)),
                "*=" => Some(Some(BinOp::Mul)),
                "/=" => Some(Some(BinOp::Div)),
                "%=" => Some(Some(BinOp::Rem)),
                "<<=" => Some(Some(BinOp::Shl)),
                ">>=" => Some(Some(BinOp::Shr)),
                "&=" => Some(Some(BinOp::And)),
                "|=" => Some(Some(BinOp::Or)),
                "^=" => Some(Some(BinOp::Xor)),
                _ => None,
            },
            _ => None,
        };
        let Some(op) = op else { return Ok(lhs) };
        let op_span = self.span();
        self.pos += 1;
        self.enter()?;
        let rhs = self.assign()?;
        self.depth -= 1;
        let span = lhs.span.to(rhs.span).to(op_span);
        Ok(Expr {
            kind: ExprKind::Assign(op, Box::new(lhs), Box::new(rhs)),
            span,
        })
    }

    fn cond(&mut self) -> CResult<Expr> {
        let c = self.binary(1)?;
        if !self.eat("?") {
            return Ok(c);
        }
        self.enter()?;
        let t = self.expr()?;
        self.expect(":")?;
        let f = self.cond()?;
        self.depth -= 1;
        let span = c.span.to(f.span);
        Ok(Expr {
            kind: ExprKind::Cond(Box::new(c), Box::new(t), Box::new(f)),
            span,
        })
    }

    fn binop_here(&self) -> Option<(BinOp, u32)> {
        let p = match &self.peek()?.kind {
            TokKind::Punct(p) => *p,
            _ => return None,
        };
        Some(match p {
            "||" => (BinOp::LogOr, 1),
            "&&" => (BinOp::LogAnd, 2),
            "|" => (BinOp::Or, 3),
            "^" => (BinOp::Xor, 4),
            "&" => (BinOp::And, 5),
            "==" => (BinOp::Eq, 6),
            "!=" => (BinOp::Ne, 6),
            "<" => (BinOp::Lt, 7),
            ">" => (BinOp::Gt, 7),
            "<=" => (BinOp::Le, 7),
            ">=" => (BinOp::Ge, 7),
            "<<" => (BinOp::Shl, 8),
            ">>" => (BinOp::Shr, 8),
            "+" => (BinOp::Add, 9),
            "-" => (BinOp::Sub, 9),
            "*" => (BinOp::Mul, 10),
            "/" => (BinOp::Div, 10),
            "%" => (BinOp::Rem, 10),
            _ => return None,
        })
    }

    fn binary(&mut self, min_prec: u32) -> CResult<Expr> {
        let mut lhs = self.unary()?;
        while let Some((op, prec)) = self.binop_here() {
            if prec < min_prec {
                break;
            }
            let op_span = self.span();
            self.pos += 1;
            let rhs = self.binary(prec + 1)?;
            let span = lhs.span.to(rhs.span).to(op_span);
            lhs = Expr {
                kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
                span,
            };
        }
        Ok(lhs)
    }

    fn is_type_name_at(&self, k: usize) -> bool {
        match self.peek_at(k).and_then(Token::ident) {
            Some(w) => TYPE_WORDS.contains(&w) || self.typedefs.contains_key(w),
            None => false,
        }
    }

    fn type_name(&mut self) -> CResult<CType> {
        let specs = self.decl_specs()?;
        if self.at("*") {
            let d = self.declarator(false, true)?;
            if !d.name.is_empty() {
                return Err(RawError::new(d.span, "unexpected name in a type name"));
            }
            return compose(&specs.ty, &d);
        }
        let mut dims = Vec::new();
        while self.eat("[") {
            dims.push(Some(self.array_size()?));
        }
        check_size(&dims, self.prev_span())?;
        Ok(match (specs.ty, dims.is_empty()) {
            (t, true) => t,
            (CType::Scalar(t), false) => CType::Array(t, dims),
            (CType::Struct(t), false) => CType::StructArray(t, dims),
            _ => return Err(RawError::new(self.prev_span(), "invalid type name")),
        })
    }

    fn unary(&mut self) -> CResult<Expr> {
        self.enter()?;
        let r = self.unary_inner();
        self.depth -= 1;
        r
    }

    fn unary_inner(&mut self) -> CResult<Expr> {
        let start = self.span();
        let Some(t) = self.peek() else {
            return Err(RawError::new(
                self.eof,
                "expected an expression, found end of file",
            ));
        };
        let un = match &t.kind {
            TokKind::Punct("-") => Some(UnOp::Neg),
            TokKind::Punct("+") => Some(UnOp::Plus),
            TokKind::Punct("!") => Some(UnOp::Not),
            TokKind::Punct("~") => Some(UnOp::BitNot),
            TokKind::Punct("*") => Some(UnOp::Deref),
            TokKind::Punct("&") => Some(UnOp::AddrOf),
            _ => None,
        };
        if let Some(op) = un {
            self.pos += 1;
            let e = self.unary()?;
            let span = start.to(e.span);
            return Ok(Expr {
                kind: ExprKind::Unary(op, Box::new(e)),
                span,
            });
        }
        if t.is_punct("++") || t.is_punct("--") {
            let inc = t.is_punct("++");
            self.pos += 1;
            let e = self.unary()?;
            let span = start.to(e.span);
            return Ok(Expr {
                kind: ExprKind::IncDec {
                    pre: true,
                    inc,
                    expr: Box::new(e),
                },
                span,
            });
        }
        if t.ident() == Some("sizeof") {
            self.pos += 1;
            if self.at("(") && self.is_type_name_at(1) {
                self.pos += 1;
                let ty = self.type_name()?;
                let end = self.expect(")")?;
                let size = self.size_of(&ty, start)?;
                return Ok(Expr {
                    kind: ExprKind::IntLit(size, IntTy::ULONG),
                    span: start.to(end),
                });
            }
            let e = self.unary()?;
            let span = start.to(e.span);
            return Ok(Expr {
                kind: ExprKind::SizeOf(Box::new(e)),
                span,
            });
        }
        if t.is_punct("(") && self.is_type_name_at(1) {
            self.pos += 1;
            let ty = self.type_name()?;
            self.expect(")")?;
            let e = self.unary()?;
            let span = start.to(e.span);
            return Ok(Expr {
                kind: ExprKind::Cast(ty, Box::new(e)),
                span,
            });
        }
        self.postfix()
    }

    fn postfix(&mut self) -> CResult<Expr> {
        let mut e = self.primary()?;
        loop {
            if self.eat("[") {
                let i = self.expr()?;
                let end = self.expect("]")?;
                let span = e.span.to(end);
                e = Expr {
                    kind: ExprKind::Index(Box::new(e), Box::new(i)),
                    span,
                };
            } else if self.at("(") {
                let ExprKind::Ident(name) = &e.kind else {
                    return Err(RawError::new(
                        self.span(),
                        "calls through expressions (function pointers) are not supported",
                    ));
                };
                let name = name.clone();
                self.pos += 1;
                let mut args = Vec::new();
                if !self.at(")") {
                    loop {
                        args.push(self.assign()?);
                        if !self.eat(",") {
                            break;
                        }
                    }
                }
                let end = self.expect(")")?;
                let span = e.span.to(end);
                e = Expr {
                    kind: ExprKind::Call(name, args),
                    span,
                };
            } else if self.at("++") || self.at("--") {
                if !matches!(
                    e.kind,
                    ExprKind::Ident(_)
                        | ExprKind::Index(..)
                        | ExprKind::Member { .. }
                        | ExprKind::Unary(UnOp::Deref, _)
                ) {
                    // `x++ ++`: the result of `++` is not an lvalue (and rejecting it here
                    // keeps chains of postfix operators from nesting without bound).
                    return Err(RawError::new(
                        self.span(),
                        "the operand of postfix increment or decrement is not assignable",
                    ));
                }
                let inc = self.at("++");
                let end = self.span();
                self.pos += 1;
                let span = e.span.to(end);
                e = Expr {
                    kind: ExprKind::IncDec {
                        pre: false,
                        inc,
                        expr: Box::new(e),
                    },
                    span,
                };
            } else if self.at(".") || self.at("->") {
                let arrow = self.at("->");
                self.pos += 1;
                let Some(member) = self.peek().and_then(Token::ident) else {
                    return Err(RawError::new(
                        self.span(),
                        format!("expected a member name, found {}", self.found()),
                    ));
                };
                let end = self.span();
                self.pos += 1;
                let span = e.span.to(end);
                e = Expr {
                    kind: ExprKind::Member {
                        base: Box::new(e),
                        member: member.to_string(),
                        arrow,
                    },
                    span,
                };
            } else {
                return Ok(e);
            }
        }
    }

    fn primary(&mut self) -> CResult<Expr> {
        let Some(t) = self.peek() else {
            return Err(RawError::new(
                self.eof,
                "expected an expression, found end of file",
            ));
        };
        let span = t.span;
        let kind = match &t.kind {
            TokKind::Int {
                value,
                unsigned,
                longs,
                decimal,
            } => {
                let ty = literal_type(*value, *unsigned, *longs, *decimal).ok_or_else(|| {
                    RawError::new(span, "integer literal is too large for any integer type")
                })?;
                ExprKind::IntLit(*value, ty)
            }
            TokKind::Char(v) => ExprKind::IntLit(*v as u64, IntTy::INT),
            TokKind::Ident(n) => {
                if TYPE_WORDS.contains(&n.as_str()) || self.typedefs.contains_key(n) {
                    return Err(RawError::new(span, format!("unexpected type name '{n}'")));
                }
                match self.enum_consts.get(n) {
                    Some(v) => ExprKind::IntLit(*v as u64, IntTy::INT),
                    None => ExprKind::Ident(n.clone()),
                }
            }
            TokKind::Float { bits, ty } => ExprKind::FloatLit(*bits, *ty),
            TokKind::Str(_) => {
                return Err(RawError::new(span, "string literals are not supported"));
            }
            TokKind::Punct("(") => {
                self.pos += 1;
                let mut e = self.expr()?;
                let end = self.expect(")")?;
                return Ok(Expr {
                    kind: e.take_kind(),
                    span: span.to(end),
                });
            }
            _ => {
                return Err(RawError::new(
                    span,
                    format!("expected an expression, found {}", t.describe()),
                ));
            }
        };
        self.pos += 1;
        Ok(Expr { kind, span })
    }
}

impl Parser<'_> {
    /// `sizeof` a type, laid out as on x86-64 (structs padded to their members' alignment).
    fn size_of(&self, ty: &CType, at: Span) -> CResult<u64> {
        Ok(layout(&self.structs, ty, at)?.0)
    }
}

/// Size and alignment in bytes of a type, laid out as on x86-64 (structs padded to their
/// members' alignment), given the file's structs.
pub(super) fn layout(structs: &[StructDef], ty: &CType, at: Span) -> CResult<(u64, u64)> {
    let count = |dims: &[Option<u64>]| dims.iter().flatten().product::<u64>();
    Ok(match ty {
        CType::Void => (1, 1),
        CType::Scalar(t) => {
            let n = scalar_size(*t);
            (
                n,
                if t.bits() > 64 {
                    8
                } else {
                    n.next_power_of_two()
                },
            )
        }
        CType::Pointer(_) => (8, 8),
        CType::Array(t, dims) => {
            let (n, a) = layout(structs, &CType::Scalar(*t), at)?;
            (n * count(dims), a)
        }
        CType::StructArray(id, dims) => {
            let (n, a) = layout(structs, &CType::Struct(*id), at)?;
            (n * count(dims), a)
        }
        CType::Struct(id) => {
            let def = &structs[id.0 as usize];
            if !def.complete {
                return Err(RawError::new(
                    at,
                    format!("'sizeof' of the incomplete type 'struct {}'", def.name),
                ));
            }
            let (mut size, mut align) = (0u64, 1u64);
            for f in &def.fields {
                let (n, a) = layout(structs, &f.ty, at)?;
                size = if def.is_union {
                    size.max(n)
                } else {
                    size.next_multiple_of(a) + n
                };
                align = align.max(a);
            }
            (size.next_multiple_of(align), align)
        }
    })
}

/// `sizeof` a scalar type: its bytes, a `_BitInt` wider than 64 bits rounded up to whole
/// 8-byte words as the x86-64 ABI lays it out.
fn scalar_size(t: Scalar) -> u64 {
    let bits = t.bits();
    if bits > 64 {
        u64::from(bits.div_ceil(64) * 8)
    } else {
        u64::from(bits.div_ceil(8))
    }
}
