//! The Stream-dialect reader: `module`, type aliases, `func.func` over `!stream.stream<T>`,
//! the stream operators with their attributes and regions, `arith` and `stream.pack`/`unpack`
//! in bodies, `stream.yield` and `return`. It reuses the CIRCT reader's tokens, attribute
//! dictionaries, limits and located errors; every type is checked as it is read.

use std::collections::HashMap;

use handscope_sim::{ArithOp, CmpPredicate, Type};

use super::ast::{
    Body, BodyOp, BodyOpKind, CfgBlock, StreamFunc, StreamModule, StreamOp, StreamOpKind, Term,
};
use crate::mlir::Span;
use crate::mlir::ast::{AttrValue, PType, ValueUse};
use crate::mlir::diag::ErrExt;
use crate::mlir::lexer::Tok;
use crate::mlir::parser::{PResult, Parser, take_attr};

/// Widest integer an element, a register or a body value may have.
const MAX_ELEMENT_INT: u16 = 64;

/// A type as the Stream dialect writes it: a stream of elements, or an element (body value).
#[derive(Clone, Debug, PartialEq)]
enum SType {
    Stream(Type),
    Elem(Type),
}

/// The reader.
pub(crate) struct Reader<'a> {
    p: Parser<'a>,
    /// `!name = !stream.stream<..>` aliases (element aliases go to the parser's table).
    stream_aliases: HashMap<String, Type>,
    /// Per mnemonic, the operators numbered so far.
    counts: HashMap<&'static str, usize>,
}

/// An operation's head as read by `Reader::op_head`.
struct OpHead {
    /// Result definitions: name, count (`%x:2`), span.
    defs: Vec<(String, u32, Span)>,
    /// The operation's name (`stream.map`, `arith.addi`).
    name: String,
    /// Span of the name.
    span: Span,
    /// Line and column of the name.
    pos: (u32, u32),
}

/// Values in scope: a name maps to its values (several for `%x:2` and multi-result ops).
type Scope = HashMap<String, Vec<usize>>;

/// A branch's successor as written: the label, its span, and the argument values with their
/// uses.
type Successor = (String, Span, Vec<(usize, ValueUse)>);

/// A branch to resolve once every label is known: the block, which successor, and it.
type PendingBranch = (usize, usize, String, Span, Vec<(usize, ValueUse)>);

impl<'a> Reader<'a> {
    /// A reader of `src`, reported as `file`.
    pub(crate) fn new(src: &'a str, file: &'a str) -> Self {
        Reader {
            p: Parser::new(src, file),
            stream_aliases: HashMap::new(),
            counts: HashMap::new(),
        }
    }

    fn pos(&self, span: Span) -> (u32, u32) {
        let (l, c) = self.p.line_col(span.start);
        (l as u32, c as u32)
    }

    /// Reads the whole file.
    pub(crate) fn parse_file(&mut self) -> PResult<StreamModule> {
        let mut funcs = Vec::new();
        self.items(&mut funcs, false)?;
        if funcs.is_empty() {
            let src = self.p.src();
            let at = src.len() - src.trim_start().len();
            return Err(self
                .p
                .err(Span::new(at, at), "the file defines no `func.func` over streams")
                .with_help(
                    "a stream program is a `func.func @top(%in: !stream.stream<i64>) -> !stream.stream<i64> { ... }`",
                ));
        }
        Ok(StreamModule {
            file: self.p.file().to_string(),
            funcs,
        })
    }

    fn items(&mut self, funcs: &mut Vec<StreamFunc>, nested: bool) -> PResult<()> {
        loop {
            let sp = self.p.peek_span()?;
            match self.p.peek()? {
                Tok::Eof if !nested => return Ok(()),
                Tok::RBrace if nested => return Ok(()),
                Tok::Bang(name) => {
                    self.p.bump()?;
                    self.p.expect(&Tok::Equal)?;
                    match self.stype()? {
                        (SType::Stream(t), _) => {
                            self.stream_aliases.insert(name, t);
                        }
                        (SType::Elem(t), _) => {
                            self.p.type_aliases.insert(name, PType::Chan(t));
                        }
                    }
                }
                Tok::Ident(w) if (w == "module" || w == "builtin.module") && !nested => {
                    self.p.module_open()?;
                    self.items(funcs, true)?;
                    self.p.expect(&Tok::RBrace)?;
                    self.p.parse_opt_loc()?;
                }
                Tok::Ident(w) if w == "func.func" => funcs.push(self.func()?),
                Tok::Ident(w) if w == "handshake.func" => {
                    return Err(self.p.err(
                        sp,
                        "a `handshake.func` in a stream program: give the handshake circuit a file of its own",
                    ));
                }
                t => {
                    return Err(self
                        .p
                        .err(sp, format!("expected `func.func`, found {}", t.describe())));
                }
            }
        }
    }

    /// A type: `!stream.stream<T>`, an alias, or an element type.
    fn stype(&mut self) -> PResult<(SType, Span)> {
        let sp = self.p.peek_span()?;
        if let Tok::Bang(w) = self.p.peek()? {
            if w == "stream.stream" {
                self.p.bump()?;
                self.p.expect(&Tok::Less)?;
                let (t, _) = self.elem_type()?;
                self.p.expect(&Tok::Greater)?;
                return Ok((SType::Stream(t), self.p.span_from(sp.start)));
            }
            if let Some(t) = self.stream_aliases.get(&w) {
                let t = t.clone();
                self.p.bump()?;
                return Ok((SType::Stream(t), sp));
            }
        }
        let (t, sp) = self.elem_type()?;
        Ok((SType::Elem(t), sp))
    }

    /// An element type: integers up to 64 bits and tuples of them.
    fn elem_type(&mut self) -> PResult<(Type, Span)> {
        let t = self.p.parse_type()?;
        let ty = match &t.ty {
            PType::Chan(c) => c.clone(),
            PType::Other(why) => {
                return Err(self.p.err(t.span, format!("unsupported type: {why}")));
            }
            _ => {
                return Err(self
                    .p
                    .err(t.span, "expected an element type (an integer or a tuple)"));
            }
        };
        check_elem(&ty).map_err(|why| self.p.err(t.span, why))?;
        Ok((ty, t.span))
    }

    fn stream_type(&mut self) -> PResult<(Type, Span)> {
        match self.stype()? {
            (SType::Stream(t), sp) => Ok((t, sp)),
            (SType::Elem(t), sp) => Err(self
                .p
                .err(sp, format!("expected a stream type, found `{t}`"))
                .with_help("write `!stream.stream<T>`")),
        }
    }

    fn func(&mut self) -> PResult<StreamFunc> {
        let fsp = self.p.expect_word("func.func")?;
        let name = match self.p.peek()? {
            Tok::At(n) => {
                self.p.bump()?;
                n
            }
            _ => return Err(self.p.expected("a function name (`@name`)")),
        };
        self.p.expect(&Tok::LParen)?;
        let mut scope: Scope = HashMap::new();
        let mut args = Vec::new();
        let mut values = Vec::new();
        if !self.p.at(&Tok::RParen)? {
            loop {
                let (n, nsp) = match self.p.peek()? {
                    Tok::Value { name, index: None } => (name, self.p.bump()?.1),
                    _ => return Err(self.p.expected("an argument (`%in: !stream.stream<i64>`)")),
                };
                self.p.expect(&Tok::Colon)?;
                let (t, _) = self.stream_type()?;
                if self.p.at(&Tok::LBrace)? {
                    self.p.parse_attr_dict()?;
                }
                self.p.parse_opt_loc()?;
                if scope.insert(n.clone(), vec![values.len()]).is_some() {
                    return Err(self
                        .p
                        .err(nsp, format!("argument `%{n}` is declared twice")));
                }
                self.p.within_limit(
                    args.len() as u64 + 1,
                    handscope_sim::limits::MAX_PORTS as u64,
                    ("a function with", "arguments"),
                    nsp,
                )?;
                values.push(t.clone());
                args.push((n, t));
                if !self.p.eat(&Tok::Comma)? {
                    break;
                }
            }
        }
        self.p.expect(&Tok::RParen)?;
        let results: Vec<Type> = if self.p.eat(&Tok::Arrow)? {
            self.result_types()?.into_iter().map(|(t, _)| t).collect()
        } else {
            Vec::new()
        };
        if self.p.eat_word("attributes")? {
            self.p.parse_attr_dict()?;
        }
        self.p.expect(&Tok::LBrace)?;
        let mut ops = Vec::new();
        let mut uses: Vec<Vec<Span>> = vec![Vec::new(); values.len()];
        let returns;
        let ret_names;
        loop {
            let sp = self.p.peek_span()?;
            match self.p.peek()? {
                Tok::Ident(w) if w == "return" || w == "func.return" => {
                    self.p.bump()?;
                    let operands = self.p.parse_operand_list()?;
                    let types = if self.p.eat(&Tok::Colon)? {
                        self.comma_separated(Self::stream_type)?
                    } else {
                        Vec::new()
                    };
                    self.p.parse_opt_loc()?;
                    if operands.len() != results.len() {
                        return Err(self.p.err(
                            sp,
                            format!(
                                "`return` gives {} values, the function declares {} results",
                                operands.len(),
                                results.len()
                            ),
                        ));
                    }
                    let mut r = Vec::new();
                    let mut names = Vec::new();
                    for (k, u) in operands.iter().enumerate() {
                        let v = lookup(&self.p, &scope, u)?;
                        if values[v] != results[k] {
                            return Err(self.p.err(
                                u.span,
                                format!(
                                    "`%{}` is a stream of {}, result {k} is declared a stream of {}",
                                    u.name, values[v], results[k]
                                ),
                            ));
                        }
                        if let Some((t, tsp)) = types.get(k)
                            && *t != values[v]
                        {
                            return Err(self.p.err(
                                *tsp,
                                format!("`%{}` is a stream of {}, not of {t}", u.name, values[v]),
                            ));
                        }
                        uses[v].push(u.span);
                        r.push(v);
                        names.push(u.name.clone());
                    }
                    returns = r;
                    ret_names = names;
                    self.p.expect(&Tok::RBrace)?;
                    break;
                }
                Tok::RBrace => {
                    return Err(self.p.err(sp, "the function body ends without `return`"));
                }
                Tok::Eof => return Err(self.p.expected("`}` closing the function body")),
                _ => {
                    let op = self.stream_op(&mut scope, &mut values, &mut uses)?;
                    ops.push(op);
                }
            }
        }
        // Every stream goes to exactly one place: an operator, a `return` or a `sink`.
        for u in &uses {
            if u.len() > 1 {
                return Err(self
                    .p
                    .err(u[1], "this stream is already used: a stream has one reader")
                    .with_help(
                        "copy a stream with `stream.split` (`stream.yield %v, %v`) to read it twice",
                    ));
            }
        }
        // Result names: the returned values' names, unless they clash.
        let mut result_names: Vec<String> = ret_names.clone();
        let arg_names: Vec<&String> = args.iter().map(|(n, _)| n).collect();
        let clash = |n: &String, k: usize| {
            arg_names.contains(&n)
                || ret_names.iter().enumerate().any(|(j, m)| j != k && m == n)
                || n.chars().next().is_none_or(|c| c.is_ascii_digit())
        };
        for (k, n) in result_names.iter_mut().enumerate() {
            if clash(n, k) {
                *n = format!("out{k}");
            }
        }
        Ok(StreamFunc {
            name,
            args,
            results,
            result_names,
            values,
            ops,
            returns,
            pos: self.pos(fsp),
        })
    }

    /// An operation's head: its result definitions (`%a, %b =` or `%a:2 =`, if any) and its
    /// name; `what` says what was expected instead of a name.
    fn op_head(&mut self, what: &str) -> PResult<OpHead> {
        let mut defs = Vec::new();
        if matches!(self.p.peek()?, Tok::Value { .. }) {
            loop {
                let (name, sp) = match self.p.peek()? {
                    Tok::Value { name, index: None } => (name, self.p.bump()?.1),
                    _ => return Err(self.p.expected("a result name (`%name`)")),
                };
                let count = if self.p.eat(&Tok::Colon)? {
                    self.p.expect_u32("a result count")?.0
                } else {
                    1
                };
                defs.push((name, count, sp));
                if !self.p.eat(&Tok::Comma)? {
                    break;
                }
            }
            self.p.expect(&Tok::Equal)?;
        }
        let span = self.p.peek_span()?;
        let name = match self.p.peek()? {
            Tok::Ident(w) => {
                self.p.bump()?;
                w
            }
            t => {
                return Err(self
                    .p
                    .err(span, format!("expected {what}, found {}", t.describe())));
            }
        };
        Ok(OpHead {
            defs,
            name,
            span,
            pos: self.pos(span),
        })
    }

    /// Defines `head`'s results, of types `new`, in `scope`: their values are appended to
    /// `types`; returns them. `noun` names the results in the count error (`stream`).
    fn bind_results(
        &self,
        head: &OpHead,
        noun: &str,
        scope: &mut Scope,
        types: &mut Vec<Type>,
        new: Vec<Type>,
    ) -> PResult<Vec<usize>> {
        let named: u32 = head.defs.iter().map(|d| d.1).sum();
        if named as usize != new.len() {
            return Err(self.p.err(
                head.span,
                format!(
                    "`{}` gives {} {noun}{}, {named} {} named",
                    head.name,
                    new.len(),
                    if new.len() == 1 { "" } else { "s" },
                    if named == 1 { "is" } else { "are" }
                ),
            ));
        }
        let mut out = Vec::new();
        let mut it = new.into_iter();
        for (n, count, sp) in &head.defs {
            let mut ids = Vec::new();
            for _ in 0..*count {
                ids.push(types.len());
                out.push(types.len());
                types.push(it.next().expect("counted"));
            }
            if scope.insert(n.clone(), ids).is_some() {
                return Err(self.p.err(*sp, format!("`%{n}` is defined twice")));
            }
        }
        Ok(out)
    }

    /// An optional `: T, T, ...` after `uses` (values of `types`), each checked against its
    /// value.
    fn check_types(&mut self, uses: &[(usize, &ValueUse)], types: &[Type]) -> PResult<()> {
        if !self.p.eat(&Tok::Colon)? {
            return Ok(());
        }
        let mut k = 0;
        loop {
            let (t, tsp) = self.elem_type()?;
            if let Some((v, u)) = uses.get(k)
                && types[*v] != t
            {
                return Err(self
                    .p
                    .err(tsp, format!("`%{}` is {}, not {t}", u.name, types[*v])));
            }
            k += 1;
            if !self.p.eat(&Tok::Comma)? {
                return Ok(());
            }
        }
    }

    fn stream_op(
        &mut self,
        scope: &mut Scope,
        values: &mut Vec<Type>,
        uses: &mut Vec<Vec<Span>>,
    ) -> PResult<StreamOp> {
        let head = self.op_head("a stream operation")?;
        let (name, nsp, pos) = (head.name.clone(), head.span, head.pos);
        let mnemonic: &'static str = match name.as_str() {
            "stream.map" => "map",
            "stream.filter" => "filter",
            "stream.reduce" => "reduce",
            "stream.split" => "split",
            "stream.combine" => "combine",
            "stream.create" => "create",
            "stream.sink" => "sink",
            "stream.pack" | "stream.unpack" | "stream.yield" => {
                return Err(self.p.err(
                    nsp,
                    format!(
                        "`{name}` belongs in the body of a stream operator, not in the function"
                    ),
                ));
            }
            n if n.starts_with("arith.") => {
                return Err(self
                    .p
                    .err(nsp, format!("`{n}` outside a body: a function of streams holds only stream operators"))
                    .with_help("compute on elements inside `stream.map` and the other operators"));
            }
            n => {
                return Err(self
                    .p
                    .err(nsp, format!("unknown stream operation `{n}`"))
                    .with_help("the Stream dialect has map, filter, reduce, split, combine, create, sink, pack, unpack and yield"));
            }
        };
        let k = self.counts.entry(mnemonic).or_insert(0);
        let id = format!("{mnemonic}{k}");
        *k += 1;
        let define = |me: &mut Self,
                      scope: &mut Scope,
                      values: &mut Vec<Type>,
                      uses: &mut Vec<Vec<Span>>,
                      new: &[Type]|
         -> PResult<Vec<usize>> {
            let out = me.bind_results(&head, "stream", scope, values, new.to_vec())?;
            uses.resize(values.len(), Vec::new());
            Ok(out)
        };
        match mnemonic {
            "sink" => {
                let u = self.p.parse_value_use()?;
                let v = lookup(&self.p, scope, &u)?;
                uses[v].push(u.span);
                self.p.expect(&Tok::Colon)?;
                let (t, tsp) = self.stream_type()?;
                if t != values[v] {
                    return Err(self.p.err(
                        tsp,
                        format!("`%{}` is a stream of {}, not of {t}", u.name, values[v]),
                    ));
                }
                self.p.parse_opt_loc()?;
                define(self, scope, values, uses, &[])?;
                return Ok(StreamOp {
                    kind: StreamOpKind::Sink,
                    id,
                    inputs: vec![v],
                    outputs: Vec::new(),
                    registers: Vec::new(),
                    body: None,
                    pos,
                    span: nsp,
                });
            }
            "create" => {
                let (t, _) = self.stream_type()?;
                if handscope_sim::wide::is_wide(t.bit_width() + 1) {
                    return Err(self.p.err(
                        nsp,
                        format!(
                            "`stream.create` of {t} elements: created elements must fit 63 bits"
                        ),
                    ));
                }
                let asp = self.p.peek_span()?;
                let value = self.p.parse_attr_value()?;
                let AttrValue::Array(items) = value else {
                    return Err(self.p.err(asp, "expected the elements, `[1, 2, 3]`"));
                };
                let mut elements = Vec::new();
                for (item, sp) in &items {
                    elements.push(int_attr(&self.p, item, *sp, &t)?);
                }
                self.p.parse_opt_loc()?;
                let outputs = define(self, scope, values, uses, std::slice::from_ref(&t))?;
                return Ok(StreamOp {
                    kind: StreamOpKind::Create { elements },
                    id,
                    inputs: Vec::new(),
                    outputs,
                    registers: Vec::new(),
                    body: None,
                    pos,
                    span: nsp,
                });
            }
            _ => {}
        }
        // `stream.OP(%ins) {attrs} : (types) -> (types) { region }`
        self.p.expect(&Tok::LParen)?;
        let in_uses = self.p.parse_operand_list()?;
        self.p.expect(&Tok::RParen)?;
        let mut attrs = self.p.parse_opt_attr_dict()?;
        self.p.expect(&Tok::Colon)?;
        let tsp = self.p.peek_span()?;
        let (in_types, out_types) = self.func_type()?;
        let mut inputs = Vec::new();
        for (k, u) in in_uses.iter().enumerate() {
            let v = lookup(&self.p, scope, u)?;
            uses[v].push(u.span);
            if let Some(t) = in_types.get(k)
                && *t != values[v]
            {
                return Err(self.p.err(
                    u.span,
                    format!(
                        "`%{}` is a stream of {}, the type says {t}",
                        u.name, values[v]
                    ),
                ));
            }
            inputs.push(v);
        }
        if in_types.len() != inputs.len() {
            return Err(self.p.err(
                tsp,
                format!(
                    "the type lists {} inputs, the operation has {}",
                    in_types.len(),
                    inputs.len()
                ),
            ));
        }
        let (want_in, want_out) = match mnemonic {
            "combine" => (None, Some(1)),
            "split" => (Some(1), None),
            _ => (Some(1), Some(1)),
        };
        if want_in.is_some_and(|n| n != inputs.len()) || inputs.is_empty() {
            return Err(self.p.err(
                nsp,
                format!(
                    "`{name}` takes {} input stream, it has {}",
                    want_in.unwrap_or(1),
                    inputs.len()
                ),
            ));
        }
        if want_out.is_some_and(|n| n != out_types.len()) || out_types.is_empty() {
            return Err(self.p.err(
                tsp,
                format!(
                    "`{name}` gives {} output stream, the type lists {}",
                    want_out.unwrap_or(1),
                    out_types.len()
                ),
            ));
        }
        if mnemonic == "filter" && out_types[0] != in_types[0] {
            return Err(self.p.err(
                tsp,
                format!(
                    "a filter passes its elements on: its output is a stream of {}, not {}",
                    in_types[0], out_types[0]
                ),
            ));
        }
        let registers = self.registers(&mut attrs)?;
        let kind = match mnemonic {
            "map" => StreamOpKind::Map,
            "filter" => StreamOpKind::Filter,
            "split" => StreamOpKind::Split,
            "combine" => StreamOpKind::Combine,
            _ => {
                let Some(a) = take_attr(&mut attrs, "initValue") else {
                    return Err(self
                        .p
                        .err(nsp, "`stream.reduce` needs an `initValue`")
                        .with_help("`stream.reduce(%in) {initValue = 0 : i64} : ...`"));
                };
                StreamOpKind::Reduce {
                    init: int_attr(&self.p, &a.value, a.value_span, &out_types[0])?,
                }
            }
        };
        if let Some(a) = attrs.first() {
            self.p
                .warn(a.name_span, format!("attribute `{}` is ignored", a.name));
        }
        // The body's arguments and yields, as the operator defines them.
        let mut arg_types: Vec<Type> = Vec::new();
        let mut yield_types: Vec<Type> = Vec::new();
        match &kind {
            StreamOpKind::Map | StreamOpKind::Split => {
                arg_types.push(in_types[0].clone());
                yield_types.extend(out_types.iter().cloned());
            }
            StreamOpKind::Filter => {
                arg_types.push(in_types[0].clone());
                yield_types.push(Type::Int(1));
            }
            StreamOpKind::Combine => {
                arg_types.extend(in_types.iter().cloned());
                yield_types.push(out_types[0].clone());
            }
            StreamOpKind::Reduce { .. } => {
                arg_types.push(out_types[0].clone());
                arg_types.push(in_types[0].clone());
                yield_types.push(out_types[0].clone());
            }
            StreamOpKind::Create { .. } | StreamOpKind::Sink => unreachable!("handled above"),
        }
        for (_, t) in &registers {
            arg_types.push(t.clone());
            yield_types.push(t.clone());
        }
        let body = self.body(&name, &arg_types, &yield_types, registers.len())?;
        self.p.parse_opt_loc()?;
        let outputs = define(self, scope, values, uses, &out_types)?;
        Ok(StreamOp {
            kind,
            id,
            inputs,
            outputs,
            registers,
            body: Some(body),
            pos,
            span: nsp,
        })
    }

    /// `(stream types) -> stream type | (stream types)`.
    fn func_type(&mut self) -> PResult<(Vec<Type>, Vec<Type>)> {
        self.p.expect(&Tok::LParen)?;
        let ins = self.stream_types_in_parens()?;
        self.p.expect(&Tok::Arrow)?;
        let outs = self.result_types()?;
        let strip = |v: Vec<(Type, Span)>| v.into_iter().map(|(t, _)| t).collect();
        Ok((strip(ins), strip(outs)))
    }

    /// Results after `->`: one stream type, or `(T, ...)`.
    fn result_types(&mut self) -> PResult<Vec<(Type, Span)>> {
        if self.p.eat(&Tok::LParen)? {
            self.stream_types_in_parens()
        } else {
            Ok(vec![self.stream_type()?])
        }
    }

    /// Stream types up to and with the closing `)` (none, or separated by commas; an
    /// attribute dictionary after a type is dropped).
    fn stream_types_in_parens(&mut self) -> PResult<Vec<(Type, Span)>> {
        let types = if self.p.at(&Tok::RParen)? {
            Vec::new()
        } else {
            self.comma_separated(|me| {
                let t = me.stream_type()?;
                if me.p.at(&Tok::LBrace)? {
                    me.p.parse_attr_dict()?;
                }
                Ok(t)
            })?
        };
        self.p.expect(&Tok::RParen)?;
        Ok(types)
    }

    /// One or more items read by `item`, separated by commas.
    fn comma_separated<T>(
        &mut self,
        mut item: impl FnMut(&mut Self) -> PResult<T>,
    ) -> PResult<Vec<T>> {
        let mut out = vec![item(self)?];
        while self.p.eat(&Tok::Comma)? {
            out.push(item(self)?);
        }
        Ok(out)
    }

    /// The `registers = [...]` attribute: initial values and types.
    fn registers(&mut self, attrs: &mut Vec<crate::mlir::ast::Attr>) -> PResult<Vec<(u64, Type)>> {
        let Some(a) = take_attr(attrs, "registers") else {
            return Ok(Vec::new());
        };
        let AttrValue::Array(items) = &a.value else {
            return Err(self.p.err(
                a.value_span,
                "`registers` must be an array of initial values (`[0 : i64, true]`)",
            ));
        };
        let mut regs = Vec::new();
        for (v, sp) in items {
            let t = match v {
                AttrValue::Bool(_) => Type::Int(1),
                AttrValue::Int { ty: Some(t), .. } => self.p.chan_type(t)?,
                AttrValue::Int { ty: None, .. } => Type::Int(64),
                _ => {
                    return Err(self
                        .p
                        .err(*sp, "a register's initial value is an integer with its type (`0 : i64`) or `true`/`false`"));
                }
            };
            check_elem(&t).map_err(|why| self.p.err(*sp, why))?;
            if matches!(t, Type::Tuple(_)) {
                return Err(self.p.err(*sp, "a register holds an integer"));
            }
            regs.push((int_attr(&self.p, v, *sp, &t)?, t));
        }
        Ok(regs)
    }

    /// A region of one block: `{ ^bb(%a: T, ...): ops stream.yield ... }`.
    fn body(
        &mut self,
        op: &str,
        arg_types: &[Type],
        yield_types: &[Type],
        n_regs: usize,
    ) -> PResult<Body> {
        let lsp = self.p.expect(&Tok::LBrace)?;
        let mut scope: Scope = HashMap::new();
        let mut types: Vec<Type> = Vec::new();
        let label_sp = self.p.peek_span()?;
        let mut labels: HashMap<String, usize> = HashMap::new();
        let mut n_args = 0;
        if let Tok::Caret(name) = self.p.peek()? {
            self.p.bump()?;
            labels.insert(name, 0);
            for (n, nsp, t, tsp) in self.block_args()? {
                if let Some(want) = arg_types.get(n_args)
                    && *want != t
                {
                    return Err(self.p.err(
                        tsp,
                        format!("argument {n_args} of `{op}`'s body is {want}, not {t}"),
                    ));
                }
                if scope.insert(n.clone(), vec![types.len()]).is_some() {
                    return Err(self.p.err(nsp, format!("`%{n}` is defined twice")));
                }
                types.push(t);
                n_args += 1;
            }
        }
        if n_args != arg_types.len() {
            let regs = if n_regs > 0 {
                format!(" ({n_regs} of them registers)")
            } else {
                String::new()
            };
            return Err(self.p.err(
                if n_args == 0 { lsp } else { label_sp },
                format!(
                    "`{op}`'s body takes {} arguments{regs}, the block declares {n_args}",
                    arg_types.len()
                ),
            ));
        }
        let mut blocks: Vec<CfgBlock> = vec![CfgBlock {
            params: (0..n_args).collect(),
            ops: Vec::new(),
            term: Term::Yield(Vec::new()),
            pos: self.pos(label_sp),
        }];
        // Branches to resolve once every label is known: block, successor slot, label, span,
        // argument values with their uses.
        let mut pending: Vec<PendingBranch> = Vec::new();
        let mut closed = false;
        loop {
            let sp = self.p.peek_span()?;
            let cur = blocks.len() - 1;
            match self.p.peek()? {
                Tok::Caret(name) => {
                    if !closed {
                        return Err(self.p.err(
                            sp,
                            "the block before this one has no terminator (`stream.yield`, `cf.br` or `cf.cond_br`)",
                        ));
                    }
                    self.p.bump()?;
                    if labels.insert(name.clone(), blocks.len()).is_some() {
                        return Err(self.p.err(sp, format!("block `^{name}` is defined twice")));
                    }
                    let mut params = Vec::new();
                    for (n, nsp, t, _) in self.block_args()? {
                        if scope.insert(n.clone(), vec![types.len()]).is_some() {
                            return Err(self.p.err(nsp, format!("`%{n}` is defined twice")));
                        }
                        params.push(types.len());
                        types.push(t);
                    }
                    blocks.push(CfgBlock {
                        params,
                        ops: Vec::new(),
                        term: Term::Yield(Vec::new()),
                        pos: self.pos(sp),
                    });
                    closed = false;
                }
                Tok::RBrace => {
                    if !closed {
                        return Err(self
                            .p
                            .err(sp, format!("`{op}`'s body ends without `stream.yield`")));
                    }
                    self.p.bump()?;
                    break;
                }
                Tok::Eof => return Err(self.p.expected("`stream.yield` and `}` closing the body")),
                _ if closed => {
                    return Err(self.p.err(
                        sp,
                        "an operation after the block's terminator: start a new block (`^bb1:`) or end the body",
                    ));
                }
                Tok::Ident(w) if w == "stream.yield" => {
                    self.p.bump()?;
                    let yields =
                        self.yield_operands(&scope, &types, op, yield_types, n_regs, sp)?;
                    blocks[cur].term = Term::Yield(yields);
                    closed = true;
                }
                Tok::Ident(w) if w == "cf.br" => {
                    self.p.bump()?;
                    let (label, lsp2, args) = self.successor(&scope, &types)?;
                    pending.push((cur, 0, label, lsp2, args));
                    self.p.parse_opt_loc()?;
                    blocks[cur].term = Term::Br {
                        target: 0,
                        args: Vec::new(),
                    };
                    closed = true;
                }
                Tok::Ident(w) if w == "cf.cond_br" => {
                    self.p.bump()?;
                    let u = self.p.parse_value_use()?;
                    let cond = lookup(&self.p, &scope, &u)?;
                    if types[cond] != Type::Int(1) {
                        return Err(self.p.err(
                            u.span,
                            format!("a branch condition is i1, `%{}` is {}", u.name, types[cond]),
                        ));
                    }
                    self.p.expect(&Tok::Comma)?;
                    let (tl, tsp, targs) = self.successor(&scope, &types)?;
                    self.p.expect(&Tok::Comma)?;
                    let (fl, fsp, fargs) = self.successor(&scope, &types)?;
                    self.p.parse_opt_loc()?;
                    pending.push((cur, 0, tl, tsp, targs));
                    pending.push((cur, 1, fl, fsp, fargs));
                    blocks[cur].term = Term::CondBr {
                        cond,
                        t: 0,
                        t_args: Vec::new(),
                        f: 0,
                        f_args: Vec::new(),
                    };
                    closed = true;
                }
                _ => {
                    let o = self.body_op(&mut scope, &mut types)?;
                    blocks[cur].ops.push(o);
                }
            }
        }
        for (b, slot, label, lsp2, args) in pending {
            let Some(&target) = labels.get(&label) else {
                return Err(self
                    .p
                    .err(lsp2, format!("no block `^{label}` in this body")));
            };
            if target == 0 {
                return Err(self.p.err(
                    lsp2,
                    "the entry block cannot be branched to: loop through a block of its own",
                ));
            }
            let params = &blocks[target].params;
            if params.len() != args.len() {
                return Err(self.p.err(
                    lsp2,
                    format!(
                        "`^{label}` takes {} arguments, the branch gives {}",
                        params.len(),
                        args.len()
                    ),
                ));
            }
            for (&p, (v, u)) in params.iter().zip(&args) {
                if types[p] != types[*v] {
                    return Err(self.p.err(
                        u.span,
                        format!(
                            "`%{}` is {}, `^{label}`'s argument is {}",
                            u.name, types[*v], types[p]
                        ),
                    ));
                }
            }
            let vals: Vec<usize> = args.iter().map(|(v, _)| *v).collect();
            match &mut blocks[b].term {
                Term::Br { target: t, args } => {
                    *t = target;
                    *args = vals;
                }
                Term::CondBr { t, t_args, .. } if slot == 0 => {
                    *t = target;
                    *t_args = vals;
                }
                Term::CondBr { f, f_args, .. } => {
                    *f = target;
                    *f_args = vals;
                }
                Term::Yield(_) => {}
            }
        }
        if blocks.len() == 1
            && let Term::Yield(yields) = &blocks[0].term
        {
            let yields = yields.clone();
            let ops = std::mem::take(&mut blocks[0].ops);
            return Ok(Body {
                types,
                n_args,
                ops,
                yields,
                cfg: None,
            });
        }
        Ok(Body {
            types,
            n_args,
            ops: Vec::new(),
            yields: Vec::new(),
            cfg: Some(blocks),
        })
    }

    /// A block's arguments `(%a: T, ...)` and the `:` after them.
    fn block_args(&mut self) -> PResult<Vec<(String, Span, Type, Span)>> {
        let mut out = Vec::new();
        if self.p.eat(&Tok::LParen)? && !self.p.eat(&Tok::RParen)? {
            loop {
                let (n, nsp) = match self.p.peek()? {
                    Tok::Value { name, index: None } => (name, self.p.bump()?.1),
                    _ => return Err(self.p.expected("a block argument (`%val: i64`)")),
                };
                self.p.expect(&Tok::Colon)?;
                let (t, tsp) = self.elem_type()?;
                self.p.parse_opt_loc()?;
                out.push((n, nsp, t, tsp));
                if !self.p.eat(&Tok::Comma)? {
                    break;
                }
            }
            self.p.expect(&Tok::RParen)?;
        }
        self.p.expect(&Tok::Colon)?;
        Ok(out)
    }

    /// A branch successor `^label` or `^label(%a, %b : T, T)`.
    fn successor(&mut self, scope: &Scope, types: &[Type]) -> PResult<Successor> {
        let sp = self.p.peek_span()?;
        let label = match self.p.peek()? {
            Tok::Caret(l) => {
                self.p.bump()?;
                l
            }
            _ => return Err(self.p.expected("a block (`^bb1`)")),
        };
        let mut args = Vec::new();
        if self.p.eat(&Tok::LParen)? {
            for u in self.p.parse_operand_list()? {
                let v = lookup(&self.p, scope, &u)?;
                args.push((v, u));
            }
            let refs: Vec<(usize, &ValueUse)> = args.iter().map(|(v, u)| (*v, u)).collect();
            self.check_types(&refs, types)?;
            self.p.expect(&Tok::RParen)?;
        }
        Ok((label, sp, args))
    }

    /// The operands of a `stream.yield` (after the op name), checked against the operator.
    fn yield_operands(
        &mut self,
        scope: &Scope,
        types: &[Type],
        op: &str,
        yield_types: &[Type],
        n_regs: usize,
        sp: Span,
    ) -> PResult<Vec<usize>> {
        let operands = self.p.parse_operand_list()?;
        let mut yields = Vec::new();
        for u in &operands {
            yields.push(lookup(&self.p, scope, u)?);
        }
        let refs: Vec<(usize, &ValueUse)> = yields.iter().copied().zip(&operands).collect();
        self.check_types(&refs, types)?;
        self.p.parse_opt_loc()?;
        if yields.len() != yield_types.len() {
            let regs = if n_regs > 0 {
                format!(", then the {n_regs} registers' next values")
            } else {
                String::new()
            };
            return Err(self.p.err(
                sp,
                format!(
                    "`{op}`'s body yields {} values{regs}; this yields {}",
                    yield_types.len() - n_regs,
                    yields.len()
                ),
            ));
        }
        for (k, (&v, want)) in yields.iter().zip(yield_types).enumerate() {
            if types[v] != *want {
                return Err(self.p.err(
                    operands[k].span,
                    format!(
                        "yield {k} of `{op}` must be {want}, `%{}` is {}",
                        operands[k].name, types[v]
                    ),
                ));
            }
        }
        Ok(yields)
    }

    fn body_op(&mut self, scope: &mut Scope, types: &mut Vec<Type>) -> PResult<BodyOp> {
        let head = self.op_head("an operation")?;
        let (name, nsp, pos) = (head.name.clone(), head.span, head.pos);
        let mut operands = Vec::new();
        let kind;
        let result_types: Vec<Type>;
        match name.as_str() {
            "arith.constant" => {
                let vsp = self.p.peek_span()?;
                let v = self.p.parse_attr_value()?;
                let t = match &v {
                    AttrValue::Int { ty: Some(t), .. } => self.p.chan_type(t)?,
                    AttrValue::Bool(_) => Type::Int(1),
                    AttrValue::Int { ty: None, .. } => {
                        self.p.expect(&Tok::Colon)?;
                        self.elem_type()?.0
                    }
                    _ => {
                        return Err(self
                            .p
                            .err(vsp, "expected an integer constant (`10 : i64`, `true`)"));
                    }
                };
                check_elem(&t).map_err(|why| self.p.err(vsp, why))?;
                if matches!(t, Type::Tuple(_)) {
                    return Err(self.p.err(vsp, "a constant is an integer"));
                }
                kind = BodyOpKind::Constant(int_attr(&self.p, &v, vsp, &t)?);
                result_types = vec![t];
            }
            "stream.pack" => {
                let operand_uses = self.p.parse_operand_list()?;
                self.p.expect(&Tok::Colon)?;
                let (t, tsp) = self.elem_type()?;
                let Type::Tuple(fields) = &t else {
                    return Err(self
                        .p
                        .err(tsp, "`stream.pack` makes a tuple: its type is `tuple<...>`"));
                };
                if fields.len() != operand_uses.len() {
                    return Err(self.p.err(
                        tsp,
                        format!(
                            "{t} has {} fields, `stream.pack` is given {}",
                            fields.len(),
                            operand_uses.len()
                        ),
                    ));
                }
                for (u, f) in operand_uses.iter().zip(fields) {
                    let v = lookup(&self.p, scope, u)?;
                    if types[v] != *f {
                        return Err(self.p.err(
                            u.span,
                            format!("`%{}` is {}, the field is {f}", u.name, types[v]),
                        ));
                    }
                    operands.push(v);
                }
                kind = BodyOpKind::Pack;
                result_types = vec![t];
            }
            "stream.unpack" => {
                let u = self.p.parse_value_use()?;
                let v = lookup(&self.p, scope, &u)?;
                self.p.expect(&Tok::Colon)?;
                let (t, tsp) = self.elem_type()?;
                let Type::Tuple(fields) = &t else {
                    return Err(self.p.err(tsp, "`stream.unpack` takes a tuple"));
                };
                if types[v] != t {
                    return Err(self
                        .p
                        .err(u.span, format!("`%{}` is {}, not {t}", u.name, types[v])));
                }
                operands.push(v);
                kind = BodyOpKind::Unpack;
                result_types = fields.clone();
            }
            n if n.starts_with("arith.") => {
                let m = &n["arith.".len()..];
                let op = if m == "cmpi" {
                    let psp = self.p.peek_span()?;
                    let pred = match self.p.bump()? {
                        (Tok::Ident(p), _) => CmpPredicate::from_keyword(&p),
                        (Tok::Int(i), _) => CmpPredicate::ALL.get(i as usize).copied(),
                        _ => None,
                    };
                    let Some(pred) = pred else {
                        return Err(self
                            .p
                            .err(psp, "expected a predicate (`eq`, `slt`, `ult`, ...)"));
                    };
                    self.p.expect(&Tok::Comma)?;
                    ArithOp::Cmpi(pred)
                } else {
                    match ArithOp::from_mnemonic(m) {
                        Some(op) if is_body_op(op) => op,
                        _ => {
                            return Err(self
                                .p
                                .err(nsp, format!("`{n}` is not an integer `arith` operation Handscope runs in a stream body"))
                                .with_help("stream elements are integers and tuples: addi, subi, muli, divsi, remsi, andi, ori, xori, shli, shrsi, cmpi, select, extsi, trunci, ..."));
                        }
                    }
                };
                let operand_uses = self.p.parse_operand_list()?;
                self.p.parse_opt_attr_dict()?;
                self.p.expect(&Tok::Colon)?;
                let (t, tsp) = self.elem_type()?;
                let (operand_types, result): (Vec<Type>, Type) = if op.is_cast() {
                    self.p.expect_word("to")?;
                    let (to, _) = self.elem_type()?;
                    (vec![t.clone()], to)
                } else {
                    match op {
                        ArithOp::Cmpi(_) => (vec![t.clone(), t.clone()], Type::Int(1)),
                        ArithOp::Select => (vec![Type::Int(1), t.clone(), t.clone()], t.clone()),
                        _ => (vec![t.clone(); op.arity()], t.clone()),
                    }
                };
                if matches!(t, Type::Tuple(_)) && op != ArithOp::Select {
                    return Err(self
                        .p
                        .err(tsp, format!("`{n}` computes on integers, not on {t}")));
                }
                if operand_uses.len() != operand_types.len() {
                    return Err(self.p.err(
                        nsp,
                        format!(
                            "`{n}` takes {} operands, it is given {}",
                            operand_types.len(),
                            operand_uses.len()
                        ),
                    ));
                }
                for (u, want) in operand_uses.iter().zip(&operand_types) {
                    let v = lookup(&self.p, scope, u)?;
                    if types[v] != *want {
                        return Err(self.p.err(
                            u.span,
                            format!("`%{}` is {}, `{n}` wants {want} here", u.name, types[v]),
                        ));
                    }
                    operands.push(v);
                }
                kind = BodyOpKind::Arith(op);
                result_types = vec![result];
            }
            n if n.starts_with("cf.") => {
                return Err(self
                    .p
                    .err(nsp, format!("`{n}` is not a branch Handscope reads: a body branches with `cf.br` and `cf.cond_br`")));
            }
            n => {
                return Err(self
                    .p
                    .err(nsp, format!("`{n}` cannot be used in a stream body"))
                    .with_help("a body holds `arith` operations, `stream.pack`, `stream.unpack` and ends with `stream.yield`"));
            }
        }
        self.p.parse_opt_loc()?;
        let results = self.bind_results(&head, "value", scope, types, result_types)?;
        Ok(BodyOp {
            kind,
            operands,
            results,
            pos,
        })
    }

    /// The warnings of the read.
    pub(crate) fn warnings(self) -> Vec<crate::mlir::Diagnostic> {
        self.p.warnings
    }
}

/// The `arith` operations a body may hold besides `cmpi` and `constant`: the integer
/// binary ones, `select`, and the integer extensions and truncation.
fn is_body_op(op: ArithOp) -> bool {
    use handscope_sim::ops::ArithClass as C;
    matches!(op.class(), C::Binary | C::Select | C::Extend | C::Truncate)
}

/// Resolves a use against the values in scope.
fn lookup(p: &Parser<'_>, scope: &Scope, u: &ValueUse) -> PResult<usize> {
    let Some(ids) = scope.get(&u.name) else {
        return Err(p.err(u.span, format!("`%{}` is not defined here", u.name)));
    };
    ids.get(u.index as usize).copied().ok_or_else(|| {
        p.err(
            u.span,
            format!(
                "`%{}` has {} values; `#{}` is past them",
                u.name,
                ids.len(),
                u.index
            ),
        )
    })
}

/// Why `t` cannot be an element, register or body value type.
fn check_elem(t: &Type) -> Result<(), String> {
    match t {
        Type::Int(w) if *w >= 1 && *w <= MAX_ELEMENT_INT => Ok(()),
        Type::Int(w) => Err(format!(
            "`i{w}`: stream elements are integers of 1 to {MAX_ELEMENT_INT} bits and tuples of them"
        )),
        Type::Tuple(fs) if !fs.is_empty() => fs.iter().try_for_each(check_elem),
        t => Err(format!(
            "`{t}`: stream elements are integers of 1 to {MAX_ELEMENT_INT} bits and tuples of them"
        )),
    }
}

/// An integer (or boolean) attribute as a word of `t`.
fn int_attr(p: &Parser<'_>, v: &AttrValue, sp: Span, t: &Type) -> PResult<u64> {
    let value: i128 = match v {
        AttrValue::Int { value, .. } => *value,
        AttrValue::Bool(b) => i128::from(*b),
        _ => return Err(p.err(sp, format!("expected an integer of type {t}"))),
    };
    let w = t.bit_width();
    let (min, max) = (-(1i128 << (w - 1)), (1i128 << w) - 1);
    let value = if w == 1 && value == -1 { 1 } else { value };
    if value < min || value > max || matches!(t, Type::Tuple(_)) {
        return Err(p.err(sp, format!("{value} does not fit {t}")));
    }
    Ok((value as u64) & t.mask())
}
