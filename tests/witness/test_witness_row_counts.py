"""A row count read from memory (`count = tl.load(count_ptr)`, `if pid_m * BLOCK_M >= count: return`), and
a gathered-ids pointer that spells its tile start inline (`ids_ptr + pid_m * BLOCK_M + tl.arange(...)`).

Before: the count was filled like an index (0), so every program returned at once; and the ids tensor
held one element per program (the tile beside the program id was dropped), so the rows past it were
read from the guard region and masked away. Either way nothing ran past the flagged tensor."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

from tritonlint.config import check_selectors, load_config
from tritonlint.witness import analysis
from tritonlint.witness.extract import extract
from tritonlint.witness.runner import witness
from tritonlint.witness.uses import Uses, scalar_counts

GATHER = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def gathered_rows(X, W, Out, ids_ptr, count_ptr, K, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
        pid_m = tl.program_id(0)
        count = tl.load(count_ptr)
        if pid_m * BLOCK_M >= count:
            return
        rows = tl.load(ids_ptr + pid_m * BLOCK_M + tl.arange(0, BLOCK_M))
        offs = tl.arange(0, BLOCK_K)
        x = tl.load(X + rows[:, None] * K + offs[None, :])
        w = tl.load(W + offs, mask=offs < K, other=0.0)
        tl.store(Out + pid_m * BLOCK_M + tl.arange(0, BLOCK_M), tl.sum(x * w[None, :], 1))
""")


def test_a_count_in_memory_lets_every_program_run(tmp_path: Path) -> None:
    path = tmp_path / "gather.py"
    path.write_text(GATHER)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, _errors = analysis.check_paths([str(path)], config)
    checked = files[0]
    d = next(d for d in checked.diagnostics if d.line == 13)
    w = witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags,
                analysis.fixed_text(checked.text, d), timeout=120)
    assert w.status == "confirmed", w.reason
    assert w.evidence is not None and w.evidence["tensor"] == "X"
    args = {a["name"]: a for a in (w.launch or {})["args"]}
    grid = (w.launch or {})["grid"]
    assert args["count_ptr"]["fill"] == "count" and args["count_ptr"]["value"] == grid[0] * 16
    assert args["ids_ptr"]["numel"] == grid[0] * 16  # one id per row of every tile


def test_scalar_counts_are_only_scalars_compared_with_a_tile_start() -> None:
    extracted = extract(Path("gather.py"), GATHER, "gathered_rows")
    uses = Uses(extracted.kernel, extracted.helpers)
    # The ids are loaded at offsets, not as one scalar: no count.
    assert scalar_counts(uses) == {"count_ptr": (0, "BLOCK_M")}


PAGE = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def paged(ids_ptr, P, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
        pid = tl.program_id(0)
        rows = tl.arange(0, BLOCK_M)
        cols = tl.arange(0, BLOCK_N)
        ids = tl.load(ids_ptr + pid * BLOCK_M + tl.arange(0, BLOCK_M))
        tl.store(P + pid * BLOCK_M * BLOCK_N + rows[:, None] * BLOCK_N + cols[None, :], ids[:, None])
""")


def test_a_bare_tile_start_is_the_axis_and_a_page_start_is_the_program() -> None:
    extracted = extract(Path("paged.py"), PAGE, "paged")
    uses = Uses(extracted.kernel, extracted.helpers)
    ids, page = uses.accesses
    # `pid * BLOCK_M` beside `arange(0, BLOCK_M)`: the axis walked in tiles (its size, or grid * tile).
    assert uses.dims(ids, set(), set())[0] == (None, ("axis", 0, "BLOCK_M"))
    # `pid * BLOCK_M * BLOCK_N`: one page per program, counted by the grid. Read as the axis (M), it
    # sized P by M rows and made the safe page stores of fixture scratch_page_partials look out of bounds.
    assert uses.dims(page, set(), set())[0] == (None, ("grid", 0))
