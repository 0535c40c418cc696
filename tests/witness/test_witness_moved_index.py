"""A value loaded and added in place to an index (`pos += base`, then `Out + pos`) is an index too: its
tensor is integer. A float tensor stopped the run ("invalid operands of type pointer<fp32> and
triton.language.float32")."""

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
    def scatter_after_base(Pos, Base, Src, Out, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        pos = tl.load(Pos + offs)
        base = tl.load(Base + tl.program_id(0))
        pos += base
        vals = tl.load(Src + offs, mask=offs < n, other=0.0)
        tl.store(Out + pos, vals, mask=offs < n)
""")


def test_a_load_added_in_place_to_an_index_is_integer(tmp_path: Path) -> None:
    path = tmp_path / "scatter_after_base.py"
    path.write_text(KERNEL)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    checked = analysis.check_paths([str(path)], config)[0][0]
    d = next(d for d in checked.diagnostics if d.line == 8 and d.code == "TL101")
    w = witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags, None, timeout=120)
    base = next(a for a in (w.launch or {})["args"] if a["name"] == "Base")
    assert base["dtype"].startswith("int"), (base, w.reason)
    assert w.status != "error", w.reason  # the pointer plus a float stopped the run before
