"""A row length passed where the kernel takes a stride (`stride_row`), while the launch's grid walks that
same value in tiles (`cdiv(width, block)` beside `width` passed as `stride_row`): it is a size too, made
partial like any, and still lays the rows out.

Before: a stride parameter was never made partial; the witness tried the other sizes only, and the
columns overran only where the stride it guessed happened not to be whole tiles (here by chance; in
fixture loop_counter_derived's gather_while never)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.witness.witness_cli import witness_json

SRC = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def double_cols(x, rows, y, n_rows, stride_row, BLOCK: tl.constexpr):
        cb = tl.program_id(0)
        cols = cb * BLOCK + tl.arange(0, BLOCK)
        for r in range(tl.program_id(1), n_rows, tl.num_programs(1)):
            src = tl.load(rows + r)
            v = tl.load(x + src * stride_row + cols)
            tl.store(y + r * stride_row + cols, v * 2.0)


    def double(x, rows, y):
        n_rows, width = x.shape
        block = 32
        double_cols[(triton.cdiv(width, block), min(n_rows, 64))](x, rows, y, n_rows, width, BLOCK=block)
""")


def test_a_row_length_the_grid_walks_is_made_partial(tmp_path: Path) -> None:
    path = tmp_path / "double.py"
    path.write_text(SRC)
    found = {d["line"]: d["witness"] for d in witness_json(path, "--select", "ALL", "--jobs", "1")
             if d["code"] in ("TL101", "TL102")}
    assert found, "the unmasked columns are findings"
    for line, w in found.items():
        assert w["status"] == "confirmed", (line, w["reason"])
        assert w["launch"]["axis"] == "stride_row", (line, w["launch"]["label"])
