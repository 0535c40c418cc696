"""Loops whose end is computed, not named: the tensor the loop walks holds the size the end comes from.

- `range(0, n_tiles * T, T)` with `n_tiles = cdiv(L, T)`: the loop walks L (rounded up to whole tiles);
- `range(0, (pid + 1) * TM, TN)`: up to the end of the program's own tile (a causal loop), the size
  program axis 0 walks.

Before: the first loop's index had no bound (so the buffer was one tile long, and every launch overran
at whole tiles too), the second walked one tile of keys (fixtures rounded_loop_bound,
causal_loop_bound)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.witness.witness_cli import witness_json

SRC = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def tile_max(v_ptr, out_ptr, L, T: tl.constexpr):
        lanes = tl.arange(0, T)
        best = tl.full([T], float("-inf"), dtype=tl.float32)
        n_tiles = tl.cdiv(L, T)
        for s in range(0, n_tiles * T, T):
            best = tl.maximum(best, tl.load(v_ptr + s + lanes))
        tl.store(out_ptr + lanes, best)


    @triton.jit
    def prefix_dots(a_ptr, b_ptr, o_ptr, S, stride_b, TM: tl.constexpr, TN: tl.constexpr, E: tl.constexpr):
        pid = tl.program_id(0)
        rows = pid * TM + tl.arange(0, TM)
        cols = tl.arange(0, TN)
        e = tl.arange(0, E)
        a = tl.load(a_ptr + rows[:, None] * E + e[None, :], mask=rows[:, None] < S, other=0.0)
        b_ptrs = b_ptr + cols[None, :] * stride_b + e[:, None]
        acc = tl.zeros([TM], dtype=tl.float32)
        for j in range(0, (pid + 1) * TM, TN):
            acc += tl.sum(tl.dot(a, tl.load(b_ptrs)), axis=1)
            b_ptrs += TN * stride_b
        tl.store(o_ptr + rows, acc, mask=rows < S)
""")


def test_a_loop_end_computed_from_a_size_walks_that_size(tmp_path: Path) -> None:
    path = tmp_path / "loop_ends.py"
    path.write_text(SRC)
    found = {d["line"]: d["witness"] for d in witness_json(path, "--select", "ALL", "--jobs", "1")}
    assert found[11]["status"] == "confirmed", found[11]["reason"]
    assert "past the end of `v_ptr`" in found[11]["reason"] and "L=" in found[11]["reason"]
    assert found[25]["status"] == "confirmed", found[25]["reason"]
    assert "past the end of `b_ptr`" in found[25]["reason"] and "S=" in found[25]["reason"]
