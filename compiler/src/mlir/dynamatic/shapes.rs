//! The operand and result types of each op form, read from its printed type signature.

use handscope_sim::Type;

use super::ast::DynType;
use super::era::Era;
use super::kinds::Form;
use super::ops::Parts;
use super::reader::Reader;
use super::types::{TypeElem, TypeSig};
use crate::mlir::Span;
use crate::mlir::parser::PResult;

impl Reader<'_> {
    /// Operand and result types from the printed signature, per form; an error when the
    /// signature does not have the form's shape.
    pub(super) fn shape_types(
        &mut self,
        form: Form,
        mnemonic: &str,
        parts: &Parts,
        name_span: Span,
    ) -> PResult<(Vec<DynType>, Vec<DynType>)> {
        let sig = &parts.sig;
        let n = parts.operands.len();
        let segs = &sig.segs;
        let at = if segs.is_empty() { name_span } else { sig.span };
        let one = |seg: &[TypeElem]| -> Option<DynType> {
            match seg {
                [TypeElem::Ty(t)] => Some(t.clone()),
                _ => None,
            }
        };
        let tys = |seg: &[TypeElem]| -> Option<Vec<DynType>> {
            seg.iter()
                .map(|e| match e {
                    TypeElem::Ty(t) => Some(t.clone()),
                    _ => None,
                })
                .collect()
        };
        let i1 = DynType::Channel {
            data: Type::Int(1),
            extra: Vec::new(),
        };
        let bad = |this: &Self, expected: &str| {
            this.p.err(
                at,
                format!("`{mnemonic}` expects the type form `{expected}`"),
            )
        };
        let r = match form {
            Form::Generic => {
                let mut it = segs.iter();
                let ins = it
                    .next()
                    .map(|s| TypeSig::flatten_seg(s))
                    .unwrap_or_default();
                let outs = it.flat_map(|s| TypeSig::flatten_seg(s)).collect();
                (ins, outs)
            }
            Form::Fork => {
                let t = segs
                    .first()
                    .filter(|_| segs.len() == 1)
                    .and_then(|s| one(s))
                    .ok_or_else(|| bad(self, ": <T>"))?;
                let size = parts.fork_size.map_or(0, |f| f.0) as usize;
                (vec![t.clone()], vec![t; size])
            }
            Form::Buffer
            | Form::Variadic
            | Form::Binary
            | Form::Join
            | Form::Sink
            | Form::Unary
            | Form::Compare => {
                let (ins, out) = match segs.as_slice() {
                    [s] => {
                        let l = tys(s).ok_or_else(|| bad(self, ": <T>"))?;
                        match l.as_slice() {
                            [t] => (vec![t.clone(); n], t.clone()),
                            _ if l.len() == n && n > 0 => (l.clone(), l[0].clone()),
                            _ => return Err(bad(self, ": <T>")),
                        }
                    }
                    // `absf ... : <f32> to <f32>` and other unary ops printed with `to`.
                    [a, b] if form == Form::Unary => {
                        let (a, b) = one(a)
                            .zip(one(b))
                            .ok_or_else(|| bad(self, ": <T> to <U>"))?;
                        (vec![a; n], b)
                    }
                    _ => return Err(bad(self, ": <T>")),
                };
                match form {
                    Form::Sink => (ins, Vec::new()),
                    Form::Compare => (ins, vec![i1]),
                    Form::Join => (ins, vec![DynType::Control { extra: Vec::new() }]),
                    _ => (ins, vec![out]),
                }
            }
            Form::Cast => match segs.as_slice() {
                [a, b] => {
                    let (a, b) = one(a)
                        .zip(one(b))
                        .ok_or_else(|| bad(self, ": <T> to <U>"))?;
                    (vec![a; n], vec![b])
                }
                _ => return Err(bad(self, ": <T> to <U>")),
            },
            Form::Mux => match segs.as_slice() {
                [s, o] => match (s.as_slice(), one(o)) {
                    ([TypeElem::Ty(sel), TypeElem::List(data)], Some(out)) => {
                        self.mark(Era::E3, Era::E5, "`mux %s [..] : <i1>, [..] to <T>`", at);
                        let mut ins = vec![sel.clone()];
                        ins.extend(data.iter().cloned());
                        (ins, vec![out])
                    }
                    _ => return Err(bad(self, ": <i1>, [<T>, ...] to <T>")),
                },
                [s] => match s.as_slice() {
                    [TypeElem::Ty(sel), TypeElem::Ty(t)] => {
                        self.mark(Era::E2, Era::E2, "`mux %s [..] : <i1>, <T>`", at);
                        let mut ins = vec![sel.clone()];
                        ins.extend(std::iter::repeat_n(t.clone(), n.saturating_sub(1)));
                        (ins, vec![t.clone()])
                    }
                    _ => return Err(bad(self, ": <i1>, [<T>, ...] to <T>")),
                },
                _ => return Err(bad(self, ": <i1>, [<T>, ...] to <T>")),
            },
            Form::ControlMerge => match segs.as_slice() {
                [s, o] => match (s.as_slice(), tys(o).as_deref()) {
                    ([TypeElem::List(data)], Some([out, idx])) => {
                        self.mark(
                            Era::E3,
                            Era::E5,
                            "`control_merge [..] : [..] to <>, <iK>`",
                            at,
                        );
                        (data.clone(), vec![out.clone(), idx.clone()])
                    }
                    _ => return Err(bad(self, ": [<T>, ...] to <T>, <iK>")),
                },
                [s] => match tys(s).as_deref() {
                    Some([t, idx]) => {
                        self.mark(Era::E2, Era::E2, "`control_merge %a, %b : <T>, <iK>`", at);
                        (vec![t.clone(); n], vec![t.clone(), idx.clone()])
                    }
                    _ => return Err(bad(self, ": [<T>, ...] to <T>, <iK>")),
                },
                _ => return Err(bad(self, ": [<T>, ...] to <T>, <iK>")),
            },
            Form::CondBr => match segs.as_slice() {
                [s] => match tys(s).as_deref() {
                    Some([c, d]) => (vec![c.clone(), d.clone()], vec![d.clone(), d.clone()]),
                    _ => return Err(bad(self, ": <i1>, <T>")),
                },
                _ => return Err(bad(self, ": <i1>, <T>")),
            },
            Form::Select => match segs.as_slice() {
                [s] => match tys(s).as_deref() {
                    Some([c, d]) => {
                        let mut ins = vec![c.clone()];
                        ins.extend(std::iter::repeat_n(d.clone(), n.saturating_sub(1)));
                        (ins, vec![d.clone()])
                    }
                    _ => return Err(bad(self, ": <i1>, <T>")),
                },
                _ => return Err(bad(self, ": <i1>, <T>")),
            },
            Form::Constant => match segs.as_slice() {
                [s] => match tys(s).as_deref() {
                    Some([c, t]) => (vec![c.clone()], vec![t.clone()]),
                    _ => return Err(bad(self, ": <>, <T>")),
                },
                _ => return Err(bad(self, ": <>, <T>")),
            },
            Form::Source => match segs.as_slice() {
                [s] => match tys(s).as_deref() {
                    Some([t]) => (Vec::new(), vec![t.clone()]),
                    _ => return Err(bad(self, ": <>")),
                },
                _ => return Err(bad(self, ": <>")),
            },
            Form::Load | Form::Store => {
                let l = match segs.as_slice() {
                    [s] => tys(s),
                    _ => None,
                };
                let expected = ": <A>, <D>, <A>, <D>";
                let l = l.ok_or_else(|| bad(self, expected))?;
                if l.len() == n && n == 2 {
                    self.mark(Era::E2, Era::E2, "a two-type `load`/`store`", at);
                    (l.clone(), l)
                } else if l.len() == 2 * n && n > 0 {
                    if n == 2 {
                        self.mark(Era::E3, Era::E5, "a four-type `load`/`store`", at);
                    }
                    let (a, b) = l.split_at(n);
                    (a.to_vec(), b.to_vec())
                } else {
                    return Err(bad(self, expected));
                }
            }
            Form::MemController | Form::Lsq => match segs.as_slice() {
                [s, o] => {
                    let ins = match s.as_slice() {
                        [TypeElem::List(l)] => l.clone(),
                        _ => return Err(bad(self, ": (<inputs>) -> (<outputs>)")),
                    };
                    let outs = match o.as_slice() {
                        [TypeElem::List(l)] => l.clone(),
                        [TypeElem::Ty(t)] => vec![t.clone()],
                        _ => return Err(bad(self, ": (<inputs>) -> (<outputs>)")),
                    };
                    (ins, outs)
                }
                _ => return Err(bad(self, ": (<inputs>) -> (<outputs>)")),
            },
            Form::End => match segs.as_slice() {
                [] if n == 0 => (Vec::new(), Vec::new()),
                [s] => (tys(s).ok_or_else(|| bad(self, ": <T>, ..."))?, Vec::new()),
                _ => return Err(bad(self, ": <T>, ...")),
            },
        };
        Ok(r)
    }
}
