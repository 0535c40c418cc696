"""`shape_of` reads the function's assignments once per question and each (node, depth) once (tile_shapes.py):
a kernel rebinding its accumulators in a loop, each binding reading the others again, made the reading
branch at every name up to its depth limit, each step walking the whole function; an attention kernel of
vLLM's took minutes in `constraints_of` alone. The answers stay those of the plain recursion."""

from __future__ import annotations

import ast
import textwrap

from tritonlint.witness import tile_shapes
from tritonlint.witness.constraints import constraints_of
from tritonlint.witness.extract import jit_functions
from tritonlint.witness.tile_shapes import shape_of

# A running-max loop of our own (elementwise, so every binding's shape is read): `acc`, `m_i`, `l_i` rebound
# from each other, then handed to a helper.
REBINDING = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def finish(acc, l_i):
        ROWS: tl.constexpr = acc.shape[0]
        tl.static_assert(ROWS % 16 == 0)
        return acc / l_i[:, None]


    @triton.jit
    def attend(V, Out, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD: tl.constexpr):
        offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_d = tl.arange(0, HEAD)
        acc = tl.zeros((BLOCK_M, HEAD), dtype=tl.float32)
        m_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
        l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
        for start in range(0, N, BLOCK_N):
            v = tl.load(V + offs_m[:, None] * HEAD + offs_d[None, :])
            m_new = tl.where(m_i > l_i, m_i, l_i)
            alpha = tl.exp(m_i - m_new)
            l_i = l_i * alpha + m_new
            acc = acc * alpha[:, None] + v
            m_i = m_new
        out = finish(v, l_i) + acc
        tl.store(Out + offs_m[:, None] * HEAD + offs_d[None, :], out)
""")


PARAMS = {"V", "Out", "N", "BLOCK_M", "BLOCK_N", "HEAD"}


def _kernel() -> tuple[ast.FunctionDef, dict[str, object]]:
    functions = jit_functions(ast.parse(REBINDING))
    return functions["attend"].node, dict(functions)


def test_a_rebinding_kernel_reads_its_assignments_once_per_question(monkeypatch: object) -> None:
    fn, _helpers = _kernel()
    walks = {"n": 0}
    original = tile_shapes._assignments

    def counted(f: ast.FunctionDef) -> dict[str, list[ast.expr]]:
        walks["n"] += 1
        assert walks["n"] <= 10, "the function's assignments walked again for a name met on the way"
        return original(f)

    monkeypatch.setattr(tile_shapes, "_assignments", counted)  # type: ignore[attr-defined]
    tile, rebound = next(n for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                         and n.func.id == "finish").args
    shape = shape_of(tile, fn, PARAMS)
    assert shape is not None and [ast.unparse(e) for e in shape] == ["BLOCK_M - 0", "HEAD - 0"]
    assert walks["n"] == 1
    # A local read through its own rebinding meets the depth limit on every path: no shape, as before, but
    # after one walk of the function, not one per name met on the way.
    assert shape_of(rebound, fn, PARAMS) is None
    assert walks["n"] == 2


def test_the_helpers_assertion_on_the_rebound_tile_reads_the_callers_tile() -> None:
    fn, helpers = _kernel()
    constraints = constraints_of(fn, helpers)
    # `finish`'s `ROWS = v.shape[0]` is the caller's `BLOCK_M - 0`.
    assert any(c.what == "ROWS % 16 == 0" and "BLOCK_M" in ast.unparse(c.test) for c in constraints), \
        [(c.what, ast.unparse(c.test)) for c in constraints]


def test_each_node_and_depth_is_read_once() -> None:
    fn, _helpers = _kernel()
    rebound = next(n for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                   and n.func.id == "finish").args[1]
    reading = tile_shapes._ShapeReading(fn, PARAMS)
    calls = {"n": 0}
    original = reading._shape

    def counted(expr: ast.expr, depth: int) -> tile_shapes.Shape | None:
        calls["n"] += 1
        return original(expr, depth)

    reading._shape = counted  # type: ignore[method-assign]
    assert reading.shape(rebound, 0) is None
    # At most one reading per node of the function and depth (21 depths); the plain recursion made millions.
    nodes = sum(1 for _ in ast.walk(fn))
    assert calls["n"] <= nodes * 21
    assert calls["n"] == len(reading.found)
