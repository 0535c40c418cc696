"""The fixer's mask for the seed bug's shape equals the upstream triton_kernels fix for every K
that is a multiple of 32, evaluated lane by lane with numpy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from fuzz_kernels import tail_mask_of

from tritonlint.config import Config
from tritonlint.engine import fix_source

CASE = Path(__file__).resolve().parents[2] / "fixtures" / "unmasked-tail-load" / "mxfp4_hopper_scale_swizzled.py"
MX_PACK_DIVISOR = 32


def derived_mask() -> str:
    """The `mask=` the fixer writes into the Hopper scale load, on its tail side."""
    fixed = fix_source(str(CASE), CASE.read_text(), Config(), unsafe=True, strict=True).fixed_text
    assert fixed is not None
    return tail_mask_of(fixed, "unswizzle_scale_hopper(tl.load(WMxScalePtrs,")


@pytest.mark.parametrize("block_k", [32, 64, 128, 256])
def test_fix_equals_upstream_mask_for_k_multiple_of_32(block_k: int) -> None:
    mask = derived_mask()
    # Hopper swizzle: PACKED_MX_BLOCK = (BLOCK_K // 32) * 32 scale lanes per K tile.
    packed = (block_k // MX_PACK_DIVISOR) * 32
    offs_k_scale = np.arange(packed)
    checked = 0
    for K in range(32, 4096 + 1, 32):
        for k in range(K, 0, -block_k):  # the kernel's `for k in range(K, 0, -BLOCK_K)`: k = K left
            ours = eval(mask, {"offs_k_scale": offs_k_scale, "BLOCK_K": block_k,
                               "PACKED_MX_BLOCK": packed, "k": k, "None": None})
            upstream = (offs_k_scale[:, None] // 32) * MX_PACK_DIVISOR < k
            assert np.array_equal(ours, upstream), (K, k, mask)
            checked += 1
    assert checked > 1000
