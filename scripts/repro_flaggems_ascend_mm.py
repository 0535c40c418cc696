"""Repro: flag-gems 5.0.2, `flag_gems/runtime/backend/_ascend/ops/mm.py`, `mm_kernel`: the A and B
tiles are loaded with a mask on K only (or none, on the `EVEN_K` path), so the last row tile of A
reads past the end of A when M is not a multiple of BLOCK_M (and the last column tile of B past B
when N is not a multiple of BLOCK_N). The host, `mm`, launches it on `cdiv(M, BLOCK_M) *
cdiv(N, BLOCK_N)` programs for any `a.shape`, with `GROUP_M=8` and `EVEN_K = K % BLOCK_K == 0`.

    python scripts/repro_flaggems_ascend_mm.py /work/corpus/flag-gems      # exit 1: the overrun shown

The kernel is cut out of the package's file (never imported; no package code is kept here) and run
under Triton's CPU interpreter with the witness's guard: every lane of every load and store checked
against the exact bounds of its tensor (A: M x K, B: K x N, C: M x N, contiguous, as `mm` allocates).
Each shape is run beside the same launch with whole tiles (M = 48), which stays in bounds.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

from tritonlint.config import check_selectors, load_config
from tritonlint.witness import analysis
from tritonlint.witness.runner import witness_launches
from tritonlint.witness.synth import Arg, Launch

KERNEL_FILE = "flag_gems/runtime/backend/_ascend/ops/mm.py"
BLOCK_M = BLOCK_N = BLOCK_K = 16  # any config: the fault needs only M % BLOCK_M != 0


def launch(m: int, n: int, k: int, label: str) -> Launch:
    grid = [-(-m // BLOCK_M) * -(-n // BLOCK_N)]  # the host's 1-D grid
    args = [Arg("A", "tensor", numel=m * k), Arg("B", "tensor", numel=k * n), Arg("C", "tensor", numel=m * n),
            Arg("M", "int", m), Arg("N", "int", n), Arg("K", "int", k),
            Arg("stride_am", "constexpr", k), Arg("stride_ak", "constexpr", 1),
            Arg("stride_bk", "constexpr", n), Arg("stride_bn", "constexpr", 1),
            Arg("stride_cm", "constexpr", n), Arg("stride_cn", "constexpr", 1),
            Arg("dot_out_dtype", "constexpr", {"dtype": "float32"}),
            Arg("BLOCK_M", "constexpr", BLOCK_M), Arg("BLOCK_N", "constexpr", BLOCK_N),
            Arg("BLOCK_K", "constexpr", BLOCK_K), Arg("GROUP_M", "constexpr", 8),
            Arg("EVEN_K", "constexpr", k % BLOCK_K == 0)]
    return Launch("mm_kernel", args, grid, "M", {"M": m, "N": n, "K": k}, label)


def main(root: str) -> int:
    path = Path(root) / KERNEL_FILE
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, errors = analysis.check_paths([str(path)], config)
    if not files:
        print(f"{path}: no finding ({errors})")
        return 2
    checked = files[0]
    status = 0
    for line, k in ((64, 32), (69, 40)):  # the EVEN_K path (K = 32) and the masked-K path (K = 40)
        finding = next(d for d in checked.diagnostics if d.line == line)
        pairs = [(launch(40, 32, k, f"M=40, N=32, K={k}"), launch(48, 32, k, f"M=48, N=32, K={k}"))]
        w = witness_launches(checked.path, checked.text, finding, pairs, None, timeout=300)
        print(f"{KERNEL_FILE}:{line}: {w.status}: {w.reason}")
        status = max(status, 1 if w.status == "confirmed" else 0)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "/work/corpus/flag-gems"))
