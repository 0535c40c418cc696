"""FileReport: what checking one file produced. Kept apart from the engine so that reading a result
from the cache (and printing it) never imports libcst."""

from __future__ import annotations

from dataclasses import dataclass, field

from tritonlint.diagnostics import Diagnostic


@dataclass(frozen=True)
class FileReport:
    path: str
    diagnostics: tuple[Diagnostic, ...] = ()
    errors: tuple[str, ...] = ()  # bad input, one line each: "path: reason"
    crashes: tuple[str, ...] = ()  # internal errors (a rule raised), one line each
    notices: tuple[str, ...] = ()  # worth saying, not an error (an empty file)
    fixed_text: str | None = None  # set by fixing when the text changed
    suppressed: int = 0
    text: str | None = field(default=None, repr=False, compare=False)  # the source the offsets index
    # (line of the suppression comment, code) for every finding a suppression hid, so that
    # `--report-unused-suppressions` can tell which comments suppress nothing.
    suppressions_used: tuple[tuple[int, str], ...] = field(default=(), compare=False)
    # The file could not be checked (read, decoded or parsed): its errors are TL001 findings. The
    # other errors (a fix that was not written) concern a file that was checked.
    unchecked: bool = False
    fixed: tuple[str, ...] = ()  # after fixing: the code of every finding the fixes removed
    # Other files the results read (a jit helper imported from a sibling module): such a report is
    # not cached, since the cache knows a result by this file's content alone.
    depends: tuple[str, ...] = field(default=(), compare=False)
