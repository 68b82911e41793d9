//! Parsing of the file structure: aliases, `module`, `handshake.func` and function bodies.

use super::ast::{
    ArgAst, Attr, AttrValue, EsiInstance, FileAst, FuncAst, OpSpec, PType, ResultGroup, SType,
    ValueUse,
};
use super::diag::{ErrExt, Span};
use super::lexer::Tok;
use super::parser::{PResult, Parser, take_attr};
use handscope_sim::{Op, Type};

/// A parsed region body: optional entry-block arguments, operations, closing brace.
struct Region {
    block_args: Option<Vec<ArgAst>>,
    ops: Vec<OpSpec>,
    close: Span,
    empty: bool,
}

impl<'a> Parser<'a> {
    /// Parses a whole file.
    pub(crate) fn parse_file(&mut self) -> PResult<FileAst> {
        let mut ast = FileAst::default();
        self.parse_items(&mut ast, true)?;
        Ok(ast)
    }

    fn parse_items(&mut self, ast: &mut FileAst, top: bool) -> PResult<()> {
        loop {
            let tok = self.peek()?;
            match tok {
                Tok::Eof if top => return Ok(()),
                Tok::RBrace if !top => return Ok(()),
                Tok::Hash(name) => {
                    let sp = self.bump()?.1;
                    self.expect(&Tok::Equal)?;
                    if self.at_word("loc")? {
                        let l = self.parse_loc()?;
                        if ast.loc_aliases.insert(name.clone(), (l, sp)).is_some() {
                            return Err(
                                self.err(sp, format!("redefinition of attribute alias `#{name}`"))
                            );
                        }
                    } else {
                        self.parse_attr_value()?;
                    }
                }
                Tok::Bang(name) => {
                    let sp = self.bump()?.1;
                    self.expect(&Tok::Equal)?;
                    let t = self.parse_type()?;
                    if self.type_aliases.insert(name.clone(), t.ty).is_some() {
                        return Err(self.err(sp, format!("redefinition of type alias `!{name}`")));
                    }
                }
                Tok::Ident(w) if w == "module" || w == "builtin.module" => {
                    let open = self.module_open()?;
                    self.parse_nested_items(ast, open)?;
                    self.expect(&Tok::RBrace)?;
                    self.parse_opt_loc()?;
                }
                Tok::Str(w) if w == "builtin.module" => {
                    self.bump()?;
                    self.expect(&Tok::LParen)?;
                    self.expect(&Tok::RParen)?;
                    self.parse_opt_props()?;
                    self.expect(&Tok::LParen)?;
                    let open = self.expect(&Tok::LBrace)?;
                    if let Tok::Caret(_) = self.peek()? {
                        self.bump()?;
                        self.expect(&Tok::Colon)?;
                    }
                    self.parse_nested_items(ast, open)?;
                    self.expect(&Tok::RBrace)?;
                    self.expect(&Tok::RParen)?;
                    self.parse_opt_attr_dict()?;
                    self.expect_empty_functional_type()?;
                    self.parse_opt_loc()?;
                }
                Tok::Ident(w) if w == "handshake.func" => {
                    let f = self.parse_func_custom()?;
                    ast.funcs.push(f);
                }
                Tok::Str(w) if w == "handshake.func" => {
                    let f = self.parse_func_generic()?;
                    ast.funcs.push(f);
                }
                Tok::Ident(w) if w == "hw.module" => self.parse_hw_module(ast)?,
                Tok::Ident(w) if w == "func.func" || w == "func" => {
                    let sp = self.peek_span()?;
                    return Err(self
                        .err(sp, format!("`{w}` is not a handshake function"))
                        .with_help("run CIRCT's `lower-cf-to-handshake` first; Handscope reads `handshake.func`"));
                }
                Tok::Eof => return Err(self.expected("`}`")),
                _ => return Err(self.expected("`handshake.func` or `module`")),
            }
        }
    }

    /// The items of a `module { ... }` opened at `open`, one nesting level deeper (modules
    /// nested past the parser's depth limit are an error there, not a stack overflow).
    fn parse_nested_items(&mut self, ast: &mut FileAst, open: Span) -> PResult<()> {
        self.enter(open)?;
        self.parse_items(ast, false)?;
        self.leave();
        Ok(())
    }

    /// Skims an `hw.module` (ports, attributes, body) and records the handshake functions it
    /// instantiates with `handshake.esi_instance`; everything else in it is ignored.
    fn parse_hw_module(&mut self, ast: &mut FileAst) -> PResult<()> {
        self.bump()?;
        if self.at_word("private")? || self.at_word("public")? {
            self.bump()?;
        }
        let module = match self.peek()? {
            Tok::At(name) => {
                self.bump()?;
                name
            }
            _ => return Err(self.expected("a module name (`@name`)")),
        };
        if self.at(&Tok::Less)? {
            self.skip_balanced()?;
        }
        if self.at(&Tok::LParen)? {
            self.skip_balanced()?;
        }
        if self.eat(&Tok::Arrow)? && self.at(&Tok::LParen)? {
            self.skip_balanced()?;
        }
        if self.eat_word("attributes")? {
            self.parse_attr_dict()?;
        }
        self.expect(&Tok::LBrace)?;
        let mut depth = 1u32;
        while depth > 0 {
            let (t, sp) = self.bump()?;
            match t {
                Tok::LBrace => depth += 1,
                Tok::RBrace => depth -= 1,
                Tok::Eof => {
                    return Err(self
                        .err(
                            sp,
                            format!("unexpected end of file inside `hw.module @{module}`"),
                        )
                        .with_label("file ends here"));
                }
                Tok::Ident(w) if w == "handshake.esi_instance" => {
                    let (callee, span) = match self.bump()? {
                        (Tok::At(c), s) => (c, s),
                        (_, s) => {
                            return Err(self.err(
                                s,
                                "`handshake.esi_instance` needs the function it instantiates (`@name`)",
                            ));
                        }
                    };
                    let instance = match self.peek()? {
                        Tok::Str(n) => {
                            self.bump()?;
                            Some(n)
                        }
                        _ => None,
                    };
                    ast.esi_instances.push(EsiInstance {
                        module: module.clone(),
                        callee,
                        instance,
                        span,
                    });
                }
                _ => {}
            }
        }
        self.parse_opt_loc()?;
        Ok(())
    }

    /// Parses optional properties `<{...}>`.
    pub(crate) fn parse_opt_props(&mut self) -> PResult<Vec<Attr>> {
        if self.eat(&Tok::Less)? {
            let a = self.parse_attr_dict()?;
            self.expect(&Tok::Greater)?;
            Ok(a)
        } else {
            Ok(Vec::new())
        }
    }

    fn expect_empty_functional_type(&mut self) -> PResult<()> {
        self.expect(&Tok::Colon)?;
        let t = self.parse_type()?;
        match t.ty {
            PType::Func(a, b) if a.is_empty() && b.is_empty() => Ok(()),
            _ => Err(self.err(t.span, "expected `() -> ()`")),
        }
    }

    fn parse_func_custom(&mut self) -> PResult<FuncAst> {
        self.expect_word("handshake.func")?;
        let mut attrs = Vec::new();
        for vis in ["private", "public", "nested"] {
            if self.at_word(vis)? {
                let sp = self.bump()?.1;
                attrs.push(Attr {
                    name: "sym_visibility".into(),
                    name_span: sp,
                    value: AttrValue::Str(vis.into()),
                    value_span: sp,
                    raw: format!("\"{vis}\""),
                });
            }
        }
        let (name, name_span) = match self.peek()? {
            Tok::At(n) => (n, self.bump()?.1),
            _ => return Err(self.expected("a function name (`@name`)")),
        };
        self.expect(&Tok::LParen)?;
        let mut args = Vec::new();
        if !self.at(&Tok::RParen)? {
            loop {
                if self.eat(&Tok::Ellipsis)? {
                    break;
                }
                args.push(self.parse_arg(true)?);
                if !self.eat(&Tok::Comma)? {
                    break;
                }
            }
        }
        self.expect(&Tok::RParen)?;
        let named = args.iter().filter(|a| a.ssa.is_some()).count();
        if named != 0 && named != args.len() {
            let sp = args
                .iter()
                .find(|a| a.ssa.is_none())
                .map_or(name_span, |a| a.ty.span);
            return Err(self.err(sp, "either all or no function arguments must be named"));
        }
        let results = if self.eat(&Tok::Arrow)? {
            if self.eat(&Tok::LParen)? {
                let r = self.parse_type_list_until(&Tok::RParen)?;
                self.expect(&Tok::RParen)?;
                r
            } else {
                vec![self.parse_type()?]
            }
        } else {
            Vec::new()
        };
        if self.eat_word("attributes")? {
            attrs.extend(self.parse_attr_dict()?);
        }
        let mut body = None;
        let mut body_end = name_span;
        if self.at(&Tok::LBrace)? {
            let r = self.parse_region()?;
            body_end = r.close;
            if let Some(bargs) = r.block_args {
                if named != 0 {
                    return Err(self.err(
                        name_span,
                        "function arguments are named twice (signature and entry block)",
                    ));
                }
                args = merge_block_args(self, args, bargs, name_span)?;
            }
            if r.empty {
                return Err(self.err(r.close, "expected a non-empty function body"));
            }
            body = Some(r.ops);
        }
        let loc = self.parse_opt_loc()?;
        Ok(FuncAst {
            name,
            name_span,
            args,
            results,
            attrs,
            body,
            body_end,
            loc,
        })
    }

    fn parse_arg(&mut self, allow_unnamed: bool) -> PResult<ArgAst> {
        let ssa = match self.peek()? {
            Tok::Value { name, index: None } => {
                let sp = self.bump()?.1;
                self.expect(&Tok::Colon)?;
                Some((name, sp))
            }
            _ if allow_unnamed => None,
            _ => return Err(self.expected("a block argument (`%name: type`)")),
        };
        let ty = self.parse_type()?;
        if self.at(&Tok::LBrace)? {
            let s = self.peek_span()?;
            self.parse_attr_dict()?;
            self.warn(s, "argument attributes are ignored");
        }
        let loc = self.parse_opt_loc()?;
        Ok(ArgAst { ssa, ty, loc })
    }

    fn parse_region(&mut self) -> PResult<Region> {
        self.expect(&Tok::LBrace)?;
        let mut block_args = None;
        let mut empty = true;
        if let Tok::Caret(_) = self.peek()? {
            self.bump()?;
            empty = false;
            let mut bargs = Vec::new();
            if self.eat(&Tok::LParen)? {
                if !self.at(&Tok::RParen)? {
                    loop {
                        bargs.push(self.parse_arg(false)?);
                        if !self.eat(&Tok::Comma)? {
                            break;
                        }
                    }
                }
                self.expect(&Tok::RParen)?;
            }
            self.expect(&Tok::Colon)?;
            block_args = Some(bargs);
        }
        let mut ops = Vec::new();
        loop {
            match self.peek()? {
                Tok::RBrace => break,
                Tok::Caret(_) => {
                    let sp = self.peek_span()?;
                    return Err(self
                        .err(sp, "a handshake function must have a single block")
                        .with_help("handshake functions are graphs; control flow is expressed with cond_br/merge"));
                }
                Tok::Eof => return Err(self.expected("`}` closing the function body")),
                _ => {
                    let op = self.parse_op()?;
                    if let Some(source) = always_valid_constant_source(&op, ops.len()) {
                        ops.push(source);
                        let at = op.name_span;
                        let mut constant = op;
                        let trigger = ops.last().map(|s| s.result_groups[0].name.clone());
                        constant.operands = vec![(
                            ValueUse {
                                name: trigger.unwrap_or_default(),
                                index: 0,
                                span: at,
                            },
                            SType {
                                ty: PType::Chan(Type::None),
                                span: at,
                            },
                        )];
                        ops.push(constant);
                    } else {
                        ops.push(op);
                    }
                    empty = false;
                }
            }
        }
        let close = self.expect(&Tok::RBrace)?;
        Ok(Region {
            block_args,
            ops,
            close,
            empty,
        })
    }

    fn parse_func_generic(&mut self) -> PResult<FuncAst> {
        let op_span = self.bump()?.1;
        self.expect(&Tok::LParen)?;
        self.expect(&Tok::RParen)?;
        let mut attrs = self.parse_opt_props()?;
        self.expect(&Tok::LParen)?;
        let region = self.parse_region()?;
        self.expect(&Tok::RParen)?;
        attrs.extend(self.parse_opt_attr_dict()?);
        self.expect_empty_functional_type()?;
        let loc = self.parse_opt_loc()?;
        let (name, name_span) = match take_attr(&mut attrs, "sym_name") {
            Some(Attr {
                value: AttrValue::Str(s),
                value_span,
                ..
            }) => (s, value_span),
            Some(a) => return Err(self.err(a.value_span, "`sym_name` must be a string")),
            None => return Err(self.err(op_span, "missing `sym_name` attribute")),
        };
        let (ins, results) = match take_attr(&mut attrs, "function_type") {
            Some(Attr {
                value:
                    AttrValue::Type(SType {
                        ty: PType::Func(i, o),
                        ..
                    }),
                ..
            }) => (i, o),
            Some(a) => {
                return Err(self.err(a.value_span, "`function_type` must be a function type"));
            }
            None => return Err(self.err(op_span, "missing `function_type` attribute")),
        };
        for drop in ["arg_attrs", "res_attrs"] {
            if let Some(a) = take_attr(&mut attrs, drop) {
                self.warn(a.name_span, format!("`{drop}` ignored"));
            }
        }
        let mut args: Vec<ArgAst> = ins
            .into_iter()
            .map(|ty| ArgAst {
                ssa: None,
                ty,
                loc: None,
            })
            .collect();
        let mut body = None;
        if !region.empty {
            if let Some(bargs) = region.block_args {
                args = merge_block_args(self, args, bargs, name_span)?;
            } else if !args.is_empty() {
                return Err(self.err(
                    region.close,
                    "the entry block must declare the function arguments",
                ));
            }
            body = Some(region.ops);
        }
        Ok(FuncAst {
            name,
            name_span,
            args,
            results,
            attrs,
            body,
            body_end: region.close,
            loc,
        })
    }

    /// Parses one operation (with its results and trailing location) in a function body.
    fn parse_op(&mut self) -> PResult<OpSpec> {
        let start = self.next_start()?;
        self.ops_read += 1;
        if self.ops_read > super::parser::MAX_OPS {
            let at = self.peek_span()?;
            return Err(self
                .err(
                    at,
                    format!(
                        "the file holds more than {} operations (the limit)",
                        handscope_sim::limits::thousands(super::parser::MAX_OPS)
                    ),
                )
                .with_label("over the limit")
                .with_help(format!(
                    "a function has at most {} nodes (instances inlined); Handscope's size limits keep simulations within memory",
                    handscope_sim::limits::thousands(super::parser::MAX_OPS)
                )));
        }
        let mut groups = Vec::new();
        if let Tok::Value { .. } = self.peek()? {
            loop {
                let (t, sp) = self.bump()?;
                let Tok::Value { name, index } = t else {
                    return Err(self.err(
                        sp,
                        format!("expected a result name, found {}", t.describe()),
                    ));
                };
                if index.is_some() {
                    return Err(self.err(sp, "a result definition cannot use `#`"));
                }
                let mut count = 1;
                let mut span = sp;
                if self.eat(&Tok::Colon)? {
                    let (c, csp) = self.expect_u32("a result count")?;
                    if c == 0 {
                        return Err(self.err(csp, "a result group needs at least one result"));
                    }
                    self.within_limit(
                        u64::from(c),
                        handscope_sim::limits::MAX_PORTS as u64,
                        ("a result group of", "results"),
                        csp,
                    )?;
                    count = c;
                    span = sp.join(csp);
                }
                groups.push(ResultGroup { name, count, span });
                if !self.eat(&Tok::Comma)? {
                    break;
                }
                if !matches!(self.peek()?, Tok::Value { .. }) {
                    return Err(self.expected("a result name"));
                }
            }
            self.expect(&Tok::Equal)?;
        }
        let results_span = groups.iter().fold(Span::new(start, start), |s, g| {
            if s.end == s.start {
                g.span
            } else {
                s.join(g.span)
            }
        });
        let mut spec = match self.peek()? {
            Tok::Str(name) => {
                let sp = self.bump()?.1;
                self.parse_generic_op(name, sp)?
            }
            Tok::Ident(name) => {
                let sp = self.bump()?.1;
                self.parse_custom_op(name, sp)?
            }
            _ => return Err(self.expected("an operation")),
        };
        spec.loc = self.parse_opt_loc()?;
        spec.result_groups = groups;
        spec.results_span = results_span;
        spec.span = self.span_from(start);
        Ok(spec)
    }
}

/// Combines signature argument types (maybe unnamed) with entry-block arguments.
fn merge_block_args(
    p: &Parser<'_>,
    sig: Vec<ArgAst>,
    block: Vec<ArgAst>,
    at: Span,
) -> PResult<Vec<ArgAst>> {
    if sig.len() != block.len() {
        let sp = block.first().map_or(at, |a| a.ty.span);
        return Err(p.err(
            sp,
            format!(
                "the function has {} arguments but its entry block declares {}",
                sig.len(),
                block.len()
            ),
        ));
    }
    for (s, b) in sig.iter().zip(&block) {
        if s.ty.ty != b.ty.ty {
            return Err(p.err(
                b.ty.span,
                "entry block argument type differs from the function signature",
            ));
        }
    }
    Ok(block)
}

/// For an `arith.constant` (a constant with no control operand, valid in every cycle): the
/// `source` that triggers it, so that the graph holds the same circuit as a
/// `source -> constant` pair. Its result name cannot be written in MLIR (it holds a space), so
/// it never clashes with the file's own names.
fn always_valid_constant_source(op: &OpSpec, position: usize) -> Option<OpSpec> {
    if !matches!(op.op, Op::Constant { .. }) || !op.operands.is_empty() {
        return None;
    }
    Some(OpSpec {
        op: Op::Source,
        operands: vec![],
        results: vec![Type::None],
        result_groups: vec![ResultGroup {
            name: format!("arith.constant trigger {position}"),
            count: 1,
            span: op.name_span,
        }],
        results_span: op.name_span,
        attrs: vec![],
        loc: op.loc.clone(),
        name_span: op.name_span,
        span: op.span,
    })
}
