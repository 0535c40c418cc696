"""Fixes left for later: a check that reports its findings without computing their fixes.

Finding an access costs less than fixing it (the fixer reads types, derives masks and proves the
switched-off lanes neutral: on `_matmul_ogs` three quarters of a check). The editor needs the fix
only when a code action or a hover asks for it, for the diagnostic under the cursor: the engine
then leaves every fix out and keeps here, per diagnostic, the call that completes it from the same
analysis. `check` never defers: its output and cache hold the fixes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from tritonlint.diagnostics import Diagnostic

# A diagnostic as the engine's report places it: its code and the offsets of the flagged text.
Key = tuple[str, int, int]


class _Clearable(Protocol):
    def clear(self) -> None: ...


def key_of(diagnostic: Diagnostic) -> Key:
    return diagnostic.code, diagnostic.start_offset, diagnostic.end_offset


class DeferredFixes:
    """Per diagnostic a check reported without its fix, how to complete it (message, notes and fix,
    exactly as a check with fixes gives them). Holds the check's kernel contexts until `release`."""

    def __init__(self) -> None:
        self._later: dict[Key, Callable[[], Diagnostic]] = {}
        # The mappings through which the contexts refer to each other: cleared on release, so that
        # the syntax trees are freed at once instead of by the cyclic collector.
        self._shared: list[_Clearable] = []

    def defer(self, diagnostic: Diagnostic, complete: Callable[[], Diagnostic]) -> None:
        self._later[key_of(diagnostic)] = complete

    def hold(self, *shared: _Clearable) -> None:
        """Keep the check's contexts (through the mappings they share) for the fixes left out; with
        none left out, they are freed at once (kept, they would only slow the cyclic collector)."""
        if self._later:
            self._shared.extend(shared)
        else:
            for mapping in shared:
                mapping.clear()

    def complete(self, diagnostic: Diagnostic) -> Diagnostic | None:
        """The diagnostic with its fix; None when this check did not report it (it came from
        another check) or the completion does not describe it."""
        complete = self._later.get(key_of(diagnostic))
        if complete is None:
            return None
        full = complete()
        same = (full.code, full.line, full.column, full.end_line, full.end_column, full.message) == \
            (diagnostic.code, diagnostic.line, diagnostic.column, diagnostic.end_line, diagnostic.end_column,
             diagnostic.message)
        return full if same else None

    def release(self) -> None:
        self._later.clear()
        for mapping in self._shared:
            mapping.clear()
        self._shared.clear()
