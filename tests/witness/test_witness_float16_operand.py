"""A kernel that casts one dot operand to 16 bits and loads the other as stored runs on fp32 tensors
nowhere: the witness reads the element type from the interpreter's own error and runs again in it."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

from tritonlint.config import check_selectors, load_config
from tritonlint.witness import analysis
from tritonlint.witness.runner import witness

KERNEL = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def half_dot(P, V, Out, N, BLOCK: tl.constexpr, D: tl.constexpr):
        offs_n = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        offs_d = tl.arange(0, D)
        p = tl.load(P + offs_n[:, None] * BLOCK + tl.arange(0, BLOCK)[None, :], mask=offs_n[:, None] < N, other=0.0)
        v = tl.load(V + offs_n[:, None] * D + offs_d[None, :])
        acc = tl.dot(p.to(tl.float16), v)
        tl.store(Out + offs_n[:, None] * D + offs_d[None, :], acc, mask=offs_n[:, None] < N)
""")


def test_a_half_precision_operand_gets_half_precision_tensors(tmp_path: Path) -> None:
    path = tmp_path / "half_dot.py"
    path.write_text(KERNEL)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, _errors = analysis.check_paths([str(path)], config)
    checked = files[0]
    d = next(d for d in checked.diagnostics if d.line == 10)
    w = witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags,
                analysis.fixed_text(checked.text, d), timeout=120)
    assert w.status == "confirmed", w.reason  # an `error` (fp16 and fp32 operands) before
    assert w.launch is not None and {a["dtype"] for a in w.launch["args"] if a["kind"] == "tensor"} == {"float16"}
    assert w.validation is not None and w.validation["status"] == "validated", w.validation
