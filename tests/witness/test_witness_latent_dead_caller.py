"""A private launcher called by two private-or-public functions: the public one launches only when
`k % 64 == 0` (on the input it was given; the launcher reads K from the tensor it makes of it), the
other calls it untested but is itself called nowhere in the module. Under the reading the callers'
tests already rest on (no other module is meant to call a private function), that untested call is
dead code, and a confirmation at a K the live caller refuses is latent. `check` keeps the findings:
the dead caller is the witness's reading only."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from witness_cli import witness_json

from tritonlint.config import Config
from tritonlint.engine import check_source

SCALED = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def scaled_rows_kernel(X, W, Out, M, K, stride_xm, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
        rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_k = tl.arange(0, BLOCK_K)
        acc = tl.zeros([BLOCK_M], dtype=tl.float32)
        for start in range(0, K, BLOCK_K):
            x = tl.load(X + rows[:, None] * stride_xm + start + offs_k[None, :], mask=rows[:, None] < M, other=0.0)
            w = tl.load(W + start + offs_k)
            acc += tl.sum(x * w[None, :], axis=1)
        tl.store(Out + rows, acc, mask=rows < M)


    def _launch_scaled_rows(x_q, w):
        M, K = x_q.shape
        out = torch.empty(M, device=x_q.device, dtype=torch.float32)
        BLOCK_M, BLOCK_K = 16, 64
        scaled_rows_kernel[(triton.cdiv(M, BLOCK_M),)](x_q, w, out, M, K, x_q.stride(0),
                                                       BLOCK_M=BLOCK_M, BLOCK_K=BLOCK_K)
        return out


    def _quantize_then_scale(x, w):
        x_q = x.to(torch.float16)
        return _launch_scaled_rows(x_q, w)


    def scaled_rows(input, weight, prequantized=False):
        input_2d = input.reshape(-1, input.shape[-1])
        m, k = input_2d.shape
        if k % 64 == 0:
            if not prequantized:
                x_q = input_2d.to(torch.float16)
            else:
                x_q = input_2d
            return _launch_scaled_rows(x_q, weight)
        return (input_2d.float() * weight.float()).sum(-1)
""")

# The untested caller is called: a K the gate refuses reaches the kernel, the finding is real.
CALLED = SCALED + textwrap.dedent("""\


    def scaled_rows_eager(x, w):
        return _quantize_then_scale(x, w)
""")


def _witness(tmp_path: Path, text: str) -> list[dict[str, Any]]:
    path = tmp_path / "scaled_rows.py"
    path.write_text(text)
    found: list[dict[str, Any]] = witness_json(path)
    assert found, found
    return [f["witness"] for f in found]


def test_a_k_only_a_dead_caller_passes_is_latent(tmp_path: Path) -> None:
    witnessed = _witness(tmp_path, SCALED)
    for w in witnessed:
        assert w["status"] == "confirmed", w
        latent = w["evidence"]["latent"]
        assert latent and "K a multiple of BLOCK_K" in latent, w["evidence"]
        assert "`if k % 64 == 0:`" in latent and "`_quantize_then_scale`" in latent, latent


def test_a_called_untested_caller_marks_nothing(tmp_path: Path) -> None:
    for w in _witness(tmp_path, CALLED):
        assert w["status"] == "confirmed", w
        assert not w["evidence"]["latent"], w["evidence"]


def test_check_keeps_the_findings() -> None:
    dead = check_source("scaled_rows.py", SCALED, Config(), strict=True).diagnostics
    called = check_source("scaled_rows.py", CALLED, Config(), strict=True).diagnostics
    assert [(d.line, d.code) for d in dead] == [(d.line, d.code) for d in called]
    assert {d.code for d in dead} == {"TL101"}, dead
