"""Diagnostics and fixes: the frozen values every other part of tritonlint passes around."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Applicability(str, enum.Enum):
    """How much a fix can be trusted, after ruff's model."""

    SAFE = "safe"  # in-bounds behaviour unchanged and the mask is certain
    UNSAFE = "unsafe"  # mask or `other=` inferred; could change results
    DISPLAY_ONLY = "display-only"  # shown, never applied


@dataclass(frozen=True)
class Edit:
    """Replace the text between two 0-based character offsets of the file."""

    start: int
    end: int
    content: str


@dataclass(frozen=True)
class Fix:
    title: str
    applicability: Applicability
    edits: tuple[Edit, ...]


@dataclass(frozen=True)
class Diagnostic:
    """One finding. Lines and columns are 1-based; `end_*` point just past the call."""

    code: str
    name: str
    message: str
    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    notes: tuple[str, ...] = ()
    fix: Fix | None = None
    # Character offsets of the flagged call in the file, for fixes and suppressions.
    start_offset: int = field(default=0, compare=False)
    end_offset: int = field(default=0, compare=False)
    # In a notebook: the 1-based cell (among all its cells) that `line` and `end_line` count within.
    cell: int | None = None
    # What the rule found, named, for tools that act on the finding (the witness): TL104's padded group
    # gives (("tile", "BLOCK"), ("group", "G")). Never rendered: the message says the same in words.
    facts: tuple[tuple[str, str], ...] = field(default=(), compare=False)

    def sort_key(self) -> tuple[str, int, int, int, str]:
        return (self.path, self.cell or 0, self.line, self.column, self.code)
