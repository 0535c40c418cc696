"""Time and memory of `tritonlint check --no-cache` on one huge file of kernels (5 MB by default).

The file is our own fixtures, concatenated again and again with every jit function renamed per
copy (a helper's calls follow it), so the analysis sees thousands of distinct kernels in one file.
Run it twice at two sizes to see whether time and memory grow linearly.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tritonlint.source.outline import outline


def fixtures() -> list[str]:
    """Our fixture files that parse and hold jit functions, each as text."""
    texts = []
    for path in sorted(REPO.glob("fixtures/*/*.py")):
        if path.name.endswith(("_harness.py", ".fixed.py")):
            continue
        text = path.read_text(encoding="utf-8")
        try:
            if outline(text).kernels:
                texts.append(text)
        except (SyntaxError, ValueError):
            continue
    return texts


def huge_file(size: int) -> str:
    """At least `size` bytes of kernel files, each copy's jit functions renamed (`name_c<copy>`)."""
    texts = fixtures()
    names = [sorted({k.name for k in outline(text).kernels}, key=len, reverse=True) for text in texts]
    parts: list[str] = []
    total, copy = 0, 0
    while total < size:
        text, kernel_names = texts[copy % len(texts)], names[copy % len(texts)]
        pattern = re.compile(r"\b(" + "|".join(map(re.escape, kernel_names)) + r")\b")
        suffix = f"_c{copy}"
        part = pattern.sub(lambda m, suffix=suffix: m.group(1) + suffix, text)
        part = re.sub(r"^from __future__ import .*$", "", part, flags=re.MULTILINE)
        parts.append(f"\n# ---- copy {copy}\n{part}")
        total += len(parts[-1])
        copy += 1
    return "".join(parts)


def measure(path: Path, python: str) -> dict[str, float]:
    """Wall seconds and the peak resident memory (MB) of one `check --no-cache` in a child."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    done = subprocess.run([python, "-m", "tritonlint", "check", "--no-cache", "--exit-zero", "--output-format",
                           "json", str(path)], check=False, capture_output=True, text=True, cwd=REPO,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    wall = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if done.returncode not in (0, 1):
        raise SystemExit(f"check failed ({done.returncode}): {done.stderr[-500:]}")
    findings = len(json.loads(done.stdout))
    # ru_maxrss of the children is the largest child so far: only meaningful if it grew.
    return {"seconds": wall, "peak_mb": max(peak, before) / 1024, "findings": findings}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=float, nargs="+", default=[5.0], help="file sizes in MB (default 5)")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--keep", metavar="PATH", help="also write the largest generated file here")
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as folder:
        for mb in sorted(args.mb):
            text = huge_file(int(mb * 1_000_000))
            path = Path(folder) / f"kernels_{mb:g}mb.py"
            path.write_text(text, encoding="utf-8")
            if args.keep:
                Path(args.keep).write_text(text, encoding="utf-8")
            result = {"mb": len(text.encode()) / 1e6, "lines": text.count("\n"),
                      "kernels": len(outline(text).kernels), **measure(path, args.python)}
            results.append(result)
            print(f"{result['mb']:.2f} MB, {result['lines']} lines, {result['kernels']} kernels: "
                  f"{result['seconds']:.1f} s, peak {result['peak_mb']:.0f} MB, {result['findings']} findings",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
