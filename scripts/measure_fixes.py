"""Measure `check --fix --unsafe-fixes` on packages: is every applied fix validated by a run?

For each package folder: copy it twice to a temporary folder (the original, and the one that gets
fixed), run the real `tritonlint check --fix --unsafe-fixes` on the second copy, and for every fix
applied (a finding of the original with a safe or unsafe fix, in a file the command changed) run
the witness on the original with the *fixed file as written* as the fix: the same launch must run
clean on the fixed kernel with the in-bounds outputs unchanged. Per package it prints the fixes
applied, validated, failing (with reasons), not compilable (the fixed kernel does not compile or
the fixed file does not parse), and cannot-synthesize (no launch of the original matched the
kernel, with the witness's reason).

    python scripts/measure_fixes.py [--timeout 60] [--jobs 2] [--json OUT] PACKAGE_DIR...
"""

from __future__ import annotations

import argparse
import ast
import concurrent.futures
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tritonlint.cli import build_parser, config_from_args
from tritonlint.diagnostics import Applicability
from tritonlint.witness import analysis
from tritonlint.witness.runner import witness

# Messages of a fixed kernel the interpreter's frontend rejects: the fix does not compile.
NOT_COMPILING = ("IncompatibleTypeError", "CompilationError", "invalid operands", "TypeError", "NameError",
                 "does not parse", "cannot be cut out", "UnboundLocalError", "ValueError: Cannot")


def _copy(src: Path, dst: Path) -> None:
    shutil.copytree(src, dst, symlinks=True, ignore=shutil.ignore_patterns("__pycache__", "*.so", ".git"))


def _classify(w: Any, fixed_parses: bool) -> tuple[str, str]:
    if not fixed_parses:
        return "not-compilable", "the fixed file does not parse"
    v = w.validation or {"status": "not-run", "reason": w.reason}
    if v["status"] == "validated":
        return "validated", v["reason"]
    if v["status"] == "not-run":
        return "cannot-synthesize", f"{w.status}: {w.reason}"
    reason = v["reason"]
    if reason.startswith(("the fixed kernel does not run", "the fixed file cannot be cut out")) \
            and any(word in reason for word in NOT_COMPILING):
        return "not-compilable", reason
    return "failing", reason


def measure(package: Path, timeout: float, jobs: int) -> dict[str, Any]:
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="tritonlint-fixes-") as tmp:
        original, fixed = Path(tmp) / "original" / package.name, Path(tmp) / "fixed" / package.name
        _copy(package, original)
        _copy(package, fixed)
        args = build_parser().parse_args(["witness", str(original)])
        config = config_from_args(args)
        files, _errors = analysis.check_paths([str(original)], config)
        done = subprocess.run([sys.executable, "-m", "tritonlint", "check", "--fix", "--unsafe-fixes", "--no-cache",
                               "--quiet", str(fixed)], capture_output=True, text=True, timeout=1800, check=False)
        work: list[tuple[analysis.CheckedFile, Any, str, bool]] = []
        for f in files:
            after_path = fixed / f.path.relative_to(original)
            after = after_path.read_text(encoding="utf-8") if after_path.exists() else f.text
            if after == f.text:
                continue
            try:
                ast.parse(after)
                parses = True
            except SyntaxError:
                parses = False
            for d in f.diagnostics:
                if d.fix is not None and d.fix.edits and d.fix.applicability in (Applicability.SAFE,
                                                                                  Applicability.UNSAFE):
                    work.append((f, d, after, parses))

        def one(item: tuple[analysis.CheckedFile, Any, str, bool]) -> dict[str, Any]:
            f, d, after, parses = item
            w = witness(f.path, str(f.path.relative_to(original.parent)), f.text, d, f.launches, f.flags, after,
                        timeout=timeout, flag_tiles=f.flag_tiles)
            outcome, reason = _classify(w, parses)
            return {"place": f"{f.path.relative_to(original.parent)}:{d.line}", "code": d.code,
                    "applicability": d.fix.applicability.value, "outcome": outcome, "reason": reason,
                    "witness": w.status, "seconds": round(w.seconds, 1)}

        with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as pool:
            rows = list(pool.map(one, work))
    counts = {k: sum(r["outcome"] == k for r in rows)
              for k in ("validated", "failing", "not-compilable", "cannot-synthesize")}
    return {"package": package.name, "applied": len(rows), **counts, "rows": rows,
            "check_exit": done.returncode, "check_stderr": done.stderr.strip()[-400:],
            "seconds": round(time.monotonic() - t0)}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("packages", nargs="+")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per fix (default 60)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json")
    args = parser.parse_args()
    results = []
    print("| package | fixes applied | validated | failing | not compilable | cannot synthesize | seconds |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name in args.packages:
        r = measure(Path(name).resolve(), args.timeout, args.jobs)
        results.append(r)
        print(f"| {r['package']} | {r['applied']} | {r['validated']} | {r['failing']} | {r['not-compilable']} | "
              f"{r['cannot-synthesize']} | {r['seconds']} |", flush=True)
    total = {k: sum(r[k] for r in results)
             for k in ("applied", "validated", "failing", "not-compilable", "cannot-synthesize")}
    print(f"| all | {total['applied']} | {total['validated']} | {total['failing']} | {total['not-compilable']} | "
          f"{total['cannot-synthesize']} | {sum(r['seconds'] for r in results)} |")
    for r in results:
        for row in r["rows"]:
            if row["outcome"] != "validated":
                print(f"{row['outcome'].upper()} {row['place']} {row['code']} ({row['applicability']}): "
                      f"{row['reason'][:240]}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
