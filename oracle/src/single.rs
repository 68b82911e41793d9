//! Small circuits for testing one op kind at a time: every input of the op is a function
//! argument and every output a result, so the stimulus drives the op directly.

use handscope_sim::{ArgType, Function, Op, Type};

/// A function `name` made of one `op` node whose inputs are arguments of `in_types` and
/// whose outputs (of `out_types`) are the results. IDs are assigned.
pub fn single_op(name: &str, op: Op, in_types: &[Type], out_types: &[Type]) -> Function {
    let mut f = Function::new(name);
    let ins: Vec<_> = in_types
        .iter()
        .enumerate()
        .filter_map(|(i, t)| f.add_arg(format!("in{i}"), ArgType::Channel(t.clone())))
        .collect();
    let n = f.add_node(op, out_types.to_vec());
    f.set_inputs(n, ins);
    let outs = f.nodes[n].outputs.clone();
    for (i, t) in out_types.iter().enumerate() {
        f.results.push(handscope_sim::FuncResult {
            name: format!("out{i}"),
            ty: t.clone(),
        });
    }
    let ret = f.add_node(Op::Return, vec![]);
    f.set_inputs(ret, outs);
    let _ = f.assign_ids();
    f
}

/// Like [`single_op`] but with ops chained: `ops[k]` reads the outputs of `ops[k-1]` (all
/// ops have one input and one output of type `ty`), e.g. two buffers in a row.
pub fn chain(name: &str, ops: Vec<Op>, ty: &Type) -> Function {
    let mut f = Function::new(name);
    let mut cur = f.add_arg("in0", ArgType::Channel(ty.clone()));
    for op in ops {
        let n = f.add_node(op, vec![ty.clone()]);
        f.set_inputs(n, cur.into_iter().collect());
        cur = Some(f.nodes[n].outputs[0]);
    }
    f.results.push(handscope_sim::FuncResult {
        name: "out0".into(),
        ty: ty.clone(),
    });
    let ret = f.add_node(Op::Return, vec![]);
    f.set_inputs(ret, cur.into_iter().collect());
    let _ = f.assign_ids();
    f
}
