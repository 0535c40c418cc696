"""A block pointer whose row stride is a size (`strides=(cols, 1)` over `shape=(rows, cols)`): the
buffer holds `rows * cols`, laid out in rows of `cols`, as `offs_r * cols + offs_c` would say.

Before: a stride that was not a stride parameter was read as the unit stride, so both dimensions
were laid out side by side (`rows + cols - 1` elements) and even the full-tile control overran: a
block-pointer tile over a `cdiv` grid (fixture block_ptr_cdiv_grid) was never confirmed."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.witness.witness_cli import witness_json

SRC = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def halve(src_ptr, dst_ptr, rows, cols, TR: tl.constexpr, TC: tl.constexpr):
        r = tl.program_id(0)
        c = tl.program_id(1)
        src = tl.make_block_ptr(src_ptr, shape=(rows, cols), strides=(cols, 1), offsets=(r * TR, c * TC),
                                block_shape=(TR, TC), order=(1, 0))
        dst = tl.make_block_ptr(dst_ptr, shape=(rows, cols), strides=(cols, 1), offsets=(r * TR, c * TC),
                                block_shape=(TR, TC), order=(1, 0))
        tile = tl.load(src, boundary_check=(0, 1), padding_option="zero")
        tl.store(dst, tile * 0.5, boundary_check=(1,))


    def run(x):
        rows, cols = x.shape
        y = torch.empty_like(x)
        halve[(triton.cdiv(rows, 32), triton.cdiv(cols, 32))](x, y, rows, cols, TR=32, TC=32)
        return y
""")


def test_a_size_as_the_row_stride_lays_the_block_out_in_rows(tmp_path: Path) -> None:
    path = tmp_path / "halve.py"
    path.write_text(SRC)
    found = [d for d in witness_json(path, "--select", "ALL", "--jobs", "1") if d["line"] == 15]
    assert found, "the store checked on the columns only is a finding (its rows run past the last tile)"
    w = found[0]["witness"]
    assert w["status"] == "confirmed", w["reason"]
    assert "past the end of `dst_ptr`" in w["reason"]
    assert found[0]["fix"]["validation"]["status"] == "validated", found[0]["fix"]["validation"]
