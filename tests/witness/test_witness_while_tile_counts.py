"""A `while` loop counting tiles (`while t < tl.cdiv(L, T)`, `t += 1`, loading `v + t * T + lanes`) walks
L in tiles of T, as `for t in range(tl.cdiv(L, T))` does: the tensor holds L, not L rows of T.

Before: `while` counters were no loop indices, so `t * T` was read as row t of a T-wide table and the
tensor sized L * T: the partial last tile never left it (fixture while_and_countdown_loops's
while_tiles)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.witness.witness_cli import witness_json

SRC = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def sum_tiles(v_ptr, out_ptr, L, T: tl.constexpr):
        lanes = tl.arange(0, T)
        acc = tl.zeros([T], dtype=tl.float32)
        t = 0
        while t < tl.cdiv(L, T):
            acc += tl.load(v_ptr + t * T + lanes)
            t += 1
        tl.store(out_ptr, tl.sum(acc, axis=0))
""")


def test_a_while_loop_counting_tiles_walks_the_size(tmp_path: Path) -> None:
    path = tmp_path / "while_tiles.py"
    path.write_text(SRC)
    found = {d["line"]: d["witness"] for d in witness_json(path, "--select", "ALL", "--jobs", "1")}
    assert found[11]["status"] == "confirmed", found[11]["reason"]
    assert "past the end of `v_ptr`" in found[11]["reason"], found[11]["reason"]


def test_the_counter_starts_at_its_last_assignment_in_source_order() -> None:
    # `ast.walk` visits the top-level `k = 0` before the nested `k = 8` above it: the start was the nested one.
    import ast

    from tritonlint.witness.while_loops import while_ranges

    fn = ast.parse(textwrap.dedent("""\
        def walk(N, FLAG, BLOCK):
            if FLAG:
                k = 8
            k = 0
            while k < N:
                k += BLOCK
    """)).body[0]
    assert isinstance(fn, ast.FunctionDef)
    start = while_ranges(fn)["k"].args[0]
    assert isinstance(start, ast.Constant) and start.value == 0, ast.unparse(start)
