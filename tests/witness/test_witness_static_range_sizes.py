"""A constexpr that ends a `tl.static_range(0, H, BLOCK_H)` is a size, made partial like one.

Before: every argument of `static_range` was read as a tile, so `H` took a guessed tile (16, a whole
number of BLOCK_H) and the synthesizer made another size partial (`n_rows`, first in order): the
tail of the unrolled walk over H never ran (sglang `attn_residual.py`)."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

from tritonlint.config import check_selectors, load_config
from tritonlint.witness import analysis
from tritonlint.witness.extract import extract
from tritonlint.witness.runner import witness
from tritonlint.witness.uses import Uses

SCORE = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def row_scores(x_ptr, w_ptr, out_ptr, n_rows, stride_x, H: tl.constexpr, BLOCK_H: tl.constexpr):
        row = tl.program_id(0)
        if row >= n_rows:
            return
        dot = 0.0
        for h0 in tl.static_range(0, H, BLOCK_H):
            offs = h0 + tl.arange(0, BLOCK_H)
            x = tl.load(x_ptr + row * stride_x + offs, mask=offs < H, other=0.0)
            w = tl.load(w_ptr + offs)
            dot += tl.sum(x * w)
        tl.store(out_ptr + row, dot)
""")


def test_the_end_of_a_static_range_is_a_constexpr_size() -> None:
    extracted = extract(Path("score.py"), SCORE, "row_scores")
    assert Uses(extracted.kernel, extracted.helpers).constexpr_sizes() == {"H"}


def test_the_unrolled_tail_is_confirmed(tmp_path: Path) -> None:
    path = tmp_path / "score.py"
    path.write_text(SCORE)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, _errors = analysis.check_paths([str(path)], config)
    checked = files[0]
    line = SCORE.splitlines().index("        w = tl.load(w_ptr + offs)") + 1
    d = next(d for d in checked.diagnostics if d.line == line)
    w = witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags,
                analysis.fixed_text(checked.text, d), timeout=120)
    assert w.status == "confirmed", w.reason
    assert (w.launch or {})["axis"] == "H"
    assert w.evidence is not None and w.evidence["tensor"] == "w_ptr"
