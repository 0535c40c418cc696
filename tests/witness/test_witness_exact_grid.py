"""A launch whose grid divides its axis exactly (`total // block` programs): the programs cover whole
tiles only, so the witness launches `size // tile` of them on that axis, never a partial last one.

Before: the grid was rounded up, and an unmasked store of an exactly launched kernel (the tile's rows
bounded elsewhere by a sibling's mask, `rows < V`) was falsely confirmed past a buffer sized by V."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

from tritonlint.config import check_selectors, load_config
from tritonlint.diagnostics import Diagnostic
from tritonlint.witness import analysis
from tritonlint.witness.runner import witness

SRC = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def head_rows(src_ptr, dst_ptr, V: tl.constexpr, D: tl.constexpr, BR: tl.constexpr):
        rows = tl.program_id(0) * BR + tl.arange(0, BR)
        cols = tl.arange(0, D)
        head = rows < V
        x = tl.load(src_ptr + rows[:, None] * D + cols[None, :], mask=head[:, None], other=0.0)
        tl.store(dst_ptr + rows[:, None] * D + cols[None, :], x * 3.0)


    def run(src, v, d):
        total = v + d
        dst = torch.empty(total, d, device=src.device)
        br = 16
        head_rows[(total // br,)](src, dst, V=v, D=d, BR=br)
        return dst
""")


def test_an_exact_grid_launches_whole_tiles_only(tmp_path: Path) -> None:
    path = tmp_path / "heads.py"
    path.write_text(SRC)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, _errors = analysis.check_paths([str(path)], config)
    checked = files[0] if files else analysis.CheckedFile(path, str(path), SRC, (), {}, {})
    assert not checked.diagnostics  # the exact grid: the checker reports nothing
    files_launches = checked.launches
    if not files_launches:  # the checker keeps launches only for files with findings: read them here
        from tritonlint.engine import find_file_launches
        from tritonlint.source.outline import outline

        files_launches = find_file_launches(str(path), SRC, outline(SRC), list)
    store = Diagnostic("TL102", "look-alike", "tl.store (not reported)", str(path), 12, 4, 12, 4)
    w = witness(path, str(path), SRC, store, files_launches, {}, None, timeout=120)
    assert w.status != "confirmed", w.reason
