"""A grid on `cdiv(hidden, BLOCK)` with `hidden = x.shape[1]` a host local the kernel is not passed, and
`x.stride(0)` passed as the row stride: the stride stands for the extent the grid walks in tiles
(host_extents.py), so it is the size made partial. Before, another size was (the row count) and the rows
were as long as whole tiles: the last tile's overrun never left the tensor."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.witness.witness_line import witness_line

KERNEL = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def scale_rows(X, S, Y, n_rows, stride_x, stride_y, BLOCK: tl.constexpr):
        col = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        for r in range(0, n_rows):
            s = tl.load(S + r)
            x = tl.load(X + r * stride_x + col)
            tl.store(Y + r * stride_y + col, x * s)


    def scaled(x, s):
        rows = x.shape[0]
        hidden = x.shape[1]
        y = torch.empty_like(x)
        scale_rows[(triton.cdiv(hidden, 64),)](x, s, y, rows, x.stride(0), y.stride(0), BLOCK=64)
        return y
""")


def test_the_row_stride_stands_for_the_host_extent_the_grid_walks(tmp_path: Path) -> None:
    path = tmp_path / "scale_rows.py"
    path.write_text(KERNEL)
    w = witness_line(path, 12, "TL102")
    assert w.status == "confirmed", w.reason
    assert w.launch is not None and w.launch["axis"] == "stride_x", w.launch
    assert w.launch["sizes"]["stride_x"] % 64, w.launch  # a partial last tile along the row
