//! Operand/result rules of each operation, as the op's [`spec`](handscope_sim::spec) states
//! them: the port counts, then the type and attribute rules.

use handscope_sim::spec::check_node;
use handscope_sim::{Op, Type};

/// Checks that `op` accepts operands of types `ins` and produces `outs`; the first broken
/// rule is the error. For `extmemory`, `ins` excludes the memref operand. `return` and
/// `instance` are checked against the signatures elsewhere.
pub(crate) fn validate(op: &Op, ins: &[Type], outs: &[Type]) -> Result<(), String> {
    if matches!(op, Op::Return | Op::Instance { .. }) {
        return Ok(());
    }
    match check_node(op, ins, outs, 0).into_iter().next() {
        None => Ok(()),
        Some(v) => Err(format!("`{}`: {}", qualified(op), v.message)),
    }
}

/// `arith.addi`, `fork`: the op as it is written in MLIR.
fn qualified(op: &Op) -> String {
    match op {
        Op::Arith(a) => format!("arith.{}", a.mnemonic()),
        other => other.mnemonic().to_string(),
    }
}
