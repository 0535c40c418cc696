"""`tritonlint server`: a language server over stdio (diagnostics, fixes, suppressions, hover); needs pygls."""

from __future__ import annotations

import ast
import asyncio
import logging
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from tritonlint import __version__
from tritonlint.diagnostics import Applicability, Diagnostic, Edit

if TYPE_CHECKING:
    from tritonlint.config import Config
    from tritonlint.incremental import IncrementalChecker
    from tritonlint.report import FileReport

# What the server needs only once a file is checked (the configuration's TOML reader, the
# suppression comments' tokenizer, the analysis) is imported then, on the analysis thread: the
# editor's `initialize` is answered after pygls and lsprotocol alone.

SOURCE = "tritonlint"
# Debouncing: an edit made after this long without one is checked at once; an edit made sooner
# (typing) waits until the buffer has been left alone this long, so a burst costs one check more.
DEBOUNCE_S = 0.1
# A code action cannot ask for text: the comment it adds says what to write in its place.
SUPPRESSION_REASON = "TODO: why this access is safe"
NOT_CHECKED_CODE, NOT_CHECKED_NAME = "TL001", "file-not-checked"


@dataclass(frozen=True)
class Finding:
    """A finding of one checked version, with its range in the client's units."""

    diagnostic: Diagnostic
    range: types.Range


@dataclass(frozen=True)
class Result:
    version: int
    text: str
    findings: tuple[Finding, ...]
    problems: tuple[str, ...]  # internal errors and configuration errors: shown, not diagnostics


@dataclass
class Document:
    uri: str
    path: str
    version: int  # the newest version received
    published: int = -1  # the version whose diagnostics were published last
    result: Result | None = None  # of the version published last
    checker: IncrementalChecker | None = None  # used on the analysis thread only
    pending: asyncio.Task[None] | None = None
    last_change: float = field(default_factory=time.monotonic)
    problems_shown: set[str] = field(default_factory=set)


class TritonlintServer(LanguageServer):
    """Checks open buffers as they change; publishes only the newest version's findings."""

    def __init__(self) -> None:
        super().__init__("tritonlint", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.documents: dict[str, Document] = {}
        # One analysis thread: two checks at once would only share the GIL, and the engine's
        # process-wide switches (collector paused, libcst validation off) must never interleave.
        self.analysis = ThreadPoolExecutor(1, thread_name_prefix="tritonlint-check")

    def schedule(self, document: Document, delay: float) -> None:
        """Check `document`'s current version after `delay`; a check still waiting is dropped."""
        if document.pending is not None:
            document.pending.cancel()
        document.pending = asyncio.ensure_future(self._check_later(document, document.version, delay))

    async def _check_later(self, document: Document, version: int, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)  # cancelled here by the next edit: never checked
        try:
            result = await self.check_now(document, version)
        except asyncio.CancelledError:
            # The thread cannot be stopped mid-check; what it finds is thrown away.
            self._dropped(document, version)
            raise
        if result is not None:
            self.publish(document, result)

    def _dropped(self, document: Document, version: int) -> None:
        self.window_log_message(types.LogMessageParams(
            types.MessageType.Log,
            f"tritonlint: dropped the check of version {version} of {document.uri} "
            f"(version {document.version} is newer)"))

    async def check_now(self, document: Document, version: int) -> Result | None:
        """`document` at `version` checked on the analysis thread; None when a newer version came first."""
        text = self.workspace.get_text_document(document.uri).source
        units = self.workspace.position_codec.client_num_units
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.analysis, self._analyse, document, version, text, units)

    def _analyse(self, document: Document, version: int, text: str, units: Callable[[str], int]) -> Result | None:
        if version != document.version:
            return None  # edited again while this waited for the thread: that check comes next
        # The analysis (libcst, the rules) is imported here, on the analysis thread, on the first
        # check: the server answers `initialize` without waiting for it.
        from tritonlint.incremental import IncrementalChecker

        config, problems = self._config(document)
        if document.checker is None or document.checker.config != config:
            if document.checker is not None:
                document.checker.release()
            # Fixes left out: computed when a code action or a hover asks for one (`completed`).
            document.checker = IncrementalChecker(document.path, config, fixes=False)
        try:
            report = document.checker.check(text)
        except Exception as error:  # noqa: BLE001  (an engine bug must not take the editor's server down)
            document.checker = None
            return Result(version, text, (), (*problems, f"internal error: {type(error).__name__}: {error}"))
        return Result(version, text, tuple(_findings(report, text, units)), (*problems, *report.crashes))

    def _config(self, document: Document) -> tuple[Config, tuple[str, ...]]:
        """The configuration `check` would use for this file: the nearest pyproject.toml above it."""
        from tritonlint.config import Config, ConfigError, find_pyproject, load_config

        start = Path(document.path) if Path(document.path).is_absolute() else Path.cwd()
        try:
            return load_config(find_pyproject(start)), ()
        except ConfigError as error:
            return Config(), (f"{error}; checking with the default configuration",)

    def publish(self, document: Document, result: Result) -> None:
        """Publish `result` unless the document moved on or a newer version was published already."""
        if self.documents.get(document.uri) is not document:
            return  # closed meanwhile
        if result.version != document.version or result.version < document.published:
            self._dropped(document, result.version)
            return
        document.result = result
        document.published = result.version
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            document.uri, [_lsp_diagnostic(finding) for finding in result.findings], version=result.version))
        for problem in result.problems:
            if problem not in document.problems_shown:  # once per document, not on every keystroke
                document.problems_shown.add(problem)
                self.window_show_message(types.ShowMessageParams(types.MessageType.Error, f"tritonlint: {problem}"))

    async def completed(self, document: Document, result: Result,
                        findings: Sequence[Finding]) -> list[Diagnostic]:
        """The findings' diagnostics with their fixes (and the notes only a fix writes), computed
        now on the analysis thread, from the analysis that found them when it is still at hand."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.analysis, self._complete, document, result.text,
                                          [finding.diagnostic for finding in findings])

    def _complete(self, document: Document, text: str, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
        from tritonlint.incremental import IncrementalChecker

        checker = document.checker
        if checker is None:  # the last check crashed: a whole check of the text, with fixes
            checker = IncrementalChecker(document.path, self._config(document)[0], fixes=False)
        completed = []
        for diagnostic in diagnostics:
            try:
                completed.append(diagnostic if diagnostic.code == NOT_CHECKED_CODE
                                 else checker.complete(diagnostic, text))
            except Exception:  # noqa: BLE001  (a finding without its fix beats no code action)
                completed.append(diagnostic)
        return completed

    async def current(self, uri: str) -> Result | None:
        """The findings of the document's current version (checked now if they are not published yet)."""
        document = self.documents.get(uri)
        if document is None:
            return None
        if document.result is not None and document.result.version == document.version:
            return document.result
        return await self.check_now(document, document.version)


server = TritonlintServer()


@server.feature(types.INITIALIZED)
def initialized(ls: TritonlintServer, params: types.InitializedParams) -> None:
    # The analysis's modules loaded while the editor opens its first file, not when it is opened.
    ls.analysis.submit(_load_the_analysis)


def _load_the_analysis() -> None:
    import tritonlint.config
    import tritonlint.incremental
    import tritonlint.rule
    import tritonlint.suppressions

    tritonlint.rule.all_rules()


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: TritonlintServer, params: types.DidOpenTextDocumentParams) -> None:
    item = params.text_document
    path = to_fs_path(item.uri) or item.uri
    document = Document(item.uri, path, item.version)
    ls.documents[item.uri] = document
    ls.schedule(document, 0)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: TritonlintServer, params: types.DidChangeTextDocumentParams) -> None:
    document = ls.documents.get(params.text_document.uri)
    if document is None:
        return
    document.version = params.text_document.version
    now = time.monotonic()
    idle = now - document.last_change >= DEBOUNCE_S and (document.pending is None or document.pending.done())
    document.last_change = now
    ls.schedule(document, 0 if idle else DEBOUNCE_S)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: TritonlintServer, params: types.DidSaveTextDocumentParams) -> None:
    # The text is what was checked already; the configuration beside it may have changed.
    document = ls.documents.get(params.text_document.uri)
    if document is not None:
        ls.schedule(document, 0)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: TritonlintServer, params: types.DidCloseTextDocumentParams) -> None:
    document = ls.documents.pop(params.text_document.uri, None)
    if document is not None and document.pending is not None:
        document.pending.cancel()
    if document is not None and document.checker is not None:
        ls.analysis.submit(document.checker.release)  # its syntax trees freed now, on the thread that uses them
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(params.text_document.uri, []))


@server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
async def code_action(ls: TritonlintServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
    result = await ls.current(params.text_document.uri)
    document = ls.documents.get(params.text_document.uri)
    if result is None or document is None:
        return None
    actions: list[types.CodeAction] = []
    from tritonlint.source.outline import line_starts  # loaded by the first check already
    from tritonlint.suppressions import add_suppressions

    starts = line_starts(result.text)
    units = ls.workspace.position_codec.client_num_units
    shown = [finding for finding in result.findings
             if _overlaps(finding.range, params.range) and finding.diagnostic.code != NOT_CHECKED_CODE]
    # Only the fixes asked for are computed, for exactly these findings.
    for finding, complete in zip(shown, await ls.completed(document, result, shown)):
        diagnostics = [_lsp_diagnostic(finding)]  # as published: how the client knows it
        fix = complete.fix
        if fix is not None and fix.edits and fix.applicability != Applicability.DISPLAY_ONLY:
            safe = fix.applicability == Applicability.SAFE
            actions.append(types.CodeAction(
                title=f"{fix.title} ({finding.diagnostic.code})" + ("" if safe else " (unsafe fix)"),
                kind=types.CodeActionKind.QuickFix, diagnostics=diagnostics, is_preferred=safe,
                edit=_workspace_edit(params.text_document.uri, result.text, starts, fix.edits, units)))
        suppressed, _count = add_suppressions(result.text, [finding.diagnostic], SUPPRESSION_REASON)
        actions.append(types.CodeAction(
            title=f"Suppress {finding.diagnostic.code} on this line, with a reason",
            kind=types.CodeActionKind.QuickFix, diagnostics=diagnostics,
            edit=_workspace_edit(params.text_document.uri, result.text, starts,
                                 [_difference(result.text, suppressed)], units)))
    return actions


@server.feature(types.TEXT_DOCUMENT_HOVER)
async def hover(ls: TritonlintServer, params: types.HoverParams) -> types.Hover | None:
    result = await ls.current(params.text_document.uri)
    if result is None:
        return None
    here = types.Range(params.position, params.position)
    shown = [finding for finding in result.findings if _overlaps(finding.range, here)]
    document = ls.documents.get(params.text_document.uri)
    if not shown or document is None:
        return None
    reasons: list[str] = []
    if shown[0].diagnostic.code != NOT_CHECKED_CODE:
        # The analysis's reasons (`check --explain`), on the analysis thread: it builds every model.
        config, _ = ls._config(document)
        reasons = await asyncio.get_running_loop().run_in_executor(
            ls.analysis, _reasons, document.path, result.text, shown[0].diagnostic.line, config)
    complete = await ls.completed(document, result, shown)  # with their fixes
    return types.Hover(types.MarkupContent(types.MarkupKind.Markdown,
                                           "\n\n---\n\n".join(hover_text(diagnostic, reasons)
                                                                  for diagnostic in complete)),
                       range=shown[0].range)


def _reasons(path: str, text: str, line: int, config: Config) -> list[str]:
    from tritonlint.explain import explain_source

    try:
        lines, _ = explain_source(path, text, line, config)
    except Exception:  # noqa: BLE001  (a hover without reasons beats no hover)
        return []
    return lines


def hover_text(diagnostic: Diagnostic, reasons: Sequence[str] = ()) -> str:
    """Markdown for a finding: what it is and why it was reported (its notes), its fix, and the
    analysis's reasons for every access on its line (`check --explain`)."""
    lines = [f"**{diagnostic.code}** `{diagnostic.name}`: {diagnostic.message}", ""]
    lines.extend(f"- {note}" for note in diagnostic.notes)
    if diagnostic.fix is not None:
        lines.extend(["", f"Fix ({diagnostic.fix.applicability.value}): {diagnostic.fix.title}"])
    if reasons:
        lines.extend(["", "Why (`tritonlint check --explain`):", "```text", *reasons, "```"])
    if diagnostic.code != NOT_CHECKED_CODE:
        lines.extend(["", f"`tritonlint rule {diagnostic.code}` documents the rule."])
    return "\n".join(lines)


def _findings(report: FileReport, text: str, units: Callable[[str], int]) -> list[Finding]:
    from tritonlint.source.outline import line_starts  # loaded by the check that made `report`

    starts = line_starts(text)
    diagnostics = list(report.diagnostics)
    if report.errors and not any(d.code == NOT_CHECKED_CODE for d in diagnostics):
        diagnostics.extend(_not_checked(report, text, starts))
    return [Finding(d, types.Range(_position(text, starts, d.line - 1, d.column - 1, units),
                                   _position(text, starts, d.end_line - 1, d.end_column - 1, units)))
            for d in diagnostics]


def _not_checked(report: FileReport, text: str, starts: Sequence[int]) -> list[Diagnostic]:
    """A buffer the engine could not check (a syntax error while typing) as a finding at the error."""
    line, column = 1, 1
    try:
        ast.parse(text)
    except SyntaxError as error:
        line = min(max(error.lineno or 1, 1), len(starts))
        column = max(error.offset or 1, 1)
    except (ValueError, RecursionError):
        pass
    prefix = f"{report.path}:"
    message = "; ".join(error.removeprefix(prefix).lstrip("0123456789: ") for error in report.errors)
    return [Diagnostic(NOT_CHECKED_CODE, NOT_CHECKED_NAME, f"not checked: {message}", report.path,
                       line, column, line, column)]


def _position(text: str, starts: Sequence[int], line: int, column: int, units: Callable[[str], int]) -> types.Position:
    """0-based line and code-point column as an LSP position (the client's units: UTF-16 by default)."""
    line = min(max(line, 0), len(starts) - 1)
    begin = starts[line]
    return types.Position(line, units(text[begin:begin + max(column, 0)]))


def _offset_position(text: str, starts: Sequence[int], offset: int, units: Callable[[str], int]) -> types.Position:
    from bisect import bisect_right

    line = bisect_right(starts, offset) - 1
    return _position(text, starts, line, offset - starts[line], units)


def _workspace_edit(uri: str, text: str, starts: Sequence[int], edits: Sequence[Edit],
                    units: Callable[[str], int]) -> types.WorkspaceEdit:
    return types.WorkspaceEdit(changes={uri: [
        types.TextEdit(types.Range(_offset_position(text, starts, edit.start, units),
                                   _offset_position(text, starts, edit.end, units)), edit.content)
        for edit in edits]})


def _difference(before: str, after: str) -> Edit:
    """The one edit turning `before` into `after` (their common head and tail left alone)."""
    head = 0
    limit = min(len(before), len(after))
    while head < limit and before[head] == after[head]:
        head += 1
    tail = 0
    while tail < limit - head and before[-1 - tail] == after[-1 - tail]:
        tail += 1
    return Edit(head, len(before) - tail, after[head:len(after) - tail])


def _overlaps(a: types.Range, b: types.Range) -> bool:
    def key(position: types.Position) -> tuple[int, int]:
        return (position.line, position.character)

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


def _lsp_diagnostic(finding: Finding) -> types.Diagnostic:
    """The message and the notes. The fix is not computed until asked for (it costs more than the
    finding): it is the code action's title, and the hover says it with its applicability."""
    d = finding.diagnostic
    lines = [d.message, *(f"note: {note}" for note in d.notes)]
    return types.Diagnostic(
        range=finding.range, message="\n".join(lines), code=d.code, source=SOURCE,
        severity=types.DiagnosticSeverity.Error if d.code == NOT_CHECKED_CODE else types.DiagnosticSeverity.Warning)


def serve(stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> int:
    """Run the server on stdin/stdout (or these streams) until the client says exit."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="tritonlint server: %(message)s")
    server.start_io(stdin, stdout)
    return 0
