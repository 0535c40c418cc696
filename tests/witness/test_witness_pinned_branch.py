"""A finding under a constexpr branch that the callers pin with a literal (`if not PER_COL: ... else:
<line>`, every launch passing `PER_COL=False`): the witness takes the branch all the same, and marks the
confirmation latent, naming what the callers pass (`check` reports it as TL111, "no launch takes this
branch", outside the default rules: `--select ALL`). Where another launch site passes the value that
takes the branch, the witness synthesizes from that one, and the confirmation is not latent."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from witness_cli import witness_json

KERNEL = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def gate_rows(X, G, Out, n_cols, BLOCK: tl.constexpr, PER_COL: tl.constexpr):
        row = tl.program_id(0)
        offs = tl.arange(0, BLOCK)
        mask = offs < n_cols
        x = tl.load(X + row * n_cols + offs, mask=mask, other=0.0)
        if not PER_COL:
            g = tl.load(G + row)
        else:
            g = tl.load(G + row * n_cols + offs)
        tl.store(Out + row * n_cols + offs, x * g, mask=mask)


    def gate(x, g):
        rows, n = x.shape
        out = torch.empty_like(x)
        gate_rows[(rows,)](x, g, out, n, BLOCK=triton.next_power_of_2(n), PER_COL=False)
        return out
""")

SECOND_CALLER = textwrap.dedent("""\


    def gate_per_col(x, g):
        rows, n = x.shape
        out = torch.empty_like(x)
        gate_rows[(rows,)](x, g, out, n, BLOCK=triton.next_power_of_2(n), PER_COL=True)
        return out
""")


def _witness(tmp_path: Path, text: str) -> dict[str, Any]:
    path = tmp_path / "gates.py"
    path.write_text(text)
    witnessed = witness_json(path, "--select", "ALL")
    found = [f for f in witnessed if f["line"] == 15]
    assert len(found) == 1, witnessed
    witness: dict[str, Any] = found[0]["witness"]
    return witness


def test_a_branch_every_caller_pins_away_is_taken_and_marked_latent(tmp_path: Path) -> None:
    w = _witness(tmp_path, KERNEL)
    assert w["status"] == "confirmed", w
    assert w["evidence"]["latent"] == "the callers pass PER_COL=False", w["evidence"]
    assert "latent: the callers pass PER_COL=False" in w["reason"]


def test_a_caller_that_takes_the_branch_is_the_one_launched(tmp_path: Path) -> None:
    w = _witness(tmp_path, KERNEL + SECOND_CALLER)
    assert w["status"] == "confirmed", w
    assert not w["evidence"]["latent"], w["evidence"]
