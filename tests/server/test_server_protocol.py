"""`tritonlint server` protocol details, over stdio with a real LSP client (pytest-lsp): saves, UTF-16 positions."""

from __future__ import annotations

import asyncio
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

PUBLISH = types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS
SERVER_COMMAND = [str(Path(sys.executable).parent / "tritonlint"), "server"]

# A TL101 whose fix is safe (the store's mask bounds the same offsets); the string before the
# fix's insertion point holds a character outside the BMP: one code point, two UTF-16 units.
KERNEL = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def scale(X, Y, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(X + offs, eviction_policy="\U0001d518")
        tl.store(Y + offs, x * 2, mask=offs < n)
""")
FIXED_LINE = '    x = tl.load(X + offs, eviction_policy="\U0001d518", mask=offs < n, other=0)'


class RecordingClient(LanguageClient):
    """pytest-lsp's client, keeping every publishDiagnostics it receives, in order."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.published: list[types.PublishDiagnosticsParams] = []


def _record(client: RecordingClient, params: types.PublishDiagnosticsParams) -> None:
    client.published.append(params)


def _make_client() -> RecordingClient:
    client = RecordingClient(converter_factory=default_converter)
    register_lsp_features(client, {**DEFAULT_CLIENT_FEATURES, PUBLISH: _record})
    return client


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND, client_factory=_make_client))
async def client(lsp_client: RecordingClient):  # type: ignore[no-untyped-def]
    # VS Code's capabilities: positions in UTF-16 code units, the protocol's default.
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code")))
    yield
    await lsp_client.shutdown_session()


async def nth_publish(client: RecordingClient, uri: str, count: int, timeout: float = 60) -> types.PublishDiagnosticsParams:
    """The `count`-th publishDiagnostics for `uri` (1-based), waiting for it."""
    async def arrived() -> None:
        while sum(p.uri == uri for p in client.published) < count:
            await client.wait_for_notification(PUBLISH)

    await asyncio.wait_for(arrived(), timeout)
    return [p for p in client.published if p.uri == uri][count - 1]


def open_file(client: RecordingClient, path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=path.as_uri(), language_id="python", version=1, text=text)))
    return path.as_uri()


def utf16_index(line: str, units: int) -> int:
    """The Python index of the character `units` UTF-16 code units into `line`."""
    seen = 0
    for index, char in enumerate(line):
        if seen >= units:
            return index
        seen += 2 if ord(char) > 0xFFFF else 1
    return len(line)


def apply(text: str, edits: list[types.TextEdit]) -> str:
    lines = text.splitlines(keepends=True)

    def offset(position: types.Position) -> int:
        return sum(len(line) for line in lines[:position.line]) + utf16_index(lines[position.line], position.character)

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[:offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end):]
    return text


@pytest.mark.asyncio
async def test_a_save_of_the_same_version_is_checked_again(client: RecordingClient, tmp_path: Path) -> None:
    # The buffer is unchanged, but the configuration beside it changed: the save must re-publish.
    uri = open_file(client, tmp_path / "k.py", KERNEL)
    first = await nth_publish(client, uri, 1)
    assert [d.code for d in first.diagnostics] == ["TL101"]
    (tmp_path / "pyproject.toml").write_text('[tool.tritonlint]\nignore = ["TL101"]\n', encoding="utf-8")
    client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri=uri)))
    again = await nth_publish(client, uri, 2)
    assert (again.version, list(again.diagnostics)) == (1, [])


@pytest.mark.asyncio
async def test_the_quick_fix_lands_right_after_a_character_outside_the_bmp(client: RecordingClient,
                                                                          tmp_path: Path) -> None:
    uri = open_file(client, tmp_path / "k.py", KERNEL)
    (diagnostic,) = (await nth_publish(client, uri, 1)).diagnostics
    line = KERNEL.splitlines()[7]
    # The call ends after the string: its end is counted in UTF-16 units, one more than code points.
    assert (diagnostic.range.start.line, diagnostic.range.start.character) == (7, line.index("tl.load"))
    assert diagnostic.range.end.character == len(line.encode("utf-16-le")) // 2
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(uri=uri), diagnostic.range,
        types.CodeActionContext(diagnostics=[diagnostic])))
    fix = next(a for a in actions or [] if isinstance(a, types.CodeAction) and a.is_preferred)
    assert fix.edit is not None and fix.edit.changes is not None
    assert apply(KERNEL, fix.edit.changes[uri]).splitlines()[7] == FIXED_LINE
