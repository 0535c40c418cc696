"""`--output-format json`: a JSON array with one object per diagnostic, fixes spelled out as edits."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from tritonlint.diagnostics import Diagnostic, Fix
from tritonlint.output._common import SourceIndex, ordered


def render(diagnostics: Iterable[Diagnostic], sources: Mapping[str, str]) -> str:
    """The JSON array, keys in a fixed order; `sources` (path -> text) places the fix edits."""
    index = SourceIndex(sources)
    return json.dumps([_diagnostic(d, index) for d in ordered(diagnostics)], indent=2) + "\n"


def _diagnostic(diagnostic: Diagnostic, index: SourceIndex) -> dict[str, Any]:
    found = {
        "code": diagnostic.code,
        "name": diagnostic.name,
        "message": diagnostic.message,
        "path": diagnostic.path,
        "line": diagnostic.line,
        "column": diagnostic.column,
        "end_line": diagnostic.end_line,
        "end_column": diagnostic.end_column,
        "notes": list(diagnostic.notes),
        "fix": None if diagnostic.fix is None else _fix(diagnostic.fix, diagnostic.path, index),
    }
    if diagnostic.cell is not None:  # a notebook's: lines (and fix rows) count within this cell
        found["cell"] = diagnostic.cell
    return found


def _fix(fix: Fix, path: str, index: SourceIndex) -> dict[str, Any]:
    # Edits as ruff's JSON spells them: 1-based row/column, the end just past the replaced text.
    edits = []
    for edit in fix.edits:
        row, column = index.position(path, edit.start)
        end_row, end_column = index.position(path, edit.end)
        edits.append(
            {
                "content": edit.content,
                "location": {"row": row, "column": column},
                "end_location": {"row": end_row, "column": end_column},
            }
        )
    return {"title": fix.title, "applicability": fix.applicability.value, "edits": edits}
