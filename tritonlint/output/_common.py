"""Helpers every format shares: diagnostic order, and Edit offsets turned into lines and columns."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Mapping

from tritonlint.diagnostics import Diagnostic
from tritonlint.notebook import MARKER, CellMap


def ordered(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Diagnostics by path, line, column and code, so every format lists them the same way."""
    return sorted(diagnostics, key=Diagnostic.sort_key)


class LineIndex:
    """Start offsets of every line of one file's text, for offset -> (line, column) look-ups."""

    def __init__(self, text: str) -> None:
        self.length = len(text)
        self.starts = [0]
        # Only "\n" ends a line: whether the core read the file with newline="" or translated
        # newlines, a "\r" before "\n" is then just the last character of its line.
        end = text.find("\n")
        while end != -1:
            self.starts.append(end + 1)
            end = text.find("\n", end + 1)

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a 0-based character offset; the end of file is allowed."""
        if not 0 <= offset <= self.length:
            raise ValueError(f"offset {offset} outside a text of {self.length} characters")
        line = bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1


class SourceIndex:
    """Lazily built LineIndex per path, so a render call scans each file at most once."""

    def __init__(self, sources: Mapping[str, str]) -> None:
        self._sources = sources
        self._indexes: dict[str, LineIndex] = {}
        self._cells: dict[str, CellMap] = {}  # notebooks: lines are counted within each cell

    def position(self, path: str, offset: int) -> tuple[int, int]:
        index = self._indexes.get(path)
        if index is None:
            if path not in self._sources:
                raise KeyError(f"no source text given for {path!r}, needed to place its fix edits")
            index = self._indexes[path] = LineIndex(self._sources[path])
            if self._sources[path].startswith(MARKER):
                self._cells[path] = CellMap(self._sources[path])
        line, column = index.position(offset)
        cells = self._cells.get(path)
        return (cells.cell_line(line)[1], column) if cells is not None else (line, column)
