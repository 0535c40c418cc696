"""Values compared with an integer literal (`s > 0`) that also meet float-only math (`tl.exp`) are scores,
not indices: the witness gives their tensor a float type, and the kernel runs (an int32 tensor stopped it
with "Expected dtype ['fp32', 'fp64'] but got int32"). A load used as an index stays integer."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.witness.witness_line import witness_line

KERNELS = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def positive_exp(S, Out, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        s = tl.load(S + offs)
        tl.store(Out + offs, tl.where(s > 0, tl.exp(s), 0.0), mask=offs < n)


    @triton.jit
    def max_then_exp(S, Out, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        s = tl.load(S + offs)
        top = tl.max(tl.where(s >= -1, s, -1.0), axis=0)
        tl.store(Out + offs, s - tl.exp(top), mask=offs < n)


    @triton.jit
    def gather(X, Idx, Out, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        rows = tl.load(Idx + offs)
        vals = tl.load(X + rows, mask=rows >= 0, other=0.0)
        tl.store(Out + offs, tl.exp(vals), mask=offs < n)
""")


@pytest.mark.parametrize(("line", "dtype"), [(8, "float32"), (15, "float32"), (23, "int32")])
def test_the_loaded_tensor_takes_the_type_its_use_asks(tmp_path: Path, line: int, dtype: str) -> None:
    path = tmp_path / "float_by_use.py"
    path.write_text(KERNELS)
    w = witness_line(path, line, "TL101")
    assert w.status == "confirmed", w.reason  # `error` before for the first two: an int32 tensor into tl.exp
    loaded = next(a for a in (w.launch or {})["args"] if a["name"] in ("S", "Idx"))
    assert loaded["dtype"] == dtype
