"""Inline suppressions: `# tritonlint: ignore[TL101] reason` and `# noqa: TL101` on the flagged line."""

from __future__ import annotations

import re
from dataclasses import dataclass

_TRITONLINT = re.compile(r"#\s*tritonlint:\s*ignore(?:\[(?P<codes>[A-Z0-9,\s]*)\])?(?P<reason>[^#]*)")
_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)


@dataclass(frozen=True)
class Suppression:
    line: int  # 1-based
    codes: frozenset[str] | None  # None: every code
    reason: str

    def covers(self, code: str) -> bool:
        return self.codes is None or code in self.codes


def suppressions_in_line(line_number: int, text: str) -> list[Suppression]:
    """Suppressions written in one physical line (only comments count, found by `#`)."""
    if "#" not in text:
        return []
    found = []
    for match in _TRITONLINT.finditer(text):
        codes = match.group("codes")
        found.append(Suppression(line_number, _codes(codes), match.group("reason").strip()))
    for match in _NOQA.finditer(text):
        found.append(Suppression(line_number, _codes(match.group("codes")), ""))
    return found


def _codes(text: str | None) -> frozenset[str] | None:
    if text is None:
        return None
    codes = frozenset(code.upper() for code in re.split(r"[,\s]+", text) if code)
    return codes or None
