"""A literal table of the sizes the host admits (`if (k, n) not in SUPPORTED: raise`, read through a
validator the launcher calls first) names the shapes the callers may pass: a confirmation at a K
outside it, where every admitted K is a whole number of the run's tiles, is latent. Witness-only:
`check` keeps the finding."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from witness_cli import witness_json

from tritonlint.config import Config
from tritonlint.engine import check_source

ROWDOT = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl

    SUPPORTED_PAIRS = frozenset({(512, 8), (1024, 16)})


    @triton.jit
    def rowdot_kernel(X, Out, M, K: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
        rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
        offs = tl.arange(0, BLOCK_K)
        acc = tl.zeros((BLOCK_M, BLOCK_K), dtype=tl.float32)
        for start in range(0, K, BLOCK_K):
            acc += tl.load(X + rows[:, None] * K + start + offs[None, :], mask=rows[:, None] < M, other=0.0)
        tl.store(Out + rows, tl.sum(acc, axis=1), mask=rows < M)


    def _validate(x, w):
        if x.dim() != 2 or w.dim() != 2:
            raise ValueError("2-D only")
        pair = (x.shape[1], w.shape[0])
        if pair not in SUPPORTED_PAIRS or w.shape[1] != pair[0]:
            raise ValueError("unsupported shape")


    def rowdot(x, w):
        _validate(x, w)
        m, k = x.shape
        out = torch.empty(m, device=x.device, dtype=torch.float32)
        rowdot_kernel[(triton.cdiv(m, 16),)](x, out, m, K=k, BLOCK_M=16, BLOCK_K=128)
        return out
""")


def _witness(tmp_path: Path, text: str) -> list[dict[str, Any]]:
    path = tmp_path / "rowdot.py"
    path.write_text(text)
    found = witness_json(path)
    assert found
    return [f["witness"] for f in found]


def test_a_size_outside_the_admitted_table_is_latent(tmp_path: Path) -> None:
    for w in _witness(tmp_path, ROWDOT):
        assert w["status"] == "confirmed", w
        latent = w["evidence"]["latent"]
        assert latent and "admit only K in (512, 1024)" in latent and "SUPPORTED_PAIRS" in latent, w["evidence"]
        assert "_validate" in latent, latent


def test_an_assert_in_the_launcher_reads_the_same(tmp_path: Path) -> None:
    text = ROWDOT.replace("    _validate(x, w)\n    m, k = x.shape\n",
                          "    m, k = x.shape\n    assert k in (512, 1024) and m > 0\n") \
        .replace("SUPPORTED_PAIRS = frozenset({(512, 8), (1024, 16)})", "SIZES = (512, 1024)") \
        .replace("assert k in (512, 1024)", "assert k in SIZES")
    for w in _witness(tmp_path, text):
        assert w["status"] == "confirmed", w
        assert w["evidence"]["latent"] and "admit only K in (512, 1024)" in w["evidence"]["latent"], w["evidence"]


def test_a_table_holding_a_partial_tile_marks_nothing(tmp_path: Path) -> None:
    # 448 is no multiple of the 128-wide tile: an admitted K goes out of bounds too, the table proves nothing.
    text = ROWDOT.replace("(1024, 16)", "(448, 16)")
    for w in _witness(tmp_path, text):
        assert w["status"] == "confirmed", w
        assert not w["evidence"]["latent"], w["evidence"]


def test_check_keeps_the_findings() -> None:
    with_table = check_source("rowdot.py", ROWDOT, Config(), strict=True).diagnostics
    without = check_source("rowdot.py", ROWDOT.replace("    _validate(x, w)\n", ""), Config(), strict=True).diagnostics
    assert [(d.line, d.code) for d in with_table] == [(d.line, d.code) for d in without]
    assert {d.code for d in with_table} == {"TL101"}, with_table
