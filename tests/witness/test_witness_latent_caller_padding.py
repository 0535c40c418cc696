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

from witness_cli import witness_json

KERNELS = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def row_scale_fwd(X, Out, stride_bh, N_CTX, BLOCK_M: tl.constexpr):
        pid = tl.program_id(0)
        bh = tl.program_id(1)
        offs = pid * BLOCK_M + tl.arange(0, BLOCK_M)
        x = tl.load(X + bh * stride_bh + offs)
        tl.store(Out + bh * stride_bh + offs, x * 2.0, mask=offs < N_CTX)


    @triton.jit
    def row_scale_bwd(X, DOut, DX, stride_bh, N_CTX, BLOCK_M: tl.constexpr):
        pid = tl.program_id(0)
        bh = tl.program_id(1)
        offs = pid * BLOCK_M + tl.arange(0, BLOCK_M)
        x = tl.load(X + bh * stride_bh + offs)
        do = tl.load(DOut + bh * stride_bh + offs, mask=offs < N_CTX, other=0.0)
        tl.store(DX + bh * stride_bh + offs, do * 2.0 + x * 0.0, mask=offs < N_CTX)


    class _RowScale(torch.autograd.Function):

        @staticmethod
        def forward(ctx, x, scale):
            out = torch.empty_like(x)
            grid = (triton.cdiv(x.shape[2], 64), x.shape[0] * x.shape[1])
            row_scale_fwd[grid](x, out, x.stride(1), x.shape[2], BLOCK_M=64)
            ctx.save_for_backward(out, x)
            return out

        @staticmethod
        def backward(ctx, dout):
            out, x = ctx.saved_tensors
            batch, heads, n_ctx = x.shape[:3]
            dx = torch.empty_like(x)
            grid = (triton.cdiv(n_ctx, 32), batch * heads)
            row_scale_bwd[grid](x, dout, dx, x.stride(1), n_ctx, BLOCK_M=32)
            return dx, None


    def row_scale(x, scale=2.0):
        return _RowScale.apply(x, scale)
""")

INTERFACE = textwrap.dedent("""\
    import torch

    from rows.kernels import row_scale

    BLOCK = 128


    def scale_sequence(x):
        x = x.contiguous() if not x.is_contiguous() else x
        batch, seq_len, heads = x.shape
        pad = (BLOCK - seq_len % BLOCK) % BLOCK
        if pad > 0:
            x = torch.cat([x, torch.zeros(batch, pad, heads, dtype=x.dtype, device=x.device)], dim=1)
        x = x.transpose(1, 2).contiguous()
        out = row_scale(x)
        return out.transpose(1, 2)[:, :seq_len]
""")


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
