"""A launch whose grid counts the tiles past a start it also passes (`cdiv(n - start, BLOCK)`, the kernel
adding `start` to its offsets) is synthesized with that grid: before, the grid covered the whole size from
the start, so every program past the span read whole tiles beyond the tensor and the full-tile control
overran (a launch the host never makes)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.witness.witness_line import witness_line

KERNEL = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def shift_tail(X, Out, n, first, BLOCK: tl.constexpr):
        offs = first + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(X + offs)
        tl.store(Out + offs, x + 1.0, mask=offs < n)


    def shifted(x, first):
        n = x.numel()
        out = torch.empty_like(x)
        shift_tail[(triton.cdiv(n - first, 32),)](x, out, n, first, BLOCK=32)
        return out
""")


def test_the_grid_counts_the_tiles_past_the_start(tmp_path: Path) -> None:
    path = tmp_path / "shift_tail.py"
    path.write_text(KERNEL)
    w = witness_line(path, 9, "TL101")
    assert w.status == "confirmed", w.reason
    assert w.launch is not None
    sizes = w.launch["sizes"]
    assert w.launch["grid"] == [-(-(sizes["n"] - sizes["first"]) // 32)], w.launch
    assert w.evidence is not None and w.evidence["elements_past"] < 32, w.evidence  # one partial tile's lanes
