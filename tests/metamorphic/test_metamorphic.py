"""The metamorphic matrix as tests: every fixture under every semantics-preserving rewrite.

A cell holds when `tritonlint check` reports on the rewritten fixture what it reports on the
original: the same codes at the lines the rewrite moved them to, and nothing else (look-alikes stay
quiet). Cells that hold must keep holding. The cells that break today are listed in
`known_breaks.py` with the reason; they are strict xfails, so a cell that starts to hold fails
here until it is taken off the list (`python scripts/metamorphic.py --known` prints the list the
matrix gives now).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import matrix
import rewrites as R
from known_breaks import KNOWN_BREAKS

CASES = matrix.cases()
IDS = [c.id for c in CASES]


@pytest.fixture(scope="module")
def cells() -> dict[tuple[str, str], matrix.Cell]:
    return {(c.case, c.rewrite): c for c in matrix.run(CASES)}


def _params() -> list[object]:
    out = []
    for case in IDS:
        for rewrite in matrix.REWRITES:
            reason = KNOWN_BREAKS.get((case, rewrite))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            out.append(pytest.param(case, rewrite, id=f"{case}-{rewrite}", marks=marks))
    return out


@pytest.mark.parametrize(("case", "rewrite"), _params())
def test_cell(cells: dict[tuple[str, str], matrix.Cell], case: str, rewrite: str) -> None:
    cell = cells[(case, rewrite)]
    assert cell.status != "breaks", f"{case} x {rewrite}: {cell.why}"


def test_known_breaks_name_real_cells() -> None:
    # A listed cell whose fixture or rewrite was renamed away would otherwise be silently ignored.
    stale = sorted(k for k in KNOWN_BREAKS if k[0] not in IDS or k[1] not in matrix.REWRITES)
    assert not stale, stale


def test_share_of_cells_that_hold(cells: dict[tuple[str, str], matrix.Cell]) -> None:
    held, applicable = matrix.share(list(cells.values()))
    assert applicable >= 400, "the rewrites apply to fewer fixtures than they did"
    # The known breaks are what is missing from 100 %: the two counts must agree.
    assert applicable - held == len(KNOWN_BREAKS)


def test_every_rewrite_applies_somewhere(cells: dict[tuple[str, str], matrix.Cell]) -> None:
    for rewrite in matrix.REWRITES:
        applied = [c for c in cells.values() if c.rewrite == rewrite and c.status != "n/a"]
        assert len(applied) >= 3, f"{rewrite} applies to {len(applied)} fixtures"


def test_baseline_is_the_fixtures_markers(cells: dict[tuple[str, str], matrix.Cell]) -> None:
    """The original trees are checked as the fixtures are: findings equal the `# expect:` markers."""
    import re

    marker = re.compile(r"#\s*expect:\s*(?P<codes>[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*)")
    found = matrix.check_tree_cases([c for c in CASES if c.rule == "unmasked-tail-load"][:12])
    for case in [c for c in CASES if c.rule == "unmasked-tail-load"][:12]:
        expected = {(case.main, n, code.strip()) for n, line in enumerate(case.files[case.main].splitlines(), 1)
                    if (m := marker.search(line)) for code in m.group("codes").split(",")}
        assert {f for f in found.get(case.id, set()) if f[0] == case.main} == expected, case.id


# The comparison itself: a rewrite that changes what the kernel does must break its cells.


def _drop_masks(ctx: R.Context) -> dict[str, object] | None:
    """Not semantics-preserving: every `mask=` of every access removed."""
    import libcst as cst

    class Drop(cst.CSTTransformer):
        def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
            if (R._dotted(updated.func) or "").endswith((".load", ".store")):
                args = [a for a in updated.args if not (a.keyword and a.keyword.value in ("mask", "other"))]
                args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                return updated.with_changes(args=args)
            return updated

    new = ctx.modules[ctx.main].visit(Drop())
    return {ctx.main: new}


def test_a_rewrite_that_changes_semantics_breaks() -> None:
    selected = [c for c in CASES if c.rule == "unmasked-tail-load"][:6]
    got = matrix.run(selected, {"drop_masks": _drop_masks})
    assert any(c.status == "breaks" and "new TL10" in c.why for c in got), [(c.case, c.why) for c in got]


def test_line_map_follows_moved_statements() -> None:
    text = (
        "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
        "def k(X, N, B: tl.constexpr):\n"
        "    for s in range(0, N, B):\n"
        "        x = tl.load(X + s + tl.arange(0, B))\n"
        "        tl.store(X + s + tl.arange(0, B), x)\n"
    )
    reversed_ = R.apply(R.loop_reversed, {"k.py": text}, "k.py")
    assert reversed_ is not None
    new = reversed_.files["k.py"].splitlines()
    # One line (`s = N - r0`) was inserted at the top of the loop: the load moved down by one.
    assert reversed_.map("k.py", 8) == [("k.py", 9)]
    assert "tl.load" in new[9 - 1]
    moved = R.apply(R.helper_other_module, {"k.py": text}, "k.py")
    assert moved is not None
    (helper_file,) = [f for f in moved.files if f != "k.py"]
    [(file, line)] = moved.map("k.py", 8)
    assert file == helper_file and "tl.load" in moved.files[file].splitlines()[line - 1]
