"""`tritonlint server` answers `initialize` before pygls is loaded (tritonlint/server_front.py):
that answer must be the one pygls would give, and pygls's own must not reach the client twice."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from tritonlint.server_front import frame, initialize_result

# What pygls alone answers: the server without the front.
PYGLS_ONLY = "import sys; from tritonlint.server import serve; sys.exit(serve())"
FRONTED = "import sys; from tritonlint.cli import main; sys.exit(main(['server']))"

CLIENTS: dict[str, dict[str, Any]] = {
    "bare": {},
    "utf-8 first": {"general": {"positionEncodings": ["utf-8", "utf-16"]}},
    "utf-32 only": {"general": {"positionEncodings": ["utf-32"]}},
    "unknown encoding": {"general": {"positionEncodings": ["x-mine"]}},
    "will not save": {"textDocument": {"synchronization": {"willSave": False}}},
    "an editor's": {  # what VS Code and Neovim send, cut to the parts pygls reads
        "general": {"positionEncodings": ["utf-16"]},
        "notebookDocument": {"synchronization": {"dynamicRegistration": True}},
        "textDocument": {"synchronization": {"willSave": True, "willSaveWaitUntil": True, "didSave": True}},
        "workspace": {"workspaceFolders": True, "fileOperations": {"didCreate": True, "willRename": True}},
    },
}


def _messages(program: str, capabilities: dict[str, Any]) -> list[dict[str, Any]]:
    """Every message the server writes for: initialize (id 1), initialized, shutdown (id 2), exit."""
    sent = b"".join(frame(message) for message in (
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"processId": None, "rootUri": None, "capabilities": capabilities}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ))
    done = subprocess.run([sys.executable, "-c", program], input=sent, capture_output=True, timeout=120, check=False)
    found, rest = [], done.stdout
    while rest:
        header, _, rest = rest.partition(b"\r\n\r\n")
        length = int(next(line for line in header.split(b"\r\n") if line.startswith(b"Content-Length")).split(b":")[1])
        found.append(json.loads(rest[:length]))
        rest = rest[length:]
    return found


@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_the_early_answer_is_pygls_answer(client: str) -> None:
    capabilities = CLIENTS[client]
    pygls = _messages(PYGLS_ONLY, capabilities)
    assert pygls[0]["id"] == 1
    assert initialize_result({"capabilities": capabilities}) == pygls[0]["result"]


def test_the_client_gets_one_answer_per_request() -> None:
    answers = _messages(FRONTED, CLIENTS["utf-8 first"])
    assert [message.get("id") for message in answers if "method" not in message] == [1, 2]
    assert answers[0]["result"]["capabilities"]["positionEncoding"] == "utf-8"
    assert answers[0]["result"] == _messages(PYGLS_ONLY, CLIENTS["utf-8 first"])[0]["result"]
