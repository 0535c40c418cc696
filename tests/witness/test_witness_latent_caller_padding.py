"""A size every path pads further up than the launching function: a `torch.autograd.Function` whose
`forward` launches with `x.shape[2]`, reached through `Cls.apply(...)` from a wrapper that a module of
the package calls with `x` padded to a multiple of 128 (`pad = (BLOCK - n % BLOCK) % BLOCK`, `torch.cat`
under `if pad > 0:`) and transposed; the `backward` launches with a size read off `ctx.saved_tensors`.
A confirmation at an unpadded size is latent when the tile divides the multiple. An unpadded caller,
a multiple the tile does not divide, another dimension padded, a padding under another condition, or
a class that is no `autograd.Function` marks nothing."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from row_scale_kernels import PADDING_CALLER, ROW_SCALE
from witness_cli import witness_json

KERNELS = ROW_SCALE + textwrap.dedent("""\


    def row_scale(x, scale=2.0):
        return _RowScale.apply(x, scale)
""")

INTERFACE = PADDING_CALLER


def _latent(tmp_path: Path, kernels: str = KERNELS, interface: str = INTERFACE) -> dict[int, Any]:
    """Line of each finding -> its latent note (None when unmarked); every finding must be confirmed."""
    package = tmp_path / "rows"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "kernels.py").write_text(kernels)
    (package / "interface.py").write_text(interface)
    found = witness_json(package / "kernels.py")
    assert {d["witness"]["status"] for d in found} == {"confirmed"}, found
    return {d["line"]: d["witness"]["evidence"].get("latent") for d in found}


def test_padding_two_calls_up_marks_forward_and_backward_latent(tmp_path: Path) -> None:
    latent = _latent(tmp_path)
    assert sorted(latent) == [11, 20], latent
    for line, tile in ((11, 64), (20, 32)):
        note = latent[line]
        assert note and f"the callers pad N_CTX to a multiple of 128, a whole number of BLOCK_M ({tile} here)" in note, note
        assert "`scale_sequence` pads dim 1 of `x`" in note and "interface.py:11" in note, note


def test_a_caller_that_does_not_pad_marks_nothing(tmp_path: Path) -> None:
    interface = INTERFACE + "\n\ndef scale_raw(x):\n    return row_scale(x)\n"
    assert _latent(tmp_path, interface=interface) == {11: None, 20: None}


def test_a_multiple_the_tile_does_not_divide_marks_only_the_tile_that_divides(tmp_path: Path) -> None:
    latent = _latent(tmp_path, interface=INTERFACE.replace("BLOCK = 128", "BLOCK = 96"))
    assert latent[11] is None, latent  # tile 64: a sequence of 96 overruns too
    assert latent[20] and "a multiple of 96" in latent[20], latent  # tile 32 divides 96


def test_padding_another_dimension_marks_nothing(tmp_path: Path) -> None:
    # The heads padded (dim 2 before the transpose): the kernel's N_CTX is the unpadded sequence.
    interface = INTERFACE.replace("pad = (BLOCK - seq_len % BLOCK) % BLOCK", "pad = (BLOCK - heads % BLOCK) % BLOCK").replace(
        "torch.zeros(batch, pad, heads, dtype=x.dtype, device=x.device)], dim=1)",
        "torch.zeros(batch, seq_len, pad, dtype=x.dtype, device=x.device)], dim=2)")
    assert "dim=2" in interface and "heads % BLOCK" in interface
    assert _latent(tmp_path, interface=interface) == {11: None, 20: None}


def test_padding_under_another_condition_marks_nothing(tmp_path: Path) -> None:
    interface = INTERFACE.replace("if pad > 0:", "if pad > 0 and batch > 1:")
    assert _latent(tmp_path, interface=interface) == {11: None, 20: None}


def test_a_class_that_is_no_autograd_function_marks_nothing(tmp_path: Path) -> None:
    kernels = KERNELS.replace("class _RowScale(torch.autograd.Function):",
                              "class _RowScale(torch.nn.Module):")
    assert _latent(tmp_path, kernels=kernels) == {11: None, 20: None}


def test_a_padding_tensor_bound_to_a_name_first(tmp_path: Path) -> None:
    interface = INTERFACE.replace(
        "        x = torch.cat([x, torch.zeros(batch, pad, heads, dtype=x.dtype, device=x.device)], dim=1)",
        "        padding = torch.zeros(batch, pad, heads, dtype=x.dtype, device=x.device)\n"
        "        x = torch.cat([x, padding], dim=1)")
    assert "[x, padding]" in interface
    latent = _latent(tmp_path, interface=interface)
    assert latent[11] and "a multiple of 128" in latent[11] and "interface.py:14" in latent[11], latent
