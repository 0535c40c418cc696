"""`tritonlint server` end to end: a real LSP client (pytest-lsp) driving the server process over stdio."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from tritonlint.config import Config
from tritonlint.engine import fix_source

# The README's first example: one TL101 at 15:17 (a safe fix: the lanes its mask switches off reach only a sum).
DOT = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def dot(X, W, Y, K, BLOCK_K: tl.constexpr, EVEN_K: tl.constexpr):
        offs = tl.arange(0, BLOCK_K)
        acc = tl.zeros([BLOCK_K], dtype=tl.float32)
        for k in range(0, K, BLOCK_K):
            if EVEN_K:
                x = tl.load(X + k + offs)
                w = tl.load(W + k + offs)
            else:
                x = tl.load(X + k + offs, mask=k + offs < K, other=0.0)
                w = tl.load(W + k + offs)
            acc += x * w
        tl.store(Y, tl.sum(acc, axis=0))
""")

# A TL101 whose fix is safe: the sibling store's mask bounds the same offsets.
SCALE = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def scale(X, Y, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(X + offs)
        tl.store(Y + offs, x * 2, mask=offs < n)
""")

PUBLISH = types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS


class RecordingClient(LanguageClient):
    """pytest-lsp's client, keeping every publishDiagnostics it receives, in order."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.published: list[types.PublishDiagnosticsParams] = []


def _record(client: RecordingClient, params: types.PublishDiagnosticsParams) -> None:
    client.diagnostics[params.uri] = params.diagnostics
    client.published.append(params)


def _make_client() -> RecordingClient:
    client = RecordingClient(converter_factory=default_converter)
    register_lsp_features(client, {**DEFAULT_CLIENT_FEATURES, PUBLISH: _record})
    return client


README = Path(__file__).resolve().parents[2] / "README.md"


def readme_commands() -> dict[str, list[str]]:
    """The server command lines of the README's editor snippets: VS Code's settings.json, Neovim's init.lua."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Editors: `tritonlint server`"):]
    vscode_block = re.search(r"```json\n(.*?)```", section, re.DOTALL)
    neovim_block = re.search(r"```lua\n(.*?)```", section, re.DOTALL)
    assert vscode_block and neovim_block, "the README's editor snippets moved"
    settings = json.loads(vscode_block.group(1))
    cmd = re.search(r"\bcmd = \{([^}]*)\}", neovim_block.group(1))
    assert cmd, neovim_block.group(1)
    return {"vscode": [settings["glspc.server.command"], *settings["glspc.server.commandArguments"]],
            "neovim": re.findall(r'"([^"]*)"', cmd.group(1))}


# Every test here starts the server with the README's own command line, the console script taken from
# this interpreter's environment (where `pip install` puts it), so the snippets stay true.
SERVER = readme_commands()["vscode"]
SERVER_COMMAND = [str(Path(sys.executable).parent / SERVER[0]), *SERVER[1:]]


def test_the_readme_snippets_start_the_server_these_tests_start() -> None:
    commands = readme_commands()
    assert commands["vscode"] == commands["neovim"] == ["tritonlint", "server"]
    assert Path(SERVER_COMMAND[0]).is_file(), f"{SERVER_COMMAND[0]}: install the package (pip install -e .)"


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND,
                                              client_factory=_make_client))
async def client(lsp_client: RecordingClient):  # type: ignore[no-untyped-def]
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code")))
    yield
    await lsp_client.shutdown_session()


async def published(client: RecordingClient, uri: str, version: int, timeout: float = 60) -> list[types.Diagnostic]:
    """The diagnostics published for `uri` at `version` (waits for them)."""
    async def arrived() -> None:
        while not any(p.uri == uri and p.version == version for p in client.published):
            await client.wait_for_notification(PUBLISH)

    await asyncio.wait_for(arrived(), timeout)
    return list([p for p in client.published if p.uri == uri and p.version == version][-1].diagnostics)


def open_document(client: RecordingClient, path: Path, text: str, version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)))
    return uri


def change(client: RecordingClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        [types.TextDocumentContentChangeWholeDocument(text=text)]))


def apply(text: str, edits: list[types.TextEdit]) -> str:
    """The text with LSP edits applied (ASCII text: characters are code points)."""
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))

    def offset(position: types.Position) -> int:
        return starts[position.line] + position.character

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[:offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end):]
    return text


async def actions_at(client: RecordingClient, uri: str, diagnostic: types.Diagnostic) -> list[types.CodeAction]:
    result = await client.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(uri), diagnostic.range, types.CodeActionContext([diagnostic])))
    assert result is not None
    return [action for action in result if isinstance(action, types.CodeAction)]


def edits_of(action: types.CodeAction, uri: str) -> list[types.TextEdit]:
    assert action.edit is not None and action.edit.changes is not None
    return [edit for edit in action.edit.changes[uri] if isinstance(edit, types.TextEdit)]


@pytest.mark.asyncio
async def test_round_trip_open_fix_edit_clears(client: RecordingClient, tmp_path: Path) -> None:
    start = time.perf_counter()
    uri = open_document(client, tmp_path / "dot.py", DOT)
    [diagnostic] = await published(client, uri, 1)
    opened = time.perf_counter() - start
    assert (diagnostic.code, diagnostic.source) == ("TL101", "tritonlint")
    # The CLI's 15:17 (1-based), 0-based for LSP; the end is just past the call.
    assert (diagnostic.range.start.line, diagnostic.range.start.character) == (14, 16)
    assert (diagnostic.range.end.line, diagnostic.range.end.character) == (14, 37)
    assert diagnostic.severity == types.DiagnosticSeverity.Warning
    assert "note: reachable when EVEN_K is False" in diagnostic.message
    # The fix is computed when a code action or a hover asks for it, not on every edit.
    assert "help:" not in diagnostic.message

    start = time.perf_counter()
    actions = await actions_at(client, uri, diagnostic)
    answered = time.perf_counter() - start
    fix = next(action for action in actions if "Mask the load" in action.title)
    assert fix.title.endswith("(TL101)") and fix.is_preferred  # proven safe: no "(unsafe fix)"
    assert fix.kind == types.CodeActionKind.QuickFix
    fixed = apply(DOT, edits_of(fix, uri))
    # The editor's fix is the command line's `--fix --unsafe-fixes`, byte for byte.
    assert fixed == fix_source("dot.py", DOT, Config(), unsafe=True).fixed_text

    start = time.perf_counter()
    change(client, uri, 2, fixed)
    assert await published(client, uri, 2) == []
    cleared = time.perf_counter() - start
    print(f"\nround trip: open -> TL101 {opened * 1000:.0f} ms, code actions {answered * 1000:.0f} ms, "
          f"edit -> cleared {cleared * 1000:.0f} ms")

    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
    await client.wait_for_notification(PUBLISH)
    assert list(client.diagnostics[uri]) == []


@pytest.mark.asyncio
async def test_safe_fix_is_the_preferred_action(client: RecordingClient, tmp_path: Path) -> None:
    uri = open_document(client, tmp_path / "scale.py", SCALE)
    [diagnostic] = await published(client, uri, 1)
    assert diagnostic.range.start.line == 7
    actions = await actions_at(client, uri, diagnostic)
    assert [(action.title, action.is_preferred) for action in actions] == [
        ("Mask the load with `offs < n` (the mask of the tl.store at line 9); the lanes it switches off reach "
         "only the tl.store at line 9 (its mask drops them) (TL101)", True),
        ("Suppress TL101 on this line, with a reason", None),
    ]
    fixed = apply(SCALE, edits_of(actions[0], uri))
    assert "    x = tl.load(X + offs, mask=offs < n, other=0)\n" in fixed
    change(client, uri, 2, fixed)
    assert await published(client, uri, 2) == []


@pytest.mark.asyncio
async def test_suppression_action_adds_a_comment_with_a_reason(client: RecordingClient, tmp_path: Path) -> None:
    uri = open_document(client, tmp_path / "dot.py", DOT)
    [diagnostic] = await published(client, uri, 1)
    actions = await actions_at(client, uri, diagnostic)
    suppress = next(action for action in actions if action.title.startswith("Suppress"))
    suppressed = apply(DOT, edits_of(suppress, uri))
    assert suppressed.splitlines()[14] == (
        "            w = tl.load(W + k + offs)  # tritonlint: ignore[TL101] TODO: why this access is safe")
    assert suppressed.splitlines()[:14] == DOT.splitlines()[:14]
    change(client, uri, 2, suppressed)
    assert await published(client, uri, 2) == []


@pytest.mark.asyncio
async def test_hover_shows_the_message_and_notes(client: RecordingClient, tmp_path: Path) -> None:
    uri = open_document(client, tmp_path / "dot.py", DOT)
    [diagnostic] = await published(client, uri, 1)
    hover = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri), types.Position(14, 20)))
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert hover.contents.kind == types.MarkupKind.Markdown
    text = hover.contents.value
    assert text.startswith("**TL101** `unmasked-tail-load`: tl.load can read past the end")
    assert "- reachable when EVEN_K is False" in text
    assert "- walks `offs` (tiles of BLOCK_K), advanced by the loop at line 9" in text
    # The fix, computed for this hover (the published diagnostic does not carry it).
    assert ("Fix (safe): Mask the load with `offs < K - k` (derived from the loop bound); the lanes it switches "
            "off reach only `tl.sum` (line 17) as 0") in text
    # The analysis's reasons, as `check --explain` prints them for the line.
    assert "Why (`tritonlint check --explain`):" in text
    assert "    unbounded: reachable when EVEN_K is False" in text
    assert hover.range == diagnostic.range
    nothing = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri), types.Position(10, 20)))  # the masked-by-flag load above
    assert nothing is None


@pytest.mark.asyncio
async def test_configuration_from_the_nearest_pyproject(client: RecordingClient, tmp_path: Path) -> None:
    configured = tmp_path / "configured"
    (configured / "sub").mkdir(parents=True)
    (configured / "pyproject.toml").write_text('[tool.tritonlint]\nselect = ["TL102"]\n')
    plain = tmp_path / "plain"
    plain.mkdir()
    quiet = open_document(client, configured / "sub" / "dot.py", DOT)
    loud = open_document(client, plain / "dot.py", DOT)
    assert await published(client, quiet, 1) == []
    assert [d.code for d in await published(client, loud, 1)] == ["TL101"]
    # `ignore` too, and a saved change to the configuration is picked up on the next check.
    (configured / "pyproject.toml").write_text('[tool.tritonlint]\nignore = ["TL10"]\n')
    change(client, quiet, 2, DOT + "\n")
    assert await published(client, quiet, 2) == []
    (configured / "pyproject.toml").write_text("[tool.tritonlint]\n")
    change(client, quiet, 3, DOT)
    assert [d.code for d in await published(client, quiet, 3)] == ["TL101"]


@pytest.mark.asyncio
async def test_a_syntax_error_is_a_diagnostic_not_a_crash(client: RecordingClient, tmp_path: Path) -> None:
    broken = DOT.replace("acc += x * w", "acc += x * (w")
    uri = open_document(client, tmp_path / "dot.py", broken)
    [diagnostic] = await published(client, uri, 1)
    assert diagnostic.code == "TL001"
    assert diagnostic.severity == types.DiagnosticSeverity.Error
    assert diagnostic.range.start.line == 15  # where Python places the unclosed bracket
    assert "syntax error" in diagnostic.message
    change(client, uri, 2, DOT)  # the server is still there, and checks the repaired text
    assert [d.code for d in await published(client, uri, 2)] == ["TL101"]


def versions_seen(client: RecordingClient, uri: str) -> list[int | None]:
    return [p.version for p in client.published if p.uri == uri]


def _many_kernels(count: int) -> str:
    body = DOT[DOT.index("@triton.jit"):]
    return DOT[:DOT.index("@triton.jit")] + "\n\n".join(body.replace("def dot(", f"def dot_{i}(")
                                                        for i in range(count))


@pytest.mark.asyncio
async def test_only_the_newest_version_is_published(client: RecordingClient, tmp_path: Path) -> None:
    text = _many_kernels(60)
    uri = open_document(client, tmp_path / "many.py", text)
    assert len(await published(client, uri, 1)) == 60

    # An edit of every kernel: every kernel checked again (a host edit no longer is: too quick here).
    everywhere = text.replace("w = tl.load(W + k + offs)\n", "w = tl.load(W + (k + offs))\n")
    assert everywhere != text

    # Two changes at once: the first is dropped (still waiting, or being checked), the second published.
    change(client, uri, 2, everywhere)
    change(client, uri, 3, text.replace("w = tl.load(W + k + offs)\n", "w = tl.load(W + k + offs, mask=k + offs < K)\n"))
    assert await published(client, uri, 3) == []

    # A change arriving while the previous version is being checked (every kernel edited): that
    # check's result is dropped. When the second change comes is a matter of timing,
    # so try until one such check was caught in flight.
    version = 3
    for delay in (0.05, 0.1, 0.2, 0.4):
        version += 2
        change(client, uri, version - 1, everywhere)
        await asyncio.sleep(delay)
        change(client, uri, version, text)
        assert len(await published(client, uri, version)) == 60
        assert version - 1 not in versions_seen(client, uri)  # overtaken: never published
        if any(f"dropped the check of version {version - 1} " in m.message for m in client.log_messages):
            break
    else:
        pytest.fail(f"no check was ever in flight when the next change came: published {versions_seen(client, uri)}")
    versions = versions_seen(client, uri)
    assert versions == sorted(versions), versions
    assert not {2, *range(4, version, 2)} & set(versions), versions


def test_server_without_pygls_says_what_to_install() -> None:
    program = ("import sys; sys.modules['pygls'] = None; sys.modules['lsprotocol'] = None\n"
               "from tritonlint.cli import main; sys.exit(main(['server']))")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2
    assert done.stderr == "tritonlint: `tritonlint server` needs pygls: install tritonlint[lsp]\n"
