"""A size the host passes rounded up from another (`n_rounded = triton.cdiv(n, 64) * 64`, both passed)
keeps that relation in the witness's launch, and rows laid out with it are allocated padded: a store
past `n` into the row's padding stays inside the callers' tensor and is not confirmed."""

from __future__ import annotations

import textwrap
from pathlib import Path

from witness_cli import witness_json

KERNEL = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def row_stats(X, Stats, n, n_rounded, BLOCK_M: tl.constexpr):
        row = tl.program_id(1)
        offs = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
        x = tl.load(X + row * n + offs, mask=offs < n, other=0.0)
        tl.store(Stats + row * n_rounded + offs, x * 2.0)


    def stats(x):
        rows, n = x.shape
        n_rounded = triton.cdiv(n, 64) * 64
        out = torch.empty((rows, n_rounded), device=x.device, dtype=torch.float32)
        grid = (triton.cdiv(n, 32), rows)
        row_stats[grid](x, out, n, n_rounded, BLOCK_M=32)
        return out
""")


def _status(tmp_path: Path, text: str) -> str:
    path = tmp_path / "stats.py"
    path.write_text(text)
    witnessed = witness_json(path)
    found = {d["line"]: d["witness"] for d in witnessed}
    status: str = found[11]["status"]
    return status


def test_rows_the_host_rounds_up_hold_the_tail_tile(tmp_path: Path) -> None:
    assert _status(tmp_path, KERNEL) == "not-reproduced"


def test_rows_passed_unrounded_are_overrun(tmp_path: Path) -> None:
    assert _status(tmp_path, KERNEL.replace("row_stats[grid](x, out, n, n_rounded,", "row_stats[grid](x, out, n, n,")) \
        == "confirmed"
