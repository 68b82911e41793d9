//! Operand/result type rules of each operation (what CIRCT's verifiers require).

use handscope_sim::{ArithOp, Op, Type};

/// Checks that `op` accepts operands of types `ins` and produces `outs`.
/// For `extmemory`, `ins` excludes the memref operand.
pub(crate) fn validate(op: &Op, ins: &[Type], outs: &[Type]) -> Result<(), String> {
    let m = op.mnemonic();
    let all_eq = |ts: &[Type], t: &Type| ts.iter().all(|x| x == t);
    let count = |n_in: &str, ok_in: bool, n_out: &str, ok_out: bool| -> Result<(), String> {
        if !ok_in {
            return Err(format!(
                "`{m}` takes {n_in} operand(s), found {}",
                ins.len()
            ));
        }
        if !ok_out {
            return Err(format!(
                "`{m}` produces {n_out} result(s), found {}",
                outs.len()
            ));
        }
        Ok(())
    };
    let same = |ok: bool| {
        if ok {
            Ok(())
        } else {
            Err(format!(
                "`{m}` requires its operands and results to have the same type"
            ))
        }
    };
    match op {
        Op::Argument { .. } => Ok(()),
        Op::Fork | Op::LazyFork => {
            count("1", ins.len() == 1, "at least 1", !outs.is_empty())?;
            same(all_eq(outs, &ins[0]))
        }
        Op::Merge => {
            count("at least 1", !ins.is_empty(), "1", outs.len() == 1)?;
            same(all_eq(ins, &outs[0]))
        }
        Op::Br | Op::Buffer { .. } => {
            count("1", ins.len() == 1, "1", outs.len() == 1)?;
            same(ins[0] == outs[0])
        }
        Op::Mux => {
            count("at least 2", ins.len() >= 2, "1", outs.len() == 1)?;
            if !ins[0].is_integer() {
                return Err(format!(
                    "the select operand of `mux` must be an integer or index, found {}",
                    ins[0]
                ));
            }
            same(all_eq(&ins[1..], &outs[0]))
        }
        Op::ControlMerge => {
            count("at least 1", !ins.is_empty(), "2", outs.len() == 2)?;
            if !outs[1].is_integer() {
                return Err(format!(
                    "the index result of `control_merge` must be an integer or index, found {}",
                    outs[1]
                ));
            }
            same(all_eq(ins, &outs[0]))
        }
        Op::CondBr => {
            count("2", ins.len() == 2, "2", outs.len() == 2)?;
            if ins[0] != Type::Int(1) {
                return Err(format!(
                    "the condition of `cond_br` must be i1, found {}",
                    ins[0]
                ));
            }
            same(all_eq(outs, &ins[1]))
        }
        Op::Join => {
            count("at least 1", !ins.is_empty(), "1", outs.len() == 1)?;
            if outs[0] != Type::None {
                return Err("`join` produces a `none` result".into());
            }
            Ok(())
        }
        Op::Sync => {
            count(
                "at least 1",
                !ins.is_empty(),
                "as many",
                outs.len() == ins.len(),
            )?;
            same(ins == outs)
        }
        Op::Pack => {
            count("at least 1", !ins.is_empty(), "1", outs.len() == 1)?;
            if outs[0] != Type::Tuple(ins.to_vec()) {
                return Err("the result of `pack` must be the tuple of its operand types".into());
            }
            Ok(())
        }
        Op::Unpack => {
            count("1", ins.len() == 1, "at least 1", !outs.is_empty())?;
            if ins[0] != Type::Tuple(outs.to_vec()) {
                return Err(
                    "the results of `unpack` must be the members of its tuple operand".into(),
                );
            }
            Ok(())
        }
        Op::Constant { .. } => {
            count("1", ins.len() == 1, "1", outs.len() == 1)?;
            if ins[0] != Type::None {
                return Err("the control operand of `constant` must be `none`".into());
            }
            if !outs[0].is_integer() {
                return Err(format!(
                    "`constant` must produce an integer or index, found {}",
                    outs[0]
                ));
            }
            Ok(())
        }
        Op::Source => {
            count("no", ins.is_empty(), "1", outs.len() == 1)?;
            if outs[0] != Type::None {
                return Err("`source` produces a `none` result".into());
            }
            Ok(())
        }
        Op::Sink => count("1", ins.len() == 1, "no", outs.is_empty()),
        Op::Never => count("no", ins.is_empty(), "1", outs.len() == 1),
        Op::Load | Op::Store => {
            count(
                "3 (address, data, control)",
                ins.len() == 3,
                "2",
                outs.len() == 2,
            )?;
            if ins[2] != Type::None {
                return Err(format!("the control operand of `{m}` must be `none`"));
            }
            if !ins[0].is_integer() {
                return Err(format!("the address of `{m}` must be an integer or index"));
            }
            if outs[0] != ins[1] || outs[1] != ins[0] {
                return Err(format!(
                    "`{m}` results must have the data type and the address type"
                ));
            }
            Ok(())
        }
        Op::Memory { ld, st, memref, .. } | Op::ExtMemory { ld, st, memref, .. } => {
            let (ld, st) = (*ld as usize, *st as usize);
            let n_in = format!("{} (2 per store, 1 per load)", 2 * st + ld);
            let n_out = format!("{}", 2 * ld + st);
            count(
                &n_in,
                ins.len() == 2 * st + ld,
                &n_out,
                outs.len() == 2 * ld + st,
            )?;
            for i in 0..st {
                if ins[2 * i] != memref.elem {
                    return Err(format!(
                        "store data {i} of `{m}` must have the element type {}",
                        memref.elem
                    ));
                }
            }
            if !all_eq(&outs[..ld], &memref.elem) {
                return Err(format!(
                    "load data results of `{m}` must have the element type {}",
                    memref.elem
                ));
            }
            if !all_eq(&outs[ld..], &Type::None) {
                return Err(format!("done results of `{m}` must be `none`"));
            }
            if let Some(t) = ins
                .iter()
                .enumerate()
                .find(|(i, t)| (*i >= 2 * st || i % 2 == 1) && !t.is_integer())
            {
                return Err(format!(
                    "addresses of `{m}` must be integers or index, found {}",
                    t.1
                ));
            }
            Ok(())
        }
        Op::Instance { .. } => Ok(()),
        Op::Return => count("any", true, "no", outs.is_empty()),
        Op::Arith(a) => validate_arith(*a, ins, outs),
    }
}

fn validate_arith(a: ArithOp, ins: &[Type], outs: &[Type]) -> Result<(), String> {
    let m = a.mnemonic();
    if ins.len() != a.arity() {
        return Err(format!(
            "`arith.{m}` takes {} operand(s), found {}",
            a.arity(),
            ins.len()
        ));
    }
    if outs.len() != 1 {
        return Err(format!(
            "`arith.{m}` produces 1 result, found {}",
            outs.len()
        ));
    }
    let (x, y) = (&ins[ins.len() - 1], &outs[0]);
    if !x.is_integer() || !y.is_integer() {
        return Err(format!("`arith.{m}` works on integers and index only"));
    }
    match a {
        ArithOp::Cmpi(_) => {
            if ins[0] != ins[1] || *y != Type::Int(1) {
                return Err("`arith.cmpi` compares two values of one type and produces i1".into());
            }
        }
        ArithOp::Select => {
            if ins[0] != Type::Int(1) || ins[1] != ins[2] || ins[1] != *y {
                return Err(
                    "`arith.select` takes an i1 condition and two values of the result type".into(),
                );
            }
        }
        ArithOp::Extsi | ArithOp::Extui | ArithOp::Trunci => {
            let (Type::Int(wx), Type::Int(wy)) = (x, y) else {
                return Err(format!(
                    "`arith.{m}` converts between iN types (use index_cast for index)"
                ));
            };
            let ok = if a == ArithOp::Trunci {
                wy < wx
            } else {
                wy > wx
            };
            if !ok {
                let dir = if a == ArithOp::Trunci {
                    "narrower"
                } else {
                    "wider"
                };
                return Err(format!(
                    "the result of `arith.{m}` must be {dir} than its operand"
                ));
            }
        }
        ArithOp::IndexCast => {
            if (*x == Type::Index) == (*y == Type::Index) {
                return Err("`arith.index_cast` converts between index and an iN type".into());
            }
        }
        _ => {
            if ins[0] != ins[1] || ins[0] != *y {
                return Err(format!(
                    "`arith.{m}` requires its operands and result to have the same type"
                ));
            }
        }
    }
    Ok(())
}
