"""Time `tritonlint server` as an editor sees it: an edit sent (didChange) to its diagnostics received."""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import re
import statistics
import sys
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from tritonlint.source.outline import outline

REPO = Path(__file__).resolve().parent.parent
TEMPLATE = REPO / "fixtures" / "unmasked-tail-load" / "gemm_even_k_twin.py"


def kernel_file(lines: int) -> str:
    """At least `lines` lines of jit kernels (the GEMM twins, renamed): all kernel code, the worst case."""
    source = TEMPLATE.read_text(encoding="utf-8")
    body = source[source.index("@triton.jit"):]
    parts = ["import triton\nimport triton.language as tl\n\n"]
    copy = 0
    while sum(part.count("\n") for part in parts) < lines:
        parts.append("\n" + re.sub(r"def (gemm_twin_\w+)\(", rf"def \g<1>_{copy}(", body))
        copy += 1
    return "".join(parts)


def body_line(text: str, largest: bool = False) -> int:
    """0-based line of the first statement of the middle jit kernel (or of the largest): where the edits go."""
    kernels = outline(text).kernels
    kernel = max(kernels, key=lambda k: len(k.text)) if largest else kernels[len(kernels) // 2]
    function = kernel.function
    assert function is not None
    return function.body[0].lineno - 1


class Bench:
    def __init__(self, command: list[str]) -> None:
        self.command = command
        self.client = LanguageClient("tritonlint-bench", "1")
        self.arrived: dict[tuple[str, int], float] = {}
        self.counts: dict[tuple[str, int], int] = {}
        self.diagnostics: dict[tuple[str, int], list[types.Diagnostic]] = {}
        self.waiting: dict[tuple[str, int], asyncio.Future[None]] = {}

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: types.PublishDiagnosticsParams) -> None:
            key = (params.uri, params.version or 0)
            self.arrived[key] = time.perf_counter()
            self.counts[key] = len(params.diagnostics)
            self.diagnostics[key] = list(params.diagnostics)
            future = self.waiting.pop(key, None)
            if future is not None and not future.done():
                future.set_result(None)

    async def start(self) -> float:
        """Start the server; seconds from its process started to its answer to `initialize`."""
        started = time.perf_counter()
        await self.client.start_io(*self.command)
        await self.client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities()))
        answered = time.perf_counter() - started
        self.client.initialized(types.InitializedParams())
        return answered

    async def stop(self) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()

    async def until(self, uri: str, version: int, sent: float) -> tuple[float, int]:
        """Seconds from `sent` to the diagnostics of `version`, and how many there were."""
        key = (uri, version)
        if key not in self.arrived:
            future = asyncio.get_running_loop().create_future()
            self.waiting[key] = future
            await asyncio.wait_for(future, 60)
        return self.arrived[key] - sent, self.counts[key]

    async def open(self, uri: str, text: str) -> tuple[float, int]:
        sent = time.perf_counter()
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
        return await self.until(uri, 1, sent)

    async def insert(self, uri: str, version: int, line: int, text: str) -> tuple[float, int]:
        """Insert `text` at the start of `line` (an incremental change, as editors send them)."""
        here = types.Position(line, 0)
        sent = time.perf_counter()
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [types.TextDocumentContentChangePartial(range=types.Range(here, here), text=text)]))
        return await self.until(uri, version, sent)


    async def round_trip(self, uri: str, text: str, version: int) -> tuple[dict[str, float], str]:
        """The editor's loop on the first TL101 of `version`: ask for code actions, apply the fix's
        edit, send it (didChange) and wait for the diagnostics without it. Times in ms, and the text."""
        before = self.diagnostics[(uri, version)]
        target = next(d for d in before if d.code == "TL101")
        sent = time.perf_counter()
        actions = await self.client.text_document_code_action_async(types.CodeActionParams(
            types.TextDocumentIdentifier(uri), target.range, types.CodeActionContext([target])))
        answered = time.perf_counter() - sent
        fix = next(a for a in actions or () if isinstance(a, types.CodeAction) and a.title.startswith("Mask"))
        assert fix.edit is not None and fix.edit.changes is not None
        fixed = apply(text, [e for e in fix.edit.changes[uri] if isinstance(e, types.TextEdit)])
        sent = time.perf_counter()
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=version + 1),
            [types.TextDocumentContentChangeWholeDocument(text=fixed)]))
        cleared, count = await self.until(uri, version + 1, sent)
        after = self.diagnostics[(uri, version + 1)]
        assert count == len(before) - 1 and not any(d.range == target.range and d.code == "TL101" for d in after), \
            "the fixed finding is still reported"
        return {"code_action_ms": answered * 1000, "edit_to_cleared_ms": cleared * 1000}, fixed


def apply(text: str, edits: list[types.TextEdit]) -> str:
    """`text` with LSP edits applied (ASCII text: characters are code points)."""
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        start = starts[edit.range.start.line] + edit.range.start.character
        end = starts[edit.range.end.line] + edit.range.end.character
        text = text[:start] + edit.new_text + text[end:]
    return text


def summary(times: list[float]) -> dict[str, float]:
    ms = sorted(t * 1000 for t in times)
    return {"median": statistics.median(ms), "min": ms[0], "max": ms[-1],
            "p90": ms[min(len(ms) - 1, round(0.9 * (len(ms) - 1)))]}


async def run(args: argparse.Namespace) -> dict[str, object]:
    text = Path(args.file).read_text(encoding="utf-8") if args.file else kernel_file(args.lines)
    uri = (Path(args.file).resolve() if args.file else REPO / "benchmarks" / "_bench_kernels.py").as_uri()
    bench = Bench([sys.executable, "-m", "tritonlint", "server"])
    startup = await bench.start()
    try:
        opened, found = await bench.open(uri, text)
        trip: dict[str, float] = {}
        if any(d.code == "TL101" for d in bench.diagnostics[(uri, 1)]):
            trip, text = await bench.round_trip(uri, text, 1)
        else:  # no fix to round-trip: the edits go on from the text as opened (version 2 unused)
            await bench.insert(uri, 2, 0, "")
        line = body_line(text, args.largest)
        indent = re.match(r"\s*", text.splitlines()[line]).group(0)  # type: ignore[union-attr]
        version = 2
        kernel_edits: list[float] = []
        for n in range(args.runs):
            await asyncio.sleep(args.pause)  # each edit on its own, after the last one settled
            version += 1
            took, _ = await bench.insert(uri, version, line, f"{indent}edited_{n} = 0\n")
            kernel_edits.append(took)
        bursts: list[float] = []
        for n in range(args.runs):
            await asyncio.sleep(args.pause)
            for key in range(args.burst):  # typing: keystrokes `--keystroke` apart; timed from the last
                version += 1
                sent = time.perf_counter()
                bench.client.text_document_did_change(types.DidChangeTextDocumentParams(
                    types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                    [types.TextDocumentContentChangePartial(
                        range=types.Range(types.Position(line, len(indent)), types.Position(line, len(indent))),
                        text="x" if key % 2 == 0 else "")]))
                if key < args.burst - 1:
                    await asyncio.sleep(args.keystroke)
            took, _ = await bench.until(uri, version, sent)
            bursts.append(took)
        host_edits: list[float] = []
        for n in range(args.runs):
            await asyncio.sleep(args.pause)
            version += 1
            took, _ = await bench.insert(uri, version, 0, f"import os as os_{n}\n")
            host_edits.append(took)
    finally:
        await bench.stop()
    return {
        "file": args.file or f"{args.lines}-line generated kernel file", "lines": text.count("\n"),
        "kernels": len(outline(text).kernels), "findings": found,
        "startup_ms": startup * 1000, "open_ms": opened * 1000, "round_trip": trip, "edit_in_a_kernel_ms": summary(kernel_edits),
        "edit_outside_kernels_ms": summary(host_edits), "typing_burst_last_key_ms": summary(bursts),
        "burst": args.burst, "keystroke_s": args.keystroke, "runs": args.runs,
        "python": platform.python_version(), "machine": platform.machine(),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--file", help="a kernel file to open instead of the generated one")
    parser.add_argument("--lines", type=int, default=2000, help="size of the generated file (default 2000)")
    parser.add_argument("--runs", type=int, default=20, help="edits of each kind (default 20)")
    parser.add_argument("--pause", type=float, default=0.3, help="seconds between edits (default 0.3)")
    parser.add_argument("--burst", type=int, default=8, help="keystrokes per typing burst (default 8)")
    parser.add_argument("--keystroke", type=float, default=0.05, help="seconds between keystrokes (default 0.05)")
    parser.add_argument("--largest", action="store_true", help="edit the largest kernel, not the middle one")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = parser.parse_args()
    result = asyncio.run(run(args))
    print(f"{result['file']}: {result['lines']} lines, {result['kernels']} kernels, "
          f"{result['findings']} findings")
    print(f"process start -> initialize answered: {result['startup_ms']:.0f} ms")
    print(f"didOpen -> publishDiagnostics: {result['open_ms']:.0f} ms")
    trip = result["round_trip"]
    assert isinstance(trip, dict)
    if trip:
        print(f"round trip on the first TL101: codeAction answered in {trip['code_action_ms']:.0f} ms, "
              f"fix applied (didChange) -> diagnostics without it {trip['edit_to_cleared_ms']:.0f} ms")
    for label, key in (("edit in one kernel", "edit_in_a_kernel_ms"),
                       (f"typing burst of {args.burst}, from the last key", "typing_burst_last_key_ms"),
                       ("edit outside the kernels", "edit_outside_kernels_ms")):
        s = result[key]
        assert isinstance(s, dict)
        print(f"didChange ({label}) -> publishDiagnostics, {result['runs']} runs: median {s['median']:.0f} ms, "
              f"p90 {s['p90']:.0f} ms, min {s['min']:.0f} ms, max {s['max']:.0f} ms")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
