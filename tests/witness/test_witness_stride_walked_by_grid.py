"""A row length passed where the kernel takes a stride (`stride`), while the launch's grid walks that same
value in tiles (`cdiv(width, tile)` beside `width` passed as `stride`): it is a size too, made partial
like any, and still lays the rows out.

Before: a stride parameter was never made partial; the witness tried the other sizes only, with a
stride of whole tiles, and the unmasked columns stayed in bounds (fixture loop_counter_derived's
gather_while)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.witness.witness_cli import witness_json

SRC = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def pick_rows(n_out, table, picks, dst, stride, TILE: tl.constexpr):
        part = tl.program_id(0)
        lanes = tl.arange(0, TILE)
        i = tl.program_id(1)
        while i < n_out:
            r = tl.load(picks + i)
            v = tl.load(table + r * stride + part * TILE + lanes)
            tl.store(dst + i * stride + part * TILE + lanes, v)
            i += tl.num_programs(1)


    def pick(table, picks, dst):
        width = table.shape[1]
        tile = min(triton.next_power_of_2(width), 512)
        pick_rows[(triton.cdiv(width, tile), min(dst.shape[0], 512))](dst.shape[0], table, picks, dst, width, TILE=tile)
""")


def test_a_row_length_the_grid_walks_is_made_partial(tmp_path: Path) -> None:
    path = tmp_path / "double.py"
    path.write_text(SRC)
    found = {d["line"]: d["witness"] for d in witness_json(path, "--select", "ALL", "--jobs", "1")
             if d["code"] in ("TL101", "TL102")}
    assert found, "the unmasked columns are findings"
    for line, w in found.items():
        assert w["status"] == "confirmed", (line, w["reason"])
        assert w["launch"]["axis"] == "stride", (line, w["launch"]["label"])
