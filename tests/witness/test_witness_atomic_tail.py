"""An atomic that overruns a tail tile is confirmed by a run: the interpreter guard checks the lanes of
`tl.atomic_*` (its `create_atomic_rmw`), the hit is matched to the finding on the atomic's line, and
the fix (the `mask=` the atomic takes) runs in bounds with the same in-bounds counts."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.witness.witness_line import witness_line

KERNEL = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def digit_histogram(keys_ptr, hist_ptr, n, n_bins, BLOCK: tl.constexpr, BIN_TILE: tl.constexpr):
        pid = tl.program_id(0)
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        keys = tl.load(keys_ptr + offs, mask=offs < n, other=-1)
        for b0 in range(0, n_bins, BIN_TILE):
            bins = b0 + tl.arange(0, BIN_TILE)
            counts = tl.sum((keys[:, None] == bins[None, :]).to(tl.int32), axis=0)
            tl.atomic_add(hist_ptr + pid * n_bins + bins, counts, sem="relaxed")
""")


def test_an_atomic_past_the_bins_is_confirmed_and_its_mask_validated(tmp_path: Path) -> None:
    path = tmp_path / "digit_histogram.py"
    path.write_text(KERNEL)
    w = witness_line(path, 13, "TL102")
    assert w.status == "confirmed", w.reason
    assert w.evidence is not None
    assert w.evidence["kind"] == "atomic" and w.evidence["tensor"] == "hist_ptr", w.evidence
    assert w.evidence["line"] == 13 and w.evidence["direction"] == "after", w.evidence
    assert w.validation is not None and w.validation["status"] == "validated", w.validation
