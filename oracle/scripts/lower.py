#!/usr/bin/env python3
"""Lower one handshake MLIR file to SystemVerilog with the `circt` Python package (1.62).

Usage: lower.py INPUT.mlir OUTPUT.sv

Reproduces CIRCT 1.62's reference RTL:

* the package does not register the `arith`, `cf` and `func` dialects, so two passes that
  depend on them are run once on an empty module, which loads them into the context;
* the pipeline is `lower-handshake-to-hw, lower-esi-to-physical, lower-esi-ports,
  lower-esi-to-hw, lower-seq-to-sv, canonicalize`; when the input contains a memory,
  `handshake-lower-extmem-to-hw` runs first and `hw.module(lower-seq-hlmem)` runs before
  `lower-seq-to-sv`;
* the result is written with `circt.export_verilog`.

One lowering per process: a failed conversion can abort the interpreter. Exit status 0 on
success, 1 on a parse or pass failure (message on stderr).
"""

import io
import sys

import circt
from circt.ir import Context, Module
from circt.passmanager import PassManager

BASE = [
    "lower-handshake-to-hw",
    "lower-esi-to-physical",
    "lower-esi-ports",
    "lower-esi-to-hw",
    "lower-seq-to-sv",
    "canonicalize",
]


def pipeline(has_memory: bool) -> str:
    passes = list(BASE)
    if has_memory:
        passes.insert(0, "handshake-lower-extmem-to-hw")
        passes.insert(passes.index("lower-seq-to-sv"), "hw.module(lower-seq-hlmem)")
    return "builtin.module(" + ", ".join(passes) + ")"


def load_dependent_dialects() -> None:
    """Loads arith/cf/func into the current context by running passes that depend on them."""
    empty = Module.parse("module {}")
    for p in (
        "builtin.module(handshake-lower-extmem-to-hw)",
        "builtin.module(func.func(convert-affine-to-loopschedule))",
    ):
        PassManager.parse(p).run(empty.operation)


def main(argv: list) -> int:
    if len(argv) != 3:
        sys.stderr.write("usage: lower.py INPUT.mlir OUTPUT.sv\n")
        return 2
    src = open(argv[1], encoding="utf-8").read()
    has_memory = "memory" in src
    ctx = Context()
    circt.register_dialects(ctx)
    with ctx:
        try:
            load_dependent_dialects()
            module = Module.parse(src)
            PassManager.parse(pipeline(has_memory)).run(module.operation)
        except Exception as e:  # MLIRError and friends
            sys.stderr.write(f"lowering failed: {e}\n")
            return 1
        out = io.StringIO()
        circt.export_verilog(module, out)
    with open(argv[2], "w", encoding="utf-8") as f:
        f.write(out.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
