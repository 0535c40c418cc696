"""A load masked by a local that one constexpr branch sets to None (`else: mask = None`, beside a pointer
defined on both branches): the launch takes that branch, where the load is unmasked, and the tensor is
laid out by that branch's pointer, not by the first definition written.

Before: the first definition's branch was taken (masked there), or, taken the other way, the tensor
was still sized by the first definition's rows and the tail stayed inside it (fixture
layout_switch_flag)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.witness.witness_cli import witness_json

SRC = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def add_shift(x_ptr, s_ptr, y_ptr, L, group_stride, BLOCK: tl.constexpr, GROUPED: tl.constexpr):
        g = tl.program_id(1)
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        if GROUPED:
            s_ptrs = s_ptr + g * group_stride + offs
            keep = offs < L
        else:
            s_ptrs = s_ptr + offs
            keep = None
        s = tl.load(s_ptrs, mask=keep)
        x = tl.load(x_ptr + g * L + offs, mask=offs < L)
        tl.store(y_ptr + g * L + offs, x + s, mask=offs < L)
""")


def test_the_branch_where_the_mask_is_none_is_taken(tmp_path: Path) -> None:
    path = tmp_path / "add_shift.py"
    path.write_text(SRC)
    found = {d["line"]: d["witness"] for d in witness_json(path, "--select", "ALL", "--jobs", "1")}
    assert 15 in found, sorted(found)
    w = found[15]
    assert w["status"] == "confirmed", w["reason"]
    assert "past the end of `s_ptr`" in w["reason"], w["reason"]
