//! Graph-level checks of a parsed function: result and operand counts per op, every used
//! value defined exactly once (uses may come before definitions), every value used at most
//! once, unused values reported as warnings.

use std::collections::HashMap;

use super::ast::{DynFunc, DynOp};
use super::kinds::{DynOpKind, Form};
use super::reader::Reader;
use crate::mlir::Span;
use crate::mlir::diag::ErrExt;
use crate::mlir::parser::PResult;

/// How many operands an op kind takes: at least `min`, at most `max`.
fn arity(op: &DynOp) -> Option<(usize, usize, &'static str)> {
    use DynOpKind as K;
    let any = usize::MAX;
    Some(match &op.kind {
        K::Unsupported(_) | K::End | K::Lsq => return None,
        K::MemController => (2, any, "`memStart`, the data inputs and `ctrlEnd`"),
        K::Source => (0, 0, "no operand"),
        K::Select => (3, 3, "a condition and two data operands"),
        K::Mux => (2, any, "a selector and at least one data operand"),
        K::CondBr => (2, 2, "a condition and a data operand"),
        K::Load => (2, 2, "an address and the data from memory"),
        // Branch-only stores take a third (done) operand.
        K::Store => (2, 3, "an address and the data"),
        K::ControlMerge | K::Merge | K::Join | K::Blocker => (1, any, "at least one operand"),
        k => match k.form() {
            Form::Binary | Form::Compare => (2, 2, "two operands"),
            _ => (1, 1, "one operand"),
        },
    })
}

impl Reader<'_> {
    /// Checks one function; errors are fatal, the rest become warnings.
    pub(crate) fn check_func(&mut self, f: &DynFunc) -> PResult<()> {
        for op in &f.ops {
            self.check_counts(op)?;
        }
        // Definitions: arguments and result groups, each name once.
        let mut defs: HashMap<&str, (u32, Span)> = HashMap::new();
        for a in &f.args {
            if let Some(prev) = defs.insert(a.ssa.as_str(), (1, a.span)) {
                return Err(self.redefined(&a.ssa, a.span, prev.1));
            }
        }
        for op in &f.ops {
            for r in &op.results {
                if let Some(prev) = defs.insert(r.name.as_str(), (r.count, r.span)) {
                    return Err(self.redefined(&r.name, r.span, prev.1));
                }
            }
        }
        // Uses: defined, in range, at most once.
        let mut uses: HashMap<(&str, u32), Span> = HashMap::new();
        let all_uses = f
            .ops
            .iter()
            .flat_map(|op| op.memref.iter().map(|m| &m.value).chain(op.operands.iter()));
        for u in all_uses {
            let Some(&(count, def_span)) = defs.get(u.name.as_str()) else {
                return Err(self
                    .p
                    .err(u.span, format!("use of undefined value `%{}`", u.name))
                    .with_label("not defined in this function"));
            };
            if u.index >= count {
                let (l, c) = self.p.line_col(def_span.start);
                return Err(self.p.err(
                    u.span,
                    format!(
                        "`%{}` has {count} result{} (defined at {l}:{c}); `%{}#{}` does not exist",
                        u.name,
                        if count == 1 { "" } else { "s" },
                        u.name,
                        u.index
                    ),
                ));
            }
            if let Some(first) = uses.insert((u.name.as_str(), u.index), u.span) {
                let (l, c) = self.p.line_col(first.start);
                return Err(self
                    .p
                    .err(
                        u.span,
                        format!(
                            "{} is used twice: first at {l}:{c}, again here",
                            show(&u.name, u.index, count)
                        ),
                    )
                    .with_label("second use")
                    .with_help(
                        "every handshake value has exactly one consumer; copy it with a `fork`",
                    ));
            }
        }
        // Unused values.
        for a in &f.args {
            if !uses.contains_key(&(a.ssa.as_str(), 0)) {
                self.p.warn(
                    a.span,
                    format!("argument `%{}` ({}) is never used", a.ssa, a.name),
                );
            }
        }
        for op in &f.ops {
            for r in &op.results {
                // One warning per result group, naming at most a few of its values.
                let unused: Vec<u32> = (0..r.count)
                    .filter(|&i| !uses.contains_key(&(r.name.as_str(), i)))
                    .collect();
                if unused.is_empty() {
                    continue;
                }
                let mut names: Vec<String> = unused
                    .iter()
                    .take(4)
                    .map(|&i| show(&r.name, i, r.count))
                    .collect();
                if unused.len() > 4 {
                    names.push(format!("{} more", unused.len() - 4));
                }
                let verb = if unused.len() == 1 { "is" } else { "are" };
                self.p
                    .warn(r.span, format!("{} {verb} never used", names.join(", ")));
            }
        }
        Ok(())
    }

    fn redefined(&self, name: &str, at: Span, prev: Span) -> Box<crate::mlir::ParseError> {
        let (l, c) = self.p.line_col(prev.start);
        self.p
            .err(at, format!("`%{name}` is defined twice (first at {l}:{c})"))
    }

    /// Result count against the printed types, operand count against the op kind.
    fn check_counts(&mut self, op: &DynOp) -> PResult<()> {
        let defined: u64 = op.results.iter().map(|r| u64::from(r.count)).sum();
        let results_span = match (op.results.first(), op.results.last()) {
            (Some(a), Some(b)) => a.span.join(b.span),
            _ => op.name_span,
        };
        if !op.kind.is_unsupported() {
            let (expected, why) = match op.kind {
                DynOpKind::MemController => (
                    op.out_types.len() + 1,
                    "its printed result types plus the implicit `memEnd`",
                ),
                DynOpKind::Fork | DynOpKind::LazyFork => (op.out_types.len(), "its size `[N]`"),
                _ => (op.out_types.len(), "its printed types"),
            };
            if defined != expected as u64 {
                return Err(self
                    .p
                    .err(
                        results_span,
                        format!(
                            "`{}` defines {defined} result{} but {why} give{} {expected}",
                            op.mnemonic,
                            if defined == 1 { "" } else { "s" },
                            if why.ends_with("`memEnd`") { "" } else { "s" },
                        ),
                    )
                    .with_label("wrong number of results"));
            }
        }
        if let Some((min, max, what)) = arity(op) {
            let n = op.operands.len();
            if n < min || n > max {
                return Err(self.p.err(
                    op.name_span,
                    format!(
                        "`{}` takes {what}, found {n} operand{}",
                        op.mnemonic,
                        if n == 1 { "" } else { "s" }
                    ),
                ));
            }
        }
        let typed = match op.kind {
            DynOpKind::Unsupported(_) => None,
            DynOpKind::MemController => Some(op.operands.len().saturating_sub(2)),
            _ => Some(op.operands.len()),
        };
        if let Some(n) = typed
            && n != op.in_types.len()
        {
            return Err(self.p.err(
                op.name_span,
                format!(
                    "`{}` has {n} {}operand{} but its printed type gives {}",
                    op.mnemonic,
                    if op.kind == DynOpKind::MemController {
                        "data "
                    } else {
                        ""
                    },
                    if n == 1 { "" } else { "s" },
                    op.in_types.len()
                ),
            ));
        }
        if let Some(m) = &op.memref
            && !matches!(
                op.kind,
                DynOpKind::MemController | DynOpKind::Lsq | DynOpKind::Unsupported(_)
            )
        {
            return Err(self
                .p
                .err(m.value.span, format!("`{}` takes no memref", op.mnemonic)));
        }
        Ok(())
    }
}

/// `%name` or `%name#k`, as a use of result `k` of a group of `count` is written.
fn show(name: &str, k: u32, count: u32) -> String {
    if count == 1 {
        format!("`%{name}`")
    } else {
        format!("`%{name}#{k}`")
    }
}
