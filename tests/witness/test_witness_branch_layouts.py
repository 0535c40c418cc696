"""Buffers sized by what the launch walks: the branch it takes, both sides of a pointer local, a
loop clamped to a size. Each fix of these fixtures once failed its validation because the buffer
was laid out for another walk (an overrun inside the allocation, or a fixed access past a buffer
sized by the other branch)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from tritonlint.config import check_selectors, load_config
from tritonlint.witness import analysis
from tritonlint.witness.runner import witness

ROOT = Path(__file__).resolve().parents[2]


def _witnessed(fixture: str, line: int) -> tuple[str, dict[str, str], dict[str, int]]:
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, _errors = analysis.check_paths([str(ROOT / fixture)], config)
    f = files[0]
    d = next(d for d in f.diagnostics if d.line == line)
    w = witness(f.path, f.display, f.text, d, f.launches, f.flags, analysis.fixed_text(f.text, d), timeout=120,
                flag_tiles=f.flag_tiles)
    numels = {a["name"]: a["numel"] for a in w.launch["args"] if a["kind"] == "tensor"}
    return w.status, w.validation, numels


@pytest.mark.parametrize("line", [35, 37])
def test_a_conditional_expressions_arms_are_laid_out_by_the_arm_taken(line: int) -> None:
    # `tl.load(w + ks * s + n) if W_KMAJOR else tl.load(w + n * s + ks)`: the launch takes the arm of
    # the flagged line, and `w` holds N rows of K (or K of N) for it: 32 x 40, not the other arm's.
    status, validation, numels = _witnessed("fixtures/unmasked-tail-load/conditional_expression.py", line)
    assert status == "confirmed"
    assert numels["w_ptr"] == 32 * 40
    assert validation["status"] == "validated", validation


def test_a_pointer_set_on_both_sides_of_a_branch_holds_either_walk() -> None:
    # `p = z + o_k` if NORMK else `z + o_v`: `z` was sized by K alone (17) while the launch walked V.
    _status, validation, numels = _witnessed("fixtures/unmasked-tail-load/pointer_per_side.py", 26)
    assert numels["z_ptr"] >= 32
    assert validation["status"] == "validated", validation


def test_a_loop_clamped_to_a_size_walks_that_size() -> None:
    # `for start_n in range(0, tl.minimum(..., N_CTX), BLOCK_N)` advancing K's rows: K holds N_CTX
    # rows (it held one tile, so the original's tail read K's next rows inside the allocation).
    status, validation, numels = _witnessed("fixtures/unmasked-tail-load/bounds_from_extents.py", 29)
    assert status == "confirmed"
    assert numels["K"] == 40 * 16
    assert validation["status"] == "validated", validation
