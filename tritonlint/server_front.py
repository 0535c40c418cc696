"""The language server's first answer, before pygls is loaded.

Importing lsprotocol's types (557 attrs classes) and building pygls's converter takes about half a
second of CPU, and an editor waits for the answer to `initialize` before it sends anything else.
That answer depends on nothing but the features `tritonlint.server` registers and the position
encoding the client offers, so it is written here with the standard library alone; then pygls is
loaded and handed the same `initialize` (its state is built exactly as if it had answered), and its
own answer, which the client already has, is dropped. `tests/server/test_server_front.py` holds
this answer equal to pygls's for several clients.
"""

from __future__ import annotations

import io
import json
from typing import Any, BinaryIO, cast

from tritonlint import __version__

# pygls's choice (`ServerCapabilitiesBuilder.choose_position_encoding`): the client's first
# encoding of these, else UTF-16.
_ENCODINGS = ("utf-8", "utf-16", "utf-32")


def initialize_result(params: Any) -> dict[str, Any]:
    """What `tritonlint.server` answers to `initialize` with these params, as JSON."""
    capabilities = params.get("capabilities") if isinstance(params, dict) else None
    general = capabilities.get("general") if isinstance(capabilities, dict) else None
    offered = general.get("positionEncodings") if isinstance(general, dict) else None
    encoding = next((e for e in offered or () if e in _ENCODINGS), "utf-16") if isinstance(offered, list) else "utf-16"
    # `willSave`: pygls writes `client's value and the server handles it`, false (the server does
    # not), and leaves it out where the client says nothing.
    text_document = capabilities.get("textDocument") if isinstance(capabilities, dict) else None
    synchronization = text_document.get("synchronization") if isinstance(text_document, dict) else None
    said = synchronization if isinstance(synchronization, dict) else {}
    sync: dict[str, Any] = {"openClose": True, "change": 2}
    sync.update((key, False) for key in ("willSave", "willSaveWaitUntil") if said.get(key) is not None)
    sync["save"] = True
    return {
        "capabilities": {
            "positionEncoding": encoding,
            "textDocumentSync": sync,
            "hoverProvider": True,
            "codeActionProvider": {"codeActionKinds": ["quickfix"]},
            "executeCommandProvider": {"commands": []},
            "workspace": {"workspaceFolders": {"supported": True, "changeNotifications": True},
                          "fileOperations": {}},
        },
        "serverInfo": {"name": "tritonlint", "version": __version__},
    }


def read_message(stream: BinaryIO) -> tuple[bytes, dict[str, Any] | None]:
    """One message's bytes as read (headers and body), and its JSON; None where it is not one."""
    read = b""
    length = None
    while True:
        line = stream.readline()
        read += line
        if not line:
            return read, None
        if not line.strip():
            break
        name, _, value = line.decode("ascii", "replace").partition(":")
        if name.strip().lower() == "content-length" and value.strip().isdigit():
            length = int(value.strip())
    if length is None:
        return read, None
    body = stream.read(length)
    read += body
    try:
        message = json.loads(body)
    except ValueError:
        return read, None
    return read, message if isinstance(message, dict) else None


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Replayed:
    """stdin as pygls reads it: the bytes the front already read, then the rest of the stream."""

    def __init__(self, first: bytes, rest: BinaryIO) -> None:
        self._first = io.BytesIO(first)
        self._rest = rest

    def readline(self) -> bytes:
        return self._first.readline() or self._rest.readline()

    def read(self, size: int = -1) -> bytes:
        head = self._first.read(size)
        if size < 0:
            return head + self._rest.read()
        return head + self._rest.read(size - len(head)) if len(head) < size else head


class Swallowing:
    """stdout as pygls writes it (one message a write): its answer to the request the front has
    answered already is dropped; everything else passes."""

    def __init__(self, out: BinaryIO, answered: object) -> None:
        self._out = out
        self._answered = answered
        self._pending = True

    def write(self, data: bytes) -> int:
        if self._pending:
            _, _, body = data.partition(b"\r\n\r\n")
            try:
                message = json.loads(body)
            except ValueError:
                message = None
            if isinstance(message, dict) and "method" not in message and message.get("id") == self._answered:
                self._pending = False
                return len(data)
        written = self._out.write(data)
        self._out.flush()
        return written

    def flush(self) -> None:
        self._out.flush()

    def close(self) -> None:
        self._out.close()


def answer_first(stdin: BinaryIO, stdout: BinaryIO) -> tuple[BinaryIO, BinaryIO]:
    """Read the first message; if it is `initialize`, answer it now. Returns the streams to hand
    pygls (which reads with `readline` and `read`, and writes one message a `write`): the message
    replayed first, and the output without pygls's second answer."""
    read, message = read_message(stdin)
    replayed = cast(BinaryIO, Replayed(read, stdin))
    if message is None or message.get("method") != "initialize" or "id" not in message:
        return replayed, stdout
    stdout.write(frame({"id": message["id"], "jsonrpc": "2.0", "result": initialize_result(message.get("params"))}))
    stdout.flush()
    return replayed, cast(BinaryIO, Swallowing(stdout, message["id"]))
