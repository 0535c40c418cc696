"""UnsafeMaskedLanesFinding: a masked load whose switched-off lanes reach a reduction as a value that changes it."""

from __future__ import annotations

from dataclasses import dataclass

from tritonlint.finding import AccessFinding
from tritonlint.fixing.masks import CallFix
from tritonlint.semantic.lanes.masked import LaneVerdict

from .fix import lanes_fix


@dataclass(frozen=True)
class UnsafeMaskedLanesFinding(AccessFinding):
    """The message worded from the first wrong verdict when it was found, and every verdict on the
    load (the fix tries the identities they need)."""

    summary: str
    verdicts: tuple[LaneVerdict, ...]

    def message(self) -> str:
        return self.summary

    def fix(self) -> CallFix:
        return lanes_fix(self.context, self.hazard, self.verdicts)
