"""Measure the witness on fixtures/ (or on PATHs): every finding (a hazard) should be confirmed, every other access not.

Hazards are the findings `check --select ALL` reports on the fixtures (the `.expected` files).
Look-alikes are every other `tl.load`/`tl.store` of their jit functions: each is witnessed as if it
were a finding (no notes: the synthesizer tries the kernel's sizes in turn), and none may be
confirmed. Prints the counts and every miss; `--json OUT` keeps the per-access results.

    python scripts/witness_fixtures.py [--jobs 2] [--json out.json] [FIXTURE...]
    python scripts/witness_fixtures.py --no-lookalikes --jobs 2 PATH...   # findings only, with timings
"""

from __future__ import annotations

import argparse
import ast
import concurrent.futures
import json
import sys
import time
from pathlib import Path

from tritonlint.cli import build_parser, config_from_args
from tritonlint.diagnostics import Diagnostic
from tritonlint.witness import analysis
from tritonlint.witness.extract import jit_functions
from tritonlint.witness.runner import witness

ROOT = Path(__file__).resolve().parent.parent


def _fixture_files(names: list[str]) -> list[Path]:
    if names:
        return [Path(n) for n in names]
    return sorted(p for p in (ROOT / "fixtures").rglob("*.py")
                  if not p.name.endswith(("_harness.py", ".fixed.py")) and not p.name.startswith("_"))


def _accesses(text: str) -> list[tuple[int, int, int, str]]:
    """(line, column, end line, "load"/"store") of every tl.load/tl.store inside a jit function."""
    out = []
    for kernel in jit_functions(ast.parse(text)).values():
        for node in ast.walk(kernel.node):
            if isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1] in ("load", "store") \
                    and ast.unparse(node.func).startswith(("tl.", "triton.language.")):
                out.append((node.lineno, node.col_offset + 1, node.end_lineno or node.lineno,
                            ast.unparse(node.func).split(".")[-1]))
    return sorted(set(out))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("files", nargs="*")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json")
    parser.add_argument("--no-lookalikes", action="store_true")
    args = parser.parse_args()
    paths = [str(p) for p in _fixture_files(args.files)]
    config = config_from_args(build_parser().parse_args(["witness", "--select", "ALL", *paths]))
    work = []
    for path in paths:
        files, _errors = analysis.check_paths([path], config)
        for found in files:
            for d in found.diagnostics:
                work.append(("hazard", found, d, analysis.fixed_text(found.text, d)))
        if args.no_lookalikes:
            continue
        text = Path(path).read_text(encoding="utf-8")
        found = files[0] if files else None
        flagged = {(d.line, d.column) for d in found.diagnostics} if found else set()
        base = found or analysis.CheckedFile(Path(path), path, text, (), {}, {})
        for line, column, end, kind in _accesses(text):
            if (line, column) in flagged:
                continue
            code = "TL101" if kind == "load" else "TL102"
            d = Diagnostic(code, "look-alike", f"tl.{kind} (not reported)", path, line, column, end, column)
            work.append(("look-alike", base, d, None))

    def one(item: tuple[str, analysis.CheckedFile, Diagnostic, str | None]) -> dict[str, object]:
        role, f, d, fixed = item
        w = witness(f.path, f.display, f.text, d, f.launches, f.flags, fixed, timeout=60, flag_tiles=f.flag_tiles)
        return {"role": role, "path": f.display, "line": d.line, "column": d.column, "code": d.code,
                "status": w.status, "reason": w.reason, "validation": w.validation, "seconds": round(w.seconds, 2)}

    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(one, work))
    hazards = [r for r in results if r["role"] == "hazard"]
    lookalikes = [r for r in results if r["role"] == "look-alike"]
    fixes = [r for r in hazards if r["validation"] is not None]
    print(f"hazards: {sum(r['status'] == 'confirmed' for r in hazards)} of {len(hazards)} confirmed")
    print(f"look-alikes: {sum(r['status'] == 'confirmed' for r in lookalikes)} of {len(lookalikes)} confirmed")
    print(f"fixes: {sum(r['validation']['status'] == 'validated' for r in fixes)} of {len(fixes)} validated, "
          f"{sum(r['validation']['status'] == 'failed' for r in fixes)} failed, "
          f"{sum(r['validation']['status'] == 'not-run' for r in fixes)} not run")
    seconds = sorted(float(str(r["seconds"])) for r in hazards)
    median = seconds[len(seconds) // 2] if seconds else 0.0
    print(f"seconds: {time.monotonic() - t0:.0f} in all; median per finding {median:.1f}")
    for r in hazards:
        if r["status"] != "confirmed":
            print(f"MISS {r['path']}:{r['line']} {r['code']} {r['status']}: {str(r['reason'])[:200]}")
    for r in lookalikes:
        if r["status"] == "confirmed":
            print(f"FALSE {r['path']}:{r['line']}:{r['column']} {r['code']}: {str(r['reason'])[:200]}")
    for r in fixes:
        if r["validation"]["status"] != "validated":
            print(f"FIX {r['path']}:{r['line']} {r['code']} {r['validation']['status']}: "
                  f"{str(r['validation']['reason'])[:200]}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
