"""Inline suppressions: `# tritonlint: ignore[TL101] reason` and `# noqa: TL101` on the flagged line.

Also suppression hygiene: finding suppressions that suppress nothing (reported as TL100
`unused-suppression` with `--report-unused-suppressions`, like ruff's RUF100), and writing a
suppression for every current finding (`--add-suppressions`, like ruff's `--add-noqa`).
Nothing here imports libcst.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from tritonlint.diagnostics import Applicability, Diagnostic, Edit, Fix
from tritonlint.rule import Rule

_TRITONLINT = re.compile(r"#\s*tritonlint:\s*ignore(?:\[(?P<codes>[A-Z0-9,\s]*)\])?(?P<reason>[^#]*)")
_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
# `# tritonlint: noqa` alone on a comment suppresses in the whole file (ruff's file-level noqa).
_FILE_NOQA = re.compile(r"#\s*tritonlint:\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]*(?:[,\s]+[A-Z]+[0-9]*)*))?\s*$",
                        re.IGNORECASE | re.MULTILINE)
_LINE_END = re.compile(r"\r\n|\r|\n")

UNUSED_CODE = "TL100"
UNUSED_NAME = "unused-suppression"
UNUSED_DOC = """\
## What it does
Reports `# tritonlint: ignore[...]` comments, and the `TL` codes of `# noqa: ...` comments, that
suppress nothing: no finding of that code is reported on their line. Only with
`--report-unused-suppressions`.

## Why is this bad?
A suppression outlives the code it excused: after the access is masked or the line moves, it
silently hides the next real finding on that line.

## Example
```python
x = tl.load(X + offs, mask=offs < n)  # tritonlint: ignore[TL101] padded on the host
```

## Use instead
```python
x = tl.load(X + offs, mask=offs < n)
```

## Fix safety
Safe: the fix deletes the unused directive (or only its unused codes), nothing else.

## Known problems
A bare `# noqa` is shared with other linters and is never reported.
"""


class UnusedSuppression(Rule):
    # Not a rule over the kernel model (it is not in tritonlint.rules, so `all_rules()` and the rule
    # meta-tests skip it): it gives TL100 a descriptor for SARIF and a page for `tritonlint rule`.
    code = UNUSED_CODE
    name = UNUSED_NAME
    summary = "a suppression comment that suppresses nothing (off until selected, or --report-unused-suppressions)"
    fixable = True


UnusedSuppression.__doc__ = UNUSED_DOC
ADDED_REASON = "TODO: baseline; fix the access or give the reason it is safe"


@dataclass(frozen=True)
class Suppression:
    line: int  # 1-based
    codes: frozenset[str] | None  # None: every code
    reason: str

    def covers(self, code: str) -> bool:
        return self.codes is None or code in self.codes


@lru_cache(maxsize=8)
def comments_by_line(text: str) -> dict[int, str] | None:
    """The real comments of `text` (found by the tokenizer, never inside a string), by line;
    None when the text does not tokenize. Cached: every finding of a file asks."""
    found: dict[int, str] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text, newline="").readline):
            if token.type == tokenize.COMMENT:
                found[token.start[0]] = token.string
    except (tokenize.TokenError, SyntaxError, ValueError):
        return None
    return found


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


def file_suppressions(text: str) -> Suppression | None:
    """The file-level `# tritonlint: noqa` (every code) or `# tritonlint: noqa: TL101, ...` comments,
    each on a line of its own, of `text`, merged; None when there is none. Only real comments count: found with the tokenizer,
    never text inside a string."""
    if _FILE_NOQA.search(text) is None:  # the cheap test first: almost no file has one
        return None
    codes: set[str] = set()
    found = False
    try:
        for token in tokenize.generate_tokens(io.StringIO(text, newline="").readline):
            if token.type != tokenize.COMMENT:
                continue
            match = _FILE_NOQA.match(token.string)
            # Only a comment on a line of its own, as ruff's file-wide form: one after code (the
            # file-wide form written after `x = 1`) is a slip for a line suppression, not the whole file.
            if match is None or token.line[:token.start[1]].strip():
                continue
            if match.group("codes") is None:
                return Suppression(token.start[0], None, "")
            found = True
            codes.update(_codes(match.group("codes")) or ())
    except (tokenize.TokenError, SyntaxError, ValueError):
        return None
    return Suppression(0, frozenset(codes), "") if found else None


def _codes(text: str | None) -> frozenset[str] | None:
    if text is None:
        return None
    codes = frozenset(code.upper() for code in re.split(r"[,\s]+", text) if code)
    return codes or None


# --- unused suppressions (TL100) ----------------------------------------------------------------


def may_hold_suppressions(data: bytes) -> bool:
    """Cheap test on the raw bytes: could this file carry a suppression TL100 would look at?"""
    return b"tritonlint" in data or (b"noqa" in data.lower() and b"TL" in data)


@dataclass(frozen=True)
class _Directive:
    line: int
    start: int  # character offset of its `#` in the file
    end: int  # just past the directive (the reason included, trailing blanks not)
    kind: str  # "tritonlint" or "noqa"
    codes: tuple[str, ...] | None  # as written, in order; None: every code
    reason: str


def _directives(text: str) -> list[_Directive]:
    """Every suppression directive in a real comment (not in a string) of `text`."""
    starts = [0] + [match.end() for match in _LINE_END.finditer(text)]
    found: list[_Directive] = []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text, newline="").readline))
    except (tokenize.TokenError, SyntaxError, ValueError):
        return found
    for token in tokens:
        if token.type != tokenize.COMMENT:
            continue
        row, column = token.start
        base = starts[row - 1] + column
        comment = token.string
        for match in _TRITONLINT.finditer(comment):
            codes = match.group("codes")
            listed = tuple(c.upper() for c in re.split(r"[,\s]+", codes) if c) if codes is not None else None
            end = match.start() + len(match.group(0).rstrip())
            found.append(_Directive(row, base + match.start(), base + end, "tritonlint", listed or None,
                                    match.group("reason").strip()))
        for match in _NOQA.finditer(comment):
            codes = match.group("codes")
            if codes is None:
                continue  # a bare noqa belongs to every linter: never ours to call unused
            listed = tuple(c.upper() for c in re.split(r"[,\s]+", codes) if c)
            found.append(_Directive(row, base + match.start(), base + match.end(), "noqa", listed, ""))
    return found


def unused_suppressions(path: str, text: str, used: Iterable[tuple[int, str]],
                        enabled: Callable[[str], bool] | None = None) -> list[Diagnostic]:
    """TL100 diagnostics for the directives of `text` that suppressed nothing.

    `used` holds (line, code) for every finding a suppression on that line hid (FileReport's
    `suppressions_used`). `enabled` says whether a code's rule ran, for the note.
    """
    by_line: dict[int, set[str]] = {}
    for line, code in used:
        by_line.setdefault(line, set()).add(code)
    starts = [0] + [match.end() for match in _LINE_END.finditer(text)]
    found = []
    for directive in _directives(text):
        hidden = by_line.get(directive.line, set())
        if directive.codes is None:
            if hidden:
                continue
            unused: tuple[str, ...] = ()
        else:
            ours = [code for code in directive.codes if code.startswith("TL")]
            unused = tuple(code for code in ours if code not in hidden)
            if not unused:
                continue
        found.append(_unused_diagnostic(path, text, starts, directive, unused, enabled))
    return found


def _unused_diagnostic(path: str, text: str, starts: Sequence[int], directive: _Directive,
                       unused: tuple[str, ...], enabled: Callable[[str], bool] | None) -> Diagnostic:
    written = text[directive.start:directive.end]
    if unused:
        message = f"unused suppression `{written}` (unused: {', '.join(unused)})"
    else:
        message = f"unused blanket suppression `{written}`: nothing on this line is reported"
    notes = []
    if directive.reason:
        notes.append(f"reason given: {directive.reason}")
    notes.extend(f"{code} is not enabled by the configuration" for code in unused
                 if enabled is not None and not enabled(code))
    edit = _removal(text, directive, unused)
    line_start = starts[directive.line - 1]
    return Diagnostic(
        code=UNUSED_CODE, name=UNUSED_NAME, message=message, path=path,
        line=directive.line, column=directive.start - line_start + 1,
        end_line=directive.line, end_column=directive.end - line_start + 1,
        notes=tuple(notes),
        fix=Fix("Remove the unused suppression" if edit.content == "" else "Remove the unused codes",
                Applicability.SAFE, (edit,)),
        start_offset=directive.start, end_offset=directive.end,
    )


def _removal(text: str, directive: _Directive, unused: tuple[str, ...]) -> Edit:
    kept = [code for code in directive.codes or () if code not in unused]
    if kept:  # rewrite the code list, keep the rest of the directive as written
        if directive.kind == "tritonlint":
            content = f"# tritonlint: ignore[{', '.join(kept)}]"
            if directive.reason:
                content += f" {directive.reason}"
        else:
            content = f"# noqa: {', '.join(kept)}"
        return Edit(directive.start, directive.end, content)
    start = directive.start  # delete the directive and the blanks before it
    while start > 0 and text[start - 1] in " \t":
        start -= 1
    return Edit(start, directive.end, "")


# --- adding suppressions --------------------------------------------------------------------------


def add_suppressions(text: str, diagnostics: Sequence[Diagnostic], reason: str = ADDED_REASON, *,
                     line_length: int | None = None) -> tuple[str, int]:
    """`text` with `# tritonlint: ignore[CODES] TODO: ...` at the end of each flagged line; and how many.

    The comment goes on the finding's first line, or its last when the first ends in a backslash
    (a comment cannot follow one). With `line_length`, a comment that would make its line longer
    goes on the call's last line if it fits there, else it drops the reason's explanation (keeping
    `TODO`), else it is written anyway: a suppression that works beats a line kept short, and a
    comment cannot be wrapped onto a line of its own (it would not suppress anything there).
    Only those lines change; every other byte stays as it was.
    """
    starts = [0] + [match.end() for match in _LINE_END.finditer(text)]
    wanted: dict[int, list[str]] = {}
    for d in diagnostics:
        if d.code == UNUSED_CODE:
            continue
        line = d.line
        if _content(text, starts, line).rstrip().endswith("\\"):
            line = d.end_line
        elif line_length is not None and d.end_line != line:
            comment = _comment([d.code], reason)
            if (len(_content(text, starts, line).rstrip(" \t") + comment) > line_length
                    and len(_content(text, starts, d.end_line).rstrip(" \t") + comment) <= line_length):
                line = d.end_line
        codes = wanted.setdefault(line, [])
        if d.code not in codes:
            codes.append(d.code)
    pieces = []
    previous = 0
    for line in sorted(wanted):
        content = _content(text, starts, line)
        start = starts[line - 1]
        end = start + len(content)
        stripped = content.rstrip(" \t")
        comment = _comment(wanted[line], reason)
        if line_length is not None and len(stripped + comment) > line_length:
            comment = _comment(wanted[line], reason.split(":")[0])
        pieces.append(text[previous:start])
        pieces.append(stripped + comment)
        previous = end
    pieces.append(text[previous:])
    return "".join(pieces), len(wanted)


def _comment(codes: Sequence[str], reason: str) -> str:
    return f"  # tritonlint: ignore[{','.join(sorted(codes))}] {reason}"


def _content(text: str, starts: Sequence[int], line: int) -> str:
    """Line `line` (1-based) without its line ending."""
    start = starts[line - 1]
    end = starts[line] if line < len(starts) else len(text)
    return text[start:end].rstrip("\r\n")
