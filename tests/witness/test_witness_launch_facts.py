"""Facts the launch holds and the kernel does not: a grid over a host extent the kernel never receives
(`cdiv(x.numel(), chunk)`), a loop end every launch fixes (TL111), evenness flags whose setters name
the sizes they vouch for (`n_q % BM == 0`).

Before: no size to make partial (default sizes, in bounds); the caller's loop end kept whole, and the
buffer sized one tile (out of bounds at full tiles too); EVEN_Q and EVEN_K left False, since the
branches they guard compare the head size too, and K sized one tile of rows where the loop walks n_k."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.witness.witness_line import witness_line
from tritonlint.witness.runner import Witness

HOST_EXTENT = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def double_kernel(x_ptr, y_ptr, CHUNK: tl.constexpr):
        i = tl.program_id(0) * CHUNK + tl.arange(0, CHUNK)
        tl.store(y_ptr + i, tl.load(x_ptr + i) * 2)


    def double(x):
        y = torch.empty_like(x)
        chunk = min(triton.next_power_of_2(x.shape[-1]), 1024)
        double_kernel[(triton.cdiv(x.numel(), chunk),)](x, y, chunk)
        return y
""")

LITERAL_END = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def sum_steps(a, out, N: tl.constexpr, TILE: tl.constexpr):
        acc = tl.zeros((TILE,), dtype=tl.float32)
        for s in range(0, N, TILE):
            acc += tl.load(a + s + tl.arange(0, TILE))
        tl.store(out + tl.arange(0, TILE), acc)


    def run(a, out):
        sum_steps[(1,)](a, out, N=96, TILE=32)
""")

SETTER_FLAGS = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def rows_dot(Q, K, Out, stride_q, stride_k, n_q, n_k, d, BM: tl.constexpr, BN: tl.constexpr,
                 BD: tl.constexpr, EVEN_Q: tl.constexpr, EVEN_K: tl.constexpr, EVEN_D: tl.constexpr):
        offs_m = tl.program_id(0) * BM + tl.arange(0, BM)
        offs_n = tl.arange(0, BN)
        offs_d = tl.arange(0, BD)
        q_ptrs = Q + offs_m[:, None] * stride_q + offs_d[None, :]
        if EVEN_Q:
            if EVEN_D:
                q = tl.load(q_ptrs)
            else:
                q = tl.load(q_ptrs, mask=offs_d[None, :] < d, other=0.0)
        else:
            q = tl.load(q_ptrs, mask=(offs_m[:, None] < n_q) & (offs_d[None, :] < d), other=0.0)
        k_ptrs = K + offs_n[:, None] * stride_k + offs_d[None, :]
        acc = tl.zeros([BM], dtype=tl.float32)
        for start in range(0, n_k, BN):
            if EVEN_Q & EVEN_K:
                k = tl.load(k_ptrs + start * stride_k)
            else:
                k = tl.load(k_ptrs + start * stride_k,
                            mask=((start + offs_n)[:, None] < n_k) & (offs_d[None, :] < d), other=0.0)
            acc += tl.sum(tl.dot(q, tl.trans(k)), 1)
        tl.store(Out + offs_m, acc, mask=offs_m < n_q)


    def launch(q, k, out, BM=16, BN=16):
        n_q, d = q.shape
        n_k = k.shape[0]
        bd = max(triton.next_power_of_2(d), 16)
        rows_dot[(triton.cdiv(n_q, BM),)](q, k, out, q.stride(0), k.stride(0), n_q, n_k, d, BM, BN, bd,
                                          n_q % BM == 0, n_k % BN == 0, d == bd)
""")


def _witness(tmp_path: Path, name: str, text: str, line: int, code: str) -> Witness:
    path = tmp_path / name
    path.write_text(text)
    return witness_line(path, line, code)


def test_a_grid_over_a_host_extent_makes_that_extent_partial(tmp_path: Path) -> None:
    w = _witness(tmp_path, "double.py", HOST_EXTENT, 9, "TL101")
    assert w.status == "confirmed", w.reason  # stayed in bounds at default sizes before
    assert "past the end of `x_ptr`" in w.reason and "x.numel()=" in w.reason


def test_a_loop_end_every_launch_fixes_is_confirmed_latent(tmp_path: Path) -> None:
    w = _witness(tmp_path, "sum_steps.py", LITERAL_END, 9, "TL111")
    assert w.status == "confirmed", w.reason  # the launch did not match the kernel's indexing before
    assert "latent: the callers pass N=96" in w.reason


def test_flags_stand_for_the_sizes_their_setters_test(tmp_path: Path) -> None:
    w = _witness(tmp_path, "rows_dot.py", SETTER_FLAGS, 23, "TL101")
    assert w.status == "confirmed", w.reason  # stayed in bounds before
    assert "past the end of `K`" in w.reason
    assert w.validation is not None and w.validation["status"] == "validated", w.validation
