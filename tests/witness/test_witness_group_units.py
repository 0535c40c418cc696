"""Group scales read a tile's groups at a time (`k * (BLOCK_K // GROUP) + tl.arange(0, BLOCK_K // GROUP)` in a
loop over K in tiles of BLOCK_K): the scale rows hold `cdiv(K, GROUP)` entries (group_units.py), the group
is guessed smaller than the tile, and K is made partial in tiles of BLOCK_K. Before, the rows held K
entries (or the group equalled the tile, one group a tile), and the last tile's groups never left them."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.witness.witness_line import witness_line

KERNELS = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def group_scaled_rowsum(Q, S, Out, K, stride_q, stride_s, BLOCK_K: tl.constexpr, GROUP: tl.constexpr):
        GROUPS: tl.constexpr = BLOCK_K // GROUP
        row = tl.program_id(0)
        offs_k = tl.arange(0, BLOCK_K)
        offs_g = tl.arange(0, GROUPS)
        acc = tl.zeros((GROUPS,), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            q = tl.load(Q + row * stride_q + k * BLOCK_K + offs_k, mask=k * BLOCK_K + offs_k < K, other=0.0)
            s = tl.load(S + row * stride_s + k * GROUPS + offs_g)
            acc += tl.sum(tl.reshape(q, (GROUPS, GROUP)), axis=1) * s
        tl.store(Out + row + tl.arange(0, 1), tl.sum(acc, axis=0))


    @triton.jit
    def group_scaled_tiles(Q, S, Out, M, K, stride_q, stride_s, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr,
                           GROUP: tl.constexpr):
        GROUPS: tl.constexpr = BLOCK_K // GROUP
        offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_k = tl.arange(0, BLOCK_K)
        offs_g = tl.arange(0, GROUPS)
        acc = tl.zeros((BLOCK_M, GROUPS), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            q = tl.load(Q + (offs_m % M)[:, None] * stride_q + (k * BLOCK_K + offs_k)[None, :],
                        mask=(k * BLOCK_K + offs_k)[None, :] < K, other=0.0)
            s = tl.load(S + (offs_m % M)[:, None] * stride_s + (k * GROUPS + offs_g)[None, :])
            acc += tl.sum(tl.reshape(q, (BLOCK_M, GROUPS, GROUP)), axis=2) * s
        tl.store(Out + offs_m, tl.sum(acc, axis=1), mask=offs_m < M)
""")


def _confirmed_past_groups(tmp_path: Path, line: int) -> None:
    path = tmp_path / "group_scales.py"
    path.write_text(KERNELS)
    w = witness_line(path, line, "TL101")
    assert w.status == "confirmed", w.reason  # not-reproduced before: "stayed in bounds"
    assert w.launch is not None
    args = {a["name"]: a for a in w.launch["args"]}
    k, block, group = args["K"]["value"], args["BLOCK_K"]["value"], args["GROUP"]["value"]
    assert group < block and k % block, args  # groups smaller than the tile; K a partial tile
    assert args["stride_s"]["value"] == -(-k // group), args  # a scale row holds cdiv(K, GROUP) entries


def test_group_steps_written_apart(tmp_path: Path) -> None:
    _confirmed_past_groups(tmp_path, 14)


def test_group_steps_in_one_tile_offset(tmp_path: Path) -> None:
    _confirmed_past_groups(tmp_path, 30)
