"""Which int4 unpacking puts the rows where packed_k_units' reference expects them, on this device.

The fixture `fixtures/insufficient-mask/packed_k_units.py` unpacks a tile of bytes (two 4-bit
values a byte, low nibble first along K) with `tl.reshape(tl.join(lo, hi).permute(0, 2, 1),
(BLOCK_K, BLOCK_N))`. The CPU interpreter matches the harness's reference; on an H200 both the
original and the fixed kernel were about 90 % of max|ref| off it. A misplaced K row gives that size
of error (about 100 % here), TF32 in `tl.dot` gives about 0.03 %, so this prints, for the unpacking
alone, then fed to `tl.dot` (times an identity), whether each row lands where the reference puts it:

    TRITON_INTERPRET=1 python scripts/packed_unpack_order.py cpu
    python scripts/packed_unpack_order.py cuda

and, last, the fixture's own harness against its reference.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch
import triton
import triton.language as tl

BLOCK_K, BLOCK_N = 16, 16


@triton.jit
def unpack_join_permute(w_ptr, b_ptr, stride_wk, BLOCK_K: tl.constexpr, BLOCK_N: tl.constexpr):
    offs_kp = tl.arange(0, BLOCK_K // 2)
    offs_k = tl.arange(0, BLOCK_K)
    offs_n = tl.arange(0, BLOCK_N)
    w = tl.load(w_ptr + offs_kp[:, None] * stride_wk + offs_n[None, :])
    lo = (w & 0xF).to(tl.float32) - 8.0
    hi = (w >> 4).to(tl.float32) - 8.0
    b = tl.reshape(tl.join(lo, hi).permute(0, 2, 1), (BLOCK_K, BLOCK_N))
    tl.store(b_ptr + offs_k[:, None] * BLOCK_N + offs_n[None, :], b)


@triton.jit
def unpack_join_permute_dot(w_ptr, b_ptr, stride_wk, eye_ptr, BLOCK_K: tl.constexpr, BLOCK_N: tl.constexpr):
    # The same unpacking fed to tl.dot as the fixture does, times an identity (exact in TF32).
    offs_kp = tl.arange(0, BLOCK_K // 2)
    offs_k = tl.arange(0, BLOCK_K)
    offs_n = tl.arange(0, BLOCK_N)
    w = tl.load(w_ptr + offs_kp[:, None] * stride_wk + offs_n[None, :])
    lo = (w & 0xF).to(tl.float32) - 8.0
    hi = (w >> 4).to(tl.float32) - 8.0
    b = tl.reshape(tl.join(lo, hi).permute(0, 2, 1), (BLOCK_K, BLOCK_N))
    eye = tl.load(eye_ptr + offs_k[:, None] * BLOCK_K + offs_k[None, :])
    tl.store(b_ptr + offs_k[:, None] * BLOCK_N + offs_n[None, :], tl.dot(eye, b))


@triton.jit
def unpack_shift(w_ptr, b_ptr, stride_wk, BLOCK_K: tl.constexpr, BLOCK_N: tl.constexpr):
    # Each unpacked row reads its own byte row and shifts its own nibble out: no reordering op.
    offs_k = tl.arange(0, BLOCK_K)
    offs_n = tl.arange(0, BLOCK_N)
    w = tl.load(w_ptr + (offs_k[:, None] // 2) * stride_wk + offs_n[None, :])
    b = ((w >> ((offs_k[:, None] % 2) * 4)) & 0xF).to(tl.float32) - 8.0
    tl.store(b_ptr + offs_k[:, None] * BLOCK_N + offs_n[None, :], b)


def main(device: str) -> int:
    torch.manual_seed(0)
    q = torch.randint(0, 16, (BLOCK_K, BLOCK_N), dtype=torch.int32, device=device)
    w = (q[0::2] | (q[1::2] << 4)).to(torch.uint8)
    want = q.to(torch.float32) - 8.0
    eye = torch.eye(BLOCK_K, device=device)
    for kernel, extra in ((unpack_join_permute, ()), (unpack_join_permute_dot, (eye,)), (unpack_shift, ())):
        b = torch.empty(BLOCK_K, BLOCK_N, device=device)
        kernel[(1,)](w, b, w.stride(0), *extra, BLOCK_K=BLOCK_K, BLOCK_N=BLOCK_N)
        rows = [r for r in range(BLOCK_K) if not torch.equal(b[r], want[r])]
        found = {r: next((s for s in range(BLOCK_K) if torch.equal(b[r], want[s])), None) for r in rows}
        print(f"{kernel.fn.__name__}: rows as the reference expects: {'yes' if not rows else 'no'}"
              + (f"; row -> reference row holding its values: {found}" if rows else ""))
    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "insufficient-mask"
    sys.path.insert(0, str(fixture))
    import packed_k_units_harness as h

    out, ref = h.run(device), h.reference(device)
    for key in sorted(out):
        err = float((out[key] - ref[key]).abs().max() / ref[key].abs().max())
        print(f"packed_k_units harness, {key}: max |out - ref| = {err:.4%} of max |ref|")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "cuda"))
