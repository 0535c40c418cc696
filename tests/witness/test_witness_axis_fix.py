"""A TL104 fix that moves a store's mask onto the pointer's axes writes in-bounds elements the original
never wrote: its validation compares the elements both runs wrote, and still fails a fix that writes
another value there or runs out of bounds.

The kernel is written for this test (a tiled transpose whose store keeps the load's mask).
"""

from __future__ import annotations

import dataclasses
import textwrap
from typing import Any

import pytest

pytest.importorskip("torch")
pytest.importorskip("triton")

from tritonlint.config import check_selectors, load_config
from tritonlint.witness import analysis
from tritonlint.witness.runner import witness

KERNEL = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def flip(A, B, R, C, stride_ar, stride_bc, TILE: tl.constexpr):
        rows = tl.program_id(0) * TILE + tl.arange(0, TILE)
        cols = tl.program_id(1) * TILE + tl.arange(0, TILE)
        a = tl.load(A + rows[:, None] * stride_ar + cols[None, :],
                    mask=(rows[:, None] < R) & (cols[None, :] < C), other=0.0)
        tl.store(B + cols[:, None] * stride_bc + rows[None, :], tl.trans(a),
                 mask=(rows[:, None] < R) & (cols[None, :] < C))
""")
STORE_LINE = 11
FIXED_MASK = "mask=(rows[None, :] < R) & (cols[:, None] < C))"


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> analysis.CheckedFile:
    root = tmp_path_factory.mktemp("axis_fix")
    (root / "flip.py").write_text(KERNEL)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, errors = analysis.check_paths([str(root / "flip.py")], config)
    assert not errors and len(files) == 1
    return files[0]


def _run(checked: analysis.CheckedFile, fixed: str) -> Any:
    [finding] = [d for d in checked.diagnostics if d.line == STORE_LINE]
    assert finding.code == "TL104"
    return witness(checked.path, checked.display, checked.text, finding, checked.launches, checked.flags, fixed,
                   timeout=120)


def test_the_checkers_axis_fix_is_validated(checked: analysis.CheckedFile) -> None:
    [finding] = [d for d in checked.diagnostics if d.line == STORE_LINE]
    fixed = analysis.fixed_text(checked.text, finding)
    assert fixed is not None and FIXED_MASK in fixed
    result = _run(checked, fixed)
    assert result.validation["status"] == "validated", result.validation
    # It ran a launch where the original leaves elements of B unwritten, and said so.
    assert "only one of the two flagged stores wrote" in result.validation["reason"], result.validation


def test_an_axis_fix_that_stores_other_values_fails(checked: analysis.CheckedFile) -> None:
    [finding] = [d for d in checked.diagnostics if d.line == STORE_LINE]
    fixed = analysis.fixed_text(checked.text, finding)
    assert fixed is not None
    wrong = fixed.replace("tl.trans(a),", "tl.trans(a) + 1.0,")
    result = _run(checked, wrong)
    assert result.validation["status"] == "failed", result.validation
    assert "differs from the original's" in result.validation["reason"], result.validation
