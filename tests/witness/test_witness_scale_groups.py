"""Scales read in groups per K tile: one E8M0 byte per MX_BLOCK elements, `arange(0, BLOCK_K // MX_BLOCK)`
advanced a tile's groups a step. The hazard needs more than one group a tile: as large as the tile, a
group count is whole whatever K is. Before, a constexpr nobody sets took the tile's own value (16), and a
group count spelled through a local (`GROUPS_K: tl.constexpr = BLOCK_K // 32`) walked by a loop counting
K down (`range(K, 0, -BLOCK_K)`) was no walk of K at all: another size was made partial."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.witness.witness_line import witness_line

GUESSED_GROUP = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def scaled_rows(A, AS, Out, R, K, stride_ar, stride_sr,
                    BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr, MX_BLOCK: tl.constexpr):
        rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
        offs_k = tl.arange(0, BLOCK_K)
        offs_g = tl.arange(0, BLOCK_K // MX_BLOCK)
        a_ptrs = A + (rows % R)[:, None] * stride_ar + offs_k[None, :]
        s_ptrs = AS + (rows % R)[:, None] * stride_sr + offs_g[None, :]
        acc = tl.zeros((BLOCK_R,), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
            s = tl.load(s_ptrs)
            a = tl.reshape(a, (BLOCK_R, BLOCK_K // MX_BLOCK, MX_BLOCK)) * s[:, :, None]
            acc += tl.sum(tl.reshape(a, (BLOCK_R, BLOCK_K)), axis=1)
            a_ptrs += BLOCK_K
            s_ptrs += BLOCK_K // MX_BLOCK
        tl.store(Out + rows, acc, mask=rows < R)
""")

COUNTDOWN = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def scaled_rows_down(A, AS, Out, R, K, stride_ar, stride_sk,
                         BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr, EVEN_K: tl.constexpr):
        GROUPS_K: tl.constexpr = BLOCK_K // 32
        rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
        offs_k = tl.arange(0, BLOCK_K)
        offs_g = tl.arange(0, GROUPS_K)
        a_ptrs = A + (rows % R)[:, None] * stride_ar + offs_k[None, :]
        s_ptrs = AS + offs_g[:, None] * stride_sk + (rows % R)[None, :]
        acc = tl.zeros((BLOCK_R,), dtype=tl.float32)
        for k in range(K, 0, -BLOCK_K):
            if EVEN_K:
                a = tl.load(a_ptrs)
            else:
                a = tl.load(a_ptrs, mask=offs_k[None, :] < k, other=0.0)
            s = tl.trans(tl.load(s_ptrs))
            a = tl.reshape(a, (BLOCK_R, GROUPS_K, 32)) * s[:, :, None]
            acc += tl.sum(tl.reshape(a, (BLOCK_R, BLOCK_K)), axis=1)
            a_ptrs += BLOCK_K
            s_ptrs += GROUPS_K * stride_sk
        tl.store(Out + rows, acc, mask=rows < R)
""")


def test_a_group_size_nobody_sets_is_smaller_than_the_tile(tmp_path: Path) -> None:
    path = tmp_path / "scaled_rows.py"
    path.write_text(GUESSED_GROUP)
    w = witness_line(path, 16, "TL101")
    assert w.status == "confirmed", w.reason  # stayed in bounds before: MX_BLOCK = BLOCK_K, one group a tile
    assert "past the end of `AS`" in w.reason


def test_groups_per_tile_through_a_local_walked_down_are_a_walk_of_k(tmp_path: Path) -> None:
    path = tmp_path / "scaled_rows_down.py"
    path.write_text(COUNTDOWN)
    w = witness_line(path, 20, "TL101")
    assert w.status == "confirmed", w.reason  # stayed in bounds before: R was made partial, K whole
    assert "past the end of `AS`" in w.reason
    assert w.launch is not None and w.launch["axis"] == "K"
