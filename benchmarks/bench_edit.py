"""Median in-process time of edits inside the largest kernel of a file (`IncrementalChecker.check`).

The server's own cost (stdio, debounce) left out: what the analysis takes per edit. To pair two
checkouts, run it alternately with `PYTHONPATH=<checkout>` set to each (the script's folder, not
the current one, is first on `sys.path`).

    python benchmarks/bench_edit.py FILE [EDITS]
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from tritonlint.config import Config
from tritonlint.incremental import IncrementalChecker
from tritonlint.source.outline import outline


def main() -> int:
    path, edits = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 7
    text = Path(path).read_text(encoding="utf-8")
    kernel = max(outline(text).kernels, key=lambda k: len(k.text))
    assert kernel.function is not None
    line = kernel.function.body[0].lineno - 1
    lines = text.splitlines(keepends=True)
    indent = lines[line][:len(lines[line]) - len(lines[line].lstrip())]
    try:  # as the editor checks: fixes left for the code action that asks for one
        checker = IncrementalChecker(path, Config(), fixes=False)
    except TypeError:  # a checkout from before fixes were deferred
        checker = IncrementalChecker(path, Config())
    checker.check(text)
    times = []
    for i in range(edits):
        edited = "".join([*lines[:line], f"{indent}bench_edit_{i} = {i}\n", *lines[line:]])
        started = time.perf_counter()
        checker.check(edited)
        times.append(time.perf_counter() - started)
    print(f"{kernel.name}: median {statistics.median(times) * 1000:.0f} ms, min {min(times) * 1000:.0f} ms "
          f"over {edits} edits ({', '.join(checker.analysed)} analysed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
