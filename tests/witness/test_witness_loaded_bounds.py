"""A size held in memory: the end of a loop read as one scalar per program (`stop = tl.load(ends + group)`,
`for t in range(first, stop, BLOCK_T)`) is made partial, and the tensor it is read from holds it.

Before: the walk's bound was a value in a tensor, no parameter, so the synthesizer made another size
partial (`R`), filled `ends` with indices 0, 1, ... (group 0 walked nothing) and the finding stayed in
bounds (K-grouped GEMMs: `range(k_start, k_end, BLOCK_K)` over two pointers)."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

import pytest

from tritonlint.config import check_selectors, load_config
from tritonlint.diagnostics import Diagnostic
from tritonlint.witness import analysis
from tritonlint.witness.extract import extract
from tritonlint.witness.loaded_bounds import loaded_bounds
from tritonlint.witness.runner import witness
from tritonlint.witness.uses import Uses

BODY = """\
    pid = tl.program_id(0)
    tiles_r = tl.cdiv(R, BLOCK_R)
    group = pid // tiles_r
    pid_r = pid % tiles_r
    rows = pid_r * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.arange(0, BLOCK_C)
    first = tl.load(starts + group)
    stop = tl.load(ends + group)
    acc = tl.zeros((BLOCK_R, BLOCK_C), dtype=tl.float32)
    for t in range(first, stop, BLOCK_T):
        ts = t + tl.arange(0, BLOCK_T)
        x = tl.load(X + rows[:, None] * C + cols[None, :], mask=(rows < R)[:, None] & (cols < C)[None, :], other=0.0)
        w = tl.load(W + ts{mask})
        acc += x * tl.sum(w, axis=0)
    tl.store(Out + group * R * C + rows[:, None] * C + cols[None, :], acc,
             mask=(rows < R)[:, None] & (cols < C)[None, :])
"""
HEADER = "def {name}(X, W, Out, starts, ends, R, C, BLOCK_R: tl.constexpr, BLOCK_T: tl.constexpr, " \
         "BLOCK_C: tl.constexpr):\n"
SOURCE = ("import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
          + HEADER.format(name="ranged_sum") + textwrap.indent(textwrap.dedent(BODY.format(mask="")), "    ")
          + "\n\n@triton.jit\n" + HEADER.format(name="ranged_sum_masked")
          + textwrap.indent(textwrap.dedent(BODY.format(mask=", mask=ts < stop, other=0.0")), "    "))
LINES = SOURCE.splitlines()
HAZARD_LINE = LINES.index("        w = tl.load(W + ts)") + 1  # in ranged_sum
TWIN_LINE = LINES.index("        w = tl.load(W + ts, mask=ts < stop, other=0.0)") + 1  # in ranged_sum_masked


def _checked(tmp_path: Path) -> analysis.CheckedFile:
    path = tmp_path / "ranged.py"
    path.write_text(SOURCE)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, errors = analysis.check_paths([str(path)], config)
    assert not errors
    return files[0]


def test_only_the_loop_end_read_from_memory_is_a_held_size() -> None:
    uses = Uses(extract(Path("ranged.py"), SOURCE, "ranged_sum").kernel, {})
    assert loaded_bounds(uses) == {"ends"}  # `starts` is where the walk begins, not where it stops


def test_the_held_size_is_made_partial_and_the_finding_confirmed(tmp_path: Path) -> None:
    checked = _checked(tmp_path)
    d = next(d for d in checked.diagnostics if d.line == HAZARD_LINE)
    w = witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags,
                analysis.fixed_text(checked.text, d), timeout=120)
    assert w.status == "confirmed", w.reason
    assert w.evidence is not None and w.evidence["tensor"] == "W"
    launch = w.launch or {}
    assert launch["axis"] == "value of ends"
    args = {a["name"]: a for a in launch["args"]}
    # Every group stops at the partial extent, which `W` holds exactly; the starts stay indices.
    assert args["ends"]["fill"] == "count" and args["ends"]["value"] == launch["sizes"]["value of ends"]
    assert args["W"]["numel"] == launch["sizes"]["value of ends"]
    assert args["starts"]["fill"] == "index"
    assert w.validation is not None and w.validation["status"] == "validated", w.validation


@pytest.mark.parametrize("line", [TWIN_LINE])
def test_the_masked_twin_is_not_confirmed(tmp_path: Path, line: int) -> None:
    checked = _checked(tmp_path)
    hazard = next(d for d in checked.diagnostics if d.line == HAZARD_LINE)
    # The hazard's own notes (the walk, its tile): the synthesizer makes the held size partial here too.
    twin = Diagnostic(hazard.code, "look-alike", hazard.message, hazard.path, line, hazard.column, line,
                      hazard.end_column, notes=hazard.notes)
    w = witness(checked.path, checked.display, checked.text, twin, checked.launches, checked.flags, None,
                timeout=120)
    assert w.status == "not-reproduced", w.reason
    assert "value of ends" in w.reason
