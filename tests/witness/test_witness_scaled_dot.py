"""The synthesizer types what `tl.dot_scaled` reads (fp8 operands by their format, e8m0 scales near
2**0); a size that is a block pointer's `shape` stays a size where it is also a row length, and the
terms a block pointer's `base` adds (a program's head) size its tensor."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

from tritonlint.config import check_selectors, load_config
from tritonlint.witness import analysis
from tritonlint.witness.runner import witness

SCALED = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def mx_dot(X, XS, W, WS, Out, M, K, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
        offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = tl.arange(0, BLOCK_M)
        offs_k = tl.arange(0, BLOCK_K)
        offs_s = tl.arange(0, BLOCK_K // 32)
        acc = tl.zeros((BLOCK_M, BLOCK_M), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            x = tl.load(X + offs_m[:, None] * K + (k * BLOCK_K + offs_k)[None, :], mask=offs_m[:, None] < M,
                        other=0.0)
            xs = tl.load(XS + offs_m[:, None] * (K // 32) + (k * (BLOCK_K // 32) + offs_s)[None, :],
                         mask=offs_m[:, None] < M, other=0)
            w = tl.load(W + (k * BLOCK_K + offs_k)[:, None] * BLOCK_M + offs_n[None, :])
            ws = tl.load(WS + offs_n[:, None] * (K // 32) + (k * (BLOCK_K // 32) + offs_s)[None, :])
            acc += tl.dot_scaled(x, xs, "e4m3", w, ws, "e5m2")
        tl.store(Out + offs_m[:, None] * BLOCK_M + offs_n[None, :], acc, mask=offs_m[:, None] < M)
""")

BLOCK_PTR = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def rows_and_stats(Q, Stats, N_CTX, stride_h, stride_m, D: tl.constexpr, BLOCK_M: tl.constexpr):
        start_m = tl.program_id(0)
        off_h = tl.program_id(1)
        q_block = tl.make_block_ptr(base=Q + off_h * stride_h, shape=(N_CTX, D), strides=(stride_m, 1),
                                    offsets=(start_m * BLOCK_M, 0), block_shape=(BLOCK_M, D), order=(1, 0))
        q = tl.load(q_block)
        offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
        tl.store(Stats + off_h * N_CTX + offs_m, tl.sum(q, axis=1))


    def stats(q):
        h, n, d = q.shape
        out = torch.empty((h, n), device=q.device)
        rows_and_stats[(triton.cdiv(n, 16), h)](q, out, n, q.stride(0), q.stride(1), D=d, BLOCK_M=16)
        return out
""")


def _checked(path: Path) -> analysis.CheckedFile:
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, _errors = analysis.check_paths([str(path)], config)
    return files[0]


def test_scaled_dot_operands_and_scales_get_their_formats_types(tmp_path: Path) -> None:
    path = tmp_path / "mx_dot.py"
    path.write_text(SCALED)
    checked = _checked(path)
    d = next(d for d in checked.diagnostics if d.line == 17)
    w = witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags, None, timeout=120)
    assert w.status == "confirmed", w.reason  # an `error` before: fp32 tensors where fp8 bits are asked
    assert w.launch is not None
    typed = {a["name"]: (a["dtype"], a["fill"]) for a in w.launch["args"] if a["kind"] == "tensor"}
    assert typed["X"] == ("float8_e4m3fn", "randn") and typed["W"] == ("float8_e5m2", "randn")
    assert typed["XS"] == ("uint8", "e8m0") and typed["WS"] == ("uint8", "e8m0")
    assert typed["Out"] == ("float32", "randn")


def test_a_block_pointer_shape_is_a_size_where_it_is_also_a_row_length(tmp_path: Path) -> None:
    path = tmp_path / "rows.py"
    path.write_text(BLOCK_PTR)
    checked = _checked(path)
    d = next(d for d in checked.diagnostics if d.line == 12)
    w = witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags, None, timeout=120)
    assert w.launch is not None and w.launch["axis"] == "N_CTX", w.launch
    assert w.status == "confirmed", w.reason
