"""aphrodite `_mxfp8_linear_kernel` (rocm_native.py:67, :68: the K loop's fp8 operand loads).

What the host keeps (`_mxfp8_dot_scaled_linear`): `x_q` `[M, K]` and `w` `[N, K]` fp8 e4m3 with e8m0
scales `[M, K // 32]`, `[N, K // 32]` (uint8), `out` `[M, N]`, every stride passed from the tensors,
`tl.dot_scaled(x, xs, "e4m3", w.T, ws, "e4m3")` (emulated under the interpreter). The candidate
takes `K = 96` under `BLOCK_K = 64` (a partial last K tile); the control `K = 128`.

The rows are laid out padded (row length 128 for the operands, 4 for the scales, the padding zero):
the last K tile's lanes past `K` then read zeros inside the allocation, exactly what the fix's
`other=0` gives them, so the original's outputs are the reference a correct fix must equal. (With
rows of exactly `K`, those lanes read the next row's values, which no fix should reproduce.)
"""

from __future__ import annotations

from tritonlint.witness.synth import Arg, Launch

FILE = "aphrodite-engine/aphrodite/model_executor/kernels/linear/mxfp8/rocm_native.py"
KERNEL = "_mxfp8_linear_kernel"
LINES = {67, 68}
ROW, SCALE_ROW = 128, 4


def _launch(k: int, label: str) -> Launch:
    m = n = 32
    args = [
        Arg("x_ptr", "tensor", numel=m * ROW, dtype="float8_e4m3fn", pad=(ROW, k)),
        Arg("xs_ptr", "tensor", numel=m * SCALE_ROW, dtype="uint8", fill="e8m0", pad=(SCALE_ROW, k // 32)),
        Arg("w_ptr", "tensor", numel=n * ROW, dtype="float8_e4m3fn", pad=(ROW, k)),
        Arg("ws_ptr", "tensor", numel=n * SCALE_ROW, dtype="uint8", fill="e8m0", pad=(SCALE_ROW, k // 32)),
        Arg("out_ptr", "tensor", numel=m * n, fill="zeros"),
        Arg("M", "int", value=m), Arg("N", "int", value=n), Arg("K", "int", value=k),
        Arg("stride_xm", "int", value=ROW), Arg("stride_xk", "int", value=1),
        Arg("stride_xsm", "int", value=SCALE_ROW), Arg("stride_xsk", "int", value=1),
        Arg("stride_wn", "int", value=ROW), Arg("stride_wk", "int", value=1),
        Arg("stride_wsn", "int", value=SCALE_ROW), Arg("stride_wsk", "int", value=1),
        Arg("stride_om", "int", value=n), Arg("stride_on", "int", value=1),
        Arg("BLOCK_M", "constexpr", value=16), Arg("BLOCK_N", "constexpr", value=16),
        Arg("BLOCK_K", "constexpr", value=64),
    ]
    return Launch(KERNEL, args, [2, 2], "K", {"M": m, "N": n, "K": k}, label)


def pairs() -> list[tuple[Launch, Launch]]:
    return [(_launch(96, "K=96 (BLOCK_K=64), padded rows"), _launch(128, "K=128"))]
