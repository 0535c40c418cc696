"""A constexpr flag the launch passes as the launching function's bool parameter (`PER_ROW=per_row`,
`per_row: bool = False`), which no call in the package passes: every launch runs the default's branch,
as if the literal were written at the launch. A confirmation that needs the other value is latent, and
says where the default is. A call that passes it (by name or by position), or a use of the function the
reading cannot follow, leaves the flag free and marks nothing."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from witness_cli import witness_json

OPS = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def gated_bias_kernel(X, Bias, Out, D, PER_ROW: tl.constexpr, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        offs = tl.arange(0, BLOCK)
        mask = offs < D
        x = tl.load(X + row * D + offs, mask=mask, other=0.0)
        if PER_ROW:
            b = tl.load(Bias + row * D + offs)
        else:
            b = tl.load(Bias + row)
        tl.store(Out + row * D + offs, x + b, mask=mask)


    def gated_bias(x, bias, per_row: bool = False):
        n, d = x.shape
        out = torch.empty_like(x)
        gated_bias_kernel[(n,)](x, bias, out, d, PER_ROW=per_row, BLOCK=triton.next_power_of_2(d))
        return out
""")

MODEL = textwrap.dedent("""\
    from gates import ops
    from gates.ops import gated_bias


    def forward(x, bias):
        y = gated_bias(x, bias)
        return ops.gated_bias(y, bias)
""")


def _witness(tmp_path: Path, model: str) -> dict[str, Any]:
    package = tmp_path / "gates"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "ops.py").write_text(OPS)
    (package / "model.py").write_text(model)
    found = witness_json(package / "ops.py")
    assert len(found) == 1, found
    witness: dict[str, Any] = found[0]["witness"]
    assert witness["status"] == "confirmed", witness
    return witness


def test_a_flag_every_caller_leaves_at_its_default_is_latent(tmp_path: Path) -> None:
    # The third call spells the default out: the same value, still the default's branch.
    model = MODEL + "\n\ndef warm(x, bias):\n    return gated_bias(x, bias, per_row=False)\n"
    latent = _witness(tmp_path, model)["evidence"]["latent"]
    assert latent and "PER_ROW=False" in latent, latent
    assert "`per_row=False` at ops.py:19" in latent and "3 call(s)" in latent, latent


def test_a_caller_passing_the_flag_marks_nothing(tmp_path: Path) -> None:
    for model in (MODEL.replace("gated_bias(y, bias)", "gated_bias(y, bias, per_row=True)"),
                  MODEL.replace("gated_bias(y, bias)", "gated_bias(y, bias, True)"),
                  MODEL + "\n\nhandlers = {'gated': gated_bias}\n"):
        (tmp_path / "case").mkdir(exist_ok=True)
        case = tmp_path / "case" / str(abs(hash(model)))
        case.mkdir()
        assert not _witness(case, model)["evidence"]["latent"], model
