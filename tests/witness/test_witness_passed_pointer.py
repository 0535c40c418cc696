"""A pointer handed to a jit helper that stores at it as it is (through a helper of the helper) is sized
from the caller's expression (`Out + offs`, bounded by `n`): it was sized with no dimension (one
element), so every launch, full tiles too, ran out of bounds and proved nothing."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.witness.witness_line import witness_line

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
    w = witness_line(path, 7, "TL104")
    assert w.status == "confirmed", w.reason  # "out of bounds at full tiles too" before
    out = next(a for a in (w.launch or {})["args"] if a["name"] == "Out")
    assert out["numel"] == (w.launch or {})["sizes"]["n"], out
