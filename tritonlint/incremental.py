"""Checking one buffer again and again as it is edited: kernels that did not change are not re-analysed."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, replace

import libcst as cst

from tritonlint.config import Config
from tritonlint.deferred_fixes import DeferredFixes, Key, key_of
from tritonlint.diagnostics import Diagnostic
from tritonlint.engine import check_source, collector_paused
from tritonlint.kernel_memo import (
    KernelMemo,
    host_code,
    kernels_replaced,
    moved,
    names_only,
)
from tritonlint.kernel_splice import spliced
from tritonlint.report import FileReport
from tritonlint.semantic.host.launch_cache import LaunchMemo, reusing_launches
from tritonlint.semantic.host.launches import launch_pattern
from tritonlint.source.groups import kernel_groups
from tritonlint.source.locations import StatementRanks, reusing_ranks
from tritonlint.source.outline import (
    NESTED_PREFIX,
    KernelSource,
    Outline,
    might_hold_kernels,
    outline,
)
from tritonlint.source.parsed import seed_blanked
from tritonlint.suppressions import Suppression, file_suppressions

_NOT_NEWLINE = re.compile(r"[^\r\n]")


@dataclass(frozen=True)
class _Kept:
    """A group's findings from an earlier run, and where each of its kernels started then."""

    # Per kernel of the group, in order: its start offset, first line and last line then.
    spans: tuple[tuple[int, int, int], ...]
    diagnostics: tuple[tuple[int, Diagnostic], ...]  # each with the index of the kernel it lies in


class IncrementalChecker:
    """`check_source` for one buffer: the same report's findings, after an edit mostly from memory.

    The engine gives each kernel only its own text, the file's imports, the configuration, the
    file's other jit functions (the helpers it calls) and the launches in the file's host code; of
    the rest of the file only a file-level `# tritonlint: noqa` changes what is reported. The
    kernels are split into groups by a dependency graph: two kernels that name each other (a
    helper and its caller, transitively) are in one group. A group whose kernels' texts, the
    imports and the file-level suppressions stay the same (and, for a group the host code launches,
    the host code too, wherever the kernels now sit in it) has the same findings, moved. A finding
    outside every kernel (a launch's predicate, reported once for all the kernels it sets) keeps
    every launched group from being reused next time. Such groups are blanked out
    of the text the engine sees (spaces; line breaks kept, so every other offset and line stays
    where it is) and their earlier findings are shifted to where their kernels now start, the
    lines they name ("the loop at line 9") too. A group with a finding that names a line or edits
    text outside its own kernel is always analysed.

    Without `fixes` (the editor's mode), the reports leave the fixes of accesses out (and the notes
    only a fix writes): `complete` computes one diagnostic's when a code action asks for it. Then,
    within a group analysed again, a kernel whose own text, the helpers it names and the launches
    feeding it are unchanged has its findings replayed by the engine (`kernel_memo`): only the
    edited kernel and its callers go through the rules again.
    """

    def __init__(self, path: str, config: Config, *, fixes: bool = True) -> None:
        self.path = path
        self.config = config
        self.fixes = fixes
        self._kept: dict[tuple[object, ...], _Kept] = {}
        # Kernels analysed by the engine in the last run (the rest came from memory); for tests
        # and the benchmark, which must tell a reused result from a recomputed one.
        self.analysed: tuple[str, ...] = ()
        self.replayed: tuple[str, ...] = ()
        # Without fixes: the last run's text, its kernels, how to complete the diagnostics the
        # engine found in it, and the diagnostics completed so far.
        self._text: str | None = None
        self._kernels: list[list[KernelSource]] = []
        self._deferred = DeferredFixes()
        self._completed: dict[Key, Diagnostic] = {}
        # Each kernel's libcst tree by its source (as the engine parses it), for the kernels of the
        # last run: a group analysed again after an edit of one kernel re-parses only that one.
        self._parses: dict[str, cst.Module] = {}
        # The last run's kernels by name (names given to one kernel only): an edited kernel's new
        # tree is its old one with the edited statements parsed again (`kernel_splice`).
        self._previous: dict[str, KernelSource] = {}
        # The findings' places: the ranked nodes under each statement, kept by the statement node
        # (shared by the trees of successive versions), so only edited statements are walked again.
        self._ranks = StatementRanks()
        # Each kernel's findings by what they depend on: within a group analysed again, a kernel
        # that the edit did not reach is not run through the rules again.
        self._memo = KernelMemo()
        # The buffer's launches, kept while its host code and kernel headers stay (an edit inside a
        # kernel's body moves the host lines below it, and the launches with them).
        self._launches = LaunchMemo()

    @collector_paused()  # as in the engine: the outline's syntax tree would wake the collector for nothing
    def check(self, text: str) -> FileReport:
        self._deferred.release()
        self._deferred, self._completed, self._text, self._kernels = DeferredFixes(), {}, text, []
        try:
            found = outline(text)
        except (SyntaxError, ValueError, RecursionError):
            self._kept = {}  # the engine reports why it cannot check the text
            self.analysed = ()
            return self._engine(text)
        context = (_file_noqa(file_suppressions(text)), tuple(sorted(found.imports.bindings.items())))
        launched = _launched_here(_blank(text, found.kernels), found.kernels, found.aliases)
        groups = kernel_groups(found.kernels)
        self._kernels = groups
        host = host_code(text, found.kernels)
        keys = [_group_key(group, context, host, launched) for group in groups]
        blanked: list[KernelSource] = []
        reused: list[Diagnostic] = []
        for group, key in zip(groups, keys):
            kept = self._kept.get(key) if key is not None else None
            if kept is None:
                continue
            blanked.extend(group)
            lines = [(first, last, kernel.first_line - first) for (_, first, last), kernel in zip(kept.spans, group)]
            for index, diagnostic in kept.diagnostics:
                reused.append(moved(diagnostic, group[index].start_offset - kept.spans[index][0],
                                     group[index].first_line - kept.spans[index][1], lines))
        skipped = {id(kernel) for kernel in blanked}
        self._splice([kernel for kernel in found.kernels if id(kernel) not in skipped], found.kernels)
        shown = _blank(text, blanked)
        if all(kernel.function is not None for kernel in blanked):
            # Its tree is the buffer's without the blanked kernels: not parsed again.
            seed_blanked(text, shown, [kernel.function for kernel in blanked if kernel.function is not None])
        # (The buffer's own outline, when nothing is blanked: the engine's would be the same.)
        report = self._engine(shown, found if shown is text and might_hold_kernels(text) else None)
        # Only the trees of the kernels now in the buffer are kept (an edited kernel's old tree goes).
        sources = {NESTED_PREFIX + k.text if k.indented else k.text for k in found.kernels}
        self._parses = {source: tree for source, tree in self._parses.items() if source in sources}
        self._memo.prune({k.text for k in found.kernels})
        self.analysed = tuple(kernel.name for kernel in found.kernels if id(kernel) not in skipped)
        # Of those, the kernels whose findings the engine replayed from memory (no rule ran on them).
        self.replayed = tuple(self._memo.replayed)
        kept_now: dict[tuple[object, ...], _Kept] = {}
        if not (report.errors or report.crashes):
            everything = (*report.diagnostics, *reused)
            # A finding outside every kernel (on a launch) comes from the group the host code
            # names, and would not move with it: that group is analysed again next time.
            inside = [(k.start_offset, k.start_offset + len(k.text)) for k in found.kernels]
            stray = any(not any(begin <= d.start_offset < end for begin, end in inside) for d in everything)
            for group, key in zip(groups, keys):
                if key is not None and not (stray and key[-1]):
                    kept = _keep(group, everything)
                    if kept is not None:
                        kept_now[key] = kept
        self._kept = kept_now
        diagnostics = tuple(sorted((*report.diagnostics, *reused), key=Diagnostic.sort_key))
        return replace(report, diagnostics=diagnostics, text=text)

    def _splice(self, kernels: list[KernelSource], every: list[KernelSource]) -> None:
        """Trees for the `kernels` to analyse that an edit changed, from their previous trees where
        the edit can be spliced in (the engine parses the others whole); then remember `every` kernel."""
        previous = self._previous
        for kernel in kernels:
            old = previous.get(kernel.name)
            if kernel.indented or kernel.text in self._parses or old is None:
                continue
            tree = self._parses.get(old.text)
            try:
                fresh = spliced(old, tree, kernel) if tree is not None else None
            except Exception:  # noqa: BLE001  (a splice that fails costs a whole parse, never the check)
                fresh = None
            if fresh is not None:
                self._parses[kernel.text] = fresh
        names = Counter(kernel.name for kernel in every)
        self._previous = {kernel.name: kernel for kernel in every if names[kernel.name] == 1}

    def _engine(self, text: str, found: Outline | None = None) -> FileReport:
        with reusing_ranks(self._ranks), reusing_launches(self._launches):
            return check_source(self.path, text, self.config, deferred=None if self.fixes else self._deferred,
                                parses=self._parses, memo=self._memo, found=found)

    def release(self) -> None:
        """Free the last run's analysis now (it is kept for `complete`)."""
        self._deferred.release()
        self._completed = {}

    def complete(self, diagnostic: Diagnostic, text: str) -> Diagnostic:
        """`diagnostic`, reported for `text`, with its fix (and the notes only the fix writes), as a
        check with fixes gives it. From the last run's analysis when the engine found it there; else
        its kernel's group is analysed again with fixes, the rest of the file left out; else (a
        text the last run did not check) the whole text."""
        if self.fixes:
            return diagnostic
        key = key_of(diagnostic)
        if text == self._text and key in self._completed:
            return self._completed[key]
        full = self._deferred.complete(diagnostic) if text == self._text else None
        if full is None:
            group = next((group for group in self._kernels if any(
                k.start_offset <= diagnostic.start_offset < k.start_offset + len(k.text) for k in group)), None)
            others = [k for other in self._kernels if other is not group for k in other] if group else []
            if text != self._text:
                others = []
            with collector_paused():
                report = check_source(self.path, _blank(text, others), self.config)
            full = next((d for d in report.diagnostics if key_of(d) == key), diagnostic)
        if text == self._text:
            self._completed[key] = full
        return full


def _group_key(group: list[KernelSource], context: tuple[object, ...], host: str,
               launched: set[str]) -> tuple[object, ...] | None:
    """What a group's findings depend on; None for a group that is always analysed (a nested kernel:
    its enclosing function is host code that the group does not hold)."""
    if any(kernel.indented for kernel in group):
        return None
    here = any(kernel.name in launched for kernel in group)
    return (tuple(kernel.text for kernel in group), *context, host if here else "")


def _keep(group: list[KernelSource], diagnostics: tuple[Diagnostic, ...]) -> _Kept | None:
    """The group's findings, each with its kernel, if every one stays inside the group (the lines it
    names, in any of the group's kernels) and inside its own kernel (the text its fix edits): then
    they move with the group. Else None."""
    spans = tuple((k.start_offset, k.first_line, _last_line(k)) for k in group)
    own: list[tuple[int, Diagnostic]] = []
    for index, kernel in enumerate(group):
        begin, end = kernel.start_offset, kernel.start_offset + len(kernel.text)
        for d in diagnostics:
            if not begin <= d.start_offset < end:
                continue
            if not names_only(d, spans):
                return None
            if d.fix is not None and not all(begin <= e.start and e.end <= end for e in d.fix.edits):
                return None
            own.append((index, d))
    return _Kept(spans, tuple(own))


def _last_line(kernel: KernelSource) -> int:
    return kernel.first_line + kernel.text.rstrip("\r\n").count("\n")


def _launched_here(host: str, kernels: list[KernelSource], aliases: Mapping[str, str]) -> set[str]:
    """Kernels the file's host code launches (`k[grid](...)`, or through an alias `k2 = k`): their
    findings depend on the launch's grid and arguments (TL101-TL103, TL111/TL112), so an edit
    outside the kernel can change them."""
    names = {kernel.name: kernel.name for kernel in kernels}
    names |= {alias: name for alias, name in aliases.items() if name in names}
    if not names:
        return set()
    return {names[match.group(0)[:-1].rstrip()] for match in launch_pattern(list(names)).finditer(host)}


def _file_noqa(noqa: Suppression | None) -> str:
    """The file-level suppressions as part of a key: which codes they hide, not on which line."""
    if noqa is None:
        return ""
    return "*" if noqa.codes is None else ",".join(sorted(noqa.codes))


def _blank(text: str, kernels: list[KernelSource]) -> str:
    """`text` with each kernel's characters turned into spaces, its line breaks kept."""
    if not kernels:
        return text
    return kernels_replaced(text, kernels, lambda kernel: _NOT_NEWLINE.sub(" ", kernel.text))
