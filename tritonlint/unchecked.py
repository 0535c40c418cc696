"""TL001 `file-not-checked`: a file that could not be read, decoded or parsed, as a finding."""

from __future__ import annotations

import re

from tritonlint.config import UNCHECKED_CODE
from tritonlint.diagnostics import Diagnostic
from tritonlint.report import FileReport
from tritonlint.rule import Rule

UNCHECKED_NAME = "file-not-checked"
_LINE = re.compile(r"(?P<line>\d+): (?P<reason>.*)", re.DOTALL)


class FileNotChecked(Rule):
    """## What it does
    Reports a file tritonlint could not check: it does not parse, is not UTF-8, contains NUL bytes,
    cannot be read, or does not exist.

    ## Why is this bad?
    Nothing in such a file was checked, so a kernel in it could hide any hazard. Reporting it as a
    finding (in every output format, with exit code 1) keeps a CI run from passing silently.

    ## Example
    ```python
    def broken(:
        pass
    ```

    ## Use instead
    ```python
    def fixed():
        pass
    ```

    ## Fix safety
    No fix: the file has to be repaired (or excluded) by hand.

    ## Known problems
    It cannot be selected, ignored or suppressed: exclude a file that should not be checked.
    """

    # Not a rule over the kernel model (not in tritonlint.rules): it gives TL001 a page for
    # `tritonlint rule` and a descriptor for SARIF.
    code = UNCHECKED_CODE
    name = UNCHECKED_NAME
    summary = "a file that could not be checked (syntax error, not UTF-8, unreadable, missing)"


def unchecked_diagnostics(report: FileReport) -> list[Diagnostic]:
    """One TL001 finding per error of a report whose file could not be checked; none for a checked file.

    The errors of a checked file (a fix that was not written) are not TL001.
    """
    if not report.unchecked:
        return []
    found = []
    for error in report.errors:
        reason = error[len(report.path) + 1:].strip() if error.startswith(report.path + ":") else error
        line = 1
        match = _LINE.fullmatch(reason)
        if match is not None:
            line, reason = max(int(match.group("line")), 1), match.group("reason")
        found.append(Diagnostic(UNCHECKED_CODE, UNCHECKED_NAME, f"file not checked: {reason}", report.path,
                                line, 1, line, 1))
    return found
