"""`tritonlint verify` with no harness (the witness's launches) on every fixture that has a fix.

    python scripts/verify_witness_fixtures.py --device cpu --jobs 2 --out /tmp/vw
    python3 scripts/verify_witness_fixtures.py --device cuda --jobs 4 --out $OUT/vw -- --sanitizer

Each fixture's text report goes to OUT/<case>.txt (stderr to OUT/<case>.err); one line per fixture
(verdict, exit code, the witness's launches, the fixes' verdicts) is printed and written to
OUT/summary.txt. Arguments after `--` are passed to every `verify`.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cases(only: list[str]) -> list[Path]:
    found = sorted(p.with_name(p.name[: -len(".fixed.py")] + ".py") for p in (ROOT / "fixtures").glob("*/*.fixed.py"))
    return [c for c in found if not only or any(o in str(c) for o in only)]


def one(case: Path, device: str, out: Path, extra: list[str], timeout: float) -> str:
    name = case.stem
    cmd = [sys.executable, "-m", "tritonlint", "verify", str(case), "--device", device,
           "--output-format", "json", *extra]
    t0 = time.monotonic()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return f"{case.parent.name}/{name}: TIMEOUT after {timeout:g} s"
    (out / f"{name}.err").write_text(proc.stderr)
    (out / f"{name}.json").write_text(proc.stdout)
    seconds = time.monotonic() - t0
    try:
        report = json.loads(proc.stdout)
    except ValueError:
        last = (proc.stderr.strip().splitlines() or ["?"])[-1]
        return f"{case.parent.name}/{name}: rc={proc.returncode} no report ({last[:300]}) {seconds:.0f}s"
    launched = [w["where"] for w in report.get("witness", []) if w.get("launch")]
    fixes = ", ".join(f"{f['path']}:{f['line']}={f['verdict']}" for f in report["fixes"])
    return (f"{case.parent.name}/{name}: {report['verdict'].upper()} rc={proc.returncode} "
            f"launches={len(launched)} fixes[{fixes}] {seconds:.0f}s")


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="cpu")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--out", required=True)
    p.add_argument("--timeout", type=float, default=600)
    p.add_argument("--only", action="append", default=[])
    p.add_argument("extra", nargs="*")
    args = p.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    lines: list[str] = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for line in pool.map(lambda c: one(c, args.device, out, args.extra, args.timeout), cases(args.only)):
            print(line, flush=True)
            lines.append(line)
    (out / "summary.txt").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
