"""Rows of a literal length (`index * 8 + 7`): the synthesized buffer holds whole rows, so the full-tile
control stays in bounds and the partial tile's overrun is what the witness shows."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

from tritonlint.config import check_selectors, load_config
from tritonlint.witness import analysis
from tritonlint.witness.runner import witness

ROWS = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def rows_of_eight(W, Out, total, TILES: tl.constexpr):
        index = tl.program_id(0) * TILES + tl.arange(0, TILES)
        live = index < total
        head = tl.load(W + index * 8 + 7, live, 0)
        body = tl.load(W + (index * 8)[:, None] + tl.arange(0, 4)[None, :])
        tl.store(Out + index, head + tl.sum(body, 1), live)
""")


def test_rows_of_a_literal_length_are_laid_out_whole(tmp_path: Path) -> None:
    path = tmp_path / "rows.py"
    path.write_text(ROWS)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, _errors = analysis.check_paths([str(path)], config)
    checked = files[0]
    d = next(d for d in checked.diagnostics if d.line == 10)
    w = witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags,
                analysis.fixed_text(checked.text, d), timeout=120)
    # Before: W held `total` elements, read as unit stride, and the control ran past it too.
    assert w.status == "confirmed", w.reason
    assert w.evidence is not None and w.evidence["tensor"] == "W"
    assert w.validation is not None and w.validation["status"] == "validated", w.validation
