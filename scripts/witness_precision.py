"""Judge every default finding of packages by a run: `tritonlint witness --output-format json` per package.

Tallies, per package and per rule, the findings `confirmed` (latent ones apart: the callers pad or
assert the shape away), `not-reproduced`, `cannot-synthesize` and `error`, and groups the reasons
of those not confirmed. The default selection is check's (no --select): the findings a user sees.

    python scripts/witness_precision.py [--jobs 2] [--at-once 1] [--timeout 60] [--json OUT] PACKAGE_DIR...

`--sample N` witnesses at most N default findings per package, drawn at random (`--seed`), in
this process (the statuses are the CLI's, and each finding's seconds are kept): for a machine too
small to run every finding in time. Say so when you report such figures.
`--at-once K` witnesses K packages side by side (each with `--jobs` workers): on a machine with
many cores the small packages then do not leave cores idle. No sampling: every default finding runs.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
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


def run_sample(package: Path, jobs: int, timeout: float, sample: int, seed: int) -> dict[str, Any]:
    """`run`, on at most `sample` findings drawn at random, witnessed in this process."""
    import os
    import random

    from tritonlint.cli import build_parser, config_from_args
    from tritonlint.witness import analysis
    from tritonlint.witness.runner import witness

    t0 = time.monotonic()
    os.chdir(package.parent)
    config = config_from_args(build_parser().parse_args(["witness", package.name]))
    files, errors = analysis.check_paths([package.name], config)
    work = [(f, d) for f in files for d in f.diagnostics]
    total = len(work)
    work = random.Random(seed).sample(work, min(sample, total))

    def one(item: tuple[Any, Any]) -> dict[str, Any]:
        f, d = item
        w = witness(f.path, f.display, f.text, d, f.launches, f.flags, analysis.fixed_text(f.text, d),
                    timeout=timeout, flag_tiles=f.flag_tiles)
        return {"code": d.code, "path": f.display, "line": d.line, "witness": w.to_dict(),
                "seconds": round(w.seconds, 2)}

    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        items = list(pool.map(one, work))
    return {"package": package.name, "exit": 0, "items": items, "stderr": "\n".join(errors)[-400:],
            "seconds": round(time.monotonic() - t0), "findings": total}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("packages", nargs="+")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--at-once", type=int, default=1)
    parser.add_argument("--sample", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--from-json", action="store_true", help="PACKAGE_DIRs are --json outputs: tabulate them")
    parser.add_argument("--json")
    args = parser.parse_args()
    if args.from_json:
        results = [r for p in args.packages for r in json.loads(Path(p).read_text())]
    elif args.sample:
        results = [run_sample(Path(p).resolve(), args.jobs, args.timeout, args.sample, args.seed)
                   for p in args.packages]
        for r in results:
            print(f"{r['package']}: {len(r['items'])} of {r['findings']} default findings witnessed")
    else:
        with concurrent.futures.ThreadPoolExecutor(args.at_once) as pool:
            results = list(pool.map(lambda p: run(Path(p).resolve(), args.jobs, args.timeout), args.packages))
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
    print("\nper package and rule:")
    for r in results:
        per: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
        for i in r["items"]:
            per[i["code"]][_status(i)] += 1
        for code, c in sorted(per.items()):
            print(f"  {r['package']} {code}: " + ", ".join(f"{c[s]} {s}" for s in STATUSES if c[s]))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
