"""`tritonlint witness --fix`: write the fixes a run validated, and only those.

A fix is written when its validation is `validated` (the same launch ran clean on the fixed
kernel, and the outputs equal the original's), it is not display-only, and its edits overlap no
other fix written to the same file (the next run gets the other). The file is written once, with
all its validated fixes, atomically, and only if the result parses; `check`'s own writer refuses a
file changed on disk since it was read.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from tritonlint.witness.analysis import CheckedFile, edits_of, write_fixed


@dataclass
class Outcome:
    """What `--fix` did with one file's fixes: the diagnostics written, why the others were not."""

    applied: list[Any] = field(default_factory=list)
    not_applied: dict[int, str] = field(default_factory=dict)  # id(diagnostic) -> why
    error: str | None = None


def write_validated(file: CheckedFile, validations: dict[int, dict[str, str] | None]) -> Outcome:
    """Apply to `file` every fix whose validation (by `id(diagnostic)`) is `validated`; write once."""
    out = Outcome()
    taken: list[tuple[int, int]] = []
    edits: list[Any] = []
    for d in sorted(file.diagnostics, key=lambda d: d.sort_key()):
        found = edits_of(d)
        if found is None:
            continue
        validation = validations.get(id(d)) or {"status": "not-run", "reason": "no launch ran"}
        if validation["status"] != "validated":
            out.not_applied[id(d)] = f"not validated ({validation['status']}): {validation['reason']}"
            continue
        if isinstance(found, str):  # "display-only"
            out.not_applied[id(d)] = "a display-only fix is never written"
            continue
        spans = [(e.start, e.end) for e in found]
        if any(s <= te and ts <= e for s, e in spans for ts, te in taken):  # touching counts: order unsure
            out.not_applied[id(d)] = "overlaps another validated fix written to this file; run again"
            continue
        taken += spans
        edits += found
        out.applied.append(d)
    if not edits:
        return out
    fixed = _apply(file.text, edits)
    try:
        ast.parse(fixed)
    except SyntaxError as error:
        out.error = f"{file.display}: fixes not written: the fixed source would not parse ({error.msg}, line {error.lineno})"
    else:
        problem = write_fixed(file, fixed)
        if problem is not None:
            out.error = f"{file.display}: {problem}"
    if out.error is not None:
        for d in out.applied:
            out.not_applied[id(d)] = out.error
        out.applied = []
    return out


def _apply(text: str, edits: list[Any]) -> str:
    """The edits (known not to overlap) applied from the end of the text backwards."""
    for edit in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        text = text[:edit.start] + edit.content + text[edit.end:]
    return text
