"""A host test that keeps a size a multiple of a value Python does not hold (`assert a.size(0) %
row_alignment() == 0`, the function from a compiled extension) is still a stated fact. A confirmation
at rows that are no multiple of the tile is marked latent on exactly that condition ("if
`row_alignment()` is a multiple of BLOCK_K"), the divisor never given a value."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from witness_cli import witness_json

# The size walked is a launch argument read from the tested tensor (`K, M = a.shape`).
COLSUM = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl

    from ._ext import row_alignment


    @triton.jit
    def colsum_kernel(A, Out, K, M, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
        cols = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
        offs = tl.arange(0, BLOCK_K)
        acc = tl.zeros((BLOCK_K, BLOCK_M), dtype=tl.float32)
        for start in range(0, K, BLOCK_K):
            acc += tl.load(A + (start + offs)[:, None] * M + cols[None, :], mask=cols[None, :] < M, other=0.0)
        tl.store(Out + cols, tl.sum(acc, axis=0), mask=cols < M)


    def colsum(a):
        assert a.is_contiguous() and a.size(0) % row_alignment() == 0
        K, M = a.shape
        out = torch.empty(M, device=a.device, dtype=torch.float32)
        colsum_kernel[(triton.cdiv(M, 32),)](a, out, K, M, BLOCK_M=32, BLOCK_K=16)
        return out
""")

# The walk ends at a count read from memory; the host tests the rows of the tensors it indexes,
# one of them through an asserted equality of leading dimensions.
SEGMENTS = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl

    from ._ext import row_alignment


    @triton.jit
    def segment_sum_kernel(idx_ptr, a_ptr, out_ptr, end_ptr, N: tl.constexpr, BLOCK_K: tl.constexpr):
        g = tl.program_id(0)
        cols = tl.arange(0, N)
        k_end = tl.load(end_ptr + g)
        acc = tl.zeros((N,), dtype=tl.float32)
        for k in range(0, k_end, BLOCK_K):
            k_range = k + tl.arange(0, BLOCK_K)
            rows = tl.load(idx_ptr + k_range)
            vals = tl.load(a_ptr + k_range[:, None] * N + cols[None, :], mask=(rows >= 0)[:, None], other=0.0)
            acc += tl.sum(vals, axis=0)
        tl.store(out_ptr + g * N + cols, acc)


    def segment_sum(idx, a, ends):
        assert idx.size(0) == a.size(0)
        assert a.size(0) % row_alignment() == 0
        out = torch.empty((ends.numel(), a.size(1)), device=a.device, dtype=torch.float32)
        segment_sum_kernel[(ends.numel(),)](idx, a, out, ends, N=a.size(1), BLOCK_K=16)
        return out
""")


def _witness(tmp_path: Path, text: str) -> list[dict[str, Any]]:
    path = tmp_path / "ops.py"
    path.write_text(text)
    found = witness_json(path)
    assert found
    return [f["witness"] for f in found]


def test_a_size_tested_against_an_unknown_divisor_is_latent_on_that_condition(tmp_path: Path) -> None:
    for w in _witness(tmp_path, COLSUM):
        assert w["status"] == "confirmed", w
        latent = w["evidence"]["latent"]
        assert latent and latent.startswith("if `row_alignment()` is a multiple of BLOCK_K (16 in this run"), latent
        assert "`assert a.is_contiguous() and a.size(0) % row_alignment() == 0` at ops.py:" in latent, latent


def test_the_rows_of_a_tested_tensor_and_of_one_asserted_equal(tmp_path: Path) -> None:
    found = _witness(tmp_path, SEGMENTS)
    tensors = {w["evidence"]["tensor"] for w in found if w["status"] == "confirmed"}
    assert tensors == {"idx_ptr", "a_ptr"}, found
    for w in found:
        latent = w["evidence"]["latent"]
        assert latent and f"the rows of `{w['evidence']['tensor']}`" in latent, w["evidence"]
        assert "`row_alignment()` is a multiple of BLOCK_K" in latent, latent
    by_tensor = {w["evidence"]["tensor"]: w["evidence"]["latent"] for w in found}
    assert "with `idx.size(0) == a.size(0)`" in by_tensor["idx_ptr"], by_tensor


def test_a_fact_on_another_tensor_marks_nothing(tmp_path: Path) -> None:
    # Only the output's rows are tested: the overrun of `idx_ptr` and `a_ptr` is not excluded by it.
    text = SEGMENTS.replace("    assert idx.size(0) == a.size(0)\n", "") \
        .replace("assert a.size(0) % row_alignment() == 0", "assert ends.size(0) % row_alignment() == 0")
    for w in _witness(tmp_path, text):
        assert w["status"] == "confirmed", w
        assert not w["evidence"]["latent"], w["evidence"]


def test_a_divisor_the_caller_picks_marks_nothing(tmp_path: Path) -> None:
    # `rows_per_group` is the caller's choice, not one value for the process: it excuses no shape.
    text = COLSUM.replace("def colsum(a):", "def colsum(a, rows_per_group):") \
        .replace("a.size(0) % row_alignment() == 0", "a.size(0) % rows_per_group == 0")
    for w in _witness(tmp_path, text):
        assert w["status"] == "confirmed", w
        assert not w["evidence"]["latent"], w["evidence"]
