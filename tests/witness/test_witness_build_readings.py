"""The readings a synthesis' candidate builds share (build_readings.py) answer as the uncached readings do,
and are never reused where an input differs: the launch's branch values (one `BuildReadings` per synthesis),
the strides a build lays out (the derived loop end's build adds one), or a list a build changed.
And `Uses._names`' memory (id-keyed) never answers for another node that got the same id."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from tritonlint.witness import uses as uses_module
from tritonlint.witness.build_readings import BuildReadings
from tritonlint.witness.constraints import branch_not_taken
from tritonlint.witness.extract import extract
from tritonlint.witness.taken_definitions import taken_first
from tritonlint.witness.uses import Uses

ROWS = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def rows(X, Y, K, stride_y, WIDE: tl.constexpr, BLOCK_K: tl.constexpr):
        row = tl.program_id(0)
        offs = tl.program_id(1) * BLOCK_K + tl.arange(0, BLOCK_K)
        if WIDE:
            p = X + row * K + offs
        else:
            p = X + row
        x = tl.load(p)
        tl.store(Y + row * stride_y + offs, x, mask=offs < K)
""")


def _readings(wide: bool) -> tuple[Uses, BuildReadings, ast.expr, ast.expr]:
    extracted = extract(Path("rows.py"), ROWS, "rows")
    uses = Uses(extracted.kernel, extracted.helpers)
    load, store = uses.accesses
    return uses, BuildReadings(uses, extracted.kernel.node, {"WIDE": wide, "BLOCK_K": 16}, {}), load, store


def _uncached_dims(uses: Uses, expr: ast.expr, env: dict[str, object], strides: set[str]) -> object:
    with taken_first(uses, expr, lambda value: branch_not_taken(uses.fn, value, env, {})):
        return uses.dims(expr, {"K"}, strides)


def test_taken_dims_follow_the_branch_values_of_their_synthesis() -> None:
    for wide in (True, False):
        uses, readings, load, _store = _readings(wide)
        defs_before = {name: list(values) for name, values in uses.defs.items()}
        first = readings.taken_dims(load, {"K"}, set())
        assert first == _uncached_dims(uses, load, {"WIDE": wide, "BLOCK_K": 16}, set())
        assert readings.taken_dims(load, {"K"}, set()) == first
        assert uses.defs == defs_before  # the reordering `taken_first` makes is undone
    _uses, wide_side, load, _store = _readings(True)
    _uses, narrow_side, load2, _store = _readings(False)
    assert wide_side.taken_dims(load, {"K"}, set()) == [("K", ("grid", 0)), (None, ("size", "K"))]
    assert narrow_side.taken_dims(load2, {"K"}, set()) == [(None, ("grid", 0))]


def test_other_definitions_skip_the_branch_not_taken() -> None:
    _uses, readings, load, _store = _readings(True)
    # Only the definition on the `else:` side is another one, and the launch takes `WIDE`: none is read.
    assert readings.other_definitions(load, {"K"}, set()) == []
    uses, narrow, load, _store = _readings(False)
    assert narrow.other_definitions(load, {"K"}, set()) == uses.other_definitions(load, {"K"}, set()) != []


def test_another_set_of_strides_is_read_again() -> None:
    uses, readings, _load, store = _readings(True)
    plain = readings.taken_dims(store, {"K"}, set())
    with_stride = readings.taken_dims(store, {"K"}, {"stride_y"})
    assert plain == uses.dims(store, {"K"}, set())
    assert with_stride == uses.dims(store, {"K"}, {"stride_y"}) == [("stride_y", ("grid", 0)), (None, ("size", "K"))]
    assert plain != with_stride


def test_a_build_that_changes_an_answer_does_not_change_the_next() -> None:
    _uses, readings, load, _store = _readings(True)
    first = readings.taken_dims(load, {"K"}, set())
    first.append(("changed", None))
    ends = readings.inclusive_ends("X")
    ends.add("changed")
    caps = readings.capped_ends("X")
    caps["changed"] = "changed"
    assert ("changed", None) not in readings.taken_dims(load, {"K"}, set())
    assert "changed" not in readings.inclusive_ends("X")
    assert "changed" not in readings.capped_ends("X")


def test_names_are_not_answered_for_another_node_with_the_same_id() -> None:
    node = ast.parse("a + b * c", mode="eval").body
    stranger = ast.parse("stale", mode="eval").body
    # As if `stranger` had been read at an id that `node` now has (ids are reused once a node is freed).
    uses_module._NAMES[id(node)] = (stranger, frozenset({"stale"}))
    try:
        assert Uses._names(node) == {"a", "b", "c"}
    finally:
        uses_module._NAMES.pop(id(node), None)
