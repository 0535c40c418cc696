"""Long fuzz run on demand: N generated kernels through check and fix, with counts.

Usage:
    python scripts/fuzz_long.py [-n 20000] [--jobs CORES] [--start SEED] [--detection-share 0.3]
    python scripts/fuzz_long.py --seed SEED --show        # print one generated kernel and its failures

Example i (seed = start + i) is a detection case when `random.Random(seed).random()` is below the
detection share, else a generic case (tests/fuzz_kernels.py says what each checks). Prints
examples tried, crashes, bad fixes and missed detections, and the first failures by seed; with
--out DIR writes every failing kernel there as seed-<N>.py. Exits 1 when anything failed.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))


def _rules_from_the_tree() -> None:
    """Without an install, map rules/ to tritonlint.rules as pyproject's package-dir does."""
    import importlib.util

    try:
        importlib.import_module("tritonlint.rules")
    except ModuleNotFoundError:
        spec = importlib.util.spec_from_file_location("tritonlint.rules", ROOT / "rules" / "__init__.py",
                                                      submodule_search_locations=[str(ROOT / "rules")])
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["tritonlint.rules"] = module
        spec.loader.exec_module(module)



_rules_from_the_tree()

import fuzz_kernels as fk


def make_case(seed: int, detection_share: float) -> tuple[str, fk.Case]:
    rng = random.Random(seed)
    if rng.random() < detection_share:
        return "detection", fk.detection_case(rng)
    return "generic", fk.generic_case(rng)


def run_one(job: tuple[int, float]) -> tuple[int, str, str, list[str], list[tuple[str, str]], str]:
    seed, share = job
    try:
        mode, case = make_case(seed, share)
    except Exception as error:  # noqa: BLE001 - a generator bug: count it, never hide it
        return seed, "generator", "", [], [("generator", f"{type(error).__name__}: {error}")], ""
    failures = fk.detection_failures(case) if mode == "detection" else fk.generic_failures(case)
    text = case.text if failures else ""
    return seed, mode, case.source, case.mutations, [(f.kind, f.detail) for f in failures], text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=20000, help="examples to generate (default 20000)")
    parser.add_argument("--start", type=int, default=0, help="first seed")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--detection-share", type=float, default=0.3)
    parser.add_argument("--seed", type=int, help="generate and check this one seed")
    parser.add_argument("--show", action="store_true", help="with --seed: print the kernel")
    parser.add_argument("--out", type=Path, help="write failing kernels here as seed-N.py")
    args = parser.parse_args()

    if args.seed is not None:
        seed, mode, source, mutations, failures, _ = run_one((args.seed, args.detection_share))
        _, case = make_case(args.seed, args.detection_share)
        if args.show:
            sys.stdout.write(case.text + "\n")
        print(f"seed {seed}: {mode} from {source}, mutations {mutations}, targets {case.targets}")
        for kind, detail in failures:
            print(f"  {kind}: {detail}")
        return 1 if failures else 0

    started = time.time()
    counts: collections.Counter[str] = collections.Counter()
    modes: collections.Counter[str] = collections.Counter()
    failed: list[tuple[int, str, str, list[str], str, str]] = []
    jobs = [(seed, args.detection_share) for seed in range(args.start, args.start + args.n)]
    with concurrent.futures.ProcessPoolExecutor(args.jobs) as pool:
        for seed, mode, source, mutations, failures, text in pool.map(run_one, jobs, chunksize=16):
            modes[mode] += 1
            for kind, detail in failures:
                counts[kind] += 1
                failed.append((seed, mode, source, mutations, kind, detail))
            if failures and args.out and len(failed) <= 200:
                args.out.mkdir(parents=True, exist_ok=True)
                (args.out / f"seed-{seed}.py").write_bytes(text.encode("utf-8"))
    elapsed = time.time() - started
    print(f"examples tried: {sum(modes.values())} ({modes['generic']} generic, {modes['detection']} detection) "
          f"in {elapsed:.0f} s on {args.jobs} processes, seeds {args.start}..{args.start + args.n - 1}")
    print(f"crashes: {counts['crash']}")
    print(f"bad fixes: {counts['bad-fix']}")
    print(f"missed detections: {counts['missed']}")
    print(f"generator errors: {counts['generator']}")
    by_detail = collections.Counter(detail.split(":")[0][:80] for *_, detail in failed)
    for detail, number in by_detail.most_common(20):
        print(f"  {number:6d}  {detail}")
    for seed, mode, source, mutations, kind, detail in failed[:40]:
        print(f"seed {seed} [{mode}] {source} {mutations}: {kind}: {detail[:240]}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
