"""Jupyter notebooks: their code cells as one Python text, positions back to cells, fixes written back.

The code cells are joined in order, each ending in a newline, each after a marker comment line
naming its cell (`# tritonlint: cell 3`), so that the text alone says where every line came from
and a fixed text splits back into cells. IPython magics and shell lines (`%`, `%%`, `!`, `?`)
are masked into comments of the same length, so the text parses and every offset still matches
the cell. Pure stdlib: no nbformat.
"""

from __future__ import annotations

import difflib
import json
import re
from bisect import bisect_right
from dataclasses import replace
from typing import Any

from tritonlint.diagnostics import Diagnostic

MARKER = "# tritonlint: cell "
_LINE_REFERENCE = re.compile(r"\bline (\d+)\b")
_MARKER_LINE = re.compile(r"^# tritonlint: cell (\d+)\n", re.MULTILINE)
# IPython's help suffix, `tl.load?`, `tl.load??`, `tl.*load*?`: a name alone on its line, then `?`.
_HELP_SUFFIX = re.compile(r"[ \t]*[A-Za-z_*][\w.*]*\?{1,2}[ \t]*(\r\n|\r|\n)?")


class NotebookError(Exception):
    """Bytes that are not a notebook tritonlint can read or write back."""


def is_notebook(name: str) -> bool:
    return name.endswith(".ipynb")


def to_python(data: bytes) -> str:
    """The code cells of a notebook as one Python text (see the module docstring)."""
    cells = _cells(_load(data))
    parts = []
    for number, cell in enumerate(cells, start=1):
        if cell.get("cell_type") != "code":
            continue
        source = _source(cell)
        if source and not source.endswith("\n"):
            source += "\n"
        parts.append(f"{MARKER}{number}\n{_mask(source)}")
    return "".join(parts)


def _load(data: bytes) -> Any:
    try:
        return json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as error:
        raise NotebookError(f"not a valid notebook (not JSON: {error})") from None


def _cells(notebook: Any) -> list[dict[str, Any]]:
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list) or not all(isinstance(cell, dict) for cell in cells):
        raise NotebookError("not a valid notebook (no list of cells)")
    for cell in cells:
        if cell.get("cell_type") == "code" and not isinstance(cell.get("source", ""), (str, list)):
            raise NotebookError("not a valid notebook (a cell's source is neither text nor a list of lines)")
    return cells


def _source(cell: dict[str, Any]) -> str:
    source = cell.get("source", "")
    return source if isinstance(source, str) else "".join(str(line) for line in source)


def _mask(source: str) -> str:
    """Magics and shell lines turned into comments of the same length; a `%%` cell magic masks its cell."""
    lines = source.splitlines(keepends=True)
    if lines and lines[0].lstrip().startswith("%%"):
        return "".join(_comment(line) for line in lines)
    return "".join(_comment(line) if line.lstrip()[:1] in ("%", "!", "?") or _HELP_SUFFIX.fullmatch(line) else line
                   for line in lines)


def _comment(line: str) -> str:
    stripped = line.lstrip(" \t")
    if not stripped.strip():
        return line
    indent = len(line) - len(stripped)
    return line[:indent] + "#" + stripped[1:]


class CellMap:
    """Lines of a joined notebook text -> (cell number, line within the cell), both 1-based."""

    def __init__(self, text: str) -> None:
        self.markers: list[int] = []  # the joined line of each marker
        self.cells: list[int] = []
        for match in _MARKER_LINE.finditer(text):
            self.markers.append(text.count("\n", 0, match.start()) + 1)
            self.cells.append(int(match.group(1)))

    def cell_line(self, line: int) -> tuple[int, int]:
        index = bisect_right(self.markers, line) - 1
        if index < 0:
            return 1, line
        return self.cells[index], line - self.markers[index]

    def joined_line(self, cell: int, line: int) -> int:
        return self.markers[self.cells.index(cell)] + line


def in_cells(diagnostics: list[Diagnostic], text: str) -> list[Diagnostic]:
    """Diagnostics of a joined notebook text, their lines counted within their cells."""
    cells = CellMap(text)
    placed = []
    for d in diagnostics:
        cell, line = cells.cell_line(d.line)
        end_line = cells.cell_line(d.end_line)[1]

        def local(match: re.Match[str], cell: int = cell) -> str:
            # Notes and fix titles name lines of the joined text: the same cell's by their line
            # there, another cell's with its number too.
            where, number = cells.cell_line(int(match.group(1)))
            return f"line {number}" if where == cell else f"line {number} of cell {where}"

        notes = tuple(_LINE_REFERENCE.sub(local, note) for note in d.notes)
        fix = d.fix if d.fix is None else replace(d.fix, title=_LINE_REFERENCE.sub(local, d.fix.title))
        placed.append(replace(d, cell=cell, line=line, end_line=end_line, notes=notes, fix=fix))
    return placed


def split_cells(text: str) -> dict[int, str]:
    """A joined text (fixed or not) back into its cells' sources, by the marker lines."""
    matches = list(_MARKER_LINE.finditer(text))
    return {int(match.group(1)): text[match.end():matches[i + 1].start() if i + 1 < len(matches) else len(text)]
            for i, match in enumerate(matches)}


def write_back(data: bytes, fixed: str) -> bytes:
    """The notebook `data` with its code cells' sources taken from the fixed joined text.

    Only changed cells change; masked magics come back as they were. The JSON is written the way
    the file was (indentation, key order, non-ASCII characters, trailing newline): the layout is
    found by re-encoding the unchanged notebook until it gives back the file's bytes exactly, and
    a notebook whose layout cannot be reproduced so raises NotebookError (nothing is written).
    """
    notebook = _load(data)
    cells = _cells(notebook)
    layout = _layout(notebook, data)
    changed = split_cells(fixed)
    for number, cell in enumerate(cells, start=1):
        if number not in changed or cell.get("cell_type") != "code":
            continue
        original = _source(cell)
        ending = original.endswith("\n") or not original
        new = _unmask(original, changed[number])
        if not ending and new.endswith("\n"):
            new = new[:-1]  # the newline the join added
        if new != original:
            cell["source"] = new if isinstance(cell.get("source"), str) else new.splitlines(keepends=True)
    return _dump(notebook, layout)


def _unmask(original: str, fixed: str) -> str:
    """`fixed` with every line that is unchanged from the masked original taken from the original."""
    before = original if original.endswith("\n") or not original else original + "\n"
    masked = _mask(before).splitlines(keepends=True)
    plain = before.splitlines(keepends=True)
    after = fixed.splitlines(keepends=True)
    out: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=masked, b=after, autojunk=False).get_opcodes():
        out.extend(plain[i1:i2] if tag == "equal" else after[j1:j2])
    return "".join(out)


def _layout(notebook: Any, data: bytes) -> tuple[int | None, bool, bool, bool]:
    bom = data.startswith(b"\xef\xbb\xbf")
    text = data.decode("utf-8-sig")
    newline = text.endswith("\n")
    for indent in (1, 2, 4, 3, None):
        for ascii_only in (False, True):
            layout = (indent, ascii_only, newline, bom)
            if _dump(notebook, layout) == data:
                return layout
    raise NotebookError("its JSON layout cannot be reproduced, so it is not rewritten")


def _dump(notebook: Any, layout: tuple[int | None, bool, bool, bool]) -> bytes:
    indent, ascii_only, newline, bom = layout
    text = json.dumps(notebook, indent=indent, ensure_ascii=ascii_only) + ("\n" if newline else "")
    return (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")
