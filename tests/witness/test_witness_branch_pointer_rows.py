"""A pointer defined on two constexpr branches (a row vector, or a matrix walked in row tiles by a loop
whose end is computed, `range(0, tl.cdiv(R, TR) * TR, TR)`): on the matrix side the tensor holds R
rows, laid out with the stride that side uses.

Before: the loop's computed end bounded nothing (one row tile held), and the matrix side's row stride
was left to the unit default, so its rows overlapped and the partial last row tile stayed inside the
tensor (fixture advance_on_other_branch)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.witness.witness_cli import witness_json

SRC = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def add_offsets(w_ptr, y_ptr, R, C, stride_wr, MODE: tl.constexpr, TR: tl.constexpr, TC: tl.constexpr):
        cols = tl.program_id(0) * TC + tl.arange(0, TC)
        rows = tl.arange(0, TR)
        if MODE == "row":
            w_ptrs = w_ptr + cols
        else:
            w_ptrs = w_ptr + rows[:, None] * stride_wr + cols[None, :]
        acc = tl.zeros((TR, TC), dtype=tl.float32)
        for r0 in range(0, tl.cdiv(R, TR) * TR, TR):
            if MODE == "row":
                acc += tl.load(w_ptrs, mask=cols < C, other=0.0)[None, :]
            elif MODE == "full":
                acc += tl.load(w_ptrs)
            if MODE == "full":
                w_ptrs += TR * stride_wr
        tl.store(y_ptr + cols, tl.sum(acc, 0), mask=cols < C)
""")


def test_the_taken_sides_rows_and_stride_size_the_tensor(tmp_path: Path) -> None:
    path = tmp_path / "add_offsets.py"
    path.write_text(SRC)
    found = {d["line"]: d["witness"] for d in witness_json(path, "--select", "ALL", "--jobs", "1")}
    assert 18 in found, sorted(found)
    assert found[18]["status"] == "confirmed", found[18]["reason"]
    assert "past the end of `w_ptr`" in found[18]["reason"] and "R=" in found[18]["reason"], found[18]["reason"]
