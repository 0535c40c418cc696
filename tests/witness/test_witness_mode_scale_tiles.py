"""A scale tensor walked in a tile the kernel defines per mode (`PACKED: tl.constexpr = SCALE_K * 32` on
the swizzled side, `SCALE_K` on the plain one), its K stride read through a local (`scale_stride_k =
stride_sk`), split over K by a second program axis, and a program reading a few scale rows of N (`(pid * (BLOCK_N // 32) + arange) % N`): the
pattern of the Hopper MXFP4 weight-scale load in the vendored `matmul_ogs`.

Before: the tile was a default 16 where the kernel walks BLOCK_K (K partial against the wrong tile: the
control overran too), and the K axis, taken as unit-stride, was laid out innermost, so the tail tile's
overrun landed in the next scale row, inside the buffer: `stayed in bounds`."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

from tritonlint.config import check_selectors, load_config
from tritonlint.witness import analysis
from tritonlint.witness.runner import witness

MODE_SCALES = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def mode_scaled(x_ptr, s_ptr, out_ptr, N, K, stride_sk, stride_sn, BLOCK_N: tl.constexpr,
                    BLOCK_K: tl.constexpr, SPLIT_K: tl.constexpr, SWIZZLED: tl.constexpr, EVEN_K: tl.constexpr):
        pid_n = tl.program_id(0)
        pid_k = tl.program_id(1)
        SCALE_K: tl.constexpr = BLOCK_K // 32
        if SWIZZLED:
            PACKED: tl.constexpr = SCALE_K * 32
            scale_stride_k = stride_sk
        else:
            PACKED: tl.constexpr = SCALE_K
            scale_stride_k: tl.constexpr = 1
        offs_ns = (pid_n * (BLOCK_N // 32) + tl.arange(0, BLOCK_N // 32)) % N
        offs_k = BLOCK_K * pid_k + tl.arange(0, BLOCK_K)
        offs_ks = PACKED * pid_k + tl.arange(0, PACKED)
        x_ptrs = x_ptr + offs_k
        s_ptrs = s_ptr + offs_ks[None, :] * scale_stride_k + offs_ns[:, None] * stride_sn
        acc = tl.zeros((BLOCK_N // 32,), dtype=tl.float32)
        for k in range(K, BLOCK_K * pid_k, -(BLOCK_K * SPLIT_K)):
            if EVEN_K:
                mask_k = tl.full([BLOCK_K], True, dtype=tl.int1)
                mask_s = tl.full([PACKED], True, dtype=tl.int1)
            else:
                mask_k = offs_k < k
                mask_s = offs_ks * 32 < k
            x = tl.load(x_ptrs, mask=mask_k, other=0.0)
            if SWIZZLED:
                s = tl.load(s_ptrs)
            else:
                s = tl.load(s_ptrs, mask=mask_s[None, :], other=0.0)
            acc += tl.sum(s, 1) * tl.sum(x, 0)
            x_ptrs += BLOCK_K * SPLIT_K
            s_ptrs += PACKED * SPLIT_K * scale_stride_k
        offs_out = pid_n * (BLOCK_N // 32) + tl.arange(0, BLOCK_N // 32)
        tl.store(out_ptr + offs_out, acc, mask=offs_out < N)
""")


def test_the_swizzled_scale_tail_leaves_the_buffer(tmp_path: Path) -> None:
    path = tmp_path / "mode_scaled.py"
    path.write_text(MODE_SCALES)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, _errors = analysis.check_paths([str(path)], config)
    checked = files[0]
    d = next(d for d in checked.diagnostics if d.line == 32)
    w = witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags,
                analysis.fixed_text(checked.text, d), timeout=120)
    assert w.status == "confirmed", w.reason
    assert w.evidence is not None and w.evidence["tensor"] == "s_ptr"
    args = {a["name"]: a["value"] for a in (w.launch or {})["args"]}
    k, block_k = (w.launch or {})["sizes"]["K"], args["BLOCK_K"]
    assert k % block_k != 0  # partial against BLOCK_K, the tile PACKED is on the swizzled side
    assert args["stride_sk"] > args["stride_sn"]  # K, the partial axis, outermost


def test_the_partial_axis_is_laid_out_outermost_whatever_the_terms_order(tmp_path: Path) -> None:
    """The same kernel with the row term first (`offs_ns * stride_sn + offs_ks * scale_stride_k`): the
    layout put the last term innermost, K, so the overrun landed in the next scale row, in bounds."""
    path = tmp_path / "mode_scaled_rows_first.py"
    path.write_text(MODE_SCALES.replace(
        "s_ptr + offs_ks[None, :] * scale_stride_k + offs_ns[:, None] * stride_sn",
        "s_ptr + offs_ns[:, None] * stride_sn + offs_ks[None, :] * scale_stride_k"))
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, _errors = analysis.check_paths([str(path)], config)
    checked = files[0]
    d = next(d for d in checked.diagnostics if d.line == 32)
    w = witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags,
                analysis.fixed_text(checked.text, d), timeout=120)
    assert w.status == "confirmed", w.reason
    args = {a["name"]: a["value"] for a in (w.launch or {})["args"]}
    assert args["stride_sk"] > args["stride_sn"]
