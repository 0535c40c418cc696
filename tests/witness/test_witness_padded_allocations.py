"""A tensor the host pads before the launch (`torch.zeros(H)` filled from a shorter one, passed where
the kernel reads `H` elements) is sized `H` by the witness: the over-read past the unpadded length
stays inside the callers' allocation, so the finding is not confirmed. Passed unpadded, it is."""

from __future__ import annotations

import textwrap
from pathlib import Path

from witness_cli import witness_json

KERNEL = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def add_bias(X, Bias, Y, n_heads, H: tl.constexpr):
        row = tl.program_id(0)
        offs = tl.arange(0, H)
        keep = offs < n_heads
        x = tl.load(X + row * n_heads + offs, mask=keep, other=0.0)
        b = tl.load(Bias + offs)
        tl.store(Y + row * n_heads + offs, x + b, mask=keep)


    def add_bias_host(x, bias, flag):
        rows, h = x.shape
        H = triton.next_power_of_2(h)
        if bias.shape[0] < H:
            padded = torch.zeros(H, dtype=bias.dtype, device=bias.device)
            padded[: bias.shape[0]] = bias
        else:
            padded = bias
        y = torch.empty_like(x)
        add_bias[(rows,)](x, padded, y, h, H=H)
        return y
""")


def _statuses(tmp_path: Path, text: str) -> dict[int, str]:
    path = tmp_path / "bias.py"
    path.write_text(text)
    witnessed = witness_json(path)
    return {d["line"]: d["witness"]["status"] for d in witnessed}


def test_a_buffer_the_host_pads_is_sized_padded(tmp_path: Path) -> None:
    assert _statuses(tmp_path, KERNEL)[12] == "not-reproduced"


def test_the_same_buffer_passed_unpadded_is_confirmed(tmp_path: Path) -> None:
    unpadded = KERNEL.replace("add_bias[(rows,)](x, padded,", "add_bias[(rows,)](x, bias,")
    assert _statuses(tmp_path, unpadded)[12] == "confirmed"


def test_a_pass_through_no_test_proves_long_enough_is_no_padding(tmp_path: Path) -> None:
    # The unpadded tensor reaches the launch on a branch that says nothing of its length.
    unproven = KERNEL.replace("if bias.shape[0] < H:", "if flag:")
    assert _statuses(tmp_path, unproven)[12] == "confirmed"
