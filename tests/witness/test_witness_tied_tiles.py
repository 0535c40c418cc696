"""A flagged access that walks a bare tile (`X + tl.arange(0, BLOCK)`) gets a tensor of the size the tile
stands for, not one tile (tied_tiles.py): before, the tensor held exactly the tile, so no launch could run
past it ("stayed in bounds")."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.witness.witness_line import witness_line

KERNELS = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def swap_pairs(X, Out, n, BLOCK: tl.constexpr):
        lane = tl.arange(0, BLOCK)
        x = tl.load(X + lane)
        dst = lane + 1 - 2 * (lane % 2)
        tl.store(Out + dst, x, mask=dst < n)


    @triton.jit
    def total_counts(Counts, Out, n_bins, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(Out, tl.sum(tl.load(Counts + offs), axis=0))


    def total(counts):
        n_bins = counts.numel()
        block = triton.next_power_of_2(n_bins)
        out = torch.empty((), device=counts.device)
        total_counts[(1,)](counts, out, n_bins, BLOCK=block)
        return out
""")


def _args(launch: dict) -> dict:
    return {a["name"]: a for a in launch["args"]}


def test_lanes_another_access_compares_with_a_size_hold_that_size(tmp_path: Path) -> None:
    path = tmp_path / "pairs.py"
    path.write_text(KERNELS)
    w = witness_line(path, 9, "TL101")
    assert w.status == "confirmed", w.reason
    assert w.launch is not None
    args = _args(w.launch)
    assert args["X"]["numel"] == args["n"]["value"] < args["BLOCK"]["value"], args


def test_a_tile_the_host_rounds_up_from_a_size_is_its_power_of_two(tmp_path: Path) -> None:
    path = tmp_path / "pairs.py"
    path.write_text(KERNELS)
    w = witness_line(path, 17, "TL101")
    assert w.status == "confirmed", w.reason
    assert w.launch is not None
    args = _args(w.launch)
    n = args["n_bins"]["value"]
    assert args["Counts"]["numel"] == n and n & (n - 1), args  # the size, not a power of two
    assert args["BLOCK"]["value"] == 1 << (n - 1).bit_length(), args  # as the host rounds it
    assert w.validation is not None and w.validation["status"] == "validated", w.validation
