"""The editor's memory of each kernel's findings: a kernel whose inputs did not change is not run
through the rules again, even when another kernel of its group (a helper's other caller) changed.

A kernel's findings (before they are placed, deduplicated and suppressed) are a function of its
own text, the texts of the jit functions it calls (transitively), the file's imports and, when one
of those is launched in the file, the host code that launches it. That is the kernel's key here.
Findings are stored relative to the kernels of that key (offsets and the lines they name) and
replayed, moved to where those kernels now sit, through the engine's usual placing: the report is
the one a check from scratch gives. A kernel with a finding that names a line or edits text
outside its key's kernels is never stored.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, replace

from tritonlint.diagnostics import Diagnostic, Edit
from tritonlint.source.outline import KernelSource

# How findings name a line of the file ("advanced by the loop at line 9"): moved with its kernel.
LINE_REFERENCE = re.compile(r"\bline (\d+)\b")
# A launch or host guard named as `file.py:41`: a line outside the kernels, so never stored.
HOST_REFERENCE = re.compile(r"\.py:\d+")
_WORD = re.compile(r"[^\W\d]\w*")

# One finding as a rule gave it: the rule's code, whether it is reported once per key (an
# access, see `Finding.key`) or once per place, and its diagnostic.
Raw = tuple[str, bool, Diagnostic]


@dataclass(frozen=True)
class _Entry:
    # Per kernel of the key, in the key's order: its start offset, first line and last line then.
    spans: tuple[tuple[int, int, int], ...]
    findings: tuple[Raw, ...]


class KernelMemo:
    """Each kernel's raw findings from earlier runs, by its key (see the module's docstring)."""

    def __init__(self) -> None:
        # (A key holds every input of its kernel's findings: an entry is right for any run, the
        # one that stores it included, so it is stored at once.)
        self._entries: dict[Hashable, _Entry] = {}
        self.replayed: list[str] = []  # kernels whose findings came from memory in the last run (tests)

    def start(self) -> None:
        """A new run of the engine: `replayed` counts from here (an entry stays until `prune`)."""
        self.replayed = []

    def prune(self, texts: set[str]) -> None:
        """Forget the entries of kernels no longer in the buffer (`texts`: its kernels' texts)."""
        self._entries = {key: entry for key, entry in self._entries.items()
                         if isinstance(key, tuple) and all(text in texts for text in key[0])}

    def holds(self, key: Hashable | None) -> bool:
        return key is not None and key in self._entries

    def recall(self, key: Hashable | None, closure: Sequence[KernelSource]) -> list[Raw] | None:
        """The findings stored under `key`, moved to where the `closure` kernels now sit; None if none."""
        entry = self._entries.get(key) if key is not None else None
        if entry is None:
            return None
        self.replayed.append(closure[0].name)
        moves = [(first, last, kernel.first_line - first, kernel.start_offset - start)
                 for (start, first, last), kernel in zip(entry.spans, closure)]
        return [(code, keyed, _moved(diagnostic, moves)) for code, keyed, diagnostic in entry.findings]

    def store(self, key: Hashable | None, closure: Sequence[KernelSource], findings: Sequence[Raw]) -> None:
        """Remember the kernel's `findings` under `key`, if each lies inside the `closure` kernels and
        names or edits nothing outside them."""
        if key is None:
            return
        spans = tuple((k.start_offset, k.first_line, _last_line(k)) for k in closure)
        ranges = [(k.start_offset, k.start_offset + len(k.text)) for k in closure]
        for _, _, d in findings:
            if not any(begin <= d.start_offset < end for begin, end in ranges):
                return
            if not names_only(d, spans):
                return
            if d.fix is not None and d.fix.edits:  # the editor's findings carry no edits; a check's are not stored
                return
        self._entries[key] = _Entry(spans, tuple(findings))


def names_only(d: Diagnostic, spans: Sequence[tuple[int, int, int]]) -> bool:
    """Whether every line the finding names lies in one of the kernels' `spans` ((offset, first line,
    last line)) and it names no host place (`file.py:41`): then it can move with those kernels."""
    if not all(any(first <= line <= last for _, first, last in spans) for line in lines_named(d)):
        return False
    return not any(HOST_REFERENCE.search(text) for text in texts(d))


def mentions(kernels: Sequence[KernelSource]) -> dict[str, set[str]]:
    """Per kernel (by name), the other jit functions of its file it names: every word of its text
    (comments and strings too), never fewer than it calls. Read once per kernel and run."""
    names = {kernel.name for kernel in kernels}
    return {kernel.name: set(_WORD.findall(kernel.text)) & names - {kernel.name} for kernel in kernels}


def closure_of(kernel: KernelSource, by_name: Mapping[str, KernelSource],
               named: Mapping[str, set[str]]) -> list[KernelSource]:
    """The kernel and the jit functions it names (`named`, from `mentions`), transitively: the
    kernel first, then in file order."""
    found = {kernel.name}
    pending = [kernel.name]
    while pending:
        for name in named.get(pending.pop(), ()):
            if name not in found:
                found.add(name)
                pending.append(name)
    rest = sorted((by_name[name] for name in found if name != kernel.name), key=lambda k: k.start_offset)
    return [kernel, *rest]


def memo_key(closure: Sequence[KernelSource], context: Hashable, host: str | None) -> Hashable | None:
    """What a kernel's findings depend on (`host`: the file's host code if one of the closure's
    kernels is launched in the file, else None); None for a kernel never remembered (a nested one:
    its enclosing function is host code that the key does not hold)."""
    if any(kernel.indented for kernel in closure):
        return None
    return (tuple(kernel.text for kernel in closure), context, host)


def host_code(text: str, kernels: Sequence[KernelSource]) -> str:
    """The text outside the kernels, each kernel one NUL character: what a launched kernel's findings
    depend on besides the kernels. Not where the kernels sit: a line inserted in one kernel changes no
    other's key (a finding that names a line outside its kernels is never kept)."""
    return kernels_replaced(text, kernels, lambda kernel: "\0")


def kernels_replaced(text: str, kernels: Sequence[KernelSource], by: Callable[[KernelSource], str]) -> str:
    """`text` with each kernel's text replaced by `by(kernel)` (the editor's host key, its blanked buffer)."""
    pieces = []
    previous = 0
    for kernel in sorted(kernels, key=lambda k: k.start_offset):
        pieces.append(text[previous:kernel.start_offset])
        pieces.append(by(kernel))
        previous = kernel.start_offset + len(kernel.text)
    pieces.append(text[previous:])
    return "".join(pieces)


def texts(diagnostic: Diagnostic) -> list[str]:
    return [diagnostic.message, *diagnostic.notes, *([diagnostic.fix.title] if diagnostic.fix else [])]


def lines_named(diagnostic: Diagnostic) -> list[int]:
    return [int(match.group(1)) for text in texts(diagnostic) for match in LINE_REFERENCE.finditer(text)]


def _last_line(kernel: KernelSource) -> int:
    return kernel.first_line + kernel.text.rstrip("\r\n").count("\n")


def _moved(diagnostic: Diagnostic, kernels: list[tuple[int, int, int, int]]) -> Diagnostic:
    """`diagnostic` moved with the kernel that holds it, each line it names with the kernel that
    holds that line (`kernels`: first line, last line, lines moved, characters moved)."""
    if not any(lines or offset for _, _, lines, offset in kernels):
        return diagnostic
    _, _, lines, offset = next(k for k in kernels if k[0] <= diagnostic.line <= k[1])
    return moved(diagnostic, offset, lines, [(first, last, move) for first, last, move, _ in kernels])


def moved(diagnostic: Diagnostic, offset: int, lines: int, kernels: list[tuple[int, int, int]]) -> Diagnostic:
    """`diagnostic` moved `offset` characters and `lines` lines; each line it names moved with the
    kernel that holds it (`kernels`: first line, last line and move of each). Shared by the editor's
    two reuses: a kernel group's findings (incremental) and one kernel's (this memo)."""
    if not (offset or lines or any(move for _, _, move in kernels)):
        return diagnostic

    def line_now(match: re.Match[str]) -> str:
        line = int(match.group(1))
        move = next(move for first, last, move in kernels if first <= line <= last)
        return f"line {line + move}"

    def renumber(text: str) -> str:
        return LINE_REFERENCE.sub(line_now, text)

    fix = diagnostic.fix
    if fix is not None:
        fix = replace(fix, title=renumber(fix.title),
                      edits=tuple(Edit(e.start + offset, e.end + offset, e.content) for e in fix.edits))
    return replace(diagnostic, message=renumber(diagnostic.message),
                   notes=tuple(renumber(note) for note in diagnostic.notes),
                   line=diagnostic.line + lines, end_line=diagnostic.end_line + lines,
                   start_offset=diagnostic.start_offset + offset, end_offset=diagnostic.end_offset + offset, fix=fix)
