"""A program axis whose tiles also build a flattened index of a whole block (`o_last = row * K + i_k * BK
+ arange(BK)`, masked `o_last < T * K`) is read from its own tile offsets (`o_k = i_k * BK + arange(BK)`,
masked `o_k < K`), not from the product: before, the axis was read as walking `T` (the product's only
non-constexpr factor), so the grid ran cdiv(T, BK) programs on it and the partial K tile never ran at the
first candidate. When only flattened offsets say where an axis ends, today's reading stays."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.witness.witness_line import witness_line
from tritonlint.witness.extract import extract
from tritonlint.witness.uses import Uses

# A decayed running state over K tiles: the decay of each time block read at its last row, a flattened
# [T, K] index compared with the product; the initial state's load (line 10) is unmasked.
DECAYED = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def decayed_state(x, z, z0, h, T, K: tl.constexpr, BT: tl.constexpr, BK: tl.constexpr, NT: tl.constexpr):
        i_k = tl.program_id(0)
        o_k = i_k * BK + tl.arange(0, BK)
        b_h = tl.zeros([BK], dtype=tl.float32)
        b_prev = tl.load(z0 + o_k)
        for i_t in range(NT):
            o_t = i_t * BT + tl.arange(0, BT)
            b_x = tl.load(x + o_t[:, None] * K + o_k[None, :], mask=(o_t[:, None] < T) & (o_k[None, :] < K), other=0.0)
            o_last = (i_t * BT + BT - 1) * K + i_k * BK + tl.arange(0, BK)
            b_last = tl.load(z + o_last, mask=o_last < T * K, other=0.0)
            b_h = b_h * tl.exp(b_prev - b_last) + tl.sum(b_x, 0)
            b_prev = b_last
        tl.store(h + o_k, b_h, mask=o_k < K)
""")

# Only a flattened index on the axis (an elementwise kernel over rows * cols): nothing else says which size
# the tiles walk, so the reading of before stays.
FLAT_ONLY = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def scale_all(X, Y, rows, cols, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(X + offs, mask=offs < rows * cols, other=0.0)
        tl.store(Y + offs, x * 2.0, mask=offs < rows * cols)
""")


def test_the_axis_is_read_from_its_own_tile_offsets() -> None:
    extracted = extract(Path("decayed.py"), DECAYED, "decayed_state")
    assert Uses(extracted.kernel, extracted.helpers).program_axes() == {0: ("K", "BK")}  # ("T", "BK") before


def test_flattened_offsets_alone_keep_the_reading_of_before() -> None:
    extracted = extract(Path("flat.py"), FLAT_ONLY, "scale_all")
    assert Uses(extracted.kernel, extracted.helpers).program_axes() == {0: ("rows", "BLOCK")}


def test_the_partial_k_tile_runs_at_the_first_candidate(tmp_path: Path) -> None:
    path = tmp_path / "decayed.py"
    path.write_text(DECAYED)
    w = witness_line(path, 10, "TL101")
    assert w.status == "confirmed", w.reason
    launch = w.launch or {}
    sizes = launch.get("sizes", {})
    tile = next(a["value"] for a in launch.get("args", []) if a["name"] == "BK")
    # One program per K tile, the partial one included: before, cdiv(T, BK) programs ran at K = 2 tiles and
    # a half, the partial tile never ran and only a later candidate (K under 2 tiles) showed the read.
    assert launch.get("grid", [None])[0] == -(-sizes["K"] // tile), launch
    assert sizes["K"] > 2 * tile, launch
