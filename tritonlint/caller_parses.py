"""Kernel trees parsed for a neighbour's callers, kept for that neighbour's own check.

Checking a module whose jit helpers a neighbouring module imports parses the neighbour's calling
kernels (`engine.importing_callers`); checking the neighbour itself then parsed them again, and so
did every other module whose helpers they call. A worker checks many files of a tree: the trees of
the last callers parsed are kept here (libcst trees are immutable, and what the analysis derives
from one depends only on it, as for the editor's `parses`), up to a bound on their source's size.

No check builds two contexts from one tree: a file's own check takes a tree out (the callers it
then parses are parsed anew), and one search for callers hands each tree out once.
"""

from __future__ import annotations

from collections import OrderedDict

import libcst as cst

# Characters of kernel source whose trees are kept: a libcst tree takes some 45 bytes a character
# of its source, so about 22 MB.
KEPT_CHARACTERS = 500_000


class CallerParses:
    def __init__(self, limit: int = KEPT_CHARACTERS) -> None:
        self.limit = limit
        self._trees: OrderedDict[str, cst.Module] = OrderedDict()
        self._size = 0

    def take(self, source: str) -> cst.Module | None:
        """The tree of `source` if kept, no longer kept (for a file's own check)."""
        module = self._trees.pop(source, None)
        if module is not None:
            self._size -= len(source)
        return module

    def get(self, source: str, handed: set[int]) -> cst.Module | None:
        """The tree of `source` if kept and not in `handed` (the ids of the trees this search has had)."""
        module = self._trees.get(source)
        if module is None or id(module) in handed:
            return None
        self._trees.move_to_end(source)
        return module

    def keep(self, source: str, module: cst.Module) -> None:
        if len(source) > self.limit:
            return
        previous = self._trees.pop(source, None)
        if previous is not None:
            self._size -= len(source)
        self._trees[source] = module
        self._size += len(source)
        while self._size > self.limit:
            oldest, _ = self._trees.popitem(last=False)
            self._size -= len(oldest)

    def clear(self) -> None:
        self._trees.clear()
        self._size = 0
