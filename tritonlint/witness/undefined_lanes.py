"""TL105's undefined-lane run: a masked load with no `other=` leaves its masked-off lanes to the compiler.

Triton's IR calls those lanes undefined (`LoadOp`'s canonicalizer, lib/Dialect/Triton/IR/Ops.cpp: "If
there's no "other", the value is "undef""), while today's lowerings fill them with 0 (NVIDIA's
`LoadOpConversion` initialises the destination registers with `mov 0` when there is no `other`; AMD's
uses a zero vector as the false value), and so does the interpreter. A run with 0 therefore matches the
hardware, and the witness compares it with the identity run first. Where that shows nothing (a max over
non-negative ids: 0 never wins), this run holds the lanes at the value the reduction cannot absorb: the
element type's largest finite value before a max (or before `exp` and a sum), its least before a min,
its largest before a plain sum. Any lane that reaches the reduction then changes the result; the finite
extremes keep the arithmetic between free of the NaN an infinity would make (`inf - inf`), which the
identity comparison would discount. A confirmation by this run alone is latent: the kernel relies on
a fill no Triton release promises, but no current lowering breaks it.

`undefined_lanes_patch` is self-contained (imports inside): the child process installs it.
"""

from __future__ import annotations

import ast
from typing import Any

LATENT = ("the masked-off lanes of a load with no `other=` are undefined in Triton's IR, but the NVIDIA "
          "and AMD lowerings and the interpreter fill them with 0, and at 0 the outputs equal the "
          "identity run: only a compiler that exploits the undefined lanes shows it")


def loads_without_other(text: str, line: int, column: int) -> bool:
    """Whether the `tl.load` the finding flags (at `line`, 1-based `column`) has a mask and no `other`."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.lineno == line and node.col_offset == column - 1 \
                and ast.unparse(node.func).split(".")[-1] == "load":
            keywords = {k.arg for k in node.keywords}
            masked = "mask" in keywords or len(node.args) >= 2
            return masked and "other" not in keywords and len(node.args) < 3 and None not in keywords
    return False


def adversary(identity: float) -> str:
    """The extreme the undefined lanes take, by the identity the reduction needs: "max" (the type's
    largest finite value) unless the identity is +inf (a min: "min")."""
    return "min" if identity == float("inf") else "max"


def undefined_lanes_patch(path: str, line: int, extreme: str) -> Any:
    """Patch the interpreter: the masked-off lanes of the loads at `path:line` hold the element type's
    largest (`extreme == "max"`) or least finite value. Returns the function that undoes it."""
    import sys

    import numpy as np
    from triton.runtime import interpreter as interp

    cls = interp.InterpreterBuilder
    inner = cls.create_masked_load

    def create_masked_load(self: Any, ptrs: Any, mask: Any, other: Any, *rest: Any) -> Any:
        ret = inner(self, ptrs, mask, other, *rest)
        frame: Any = sys._getframe(1)
        while frame is not None and not (frame.f_code.co_filename == path and frame.f_lineno == line):
            frame = frame.f_back
        if frame is None or mask is None:
            return ret
        data = np.array(ret.data, copy=True)
        element = getattr(ret.dtype, "scalar", ret.dtype)
        if data.dtype.kind == "f":
            value: Any = getattr(np.finfo(data.dtype), extreme)
        elif str(element) == "bf16":  # stored as its bits: 0x7f7f is its largest finite value, 0xff7f its least
            value = 0x7F7F if extreme == "max" else 0xFF7F
        elif data.dtype.kind in "iu" and not element.is_floating():
            value = getattr(np.iinfo(data.dtype), extreme)
        else:
            return ret  # a bool, or an fp8 type stored as bits: no extreme taken
        off = ~np.broadcast_to(np.asarray(getattr(mask, "data", mask), dtype=bool), data.shape)
        data[off] = value
        return interp.TensorHandle(data, ret.dtype)

    cls.create_masked_load = create_masked_load
    return lambda: setattr(cls, "create_masked_load", inner)
