"""A pointer handed to a jit helper that stores at it as it is (through a helper of the helper) is sized
from the caller's expression (`Out + offs`, bounded by `n`): it was sized with no dimension (one
element), so every launch, full tiles too, ran out of bounds and proved nothing."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

from tritonlint.config import check_selectors, load_config
from tritonlint.witness import analysis
from tritonlint.witness.runner import witness

KERNEL = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def put(where, values, keep):
        tl.store(where, values, mask=keep)


    @triton.jit
    def put_row(where, values, keep):
        put(where, values, keep)


    @triton.jit
    def doubled_through_helpers(In, Out, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        v = tl.load(In + offs, mask=offs < n, other=0.0)
        put_row(Out + offs, v * 2.0, offs <= n)
""")


def test_a_pointer_stored_at_as_handed_is_sized_by_its_caller(tmp_path: Path) -> None:
    path = tmp_path / "through_helpers.py"
    path.write_text(KERNEL)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    checked = analysis.check_paths([str(path)], config)[0][0]
    d = next(d for d in checked.diagnostics if d.line == 7 and d.code == "TL104")
    w = witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags,
                analysis.fixed_text(checked.text, d), timeout=120)
    assert w.status == "confirmed", w.reason  # "out of bounds at full tiles too" before
    out = next(a for a in (w.launch or {})["args"] if a["name"] == "Out")
    assert out["numel"] == (w.launch or {})["sizes"]["n"], out
