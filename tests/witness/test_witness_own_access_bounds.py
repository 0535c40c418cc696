"""Each tensor sized by what the kernel says of the accesses through it, not by a bound another use of
the same offsets carries:

- a `where` that picks values for part of a tile (`tl.where(d < HALF, -v, v)`) says where the part
  is, not where the row ends: the row is the whole tile (fixture block_covers_size_launch's rope_rows);
- a mask that caps an inclusive bound (`(slots <= pos) & (slots < CAP)`) says the tensor holds CAP,
  whatever `slots < pos` says of the history beside it (fixture inclusive_bound's capped_window);
- a loop that advances one pointer through K in tiles walks K on that tensor only: a store of the
  program's own tile after the loop holds one tile (fixture fix_shapes's column_sum).

Before: each of these in-bounds accesses was sized by the other bound and falsely confirmed. The
hazard beside them (an unmasked load inside the advanced loop) is still confirmed."""

from __future__ import annotations

import dataclasses
import textwrap

import pytest

from tritonlint.config import check_selectors, load_config
from tritonlint.diagnostics import Diagnostic
from tritonlint.witness import analysis
from tritonlint.witness.runner import witness

SRC = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def flip_half(x, out, stride, W: tl.constexpr, HALF: tl.constexpr):
        row = tl.program_id(0)
        d = tl.arange(0, W)
        v = tl.load(x + row * stride + d)
        tl.store(out + row * stride + d, tl.where(d < HALF, -v, v))


    @triton.jit
    def window_copy(src_ptr, dst_ptr, last, LIMIT: tl.constexpr, BLOCK: tl.constexpr):
        idx = tl.arange(0, BLOCK)
        h = tl.load(src_ptr + idx, mask=idx < last, other=0.0)
        tl.store(dst_ptr + idx, h, mask=(idx <= last) & (idx < LIMIT))


    @triton.jit
    def row_total(a_ptr, total_ptr, L, stride, TILE: tl.constexpr):
        offs = tl.arange(0, TILE)
        walk = a_ptr + offs[:, None] * stride
        acc = tl.zeros((TILE, 1), dtype=tl.float32)
        for i in range(0, L, TILE):
            acc += tl.load(walk)
            walk += TILE * stride
        tl.store(total_ptr + offs[:, None], acc)


    def flip(x, half):
        flip_half[(x.shape[0],)](x, x, x.stride(0), W=x.shape[1], HALF=half)
""")

LOOK_ALIKES = {9: "flip_half's load", 10: "flip_half's store", 17: "window_copy's capped store",
               28: "row_total's store after the loop"}


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> analysis.CheckedFile:
    path = tmp_path_factory.mktemp("own") / "own_bounds.py"
    path.write_text(SRC)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, _errors = analysis.check_paths([str(path)], config)
    return files[0]


@pytest.mark.parametrize("line", sorted(LOOK_ALIKES))
def test_an_access_in_bounds_by_its_own_word_stays_unconfirmed(checked: analysis.CheckedFile, line: int) -> None:
    assert all(d.line != line for d in checked.diagnostics), LOOK_ALIKES[line]
    look = Diagnostic("TL101", "look-alike", "not reported", checked.display, line, 5, line, 5)
    w = witness(checked.path, checked.display, checked.text, look, checked.launches, checked.flags, None, timeout=120)
    assert w.status != "confirmed", (LOOK_ALIKES[line], w.reason)


def test_the_unmasked_load_the_loop_advances_is_still_confirmed(checked: analysis.CheckedFile) -> None:
    hazard = next(d for d in checked.diagnostics if d.line == 26)
    w = witness(checked.path, checked.display, checked.text, hazard, checked.launches, checked.flags, None,
                timeout=120)
    assert w.status == "confirmed", w.reason
