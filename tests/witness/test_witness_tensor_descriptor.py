"""A kernel that reads through device-side tensor descriptors (`tl.make_tensor_descriptor(base, shape=[M, K],
strides=[K, 1], ...)`) runs under the witness: the descriptor's base is a pointer, its tensor as large as
its shape with a size as the row length. Before, the base was taken for a float ("'float' object has no
attribute 'dtype'") and the kernel never ran."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.witness.witness_line import witness_line

KERNEL = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def rows_plus_bias(x_ptr, bias_ptr, y_ptr, seen_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
        pid_m = tl.program_id(0)
        pid_n = tl.program_id(1)
        x_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
        y_desc = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        x = x_desc.load([pid_m * BLOCK_M, pid_n * BLOCK_N])
        bias = tl.load(bias_ptr + offs_n)
        y_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], x + bias[None, :])
        tl.store(seen_ptr + offs_n, bias, mask=offs_n < N)
""")


def test_a_kernel_with_tensor_descriptors_runs_and_its_tail_load_is_confirmed(tmp_path: Path) -> None:
    path = tmp_path / "descriptors.py"
    path.write_text(KERNEL)
    w = witness_line(path, 13, "TL101")
    assert w.status == "confirmed", w.reason
    x = next(a for a in (w.launch or {})["args"] if a["name"] == "x_ptr")
    sizes = (w.launch or {})["sizes"]
    assert x["kind"] == "tensor" and x["numel"] == sizes["M"] * sizes["N"], (x, sizes)
