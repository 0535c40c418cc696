"""A dispatch that keeps a size within a block around the launch (`if n <= HEAD:`) is a fact of the
callers: a confirmation that needs a larger size is latent, and where a size they allow confirms the
finding too, the witness reports that one instead."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from witness_cli import witness_json

HEAD_THEN_TAIL = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def tail_sums(X, Out, stride, n_cols, HEAD: tl.constexpr, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        offs = tl.arange(0, BLOCK)
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for start in range(HEAD, n_cols, BLOCK):
            acc += tl.load(X + row * stride + start + offs)
        tl.store(Out + row, tl.sum(acc, axis=0))


    def sums(x):
        rows, n = x.shape
        out = torch.empty(rows, device=x.device, dtype=torch.float32)
        BLOCK = 16
        HEAD = 32
        if n <= HEAD:
            tail_sums[(rows,)](x, out, x.stride(0), n, HEAD=HEAD, BLOCK=BLOCK)
        return out
""")


def _witness(tmp_path: Path, text: str) -> dict[str, Any]:
    path = tmp_path / "sums.py"
    path.write_text(text)
    witnessed = witness_json(path)
    found = witnessed
    assert len(found) == 1, found
    witness: dict[str, Any] = found[0]["witness"]
    return witness


def test_a_confirmation_past_the_size_the_callers_allow_is_latent(tmp_path: Path) -> None:
    # Only sizes past HEAD enter the loop; the host launches only n <= HEAD.
    w = _witness(tmp_path, HEAD_THEN_TAIL)
    assert w["status"] == "confirmed", w
    assert w["evidence"]["latent"] and "n_cols <= HEAD" in w["evidence"]["latent"], w["evidence"]
    assert "latent:" in w["reason"]


def test_a_size_the_callers_allow_is_preferred_when_it_confirms_too(tmp_path: Path) -> None:
    # From 0, the first tile is partial at any size below HEAD as well: a firing finding, not latent.
    w = _witness(tmp_path, HEAD_THEN_TAIL.replace("range(HEAD, n_cols, BLOCK)", "range(0, n_cols, BLOCK)"))
    assert w["status"] == "confirmed", w
    assert not w["evidence"]["latent"], w["evidence"]
    assert w["evidence"]["shape"]["n_cols"] <= 32, w["evidence"]
