"""The fixer's mask for the seed bug (the Hopper-swizzled MXFP4 weight-scale load of triton_kernels'
`_matmul_ogs`) must keep exactly the lanes of each K tile that hold real scales: not the pad column
that the host swizzle adds to an odd count of scale columns, not bytes past the end of the tensor.
The fixture `mxfp4_hopper_scale_interleaved.py` has the kernel's shape: a flat tile of scale lanes
put back in K order by a reshape/transpose helper, which the fixer follows (tritonlint/fixing/layouts.py).

The host swizzle (`HopperMXScaleLayout.swizzle_data`, triton_kernels/tensor_details/layout_details/
hopper_scale.py) is simulated in numpy below. A (N, Kc) scale tensor (Kc = K // 32 columns) is padded
to an even Kc and stored as (Kc_pad * 32, N_pad // 32); along the first axis, lane p holds scale column
`2 * (p // 64) + (p // 2) % 2`: each 64-lane group interleaves two columns in pairs of lanes. The
kernel walks `for k in range(K, BLOCK_K * pid_k, -(BLOCK_K * SPLIT_K))`, loads `PACKED_MX_BLOCK =
(BLOCK_K // 32) * 32` lanes per tile at `offs_k_scale = PACKED_MX_BLOCK * pid_k + arange(...)` and
advances the pointer (not offs_k_scale) by `PACKED_MX_BLOCK * SPLIT_K` per tile; `k` is K minus the
tiles already done. So the lanes a correct mask keeps are those whose column is below K // 32.

A mask that reads lane j as column j // 32 (the upstream `(offs_k_scale // 32) * MX_PACK_DIVISOR < k`,
and the fixer's before it followed the helper, `offs_k_scale * BLOCK_K // PACKED_MX_BLOCK < k`) is right
when the last tile holds an even number of columns, and wrong for K = 32 (mod 64): there it keeps the
pad half of the last 64-lane group and drops the real half. A mask that keeps exactly the real lanes:

    (2 * (offs_k_scale // 64) + (offs_k_scale // 2) % 2) * MX_PACK_DIVISOR < k

numpy only: no GPU, no Triton compiler (the optional cross-check against the real swizzle imports torch).
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

import numpy as np
import pytest
from fuzz_kernels import tail_mask_of

from tritonlint.config import Config
from tritonlint.engine import fix_source

CASE = Path(__file__).resolve().parents[2] / "fixtures" / "unmasked-tail-load" / "mxfp4_hopper_scale_interleaved.py"
MX_PACK_DIVISOR = 32
NUM_WARPS = 8
BLOCK_KS = [32, 64, 128, 256]
KS = range(32, 8192 + 1, 32)
CORRECT_MASK = "(2 * (offs_k_scale // 64) + (offs_k_scale // 2) % 2) * MX_PACK_DIVISOR < k"
LANE_ORDER_MASK = "offs_k_scale * BLOCK_K // PACKED_MX_BLOCK < k"  # the fixer's, had it not followed the helper


def swizzle_scale_columns(kcols: int, nrows: int, num_warps: int = NUM_WARPS) -> np.ndarray:
    """numpy copy of HopperMXScaleLayout(mx_axis=1).swizzle_data on an (E=1, kcols, nrows) scale tensor whose
    entries are their own column index: returns (Kc_pad * 32, N_pad // 32), -1 where the swizzle padded."""
    data = np.broadcast_to(np.arange(kcols)[None, :], (nrows, kcols))  # after _maybe_mT: (N, Kc)
    align_m = 2 * num_warps * 2 * 8
    pad_m, pad_k = (-nrows) % align_m, kcols % 2
    data = np.pad(data, ((0, pad_m), (0, pad_k)), constant_values=-1)
    m, kk = data.shape
    data = data.reshape(m // align_m, 2, num_warps, 2, 8, kk // 2, 2).transpose(0, 2, 5, 1, 4, 6, 3)
    return data.reshape(m // 32, kk * 32).T  # flatten(-5, -1), flatten(-3, -2), _maybe_mT


@functools.cache
def real_lanes(kcols: int) -> np.ndarray:
    """bool per lane of a swizzled scale row: True where it holds a real scale (one full block of N rows)."""
    col = swizzle_scale_columns(kcols, 2 * NUM_WARPS * 2 * 8)
    assert (col == col[:, :1]).all()  # the lane -> column map does not depend on the N row
    return col[:, 0] >= 0


@functools.lru_cache(maxsize=1)
def fixer_mask() -> str:
    """The `mask=` the fixer writes into the Hopper scale load, on its tail side (as test_fix_equivalence)."""
    fixed = fix_source(str(CASE), CASE.read_text(), Config(), unsafe=True, strict=True).fixed_text
    assert fixed is not None
    return tail_mask_of(fixed, "unswizzle_scales(tl.load(WMxScalePtrs,")


def lane_mismatch(mask: str, K: int, block_k: int, split_k: int = 1, pid_k: int = 0) -> str | None:
    """Evaluate `mask` (the kernel's names) on every K tile at once; describe the first tile whose kept lanes
    differ from the real lanes of the simulated swizzle, or None."""
    packed = (block_k // MX_PACK_DIVISOR) * 32  # PACKED_MX_BLOCK on the HOPPER_SCALE path
    offs_k_scale = packed * pid_k + np.arange(packed)
    ks = np.arange(K, block_k * pid_k, -(block_k * split_k))  # the loop's k, one per tile
    if ks.size == 0:
        return None
    real = real_lanes(K // MX_PACK_DIVISOR)
    addr = np.arange(ks.size)[:, None] * packed * split_k + offs_k_scale[None, :]  # lanes each tile reads
    want = np.zeros(addr.shape, bool)
    inside = addr < real.size
    want[inside] = real[addr[inside]]
    env = {"offs_k_scale": offs_k_scale, "k": ks[:, None, None], "BLOCK_K": block_k, "PACKED_MX_BLOCK": packed,
           "MX_PACK_DIVISOR": MX_PACK_DIVISOR, "None": None}
    got = np.asarray(eval(mask, env))
    got = np.broadcast_to(got, np.broadcast_shapes(got.shape, (ks.size, 1, 1))).reshape(ks.size, packed)
    bad = np.nonzero((got != want).any(axis=1))[0]
    if bad.size == 0:
        return None
    t = int(bad[0])
    dropped = np.nonzero(want[t] & ~got[t])[0]
    kept_pad = np.nonzero(got[t] & ~want[t] & inside[t])[0]
    kept_oob = np.nonzero(got[t] & ~inside[t])[0]
    return (f"K={K} BLOCK_K={block_k} tile k={ks[t]}: drops real lanes {dropped.tolist()[:8]}, keeps pad lanes "
            f"{kept_pad.tolist()[:8]}, keeps out-of-bounds lanes {kept_oob.tolist()[:8]}")


# BLOCK_K = 32 is not a Hopper config: a 32-lane tile would split a 64-lane swizzle group, and the
# kernel static_asserts MX_SCALE_BLOCK_K % 2 == 0 (the fixture's helper: LANES % 64 == 0).
@pytest.mark.parametrize(("K", "block_k"), [(K, bk) for bk in BLOCK_KS[1:] for K in KS])
def test_fixer_mask_keeps_exactly_the_real_lanes(K: int, block_k: int) -> None:
    problem = lane_mismatch(fixer_mask(), K, block_k)
    assert problem is None, f"{problem}; mask {fixer_mask()}"


@pytest.mark.parametrize("block_k", BLOCK_KS[1:])
def test_correct_mask_keeps_exactly_the_real_lanes_with_split_k(block_k: int) -> None:
    for K in KS:
        for split_k in (1, 2, 3):
            for pid_k in range(split_k):
                problem = lane_mismatch(CORRECT_MASK, K, block_k, split_k, pid_k)
                assert problem is None, problem


@pytest.mark.parametrize("block_k", BLOCK_KS[1:])
def test_fixer_mask_with_split_k(block_k: int) -> None:
    for K in range(32, 2048 + 1, 32):
        for split_k in (2, 3):
            for pid_k in range(split_k):
                problem = lane_mismatch(fixer_mask(), K, block_k, split_k, pid_k)
                assert problem is None, f"{problem}; mask {fixer_mask()}"


def test_lane_order_mask_drops_real_scales() -> None:
    """What the fixer wrote before it followed the helper: right for an even count of scale columns,
    wrong for K = 32 (mod 64). Keeps the lane simulation honest: it tells the two masks apart."""
    assert lane_mismatch(LANE_ORDER_MASK, 2880, 128) is None
    assert "drops real lanes [32, 33, 36, 37" in (lane_mismatch(LANE_ORDER_MASK, 2848, 128) or "")


def test_upstream_mask_shares_the_flaw() -> None:
    upstream = "(offs_k_scale // 32) * MX_PACK_DIVISOR < k"
    assert lane_mismatch(upstream, 2880, 128) is None
    assert "drops real lanes [32, 33, 36, 37" in (lane_mismatch(upstream, 2848, 128) or "")


def test_unmasked_original_reads_past_the_end() -> None:
    """The seed bug: at K=2880, BLOCK_K=128 the last tile (k=64) reads 64 lanes past the 2880-lane row."""
    problem = lane_mismatch("offs_k_scale >= 0", 2880, 128)
    assert problem is not None and "tile k=64" in problem and "out-of-bounds lanes [64, 65" in problem


@pytest.mark.parametrize("num_warps", [4, 8])
def test_simulation_closed_form(num_warps: int) -> None:
    for kcols in (1, 2, 3, 89, 90, 255, 256):
        col = swizzle_scale_columns(kcols, 300, num_warps)
        p = np.arange(col.shape[0])
        closed = 2 * (p // 64) + (p // 2) % 2
        assert col.shape == (32 * (kcols + kcols % 2), -(-300 // (32 * num_warps)) * num_warps)
        real = col >= 0  # pad: the odd-count pad column, and N rows past 300
        assert (col == closed[:, None])[real].all()
        assert np.array_equal(col[:, 0] >= 0, closed < kcols)  # swizzled row 0: 32 real N rows


def test_simulation_matches_triton_kernels() -> None:
    """Cross-check against the real host swizzle when torch and a triton_kernels tree are at hand."""
    third_party = Path(os.environ.get("TRITONLINT_VLLM_THIRD_PARTY", "/work/corpus/vllm/vllm/third_party"))
    if not (third_party / "triton_kernels").is_dir():
        pytest.skip("no triton_kernels tree (set TRITONLINT_VLLM_THIRD_PARTY)")
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    sys.path.insert(0, str(third_party))
    try:
        from triton_kernels.tensor_details.layout_details.hopper_scale import HopperMXScaleLayout
    finally:
        sys.path.remove(str(third_party))
    for kcols in (1, 2, 3, 89, 90):
        for nrows in (256, 300):
            src = torch.arange(1, kcols + 1, dtype=torch.int32)[None, :, None].expand(1, kcols, nrows).contiguous()
            real = HopperMXScaleLayout((1, kcols, nrows), mx_axis=1, num_warps=NUM_WARPS).swizzle_data(src)[0]
            assert np.array_equal(real.numpy() - 1, swizzle_scale_columns(kcols, nrows)), (kcols, nrows)
