"""What an editor sees from `tritonlint server` for one file: diagnostics on open and after a save, the quick fixes.

    python scripts/lsp_probe.py FILE [PYPROJECT_TEXT]

Speaks the protocol over stdio to `python -m tritonlint server` (UTF-16 positions, the protocol's
default), prints every publishDiagnostics and the code actions of the first diagnostic. With
PYPROJECT_TEXT it writes that text to a pyproject.toml beside FILE after the first publish and sends
a save of the same version (which must be checked again). Used as a probe by scripts/mutations.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from queue import Empty, Queue
from typing import Any


def main(argv: list[str]) -> int:
    path = Path(argv[0]).resolve()
    server = subprocess.Popen([sys.executable, "-m", "tritonlint", "server"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert server.stdin is not None and server.stdout is not None
    incoming: Queue[dict[str, Any]] = Queue()

    def read() -> None:
        assert server.stdout is not None
        while True:
            header = b""
            while not header.endswith(b"\r\n\r\n"):
                byte = server.stdout.read(1)
                if not byte:
                    return
                header += byte
            length = int(header.split(b"Content-Length:")[1].split(b"\r\n")[0])
            incoming.put(json.loads(server.stdout.read(length)))

    threading.Thread(target=read, daemon=True).start()

    def send(message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert server.stdin is not None
        server.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        server.stdin.flush()

    def wait(match: Any, timeout: float = 30) -> dict[str, Any] | None:
        try:
            while True:
                message = incoming.get(timeout=timeout)
                if match(message):
                    return message
        except Empty:
            return None

    uri = path.as_uri()
    send({"id": 1, "method": "initialize", "params": {"processId": None, "rootUri": None, "capabilities": {}}})
    wait(lambda m: m.get("id") == 1)
    send({"method": "initialized", "params": {}})
    send({"method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "python", "version": 1, "text": path.read_text(encoding="utf-8")}}})
    published = wait(lambda m: m.get("method") == "textDocument/publishDiagnostics")
    print("open:", json.dumps(published and published["params"], sort_keys=True))
    diagnostics = published["params"]["diagnostics"] if published else []
    if diagnostics:
        send({"id": 2, "method": "textDocument/codeAction", "params": {
            "textDocument": {"uri": uri}, "range": diagnostics[0]["range"],
            "context": {"diagnostics": [diagnostics[0]]}}})
        actions = wait(lambda m: m.get("id") == 2)
        print("actions:", json.dumps(actions and actions.get("result"), sort_keys=True))
    if len(argv) > 1:
        (path.parent / "pyproject.toml").write_text(argv[1], encoding="utf-8")
        send({"method": "textDocument/didSave", "params": {"textDocument": {"uri": uri}}})
        again = wait(lambda m: m.get("method") == "textDocument/publishDiagnostics", timeout=10)
        print("after save:", json.dumps(again and again["params"], sort_keys=True))
        (path.parent / "pyproject.toml").unlink()
    send({"id": 3, "method": "shutdown"})
    wait(lambda m: m.get("id") == 3, timeout=10)
    send({"method": "exit"})
    server.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
