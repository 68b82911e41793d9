//! Turns the parsed file into a graph: resolves SSA names (forward references included),
//! checks types against definitions, resolves locations and assigns stable IDs.

use std::collections::HashMap;
use std::sync::Arc;

use handscope_sim::{
    ArgType, ChannelId, Function, MemRefType, Module, NameHint, NodeId, Op, SourceLoc, Type,
};

use super::ast::{Attr, AttrValue, FileAst, FuncAst, LocExpr, PType, SType};
use super::diag::{ErrExt, Span};
use super::parser::{PResult, Parser, take_attr};

/// What an SSA name stands for.
#[derive(Clone)]
enum Val {
    Chan(ChannelId),
    MemRef(usize, MemRefType),
}

struct Def {
    vals: Vec<Val>,
    span: Span,
}

/// Location resolution with `#alias` lookup and interned file names.
struct Locs<'f> {
    aliases: &'f HashMap<String, (LocExpr, Span)>,
    files: HashMap<String, Arc<str>>,
}

impl Locs<'_> {
    fn resolve(&mut self, p: &Parser<'_>, e: &LocExpr, depth: u32) -> PResult<Option<SourceLoc>> {
        if depth > 64 {
            return Err(p.err(Span::default(), "location aliases nest too deeply (cycle?)"));
        }
        Ok(match e {
            LocExpr::File {
                file,
                line,
                col,
                end,
            } => {
                let f = self
                    .files
                    .entry(file.clone())
                    .or_insert_with(|| Arc::from(file.as_str()))
                    .clone();
                Some(SourceLoc {
                    file: f,
                    line: *line,
                    col: *col,
                    end: *end,
                })
            }
            LocExpr::Unknown | LocExpr::Named(None) => None,
            LocExpr::Alias(name, sp) => match self.aliases.get(name) {
                Some((inner, _)) => self.resolve(p, inner, depth + 1).map_err(|e| {
                    if depth == 0 && e.message.contains("too deeply") {
                        p.err(*sp, e.message.clone())
                    } else {
                        e
                    }
                })?,
                None => return Err(p.err(*sp, format!("undefined location alias `#{name}`"))),
            },
            LocExpr::Fused(items) => {
                for i in items {
                    if let Some(l) = self.resolve(p, i, depth + 1)? {
                        return Ok(Some(l));
                    }
                }
                None
            }
            LocExpr::Named(Some(c)) => self.resolve(p, c, depth + 1)?,
            LocExpr::CallSite(callee, caller) => match self.resolve(p, callee, depth + 1)? {
                Some(l) => Some(l),
                None => self.resolve(p, caller, depth + 1)?,
            },
        })
    }

    fn opt(&mut self, p: &Parser<'_>, e: &Option<LocExpr>) -> PResult<Option<SourceLoc>> {
        match e {
            Some(e) => self.resolve(p, e, 0),
            None => Ok(None),
        }
    }
}

fn string_array(p: &Parser<'_>, a: &Attr, n: usize) -> PResult<Vec<String>> {
    let AttrValue::Array(items) = &a.value else {
        return Err(p.err(
            a.value_span,
            format!("`{}` must be an array of strings", a.name),
        ));
    };
    let mut v = Vec::new();
    for (item, sp) in items {
        match item {
            AttrValue::Str(s) => v.push(s.clone()),
            _ => return Err(p.err(*sp, format!("`{}` must be an array of strings", a.name))),
        }
    }
    if v.len() != n {
        return Err(p.err(
            a.value_span,
            format!("`{}` has {} entries but there are {n}", a.name, v.len()),
        ));
    }
    Ok(v)
}

/// An array attribute of `n` small non-negative integers (`handscope.offered_from`).
fn int_array(p: &Parser<'_>, a: &Attr, n: usize) -> PResult<Vec<u64>> {
    let bad = |sp| {
        p.err(
            sp,
            format!("`{}` must be an array of {n} small integers", a.name),
        )
    };
    let AttrValue::Array(items) = &a.value else {
        return Err(bad(a.value_span));
    };
    let mut v = Vec::new();
    for (item, sp) in items {
        match item {
            AttrValue::Int { value, .. } if (0..=i128::from(u32::MAX)).contains(value) => {
                v.push(*value as u64)
            }
            _ => return Err(bad(*sp)),
        }
    }
    if v.len() != n {
        return Err(bad(a.value_span));
    }
    Ok(v)
}

/// Builds the module from a parsed file.
pub(crate) fn build_module(p: &mut Parser<'_>, ast: &FileAst) -> PResult<Module> {
    let mut locs = Locs {
        aliases: &ast.loc_aliases,
        files: HashMap::new(),
    };
    let mut module = Module::default();
    let mut instances: Vec<(usize, NodeId, Span)> = Vec::new();
    let mut names: HashMap<&str, Span> = HashMap::new();
    for fa in &ast.funcs {
        if let Some(first) = names.insert(&fa.name, fa.name_span) {
            let (l, c) = p.line_col(first.start);
            return Err(p
                .err(
                    fa.name_span,
                    format!("redefinition of function `@{}`", fa.name),
                )
                .with_help(format!("first defined at line {l}, column {c}")));
        }
        let fi = module.functions.len();
        let f = build_function(p, &mut locs, fa, |node, span| {
            instances.push((fi, node, span))
        })?;
        module.functions.push(f);
    }
    for (fi, node, span) in instances {
        check_instance(p, &module, fi, node, span)?;
    }
    for e in &ast.esi_instances {
        match module.function(&e.callee) {
            Some(f) if !f.external => {
                let inst = e
                    .instance
                    .as_ref()
                    .map_or(String::new(), |n| format!(" as `{n}`"));
                p.warn(
                    e.span,
                    format!(
                        "`hw.module @{}` instantiates `@{}`{inst} through `handshake.esi_instance`: Handscope simulates `@{}` itself; the hw.module around it is not simulated",
                        e.module, e.callee, e.callee
                    ),
                );
            }
            Some(_) => {
                return Err(p.err(
                    e.span,
                    format!(
                        "`@{}` is an external function: it has no body to simulate",
                        e.callee
                    ),
                ));
            }
            None => {
                return Err(p.err(
                    e.span,
                    format!(
                        "`@{}` does not reference a handshake function in this file",
                        e.callee
                    ),
                ));
            }
        }
    }
    Ok(module)
}

fn check_instance(p: &Parser<'_>, m: &Module, fi: usize, node: NodeId, span: Span) -> PResult<()> {
    let f = &m.functions[fi];
    let n = &f.nodes[node];
    let Op::Instance { callee } = &n.op else {
        return Ok(());
    };
    let Some(g) = m.function(callee) else {
        return Err(p.err(
            span,
            format!("`@{callee}` does not reference a handshake function in this file"),
        ));
    };
    let ins: Vec<Option<Type>> = g
        .args
        .iter()
        .map(|a| match &a.ty {
            ArgType::Channel(t) => Some(t.clone()),
            ArgType::MemRef(_) => None,
        })
        .collect();
    let got_in: Vec<Option<Type>> = n
        .inputs
        .iter()
        .map(|c| Some(f.channels[*c].ty.clone()))
        .collect();
    let want_out: Vec<Type> = g.results.iter().map(|r| r.ty.clone()).collect();
    let got_out: Vec<Type> = n
        .outputs
        .iter()
        .map(|c| f.channels[*c].ty.clone())
        .collect();
    if ins != got_in || want_out != got_out {
        return Err(p.err(
            span,
            format!("instance types do not match the signature of `@{callee}`"),
        ));
    }
    Ok(())
}

fn build_function(
    p: &mut Parser<'_>,
    locs: &mut Locs<'_>,
    fa: &FuncAst,
    mut on_instance: impl FnMut(NodeId, Span),
) -> PResult<Function> {
    let mut f = Function::new(fa.name.clone());
    f.loc = locs.opt(p, &fa.loc)?;
    let mut attrs = fa.attrs.clone();
    // An empty `argNames`/`resNames` (CIRCT writes `[]` on external declarations) names
    // nothing: the defaults apply.
    let given =
        |a: Option<Attr>| a.filter(|a| !matches!(&a.value, AttrValue::Array(v) if v.is_empty()));
    let arg_names = match given(take_attr(&mut attrs, "argNames")) {
        Some(a) => string_array(p, &a, fa.args.len())?,
        None if fa.args.iter().all(|a| a.ssa.is_some()) => fa
            .args
            .iter()
            .map(|a| a.ssa.as_ref().map(|s| s.0.clone()).unwrap_or_default())
            .collect(),
        None => (0..fa.args.len()).map(|i| format!("in{i}")).collect(),
    };
    let res_names = match given(take_attr(&mut attrs, "resNames")) {
        Some(a) => string_array(p, &a, fa.results.len())?,
        None => (0..fa.results.len()).map(|i| format!("out{i}")).collect(),
    };
    // The environment's conventions per argument (Handscope's own attributes, written for
    // circuits read from Dynamatic's dialect: its testbench's).
    let offered_from = match take_attr(&mut attrs, "handscope.offered_from") {
        Some(a) => Some(int_array(p, &a, fa.args.len())?),
        None => None,
    };
    let token_by_default = match take_attr(&mut attrs, "handscope.token_by_default") {
        Some(a) => Some(int_array(p, &a, fa.args.len())?),
        None => None,
    };
    f.attrs = attrs
        .iter()
        .map(|a| (a.name.clone(), a.raw.clone()))
        .collect();

    let mut env: HashMap<String, Def> = HashMap::new();
    for (i, (arg, name)) in fa.args.iter().zip(&arg_names).enumerate() {
        let val = match &arg.ty.ty {
            PType::Chan(t) => {
                let ch = f
                    .add_arg(name.clone(), ArgType::Channel(t.clone()))
                    .expect("channel argument");
                if let Some(n) = f.args[i].node {
                    f.nodes[n].loc = locs.opt(p, &arg.loc)?;
                }
                Val::Chan(ch)
            }
            PType::MemRef(m) => {
                f.add_arg(name.clone(), ArgType::MemRef(m.clone()));
                Val::MemRef(i, m.clone())
            }
            _ => {
                p.chan_type(&arg.ty)?;
                unreachable!("chan_type fails for non-channel types")
            }
        };
        if let Some((ssa, sp)) = &arg.ssa {
            if env.contains_key(ssa) {
                return Err(p.err(*sp, format!("redefinition of argument `%{ssa}`")));
            }
            env.insert(
                ssa.clone(),
                Def {
                    vals: vec![val],
                    span: *sp,
                },
            );
        }
    }
    for (i, a) in f.args.iter_mut().enumerate() {
        a.offered_from = offered_from.as_ref().map_or(0, |v| v[i]);
        a.one_token_by_default = token_by_default.as_ref().is_some_and(|v| v[i] != 0);
    }
    for (r, name) in fa.results.iter().zip(&res_names) {
        let t = p.chan_type(r)?;
        f.results.push(handscope_sim::FuncResult {
            name: name.clone(),
            ty: t,
        });
    }
    let Some(body) = &fa.body else {
        f.external = true;
        f.assign_ids()
            .map_err(|e| p.err(fa.name_span, e.to_string()))?;
        return Ok(f);
    };

    // Pass 1: create nodes and bind result names.
    let mut made: Vec<NodeId> = Vec::with_capacity(body.len());
    for spec in body {
        let named: u64 = spec.result_groups.iter().map(|g| u64::from(g.count)).sum();
        // An op written without `%x =` has results nobody uses (valid MLIR; the graph gets
        // unused values, which `check` reports and simulation sinks).
        if !spec.result_groups.is_empty() && named != spec.results.len() as u64 {
            let sp = spec.results_span;
            return Err(p.err(
                sp,
                format!(
                    "`{}` produces {} result(s) but {} are bound",
                    spec.op.mnemonic(),
                    spec.results.len(),
                    named
                ),
            ));
        }
        let node = f.add_node(spec.op.clone(), spec.results.clone());
        let outs = f.nodes[node].outputs.clone();
        let mut off = 0usize;
        for g in &spec.result_groups {
            if let Some(prev) = env.get(&g.name) {
                let (l, c) = p.line_col(prev.span.start);
                return Err(p
                    .err(g.span, format!("redefinition of value `%{}`", g.name))
                    .with_help(format!("first defined at line {l}, column {c}")));
            }
            let vals = outs[off..off + g.count as usize]
                .iter()
                .map(|c| Val::Chan(*c))
                .collect();
            off += g.count as usize;
            env.insert(g.name.clone(), Def { vals, span: g.span });
        }
        // Like MLIR, an op without an explicit `loc(...)` is located where it is written.
        // An explicit `loc(unknown)` stays unknown.
        let loc = match &spec.loc {
            Some(_) => locs.opt(p, &spec.loc)?,
            None => {
                let (l, c) = p.line_col(spec.span.start);
                Some(SourceLoc::new(p.file(), l as u32, c as u32))
            }
        };
        let mut attrs = spec.attrs.clone();
        let n = &mut f.nodes[node];
        n.loc = loc;
        if let Some(a) = take_attr(&mut attrs, "handshake.name") {
            match &a.value {
                AttrValue::Str(s) if !s.is_empty() => n.name_hint = NameHint::Name(s.clone()),
                _ => return Err(p.err(a.value_span, "`handshake.name` must be a non-empty string")),
            }
        }
        if let Some(a) = take_attr(&mut attrs, "handshake_id") {
            let id = match &a.value {
                AttrValue::Int { value, .. } => u64::try_from(*value).ok(),
                _ => None,
            };
            let Some(id) = id else {
                return Err(p.err(
                    a.value_span,
                    "`handshake_id` must be a non-negative integer",
                ));
            };
            if n.name_hint == NameHint::Counter {
                n.name_hint = NameHint::HandshakeId(id);
            } else {
                n.attrs.push((a.name.clone(), a.raw.clone()));
            }
        }
        if let Some(a) = take_attr(&mut attrs, "handshake.bb") {
            n.block = Some(match &a.value {
                AttrValue::Str(s) => s.clone(),
                AttrValue::Int { value, .. } => value.to_string(),
                _ => return Err(p.err(a.value_span, "`handshake.bb` must be a string")),
            });
        }
        n.attrs
            .extend(attrs.iter().map(|a| (a.name.clone(), a.raw.clone())));
        if matches!(spec.op, Op::Instance { .. }) {
            on_instance(node, spec.name_span);
        }
        made.push(node);
    }

    // Pass 2: resolve operands.
    for (spec, &node) in body.iter().zip(&made) {
        let mut inputs = Vec::with_capacity(spec.operands.len());
        for (k, (u, declared)) in spec.operands.iter().enumerate() {
            let Some(def) = env.get(&u.name) else {
                return Err(p.err(u.span, format!("use of undefined value `%{}`", u.name)));
            };
            let Some(val) = def.vals.get(u.index as usize) else {
                return Err(p.err(
                    u.span,
                    format!(
                        "`%{}` has {} result(s); `#{}` is out of range",
                        u.name,
                        def.vals.len(),
                        u.index
                    ),
                ));
            };
            let here = {
                let (l, c) = p.line_col(def.span.start);
                format!("`%{}` is defined at line {l}, column {c}", u.name)
            };
            // Operand 0 of a node whose array is a memref argument.
            let mnemonic = f.nodes[node].op.mnemonic();
            let slot = if k == 0 {
                f.nodes[node].op.memref_arg_mut()
            } else {
                None
            };
            match (val, slot) {
                (Val::MemRef(i, m), Some((memref_arg, memref))) => {
                    if m != memref {
                        return Err(p
                            .err(
                                u.span,
                                format!(
                                    "type mismatch: `%{}` is a {m} but is used as {memref}",
                                    u.name
                                ),
                            )
                            .with_help(here));
                    }
                    *memref_arg = *i;
                }
                (Val::MemRef(..), None) => {
                    return Err(p
                        .err(
                            u.span,
                            format!("`%{}` is a memref; only `extmemory` can use it", u.name),
                        )
                        .with_help(here));
                }
                (Val::Chan(_), Some(_)) => {
                    return Err(p.err(
                        u.span,
                        format!(
                            "`{mnemonic}` needs a memref argument, `%{}` is a channel",
                            u.name
                        ),
                    ));
                }
                (Val::Chan(ch), None) => {
                    let actual = &f.channels[*ch].ty;
                    if let SType {
                        ty: PType::Chan(want),
                        ..
                    } = declared
                        && want != actual
                    {
                        return Err(p
                            .err(
                                u.span,
                                format!("type mismatch: `%{}` is used as {want} but its definition has type {actual}", u.name),
                            )
                            .with_label(format!("used as {want}"))
                            .with_help(here));
                    }
                    inputs.push(*ch);
                }
            }
        }
        f.set_inputs(node, inputs);
    }

    // The return.
    let returns: Vec<usize> = body
        .iter()
        .enumerate()
        .filter(|(_, s)| s.op == Op::Return)
        .map(|(i, _)| i)
        .collect();
    let Some(&ri) = returns.first() else {
        return Err(p
            .err(
                fa.body_end,
                format!("missing `return` in function `@{}`", fa.name),
            )
            .with_help("end the body with `return %results... : types`"));
    };
    if returns.len() > 1 {
        return Err(p.err(
            body[returns[1]].name_span,
            "a function has only one `return`",
        ));
    }
    if ri + 1 != body.len() {
        return Err(p.err(
            body[ri].name_span,
            "`return` must be the last operation of the function",
        ));
    }
    let rnode = made[ri];
    let got: Vec<Type> = f.nodes[rnode]
        .inputs
        .iter()
        .map(|c| f.channels[*c].ty.clone())
        .collect();
    let want: Vec<Type> = f.results.iter().map(|r| r.ty.clone()).collect();
    if got != want {
        let show = |v: &[Type]| v.iter().map(Type::to_string).collect::<Vec<_>>().join(", ");
        return Err(p.err(
            body[ri].name_span,
            format!(
                "`return` operand types ({}) do not match the function results ({})",
                show(&got),
                show(&want)
            ),
        ));
    }

    // CIRCT requires every memref argument to be used by an `extmemory`.
    if !f.external {
        for (i, a) in fa.args.iter().enumerate() {
            let used = f
                .nodes
                .values()
                .any(|n| n.op.array().and_then(|a| a.memref_arg) == Some(i));
            if matches!(a.ty.ty, PType::MemRef(_)) && !used {
                let sp = a.ssa.as_ref().map_or(a.ty.span, |s| s.1);
                return Err(p
                    .err(sp, format!("memref argument `{}` is used by no `extmemory`", f.args[i].name))
                    .with_help("a memref argument is memory outside the function: access it through `extmemory`"));
            }
        }
    }

    if let Err(e) = f.assign_ids() {
        let sp = made
            .iter()
            .position(|n| *n == e.second)
            .map_or(fa.name_span, |i| body[i].name_span);
        let mut err = p.err(sp, format!("duplicate stable ID `{}`", e.id));
        if let Some(i) = made.iter().position(|n| *n == e.first) {
            let (l, c) = p.line_col(body[i].name_span.start);
            err = err.with_help(format!(
                "also used by the operation at line {l}, column {c}; rename with `handshake.name`"
            ));
        } else {
            err = err.with_help("a function argument has this name; rename with `handshake.name`");
        }
        return Err(err);
    }
    Ok(f)
}
