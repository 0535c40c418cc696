"""Tile indices computed from one program id (a `GROUP_M` swizzle: `pid_m = first_pid_m + (pid %
num_pid_in_group) % group_size_m`, `pid_n = ... // group_size_m`): the grid along that axis holds a
program per tile of M times a program per tile of N, so the partial tile past whole ones is launched.

Before: the axis was read as rows (two programs), both landing in whole tiles of the first group, so
`M = 2 * 16 + 8` ran in bounds; only the single-tile candidate (`M = 8`) could confirm."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

from tritonlint.config import check_selectors, load_config
from tritonlint.witness import analysis
from tritonlint.witness.extract import extract
from tritonlint.witness.runner import witness
from tritonlint.witness.uses import Uses

GROUPED = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def swizzled_rows(X, Y, R, C, stride_r, GROUP: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
        pid = tl.program_id(0)
        tiles_r = tl.cdiv(R, BLOCK_R)
        tiles_c = tl.cdiv(C, BLOCK_C)
        per_group = GROUP * tiles_c
        first_r = (pid // per_group) * GROUP
        rows_in_group = min(tiles_r - first_r, GROUP)
        tile_r = first_r + (pid % per_group) % rows_in_group
        tile_c = (pid % per_group) // rows_in_group
        rows = tile_r * BLOCK_R + tl.arange(0, BLOCK_R)
        cols = tile_c * BLOCK_C + tl.arange(0, BLOCK_C)
        x = tl.load(X + rows[:, None] * stride_r + cols[None, :], mask=cols[None, :] < C)
        tl.store(Y + rows[:, None] * stride_r + cols[None, :], x * 2.0, mask=(rows[:, None] < R) & (cols[None, :] < C))
""")


def test_tile_indices_of_one_program_id_are_read_per_size() -> None:
    extracted = extract(Path("swizzled.py"), GROUPED, "swizzled_rows")
    uses = Uses(extracted.kernel, extracted.helpers)
    assert uses.tile_indices({"R", "C"}) == {0: {"R": "BLOCK_R", "C": "BLOCK_C"}}


def test_the_partial_tile_past_whole_ones_is_launched(tmp_path: Path) -> None:
    path = tmp_path / "swizzled.py"
    path.write_text(GROUPED)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, _errors = analysis.check_paths([str(path)], config)
    checked = files[0]
    d = next(d for d in checked.diagnostics if d.line == 17)
    w = witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags,
                analysis.fixed_text(checked.text, d), timeout=120)
    assert w.status == "confirmed", w.reason
    assert w.evidence is not None and w.evidence["tensor"] == "X"
    launch = w.launch or {}
    # The first candidate, R two whole tiles and a half: 3 row tiles times the column tiles.
    r, c = launch["sizes"]["R"], launch["sizes"]["C"]
    assert r % 16 == 8 and r > 16
    assert launch["grid"] == [(-(-r // 16)) * (-(-c // 16))]
