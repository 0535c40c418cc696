"""A public predicate the module offers beside the launching function, over the same host values
(`rowdot_supported(x, w)` returning `... and k % block_k == 0`), names the shapes the callers may
pass: a confirmation that needs a K it refuses is latent. Nothing at the launch shows that a caller
tests it, so `check` keeps the finding (it trusts only tests it sees)."""

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

    _TILES = {16: (1, 32), 64: (4, 64)}


    @triton.jit
    def rowdot_kernel(X, W, Out, K, stride_x, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
        rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_k = tl.arange(0, BLOCK_K)
        acc = tl.zeros([BLOCK_M], dtype=tl.float32)
        for start in range(0, K, BLOCK_K):
            x = tl.load(X + rows[:, None] * stride_x + start + offs_k[None, :])
            w = tl.load(W + start + offs_k)
            acc += tl.sum(x * w[None, :], axis=1)
        tl.store(Out + rows, acc)


    def _tile(m):
        for most, tile in _TILES.items():
            if m <= most:
                return tile
        return _TILES[64]


    def rowdot_supported(x, w):
        m, k = x.shape
        block_m, block_k = _tile(m)
        return x.is_contiguous() and m % block_m == 0 and k % block_k == 0


    def rowdot(x, w):
        m, k = x.shape
        block_m, block_k = _tile(m)
        out = torch.empty(m, device=x.device, dtype=torch.float32)
        rowdot_kernel[(m // block_m,)](x, w, out, k, x.stride(0), BLOCK_M=block_m, BLOCK_K=block_k)
        return out
""")


# The block a chooser returns as a module constant in every branch; the predicate tests the constant.
ROWDOT_CONSTANT = ROWDOT.split("def _tile(m):")[0].replace("_TILES = {16: (1, 32), 64: (4, 64)}", "_BLOCK_K = 32") + \
    textwrap.dedent("""\
    def _pick(M, K):
        if M >= 64:
            return 4, _BLOCK_K
        return 1, _BLOCK_K


    def rowdot_supported(M, K):
        return M > 0 and K % _BLOCK_K == 0


    def rowdot(x, w):
        M, K = x.shape
        block_m, block_k = _pick(M, K)
        out = torch.empty(M, device=x.device, dtype=torch.float32)
        rowdot_kernel[(M // block_m,)](x, w, out, K, x.stride(0), BLOCK_M=block_m, BLOCK_K=block_k)
        return out
""")


def _witness(tmp_path: Path, text: str) -> list[dict[str, Any]]:
    path = tmp_path / "rowdot.py"
    path.write_text(text)
    witnessed = witness_json(path)
    found: list[dict[str, Any]] = witnessed
    assert found, witnessed
    return [f["witness"] for f in found]


def test_a_size_the_offered_predicate_refuses_is_latent(tmp_path: Path) -> None:
    for w in _witness(tmp_path, ROWDOT):
        assert w["status"] == "confirmed", w
        assert w["evidence"]["latent"] and "rowdot_supported" in w["evidence"]["latent"], w["evidence"]
        assert "K a multiple of BLOCK_K" in w["evidence"]["latent"], w["evidence"]


def test_a_block_chosen_as_a_module_constant_matches_the_predicates_literal(tmp_path: Path) -> None:
    # `K % _BLOCK_K == 0` reads as `K % 32 == 0`; `block_k` is 32 on every path of `_pick` (notes keep its spelling).
    for w in _witness(tmp_path, ROWDOT_CONSTANT):
        assert w["status"] == "confirmed", w
        assert w["evidence"]["latent"] and "`K % _BLOCK_K == 0`" in w["evidence"]["latent"], w["evidence"]


def test_a_predicate_without_the_divisibility_marks_nothing(tmp_path: Path) -> None:
    # The same module, but the predicate only checks the layout: K is anything the callers like.
    text = ROWDOT.replace("and k % block_k == 0", "and k > 0")
    for w in _witness(tmp_path, text):
        assert w["status"] == "confirmed", w
        assert not w["evidence"]["latent"], w["evidence"]


def test_check_keeps_the_findings() -> None:
    # The offered predicate is the witness's reading only: `check` reports the unmasked K loads either way.
    with_predicate = check_source("rowdot.py", ROWDOT, Config(), strict=True).diagnostics
    without = check_source("rowdot.py", ROWDOT.replace("and k % block_k == 0", "and k > 0"), Config(),
                           strict=True).diagnostics
    assert [(d.line, d.code) for d in with_predicate] == [(d.line, d.code) for d in without]
    assert {d.code for d in with_predicate} == {"TL101"}, with_predicate
