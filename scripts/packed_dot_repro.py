"""Minimal reproduction: a `tl.dot` fed by `join`/`permute`/`reshape` of an int4 unpacking, on this device.

Each kernel unpacks a (BLOCK_K // 2, BLOCK_N) tile of bytes (low nibble first along K) into a
(BLOCK_K, BLOCK_N) float tile and stores `tl.dot(eye, b)` (an identity: exact in TF32 and IEEE for
these small integers), or `b` itself. For every block shape, warp count and variant it prints
whether the result equals the torch unpacking:

    TRITON_INTERPRET=1 python scripts/packed_dot_repro.py   # the interpreter: all equal
    python scripts/packed_dot_repro.py                       # the GPU

Variants: `store` (no dot), `dot` (tf32, as the fixture), `dot_ieee`, `dot_fp16` (operands cast
to fp16), `shift_dot` (each K row reads its own byte and shifts its nibble out: no reordering op),
`interleave_dot` (`tl.interleave` on the transposed halves).
"""

from __future__ import annotations

import itertools
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def _unpack(w_ptr, stride_wk, BLOCK_K: tl.constexpr, BLOCK_N: tl.constexpr, HOW: tl.constexpr):
    offs_kp = tl.arange(0, BLOCK_K // 2)
    offs_k = tl.arange(0, BLOCK_K)
    offs_n = tl.arange(0, BLOCK_N)
    if HOW == "shift":
        w = tl.load(w_ptr + (offs_k[:, None] // 2) * stride_wk + offs_n[None, :])
        b = ((w >> ((offs_k[:, None] % 2) * 4)) & 0xF).to(tl.float32) - 8.0
    else:
        w = tl.load(w_ptr + offs_kp[:, None] * stride_wk + offs_n[None, :])
        lo = (w & 0xF).to(tl.float32) - 8.0
        hi = (w >> 4).to(tl.float32) - 8.0
        if HOW == "interleave":
            b = tl.trans(tl.interleave(tl.trans(lo), tl.trans(hi)))
        else:
            b = tl.reshape(tl.join(lo, hi).permute(0, 2, 1), (BLOCK_K, BLOCK_N))
    return b


@triton.jit
def unpack_kernel(w_ptr, out_ptr, eye_ptr, stride_wk, BLOCK_K: tl.constexpr, BLOCK_N: tl.constexpr,
                  HOW: tl.constexpr, DOT: tl.constexpr, PRECISION: tl.constexpr, FP16: tl.constexpr):
    offs_k = tl.arange(0, BLOCK_K)
    offs_n = tl.arange(0, BLOCK_N)
    b = _unpack(w_ptr, stride_wk, BLOCK_K, BLOCK_N, HOW)
    if DOT:
        eye = tl.load(eye_ptr + offs_k[:, None] * BLOCK_K + offs_k[None, :])
        if FP16:
            b = tl.dot(eye.to(tl.float16), b.to(tl.float16))
        else:
            b = tl.dot(eye, b, input_precision=PRECISION)
    tl.store(out_ptr + offs_k[:, None] * BLOCK_N + offs_n[None, :], b)


VARIANTS = {
    "store": dict(HOW="join", DOT=False, PRECISION="tf32", FP16=False),
    "dot": dict(HOW="join", DOT=True, PRECISION="tf32", FP16=False),
    "dot_ieee": dict(HOW="join", DOT=True, PRECISION="ieee", FP16=False),
    "dot_fp16": dict(HOW="join", DOT=True, PRECISION="tf32", FP16=True),
    "interleave_dot": dict(HOW="interleave", DOT=True, PRECISION="tf32", FP16=False),
    "shift_dot": dict(HOW="shift", DOT=True, PRECISION="tf32", FP16=False),
}


def run(device: str) -> int:
    wrong = 0
    for block_k, block_n, warps in itertools.product((16, 32, 64), (16, 32, 64), (1, 4)):
        torch.manual_seed(0)
        q = torch.randint(0, 16, (block_k, block_n), dtype=torch.int32, device=device)
        w = (q[0::2] | (q[1::2] << 4)).to(torch.uint8)
        want = q.to(torch.float32) - 8.0
        eye = torch.eye(block_k, device=device)
        row = []
        for name, consts in VARIANTS.items():
            out = torch.empty(block_k, block_n, device=device)
            try:
                unpack_kernel[(1,)](w, out, eye, w.stride(0), BLOCK_K=block_k, BLOCK_N=block_n,
                                    num_warps=warps, **consts)
                ok = torch.equal(out.float(), want)
                row.append(f"{name}={'ok' if ok else 'WRONG'}")
                wrong += not ok
            except Exception as error:  # noqa: BLE001 - a shape that does not compile is a result
                row.append(f"{name}=error({type(error).__name__})")
        print(f"BLOCK_K={block_k:<3} BLOCK_N={block_n:<3} warps={warps}: " + " ".join(row), flush=True)
    print(f"wrong results: {wrong}")
    fixture_blocks(device)
    return 0


def fixture_blocks(device: str) -> None:
    """The fixture's own kernels on its harness's inputs, per block shape, against the reference."""
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures" / "insufficient-mask"))
    import packed_k_units as m
    import packed_k_units_harness as h

    for even in (True, False):
        a, q, w = h._inputs(device, even)
        (M, K), N = a.shape, w.shape[1]
        ref = a @ (q.to(torch.float32) - 8.0)
        for bm, bn, bk in ((16, 16, 16), (16, 32, 16), (32, 32, 16), (16, 16, 32), (32, 32, 32), (64, 32, 16)):
            errs = []
            for kernel in (m.matmul_packed_k_units, m.matmul_packed_k):
                c = torch.zeros(M, N, device=device)
                kernel[(triton.cdiv(M, bm), triton.cdiv(N, bn))](a, w, c, M, N, K, a.stride(0), w.stride(0),
                                                                 c.stride(0), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk)
                errs.append(f"{kernel.__name__} {float((c - ref).abs().max() / ref.abs().max()):.4%}")
            print(f"fixture K={K} BLOCK_M={bm} BLOCK_N={bn} BLOCK_K={bk}: " + ", ".join(errs), flush=True)


if __name__ == "__main__":
    import os

    sys.exit(run("cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"))
