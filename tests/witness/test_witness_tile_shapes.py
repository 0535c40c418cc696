"""A jit helper that constrains the tile it is handed (`LANES: tl.constexpr = t.shape[1]`,
`tl.static_assert(LANES % 64 == 0)`, `t.reshape(ROWS // GROUPS, GROUPS, ...)`) constrains the caller's
constexprs: the tile's shape is read from the caller's syntax, so the synthesizer no longer launches values
the kernel rejects (the interpreter's bare `AssertionError`). An unmasked access walked only by the loop
around it is made partial along the size that loop walks, and its tensor holds that size, not one tile."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from witness_cli import witness_json

from tritonlint.witness.constraints import constraints_of, evaluate, locals_of
from tritonlint.witness.extract import jit_functions
from tritonlint.witness.loop_walks import loop_sizes

# Scales stored in groups of 64 lanes per K tile; the helper regroups rows by a group count.
GROUPED = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def regroup(t, GROUPS: tl.constexpr):
        ROWS: tl.constexpr = t.shape[0]
        LANES: tl.constexpr = t.shape[1]
        tl.static_assert(LANES % 64 == 0)
        t = t.reshape(ROWS // GROUPS, GROUPS, LANES)
        return tl.sum(t, axis=1)


    @triton.jit
    def grouped_scale_sum(S, Out, R, K, stride_r, stride_k,
                          BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr, GROUPS: tl.constexpr):
        LANES_K: tl.constexpr = BLOCK_K // 2
        pid = tl.program_id(0)
        offs_r = pid * BLOCK_R + tl.arange(0, BLOCK_R)
        offs_lane = tl.arange(0, LANES_K)
        ptrs = S + offs_r[:, None] * stride_r + offs_lane[None, :] * stride_k
        acc = tl.zeros((BLOCK_R // GROUPS, LANES_K), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            acc += regroup(tl.load(ptrs), GROUPS)
            ptrs += LANES_K * stride_k
        rows = pid * (BLOCK_R // GROUPS) + tl.arange(0, BLOCK_R // GROUPS)
        tl.store(Out + rows[:, None] * LANES_K + offs_lane[None, :], acc, mask=(rows < R)[:, None])
""")


def _rules() -> tuple[list[ast.expr], dict[str, ast.expr]]:
    fns = jit_functions(ast.parse(GROUPED))
    kernel = fns["grouped_scale_sum"]
    return [c.test for c in constraints_of(kernel.node, fns)], locals_of(kernel.node)


def test_a_helpers_assertion_on_its_tiles_shape_reads_the_callers_constexprs() -> None:
    tests, local = _rules()
    env = {"BLOCK_R": 16, "BLOCK_K": 64, "GROUPS": 4}  # 32 lanes a tile: the helper's assertion fails
    values = [evaluate(t, env, local) for t in tests if "shape" not in ast.unparse(t)]
    assert False in values
    env["BLOCK_K"] = 128
    assert all(evaluate(t, env, local) for t in tests)


def test_a_reshape_of_the_handed_tile_keeps_its_element_count() -> None:
    tests, local = _rules()
    reshape = [t for t in tests if "GROUPS" in ast.unparse(t) and "==" in ast.unparse(t)]
    assert len(reshape) == 1, [ast.unparse(t) for t in tests]
    assert evaluate(reshape[0], {"BLOCK_R": 16, "BLOCK_K": 128, "GROUPS": 4}, local) is True
    assert evaluate(reshape[0], {"BLOCK_R": 2, "BLOCK_K": 128, "GROUPS": 4}, local) is False


def test_the_loop_around_an_unmasked_access_names_its_size() -> None:
    fn = jit_functions(ast.parse(GROUPED))["grouped_scale_sum"].node
    line = next(n.lineno for n in ast.walk(fn) if isinstance(n, ast.Call) and ast.unparse(n.func) == "tl.load")
    assert loop_sizes(fn, line, {"R", "K"}) == ["K"]
    assert loop_sizes(fn, fn.lineno, {"R", "K"}) == []


def test_the_grouped_scale_overrun_is_confirmed_along_the_looped_size(tmp_path: Path) -> None:
    path = tmp_path / "grouped.py"
    path.write_text(GROUPED)
    found = [f for f in witness_json(path, "--select", "ALL", "--timeout", "90") if f["line"] == 24]
    assert len(found) == 1, found
    w = found[0]["witness"]
    assert w["status"] == "confirmed", w
    assert w["evidence"]["tensor"] == "S"
    assert w["launch"]["axis"] == "K", w["launch"]


def test_the_swizzled_scale_fixture_is_confirmed_and_its_fix_validated() -> None:
    # The seed bug's own form: its helper asserts on the tile's lanes and regroups its rows, and only the
    # loop advances the unmasked scale tile (was `error`: the interpreter's AssertionError, then M made partial).
    fixture = Path(__file__).resolve().parents[2] / "fixtures" / "unmasked-tail-load" / "mxfp4_hopper_scale_interleaved.py"
    found = [f for f in witness_json(fixture, "--select", "ALL", "--timeout", "120") if f["line"] == 85]
    assert len(found) == 1, found
    w = found[0]["witness"]
    assert w["status"] == "confirmed", w["reason"]
    assert w["launch"]["axis"] == "K", w["launch"]["label"]
    assert found[0]["fix"]["validation"]["status"] == "validated", found[0]["fix"]["validation"]
