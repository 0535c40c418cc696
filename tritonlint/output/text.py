"""The default output: `path:line:col: CODE message` lines, indented notes, and a summary."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from tritonlint.diagnostics import Applicability, Diagnostic
from tritonlint.notebook import CellMap
from tritonlint.output._common import ordered

# ANSI styles, used only when the caller asks for colour (it knows whether stdout is a terminal).
_BOLD = "\033[1m"
_RED_BOLD = "\033[1;31m"
_CYAN = "\033[36m"
_CYAN_BOLD = "\033[1;36m"
_RESET = "\033[0m"


def render(diagnostics: Iterable[Diagnostic], *, color: bool = False, summary: bool = True, style: str = "text",
           sources: Mapping[str, str] | None = None, unsafe_fixes: bool = False) -> str:
    """Every diagnostic with its notes and fix title, then (with `summary`) a count line.

    `style` "concise" gives the first line of each only; "full" adds the source line under it with a
    caret under the flagged call (ruff's `full`), from `sources` (path -> text).
    """
    found = ordered(diagnostics)
    lines: list[str] = []
    for d in found:
        lines.append(_headline(d, color))
        if style == "concise":
            continue
        if style == "full" and sources is not None and d.path in sources:
            lines.extend(_snippet(d, sources[d.path], color))
        lines.extend(f"    {_style('note', _CYAN_BOLD, color)}: {note}" for note in d.notes)
        if d.fix is not None:
            label = _style("help", _CYAN_BOLD, color)
            lines.append(f"    {label}: {d.fix.title} ({d.fix.applicability.value} fix)")
    if summary:
        lines.append(summary_line(found, unsafe_fixes=unsafe_fixes))
    return "".join(line + "\n" for line in lines)


def summary_line(diagnostics: Iterable[Diagnostic], *, unsafe_fixes: bool = False) -> str:
    """`Found 3 errors (1 fixable with --fix, 1 more with --unsafe-fixes).`, or all clear.

    Counts what `--fix` applies in this run: with `unsafe_fixes` (the flag, or `unsafe-fixes = true`
    in the configuration) the unsafe fixes are fixable with `--fix` too, and no hint is given."""
    found = list(diagnostics)
    if not found:
        return "All checks passed!"
    safe = sum(d.fix is not None and d.fix.applicability is Applicability.SAFE for d in found)
    unsafe = sum(d.fix is not None and d.fix.applicability is Applicability.UNSAFE for d in found)
    if unsafe_fixes:
        safe, unsafe = safe + unsafe, 0
    counted = f"Found {len(found)} error{'s' if len(found) != 1 else ''}"
    fixable = []
    if safe:
        fixable.append(f"{safe} fixable with --fix")
    if unsafe:
        fixable.append(f"{unsafe} {'more ' if safe else ''}with --unsafe-fixes")
    return f"{counted} ({', '.join(fixable)})." if fixable else f"{counted}."


def _headline(d: Diagnostic, color: bool) -> str:
    # Colour never changes the characters between the styles, so stripping ANSI codes gives back
    # exactly the plain, parseable line.
    colon = _style(":", _CYAN, color)
    path = _style(d.path, _BOLD, color)
    code = _style(d.code, _RED_BOLD, color)
    cell = f"{colon}cell {d.cell}" if d.cell is not None else ""  # ruff's notebook spelling
    return f"{path}{cell}{colon}{d.line}{colon}{d.column}{colon} {code} {d.message}"


def _snippet(d: Diagnostic, text: str, color: bool) -> list[str]:
    """The finding's first source line, numbered, with `^` under the flagged part of it."""
    source_lines = text.splitlines()
    number = CellMap(text).joined_line(d.cell, d.line) if d.cell is not None else d.line
    if not 1 <= number <= len(source_lines):
        return []
    line = source_lines[number - 1].rstrip("\r")
    end = d.end_column if d.end_line == d.line else len(line) + 1
    width = len(str(d.line))
    gutter = _style(f"{' ' * width} |", _CYAN_BOLD, color)
    carets = _style("^" * max(end - d.column, 1), _RED_BOLD, color)
    return [gutter, f"{_style(f'{d.line} |', _CYAN_BOLD, color)} {line}",
            f"{gutter} {' ' * (d.column - 1)}{carets}", gutter]


def _style(text: str, style: str, color: bool) -> str:
    return f"{style}{text}{_RESET}" if color else text
