"""Run the applied fixes the witness cannot launch by itself on launches written by hand.

Each harness module here names a corpus file (read at run time from the corpus folder: nothing of it
is copied into this repository), the kernel, the flagged lines, and candidate launches with their
full-tile controls built from what the host keeps (sizes, grid, layouts). For every finding of that
file at those lines with an applied fix (safe or unsafe, as `check --fix --unsafe-fixes` writes it on
a copy of the file), the witness's own runs and verdicts judge the fix on those launches
(`tritonlint.witness.runner.witness_launches`): the fixed kernel must run in bounds with the
outputs of the original at a zero fill.

    python scripts/fix_harnesses/run.py [--corpus /work/corpus] [--json OUT] [HARNESS ...]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from tritonlint.cli import build_parser, config_from_args
from tritonlint.diagnostics import Applicability
from tritonlint.witness import analysis
from tritonlint.witness.runner import witness_launches

HERE = Path(__file__).resolve().parent


def _load(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(f"fix_harness_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _fixed_text(path: Path) -> str:
    with tempfile.TemporaryDirectory(prefix="tritonlint-harness-") as tmp:
        copy = Path(tmp) / path.name
        shutil.copy(path, copy)
        subprocess.run([sys.executable, "-m", "tritonlint", "check", "--fix", "--unsafe-fixes", "--no-cache", "--quiet",
                        str(copy)], capture_output=True, text=True, timeout=600, check=False)
        return copy.read_text(encoding="utf-8")


def run(harness: Path, corpus: Path, timeout: float) -> list[dict[str, Any]]:
    h = _load(harness)
    path = corpus / h.FILE
    config = config_from_args(build_parser().parse_args(["witness", str(path)]))
    files, _errors = analysis.check_paths([str(path)], config)
    fixed = _fixed_text(path)
    rows = []
    for f in files:
        for d in f.diagnostics:
            if d.line not in h.LINES or d.fix is None or not d.fix.edits \
                    or d.fix.applicability not in (Applicability.SAFE, Applicability.UNSAFE):
                continue
            w = witness_launches(f.path, f.text, d, h.pairs(), fixed, timeout=timeout)
            v = w.validation or {"status": "not-run", "reason": w.reason}
            outcome = {"validated": "validated", "not-run": "cannot-synthesize"}.get(v["status"], "failing")
            rows.append({"place": f"{h.FILE}:{d.line}", "code": d.code, "applicability": d.fix.applicability.value,
                         "outcome": outcome, "reason": v["reason"], "witness": w.status,
                         "witness_reason": w.reason, "harness": harness.name, "seconds": round(w.seconds, 1)})
    return rows


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("harnesses", nargs="*")
    parser.add_argument("--corpus", default="/work/corpus")
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--json")
    args = parser.parse_args()
    chosen = [Path(p) for p in args.harnesses] or sorted(p for p in HERE.glob("*.py") if p.name != "run.py")
    rows = []
    for harness in chosen:
        for row in run(harness.resolve(), Path(args.corpus), args.timeout):
            rows.append(row)
            print(f"{row['outcome'].upper()} {row['place']} {row['code']} ({row['applicability']}), "
                  f"witness {row['witness']}: {row['reason'][:300]}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
