"""Checking one buffer again and again as it is edited: kernels that did not change are not re-analysed."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace

from tritonlint.config import Config
from tritonlint.diagnostics import Diagnostic, Edit
from tritonlint.engine import check_source, collector_paused
from tritonlint.report import FileReport
from tritonlint.semantic.host.launches import launch_pattern
from tritonlint.source.outline import KernelSource, outline
from tritonlint.suppressions import Suppression, file_suppressions

_NOT_NEWLINE = re.compile(r"[^\r\n]")
# How findings name a line of the file ("advanced by the loop at line 9"): moved with the kernel.
_LINE_REFERENCE = re.compile(r"\bline (\d+)\b")
# A launch or host guard named as `file.py:41`: a line outside the kernel, so the finding is never kept.
_HOST_REFERENCE = re.compile(r"\.py:\d+")
_WORD = re.compile(r"[^\W\d]\w*")


@dataclass(frozen=True)
class _Kept:
    """A kernel's findings from an earlier run, and where the kernel started then."""

    start_offset: int
    first_line: int
    diagnostics: tuple[Diagnostic, ...]


class IncrementalChecker:
    """`check_source` for one buffer: the same report's findings, after an edit mostly from memory.

    The engine gives each kernel only its own text, the file's imports, the configuration and the
    file's other jit functions (the helpers it calls); of the rest of the file only a file-level
    `# tritonlint: noqa` changes what is reported. So a top-level kernel that names no other jit
    function of the file, and that none of them names, has the same findings, moved, while its
    text, the imports and the file-level suppressions stay the same: an edit to the host code
    (launchers, imports of other modules) re-analyses nothing. Such kernels are blanked out of the
    text the engine sees (spaces; line breaks kept, so every other offset and line stays where it
    is) and their earlier findings are shifted to where they now start, the lines they name
    ("the loop at line 9") too. A kernel whose findings name a line outside it is always analysed.
    """

    def __init__(self, path: str, config: Config) -> None:
        self.path = path
        self.config = config
        self._kept: dict[tuple[str, str, tuple[tuple[str, str], ...]], _Kept] = {}
        # Kernels analysed by the engine in the last run (the rest came from memory); for tests
        # and the benchmark, which must tell a reused result from a recomputed one.
        self.analysed: tuple[str, ...] = ()

    @collector_paused()  # as in the engine: the outline's syntax tree would wake the collector for nothing
    def check(self, text: str) -> FileReport:
        try:
            found = outline(text)
        except (SyntaxError, ValueError, RecursionError):
            self._kept = {}  # the engine reports why it cannot check the text
            self.analysed = ()
            return self._engine(text)
        context = (_file_noqa(file_suppressions(text)), tuple(sorted(found.imports.bindings.items())))
        reusable = _standalone(found.kernels) - _launched_here(text, found.kernels)
        blanked: list[KernelSource] = []
        reused: list[Diagnostic] = []
        for kernel in found.kernels:
            kept = self._kept.get((kernel.text, *context)) if kernel.name in reusable else None
            if kept is not None:
                blanked.append(kernel)
                reused.extend(_moved(d, kernel.start_offset - kept.start_offset, kernel.first_line - kept.first_line)
                              for d in kept.diagnostics)
        report = self._engine(_blank(text, blanked))
        skipped = {id(kernel) for kernel in blanked}
        self.analysed = tuple(kernel.name for kernel in found.kernels if id(kernel) not in skipped)
        kept_now: dict[tuple[str, str, tuple[tuple[str, str], ...]], _Kept] = {}
        if not (report.errors or report.crashes):
            for kernel in found.kernels:
                if kernel.name not in reusable:
                    continue
                end = kernel.start_offset + len(kernel.text)
                own = tuple(d for d in (*report.diagnostics, *reused) if kernel.start_offset <= d.start_offset < end)
                last_line = kernel.first_line + kernel.text.rstrip("\r\n").count("\n")
                if not all(kernel.first_line <= line <= last_line for d in own for line in _lines_named(d)):
                    continue
                if any(_HOST_REFERENCE.search(text) for d in own for text in _texts(d)):
                    continue
                kept_now[(kernel.text, *context)] = _Kept(kernel.start_offset, kernel.first_line, own)
        self._kept = kept_now
        diagnostics = tuple(sorted((*report.diagnostics, *reused), key=Diagnostic.sort_key))
        return replace(report, diagnostics=diagnostics, text=text)

    def _engine(self, text: str) -> FileReport:
        return check_source(self.path, text, self.config)


def _standalone(kernels: list[KernelSource]) -> set[str]:
    """Names of the top-level kernels that share no name with another jit function of the file."""
    counts = Counter(kernel.name for kernel in kernels)
    linked = {name for name, count in counts.items() if count > 1}
    for kernel in kernels:
        # Every word of the text, comments and strings too: more than the names it uses, never fewer
        # (and a tenth of the time of walking its syntax tree).
        others = (set(_WORD.findall(kernel.text)) & counts.keys()) - {kernel.name}
        if others:
            linked.add(kernel.name)
            linked.update(others)
    return {kernel.name for kernel in kernels if not kernel.indented and kernel.name not in linked}


def _launched_here(text: str, kernels: list[KernelSource]) -> set[str]:
    """Kernels the file's host code launches (`k[grid](...)`): their findings depend on the launch's
    grid and arguments (TL101-TL103, TL111/TL112), so an edit outside the kernel can change them."""
    names = [kernel.name for kernel in kernels]
    if not names:
        return set()
    host = _blank(text, kernels)
    return {match.group(0)[:-1].rstrip() for match in launch_pattern(names).finditer(host)}  # `name\s*[`


def _file_noqa(noqa: Suppression | None) -> str:
    """The file-level suppressions as part of a key: which codes they hide, not on which line."""
    if noqa is None:
        return ""
    return "*" if noqa.codes is None else ",".join(sorted(noqa.codes))


def _blank(text: str, kernels: list[KernelSource]) -> str:
    """`text` with each kernel's characters turned into spaces, its line breaks kept."""
    if not kernels:
        return text
    pieces = []
    previous = 0
    for kernel in sorted(kernels, key=lambda k: k.start_offset):
        end = kernel.start_offset + len(kernel.text)
        pieces.append(text[previous:kernel.start_offset])
        pieces.append(_NOT_NEWLINE.sub(" ", text[kernel.start_offset:end]))
        previous = end
    pieces.append(text[previous:])
    return "".join(pieces)


def _texts(diagnostic: Diagnostic) -> list[str]:
    return [diagnostic.message, *diagnostic.notes, *([diagnostic.fix.title] if diagnostic.fix else [])]


def _lines_named(diagnostic: Diagnostic) -> list[int]:
    return [int(match.group(1)) for text in _texts(diagnostic) for match in _LINE_REFERENCE.finditer(text)]


def _moved(diagnostic: Diagnostic, offset: int, lines: int) -> Diagnostic:
    if not (offset or lines):
        return diagnostic

    def renumber(text: str) -> str:
        return _LINE_REFERENCE.sub(lambda match: f"line {int(match.group(1)) + lines}", text) if lines else text

    fix = diagnostic.fix
    if fix is not None:
        fix = replace(fix, title=renumber(fix.title),
                      edits=tuple(Edit(e.start + offset, e.end + offset, e.content) for e in fix.edits))
    return replace(diagnostic, message=renumber(diagnostic.message),
                   notes=tuple(renumber(note) for note in diagnostic.notes),
                   line=diagnostic.line + lines, end_line=diagnostic.end_line + lines,
                   start_offset=diagnostic.start_offset + offset, end_offset=diagnostic.end_offset + offset, fix=fix)
