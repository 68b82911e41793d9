//! Reference interpreter for the IR: runs a function on scalar arguments and array contents
//! and returns the result and the final memory contents. Used to validate the front and
//! middle end against the system C compiler, and later the handshake lowering.

use super::arith::{self, ArithError, low_u64, mask, sext};
use super::ir::{InstKind, IrFunction, IrParam, MemoryKind, Terminator, Type};
use super::span::Span;
use super::types::Scalar;
use thiserror::Error;

/// `x` as a value (word) of type `t`: an integer converted like a C assignment, a float's
/// bit pattern kept as it is.
fn value_of(t: Scalar, x: i64) -> u64 {
    match t {
        Scalar::Int(i) => arith::const_word(i.wrap(i128::from(x)), i.bits()),
        Scalar::Float(_) => x as u64 & mask(t.bits()),
    }
}

/// A word of type `t` read as an `i64`: sign-extended by a signed type of at most 64 bits;
/// for a wider type, the value's low 64 bits.
fn read_i64(t: Scalar, word: u64) -> i64 {
    if arith::is_wide(t.bits()) {
        low_u64(word, t.bits()) as i64
    } else if t.signed() {
        sext(word, t.bits())
    } else {
        word as i64
    }
}

/// An argument of the top function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgValue {
    /// Scalar value (converted to an integer parameter's type like a C assignment; for a
    /// `float`/`double` parameter, the IEEE-754 bit pattern).
    Scalar(i64),
    /// Array contents in row-major order (must have exactly the array's element count;
    /// converted like scalars).
    Array(Vec<i64>),
    /// Scalar given as a word of the parameter's type: the bit pattern for at most 64 bits, a
    /// wide word ([`handscope_sim::wide`]) for a wider `_BitInt`.
    Word(u64),
    /// Array contents as words of the element type (see [`ArgValue::Word`]).
    Words(Vec<u64>),
}

/// Outcome of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecResult {
    /// Returned value (an integer read with the return type's signedness, a float as its bit
    /// pattern; for an integer wider than 64 bits, its low 64 bits), `None` for void.
    pub ret: Option<i64>,
    /// Returned value as a word of the return type (bit pattern, or wide word for an integer
    /// wider than 64 bits), `None` for void.
    pub ret_word: Option<u64>,
    /// Final contents of each array parameter, in parameter order (float elements as bit
    /// patterns).
    pub arrays: Vec<Vec<i64>>,
    /// Final contents of every memory, indexed by memory id (elements wider than 64 bits as
    /// their low 64 bits).
    pub memories: Vec<Vec<i64>>,
    /// Final contents of every memory as words (see [`ExecResult::ret_word`]), indexed by
    /// memory id.
    pub memory_words: Vec<Vec<u64>>,
    /// Number of instructions and terminators executed.
    pub steps: u64,
}

/// Why a run failed.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum InterpError {
    /// Wrong number of arguments.
    #[error("expected {expected} arguments, got {got}")]
    ArgCount {
        /// Parameters of the function.
        expected: usize,
        /// Arguments given.
        got: usize,
    },
    /// Scalar given for an array or vice versa, or wrong array length.
    #[error("argument {index} ('{name}') does not match the parameter: {reason}")]
    BadArg {
        /// Position.
        index: usize,
        /// Parameter name.
        name: String,
        /// Explanation.
        reason: String,
    },
    /// Memory access out of bounds.
    #[error("{line}:{col}: index {index} out of bounds for '{mem}' of {len} elements")]
    OutOfBounds {
        /// Memory name.
        mem: String,
        /// Offending index.
        index: i64,
        /// Memory size.
        len: u64,
        /// Source line.
        line: u32,
        /// Source column.
        col: u32,
    },
    /// Undefined arithmetic (division by zero, overflow, oversized shift).
    #[error("{line}:{col}: {what}")]
    Arith {
        /// Description.
        what: String,
        /// Source line.
        line: u32,
        /// Source column.
        col: u32,
    },
    /// The step limit was reached.
    #[error("step limit of {0} exceeded")]
    OutOfFuel(u64),
    /// Malformed IR.
    #[error("malformed IR: {0}")]
    Malformed(String),
}

fn arith_err(e: ArithError, sp: Span) -> InterpError {
    InterpError::Arith {
        what: e.to_string(),
        line: sp.line,
        col: sp.col,
    }
}

/// Runs `f` on `args` executing at most `fuel` steps.
pub fn run(f: &IrFunction, args: &[ArgValue], fuel: u64) -> Result<ExecResult, InterpError> {
    if args.len() != f.params.len() {
        return Err(InterpError::ArgCount {
            expected: f.params.len(),
            got: args.len(),
        });
    }
    let mut vals: Vec<u64> = vec![0; f.value_types.len()];
    let mut mems: Vec<Vec<u64>> = f
        .memories
        .iter()
        .map(|m| {
            let mut v = vec![0u64; m.len as usize];
            if let MemoryKind::Local { init: Some(init) } = &m.kind {
                for (d, s) in v.iter_mut().zip(init) {
                    *d = *s as u64 & mask(m.elem.bits());
                }
            }
            v
        })
        .collect();
    let bad = |index: usize, name: &str, reason: &str| InterpError::BadArg {
        index,
        name: name.to_string(),
        reason: reason.to_string(),
    };
    for (i, (p, a)) in f.params.iter().zip(args).enumerate() {
        match (p, a) {
            (IrParam::Scalar { ty, value, .. }, ArgValue::Scalar(x)) => {
                vals[value.0 as usize] = value_of(*ty, *x);
            }
            (IrParam::Array { mem, name }, ArgValue::Array(xs)) => {
                let m = &f.memories[mem.0 as usize];
                if xs.len() as u64 != m.len {
                    return Err(bad(
                        i,
                        name,
                        &format!("expected {} elements, got {}", m.len, xs.len()),
                    ));
                }
                mems[mem.0 as usize] = xs.iter().map(|x| value_of(m.elem, *x)).collect();
            }
            (IrParam::Scalar { value, .. }, ArgValue::Word(w)) => {
                vals[value.0 as usize] = *w;
            }
            (IrParam::Array { mem, name }, ArgValue::Words(xs)) => {
                let m = &f.memories[mem.0 as usize];
                if xs.len() as u64 != m.len {
                    return Err(bad(
                        i,
                        name,
                        &format!("expected {} elements, got {}", m.len, xs.len()),
                    ));
                }
                mems[mem.0 as usize] = xs.clone();
            }
            (IrParam::Scalar { name, .. }, _) => return Err(bad(i, name, "expected a scalar")),
            (IrParam::Array { name, .. }, _) => return Err(bad(i, name, "expected an array")),
        }
    }
    let mut steps = 0u64;
    let mut cur = 0usize;
    let malformed = |m: &str| InterpError::Malformed(m.to_string());
    loop {
        let block = f
            .blocks
            .get(cur)
            .ok_or_else(|| malformed("branch to a missing block"))?;
        for inst in &block.insts {
            steps += 1;
            if steps > fuel {
                return Err(InterpError::OutOfFuel(fuel));
            }
            let get = |v: super::ir::ValueId| vals[v.0 as usize];
            let rbits = inst.results.first().map_or(0, |r| f.ty(*r).bits());
            match &inst.kind {
                InstKind::Const { value } => {
                    vals[inst.results[0].0 as usize] = *value as u64 & mask(rbits);
                }
                InstKind::Binary { op, lhs, rhs } => {
                    let r = arith::binary(*op, rbits, get(*lhs), get(*rhs))
                        .map_err(|e| arith_err(e, inst.span))?;
                    vals[inst.results[0].0 as usize] = r;
                }
                InstKind::Unary { op, value } => {
                    vals[inst.results[0].0 as usize] = arith::unary(*op, rbits, get(*value));
                }
                InstKind::Cmp { pred, lhs, rhs } => {
                    let bits = f.ty(*lhs).bits();
                    vals[inst.results[0].0 as usize] =
                        arith::compare(*pred, bits, get(*lhs), get(*rhs)) as u64;
                }
                InstKind::Select { cond, t, f: fv } => {
                    vals[inst.results[0].0 as usize] =
                        if get(*cond) != 0 { get(*t) } else { get(*fv) };
                }
                InstKind::Cast { op, value } => {
                    let from = f.ty(*value).bits();
                    vals[inst.results[0].0 as usize] = arith::cast(*op, from, rbits, get(*value));
                }
                InstKind::Load { mem, index, .. } | InstKind::Store { mem, index, .. } => {
                    let m = f
                        .memories
                        .get(mem.0 as usize)
                        .ok_or_else(|| malformed("unknown memory"))?;
                    let idx = sext(get(*index), f.ty(*index).bits());
                    if idx < 0 || idx as u64 >= m.len {
                        return Err(InterpError::OutOfBounds {
                            mem: m.name.clone(),
                            index: idx,
                            len: m.len,
                            line: inst.span.line,
                            col: inst.span.col,
                        });
                    }
                    let cell = &mut mems[mem.0 as usize][idx as usize];
                    match &inst.kind {
                        InstKind::Load { .. } => {
                            vals[inst.results[0].0 as usize] = *cell;
                            vals[inst.results[1].0 as usize] = 0;
                        }
                        InstKind::Store { value, .. } => {
                            *cell = vals[value.0 as usize] & mask(m.elem.bits());
                            vals[inst.results[0].0 as usize] = 0;
                        }
                        _ => {}
                    }
                }
            }
        }
        steps += 1;
        if steps > fuel {
            return Err(InterpError::OutOfFuel(fuel));
        }
        let (target, args) = match &block.term {
            Terminator::Br { target, args } => (*target, args),
            Terminator::CondBr {
                cond,
                t,
                t_args,
                f: fb,
                f_args,
            } => {
                if vals[cond.0 as usize] != 0 {
                    (*t, t_args)
                } else {
                    (*fb, f_args)
                }
            }
            Terminator::Return { value, .. } => {
                let (ret, ret_word) = match (value, f.ret) {
                    (Some(v), Some(t)) => {
                        let word = vals[v.0 as usize];
                        (Some(read_i64(t, word)), Some(word))
                    }
                    _ => (None, None),
                };
                let memories: Vec<Vec<i64>> = mems
                    .iter()
                    .zip(&f.memories)
                    .map(|(c, m)| c.iter().map(|x| read_i64(m.elem, *x)).collect())
                    .collect();
                let arrays = f
                    .params
                    .iter()
                    .filter_map(|p| match p {
                        IrParam::Array { mem, .. } => Some(memories[mem.0 as usize].clone()),
                        IrParam::Scalar { .. } => None,
                    })
                    .collect();
                return Ok(ExecResult {
                    ret,
                    ret_word,
                    arrays,
                    memories,
                    memory_words: mems,
                    steps,
                });
            }
        };
        let tb = f
            .blocks
            .get(target.0 as usize)
            .ok_or_else(|| malformed("branch to a missing block"))?;
        if tb.params.len() != args.len() {
            return Err(malformed("argument count mismatch on a branch"));
        }
        // Parallel copy: read all arguments before writing any parameter.
        let incoming: Vec<u64> = args.iter().map(|a| vals[a.0 as usize]).collect();
        for (p, v) in tb.params.iter().zip(incoming) {
            let ty = f.ty(*p);
            vals[p.0 as usize] = if ty == Type::Token {
                0
            } else {
                v & mask(ty.bits())
            };
        }
        cur = target.0 as usize;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::c::compile_to_ir;

    #[test]
    fn reports_out_of_bounds_with_location() {
        let f = compile_to_ir("int f(int a[4], int i) {\n  return a[i];\n}\n", "t.c", None)
            .expect("compiles");
        let args = [ArgValue::Array(vec![1, 2, 3, 4]), ArgValue::Scalar(4)];
        match run(&f, &args, 1000) {
            Err(InterpError::OutOfBounds {
                index: 4,
                len: 4,
                line: 2,
                ..
            }) => {}
            other => panic!("unexpected {other:?}"),
        }
        let ok = run(
            &f,
            &[ArgValue::Array(vec![1, 2, 3, 4]), ArgValue::Scalar(2)],
            1000,
        );
        assert_eq!(ok.map(|r| r.ret), Ok(Some(3)));
    }

    #[test]
    fn reports_division_by_zero_and_fuel() {
        let f =
            compile_to_ir("int f(int a, int b) { return a / b; }", "t.c", None).expect("compiles");
        assert!(matches!(
            run(&f, &[ArgValue::Scalar(1), ArgValue::Scalar(0)], 100),
            Err(InterpError::Arith { .. })
        ));
        let g = compile_to_ir("int g(int a) { while (a) {} return 0; }", "t.c", None)
            .expect("compiles");
        assert_eq!(
            run(&g, &[ArgValue::Scalar(1)], 50),
            Err(InterpError::OutOfFuel(50))
        );
    }

    #[test]
    fn local_tables_and_unsigned_results() {
        let src = "unsigned char f(int i) {\n  const unsigned char t[2][2] = {{200, 201}, {202, 255}};\n  return t[i / 2][i % 2] + 1;\n}\n";
        let f = compile_to_ir(src, "t.c", None).expect("compiles");
        assert!(f.memories[0].read_only);
        let r = |i| run(&f, &[ArgValue::Scalar(i)], 1000).map(|r| r.ret);
        assert_eq!(r(0), Ok(Some(201)));
        assert_eq!(r(3), Ok(Some(0)));
    }
}
