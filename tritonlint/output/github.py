"""`--output-format github`: GitHub Actions workflow commands that annotate the pull request diff."""

from __future__ import annotations

from collections.abc import Iterable

from tritonlint.diagnostics import Diagnostic
from tritonlint.output._common import ordered


def render(diagnostics: Iterable[Diagnostic]) -> str:
    """One `::error ...::message` line per diagnostic; notes ride along as extra message lines."""
    return "".join(_line(d) + "\n" for d in ordered(diagnostics))


def _line(d: Diagnostic) -> str:
    properties = {
        "file": d.path,
        "line": str(d.line),
        "col": str(d.column),
        "endLine": str(d.end_line),
        "endColumn": str(d.end_column),
        "title": f"{d.code} {d.name}" + (f" (cell {d.cell})" if d.cell is not None else ""),
    }
    spelled = ",".join(f"{key}={_escape_property(value)}" for key, value in properties.items())
    message = "\n".join((d.message, *d.notes))
    return f"::error {spelled}::{_escape_data(message)}"


def _escape_data(text: str) -> str:
    # The runner's own escaping (actions/toolkit command.ts): without it a newline would end the
    # command and a "%" could be read as an escape.
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    # Property values additionally end at "," and ":".
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")
