"""TL104 where the pointer's offsets are not those the mask reads: offsets moved by a start the kernel
is given (`pos = offs + start`, the mask on `offs < n`, another load bounding `pos < total`), and packed
bytes masked with the element count (`offs_b < K - k * BLOCK_K` on rows of K // 2 bytes).

Before, the buffers were sized by the mask under suspicion (X held `n`, W held K rows) and the start
was as large as a size, so every launch, at full tiles too, overran or none did."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from tests.witness.witness_line import witness_line
from tritonlint.witness.shift_sizes import shift_only_sizes

SHIFTED = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def window_add(src, bias, dst, n, total, start, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        keep = offs < n
        pos = offs + start
        a = tl.load(src + pos, mask=keep, other=0.0)
        b = tl.load(bias + pos, mask=keep & (pos < total), other=0.0)
        tl.store(dst + offs, a + b, mask=keep)


    def add_window(src, bias, dst, start, BLOCK=16):
        n = dst.numel()
        window_add[(triton.cdiv(n, BLOCK),)](src, bias, dst, n, src.numel(), start, BLOCK=BLOCK)
""")

PACKED = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def nibble_gemv(x_ptr, q_ptr, y_ptr, N, K, stride_qk, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
        offs_n = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_k = tl.arange(0, BLOCK_K)
        offs_b = tl.arange(0, BLOCK_K // 2)
        x_ptrs = x_ptr + offs_k
        q_ptrs = q_ptr + offs_b[:, None] * stride_qk + offs_n[None, :]
        acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            x = tl.load(x_ptrs, mask=offs_k < K - k * BLOCK_K, other=0.0)
            q = tl.load(q_ptrs, mask=(offs_b[:, None] < K - k * BLOCK_K) & (offs_n[None, :] < N), other=0)
            lo = (q & 0xF).to(tl.float32)
            hi = (q >> 4).to(tl.float32)
            w = tl.reshape(tl.join(lo, hi).permute(0, 2, 1), (BLOCK_K, BLOCK_N))
            acc += tl.sum(x[:, None] * w, axis=0)
            x_ptrs += BLOCK_K
            q_ptrs += (BLOCK_K // 2) * stride_qk
        tl.store(y_ptr + offs_n, acc, mask=offs_n < N)
""")


def test_offsets_moved_by_a_start_overrun_the_buffer_their_own_bound_names(tmp_path: Path) -> None:
    path = tmp_path / "window_add.py"
    path.write_text(SHIFTED)
    w = witness_line(path, 10, "TL104")
    assert w.status == "confirmed", w.reason  # not-reproduced before: out of bounds at full tiles too
    assert "past the end of `src`" in w.reason
    assert w.validation is not None and w.validation["status"] == "validated", w.validation


def test_a_size_only_added_to_offsets_is_a_start() -> None:
    fn = ast.parse(SHIFTED).body[2]
    assert isinstance(fn, ast.FunctionDef)
    assert shift_only_sizes(fn, {"n", "total", "start"}) == {"start"}


def test_packed_rows_masked_with_the_element_count_are_confirmed(tmp_path: Path) -> None:
    path = tmp_path / "nibble_gemv.py"
    path.write_text(PACKED)
    w = witness_line(path, 15, "TL104")
    assert w.status == "confirmed", w.reason  # stayed in bounds before: q held K rows, as the mask says
    assert "past the end of `q_ptr`" in w.reason
