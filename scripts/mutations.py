"""Behaviour-level mutation campaign: hand-made edits that change what a user sees, each run against its tests.

    python scripts/mutations.py                 # every mutation; prints the table, exit 1 on a survivor
    python scripts/mutations.py M01 M07         # only these
    python scripts/mutations.py --list          # the mutations, without running them
    python scripts/mutations.py --probe-only    # only confirm each mutation changes its probe's output

Each mutation names a feature the README promises, a snippet of the package's source (found by
searching `tritonlint/` and `rules/` for it, not by path, so files can move; it must occur exactly
once), its replacement, a probe (a `tritonlint` command line whose output the mutation must change:
otherwise the mutation is not one a user could see, and is reported as such) and the test files to
run against it. Mutations are applied one at a time to a fresh copy of this checkout's tracked files
(the working tree's contents, uncommitted edits included), run with PYTHONPATH pointing at the
copy; the checkout is never touched. docs/testing/mutations.md keeps the table and the reading of
every survivor.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("tritonlint", "rules")
B = "tests/data/behaviours"
FX = "fixtures"


@dataclass(frozen=True)
class Mutation:
    key: str
    feature: str
    find: str
    replace: str
    probe: tuple[str, ...]  # tritonlint arguments, run in the copy's root
    tests: tuple[str, ...]  # pytest node ids or files, relative to the root
    stdin: str = ""  # a file of the copy fed to the probe's standard input


def m(key: str, feature: str, find: str, replace: str, probe: str, *tests: str, stdin: str = "") -> Mutation:
    return Mutation(key, feature, find, replace, tuple(probe.split()), tests, stdin)


BEHAVIOURS = "tests/test_behaviours.py"
SERVER = "tests/test_server_protocol.py"
CHECK = "check --no-cache --exit-zero"

MUTATIONS: list[Mutation] = [
]


def tracked(root: Path) -> list[str]:
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=root,
                         capture_output=True, check=True).stdout
    return [name for name in out.decode().split("\0") if name and (root / name).is_file()]


def copy_tree(root: Path, target: Path) -> None:
    for name in tracked(root):
        destination = target / name
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / name, destination)


def locate(tree: Path, snippet: str) -> list[tuple[Path, int]]:
    found = []
    for source in SOURCES:
        for path in sorted((tree / source).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            start = text.find(snippet)
            while start != -1:
                found.append((path, start))
                start = text.find(snippet, start + 1)
    return found


def environment(tree: Path, cache: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "NO_COLOR")}
    env.update(PYTHONPATH=str(tree), TRITONLINT_CACHE_DIR=str(cache), PYTHONDONTWRITEBYTECODE="1")
    return env


def probe(tree: Path, mutation: Mutation, env: dict[str, str]) -> str:
    stdin = (tree / mutation.stdin).read_bytes() if mutation.stdin else b""
    done = subprocess.run([sys.executable, "-m", "tritonlint", *mutation.probe], cwd=tree, env=env, input=stdin,
                          capture_output=True, timeout=300, check=False)
    return f"exit {done.returncode}\n{done.stdout.decode(errors='replace')}\n{done.stderr.decode(errors='replace')}"


def run_one(mutation: Mutation, template: Path, work: Path, probe_only: bool) -> tuple[str, str, float]:
    """(outcome, detail, seconds): outcome is killed, survived, invisible (the probe did not change) or bad."""
    started = time.monotonic()
    tree = work / mutation.key
    shutil.copytree(template, tree)
    cache = work / f"{mutation.key}-cache"
    env = environment(tree, cache)
    try:
        places = locate(tree, mutation.find)
        if len(places) != 1:
            return "bad", f"snippet found {len(places)} times", time.monotonic() - started
        before = probe(tree, mutation, env)
        path, start = places[0]
        text = path.read_text(encoding="utf-8")
        path.write_text(text[:start] + mutation.replace + text[start + len(mutation.find):], encoding="utf-8")
        after = probe(tree, mutation, env)
        if after == before:
            return "invisible", "the probe's output did not change", time.monotonic() - started
        if probe_only:
            return "visible", "", time.monotonic() - started
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:randomly", "-p", "no:cacheprovider",
                               *mutation.tests], cwd=tree, env=env, capture_output=True, text=True, timeout=900,
                              check=False)
        last = (done.stdout.strip().splitlines() or [""])[-1]
        if done.returncode == 1:
            failed = [line.split(" ")[1] for line in done.stdout.splitlines() if line.startswith("FAILED ")]
            return "killed", (failed[0] if failed else last), time.monotonic() - started
        if done.returncode == 0:
            return "survived", last, time.monotonic() - started
        return "bad", f"pytest exit {done.returncode}: {last}", time.monotonic() - started
    finally:
        shutil.rmtree(tree, ignore_errors=True)
        shutil.rmtree(cache, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("keys", nargs="*", help="mutation keys (default: all)")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--probe-only", action="store_true")
    args = parser.parse_args(argv)
    chosen = [mu for mu in MUTATIONS if not args.keys or mu.key in args.keys]
    if args.list:
        for mu in chosen:
            print(f"{mu.key}  {mu.feature}: `{mu.find}` -> `{mu.replace}`")
        return 0
    counts: dict[str, int] = {}
    total = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="tritonlint-mutations-") as scratch:
        work = Path(scratch)
        template = work / "clean"
        copy_tree(ROOT, template)
        print("| key | feature | mutation | outcome | killed by | s |")
        print("| --- | --- | --- | --- | --- | --- |")
        for mu in chosen:
            outcome, detail, seconds = run_one(mu, template, work, args.probe_only)
            counts[outcome] = counts.get(outcome, 0) + 1
            shown = f"`{mu.find.strip()}` -> `{mu.replace.strip()}`".replace("|", "\\|")
            print(f"| {mu.key} | {mu.feature} | {shown} | {outcome} | {detail.replace('|', '/')} | {seconds:.0f} |",
                  flush=True)
    killed = counts.get("killed", 0)
    judged = killed + counts.get("survived", 0)
    summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
    rate = f"{killed}/{judged} killed ({100 * killed / judged:.0f} %)" if judged else "none judged"
    print(f"\n{len(chosen)} mutations: {summary}; {rate}; {time.monotonic() - total:.0f} s")
    return 0 if counts.get("survived", 0) == counts.get("bad", 0) == counts.get("invisible", 0) == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
