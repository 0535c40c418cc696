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
    reduce_line: int  # the line of the reduction the message names

    def message(self) -> str:
        return self.summary

    def facts(self) -> tuple[tuple[str, str], ...]:
        """The reduction the lanes reach: the witness's identity run sets them there too (reduction_lanes.py)."""
        return (("reduction_line", str(self.reduce_line)),)

    def fix(self) -> CallFix:
        return lanes_fix(self.context, self.hazard, self.verdicts)
