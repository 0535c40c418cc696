"""A TL104 finding of offsets shifted below the tensor's start (fixture before_start): confirmed by the
read before `cu_ptr`'s start, and its fix (`mask & (offs >= 1)`) validated.

Before: the full-tile control makes that read too (the first tile's lane 0 is there at any size), so
every candidate was set aside as "out of bounds at full tiles too"; and `cu_ptr + offs - 1` beside
`cu_ptr + offs` was read as a pair of segment boundaries (the terms dropped the minus: `+ 1`), which
sized `cu_ptr` as a table of one boundary per program, not the `n` the lanes read."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

from tritonlint.config import check_selectors, load_config
from tritonlint.witness import analysis
from tritonlint.witness.extract import extract
from tritonlint.witness.runner import witness
from tritonlint.witness.uses import Uses

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "insufficient-mask" / "before_start.py"


def test_previous_elements_over_lanes_are_no_segment_boundaries() -> None:
    text = FIXTURE.read_text()
    assert Uses(extract(FIXTURE, text, "segment_lengths").kernel, {}).segment_pointers() == set()
    # One boundary per program, read at `pid - 1` and `pid`: a segments table, as before.
    assert Uses(extract(FIXTURE, text, "scalar_previous").kernel, {}).segment_pointers() == {"cu_ptr"}


def test_the_read_before_the_start_is_confirmed_and_its_fix_validated(tmp_path: Path) -> None:
    path = tmp_path / "before_start.py"
    shutil.copy(FIXTURE, path)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, _errors = analysis.check_paths([str(path)], config)
    checked = files[0]
    (finding,) = [d for d in checked.diagnostics if d.code == "TL104"]
    fixed = analysis.fixed_text(checked.text, finding)
    assert fixed is not None and "mask=mask & (offs >= 1)" in fixed
    w = witness(checked.path, checked.display, checked.text, finding, checked.launches, checked.flags, fixed,
                timeout=120)
    assert w.status == "confirmed", w.reason
    assert "before the start of `cu_ptr`" in w.reason, w.reason
    assert w.validation is not None and w.validation["status"] == "validated", w.validation
