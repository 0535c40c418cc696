"""A prefetch of the next block runs past the tensor at full tiles too (the block after the last one, read
and never used): the full-tile control overruns, by whole tiles only. The candidate's partial size puts a
block across the tensor's end (lanes inside it and lanes past it in one execution): that is the partial
tile the finding is about, and it is confirmed; before, the control's overrun read as a launch that does
not match the kernel's indexing, and the fix was never run."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.witness.witness_line import witness_line
from tritonlint.witness.hits import across_end

KERNEL = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def gated_sum(V, G, Out, L, BLOCK: tl.constexpr):
        lanes = tl.arange(0, BLOCK)
        total = tl.zeros([BLOCK], dtype=tl.float32)
        ahead = tl.load(V + lanes, mask=lanes < L, other=0.0)
        for b in range(0, tl.cdiv(L, BLOCK)):
            cur = ahead
            gate = tl.load(G + b * BLOCK + lanes, mask=b * BLOCK + lanes < L, other=0.0)
            ahead = tl.load(V + (b + 1) * BLOCK + lanes)
            total += tl.sigmoid(gate) * cur
        tl.store(Out + tl.program_id(0), tl.sum(total, axis=0))
""")


def test_a_next_block_prefetch_is_confirmed_on_the_block_across_the_end(tmp_path: Path) -> None:
    path = tmp_path / "gated_sum.py"
    path.write_text(KERNEL)
    w = witness_line(path, 13, "TL101")
    assert w.status == "confirmed", w.reason  # not-reproduced before: "out of bounds at full tiles too"
    assert "a tile across the end of `V`" in w.reason, w.reason
    assert w.validation is not None and w.validation["status"] == "validated", w.validation


def test_a_control_further_past_than_one_tile_still_voids_the_launch() -> None:
    # A full-tile control that overran whole rows (further than the finding's tile) read memory the launch
    # did not lay out: the tile across the end beside it proves nothing (a layout that does not match).
    straddling = [{"straddles": 1, "max_elements": 8}]
    assert across_end(straddling, [{"straddles": 0, "max_elements": 16}], 16)
    assert not across_end(straddling, [{"straddles": 0, "max_elements": 40}], 16)
    assert not across_end(straddling, [{"straddles": 1, "max_elements": 8}], 16)  # the control straddles too
    assert not across_end([{"straddles": 0, "max_elements": 8}], [{"straddles": 0, "max_elements": 16}], 16)
