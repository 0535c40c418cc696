"""Values loaded in the kernel and handed to a jit helper that adds them to its pointer (`_gather(base,
slot * PAGE + offs)`) are indices: their tensor is integer. A float tensor stopped the run with
"invalid operands of type pointer<fp32> and triton.language.float32"."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.witness.witness_line import witness_line

KERNEL = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def _gather(base, where, keep):
        return tl.load(base + where, mask=keep, other=0.0)


    @triton.jit
    def paged_copy(Slots, Cache, Out, length, PAGE: tl.constexpr, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        keep = offs < length
        slot = tl.load(Slots + offs // PAGE)
        tl.store(Out + offs, _gather(Cache, slot * PAGE + offs % PAGE, keep), mask=keep)
""")


def test_a_load_handed_to_a_helper_as_offsets_is_integer(tmp_path: Path) -> None:
    path = tmp_path / "paged_copy.py"
    path.write_text(KERNEL)
    w = witness_line(path, 14, "TL101")
    assert w.status == "confirmed", w.reason  # `error` before: a float32 slot added to a pointer
    slots = next(a for a in (w.launch or {})["args"] if a["name"] == "Slots")
    assert slots["dtype"].startswith("int"), slots
