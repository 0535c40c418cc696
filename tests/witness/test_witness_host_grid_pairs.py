"""Two int64 entries per item of a host count the kernel never receives: `pairs = torch.empty(count * 2)`,
a grid of `cdiv(count, 256)` programs, stores at `2 * item` and `2 * item + 1` through named offsets, no
mask. Before, the grid's host extent was made a size only for kernels taking no size at all (this one
takes the dims `count` is a product of), so another size was made partial on a grid of two programs;
and the named `2 * item` was laid out with unit stride, a buffer of `count + 1` that even full tiles
overran ("no launch tried matches the kernel's indexing"). Now the host extent on the finding's axis
is the size made partial, and the buffer holds what the kernel's indexing reaches: 2 * count."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.witness.witness_line import witness_line

KERNEL = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def pair_index_kernel(pairs_ptr, rows_a, rows_b, cols_a, cols_b, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        item = pid * BLOCK + tl.arange(0, BLOCK)
        col = item % cols_b
        row = (item // cols_b) % rows_b
        left = (row // rows_a) * cols_a + col // cols_a
        right = (row % rows_a) * cols_a + col % cols_a
        left_at = 2 * item
        right_at = 2 * item + 1
        tl.store(pairs_ptr + left_at, left)
        tl.store(pairs_ptr + right_at, right)


    def pair_indices(a, b):
        rows_a, cols_a = a.shape[0], a.shape[1]
        rows_b, cols_b = b.shape[0], b.shape[1]
        count = rows_a * rows_b * cols_a * cols_b
        pairs = torch.empty(count * 2, device=a.device, dtype=torch.int64)
        grid = (triton.cdiv(count, 256),)
        pair_index_kernel[grid](pairs, rows_a, rows_b * rows_a, cols_a, cols_b * cols_a, BLOCK=256)
        return pairs
""")


def _numel(launch: dict, name: str) -> int:
    return next(a["numel"] for a in launch["args"] if a["name"] == name)


def test_the_host_count_is_made_partial_and_the_pairs_buffer_holds_two_per_item(tmp_path: Path) -> None:
    path = tmp_path / "pair_index.py"
    path.write_text(KERNEL)
    for line in (16, 17):
        w = witness_line(path, line, "TL102")
        assert w.status == "confirmed", w.reason
        assert w.launch is not None and w.launch["axis"] == "count", w.launch
        count = w.launch["sizes"]["count"]
        assert count % 256, w.launch  # a partial last tile of items
        assert _numel(w.launch, "pairs_ptr") == 2 * count, w.launch
        assert w.evidence is not None and w.evidence["tensor"] == "pairs_ptr", w.evidence
        # The last program's items past `count`, two entries each: the first store stops one short.
        past = 2 * (256 - count % 256) - (1 if line == 16 else 0)
        assert w.evidence["elements_past"] == past, w.evidence
