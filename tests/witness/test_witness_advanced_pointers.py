"""Pointers a K loop advances by a tile each step (`for k in range(cdiv(K, BLOCK_K)): ...; a_ptrs += BLOCK_K`)
with no mask naming K: the tile's offsets walk all of K, so each row of the buffer holds K elements.

Before: the offsets were sized by their tile alone (a row of BLOCK_K), the loop ran past it at full
tiles too, and the witness rejected every launch as not matching the kernel's indexing."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

import pytest

from tritonlint.config import check_selectors, load_config
from tritonlint.witness import analysis
from tritonlint.witness.runner import witness

ROW_DOT = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def row_dot(A, W, Out, K, stride_am, BLOCK_K: tl.constexpr):
        row = tl.program_id(0)
        offs_k = tl.arange(0, BLOCK_K)
        a_ptrs = A + row * stride_am + offs_k
        w_ptrs = W + offs_k
        acc = tl.zeros([BLOCK_K], dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            a = tl.load(a_ptrs)
            w = tl.load(w_ptrs)
            acc += a * w
            a_ptrs += BLOCK_K
            w_ptrs += BLOCK_K
        tl.store(Out + row, tl.sum(acc))
""")


@pytest.mark.parametrize(("line", "tensor"), [(13, "A"), (14, "W")])
def test_advanced_pointers_hold_the_whole_loop(tmp_path: Path, line: int, tensor: str) -> None:
    path = tmp_path / "row_dot.py"
    path.write_text(ROW_DOT)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, _errors = analysis.check_paths([str(path)], config)
    checked = files[0]
    d = next(d for d in checked.diagnostics if d.line == line)
    w = witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags,
                analysis.fixed_text(checked.text, d), timeout=120)
    assert w.status == "confirmed", w.reason
    assert w.evidence is not None and w.evidence["tensor"] == tensor
    args = {a["name"]: a for a in (w.launch or {})["args"]}
    assert args["stride_am"]["value"] == args["K"]["value"]  # rows of K, not of BLOCK_K
    assert w.validation is not None and w.validation["status"] == "validated", w.validation
