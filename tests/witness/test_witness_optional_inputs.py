"""Optional inputs a kernel tests with `is None` (routing data, a bias a helper checks, a layout mode):
the launch passes None where nothing on the finding's path needs them, and an assertion or a branch
decides the rest (`if Routing is None: static_assert(M is not None) else: static_assert(M is None)`).

Before: every pointer got a tensor and every size an int, so `tl.static_assert(M is None)` failed
(vLLM's `_matmul_ogs` at its MXFP4 scale load), the bias helper's fp16 assertion failed on the fp32
tensor, and the string mode `"PACKED"` asked for byte rows. A plain-int `row_start.to(tl.int64)` and
a `range` loop variable's `k.to(...)` stopped the interpreter too (the compiler holds both as tensors)."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

from tritonlint.config import check_selectors, load_config
from tritonlint.witness import analysis
from tritonlint.witness.runner import witness

ROUTED = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def add_bias(acc, bias_ptr, offs_n):
        if bias_ptr is not None:
            tl.static_assert(bias_ptr.dtype.element_ty == tl.float16, "bias must be fp16")
            acc += tl.load(bias_ptr + offs_n).to(tl.float32)[None, :]
        return acc


    @triton.jit
    def routed_sum(X, Out, Bias, Routing, M, K, stride_xm, LAYOUT: tl.constexpr,
                   BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
        tl.static_assert(LAYOUT is None or LAYOUT == "PACKED")
        if LAYOUT == "PACKED":
            tl.static_assert(X.dtype.element_ty == tl.uint8, "packed rows are bytes")
        pid_m = tl.program_id(0)
        if Routing is None:
            tl.static_assert(M is not None)
            row_start, block = 0, pid_m
        else:
            tl.static_assert(M is None)
            row_start = tl.load(Routing + pid_m)
            block = 0
        row_start = row_start.to(tl.int64)
        offs_m = row_start + block * BLOCK_M + tl.arange(0, BLOCK_M)
        acc = tl.zeros((BLOCK_M, BLOCK_K), dtype=tl.float32)
        for k in range(0, K, BLOCK_K):
            offs_k = k.to(tl.int64) + tl.arange(0, BLOCK_K)
            x = tl.load(X + offs_m[:, None] * stride_xm + offs_k[None, :])
            acc += x
        acc = add_bias(acc, Bias, tl.arange(0, BLOCK_K))
        tl.store(Out + offs_m[:, None] * BLOCK_K + tl.arange(0, BLOCK_K)[None, :], acc, mask=offs_m[:, None] < M)
""")


def _witness(tmp_path: Path, text: str, line: int) -> object:
    path = tmp_path / "routed.py"
    path.write_text(text)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, _errors = analysis.check_paths([str(path)], config)
    checked = files[0]
    d = next(d for d in checked.diagnostics if d.line == line)
    return witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags,
                   analysis.fixed_text(checked.text, d), timeout=120)


def test_optional_inputs_are_left_out_unless_the_path_needs_them(tmp_path: Path) -> None:
    w = _witness(tmp_path, ROUTED, 32)
    assert w.status == "confirmed", w.reason  # type: ignore[attr-defined]
    assert w.evidence["tensor"] == "X"  # type: ignore[attr-defined]
    args = {a["name"]: a for a in w.launch["args"]}  # type: ignore[attr-defined]
    assert args["Routing"]["kind"] == "none"  # routing data: M given, `M is None` not asserted
    assert args["M"]["kind"] == "int"
    assert args["Bias"]["kind"] == "none"  # tested in the helper it is handed to
    assert args["LAYOUT"]["value"] is None  # a mode tested with `is None`: absent
    assert args["X"]["kind"] == "tensor"  # the flagged access's own pointer is always given


def test_a_pointer_a_branch_on_the_line_needs_is_given(tmp_path: Path) -> None:
    # The flagged load sits under `if Bias is not None:` in the kernel: Bias is passed.
    text = ROUTED.replace(
        "    acc = add_bias(acc, Bias, tl.arange(0, BLOCK_K))\n",
        "    if Bias is not None:\n"
        "        acc += tl.load(Bias + offs_m[:, None] * BLOCK_K + tl.arange(0, BLOCK_K)[None, :])\n")
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "tl.load(Bias" in t)
    w = _witness(tmp_path, text, line)
    args = {a["name"]: a for a in w.launch["args"]}  # type: ignore[attr-defined]
    assert args["Bias"]["kind"] == "tensor", w.reason  # type: ignore[attr-defined]
    assert args["Routing"]["kind"] == "none"
