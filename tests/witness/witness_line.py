"""The witness in process on one finding of a file of our own: `check` with every rule, the finding on
`line` (of rule `code` when given), then `witness` on it with the checker's fix. The tests that read a
`Witness` (its launch, validation, second run) share this one call instead of each spelling it."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from tritonlint.config import check_selectors, load_config
from tritonlint.witness import analysis
from tritonlint.witness.runner import Witness, witness


def witness_line(path: Path, line: int, code: str | None = None, timeout: float = 120) -> Witness:
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, errors = analysis.check_paths([str(path)], config)
    assert files, f"{path} was not checked: {errors}"
    checked = files[0]
    found = [d for d in checked.diagnostics if d.line == line and (code is None or d.code == code)]
    # A test whose kernel no longer gets the finding fails here, saying what `check` reported instead.
    assert found, f"no {code or 'finding'} on line {line} of {path.name}; check reported " + (
        ", ".join(f"{d.code}:{d.line}" for d in checked.diagnostics) or "nothing")
    d = found[0]
    return witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags,
                   analysis.fixed_text(checked.text, d), timeout=timeout)
