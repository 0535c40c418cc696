"""A finding inside a jit helper whose offsets the kernel computes and hands it (`read_vec(v + i * T +
offs)`): the walked offsets are the kernel's local, so the size made partial is the one the kernel's
walk bounds (L below), not the first size of the signature.

Before: the walk was looked up in the helper only, found nothing there, and the three launches tried
all made the first size partial (fixture jit_helper_mask_constexpr: M tried, K walked)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.witness.witness_cli import witness_json

SRC = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def read_vec(p):
        return tl.load(p)


    @triton.jit
    def weighted_sum(x_ptr, v_ptr, y_ptr, R, C, L, stride_x, T: tl.constexpr):
        row = tl.program_id(0)
        offs = tl.arange(0, T)
        acc = tl.zeros([T], dtype=tl.float32)
        for i in range(0, tl.cdiv(L, T)):
            x = tl.load(x_ptr + row * stride_x + i * T + offs, mask=i * T + offs < L, other=0.0)
            acc += x * read_vec(v_ptr + i * T + offs)
        tl.store(y_ptr + row, tl.sum(acc, axis=0), mask=row < R)
""")


def test_the_size_the_callers_walk_bounds_is_made_partial(tmp_path: Path) -> None:
    path = tmp_path / "weighted.py"
    path.write_text(SRC)
    found = [d for d in witness_json(path, "--select", "ALL", "--jobs", "1") if d["line"] == 7]
    assert found, "the helper's unmasked load is a finding"
    w = found[0]["witness"]
    assert w["status"] == "confirmed", w["reason"]
    assert "past the end of `v_ptr`" in w["reason"] and "L=" in w["reason"], w["reason"]
