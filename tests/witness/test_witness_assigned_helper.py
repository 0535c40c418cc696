"""A jit helper made one by assignment (`scale = triton.jit(scale)`) is cut out with its kernel: the name is
bound last by the assignment, which alone found no function to wrap and left a stand-in ("unexpected
object ... in __signature__ attribute" when the kernel called it)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.witness.witness_line import witness_line

KERNEL = textwrap.dedent("""\
    import triton
    import triton.language as tl


    def halve(x, factor):
        return x * factor * 0.5


    halve = triton.jit(halve)


    @triton.jit
    def halved_copy(X, Y, N, factor, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(X + offs)
        tl.store(Y + offs, halve(x, factor), mask=offs < N)
""")


def test_a_helper_jitted_by_assignment_runs(tmp_path: Path) -> None:
    path = tmp_path / "assigned_helper.py"
    path.write_text(KERNEL)
    w = witness_line(path, 15, "TL101")
    assert w.status == "confirmed", w.reason  # `error` before: the stand-in reached `__signature__`
    assert w.validation is not None and w.validation["status"] == "validated", w.validation
