"""A size a program axis walks in its own tiles gets two of them, not two of the largest tile of the
kernel: the same partial tiles on the finding's axis, far fewer programs under the interpreter.

Before: with `BLOCK_K = 128` beside `BLOCK_M = 16`, M was 256 (16 programs of 16 rows where 2 do),
and such kernels ran past the per-finding timeout under load."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tritonlint.witness.extract import extract
from tritonlint.witness.synth import Facts, synthesize

ROWS = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def row_dot(X, W, Out, M, K, stride_xm, BLOCK_M: tl.constexpr = 16, BLOCK_K: tl.constexpr = 128):
        pid_m = tl.program_id(0)
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_k = tl.arange(0, BLOCK_K)
        acc = tl.zeros((BLOCK_M,), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            x = tl.load(X + offs_m[:, None] * stride_xm + offs_k[None, :], mask=offs_m[:, None] < M)
            w = tl.load(W + offs_k)
            acc += tl.sum(x * w[None, :], 1)
            offs_k += BLOCK_K
        tl.store(Out + offs_m, acc, mask=offs_m < M)
""")


def test_the_other_sizes_take_two_of_their_own_tiles() -> None:
    extracted = extract(Path("rows.py"), ROWS, "row_dot")
    facts = Facts(line=11, code="TL101", flags_off={}, walk="offs_k", tile="BLOCK_K", axis_hints=["K"],
                  launch_args={}, multiples=set(), even_flags={})
    hazard, control = synthesize(extracted, facts)[0]
    assert hazard.axis == "K" and hazard.sizes["K"] == 2 * 128 + 64
    # M is walked by the program axis in tiles of 16: two of them, two programs.
    assert hazard.sizes["M"] == 32 and hazard.grid == [2]
    assert control.sizes["M"] == 32 and control.sizes["K"] == 3 * 128
