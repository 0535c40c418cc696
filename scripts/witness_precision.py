"""Judge every default finding of packages by a run: `tritonlint witness --output-format json` per package.

Tallies, per package and per rule, the findings `confirmed` (latent ones apart: the callers pad or
assert the shape away), `not-reproduced`, `cannot-synthesize` and `error`, and groups the reasons
of those not confirmed. The default selection is check's (no --select): the findings a user sees.

    python scripts/witness_precision.py [--jobs 2] [--timeout 60] [--json OUT] PACKAGE_DIR...
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

STATUSES = ("confirmed", "latent", "not-reproduced", "cannot-synthesize", "error")


def _status(item: dict[str, Any]) -> str:
    w = item["witness"]
    if w["status"] == "confirmed" and (w.get("evidence") or {}).get("latent"):
        return "latent"
    return str(w["status"])


def _cause(reason: str) -> str:
    """A reason with its numbers and names taken out, to group alike ones."""
    reason = re.sub(r"`[^`]*`", "`X`", reason)
    reason = re.sub(r"\d+", "N", reason)
    for cut in (" at ", ": ", " ("):
        if cut in reason[12:]:
            reason = reason[:12 + reason[12:].index(cut)]
    return reason[:110]


def run(package: Path, jobs: int, timeout: float) -> dict[str, Any]:
    t0 = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "tritonlint", "witness", "--output-format", "json", "--jobs", str(jobs),
                           "--timeout", str(timeout), package.name], cwd=package.parent, capture_output=True,
                          text=True, check=False)
    try:
        items = json.loads(done.stdout or "[]")
    except json.JSONDecodeError:
        items = []
    return {"package": package.name, "exit": done.returncode, "items": items, "stderr": done.stderr[-400:],
            "seconds": round(time.monotonic() - t0)}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("packages", nargs="+")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--json")
    args = parser.parse_args()
    results = [run(Path(p).resolve(), args.jobs, args.timeout) for p in args.packages]
    print("| package | findings | " + " | ".join(STATUSES) + " | seconds |")
    print("| --- | --- | " + " | ".join("---" for _ in STATUSES) + " | --- |")
    by_rule: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    causes: collections.Counter[tuple[str, str]] = collections.Counter()
    for r in results:
        counts = collections.Counter(_status(i) for i in r["items"])
        print(f"| {r['package']} | {len(r['items'])} | " + " | ".join(str(counts[s]) for s in STATUSES)
              + f" | {r['seconds']} |")
        for i in r["items"]:
            by_rule[i["code"]][_status(i)] += 1
            if _status(i) != "confirmed":
                causes[(_status(i), _cause(i["witness"]["reason"]))] += 1
        if r["exit"] == 2 or (not r["items"] and r["stderr"].strip()):
            print(f"    ({r['package']}: exit {r['exit']}: {r['stderr'].strip()[-200:]})")
    total = sum(len(r["items"]) for r in results)
    confirmed = sum(c["confirmed"] for c in by_rule.values())
    print(f"\nall: {total} findings, {confirmed} confirmed, "
          f"{sum(c['latent'] for c in by_rule.values())} confirmed but latent")
    for code, c in sorted(by_rule.items()):
        print(f"  {code}: " + ", ".join(f"{c[s]} {s}" for s in STATUSES if c[s]))
    print("\nnot confirmed, by cause:")
    for (status, cause), n in causes.most_common():
        print(f"  {n} x {status}: {cause}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
