"""Corpus round trip: check, `--fix --unsafe-fixes` a copy, and prove no file was damaged.

Usage: python scripts/corpus_roundtrip.py CORPUS_DIR [PACKAGE ...] [--work DIR]
CORPUS_DIR is what ../shared/corpus/fetch.sh unpacked (one folder per package). For each
package it reports findings per rule and per fix applicability, then on a copy: files the fix
changed, that every changed file parses and compiles, that no fixed call is reported again, that
a second `--fix` changes nothing, and that every file without a fix is byte-identical.
"""

from __future__ import annotations

import argparse
import collections
import filecmp
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PACKAGES = ["vllm", "sglang", "liger-kernel", "fla-core", "flag-gems", "unsloth"]


def tritonlint(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tritonlint", *args], capture_output=True, text=True, check=False)


def py_files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.py"))}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("packages", nargs="*", default=PACKAGES)
    parser.add_argument("--work", type=Path, default=None, help="folder for the copies (default: a temp dir)")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="tritonlint-roundtrip-"))
    damaged_total = 0
    print(f"{'package':<14}{'files':>7}{'TL101':>7}{'TL102':>7}{'safe':>6}{'unsafe':>7}{'display':>8}"
          f"{'changed':>8}{'bad':>5}{'again':>6}{'2nd run':>8}{'errors':>7}")
    for name in args.packages:
        source = args.corpus / name
        before = py_files(source)
        checked = json.loads(tritonlint("check", "--output-format", "json", str(source)).stdout or "[]")
        codes = collections.Counter(d["code"] for d in checked)
        kinds = collections.Counter((d["fix"] or {}).get("applicability", "none") for d in checked)
        copy = work / name
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(source, copy, symlinks=True)
        first = tritonlint("check", "--fix", "--unsafe-fixes", "--output-format", "json", str(copy))
        errors = [line for line in first.stderr.splitlines() if "fix not applied" in line or "internal error" in line]
        after = py_files(copy)
        changed = [path for path in before if after.get(path) != before[path]]
        bad = 0
        for path in changed:
            try:
                compile(after[path].decode("utf-8-sig"), path, "exec")
            except (SyntaxError, ValueError, UnicodeDecodeError):
                bad += 1
        # A fixed call reported again: findings after fixing whose line changed.
        remaining = json.loads(first.stdout or "[]")
        again = 0
        for finding in remaining:
            rel = str(Path(finding["path"]).relative_to(copy))
            if rel in changed and finding["fix"] and finding["fix"]["applicability"] != "display-only":
                again += 1
        second_copy = work / (name + ".second")
        shutil.rmtree(second_copy, ignore_errors=True)
        shutil.copytree(copy, second_copy, symlinks=True)
        tritonlint("check", "--fix", "--unsafe-fixes", "--quiet", str(second_copy))
        second = [p for p, data in py_files(second_copy).items() if after.get(p) != data]
        untouched_diff = [p for p in before if p not in changed and not filecmp.cmp(source / p, copy / p, shallow=False)]
        damaged_total += bad + len(untouched_diff)
        print(f"{name:<14}{len(before):>7}{codes['TL101']:>7}{codes['TL102']:>7}{kinds['safe']:>6}{kinds['unsafe']:>7}"
              f"{kinds['display-only']:>8}{len(changed):>8}{bad:>5}{again:>6}{len(second):>8}{len(errors):>7}")
        for line in errors[:5]:
            print(f"    {line}")
        for path in second[:5]:
            print(f"    second run changed {path}")
        shutil.rmtree(second_copy, ignore_errors=True)
    print(f"damaged files: {damaged_total}; copies in {work}")
    return 1 if damaged_total else 0


if __name__ == "__main__":
    sys.exit(main())
