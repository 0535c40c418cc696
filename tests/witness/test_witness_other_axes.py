"""TL104 on a mask that bounds the wrong axis: the size the pointer walks past its end is not the one the
mask names, so the witness also tries each other size partial (other_axes.py). Before, only the named
axis was made partial and the store stayed in bounds."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.witness.witness_line import witness_line
from tritonlint.witness.other_axes import with_other_axes

KERNEL = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def flip_tiles(A, B, R, C, stride_a, stride_b, TILE: tl.constexpr):
        i_rows = tl.program_id(0) * TILE + tl.arange(0, TILE)
        j_cols = tl.program_id(1) * TILE + tl.arange(0, TILE)
        a = tl.load(A + i_rows[:, None] * stride_a + j_cols[None, :],
                    mask=(i_rows[:, None] < R) & (j_cols[None, :] < C), other=0.0)
        tl.store(B + j_cols[:, None] * stride_b + i_rows[None, :], tl.trans(a),
                 mask=(i_rows[:, None] < R) & (j_cols[None, :] < C))
""")


def test_a_store_masked_on_the_wrong_axis_is_confirmed(tmp_path: Path) -> None:
    path = tmp_path / "flip_tiles.py"
    path.write_text(KERNEL)
    w = witness_line(path, 11, "TL104")
    assert w.status == "confirmed", w.reason  # not-reproduced before: only the mask's own axis was partial


def test_one_candidate_per_other_axis_after_the_first_three() -> None:
    pairs = ["m1", "m2", "m3", "m4", "n1", "n2", "k1"]
    axes = {0: "M", 1: "M", 2: "M", 3: "M", 4: "N", 5: "N", 6: "K"}
    assert with_other_axes(pairs, axes, 3) == ["m1", "m2", "m3", "n1", "k1"]
    assert with_other_axes(pairs, axes, 3, extra=1) == ["m1", "m2", "m3", "n1"]
