"""Per-group scales walked beside their data (`offs_s = tl.arange(0, BLOCK_K // 32)`, advanced by
`(BLOCK_K // 32) * stride_sk` in the loop over K in tiles of BLOCK_K): the scale buffer holds K // 32
per row, and the finding's axis K is made partial against BLOCK_K, the tile its loop walks.

Before: the scales were sized one tile (the advance was not read through the `// 32`), and K was made
partial against a default tile of 16, so every launch overran at full tiles too."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

from tritonlint.config import check_selectors, load_config
from tritonlint.witness import analysis
from tritonlint.witness.runner import witness

SCALED = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def scaled_rows(x_ptr, s_ptr, out_ptr, M, K, stride_xm, stride_sm, BLOCK_M: tl.constexpr,
                    BLOCK_K: tl.constexpr = 128):
        offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_k = tl.arange(0, BLOCK_K)
        offs_s = tl.arange(0, BLOCK_K // 32)
        x_ptrs = x_ptr + offs_m[:, None] * stride_xm + offs_k[None, :]
        s_ptrs = s_ptr + offs_m[:, None] * stride_sm + offs_s[None, :]
        acc = tl.zeros((BLOCK_M,), dtype=tl.float32)
        for _ in range(0, tl.cdiv(K, BLOCK_K)):
            x = tl.load(x_ptrs, mask=offs_m[:, None] < M, other=0.0)
            s = tl.load(s_ptrs, mask=offs_m[:, None] < M, other=0.0)
            acc += tl.sum(x, 1) * tl.sum(s, 1)
            x_ptrs += BLOCK_K
            s_ptrs += BLOCK_K // 32
        tl.store(out_ptr + offs_m, acc, mask=offs_m < M)
""")


def test_the_scales_run_past_their_k_over_32(tmp_path: Path) -> None:
    path = tmp_path / "scaled.py"
    path.write_text(SCALED)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, _errors = analysis.check_paths([str(path)], config)
    checked = files[0]
    d = next(d for d in checked.diagnostics if d.line == 16)
    w = witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags,
                analysis.fixed_text(checked.text, d), timeout=120)
    assert w.status == "confirmed", w.reason
    assert w.evidence is not None and w.evidence["tensor"] == "s_ptr"
    k = (w.launch or {})["sizes"]["K"]
    assert k % 128 == 64  # partial against BLOCK_K, the tile the loop walks
