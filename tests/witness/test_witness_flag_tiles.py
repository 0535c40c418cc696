"""The witness learns which tiles an evenness flag vouches for from the analysis, not from its name."""

from __future__ import annotations

import textwrap

from tritonlint.config import Config
from tritonlint.engine import evenness_flag_tiles

KERNEL = textwrap.dedent('''
    import triton
    import triton.language as tl


    @triton.jit
    def k(x_ptr, y_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, FLAG_A: tl.constexpr):
        offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
        p = offs_m[:, None] * N + offs_n[None, :]
        if FLAG_A:
            x = tl.load(x_ptr + p, mask=offs_n[None, :] < N)
        else:
            x = tl.load(x_ptr + p, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
        tl.store(y_ptr + p, x, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
''')


def test_a_flag_vouches_for_the_tiles_whose_mask_its_even_side_drops() -> None:
    # FLAG_A's name says nothing; its even side drops the M mask only: it vouches for BLOCK_M.
    assert evenness_flag_tiles(KERNEL, Config()) == {"k": {"FLAG_A": frozenset({"BLOCK_M"})}}
